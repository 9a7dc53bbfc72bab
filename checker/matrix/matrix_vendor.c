/*
 * matrix_vendor: the top-level `vendor_dlls` table (matrix.h, schema.def's
 * VENDOR rows): where the DLLs of a GPU or oneAPI stack come from, so that a
 * missing one is fixed by what ships it, not by "put the DLL where the loader
 * looks" (docs/gpu.md). An entry names DLLs (or prefixes ending in `*`) and
 * either the wheel that ships them (a distribution torch declares in its
 * Requires-Dist: judge/required.c makes `pip install "<its requirement>"`
 * the fix) or the vendor's display driver that puts them in System32 (then
 * the entry's `fix` is said). Read and linted with matrix_lint.h; an id
 * listed twice in one file is an error; a later layer's entry replaces the
 * one with its id.
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "machine/dist.h"
#include "matrix/matrix_lint.h"
#include "util/jsonout.h"

_Static_assert(MF_VENDOR_COUNT <= 32, "a mapping's keys are bits of an unsigned `present`");

void matrix_vendor_release(struct matrix_vendor *x)
{
	free(x->id);
	free(x->stack);
	strlist_release(&x->dlls);
	free(x->wheel);
	free(x->driver);
	free(x->fix);
	free(x->why);
	strlist_release(&x->evidence);
	strlist_release(&x->sources);
	free(x->note);
	memset(x, 0, sizeof(*x));
}

/* "libmmd.dll" (a DLL name) or "mkl_*" (a prefix of at least 2 characters without a path, then `*`). */
static int pattern_ok(const char *s)
{
	size_t n = strlen(s);
	if (n > 1 && s[n - 1] == '*') {
		if (n > 64 || strcspn(s, "\\/:*?\"<>|") != n - 1)
			return 0;
		return 1;
	}
	return lint_dll_name_ok(s);
}

/* `evidence`: "FILE.whl sha256=<64 lower-case hex>", FILE a wheel of the entry's `wheel` when it has one. */
static void get_evidence(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct matrix_vendor *x)
{
	const struct ynode *list = lint_get_list(L, m, f->key, f->hint, 1, &x->evidence);
	size_t i, k;
	char buf[128];
	for (i = 0; i < x->evidence.n; i++) {
		const char *s = x->evidence.v[i], *sp = strchr(s, ' '), *d1 = strchr(s, '-');
		const struct ynode *it = lint_list_item(list, i);
		int ok = sp && !strncmp(sp, " sha256=", 8) && strlen(sp + 8) == 64 && d1 && d1 < sp && sp - s > 4 &&
			 !str_nicmp(sp - 4, ".whl", 4);
		for (k = 0; ok && k < 64; k++)
			ok = (sp[8 + k] >= '0' && sp[8 + k] <= '9') || (sp[8 + k] >= 'a' && sp[8 + k] <= 'f');
		if (!ok) {
			lint_error(L, it->line, it->col,
				   "evidence `%s` is not \"PACKAGE-VERSION-...whl sha256=<64 lower-case hex digits>\"",
				   lint_shown(it, buf, sizeof(buf)));
		} else if (x->wheel) {
			char *name = xstrndup(s, (size_t)(d1 - s));
			if (!dist_name_eq(name, x->wheel))
				lint_error(L, it->line, it->col, "evidence `%s` is a wheel of %s, not of %s",
					   lint_shown(it, buf, sizeof(buf)), name, x->wheel);
			free(name);
		}
	}
}

static void vendor_field(struct lint *L, const struct ynode *m, enum matrix_vendor_field k, struct matrix_vendor *x,
			 const char *what)
{
	const struct matrix_field *f = &matrix_vendor_fields[k];
	const struct ynode *list;
	char buf[128];
	size_t i;
	int e;
	switch (k) {
	case MF_VENDOR_ID:
	case MF_VENDOR_STACK:
	case MF_VENDOR_WHEEL: {
		char *s = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		if (s && !lint_id_ok(s)) {
			const struct ynode *v = lint_map_get(m, f->key);
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, matrix_type_doc(f->type),
				   lint_shown(v, buf, sizeof(buf)));
			free(s);
			s = NULL;
		}
		if (k == MF_VENDOR_ID)
			x->id = s;
		else if (k == MF_VENDOR_STACK)
			x->stack = s;
		else
			x->wheel = s;
		break;
	}
	case MF_VENDOR_DLLS:
		list = lint_get_list(L, m, f->key, f->hint, 1, &x->dlls);
		if (!list && !lint_map_get(m, f->key))
			lint_error(L, m->line, m->col, "%s is missing `%s` (%s)", what, f->key, f->hint);
		for (i = 0; list && i < x->dlls.n; i++)
			if (!pattern_ok(x->dlls.v[i])) {
				const struct ynode *it = lint_list_item(list, i);
				lint_error(L, it->line, it->col, "`%s`: `%s` is not %s", f->key, lint_shown(it, buf, sizeof(buf)),
					   f->hint);
			}
		if (list && x->dlls.n > 256)
			lint_error(L, list->line, list->col, "more than 256 `%s`", f->key);
		break;
	case MF_VENDOR_DRIVER:
		x->driver = lint_get_str(L, m, f->key, what, f->hint, 0);
		break;
	case MF_VENDOR_FIX:
		x->fix = lint_get_str(L, m, f->key, what, f->hint, 0);
		break;
	case MF_VENDOR_WHY:
		x->why = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		break;
	case MF_VENDOR_STATUS:
		e = lint_get_enum(L, m, f->key, what, matrix_status_names, lint_required(f, 0));
		x->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_VENDOR_EVIDENCE:
		get_evidence(L, m, f, x);
		if (x->status == MATRIX_MEASURED && !x->evidence.n)
			lint_error(L, m->line, m->col, "%s is `status: measured` but has no `evidence` (the wheels read)", what);
		break;
	case MF_VENDOR_SOURCES:
		lint_get_sources(L, m, f, &x->sources);
		if (x->status == MATRIX_SOURCED && !x->sources.n)
			lint_error(L, m->line, m->col, "%s is `status: sourced` but has no `sources`", what);
		break;
	case MF_VENDOR_DELAY_OWN_FOLDER:
		x->delay_own_folder = lint_get_bool(L, m, f->key) == 1;
		break;
	case MF_VENDOR_NOTE:
		x->note = lint_get_str(L, m, f->key, what, f->hint, 0);
		break;
	case MF_VENDOR_COUNT:
		break;
	}
}

void matrix_vendor_read_table(struct lint *L, const struct ynode *root, struct matrix_vendor **out, size_t *nout)
{
	const struct matrix_field *tf = &matrix_top_fields[MF_TOP_VENDOR_DLLS];
	const struct ynode *list = lint_get_map_list(L, root, tf->key, tf->hint);
	size_t i, j;
	int k;
	*out = NULL;
	*nout = 0;
	if (!list)
		return;
	if (list->n > 256) {
		lint_error(L, list->kid[256]->line, list->kid[256]->col, "more than 256 `%s` entries", tf->key);
		return;
	}
	*out = xcalloc(list->n ? list->n : 1, sizeof(**out));
	for (i = 0; i < list->n; i++) {
		const struct ynode *m = lint_list_map(L, list, i, tf->key);
		unsigned nerr = L->nerr, present;
		struct matrix_vendor x;
		char what[64];
		if (!m)
			continue;
		memset(&x, 0, sizeof(x));
		strlist_init(&x.dlls);
		strlist_init(&x.evidence);
		strlist_init(&x.sources);
		lint_set_pos(&x.pos, L->file, m);
		lint_map_check(L, m, matrix_schema(MATRIX_MAP_VENDOR)->name, matrix_schema(MATRIX_MAP_VENDOR)->keys,
			       &present);
		snprintf(what, sizeof(what), "the vendor_dlls entry at line %u", m->line);
		for (k = 0; k < MF_VENDOR_COUNT; k++)
			vendor_field(L, m, (enum matrix_vendor_field)k, &x, what);
		if (!x.wheel == !x.driver)
			lint_error(L, m->line, m->col, "%s must name one of `wheel` and `driver`", what);
		if (x.driver && !x.fix)
			lint_error(L, m->line, m->col, "%s names a `driver` but no `fix` (what to install)", what);
		for (j = 0; x.id && j < *nout; j++)
			if (!strcmp((*out)[j].id, x.id))
				lint_error(L, m->line, m->col, "vendor_dlls id `%s` is listed twice (first at line %u)", x.id,
					   (*out)[j].pos.line);
		if (L->nerr != nerr || !x.id) {
			matrix_vendor_release(&x);
			continue;
		}
		(*out)[(*nout)++] = x;
	}
}

void matrix_vendor_apply(struct matrix *m, struct matrix_vendor *v, size_t n, const char *name)
{
	size_t i, j;
	for (i = 0; i < n; i++) {
		v[i].pos.file = name;
		for (j = 0; j < m->nvendors; j++)
			if (!strcmp(m->vendors[j].id, v[i].id))
				break;
		if (j < m->nvendors) {
			matrix_vendor_release(&m->vendors[j]);
		} else {
			ALLOC_GROW(m->vendors, m->nvendors + 1, m->avendors);
			j = m->nvendors++;
		}
		m->vendors[j] = v[i];
	}
}

static int dll_matches(const char *pattern, const char *name)
{
	size_t n = strlen(pattern);
	if (n && pattern[n - 1] == '*')
		return !str_nicmp(name, pattern, n - 1);
	return !str_icmp(name, pattern);
}

const struct matrix_vendor *matrix_vendor_of(const struct matrix *m, const char *name)
{
	size_t i, k;
	if (!name || !str_iendswith(name, ".dll"))
		return NULL;
	for (i = 0; i < m->nvendors; i++)
		for (k = 0; k < m->vendors[i].dlls.n; k++)
			if (dll_matches(m->vendors[i].dlls.v[k], name))
				return &m->vendors[i];
	return NULL;
}

int matrix_delay_own_folder(void *ctx, const char *name)
{
	const struct matrix_vendor *x = matrix_vendor_of(ctx, name);
	return x && x->delay_own_folder;
}

cJSON *matrix_vendor_json(const struct matrix_vendor *x)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", x->id);
	cJSON_AddStringToObject(o, "stack", x->stack ? x->stack : "");
	json_add_strlist(o, "dlls", &x->dlls);
	if (x->wheel)
		cJSON_AddStringToObject(o, "wheel", x->wheel);
	if (x->driver)
		cJSON_AddStringToObject(o, "driver", x->driver);
	if (x->fix)
		cJSON_AddStringToObject(o, "fix", x->fix);
	cJSON_AddStringToObject(o, "why", x->why ? x->why : "");
	cJSON_AddStringToObject(o, "status", matrix_status_name(x->status));
	json_add_strlist(o, "evidence", &x->evidence);
	json_add_strlist(o, "sources", &x->sources);
	if (x->note)
		cJSON_AddStringToObject(o, "note", x->note);
	if (x->delay_own_folder)
		cJSON_AddBoolToObject(o, "delay_own_folder", 1);
	cJSON_AddStringToObject(o, "file", x->pos.file ? x->pos.file : "");
	cJSON_AddNumberToObject(o, "line", x->pos.line);
	return o;
}
