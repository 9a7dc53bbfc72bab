/*
 * git_audit: `audit`, `history` and `fleet` in torch-dll-check-git (see
 * cmd_audit.h; the snapshot store is git_history.h, the comparison drift.h,
 * the table fleet.h, the user's guide docs/audit.md).
 *
 * Everything printed comes from a machine or a repository (DLL paths,
 * runner names, commit contents) and is untrusted: text lines go through
 * report_esc_line, annotations through the workflow escapers, Markdown
 * through report_esc_md, and under GitHub Actions the plain text is wrapped
 * in ::stop-commands:: with an unpredictable token.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "cli/cmd_audit.h"
#include "audit/drift.h"
#include "audit/fleet.h"
#include "git/git_history.h"
#include "util/os.h"
#include "util/jsonout.h"
#include "cli/out.h"
#include "report/report.h"
#include "util/text.h"

#define SNAPSHOT_MAX (256u << 20)
#define CHECK_TIMEOUT_MS (30u * 60u * 1000u)
#define SUMMARY_MAX (1u << 20)
#define ANNOTATIONS_PER_LEVEL 10

static const char *history_dir(const char *given)
{
	const char *ws = os_getenv("GITHUB_WORKSPACE");
	return given ? given : ws && *ws ? ws : ".";
}

/* Text whose every untrusted field its builder escaped: under the stop-commands guard. */
static int put_guarded(const char *text)
{
	return out_text(text, strlen(text)) < 0 ? -1 : 0;
}

/* ---- running the check ---------------------------------------------------- */

static char *sibling_path(struct err *err)
{
	char *self = os_self_path(err), *slash;
	char *p;
	if (!self)
		return NULL;
	slash = strrchr(self, os_sep());
	if (slash)
		slash[1] = '\0';
	else
		self[0] = '\0';
	p = xasprintf("%storch-dll-check%s", self, os_is_windows() ? ".exe" : "");
	free(self);
	return p;
}

/* Runs `torch-dll-check WHAT <args> <extra...>` and collects its stdout. */
static int run_main(const char *main_path, const char *what, const struct cli_args *args, const char *const *extra,
		    struct strbuf *out, struct strbuf *errout, long long *code, struct err *err)
{
	const char **argv = xcalloc((size_t)args->n + 8, sizeof(*argv));
	int n = 0, rc;
	argv[n++] = main_path;
	argv[n++] = what;
	for (int i = 0; i < args->n; i++)
		argv[n++] = args->v[i];
	for (; extra && *extra; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	rc = os_spawn(argv, NULL, CHECK_TIMEOUT_MS, out, errout, code, err);
	free(argv);
	if (rc == 1)
		return err_set(err, "torch-dll-check %s did not finish within %u minutes", what, CHECK_TIMEOUT_MS / 60000);
	return rc;
}

/* The last non-empty line of a child's stderr, for an error message. */
static const char *last_line(struct strbuf *sb)
{
	char *p;
	while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->buf[--sb->len] = '\0';
	if (!sb->len)
		return "(no message)";
	p = strrchr(sb->buf, '\n');
	return p ? p + 1 : sb->buf;
}

/*
 * The snapshot: `check --json` over the CHECK-OPTIONS; when the check cannot
 * run and `inventory` with the same options finds no torch at all, the
 * inventory (nothing to check is not an error for an audit).
 */
static int take_snapshot(const struct cli_args *args, struct strbuf *report, struct err *err)
{
	static const char *const check_extra[] = { "--format", "json", "--fail-on", "never", NULL };
	static const char *const inv_extra[] = { "--json", NULL };
	struct strbuf errout = STRBUF_INIT, inv = STRBUF_INIT, inverr = STRBUF_INIT;
	char *main_path = sibling_path(err);
	long long code = -1, icode = -1;
	int rc = -1;
	if (!main_path)
		return -1;
	if (run_main(main_path, "check", args, check_extra, report, &errout, &code, err) < 0)
		goto out;
	if (code == 0 || code == 1) {
		rc = 0;
		goto out;
	}
	if (run_main(main_path, "inventory", args, inv_extra, &inv, &inverr, &icode, err) < 0)
		goto out;
	if (icode == 0) {
		cJSON *doc = cJSON_ParseWithLength(inv.buf ? inv.buf : "", inv.len);
		const cJSON *installs = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(doc, "inventory"), "installs");
		int none = cJSON_IsArray(installs) && cJSON_GetArraySize(installs) == 0;
		cJSON_Delete(doc);
		if (none) {
			strbuf_reset(report);
			strbuf_add(report, inv.buf, inv.len);
			rc = 0;
			goto out;
		}
	}
	err_set(err, "the check could not run (exit %lld): %.600s", code, last_line(&errout));
out:
	free(main_path);
	strbuf_release(&errout);
	strbuf_release(&inv);
	strbuf_release(&inverr);
	return rc;
}

/* ---- drift against the previous snapshot ---------------------------------- */

struct audit_ctx {
	const cJSON *report;
	unsigned calls;
	struct drift_list drift;
	int first;
	char problem[ERR_MSG_MAX];
};

static const char *snapshot_status(const cJSON *doc)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "status");
	return cJSON_IsString(s) ? s->valuestring : "inventory";
}

/* history_drift_fn: called once per compare-and-swap attempt, against that attempt's parent. */
static int audit_drift(void *vctx, const char *prev, size_t prev_len, const char *prev_problem, struct strbuf *out,
		       struct err *err)
{
	struct audit_ctx *ctx = vctx;
	cJSON *doc, *old = NULL;
	char *text;
	/*
	 * Tests only: a shell command run between reading the ref and swapping it,
	 * the first time, to move the ref under us the way a `git fetch` would.
	 */
	const char *race = os_getenv("TDC_TEST_AUDIT_RACE");
	if (race && *race && ctx->calls++ == 0) {
		const char *argv[] = { "sh", "-c", race, NULL };
		long long code;
		struct err e;
		os_spawn(argv, NULL, 60000, NULL, NULL, &code, &e);
	}
	drift_list_release(&ctx->drift);
	ctx->problem[0] = '\0';
	ctx->first = !prev && (!prev_problem || !*prev_problem);
	if (prev_problem && *prev_problem)
		snprintf(ctx->problem, sizeof(ctx->problem), "%.900s", prev_problem);
	if (prev) {
		struct err e;
		old = cJSON_ParseWithLength(prev, prev_len);
		if (!old)
			snprintf(ctx->problem, sizeof(ctx->problem), "the previous snapshot's report.json is not JSON");
		else if (drift_compare(old, ctx->report, &ctx->drift, &e) < 0)
			snprintf(ctx->problem, sizeof(ctx->problem), "%.900s", e.msg);
	}
	cJSON_Delete(old);
	doc = drift_to_json(&ctx->drift);
	cJSON_AddStringToObject(doc, "schema", "torch-dll-check/drift/v1");
	cJSON_AddBoolToObject(doc, "first", ctx->first);
	if (ctx->problem[0])
		cJSON_AddStringToObject(doc, "problem", ctx->problem);
	else
		cJSON_AddNullToObject(doc, "problem");
	cJSON_AddStringToObject(doc, "status", snapshot_status(ctx->report));
	text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!text)
		return err_set(err, "out of memory");
	strbuf_adds(out, text);
	free(text);
	return 0;
}

static int fail_on_level(const char *s, int *level)
{
	if (!s || !strcmp(s, "error"))
		*level = DRIFT_ERROR;
	else if (!strcmp(s, "warning"))
		*level = DRIFT_WARNING;
	else if (!strcmp(s, "note"))
		*level = DRIFT_NOTE;
	else if (!strcmp(s, "never"))
		*level = -1;
	else
		return -1;
	return 0;
}

static void drift_text(struct strbuf *out, const char *runner, const struct history_written *w,
		       const struct audit_ctx *ctx)
{
	size_t e, wn, n;
	drift_counts(&ctx->drift, &e, &wn, &n);
	strbuf_adds(out, "audit: runner ");
	text_esc_line(out, runner);
	strbuf_addf(out, ": snapshot %.12s written (status %s", w->sha, snapshot_status(ctx->report));
	if (w->attempts > 1)
		strbuf_addf(out, "; %u compare-and-swap attempts", w->attempts);
	strbuf_adds(out, ")\n");
	if (ctx->first) {
		strbuf_adds(out, "drift: none to report: this is the runner's first snapshot\n");
		return;
	}
	if (ctx->problem[0]) {
		strbuf_adds(out, "drift: not compared: ");
		text_esc_line(out, ctx->problem);
		strbuf_addch(out, '\n');
		return;
	}
	strbuf_addf(out, "drift since %.12s: %zu error(s), %zu warning(s), %zu note(s)\n", w->parent, e, wn, n);
	for (size_t i = 0; i < ctx->drift.n; i++) {
		strbuf_addf(out, "  %-8s ", drift_severity_name(ctx->drift.v[i].severity));
		text_esc_line(out, ctx->drift.v[i].title);
		strbuf_addch(out, '\n');
	}
}

static void drift_annotations(struct strbuf *out, const char *runner, const struct audit_ctx *ctx)
{
	static const char *const cmds[] = { "error", "warning", "notice" };
	size_t used[3] = { 0, 0, 0 }, left = 0;
	for (size_t i = 0; i < ctx->drift.n; i++) {
		const struct drift *d = &ctx->drift.v[i];
		struct strbuf title = STRBUF_INIT;
		if (used[d->severity] >= ANNOTATIONS_PER_LEVEL) {
			left++;
			continue;
		}
		used[d->severity]++;
		strbuf_addf(&title, "torch-dll-check drift on %s", runner);
		strbuf_addf(out, "::%s title=", cmds[d->severity]);
		report_esc_gh_prop(out, title.buf);
		strbuf_adds(out, "::");
		report_esc_gh_data(out, d->title);
		strbuf_addch(out, '\n');
		strbuf_release(&title);
	}
	if (left)
		strbuf_addf(out, "::notice title=torch-dll-check drift::%zu more drift finding(s) not annotated; see the "
				 "job summary or --json\n", left);
}

static void drift_markdown(struct strbuf *out, const char *runner, const struct history_written *w,
			   const struct audit_ctx *ctx)
{
	size_t e, wn, n;
	drift_counts(&ctx->drift, &e, &wn, &n);
	strbuf_adds(out, "## torch-dll-check audit: ");
	report_esc_md(out, runner);
	strbuf_addf(out, "\n\nSnapshot `%.12s`, status **%s**. ", w->sha, snapshot_status(ctx->report));
	if (ctx->first) {
		strbuf_adds(out, "First snapshot of this runner: nothing to compare yet.\n\n");
		return;
	}
	if (ctx->problem[0]) {
		strbuf_adds(out, "Drift not compared: ");
		report_esc_md(out, ctx->problem);
		strbuf_adds(out, "\n\n");
		return;
	}
	strbuf_addf(out, "Since `%.12s`: %zu error(s), %zu warning(s), %zu note(s).\n\n", w->parent, e, wn, n);
	if (!ctx->drift.n)
		return;
	strbuf_adds(out, "| severity | change |\n|---|---|\n");
	for (size_t i = 0; i < ctx->drift.n; i++) {
		strbuf_addf(out, "| %s | ", drift_severity_name(ctx->drift.v[i].severity));
		report_esc_md(out, ctx->drift.v[i].title);
		strbuf_adds(out, " |\n");
		if (out->len > SUMMARY_MAX - 4096) {
			strbuf_addf(out, "\n%zu more change(s) left out (size limit); see --json.\n", ctx->drift.n - i - 1);
			break;
		}
	}
	strbuf_addch(out, '\n');
}

static int write_audit_json(const char *path, const char *runner, const char *dir, const struct history_written *w,
			    const struct audit_ctx *ctx, struct err *err)
{
	cJSON *doc = cJSON_CreateObject(), *drift = drift_to_json(&ctx->drift);
	struct strbuf ref = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT;
	int rc;
	history_ref_name(runner, &ref, err);
	cJSON_AddStringToObject(doc, "schema", "torch-dll-check/audit/v1");
	cJSON_AddStringToObject(doc, "runner", runner);
	cJSON_AddStringToObject(doc, "history", dir);
	cJSON_AddStringToObject(doc, "ref", strbuf_str(&ref));
	cJSON_AddStringToObject(doc, "snapshot", w->sha);
	if (w->parent[0])
		cJSON_AddStringToObject(doc, "parent", w->parent);
	else
		cJSON_AddNullToObject(doc, "parent");
	cJSON_AddNumberToObject(doc, "attempts", w->attempts);
	cJSON_AddStringToObject(doc, "status", snapshot_status(ctx->report));
	cJSON_AddBoolToObject(doc, "first", ctx->first);
	if (ctx->problem[0])
		cJSON_AddStringToObject(doc, "problem", ctx->problem);
	else
		cJSON_AddNullToObject(doc, "problem");
	cJSON_AddItemToObject(doc, "drift", drift);
	json_print(&text, doc, 1);
	strbuf_addch(&text, '\n');
	cJSON_Delete(doc);
	strbuf_release(&ref);
	if (out_is_stdout(path))
		rc = fwrite(text.buf, 1, text.len, stdout) == text.len ? 0 : err_set(err, "cannot write to stdout");
	else
		rc = os_write_file_atomic(path, text.buf, text.len, err);
	strbuf_release(&text);
	return rc;
}

static int parse_date(const char *s, int64_t *out)
{
	char *end;
	long long v;
	if (!s) {
		*out = (int64_t)time(NULL);
		return 0;
	}
	v = strtoll(s, &end, 10);
	if (!*s || *end || v < 0)
		return -1;
	*out = (int64_t)v;
	return 0;
}

int cmd_git_audit(int argc, char **argv)
{
	struct audit_opts o;
	struct cli_args args = { 0 };
	struct strbuf report = STRBUF_INIT, out = STRBUF_INIT;
	struct audit_ctx ctx;
	struct history *h = NULL;
	struct history_written w;
	struct err err;
	const char *runner, *format;
	int64_t when;
	int level, rc = EXIT_USAGE, r;
	cJSON *doc = NULL;

	memset(&o, 0, sizeof(o));
	memset(&ctx, 0, sizeof(ctx));
	err_clear(&err);
	r = cli_parse(&audit_cli, argc, argv, &o, &args);
	if (r) {
		cli_args_release(&args);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	runner = o.runner ? o.runner : os_getenv("RUNNER_NAME");
	format = o.format ? o.format : out_in_actions() ? "github" : "text";
	if (!runner || !*runner) {
		rc = cli_error(&audit_cli, "no runner name: give --runner NAME (or set RUNNER_NAME)");
		goto out;
	}
	if (fail_on_level(o.fail_on, &level) < 0) {
		rc = cli_error(&audit_cli, "--fail-on %s: expected error, warning, note or never", o.fail_on);
		goto out;
	}
	if (strcmp(format, "text") && strcmp(format, "github")) {
		rc = cli_error(&audit_cli, "--format %s: expected text or github", format);
		goto out;
	}
	if (parse_date(o.date, &when) < 0) {
		rc = cli_error(&audit_cli, "--date %s: expected seconds since 1970", o.date);
		goto out;
	}
	if (o.report && args.n) {
		rc = cli_error(&audit_cli, "--report and CHECK-OPTIONS do not go together: the report is the check");
		goto out;
	}
	{
		struct strbuf ref = STRBUF_INIT;
		r = history_ref_name(runner, &ref, &err);
		strbuf_release(&ref);
		if (r < 0) {
			rc = cli_error(&audit_cli, "%s", err.msg);
			goto out;
		}
	}
	if (o.report ? os_read_file(o.report, SNAPSHOT_MAX, &report, &err) < 0 : take_snapshot(&args, &report, &err) < 0) {
		rc = cmd_usage_error("audit: %s", err.msg);
		goto out;
	}
	doc = cJSON_ParseWithLength(report.buf ? report.buf : "", report.len);
	if (!doc || drift_snapshot_check(doc, &err) < 0) {
		rc = cmd_usage_error("audit: %s is not a torch-dll-check report: %s", o.report ? o.report : "the check's output",
				     doc ? err.msg : "not JSON");
		goto out;
	}
	ctx.report = doc;
	if (history_open(&h, history_dir(o.history), &err) < 0 ||
	    history_append(h, runner, report.buf, report.len, when, audit_drift, &ctx, &w, &err) < 0) {
		rc = cmd_usage_error("audit: %s", err.msg);
		goto out;
	}
	drift_text(&out, runner, &w, &ctx);
	if (put_guarded(out.buf) < 0)
		goto out;
	if (!strcmp(format, "github")) {
		strbuf_reset(&out);
		drift_annotations(&out, runner, &ctx);
		out_commands(out.buf, out.len);
	}
	if (o.summary) {
		strbuf_reset(&out);
		drift_markdown(&out, runner, &w, &ctx);
		if (os_append_file(o.summary, out.buf, out.len, &err) < 0) {
			rc = cmd_usage_error("audit: %s", err.msg);
			goto out;
		}
	}
	if (o.json && write_audit_json(o.json, runner, history_dir(o.history), &w, &ctx, &err) < 0) {
		rc = cmd_usage_error("audit: %s", err.msg);
		goto out;
	}
	if (ctx.problem[0]) {
		/* Written, but the history is damaged: say so with a failing status. */
		rc = cmd_usage_error("audit: the snapshot was written, but %s", ctx.problem);
		goto out;
	}
	rc = EXIT_PASS;
	for (size_t i = 0; i < ctx.drift.n; i++)
		if (level >= 0 && (int)ctx.drift.v[i].severity <= level)
			rc = EXIT_FINDINGS;
out:
	cJSON_Delete(doc);
	drift_list_release(&ctx.drift);
	history_close(h);
	strbuf_release(&report);
	strbuf_release(&out);
	cli_args_release(&args);
	return rc;
}

/* ---- history --------------------------------------------------------------- */

struct timeline {
	struct strbuf text;
	cJSON *json;
	int with_runner; /* one line per runner (their latest) */
};

static void date_text(char buf[32], int64_t when)
{
	time_t t = (time_t)when;
	struct tm tm;
	if (when < 0) { /* unknown: an unreadable snapshot */
		snprintf(buf, 32, "-");
		return;
	}
#ifdef _WIN32
	if (gmtime_s(&tm, &t) != 0) {
#else
	if (!gmtime_r(&t, &tm)) {
#endif
		snprintf(buf, 32, "-");
		return;
	}
	strftime(buf, 32, "%Y-%m-%d %H:%M", &tm);
}

static int timeline_entry(void *vctx, const char *runner, const struct history_entry *e)
{
	struct timeline *tl = vctx;
	cJSON *d = e->drift_json ? cJSON_ParseWithLength(e->drift_json, e->drift_len) : NULL;
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(d, "status");
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(d, "changes");
	const cJSON *problem = cJSON_GetObjectItemCaseSensitive(d, "problem");
	int first = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "first"));
	long errors, warnings, notes;
	int counted = drift_json_counts(d, &errors, &warnings, &notes) == 0;
	const char *st = cJSON_IsString(status) ? status->valuestring : "?";
	char date[32];
	date_text(date, e->when);
	if (tl->json) {
		cJSON *o = cJSON_CreateObject();
		if (tl->with_runner)
			cJSON_AddStringToObject(o, "runner", runner);
		cJSON_AddStringToObject(o, "snapshot", e->sha);
		cJSON_AddNumberToObject(o, "time", (double)e->when);
		cJSON_AddStringToObject(o, "date", date);
		cJSON_AddStringToObject(o, "status", st);
		cJSON_AddBoolToObject(o, "first", first);
		if (d && counted) {
			cJSON_AddNumberToObject(o, "errors", (double)errors);
			cJSON_AddNumberToObject(o, "warnings", (double)warnings);
			cJSON_AddNumberToObject(o, "notes", (double)notes);
			cJSON_AddItemToObject(o, "changes", cJSON_Duplicate(changes, 1));
		}
		if (e->unreadable)
			cJSON_AddStringToObject(o, "problem", e->problem);
		else if (cJSON_IsString(problem))
			cJSON_AddStringToObject(o, "problem", problem->valuestring);
		else if (e->problem)
			cJSON_AddStringToObject(o, "problem", e->problem);
		if (e->not_fetched)
			cJSON_AddBoolToObject(o, "older_not_fetched", 1);
		cJSON_AddItemToArray(tl->json, o);
	} else {
		if (tl->with_runner) {
			text_esc_line(&tl->text, runner);
			strbuf_adds(&tl->text, "  ");
		}
		strbuf_addf(&tl->text, "%s  %-5s  %.12s  ", date, st, e->sha);
		if (e->unreadable)
			text_esc_line(&tl->text, e->problem);
		else if (!d || (!first && !cJSON_IsString(problem) && !counted))
			strbuf_adds(&tl->text, "drift unreadable");
		else if (first)
			strbuf_adds(&tl->text, "first snapshot");
		else if (cJSON_IsString(problem))
			strbuf_adds(&tl->text, "not compared");
		else if (!errors && !warnings && !notes)
			strbuf_adds(&tl->text, "no drift");
		else {
			const cJSON *c0 = cJSON_GetArrayItem(changes, 0);
			const cJSON *t = cJSON_GetObjectItemCaseSensitive(c0, "title");
			strbuf_addf(&tl->text, "%ld error(s), %ld warning(s), %ld note(s)", errors, warnings, notes);
			if (cJSON_IsString(t)) {
				strbuf_adds(&tl->text, ": ");
				text_esc_line(&tl->text, t->valuestring);
			}
		}
		strbuf_addch(&tl->text, '\n');
		if (e->not_fetched)
			strbuf_adds(&tl->text, "(older snapshots were not fetched: a shallow fetch; git fetch --unshallow, "
					       "or fetch-depth: 0)\n");
	}
	cJSON_Delete(d);
	return 0;
}

int cmd_git_history(int argc, char **argv)
{
	struct history_opts o;
	struct cli_args args = { 0 };
	struct history *h = NULL;
	struct timeline tl;
	struct strlist runners = STRLIST_INIT;
	struct err err;
	const char *runner;
	size_t limit = 0;
	int r, rc = EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	memset(&tl, 0, sizeof(tl));
	err_clear(&err);
	r = cli_parse(&history_cli, argc, argv, &o, &args);
	if (r) {
		cli_args_release(&args);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	if (o.limit) {
		char *end;
		unsigned long v = strtoul(o.limit, &end, 10);
		if (!*o.limit || *end || !v) {
			rc = cli_error(&history_cli, "--limit %s: expected a positive number", o.limit);
			goto out;
		}
		limit = v;
	}
	runner = o.runner ? o.runner : os_getenv("RUNNER_NAME");
	if (history_open(&h, history_dir(o.history), &err) < 0) {
		rc = cmd_usage_error("history: %s", err.msg);
		goto out;
	}
	if (o.json)
		tl.json = cJSON_CreateArray();
	if (runner && *runner) {
		if (history_walk(h, runner, limit, 0, timeline_entry, &tl, &err) < 0) {
			rc = cmd_usage_error("history: %s", err.msg);
			goto out;
		}
	} else {
		tl.with_runner = 1;
		if (history_runners(h, &runners, &err) < 0) {
			rc = cmd_usage_error("history: %s", err.msg);
			goto out;
		}
		for (size_t i = 0; i < runners.n; i++)
			if (history_walk(h, runners.v[i], 1, 0, timeline_entry, &tl, &err) < 0) {
				/* a ref that is no snapshot chain: its line says so, the others are listed */
				struct history_entry bad;
				memset(&bad, 0, sizeof(bad));
				bad.problem = err.msg;
				bad.unreadable = 1;
				bad.when = -1;
				timeline_entry(&tl, runners.v[i], &bad);
			}
	}
	if (tl.json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "schema", "torch-dll-check/history/v1");
		if (!tl.with_runner)
			cJSON_AddStringToObject(doc, "runner", runner);
		cJSON_AddItemToObject(doc, "snapshots", tl.json);
		tl.json = NULL;
		out_json(doc);
		cJSON_Delete(doc);
	} else {
		if (!tl.text.len)
			strbuf_adds(&tl.text, "no snapshots\n");
		if (put_guarded(tl.text.buf) < 0)
			goto out;
	}
	rc = EXIT_PASS;
out:
	cJSON_Delete(tl.json);
	strbuf_release(&tl.text);
	strlist_release(&runners);
	history_close(h);
	cli_args_release(&args);
	return rc;
}

/* ---- fleet ----------------------------------------------------------------- */

struct fleet_ctx {
	struct fleet *f;
	struct err *err;
	int failed;
};

static int fleet_entry(void *vctx, const char *runner, const struct history_entry *e)
{
	struct fleet_ctx *fc = vctx;
	cJSON *report = e->report_json ? cJSON_ParseWithLength(e->report_json, e->report_len) : NULL;
	cJSON *drift = e->drift_json ? cJSON_ParseWithLength(e->drift_json, e->drift_len) : NULL;
	struct err why;
	if (!report) {
		char m[ERR_MSG_MAX];
		snprintf(m, sizeof(m), "snapshot %.12s: %.900s", e->sha, e->problem ? e->problem : "report.json is not JSON");
		fleet_add_problem(fc->f, runner, e->unreadable ? -1 : e->when, e->unreadable ? e->problem : m);
	} else if (fleet_add(fc->f, runner, e->when, report, drift, &why) < 0) {
		fleet_add_problem(fc->f, runner, e->when, why.msg);
	}
	cJSON_Delete(report);
	cJSON_Delete(drift);
	return 1; /* the latest only */
}

static char *runner_from_file(const char *path)
{
	const char *base = path, *p;
	size_t n;
	for (p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	n = strlen(base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	return xstrndup(base, n);
}

int cmd_git_fleet(int argc, char **argv)
{
	struct fleet_opts o;
	struct cli_args args = { 0 };
	struct fleet f = FLEET_INIT;
	struct history *h = NULL;
	struct strlist runners = STRLIST_INIT;
	struct strbuf out = STRBUF_INIT, text = STRBUF_INIT;
	struct err err;
	const char *format;
	int r, rc = EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	err_clear(&err);
	r = cli_parse(&fleet_cli, argc, argv, &o, &args);
	if (r) {
		cli_args_release(&args);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	format = o.format ? o.format : "text";
	if (strcmp(format, "text") && strcmp(format, "markdown") && strcmp(format, "json")) {
		rc = cli_error(&fleet_cli, "--format %s: expected text, markdown or json", format);
		goto out;
	}
	if (!o.history && !args.n) {
		rc = cli_error(&fleet_cli, "give --history DIR or REPORT.json files");
		goto out;
	}
	for (int i = 0; i < args.n; i++) {
		cJSON *doc;
		char *name;
		strbuf_reset(&text);
		if (os_read_file(args.v[i], SNAPSHOT_MAX, &text, &err) < 0) {
			rc = cmd_usage_error("fleet: %s", err.msg);
			goto out;
		}
		doc = cJSON_ParseWithLength(text.buf ? text.buf : "", text.len);
		if (!doc) {
			rc = cmd_usage_error("fleet: %s: not JSON", args.v[i]);
			goto out;
		}
		name = runner_from_file(args.v[i]);
		r = fleet_add(&f, name, -1, doc, NULL, &err);
		free(name);
		cJSON_Delete(doc);
		if (r < 0) {
			rc = cmd_usage_error("fleet: %s: %s", args.v[i], err.msg);
			goto out;
		}
	}
	if (o.history) {
		struct fleet_ctx fc = { &f, &err, 0 };
		if (history_open(&h, o.history, &err) < 0 || history_runners(h, &runners, &err) < 0) {
			rc = cmd_usage_error("fleet: %s", err.msg);
			goto out;
		}
		/* one bad runner is a row saying why, never an empty table for everyone */
		for (size_t i = 0; i < runners.n; i++)
			if (history_walk(h, runners.v[i], 1, 1, fleet_entry, &fc, &err) < 0)
				fleet_add_problem(&f, runners.v[i], -1, err.msg);
	}
	fleet_sort(&f);
	if (!strcmp(format, "json")) {
		cJSON *doc = fleet_json(&f);
		out_json(doc);
		cJSON_Delete(doc);
	} else if (!strcmp(format, "markdown")) {
		fleet_markdown(&out, &f, 0);
		if (put_guarded(out.buf) < 0)
			goto out;
	} else {
		fleet_text(&out, &f);
		if (put_guarded(out.buf) < 0)
			goto out;
	}
	if (o.summary) {
		strbuf_reset(&out);
		fleet_markdown(&out, &f, SUMMARY_MAX);
		if (os_append_file(o.summary, out.buf, out.len, &err) < 0) {
			rc = cmd_usage_error("fleet: %s", err.msg);
			goto out;
		}
	}
	rc = EXIT_PASS;
out:
	fleet_release(&f);
	history_close(h);
	strlist_release(&runners);
	strbuf_release(&out);
	strbuf_release(&text);
	cli_args_release(&args);
	return rc;
}
