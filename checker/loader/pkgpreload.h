/*
 * pkgpreload: the DLLs a package's own Python code loads by full path
 * inside `import torch`, before torch loads any DLL of its own
 * (docs/loader.md, "Package preloads").
 *
 * TheRock's ROCm builds of torch for Windows ship torch\_rocm_init.py;
 * torch/__init__.py imports it (an ImportError passes) and runs its
 * initialize() before _load_dll_libraries. That calls
 * rocm_sdk.initialize_process(preload_shortnames=[...]) (ROCm/TheRock,
 * build_tools/packaging/python/templates/rocm/src/rocm_sdk/__init__.py):
 * for each short name in order, its LibraryEntry in rocm_sdk/_dist_info.py
 * names a package (core, libraries) and a DLL pattern; the package's Python
 * module is "_" + its dist name with - as _ + PY_PACKAGE_SUFFIX_NONCE
 * (_rocm_sdk_core<nonce>, _rocm_sdk_libraries_<gfx family><nonce>),
 * imported by that exact name; the first sorted match of the pattern in its
 * `bin` folder is loaded with ctypes.CDLL (LoadLibraryExW, 0x1100). An empty
 * pattern is skipped on Windows. What the matrix says of it (its top-level
 * `package_preload` table) is this value; the matrix layer fills it and
 * torchload follows it. Nothing here globs package folders: a folder whose
 * name carries another nonce is not imported (it is said, as ignored).
 */
#ifndef TDC_PKGPRELOAD_H
#define TDC_PKGPRELOAD_H

#include <stddef.h>

#include "loader/loader.h"
#include "machine/view.h"

#define PKG_PRELOAD_MAX_LIBS 64
#define PKG_PRELOAD_MAX_PACKAGES 8

struct pkg_preload_lib {
	char name[48];    /* the short name: "amdhip64" */
	char package[32]; /* the logical package: "core" */
	char pattern[64]; /* the DLL pattern in its folder ("amdhip64*.dll"), "" when none on Windows */
};

struct pkg_preload_package {
	char logical[32]; /* "libraries" */
	char dist[96];    /* "rocm-sdk-libraries-{target_family}" */
};

/* One `package_preload` entry as a value (fixed sizes: nothing to free). */
struct pkg_preload {
	char id[64];
	char when_file[64];  /* in torch's package folder: "_rocm_init.py" */
	char module[64];     /* the Python package the preload imports: "rocm_sdk" */
	char dist_info[64];  /* its file naming version, nonce and default family: "_dist_info.py" */
	char family_env[64]; /* the variable that names the GPU family: "ROCM_SDK_TARGET_FAMILY" */
	struct pkg_preload_package packages[PKG_PRELOAD_MAX_PACKAGES];
	size_t npackages;
	char folder[32];     /* the DLLs' folder in a package: "bin" */
	struct pkg_preload_lib libs[PKG_PRELOAD_MAX_LIBS];
	size_t nlibs;
	char preload[PKG_PRELOAD_MAX_LIBS][48]; /* the short names when when_file's list cannot be read */
	size_t npreload;
	char fix[512];       /* "{version}" replaced by the module's version */
	char entry[160];     /* where the entry is written ("<embedded>/matrix/torch.yml:1209") */
};

enum pkg_preload_outcome {
	PKG_PRELOAD_OK,
	PKG_PRELOAD_NO_MODULE,      /* rocm_sdk is not installed: ModuleNotFoundError */
	PKG_PRELOAD_UNKNOWN_LIB,    /* a short name _dist_info does not know: ModuleNotFoundError */
	PKG_PRELOAD_NO_PACKAGE,     /* _rocm_sdk_core<nonce> is not installed */
	PKG_PRELOAD_NO_FILE,        /* no match of the pattern in its folder: FileNotFoundError */
	PKG_PRELOAD_LOAD_FAILED,    /* ctypes.CDLL failed: the binary in torch_run's bins says why */
};

/* What the preload did on one process (torch_run's `preload`). */
struct pkg_preload_run {
	struct pkg_preload spec;
	char *site_packages;     /* torch's parent folder, where the packages are looked for */
	char *version, *nonce;   /* from the module's dist_info, or NULL */
	char *family;            /* the GPU family used, or NULL */
	char *family_from;       /* "ROCM_SDK_TARGET_FAMILY", "DEFAULT_TARGET_FAMILY of ...\_dist_info.py" */
	char *list_from;         /* "...\torch\_rocm_init.py:3" or the matrix entry */
	struct strlist names;    /* the short names preloaded, in order */
	struct strlist loaded;   /* the DLLs loaded, full Windows paths, in order */
	struct strlist ignored;  /* package folders of the same dist with another nonce (not imported) */
	int listing_capped;      /* site-packages held more entries than were looked at */
	enum pkg_preload_outcome outcome;
	char *library;           /* the short name that failed, or NULL */
	char *missing;           /* the folder or pattern path not found, or NULL */
	char *package;           /* the dist name whose module was not found, or NULL */
	char *error_text;        /* what `import torch` raises (Python's words), or NULL */
	char *fix;               /* the entry's fix with its version, or NULL */
};

/*
 * Whether the preload applies: torch_dir holds spec->when_file. Then runs it
 * on ld (each load a new binary of `run`, stage TORCH_STAGE_PRELOAD, through
 * `load`), filling *out. Returns 1 when it ran, 0 when it does not apply.
 */
struct torch_run;
typedef int (*pkg_preload_load_fn)(struct torch_run *run, const char *path);
int pkg_preload_run(struct pkg_preload_run *out, const struct pkg_preload *spec, struct view *v,
		    const char *torch_dir, struct torch_run *run, pkg_preload_load_fn load);
void pkg_preload_run_release(struct pkg_preload_run *r);

/* The outcome's name for the report: "ok", "no-module", ... */
const char *pkg_preload_outcome_name(enum pkg_preload_outcome o);

/* Case-insensitive match of a name against a pattern whose only wildcard is `*` (fnmatch on Windows). */
int pkg_preload_match(const char *pattern, const char *name);

#endif
