/*
 * matrix_lint: reading one value of a matrix file (matrix_lint.h). Each
 * reader checks a value against its type and reports what is wrong at the
 * value's line and column; messages name the key, what was found and what
 * was expected (the nearest known word by edit distance, for keys and
 * enumerated values). Versions and specifiers are parsed by util/version.h,
 * whose error column is carried into the string.
 */
#include "matrix/matrix_lint.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

void lint_error(struct lint *L, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!L->nerr)
		err_set(L->err, "%s:%u:%u: %s", L->file, line, col, msg);
	L->nerr++;
	if (!L->diags)
		return;
	if (L->diags->n >= MATRIX_MAX_DIAGS) {
		L->diags->dropped++;
		return;
	}
	ALLOC_GROW(L->diags->v, L->diags->n + 1, L->diags->alloc);
	L->diags->v[L->diags->n].file = xstrdup(L->file);
	L->diags->v[L->diags->n].line = line;
	L->diags->v[L->diags->n].col = col;
	L->diags->v[L->diags->n].msg = xstrdup(msg);
	L->diags->n++;
}

void matrix_diags_release(struct matrix_diags *d)
{
	size_t i;
	for (i = 0; i < d->n; i++) {
		free(d->v[i].file);
		free(d->v[i].msg);
	}
	free(d->v);
	d->v = NULL;
	d->n = d->alloc = d->dropped = 0;
}

/* A short, lint_printable copy of a string for messages: text_excerpt (text.h), at most 60 bytes. */
const char *lint_printable(const char *s, char *buf, size_t n)
{
	return text_excerpt(s, strlen(s), 60, buf, n);
}

int lint_is_null(const struct ynode *y)
{
	if (!y)
		return 1;
	if (y->kind != Y_SCALAR || y->quoted)
		return 0;
	return !y->len || !strcmp(y->s, "~") || !strcmp(y->s, "null") || !strcmp(y->s, "Null") ||
	       !strcmp(y->s, "NULL");
}

const char *lint_kind_name(const struct ynode *y)
{
	if (lint_is_null(y))
		return "empty";
	switch (y->kind) {
	case Y_SCALAR:
		return "a string";
	case Y_SEQ:
		return "a list";
	case Y_MAP:
		return "a mapping";
	}
	return "?";
}

/*
 * The column of byte `off` (0-based) inside a scalar, for errors within
 * strings. libyaml counts columns in characters, so UTF-8 continuation
 * bytes do not count. Exact for plain and quoted one-line scalars without
 * escapes before `off`; block scalars get the scalar's own column.
 */
unsigned lint_scalar_col(const struct ynode *y, size_t off)
{
	size_t i, chars = 0;
	if (y->quoted == 2)
		return y->col;
	for (i = 0; i < off && i < y->len; i++)
		chars += ((unsigned char)y->s[i] & 0xc0) != 0x80;
	return y->col + (y->quoted ? 1u : 0u) + (unsigned)chars;
}

static void join_names(struct strbuf *sb, const char *const *names)
{
	size_t i;
	for (i = 0; names[i]; i++)
		strbuf_addf(sb, "%s`%s`", i ? ", " : "", names[i]);
}

const char *lint_shown(const struct ynode *y, char *buf, size_t n)
{
	return lint_printable(y && y->kind == Y_SCALAR ? y->s : "", buf, n);
}

/*
 * Checks a mapping's keys against `keys`: keys must be strings, known and
 * unique. Sets bit i of *present for each known key i seen.
 */
void lint_map_check(struct lint *L, const struct ynode *map, const char *what, const char *const *keys,
		    unsigned *present)
{
	size_t i, j, k;
	char buf[128];
	*present = 0;
	for (i = 0; i + 1 < map->n; i += 2) {
		const struct ynode *key = map->kid[i];
		int found = -1;
		if (key->kind != Y_SCALAR) {
			lint_error(L, key->line, key->col, "keys in %s must be plain words, not %s", what, lint_kind_name(key));
			continue;
		}
		for (j = 0; j + 1 < i; j += 2) {
			const struct ynode *prev = map->kid[j];
			if (prev->kind == Y_SCALAR && !strcmp(prev->s, key->s)) {
				lint_error(L, key->line, key->col, "duplicate key `%s` in %s (first at line %u)",
					   lint_shown(key, buf, sizeof(buf)), what, prev->line);
				found = -2;
				break;
			}
		}
		if (found == -2)
			continue;
		for (k = 0; keys[k]; k++)
			if (!strcmp(keys[k], key->s))
				found = (int)k;
		if (found >= 0) {
			*present |= 1u << found;
			continue;
		}
		{
			const char *near = str_nearest(key->s, keys);
			if (near) {
				lint_error(L, key->line, key->col, "unknown key `%s` in %s; did you mean `%s`?",
					   lint_shown(key, buf, sizeof(buf)), what, near);
			} else {
				struct strbuf sb = STRBUF_INIT;
				join_names(&sb, keys);
				lint_error(L, key->line, key->col, "unknown key `%s` in %s; expected one of %s",
					   lint_shown(key, buf, sizeof(buf)), what, strbuf_str(&sb));
				strbuf_release(&sb);
			}
		}
	}
}

const struct ynode *lint_map_get(const struct ynode *map, const char *key)
{
	size_t i;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->kid[i]->kind == Y_SCALAR && !strcmp(map->kid[i]->s, key))
			return map->kid[i + 1];
	return NULL;
}

const struct ynode *lint_map_key(const struct ynode *map, const char *key)
{
	size_t i;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->kid[i]->kind == Y_SCALAR && !strcmp(map->kid[i]->s, key))
			return map->kid[i];
	return NULL;
}

void lint_set_pos(struct matrix_pos *pos, const char *file, const struct ynode *y)
{
	pos->file = file;
	pos->line = y->line;
	pos->col = y->col;
}

/*
 * A string value. Returns it (allocated) or NULL: absent (reported if
 * `required`), empty or of another type (always reported). `what` names the
 * place ("row `x`"), `hint` describes the value expected.
 */
char *lint_get_str(struct lint *L, const struct ynode *map, const char *key, const char *what, const char *hint,
		   int required)
{
	const struct ynode *v = lint_map_get(map, key);
	if (!v) {
		if (required)
			lint_error(L, map->line, map->col, "%s is missing `%s` (%s)", what, key, hint);
		return NULL;
	}
	if (v->kind != Y_SCALAR || lint_is_null(v)) {
		const struct ynode *k = lint_is_null(v) ? lint_map_key(map, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be %s, not %s", key, hint, lint_kind_name(v));
		return NULL;
	}
	return xstrndup(v->s, v->len);
}

/* A list of strings (or one string, when `one_ok`), appended to out. Returns the node or NULL. */
const struct ynode *lint_get_list(struct lint *L, const struct ynode *map, const char *key, const char *hint,
				  int one_ok, struct strlist *out)
{
	const struct ynode *v = lint_map_get(map, key);
	size_t i;
	if (!v)
		return NULL;
	if (v->kind == Y_SCALAR && !lint_is_null(v) && one_ok) {
		strlist_push(out, v->s);
		return v;
	}
	if (v->kind != Y_SEQ) {
		const struct ynode *k = lint_is_null(v) ? lint_map_key(map, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be a list of %s, not %s", key, hint, lint_kind_name(v));
		return NULL;
	}
	for (i = 0; i < v->n; i++) {
		const struct ynode *it = v->kid[i];
		if (it->kind != Y_SCALAR || lint_is_null(it)) {
			lint_error(L, it->line, it->col, "each item of `%s` must be %s, not %s", key, hint, lint_kind_name(it));
			continue;
		}
		strlist_push(out, it->s);
	}
	return v;
}

/* The item node of list `key` that produced out->v[i] (for positions). */
const struct ynode *lint_list_item(const struct ynode *list, size_t i)
{
	if (!list)
		return NULL;
	if (list->kind == Y_SCALAR)
		return list;
	{
		size_t k, seen = 0;
		for (k = 0; k < list->n; k++) {
			if (list->kid[k]->kind != Y_SCALAR || lint_is_null(list->kid[k]))
				continue;
			if (seen++ == i)
				return list->kid[k];
		}
	}
	return list;
}

/* One of `names`; returns its index, or -1 (absent, reported if required) / -2 (bad, reported). */
int lint_get_enum(struct lint *L, const struct ynode *map, const char *key, const char *what,
		  const char *const *names, int required)
{
	const struct ynode *v = lint_map_get(map, key);
	char buf[128];
	struct strbuf sb = STRBUF_INIT;
	const char *near;
	int i;
	join_names(&sb, names);
	if (!v) {
		if (required)
			lint_error(L, map->line, map->col, "%s is missing `%s` (one of %s)", what, key, strbuf_str(&sb));
		strbuf_release(&sb);
		return -1;
	}
	if (v->kind == Y_SCALAR && !lint_is_null(v)) {
		for (i = 0; names[i]; i++)
			if (!strcmp(names[i], v->s)) {
				strbuf_release(&sb);
				return i;
			}
		near = str_nearest(v->s, names);
		if (near)
			lint_error(L, v->line, v->col, "`%s` is `%s`; did you mean `%s`?", key, lint_shown(v, buf, sizeof(buf)),
				   near);
		else
			lint_error(L, v->line, v->col, "`%s` is `%s`; expected one of %s", key, lint_shown(v, buf, sizeof(buf)),
				   strbuf_str(&sb));
	} else {
		const struct ynode *k = lint_is_null(v) ? lint_map_key(map, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be one of %s, not %s", key, strbuf_str(&sb), lint_kind_name(v));
	}
	strbuf_release(&sb);
	return -2;
}

/* true/false; -1 absent, -2 bad (reported). */
int lint_get_bool(struct lint *L, const struct ynode *map, const char *key)
{
	const struct ynode *v = lint_map_get(map, key);
	if (!v)
		return -1;
	if (v->kind == Y_SCALAR && !v->quoted) {
		if (!strcmp(v->s, "true") || !strcmp(v->s, "True") || !strcmp(v->s, "TRUE"))
			return 1;
		if (!strcmp(v->s, "false") || !strcmp(v->s, "False") || !strcmp(v->s, "FALSE"))
			return 0;
	}
	lint_error(L, v->line, v->col, "`%s` must be true or false", key);
	return -2;
}

/* A Windows error code (1..65535: a Win32 error, what [WinError N] shows); 0 when absent or bad (reported). */
int lint_get_winerror(struct lint *L, const struct ynode *map, const char *key, const char *hint)
{
	const struct ynode *v = lint_map_get(map, key);
	unsigned long n = 0;
	size_t i;
	if (!v)
		return 0;
	if (v->kind == Y_SCALAR && !v->quoted && v->len > 0 && v->len <= 5) {
		for (i = 0; i < v->len && v->s[i] >= '0' && v->s[i] <= '9'; i++)
			n = n * 10 + (unsigned long)(v->s[i] - '0');
		if (i == v->len && n >= 1 && n <= 65535)
			return (int)n;
	}
	lint_error(L, v->line, v->col, "`%s` must be %s", key, hint);
	return 0;
}

const char *const matrix_status_names[] = { "sourced", "inferred", "measured", NULL };
const char *const matrix_where_names[] = { "either", "system", "bundled", NULL };
const char *const matrix_arch_names[] = { "x64", "x86", "arm64", NULL };

const char *matrix_arch_name(int arch)
{
	return arch >= 0 && arch < MATRIX_NARCH ? matrix_arch_names[arch] : "any";
}

int matrix_arch_parse(const char *s)
{
	int i;
	for (i = 0; i < MATRIX_NARCH; i++)
		if (!str_icmp(s, matrix_arch_names[i]))
			return i;
	return -1;
}

const char *matrix_where_name(enum matrix_where w)
{
	return matrix_where_names[w];
}

const char *matrix_status_name(enum matrix_status s)
{
	return matrix_status_names[s];
}

/* An architecture list (or one name) → mask; 0 if absent. */
unsigned lint_get_arch(struct lint *L, const struct ynode *map, const struct matrix_field *f)
{
	const char *key = f->key;
	struct strlist l = STRLIST_INIT;
	const struct ynode *list = lint_get_list(L, map, key, f->hint, 1, &l);
	unsigned mask = 0;
	size_t i;
	static const char *const aliases[][2] = { { "amd64", "x64" },   { "x86_64", "x64" }, { "win64", "x64" },
						  { "win32", "x86" },   { "i386", "x86" },   { "i686", "x86" },
						  { "aarch64", "arm64" }, { NULL, NULL } };
	for (i = 0; i < l.n; i++) {
		const struct ynode *it = lint_list_item(list, i);
		int a = matrix_arch_parse(l.v[i]), k;
		char buf[128];
		if (a >= 0 && !strcmp(l.v[i], matrix_arch_names[a])) {
			mask |= 1u << a;
			continue;
		}
		for (k = 0; aliases[k][0]; k++)
			if (!str_icmp(l.v[i], aliases[k][0]))
				break;
		if (aliases[k][0])
			lint_error(L, it->line, it->col, "unknown architecture `%s`; write `%s`", lint_shown(it, buf, sizeof(buf)),
				   aliases[k][1]);
		else if (a >= 0)
			lint_error(L, it->line, it->col, "unknown architecture `%s`; write `%s`", lint_shown(it, buf, sizeof(buf)),
				   matrix_arch_names[a]);
		else
			lint_error(L, it->line, it->col, "unknown architecture `%s`; expected x64, x86 or arm64",
				   lint_shown(it, buf, sizeof(buf)));
	}
	if (list && list->kind == Y_SEQ && !list->n)
		lint_error(L, list->line, list->col, "`%s` is an empty list; omit it to match every architecture", key);
	strlist_release(&l);
	return mask;
}

/* cpu, xpu, cu followed by digits/wildcards, rocm followed by digits/dots/wildcards. */
static int variant_pattern_ok(const char *p)
{
	const char *rest;
	if (strlen(p) > 31)
		return 0;
	if (!str_icmp(p, "cpu") || !str_icmp(p, "xpu"))
		return 1;
	if (!str_nicmp(p, "rocm", 4))
		rest = p + 4;
	else if (!str_nicmp(p, "cu", 2))
		rest = p + 2;
	else
		return 0;
	if (!*rest)
		return 0;
	for (; *rest; rest++)
		if (!ascii_isdigit(*rest) && *rest != '*' && *rest != '?' && (*rest != '.' || p[0] == 'c' || p[0] == 'C'))
			return 0;
	return 1;
}

void lint_get_variants(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out)
{
	const char *key = f->key;
	const struct ynode *list = lint_get_list(L, map, key, f->hint, 1, out);
	size_t i;
	char buf[128];
	for (i = 0; i < out->n; i++) {
		const struct ynode *it = lint_list_item(list, i);
		if (!strcmp(out->v[i], "*"))
			lint_error(L, it->line, it->col, "variant `*` matches everything; omit `%s` instead", key);
		else if (!variant_pattern_ok(out->v[i]))
			lint_error(L, it->line, it->col,
				   "unknown variant `%s`; expected cpu, xpu, cuXYZ (cu121), rocmX.Y (rocm6.1) or a pattern such as cu* or rocm6.*",
				   lint_shown(it, buf, sizeof(buf)));
	}
	if (list && list->kind == Y_SEQ && !list->n)
		lint_error(L, list->line, list->col, "`%s` is an empty list; omit it to match every variant", key);
}

void lint_get_sources(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out)
{
	const struct ynode *list = lint_get_list(L, map, f->key, f->hint, 1, out);
	size_t i;
	char buf[128];
	for (i = 0; i < out->n; i++) {
		const char *u = out->v[i];
		if (str_nicmp(u, "https://", 8) && str_nicmp(u, "http://", 7)) {
			const struct ynode *it = lint_list_item(list, i);
			lint_error(L, it->line, it->col, "source `%s` is not an http(s) URL", lint_shown(it, buf, sizeof(buf)));
		}
	}
}

/*
 * evidence: the wheels a measured row was read from, "FILE sha256=HEX" with
 * FILE a torch wheel name (its version is the torch measured) and HEX the
 * 64-digit sha256 PyPI publishes for it.
 */
void lint_get_evidence(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *evidence,
		       struct pep440 *measured_max)
{
	const struct ynode *list = lint_get_list(L, map, f->key, f->hint, 1, evidence);
	size_t i, k;
	char buf[128];
	for (i = 0; i < evidence->n; i++) {
		const char *s = evidence->v[i], *sp = strchr(s, ' '), *dash;
		const struct ynode *it = lint_list_item(list, i);
		struct pep440 v;
		int okhex = sp && !strncmp(sp, " sha256=", 8) && strlen(sp + 8) == 64;
		for (k = 0; okhex && k < 64; k++)
			okhex = hex_digit((unsigned char)sp[8 + k]) >= 0 && !(sp[8 + k] >= 'A' && sp[8 + k] <= 'F');
		dash = !str_nicmp(s, "torch-", 6) ? strchr(s + 6, '-') : NULL;
		if (!okhex || !dash || sp - s < 5 || str_nicmp(sp - 4, ".whl", 4)) {
			lint_error(L, it->line, it->col,
				   "evidence `%s` is not \"torch-VERSION-...whl sha256=<64 lower-case hex digits>\"",
				   lint_shown(it, buf, sizeof(buf)));
			continue;
		}
		{
			char *ver = xstrndup(s + 6, (size_t)(dash - (s + 6)));
			if (pep440_parse(&v, ver, NULL) < 0)
				lint_error(L, it->line, it->col, "evidence `%s`: `%s` is not a version",
					   lint_shown(it, buf, sizeof(buf)), ver);
			else if (!measured_max->nrelease || pep440_cmp(&v, measured_max) > 0)
				*measured_max = v;
			free(ver);
		}
	}
}

/* A minimum file version node (scalar) → *min. */
void lint_min_version(struct lint *L, const struct ynode *v, const char *what, const char *hint, struct matrix_min *min)
{
	struct err e;
	err_clear(&e);
	if (v->kind != Y_SCALAR || lint_is_null(v)) {
		lint_error(L, v->line, v->col, "%s must be %s, not %s", what, hint, lint_kind_name(v));
		return;
	}
	if (winver_parse(&min->v, v->s, &e) < 0) {
		lint_error(L, v->line, lint_scalar_col(v, e.code > 0 ? (size_t)e.code - 1 : 0), "%s: %s", what, e.msg);
		return;
	}
	min->set = 1;
	min->text = xstrdup(v->s);
	lint_set_pos(&min->pos, L->file, v);
}

void lint_arch_versions(struct lint *L, const struct ynode *map, const struct matrix_field *f, const char *hint,
			struct matrix_min out[MATRIX_NARCH])
{
	const struct ynode *v = lint_map_get(map, f->key);
	unsigned present;
	int a;
	char what[40];
	if (!v)
		return;
	if (v->kind != Y_MAP) {
		const struct ynode *k = lint_is_null(v) ? lint_map_key(map, f->key) : v;
		lint_error(L, k->line, k->col, "`%s` must be %s, not %s", f->key, f->hint, lint_kind_name(v));
		return;
	}
	lint_map_check(L, v, "vc_redist (x64, x86, arm64)", matrix_arch_names, &present);
	for (a = 0; a < MATRIX_NARCH; a++) {
		const struct ynode *x = lint_map_get(v, matrix_arch_names[a]);
		if (!x)
			continue;
		snprintf(what, sizeof(what), "vc_redist.%s", matrix_arch_names[a]);
		lint_min_version(L, x, what, hint, &out[a]);
	}
}

int lint_id_ok(const char *s)
{
	size_t i, n = strlen(s);
	if (!n || n > 64)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!(ascii_isalnum(c) || c == '.' || c == '-' ||
		      c == '_'))
			return 0;
	}
	return 1;
}

int lint_dll_name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 4 && n < 128 && str_iendswith(s, ".dll") && !strpbrk(s, "/\\:*?\"<>| ");
}

void lint_check_dll_name(struct lint *L, const struct ynode *map, const char *key, const char *name)
{
	const struct ynode *v = lint_map_get(map, key);
	char buf[128];
	if (name && v && !lint_dll_name_ok(name))
		lint_error(L, v->line, v->col, "`%s` is `%s`; expected a DLL file name such as msvcp140.dll", key,
			   lint_shown(v, buf, sizeof(buf)));
}

/* Whether field f must be written (merge: the row says `merge: true`). */
int lint_required(const struct matrix_field *f, int merge)
{
	return f->required == MR_REQUIRED || (f->required == MR_UNLESS_MERGE && !merge);
}

/* Item i of a list value that must hold mappings; NULL (reported) when it does not. */
const struct ynode *lint_list_map(struct lint *L, const struct ynode *list, size_t i, const char *key)
{
	const struct ynode *it = list->kid[i];
	if (it->kind != Y_MAP) {
		lint_error(L, it->line, it->col, "each item of `%s` must be a mapping, not %s", key, lint_kind_name(it));
		return NULL;
	}
	return it;
}

/* A list-of-mappings value: the node, or NULL (absent, or reported as the wrong type). */
const struct ynode *lint_get_map_list(struct lint *L, const struct ynode *row, const char *key, const char *hint)
{
	const struct ynode *v = lint_map_get(row, key);
	if (!v)
		return NULL;
	if (v->kind != Y_SEQ) {
		const struct ynode *k = lint_is_null(v) ? lint_map_key(row, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be a list of %s, not %s", key, hint, lint_kind_name(v));
		return NULL;
	}
	return v;
}

void lint_get_dll_list(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct strlist *out)
{
	const struct ynode *list = lint_get_list(L, m, f->key, f->hint, 1, out);
	size_t i;
	char buf[128];
	for (i = 0; i < out->n; i++)
		if (!lint_dll_name_ok(out->v[i])) {
			const struct ynode *it = lint_list_item(list, i);
			lint_error(L, it->line, it->col, "`%s` is not a DLL file name (such as libomp140.x86_64.dll)",
				   lint_shown(it, buf, sizeof(buf)));
		}
}

static void add_sample(struct pep440 *out, size_t *n, size_t cap, const struct pep440 *v)
{
	if (*n < cap)
		out[(*n)++] = *v;
}

/* Boundary versions around each clause's version: where two rows' sets meet, one of these is in both. */
void lint_spec_samples(const struct pep440_spec *s, struct pep440 *out, size_t *n, size_t cap)
{
	size_t i;
	for (i = 0; i < s->n; i++) {
		struct pep440 v, b, t;
		const struct pep440_clause *c = &s->v[i];
		if (c->op == PEP440_OP_ARBITRARY) {
			if (pep440_parse(&v, c->arbitrary, NULL) < 0)
				continue;
		} else {
			v = c->v;
		}
		add_sample(out, n, cap, &v);
		memset(&b, 0, sizeof(b));
		b.epoch = v.epoch;
		b.nrelease = v.nrelease;
		memcpy(b.release, v.release, sizeof(b.release));
		add_sample(out, n, cap, &b);
		t = b; /* just above: X.Y → X.Y.0.1 */
		if (t.nrelease + 2 <= PEP440_MAX_RELEASE) {
			t.release[t.nrelease++] = 0;
			t.release[t.nrelease++] = 1;
			add_sample(out, n, cap, &t);
		}
		t = b; /* next: X.Y → X.(Y+1) */
		t.release[t.nrelease - 1]++;
		add_sample(out, n, cap, &t);
		t = b; /* X.Y.1 */
		if (t.nrelease < PEP440_MAX_RELEASE) {
			t.release[t.nrelease++] = 1;
			add_sample(out, n, cap, &t);
		}
		if (b.release[b.nrelease - 1] > 0) { /* just below: X.(Y-1) and X.(Y-1).999 */
			t = b;
			t.release[t.nrelease - 1]--;
			add_sample(out, n, cap, &t);
			if (t.nrelease < PEP440_MAX_RELEASE) {
				t.release[t.nrelease++] = 999;
				add_sample(out, n, cap, &t);
			}
		}
		t = b;
		t.has_post = 1;
		t.post = 1;
		add_sample(out, n, cap, &t);
		t = b;
		t.has_dev = 1;
		add_sample(out, n, cap, &t);
	}
}

/* For messages: a plain release with few parts reads better than 2.4.3.0.1 or 2.4.post1. */
int lint_simpler(const struct pep440 *a, const struct pep440 *b)
{
	size_t sa = a->nrelease + (pep440_is_prerelease(a) || a->has_post ? 10 : 0);
	size_t sb = b->nrelease + (pep440_is_prerelease(b) || b->has_post ? 10 : 0);
	if (sa != sb)
		return sa < sb;
	return pep440_cmp(a, b) < 0;
}

