/*
 * matrix: what each torch release needs from the Windows machine, read
 * from YAML (schema 1: every key in the table matrix/schema.def, documented
 * in matrix/README.md).
 *
 * A matrix is a stack of layers: the default compiled into the program
 * (matrix/torch.yml, see MATRIX_DEFAULT_NAME) first, then each file given
 * with --matrix, in order. Within a later layer:
 *   - a row whose `id` exists in an earlier layer replaces that row (with
 *     `merge: true`, only the keys it writes replace the earlier row's);
 *   - a row with a new `id` is added;
 *   - top-level `remove: [id, ...]` drops earlier rows.
 * A layer is applied whole or not at all: a file with any error changes
 * nothing.
 *
 * Selection (matrix_select) picks, among the rows whose `torch` specifier,
 * `variant` and `arch` all match, the one from the latest layer; within a
 * layer the most specific (one point each for a `variant` list, an `arch`
 * list, and a `torch` that pins one version with == or ===); then the later
 * row in the file. Ties within a file that would give different answers are
 * lint errors (found by testing boundary versions of each specifier against
 * the other rows), so the last rule only settles harmless duplicates.
 *
 * Every value keeps the file, line and column it came from, for
 * annotations. Reading never crashes and never trusts the input: size,
 * depth, node, row and scalar-length caps; anchors, aliases, tags other
 * than !!str, duplicate keys, several documents, UTF-16/32 and invalid
 * UTF-8 are refused with a positioned error.
 *
 * The module's files, one job each: matrix.c reads a file as a layer and
 * applies it; matrix_row.c reads one row; matrix_overlap.c finds rows of
 * one file that contradict each other; matrix_cuda.c and matrix_proc.c
 * read the `cuda` and `torch_load` tables, matrix_profile.c the `profiles`
 * table (machine profiles); matrix_select.c answers which
 * row covers an install and what a row asks; matrix_json.c writes rows as
 * JSON. Below them, matrix_lint.h reads one value and matrix_schema.h is
 * the table of keys (schema.def).
 */
#ifndef TDC_MATRIX_H
#define TDC_MATRIX_H

#include <stddef.h>

#include "loader/extload.h"
#include "loader/pkgpreload.h"
#include "loader/torchproc.h"
#include "matrix/matrix_lint.h"
#include "matrix/matrix_schema.h"
#include "util/err.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/yamltree.h"

/* The default matrix, generated from matrix/torch.yml (build/gen/matrix_embed.c). */
extern const char matrix_default_yaml[];
extern const size_t matrix_default_yaml_len;

/*
 * The same, parsed at build time by checker/matrix/embed_tree.c with
 * MATRIX_YTREE_OPTS (build/gen/matrix_tree.c): the default layer is read
 * from this tree, not parsed again on every run (libyaml stays the parser:
 * the tree is its result; --matrix files are parsed at run time).
 */
extern const struct ytree_blob matrix_default_tree;

/*
 * How a matrix file is read into a tree (yamltree.h): nesting depth, nodes,
 * bytes of one scalar, items of one list or keys + values of one mapping
 * (bounds the quadratic checks), the words of its messages, the refusals.
 */
#define MATRIX_YTREE_OPTS \
	{ 32, 50000, 16384, 1024, "a matrix", "a matrix file", "torch", \
	  YT_REFUSE_ANCHORS | YT_REFUSE_TAGS | YT_ONE_DOCUMENT }

#define MATRIX_DEFAULT_NAME "<embedded>/matrix/torch.yml"
#define MATRIX_SCHEMA 1
#define MATRIX_MAX_BYTES (1024 * 1024) /* per file */
#define MATRIX_MAX_ROWS 256            /* per file */

/* A runtime DLL that must resolve (runtime_dlls entry). */
struct matrix_dll {
	char *name;             /* "msvcp140.dll" */
	struct matrix_min min;  /* min_version; min.set == 0 if only presence matters */
	enum matrix_where where;
	unsigned arch_mask;     /* 1 << enum matrix_arch; 0 = every architecture */
	char *why;
	int winerror;           /* what import torch raises when the copy loaded is below min (1114), or 0 */
	enum matrix_status status;
	struct strlist sources; /* empty: see the row's sources */
	struct matrix_pos pos;
};

/* An OpenMP runtime torch's binaries use (openmp entry). */
struct matrix_openmp {
	char *dll;              /* "libiomp5md.dll", "libomp140.x86_64.dll", "vcomp140.dll" */
	enum matrix_where where;
	int redistributable;    /* 1: the VC++ redistributable installs it */
	unsigned arch_mask;
	char *provider;         /* who ships it (text), or NULL */
	char *fix;              /* what to do when it is missing, or NULL */
	char *why;              /* or NULL */
	enum matrix_status status;
	struct strlist sources;
	struct matrix_pos pos;
};

/*
 * When a known issue applies. Every condition given must hold; an empty
 * list means "no condition". `imports`: some torch binary imports one of
 * these DLLs; `unresolved`: one of these DLLs does not resolve. `check`
 * evaluates them against what the loader found.
 */
struct matrix_when {
	struct strlist variant; /* patterns, as a row's `variant` */
	unsigned arch_mask;
	struct strlist imports;
	struct strlist unresolved;
	struct strlist older;   /* the copy the process resolves is below the row's runtime_dlls min_version */
};

struct matrix_issue {
	char *id, *symptom, *cause, *fix;
	enum matrix_status status;
	struct strlist sources;
	struct matrix_when when;
	struct matrix_pos pos;
};

struct matrix_row {
	char *id;
	char *torch_text;            /* the specifier as written */
	struct pep440_spec torch;
	struct strlist variants;     /* patterns (cpu, cu*, rocm6.*, xpu); empty = any */
	unsigned arch_mask;          /* 0 = any */
	enum matrix_status status;
	struct strlist sources;
	struct strlist evidence;     /* "torch-2.4.0-cp311-cp311-win_amd64.whl sha256=<64 hex>" */
	struct pep440 measured_max;  /* newest torch release in `evidence` (valid when evidence.n) */
	char *note;                  /* or NULL */
	struct matrix_min vc_redist[MATRIX_NARCH]; /* minimum redistributable per architecture */
	struct matrix_min min_windows; /* the oldest Windows (NT version) it loads on; set 0: not said */
	char *min_windows_why;         /* or NULL */
	struct matrix_dll *dlls;
	size_t ndlls;
	struct matrix_openmp *openmp;
	size_t nopenmp;
	struct matrix_issue *issues;
	size_t nissues;
	struct matrix_pos pos;       /* the row's first key */
	struct matrix_pos torch_pos; /* the `torch` value */
	unsigned layer;              /* index into matrix.files */
	unsigned present;            /* internal: which keys the row wrote (1u << enum matrix_row_field) */
	int merge;                   /* internal: `merge: true` */
};

/*
 * What a CUDA release needs of the Windows driver (an entry of the top-level
 * `cuda` table; docs/cuda.md). Driver versions are NVIDIA's NNN.NN.
 */
struct matrix_cuda {
	char *release;             /* "12.4" as written */
	unsigned major, minor;
	char *driver_text;         /* "551.61" */
	unsigned driver[2];        /* {551, 61} */
	char *floor_text;          /* or NULL */
	unsigned floor[2];
	struct strlist dlls;
	enum matrix_status status;
	struct strlist sources;
	struct matrix_pos pos;
	char *published_text;      /* the torch releases with a published Windows build, as written, or NULL */
	struct pep440_spec published;
	int published_none;        /* `published: none`: PyTorch built no Windows release for it */
	char *cudnn;               /* or NULL */
};

/*
 * One entry of the top-level `torch_load` table: the _load_dll_libraries of
 * the torch releases `torch` covers (loader/torchproc.h, docs/loader.md §2.1).
 */
struct matrix_proc {
	char *torch_text;
	struct pep440_spec torch;
	struct torch_proc proc;      /* folders, nvtx, vc1, anchor (torch, entry, status set; lines per release) */
	char *add, *fallback, *note; /* or NULL */
	struct strlist line_releases, line_texts; /* `lines`: release i's "dll_paths:83,..." */
	enum matrix_status status;
	struct strlist evidence, sources;
	struct pep440 first;         /* the oldest release of `lines` (else of the evidence); nrelease 0: none */
	struct matrix_pos pos, torch_pos;
};

/*
 * One entry of the top-level `extension_load` table (matrix_ext.c): how
 * `import PACKAGE` loads its binaries, for the releases `version` covers
 * (loader/extload.h, docs/loader.md "Extensions and packages imported first").
 */
struct matrix_ext {
	struct ext_proc proc;        /* what the loader follows (package, folders, loads; entry = "file:line") */
	char *version_text;          /* or NULL: every release */
	struct pep440_spec version;
	char *code, *note;           /* or NULL */
	enum matrix_status status;
	struct strlist evidence, sources;
	struct matrix_pos pos, version_pos;
};

/*
 * Where some of a GPU or oneAPI stack's DLLs come from (an entry of the
 * top-level `vendor_dlls` table, matrix_vendor.c; docs/gpu.md): a wheel
 * torch requires (`wheel`: the fix is torch's own Requires-Dist of it,
 * judge/required.c) or the vendor's display driver (`driver`, with `fix`).
 */
struct matrix_vendor {
	char *id, *stack;
	struct strlist dlls;       /* "libmmd.dll", or a prefix "mkl_*" */
	char *wheel;               /* a distribution, or NULL */
	char *driver, *fix, *why;  /* or NULL (why is required) */
	enum matrix_status status;
	struct strlist evidence, sources;
	char *note;
	int delay_own_folder;      /* its DLLs' delay-load hook looks in their own folder first */
	struct matrix_pos pos;
};

/*
 * A package's preload inside `import torch` (an entry of the top-level
 * `package_preload` table, matrix_preload.c; docs/loader.md "Package
 * preloads"): the loader's value (pkgpreload.h) and how it is known.
 */
struct matrix_preload {
	struct pkg_preload v;
	enum matrix_status status;
	struct strlist sources;
	char *note;                /* or NULL */
	struct matrix_pos pos;
};

/*
 * A machine profile (an entry of the top-level `profiles` table,
 * matrix_profile.c, docs/profiles.md): what a class of user machine has
 * that the loader and the judges read. System32 holds exactly the DLLs of
 * `system32`; a DLL not listed is not there.
 */
struct matrix_profile_dll {
	char *name;                 /* "msvcp140.dll" */
	struct matrix_min version;  /* its FileVersion (set) */
	char *from;                 /* what put it there, or NULL */
	struct matrix_pos pos;
};

struct matrix_profile {
	char *name, *title, *windows;
	struct matrix_min build;                   /* "10.0.26100" */
	struct matrix_min vc_redist[MATRIX_NARCH]; /* installed version per architecture; set 0: none */
	int visual_studio;                         /* the C++ workload of Visual Studio or the Build Tools */
	struct matrix_profile_dll *dlls;           /* System32's runtime DLLs */
	size_t ndlls;
	char *driver_text;                         /* NVIDIA driver "572.16", or NULL: none (no NVIDIA GPU) */
	unsigned driver[2];
	unsigned memory_gb;                        /* 0: not said */
	int paging_file_gb;                        /* -1: system-managed, -2: not said */
	enum matrix_status status;
	struct strlist sources, evidence;
	char *note;                                /* or NULL */
	struct matrix_pos pos;
};

struct matrix {
	struct matrix_row **rows; /* effective rows, in layer then file order */
	size_t nrows, alloc;
	struct strlist files;     /* one name per applied layer */
	struct matrix_cuda *cuda; /* the effective `cuda` table: one entry per release, later layers win */
	size_t ncuda, acuda;
	struct matrix_proc *procs; /* the effective `torch_load` table: a later layer's entry replaces those it overlaps */
	size_t nprocs, aprocs;
	struct matrix_ext *exts;   /* the effective `extension_load` table: a later layer's entry replaces those of its package it overlaps */
	size_t nexts, aexts;
	struct matrix_vendor *vendors; /* the effective `vendor_dlls` table: a later layer's entry replaces the one with its id */
	size_t nvendors, avendors;
	struct matrix_profile *profiles; /* the effective `profiles` table: a later layer's profile replaces its name's */
	size_t nprofiles, aprofiles;
	struct matrix_preload *preloads; /* the effective `package_preload` table: a later layer's entry replaces its id's */
	size_t npreloads, apreloads;
};

/* The `package_preload` table (matrix_preload.c): read one file's, apply it, release, JSON. */
void matrix_preload_read_table(struct lint *L, const struct ynode *root, struct matrix_preload **out, size_t *n);
void matrix_preload_apply(struct matrix *m, struct matrix_preload *p, size_t n, const char *name);
void matrix_preload_release(struct matrix_preload *p);
struct cJSON *matrix_preload_json(const struct matrix_preload *p);

/* The `vendor_dlls` entry one of whose `dlls` is DLL `name` (case-insensitive; a `*` entry by prefix), or NULL. */
const struct matrix_vendor *matrix_vendor_of(const struct matrix *m, const char *name);
/* Whether DLL `name`'s vendor_dlls entry says `delay_own_folder: true` (ctx: the matrix; torchload.h's callback). */
int matrix_delay_own_folder(void *ctx, const char *name);

/* The profile called `name` (ASCII case-insensitive), borrowed from m, or NULL. */
const struct matrix_profile *matrix_profile_find(const struct matrix *m, const char *name);

/* Its System32 entry for `dll` (case-insensitive), or NULL: the profile has no such DLL. */
const struct matrix_profile_dll *matrix_profile_dll(const struct matrix_profile *p, const char *dll);

/* A profile as `matrix show --json` and the reports write it (caller owns it). */
struct cJSON *matrix_profile_json(const struct matrix_profile *p);

/*
 * The procedure `import DIST` follows (DIST a distribution's name, `version`
 * its METADATA version or NULL): the `extension_load` entry of that package
 * whose `version` covers it, borrowed from m; NULL when none does (the
 * import is then CPython's: loader/extload.h).
 */
const struct ext_proc *matrix_extension_load(const struct matrix *m, const char *dist, const char *version);

/* An `extension_load` entry as `matrix show --json` writes it. */
struct cJSON *matrix_ext_json(const struct matrix_ext *x);
/* A `vendor_dlls` entry as `matrix show --json` writes it. */
struct cJSON *matrix_vendor_json(const struct matrix_vendor *x);

/*
 * The procedure of torch `version` (torch.__version__; NULL unknown): the
 * `torch_load` entry whose specifier covers it (exact), else the nearest
 * entry (the latest one whose first release is not newer than it; the
 * oldest for a release older than every entry; the newest for an unknown
 * version), with a note. 0 with *out filled; -1 when the
 * table is empty (what torch_inputs.procedure answers).
 */
int matrix_torch_load(const struct matrix *m, const char *version, struct torch_proc *out);

/* A `torch_load` entry as `matrix show --json` writes it. */
struct cJSON;
struct cJSON *matrix_proc_json(const struct matrix_proc *p);


/* The `cuda` entry of CUDA major.minor, or NULL. */
const struct matrix_cuda *matrix_cuda_find(const struct matrix *m, unsigned major, unsigned minor);

void matrix_init(struct matrix *m);
void matrix_release(struct matrix *m);

/*
 * Adds a layer. 0 on success; -1 when the file has errors: each goes to
 * `diags` (if not NULL) and the first, as "file:line:col: msg", to err; the
 * matrix is then unchanged. `name` is used in positions and messages.
 */
int matrix_load_buffer(struct matrix *m, const char *name, const void *data, size_t len,
		       struct matrix_diags *diags, struct err *err);
int matrix_load_file(struct matrix *m, const char *path, struct matrix_diags *diags, struct err *err);
int matrix_load_default(struct matrix *m, struct matrix_diags *diags, struct err *err);

/*
 * The row for an installed torch. `raw` is the version text as found
 * (compared by ===; may be NULL). `variant` is a variant name ("cpu",
 * "cu121", "rocm6.1", "xpu") or NULL to take it from the version's local
 * label; "" or an unknown variant only matches rows without `variant`.
 * `arch` is "x64"/"x86"/"arm64" or NULL (unknown: only rows without `arch`).
 * Returns 0 and a borrowed *out; 1 when no row covers it (err says which
 * version, variant and architecture, and how to add a row); -1 for a bad
 * arch name.
 */
int matrix_select(const struct matrix *m, const struct pep440 *torch, const char *raw, const char *variant,
		  const char *arch, const struct matrix_row **out, struct err *err);

/* Whether one row matches (the test matrix_select applies to each row). */
int matrix_row_matches(const struct matrix_row *r, const struct pep440 *torch, const char *raw,
		       const char *variant, int arch);

/* The variant name matrix_select uses for a version when none is given ("" if unknown). */
void matrix_variant_of(const struct pep440 *torch, char *out, size_t outlen);

/* Whether a glob pattern ("cu*", "rocm6.?") matches a variant name, ASCII case-insensitively. */
int matrix_glob(const char *pattern, const char *name);

/* The requirement on `name` for architecture `arch` (NULL if the row has none). */
const struct matrix_dll *matrix_row_dll(const struct matrix_row *r, const char *name, int arch);

/*
 * Whether a known issue applies to an install: every condition of its
 * `applies_when` must hold. `variant`/`arch` as for matrix_select (unknown
 * fails a condition that names variants/arches). `imports(dll, ctx)` answers
 * "does some torch binary import this DLL?", `unresolved(dll, ctx)` "does
 * this DLL fail to resolve?"; a NULL callback makes its condition false.
 */
int matrix_issue_applies(const struct matrix_issue *is, const char *variant, int arch,
			 int (*imports)(const char *dll, void *ctx), int (*unresolved)(const char *dll, void *ctx),
			 void *ctx);

/* The file a row came from, as given when its layer was loaded. */
const char *matrix_row_file(const struct matrix_row *r);

/*
 * The row as JSON (caller owns it). full == 0: the reference the report
 * keeps in installs[].matrix_row (docs/report-json.md): {id, file, line, col,
 * torch, status, sources}. full == 1: every field, as `matrix show --json`.
 */
struct cJSON;
struct cJSON *matrix_row_json(const struct matrix_row *r, int full);

/*
 * The newest torch release any row's `evidence` names (1, *out set), or 0
 * when no row is measured: `check` says when it judges a newer torch by
 * rows measured on older wheels.
 */
int matrix_newest_measured(const struct matrix *m, struct pep440 *out);

/*
 * Between the files of this module (callers use the functions above).
 * A row, a `cuda` entry or a `torch_load` entry read from one file is kept
 * only without errors; each reader reports its errors through L.
 */
struct matrix_row *matrix_row_read(struct lint *L, const struct ynode *m, unsigned layer); /* NULL: had errors */
void matrix_row_free(struct matrix_row *r);
/* The selection rules: how specific a row is, and whether it accepts a variant name. */
int matrix_row_specificity(const struct matrix_row *r);
int matrix_row_variant_ok(const struct matrix_row *r, const char *name);
/* Rows of one file that both match some install, equally specific, and require different things. */
void matrix_rows_check_overlaps(struct lint *L, struct matrix_row **rows, size_t n);
/* The `cuda` table of one file (entries without errors into *out, allocated), released, applied to m. */
void matrix_cuda_read_table(struct lint *L, const struct ynode *root, struct matrix_cuda **out, size_t *n);
void matrix_cuda_release(struct matrix_cuda *c);
void matrix_cuda_apply(struct matrix *m, struct matrix_cuda *cuda, size_t n, const char *name);
/* The `vendor_dlls` table of one file (matrix_vendor.c), likewise. */
void matrix_vendor_read_table(struct lint *L, const struct ynode *root, struct matrix_vendor **out, size_t *n);
void matrix_vendor_release(struct matrix_vendor *x);
void matrix_vendor_apply(struct matrix *m, struct matrix_vendor *v, size_t n, const char *name);
/* The `torch_load` table of one file, likewise. */
void matrix_proc_read_table(struct lint *L, const struct ynode *root, struct matrix_proc **out, size_t *n);
void matrix_proc_release(struct matrix_proc *p);
void matrix_proc_apply(struct matrix *m, struct matrix_proc *procs, size_t n, const char *name);
/* The `extension_load` table of one file (matrix_ext.c), likewise. */
void matrix_ext_read_table(struct lint *L, const struct ynode *root, struct matrix_ext **out, size_t *n);
void matrix_ext_entry_release(struct matrix_ext *x);
void matrix_ext_apply(struct matrix *m, struct matrix_ext *exts, size_t n, const char *name);
/* The `profiles` table of one file (matrix_profile.c), likewise. */
void matrix_profile_read_table(struct lint *L, const struct ynode *root, struct matrix_profile **out, size_t *n);
void matrix_profile_release(struct matrix_profile *p);
void matrix_profile_apply(struct matrix *m, struct matrix_profile *profiles, size_t n, const char *name);

#endif
