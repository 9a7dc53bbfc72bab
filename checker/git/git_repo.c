/*
 * git_repo: libgit2 behind the small interface in git_repo.h.
 *
 * Pin files are found by walking the commit's tree (git_tree_walk, pre-order)
 * and read as blobs by path (git_tree_entry_bypath), which also serves the
 * includes pinset_load follows. Symlinks and submodules are not followed
 * (their targets are not in this tree); vendored environments, dependency
 * folders and test-data folders (corpus, fixtures, testdata: parser test
 * inputs are deliberately malformed pin files) are skipped, as is anything deeper than
 * GIT_REPO_MAX_DEPTH folders. Blob sizes are read from the objects' headers
 * before anything is inflated (git_objects.h), against the per-file cap and
 * what is left of the revision's PINS_MAX_BYTES.
 */
#include "git/git_repo.h"

#include "pins/pins_worktree.h"

#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "git/git_objects.h"
#include "util/os.h"
#include "util/strbuf.h"

struct git_repo {
	git_repository *repo;
	char *path;
};

static const char *lg_msg(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

int git_repo_open(struct git_repo **out, const char *path, struct err *err)
{
	git_repository *repo = NULL;
	struct git_repo *r;
	const char *wd;
	*out = NULL;
	if (git_libgit2_init() < 0)
		return err_set(err, "cannot initialise libgit2: %s", lg_msg());
	{
		int rc = git_repository_open_ext(&repo, path, 0, NULL);
		if (rc < 0) {
			/* Not found is the common case; anything else (e.g. libgit2's check that the
			 * repository belongs to the current user, in CI containers) says why. */
			if (strstr(lg_msg(), "safe.directory"))
				/* libgit2 1.5 reports git's ownership check as "not found" with this text */
				err_set(err, "the git repository at %s belongs to another user, so git's safe.directory "
					     "check refuses it; if you trust it: git config --global --add safe.directory "
					     "<its top folder>", path);
			else if (rc == GIT_ENOTFOUND)
				err_set(err, "not a git repository: %s (nor any of its parent folders)", path);
			else
				err_set(err, "cannot open the git repository at %s: %s", path, lg_msg());
			git_libgit2_shutdown();
			return -1;
		}
	}
	r = xcalloc(1, sizeof(*r));
	r->repo = repo;
	wd = git_repository_workdir(repo);
	r->path = xstrdup(wd ? wd : git_repository_path(repo));
	*out = r;
	return 0;
}

void git_repo_close(struct git_repo *r)
{
	if (!r)
		return;
	git_repository_free(r->repo);
	free(r->path);
	free(r);
	git_libgit2_shutdown();
}

const char *git_repo_path(const struct git_repo *r)
{
	return r->path;
}

static int looks_like_sha(const char *rev)
{
	size_t i, n = strlen(rev);
	if (n < 7 || n > 40)
		return 0;
	for (i = 0; i < n; i++)
		if (!((rev[i] >= '0' && rev[i] <= '9') || (rev[i] >= 'a' && rev[i] <= 'f')))
			return 0;
	return 1;
}

int git_repo_resolve(struct git_repo *r, const char *rev, char sha[41], struct err *err)
{
	git_object *obj = NULL, *commit = NULL;
	if (!rev[0] || rev[0] == '-')
		return err_set(err, "bad revision '%s'", rev);
	if (git_revparse_single(&obj, r->repo, rev) < 0) {
		if (looks_like_sha(rev))
			return err_set(err, "commit %s is not in the repository %s%s: fetch it (actions/checkout with "
					    "fetch-depth: 0, or git fetch origin %s)",
				       rev, r->path, git_repository_is_shallow(r->repo) == 1 ? ", a shallow clone" : "", rev);
		return err_set(err, "bad revision '%s': %s", rev, lg_msg());
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) < 0) {
		git_object_free(obj);
		return err_set(err, "revision '%s' is not a commit: %s", rev, lg_msg());
	}
	git_oid_tostr(sha, 41, git_object_id(commit));
	git_object_free(commit);
	git_object_free(obj);
	return 0;
}

static int tree_of(git_repository *repo, const char *sha, git_tree **out)
{
	git_oid oid;
	git_commit *c = NULL;
	int rc;
	if (git_oid_fromstr(&oid, sha) < 0 || git_commit_lookup(&c, repo, &oid) < 0)
		return -1;
	rc = git_commit_tree(out, c);
	git_commit_free(c);
	return rc;
}

static int add_delta(const git_diff_delta *d, float progress, void *payload)
{
	struct strlist *out = payload;
	(void)progress;
	if (d->old_file.path)
		strlist_push(out, d->old_file.path);
	if (d->new_file.path && (!d->old_file.path || strcmp(d->old_file.path, d->new_file.path)))
		strlist_push(out, d->new_file.path);
	return 0;
}

int git_repo_changed_paths(struct git_repo *r, const char *base_sha, const char *head_sha, struct strlist *out,
			   struct err *err)
{
	git_tree *a = NULL, *b = NULL;
	git_diff *diff = NULL;
	int rc = -1;
	if (tree_of(r->repo, base_sha, &a) < 0 || tree_of(r->repo, head_sha, &b) < 0)
		err_set(err, "cannot read the trees of %.12s and %.12s: %s", base_sha, head_sha, lg_msg());
	else if (git_diff_tree_to_tree(&diff, r->repo, a, b, NULL) < 0)
		err_set(err, "cannot compare %.12s with %.12s: %s", base_sha, head_sha, lg_msg());
	else if (git_diff_foreach(diff, add_delta, NULL, NULL, NULL, out) < 0)
		err_set(err, "cannot list what changed between %.12s and %.12s: %s", base_sha, head_sha, lg_msg());
	else
		rc = 0;
	git_diff_free(diff);
	git_tree_free(a);
	git_tree_free(b);
	return rc;
}

void git_repo_subject(struct git_repo *r, const char *sha, struct strbuf *out)
{
	git_oid oid;
	git_commit *c = NULL;
	strbuf_reset(out);
	if (git_oid_fromstr(&oid, sha) < 0 || git_commit_lookup(&c, r->repo, &oid) < 0)
		return;
	if (git_commit_summary(c))
		strbuf_adds(out, git_commit_summary(c));
	git_commit_free(c);
}

struct walk {
	struct strlist found;
	int too_many;
};

static int skip_dir(const char *name)
{
	return pins_skip_dir(name); /* the working tree's walk skips the same folders */
}

static int walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct walk *w = payload;
	const char *name = git_tree_entry_name(entry);
	git_filemode_t mode = git_tree_entry_filemode(entry);
	size_t depth = 0;
	const char *p;
	char *path;

	for (p = root; *p; p++)
		depth += *p == '/';
	if (git_tree_entry_type(entry) == GIT_OBJECT_TREE)
		return (skip_dir(name) || depth >= GIT_REPO_MAX_DEPTH) ? 1 : 0;
	if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
		return 0;
	path = xasprintf("%s%s", root, name);
	if (req_kind_of_path(path) == REQ_NONE) {
		free(path);
		return 0;
	}
	if (w->found.n >= PINS_MAX_FILES) {
		free(path);
		w->too_many = 1;
		return -1;
	}
	strlist_push_owned(&w->found, path);
	return 0;
}

/*
 * Partial clones (actions/checkout's `filter: blob:none`) lack blobs by
 * design: git fetches each from the "promisor" remote when it needs it.
 * libgit2 cannot, so the git program is asked to, the way git itself does
 * it (promisor-remote.c: `git -c fetch.negotiationAlgorithm=noop fetch
 * REMOTE --no-tags --no-write-fetch-head --recurse-submodules=no
 * --filter=blob:none OID...`), for all the blobs a revision's pin files
 * need at once; the new pack is then seen by refreshing the object
 * database. The promisor remote: extensions.partialclone, or the first
 * remote with promisor = true (git's gitrepository-layout(5),
 * partial-clone.txt).
 */
static int promisor_remote(git_repository *repo, struct strbuf *out)
{
	git_config *cfg = NULL;
	git_buf b = { 0 };
	git_strarray remotes = { 0 };
	int found = 0;
	strbuf_reset(out);
	if (git_repository_config_snapshot(&cfg, repo) < 0)
		return 0;
	if (git_config_get_string_buf(&b, cfg, "extensions.partialclone") == 0 && b.ptr && b.ptr[0]) {
		strbuf_adds(out, b.ptr);
		found = 1;
	} else if (git_remote_list(&remotes, repo) == 0) {
		for (size_t i = 0; i < remotes.count && !found; i++) {
			int v = 0;
			char *key = xasprintf("remote.%s.promisor", remotes.strings[i]);
			if (git_config_get_bool(&v, cfg, key) == 0 && v) {
				strbuf_adds(out, remotes.strings[i]);
				found = 1;
			}
			free(key);
		}
		git_strarray_dispose(&remotes);
	}
	git_buf_dispose(&b);
	git_config_free(cfg);
	return found;
}

/* Fetches the n missing objects ids from the promisor remote with git; -1 with err saying why not. */
static int fetch_promised(struct git_repo *r, const git_oid *ids, size_t n, struct err *err)
{
	struct strbuf remote = STRBUF_INIT, errout = STRBUF_INIT;
	const char **argv;
	char (*hex)[GIT_OID_HEXSZ + 1];
	long long code = -1;
	size_t k = 0, i;
	int rc = -1, sp;
	git_odb *odb = NULL;
	if (!promisor_remote(r->repo, &remote))
		return err_set(err, "it is not in the repository, which is not a partial clone either (a damaged or "
				    "incomplete clone): fetch again");
	argv = xcalloc(n + 16, sizeof(*argv));
	hex = xcalloc(n, sizeof(*hex));
	argv[k++] = "git";
	argv[k++] = "--git-dir";
	argv[k++] = git_repository_path(r->repo);
	argv[k++] = "-c";
	argv[k++] = "fetch.negotiationAlgorithm=noop";
	argv[k++] = "fetch";
	argv[k++] = "--quiet";
	argv[k++] = remote.buf;
	argv[k++] = "--no-tags";
	argv[k++] = "--no-write-fetch-head";
	argv[k++] = "--recurse-submodules=no";
	argv[k++] = "--filter=blob:none";
	for (i = 0; i < n; i++) {
		git_oid_tostr(hex[i], sizeof(hex[i]), &ids[i]);
		argv[k++] = hex[i];
	}
	sp = os_spawn(argv, NULL, 300000, NULL, &errout, &code, err);
	if (sp < 0) {
		err_prefix(err, "this is a partial clone (filter: blob:none) and the git program, which fetches its "
				"missing blobs from the remote %s, cannot run: ", remote.buf);
	} else if (sp > 0 || code != 0) {
		/* git's first fatal: or error: line says why (no network, the remote gone, no access) */
		char *why, *e;
		strbuf_addch(&errout, '\0'); /* buf is never NULL from here */
		why = strstr(errout.buf, "fatal: ");
		if (!why)
			why = strstr(errout.buf, "error: ");
		why = why ? why : errout.buf;
		if ((e = strchr(why, '\n')))
			*e = '\0';
		err_set(err, "this is a partial clone (filter: blob:none) and git could not fetch the missing blobs from "
			     "its remote %s (%.300s): check out without a filter, or with network access to %s",
			remote.buf, sp > 0 ? "timed out" : why[0] ? why : "no reason given", remote.buf);
	} else if (git_repository_odb(&odb, r->repo) < 0 || git_odb_refresh(odb) < 0) {
		err_set(err, "cannot reread the object database after fetching: %s", lg_msg());
	} else {
		rc = 0;
	}
	git_odb_free(odb);
	free(argv);
	free(hex);
	strbuf_release(&remote);
	strbuf_release(&errout);
	return rc;
}

struct reader {
	struct git_repo *r;
	git_tree *tree;
	const char *sha;
	uint64_t left; /* bytes of pin files this revision may still hold (PINS_MAX_BYTES) */
};

/* The blobs of the pin files found that this (partial) clone lacks, fetched with one git run. */
static int prefetch(struct reader *rd, const struct strlist *paths, struct err *err)
{
	git_oid *ids = NULL;
	git_odb *odb = NULL;
	size_t n = 0, alloc = 0, i, first = 0;
	int rc = 0;
	if (git_repository_odb(&odb, rd->r->repo) < 0)
		return 0; /* read_blob says why */
	for (i = 0; i < paths->n; i++) {
		git_tree_entry *e = NULL;
		if (git_tree_entry_bypath(&e, rd->tree, paths->v[i]) < 0)
			continue;
		/* presence only (a stat or an index lookup): the same blob at 1,000 paths is not read here */
		if (!git_odb_exists(odb, git_tree_entry_id(e))) {
			ALLOC_GROW(ids, n + 1, alloc);
			if (!n)
				first = i;
			git_oid_cpy(&ids[n++], git_tree_entry_id(e));
		}
		git_tree_entry_free(e);
	}
	if (n) {
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), &ids[0]);
		rc = fetch_promised(rd->r, ids, n, err);
		if (rc < 0)
			err_prefix(err, "%s: cannot read the blob %.12s: ", paths->v[first], hex);
	}
	git_odb_free(odb);
	free(ids);
	return rc;
}

static int read_blob(void *ctx, const char *path, struct strbuf *out, struct err *err)
{
	struct reader *rd = ctx;
	git_tree_entry *entry = NULL;
	uint64_t size = 0, max;
	int rc;

	if (git_tree_entry_bypath(&entry, rd->tree, path) < 0)
		return 1;
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
	    (git_tree_entry_filemode(entry) != GIT_FILEMODE_BLOB &&
	     git_tree_entry_filemode(entry) != GIT_FILEMODE_BLOB_EXECUTABLE)) {
		git_tree_entry_free(entry);
		return 1; /* a folder, symlink or submodule: not a file of this tree */
	}
	/* The size comes from the object's header, before anything is inflated. */
	max = rd->left < REQ_MAX_FILE_SIZE ? rd->left : REQ_MAX_FILE_SIZE;
	rc = objects_read_blob(rd->r->repo, git_tree_entry_id(entry), max, out, &size, err);
	if (rc == OBJECTS_TOO_BIG && size > REQ_MAX_FILE_SIZE)
		rc = err_set(err, "%s: larger than %u bytes; refusing to parse it", path, REQ_MAX_FILE_SIZE);
	else if (rc == OBJECTS_TOO_BIG)
		rc = err_set(err, "%s: the pin files of this revision pass %u MiB together; refusing to read more",
			     path, PINS_MAX_BYTES >> 20);
	else if (rc == OBJECTS_MISSING) {
		/* not fetched up front (an included file): ask the promisor remote for this one */
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), git_tree_entry_id(entry));
		if (fetch_promised(rd->r, git_tree_entry_id(entry), 1, err) < 0)
			rc = err_prefix(err, "%s: cannot read the blob %.12s: ", path, hex);
		else if ((rc = objects_read_blob(rd->r->repo, git_tree_entry_id(entry), max, out, &size, err)) ==
			 OBJECTS_OK)
			rd->left -= out->len;
		else if (rc == OBJECTS_MISSING)
			rc = err_set(err, "%s: cannot read the blob %.12s: git fetched it, yet it is still missing", path,
				     hex);
		else if (rc == OBJECTS_TOO_BIG)
			rc = err_set(err, "%s: larger than the %llu bytes left to read; refusing to parse it", path,
				     (unsigned long long)max);
		else
			rc = err_prefix(err, "%s: ", path);
	}
	else if (rc < 0)
		rc = err_prefix(err, "%s: ", path);
	else
		rd->left -= out->len;
	git_tree_entry_free(entry);
	return rc;
}

int git_repo_pins(struct git_repo *r, const char *sha, struct pinset *ps, struct err *err)
{
	git_oid oid;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	struct walk w;
	struct reader rd;
	int rc;

	if (git_oid_fromstr(&oid, sha) < 0 || git_commit_lookup(&commit, r->repo, &oid) < 0)
		/* a pull request's shas from the event: actions/checkout's default
		 * fetch-depth 1 has neither the base nor the head, only the merge */
		return err_set(err, "commit %s is not in the repository %s%s: fetch it (actions/checkout with "
				    "fetch-depth: 0, or git fetch origin %s)",
			       sha, r->path, git_repository_is_shallow(r->repo) == 1 ? ", a shallow clone" : "", sha);
	if (git_commit_tree(&tree, commit) < 0) {
		git_commit_free(commit);
		return err_set(err, "cannot read the tree of %s: %s", sha, lg_msg());
	}
	memset(&w, 0, sizeof(w));
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w) < 0 && !w.too_many) {
		rc = err_set(err, "cannot walk the tree of %s: %s", sha, lg_msg());
		goto out;
	}
	if (w.too_many) {
		rc = err_set(err, "more than %d pin files in %s; refusing to read them all", PINS_MAX_FILES, sha);
		goto out;
	}
	rd.r = r;
	rd.tree = tree;
	rd.sha = sha;
	rd.left = PINS_MAX_BYTES;
	rc = prefetch(&rd, &w.found, err);
	if (rc == 0)
		rc = pinset_load(ps, &w.found, read_blob, &rd, err);
out:
	strlist_release(&w.found);
	git_tree_free(tree);
	git_commit_free(commit);
	return rc;
}
