/*
 * loader_state: the private half of the loader module (loader.h), shared by
 * its three files and by no one else: the state of one emulated process
 * (struct loader: the view, KnownDLLs, the AddDllDirectory folders, the
 * loaded-module list, the image cache), one search folder of a search order
 * (struct search_dir), and the functions one file of the module offers the
 * others.
 *
 * loader_setup.c sets the process up and keeps its image cache and trace
 * nodes; loader_search.c builds the search orders on that; loader.c (one
 * load: resolving, mapping, snapping) uses both. Nothing here calls back
 * up that order. A .c file includes loader/loader.h first and this file
 * after it.
 */
#ifndef TDC_LOADER_STATE_H
#define TDC_LOADER_STATE_H

/* after loader/loader.h (its enums and struct ldr_node), which this file does not include: loader.h's module is this one's user */
#include "util/strmap.h"
#include "util/strbuf.h"

/*
 * One import descriptor of an image as it was last bound (loader.c,
 * snap_node): against which exporter image, and which of its functions did
 * more than be found in that image (followed a forwarder, or were missing).
 * Finding a function in an image finds it there again and changes nothing,
 * so binding the descriptor against the same image again is binding those
 * alone: the forwarders resolve anew (their targets are searched for, where a
 * machine profile may differ; the forwarder found in ex is kept, not looked up
 * again), the missing are reported anew. This is what
 * the loads of one install on several machine profiles share most
 * (struct ldr_images): torch_cpu.dll's thousands of imports.
 */
struct ldr_binding {
	const struct ldr_image *ex; /* NULL: not bound yet */
	struct ldr_redo {
		size_t k;              /* index into the descriptor's funcs[] */
		const char *forwarder; /* the forwarder found in ex (its bytes), or NULL: looked up again */
	} *redo;
	size_t nredo, aredo;
	int busy;                   /* being bound (snap_node) */
};

struct ldr_image {
	char *win;  /* Windows path (the cache key, compared case-insensitively) */
	char *host;
	struct pe_image *img; /* NULL when it could not be parsed */
	int err_code;         /* PE_ERR_* */
	char *err_msg;
	char *version;
	unsigned hot; /* the serial of the loader whose hot list holds it (touched since its last trim), 0 none */
	struct ldr_binding *bound; /* per import descriptor, the static ones then the delay ones, or NULL */
	/* exports forwarders led to, by name (loader.c, remember_found): found_v[] */
	struct strmap found;
	struct pe_export *found_v;
	size_t nfound, afound;
};

/* Parsed images shared by the loaders of one view (loader.h, loader_open_shared). */
struct ldr_images {
	struct ldr_image **v;
	size_t n, alloc;
	struct strmap index; /* Windows path → index into v[] (STRMAP_ICASE) */
	unsigned serial;     /* the last loader's serial number (ldr_image.hot) */
	/* the API set schema the first loader read (every loader of a view reads System32's): its host path,
	   the parsed schema (or the fallback) and why it failed to parse (NULL when it did not) */
	char *apiset_host;
	struct apiset *apiset;
	char *apiset_err;
};

/*
 * Binding thousands of imports against a large export table (torch_cpu.dll:
 * 57k names, ~3.4 MB of name strings) touches pages of its name table
 * through the binary searches. Resident memory stays bounded this way: once
 * the lookups since the last look could have touched LDR_TRIM_PAGES pages
 * (16 MiB; each lookup counts as the pages its search can touch, log2 of
 * the names plus the hit, each image opened as LDR_OPEN_PAGES), what is
 * the process's file-backed resident memory is asked
 * (os_resident_file_bytes: /proc/self/statm), and the pages of the mappings
 * touched since the last trim are handed back (loader_trim) only when it is
 * over LDR_RESIDENT_MAX. Real searches share
 * most of their pages, so a real install is checked without a trim, where
 * releasing each whole mapping every 8 lookups (and every touched one after
 * each torch binary) cost 1,766 madvise calls and 9,000 page faults on 857
 * distinct pages: 2.6x the CPU. File-backed RSS stays under
 * LDR_RESIDENT_MAX plus one budget of touches. A host that cannot say what
 * is resident (Windows here) trims at every budget.
 */
#define LDR_TRIM_PAGES 4096u
#define LDR_RESIDENT_MAX ((size_t)8 << 20)
#define LDR_OPEN_PAGES 16u /* what parsing one image counts as: headers, directories, import names */

/*
 * The deepest import chain followed (imports from the module loaded to the
 * importer; forwarders count). Windows has no such limit (docs/loader.md
 * §5.3), but the walk below and every reader of the tree recurse once per
 * level: a 40,000-deep chain in torch\lib overflowed the stack. Real chains
 * are under 20 deep. A deeper one is not judged: the load fails on that
 * module with the limit as its detail, loader_host_error() says so (check
 * exits with an error, no verdict), and later loads are not evaluated.
 */
#define LDR_MAX_DEPTH 1000

struct ldr_module {
	char *base; /* base name as it exists */
	char *path; /* Windows path */
	/* loaded by a load whose verdict depends on the AddDllDirectory order (then: the other verdict) */
	int order_dependent, alt_winerror;
	enum ldr_outcome alt_outcome;
	struct strlist order_candidates;
	char *order_dll;
};

/*
 * The loaded-module list is searched by base name (a bare import) and by
 * full path (a load by path, a module found on disk): an index of each,
 * case-insensitive as the list's names are (str_icmp), so a lookup costs
 * O(1) instead of a walk of every module loaded so far. The list is searched
 * in order and only ever appended to, so the index keeps the first module of
 * a name and a later one of the same name never replaces it: the answer is
 * the walk's (strmap_add keeps the first value of a key).
 */

struct loader {
	struct view *view;
	struct apiset *apiset;
	int apiset_borrowed; /* the store's (struct ldr_images): not freed with the loader */
	char *apiset_source;
	struct strlist known;
	const char *known_source;
	uint16_t machine;
	char *app_dir;
	char *cur_dir;
	struct strlist user_dirs;
	struct strlist user_whys;    /* loader_label_user_dirs: each folder's reason ("" none yet) */
	char *dll_directory;         /* loader_set_dll_directory (SetDllDirectoryW), or NULL */
	char *dll_directory_why;
	unsigned default_dirs;       /* loader_set_default_dll_directories (SetDefaultDllDirectories), or 0 */
	size_t path_prefix_n;        /* loader_label_path_prefix */
	const char *path_prefix_why;
	enum ldr_dll_load_dir_mode dld_mode;
	int (*delay_own_folder)(void *ctx, const char *name); /* loader_set_delay_own_folder, or NULL */
	void *delay_own_ctx;
	int no_system;
	struct ldr_module *mods;
	size_t nmods, amods;
	struct strmap mods_by_base, mods_by_path; /* name → index into mods[] (STRMAP_ICASE) */
	struct ldr_image **images;
	size_t nimages, aimages;
	struct strmap image_index; /* Windows path → index into images[] (STRMAP_ICASE) */
	struct ldr_images *shared; /* loader_open_shared: images[] are borrowed from it, or NULL (owned) */
	unsigned serial;           /* this loader's number in ldr_image.hot (1 when not shared) */
	struct ldr_image **hot; /* images touched since the last loader_trim */
	size_t nhot, ahot;
	char *host_error; /* the first file the host would not let us read */
	char *limit_error; /* an import chain deeper than LDR_MAX_DEPTH */
	size_t touched; /* pages export lookups may have touched since the last loader_trim (LDR_TRIM_PAGES) */
};

/* The search directories for `flags`, in order, with the step name of each. */
struct search_dir {
	char *dir;
	const char *step;
	char *why;        /* the probe's `why` (loader.h) */
	int minor;        /* the probe's `minor` */
	const char *skip; /* why this entry is not searched (NULL: searched) */
	const char *note; /* what to add to a "not found" probe */
};

/* loader_setup.c: the system folder of the process's machine (System32 or SysWOW64), and its probe `why`. */
const char *ldr_sysdir(const struct loader *ld);
const char *ldr_sysdir_why(const struct loader *ld);
/* The parsed image of a Windows path, opened once per loader (cached even when it fails). */
struct ldr_image *ldr_image_get(struct loader *ld, const char *win_path);
/* An image already got, marked in use again (the trim releases the pages of the images in use). */
struct ldr_image *ldr_image_touch(struct loader *ld, struct ldr_image *im);
/* A new trace node named `name`, appended to parent's kids (parent NULL: a root). */
struct ldr_node *ldr_node_new(const char *name, struct ldr_node *parent);
/* Records one probe of `n` at `path` by the fixed step `step`; the result is printf-formatted. */
void ldr_probe_add(struct ldr_node *n, const char *path, const char *step, const char *fmt, ...)
	ERR_PRINTF(4, 5);

/* loader_search.c: the search folders for `flags` in order (*out: ldr_free_dirs), their count. */
size_t ldr_search_dirs(struct loader *ld, unsigned flags, const char *dll_dir, int user_dirs_order,
		       struct search_dir **out);
void ldr_free_dirs(struct search_dir *v, size_t n);
/* Gives node's last probe the `why` and `minor` of the search folder d. */
void ldr_probe_label(struct ldr_node *node, const struct search_dir *d);

#endif
