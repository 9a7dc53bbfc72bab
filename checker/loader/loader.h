/*
 * loader: the Windows DLL loader, emulated statically over a view.
 *
 * A `struct loader` is one process: its executable's directory, its
 * AddDllDirectory set, its environment (through the view) and its
 * loaded-module list, which grows with every successful load and is never
 * touched by a failed one. loader_load() answers what LoadLibraryExW(path,
 * NULL, flags) would return in that process, as a tree of nodes (one per
 * import, with every probe tried) plus a verdict: the Win32 error, the
 * outcome class, the leaf where it fails and the symbol for 127/182.
 * See loader.c for what is emulated and where it departs from Windows.
 */
#ifndef TDC_LOADER_H
#define TDC_LOADER_H

#include <stddef.h>
#include <stdint.h>

#include "pe/apiset.h"
#include "util/err.h"
#include "pe/pe.h"
#include "util/strbuf.h"
#include "machine/view.h"

/* LoadLibraryExW flags we model. */
#define LDR_WITH_ALTERED_SEARCH_PATH 0x8
#define LDR_SEARCH_DLL_LOAD_DIR 0x100
#define LDR_SEARCH_APPLICATION_DIR 0x200
#define LDR_SEARCH_USER_DIRS 0x400
#define LDR_SEARCH_SYSTEM32 0x800
#define LDR_SEARCH_DEFAULT_DIRS 0x1000
#define LDR_SEARCH_MASK 0x1f00
/*
 * Not a LoadLibraryExW flag: load the image as the process's own executable,
 * whose static imports the loader maps at start-up. Without it an image that
 * is not a DLL (no IMAGE_FILE_DLL) loaded by LoadLibraryExW has its imports
 * not processed: "If the specified module is an executable module, static
 * imports are not loaded" (LoadLibraryExW, Remarks).
 */
#define LDR_AS_PROCESS_EXE 0x80000000u
/*
 * Not a LoadLibraryExW flag either: a delay-loaded DLL whose importer's own
 * delay-load hook looks in the importer's folder (by full path) before
 * falling back to the helper's LoadLibraryExA(name, NULL, 0): that folder,
 * then the standard search order (loader_set_delay_own_folder).
 */
#define LDR_DELAY_OWN_FOLDER 0x40000000u

/* Win32 errors the loader returns. */
#define WINERR_OK 0
#define WINERR_MOD_NOT_FOUND 126
#define WINERR_PROC_NOT_FOUND 127
#define WINERR_INVALID_ORDINAL 182
#define WINERR_BAD_EXE_FORMAT 193
#define WINERR_INVALID_PARAMETER 87
#define WINERR_ACCESS_DENIED 5

enum ldr_outcome {
	LDR_LOADS = 0,
	LDR_MISSING_DLL,     /* 126 */
	LDR_MISSING_ENTRY,   /* 127 */
	LDR_MISSING_ORDINAL, /* 182 */
	LDR_BAD_ARCH,        /* 193: the module, or the only candidates for a dependency, of another machine */
	LDR_UNREADABLE,      /* 193: empty, not PE, corrupt, cannot be read */
	LDR_BAD_PARAM,       /* 87: DLL_LOAD_DIR with a relative name */
	LDR_NOT_A_FILE,      /* 5: the path names a folder (torch's glob matches folders named *.dll) */
};
#define LDR_OUTCOME_LAST LDR_NOT_A_FILE /* every failure outcome is LDR_MISSING_DLL..LDR_OUTCOME_LAST */

/* "loads", "missing-dll", ... as in docs/report-json.md. */
const char *ldr_outcome_name(enum ldr_outcome o);

struct ldr_probe {
	char *path;         /* Windows path tried (or the contract / list searched) */
	const char *step;   /* "API set", "loaded-module list", "KnownDLLs", "DLL_LOAD_DIR", "APPLICATION_DIR",
			       "USER_DIRS", "SYSTEM32", "application dir", "System32", "16-bit system dir",
			       "Windows dir", "current dir", "PATH", "full path" */
	char *why;          /* why this place was searched, in a reader's words: "the application folder",
			       "System32", "PATH entry 3", or a caller's label ("added to PATH by torch's fallback") */
	int minor;          /* a place that cannot matter here (the 16-bit system folder for a 64-bit process,
			       a current folder nobody knows): reports list it only on request (--trace) */
	char *result;       /* "found", "not found", "wrong machine x86, skipped", "unreadable: ...", ... */
};

/* A probe's result when the name is a symbolic link leading outside --root (never followed). */
#define LDR_PROBE_OUTSIDE_ROOT "a link outside --root, not followed"

struct ldr_node {
	char *name;          /* as imported (letter case as written), or the path given */
	char *path;          /* Windows path of the module that satisfies it, NULL if none */
	const char *via;     /* the step that found it */
	char *apiset_host;   /* for a contract: the host it maps to */
	enum ldr_outcome outcome; /* this node's own problem */
	char *detail;        /* why (unreadable reason, machine found, ...) */
	uint16_t machine;
	char *version;       /* FileVersion "14.40.33810.0", or NULL */
	int delay;           /* reached through a delay-load import */
	int forwarder;       /* loaded to resolve a forwarded export */
	int dup;             /* the module is expanded elsewhere in this tree (or cycle) */
	int preloaded;       /* satisfied by a module loaded before this load */
	int assumed;         /* a Windows system DLL assumed present (the view has no System32) */
	struct strlist missing;  /* symbols the parent imports that this module lacks ("name" or "#ord") */
	struct strlist shadowed; /* same-name files later on the search path (Windows paths) */
	struct strlist order_candidates; /* same-name files in two AddDllDirectory folders, whose order
					    Windows leaves unspecified (this node's path first) */
	struct ldr_probe *probes;
	size_t nprobes, aprobes;
	struct ldr_node **kids;
	size_t nkids, akids;
	struct ldr_node *parent;
};

struct ldr_warning {
	struct ldr_node *node; /* the delay-loaded DLL (missing) or the one lacking the symbol */
	char *symbol;          /* NULL when the DLL itself is missing */
};

struct ldr_result {
	struct ldr_node *root;
	int winerror;
	enum ldr_outcome outcome;
	struct ldr_node *leaf; /* where it fails (NULL when it loads) */
	char *symbol;          /* for 127 / 182 */
	struct ldr_warning *warnings; /* delay-load problems */
	size_t nwarnings, awarnings;
	unsigned flags;        /* the flags this load used */
	/*
	 * Two AddDllDirectory folders hold a DLL this load needs and Microsoft
	 * leaves their search order unspecified: the load was also evaluated
	 * with those folders in the opposite order. `order_dependent` is set
	 * when that gives another verdict (alt_winerror / alt_outcome); the
	 * fields above are the verdict in the order the folders were added.
	 */
	int order_ambiguous;   /* some DLL had candidates in two user folders */
	int order_dependent;   /* ... and the verdict depends on which one Windows takes */
	int alt_winerror;
	enum ldr_outcome alt_outcome;
	struct ldr_node *ambiguous_node; /* the first node with order_candidates */
};

/* Which directory LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR means below the first level: the one switch. */
enum ldr_dll_load_dir_mode {
	LDR_DLD_TOP = 0,      /* the directory of the DLL passed to LoadLibraryExW, at every depth (default) */
	LDR_DLD_IMPORTER = 1, /* the directory of the importing module at each level */
};

struct loader;

/*
 * A process on `view` (borrowed; must outlive the loader) whose executable
 * lives in `app_dir` (Windows path, may be NULL) and whose machine is
 * `machine` (PE_MACHINE_AMD64, PE_MACHINE_I386, ...). Loads the API set
 * schema and the KnownDLLs list from the view.
 */
int loader_open(struct loader **out, struct view *view, const char *app_dir, uint16_t machine, struct err *err);
void loader_free(struct loader *ld);

/*
 * What several loaders of one view share: `check --profile` loads each install
 * again on every machine profile, where only what System32 holds differs. A
 * loader opened with a store (loader_open_shared) takes each parsed image and
 * the API set schema from it and leaves there what it parses, so a file is
 * mapped and parsed once per store, not once per process, and an import
 * descriptor bound against an image is not bound again (loader.c, snap_node).
 * Nothing a loader answers changes. Only loaders of one view may share a
 * store (an image is keyed by its Windows path); free it after the last
 * loader that used it, and after every pe_image one lent out (loader_module).
 */
struct ldr_images;
struct ldr_images *loader_images_new(void);
void loader_images_free(struct ldr_images *s);
/* loader_open with a store (NULL: none, as loader_open). */
int loader_open_shared(struct loader **out, struct view *view, const char *app_dir, uint16_t machine,
		       struct ldr_images *shared, struct err *err);

void loader_add_dll_directory(struct loader *ld, const char *win_dir); /* AddDllDirectory */
/*
 * The caller's reasons, for the probes' `why`: the AddDllDirectory folders
 * added since the last label were added by `why` ("added by torch's
 * os.add_dll_directory"; copied), so torch's folders and an extension's
 * each keep their own; the first `n` entries of PATH were put there by
 * `why` ("added to PATH by torch's fallback"; the others are "PATH entry
 * K", counted without them; borrowed, must outlive the loader).
 */
void loader_label_user_dirs(struct loader *ld, const char *why);
/*
 * SetDllDirectoryW(win_dir) (a frozen app's launcher calls it: docs/loader.md
 * "Frozen apps"): in the standard search order the folder follows the application
 * folder and the current folder is no longer searched; with the
 * LOAD_LIBRARY_SEARCH_* flags it is searched with the AddDllDirectory folders
 * (LOAD_LIBRARY_SEARCH_USER_DIRS), in an order Microsoft leaves unspecified.
 * `why` labels its probes (copied). Call it once, before the loads.
 */
void loader_set_dll_directory(struct loader *ld, const char *win_dir, const char *why);
/*
 * SetDefaultDllDirectories(flags) (LOAD_LIBRARY_SEARCH_* bits): a later load
 * whose flags name no search folder (LoadLibraryW, LoadLibraryExW with 0)
 * searches those folders instead of the standard order.
 */
void loader_set_default_dll_directories(struct loader *ld, unsigned flags);
void loader_label_path_prefix(struct loader *ld, size_t n, const char *why);
void loader_set_current_dir(struct loader *ld, const char *win_dir);
void loader_set_dll_load_dir_mode(struct loader *ld, enum ldr_dll_load_dir_mode mode);
/*
 * Which DLLs resolve their delay imports from their own folder first: a DLL
 * whose base name `own_folder(ctx, name)` accepts has a delay-load hook that
 * loads a delay-loaded DLL by the full path in its own folder, then by name
 * (Intel MKL's DLLs: docs/loader.md §5.4, "A delay-load hook"). NULL
 * (default): every delay load is the helper's LoadLibraryExA(name, NULL, 0).
 */
void loader_set_delay_own_folder(struct loader *ld, int (*own_folder)(void *ctx, const char *name), void *ctx);

/*
 * A folder as Win32 path normalisation makes it before the file system sees
 * it ("File path formats on Windows systems"): a segment that ends in a single
 * period loses it, and the last segment loses its trailing periods and spaces
 * (`C:\x\ub.\Library\bin` is `C:\x\ub\Library\bin`). A `\\?\` path is taken as
 * written. Caller frees.
 */
char *ldr_win32_folder(const char *dir);
/*
 * A PATH entry as the search meets it: the loader appends the file name
 * first and normalises the whole path, so the entry's last segment is not
 * the last one: a single trailing period goes, trailing spaces (and a
 * period before them) stay. `C:\Tools\omp.` is `C:\Tools\omp`; `C:\x\sdir `
 * stays `C:\x\sdir `, a folder that is not `C:\x\sdir`. Caller frees.
 */
char *ldr_path_entry_folder(const char *entry);

/* Where the API set answers and the KnownDLLs list come from (for the report). */
const char *loader_apiset_source(const struct loader *ld);
const char *loader_known_dlls_source(const struct loader *ld);
int loader_apiset_is_fallback(const struct loader *ld);
uint16_t loader_machine(const struct loader *ld);
const char *loader_app_dir(const struct loader *ld);

/*
 * LoadLibraryExW(name, NULL, flags): `name` is a Windows path or a bare
 * name. Fills *res (release with ldr_result_release). On success the modules
 * it loaded join the loaded-module list. Returns -1 only for internal errors;
 * a DLL that does not load is a result, not an error.
 */
int loader_load(struct loader *ld, const char *name, unsigned flags, struct ldr_result *res, struct err *err);

/*
 * Lets the OS drop the mapped pages of every cached image from memory (they
 * are re-read when touched): call between loads to keep a long run's
 * resident size at one load's working set.
 */
void loader_trim(struct loader *ld);

/*
 * The first file the host would not let the loader read (permission denied,
 * an I/O error), as "PATH: reason", or an import chain deeper than the
 * emulation follows (loader_state.h, LDR_MAX_DEPTH), or NULL. Either has no
 * Windows verdict: callers report the run as an input error instead.
 */
const char *loader_host_error(const struct loader *ld);

/*
 * The loaded-module list in load order (judge/commit.h sums what each
 * mapped image charges): the number of modules, and module i's Windows path
 * with its parsed image in *img (NULL when it could not be parsed; owned by
 * the loader).
 */
size_t loader_nmodules(const struct loader *ld);
const char *loader_module(const struct loader *ld, size_t i, const struct pe_image **img);

/* Whether a module of that base name is in the loaded-module list. */
int loader_is_loaded(const struct loader *ld, const char *base);

/* The file version of the PE at a Windows path ("14.40.33810.0"), or NULL (borrowed, cached). */
const char *loader_file_version(struct loader *ld, const char *win_path);

void ldr_result_release(struct ldr_result *res);

/*
 * The file name the loader searches for an imported or requested DLL name:
 * ".dll" appended when the last component has none, '/' as '\\', trailing
 * dots and spaces dropped; a "\\?\\" name taken literally. Caller frees.
 */
char *ldr_dll_name_normalize(const char *name);

/* The names from the root to `node` ("fbgemm.dll", "libomp140.x86_64.dll"). */
void ldr_node_chain(const struct ldr_node *node, struct strlist *out);

#endif
