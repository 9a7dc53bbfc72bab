/*
 * cmd_audit (torch-dll-check-git): `audit`, the nightly audit of one runner:
 * check it, keep the report as a snapshot commit (git/git_history.h), and
 * say what drifted since the previous night (audit/drift.h). The option
 * table is in cli/cmd_audit.c; docs/audit.md is the user's guide.
 *
 * Everything said comes from one document, the audit document (schema
 * torch-dll-check/audit/v1: snapshot, parent, drift), built once here and
 * rendered by report/report_audit.h: the text (inside the stop-commands
 * guard under Actions), the annotations, the Markdown for --summary, and
 * --json FILE (the document itself).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit/drift.h"
#include "cli/cmd.h"
#include "cli/cmd_audit.h"
#include "cli/out.h"
#include "git/git_history.h"
#include "report/report.h"
#include "report/report_audit.h"
#include "util/jsonout.h"
#include "util/os.h"

#define CHECK_TIMEOUT_MS (30u * 60u * 1000u)

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

/* The audit document (AUDIT_SCHEMA): what --json writes and every renderer reads. */
static cJSON *audit_doc(const char *runner, const char *dir, const struct history_written *w,
			const struct audit_ctx *ctx)
{
	cJSON *doc = cJSON_CreateObject();
	struct strbuf ref = STRBUF_INIT;
	struct err err;
	history_ref_name(runner, &ref, &err);
	cJSON_AddStringToObject(doc, "schema", AUDIT_SCHEMA);
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
	cJSON_AddItemToObject(doc, "drift", drift_to_json(&ctx->drift));
	strbuf_release(&ref);
	return doc;
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

/* The option checks that need no machine: -1 after printing (cli_error). */
static int audit_check_opts(const struct audit_opts *o, const struct cli_args *args, const char *runner,
			    int *level, int64_t *when)
{
	struct strbuf ref = STRBUF_INIT;
	struct err err;
	int r;
	if (!runner || !*runner)
		return cli_error(&audit_cli, "no runner name: give --runner NAME (or set RUNNER_NAME)"), -1;
	if (fail_on_level(o->fail_on, level) < 0) {
		static const char *const words[] = { "error", "warning", "note", "never", NULL };
		const char *near = str_nearest(o->fail_on, words);
		return cli_error(&audit_cli, "--fail-on %s: expected error, warning, note or never%s%s%s", o->fail_on,
				 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : ""), -1;
	}
	if (parse_date(o->date, when) < 0)
		return cli_error(&audit_cli, "--date %s: expected seconds since 1970", o->date), -1;
	if (o->report && args->n)
		return cli_error(&audit_cli, "--report and CHECK-OPTIONS do not go together: the report is the check"), -1;
	err_clear(&err);
	r = history_ref_name(runner, &ref, &err);
	strbuf_release(&ref);
	if (r < 0)
		return cli_error(&audit_cli, "%s", err.msg), -1;
	return 0;
}

/*
 * What each --format of audit writes to stdout (REPORT_FORMATS_AUDIT names
 * them): the text (guarded) always, and for github the annotations after it.
 * A format not written here is a usage error, never another format's output.
 */
static const struct {
	int takes;
	void (*annotations)(struct strbuf *out, const cJSON *audit);
} audit_formats[REPORT_FMT_COUNT] = {
	[REPORT_FMT_TEXT] = { 1, NULL },
	[REPORT_FMT_GITHUB] = { 1, report_audit_github },
};

/* Says it: the text (guarded), the annotations, --summary, --json. 0, or -1 after printing. */
static int audit_say(const cJSON *doc, const struct audit_opts *o, enum report_format format)
{
	struct strbuf out = STRBUF_INIT;
	struct err err;
	int rc = 0;
	err_clear(&err);
	if ((size_t)format >= REPORT_FMT_COUNT || !audit_formats[format].takes) {
		cmd_usage_error("audit: --format %s is not a form audit writes", report_format_name(format));
		return -1;
	}
	report_audit_text(&out, doc);
	if (out_text(out.buf, out.len) < 0) {
		strbuf_release(&out);
		return -1; /* main says why (out_finish) */
	}
	if (audit_formats[format].annotations) {
		strbuf_reset(&out);
		audit_formats[format].annotations(&out, doc);
		out_commands(out.buf, out.len);
	}
	if (o->summary) {
		strbuf_reset(&out);
		report_audit_markdown(&out, doc, REPORT_SUMMARY_MAX);
		if (os_append_file(o->summary, out.buf, out.len, &err) < 0)
			rc = -1;
	}
	if (!rc && o->json) {
		strbuf_reset(&out);
		json_print(&out, doc, 1);
		strbuf_addch(&out, '\n');
		if (out_is_stdout(o->json))
			rc = fwrite(out.buf, 1, out.len, stdout) == out.len ? 0 : (err_set(&err, "cannot write to stdout"), -1);
		else if (os_write_file_atomic(o->json, out.buf, out.len, &err) < 0)
			rc = -1;
	}
	if (rc < 0)
		cmd_usage_error("audit: %s", err.msg);
	strbuf_release(&out);
	return rc;
}

/*
 * audit takes check's options directly as well as after `--`: every option
 * audit does not know but `check` does moves, with its value, to the
 * CHECK-OPTIONS (after a "--" appended at the end); audit's own (--json,
 * --format, --summary, --fail-on, ...) stay audit's, so check's options of
 * those names go after `--`. Returns a new argv (caller frees the array).
 */
static char **split_check_options(int argc, char **argv, int *out_argc)
{
	char **own = xcalloc((size_t)argc + 2, sizeof(*own)), **chk = xcalloc((size_t)argc + 1, sizeof(*chk));
	int n = 0, m = 0, i;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const struct cli_opt *co;
		if (i > 0 && !strcmp(a, "--")) {
			for (; i < argc; i++)
				own[n++] = argv[i];
			break;
		}
		if (i == 0 || a[0] != '-' || !a[1] || cli_lookup(&audit_cli, a) || !(co = cli_lookup(&check_cli, a))) {
			own[n++] = argv[i];
			continue;
		}
		chk[m++] = argv[i];
		if (co->arg && !strchr(a, '=') && i + 1 < argc &&
		    (!(co->flags & CLI_MAYBE_VALUE) || argv[i + 1][0] != '-' || !argv[i + 1][1]))
			chk[m++] = argv[++i];
	}
	if (m) {
		int had_dashes = 0;
		for (i = 1; i < n; i++)
			had_dashes |= !strcmp(own[i], "--");
		if (!had_dashes)
			own[n++] = "--";
		for (i = 0; i < m; i++)
			own[n++] = chk[i];
	}
	own[n] = NULL;
	free(chk);
	*out_argc = n;
	return own;
}

int cmd_git_audit(int argc, char **argv)
{
	struct audit_opts o;
	struct cli_args args = { 0 };
	struct strbuf report = STRBUF_INIT;
	struct audit_ctx ctx;
	struct history *h = NULL;
	struct history_written w;
	struct err err;
	const char *runner;
	enum report_format format;
	int64_t when;
	int level, rc = EXIT_USAGE, r, nsplit;
	char **split;
	cJSON *doc = NULL, *audit = NULL;

	memset(&o, 0, sizeof(o));
	memset(&ctx, 0, sizeof(ctx));
	err_clear(&err);
	split = split_check_options(argc, argv, &nsplit);
	r = cli_parse(&audit_cli, nsplit, split, &o, &args);
	if (r) {
		cli_args_release(&args);
		free(split);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	runner = o.runner ? o.runner : os_getenv("RUNNER_NAME");
	format = o.format != REPORT_FMT_AUTO ? o.format : out_in_actions() ? REPORT_FMT_GITHUB : REPORT_FMT_TEXT;
	if (audit_check_opts(&o, &args, runner, &level, &when) < 0)
		goto out;
	if (o.report ? os_read_file(o.report, AUDIT_SNAPSHOT_MAX, &report, &err) < 0
		     : take_snapshot(&args, &report, &err) < 0) {
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
	if (history_open(&h, audit_history_dir(o.history), &err) < 0 ||
	    history_append(h, runner, report.buf, report.len, when, audit_drift, &ctx, &w, &err) < 0) {
		rc = cmd_usage_error("audit: %s", err.msg);
		goto out;
	}
	audit = audit_doc(runner, audit_history_dir(o.history), &w, &ctx);
	if (audit_say(audit, &o, format) < 0)
		goto out;
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
	cJSON_Delete(audit);
	cJSON_Delete(doc);
	drift_list_release(&ctx.drift);
	history_close(h);
	strbuf_release(&report);
	cli_args_release(&args);
	free(split);
	return rc;
}
