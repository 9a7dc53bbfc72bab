/*
 * cmd_fleet (torch-dll-check-git): `fleet`, one table across runners from
 * each runner's latest snapshot (git/git_history.h) or from report files
 * (audit/fleet.h builds the rows). The option table is in cli/cmd_audit.c.
 *
 * One document, the fleet table (schema torch-dll-check/fleet/v1): --format
 * json prints it; text and Markdown (stdout, and --summary cut to GitHub's
 * 1 MiB) are rendered from it by report/report_audit.h.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/fleet.h"
#include "cli/cmd.h"
#include "cli/cmd_audit.h"
#include "cli/out.h"
#include "git/git_history.h"
#include "report/report.h"
#include "report/report_audit.h"
#include "util/jsonout.h"
#include "util/os.h"

struct fleet_ctx {
	struct fleet *f;
	struct err *err;
	int failed;
	struct strlist changed; /* "runner\0what changed" pairs: runner, then its drift's version change */
};

/*
 * What a runner's latest drift changed, for the table: the first change of
 * a version (a redistributable, a runtime DLL, libomp140, a torch install),
 * else the first change; NULL when none.
 */
static const char *drift_change(const cJSON *drift)
{
	static const char *const kinds[] = { "redistributable", "runtime-dll", "openmp", "install" };
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(drift, "changes"), *c;
	cJSON_ArrayForEach(c, changes) {
		const char *k = report_str(c, "kind");
		for (size_t i = 0; k && i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(k, kinds[i]))
				return report_str(c, "title");
	}
	return report_str(cJSON_GetArrayItem(changes, 0), "title");
}

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
	} else if (drift_change(drift)) {
		strlist_push(&fc->changed, runner);
		strlist_push(&fc->changed, drift_change(drift));
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

/* The rows of REPORT.json operands, each named after its file. -1 after printing. */
static int add_files(struct fleet *f, const struct cli_args *args)
{
	struct strbuf text = STRBUF_INIT;
	struct err err;
	int rc = 0;
	err_clear(&err);
	for (int i = 0; !rc && i < args->n; i++) {
		cJSON *doc;
		char *name;
		strbuf_reset(&text);
		if (os_read_file(args->v[i], AUDIT_SNAPSHOT_MAX, &text, &err) < 0) {
			rc = cmd_usage_error("fleet: %s", err.msg);
			break;
		}
		doc = cJSON_ParseWithLength(text.buf ? text.buf : "", text.len);
		if (!doc) {
			rc = cmd_usage_error("fleet: %s: not JSON", args->v[i]);
			break;
		}
		name = runner_from_file(args->v[i]);
		if (fleet_add(f, name, -1, doc, NULL, &err) < 0)
			rc = cmd_usage_error("fleet: %s: %s", args->v[i], err.msg);
		free(name);
		cJSON_Delete(doc);
	}
	strbuf_release(&text);
	return rc ? -1 : 0;
}

/* Every runner's latest snapshot in the history; `changed` gets what each one's drift changed. -1 after printing. */
static int add_history(struct fleet *f, const char *dir, struct strlist *changed)
{
	struct history *h = NULL;
	struct strlist runners = STRLIST_INIT;
	struct err err;
	struct fleet_ctx fc = { f, &err, 0, STRLIST_INIT };
	int rc = 0;
	err_clear(&err);
	if (history_open(&h, dir, &err) < 0 || history_runners(h, &runners, &err) < 0)
		rc = -1;
	/* one bad runner is a row saying why, never an empty table for everyone */
	for (size_t i = 0; !rc && i < runners.n; i++)
		if (history_walk(h, runners.v[i], 1, 1, fleet_entry, &fc, &err) < 0)
			fleet_add_problem(f, runners.v[i], -1, err.msg);
	if (rc)
		cmd_usage_error("fleet: %s", err.msg);
	*changed = fc.changed;
	strlist_release(&runners);
	history_close(h);
	return rc;
}

/* The table's rows say what drifted: "drift_change" from the runner's latest drift. */
static void add_changes(cJSON *doc, const struct strlist *changed)
{
	const cJSON *row;
	cJSON_ArrayForEach(row, cJSON_GetObjectItemCaseSensitive(doc, "rows")) {
		const char *runner = report_str(row, "runner");
		const char *what = NULL;
		for (size_t i = 0; runner && i + 1 < changed->n; i += 2)
			if (!strcmp(changed->v[i], runner))
				what = changed->v[i + 1];
		json_add_str_or_null((cJSON *)row, "drift_change", what);
	}
}

static void fleet_markdown(struct strbuf *out, const cJSON *doc)
{
	report_fleet_markdown(out, doc, 0);
}

/*
 * What each --format of fleet writes to stdout (REPORT_FORMATS_FLEET names
 * them): the table as text inside the guard, the table as Markdown, or the
 * document (escaped JSON). A format with neither is a usage error, never
 * another format's output.
 */
static const struct {
	void (*text)(struct strbuf *out, const cJSON *doc);
	int json;
} fleet_formats[REPORT_FMT_COUNT] = {
	[REPORT_FMT_TEXT] = { report_fleet_text, 0 },
	[REPORT_FMT_MARKDOWN] = { fleet_markdown, 0 },
	[REPORT_FMT_JSON] = { NULL, 1 },
};

int cmd_git_fleet(int argc, char **argv)
{
	struct fleet_opts o;
	struct cli_args args = { 0 };
	struct fleet f = FLEET_INIT;
	struct strbuf out = STRBUF_INIT;
	struct strlist changed = STRLIST_INIT;
	struct err err;
	enum report_format format;
	int r, rc = EXIT_USAGE;
	cJSON *doc = NULL;

	memset(&o, 0, sizeof(o));
	err_clear(&err);
	r = cli_parse(&fleet_cli, argc, argv, &o, &args);
	if (r) {
		cli_args_release(&args);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	format = o.format != REPORT_FMT_AUTO ? o.format : REPORT_FMT_TEXT;
	if (!o.history && !args.n) {
		rc = cli_error(&fleet_cli, "give --history DIR or REPORT.json files");
		goto out;
	}
	if (add_files(&f, &args) < 0 || (o.history && add_history(&f, o.history, &changed) < 0))
		goto out;
	fleet_sort(&f);
	doc = fleet_json(&f);
	add_changes(doc, &changed);
	if ((size_t)format >= REPORT_FMT_COUNT || !fleet_formats[format].json == !fleet_formats[format].text) {
		rc = cmd_usage_error("fleet: --format %s is not a form fleet writes", report_format_name(format));
		goto out;
	}
	if (fleet_formats[format].json) {
		out_json(doc);
	} else {
		fleet_formats[format].text(&out, doc);
		if (out_text(out.buf, out.len) < 0)
			goto out;
	}
	if (o.summary) {
		strbuf_reset(&out);
		report_fleet_markdown(&out, doc, REPORT_SUMMARY_MAX);
		if (os_append_file(o.summary, out.buf, out.len, &err) < 0) {
			rc = cmd_usage_error("fleet: %s", err.msg);
			goto out;
		}
	}
	rc = EXIT_PASS;
out:
	cJSON_Delete(doc);
	fleet_release(&f);
	strlist_release(&changed);
	strbuf_release(&out);
	cli_args_release(&args);
	return rc;
}
