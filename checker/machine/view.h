/*
 * view: the Windows machine being checked.
 *
 * Everything that asks "what is on that machine?" asks a view: file lookup
 * (case-insensitive, as NTFS is), directory listing (in NTFS order), the
 * environment (PATH, CUDA_PATH_V*, NVTOOLSEXT_PATH, ...), the registry, and
 * where Windows lives. Two backends:
 *   - offline: a host directory stands for C:\ (`--root DIR`), so Linux CI
 *     checks a Windows tree; a Wine prefix's drive_c is one such tree. Its
 *     environment comes from --env NAME=VALUE options (nothing is inherited
 *     from the host), its registry from --registry FILE or, for a Wine
 *     prefix, the prefix's system.reg.
 *   - live: the Windows machine the program runs on (through os.h).
 *
 * Paths given to and returned by a view are Windows paths ("C:\\Python311\\
 * python.exe"), normalised to backslashes; the view maps them to host paths.
 * Lookups are cached per directory, so probing the same folder for many DLL
 * names costs one listing.
 */
#ifndef TDC_VIEW_H
#define TDC_VIEW_H

#include <stdint.h>

#include "util/err.h"
#include "machine/winpath.h"
#include "util/strbuf.h"

struct view;
struct registry; /* registry.h: an offline registry (reg export or Wine system.reg) */

/* An offline tree: `root_dir` (host path) stands for C:\. */
int view_open_root(struct view **out, const char *root_dir, struct err *err);

/* The live machine (Windows only; elsewhere an error that suggests --root). */
int view_open_live(struct view **out, struct err *err);

void view_free(struct view *v);

int view_is_live(const struct view *v);

/*
 * The first folder of the tree the host would not let us list (offline), as
 * "cannot list PATH: reason", or NULL. Its contents are unknown, not absent:
 * callers report the run as an input error instead of a verdict.
 */
const char *view_host_error(const struct view *v);

/* The host directory standing for C:\ (offline), or NULL (live). */
const char *view_root(const struct view *v);

/*
 * Windows path → host path (caller frees). Resolves every component
 * case-insensitively against what exists, so "C:\\windows\\SYSTEM32\\
 * VCRUNTIME140.dll" finds root/Windows/System32/vcruntime140.dll. For a path
 * whose last components do not exist, the existing prefix is resolved and the
 * rest appended as given. NULL for paths outside the view (another drive, UNC).
 */
char *view_host_path(struct view *v, const char *winpath);

/*
 * The Windows path with the letter case of what exists (caller frees):
 * "c:\\python311\\LIB" → "C:\\Python311\\Lib"; components that do not
 * exist are kept as given. A link in the path stays a name (its target is not
 * substituted), as Windows paths through links are.
 */
char *view_win_case(struct view *v, const char *winpath);

/* Host path → Windows path (caller frees), NULL if outside the root. */
char *view_win_path(struct view *v, const char *hostpath);

/*
 * Looks for file `name` in Windows directory `win_dir`, case-insensitively.
 * Returns 1 and the Windows path as it exists (real letter case) in
 * *win_out (caller frees) when a regular file is there, 0 when not.
 */
int view_find_file(struct view *v, const char *win_dir, const char *name, char **win_out);

/* Whether `win_dir` holds a folder called `name` (case-insensitively): what a DLL search that expects a file meets. */
int view_has_dir_entry(struct view *v, const char *win_dir, const char *name);

/*
 * --root is a boundary (offline views): a symbolic link (or junction) in the
 * tree is followed only when it leads to a place inside the root; one that
 * leads out is neither file nor folder to every lookup above, nothing behind
 * it is read, and it is recorded. view_outside_link tells whether `name` in
 * `win_dir` is such a link (1, and its resolved host target in *target,
 * borrowed) or not (0). view_outside_links returns how many were met so far
 * and, for i below that, the i-th one's Windows path and target (borrowed).
 */
int view_outside_link(struct view *v, const char *win_dir, const char *name, const char **target);
/*
 * Whether a Windows path is itself a symbolic link or junction (inside the
 * root or not), without following it: tree walks skip these (no loops), and
 * asking does not record a link out of the root as one not followed.
 */
int view_is_link(struct view *v, const char *winpath);
size_t view_outside_links(const struct view *v, size_t i, const char **win, const char **target);

/* Whether a Windows path is an existing directory / file. */
/*
 * A read-only folder of files that are not under the root (a onefile
 * app's binaries inside its executable: machine/frozen.h), at `win_dir` (a
 * folder on C: that does not exist): names[i] are the files' paths below
 * it ('\\' or '/'), their folders made from them. A file's host path is
 * asked of open(ctx, i) the first time a reader needs it and kept; NULL
 * when it cannot be made (the view's host error then says why). One mount
 * per offline view, before any lookup under win_dir. 0, or -1 with err (a
 * name given twice, or as a file and a folder).
 */
int view_mount(struct view *v, const char *win_dir, const char *const *names, size_t n,
	       char *(*open)(void *ctx, size_t i, struct err *err), void *ctx, struct err *err);

int view_is_dir(struct view *v, const char *winpath);
int view_is_file(struct view *v, const char *winpath);

/*
 * A small text file of the machine (pyvenv.cfg, version.py, a package's
 * .py): its bytes into `out` when it is a regular file of at most `max`
 * bytes. Returns -1 when it is not there, not a file, or too large.
 */
int view_read_small(struct view *v, const char *winpath, size_t max, struct strbuf *out);

/*
 * The names in a Windows directory in NTFS enumeration order: compared
 * after upcasing, code unit by code unit (ASCII letters here; other
 * characters by their UTF-16 code units), which is what FindFirstFileW
 * returns on NTFS and what torch's glob() sees.
 */
int view_list_dir(struct view *v, const char *win_dir, struct strlist *names, struct err *err);

/* Environment of the machine (offline: only what was set). NULL if unset. */
const char *view_getenv(struct view *v, const char *name);
void view_setenv(struct view *v, const char *name, const char *value);

/*
 * A machine profile's System32 (docs/profiles.md): the DLL names in `names`
 * are not in C:\\Windows\\System32 for every lookup and listing after this
 * call, whatever the tree holds (NULL: none hidden, the tree as it is). The
 * loader runs unchanged on the machine that is left.
 */
void view_hide_system32(struct view *v, const struct strlist *names);

/* "C:\\Windows", "C:\\Windows\\System32", "C:\\Windows\\SysWOW64". */
const char *view_windows_dir(const struct view *v);
const char *view_system32(const struct view *v);
const char *view_syswow64(const struct view *v);

/*
 * The registry: offline views read the registry attached with
 * view_attach_registry, or else the one found under the root when first
 * asked: <root>/../system.reg for a Wine prefix's drive_c, else the hives
 * <root>/Windows/System32/config/SOFTWARE and SYSTEM of a Windows disk;
 * live views read HKLM through os.h. `regview` is 64 or 32. Returns 0 found,
 * 1 absent, -1 error.
 */
void view_attach_registry(struct view *v, struct registry *reg); /* the view takes ownership */

/* Narrows a new registry to the subtrees a check reads (registry_keep), before loading it. */
void view_registry_scope(struct registry *reg);
int view_reg_get(struct view *v, const char *subkey, const char *value, int regview, struct strbuf *out,
		 struct err *err);
int view_reg_subkeys(struct view *v, const char *subkey, int regview, struct strlist *out, struct err *err);
/* A value's stored type and raw bytes (registry.h's registry_get_raw; offline registries only: the
 * live view returns -1 "not supported"). 0 found, 1 absent. */
int view_reg_get_raw(struct view *v, const char *subkey, const char *value, int regview, unsigned *type,
		     const unsigned char **data, size_t *len, struct err *err);
/* Value names of a key (offline registries only; the live view returns -1 "not supported"). */
int view_reg_values(struct view *v, const char *subkey, int regview, struct strlist *out, struct err *err);
/* A description of where registry answers come from ("system.reg at ...", "live", "none"). */
const char *view_registry_source(const struct view *v);

/* view_setenv from "NAME=VALUE" (the --env option); -1 if there is no '=' or no name. */
int view_setenv_assignment(struct view *v, const char *assignment);

/* Whether registry answers are available (live, attached or found next to a Wine drive_c). */
int view_has_registry(const struct view *v);

#endif
