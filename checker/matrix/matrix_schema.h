/*
 * matrix_schema: what a matrix file may hold, as one table (schema.def):
 * the mappings of a file, each key with its type, when it is required,
 * where `matrix show` prints it, the words lint messages use for its value
 * and a line of documentation; and the values of the enumerated types
 * (architectures, where a DLL must come from, how a value is known). The
 * reader (matrix_lint.h and the files of matrix.h), the JSON writer,
 * `matrix show` and matrix/README.md's field tables all come from it.
 * Data only: nothing here reads a file.
 */
#ifndef TDC_MATRIX_SCHEMA_H
#define TDC_MATRIX_SCHEMA_H

#include <stddef.h>

enum matrix_arch { MATRIX_X64 = 0, MATRIX_X86, MATRIX_ARM64, MATRIX_NARCH };
enum matrix_where { MATRIX_EITHER = 0, MATRIX_SYSTEM, MATRIX_BUNDLED };
/*
 * sourced: a linked source states it; inferred: our reading, to be confirmed;
 * measured: read from the binaries of the wheels listed in the row's
 * `evidence` (`matrix derive`, matrix/evidence/).
 */
enum matrix_status { MATRIX_SOURCED = 0, MATRIX_INFERRED, MATRIX_MEASURED };

/* The type of a key's value (matrix_type_doc says each in words). */
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
	MT_VENDORS,     /* the list of vendor_dlls entries */
	MT_DLL_PATTERNS,/* DLL file names or prefixes ending in * (or one) */
	MT_PROFILES,    /* the list of profiles entries */
	MT_PROFILE_DLLS,/* the list of a profile's system32 entries */
	MT_NV_DRIVER_OR_NONE, /* an NVIDIA driver version NNN.NN, or none */
	MT_GB,          /* a whole number of GB */
	MT_PAGING,      /* a whole number of GB, or system-managed */
	MT_PRELOADS,    /* the list of package_preload entries */
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
enum matrix_vendor_field {
#define VENDOR(NAME, ...) MF_VENDOR_##NAME,
#include "matrix/schema.def"
	MF_VENDOR_COUNT
};

enum matrix_preload_field {
#define PRELOAD(NAME, ...) MF_PRELOAD_##NAME,
#include "matrix/schema.def"
	MF_PRELOAD_COUNT
};

enum matrix_profile_field {
#define PROFILE(NAME, ...) MF_PROFILE_##NAME,
#include "matrix/schema.def"
	MF_PROFILE_COUNT
};
enum matrix_profdll_field {
#define PROFDLL(NAME, ...) MF_PROFDLL_##NAME,
#include "matrix/schema.def"
	MF_PROFDLL_COUNT
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
extern const struct matrix_field matrix_vendor_fields[MF_VENDOR_COUNT];
extern const struct matrix_field matrix_preload_fields[MF_PRELOAD_COUNT];
extern const struct matrix_field matrix_profile_fields[MF_PROFILE_COUNT];
extern const struct matrix_field matrix_profdll_fields[MF_PROFDLL_COUNT];

/* The mappings, for the docs and tests that walk the whole schema. */
enum matrix_map { MATRIX_MAP_TOP, MATRIX_MAP_ROW, MATRIX_MAP_DLL, MATRIX_MAP_OPENMP, MATRIX_MAP_ISSUE, MATRIX_MAP_WHEN,
		  MATRIX_MAP_CUDA, MATRIX_MAP_PROC, MATRIX_MAP_EXT, MATRIX_MAP_EXTPATH, MATRIX_MAP_EXTFIND,
		  MATRIX_MAP_EXTLOAD, MATRIX_MAP_VENDOR, MATRIX_MAP_PROFILE, MATRIX_MAP_PROFDLL, MATRIX_MAP_PRELOAD,
		  MATRIX_NMAPS };
struct matrix_map_schema {
	const char *name;   /* as lint messages name it: "the top level", "a row", "a runtime_dlls entry", ... */
	const char *path;   /* where it is written: "", "rows[]", "rows[].runtime_dlls[]", ... */
	const struct matrix_field *fields;
	size_t n;
	const char *const *keys; /* fields[i].key for each i, then NULL (lint_map_check: bit i of `present` is key i) */
};
const struct matrix_map_schema *matrix_schema(enum matrix_map map);
const char *matrix_type_doc(enum matrix_type t);         /* "a PEP 440 specifier", ... */
const char *matrix_required_doc(enum matrix_required r); /* "yes", "unless `merge: true`", ... */

#endif
