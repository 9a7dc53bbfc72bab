/*
 * matrix_lint: the matrix reader's own helpers, shared by the files of the
 * matrix module (matrix.c reads the rows and the `cuda` table, matrix_proc.c
 * the `torch_load` table, matrix_ext.c the `extension_load` table) and by no
 * one else. Each takes the lint context of
 * the file being read and reports what is wrong with a value at its
 * line:column; they are defined in matrix.c. The macros give them
 * matrix_-prefixed link names, so that the short names stay private to the
 * module.
 */
#ifndef TDC_MATRIX_LINT_H
#define TDC_MATRIX_LINT_H

#include <stddef.h>

#include "util/err.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/yamltree.h"

struct matrix_diags;
struct matrix_field;
struct matrix_pos;

/* Lint context: one file being read. */
struct lint {
	const char *file;
	struct matrix_diags *diags;
	size_t nerr;
	struct err *err;
};

#define lint_error(...) matrix_lint_error_(__VA_ARGS__)
#define map_check(...) matrix_lint_map_check_(__VA_ARGS__)
#define map_get(...) matrix_lint_map_get_(__VA_ARGS__)
#define map_key(...) matrix_lint_map_key_(__VA_ARGS__)
#define get_str(...) matrix_lint_get_str_(__VA_ARGS__)
#define get_list(...) matrix_lint_get_list_(__VA_ARGS__)
#define list_item(...) matrix_lint_list_item_(__VA_ARGS__)
#define get_enum(...) matrix_lint_get_enum_(__VA_ARGS__)
#define get_bool(...) matrix_lint_get_bool_(__VA_ARGS__)
#define set_pos(...) matrix_lint_set_pos_(__VA_ARGS__)
#define is_null(...) matrix_lint_is_null_(__VA_ARGS__)
#define kind_name(...) matrix_lint_kind_name_(__VA_ARGS__)
#define shown(...) matrix_lint_shown_(__VA_ARGS__)
#define scalar_col(...) matrix_lint_scalar_col_(__VA_ARGS__)
#define list_map(...) matrix_lint_list_map_(__VA_ARGS__)
#define get_map_list(...) matrix_lint_get_map_list_(__VA_ARGS__)
#define get_sources(...) matrix_lint_get_sources_(__VA_ARGS__)
#define get_evidence(...) matrix_lint_get_evidence_(__VA_ARGS__)
#define required(...) matrix_lint_required_(__VA_ARGS__)
#define spec_samples(...) matrix_lint_spec_samples_(__VA_ARGS__)
#define simpler(...) matrix_lint_simpler_(__VA_ARGS__)
#define status_names matrix_lint_status_names_

void lint_error(struct lint *L, unsigned line, unsigned col, const char *fmt, ...) ERR_PRINTF(4, 5);
/* A mapping's keys against `keys` (known, unique); bit i of *present for each known key i. */
void map_check(struct lint *L, const struct ynode *map, const char *what, const char *const *keys, unsigned *present);
const struct ynode *map_get(const struct ynode *map, const char *key);
const struct ynode *map_key(const struct ynode *map, const char *key);
/* A string value, allocated; NULL when absent (reported if required) or bad (reported). */
char *get_str(struct lint *L, const struct ynode *map, const char *key, const char *what, const char *hint,
	      int required);
/* A list of strings (or one, when one_ok) appended to out; the node or NULL. */
const struct ynode *get_list(struct lint *L, const struct ynode *map, const char *key, const char *hint, int one_ok,
			     struct strlist *out);
const struct ynode *list_item(const struct ynode *list, size_t i);
/* One of `names`: its index, -1 absent (reported if required), -2 bad (reported). */
int get_enum(struct lint *L, const struct ynode *map, const char *key, const char *what, const char *const *names,
	     int required);
/* true/false; -1 absent, -2 bad (reported). */
int get_bool(struct lint *L, const struct ynode *map, const char *key);
void set_pos(struct matrix_pos *pos, const char *file, const struct ynode *y);
int is_null(const struct ynode *y);
const char *kind_name(const struct ynode *y);
const char *shown(const struct ynode *y, char *buf, size_t n);
unsigned scalar_col(const struct ynode *y, size_t off);
const struct ynode *list_map(struct lint *L, const struct ynode *list, size_t i, const char *key);
const struct ynode *get_map_list(struct lint *L, const struct ynode *row, const char *key, const char *hint);
void get_sources(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out);
/* "torch-VERSION-...whl sha256=HEX" items into evidence; *measured_max the newest VERSION. */
void get_evidence(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *evidence,
		  struct pep440 *measured_max);
int required(const struct matrix_field *f, int merge);
/* Boundary versions around each clause (where two specifiers' sets meet, one of these is in both). */
void spec_samples(const struct pep440_spec *s, struct pep440 *out, size_t *n, size_t cap);
int simpler(const struct pep440 *a, const struct pep440 *b);
extern const char *const status_names[];

/* matrix_proc.c: the `torch_load` table of one file, read (entries without errors into *out), released, applied. */
struct matrix;
struct matrix_proc;
void proc_read_table(struct lint *L, const struct ynode *root, struct matrix_proc **out, size_t *n);
void proc_release(struct matrix_proc *p);
void proc_apply(struct matrix *m, struct matrix_proc *procs, size_t n, const char *name);

/* matrix_ext.c: the `extension_load` table of one file, the same way. */
struct matrix_ext;
void ext_read_table(struct lint *L, const struct ynode *root, struct matrix_ext **out, size_t *n);
void ext_entry_release(struct matrix_ext *x);
void ext_apply(struct matrix *m, struct matrix_ext *exts, size_t n, const char *name);

#endif
