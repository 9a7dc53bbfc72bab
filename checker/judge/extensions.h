/*
 * extensions: torch's environment judged — the extensions that load torch
 * and the packages a program imports before it.
 *
 * One `struct ext_check` goes with one torch install's run:
 *
 *   1. before torch (torch_inputs.before_torch = ext_check_before_torch):
 *      the site-packages' distributions are read (machine/dist.h) and each
 *      package named by --import-first is imported on torch's process
 *      (loader/extload.h), so its DLLs are in the loaded-module list when
 *      torch asks for them;
 *   2. after torch (ext_check_after_torch): every other distribution one of
 *      whose binaries imports one of torch's own DLLs (c10, torch_cpu,
 *      torch_python, ...) is an extension, imported on the same process the
 *      way its package does it; and every copy of a DLL torch needs that
 *      another distribution ships is listed with its file version;
 *   3. ext_check_findings(): a 127 on a symbol of torch's DLLs is a
 *      mismatch, said with the torch the extension was built for (METADATA
 *      Requires-Dist torch==X, else the measured pairing table) and a fix
 *      naming the pair; other failures are load failures of the extension; a
 *      METADATA pin on another torch where everything loads is a warning;
 *      a copy that lacks a name or ordinal torch's binaries import from it
 *      (judge/copy_exports.h: WinError 127 before any DllMain), or else is
 *      older than the matrix row's minimum, is a warning ("if PyQt5 is
 *      imported before torch ..."), unless that package was imported first:
 *      then the loader's own verdict on torch's binaries says it.
 *
 * Nothing here prints; the report (report/result_ext.h) renders the runs.
 */
#ifndef TDC_EXTENSIONS_H
#define TDC_EXTENSIONS_H

#include <stddef.h>

#include "judge/copy_exports.h"
#include "judge/finding.h"
#include "loader/extload.h"
#include "loader/torchload.h"
#include "machine/dist.h"
#include "matrix/matrix.h"
#include "machine/view.h"
#include "util/strbuf.h"

#define EXT_MAX_EXTENSIONS 500 /* extensions checked per install; more is said */

/* A copy of a DLL torch needs, shipped by another distribution. */
struct ext_copy {
	char *name;          /* "msvcp140.dll" as the file is named */
	char *path;          /* Windows path */
	char *dist, *dist_version;
	char *file_version;  /* "14.26.28720.3", or NULL (no version resource) */
	int first;           /* its distribution was imported before torch and loaded this copy */
	char *host;          /* its host path, or NULL (the view resolves path) */
	struct copy_gap gap; /* what torch's binaries import from it that it does not export (copy_exports.h) */
};

struct ext_site {
	char *dir;
	struct dist_set set;
	int ok;                        /* the folder was listed */
};

struct ext_check {
	struct strlist import_first;   /* the names asked for (--import-first), in order */
	struct strlist missing_first;  /* those no distribution of the site-packages has */
	char *first_error;             /* why the first of them could not be imported (the whole message), or NULL */
	char *site_packages;           /* torch's */
	struct dist_set dists;
	int have_dists;
	char *dists_error;             /* the site-packages could not be listed */
	struct ext_run **first;        /* imported before torch, in --import-first order */
	size_t nfirst, afirst;
	struct ext_run **exts;         /* the extensions, in listing order */
	size_t nexts, aexts;
	size_t ext_over;               /* extensions beyond EXT_MAX_EXTENSIONS, not checked */
	struct ext_copy *copies;
	size_t ncopies, acopies;
	struct strlist torch_dlls;     /* torch's own DLL names */
	const struct matrix *matrix;   /* its extension_load table: each package's procedure (borrowed; may be NULL) */
	char *orig_path;               /* the view's PATH before a package changed it */
	int path_changed;
	/* sys.path's folders in order (machine/pypath.h), or NULL: torch's site-packages alone. A package is
	   taken from the first folder that has its distribution; the same name later on is shadowed. */
	const struct strlist *sys_path;
	struct ext_site *sites;        /* those folders' distributions (torch's is `dists`), read when first needed */
	size_t nsites;
	int sites_read;
};

void ext_check_init(struct ext_check *c, const struct strlist *import_first, const struct matrix *m);
void ext_check_release(struct ext_check *c, struct view *v); /* restores the view's PATH */
void ext_check_restore_path(struct ext_check *c, struct view *v); /* the view's PATH as before the packages changed it */

/* The torch_inputs.before_torch hook; ctx is the struct ext_check. */
void ext_check_before_torch(void *ctx, struct torch_run *run, struct view *v);

/* Step 2 on the process torch_run left. */
void ext_check_after_torch(struct ext_check *c, struct torch_run *run, struct view *v);

/*
 * Step 3. `torch_version` is the install's ("2.9.1+cpu", may be NULL);
 * `row` its matrix row (may be NULL: copies are then listed, not judged).
 */
void ext_check_findings(struct ext_check *c, struct findings *out, const struct torch_run *run,
			const char *torch_version, const struct matrix_row *row);

#endif
