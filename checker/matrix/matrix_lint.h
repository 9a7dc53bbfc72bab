/*
 * matrix_lint: reading one value of a matrix file and saying what is wrong
 * with it. A `struct lint` is one file being read; each reader takes the
 * YAML node (util/yamltree.h) of a mapping and a key, returns the value in
 * its C form and reports a bad one as "file:line:col: message" (the column
 * inside the string for versions and specifiers), collecting every error,
 * not just the first. One reader per type of matrix_schema.h (strings,
 * lists, enums, booleans, architectures, variants, URLs, evidence, file
 * versions, DLL names, Windows error codes), plus the names of the
 * enumerated values and the boundary versions the overlap checks try.
 *
 * The files of the matrix module (matrix.h) read rows, the `cuda` table and
 * the `torch_load` table with these; nothing here knows a row. Positions
 * and lint messages are also what matrix.h's callers get back.
 */
#ifndef TDC_MATRIX_LINT_H
#define TDC_MATRIX_LINT_H

#include <stddef.h>

#include "matrix/matrix_schema.h"
#include "util/err.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/yamltree.h"

#define MATRIX_MAX_DIAGS 200 /* kept per load; the rest are counted */

/* Where a value was written. `file` points into the matrix's file list. */
struct matrix_pos {
	const char *file;
	unsigned line, col; /* 1-based */
};

/* A minimum Windows file version ("14.40"), compared with winver_at_least. */
struct matrix_min {
	int set;
	struct winver v;
	char *text;             /* as written */
	struct matrix_pos pos;
};

/* One lint message: "file:line:col: msg". */
struct matrix_diag {
	char *file;
	unsigned line, col;
	char *msg;
};

struct matrix_diags {
	struct matrix_diag *v;
	size_t n, alloc;
	size_t dropped; /* errors beyond MATRIX_MAX_DIAGS */
};

#define MATRIX_DIAGS_INIT { NULL, 0, 0, 0 }

void matrix_diags_release(struct matrix_diags *d);

/* The names of the enumerated values, NULL-terminated, in enum order. */
extern const char *const matrix_status_names[]; /* enum matrix_status */
extern const char *const matrix_where_names[];  /* enum matrix_where */
extern const char *const matrix_arch_names[];   /* enum matrix_arch */

const char *matrix_arch_name(int arch);        /* "x64", "x86", "arm64"; "any" out of range */
int matrix_arch_parse(const char *s);          /* enum matrix_arch or -1 (ASCII case-insensitive) */
const char *matrix_where_name(enum matrix_where w);
const char *matrix_status_name(enum matrix_status s);

/* Lint context: one file being read. */
struct lint {
	const char *file;
	struct matrix_diags *diags; /* each error, if not NULL (at most MATRIX_MAX_DIAGS, the rest counted) */
	size_t nerr;
	struct err *err;            /* the first error, as "file:line:col: msg" */
};

void lint_error(struct lint *L, unsigned line, unsigned col, const char *fmt, ...) ERR_PRINTF(4, 5);

/* ---- nodes ---- */

/* A short, printable copy of a string for messages (at most 60 bytes). */
const char *lint_printable(const char *s, char *buf, size_t n);
/* A scalar node's text as lint_printable shows it ("" for another node). */
const char *lint_shown(const struct ynode *y, char *buf, size_t n);
int lint_is_null(const struct ynode *y);
const char *lint_kind_name(const struct ynode *y); /* "empty", "a string", "a list", "a mapping" */
/* The column of byte `off` of a scalar (for errors inside strings). */
unsigned lint_scalar_col(const struct ynode *y, size_t off);
void lint_set_pos(struct matrix_pos *pos, const char *file, const struct ynode *y);
/* A mapping's keys against `keys` (known, unique); bit i of *present for each known key i. */
void lint_map_check(struct lint *L, const struct ynode *map, const char *what, const char *const *keys,
		    unsigned *present);
const struct ynode *lint_map_get(const struct ynode *map, const char *key); /* the value, or NULL */
const struct ynode *lint_map_key(const struct ynode *map, const char *key); /* the key node, or NULL */

/* ---- values, one reader per type ---- */

/* Whether field f must be written (merge: the row says `merge: true`). */
int lint_required(const struct matrix_field *f, int merge);
/* A string value, allocated; NULL when absent (reported if required) or bad (reported). */
char *lint_get_str(struct lint *L, const struct ynode *map, const char *key, const char *what, const char *hint,
		   int required);
/* A list of strings (or one, when one_ok) appended to out; the node or NULL. */
const struct ynode *lint_get_list(struct lint *L, const struct ynode *map, const char *key, const char *hint,
				  int one_ok, struct strlist *out);
/* The item node of a lint_get_list list that produced out->v[i] (for positions). */
const struct ynode *lint_list_item(const struct ynode *list, size_t i);
/* Item i of a list that must hold mappings; NULL (reported) when it does not. */
const struct ynode *lint_list_map(struct lint *L, const struct ynode *list, size_t i, const char *key);
/* A list-of-mappings value: the node, or NULL (absent, or reported as the wrong type). */
const struct ynode *lint_get_map_list(struct lint *L, const struct ynode *map, const char *key, const char *hint);
/* One of `names`: its index, -1 absent (reported if required), -2 bad (reported). */
int lint_get_enum(struct lint *L, const struct ynode *map, const char *key, const char *what,
		  const char *const *names, int required);
/* true/false; -1 absent, -2 bad (reported). */
int lint_get_bool(struct lint *L, const struct ynode *map, const char *key);
/* A Windows error code, 1..65535; 0 when absent or bad (reported). */
int lint_get_winerror(struct lint *L, const struct ynode *map, const char *key, const char *hint);
/* An architecture list (or one name) as a mask of 1 << enum matrix_arch; 0 when absent. */
unsigned lint_get_arch(struct lint *L, const struct ynode *map, const struct matrix_field *f);
/* Variant patterns (cpu, cu*, rocm6.*, xpu), appended to out. */
void lint_get_variants(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out);
/* http(s) URLs, appended to out. */
void lint_get_sources(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out);
/* "torch-VERSION-...whl sha256=HEX" items into evidence; *measured_max the newest VERSION. */
void lint_get_evidence(struct lint *L, const struct ynode *map, const struct matrix_field *f,
		       struct strlist *evidence, struct pep440 *measured_max);
/* DLL file names (or one), appended to out. */
void lint_get_dll_list(struct lint *L, const struct ynode *map, const struct matrix_field *f, struct strlist *out);
/* A minimum file version node into *min (what names it in messages). */
void lint_min_version(struct lint *L, const struct ynode *v, const char *what, const char *hint,
		      struct matrix_min *min);
/*
 * `key`: a mapping of architecture (x64, x86, arm64) to a file version, each
 * read with lint_min_version into out[arch] (hint names what each value is);
 * absent: out untouched.
 */
void lint_arch_versions(struct lint *L, const struct ynode *map, const struct matrix_field *f, const char *hint,
			struct matrix_min out[MATRIX_NARCH]);
int lint_id_ok(const char *s);       /* [A-Za-z0-9._-]{1,64} */
int lint_dll_name_ok(const char *s); /* NAME.dll, no path */
/* Reports `key`'s value when `name` (read from it) is not a DLL file name. */
void lint_check_dll_name(struct lint *L, const struct ynode *map, const char *key, const char *name);

/* ---- versions, for the overlap checks ---- */

/* Boundary versions around each clause (where two specifiers' sets meet, one of these is in both). */
void lint_spec_samples(const struct pep440_spec *s, struct pep440 *out, size_t *n, size_t cap);
/* For messages: whether a reads better than b (a plain release with few parts, then the older). */
int lint_simpler(const struct pep440 *a, const struct pep440 *b);

#endif
