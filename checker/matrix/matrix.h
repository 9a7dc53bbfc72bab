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
 */
#ifndef TDC_MATRIX_H
#define TDC_MATRIX_H

#include <stddef.h>

#include "loader/extload.h"
#include "loader/torchproc.h"
#include "util/err.h"
#include "util/strbuf.h"
#include "util/version.h"

/* The default matrix, generated from matrix/torch.yml (build/gen/matrix_embed.c). */
extern const char matrix_default_yaml[];
extern const size_t matrix_default_yaml_len;

#define MATRIX_DEFAULT_NAME "<embedded>/matrix/torch.yml"
#define MATRIX_SCHEMA 1
#define MATRIX_MAX_BYTES (1024 * 1024) /* per file */
#define MATRIX_MAX_ROWS 256            /* per file */
#define MATRIX_MAX_DIAGS 200           /* kept per load; the rest are counted */

enum matrix_arch { MATRIX_X64 = 0, MATRIX_X86, MATRIX_ARM64, MATRIX_NARCH };
enum matrix_where { MATRIX_EITHER = 0, MATRIX_SYSTEM, MATRIX_BUNDLED };
/*
 * sourced: a linked source states it; inferred: our reading, to be confirmed;
 * measured: read from the binaries of the wheels listed in the row's
 * `evidence` (`matrix derive`, matrix/evidence/).
 */
enum matrix_status { MATRIX_SOURCED = 0, MATRIX_INFERRED, MATRIX_MEASURED };

/*
 * The schema, one table (schema.def): for each mapping of a matrix file
 * its keys, each with its type, when it is required, where `matrix show`
 * prints it, the words lint messages use for its value and a line of
 * documentation. The reader, the JSON writer, `matrix show` and
 * matrix/README.md's field tables all come from it.
 */
enum matrix_type {
	MT_SCHEMA,      /* the number 1 */
	MT_TEXT,        /* a string */
	MT_ID,          /* [A-Za-z0-9._-]{1,64} */
	MT_IDS,         /* a list of row ids (or one) */
	MT_ROWS,        /* the list of rows */
	MT_SPEC,        /* a PEP 440 specifier */
	MT_VARIANTS,    /* variant patterns (or one) */
	MT_ARCHES,      /* x64 | x86 | arm64 (a list, or one) */
	MT_STATUS,      /* sourced | inferred | measured */
	MT_URLS,        /* http(s) URLs (or one) */
	MT_EVIDENCE,    /* "torch-VERSION-...whl sha256=HEX" (or one) */
	MT_VC_REDIST,   /* a mapping of architecture to minimum file version */
	MT_DLLS,        /* the list of runtime_dlls entries */
	MT_OPENMPS,     /* the list of openmp entries */
	MT_ISSUES,      /* the list of known_issues entries */
	MT_BOOL,        /* true | false */
	MT_DLL,         /* a DLL file name */
	MT_DLLS_NAMED,  /* DLL file names (or one) */
	MT_WINVER,      /* a Windows file version, 2 to 4 parts */
	MT_WHERE,       /* system | bundled | either */
	MT_WINERROR,    /* a Win32 error code, 1..65535 */
	MT_WHEN,        /* an applies_when mapping */
	MT_CUDAS,       /* the list of cuda entries */
	MT_CUDA_RELEASE,/* a CUDA release: MAJOR.MINOR */
	MT_NV_DRIVER,   /* a Windows NVIDIA driver version: NNN.NN */
	MT_PROCS,       /* the list of torch_load entries */
	MT_FOLDERS,     /* dll_paths folder words (lib, prefix, base_prefix, userbase, prefix_bin) */
	MT_VC1,         /* always | not-arm64 | not-cuda-9.2-10.0 */
	MT_ANCHOR,      /* __file__ | torch._C */
	MT_LINES,       /* a mapping of release to "NAME:LINE,..." */
	MT_EXTS,        /* the list of extension_load entries */
	MT_EXT_PATH,    /* an extension_load entry's path_folders mapping */
	MT_EXT_LOADS,   /* the list of an extension_load entry's loads */
	MT_EXT_HOW,     /* ctypes | import */
	MT_EXT_FIND,    /* an extension_load entry's find mapping */
	MT_EXT_OTHERS,  /* lazy | import */
	MT_TEXTS,       /* strings (or one) */
	MT_WHEELS,      /* "PACKAGE-VERSION-...whl sha256=HEX" (or one) */
};
enum matrix_required { MR_REQUIRED, MR_OPTIONAL, MR_UNLESS_MERGE, MR_UNLESS_REMOVE, MR_IF_SOURCED, MR_IF_MEASURED };
enum matrix_show { MS_NONE, MS_HEAD, MS_BODY, MS_TAIL };

struct matrix_field {
	const char *key;
	enum matrix_type type;
	enum matrix_required required;
	enum matrix_show show;  /* rows only */
	const char *hint;       /* what the value must be ("a DLL file name such as msvcp140.dll") */
	const char *doc;        /* one line */
};

/* One enum per mapping, in schema.def's order: MF_ROW_ID, MF_DLL_NAME, ...; the _COUNT ends each. */
enum matrix_top_field {
#define TOP(NAME, ...) MF_TOP_##NAME,
#include "matrix/schema.def"
	MF_TOP_COUNT
};
enum matrix_row_field {
#define ROW(NAME, ...) MF_ROW_##NAME,
#include "matrix/schema.def"
	MF_ROW_COUNT
};
enum matrix_dll_field {
#define DLL(NAME, ...) MF_DLL_##NAME,
#include "matrix/schema.def"
	MF_DLL_COUNT
};
enum matrix_openmp_field {
#define OPENMP(NAME, ...) MF_OPENMP_##NAME,
#include "matrix/schema.def"
	MF_OPENMP_COUNT
};
enum matrix_issue_field {
#define ISSUE(NAME, ...) MF_ISSUE_##NAME,
#include "matrix/schema.def"
	MF_ISSUE_COUNT
};
enum matrix_when_field {
#define WHEN(NAME, ...) MF_WHEN_##NAME,
#include "matrix/schema.def"
	MF_WHEN_COUNT
};
enum matrix_cuda_field {
#define CUDA(NAME, ...) MF_CUDA_##NAME,
#include "matrix/schema.def"
	MF_CUDA_COUNT
};
enum matrix_proc_field {
#define PROC(NAME, ...) MF_PROC_##NAME,
#include "matrix/schema.def"
	MF_PROC_COUNT
};

enum matrix_ext_field {
#define EXT(NAME, ...) MF_EXT_##NAME,
#include "matrix/schema.def"
	MF_EXT_COUNT
};
enum matrix_extpath_field {
#define EXTPATH(NAME, ...) MF_EXTPATH_##NAME,
#include "matrix/schema.def"
	MF_EXTPATH_COUNT
};
enum matrix_extfind_field {
#define EXTFIND(NAME, ...) MF_EXTFIND_##NAME,
#include "matrix/schema.def"
	MF_EXTFIND_COUNT
};
enum matrix_extload_field {
#define EXTLOAD(NAME, ...) MF_EXTLOAD_##NAME,
#include "matrix/schema.def"
	MF_EXTLOAD_COUNT
};

extern const struct matrix_field matrix_top_fields[MF_TOP_COUNT];
extern const struct matrix_field matrix_row_fields[MF_ROW_COUNT];
extern const struct matrix_field matrix_dll_fields[MF_DLL_COUNT];
extern const struct matrix_field matrix_openmp_fields[MF_OPENMP_COUNT];
extern const struct matrix_field matrix_issue_fields[MF_ISSUE_COUNT];
extern const struct matrix_field matrix_when_fields[MF_WHEN_COUNT];
extern const struct matrix_field matrix_cuda_fields[MF_CUDA_COUNT];
extern const struct matrix_field matrix_proc_fields[MF_PROC_COUNT];
extern const struct matrix_field matrix_ext_fields[MF_EXT_COUNT];
extern const struct matrix_field matrix_extpath_fields[MF_EXTPATH_COUNT];
extern const struct matrix_field matrix_extfind_fields[MF_EXTFIND_COUNT];
extern const struct matrix_field matrix_extload_fields[MF_EXTLOAD_COUNT];

/* The mappings, for the docs and tests that walk the whole schema. */
enum matrix_map { MATRIX_MAP_TOP, MATRIX_MAP_ROW, MATRIX_MAP_DLL, MATRIX_MAP_OPENMP, MATRIX_MAP_ISSUE, MATRIX_MAP_WHEN,
		  MATRIX_MAP_CUDA, MATRIX_MAP_PROC, MATRIX_MAP_EXT, MATRIX_MAP_EXTPATH, MATRIX_MAP_EXTFIND,
		  MATRIX_MAP_EXTLOAD, MATRIX_NMAPS };
struct matrix_map_schema {
	const char *name;   /* as lint messages name it: "the top level", "a row", "a runtime_dlls entry", ... */
	const char *path;   /* where it is written: "", "rows[]", "rows[].runtime_dlls[]", ... */
	const struct matrix_field *fields;
	size_t n;
};
const struct matrix_map_schema *matrix_schema(enum matrix_map map);
const char *matrix_type_doc(enum matrix_type t);         /* "a PEP 440 specifier", ... */
const char *matrix_required_doc(enum matrix_required r); /* "yes", "unless `merge: true`", ... */

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
};

/*
 * The procedure `import DIST` follows (DIST a distribution's name, `version`
 * its METADATA version or NULL): the `extension_load` entry of that package
 * whose `version` covers it, borrowed from m; NULL when none does (the
 * import is then CPython's: loader/extload.h).
 */
const struct ext_proc *matrix_extension_load(const struct matrix *m, const char *dist, const char *version);

/* An `extension_load` entry as `matrix show --json` writes it. */
struct cJSON *matrix_ext_json(const struct matrix_ext *x);

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

const char *matrix_arch_name(int arch);        /* "x64", "x86", "arm64" */
int matrix_arch_parse(const char *s);          /* enum matrix_arch or -1 */
const char *matrix_where_name(enum matrix_where w);
const char *matrix_status_name(enum matrix_status s);

/*
 * The newest torch release any row's `evidence` names (1, *out set), or 0
 * when no row is measured: `check` says when it judges a newer torch by
 * rows measured on older wheels.
 */
int matrix_newest_measured(const struct matrix *m, struct pep440 *out);

#endif
