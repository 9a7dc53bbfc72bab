/*
 * test_git_history: audit snapshots (git_history, libgit2) in a real bare
 * repository the test makes with the git program. A runner's ref name is
 * %XX-escaped and decoded back; each append is a commit on the runner's ref
 * whose parent is the previous snapshot, and the drift callback gets the
 * previous report (none for the first); git itself (rev-parse, cat-file)
 * sees the ref, the chain and the two files; the walk is newest first, with
 * a limit; the runners list is decoded and sorted; a ref that is not a
 * snapshot chain is refused and left alone.
 */
#include "harness.h"
#include "git_test.h"
#include "git/git_history.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[256];

struct seen {
	int calls;
	char prev[64];
	char problem[64];
};

static int drift(void *ctx, const char *prev_report, size_t prev_len, const char *prev_problem,
		 struct strbuf *drift_json, struct err *err)
{
	struct seen *s = ctx;
	(void)err;
	s->calls++;
	snprintf(s->prev, sizeof(s->prev), "%.*s", prev_report ? (int)prev_len : 0, prev_report ? prev_report : "");
	snprintf(s->problem, sizeof(s->problem), "%s", prev_problem ? prev_problem : "(null)");
	strbuf_addf(drift_json, "{\"n\":%d}", s->calls);
	return 0;
}

struct walked {
	int n;
	char sha[4][41];
	char drift[4][32];
	char report[4][32];
};

static int on_entry(void *ctx, const char *runner, const struct history_entry *e)
{
	struct walked *w = ctx;
	(void)runner;
	if (w->n < 4) {
		snprintf(w->sha[w->n], sizeof(w->sha[0]), "%s", e->sha);
		snprintf(w->drift[w->n], sizeof(w->drift[0]), "%.*s", e->drift_json ? (int)e->drift_len : 0,
			 e->drift_json ? e->drift_json : "");
		snprintf(w->report[w->n], sizeof(w->report[0]), "%.*s", e->report_json ? (int)e->report_len : 0,
			 e->report_json ? e->report_json : "");
	}
	w->n++;
	return 0;
}

static void test_ref_names(void)
{
	struct strbuf ref = STRBUF_INIT;
	struct err e;
	char longname[300];
	CHECK_INT(history_ref_name("GPU box 2", &ref, &e), 0);
	CHECK_STR(ref.buf, HISTORY_REF_PREFIX "GPU%20box%202");
	strbuf_reset(&ref);
	CHECK_INT(history_ref_name(".hidden/x", &ref, &e), 0);
	CHECK_STR(ref.buf, HISTORY_REF_PREFIX "%2Ehidden%2Fx");
	strbuf_reset(&ref);
	CHECK_INT(history_ref_name("", &ref, &e), -1);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	strbuf_reset(&ref);
	CHECK_INT(history_ref_name(longname, &ref, &e), -1);
	strbuf_release(&ref);
}

static void test_snapshots_in_a_real_repository(void)
{
	struct history *h = NULL;
	struct history_written w1, w2, w3;
	struct seen s;
	struct walked wk;
	struct strlist runners = STRLIST_INIT;
	struct err e;
	char cmd[512] = "", out[128];
	memset(&s, 0, sizeof(s));
	memset(&wk, 0, sizeof(wk));
	snprintf(dir, sizeof(dir), "%s/tdc-git-history-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir))
		snprintf(cmd, sizeof(cmd), "git init -q --bare '%s'", dir);
	if (!*cmd || system(cmd)) {
		CHECK(0);
		return;
	}
	CHECK_INT(history_open(&h, dir, &e), 0);
	if (!h) {
		printf("# %s\n", e.msg);
		return;
	}
	/* the first snapshot: no previous report, no parent */
	CHECK_INT(history_append(h, "GPU box 2", "{\"r\":1}", 7, 1700000000, drift, &s, &w1, &e), 0);
	CHECK_INT(s.calls, 1);
	CHECK_STR(s.prev, "");
	CHECK_STR(s.problem, "");
	CHECK_STR(w1.parent, "");
	git_first_line(dir, "rev-parse 'refs/torch-dll-check/GPU%20box%202'", out, sizeof(out));
	CHECK_STR(out, w1.sha);
	/* the second: its drift sees the first report, its parent is the first snapshot */
	CHECK_INT(history_append(h, "GPU box 2", "{\"r\":2}", 7, 1700086400, drift, &s, &w2, &e), 0);
	CHECK_STR(s.prev, "{\"r\":1}");
	CHECK_STR(w2.parent, w1.sha);
	git_first_line(dir, "rev-parse 'refs/torch-dll-check/GPU%20box%202^'", out, sizeof(out));
	CHECK_STR(out, w1.sha);
	git_first_line(dir, "cat-file -p 'refs/torch-dll-check/GPU%20box%202:report.json'", out, sizeof(out));
	CHECK_STR(out, "{\"r\":2}");
	git_first_line(dir, "cat-file -p 'refs/torch-dll-check/GPU%20box%202:drift.json'", out, sizeof(out));
	CHECK(strstr(out, "\"n\":2") != NULL);
	/* another runner */
	CHECK_INT(history_append(h, "a-runner", "{\"r\":3}", 7, 1700000000, drift, &s, &w3, &e), 0);
	CHECK_STR(w3.parent, "");

	CHECK_INT(history_walk(h, "GPU box 2", 0, 1, on_entry, &wk, &e), 0);
	CHECK_INT(wk.n, 2);
	CHECK_STR(wk.sha[0], w2.sha);
	CHECK_STR(wk.sha[1], w1.sha);
	CHECK_STR(wk.report[0], "{\"r\":2}");
	CHECK(strstr(wk.drift[1], "\"n\":1") != NULL);
	memset(&wk, 0, sizeof(wk));
	CHECK_INT(history_walk(h, "GPU box 2", 1, 0, on_entry, &wk, &e), 0);
	CHECK_INT(wk.n, 1);
	CHECK_STR(wk.report[0], "");
	CHECK_INT(history_walk(h, "nobody", 0, 0, on_entry, &wk, &e), -1);

	CHECK_INT(history_runners(h, &runners, &e), 0);
	CHECK_INT(runners.n, 2);
	if (runners.n == 2) {
		CHECK_STR(runners.v[0], "GPU box 2");
		CHECK_STR(runners.v[1], "a-runner");
	}

	/* a ref that is no snapshot chain (a blob) is refused and left as it was */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && b=$(echo x | git hash-object -w --stdin) && git update-ref refs/torch-dll-check/blob $b", dir);
	CHECK_INT(system(cmd), 0);
	git_first_line(dir, "rev-parse refs/torch-dll-check/blob", cmd, sizeof(cmd));
	CHECK_INT(history_append(h, "blob", "{}", 2, 1700000000, drift, &s, &w3, &e), -1);
	git_first_line(dir, "rev-parse refs/torch-dll-check/blob", out, sizeof(out));
	CHECK_STR(out, cmd);

	history_close(h);
	strlist_release(&runners);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	RUN(test_ref_names);
	if (system("git --version >/dev/null 2>&1")) {
		printf("ok - tests/unit/test_git_history.c: a real repository # SKIP git is not installed\n");
		return HARNESS_EXIT();
	}
	RUN(test_snapshots_in_a_real_repository);
	return HARNESS_EXIT();
}
