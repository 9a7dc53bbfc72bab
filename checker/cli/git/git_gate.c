/*
 * git_gate: `check --pins` as torch-dll-check-git runs it. The main program
 * hands the whole command over (cmd_check.c); this file only supplies the
 * reader of pins that needs libgit2 (gate.h's gate_read_fn): the head's
 * pins, and for a pull request the base's, what changed, and whether a pin
 * file or a --matrix file is among the changed paths. Revisions follow the
 * `pins` command: --rev, --base/--head, --github-event, and in a
 * pull_request job the event payload by default; --worktree makes the
 * working tree's pin files the head, as `pins --worktree` does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "judge/gate.h"
#include "git/git_repo.h"
#include "pins/github_event.h"
#include "pins/pins_worktree.h"
#include "util/os.h"

static int load(struct git_repo *repo, const char *rev, char sha[41], struct strbuf *subject, struct pinset *ps,
		const char *label, struct err *err)
{
	if (sha[0] == '\0' && git_repo_resolve(repo, rev, sha, err) < 0)
		return err_prefix(err, "the %s: ", label);
	git_repo_subject(repo, sha, subject);
	if (git_repo_pins(repo, sha, ps, err) < 0)
		return err_prefix(err, "at %s %.12s: ", label, sha);
	return 0;
}

/*
 * The head as the working tree (--worktree): its pin files on disk,
 * uncommitted edits included. The working tree has no commit to diff
 * against a base, so with a base its pins are judged whatever changed.
 */
static int load_worktree(struct git_repo *repo, struct gate_pins *g, struct err *err)
{
	snprintf(g->head_sha, sizeof(g->head_sha), "worktree");
	strbuf_reset(&g->head_subject);
	strbuf_adds(&g->head_subject, "the working tree, uncommitted edits included");
	if (pinset_load_worktree(&g->head, git_repo_path(repo), err) < 0)
		return err_prefix(err, "in the working tree: ");
	g->pins_touched = 1;
	return 0;
}

/* `path` relative to `dir` ('/'-separated), or NULL when it is not inside. Both absolute host paths. */
static char *inside(const char *dir, const char *path)
{
	char *d = xstrdup(dir), *p = xstrdup(path), *q, *rel = NULL;
	size_t n;
	int fold = os_sep() == '\\';
	for (q = d; *q; q++)
		if (*q == '\\')
			*q = '/';
	for (q = p; *q; q++)
		if (*q == '\\')
			*q = '/';
	n = strlen(d);
	while (n && d[n - 1] == '/')
		d[--n] = '\0';
	if (n && (fold ? !str_nicmp(p, d, n) : !strncmp(p, d, n)) && p[n] == '/')
		rel = xstrdup(p + n + 1);
	free(d);
	free(p);
	return rel;
}

/* The --matrix files inside the repository, repository-relative. */
static void matrix_paths(const char *repo_dir, const struct strlist *matrices, struct strlist *out)
{
	char *top = os_abspath(repo_dir);
	size_t i;
	for (i = 0; top && matrices && i < matrices->n; i++) {
		char *abs = os_abspath(matrices->v[i]), *rel = abs ? inside(top, abs) : NULL;
		if (rel)
			strlist_push_owned(out, rel);
		free(abs);
	}
	free(top);
}

static int git_gate_read(struct gate_pins *g, const struct gate_source *src, struct err *err)
{
	struct git_repo *repo = NULL;
	struct strlist changed = STRLIST_INIT, mpaths = STRLIST_INIT;
	struct pin_revs revs;
	size_t i;
	int rc = -1;
	if (github_event_pin_revs(&src->at, &revs, err) < 0)
		return -1;
	g->head_rev = xstrdup(revs.head_rev);
	g->base_rev = revs.base_rev ? xstrdup(revs.base_rev) : NULL;
	memcpy(g->head_sha, revs.head_sha, sizeof(g->head_sha));
	memcpy(g->base_sha, revs.base_sha, sizeof(g->base_sha));
	g->has_base = g->base_rev != NULL;
	if (git_repo_open(&repo, src->at.repo ? src->at.repo : ".", err) < 0)
		return -1;
	g->repo = xstrdup(git_repo_path(repo));
	if (src->worktree ? load_worktree(repo, g, err) < 0
			  : load(repo, g->head_rev, g->head_sha, &g->head_subject, &g->head, "head", err) < 0)
		goto out;
	if (g->has_base) {
		if (load(repo, g->base_rev, g->base_sha, &g->base_subject, &g->base, "base", err) < 0 ||
		    (!src->worktree && git_repo_changed_paths(repo, g->base_sha, g->head_sha, &changed, err) < 0))
			goto out;
		pinset_diff(&g->base, &g->head, 1, &g->changes);
		matrix_paths(git_repo_path(repo), src->matrices, &mpaths);
		for (i = 0; i < changed.n; i++)
			gate_pins_touch(g, changed.v[i], &mpaths);
	}
	rc = 0;
out:
	strlist_release(&changed);
	strlist_release(&mpaths);
	git_repo_close(repo);
	return rc;
}

int cmd_git_check(int argc, char **argv)
{
	return cmd_check_with(argc, argv, git_gate_read);
}
