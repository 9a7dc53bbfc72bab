/*
 * copy_exports: whether another distribution's copy of a DLL torch imports
 * exports everything torch's binaries import from it.
 *
 * A DLL already in the process is used by name before any search
 * (docs/loader.md §8.5): if a package imported before torch loaded its own
 * msvcp140.dll, asmjit.dll or libiomp5md.dll, torch's binaries bind to that
 * copy, and a name (or ordinal) they import that the copy does not export
 * fails the load with WinError 127 before any DllMain runs — whatever the
 * copy's version says. The version alone is judged elsewhere (the matrix
 * row's min_version, extensions.c); this module reads the export directory.
 *
 * copy_exports_check() opens each torch binary once (PE headers and the
 * import directory only, mapped: pe/pe.h) and each copy once (its export
 * directory: binary search of the name table, as the loader binds), and for
 * every static import of a torch binary whose DLL name is a copy's base name
 * (case-insensitive) looks the name up by hint and binary search, or the
 * ordinal in the address table. Delay-load imports are not counted: a
 * missing one fails when it is called, not at load. Binaries are visited in
 * torch's load order, so the first gap is the one the first failing load
 * meets.
 *
 * Nothing here prints; a copy that is not a readable PE gets its reason.
 */
#ifndef TDC_COPY_EXPORTS_H
#define TDC_COPY_EXPORTS_H

#include <stddef.h>

#include "loader/torchload.h"
#include "machine/view.h"

#define COPY_EXPORTS_MAX_LISTED 20 /* missing names kept per copy; the count is exact */

struct copy_gap {
	/* in */
	const char *name;      /* the copy's base name, "msvcp140.dll" */
	const char *win_path;  /* its Windows path */
	const char *host;      /* its host path when known, else NULL (the view resolves win_path) */
	/* out */
	size_t nmissing;       /* (torch binary, name) pairs the copy lacks */
	size_t nimported;      /* (torch binary, name) pairs torch's binaries import from it */
	char *symbol;          /* the first missing name, "#N" for an ordinal, or NULL */
	char *importer;        /* the torch binary importing it (Windows path), or NULL */
	struct strlist missing; /* "c10.dll: NAME", at most COPY_EXPORTS_MAX_LISTED, in load order */
	char *error;           /* the copy could not be read: why (nothing else is set) */
};

/* Fills each gaps[i]'s out fields. Torch binaries that cannot be read are skipped (the loader says why). */
void copy_exports_check(struct view *v, const struct torch_run *run, struct copy_gap *gaps, size_t n);
void copy_gap_release(struct copy_gap *g);

#endif
