/*
 * matrix_schema: the schema table (schema.def) as C data (matrix_schema.h):
 * each mapping's fields and its keys in the table's order, and the words
 * the docs use for each type and for when a key is required.
 */
#include "matrix/matrix_schema.h"

#define FIELD_ENTRY(NAME, key, type, required, show, hint, doc) { key, type, MR_##required, MS_##show, hint, doc },
#define KEY_NAME(NAME, key, ...) key,

const struct matrix_field matrix_top_fields[MF_TOP_COUNT] = {
#define TOP FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_row_fields[MF_ROW_COUNT] = {
#define ROW FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_dll_fields[MF_DLL_COUNT] = {
#define DLL FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_openmp_fields[MF_OPENMP_COUNT] = {
#define OPENMP FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_issue_fields[MF_ISSUE_COUNT] = {
#define ISSUE FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_when_fields[MF_WHEN_COUNT] = {
#define WHEN FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_cuda_fields[MF_CUDA_COUNT] = {
#define CUDA FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_proc_fields[MF_PROC_COUNT] = {
#define PROC FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_ext_fields[MF_EXT_COUNT] = {
#define EXT FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_extpath_fields[MF_EXTPATH_COUNT] = {
#define EXTPATH FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_extfind_fields[MF_EXTFIND_COUNT] = {
#define EXTFIND FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_extload_fields[MF_EXTLOAD_COUNT] = {
#define EXTLOAD FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_vendor_fields[MF_VENDOR_COUNT] = {
#define VENDOR FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_profile_fields[MF_PROFILE_COUNT] = {
#define PROFILE FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_profdll_fields[MF_PROFDLL_COUNT] = {
#define PROFDLL FIELD_ENTRY
#include "matrix/schema.def"
};
const struct matrix_field matrix_preload_fields[MF_PRELOAD_COUNT] = {
#define PRELOAD FIELD_ENTRY
#include "matrix/schema.def"
};

/* The keys each mapping accepts, NULL-terminated (lint_map_check, did-you-mean); bit i of `present` is key i. */
static const char *const top_keys[] = {
#define TOP KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const row_keys[] = {
#define ROW KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const dll_keys[] = {
#define DLL KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const omp_keys[] = {
#define OPENMP KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const issue_keys[] = {
#define ISSUE KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const when_keys[] = {
#define WHEN KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const cuda_keys[] = {
#define CUDA KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const proc_keys[] = {
#define PROC KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const ext_keys[] = {
#define EXT KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const extpath_keys[] = {
#define EXTPATH KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const extfind_keys[] = {
#define EXTFIND KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const extload_keys[] = {
#define EXTLOAD KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const vendor_keys[] = {
#define VENDOR KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const profile_keys[] = {
#define PROFILE KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const profdll_keys[] = {
#define PROFDLL KEY_NAME
#include "matrix/schema.def"
	NULL
};
static const char *const preload_keys[] = {
#define PRELOAD KEY_NAME
#include "matrix/schema.def"
	NULL
};

_Static_assert(MF_ROW_COUNT <= 32 && MF_TOP_COUNT <= 32 && MF_DLL_COUNT <= 32 && MF_OPENMP_COUNT <= 32 &&
		       MF_ISSUE_COUNT <= 32 && MF_WHEN_COUNT <= 32 && MF_CUDA_COUNT <= 32 && MF_PROC_COUNT <= 32 &&
		       MF_PROFILE_COUNT <= 32 && MF_PROFDLL_COUNT <= 32,
	       "a mapping's keys are bits of an unsigned `present`");

const struct matrix_map_schema *matrix_schema(enum matrix_map map)
{
	static const struct matrix_map_schema maps[MATRIX_NMAPS] = {
		{ "the top level", "", matrix_top_fields, MF_TOP_COUNT, top_keys },
		{ "a row", "rows[]", matrix_row_fields, MF_ROW_COUNT, row_keys },
		{ "a runtime_dlls entry", "rows[].runtime_dlls[]", matrix_dll_fields, MF_DLL_COUNT, dll_keys },
		{ "an openmp entry", "rows[].openmp[]", matrix_openmp_fields, MF_OPENMP_COUNT, omp_keys },
		{ "a known_issues entry", "rows[].known_issues[]", matrix_issue_fields, MF_ISSUE_COUNT, issue_keys },
		{ "applies_when", "rows[].known_issues[].applies_when", matrix_when_fields, MF_WHEN_COUNT, when_keys },
		{ "a cuda entry", "cuda[]", matrix_cuda_fields, MF_CUDA_COUNT, cuda_keys },
		{ "a torch_load entry", "torch_load[]", matrix_proc_fields, MF_PROC_COUNT, proc_keys },
		{ "an extension_load entry", "extension_load[]", matrix_ext_fields, MF_EXT_COUNT, ext_keys },
		{ "path_folders", "extension_load[].path_folders", matrix_extpath_fields, MF_EXTPATH_COUNT, extpath_keys },
		{ "find", "extension_load[].find", matrix_extfind_fields, MF_EXTFIND_COUNT, extfind_keys },
		{ "a loads entry", "extension_load[].loads[]", matrix_extload_fields, MF_EXTLOAD_COUNT, extload_keys },
		{ "a vendor_dlls entry", "vendor_dlls[]", matrix_vendor_fields, MF_VENDOR_COUNT, vendor_keys },
		{ "a profile", "profiles[]", matrix_profile_fields, MF_PROFILE_COUNT, profile_keys },
		{ "a system32 entry", "profiles[].system32[]", matrix_profdll_fields, MF_PROFDLL_COUNT, profdll_keys },
		{ "a package_preload entry", "package_preload[]", matrix_preload_fields, MF_PRELOAD_COUNT, preload_keys },
	};
	return map < MATRIX_NMAPS ? &maps[map] : NULL;
}

const char *matrix_type_doc(enum matrix_type t)
{
	switch (t) {
	case MT_SCHEMA:
		return "the number 1";
	case MT_TEXT:
		return "text";
	case MT_ID:
		return "an id: `[A-Za-z0-9._-]{1,64}`";
	case MT_IDS:
		return "row ids (a list, or one)";
	case MT_ROWS:
		return "a list of rows";
	case MT_SPEC:
		return "a PEP 440 specifier (quoted)";
	case MT_VARIANTS:
		return "variant patterns: cpu, xpu, cuXYZ, rocmX.Y, with `*` `?` (a list, or one)";
	case MT_ARCHES:
		return "x64, x86, arm64 (a list, or one)";
	case MT_STATUS:
		return "sourced, inferred or measured";
	case MT_URLS:
		return "http(s) URLs (a list, or one)";
	case MT_EVIDENCE:
		return "\"torch-VERSION-...whl sha256=<64 hex>\" (a list, or one)";
	case MT_VC_REDIST:
		return "a mapping of x64, x86, arm64 to a file version";
	case MT_DLLS:
		return "a list of runtime_dlls entries";
	case MT_OPENMPS:
		return "a list of openmp entries";
	case MT_ISSUES:
		return "a list of known_issues entries";
	case MT_BOOL:
		return "true or false";
	case MT_DLL:
		return "a DLL file name";
	case MT_DLLS_NAMED:
		return "DLL file names (a list, or one)";
	case MT_WINVER:
		return "a file version: 2 to 4 numbers of at most 65535";
	case MT_WHERE:
		return "system, bundled or either";
	case MT_WINERROR:
		return "a Windows error code, 1 to 65535";
	case MT_WHEN:
		return "a mapping: variant, arch, imports, unresolved, older";
	case MT_CUDAS:
		return "a list of cuda entries";
	case MT_CUDA_RELEASE:
		return "a CUDA release: MAJOR.MINOR (quoted)";
	case MT_PROCS:
		return "a list of torch_load entries";
	case MT_FOLDERS:
		return "a list of lib, prefix, base_prefix, userbase, prefix_bin";
	case MT_VC1:
		return "always, not-arm64 or not-cuda-9.2-10.0";
	case MT_ANCHOR:
		return "__file__ or torch._C";
	case MT_LINES:
		return "a mapping of release to \"NAME:LINE,...\"";
	case MT_NV_DRIVER:
		return "an NVIDIA driver version: NNN.NN (quoted)";
	case MT_EXTS:
		return "a list of extension_load entries";
	case MT_EXT_PATH:
		return "a mapping: by, python, file, has";
	case MT_EXT_LOADS:
		return "a list of loads entries";
	case MT_EXT_HOW:
		return "ctypes or import";
	case MT_EXT_FIND:
		return "a mapping: by, file, in";
	case MT_EXT_OTHERS:
		return "lazy or import";
	case MT_TEXTS:
		return "texts (a list, or one)";
	case MT_WHEELS:
		return "\"PACKAGE-VERSION-...whl sha256=<64 hex>\" (a list, or one)";
	case MT_VENDORS:
		return "a list of vendor_dlls entries";
	case MT_DLL_PATTERNS:
		return "DLL file names or prefixes ending in * (a list, or one)";
	case MT_PROFILES:
		return "a list of profiles";
	case MT_PROFILE_DLLS:
		return "a list of system32 entries";
	case MT_NV_DRIVER_OR_NONE:
		return "an NVIDIA driver version: NNN.NN (quoted), or none";
	case MT_GB:
		return "a whole number of GB, 1 to 65536";
	case MT_PRELOADS:
		return "a list of package_preload entries";
	case MT_PAGING:
		return "a whole number of GB (0: none), or system-managed";
	}
	return "?";
}

const char *matrix_required_doc(enum matrix_required r)
{
	switch (r) {
	case MR_REQUIRED:
		return "yes";
	case MR_OPTIONAL:
		return "no";
	case MR_UNLESS_MERGE:
		return "yes, unless `merge: true`";
	case MR_UNLESS_REMOVE:
		return "yes, unless `remove` is given";
	case MR_IF_SOURCED:
		return "when `status: sourced`";
	case MR_IF_MEASURED:
		return "when `status: measured`";
	}
	return "?";
}

