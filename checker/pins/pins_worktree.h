/*
 * pins_worktree: the pin files of a folder on disk — a repository's working
 * tree with its uncommitted edits — as a pinset, for `pins --worktree`, so a
 * developer can check an edit to `torch==...` before committing it.
 *
 * The walk mirrors the one over a commit's tree (git/git_repo.c): the same
 * file names (req_kind_of_path), the same folders skipped (pins_skip_dir:
 * .git, virtual environments, test data...), the same depth and file-count
 * limits; only regular files are read (a symbolic link, FIFO or device is
 * not, so a link cannot lead the walk out of the tree or into a loop), each
 * at most REQ_MAX_FILE_SIZE bytes. Paths are '/'-separated and relative to
 * the folder, as they are in a commit. Files git ignores are not known here:
 * the skipped folders are the usual places of ignored pin files.
 */
#ifndef TDC_PINS_WORKTREE_H
#define TDC_PINS_WORKTREE_H

#include "pins/pins.h"

/* Pin files are searched to this folder depth (the commit walk's). */
#define PINS_WORKTREE_MAX_DEPTH 24

/* Whether a folder of this name is skipped by every walk for pin files. */
int pins_skip_dir(const char *name);

/* Loads the pin files under `dir`; -1 with err as pinset_load's (the set must still be released). */
int pinset_load_worktree(struct pinset *ps, const char *dir, struct err *err);

#endif
