/*
 * conda_meta: which conda package put each file in a conda environment.
 *
 * conda records every package it links into an environment in
 * `<prefix>\conda-meta\<name>-<version>-<build>.json`: `name`, `version`,
 * `build`, `channel` (a URL ".../conda-forge/win-64", or a short name), and
 * the files it installed, relative to the prefix with '/' separators, in
 * `files` and in `paths_data.paths[]._path` (conda's
 * `conda/models/records.py`, PrefixRecord; `conda list` reads the same
 * files). This module maps each binary (.dll, .pyd, .exe) listed there to its
 * package, so a finding can say "libiomp5md.dll comes from conda package
 * llvm-openmp 19.1.3 (conda-forge)".
 *
 * Read as input JSON with cJSON (as pins/github_event.c reads GitHub's
 * event): bounded by CONDA_META_MAX_FILES records, CONDA_META_MAX_SIZE bytes
 * a record, CONDA_META_MAX_PATHS binaries over all, and cJSON's nesting
 * limit; a record that is too big, not JSON, or without a string name and
 * version is skipped and said in `notes`, never a crash; a path that is
 * absolute or climbs out with `..` is not taken.
 */
#ifndef TDC_CONDA_META_H
#define TDC_CONDA_META_H

#include <stddef.h>

#include "machine/view.h"
#include "util/err.h"
#include "util/strbuf.h"
#include "util/strmap.h"

#define CONDA_META_MAX_FILES 20000              /* records read in one conda-meta */
#define CONDA_META_MAX_SIZE (64u * 1024 * 1024) /* bytes of one record (pytorch's is tens of MB) */
#define CONDA_META_MAX_PATHS 1000000            /* binaries mapped, over all records */

struct conda_pkg {
	char *name, *version, *build; /* build "" when absent */
	char *channel;                /* "conda-forge", "pkgs/main", as recorded; "" when absent */
	char *record;                 /* the record's file name: "llvm-openmp-19.1.3-h57928b3_0.json" */
};

struct conda_meta {
	char *prefix;                 /* the environment (Windows path) */
	struct conda_pkg *pkgs;
	size_t n, alloc;
	struct strlist keys;          /* the binaries' paths, upper case, '\\', relative to prefix (owned) */
	struct strmap owner;          /* key -> index in pkgs */
	struct strlist notes;         /* records skipped and limits reached, one sentence each */
	size_t records;               /* *.json files read */
};

void conda_meta_init(struct conda_meta *cm);
void conda_meta_release(struct conda_meta *cm);

/*
 * Reads `<prefix>\conda-meta\*.json` of the view. 1: no conda-meta folder
 * (not a conda environment); 0: read (what could not be is in notes); -1
 * when the folder cannot be listed.
 */
int conda_meta_read(struct conda_meta *cm, struct view *v, const char *prefix, struct err *err);

/*
 * Reads one record's text into cm (the unit of conda_meta_read, and what
 * the fuzz target feeds): 0 taken, -1 skipped with the reason in err.
 */
int conda_meta_add_record(struct conda_meta *cm, const char *text, size_t len, const char *record, struct err *err);

/* The package that installed `winpath` (a file under cm->prefix), or NULL. */
const struct conda_pkg *conda_meta_owner(const struct conda_meta *cm, const char *winpath);

#endif
