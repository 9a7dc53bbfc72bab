/*
 * matrix_row: reading one row of a matrix file (matrix.h), key by key in
 * schema.def's order, one switch case per key, and its lists of
 * runtime_dlls, openmp and known_issues entries the same way. A row with
 * any error is dropped whole (its errors are reported); `merge: true` is
 * read first, since a merging row need not write the keys it keeps.
 */
#include "matrix/matrix.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

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

void matrix_row_free(struct matrix_row *r)
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
	free(r->min_windows.text);
	free(r->min_windows_why);
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
	return lint_get_str(x->L, x->m, f->key, what ? what : x->what, f->hint, lint_required(f, x->r->merge));
}

static int entry_enum(struct entry *x, const struct matrix_field *f, const char *const *names)
{
	return lint_get_enum(x->L, x->m, f->key, x->what, names, lint_required(f, x->r->merge));
}

static void name_entry(struct entry *x, const char *kind, const char *name)
{
	char pbuf[128];
	snprintf(x->what, sizeof(x->what), "%s `%s`", kind, lint_printable(name ? name : "?", pbuf, sizeof(pbuf)));
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
		lint_check_dll_name(x->L, x->m, f->key, d->name);
		name_entry(x, "runtime_dlls entry", d->name);
		break;
	case MF_DLL_MIN_VERSION:
		if ((v = lint_map_get(x->m, f->key)))
			lint_min_version(x->L, v, "`min_version`", f->hint, &d->min);
		break;
	case MF_DLL_WHERE:
		e = entry_enum(x, f, matrix_where_names);
		d->where = e >= 0 ? (enum matrix_where)e : MATRIX_EITHER;
		break;
	case MF_DLL_ARCH:
		d->arch_mask = lint_get_arch(x->L, x->m, f);
		break;
	case MF_DLL_WHY:
		d->why = entry_str(x, f, NULL);
		break;
	case MF_DLL_WINERROR:
		d->winerror = lint_get_winerror(x->L, x->m, f->key, f->hint);
		if (d->winerror && !d->min.set)
			lint_error(x->L, x->m->line, x->m->col, "%s has `winerror` but no `min_version` (the error is for a "
				   "copy older than it)", x->what);
		break;
	case MF_DLL_STATUS:
		e = entry_enum(x, f, matrix_status_names);
		d->status = e >= 0 ? (enum matrix_status)e : x->r->status;
		break;
	case MF_DLL_SOURCES:
		lint_get_sources(x->L, x->m, f, &d->sources);
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
			 struct matrix_row *r, enum matrix_map map, void *items, size_t *n,
			 size_t size, size_t pos_off, entry_fn fn)
{
	size_t i;
	for (i = 0; i < list->n; i++) {
		struct entry x = { L, lint_list_map(L, list, i, field->key), r, "", 0 };
		char *item;
		unsigned present;
		if (!x.m)
			continue;
		item = (char *)items + (*n)++ * size;
		lint_set_pos((struct matrix_pos *)(void *)(item + pos_off), L->file, x.m);
		lint_map_check(L, x.m, matrix_schema(map)->name, matrix_schema(map)->keys, &present);
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
	const struct ynode *list = lint_get_map_list(L, row, field->key, field->hint);
	if (!list)
		return;
	r->dlls = xcalloc(list->n ? list->n : 1, sizeof(*r->dlls));
	read_entries(L, list, field, r, MATRIX_MAP_DLL, r->dlls, &r->ndlls, sizeof(*r->dlls),
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
		lint_check_dll_name(x->L, x->m, f->key, o->dll);
		name_entry(x, "openmp entry", o->dll);
		break;
	case MF_OPENMP_WHERE:
		e = entry_enum(x, f, matrix_where_names);
		o->where = e >= 0 ? (enum matrix_where)e : MATRIX_EITHER;
		break;
	case MF_OPENMP_REDISTRIBUTABLE:
		e = lint_get_bool(x->L, x->m, f->key);
		if (e == -1 && lint_required(f, 0))
			lint_error(x->L, x->m->line, x->m->col, "%s is missing `%s` (%s)", x->what, f->key, f->hint);
		o->redistributable = e == 1;
		break;
	case MF_OPENMP_ARCH:
		o->arch_mask = lint_get_arch(x->L, x->m, f);
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
		e = entry_enum(x, f, matrix_status_names);
		o->status = e >= 0 ? (enum matrix_status)e : x->r->status;
		break;
	case MF_OPENMP_SOURCES:
		lint_get_sources(x->L, x->m, f, &o->sources);
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
	const struct ynode *list = lint_get_map_list(L, row, field->key, field->hint);
	if (!list)
		return;
	r->openmp = xcalloc(list->n ? list->n : 1, sizeof(*r->openmp));
	read_entries(L, list, field, r, MATRIX_MAP_OPENMP, r->openmp, &r->nopenmp, sizeof(*r->openmp),
		     offsetof(struct matrix_openmp, pos), openmp_entry);
}

/* One key of a known issue's applies_when, read into w. */
static void when_field(struct lint *L, const struct ynode *m, enum matrix_when_field k, struct matrix_when *w)
{
	const struct matrix_field *f = &matrix_when_fields[k];
	switch (k) {
	case MF_WHEN_VARIANT:
		lint_get_variants(L, m, f, &w->variant);
		break;
	case MF_WHEN_ARCH:
		w->arch_mask = lint_get_arch(L, m, f);
		break;
	case MF_WHEN_IMPORTS:
		lint_get_dll_list(L, m, f, &w->imports);
		break;
	case MF_WHEN_UNRESOLVED:
		lint_get_dll_list(L, m, f, &w->unresolved);
		break;
	case MF_WHEN_OLDER:
		lint_get_dll_list(L, m, f, &w->older);
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
		lint_error(L, w->line, w->col, "`%s` must be %s, not %s", f->key, f->hint, lint_kind_name(w));
		return;
	}
	lint_map_check(L, w, matrix_schema(MATRIX_MAP_WHEN)->name, matrix_schema(MATRIX_MAP_WHEN)->keys, &present);
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
		if (is->id && !lint_id_ok(is->id)) {
			v = lint_map_get(x->m, f->key);
			lint_error(x->L, v->line, v->col,
				   "known issue id `%s` may only use letters, digits, '.', '-' and '_' (at most 64)",
				   lint_shown(v, pbuf, sizeof(pbuf)));
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
		e = entry_enum(x, f, matrix_status_names);
		is->status = e >= 0 ? (enum matrix_status)e : x->r->status;
		x->status_written = e >= 0;
		break;
	case MF_ISSUE_SOURCES:
		lint_get_sources(x->L, x->m, f, &is->sources);
		/* only a status the entry writes itself asks for sources here */
		if (is->status == MATRIX_SOURCED && !is->sources.n && x->status_written)
			lint_error(x->L, x->m->line, x->m->col, "%s is `status: sourced` but has no `sources`", x->what);
		break;
	case MF_ISSUE_APPLIES_WHEN:
		if ((v = lint_map_get(x->m, f->key)))
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
	const struct ynode *list = lint_get_map_list(L, row, field->key, field->hint);
	if (!list)
		return;
	r->issues = xcalloc(list->n ? list->n : 1, sizeof(*r->issues));
	read_entries(L, list, field, r, MATRIX_MAP_ISSUE, r->issues, &r->nissues, sizeof(*r->issues),
		     offsetof(struct matrix_issue, pos), issue_entry);
}

static void parse_min_windows(struct lint *L, const struct ynode *row, const struct matrix_field *f,
			      struct matrix_row *r)
{
	const struct ynode *v = lint_map_get(row, f->key);
	if (v)
		lint_min_version(L, v, "`min_windows`", f->hint, &r->min_windows);
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
		if (r->id && !lint_id_ok(r->id)) {
			v = lint_map_get(x->m, f->key);
			lint_error(L, v->line, v->col, "row id `%s` may only use letters, digits, '.', '-' and '_' (at most 64)",
				   lint_shown(v, pbuf, sizeof(pbuf)));
		}
		name_entry(x, "row", r->id);
		break;
	case MF_ROW_TORCH:
		r->torch_text = entry_str(x, f, NULL);
		if (r->torch_text) {
			struct err se;
			err_clear(&se);
			v = lint_map_get(x->m, f->key);
			lint_set_pos(&r->torch_pos, L->file, v);
			if (pep440_spec_parse(&r->torch, r->torch_text, &se) < 0)
				lint_error(L, v->line, lint_scalar_col(v, se.code > 0 ? (size_t)se.code - 1 : 0), "torch: %s", se.msg);
		}
		break;
	case MF_ROW_VARIANT:
		lint_get_variants(L, x->m, f, &r->variants);
		break;
	case MF_ROW_ARCH:
		r->arch_mask = lint_get_arch(L, x->m, f);
		break;
	case MF_ROW_STATUS:
		e = entry_enum(x, f, matrix_status_names);
		r->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_ROW_SOURCES:
		lint_get_sources(L, x->m, f, &r->sources);
		if (r->status == MATRIX_SOURCED && !r->sources.n)
			lint_error(L, x->m->line, x->m->col,
				   "%s is `status: sourced` but has no `sources` (links to issues, PRs or docs)", x->what);
		break;
	case MF_ROW_EVIDENCE:
		lint_get_evidence(L, x->m, f, &r->evidence, &r->measured_max);
		if (r->status == MATRIX_MEASURED && !r->evidence.n)
			lint_error(L, x->m->line, x->m->col,
				   "%s is `status: measured` but has no `evidence` (the wheels measured)", x->what);
		break;
	case MF_ROW_NOTE:
		r->note = entry_str(x, f, NULL);
		break;
	case MF_ROW_VC_REDIST:
		lint_arch_versions(L, x->m, f, matrix_dll_fields[MF_DLL_MIN_VERSION].hint, r->vc_redist);
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
	case MF_ROW_MIN_WINDOWS:
		parse_min_windows(L, x->m, f, r);
		break;
	case MF_ROW_MIN_WINDOWS_WHY:
		r->min_windows_why = entry_str(x, f, NULL);
		break;
	case MF_ROW_MERGE: /* read first, in matrix_row_read: it changes what the row must write */
	case MF_ROW_COUNT:
		break;
	}
}

/* Parses one row; NULL if it had errors (they are reported). */
struct matrix_row *matrix_row_read(struct lint *L, const struct ynode *m, unsigned layer)
{
	struct entry x = { L, m, NULL, "", 0 };
	size_t before = L->nerr;
	int k;

	if (m->kind != Y_MAP) {
		lint_error(L, m->line, m->col, "each row must be a mapping (id, torch, status, ...), not %s", lint_kind_name(m));
		return NULL;
	}
	x.r = xcalloc(1, sizeof(*x.r));
	x.r->layer = layer;
	lint_set_pos(&x.r->pos, L->file, m);
	lint_map_check(L, m, matrix_schema(MATRIX_MAP_ROW)->name, matrix_schema(MATRIX_MAP_ROW)->keys, &x.r->present);
	x.r->merge = lint_get_bool(L, m, matrix_row_fields[MF_ROW_MERGE].key) == 1;
	for (k = 0; k < MF_ROW_COUNT; k++)
		row_field(&x, (enum matrix_row_field)k);
	if (L->nerr != before) {
		matrix_row_free(x.r);
		return NULL;
	}
	return x.r;
}

