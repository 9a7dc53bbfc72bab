/*
 * matrix: the torch → Windows runtime requirements matrix (schema 1): a
 * file read as a layer, and the layers applied (matrix.h).
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
 *      edit distance), every value against its type (matrix_lint.h),
 *      versions and specifiers with the column inside the string: the top
 *      level here, rows in matrix_row.c, the `cuda` and `torch_load`
 *      tables in matrix_cuda.c and matrix_proc.c. All errors are
 *      collected, not just the first.
 * Then rows of one file are checked against each other for contradictory
 * overlaps (matrix_overlap.c), references to earlier layers are checked,
 * and the layer is applied (see matrix.h for the layering and selection
 * rules; matrix/README.md documents the schema).
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/os.h"
#include "util/yamltree.h"

/* ---- steps 1 and 2: bytes and tree (yamltree.h) ---------------------- */

static const struct ytree_opts matrix_yaml = MATRIX_YTREE_OPTS;

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
		matrix_row_free(m->rows[i]);
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
	case MF_ROW_MIN_WINDOWS:
		SWAP(struct matrix_min, old->min_windows, nw->min_windows);
		break;
	case MF_ROW_MIN_WINDOWS_WHY:
		SWAP(char *, old->min_windows_why, nw->min_windows_why);
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
	matrix_row_free(nw);
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
	if (r->min_windows.set && r->min_windows.pos.line)
		r->min_windows.pos.file = file;
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
	int built_in;                   /* root is matrix_default_tree's (ytree_blob_free) */
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
	struct matrix_vendor *vendors;  /* the `vendor_dlls` entries read without errors */
	size_t nvendors;
	struct matrix_profile *profiles; /* the `profiles` entries read without errors */
	size_t nprofiles;
	struct matrix_preload *preloads; /* the `package_preload` entries read without errors */
	size_t npreloads;
};

/* Steps 1 and 2: bytes and tree. -1 when there is no tree (reported). */
static int read_tree(struct layer *y, const void *data, size_t len)
{
	struct ytree_error ye;
	long start;
	int empty;
	if (data == matrix_default_yaml && matrix_default_tree.nnodes) {
		/* parsed at build time with the same options, its bytes checked (checker/matrix/embed_tree.c) */
		y->root = ytree_from_blob(&matrix_default_tree);
		y->built_in = 1;
		return 0;
	}
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
	const struct ynode *root = y->root, *v = lint_map_get(root, matrix_top_fields[MF_TOP_SCHEMA].key);
	char buf[128];
	if (!v) {
		lint_error(&y->L, root->line, root->col, "missing `schema: %d` at the top level", MATRIX_SCHEMA);
		return 0;
	}
	if (v->kind == Y_SCALAR && !v->quoted && !strcmp(v->s, "1"))
		return 0;
	if (v->kind == Y_SCALAR && v->len && v->len < 10 && strspn(v->s, "0123456789") == v->len && !v->quoted)
		lint_error(&y->L, v->line, v->col, "unsupported schema %s: this torch-dll-check reads schema %d",
			   lint_shown(v, buf, sizeof(buf)), MATRIX_SCHEMA);
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
		const struct ynode *ri = rows_node->kid[i], *idn = ri->kind == Y_MAP ? lint_map_get(ri, "id") : NULL;
		struct matrix_row *r;
		/* Duplicate ids are found on the raw nodes, so rows with other errors count too. */
		for (j = 0; idn && idn->kind == Y_SCALAR && j < i; j++) {
			const struct ynode *rj = rows_node->kid[j], *idj = rj->kind == Y_MAP ? lint_map_get(rj, "id") : NULL;
			if (idj && idj->kind == Y_SCALAR && idj->len && !strcmp(idj->s, idn->s)) {
				lint_error(&y->L, idn->line, idn->col,
					   "duplicate row id `%s` (first at line %u); ids are unique within a file",
					   lint_shown(idn, buf, sizeof(buf)), idj->line);
				break;
			}
		}
		r = matrix_row_read(&y->L, ri, y->index);
		if (!r)
			continue;
		if (idn && j < i) {
			matrix_row_free(r);
			continue;
		}
		y->rows[y->nrows++] = r;
	}
	matrix_rows_check_overlaps(&y->L, y->rows, y->nrows);
}

/* Step 3 for the top level (schema, description, remove, rows). -1: another schema. */
static int read_top(struct layer *y)
{
	const struct ynode *root = y->root, *rows_node;
	const struct matrix_field *rf = &matrix_top_fields[MF_TOP_ROWS];
	unsigned present;
	if (root->kind != Y_MAP) {
		lint_error(&y->L, root->line, root->col,
			   "the top level must be a mapping with `schema: 1` and `rows`, not %s", lint_kind_name(root));
		return -1;
	}
	lint_map_check(&y->L, root, matrix_schema(MATRIX_MAP_TOP)->name, matrix_schema(MATRIX_MAP_TOP)->keys, &present);
	if (read_schema(y) < 0)
		return -1;
	if (lint_map_get(root, matrix_top_fields[MF_TOP_DESCRIPTION].key)) {
		const struct matrix_field *f = &matrix_top_fields[MF_TOP_DESCRIPTION];
		char *d = lint_get_str(&y->L, root, f->key, "the top level", f->hint, lint_required(f, 0));
		free(d);
	}
	y->remove_node = lint_get_list(&y->L, root, matrix_top_fields[MF_TOP_REMOVE].key,
				       matrix_top_fields[MF_TOP_REMOVE].hint, 1, &y->remove);
	rows_node = lint_map_get(root, rf->key);
	if (!rows_node) {
		if (!y->remove_node && !lint_map_get(root, matrix_top_fields[MF_TOP_PROFILES].key)) /* UNLESS_REMOVE */
			lint_error(&y->L, root->line, root->col, "missing `%s` (%s) at the top level", rf->key, rf->hint);
	} else if (rows_node->kind != Y_SEQ) {
		const struct ynode *k = lint_is_null(rows_node) ? lint_map_key(root, rf->key) : rows_node;
		lint_error(&y->L, k->line, k->col, "`%s` must be %s, not %s", rf->key, rf->hint, lint_kind_name(rows_node));
	} else if (rows_node->n > MATRIX_MAX_ROWS) {
		lint_error(&y->L, rows_node->kid[MATRIX_MAX_ROWS]->line, rows_node->kid[MATRIX_MAX_ROWS]->col,
			   "more than %d rows in one file", MATRIX_MAX_ROWS);
	} else {
		read_rows(y, rows_node);
	}
	matrix_cuda_read_table(&y->L, root, &y->cuda, &y->ncuda);
	matrix_proc_read_table(&y->L, root, &y->procs, &y->nprocs);
	matrix_ext_read_table(&y->L, root, &y->exts, &y->nexts);
	matrix_vendor_read_table(&y->L, root, &y->vendors, &y->nvendors);
	matrix_profile_read_table(&y->L, root, &y->profiles, &y->nprofiles);
	matrix_preload_read_table(&y->L, root, &y->preloads, &y->npreloads);
	return 0;
}

/* Against earlier layers: what remove and merge refer to must exist. */
static void check_references(struct layer *y, const struct matrix *m)
{
	size_t i, j;
	char buf[128];
	for (i = 0; i < y->remove.n; i++) {
		const struct ynode *it = lint_list_item(y->remove_node, i);
		if (find_row(m, y->remove.v[i]) < 0)
			lint_error(&y->L, it->line, it->col, "remove: no earlier layer has a row `%s`",
				   lint_shown(it, buf, sizeof(buf)));
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
	matrix_cuda_apply(m, y->cuda, y->ncuda, name);
	y->ncuda = 0; /* moved into m */
	matrix_proc_apply(m, y->procs, y->nprocs, name);
	y->nprocs = 0; /* moved into m */
	matrix_ext_apply(m, y->exts, y->nexts, name);
	y->nexts = 0;
	matrix_vendor_apply(m, y->vendors, y->nvendors, name);
	y->nvendors = 0; /* moved into m */
	matrix_profile_apply(m, y->profiles, y->nprofiles, name);
	y->nprofiles = 0;
	matrix_preload_apply(m, y->preloads, y->npreloads, name);
	y->npreloads = 0; /* moved into m */
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
		matrix_row_free(y.rows[i]);
	free(y.rows);
	for (i = 0; i < y.ncuda; i++)
		matrix_cuda_release(&y.cuda[i]);
	free(y.cuda);
	for (i = 0; i < y.nprocs; i++)
		matrix_proc_release(&y.procs[i]);
	free(y.procs);
	for (i = 0; i < y.nexts; i++)
		matrix_ext_entry_release(&y.exts[i]);
	free(y.exts);
	for (i = 0; i < y.nvendors; i++)
		matrix_vendor_release(&y.vendors[i]);
	free(y.vendors);
	for (i = 0; i < y.nprofiles; i++)
		matrix_profile_release(&y.profiles[i]);
	free(y.profiles);
	for (i = 0; i < y.npreloads; i++)
		matrix_preload_release(&y.preloads[i]);
	free(y.preloads);
	strlist_release(&y.remove);
	if (y.built_in)
		ytree_blob_free(y.root);
	else
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
	m->vendors = NULL;
	m->nvendors = m->avendors = 0;
	m->preloads = NULL;
	m->npreloads = m->apreloads = 0;
	m->profiles = NULL;
	m->nprofiles = m->aprofiles = 0;
}

void matrix_release(struct matrix *m)
{
	size_t i;
	for (i = 0; i < m->nrows; i++)
		matrix_row_free(m->rows[i]);
	free(m->rows);
	for (i = 0; i < m->ncuda; i++)
		matrix_cuda_release(&m->cuda[i]);
	free(m->cuda);
	for (i = 0; i < m->nprocs; i++)
		matrix_proc_release(&m->procs[i]);
	free(m->procs);
	for (i = 0; i < m->nexts; i++)
		matrix_ext_entry_release(&m->exts[i]);
	free(m->exts);
	for (i = 0; i < m->nvendors; i++)
		matrix_vendor_release(&m->vendors[i]);
	free(m->vendors);
	for (i = 0; i < m->nprofiles; i++)
		matrix_profile_release(&m->profiles[i]);
	free(m->profiles);
	for (i = 0; i < m->npreloads; i++)
		matrix_preload_release(&m->preloads[i]);
	free(m->preloads);
	strlist_release(&m->files);
	matrix_init(m);
}

