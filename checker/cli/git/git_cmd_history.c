/*
 * cmd_history (torch-dll-check-git): `history`, a runner's audit timeline
 * (or every runner's latest snapshot) from refs/torch-dll-check/<runner>
 * (git/git_history.h). The option table is in cli/cmd_audit.c.
 *
 * One document, the timeline (schema torch-dll-check/history/v1), built
 * here from the snapshots' drift; --json prints it, the text is rendered
 * from it by report/report_audit.h, inside the stop-commands guard under
 * Actions.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cmd.h"
#include "cli/cmd_audit.h"
#include "audit/drift.h"
#include "cli/out.h"
#include "git/git_history.h"
#include "report/report.h"
#include "report/report_audit.h"
#include "util/jsonout.h"
#include "util/os.h"

struct timeline {
	cJSON *snapshots;
	int with_runner; /* one entry per runner (their latest) */
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

/*
 * The title of a report's most important error (report.h's ranking: the root
 * cause said first everywhere), or NULL: what a failing snapshot failed on.
 */
static char *first_error(const struct history_entry *e)
{
	cJSON *doc = e->report_json ? cJSON_ParseWithLength(e->report_json, e->report_len) : NULL;
	struct report_view v;
	struct err err;
	char *title = NULL;
	if (doc && report_view_init(&v, doc, &err) == 0) {
		if (v.ncauses && v.causes[0].sev == SEV_ERROR) {
			const char *t = report_str(report_cause_finding(&v, &v.causes[0]), "title");
			title = t ? xstrdup(t) : NULL;
		}
		report_view_release(&v);
	}
	cJSON_Delete(doc);
	return title;
}

/* history_walk_fn: one snapshot's entry of the timeline. */
static int timeline_entry(void *vctx, const char *runner, const struct history_entry *e)
{
	struct timeline *tl = vctx;
	cJSON *d = e->drift_json ? cJSON_ParseWithLength(e->drift_json, e->drift_len) : NULL;
	const cJSON *status = cJSON_GetObjectItemCaseSensitive(d, "status");
	const cJSON *changes = cJSON_GetObjectItemCaseSensitive(d, "changes");
	const cJSON *problem = cJSON_GetObjectItemCaseSensitive(d, "problem");
	cJSON *o = cJSON_CreateObject();
	long errors, warnings, notes;
	char date[32];
	date_text(date, e->when);
	if (tl->with_runner)
		cJSON_AddStringToObject(o, "runner", runner);
	cJSON_AddStringToObject(o, "snapshot", e->sha);
	cJSON_AddNumberToObject(o, "time", (double)e->when);
	cJSON_AddStringToObject(o, "date", date);
	cJSON_AddStringToObject(o, "status", cJSON_IsString(status) ? status->valuestring : "?");
	cJSON_AddBoolToObject(o, "first", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "first")));
	if (d && drift_json_counts(d, &errors, &warnings, &notes) == 0) {
		cJSON_AddNumberToObject(o, "errors", (double)errors);
		cJSON_AddNumberToObject(o, "warnings", (double)warnings);
		cJSON_AddNumberToObject(o, "notes", (double)notes);
		cJSON_AddItemToObject(o, "changes", cJSON_Duplicate(changes, 1));
	}
	if (e->unreadable) {
		cJSON_AddStringToObject(o, "problem", e->problem);
		cJSON_AddBoolToObject(o, "unreadable", 1);
	} else if (cJSON_IsString(problem)) {
		cJSON_AddStringToObject(o, "problem", problem->valuestring);
	} else if (e->problem) {
		cJSON_AddStringToObject(o, "problem", e->problem);
	}
	if (e->not_fetched)
		cJSON_AddBoolToObject(o, "older_not_fetched", 1);
	{
		char *fe = first_error(e);
		json_add_str_or_null(o, "first_error", fe);
		free(fe);
	}
	cJSON_AddItemToArray(tl->snapshots, o);
	cJSON_Delete(d);
	return 0;
}

/* Walks one runner's snapshots (newest first, at most `limit`, 0: all) or every runner's latest. */
static int timeline_walk(struct history *h, const char *runner, size_t limit, struct timeline *tl, struct err *err)
{
	struct strlist runners = STRLIST_INIT;
	int rc = 0;
	if (runner && *runner)
		return history_walk(h, runner, limit, 1, timeline_entry, tl, err);
	tl->with_runner = 1;
	if (history_runners(h, &runners, err) < 0)
		rc = -1;
	for (size_t i = 0; !rc && i < runners.n; i++)
		if (history_walk(h, runners.v[i], 1, 1, timeline_entry, tl, err) < 0) {
			/* a ref that is no snapshot chain: its line says so, the others are listed */
			struct history_entry bad;
			memset(&bad, 0, sizeof(bad));
			bad.problem = err->msg;
			bad.unreadable = 1;
			bad.when = -1;
			timeline_entry(tl, runners.v[i], &bad);
		}
	strlist_release(&runners);
	return rc;
}

int cmd_git_history(int argc, char **argv)
{
	struct history_opts o;
	struct cli_args args = { 0 };
	struct history *h = NULL;
	struct timeline tl;
	struct err err;
	const char *runner;
	size_t limit = 0;
	int r, rc = EXIT_USAGE;
	cJSON *doc = NULL;

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
	if (history_open(&h, audit_history_dir(o.history), &err) < 0) {
		rc = cmd_usage_error("history: %s", err.msg);
		goto out;
	}
	doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "schema", HISTORY_SCHEMA);
	tl.snapshots = cJSON_CreateArray();
	if (timeline_walk(h, runner, limit, &tl, &err) < 0) {
		cJSON_Delete(tl.snapshots);
		rc = cmd_usage_error("history: %s", err.msg);
		goto out;
	}
	if (!tl.with_runner)
		cJSON_AddStringToObject(doc, "runner", runner);
	cJSON_AddItemToObject(doc, "snapshots", tl.snapshots);
	if (o.json) {
		out_json(doc);
	} else {
		struct strbuf text = STRBUF_INIT;
		report_history_text(&text, doc);
		r = out_text(text.buf, text.len);
		strbuf_release(&text);
		if (r < 0)
			goto out;
	}
	rc = EXIT_PASS;
out:
	cJSON_Delete(doc);
	history_close(h);
	cli_args_release(&args);
	return rc;
}
