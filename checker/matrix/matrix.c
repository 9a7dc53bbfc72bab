/*
 * matrix: the torch → Windows runtime requirements matrix (schema 1).
 *
 * Reading goes in three steps, each of which can only refuse, never crash:
 *   1. bytes: size cap, UTF-8 BOM skipped, UTF-16/32 and invalid UTF-8
 *      refused with the line and column of the first bad byte;
 *   2. tree: the one YAML tree reader (util/yamltree.h), strictly: anchors,
 *      aliases, tags other than !!str, several documents, nesting deeper
 *      than 32 and more than 50000 nodes are refused at their position;
 *   3. schema: every key is checked against the schema of its mapping
 *      (the table schema.def: each mapping's keys are read in its order,
 *      one switch case per key; unknown keys get the nearest valid one by
 *      edit distance), every
 *      value against its type, versions and specifiers with the column
 *      inside the string. All errors are collected, not just the first.
 * Then rows of one file are checked against each other for contradictory
 * overlaps, and the layer is applied (see matrix.h for the layering and
 * selection rules; matrix/README.md documents the schema).
 */
#include "matrix/matrix.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/os.h"
#include "util/text.h"
#include "util/yamltree.h"
#include "matrix/matrix_lint.h"

#define YT_MAX_DEPTH 32
#define YT_MAX_NODES 50000
#define YT_MAX_SCALAR 16384
#define YT_MAX_KIDS 1024 /* items of one list, or keys + values of one mapping: bounds the quadratic checks */
#define OVERLAP_BUDGET 8000000 /* clause evaluations per file (256 two-clause rows need 5M) */

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

/* A short, printable copy of a string for messages: text_excerpt (text.h), at most 60 bytes. */
static const char *printable(const char *s, char *buf, size_t n)
{
	return text_excerpt(s, strlen(s), 60, buf, n);
}

/* ---- steps 1 and 2: bytes and tree (yamltree.h) ---------------------- */

static const struct ytree_opts matrix_yaml = {
	YT_MAX_DEPTH, YT_MAX_NODES, YT_MAX_SCALAR, YT_MAX_KIDS, "a matrix", "a matrix file", "torch",
	YT_REFUSE_ANCHORS | YT_REFUSE_TAGS | YT_ONE_DOCUMENT,
};

/* ---- step 3: schema --------------------------------------------------- */

int is_null(const struct ynode *y)
{
	if (!y)
		return 1;
	if (y->kind != Y_SCALAR || y->quoted)
		return 0;
	return !y->len || !strcmp(y->s, "~") || !strcmp(y->s, "null") || !strcmp(y->s, "Null") ||
	       !strcmp(y->s, "NULL");
}

const char *kind_name(const struct ynode *y)
{
	if (is_null(y))
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
unsigned scalar_col(const struct ynode *y, size_t off)
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

const char *shown(const struct ynode *y, char *buf, size_t n)
{
	return printable(y && y->kind == Y_SCALAR ? y->s : "", buf, n);
}

/*
 * Checks a mapping's keys against `keys`: keys must be strings, known and
 * unique. Sets bit i of *present for each known key i seen.
 */
void map_check(struct lint *L, const struct ynode *map, const char *what, const char *const *keys,
		      unsigned *present)
{
	size_t i, j, k;
	char buf[128];
	*present = 0;
	for (i = 0; i + 1 < map->n; i += 2) {
		const struct ynode *key = map->kid[i];
		int found = -1;
		if (key->kind != Y_SCALAR) {
			lint_error(L, key->line, key->col, "keys in %s must be plain words, not %s", what, kind_name(key));
			continue;
		}
		for (j = 0; j + 1 < i; j += 2) {
			const struct ynode *prev = map->kid[j];
			if (prev->kind == Y_SCALAR && !strcmp(prev->s, key->s)) {
				lint_error(L, key->line, key->col, "duplicate key `%s` in %s (first at line %u)",
					   shown(key, buf, sizeof(buf)), what, prev->line);
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
					   shown(key, buf, sizeof(buf)), what, near);
			} else {
				struct strbuf sb = STRBUF_INIT;
				join_names(&sb, keys);
				lint_error(L, key->line, key->col, "unknown key `%s` in %s; expected one of %s",
					   shown(key, buf, sizeof(buf)), what, strbuf_str(&sb));
				strbuf_release(&sb);
			}
		}
	}
}

const struct ynode *map_get(const struct ynode *map, const char *key)
{
	size_t i;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->kid[i]->kind == Y_SCALAR && !strcmp(map->kid[i]->s, key))
			return map->kid[i + 1];
	return NULL;
}

const struct ynode *map_key(const struct ynode *map, const char *key)
{
	size_t i;
	for (i = 0; i + 1 < map->n; i += 2)
		if (map->kid[i]->kind == Y_SCALAR && !strcmp(map->kid[i]->s, key))
			return map->kid[i];
	return NULL;
}

void set_pos(struct matrix_pos *pos, const char *file, const struct ynode *y)
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
char *get_str(struct lint *L, const struct ynode *map, const char *key, const char *what, const char *hint,
		     int required)
{
	const struct ynode *v = map_get(map, key);
	if (!v) {
		if (required)
			lint_error(L, map->line, map->col, "%s is missing `%s` (%s)", what, key, hint);
		return NULL;
	}
	if (v->kind != Y_SCALAR || is_null(v)) {
		const struct ynode *k = is_null(v) ? map_key(map, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be %s, not %s", key, hint, kind_name(v));
		return NULL;
	}
	return xstrndup(v->s, v->len);
}

/* A list of strings (or one string, when `one_ok`), appended to out. Returns the node or NULL. */
const struct ynode *get_list(struct lint *L, const struct ynode *map, const char *key, const char *hint,
				    int one_ok, struct strlist *out)
{
	const struct ynode *v = map_get(map, key);
	size_t i;
	if (!v)
		return NULL;
	if (v->kind == Y_SCALAR && !is_null(v) && one_ok) {
		strlist_push(out, v->s);
		return v;
	}
	if (v->kind != Y_SEQ) {
		const struct ynode *k = is_null(v) ? map_key(map, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be a list of %s, not %s", key, hint, kind_name(v));
		return NULL;
	}
	for (i = 0; i < v->n; i++) {
		const struct ynode *it = v->kid[i];
		if (it->kind != Y_SCALAR || is_null(it)) {
			lint_error(L, it->line, it->col, "each item of `%s` must be %s, not %s", key, hint, kind_name(it));
			continue;
		}
		strlist_push(out, it->s);
	}
	return v;
}

/* The item node of list `key` that produced out->v[i] (for positions). */
const struct ynode *list_item(const struct ynode *list, size_t i)
{
	if (!list)
		return NULL;
	if (list->kind == Y_SCALAR)
		return list;
	{
		size_t k, seen = 0;
		for (k = 0; k < list->n; k++) {
			if (list->kid[k]->kind != Y_SCALAR || is_null(list->kid[k]))
				continue;
			if (seen++ == i)
				return list->kid[k];
		}
	}
	return list;
}

/* One of `names`; returns its index, or -1 (absent, reported if required) / -2 (bad, reported). */
int get_enum(struct lint *L, const struct ynode *map, const char *key, const char *what,
		    const char *const *names, int required)
{
	const struct ynode *v = map_get(map, key);
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
	if (v->kind == Y_SCALAR && !is_null(v)) {
		for (i = 0; names[i]; i++)
			if (!strcmp(names[i], v->s)) {
				strbuf_release(&sb);
				return i;
			}
		near = str_nearest(v->s, names);
		if (near)
			lint_error(L, v->line, v->col, "`%s` is `%s`; did you mean `%s`?", key, shown(v, buf, sizeof(buf)),
				   near);
		else
			lint_error(L, v->line, v->col, "`%s` is `%s`; expected one of %s", key, shown(v, buf, sizeof(buf)),
				   strbuf_str(&sb));
	} else {
		const struct ynode *k = is_null(v) ? map_key(map, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be one of %s, not %s", key, strbuf_str(&sb), kind_name(v));
	}
	strbuf_release(&sb);
	return -2;
}

/* true/false; -1 absent, -2 bad (reported). */
int get_bool(struct lint *L, const struct ynode *map, const char *key)
{
	const struct ynode *v = map_get(map, key);
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
static int get_winerror(struct lint *L, const struct ynode *map, const char *key, const char *hint)
{
	const struct ynode *v = map_get(map, key);
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

const char *const status_names[] = { "sourced", "inferred", "measured", NULL };
static const char *const where_names[] = { "either", "system", "bundled", NULL };
static const char *const arch_names[] = { "x64", "x86", "arm64", NULL };

const char *matrix_arch_name(int arch)
{
	return arch >= 0 && arch < MATRIX_NARCH ? arch_names[arch] : "any";
}

int matrix_arch_parse(const char *s)
{
	int i;
	for (i = 0; i < MATRIX_NARCH; i++)
		if (!str_icmp(s, arch_names[i]))
			return i;
	return -1;
}

const char *matrix_where_name(enum matrix_where w)
{
	return where_names[w];
}

const char *matrix_status_name(enum matrix_status s)
{
	return status_names[s];
}

/* An architecture list (or one name) → mask; 0 if absent. */
static unsigned get_arch(struct lint *L, const struct ynode *map, const struct matrix_field *f)
{
	const char *key = f->key;
	struct strlist l = STRLIST_INIT;
	const struct ynode *list = get_list(L, map, key, f->hint, 1, &l);
	unsigned mask = 0;
	size_t i;
	static const char *const aliases[][2] = { { "amd64", "x64" },   { "x86_64", "x64" }, { "win64", "x64" },
						  { "win32", "x86" },   { "i386", "x86" },   { "i686", "x86" },
						  { "aarch64", "arm64" }, { NULL, NULL } };
	for (i = 0; i < l.n; i++) {
		const struct ynode *it = list_item(list, i);
		int a = matrix_arch_parse(l.v[i]), k;
		char buf[128];
		if (a >= 0 && !strcmp(l.v[i], arch_names[a])) {
			mask |= 1u << a;
			continue;
		}
		for (k = 0; aliases[k][0]; k++)
			if (!str_icmp(l.v[i], aliases[k][0]))
				break;
		if (aliases[k][0])
			lint_error(L, it->line, it->col, "unknown architecture `%s`; write `%s`", shown(it, buf, sizeof(buf)),
				   aliases[k][1]);
		else if (a >= 0)
			lint_error(L, it->line, it->col, "unknown architecture `%s`; write `%s`", shown(it, buf, sizeof(buf)),
				   arch_names[a]);
		else
			lint_error(L, it->line, it->col, "unknown architecture `%s`; expected x64, x86 or arm64",
				   shown(it, buf, sizeof(buf)));
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

static void get_variants(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out)
{
	const char *key = f->key;
	const struct ynode *list = get_list(L, map, key, f->hint, 1, out);
	size_t i;
	char buf[128];
	for (i = 0; i < out->n; i++) {
		const struct ynode *it = list_item(list, i);
		if (!strcmp(out->v[i], "*"))
			lint_error(L, it->line, it->col, "variant `*` matches everything; omit `%s` instead", key);
		else if (!variant_pattern_ok(out->v[i]))
			lint_error(L, it->line, it->col,
				   "unknown variant `%s`; expected cpu, xpu, cuXYZ (cu121), rocmX.Y (rocm6.1) or a pattern such as cu* or rocm6.*",
				   shown(it, buf, sizeof(buf)));
	}
	if (list && list->kind == Y_SEQ && !list->n)
		lint_error(L, list->line, list->col, "`%s` is an empty list; omit it to match every variant", key);
}

void get_sources(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out)
{
	const struct ynode *list = get_list(L, map, f->key, f->hint, 1, out);
	size_t i;
	char buf[128];
	for (i = 0; i < out->n; i++) {
		const char *u = out->v[i];
		if (str_nicmp(u, "https://", 8) && str_nicmp(u, "http://", 7)) {
			const struct ynode *it = list_item(list, i);
			lint_error(L, it->line, it->col, "source `%s` is not an http(s) URL", shown(it, buf, sizeof(buf)));
		}
	}
}

/*
 * evidence: the wheels a measured row was read from, "FILE sha256=HEX" with
 * FILE a torch wheel name (its version is the torch measured) and HEX the
 * 64-digit sha256 PyPI publishes for it.
 */
void get_evidence(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *evidence,
		  struct pep440 *measured_max)
{
	const struct ynode *list = get_list(L, map, f->key, f->hint, 1, evidence);
	size_t i, k;
	char buf[128];
	for (i = 0; i < evidence->n; i++) {
		const char *s = evidence->v[i], *sp = strchr(s, ' '), *dash;
		const struct ynode *it = list_item(list, i);
		struct pep440 v;
		int okhex = sp && !strncmp(sp, " sha256=", 8) && strlen(sp + 8) == 64;
		for (k = 0; okhex && k < 64; k++)
			okhex = hex_digit((unsigned char)sp[8 + k]) >= 0 && !(sp[8 + k] >= 'A' && sp[8 + k] <= 'F');
		dash = !str_nicmp(s, "torch-", 6) ? strchr(s + 6, '-') : NULL;
		if (!okhex || !dash || sp - s < 5 || str_nicmp(sp - 4, ".whl", 4)) {
			lint_error(L, it->line, it->col,
				   "evidence `%s` is not \"torch-VERSION-...whl sha256=<64 lower-case hex digits>\"",
				   shown(it, buf, sizeof(buf)));
			continue;
		}
		{
			char *ver = xstrndup(s + 6, (size_t)(dash - (s + 6)));
			if (pep440_parse(&v, ver, NULL) < 0)
				lint_error(L, it->line, it->col, "evidence `%s`: `%s` is not a version",
					   shown(it, buf, sizeof(buf)), ver);
			else if (!measured_max->nrelease || pep440_cmp(&v, measured_max) > 0)
				*measured_max = v;
			free(ver);
		}
	}
}

int matrix_newest_measured(const struct matrix *m, struct pep440 *out)
{
	size_t i;
	int found = 0;
	for (i = 0; i < m->nrows; i++) {
		const struct matrix_row *r = m->rows[i];
		if (!r->evidence.n || !r->measured_max.nrelease)
			continue;
		if (!found || pep440_cmp(&r->measured_max, out) > 0)
			*out = r->measured_max;
		found = 1;
	}
	return found;
}

/* A minimum file version node (scalar) → *min. */
static void parse_min(struct lint *L, const struct ynode *v, const char *what, const char *hint, struct matrix_min *min)
{
	struct err e;
	err_clear(&e);
	if (v->kind != Y_SCALAR || is_null(v)) {
		lint_error(L, v->line, v->col, "%s must be %s, not %s", what, hint, kind_name(v));
		return;
	}
	if (winver_parse(&min->v, v->s, &e) < 0) {
		lint_error(L, v->line, scalar_col(v, e.code > 0 ? (size_t)e.code - 1 : 0), "%s: %s", what, e.msg);
		return;
	}
	min->set = 1;
	min->text = xstrdup(v->s);
	set_pos(&min->pos, L->file, v);
}

static int id_ok(const char *s)
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

static int dll_name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 4 && n < 128 && str_iendswith(s, ".dll") && !strpbrk(s, "/\\:*?\"<>| ");
}

static void check_dll_name(struct lint *L, const struct ynode *map, const char *key, const char *name)
{
	const struct ynode *v = map_get(map, key);
	char buf[128];
	if (name && v && !dll_name_ok(name))
		lint_error(L, v->line, v->col, "`%s` is `%s`; expected a DLL file name such as msvcp140.dll", key,
			   shown(v, buf, sizeof(buf)));
}

/* ---- the schema table (schema.def) ------------------------------------ */

#define FIELD_ENTRY(NAME, key, type, required, show, hint, doc) { key, type, MR_##required, MS_##show, hint, doc },
#define KEY_NAME(NAME, key, ...) key,

const struct matrix_field matrix_top_fields[MF_TOP_COUNT] = {
#define TOP FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_row_fields[MF_ROW_COUNT] = {
#define ROW FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_dll_fields[MF_DLL_COUNT] = {
#define DLL FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_openmp_fields[MF_OPENMP_COUNT] = {
#define OPENMP FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_issue_fields[MF_ISSUE_COUNT] = {
#define ISSUE FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_when_fields[MF_WHEN_COUNT] = {
#define WHEN FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_cuda_fields[MF_CUDA_COUNT] = {
#define CUDA FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_proc_fields[MF_PROC_COUNT] = {
#define PROC FIELD_ENTRY
#include "matrix/schema.def"
};

/* The keys each mapping accepts, NULL-terminated (map_check, did-you-mean); bit i of `present` is key i. */
static const char *const top_keys[] = {
#define TOP KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const row_keys[] = {
#define ROW KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const dll_keys[] = {
#define DLL KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const omp_keys[] = {
#define OPENMP KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const issue_keys[] = {
#define ISSUE KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const when_keys[] = {
#define WHEN KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const cuda_keys[] = {
#define CUDA KEY_NAME
#include "matrix/schema.def"
	NULL
};

_Static_assert(MF_ROW_COUNT <= 32 && MF_TOP_COUNT <= 32 && MF_DLL_COUNT <= 32 && MF_OPENMP_COUNT <= 32 &&
		       MF_ISSUE_COUNT <= 32 && MF_WHEN_COUNT <= 32 && MF_CUDA_COUNT <= 32 && MF_PROC_COUNT <= 32,
	       "a mapping's keys are bits of an unsigned `present`");

const struct matrix_map_schema *matrix_schema(enum matrix_map map)
{
	static const struct matrix_map_schema maps[MATRIX_NMAPS] = {
		{ "the top level", "", matrix_top_fields, MF_TOP_COUNT },
		{ "a row", "rows[]", matrix_row_fields, MF_ROW_COUNT },
		{ "a runtime_dlls entry", "rows[].runtime_dlls[]", matrix_dll_fields, MF_DLL_COUNT },
		{ "an openmp entry", "rows[].openmp[]", matrix_openmp_fields, MF_OPENMP_COUNT },
		{ "a known_issues entry", "rows[].known_issues[]", matrix_issue_fields, MF_ISSUE_COUNT },
		{ "applies_when", "rows[].known_issues[].applies_when", matrix_when_fields, MF_WHEN_COUNT },
		{ "a cuda entry", "cuda[]", matrix_cuda_fields, MF_CUDA_COUNT },
		{ "a torch_load entry", "torch_load[]", matrix_proc_fields, MF_PROC_COUNT },
		{ "an extension_load entry", "extension_load[]", matrix_ext_fields, MF_EXT_COUNT },
		{ "path_folders", "extension_load[].path_folders", matrix_extpath_fields, MF_EXTPATH_COUNT },
		{ "find", "extension_load[].find", matrix_extfind_fields, MF_EXTFIND_COUNT },
		{ "a loads entry", "extension_load[].loads[]", matrix_extload_fields, MF_EXTLOAD_COUNT },
	};
	return map < MATRIX_NMAPS ? &maps[map] : NULL;
}

const char *matrix_type_doc(enum matrix_type t)
{
	switch (t) {
	case MT_SCHEMA:
		return "the number 1";
	case MT_TEXT:
		return "text";
	case MT_ID:
		return "an id: `[A-Za-z0-9._-]{1,64}`";
	case MT_IDS:
		return "row ids (a list, or one)";
	case MT_ROWS:
		return "a list of rows";
	case MT_SPEC:
		return "a PEP 440 specifier (quoted)";
	case MT_VARIANTS:
		return "variant patterns: cpu, xpu, cuXYZ, rocmX.Y, with `*` `?` (a list, or one)";
	case MT_ARCHES:
		return "x64, x86, arm64 (a list, or one)";
	case MT_STATUS:
		return "sourced, inferred or measured";
	case MT_URLS:
		return "http(s) URLs (a list, or one)";
	case MT_EVIDENCE:
		return "\"torch-VERSION-...whl sha256=<64 hex>\" (a list, or one)";
	case MT_VC_REDIST:
		return "a mapping of x64, x86, arm64 to a file version";
	case MT_DLLS:
		return "a list of runtime_dlls entries";
	case MT_OPENMPS:
		return "a list of openmp entries";
	case MT_ISSUES:
		return "a list of known_issues entries";
	case MT_BOOL:
		return "true or false";
	case MT_DLL:
		return "a DLL file name";
	case MT_DLLS_NAMED:
		return "DLL file names (a list, or one)";
	case MT_WINVER:
		return "a file version: 2 to 4 numbers of at most 65535";
	case MT_WHERE:
		return "system, bundled or either";
	case MT_WINERROR:
		return "a Windows error code, 1 to 65535";
	case MT_WHEN:
		return "a mapping: variant, arch, imports, unresolved, older";
	case MT_CUDAS:
		return "a list of cuda entries";
	case MT_CUDA_RELEASE:
		return "a CUDA release: MAJOR.MINOR (quoted)";
	case MT_PROCS:
		return "a list of torch_load entries";
	case MT_FOLDERS:
		return "a list of lib, prefix, base_prefix, userbase, prefix_bin";
	case MT_VC1:
		return "always, not-arm64 or not-cuda-9.2-10.0";
	case MT_ANCHOR:
		return "__file__ or torch._C";
	case MT_LINES:
		return "a mapping of release to \"NAME:LINE,...\"";
	case MT_NV_DRIVER:
		return "an NVIDIA driver version: NNN.NN (quoted)";
	case MT_EXTS:
		return "a list of extension_load entries";
	case MT_EXT_PATH:
		return "a mapping: by, python, file, has";
	case MT_EXT_LOADS:
		return "a list of loads entries";
	case MT_EXT_HOW:
		return "ctypes or import";
	case MT_EXT_FIND:
		return "a mapping: by, file, in";
	case MT_EXT_OTHERS:
		return "lazy or import";
	case MT_TEXTS:
		return "texts (a list, or one)";
	case MT_WHEELS:
		return "\"PACKAGE-VERSION-...whl sha256=<64 hex>\" (a list, or one)";
	}
	return "?";
}

const char *matrix_required_doc(enum matrix_required r)
{
	switch (r) {
	case MR_REQUIRED:
		return "yes";
	case MR_OPTIONAL:
		return "no";
	case MR_UNLESS_MERGE:
		return "yes, unless `merge: true`";
	case MR_UNLESS_REMOVE:
		return "yes, unless `remove` is given";
	case MR_IF_SOURCED:
		return "when `status: sourced`";
	case MR_IF_MEASURED:
		return "when `status: measured`";
	}
	return "?";
}

/* Whether field f must be written (merge: the row says `merge: true`). */
int required(const struct matrix_field *f, int merge)
{
	return f->required == MR_REQUIRED || (f->required == MR_UNLESS_MERGE && !merge);
}

static void dll_release(struct matrix_dll *d)
{
	free(d->name);
	free(d->min.text);
	free(d->why);
	strlist_release(&d->sources);
}

static void omp_release(struct matrix_openmp *o)
{
	free(o->dll);
	free(o->provider);
	free(o->fix);
	free(o->why);
	strlist_release(&o->sources);
}

static void issue_release(struct matrix_issue *i)
{
	free(i->id);
	free(i->symptom);
	free(i->cause);
	free(i->fix);
	strlist_release(&i->sources);
	strlist_release(&i->when.variant);
	strlist_release(&i->when.imports);
	strlist_release(&i->when.unresolved);
	strlist_release(&i->when.older);
}

static void row_free(struct matrix_row *r)
{
	size_t i;
	if (!r)
		return;
	free(r->id);
	free(r->torch_text);
	pep440_spec_release(&r->torch);
	strlist_release(&r->variants);
	strlist_release(&r->sources);
	strlist_release(&r->evidence);
	free(r->note);
	for (i = 0; i < MATRIX_NARCH; i++)
		free(r->vc_redist[i].text);
	for (i = 0; i < r->ndlls; i++)
		dll_release(&r->dlls[i]);
	free(r->dlls);
	for (i = 0; i < r->nopenmp; i++)
		omp_release(&r->openmp[i]);
	free(r->openmp);
	for (i = 0; i < r->nissues; i++)
		issue_release(&r->issues[i]);
	free(r->issues);
	free(r);
}

/* Item i of a list value that must hold mappings; NULL (reported) when it does not. */
const struct ynode *list_map(struct lint *L, const struct ynode *list, size_t i, const char *key)
{
	const struct ynode *it = list->kid[i];
	if (it->kind != Y_MAP) {
		lint_error(L, it->line, it->col, "each item of `%s` must be a mapping, not %s", key, kind_name(it));
		return NULL;
	}
	return it;
}

/* A list-of-mappings value: the node, or NULL (absent, or reported as the wrong type). */
const struct ynode *get_map_list(struct lint *L, const struct ynode *row, const char *key, const char *hint)
{
	const struct ynode *v = map_get(row, key);
	if (!v)
		return NULL;
	if (v->kind != Y_SEQ) {
		const struct ynode *k = is_null(v) ? map_key(row, key) : v;
		lint_error(L, k->line, k->col, "`%s` must be a list of %s, not %s", key, hint, kind_name(v));
		return NULL;
	}
	return v;
}

/*
 * A mapping being read (a row or an entry of one): the node, its row, and
 * how messages name it ("row `torch-2.4.0`"), set once its id or name is read.
 */
struct entry {
	struct lint *L;
	const struct ynode *m;
	struct matrix_row *r;
	char what[160];
	int status_written; /* the entry's own `status`, valid */
};

/* A string key of the entry, as its field says (required for a row unless it merges). */
static char *entry_str(struct entry *x, const struct matrix_field *f, const char *what)
{
	return get_str(x->L, x->m, f->key, what ? what : x->what, f->hint, required(f, x->r->merge));
}

static int entry_enum(struct entry *x, const struct matrix_field *f, const char *const *names)
{
	return get_enum(x->L, x->m, f->key, x->what, names, required(f, x->r->merge));
}

static void name_entry(struct entry *x, const char *kind, const char *name)
{
	char pbuf[128];
	snprintf(x->what, sizeof(x->what), "%s `%s`", kind, printable(name ? name : "?", pbuf, sizeof(pbuf)));
}

/* One key of a runtime_dlls entry, read into d. */
static void dll_field(struct entry *x, enum matrix_dll_field k, struct matrix_dll *d)
{
	const struct matrix_field *f = &matrix_dll_fields[k];
	const struct ynode *v;
	int e;
	switch (k) {
	case MF_DLL_NAME:
		d->name = entry_str(x, f, matrix_schema(MATRIX_MAP_DLL)->name);
		check_dll_name(x->L, x->m, f->key, d->name);
		name_entry(x, "runtime_dlls entry", d->name);
		break;
	case MF_DLL_MIN_VERSION:
		if ((v = map_get(x->m, f->key)))
			parse_min(x->L, v, "`min_version`", f->hint, &d->min);
		break;
	case MF_DLL_WHERE:
		e = entry_enum(x, f, where_names);
		d->where = e >= 0 ? (enum matrix_where)e : MATRIX_EITHER;
		break;
	case MF_DLL_ARCH:
		d->arch_mask = get_arch(x->L, x->m, f);
		break;
	case MF_DLL_WHY:
		d->why = entry_str(x, f, NULL);
		break;
	case MF_DLL_WINERROR:
		d->winerror = get_winerror(x->L, x->m, f->key, f->hint);
		if (d->winerror && !d->min.set)
			lint_error(x->L, x->m->line, x->m->col, "%s has `winerror` but no `min_version` (the error is for a "
				   "copy older than it)", x->what);
		break;
	case MF_DLL_STATUS:
		e = entry_enum(x, f, status_names);
		d->status = e >= 0 ? (enum matrix_status)e : x->r->status;
		break;
	case MF_DLL_SOURCES:
		get_sources(x->L, x->m, f, &d->sources);
		break;
	case MF_DLL_COUNT:
		break;
	}
}

/* One entry of a row's list of mappings, read into item (a struct matrix_dll, matrix_openmp or matrix_issue). */
typedef void (*entry_fn)(struct entry *x, void *item);

/*
 * The items of `list` (the value of a row's `field`), each a mapping of kind
 * `map` read by fn into the next struct of `size` bytes of `items` (room for
 * list->n; *n counts them); each struct's position (at pos_off) is its
 * mapping's.
 */
static void read_entries(struct lint *L, const struct ynode *list, const struct matrix_field *field,
			 struct matrix_row *r, enum matrix_map map, const char *const *keys, void *items, size_t *n,
			 size_t size, size_t pos_off, entry_fn fn)
{
	size_t i;
	for (i = 0; i < list->n; i++) {
		struct entry x = { L, list_map(L, list, i, field->key), r, "", 0 };
		char *item;
		unsigned present;
		if (!x.m)
			continue;
		item = (char *)items + (*n)++ * size;
		set_pos((struct matrix_pos *)(void *)(item + pos_off), L->file, x.m);
		map_check(L, x.m, matrix_schema(map)->name, keys, &present);
		fn(&x, item);
	}
}

static void dll_entry(struct entry *x, void *item)
{
	struct matrix_row *r = x->r;
	struct matrix_dll *d = item;
	size_t j;
	int k;
	for (k = 0; k < MF_DLL_COUNT; k++)
		dll_field(x, (enum matrix_dll_field)k, d);
	for (j = 0; d->name && &r->dlls[j] != d; j++)
		if (r->dlls[j].name && !str_icmp(r->dlls[j].name, d->name) &&
		    (!r->dlls[j].arch_mask || !d->arch_mask || (r->dlls[j].arch_mask & d->arch_mask)))
			lint_error(x->L, x->m->line, x->m->col, "`%s` is listed twice in runtime_dlls (first at line %u)",
				   d->name, r->dlls[j].pos.line);
}

static void parse_dlls(struct lint *L, const struct ynode *row, const struct matrix_field *field, struct matrix_row *r)
{
	const struct ynode *list = get_map_list(L, row, field->key, field->hint);
	if (!list)
		return;
	r->dlls = xcalloc(list->n ? list->n : 1, sizeof(*r->dlls));
	read_entries(L, list, field, r, MATRIX_MAP_DLL, dll_keys, r->dlls, &r->ndlls, sizeof(*r->dlls),
		     offsetof(struct matrix_dll, pos), dll_entry);
}

/* One key of an openmp entry, read into o. */
static void openmp_field(struct entry *x, enum matrix_openmp_field k, struct matrix_openmp *o)
{
	const struct matrix_field *f = &matrix_openmp_fields[k];
	int e;
	switch (k) {
	case MF_OPENMP_DLL:
		o->dll = entry_str(x, f, matrix_schema(MATRIX_MAP_OPENMP)->name);
		check_dll_name(x->L, x->m, f->key, o->dll);
		name_entry(x, "openmp entry", o->dll);
		break;
	case MF_OPENMP_WHERE:
		e = entry_enum(x, f, where_names);
		o->where = e >= 0 ? (enum matrix_where)e : MATRIX_EITHER;
		break;
	case MF_OPENMP_REDISTRIBUTABLE:
		e = get_bool(x->L, x->m, f->key);
		if (e == -1 && required(f, 0))
			lint_error(x->L, x->m->line, x->m->col, "%s is missing `%s` (%s)", x->what, f->key, f->hint);
		o->redistributable = e == 1;
		break;
	case MF_OPENMP_ARCH:
		o->arch_mask = get_arch(x->L, x->m, f);
		break;
	case MF_OPENMP_PROVIDER:
		o->provider = entry_str(x, f, NULL);
		break;
	case MF_OPENMP_FIX:
		o->fix = entry_str(x, f, NULL);
		break;
	case MF_OPENMP_WHY:
		o->why = entry_str(x, f, NULL);
		break;
	case MF_OPENMP_STATUS:
		e = entry_enum(x, f, status_names);
		o->status = e >= 0 ? (enum matrix_status)e : x->r->status;
		break;
	case MF_OPENMP_SOURCES:
		get_sources(x->L, x->m, f, &o->sources);
		break;
	case MF_OPENMP_COUNT:
		break;
	}
}

static void openmp_entry(struct entry *x, void *item)
{
	struct matrix_row *r = x->r;
	struct matrix_openmp *o = item;
	size_t j;
	int k;
	for (k = 0; k < MF_OPENMP_COUNT; k++)
		openmp_field(x, (enum matrix_openmp_field)k, o);
	for (j = 0; o->dll && &r->openmp[j] != o; j++)
		if (r->openmp[j].dll && !str_icmp(r->openmp[j].dll, o->dll))
			lint_error(x->L, x->m->line, x->m->col, "`%s` is listed twice in openmp (first at line %u)", o->dll,
				   r->openmp[j].pos.line);
}

static void parse_openmp(struct lint *L, const struct ynode *row, const struct matrix_field *field,
			 struct matrix_row *r)
{
	const struct ynode *list = get_map_list(L, row, field->key, field->hint);
	if (!list)
		return;
	r->openmp = xcalloc(list->n ? list->n : 1, sizeof(*r->openmp));
	read_entries(L, list, field, r, MATRIX_MAP_OPENMP, omp_keys, r->openmp, &r->nopenmp, sizeof(*r->openmp),
		     offsetof(struct matrix_openmp, pos), openmp_entry);
}

static void parse_dll_list(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct strlist *out)
{
	const struct ynode *list = get_list(L, m, f->key, f->hint, 1, out);
	size_t i;
	char buf[128];
	for (i = 0; i < out->n; i++)
		if (!dll_name_ok(out->v[i])) {
			const struct ynode *it = list_item(list, i);
			lint_error(L, it->line, it->col, "`%s` is not a DLL file name (such as libomp140.x86_64.dll)",
				   shown(it, buf, sizeof(buf)));
		}
}

/* One key of a known issue's applies_when, read into w. */
static void when_field(struct lint *L, const struct ynode *m, enum matrix_when_field k, struct matrix_when *w)
{
	const struct matrix_field *f = &matrix_when_fields[k];
	switch (k) {
	case MF_WHEN_VARIANT:
		get_variants(L, m, f, &w->variant);
		break;
	case MF_WHEN_ARCH:
		w->arch_mask = get_arch(L, m, f);
		break;
	case MF_WHEN_IMPORTS:
		parse_dll_list(L, m, f, &w->imports);
		break;
	case MF_WHEN_UNRESOLVED:
		parse_dll_list(L, m, f, &w->unresolved);
		break;
	case MF_WHEN_OLDER:
		parse_dll_list(L, m, f, &w->older);
		break;
	case MF_WHEN_COUNT:
		break;
	}
}

static void parse_when(struct lint *L, const struct ynode *w, const struct matrix_field *f, struct matrix_when *out)
{
	unsigned present;
	int k;
	if (w->kind != Y_MAP) {
		lint_error(L, w->line, w->col, "`%s` must be %s, not %s", f->key, f->hint, kind_name(w));
		return;
	}
	map_check(L, w, matrix_schema(MATRIX_MAP_WHEN)->name, when_keys, &present);
	for (k = 0; k < MF_WHEN_COUNT; k++)
		when_field(L, w, (enum matrix_when_field)k, out);
}

/* One key of a known_issues entry, read into is. */
static void issue_field(struct entry *x, enum matrix_issue_field k, struct matrix_issue *is)
{
	const struct matrix_field *f = &matrix_issue_fields[k];
	const struct ynode *v;
	char pbuf[128];
	int e;
	switch (k) {
	case MF_ISSUE_ID:
		is->id = entry_str(x, f, matrix_schema(MATRIX_MAP_ISSUE)->name);
		if (is->id && !id_ok(is->id)) {
			v = map_get(x->m, f->key);
			lint_error(x->L, v->line, v->col,
				   "known issue id `%s` may only use letters, digits, '.', '-' and '_' (at most 64)",
				   shown(v, pbuf, sizeof(pbuf)));
		}
		name_entry(x, "known issue", is->id);
		break;
	case MF_ISSUE_SYMPTOM:
		is->symptom = entry_str(x, f, NULL);
		break;
	case MF_ISSUE_CAUSE:
		is->cause = entry_str(x, f, NULL);
		break;
	case MF_ISSUE_FIX:
		is->fix = entry_str(x, f, NULL);
		break;
	case MF_ISSUE_STATUS:
		e = entry_enum(x, f, status_names);
		is->status = e >= 0 ? (enum matrix_status)e : x->r->status;
		x->status_written = e >= 0;
		break;
	case MF_ISSUE_SOURCES:
		get_sources(x->L, x->m, f, &is->sources);
		/* only a status the entry writes itself asks for sources here */
		if (is->status == MATRIX_SOURCED && !is->sources.n && x->status_written)
			lint_error(x->L, x->m->line, x->m->col, "%s is `status: sourced` but has no `sources`", x->what);
		break;
	case MF_ISSUE_APPLIES_WHEN:
		if ((v = map_get(x->m, f->key)))
			parse_when(x->L, v, f, &is->when);
		break;
	case MF_ISSUE_COUNT:
		break;
	}
}

static void issue_entry(struct entry *x, void *item)
{
	struct matrix_row *r = x->r;
	struct matrix_issue *is = item;
	size_t j;
	int k;
	for (k = 0; k < MF_ISSUE_COUNT; k++)
		issue_field(x, (enum matrix_issue_field)k, is);
	for (j = 0; is->id && &r->issues[j] != is; j++)
		if (r->issues[j].id && !strcmp(r->issues[j].id, is->id))
			lint_error(x->L, x->m->line, x->m->col, "known issue `%s` is listed twice in this row (first at line %u)",
				   is->id, r->issues[j].pos.line);
}

static void parse_issues(struct lint *L, const struct ynode *row, const struct matrix_field *field,
			 struct matrix_row *r)
{
	const struct ynode *list = get_map_list(L, row, field->key, field->hint);
	if (!list)
		return;
	r->issues = xcalloc(list->n ? list->n : 1, sizeof(*r->issues));
	read_entries(L, list, field, r, MATRIX_MAP_ISSUE, issue_keys, r->issues, &r->nissues, sizeof(*r->issues),
		     offsetof(struct matrix_issue, pos), issue_entry);
}

static void parse_vc_redist(struct lint *L, const struct ynode *row, const struct matrix_field *f, struct matrix_row *r)
{
	const struct ynode *v = map_get(row, f->key);
	unsigned present;
	int a;
	char what[32];
	if (!v)
		return;
	if (v->kind != Y_MAP) {
		const struct ynode *k = is_null(v) ? map_key(row, f->key) : v;
		lint_error(L, k->line, k->col, "`%s` must be %s, not %s", f->key, f->hint, kind_name(v));
		return;
	}
	map_check(L, v, "vc_redist (x64, x86, arm64)", arch_names, &present);
	for (a = 0; a < MATRIX_NARCH; a++) {
		const struct ynode *x = map_get(v, arch_names[a]);
		if (!x)
			continue;
		snprintf(what, sizeof(what), "vc_redist.%s", arch_names[a]);
		parse_min(L, x, what, matrix_dll_fields[MF_DLL_MIN_VERSION].hint, &r->vc_redist[a]);
	}
}

/* One key of a row, read into r. */
static void row_field(struct entry *x, enum matrix_row_field k)
{
	const struct matrix_field *f = &matrix_row_fields[k];
	struct matrix_row *r = x->r;
	struct lint *L = x->L;
	const struct ynode *v;
	char pbuf[128];
	int e;
	switch (k) {
	case MF_ROW_ID:
		r->id = entry_str(x, f, "row");
		if (r->id && !id_ok(r->id)) {
			v = map_get(x->m, f->key);
			lint_error(L, v->line, v->col, "row id `%s` may only use letters, digits, '.', '-' and '_' (at most 64)",
				   shown(v, pbuf, sizeof(pbuf)));
		}
		name_entry(x, "row", r->id);
		break;
	case MF_ROW_TORCH:
		r->torch_text = entry_str(x, f, NULL);
		if (r->torch_text) {
			struct err se;
			err_clear(&se);
			v = map_get(x->m, f->key);
			set_pos(&r->torch_pos, L->file, v);
			if (pep440_spec_parse(&r->torch, r->torch_text, &se) < 0)
				lint_error(L, v->line, scalar_col(v, se.code > 0 ? (size_t)se.code - 1 : 0), "torch: %s", se.msg);
		}
		break;
	case MF_ROW_VARIANT:
		get_variants(L, x->m, f, &r->variants);
		break;
	case MF_ROW_ARCH:
		r->arch_mask = get_arch(L, x->m, f);
		break;
	case MF_ROW_STATUS:
		e = entry_enum(x, f, status_names);
		r->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_ROW_SOURCES:
		get_sources(L, x->m, f, &r->sources);
		if (r->status == MATRIX_SOURCED && !r->sources.n)
			lint_error(L, x->m->line, x->m->col,
				   "%s is `status: sourced` but has no `sources` (links to issues, PRs or docs)", x->what);
		break;
	case MF_ROW_EVIDENCE:
		get_evidence(L, x->m, f, &r->evidence, &r->measured_max);
		if (r->status == MATRIX_MEASURED && !r->evidence.n)
			lint_error(L, x->m->line, x->m->col,
				   "%s is `status: measured` but has no `evidence` (the wheels measured)", x->what);
		break;
	case MF_ROW_NOTE:
		r->note = entry_str(x, f, NULL);
		break;
	case MF_ROW_VC_REDIST:
		parse_vc_redist(L, x->m, f, r);
		break;
	case MF_ROW_RUNTIME_DLLS:
		parse_dlls(L, x->m, f, r);
		break;
	case MF_ROW_OPENMP:
		parse_openmp(L, x->m, f, r);
		break;
	case MF_ROW_KNOWN_ISSUES:
		parse_issues(L, x->m, f, r);
		break;
	case MF_ROW_MERGE: /* read first, in parse_row: it changes what the row must write */
	case MF_ROW_COUNT:
		break;
	}
}

/* Whether the torch specifier pins one version (== without wildcard, or ===). */
static int pins_one(const struct pep440_spec *s)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if ((s->v[i].op == PEP440_OP_EQ && !s->v[i].wildcard) || s->v[i].op == PEP440_OP_ARBITRARY)
			return 1;
	return 0;
}

/* Variant and arch restrictions count more than pinning one version: a cu92 row beats ==1.5.0. */
static int specificity(const struct matrix_row *r)
{
	return 2 * ((r->variants.n > 0) + (r->arch_mask != 0)) + pins_one(&r->torch);
}

/* Parses one row; NULL if it had errors (they are reported). */
static struct matrix_row *parse_row(struct lint *L, const struct ynode *m, unsigned layer)
{
	struct entry x = { L, m, NULL, "", 0 };
	size_t before = L->nerr;
	int k;

	if (m->kind != Y_MAP) {
		lint_error(L, m->line, m->col, "each row must be a mapping (id, torch, status, ...), not %s", kind_name(m));
		return NULL;
	}
	x.r = xcalloc(1, sizeof(*x.r));
	x.r->layer = layer;
	set_pos(&x.r->pos, L->file, m);
	map_check(L, m, matrix_schema(MATRIX_MAP_ROW)->name, row_keys, &x.r->present);
	x.r->merge = get_bool(L, m, matrix_row_fields[MF_ROW_MERGE].key) == 1;
	for (k = 0; k < MF_ROW_COUNT; k++)
		row_field(&x, (enum matrix_row_field)k);
	if (L->nerr != before) {
		row_free(x.r);
		return NULL;
	}
	return x.r;
}

/* ---- overlaps within one file ---------------------------------------- */

static void add_sample(struct pep440 *out, size_t *n, size_t cap, const struct pep440 *v)
{
	if (*n < cap)
		out[(*n)++] = *v;
}

/* Boundary versions around each clause's version: where two rows' sets meet, one of these is in both. */
void spec_samples(const struct pep440_spec *s, struct pep440 *out, size_t *n, size_t cap)
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

static const char *const variant_samples[] = { "cpu",     "cu92",    "cu101",     "cu118",  "cu121", "cu124",
					       "cu126",   "cu128",   "cu129",     "cu130",  "rocm5.7", "rocm6.1",
					       "rocm6.2", "rocm6.2.4", "rocm6.3", "rocm6.4", "xpu",   NULL };

static int variant_ok(const struct matrix_row *r, const char *name)
{
	size_t i;
	if (!r->variants.n)
		return 1;
	if (!name || !*name)
		return 0;
	for (i = 0; i < r->variants.n; i++)
		if (matrix_glob(r->variants.v[i], name))
			return 1;
	return 0;
}

/* A variant both rows accept ("" when neither restricts it); NULL if none. */
static const char *common_variant(const struct matrix_row *a, const struct matrix_row *b)
{
	size_t i;
	if (!a->variants.n && !b->variants.n)
		return "";
	for (i = 0; variant_samples[i]; i++)
		if (variant_ok(a, variant_samples[i]) && variant_ok(b, variant_samples[i]))
			return variant_samples[i];
	for (i = 0; i < a->variants.n; i++)
		if (!strpbrk(a->variants.v[i], "*?") && variant_ok(b, a->variants.v[i]))
			return a->variants.v[i];
	for (i = 0; i < b->variants.n; i++)
		if (!strpbrk(b->variants.v[i], "*?") && variant_ok(a, b->variants.v[i]))
			return b->variants.v[i];
	return NULL;
}

static void describe_min(struct strbuf *sb, const struct matrix_min *m)
{
	if (m->set)
		strbuf_addf(sb, "\"%s\"", m->text);
	else
		strbuf_adds(sb, "(none)");
}

/* 1 and a description of the first difference in what two rows require; 0 if they agree. */
static int row_diff(const struct matrix_row *a, const struct matrix_row *b, unsigned arch_mask, struct strbuf *why)
{
	size_t i, j;
	int k;
	for (k = 0; k < MATRIX_NARCH; k++) {
		const struct matrix_min *x = &a->vc_redist[k], *y = &b->vc_redist[k];
		if (arch_mask && !(arch_mask & (1u << k)))
			continue;
		if (x->set != y->set || (x->set && winver_cmp(&x->v, &y->v))) {
			strbuf_addf(why, "vc_redist.%s ", arch_names[k]);
			describe_min(why, x);
			strbuf_adds(why, " vs ");
			describe_min(why, y);
			return 1;
		}
	}
	for (i = 0; i < a->ndlls + b->ndlls; i++) {
		const struct matrix_dll *x = i < a->ndlls ? &a->dlls[i] : &b->dlls[i - a->ndlls];
		const struct matrix_row *other = i < a->ndlls ? b : a;
		const struct matrix_dll *y = NULL;
		for (j = 0; j < other->ndlls; j++)
			if (!str_icmp(other->dlls[j].name, x->name) && other->dlls[j].arch_mask == x->arch_mask)
				y = &other->dlls[j];
		if (!y) {
			strbuf_addf(why, "runtime_dlls: %s only in `%s`", x->name, i < a->ndlls ? a->id : b->id);
			return 1;
		}
		if (x->min.set != y->min.set || (x->min.set && winver_cmp(&x->min.v, &y->min.v)) || x->where != y->where) {
			const struct matrix_dll *p = i < a->ndlls ? x : y, *q = i < a->ndlls ? y : x;
			strbuf_addf(why, "runtime_dlls %s: min_version ", x->name);
			describe_min(why, &p->min);
			strbuf_addf(why, " where %s vs min_version ", where_names[p->where]);
			describe_min(why, &q->min);
			strbuf_addf(why, " where %s", where_names[q->where]);
			return 1;
		}
	}
	for (i = 0; i < a->nopenmp + b->nopenmp; i++) {
		const struct matrix_openmp *x = i < a->nopenmp ? &a->openmp[i] : &b->openmp[i - a->nopenmp];
		const struct matrix_row *other = i < a->nopenmp ? b : a;
		const struct matrix_openmp *y = NULL;
		for (j = 0; j < other->nopenmp; j++)
			if (!str_icmp(other->openmp[j].dll, x->dll))
				y = &other->openmp[j];
		if (!y) {
			strbuf_addf(why, "openmp: %s only in `%s`", x->dll, i < a->nopenmp ? a->id : b->id);
			return 1;
		}
		if (x->where != y->where || x->redistributable != y->redistributable) {
			strbuf_addf(why, "openmp %s: where/redistributable differ", x->dll);
			return 1;
		}
	}
	for (i = 0; i < a->nissues + b->nissues; i++) {
		const struct matrix_issue *x = i < a->nissues ? &a->issues[i] : &b->issues[i - a->nissues];
		const struct matrix_row *other = i < a->nissues ? b : a;
		int found = 0;
		for (j = 0; j < other->nissues; j++)
			found |= !strcmp(other->issues[j].id, x->id);
		if (!found) {
			strbuf_addf(why, "known issue %s only in `%s`", x->id, i < a->nissues ? a->id : b->id);
			return 1;
		}
	}
	return 0;
}

/* For messages: a plain release with few parts reads better than 2.4.3.0.1 or 2.4.post1. */
int simpler(const struct pep440 *a, const struct pep440 *b)
{
	size_t sa = a->nrelease + (pep440_is_prerelease(a) || a->has_post ? 10 : 0);
	size_t sb = b->nrelease + (pep440_is_prerelease(b) || b->has_post ? 10 : 0);
	if (sa != sb)
		return sa < sb;
	return pep440_cmp(a, b) < 0;
}

/*
 * Two rows of equal specificity that both match `variant` and the
 * architectures `amask`: an error when some sample version is in both
 * specifiers (the simplest one is named) and the rows require different things.
 */
static void overlap(struct lint *L, const struct matrix_row *a, const struct matrix_row *b, const char *variant,
		    unsigned amask, const struct pep440 *samples, size_t ns)
{
	const struct pep440 *low = NULL;
	struct strbuf why = STRBUF_INIT, ver = STRBUF_INIT;
	int one_arch = amask && (amask & (amask - 1)) == 0;
	size_t k;
	for (k = 0; k < ns; k++)
		if (pep440_spec_contains(&a->torch, &samples[k], NULL) && pep440_spec_contains(&b->torch, &samples[k], NULL) &&
		    (!low || simpler(&samples[k], low)))
			low = &samples[k];
	if (low && row_diff(a, b, amask, &why)) {
		pep440_format(low, &ver);
		lint_error(L, b->torch_pos.line, b->torch_pos.col,
			   "rows `%s` (line %u) and `%s` both match torch %s%s%s%s%s with different requirements (%s); narrow one `torch` specifier or restrict one row by `variant`/`arch`",
			   a->id, a->pos.line, b->id, strbuf_str(&ver), *variant ? ", variant " : "", variant,
			   one_arch ? ", arch " : "", one_arch ? arch_names[amask == 1 ? 0 : amask == 2 ? 1 : 2] : "",
			   strbuf_str(&why));
	}
	strbuf_release(&why);
	strbuf_release(&ver);
}

static void check_overlaps(struct lint *L, struct matrix_row **rows, size_t n)
{
	size_t i, j, budget = OVERLAP_BUDGET;
	enum { MAX_SAMPLES = 2 * 9 * PEP440_MAX_CLAUSES }; /* spec_samples adds at most 9 per clause */
	struct pep440 *samples;
	if (n < 2)
		return;
	samples = xmalloc(sizeof(*samples) * MAX_SAMPLES);
	for (j = 1; j < n; j++) {
		for (i = 0; i < j; i++) {
			const struct matrix_row *a = rows[i], *b = rows[j];
			const char *variant;
			unsigned amask;
			size_t ns = 0, cost;
			if (a->merge || b->merge || !a->torch.n || !b->torch.n)
				continue;
			if (specificity(a) != specificity(b))
				continue;
			if (a->arch_mask && b->arch_mask && !(a->arch_mask & b->arch_mask))
				continue;
			amask = a->arch_mask & b->arch_mask ? a->arch_mask & b->arch_mask : a->arch_mask | b->arch_mask;
			if (!(variant = common_variant(a, b)))
				continue;
			spec_samples(&a->torch, samples, &ns, MAX_SAMPLES);
			spec_samples(&b->torch, samples, &ns, MAX_SAMPLES);
			cost = ns * (a->torch.n + b->torch.n);
			if (budget < cost) {
				lint_error(L, b->pos.line, b->pos.col,
					   "too many rows and clauses to check for overlaps; split the file");
				free(samples);
				return;
			}
			budget -= cost;
			overlap(L, a, b, variant, amask, samples, ns);
		}
	}
	free(samples);
}

/* ---- files and layers ------------------------------------------------- */

static long find_row(const struct matrix *m, const char *id)
{
	size_t i;
	for (i = 0; i < m->nrows; i++)
		if (!strcmp(m->rows[i]->id, id))
			return (long)i;
	return -1;
}

static void remove_row(struct matrix *m, size_t i, int free_it)
{
	if (free_it)
		row_free(m->rows[i]);
	memmove(m->rows + i, m->rows + i + 1, (m->nrows - i - 1) * sizeof(*m->rows));
	m->nrows--;
}

#define SWAP(T, a, b)            \
	do {                     \
		T swap_tmp_ = (a); \
		(a) = (b);         \
		(b) = swap_tmp_;   \
	} while (0)

/* Moves the value of key k from nw (a `merge: true` row) into old. */
static void merge_field(struct matrix_row *old, struct matrix_row *nw, enum matrix_row_field k)
{
	size_t i;
	switch (k) {
	case MF_ROW_TORCH:
		SWAP(struct pep440_spec, old->torch, nw->torch);
		SWAP(char *, old->torch_text, nw->torch_text);
		old->torch_pos = nw->torch_pos;
		break;
	case MF_ROW_VARIANT:
		SWAP(struct strlist, old->variants, nw->variants);
		break;
	case MF_ROW_ARCH:
		old->arch_mask = nw->arch_mask;
		break;
	case MF_ROW_STATUS:
		old->status = nw->status;
		break;
	case MF_ROW_SOURCES:
		SWAP(struct strlist, old->sources, nw->sources);
		break;
	case MF_ROW_EVIDENCE:
		SWAP(struct strlist, old->evidence, nw->evidence);
		SWAP(struct pep440, old->measured_max, nw->measured_max);
		break;
	case MF_ROW_NOTE:
		SWAP(char *, old->note, nw->note);
		break;
	case MF_ROW_VC_REDIST:
		for (i = 0; i < MATRIX_NARCH; i++)
			SWAP(struct matrix_min, old->vc_redist[i], nw->vc_redist[i]);
		break;
	case MF_ROW_RUNTIME_DLLS:
		SWAP(struct matrix_dll *, old->dlls, nw->dlls);
		SWAP(size_t, old->ndlls, nw->ndlls);
		break;
	case MF_ROW_OPENMP:
		SWAP(struct matrix_openmp *, old->openmp, nw->openmp);
		SWAP(size_t, old->nopenmp, nw->nopenmp);
		break;
	case MF_ROW_KNOWN_ISSUES:
		SWAP(struct matrix_issue *, old->issues, nw->issues);
		SWAP(size_t, old->nissues, nw->nissues);
		break;
	case MF_ROW_ID:    /* the same: that is what merges them */
	case MF_ROW_MERGE: /* a merged row is an ordinary row again */
	case MF_ROW_COUNT:
		break;
	}
}

/* Moves the fields `nw` wrote into `old`; returns old (nw is freed). */
static struct matrix_row *merge_rows(struct matrix_row *old, struct matrix_row *nw)
{
	int k;
	for (k = 0; k < MF_ROW_COUNT; k++)
		if (nw->present & (1u << k))
			merge_field(old, nw, (enum matrix_row_field)k);
	old->pos = nw->pos;
	old->layer = nw->layer;
	old->present |= nw->present;
	old->merge = 0;
	row_free(nw);
	return old;
}

/* The positions in rows point at the layer's file name; the name is interned in m->files first. */
static void fix_file_names(struct matrix_row *r, const char *file)
{
	size_t i;
	int a;
	r->pos.file = file;
	if (r->torch_pos.line)
		r->torch_pos.file = file;
	for (a = 0; a < MATRIX_NARCH; a++)
		if (r->vc_redist[a].set && r->vc_redist[a].pos.line)
			r->vc_redist[a].pos.file = file;
	for (i = 0; i < r->ndlls; i++) {
		r->dlls[i].pos.file = file;
		if (r->dlls[i].min.set)
			r->dlls[i].min.pos.file = file;
	}
	for (i = 0; i < r->nopenmp; i++)
		r->openmp[i].pos.file = file;
	for (i = 0; i < r->nissues; i++)
		r->issues[i].pos.file = file;
}

/* One file being read as a layer: its tree and what it says. */
struct layer {
	struct lint L;
	unsigned index;                 /* the layer it would become */
	struct ynode *root;
	const struct ynode *remove_node;
	struct strlist remove;          /* row ids to drop */
	struct matrix_row **rows;       /* the rows read without errors */
	size_t nrows;
	struct matrix_cuda *cuda;       /* the `cuda` entries read without errors */
	size_t ncuda;
	struct matrix_proc *procs;      /* the `torch_load` entries read without errors */
	size_t nprocs;
	struct matrix_ext *exts;        /* the `extension_load` entries read without errors */
	size_t nexts;
};

/* Steps 1 and 2: bytes and tree. -1 when there is no tree (reported). */
static int read_tree(struct layer *y, const void *data, size_t len)
{
	struct ytree_error ye;
	long start;
	int empty;
	if (len > MATRIX_MAX_BYTES) {
		lint_error(&y->L, 1, 1, "the file is larger than %d bytes", MATRIX_MAX_BYTES);
		return -1;
	}
	start = ytree_check_bytes(data, len, &ye);
	if (start < 0) {
		lint_error(&y->L, ye.line, ye.col, "%s", ye.msg);
		return -1;
	}
	y->root = ytree_parse((const unsigned char *)data + start, len - (size_t)start, &matrix_yaml, &empty, &ye);
	if (!y->root) {
		if (!empty)
			lint_error(&y->L, ye.line, ye.col, "%s", ye.msg);
		else if (!y->L.nerr)
			lint_error(&y->L, 1, 1, "empty file: expected a mapping with `schema: 1` and `rows`");
		return -1;
	}
	return 0;
}

/* `schema`: -1 when the file is of another schema (its keys mean other things: nothing more is read). */
static int read_schema(struct layer *y)
{
	const struct ynode *root = y->root, *v = map_get(root, matrix_top_fields[MF_TOP_SCHEMA].key);
	char buf[128];
	if (!v) {
		lint_error(&y->L, root->line, root->col, "missing `schema: %d` at the top level", MATRIX_SCHEMA);
		return 0;
	}
	if (v->kind == Y_SCALAR && !v->quoted && !strcmp(v->s, "1"))
		return 0;
	if (v->kind == Y_SCALAR && v->len && v->len < 10 && strspn(v->s, "0123456789") == v->len && !v->quoted)
		lint_error(&y->L, v->line, v->col, "unsupported schema %s: this torch-dll-check reads schema %d",
			   shown(v, buf, sizeof(buf)), MATRIX_SCHEMA);
	else
		lint_error(&y->L, v->line, v->col, "`schema` must be the number %d", MATRIX_SCHEMA);
	return -1;
}

/* `rows`: each row parsed; ids unique in the file; then the overlaps between them. */
static void read_rows(struct layer *y, const struct ynode *rows_node)
{
	size_t i, j;
	char buf[128];
	y->rows = xcalloc(rows_node->n ? rows_node->n : 1, sizeof(*y->rows));
	for (i = 0; i < rows_node->n; i++) {
		const struct ynode *ri = rows_node->kid[i], *idn = ri->kind == Y_MAP ? map_get(ri, "id") : NULL;
		struct matrix_row *r;
		/* Duplicate ids are found on the raw nodes, so rows with other errors count too. */
		for (j = 0; idn && idn->kind == Y_SCALAR && j < i; j++) {
			const struct ynode *rj = rows_node->kid[j], *idj = rj->kind == Y_MAP ? map_get(rj, "id") : NULL;
			if (idj && idj->kind == Y_SCALAR && idj->len && !strcmp(idj->s, idn->s)) {
				lint_error(&y->L, idn->line, idn->col,
					   "duplicate row id `%s` (first at line %u); ids are unique within a file",
					   shown(idn, buf, sizeof(buf)), idj->line);
				break;
			}
		}
		r = parse_row(&y->L, ri, y->index);
		if (!r)
			continue;
		if (idn && j < i) {
			row_free(r);
			continue;
		}
		y->rows[y->nrows++] = r;
	}
	check_overlaps(&y->L, y->rows, y->nrows);
}

/* ---- the `cuda` table ------------------------------------------------- */

static void cuda_release_entry(struct matrix_cuda *c)
{
	free(c->release);
	free(c->driver_text);
	free(c->floor_text);
	strlist_release(&c->dlls);
	strlist_release(&c->sources);
	free(c->published_text);
	pep440_spec_release(&c->published);
	free(c->cudnn);
}

/* "12.4": 0 and the numbers, or -1. */
static int parse_release(const char *s, unsigned *maj, unsigned *min)
{
	size_t a = strspn(s, "0123456789"), b;
	if (!a || a > 2 || s[a] != '.')
		return -1;
	b = strspn(s + a + 1, "0123456789");
	if (!b || b > 2 || s[a + 1 + b])
		return -1;
	*maj = (unsigned)atoi(s);
	*min = (unsigned)atoi(s + a + 1);
	return 0;
}

/* "551.61": 0 and {551, 61}, or -1 (Windows driver versions have two digits after the dot). */
static int parse_nv_driver(const char *s, unsigned out[2])
{
	size_t a = strspn(s, "0123456789");
	if (!a || a > 4 || s[a] != '.' || strspn(s + a + 1, "0123456789") != 2 || s[a + 3])
		return -1;
	out[0] = (unsigned)atoi(s);
	out[1] = (unsigned)atoi(s + a + 1);
	return 0;
}

static void cuda_field(struct lint *L, const struct ynode *m, enum matrix_cuda_field k, struct matrix_cuda *c,
		       const char *what)
{
	const struct matrix_field *f = &matrix_cuda_fields[k];
	const struct ynode *v = map_get(m, f->key);
	char buf[128];
	int e;
	switch (k) {
	case MF_CUDA_RELEASE:
		c->release = get_str(L, m, f->key, what, f->hint, required(f, 0));
		if (c->release && parse_release(c->release, &c->major, &c->minor))
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, f->hint, shown(v, buf, sizeof(buf)));
		break;
	case MF_CUDA_DRIVER:
	case MF_CUDA_FLOOR: {
		char *t = get_str(L, m, f->key, what, f->hint, required(f, 0));
		unsigned *dst = k == MF_CUDA_DRIVER ? c->driver : c->floor;
		if (t && parse_nv_driver(t, dst))
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, f->hint, shown(v, buf, sizeof(buf)));
		if (k == MF_CUDA_DRIVER)
			c->driver_text = t;
		else
			c->floor_text = t;
		break;
	}
	case MF_CUDA_DLLS:
		parse_dll_list(L, m, f, &c->dlls);
		break;
	case MF_CUDA_STATUS:
		e = get_enum(L, m, f->key, what, status_names, required(f, 0));
		c->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_CUDA_SOURCES:
		get_sources(L, m, f, &c->sources);
		if (c->status == MATRIX_SOURCED && !c->sources.n)
			lint_error(L, m->line, m->col, "%s is `status: sourced` but has no `sources`", what);
		break;
	case MF_CUDA_PUBLISHED:
		c->published_text = get_str(L, m, f->key, what, f->hint, required(f, 0));
		if (c->published_text && !strcmp(c->published_text, "none")) {
			c->published_none = 1;
		} else if (c->published_text) {
			struct err se;
			err_clear(&se);
			if (pep440_spec_parse(&c->published, c->published_text, &se) < 0)
				lint_error(L, v->line, scalar_col(v, se.code > 0 ? (size_t)se.code - 1 : 0), "%s: %s",
					   f->key, se.msg);
		}
		break;
	case MF_CUDA_CUDNN:
		c->cudnn = get_str(L, m, f->key, what, f->hint, required(f, 0));
		break;
	case MF_CUDA_COUNT:
		break;
	}
}

/* `cuda`: each entry read; a release listed twice in one file is an error. */
static void read_cuda(struct layer *y, const struct ynode *root)
{
	const struct matrix_field *tf = &matrix_top_fields[MF_TOP_CUDA];
	const struct ynode *list = get_map_list(&y->L, root, tf->key, tf->hint);
	size_t i, j;
	int k;
	if (!list)
		return;
	y->cuda = xcalloc(list->n ? list->n : 1, sizeof(*y->cuda));
	for (i = 0; i < list->n; i++) {
		const struct ynode *m = list_map(&y->L, list, i, tf->key);
		unsigned nerr = y->L.nerr, present;
		struct matrix_cuda c;
		char what[64];
		if (!m)
			continue;
		memset(&c, 0, sizeof(c));
		strlist_init(&c.dlls);
		strlist_init(&c.sources);
		set_pos(&c.pos, y->L.file, m);
		map_check(&y->L, m, matrix_schema(MATRIX_MAP_CUDA)->name, cuda_keys, &present);
		snprintf(what, sizeof(what), "cuda entry at line %u", m->line);
		for (k = 0; k < MF_CUDA_COUNT; k++)
			cuda_field(&y->L, m, (enum matrix_cuda_field)k, &c, what);
		for (j = 0; c.release && j < y->ncuda; j++)
			if (y->cuda[j].major == c.major && y->cuda[j].minor == c.minor)
				lint_error(&y->L, m->line, m->col, "CUDA %u.%u is listed twice in `cuda` (first at line %u)",
					   c.major, c.minor, y->cuda[j].pos.line);
		if (y->L.nerr != nerr || !c.release) {
			cuda_release_entry(&c);
			continue;
		}
		y->cuda[y->ncuda++] = c;
	}
}

const struct matrix_cuda *matrix_cuda_find(const struct matrix *m, unsigned major, unsigned minor)
{
	size_t i;
	for (i = 0; i < m->ncuda; i++)
		if (m->cuda[i].major == major && m->cuda[i].minor == minor)
			return &m->cuda[i];
	return NULL;
}

/* Step 3 for the top level (schema, description, remove, rows). -1: another schema. */
static int read_top(struct layer *y)
{
	const struct ynode *root = y->root, *rows_node;
	const struct matrix_field *rf = &matrix_top_fields[MF_TOP_ROWS];
	unsigned present;
	if (root->kind != Y_MAP) {
		lint_error(&y->L, root->line, root->col,
			   "the top level must be a mapping with `schema: 1` and `rows`, not %s", kind_name(root));
		return -1;
	}
	map_check(&y->L, root, matrix_schema(MATRIX_MAP_TOP)->name, top_keys, &present);
	if (read_schema(y) < 0)
		return -1;
	if (map_get(root, matrix_top_fields[MF_TOP_DESCRIPTION].key)) {
		const struct matrix_field *f = &matrix_top_fields[MF_TOP_DESCRIPTION];
		char *d = get_str(&y->L, root, f->key, "the top level", f->hint, required(f, 0));
		free(d);
	}
	y->remove_node = get_list(&y->L, root, matrix_top_fields[MF_TOP_REMOVE].key, matrix_top_fields[MF_TOP_REMOVE].hint,
				  1, &y->remove);
	rows_node = map_get(root, rf->key);
	if (!rows_node) {
		if (!y->remove_node) /* UNLESS_REMOVE */
			lint_error(&y->L, root->line, root->col, "missing `%s` (%s) at the top level", rf->key, rf->hint);
	} else if (rows_node->kind != Y_SEQ) {
		const struct ynode *k = is_null(rows_node) ? map_key(root, rf->key) : rows_node;
		lint_error(&y->L, k->line, k->col, "`%s` must be %s, not %s", rf->key, rf->hint, kind_name(rows_node));
	} else if (rows_node->n > MATRIX_MAX_ROWS) {
		lint_error(&y->L, rows_node->kid[MATRIX_MAX_ROWS]->line, rows_node->kid[MATRIX_MAX_ROWS]->col,
			   "more than %d rows in one file", MATRIX_MAX_ROWS);
	} else {
		read_rows(y, rows_node);
	}
	read_cuda(y, root);
	proc_read_table(&y->L, root, &y->procs, &y->nprocs);
	ext_read_table(&y->L, root, &y->exts, &y->nexts);
	return 0;
}

/* Against earlier layers: what remove and merge refer to must exist. */
static void check_references(struct layer *y, const struct matrix *m)
{
	size_t i, j;
	char buf[128];
	for (i = 0; i < y->remove.n; i++) {
		const struct ynode *it = list_item(y->remove_node, i);
		if (find_row(m, y->remove.v[i]) < 0)
			lint_error(&y->L, it->line, it->col, "remove: no earlier layer has a row `%s`",
				   shown(it, buf, sizeof(buf)));
	}
	for (i = 0; i < y->nrows; i++) {
		int removed = 0;
		for (j = 0; j < y->remove.n; j++)
			removed |= !strcmp(y->remove.v[j], y->rows[i]->id);
		if (y->rows[i]->merge && (removed || find_row(m, y->rows[i]->id) < 0))
			lint_error(&y->L, y->rows[i]->pos.line, y->rows[i]->pos.col,
				   "row `%s` has `merge: true` but no earlier layer has a row with this id to merge into",
				   y->rows[i]->id);
	}
}

/* Applies a layer without errors: remove, then replace, merge or add each row (the rows move into m). */
static void apply_layer(struct matrix *m, struct layer *y, const char *name)
{
	size_t i;
	strlist_push(&m->files, name);
	name = m->files.v[m->files.n - 1];
	for (i = 0; i < y->remove.n; i++) {
		long at = find_row(m, y->remove.v[i]);
		if (at >= 0)
			remove_row(m, (size_t)at, 1);
	}
	for (i = 0; i < y->nrows; i++) {
		struct matrix_row *r = y->rows[i];
		long at = find_row(m, r->id);
		fix_file_names(r, name);
		if (at >= 0) {
			struct matrix_row *old = m->rows[at];
			remove_row(m, (size_t)at, !r->merge);
			if (r->merge)
				r = merge_rows(old, r);
		}
		ALLOC_GROW(m->rows, m->nrows + 1, m->alloc);
		m->rows[m->nrows++] = r;
		y->rows[i] = NULL;
	}
	for (i = 0; i < y->ncuda; i++) {
		struct matrix_cuda *c = &y->cuda[i];
		size_t j;
		c->pos.file = name;
		for (j = 0; j < m->ncuda; j++)
			if (m->cuda[j].major == c->major && m->cuda[j].minor == c->minor)
				break;
		if (j < m->ncuda) {
			cuda_release_entry(&m->cuda[j]);
		} else {
			ALLOC_GROW(m->cuda, m->ncuda + 1, m->acuda);
			j = m->ncuda++;
		}
		m->cuda[j] = *c;
	}
	y->ncuda = 0; /* moved into m */
	proc_apply(m, y->procs, y->nprocs, name);
	y->nprocs = 0; /* moved into m */
	ext_apply(m, y->exts, y->nexts, name);
	y->nexts = 0;
}

/* Diagnostics from d0 on in file order, whatever order the checks ran in (stable insertion sort: few items). */
static void sort_diags(struct matrix_diags *diags, size_t d0)
{
	size_t i, j;
	for (i = d0 + 1; i < diags->n; i++) {
		struct matrix_diag t = diags->v[i];
		for (j = i; j > d0 && (diags->v[j - 1].line > t.line ||
				      (diags->v[j - 1].line == t.line && diags->v[j - 1].col > t.col)); j--)
			diags->v[j] = diags->v[j - 1];
		diags->v[j] = t;
	}
}

int matrix_load_buffer(struct matrix *m, const char *name, const void *data, size_t len,
		       struct matrix_diags *diags, struct err *err)
{
	struct layer y;
	size_t i, d0 = diags ? diags->n : 0;

	memset(&y, 0, sizeof(y));
	y.L.file = name;
	y.L.diags = diags;
	y.L.err = err;
	y.index = (unsigned)m->files.n;
	strlist_init(&y.remove);
	if (read_tree(&y, data, len) < 0)
		return -1;
	if (!read_top(&y)) {
		check_references(&y, m);
		if (!y.L.nerr)
			apply_layer(m, &y, name);
	}
	if (diags && diags->n > d0)
		sort_diags(diags, d0);
	for (i = 0; i < y.nrows; i++)
		row_free(y.rows[i]);
	free(y.rows);
	for (i = 0; i < y.ncuda; i++)
		cuda_release_entry(&y.cuda[i]);
	free(y.cuda);
	for (i = 0; i < y.nprocs; i++)
		proc_release(&y.procs[i]);
	free(y.procs);
	for (i = 0; i < y.nexts; i++)
		ext_entry_release(&y.exts[i]);
	free(y.exts);
	strlist_release(&y.remove);
	ynode_free(y.root);
	return y.L.nerr ? -1 : 0;
}

int matrix_load_file(struct matrix *m, const char *path, struct matrix_diags *diags, struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r;
	if (os_read_file(path, MATRIX_MAX_BYTES, &sb, err) < 0) {
		struct lint L = { path, diags, 0, NULL };
		lint_error(&L, 1, 1, "%s", err ? err->msg : "cannot read the file");
		if (err)
			err_prefix(err, "%s: ", path);
		strbuf_release(&sb);
		return -1;
	}
	r = matrix_load_buffer(m, path, sb.buf, sb.len, diags, err);
	strbuf_release(&sb);
	return r;
}

int matrix_load_default(struct matrix *m, struct matrix_diags *diags, struct err *err)
{
	return matrix_load_buffer(m, MATRIX_DEFAULT_NAME, matrix_default_yaml, matrix_default_yaml_len, diags, err);
}

void matrix_init(struct matrix *m)
{
	m->rows = NULL;
	m->nrows = m->alloc = 0;
	strlist_init(&m->files);
	m->cuda = NULL;
	m->ncuda = m->acuda = 0;
	m->procs = NULL;
	m->nprocs = m->aprocs = 0;
	m->exts = NULL;
	m->nexts = m->aexts = 0;
}

void matrix_release(struct matrix *m)
{
	size_t i;
	for (i = 0; i < m->nrows; i++)
		row_free(m->rows[i]);
	free(m->rows);
	for (i = 0; i < m->ncuda; i++)
		cuda_release_entry(&m->cuda[i]);
	free(m->cuda);
	for (i = 0; i < m->nprocs; i++)
		proc_release(&m->procs[i]);
	free(m->procs);
	for (i = 0; i < m->nexts; i++)
		ext_entry_release(&m->exts[i]);
	free(m->exts);
	strlist_release(&m->files);
	matrix_init(m);
}

/* ---- selection -------------------------------------------------------- */

int matrix_glob(const char *p, const char *s)
{
	const char *star = NULL, *retry = NULL;
	while (*s) {
		if (*p == '*') {
			star = ++p;
			retry = s;
		} else if (*p && (*p == '?' || ((*p | 32) == (*s | 32) && *p != '*'))) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++retry;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

void matrix_variant_of(const struct pep440 *torch, char *out, size_t outlen)
{
	struct torch_variant tv;
	out[0] = '\0';
	if (torch_variant_parse(&tv, torch->local, NULL) < 0 || tv.kind == VARIANT_UNKNOWN)
		return;
	snprintf(out, outlen, "%s", tv.name);
}

int matrix_row_matches(const struct matrix_row *r, const struct pep440 *torch, const char *raw, const char *variant,
		       int arch)
{
	if (r->arch_mask && (arch < 0 || arch >= MATRIX_NARCH || !(r->arch_mask & (1u << arch))))
		return 0;
	if (!variant_ok(r, variant))
		return 0;
	return pep440_spec_contains(&r->torch, torch, raw);
}

int matrix_select(const struct matrix *m, const struct pep440 *torch, const char *raw, const char *variant,
		  const char *arch, const struct matrix_row **out, struct err *err)
{
	char vbuf[32];
	int a = -1;
	size_t i;
	const struct matrix_row *best = NULL;
	*out = NULL;
	if (arch && *arch) {
		a = matrix_arch_parse(arch);
		if (a < 0)
			return err_set(err, "unknown architecture \"%.20s\": expected x64, x86 or arm64", arch);
	}
	if (!variant) {
		matrix_variant_of(torch, vbuf, sizeof(vbuf));
		variant = vbuf;
	}
	for (i = 0; i < m->nrows; i++) {
		const struct matrix_row *r = m->rows[i];
		if (!matrix_row_matches(r, torch, raw, variant, a))
			continue;
		/* Later layer, then more specific, then later in the file. */
		if (!best || r->layer > best->layer || (r->layer == best->layer && specificity(r) >= specificity(best)))
			best = r;
	}
	if (!best) {
		struct strbuf v = STRBUF_INIT, pub = STRBUF_INIT, id = STRBUF_INIT;
		struct pep440 p;
		const char *c;
		pep440_format(torch, &v);
		pep440_public(&p, torch);
		pep440_format(&p, &pub);
		for (c = strbuf_str(&pub); *c && id.len < 48; c++)
			strbuf_addch(&id, ascii_isdigit(*c) || ascii_islower(*c) || *c == '.' ? *c : '-');
		err_set(err,
			"no matrix row covers torch %s (variant %s, arch %s); add a row to a file passed with --matrix, e.g. "
			"`schema: 1` / `rows: [{id: my-torch-%s, torch: \"==%s\", status: inferred, vc_redist: {x64: \"14.40\"}}]` "
			"(schema in matrix/README.md)%s",
			strbuf_str(&v), *variant ? variant : "unknown", a >= 0 ? arch_names[a] : "unknown", strbuf_str(&id),
			strbuf_str(&pub),
			pep440_is_prerelease(torch) ? "; note: pre-releases sort before their release (PEP 440), "
						      "so \">=X.Y\" does not cover X.Y.0.devN or X.Y.0rcN: write \">=X.Y.0.dev0\""
						    : "");
		strbuf_release(&v);
		strbuf_release(&pub);
		strbuf_release(&id);
		return 1;
	}
	*out = best;
	return 0;
}

const struct matrix_dll *matrix_row_dll(const struct matrix_row *r, const char *name, int arch)
{
	size_t i;
	for (i = 0; i < r->ndlls; i++)
		if (!str_icmp(r->dlls[i].name, name) &&
		    (!r->dlls[i].arch_mask || (arch >= 0 && arch < MATRIX_NARCH && (r->dlls[i].arch_mask & (1u << arch)))))
			return &r->dlls[i];
	return NULL;
}

static int any_dll(const struct strlist *l, int (*fn)(const char *dll, void *ctx), void *ctx)
{
	size_t i;
	if (!l->n)
		return 1;
	if (!fn)
		return 0;
	for (i = 0; i < l->n; i++)
		if (fn(l->v[i], ctx))
			return 1;
	return 0;
}

int matrix_issue_applies(const struct matrix_issue *is, const char *variant, int arch,
			 int (*imports)(const char *dll, void *ctx), int (*unresolved)(const char *dll, void *ctx),
			 void *ctx)
{
	size_t i;
	int ok = !is->when.variant.n;
	for (i = 0; i < is->when.variant.n && variant && *variant; i++)
		ok |= matrix_glob(is->when.variant.v[i], variant);
	if (!ok)
		return 0;
	if (is->when.arch_mask && (arch < 0 || arch >= MATRIX_NARCH || !(is->when.arch_mask & (1u << arch))))
		return 0;
	return any_dll(&is->when.imports, imports, ctx) && any_dll(&is->when.unresolved, unresolved, ctx);
}

const char *matrix_row_file(const struct matrix_row *r)
{
	return r->pos.file;
}

/* ---- JSON --------------------------------------------------------------- */

static cJSON *str_array(const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
	return a;
}

static cJSON *arch_array(unsigned mask)
{
	cJSON *a = cJSON_CreateArray();
	int i;
	for (i = 0; i < MATRIX_NARCH; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateString(matrix_arch_name(i)));
	return a;
}

static cJSON *pos_json(const struct matrix_pos *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", p->file ? p->file : "");
	cJSON_AddNumberToObject(o, "line", p->line);
	cJSON_AddNumberToObject(o, "col", p->col);
	return o;
}

static void add_opt_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void dll_field_json(cJSON *x, const struct matrix_dll *d, enum matrix_dll_field k)
{
	const char *key = matrix_dll_fields[k].key;
	switch (k) {
	case MF_DLL_NAME:
		cJSON_AddStringToObject(x, key, d->name);
		break;
	case MF_DLL_MIN_VERSION:
		add_opt_str(x, key, d->min.set ? d->min.text : NULL);
		break;
	case MF_DLL_WHERE:
		cJSON_AddStringToObject(x, key, matrix_where_name(d->where));
		break;
	case MF_DLL_ARCH:
		cJSON_AddItemToObject(x, key, arch_array(d->arch_mask));
		break;
	case MF_DLL_WHY:
		cJSON_AddStringToObject(x, key, d->why);
		break;
	case MF_DLL_WINERROR:
		if (d->winerror)
			cJSON_AddNumberToObject(x, key, d->winerror);
		break;
	case MF_DLL_STATUS:
		cJSON_AddStringToObject(x, key, matrix_status_name(d->status));
		break;
	case MF_DLL_SOURCES:
		cJSON_AddItemToObject(x, key, str_array(&d->sources));
		break;
	case MF_DLL_COUNT:
		break;
	}
}

static void openmp_field_json(cJSON *x, const struct matrix_openmp *d, enum matrix_openmp_field k)
{
	const char *key = matrix_openmp_fields[k].key;
	switch (k) {
	case MF_OPENMP_DLL:
		cJSON_AddStringToObject(x, key, d->dll);
		break;
	case MF_OPENMP_WHERE:
		cJSON_AddStringToObject(x, key, matrix_where_name(d->where));
		break;
	case MF_OPENMP_REDISTRIBUTABLE:
		cJSON_AddBoolToObject(x, key, d->redistributable);
		break;
	case MF_OPENMP_ARCH:
		cJSON_AddItemToObject(x, key, arch_array(d->arch_mask));
		break;
	case MF_OPENMP_PROVIDER:
		add_opt_str(x, key, d->provider);
		break;
	case MF_OPENMP_FIX:
		add_opt_str(x, key, d->fix);
		break;
	case MF_OPENMP_WHY:
		add_opt_str(x, key, d->why);
		break;
	case MF_OPENMP_STATUS:
		cJSON_AddStringToObject(x, key, matrix_status_name(d->status));
		break;
	case MF_OPENMP_SOURCES:
		cJSON_AddItemToObject(x, key, str_array(&d->sources));
		break;
	case MF_OPENMP_COUNT:
		break;
	}
}

static cJSON *when_json(const struct matrix_when *w)
{
	cJSON *o = cJSON_CreateObject();
	int k;
	for (k = 0; k < MF_WHEN_COUNT; k++) {
		const char *key = matrix_when_fields[k].key;
		switch ((enum matrix_when_field)k) {
		case MF_WHEN_VARIANT:
			cJSON_AddItemToObject(o, key, str_array(&w->variant));
			break;
		case MF_WHEN_ARCH:
			cJSON_AddItemToObject(o, key, arch_array(w->arch_mask));
			break;
		case MF_WHEN_IMPORTS:
			cJSON_AddItemToObject(o, key, str_array(&w->imports));
			break;
		case MF_WHEN_UNRESOLVED:
			cJSON_AddItemToObject(o, key, str_array(&w->unresolved));
			break;
		case MF_WHEN_OLDER:
			cJSON_AddItemToObject(o, key, str_array(&w->older));
			break;
		case MF_WHEN_COUNT:
			break;
		}
	}
	return o;
}

static void issue_field_json(cJSON *x, const struct matrix_issue *d, enum matrix_issue_field k)
{
	const char *key = matrix_issue_fields[k].key;
	switch (k) {
	case MF_ISSUE_ID:
		cJSON_AddStringToObject(x, key, d->id);
		break;
	case MF_ISSUE_SYMPTOM:
		cJSON_AddStringToObject(x, key, d->symptom);
		break;
	case MF_ISSUE_CAUSE:
		cJSON_AddStringToObject(x, key, d->cause);
		break;
	case MF_ISSUE_FIX:
		cJSON_AddStringToObject(x, key, d->fix);
		break;
	case MF_ISSUE_STATUS:
		cJSON_AddStringToObject(x, key, matrix_status_name(d->status));
		break;
	case MF_ISSUE_SOURCES:
		cJSON_AddItemToObject(x, key, str_array(&d->sources));
		break;
	case MF_ISSUE_APPLIES_WHEN:
		cJSON_AddItemToObject(x, key, when_json(&d->when));
		break;
	case MF_ISSUE_COUNT:
		break;
	}
}

/* The list of one kind of entry: each entry's keys in the schema's order. */
#define ENTRIES_JSON(o, key, v, n, count, field_json)                        \
	do {                                                                 \
		cJSON *list_ = cJSON_AddArrayToObject(o, key);               \
		size_t i_;                                                   \
		int k_;                                                      \
		for (i_ = 0; i_ < (n); i_++) {                               \
			cJSON *x_ = cJSON_CreateObject();                    \
			for (k_ = 0; k_ < (count); k_++)                     \
				field_json(x_, &(v)[i_], k_);                \
			cJSON_AddItemToArray(list_, x_);                     \
		}                                                            \
	} while (0)

static void row_field_json(cJSON *o, const struct matrix_row *r, enum matrix_row_field k)
{
	const char *key = matrix_row_fields[k].key;
	cJSON *vc;
	int a;
	switch (k) {
	case MF_ROW_ID:
		cJSON_AddStringToObject(o, key, r->id);
		break;
	case MF_ROW_TORCH:
		cJSON_AddStringToObject(o, key, r->torch_text ? r->torch_text : "");
		break;
	case MF_ROW_VARIANT:
		cJSON_AddItemToObject(o, key, str_array(&r->variants));
		break;
	case MF_ROW_ARCH:
		cJSON_AddItemToObject(o, key, arch_array(r->arch_mask));
		break;
	case MF_ROW_STATUS:
		cJSON_AddStringToObject(o, key, matrix_status_name(r->status));
		break;
	case MF_ROW_SOURCES:
		cJSON_AddItemToObject(o, key, str_array(&r->sources));
		break;
	case MF_ROW_EVIDENCE:
		cJSON_AddItemToObject(o, key, str_array(&r->evidence));
		break;
	case MF_ROW_NOTE:
		add_opt_str(o, key, r->note);
		break;
	case MF_ROW_VC_REDIST:
		vc = cJSON_AddObjectToObject(o, key);
		for (a = 0; a < MATRIX_NARCH; a++)
			if (r->vc_redist[a].set)
				cJSON_AddStringToObject(vc, matrix_arch_name(a), r->vc_redist[a].text);
		break;
	case MF_ROW_RUNTIME_DLLS:
		ENTRIES_JSON(o, key, r->dlls, r->ndlls, MF_DLL_COUNT, dll_field_json);
		break;
	case MF_ROW_OPENMP:
		ENTRIES_JSON(o, key, r->openmp, r->nopenmp, MF_OPENMP_COUNT, openmp_field_json);
		break;
	case MF_ROW_KNOWN_ISSUES:
		ENTRIES_JSON(o, key, r->issues, r->nissues, MF_ISSUE_COUNT, issue_field_json);
		break;
	case MF_ROW_MERGE: /* applied when the layer was: the effective row has no merge */
	case MF_ROW_COUNT:
		break;
	}
}

cJSON *matrix_row_json(const struct matrix_row *r, int full)
{
	cJSON *o = cJSON_CreateObject();
	int k;
	if (!full) {
		cJSON_AddStringToObject(o, "id", r->id);
		cJSON_AddStringToObject(o, "file", r->pos.file ? r->pos.file : "");
		cJSON_AddNumberToObject(o, "line", r->pos.line);
		cJSON_AddNumberToObject(o, "col", r->pos.col);
		cJSON_AddStringToObject(o, "torch", r->torch_text ? r->torch_text : "");
		cJSON_AddStringToObject(o, "status", matrix_status_name(r->status));
		cJSON_AddItemToObject(o, "sources", str_array(&r->sources));
		return o;
	}
	for (k = 0; k < MF_ROW_COUNT; k++)
		row_field_json(o, r, (enum matrix_row_field)k);
	cJSON_AddItemToObject(o, "origin", pos_json(&r->pos));
	return o;
}
