/*
 * test_git_repo: git_repo (libgit2) against a real repository the test makes
 * with the git program: two commits that change a pin, a branch, a rename.
 * Revisions resolve as git resolves them (git rev-parse is asked too), the
 * changed paths are git diff --name-only's (both sides of a rename), the
 * subject is the commit's, and the pins are read from each commit's tree,
 * not from the working tree.
 */
#include "harness.h"
#include "git_test.h"
#include "git/git_repo.h"
#include "pins/pins.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256];

/* Runs a shell command in the test repository; 0 on success. */
static int sh(const char *fmt, ...) ERR_PRINTF(1, 2);
static int sh(const char *fmt, ...)
{
	char cmd[2048];
	int n;
	va_list ap;
	n = snprintf(cmd, sizeof(cmd), "cd '%s' && ", dir);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - (size_t)n, fmt, ap);
	va_end(ap);
	return system(cmd);
}

#define GIT "git -c user.name=t -c user.email=t@example.com -c commit.gpgsign=false "

/* base: requirements.txt pins torch 2.4.0; head (branch `pr`): 2.5.1, and docs/a.md renamed to docs/b.md. */
static int make_repo(void)
{
	snprintf(dir, sizeof(dir), "%s/tdc-git-repo-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	return sh("git init -q -b main . && mkdir docs && printf 'torch==2.4.0\\nnumpy<2\\n' > requirements.txt && "
		  "printf 'hello\\n' > docs/a.md && git add -A && " GIT "commit -qm 'Pin torch 2.4.0' && "
		  "git checkout -qb pr && printf 'torch==2.5.1\\nnumpy<2\\n' > requirements.txt && "
		  "git mv docs/a.md docs/b.md && git add -A && " GIT "commit -qm 'Move to torch 2.5.1' && "
		  "printf 'torch==9.9.9\\n' > requirements.txt");
}

static const char *torch_version_at(struct git_repo *r, const char *sha, struct pinset *ps)
{
	struct torch_target *t = NULL;
	struct err e;
	const char *v = NULL;
	size_t n;
	memset(ps, 0, sizeof(*ps));
	if (git_repo_pins(r, sha, ps, &e)) {
		printf("# pins at %s: %s\n", sha, e.msg);
		return NULL;
	}
	n = pinset_torch_targets(ps, &t);
	if (n == 1)
		v = t[0].version;
	free(t);
	return v;
}

static void test_a_real_repository(void)
{
	struct git_repo *r = NULL;
	struct err e;
	char head[41], base[41], shortid[41], want[64];
	struct strlist changed = STRLIST_INIT;
	struct strbuf subject = STRBUF_INIT;
	struct pinset ps;
	size_t i;
	int renamed_from = 0, renamed_to = 0, req = 0;
	if (make_repo()) {
		CHECK(0);
		printf("# could not make a repository with git in %s\n", dir);
		return;
	}
	CHECK_INT(git_repo_open(&r, dir, &e), 0);
	if (!r) {
		printf("# %s\n", e.msg);
		return;
	}
	CHECK_INT(git_repo_resolve(r, "HEAD", head, &e), 0);
	git_first_line(dir, "rev-parse HEAD", want, sizeof(want));
	CHECK_STR(head, want);
	CHECK_INT(git_repo_resolve(r, "main", base, &e), 0);
	git_first_line(dir, "rev-parse main", want, sizeof(want));
	CHECK_STR(base, want);
	CHECK(strcmp(head, base));
	CHECK_INT(git_repo_resolve(r, "HEAD~1", shortid, &e), 0);
	CHECK_STR(shortid, base);
	snprintf(want, sizeof(want), "%.8s", head);
	CHECK_INT(git_repo_resolve(r, want, shortid, &e), 0); /* a short id */
	CHECK_STR(shortid, head);
	CHECK_INT(git_repo_resolve(r, "no-such-branch", shortid, &e), -1);
	CHECK(strstr(e.msg, "no-such-branch") != NULL);

	CHECK_INT(git_repo_changed_paths(r, base, head, &changed, &e), 0);
	for (i = 0; i < changed.n; i++) {
		renamed_from += !strcmp(changed.v[i], "docs/a.md");
		renamed_to += !strcmp(changed.v[i], "docs/b.md");
		req += !strcmp(changed.v[i], "requirements.txt");
	}
	CHECK(renamed_from == 1 && renamed_to == 1 && req == 1);
	CHECK_INT(changed.n, 3);

	git_repo_subject(r, head, &subject);
	CHECK_STR(subject.buf, "Move to torch 2.5.1");
	git_repo_subject(r, base, &subject);
	CHECK_STR(subject.buf, "Pin torch 2.4.0");

	/* from the commits' trees: the uncommitted 9.9.9 in the working tree is not seen */
	CHECK_STR(torch_version_at(r, head, &ps), "2.5.1");
	pinset_release(&ps);
	CHECK_STR(torch_version_at(r, base, &ps), "2.4.0");
	pinset_release(&ps);

	git_repo_close(r);
	strlist_release(&changed);
	strbuf_release(&subject);
	sh("cd / && rm -rf '%s'", dir);
}

static void test_not_a_repository(void)
{
	struct git_repo *r = NULL;
	struct err e;
	snprintf(dir, sizeof(dir), "%s/tdc-git-none-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	CHECK_INT(git_repo_open(&r, dir, &e), -1);
	CHECK(r == NULL);
	CHECK(strstr(e.msg, dir) != NULL || strstr(e.msg, "repository") != NULL);
	rmdir(dir);
}

int main(void)
{
	if (system("git --version >/dev/null 2>&1")) {
		printf("ok - tests/unit/test_git_repo.c: a real repository # SKIP git is not installed\n");
		return HARNESS_EXIT();
	}
	RUN(test_a_real_repository);
	RUN(test_not_a_repository);
	return HARNESS_EXIT();
}
