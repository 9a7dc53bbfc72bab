/*
 * yamltree: a YAML document as a tree with positions (contracts in
 * yamltree.h).
 */
#include "util/yamltree.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/strbuf.h"
#include "util/text.h"
#include "util/utf.h"

#define YT_DEPTH_CAP 64

static long yt_fail(struct ytree_error *e, unsigned line, unsigned col, const char *fmt, ...) ERR_PRINTF(4, 5);

static long yt_fail(struct ytree_error *e, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	e->line = line;
	e->col = col;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* ---- bytes ---- */

long ytree_check_bytes(const unsigned char *p, size_t len, struct ytree_error *e)
{
	size_t i = 0, start = 0, k;
	unsigned line = 1, col = 1;
	if (len >= 4 && ((p[0] == 0 && p[1] == 0 && p[2] == 0xfe && p[3] == 0xff) ||
			 (p[0] == 0xff && p[1] == 0xfe && p[2] == 0 && p[3] == 0)))
		return yt_fail(e, 1, 1, "the file is UTF-32; save it as UTF-8");
	if (len >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] == 0xfe && p[1] == 0xff)))
		return yt_fail(e, 1, 1, "the file is UTF-16 (it starts with a byte order mark); save it as UTF-8");
	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		start = i = 3;
	while (i < len) {
		unsigned c = p[i];
		size_t n;
		if (c == '\n' || (c == '\r' && (i + 1 >= len || p[i + 1] != '\n'))) {
			line++; /* LF, CR LF or a lone CR: each is one line break for libyaml too */
			col = 1;
			i++;
			continue;
		}
		if (c == 0)
			return yt_fail(e, line, col, "NUL byte: this is not a text file");
		n = c < 0x80 ? 1 : utf8_len(p + i, len - i);
		if (n) {
			i += n;
			col++;
			continue;
		}
		/* not UTF-8: say how, so that the user knows what to fix */
		if (c < 0xc2 || c > 0xf4)
			return yt_fail(e, line, col, "invalid UTF-8 (byte 0x%02x); save the file as UTF-8", c);
		n = c <= 0xdf ? 1 : c <= 0xef ? 2 : 3;
		for (k = 1; k <= n; k++) {
			if (i + k >= len)
				return yt_fail(e, line, col, "invalid UTF-8 (truncated sequence at the end of the file)");
			if ((p[i + k] & 0xc0) != 0x80)
				return yt_fail(e, line, col,
					       "invalid UTF-8 (byte 0x%02x is not followed by a continuation byte; Latin-1 or Windows-1252 text?); save the file as UTF-8",
					       c);
		}
		return yt_fail(e, line, col, "invalid UTF-8 (overlong or surrogate sequence); save the file as UTF-8");
	}
	return (long)start;
}

/* ---- tree ---- */

void ynode_free(struct ynode *y)
{
	size_t i;
	if (!y)
		return;
	for (i = 0; i < y->n; i++)
		ynode_free(y->kid[i]);
	free(y->kid);
	free(y->s);
	free(y);
}

static struct ynode *ynode_new(enum ykind kind, yaml_mark_t mark)
{
	struct ynode *y = xcalloc(1, sizeof(*y));
	y->kind = kind;
	y->line = (unsigned)mark.line + 1;
	y->col = (unsigned)mark.column + 1;
	return y;
}

const struct ynode *ynode_get(const struct ynode *map, const char *key)
{
	size_t i;
	if (!map || map->kind != Y_MAP)
		return NULL;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->kid[i]->kind == Y_SCALAR && !strcmp(map->kid[i]->s, key))
			return map->kid[i + 1];
	return NULL;
}

/* `(torch: "x")` or `("x")` */
static const char *example(const struct ytree_opts *o, const char *val, char *buf, size_t n)
{
	char q[128];
	text_excerpt(val, strlen(val), 60, q, sizeof(q));
	if (o->quote_key)
		snprintf(buf, n, "(%s: \"%s\")", o->quote_key, q);
	else
		snprintf(buf, n, "(\"%s\")", q);
	return buf;
}

/* Refuses anchors and tags (other than !!str) on a node event, as the flags say. */
static int check_props(const struct ytree_opts *o, yaml_mark_t m, const yaml_char_t *anchor,
		       const yaml_char_t *tag, struct ytree_error *e)
{
	char buf[128], ex[200];
	unsigned line = (unsigned)m.line + 1, col = (unsigned)m.column + 1;
	if (anchor && (o->flags & YT_REFUSE_ANCHORS)) {
		const char *a = (const char *)anchor;
		return (int)yt_fail(e, line, col, "anchors (&%s) are not allowed in %s; write the value out",
				    text_excerpt(a, strlen(a), 60, buf, sizeof(buf)), o->in);
	}
	if (tag && (o->flags & YT_REFUSE_TAGS) && strcmp((const char *)tag, "tag:yaml.org,2002:str")) {
		const char *t = (const char *)tag;
		if (t[0] == '!' && t[1] == '=')
			return (int)yt_fail(e, line, col, "\"!\" starts a YAML tag here; quote the specifier %s",
					    example(o, t, ex, sizeof(ex)));
		return (int)yt_fail(e, line, col, "YAML tags (%s) are not allowed in %s",
				    text_excerpt(t, strlen(t), 60, buf, sizeof(buf)), o->in);
	}
	return 0;
}

static void syntax_error(const struct ytree_opts *o, yaml_parser_t *p, const unsigned char *data, size_t len,
			 struct ytree_error *e)
{
	const char *problem = p->problem ? p->problem : "unknown problem";
	unsigned line = (unsigned)p->problem_mark.line + 1, col = (unsigned)p->problem_mark.column + 1;
	char hint[256] = "", ex[200];
	if (p->error == YAML_MEMORY_ERROR)
		problem = "out of memory";
	if (strstr(problem, "block scalar") || (p->context && strstr(p->context, "block scalar")))
		snprintf(hint, sizeof(hint), "; quote values that start with > or | %s", example(o, ">=2.9", ex, sizeof(ex)));
	else if (strstr(problem, "tab") || (p->problem_mark.index < len && data[p->problem_mark.index] == '\t'))
		snprintf(hint, sizeof(hint), "; indent with spaces, not tabs");
	if (p->context)
		yt_fail(e, line, col, "invalid YAML: %s (%s at line %u)%s", problem, p->context,
			(unsigned)p->context_mark.line + 1, hint);
	else
		yt_fail(e, line, col, "invalid YAML: %s%s", problem, hint);
}

/* The tree being built from libyaml's events. */
struct builder {
	const struct ytree_opts *o;
	struct ytree_error *e;
	struct ynode *root, *stack[YT_DEPTH_CAP];
	size_t depth, nodes, max_depth;
	int docs;
};

/* A scalar event's node, or NULL (failed: e set). */
static struct ynode *scalar_node(struct builder *b, const yaml_event_t *ev, unsigned line, unsigned col)
{
	const struct ytree_opts *o = b->o;
	struct ynode *y;
	if (check_props(o, ev->start_mark, ev->data.scalar.anchor, ev->data.scalar.tag, b->e) < 0)
		return NULL;
	if (ev->data.scalar.length > o->max_scalar) {
		yt_fail(b->e, line, col, "value longer than %zu bytes", o->max_scalar);
		return NULL;
	}
	if ((o->flags & YT_REFUSE_NUL) && memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
		yt_fail(b->e, line, col, "NUL characters (\\0) are not allowed in %s", o->in);
		return NULL;
	}
	y = ynode_new(Y_SCALAR, ev->start_mark);
	y->s = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
	y->len = ev->data.scalar.length;
	if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
		y->len = strlen(y->s); /* "\0" escapes: cut there */
	switch (ev->data.scalar.style) {
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
	case YAML_DOUBLE_QUOTED_SCALAR_STYLE:
		y->quoted = 1;
		break;
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		y->quoted = 2;
		break;
	default:
		y->quoted = 0;
	}
	return y;
}

/* Puts a new node in its parent (or at the root), within the caps; a list or mapping is entered. -1: failed. */
static int attach(struct builder *b, struct ynode *y)
{
	const struct ytree_opts *o = b->o;
	if (++b->nodes > o->max_nodes) {
		yt_fail(b->e, y->line, y->col, "more than %zu YAML nodes", o->max_nodes);
		ynode_free(y);
		return -1;
	}
	if (b->depth && b->stack[b->depth - 1]->n >= o->max_kids) {
		const struct ynode *parent = b->stack[b->depth - 1];
		yt_fail(b->e, y->line, y->col, "more than %zu items in one %s",
			parent->kind == Y_MAP ? o->max_kids / 2 : o->max_kids, parent->kind == Y_MAP ? "mapping" : "list");
		ynode_free(y);
		return -1;
	}
	if (b->depth) {
		struct ynode *parent = b->stack[b->depth - 1];
		ALLOC_GROW(parent->kid, parent->n + 1, parent->alloc);
		parent->kid[parent->n++] = y;
	} else if (!b->root) {
		b->root = y;
	} else {
		ynode_free(y); /* cannot happen in one document; be safe */
		return 0;
	}
	if (y->kind != Y_SCALAR) {
		if (b->depth >= b->max_depth) {
			yt_fail(b->e, y->line, y->col, "nested deeper than %zu levels", b->max_depth);
			return -1;
		}
		b->stack[b->depth++] = y;
	}
	return 0;
}

/* One event: 1 done, 0 go on, -1 failed (e set). */
static int on_event(struct builder *b, const yaml_event_t *ev)
{
	const struct ytree_opts *o = b->o;
	unsigned line = (unsigned)ev->start_mark.line + 1, col = (unsigned)ev->start_mark.column + 1;
	struct ynode *y = NULL;
	char buf[128];
	int seq;
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++b->docs <= 1)
			return 0;
		if (!(o->flags & YT_ONE_DOCUMENT))
			return 1; /* only the first document counts */
		yt_fail(b->e, line, col, "%s holds one YAML document; remove this \"---\" and what follows", o->file);
		return -1;
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_ALIAS_EVENT:
		yt_fail(b->e, line, col, "aliases (*%s) are not allowed in %s; write the value out",
			text_excerpt((const char *)ev->data.alias.anchor, strlen((const char *)ev->data.alias.anchor), 60,
				     buf, sizeof(buf)),
			o->in);
		return -1;
	case YAML_SCALAR_EVENT:
		if (!(y = scalar_node(b, ev, line, col)))
			return -1;
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		seq = ev->type == YAML_SEQUENCE_START_EVENT;
		if (check_props(o, ev->start_mark, seq ? ev->data.sequence_start.anchor : ev->data.mapping_start.anchor,
				seq ? ev->data.sequence_start.tag : ev->data.mapping_start.tag, b->e) < 0)
			return -1;
		y = ynode_new(seq ? Y_SEQ : Y_MAP, ev->start_mark);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth)
			b->depth--;
		return 0;
	default:
		return 0;
	}
	return attach(b, y);
}

struct ynode *ytree_parse(const unsigned char *data, size_t len, const struct ytree_opts *o, int *empty,
			  struct ytree_error *e)
{
	yaml_parser_t p;
	yaml_event_t ev;
	struct builder b;
	int r = 0;

	*empty = 0;
	memset(&b, 0, sizeof(b));
	b.o = o;
	b.e = e;
	b.max_depth = o->max_depth < YT_DEPTH_CAP ? o->max_depth : YT_DEPTH_CAP;
	if (!yaml_parser_initialize(&p)) {
		yt_fail(e, 1, 1, "cannot initialise the YAML parser");
		return NULL;
	}
	yaml_parser_set_input_string(&p, data, len);
	while (!r) {
		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(o, &p, data, len, e);
			r = -1;
			break;
		}
		r = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	if (r < 0) {
		ynode_free(b.root);
		return NULL;
	}
	if (!b.root)
		*empty = 1;
	return b.root;
}

/* ---- a tree flattened at build time ---- */

struct ynode *ytree_from_blob(const struct ytree_blob *b)
{
	struct ynode *v, **kids;
	size_t i, j;
	if (!b->nnodes)
		return NULL;
	v = xcalloc(b->nnodes, sizeof(*v));
	kids = b->nkids ? xcalloc(b->nkids, sizeof(*kids)) : NULL;
	for (i = 0; i < b->nnodes; i++) {
		const struct ytree_blob_node *n = &b->node[i];
		struct ynode *y = &v[i];
		y->kind = (enum ykind)n->kind;
		y->line = n->line;
		y->col = n->col;
		y->quoted = n->quoted;
		if (y->kind == Y_SCALAR) {
			y->s = (char *)(b->text + n->off); /* never written: every reader takes a const tree */
			y->len = n->n;
			continue;
		}
		y->kid = kids ? kids + n->off : NULL;
		y->n = y->alloc = n->n;
		for (j = 0; j < n->n; j++)
			y->kid[j] = &v[b->kid[n->off + j]];
	}
	return v;
}

void ytree_blob_free(struct ynode *root)
{
	if (!root)
		return;
	if (root->kind != Y_SCALAR)
		free(root->kid); /* the root's items start the one array of item pointers */
	free(root);
}
