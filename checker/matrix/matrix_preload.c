/*
 * matrix_preload: the top-level `package_preload` table (matrix.h,
 * schema.def's PRELOAD rows; docs/loader.md "Package preloads"): the DLLs a
 * package's own Python code loads by full path inside `import torch` before
 * torch's own, as the loader's value (loader/pkgpreload.h). Read and linted
 * with matrix_lint.h; an id listed twice in one file is an error; a later
 * layer's entry replaces the one with its id. Every string fits the value's
 * fixed size or is an error.
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "matrix/matrix_lint.h"

_Static_assert(MF_PRELOAD_COUNT <= 32, "a mapping's keys are bits of an unsigned `present`");

void matrix_preload_release(struct matrix_preload *p)
{
	strlist_release(&p->sources);
	free(p->note);
	memset(p, 0, sizeof(*p));
}

/* A string key into a fixed buffer: an error when it does not fit or holds a character it must not. */
static void get_fixed(struct lint *L, const struct ynode *m, enum matrix_preload_field k, const char *what, char *dst,
		      size_t size, const char *reject)
{
	const struct matrix_field *f = &matrix_preload_fields[k];
	char *s = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
	if (!s)
		return;
	if (strlen(s) >= size || strcspn(s, reject) != strlen(s)) {
		const struct ynode *v = lint_map_get(m, f->key);
		lint_error(L, v->line, v->col, "`%s` must be %s, of at most %zu characters", f->key, f->hint, size - 1);
	} else {
		memcpy(dst, s, strlen(s) + 1);
	}
	free(s);
}

/* "A=B" (packages) or "A=B:C" (libraries, C may be empty): split into the fixed fields. */
static int split_item(const char *s, char *a, size_t na, char *b, size_t nb, char *c, size_t nc)
{
	const char *eq = strchr(s, '='), *colon = eq ? strchr(eq + 1, ':') : NULL;
	size_t la, lb, lc;
	if (!eq || eq == s)
		return -1;
	la = (size_t)(eq - s);
	if (c) {
		if (!colon)
			return -1;
		lb = (size_t)(colon - eq - 1);
		lc = strlen(colon + 1);
	} else {
		lb = strlen(eq + 1);
		lc = 0;
	}
	if (la >= na || !lb || lb >= nb || (c && lc >= nc))
		return -1;
	if (strcspn(s, "\\/\"<>|?") != strlen(s))
		return -1;
	memcpy(a, s, la);
	a[la] = 0;
	memcpy(b, eq + 1, lb);
	b[lb] = 0;
	if (c) {
		memcpy(c, colon + 1, lc);
		c[lc] = 0;
		if (lc && (strchr(c, ':') || !str_iendswith(c, ".dll")))
			return -1;
	}
	return 0;
}

static void preload_field(struct lint *L, const struct ynode *m, enum matrix_preload_field k, struct matrix_preload *x,
			  const char *what)
{
	const struct matrix_field *f = &matrix_preload_fields[k];
	struct strlist l = STRLIST_INIT;
	const struct ynode *list;
	char buf[128];
	size_t i;
	int e;
	switch (k) {
	case MF_PRELOAD_ID:
		get_fixed(L, m, k, what, x->v.id, sizeof(x->v.id), "\\/:*?\"<>| ");
		break;
	case MF_PRELOAD_WHEN_FILE:
		get_fixed(L, m, k, what, x->v.when_file, sizeof(x->v.when_file), "\\/:*?\"<>|");
		break;
	case MF_PRELOAD_MODULE:
		get_fixed(L, m, k, what, x->v.module, sizeof(x->v.module), "\\/:*?\"<>|. ");
		break;
	case MF_PRELOAD_DIST_INFO:
		get_fixed(L, m, k, what, x->v.dist_info, sizeof(x->v.dist_info), "\\/:*?\"<>|");
		break;
	case MF_PRELOAD_FAMILY_ENV:
		get_fixed(L, m, k, what, x->v.family_env, sizeof(x->v.family_env), "=\\/:*?\"<>| ");
		break;
	case MF_PRELOAD_FOLDER:
		get_fixed(L, m, k, what, x->v.folder, sizeof(x->v.folder), "\\/:*?\"<>|");
		break;
	case MF_PRELOAD_FIX:
		get_fixed(L, m, k, what, x->v.fix, sizeof(x->v.fix), "");
		break;
	case MF_PRELOAD_PACKAGES:
	case MF_PRELOAD_LIBRARIES:
	case MF_PRELOAD_PRELOAD: {
		size_t cap = k == MF_PRELOAD_PACKAGES ? PKG_PRELOAD_MAX_PACKAGES : PKG_PRELOAD_MAX_LIBS;
		list = lint_get_list(L, m, f->key, f->hint, 1, &l);
		if (!list && !lint_map_get(m, f->key))
			lint_error(L, m->line, m->col, "%s is missing `%s` (%s)", what, f->key, f->hint);
		if (list && l.n > cap)
			lint_error(L, list->line, list->col, "more than %zu `%s`", cap, f->key);
		for (i = 0; list && i < l.n && i < cap; i++) {
			const struct ynode *it = lint_list_item(list, i);
			int bad;
			if (k == MF_PRELOAD_PACKAGES) {
				struct pkg_preload_package *p = &x->v.packages[x->v.npackages];
				bad = split_item(l.v[i], p->logical, sizeof(p->logical), p->dist, sizeof(p->dist), NULL, 0);
				x->v.npackages += !bad;
			} else if (k == MF_PRELOAD_LIBRARIES) {
				struct pkg_preload_lib *b = &x->v.libs[x->v.nlibs];
				bad = split_item(l.v[i], b->name, sizeof(b->name), b->package, sizeof(b->package), b->pattern,
						 sizeof(b->pattern));
				x->v.nlibs += !bad;
			} else {
				bad = strlen(l.v[i]) >= sizeof(x->v.preload[0]) || !*l.v[i];
				if (!bad)
					memcpy(x->v.preload[x->v.npreload++], l.v[i], strlen(l.v[i]) + 1);
			}
			if (bad)
				lint_error(L, it->line, it->col, "`%s`: `%s` is not %s", f->key,
					   lint_shown(it, buf, sizeof(buf)), f->hint);
		}
		strlist_release(&l);
		break;
	}
	case MF_PRELOAD_STATUS:
		e = lint_get_enum(L, m, f->key, what, matrix_status_names, lint_required(f, 0));
		x->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_PRELOAD_SOURCES:
		lint_get_sources(L, m, f, &x->sources);
		if (x->status == MATRIX_SOURCED && !x->sources.n)
			lint_error(L, m->line, m->col, "%s is `status: sourced` but has no `sources`", what);
		break;
	case MF_PRELOAD_NOTE:
		x->note = lint_get_str(L, m, f->key, what, f->hint, 0);
		break;
	case MF_PRELOAD_COUNT:
		break;
	}
}

/* Every library's package is one of `packages`; every preloaded name is one of `libraries`. */
static void check_names(struct lint *L, const struct ynode *m, const struct matrix_preload *x, const char *what)
{
	size_t i, k;
	for (i = 0; i < x->v.nlibs; i++) {
		for (k = 0; k < x->v.npackages && strcmp(x->v.packages[k].logical, x->v.libs[i].package); k++)
			;
		if (k == x->v.npackages)
			lint_error(L, m->line, m->col, "%s: library `%s` names package `%s`, which `packages` does not list",
				   what, x->v.libs[i].name, x->v.libs[i].package);
	}
	for (i = 0; i < x->v.npreload; i++) {
		for (k = 0; k < x->v.nlibs && strcmp(x->v.libs[k].name, x->v.preload[i]); k++)
			;
		if (k == x->v.nlibs)
			lint_error(L, m->line, m->col, "%s: `preload` names `%s`, which `libraries` does not list", what,
				   x->v.preload[i]);
	}
}

void matrix_preload_read_table(struct lint *L, const struct ynode *root, struct matrix_preload **out, size_t *nout)
{
	const struct matrix_field *tf = &matrix_top_fields[MF_TOP_PACKAGE_PRELOAD];
	const struct ynode *list = lint_get_map_list(L, root, tf->key, tf->hint);
	size_t i, j;
	int k;
	*out = NULL;
	*nout = 0;
	if (!list)
		return;
	if (list->n > 16) {
		lint_error(L, list->kid[16]->line, list->kid[16]->col, "more than 16 `%s` entries", tf->key);
		return;
	}
	*out = xcalloc(list->n ? list->n : 1, sizeof(**out));
	for (i = 0; i < list->n; i++) {
		const struct ynode *m = lint_list_map(L, list, i, tf->key);
		unsigned nerr = L->nerr, present;
		struct matrix_preload x;
		char what[64];
		if (!m)
			continue;
		memset(&x, 0, sizeof(x));
		strlist_init(&x.sources);
		lint_set_pos(&x.pos, L->file, m);
		lint_map_check(L, m, matrix_schema(MATRIX_MAP_PRELOAD)->name, matrix_schema(MATRIX_MAP_PRELOAD)->keys,
			       &present);
		snprintf(what, sizeof(what), "the package_preload entry at line %u", m->line);
		for (k = 0; k < MF_PRELOAD_COUNT; k++)
			preload_field(L, m, (enum matrix_preload_field)k, &x, what);
		check_names(L, m, &x, what);
		for (j = 0; *x.v.id && j < *nout; j++)
			if (!strcmp((*out)[j].v.id, x.v.id))
				lint_error(L, m->line, m->col, "package_preload id `%s` is listed twice (first at line %u)",
					   x.v.id, (*out)[j].pos.line);
		if (L->nerr != nerr || !*x.v.id) {
			matrix_preload_release(&x);
			continue;
		}
		(*out)[(*nout)++] = x;
	}
}

void matrix_preload_apply(struct matrix *m, struct matrix_preload *p, size_t n, const char *name)
{
	size_t i, j;
	for (i = 0; i < n; i++) {
		p[i].pos.file = name;
		snprintf(p[i].v.entry, sizeof(p[i].v.entry), "%s:%u", name, p[i].pos.line);
		for (j = 0; j < m->npreloads; j++)
			if (!strcmp(m->preloads[j].v.id, p[i].v.id))
				break;
		if (j < m->npreloads) {
			matrix_preload_release(&m->preloads[j]);
		} else {
			ALLOC_GROW(m->preloads, m->npreloads + 1, m->apreloads);
			j = m->npreloads++;
		}
		m->preloads[j] = p[i];
	}
}

cJSON *matrix_preload_json(const struct matrix_preload *p)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	cJSON_AddStringToObject(o, "id", p->v.id);
	cJSON_AddStringToObject(o, "when_file", p->v.when_file);
	cJSON_AddStringToObject(o, "module", p->v.module);
	cJSON_AddStringToObject(o, "dist_info", p->v.dist_info);
	if (*p->v.family_env)
		cJSON_AddStringToObject(o, "family_env", p->v.family_env);
	a = cJSON_AddArrayToObject(o, "packages");
	for (i = 0; i < p->v.npackages; i++) {
		char *s = xasprintf("%s=%s", p->v.packages[i].logical, p->v.packages[i].dist);
		cJSON_AddItemToArray(a, cJSON_CreateString(s));
		free(s);
	}
	cJSON_AddStringToObject(o, "folder", p->v.folder);
	a = cJSON_AddArrayToObject(o, "libraries");
	for (i = 0; i < p->v.nlibs; i++) {
		char *s = xasprintf("%s=%s:%s", p->v.libs[i].name, p->v.libs[i].package, p->v.libs[i].pattern);
		cJSON_AddItemToArray(a, cJSON_CreateString(s));
		free(s);
	}
	a = cJSON_AddArrayToObject(o, "preload");
	for (i = 0; i < p->v.npreload; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->v.preload[i]));
	cJSON_AddStringToObject(o, "fix", p->v.fix);
	cJSON_AddStringToObject(o, "status", matrix_status_name(p->status));
	a = cJSON_AddArrayToObject(o, "sources");
	for (i = 0; i < p->sources.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->sources.v[i]));
	if (p->note)
		cJSON_AddStringToObject(o, "note", p->note);
	cJSON_AddStringToObject(o, "file", p->pos.file ? p->pos.file : "");
	cJSON_AddNumberToObject(o, "line", p->pos.line);
	return o;
}
