/*
 * git_repo: a repository opened with libgit2, and the pin files of one of
 * its revisions read straight from the object database (no checkout, no
 * working tree needed: a bare clone or a shallow CI fetch works as long as
 * the commits are present).
 *
 * Only torch-dll-check-git links this module (see the Makefile): libgit2's
 * start-up cost stays out of the main program.
 */
#ifndef TDC_GIT_REPO_H
#define TDC_GIT_REPO_H

#include "util/err.h"
#include "pins/pins.h"

struct git_repo;

/* Pin files are searched to this folder depth; these folders are skipped. */
#define GIT_REPO_MAX_DEPTH 24

/* Opens the repository containing `path` (searching parent folders, like git). */
int git_repo_open(struct git_repo **out, const char *path, struct err *err);
void git_repo_close(struct git_repo *r);

/* The working tree folder, or the git folder of a bare repository. Borrowed. */
const char *git_repo_path(const struct git_repo *r);

/*
 * Resolves a revision (HEAD, a branch, origin/main, a full or short commit
 * id, v1.0^{commit}...) to a commit id (40 hex digits). -1 with a message
 * that says what to fetch when the commit is not in the repository (a
 * shallow clone: `fetch-depth: 0`, or `git fetch origin <sha>`).
 */
int git_repo_resolve(struct git_repo *r, const char *rev, char sha[41], struct err *err);

/*
 * The paths (repository-relative, '/'-separated) that differ between two
 * commits' trees, both sides of a rename included, appended to out. -1 on a
 * libgit2 error.
 */
int git_repo_changed_paths(struct git_repo *r, const char *base_sha, const char *head_sha, struct strlist *out,
			   struct err *err);

/* One-line summary of a commit ("Pin torch 2.4.0"), written to out (reset first). */
void git_repo_subject(struct git_repo *r, const char *sha, struct strbuf *out);

/*
 * Finds every pin file in the commit's tree (req_kind_of_path), parses them
 * and the files they include, into ps. -1 on the first error, prefixed with
 * nothing (the caller says which revision).
 */
int git_repo_pins(struct git_repo *r, const char *sha, struct pinset *ps, struct err *err);

#endif
