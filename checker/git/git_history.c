/*
 * git_history: audit snapshots as commits on refs/torch-dll-check/<runner>
 * (see git_history.h). Everything goes through libgit2's object database and
 * refdb; the ref is moved only by compare-and-swap.
 */
#include "git/git_history.h"

#include <git2.h>
#include <git2/sys/commit.h>
#include <stdlib.h>
#include <string.h>

#include "git/git_objects.h"
#include "util/os.h"

#define HISTORY_MAX_ATTEMPTS 200
#define HISTORY_MAX_BLOB (256u << 20)
#define RUNNER_MAX 256

struct history {
	git_repository *repo;
	char *path;
};

static const char *lg_msg(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

int history_open(struct history **out, const char *dir, struct err *err)
{
	git_repository *repo = NULL;
	struct history *h;
	const char *wd;
	*out = NULL;
	if (git_libgit2_init() < 0)
		return err_set(err, "cannot initialise libgit2: %s", lg_msg());
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0) {
		err_set(err, "cannot open the history repository %s: %s", dir, lg_msg());
		git_libgit2_shutdown();
		return -1;
	}
	h = xcalloc(1, sizeof(*h));
	h->repo = repo;
	wd = git_repository_workdir(repo);
	h->path = xstrdup(wd ? wd : git_repository_path(repo));
	*out = h;
	return 0;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	git_repository_free(h->repo);
	free(h->path);
	free(h);
	git_libgit2_shutdown();
}

const char *history_path(const struct history *h)
{
	return h->path;
}

static int name_byte_ok(unsigned char c, int first)
{
	if (c == '.' && first)
		return 0;
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
	       c == '-';
}

int history_ref_name(const char *runner, struct strbuf *ref, struct err *err)
{
	size_t n = runner ? strlen(runner) : 0;
	if (!n)
		return err_set(err, "no runner name: give --runner NAME (or set RUNNER_NAME)");
	if (n > RUNNER_MAX)
		return err_set(err, "runner name longer than %d bytes", RUNNER_MAX);
	strbuf_reset(ref);
	strbuf_adds(ref, HISTORY_REF_PREFIX);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)runner[i];
		/* ".." cannot appear in a ref name (git check-ref-format): the second '.' is encoded */
		if (name_byte_ok(c, i == 0) && !(c == '.' && i > 0 && runner[i - 1] == '.'))
			strbuf_addch(ref, c);
		else
			strbuf_addf(ref, "%%%02X", c);
	}
	/* ".lock" and a trailing '.' are not allowed at the end of a ref component. */
	if (ref->len >= 5 && !strcmp(ref->buf + ref->len - 5, ".lock")) {
		ref->len -= 5;
		ref->buf[ref->len] = '\0';
		strbuf_adds(ref, "%2Elock");
	} else if (ref->buf[ref->len - 1] == '.') {
		ref->buf[--ref->len] = '\0';
		strbuf_adds(ref, "%2E");
	}
	return 0;
}

static char *decode_runner(const char *enc)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = enc; *p; p++) {
		int hi, lo;
		if (*p == '%' && (hi = hex_digit(p[1])) >= 0 && (lo = hex_digit(p[2])) >= 0) {
			strbuf_addch(&sb, hi * 16 + lo);
			p += 2;
		} else {
			strbuf_addch(&sb, *p);
		}
	}
	return strbuf_detach(&sb);
}

/*
 * A snapshot history may be damaged (libgit2 1.5 loops forever on a
 * truncated loose object and overruns its buffer on one whose header
 * understates it): every object is checked against its own header before
 * libgit2 reads it, and its size against HISTORY_MAX_BLOB before anything
 * is inflated (git_objects.h).
 */
static int object_sane(git_repository *repo, const git_oid *id, struct err *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	uint64_t size;
	int rc = objects_check(repo, id, HISTORY_MAX_BLOB, &size, err);
	git_oid_tostr(hex, sizeof(hex), id);
	if (rc == OBJECTS_TOO_BIG)
		return err_set(err, "object %.12s is larger than %u MiB", hex, HISTORY_MAX_BLOB >> 20);
	if (rc == OBJECTS_MISSING)
		return err_set(err, "object %.12s is not in the repository", hex);
	return rc;
}

/* Reads PATH from a commit's tree into out; -1 with err saying why not. */
static int read_tree_file(git_repository *repo, const git_commit *c, const char *path, struct strbuf *out,
			  struct err *err)
{
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	int rc = -1;
	if (object_sane(repo, git_commit_tree_id(c), err) < 0)
		goto out;
	if (git_commit_tree(&tree, c) < 0) {
		err_set(err, "cannot read its tree: %s", lg_msg());
		goto out;
	}
	if (git_tree_entry_bypath(&entry, tree, path) < 0) {
		err_set(err, "it has no %s (not a torch-dll-check snapshot)", path);
		goto out;
	}
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB) {
		err_set(err, "its %s is not a file", path);
		goto out;
	}
	{
		uint64_t size;
		int r = objects_read_blob(repo, git_tree_entry_id(entry), HISTORY_MAX_BLOB, out, &size, err);
		if (r == OBJECTS_TOO_BIG)
			err_set(err, "its %s is larger than %u MiB", path, HISTORY_MAX_BLOB >> 20);
		else if (r == OBJECTS_MISSING)
			err_set(err, "its %s is not in the repository (not fetched?)", path);
		else if (r < 0)
			err_prefix(err, "its %s: ", path);
		if (r != OBJECTS_OK)
			goto out;
	}
	rc = 0;
out:
	git_tree_entry_free(entry);
	git_tree_free(tree);
	return rc;
}

/*
 * The ref's current tip. 0: *has_tip says whether the ref exists. -1: the ref
 * cannot be a snapshot chain (symbolic, or not a commit): leave it alone.
 */
static int read_tip(git_repository *repo, const char *refname, git_oid *tip, int *has_tip, struct err *err)
{
	git_reference *ref = NULL;
	git_odb *odb = NULL;
	size_t len;
	git_object_t type;
	int rc = git_reference_lookup(&ref, repo, refname);
	*has_tip = 0;
	if (rc == GIT_ENOTFOUND)
		return 0;
	if (rc < 0)
		return err_set(err, "cannot read %s: %s", refname, lg_msg());
	if (git_reference_type(ref) != GIT_REFERENCE_DIRECT) {
		git_reference_free(ref);
		return err_set(err, "%s is a symbolic ref, not a snapshot chain: left alone", refname);
	}
	git_oid_cpy(tip, git_reference_target(ref));
	git_reference_free(ref);
	if (git_repository_odb(&odb, repo) < 0)
		return err_set(err, "cannot open the object database: %s", lg_msg());
	rc = git_odb_read_header(&len, &type, odb, tip);
	git_odb_free(odb);
	if (rc == 0 && type != GIT_OBJECT_COMMIT)
		return err_set(err, "%s points at a %s, not a snapshot commit: left alone", refname,
			       git_object_type2string(type));
	/* An unreadable object (truncated, missing) is still the tip to build on. */
	*has_tip = 1;
	return 0;
}

static int write_blob(git_repository *repo, git_treebuilder *tb, const char *name, const char *data, size_t len,
		      struct err *err)
{
	git_oid id;
	if (git_blob_create_from_buffer(&id, repo, data, len) < 0 ||
	    git_treebuilder_insert(NULL, tb, name, &id, GIT_FILEMODE_BLOB) < 0)
		return err_set(err, "cannot write %s into the history repository: %s", name, lg_msg());
	return 0;
}

static int write_commit(git_repository *repo, const char *runner, const char *report, size_t report_len,
			const struct strbuf *drift, int64_t when, const git_oid *parent, git_oid *out,
			struct err *err)
{
	git_treebuilder *tb = NULL;
	git_signature *sig = NULL;
	git_oid tree;
	struct strbuf msg = STRBUF_INIT;
	const git_oid *parents[1] = { parent };
	int rc = -1;
	if (git_treebuilder_new(&tb, repo, NULL) < 0) {
		err_set(err, "cannot build a tree: %s", lg_msg());
		goto out;
	}
	if (write_blob(repo, tb, "report.json", report, report_len, err) < 0 ||
	    write_blob(repo, tb, "drift.json", drift->buf ? drift->buf : "{}", drift->buf ? drift->len : 2, err) < 0)
		goto out;
	if (git_treebuilder_write(&tree, tb) < 0) {
		err_set(err, "cannot write the snapshot tree: %s", lg_msg());
		goto out;
	}
	if (git_signature_new(&sig, "torch-dll-check audit", "torch-dll-check@localhost", (git_time_t)when, 0) < 0) {
		err_set(err, "cannot make a commit signature: %s", lg_msg());
		goto out;
	}
	strbuf_addf(&msg, "audit snapshot of runner %s\n", runner);
	if (git_commit_create_from_ids(out, repo, NULL, sig, sig, NULL, msg.buf, &tree, parent ? 1 : 0,
				       parent ? parents : NULL) < 0) {
		err_set(err, "cannot write the snapshot commit: %s", lg_msg());
		goto out;
	}
	rc = 0;
out:
	strbuf_release(&msg);
	git_signature_free(sig);
	git_treebuilder_free(tb);
	return rc;
}

/* A short random pause before retrying a lost swap, so racing writers spread out. */
static void backoff(unsigned attempt)
{
	unsigned char r = 0;
	struct err ignored;
	unsigned ms = attempt < 6 ? 1u << attempt : 50;
	if (os_random(&r, 1, &ignored) == 0)
		ms += r % 8;
	os_sleep_ms(ms);
}

int history_append(struct history *h, const char *runner, const char *report, size_t report_len, int64_t when,
		   history_drift_fn drift_fn, void *ctx, struct history_written *out, struct err *err)
{
	struct strbuf refname = STRBUF_INIT, prev = STRBUF_INIT, drift = STRBUF_INIT, logmsg = STRBUF_INIT;
	int rc = -1;
	memset(out, 0, sizeof(*out));
	if (history_ref_name(runner, &refname, err) < 0)
		goto done;
	strbuf_addf(&logmsg, "torch-dll-check audit: %s", runner);
	for (unsigned attempt = 0; attempt < HISTORY_MAX_ATTEMPTS; attempt++) {
		git_oid tip, commit, no_tip;
		git_reference *ref = NULL;
		int has_tip, swap, new_root = 0, sane;
		const char *prev_text = NULL;
		struct err perr;
		out->problem[0] = '\0';
		out->parent[0] = '\0';
		memset(&no_tip, 0, sizeof(no_tip));
		if (read_tip(h->repo, refname.buf, &tip, &has_tip, err) < 0)
			goto done;
		if (has_tip) {
			git_commit *c = NULL;
			git_oid_tostr(out->parent, sizeof(out->parent), &tip);
			/*
			 * A tip that is not a readable commit (not in the repository,
			 * damaged) cannot be a parent: git refuses to write a commit
			 * naming it, so every night would fail until someone mends the
			 * ref by hand. The snapshot starts a new chain instead (a root
			 * commit; the ref still moves from the old tip by
			 * compare-and-swap), and says the earlier ones are unreachable.
			 */
			sane = object_sane(h->repo, &tip, &perr) == 0;
			if (!sane || git_commit_lookup(&c, h->repo, &tip) < 0) {
				snprintf(out->problem, sizeof(out->problem),
					 "previous snapshot %.12s cannot be read (%.300s): this snapshot starts a new "
					 "history; the earlier snapshots are unreachable from it", out->parent,
					 sane ? lg_msg() : perr.msg);
				out->parent[0] = '\0'; /* a root commit: no parent */
				new_root = 1;
			} else if (read_tree_file(h->repo, c, "report.json", &prev, &perr) < 0)
				snprintf(out->problem, sizeof(out->problem), "previous snapshot %.12s: %.400s", out->parent,
					 perr.msg);
			else
				prev_text = prev.buf;
			git_commit_free(c);
		}
		strbuf_reset(&drift);
		if (drift_fn && drift_fn(ctx, prev_text, prev_text ? prev.len : 0, out->problem, &drift, err) < 0)
			goto done;
		if (write_commit(h->repo, runner, report, report_len, &drift, when, has_tip && !new_root ? &tip : NULL,
				 &commit, err) < 0) {
			if (out->problem[0])
				err_prefix(err, "%s; nothing was written: ", out->problem);
			goto done;
		}
		/*
		 * Compare-and-swap under the ref's lock. The first snapshot too:
		 * a zero expected id means "must not exist yet" and is checked
		 * after the lock is taken, whereas force=0 alone only checks
		 * before it, so two first writers could both "succeed" and one
		 * snapshot be lost.
		 */
		swap = git_reference_create_matching(&ref, h->repo, refname.buf, &commit, 1,
						     has_tip ? &tip : &no_tip, logmsg.buf);
		git_reference_free(ref);
		out->attempts = attempt + 1;
		if (swap == 0) {
			git_oid_tostr(out->sha, sizeof(out->sha), &commit);
			rc = 0;
			goto done;
		}
		if (swap != GIT_EMODIFIED && swap != GIT_EEXISTS && swap != GIT_ELOCKED) {
			err_set(err, "cannot move %s: %s", refname.buf, lg_msg());
			goto done;
		}
		backoff(attempt);
	}
	err_set(err, "%s kept moving under us: gave up after %d attempts", refname.buf, HISTORY_MAX_ATTEMPTS);
done:
	strbuf_release(&refname);
	strbuf_release(&prev);
	strbuf_release(&drift);
	strbuf_release(&logmsg);
	return rc;
}

int history_walk(struct history *h, const char *runner, size_t limit, int with_report, history_entry_fn fn,
		 void *ctx, struct err *err)
{
	struct strbuf refname = STRBUF_INIT, drift = STRBUF_INIT, report = STRBUF_INIT;
	git_oid id;
	int has_tip, rc = -1;
	size_t seen = 0;
	if (history_ref_name(runner, &refname, err) < 0)
		goto done;
	if (read_tip(h->repo, refname.buf, &id, &has_tip, err) < 0)
		goto done;
	if (!has_tip) {
		err_set(err, "no snapshots of runner %s in %s (no %s)", runner, h->path, refname.buf);
		goto done;
	}
	for (;;) {
		git_commit *c = NULL;
		struct history_entry e;
		struct err perr;
		char problem[ERR_MSG_MAX];
		int sane;
		memset(&e, 0, sizeof(e));
		git_oid_tostr(e.sha, sizeof(e.sha), &id);
		sane = object_sane(h->repo, &id, &perr) == 0;
		if (!sane || git_commit_lookup(&c, h->repo, &id) < 0) {
			/* shown as the chain's last entry: what came before it is still worth listing */
			snprintf(problem, sizeof(problem), "snapshot %.12s cannot be read: %.600s", e.sha,
				 sane ? lg_msg() : perr.msg);
			e.problem = problem;
			e.unreadable = 1;
			e.when = -1; /* unknown */
			fn(ctx, runner, &e);
			break;
		}
		e.when = (int64_t)git_commit_time(c);
		if (read_tree_file(h->repo, c, "drift.json", &drift, &perr) == 0) {
			e.drift_json = drift.buf ? drift.buf : "";
			e.drift_len = drift.len;
		} else {
			memcpy(problem, perr.msg, sizeof(problem));
			e.problem = problem;
		}
		if (with_report && read_tree_file(h->repo, c, "report.json", &report, &perr) == 0) {
			e.report_json = report.buf ? report.buf : "";
			e.report_len = report.len;
		} else if (with_report && !e.problem) {
			memcpy(problem, perr.msg, sizeof(problem));
			e.problem = problem;
		}
		{
			int more = git_commit_parentcount(c) > 0, stop;
			git_odb *odb = NULL;
			if (more)
				git_oid_cpy(&id, git_commit_parent_id(c, 0));
			git_commit_free(c);
			seen++;
			/* its parent not in the repository: refs fetched with --depth N stop here */
			if (more && !(limit && seen >= limit) && git_repository_odb(&odb, h->repo) == 0 &&
			    !git_odb_exists(odb, &id)) {
				e.not_fetched = 1;
				more = 0;
			}
			git_odb_free(odb);
			stop = fn(ctx, runner, &e);
			if (stop || !more || (limit && seen >= limit))
				break;
		}
	}
	rc = 0;
done:
	strbuf_release(&refname);
	strbuf_release(&drift);
	strbuf_release(&report);
	return rc;
}

struct runners_ctx {
	struct strlist *out;
};

static int collect_runner(const char *name, void *payload)
{
	struct runners_ctx *rc = payload;
	if (!strncmp(name, HISTORY_REF_PREFIX, strlen(HISTORY_REF_PREFIX)))
		strlist_push_owned(rc->out, decode_runner(name + strlen(HISTORY_REF_PREFIX)));
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int history_runners(struct history *h, struct strlist *runners, struct err *err)
{
	struct runners_ctx rc = { runners };
	size_t first = runners->n;
	int r = git_reference_foreach_glob(h->repo, HISTORY_REF_PREFIX "*", collect_runner, &rc);
	if (r < 0)
		return err_set(err, "cannot list the refs of %s: %s", h->path, lg_msg());
	if (runners->n - first > 1)
		qsort(runners->v + first, runners->n - first, sizeof(char *), cmp_str);
	return 0;
}
