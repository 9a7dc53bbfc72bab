/*
 * toml: the bounded TOML subset reader described in toml.h.
 *
 * A single forward pass with a cursor (pos, line, col). Every byte read is
 * preceded by a `pos < len` check (peek() returns -1 at the end), so the input
 * need not be NUL-terminated and no offset arithmetic can leave the buffer.
 * Columns count bytes, 1-based, as GitHub annotations do for ASCII lines.
 */
#include "util/toml.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/text.h"
#include "util/utf.h"

struct tp {
	const char *buf;
	size_t len, pos;
	unsigned line, col;
	struct toml_doc *doc;
	struct err *err;
	int depth;
};

static int tp_error(struct tp *p, unsigned line, unsigned col, const char *fmt, ...) ERR_PRINTF(4, 5);

static int tp_error(struct tp *p, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(p->err, "%u:%u: %s", line, col, msg);
}

static int peek(const struct tp *p)
{
	return p->pos < p->len ? (unsigned char)p->buf[p->pos] : -1;
}

static int peek_at(const struct tp *p, size_t ahead)
{
	return (p->pos < p->len && p->len - p->pos > ahead) ? (unsigned char)p->buf[p->pos + ahead] : -1;
}

static void advance(struct tp *p)
{
	if (p->pos >= p->len)
		return;
	if (p->buf[p->pos] == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->pos++;
}

static struct toml *node_new(struct tp *p, enum toml_type type, unsigned line, unsigned col)
{
	struct toml *t;
	if (p->doc->nodes >= TOML_MAX_NODES) {
		tp_error(p, line, col, "more than %d values: refusing to read further", TOML_MAX_NODES);
		return NULL;
	}
	p->doc->nodes++;
	t = xcalloc(1, sizeof(*t));
	t->type = type;
	t->line = line;
	t->col = col;
	return t;
}

static void node_free(struct toml *t)
{
	size_t i;
	if (!t)
		return;
	for (i = 0; i < t->n_kv; i++) {
		free(t->kv[i].key);
		node_free(t->kv[i].val);
	}
	free(t->kv);
	strmap_release(&t->index);
	for (i = 0; i < t->n_items; i++)
		node_free(t->items[i]);
	free(t->items);
	free(t->str);
	free(t);
}

const char *toml_type_name(enum toml_type t)
{
	switch (t) {
	case TOML_TABLE: return "a table";
	case TOML_ARRAY: return "an array";
	case TOML_STRING: return "a string";
	case TOML_SCALAR: return "a number, boolean or date";
	}
	return "a value";
}

/*
 * Keys are found through a hash of the table's keys once it has more than
 * TOML_INDEX_MIN of them: a table of 4,096 keys checked each new key
 * against every earlier one (duplicates are an error), so its cost grew
 * with the square of its size.
 */
#define TOML_INDEX_MIN 8

static struct toml_kv *kv_find(const struct toml *t, const char *key)
{
	size_t i;
	if (!t->index.n) {
		for (i = 0; i < t->n_kv; i++)
			if (!strcmp(t->kv[i].key, key))
				return &t->kv[i];
		return NULL;
	}
	return strmap_get(&t->index, key, &i) ? &t->kv[i] : NULL;
}

const struct toml *toml_get(const struct toml *t, const char *key)
{
	const struct toml_kv *kv;
	if (!t || t->type != TOML_TABLE)
		return NULL;
	kv = kv_find(t, key);
	return kv ? kv->val : NULL;
}

const struct toml *toml_path(const struct toml *t, const char *path)
{
	char key[128];
	while (t && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		t = toml_get(t, key);
		path += n;
		if (*path == '.')
			path++;
	}
	return t;
}

const char *toml_str(const struct toml *t)
{
	return t && t->type == TOML_STRING ? t->str : NULL;
}

static int table_add(struct tp *p, struct toml *tab, char *key, struct toml *val, unsigned line, unsigned col)
{
	size_t i;
	if (tab->n_kv >= TOML_MAX_KEYS) {
		free(key);
		node_free(val);
		return tp_error(p, line, col, "more than %d keys in one table", TOML_MAX_KEYS);
	}
	ALLOC_GROW(tab->kv, tab->n_kv + 1, tab->alloc_kv);
	tab->kv[tab->n_kv].key = key;
	tab->kv[tab->n_kv].val = val;
	tab->n_kv++;
	if (tab->index.n)
		strmap_add(&tab->index, key, tab->n_kv - 1);
	else if (tab->n_kv > TOML_INDEX_MIN)
		for (i = 0; i < tab->n_kv; i++)
			strmap_add(&tab->index, tab->kv[i].key, i);
	return 0;
}

static struct toml *table_find(struct toml *tab, const char *key)
{
	struct toml_kv *kv = kv_find(tab, key);
	return kv ? kv->val : NULL;
}

static void skip_ws(struct tp *p)
{
	while (peek(p) == ' ' || peek(p) == '\t')
		advance(p);
}

static int skip_comment(struct tp *p)
{
	int c;
	if (peek(p) != '#')
		return 0;
	while ((c = peek(p)) != -1 && c != '\n') {
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return tp_error(p, p->line, p->col, "control character 0x%02x in a comment", c);
		advance(p);
	}
	return 0;
}

/* Whitespace, newlines and comments (between array items, between statements). */
static int skip_blank(struct tp *p)
{
	for (;;) {
		int c = peek(p);
		if (c == ' ' || c == '\t' || c == '\n') {
			advance(p);
		} else if (c == '\r' && peek_at(p, 1) == '\n') {
			advance(p);
		} else if (c == '#') {
			if (skip_comment(p))
				return -1;
		} else {
			return 0;
		}
	}
}

/* After a statement: spaces, an optional comment, then a newline or the end. */
static int expect_eol(struct tp *p, const char *after)
{
	int c;
	skip_ws(p);
	if (skip_comment(p))
		return -1;
	c = peek(p);
	if (c == '\r' && peek_at(p, 1) == '\n')
		advance(p), c = '\n';
	if (c == -1)
		return 0;
	if (c == '\n') {
		advance(p);
		return 0;
	}
	return tp_error(p, p->line, p->col, "expected the end of the line after %s, found '%c'", after,
			c >= 0x20 && c < 0x7f ? c : '?');
}

static int is_bare(int c)
{
	return ascii_isalnum(c) || c == '_' || c == '-';
}

static int parse_escape(struct tp *p, struct strbuf *sb)
{
	unsigned line = p->line, col = p->col;
	int c, n = 0, i;
	uint32_t cp = 0;
	advance(p); /* the backslash */
	c = peek(p);
	switch (c) {
	case 'b': strbuf_addch(sb, '\b'); break;
	case 't': strbuf_addch(sb, '\t'); break;
	case 'n': strbuf_addch(sb, '\n'); break;
	case 'f': strbuf_addch(sb, '\f'); break;
	case 'r': strbuf_addch(sb, '\r'); break;
	case '"': strbuf_addch(sb, '"'); break;
	case '\\': strbuf_addch(sb, '\\'); break;
	case 'u': n = 4; break;
	case 'U': n = 8; break;
	default:
		return tp_error(p, line, col, "unknown escape sequence in a string");
	}
	advance(p);
	for (i = 0; i < n; i++) {
		int h = hex_digit(peek(p));
		if (h < 0)
			return tp_error(p, line, col, "\\%c needs %d hex digits", c, n);
		cp = (cp << 4) | (uint32_t)h;
		advance(p);
	}
	if (n) {
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return tp_error(p, line, col, "escape is not a Unicode scalar value");
		utf8_put(sb, cp);
	}
	return 0;
}

/*
 * A string at the cursor (on its opening quote). line and col receive the
 * position of its first character, inside the quotes.
 */
static int parse_string(struct tp *p, char **out, unsigned *line, unsigned *col)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned sl = p->line, sc = p->col;
	int q = peek(p), multi = 0;

	if (peek_at(p, 1) == q && peek_at(p, 2) == q) {
		multi = 1;
		advance(p), advance(p), advance(p);
		/* A newline right after the opening delimiter is trimmed. */
		if (peek(p) == '\r' && peek_at(p, 1) == '\n')
			advance(p);
		if (peek(p) == '\n')
			advance(p);
	} else {
		advance(p);
	}
	*line = p->line;
	*col = p->col;
	for (;;) {
		int c = peek(p);
		if (c == -1) {
			strbuf_release(&sb);
			return tp_error(p, sl, sc, "unterminated string");
		}
		if (c == q) {
			if (!multi) {
				advance(p);
				break;
			}
			if (peek_at(p, 1) == q && peek_at(p, 2) == q) {
				/* Up to two quotes may end the content: """a"""" is a" */
				int extra = 0;
				while (extra < 2 && peek_at(p, (size_t)3 + (size_t)extra) == q)
					extra++;
				while (extra--) {
					strbuf_addch(&sb, q);
					advance(p);
				}
				advance(p), advance(p), advance(p);
				break;
			}
			strbuf_addch(&sb, c);
			advance(p);
			continue;
		}
		if (c == '\n' || c == '\r') {
			if (!multi) {
				strbuf_release(&sb);
				return tp_error(p, sl, sc, "unterminated string (newline before the closing quote)");
			}
			if (c == '\r' && peek_at(p, 1) != '\n') {
				strbuf_release(&sb);
				return tp_error(p, p->line, p->col, "bare carriage return in a string");
			}
			if (c == '\n')
				strbuf_addch(&sb, '\n');
			advance(p);
			continue;
		}
		if (c == '\\' && q == '"') {
			if (multi) {
				/* Line-ending backslash: trims the newline and the whitespace after it. */
				size_t k = 1;
				int w;
				while ((w = peek_at(p, k)) == ' ' || w == '\t')
					k++;
				if (w == '\n' || (w == '\r' && peek_at(p, k + 1) == '\n')) {
					advance(p);
					while ((w = peek(p)) == ' ' || w == '\t' || w == '\n' || w == '\r')
						advance(p);
					continue;
				}
			}
			if (parse_escape(p, &sb)) {
				strbuf_release(&sb);
				return -1;
			}
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			unsigned l = p->line, cc = p->col;
			strbuf_release(&sb);
			return tp_error(p, l, cc, "control character 0x%02x in a string", c);
		}
		strbuf_addch(&sb, c);
		advance(p);
	}
	if (strlen(strbuf_str(&sb)) != sb.len) {
		strbuf_release(&sb);
		return tp_error(p, sl, sc, "NUL character in a string");
	}
	*out = strbuf_detach(&sb);
	return 0;
}

/* One key segment: bare or quoted. */
static int parse_key_part(struct tp *p, char **out)
{
	int c = peek(p);
	unsigned l, cc;
	if (c == '"' || c == '\'') {
		if (peek_at(p, 1) == c && peek_at(p, 2) == c)
			return tp_error(p, p->line, p->col, "multi-line strings cannot be keys");
		return parse_string(p, out, &l, &cc);
	}
	if (!is_bare(c))
		return tp_error(p, p->line, p->col, "expected a key");
	{
		size_t start = p->pos;
		while (is_bare(peek(p)))
			advance(p);
		*out = xstrndup(p->buf + start, p->pos - start);
	}
	return 0;
}

/* A dotted key into `parts` (caller releases). */
static int parse_key(struct tp *p, struct strlist *parts)
{
	for (;;) {
		char *k;
		skip_ws(p);
		if (parse_key_part(p, &k))
			return -1;
		if (parts->n >= 32) {
			free(k);
			return tp_error(p, p->line, p->col, "a dotted key with more than 32 parts");
		}
		strlist_push_owned(parts, k);
		skip_ws(p);
		if (peek(p) != '.')
			return 0;
		advance(p);
	}
}

static int parse_value(struct tp *p, struct toml **out);

/* At the end of the input inside an array or inline table: the error, at its opening bracket. */
static int array_unterminated(struct tp *p, const struct toml *a)
{
	return peek(p) == -1 ? tp_error(p, a->line, a->col, "unterminated array (missing ']')") : 0;
}

static int inline_table_unterminated(struct tp *p, const struct toml *t)
{
	return peek(p) == -1 ? tp_error(p, t->line, t->col, "unterminated inline table (missing '}')") : 0;
}

static int parse_array(struct tp *p, struct toml **out)
{
	struct toml *a = node_new(p, TOML_ARRAY, p->line, p->col);
	if (!a)
		return -1;
	a->closed = 1;
	advance(p); /* [ */
	for (;;) {
		struct toml *v;
		if (skip_blank(p) || array_unterminated(p, a))
			goto fail;
		if (peek(p) == ']') {
			advance(p);
			break;
		}
		if (parse_value(p, &v))
			goto fail;
		ALLOC_GROW(a->items, a->n_items + 1, a->alloc_items);
		a->items[a->n_items++] = v;
		if (skip_blank(p) || array_unterminated(p, a))
			goto fail;
		if (peek(p) == ',') {
			advance(p);
			continue;
		}
		if (peek(p) == ']') {
			advance(p);
			break;
		}
		tp_error(p, p->line, p->col, "expected ',' or ']' in an array");
		goto fail;
	}
	*out = a;
	return 0;
fail:
	node_free(a);
	return -1;
}

static int assign(struct tp *p, struct toml *tab, struct strlist *key, struct toml *val, unsigned line,
		  unsigned col);

static int parse_inline_table(struct tp *p, struct toml **out)
{
	struct toml *t = node_new(p, TOML_TABLE, p->line, p->col);
	int first = 1;
	if (!t)
		return -1;
	advance(p); /* { */
	for (;;) {
		struct strlist key = STRLIST_INIT;
		struct toml *v;
		unsigned kl, kc;
		if (skip_blank(p) || inline_table_unterminated(p, t))
			goto fail;
		if (peek(p) == '}' && first) {
			advance(p);
			break;
		}
		first = 0;
		kl = p->line;
		kc = p->col;
		if (parse_key(p, &key)) {
			strlist_release(&key);
			goto fail;
		}
		skip_ws(p);
		if (peek(p) != '=') {
			strlist_release(&key);
			tp_error(p, p->line, p->col, "expected '=' after a key");
			goto fail;
		}
		advance(p);
		skip_ws(p);
		if (parse_value(p, &v)) {
			strlist_release(&key);
			goto fail;
		}
		if (assign(p, t, &key, v, kl, kc)) {
			strlist_release(&key);
			goto fail;
		}
		strlist_release(&key);
		if (skip_blank(p) || inline_table_unterminated(p, t))
			goto fail;
		if (peek(p) == ',') {
			advance(p);
			continue;
		}
		if (peek(p) == '}') {
			advance(p);
			break;
		}
		tp_error(p, p->line, p->col, "expected ',' or '}' in an inline table");
		goto fail;
	}
	t->closed = 1;
	*out = t;
	return 0;
fail:
	node_free(t);
	return -1;
}

static int is_scalar_char(int c)
{
	return is_bare(c) || c == '+' || c == '.' || c == ':';
}

static int parse_value(struct tp *p, struct toml **out)
{
	int c = peek(p), r;
	unsigned line = p->line, col = p->col;

	if (p->depth >= TOML_MAX_DEPTH)
		return tp_error(p, line, col, "values nested deeper than %d", TOML_MAX_DEPTH);
	if (c == '"' || c == '\'') {
		struct toml *t;
		char *s;
		unsigned sl, sc;
		if (parse_string(p, &s, &sl, &sc))
			return -1;
		t = node_new(p, TOML_STRING, sl, sc);
		if (!t) {
			free(s);
			return -1;
		}
		t->str = s;
		*out = t;
		return 0;
	}
	if (c == '[' || c == '{') {
		p->depth++;
		r = c == '[' ? parse_array(p, out) : parse_inline_table(p, out);
		p->depth--;
		return r;
	}
	if (c >= '0' && c <= '9') {
		/* A local date-time may use a space: "1979-05-27 07:32:00" (not supported). */
		size_t start = p->pos;
		struct toml *t;
		while (is_scalar_char(peek(p)))
			advance(p);
		if (peek(p) == ' ' && peek_at(p, 1) >= '0' && peek_at(p, 1) <= '9' &&
		    memchr(p->buf + start, '-', p->pos - start))
			return tp_error(p, line, col, "date-times with a space are not supported (use 'T')");
		t = node_new(p, TOML_SCALAR, line, col);
		if (!t)
			return -1;
		t->str = xstrndup(p->buf + start, p->pos - start);
		*out = t;
		return 0;
	}
	if (c == '+' || c == '-' || c == 't' || c == 'f' || c == 'i' || c == 'n') {
		size_t start = p->pos;
		struct toml *t;
		char *s;
		while (is_scalar_char(peek(p)))
			advance(p);
		s = xstrndup(p->buf + start, p->pos - start);
		if (c == 't' || c == 'f' || c == 'i' || c == 'n') {
			if (strcmp(s, "true") && strcmp(s, "false") && strcmp(s, "inf") && strcmp(s, "nan")) {
				free(s);
				return tp_error(p, line, col, "expected a value (string, number, boolean, array or table)");
			}
		} else if (!s[1]) {
			free(s);
			return tp_error(p, line, col, "expected a number after '%c'", c);
		}
		t = node_new(p, TOML_SCALAR, line, col);
		if (!t) {
			free(s);
			return -1;
		}
		t->str = s;
		*out = t;
		return 0;
	}
	if (c == -1 || c == '\n' || c == '\r' || c == '#')
		return tp_error(p, line, col, "expected a value after '='");
	return tp_error(p, line, col, "expected a value (string, number, boolean, array or table)");
}

static char *join_key(const struct strlist *key, size_t upto)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	for (i = 0; i < upto && i < key->n; i++) {
		if (i)
			strbuf_addch(&sb, '.');
		strbuf_adds(&sb, key->v[i]);
	}
	return strbuf_detach(&sb);
}

/* `a.b.c = v` inside table `tab`: intermediate tables are created as dotted tables. */
static int assign(struct tp *p, struct toml *tab, struct strlist *key, struct toml *val, unsigned line,
		  unsigned col)
{
	size_t i;
	for (i = 0; i + 1 < key->n; i++) {
		struct toml *next = table_find(tab, key->v[i]);
		if (!next) {
			next = node_new(p, TOML_TABLE, line, col);
			if (!next)
				goto fail;
			next->dotted = 1;
			if (table_add(p, tab, xstrdup(key->v[i]), next, line, col))
				goto fail_quiet;
		} else if (next->type != TOML_TABLE || next->closed || next->header) {
			char *k = join_key(key, i + 1);
			tp_error(p, line, col, "key \"%s\" is already defined as %s", k,
				 next->type == TOML_TABLE ? "a table" : toml_type_name(next->type));
			free(k);
			goto fail_quiet;
		}
		tab = next;
	}
	if (table_find(tab, key->v[key->n - 1])) {
		char *k = join_key(key, key->n);
		tp_error(p, line, col, "duplicate key \"%s\"", k);
		free(k);
		goto fail_quiet;
	}
	return table_add(p, tab, xstrdup(key->v[key->n - 1]), val, line, col);
fail:
fail_quiet:
	node_free(val);
	return -1;
}

/* [a.b.c] or [[a.b.c]]: returns the table that following key/values go into. */
static int open_table(struct tp *p, struct strlist *key, int aot, unsigned line, unsigned col,
		      struct toml **cur)
{
	struct toml *tab = p->doc->root;
	size_t i;
	for (i = 0; i + 1 < key->n; i++) {
		struct toml *next = table_find(tab, key->v[i]);
		if (!next) {
			next = node_new(p, TOML_TABLE, line, col);
			if (!next || table_add(p, tab, xstrdup(key->v[i]), next, line, col))
				return -1;
		} else if (next->type == TOML_ARRAY && next->aot && next->n_items) {
			next = next->items[next->n_items - 1];
		} else if (next->type != TOML_TABLE || next->closed) {
			char *k = join_key(key, i + 1);
			tp_error(p, line, col, "key \"%s\" is already defined as %s", k,
				 toml_type_name(next->type));
			free(k);
			return -1;
		}
		tab = next;
	}
	{
		const char *last = key->v[key->n - 1];
		struct toml *t = table_find(tab, last);
		char *k = join_key(key, key->n);
		if (aot) {
			struct toml *elem;
			if (!t) {
				t = node_new(p, TOML_ARRAY, line, col);
				if (!t || table_add(p, tab, xstrdup(last), t, line, col)) {
					free(k);
					return -1;
				}
				t->aot = 1;
			} else if (t->type != TOML_ARRAY || !t->aot) {
				tp_error(p, line, col, "[[%s]] redefines a key that is %s", k,
					 toml_type_name(t->type));
				free(k);
				return -1;
			}
			elem = node_new(p, TOML_TABLE, line, col);
			if (!elem) {
				free(k);
				return -1;
			}
			elem->header = 1;
			ALLOC_GROW(t->items, t->n_items + 1, t->alloc_items);
			t->items[t->n_items++] = elem;
			*cur = elem;
		} else {
			if (!t) {
				t = node_new(p, TOML_TABLE, line, col);
				if (!t || table_add(p, tab, xstrdup(last), t, line, col)) {
					free(k);
					return -1;
				}
			} else if (t->type != TOML_TABLE || t->closed) {
				tp_error(p, line, col, "[%s] redefines a key that is %s", k, toml_type_name(t->type));
				free(k);
				return -1;
			} else if (t->header || t->dotted) {
				tp_error(p, line, col, "table [%s] is defined twice", k);
				free(k);
				return -1;
			}
			t->header = 1;
			t->line = line;
			t->col = col;
			*cur = t;
		}
		free(k);
	}
	return 0;
}

/* A [table] or [[array of tables]] header line; *cur receives the table that follows it. */
static int header_line(struct tp *p, struct toml **cur)
{
	struct strlist key = STRLIST_INIT;
	unsigned line = p->line, col = p->col;
	int aot = peek_at(p, 1) == '[', rc;
	advance(p);
	if (aot)
		advance(p);
	if (parse_key(p, &key)) {
		strlist_release(&key);
		return -1;
	}
	if (peek(p) != ']' || (aot && peek_at(p, 1) != ']')) {
		strlist_release(&key);
		return tp_error(p, p->line, p->col, "expected '%s' to close the table header", aot ? "]]" : "]");
	}
	advance(p);
	if (aot)
		advance(p);
	rc = open_table(p, &key, aot, line, col, cur);
	strlist_release(&key);
	return rc ? -1 : expect_eol(p, "a table header");
}

/* A `key = value` line into table cur. */
static int keyval_line(struct tp *p, struct toml *cur)
{
	struct strlist key = STRLIST_INIT;
	unsigned line = p->line, col = p->col;
	struct toml *v;
	int rc = -1;
	if (parse_key(p, &key))
		goto out;
	skip_ws(p);
	if (peek(p) != '=') {
		tp_error(p, p->line, p->col, "expected '=' after a key");
		goto out;
	}
	advance(p);
	skip_ws(p);
	if (parse_value(p, &v) || assign(p, cur, &key, v, line, col))
		goto out;
	rc = 0;
out:
	strlist_release(&key);
	return rc ? -1 : expect_eol(p, "a value");
}

int toml_parse(struct toml_doc *doc, const char *buf, size_t len, struct err *err)
{
	struct tp p;
	struct toml *cur;

	memset(&p, 0, sizeof(p));
	p.buf = buf;
	p.len = len;
	p.line = 1;
	p.col = 1;
	p.doc = doc;
	p.err = err;
	doc->nodes = 0;
	doc->root = NULL;
	doc->root = node_new(&p, TOML_TABLE, 1, 1);
	cur = doc->root;
	/* A UTF-8 byte order mark is allowed at the very start. */
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		p.pos = 3;
	for (;;) {
		int c;
		if (skip_blank(&p))
			goto fail;
		c = peek(&p);
		if (c == -1)
			break;
		if (c == '[' ? header_line(&p, &cur) : keyval_line(&p, cur))
			goto fail;
	}
	return 0;
fail:
	toml_doc_release(doc);
	return -1;
}

void toml_doc_release(struct toml_doc *doc)
{
	node_free(doc->root);
	doc->root = NULL;
	doc->nodes = 0;
}
