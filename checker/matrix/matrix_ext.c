/*
 * matrix_ext: the top-level `extension_load` table (matrix.h, schema.def's
 * EXT, EXTPATH and EXTLOAD rows): how `import PACKAGE` loads an extension's
 * binaries after torch, as data the loader follows (loader/extload.h's
 * struct ext_proc), the way `torch_load` is torch's own procedure
 * (matrix_proc.c). Read and linted with the matrix reader's helpers
 * (matrix_lint.h): every key by its type and its required-ness, with
 * did-you-mean; entries of one package in one file must not overlap in
 * `version`; `status: measured` needs `evidence`, wheels of that package
 * whose versions the entry covers; `module`, `file` and folder names are
 * relative to the package folder and cannot leave it. A later layer's entry
 * replaces the earlier layers' entries of its package whose `version` it
 * overlaps; an entry of a new package is added.
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "machine/dist.h"
#include "matrix/matrix_lint.h"
#include "util/text.h"
#include "util/jsonout.h"

enum { MAX_SAMPLES = 2 * 9 * PEP440_MAX_CLAUSES }; /* spec_samples adds at most 9 per clause */

_Static_assert(MF_EXT_COUNT <= 32 && MF_EXTPATH_COUNT <= 32 && MF_EXTFIND_COUNT <= 32 && MF_EXTLOAD_COUNT <= 32,
	       "a mapping's keys are bits of an unsigned `present`");

/* EXT_HOW_IMPORT, EXT_HOW_CTYPES by index: `how` */
static const char *const how_names[] = { "import", "ctypes", NULL };
/* `others`: lazy (0) or import (1) */
static const char *const others_names[] = { "lazy", "import", NULL };

void matrix_ext_entry_release(struct matrix_ext *x)
{
	ext_proc_release(&x->proc);
	free(x->version_text);
	pep440_spec_release(&x->version);
	free(x->code);
	free(x->note);
	strlist_release(&x->evidence);
	strlist_release(&x->sources);
}

/* A name of one folder or file: no separator, no drive, not `.` or `..`, printable. */
static int name_ok(const char *s, size_t n)
{
	size_t i;
	if (!n || n > 128 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || strchr("/\\:*?\"<>|", s[i]))
			return 0;
	return 1;
}

/* A path relative to the package folder, `\` between names, none of them `.` or `..` ("lib\\x.pyd"). */
static int relpath_ok(const char *s)
{
	const char *p = s, *sep;
	size_t n = 0;
	if (!*s || strlen(s) > 260)
		return 0;
	for (; (sep = strchr(p, '\\')); p = sep + 1, n++)
		if (!name_ok(p, (size_t)(sep - p)))
			return 0;
	return name_ok(p, strlen(p));
}

/* A dotted module name: Python identifiers (ASCII) joined by dots ("_C", "lib._torchaudio"). */
static int module_ok(const char *s)
{
	size_t i, n = strlen(s);
	int start = 1;
	if (!n || n > 128)
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (c == '.') {
			if (start)
				return 0;
			start = 1;
		} else if (ascii_isalpha(c) || c == '_' || (!start && ascii_isdigit(c))) {
			start = 0;
		} else {
			return 0;
		}
	}
	return !start;
}

/* A PEP 508 distribution name: letters and digits, `.` `_` `-` inside ("torchvision", "torch-directml"). */
static int package_ok(const char *s)
{
	size_t i, n = strlen(s);
	if (!n || n > 64 || !ascii_isalnum(s[0]) || !ascii_isalnum(s[n - 1]))
		return 0;
	for (i = 0; i < n; i++)
		if (!ascii_isalnum(s[i]) && !strchr("._-", s[i]))
			return 0;
	return 1;
}

/* "3.8": MAJOR.MINOR, each at most 3 digits. */
static int python_ok(const char *s)
{
	size_t a = strspn(s, "0123456789"), b;
	if (!a || a > 3 || s[a] != '.')
		return 0;
	b = strspn(s + a + 1, "0123456789");
	return b && b <= 3 && !s[a + 1 + b];
}

/* A text value checked by `ok`, else an error naming the key and what it must be. */
static char *get_checked(struct lint *L, const struct ynode *m, const struct matrix_field *f, const char *what,
			 int (*ok)(const char *))
{
	char *s = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
	char buf[128];
	if (s && !ok(s)) {
		const struct ynode *v = lint_map_get(m, f->key);
		lint_error(L, v->line, v->col, "`%s` is `%s`; expected %s", f->key, lint_shown(v, buf, sizeof(buf)), f->hint);
		free(s);
		return NULL;
	}
	return s;
}

/* A list of texts (or one) each checked by `ok` (NULL: any non-empty text). */
static void get_texts(struct lint *L, const struct ynode *m, const struct matrix_field *f, const char *what,
		      int (*ok)(const char *), struct strlist *out)
{
	const struct ynode *node;
	size_t i;
	char buf[128];
	if (!lint_map_get(m, f->key)) {
		if (f->required == MR_REQUIRED)
			lint_error(L, m->line, m->col, "%s is missing `%s` (%s)", what, f->key, f->hint);
		return;
	}
	node = lint_get_list(L, m, f->key, f->hint, 1, out);
	if (node && !out->n)
		lint_error(L, node->line, node->col, "`%s` must not be empty", f->key);
	for (i = 0; i < out->n; i++) {
		const struct ynode *it = lint_list_item(node, i);
		if (!*out->v[i] || (ok && !ok(out->v[i])))
			lint_error(L, it->line, it->col, "`%s` has `%s`; expected %s", f->key, lint_shown(it, buf, sizeof(buf)),
				   f->hint);
	}
}

static int folder_ok(const char *s)
{
	return !strcmp(s, ".") || relpath_ok(s);
}

static int top_folder_ok(const char *s)
{
	return name_ok(s, strlen(s));
}

/* The simplest version both specifiers contain (an empty one: every version); 0 if none. */
static int versions_overlap(const struct matrix_ext *a, const struct matrix_ext *b, struct pep440 *at)
{
	struct pep440 *samples;
	size_t n = 0, k;
	int found = 0;
	memset(at, 0, sizeof(*at));
	if (!a->version.n || !b->version.n)
		return 1;
	samples = xmalloc(sizeof(*samples) * MAX_SAMPLES);
	lint_spec_samples(&a->version, samples, &n, MAX_SAMPLES);
	lint_spec_samples(&b->version, samples, &n, MAX_SAMPLES);
	for (k = 0; k < n; k++)
		if (pep440_spec_contains(&a->version, &samples[k], NULL) &&
		    pep440_spec_contains(&b->version, &samples[k], NULL) && (!found || lint_simpler(&samples[k], at))) {
			*at = samples[k];
			found = 1;
		}
	free(samples);
	return found;
}

/*
 * `evidence`: "FILE sha256=HEX", FILE a wheel of the entry's package (its
 * name as wheels write it: `-` `_` `.` alike, any case) of a version the
 * entry covers, HEX PyPI's 64 lower-case hex digits.
 */
static void get_wheels(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct matrix_ext *x)
{
	const struct ynode *list = lint_get_list(L, m, f->key, f->hint, 1, &x->evidence);
	size_t i, k;
	char buf[128];
	for (i = 0; i < x->evidence.n; i++) {
		const char *s = x->evidence.v[i], *sp = strchr(s, ' '), *d1 = strchr(s, '-'), *d2;
		const struct ynode *it = lint_list_item(list, i);
		int ok = sp && !strncmp(sp, " sha256=", 8) && strlen(sp + 8) == 64 && d1 && d1 < sp && sp - s > 4 &&
			 !str_nicmp(sp - 4, ".whl", 4);
		char *name, *ver;
		struct pep440 v;
		for (k = 0; ok && k < 64; k++)
			ok = hex_digit((unsigned char)sp[8 + k]) >= 0 && !(sp[8 + k] >= 'A' && sp[8 + k] <= 'F');
		d2 = ok ? strchr(d1 + 1, '-') : NULL;
		if (!ok || !d2 || d2 > sp) {
			lint_error(L, it->line, it->col,
				   "evidence `%s` is not \"PACKAGE-VERSION-...whl sha256=<64 lower-case hex digits>\"",
				   lint_shown(it, buf, sizeof(buf)));
			continue;
		}
		name = xstrndup(s, (size_t)(d1 - s));
		ver = xstrndup(d1 + 1, (size_t)(d2 - d1 - 1));
		if (x->proc.package && !dist_name_eq(name, x->proc.package))
			lint_error(L, it->line, it->col, "evidence `%s` is a wheel of %s, not of %s",
				   lint_shown(it, buf, sizeof(buf)), name, x->proc.package);
		else if (pep440_parse(&v, ver, NULL) < 0)
			lint_error(L, it->line, it->col, "evidence `%s`: `%s` is not a version", lint_shown(it, buf, sizeof(buf)),
				   ver);
		else if (x->version.n && !pep440_spec_contains(&x->version, &v, NULL))
			lint_error(L, it->line, it->col, "evidence `%s`: %s %s is not a release this entry's version \"%s\" covers",
				   lint_shown(it, buf, sizeof(buf)), x->proc.package, ver, x->version_text);
		free(name);
		free(ver);
	}
}

/* `path_folders`: a mapping {by, python, file, has}. */
static void read_path(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct ext_proc *p)
{
	const struct ynode *v = lint_map_get(m, f->key);
	unsigned present;
	int k;
	char what[64];
	if (!v)
		return;
	if (v->kind != Y_MAP) {
		const struct ynode *key = lint_is_null(v) ? lint_map_key(m, f->key) : v;
		lint_error(L, key->line, key->col, "`%s` must be %s, not %s", f->key, f->hint, lint_kind_name(v));
		return;
	}
	lint_map_check(L, v, matrix_schema(MATRIX_MAP_EXTPATH)->name, matrix_schema(MATRIX_MAP_EXTPATH)->keys, &present);
	snprintf(what, sizeof(what), "path_folders at line %u", v->line);
	for (k = 0; k < MF_EXTPATH_COUNT; k++) {
		const struct matrix_field *g = &matrix_extpath_fields[k];
		switch ((enum matrix_extpath_field)k) {
		case MF_EXTPATH_BY:
			p->path_by = lint_get_str(L, v, g->key, what, g->hint, lint_required(g, 0));
			break;
		case MF_EXTPATH_PYTHON:
			get_texts(L, v, g, what, python_ok, &p->path_python);
			break;
		case MF_EXTPATH_FILE:
			p->path_file = get_checked(L, v, g, what, relpath_ok);
			break;
		case MF_EXTPATH_HAS:
			get_texts(L, v, g, what, NULL, &p->path_has);
			break;
		case MF_EXTPATH_COUNT:
			break;
		}
	}
}

/* A DLL file name: a name of the package's folder rules ending in .dll. */
static int dll_ok(const char *s)
{
	return name_ok(s, strlen(s)) && str_iendswith(s, ".dll");
}

/* `find`: a mapping {by, file, in}. */
static void read_find(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct ext_proc *p)
{
	const struct ynode *v = lint_map_get(m, f->key);
	unsigned present;
	int k;
	char what[64];
	if (!v)
		return;
	if (v->kind != Y_MAP) {
		const struct ynode *key = lint_is_null(v) ? lint_map_key(m, f->key) : v;
		lint_error(L, key->line, key->col, "`%s` must be %s, not %s", f->key, f->hint, lint_kind_name(v));
		return;
	}
	lint_map_check(L, v, matrix_schema(MATRIX_MAP_EXTFIND)->name, matrix_schema(MATRIX_MAP_EXTFIND)->keys, &present);
	snprintf(what, sizeof(what), "find at line %u", v->line);
	for (k = 0; k < MF_EXTFIND_COUNT; k++) {
		const struct matrix_field *g = &matrix_extfind_fields[k];
		switch ((enum matrix_extfind_field)k) {
		case MF_EXTFIND_BY:
			p->find_by = lint_get_str(L, v, g->key, what, g->hint, lint_required(g, 0));
			break;
		case MF_EXTFIND_FILE:
			p->find_file = get_checked(L, v, g, what, dll_ok);
			break;
		case MF_EXTFIND_IN:
			p->find_in = get_checked(L, v, g, what, relpath_ok);
			break;
		case MF_EXTFIND_COUNT:
			break;
		}
	}
}

/* One `loads` entry. 0 when it was read without errors. */
static void read_load(struct lint *L, const struct ynode *m, struct ext_load *l)
{
	unsigned present;
	int k, e;
	char what[64];
	lint_map_check(L, m, matrix_schema(MATRIX_MAP_EXTLOAD)->name, matrix_schema(MATRIX_MAP_EXTLOAD)->keys, &present);
	snprintf(what, sizeof(what), "the loads entry at line %u", m->line);
	for (k = 0; k < MF_EXTLOAD_COUNT; k++) {
		const struct matrix_field *g = &matrix_extload_fields[k];
		switch ((enum matrix_extload_field)k) {
		case MF_EXTLOAD_MODULE:
			l->module = get_checked(L, m, g, what, module_ok);
			break;
		case MF_EXTLOAD_FILE:
			l->file = get_checked(L, m, g, what, relpath_ok);
			break;
		case MF_EXTLOAD_HOW:
			e = lint_get_enum(L, m, g->key, what, how_names, lint_required(g, 0));
			l->how = e == 1 ? EXT_HOW_CTYPES : EXT_HOW_IMPORT;
			break;
		case MF_EXTLOAD_RAISES:
			e = lint_get_bool(L, m, g->key);
			if (e == -1)
				lint_error(L, m->line, m->col, "%s is missing `%s` (%s)", what, g->key, g->hint);
			l->raises = e == 1;
			break;
		case MF_EXTLOAD_FAILS:
			l->fails = lint_get_str(L, m, g->key, what, g->hint, lint_required(g, 0));
			break;
		case MF_EXTLOAD_ABSENT:
			l->absent = lint_get_bool(L, m, g->key) == 1; /* absent: false; a bad value is said by lint_get_bool */
			break;
		case MF_EXTLOAD_COUNT:
			break;
		}
	}
	if (l->absent && !lint_map_get(m, "file"))
		lint_error(L, m->line, m->col, "%s: `absent` needs `file` (a module is found, or not, by importlib)", what);
	if (!lint_map_get(m, "module") == !lint_map_get(m, "file"))
		lint_error(L, m->line, m->col, "%s must name one of `module` and `file`", what);
}

/* `loads`: a non-empty list of mappings. */
static void read_loads(struct lint *L, const struct ynode *m, const struct matrix_field *f, const char *what,
		       struct ext_proc *p)
{
	const struct ynode *list = lint_get_map_list(L, m, f->key, f->hint);
	size_t i;
	(void)what;
	if (!list)
		return;
	if (!list->n) {
		lint_error(L, list->line, list->col, "`%s` must list at least one binary", f->key);
		return;
	}
	if (list->n > 64) {
		lint_error(L, list->kid[64]->line, list->kid[64]->col, "more than 64 `%s` entries", f->key);
		return;
	}
	p->loads = xcalloc(list->n, sizeof(*p->loads));
	for (i = 0; i < list->n; i++) {
		const struct ynode *lm = lint_list_map(L, list, i, f->key);
		if (lm)
			read_load(L, lm, &p->loads[p->nloads++]);
	}
}

static void ext_field(struct lint *L, const struct ynode *m, enum matrix_ext_field k, struct matrix_ext *x,
		      const char *what)
{
	const struct matrix_field *f = &matrix_ext_fields[k];
	const struct ynode *v = lint_map_get(m, f->key);
	int e;
	switch (k) {
	case MF_EXT_PACKAGE:
		x->proc.package = get_checked(L, m, f, what, package_ok);
		break;
	case MF_EXT_VERSION:
		x->version_text = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		if (x->version_text) {
			struct err se;
			err_clear(&se);
			lint_set_pos(&x->version_pos, L->file, v);
			if (pep440_spec_parse(&x->version, x->version_text, &se) < 0) {
				lint_error(L, v->line, lint_scalar_col(v, se.code > 0 ? (size_t)se.code - 1 : 0), "version: %s",
					   se.msg);
				pep440_spec_release(&x->version);
				x->version.n = 0;
			} else if (!x->version.n) {
				lint_error(L, v->line, v->col, "`version` must name the releases it covers (omit it for every release)");
			}
		}
		break;
	case MF_EXT_FOLDER:
		x->proc.folder = get_checked(L, m, f, what, top_folder_ok);
		break;
	case MF_EXT_ADD_DLL_DIRECTORY:
		get_texts(L, m, f, what, folder_ok, &x->proc.dll_dirs);
		break;
	case MF_EXT_FIND:
		read_find(L, m, f, &x->proc);
		break;
	case MF_EXT_PATH_FOLDERS:
		read_path(L, m, f, &x->proc);
		break;
	case MF_EXT_NEEDS:
		x->proc.needs = get_checked(L, m, f, what, module_ok);
		break;
	case MF_EXT_WITHOUT:
		x->proc.without = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		if (v && !lint_map_get(m, matrix_ext_fields[MF_EXT_NEEDS].key))
			lint_error(L, v->line, v->col, "`%s` says what happens without `%s`; give `%s` too", f->key,
				   matrix_ext_fields[MF_EXT_NEEDS].key, matrix_ext_fields[MF_EXT_NEEDS].key);
		break;
	case MF_EXT_LOADS:
		read_loads(L, m, f, what, &x->proc);
		break;
	case MF_EXT_OTHERS:
		e = lint_get_enum(L, m, f->key, what, others_names, lint_required(f, 0));
		x->proc.import_others = e == 1;
		if (!x->proc.import_others && !lint_map_get(m, matrix_ext_fields[MF_EXT_LOADS].key))
			lint_error(L, m->line, m->col, "%s loads nothing: give `%s`, or `%s: import`", what,
				   matrix_ext_fields[MF_EXT_LOADS].key, f->key);
		break;
	case MF_EXT_CODE:
		x->code = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		break;
	case MF_EXT_STATUS:
		e = lint_get_enum(L, m, f->key, what, matrix_status_names, lint_required(f, 0));
		x->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_EXT_EVIDENCE:
		get_wheels(L, m, f, x);
		if (x->status == MATRIX_MEASURED && !x->evidence.n)
			lint_error(L, m->line, m->col, "%s is `status: measured` but has no `evidence` (the wheels read)", what);
		break;
	case MF_EXT_SOURCES:
		lint_get_sources(L, m, f, &x->sources);
		if (x->status == MATRIX_SOURCED && !x->sources.n)
			lint_error(L, m->line, m->col, "%s is `status: sourced` but has no `sources`", what);
		break;
	case MF_EXT_NOTE:
		x->note = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		break;
	case MF_EXT_COUNT:
		break;
	}
}

void matrix_ext_read_table(struct lint *L, const struct ynode *root, struct matrix_ext **out, size_t *nout)
{
	const struct matrix_field *tf = &matrix_top_fields[MF_TOP_EXTENSION_LOAD];
	const struct ynode *list = lint_get_map_list(L, root, tf->key, tf->hint);
	size_t i, j;
	int k;
	*out = NULL;
	*nout = 0;
	if (!list)
		return;
	if (list->n > MATRIX_MAX_ROWS) {
		lint_error(L, list->kid[MATRIX_MAX_ROWS]->line, list->kid[MATRIX_MAX_ROWS]->col,
			   "more than %d `%s` entries in one file", MATRIX_MAX_ROWS, tf->key);
		return;
	}
	*out = xcalloc(list->n ? list->n : 1, sizeof(**out));
	for (i = 0; i < list->n; i++) {
		const struct ynode *m = lint_list_map(L, list, i, tf->key);
		size_t nerr = L->nerr;
		unsigned present;
		struct matrix_ext x;
		char what[64];
		struct pep440 at;
		if (!m)
			continue;
		memset(&x, 0, sizeof(x));
		ext_proc_init(&x.proc);
		strlist_init(&x.evidence);
		strlist_init(&x.sources);
		lint_set_pos(&x.pos, L->file, m);
		x.version_pos = x.pos;
		lint_map_check(L, m, matrix_schema(MATRIX_MAP_EXT)->name, matrix_schema(MATRIX_MAP_EXT)->keys, &present);
		snprintf(what, sizeof(what), "extension_load entry at line %u", m->line);
		for (k = 0; k < MF_EXT_COUNT; k++)
			ext_field(L, m, (enum matrix_ext_field)k, &x, what);
		for (j = 0; x.proc.package && j < *nout; j++)
			if (dist_name_eq((*out)[j].proc.package, x.proc.package) && versions_overlap(&(*out)[j], &x, &at)) {
				struct strbuf ver = STRBUF_INIT;
				if (at.nrelease)
					pep440_format(&at, &ver);
				lint_error(L, x.version_pos.line, x.version_pos.col,
					   "extension_load entries of %s at lines %u and %u both cover %s%s; their `version` "
					   "ranges must not overlap",
					   x.proc.package, (*out)[j].pos.line, m->line, at.nrelease ? "release " : "every release",
					   strbuf_str(&ver));
				strbuf_release(&ver);
			}
		if (L->nerr != nerr || !x.proc.package) {
			matrix_ext_entry_release(&x);
			continue;
		}
		(*out)[(*nout)++] = x;
	}
}

void matrix_ext_apply(struct matrix *m, struct matrix_ext *exts, size_t n, const char *name)
{
	size_t i, j;
	struct pep440 at;
	for (i = 0; i < n; i++) {
		exts[i].pos.file = name;
		exts[i].version_pos.file = name;
		snprintf(exts[i].proc.entry, sizeof(exts[i].proc.entry), "%s:%u", name, exts[i].pos.line);
		for (j = 0; j < m->nexts;) { /* the earlier layers' entries of its package it overlaps give way */
			if (dist_name_eq(m->exts[j].proc.package, exts[i].proc.package) &&
			    versions_overlap(&m->exts[j], &exts[i], &at)) {
				matrix_ext_entry_release(&m->exts[j]);
				memmove(&m->exts[j], &m->exts[j + 1], (m->nexts - j - 1) * sizeof(m->exts[0]));
				m->nexts--;
			} else {
				j++;
			}
		}
	}
	for (i = 0; i < n; i++) {
		ALLOC_GROW(m->exts, m->nexts + 1, m->aexts);
		m->exts[m->nexts++] = exts[i];
	}
}

const struct ext_proc *matrix_extension_load(const struct matrix *m, const char *dist, const char *version)
{
	struct pep440 v, pub;
	size_t i;
	int known;
	if (!m || !dist)
		return NULL;
	known = version && pep440_parse(&v, version, NULL) == 0;
	if (known)
		pep440_public(&pub, &v);
	for (i = 0; i < m->nexts; i++) {
		const struct matrix_ext *x = &m->exts[i];
		if (!dist_name_eq(x->proc.package, dist))
			continue;
		if (!x->version.n || (known && pep440_spec_contains(&x->version, &pub, NULL)))
			return &x->proc;
	}
	return NULL;
}

cJSON *matrix_ext_json(const struct matrix_ext *x)
{
	const struct ext_proc *p = &x->proc;
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	cJSON_AddStringToObject(o, "package", p->package);
	if (x->version_text)
		cJSON_AddStringToObject(o, "version", x->version_text);
	cJSON_AddStringToObject(o, "folder", p->folder ? p->folder : p->package);
	json_add_strlist(o, "add_dll_directory", &p->dll_dirs);
	if (p->find_by) {
		cJSON *fd = cJSON_AddObjectToObject(o, "find");
		cJSON_AddStringToObject(fd, "by", p->find_by);
		cJSON_AddStringToObject(fd, "file", p->find_file ? p->find_file : "");
		cJSON_AddStringToObject(fd, "in", p->find_in ? p->find_in : "");
	}
	if (p->path_by) {
		cJSON *pf = cJSON_AddObjectToObject(o, "path_folders");
		cJSON_AddStringToObject(pf, "by", p->path_by);
		json_add_strlist(pf, "python", &p->path_python);
		cJSON_AddStringToObject(pf, "file", p->path_file ? p->path_file : "");
		json_add_strlist(pf, "has", &p->path_has);
	}
	if (p->needs)
		cJSON_AddStringToObject(o, "needs", p->needs);
	if (p->without)
		cJSON_AddStringToObject(o, "without", p->without);
	a = cJSON_AddArrayToObject(o, "loads");
	for (i = 0; i < p->nloads; i++) {
		const struct ext_load *l = &p->loads[i];
		cJSON *e = cJSON_CreateObject();
		if (l->module)
			cJSON_AddStringToObject(e, "module", l->module);
		if (l->file)
			cJSON_AddStringToObject(e, "file", l->file);
		cJSON_AddStringToObject(e, "how", ext_how_name(l->how));
		cJSON_AddBoolToObject(e, "raises", l->raises);
		cJSON_AddStringToObject(e, "fails", l->fails ? l->fails : "");
		if (l->absent)
			cJSON_AddBoolToObject(e, "absent", 1);
		cJSON_AddItemToArray(a, e);
	}
	cJSON_AddStringToObject(o, "others", others_names[p->import_others ? 1 : 0]);
	if (x->code)
		cJSON_AddStringToObject(o, "code", x->code);
	cJSON_AddStringToObject(o, "status", matrix_status_name(x->status));
	json_add_strlist(o, "evidence", &x->evidence);
	json_add_strlist(o, "sources", &x->sources);
	if (x->note)
		cJSON_AddStringToObject(o, "note", x->note);
	cJSON_AddStringToObject(o, "file", x->pos.file ? x->pos.file : "");
	cJSON_AddNumberToObject(o, "line", x->pos.line);
	return o;
}
