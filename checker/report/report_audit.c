/*
 * report_audit: the audit, history and fleet documents as text, annotations
 * and Markdown (see report_audit.h).
 */
#include "report/report_audit.h"

#include <string.h>

#include "report/report.h"
#include "util/text.h"

static size_t count_of(const cJSON *o, const char *key)
{
	long v = report_int(o, key, 0);
	return v > 0 ? (size_t)v : 0;
}

static const cJSON *changes_of(const cJSON *drift)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(drift, "changes");
	return cJSON_IsArray(c) ? c : NULL;
}

static int is_true(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static const char *str_or(const cJSON *o, const char *key, const char *def)
{
	const char *s = report_str(o, key);
	return s ? s : def;
}

/* ---- audit ---- */

void report_audit_text(struct strbuf *out, const cJSON *a)
{
	const cJSON *drift = cJSON_GetObjectItemCaseSensitive(a, "drift"), *c;
	long attempts = report_int(a, "attempts", 1);
	strbuf_adds(out, "audit: runner ");
	text_esc_line(out, str_or(a, "runner", "?"));
	strbuf_addf(out, ": snapshot %.12s written (status ", str_or(a, "snapshot", "?"));
	text_esc_line(out, str_or(a, "status", "?"));
	if (attempts > 1)
		strbuf_addf(out, "; %ld compare-and-swap attempts", attempts);
	strbuf_adds(out, ")\n");
	if (is_true(a, "first")) {
		strbuf_adds(out, "drift: none to report: this is the runner's first snapshot\n");
		return;
	}
	if (report_str(a, "problem")) {
		strbuf_adds(out, "drift: not compared: ");
		text_esc_line(out, report_str(a, "problem"));
		strbuf_addch(out, '\n');
		return;
	}
	strbuf_addf(out, "drift since %.12s: %zu error(s), %zu warning(s), %zu note(s)\n", str_or(a, "parent", "?"),
		    count_of(drift, "errors"), count_of(drift, "warnings"), count_of(drift, "notes"));
	cJSON_ArrayForEach(c, changes_of(drift)) {
		strbuf_addf(out, "  %-8s ", str_or(c, "severity", "note"));
		text_esc_line(out, report_str(c, "title"));
		strbuf_addch(out, '\n');
	}
}

static enum report_severity change_severity(const cJSON *c)
{
	enum report_severity s;
	return severity_parse(report_str(c, "severity"), &s) < 0 ? SEV_NOTE : s;
}

void report_audit_github(struct strbuf *out, const cJSON *a)
{
	const cJSON *changes = changes_of(cJSON_GetObjectItemCaseSensitive(a, "drift")), *c;
	struct report_annot_budget b;
	struct strbuf title = STRBUF_INIT, msg = STRBUF_INIT;
	size_t wanted[3] = { 0, 0, 0 };
	cJSON_ArrayForEach(c, changes)
		wanted[change_severity(c)]++;
	report_annot_budget_init(&b, wanted);
	cJSON_ArrayForEach(c, changes) {
		if (!report_annot_take(&b, change_severity(c)))
			continue;
		strbuf_reset(&title);
		strbuf_reset(&msg);
		strbuf_adds(&title, "torch-dll-check drift on ");
		text_esc_line(&title, str_or(a, "runner", "?"));
		text_esc_line(&msg, report_str(c, "title"));
		report_annotation(out, change_severity(c), NULL, 0, 0, title.buf, msg.buf);
	}
	if (report_annot_left(&b)) {
		strbuf_reset(&msg);
		strbuf_addf(&msg, "%zu more drift finding(s) not annotated; see the job summary or --json",
			    report_annot_left(&b));
		report_annotation(out, SEV_NOTE, NULL, 0, 0, "torch-dll-check drift", msg.buf);
	}
	strbuf_release(&title);
	strbuf_release(&msg);
}

void report_audit_markdown(struct strbuf *out, const cJSON *a, size_t max)
{
	const cJSON *drift = cJSON_GetObjectItemCaseSensitive(a, "drift"), *changes = changes_of(drift), *c;
	size_t left, start = out->len;
	strbuf_adds(out, "## torch-dll-check audit: ");
	report_esc_md(out, str_or(a, "runner", "?"));
	strbuf_addf(out, "\n\nSnapshot `%.12s`, status **", str_or(a, "snapshot", "?"));
	report_esc_md(out, str_or(a, "status", "?"));
	strbuf_adds(out, "**. ");
	if (is_true(a, "first")) {
		strbuf_adds(out, "First snapshot of this runner: nothing to compare yet.\n\n");
		return;
	}
	if (report_str(a, "problem")) {
		strbuf_adds(out, "Drift not compared: ");
		report_esc_md(out, report_str(a, "problem"));
		strbuf_adds(out, "\n\n");
		return;
	}
	strbuf_addf(out, "Since `%.12s`: %zu error(s), %zu warning(s), %zu note(s).\n\n", str_or(a, "parent", "?"),
		    count_of(drift, "errors"), count_of(drift, "warnings"), count_of(drift, "notes"));
	if (!cJSON_GetArraySize(changes))
		return;
	strbuf_adds(out, "| severity | change |\n|---|---|\n");
	left = (size_t)cJSON_GetArraySize(changes);
	cJSON_ArrayForEach(c, changes) {
		strbuf_adds(out, "| ");
		report_esc_md(out, str_or(c, "severity", "note"));
		strbuf_adds(out, " | ");
		report_esc_md(out, report_str(c, "title"));
		strbuf_adds(out, " |\n");
		left--;
		if (max && out->len - start > max - 4096 && left) {
			strbuf_addf(out, "\n%zu more change(s) left out (size limit); see --json.\n", left);
			break;
		}
	}
	strbuf_addch(out, '\n');
}

/* ---- history ---- */

/* Drift kinds whose change is a version (or a presence) before and after: what a timeline says changed. */
static int is_version_change(const cJSON *c)
{
	static const char *const kinds[] = { "redistributable", "runtime-dll", "openmp", "install" };
	const char *k = report_str(c, "kind");
	for (size_t i = 0; k && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(k, kinds[i]))
			return 1;
	return 0;
}

/* Shown per snapshot, then "and N more" (the JSON has them all). */
#define HISTORY_CHANGES 3

/* Whether the snapshot's failure is news: its first one, or drift that made or changed a failure. */
static int failure_is_news(const cJSON *e)
{
	const cJSON *c;
	if (is_true(e, "first") || count_of(e, "errors"))
		return 1;
	cJSON_ArrayForEach(c, changes_of(e))
		if (report_str(c, "kind") && !strcmp(report_str(c, "kind"), "status"))
			return 1;
	return 0;
}

/*
 * What drifted, under a snapshot's line: the error it fails on (its first
 * error's title) when that is news, and what changed, before -> after.
 */
static void history_detail(struct strbuf *out, const cJSON *e, int with_runner)
{
	const char *indent = with_runner ? "      " : "    ";
	const cJSON *c;
	size_t shown = 0, more = 0;
	if (report_str(e, "first_error") && report_str(e, "status") && !strcmp(report_str(e, "status"), "fail") &&
	    failure_is_news(e)) {
		strbuf_addf(out, "%sfails on: ", indent);
		text_esc_line(out, report_str(e, "first_error"));
		strbuf_addch(out, '\n');
	}
	cJSON_ArrayForEach(c, changes_of(e)) {
		if (!is_version_change(c))
			continue;
		if (shown == HISTORY_CHANGES) {
			more++;
			continue;
		}
		strbuf_addf(out, "%schanged: ", indent);
		text_esc_line(out, report_str(c, "key"));
		strbuf_adds(out, "  ");
		text_esc_line(out, str_or(c, "old", "(absent)"));
		strbuf_adds(out, " -> ");
		text_esc_line(out, str_or(c, "new", "(absent)"));
		strbuf_addch(out, '\n');
		shown++;
	}
	if (more)
		strbuf_addf(out, "%sand %zu more change(s) (history --json)\n", indent, more);
}

static void history_line(struct strbuf *out, const cJSON *e, int with_runner)
{
	const cJSON *changes = changes_of(e);
	size_t errors = count_of(e, "errors"), warnings = count_of(e, "warnings"), notes = count_of(e, "notes");
	if (with_runner) {
		text_esc_line(out, str_or(e, "runner", "?"));
		strbuf_adds(out, "  ");
	}
	strbuf_addf(out, "%s  %-5s  %.12s  ", str_or(e, "date", "-"), str_or(e, "status", "?"), str_or(e, "snapshot", "?"));
	if (is_true(e, "unreadable"))
		text_esc_line(out, str_or(e, "problem", "unreadable"));
	else if (is_true(e, "first"))
		strbuf_adds(out, "first snapshot");
	else if (!changes && !report_str(e, "problem"))
		strbuf_adds(out, "drift unreadable");
	else if (report_str(e, "problem"))
		strbuf_adds(out, "not compared");
	else if (!errors && !warnings && !notes)
		strbuf_adds(out, "no drift");
	else {
		const char *t = report_str(cJSON_GetArrayItem(changes, 0), "title");
		strbuf_addf(out, "%zu error(s), %zu warning(s), %zu note(s)", errors, warnings, notes);
		if (t) {
			strbuf_adds(out, ": ");
			text_esc_line(out, t);
		}
	}
	strbuf_addch(out, '\n');
	history_detail(out, e, with_runner);
	if (is_true(e, "older_not_fetched"))
		strbuf_adds(out, "(older snapshots were not fetched: a shallow fetch; git fetch --unshallow, or fetch-depth: 0)\n");
}

void report_history_text(struct strbuf *out, const cJSON *h)
{
	const cJSON *snaps = cJSON_GetObjectItemCaseSensitive(h, "snapshots"), *e;
	int with_runner = !report_str(h, "runner");
	size_t start = out->len;
	cJSON_ArrayForEach(e, snaps)
		history_line(out, e, with_runner);
	if (out->len == start)
		strbuf_adds(out, "no snapshots\n");
}

/* ---- fleet ---- */

#define NCOLS 9

static const char *const fleet_headers[NCOLS] = { "runner", "snapshot (UTC)", "torch", "install", "verdict",
						  "VC++ redist", "OpenMP runtimes", "first error", "drift since previous" };
static const char *const fleet_keys[NCOLS] = { "runner", "snapshot", "torch", "install", "verdict",
					       "redistributable", "openmp", "first_error", "drift" };

static const char *fleet_cell(const cJSON *row, int i)
{
	return str_or(row, fleet_keys[i], "-");
}

/* The last cell, "drift since previous", with what drifted: "1 note(s): msvcp140.dll changed: a -> b". */
static void fleet_drift_cell(struct strbuf *out, const cJSON *row, void (*esc)(struct strbuf *, const char *))
{
	esc(out, fleet_cell(row, NCOLS - 1));
	if (report_str(row, "drift_change")) {
		strbuf_adds(out, ": ");
		esc(out, report_str(row, "drift_change"));
	}
}

static int fleet_row_fails(const cJSON *row)
{
	const char *v = report_str(row, "verdict");
	return v && !strcmp(v, "fail");
}

static const cJSON *fleet_rows(const cJSON *f)
{
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(f, "rows");
	return cJSON_IsArray(r) ? r : NULL;
}

void report_fleet_text(struct strbuf *out, const cJSON *f)
{
	size_t w[NCOLS];
	struct strbuf esc = STRBUF_INIT;
	const cJSON *rows = fleet_rows(f), *r;
	for (int i = 0; i < NCOLS; i++)
		w[i] = strlen(fleet_headers[i]);
	/* Widths of the escaped cells; the last column is not padded. */
	cJSON_ArrayForEach(r, rows)
		for (int i = 0; i < NCOLS - 1; i++) {
			strbuf_reset(&esc);
			text_esc_line(&esc, fleet_cell(r, i));
			if (esc.len > w[i])
				w[i] = esc.len;
		}
	for (int i = 0; i < NCOLS; i++)
		strbuf_addf(out, i < NCOLS - 1 ? "%-*s  " : "%-*s\n", (int)(i < NCOLS - 1 ? w[i] : 0), fleet_headers[i]);
	cJSON_ArrayForEach(r, rows)
		for (int i = 0; i < NCOLS; i++) {
			strbuf_reset(&esc);
			if (i == NCOLS - 1)
				fleet_drift_cell(&esc, r, text_esc_line);
			else
				text_esc_line(&esc, fleet_cell(r, i));
			strbuf_addf(out, i < NCOLS - 1 ? "%-*s  " : "%-*s\n", (int)(i < NCOLS - 1 ? w[i] : 0),
				    strbuf_str(&esc));
		}
	strbuf_addf(out, "%zu runner(s), %d row(s)\n", count_of(f, "runners"), cJSON_GetArraySize(rows));
	strbuf_release(&esc);
}

/*
 * The job summary's fleet: a narrow table GitHub shows whole at its page
 * width (runner, verdict, torch, drift: the four a reader scans), then one
 * folded block per row whose <summary> line names the first error, holding
 * every other column (snapshot, install, VC++ redist, OpenMP runtimes,
 * first error, what drifted). The text and JSON forms keep all 9 columns.
 */
void report_fleet_markdown(struct strbuf *out, const cJSON *f, size_t max)
{
	static const int narrow[] = { 0, 4, 2, 8 }; /* runner, verdict, torch, drift */
	struct strbuf row = STRBUF_INIT;
	const cJSON *rows = fleet_rows(f), *r;
	size_t start = out->len, failing = 0, shown = 0, n = (size_t)cJSON_GetArraySize(rows), k;
	cJSON_ArrayForEach(r, rows)
		failing += fleet_row_fails(r);
	strbuf_addf(out, "## torch-dll-check fleet: %zu runner(s), %zu install row(s), %zu failing\n\n",
		    count_of(f, "runners"), n, failing);
	for (k = 0; k < sizeof(narrow) / sizeof(narrow[0]); k++)
		strbuf_addf(out, "| %s ", fleet_headers[narrow[k]]);
	strbuf_adds(out, "|\n");
	for (k = 0; k < sizeof(narrow) / sizeof(narrow[0]); k++)
		strbuf_adds(out, "|---");
	strbuf_adds(out, "|\n");
	cJSON_ArrayForEach(r, rows) {
		int bold = fleet_row_fails(r);
		strbuf_reset(&row);
		for (k = 0; k < sizeof(narrow) / sizeof(narrow[0]); k++) {
			strbuf_adds(&row, "| ");
			if (narrow[k] == 4 && bold)
				strbuf_adds(&row, "**");
			report_esc_md(&row, fleet_cell(r, narrow[k]));
			if (narrow[k] == 4 && bold)
				strbuf_adds(&row, "**");
			strbuf_addch(&row, ' ');
		}
		strbuf_adds(&row, "|\n");
		/* Keep room for the details and the closing line. */
		if (max && out->len - start + row.len + 200 > max / 2)
			break;
		strbuf_add(out, row.buf, row.len);
		shown++;
	}
	if (shown)
		strbuf_adds(out, "\n");
	/* the details, row by row, in the table's order */
	k = 0;
	cJSON_ArrayForEach(r, rows) {
		if (k++ == shown)
			break;
		strbuf_reset(&row);
		strbuf_adds(&row, "<details><summary><b>");
		report_esc_html(&row, fleet_cell(r, 0));
		strbuf_adds(&row, "</b>");
		if (strcmp(fleet_cell(r, 2), "-")) {
			strbuf_adds(&row, ", torch ");
			report_esc_html(&row, fleet_cell(r, 2));
		}
		strbuf_adds(&row, ": ");
		report_esc_html(&row, fleet_cell(r, 4));
		if (strcmp(fleet_cell(r, 7), "-")) {
			strbuf_adds(&row, " — ");
			report_esc_html(&row, fleet_cell(r, 7));
		}
		strbuf_adds(&row, "</summary>\n\n| field | value |\n|---|---|\n");
		for (int i = 1; i < NCOLS; i++) {
			if (i == 2 || i == 4)
				continue; /* in the line above */
			strbuf_addf(&row, "| %s | ", fleet_headers[i]);
			if (i == NCOLS - 1)
				fleet_drift_cell(&row, r, report_esc_md);
			else
				report_esc_md(&row, fleet_cell(r, i));
			strbuf_adds(&row, " |\n");
		}
		strbuf_adds(&row, "\n</details>\n\n");
		if (max && out->len - start + row.len + 200 > max)
			break;
		strbuf_add(out, row.buf, row.len);
	}
	if (shown < n)
		strbuf_addf(out, "\n%zu more row(s) left out to stay within the summary's size limit; the JSON "
				 "form has them all.\n", n - shown);
	strbuf_release(&row);
}
