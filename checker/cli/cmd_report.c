/*
 * cmd_report: `torch-dll-check report --in report.json [options]` renders a
 * saved JSON report, and report_run() is what `check` calls with the
 * document it built, so both commands share one option set and one output
 * path:
 *
 *   --format text|json|github|sarif   what goes to stdout (default: github
 *                                     when GITHUB_ACTIONS=true, else text)
 *   --json FILE, --sarif FILE         files written whole (temp + rename);
 *                                     a bare --json means --format json
 *   --summary FILE, --outputs FILE    appended; in github format they default
 *                                     to $GITHUB_STEP_SUMMARY / $GITHUB_OUTPUT;
 *                                     an empty value turns them off
 *   --sarif-anchor FILE               repository file for SARIF results that
 *                                     have no anchor (default in Actions: the
 *                                     workflow file, from GITHUB_WORKFLOW_REF)
 *   --fail-on error|warning|never     exit 1 threshold (default error)
 *   --trace                           the text report lists every probe
 *
 * Under GITHUB_ACTIONS=true (out.h) the text report goes inside the
 * stop-commands guard — in github format after the annotations — so no line
 * of it can act as a workflow command even if an escaping rule were missed;
 * JSON and SARIF are escaped by jsonout.h instead, and stay valid JSON.
 * Messages to stderr pass through text_esc_line (text.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/os.h"
#include "util/jsonout.h"
#include "cli/out.h"
#include "report/report.h"

static void say(const char *prefix, const char *msg)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "torch-dll-check: %s", prefix);
	text_esc_line(&sb, msg);
	strbuf_addch(&sb, '\n');
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

static int set_format(void *dst, const char *val, struct strbuf *why)
{
	if (!report_format_parse(val, dst))
		return 0;
	strbuf_adds(why, "expected text, json, github or sarif");
	return -1;
}

static int set_fail_on(void *dst, const char *val, struct strbuf *why)
{
	if (!report_fail_on_parse(val, dst))
		return 0;
	strbuf_adds(why, "expected error, warning or never");
	return -1;
}

/* `--json` alone or `--json -` prints the JSON (`check --json`); `--json FILE` writes it to FILE. */
static int set_json(void *dst, const char *val, struct strbuf *why)
{
	struct report_opts *o = dst;
	if (val && !out_is_stdout(val))
		o->json_path = val;
	else
		o->format = REPORT_FMT_JSON;
	return 0;
}

/* `--sarif -` (or /dev/stdout) prints the SARIF; `--sarif FILE` writes it to FILE. */
static int set_sarif(void *dst, const char *val, struct strbuf *why)
{
	struct report_opts *o = dst;
	if (out_is_stdout(val))
		o->format = REPORT_FMT_SARIF;
	else
		o->sarif_path = val;
	return 0;
}

const struct cli_opt report_cli_opts[] = {
	CLI_OPT("--format", "text|json|github|sarif",
		"what goes to stdout (default: github when GITHUB_ACTIONS=true, else text)",
		set_format, struct report_opts, format),
	/* the whole struct: --json sets either the format or the path */
	{ "--json", "FILE", "the JSON report (docs/report-json.md): alone or with -, printed to\n"
	  "stdout (so is /dev/stdout); with FILE, written there whole", set_json, 0, CLI_MAYBE_VALUE, NULL },
	{ "--sarif", "FILE", "SARIF 2.1.0 for GitHub code scanning, written to FILE whole (-: printed to stdout)",
	  set_sarif, 0, 0, NULL },
	CLI_OPT("--summary", "FILE", "the Markdown job summary, appended to FILE (github format: default\n"
		"$GITHUB_STEP_SUMMARY; an empty FILE turns it off)",
		cli_set_str, struct report_opts, summary_path),
	CLI_OPT("--outputs", "FILE", "the step outputs status, failures, warnings and report, appended to FILE\n"
		"(github format: default $GITHUB_OUTPUT; an empty FILE turns them off)",
		cli_set_str, struct report_opts, outputs_path),
	CLI_OPT("--sarif-anchor", "FILE", "the repository file that SARIF results with no file of their own point at\n"
		"(default in Actions: the workflow file, from GITHUB_WORKFLOW_REF)",
		cli_set_str, struct report_opts, sarif_anchor),
	CLI_OPT("--fail-on", "error|warning|never", "the least severity that makes the exit status 1 (default error)",
		set_fail_on, struct report_opts, fail_on),
	CLI_OPT("--trace", NULL, "the text report lists every place searched, also those that cannot matter\n"
		"(the 16-bit system folder of a 64-bit process, an unknown current folder)",
		cli_set_flag, struct report_opts, trace),
	CLI_END,
};

static int env_true(const char *name)
{
	const char *v = os_getenv(name);
	return v && !strcmp(v, "true");
}

static int want_color(const struct report_opts *o)
{
	const char *v;
	if (o->color >= 0)
		return o->color;
	v = os_getenv("NO_COLOR"); /* each os_getenv result is used before the next call */
	if (v && *v)
		return 0;
	v = os_getenv("TERM");
	if (v && !strcmp(v, "dumb"))
		return 0;
	return os_isatty(1);
}

/* "owner/repo/.github/workflows/x.yml@refs/..." → ".github/workflows/x.yml" (caller frees). */
static char *workflow_file(void)
{
	const char *ref = os_getenv("GITHUB_WORKFLOW_REF"), *p;
	size_t n;
	if (!ref || !(p = strchr(ref, '/')) || !(p = strchr(p + 1, '/')))
		return NULL;
	p++;
	n = strcspn(p, "@");
	return n ? xstrndup(p, n) : NULL;
}

/* Writes sb to path with `put` (os_write_file_atomic or os_append_file); says why not, as `what`. */
static int write_out(int (*put)(const char *, const void *, size_t, struct err *), const char *path,
		     const struct strbuf *sb, const char *what)
{
	struct err err = { { 0 }, 0 };
	if (put(path, sb->buf, sb->len, &err)) {
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "%s: %s", what, err.msg);
		say("", m.buf);
		strbuf_release(&m);
		return -1;
	}
	return 0;
}

static int write_whole(const char *path, const struct strbuf *sb, const char *what)
{
	return write_out(os_write_file_atomic, path, sb, what);
}

static int append(const char *path, const struct strbuf *sb, const char *what)
{
	return write_out(os_append_file, path, sb, what);
}

int report_run(const struct cJSON *doc, const struct report_opts *opts)
{
	struct report_opts o = *opts;
	struct report_view v;
	struct err err = { { 0 }, 0 };
	struct strbuf sb = STRBUF_INIT;
	int failed = 0, rc;
	char *wf = NULL, *env_summary = NULL, *env_output = NULL;

	if (report_view_init(&v, doc, &err)) {
		say("unusable report: ", err.msg);
		return EXIT_USAGE;
	}
	if (o.format == REPORT_FMT_AUTO)
		o.format = env_true("GITHUB_ACTIONS") ? REPORT_FMT_GITHUB : REPORT_FMT_TEXT;
	/* Copies: os_getenv's pointer lives only until its next call. */
	if (o.format == REPORT_FMT_GITHUB) {
		if (!o.summary_path && os_getenv("GITHUB_STEP_SUMMARY"))
			o.summary_path = env_summary = xstrdup(os_getenv("GITHUB_STEP_SUMMARY"));
		if (!o.outputs_path && os_getenv("GITHUB_OUTPUT"))
			o.outputs_path = env_output = xstrdup(os_getenv("GITHUB_OUTPUT"));
	}
	if (!o.sarif_anchor && env_true("GITHUB_ACTIONS"))
		o.sarif_anchor = wf = workflow_file();

	if (o.json_path && *o.json_path) {
		json_print(&sb, doc, 1);
		strbuf_addch(&sb, '\n');
		failed |= write_whole(o.json_path, &sb, "--json");
		strbuf_reset(&sb);
	}
	if (o.sarif_path && *o.sarif_path) {
		size_t unanchored = 0;
		report_sarif(&sb, &v, o.sarif_anchor, &unanchored);
		failed |= write_whole(o.sarif_path, &sb, "--sarif");
		strbuf_reset(&sb);
		if (unanchored) {
			char m[200];
			snprintf(m, sizeof(m),
				 "%zu SARIF result%s without a repository file to anchor to: GitHub code scanning "
				 "refuses such a file; pass --sarif-anchor FILE",
				 unanchored, unanchored == 1 ? " is" : "s are");
			say("warning: ", m);
		}
	}
	if (o.outputs_path && *o.outputs_path) {
		char delim[64];
		char hex[33];
		const char *rp = o.json_path && *o.json_path ? o.json_path : o.input_path;
		if (out_random_hex(hex, &err)) {
			say("", err.msg);
			failed = 1;
		} else {
			snprintf(delim, sizeof(delim), "ghadelimiter_%s", hex);
			if (report_outputs(&sb, &v, rp, delim, &err)) {
				say("--outputs: ", err.msg);
				failed = 1;
			} else {
				failed |= append(o.outputs_path, &sb, "--outputs");
			}
		}
		strbuf_reset(&sb);
	}
	if (o.summary_path && *o.summary_path) {
		struct os_stat st;
		size_t budget = REPORT_SUMMARY_MAX;
		os_stat(o.summary_path, &st);
		if (st.type == OS_FILE)
			budget = st.size >= REPORT_SUMMARY_MAX ? 0 : REPORT_SUMMARY_MAX - (size_t)st.size;
		if (budget < 4096) {
			say("warning: ", "the job summary file is already full; summary not written");
		} else {
			report_summary(&sb, &v, budget);
			failed |= append(o.summary_path, &sb, "--summary");
		}
		strbuf_reset(&sb);
	}

	if (o.format == REPORT_FMT_GITHUB) {
		/* the annotations are our workflow commands: before the guard */
		report_github(&sb, &v, NULL);
		out_commands(sb.buf, sb.len);
		strbuf_reset(&sb);
	}
	switch (o.format) {
	case REPORT_FMT_JSON:
		json_print(&sb, doc, 1); /* escaped (jsonout.h): valid JSON, no guard */
		strbuf_addch(&sb, '\n');
		fwrite(sb.buf, 1, sb.len, stdout);
		break;
	case REPORT_FMT_SARIF:
		report_sarif(&sb, &v, o.sarif_anchor, NULL);
		fwrite(sb.buf, 1, sb.len, stdout);
		break;
	case REPORT_FMT_GITHUB: /* after the annotations: the text report, inside the guard */
	case REPORT_FMT_TEXT:
	default:
		report_text(&sb, &v, o.format == REPORT_FMT_GITHUB ? 0 : want_color(&o), o.trace);
		if (out_text(sb.buf, sb.len))
			failed = 1; /* main says why (out_finish) */
		break;
	}
	fflush(stdout);

	rc = failed ? EXIT_USAGE : report_exit_status(&v, o.fail_on);
	strbuf_release(&sb);
	report_view_release(&v);
	free(wf);
	free(env_summary);
	free(env_output);
	return rc;
}

struct report_cmd_opts {
	const char *in_path;
	struct report_opts ro;
};

static const struct cli_opt report_cmd_opts_table[] = {
	CLI_OPT("--in", "REPORT.json", "the saved report to render (from `check --json FILE`); required",
		cli_set_str, struct report_cmd_opts, in_path),
	CLI_GROUP(report_cli_opts, struct report_cmd_opts, ro),
	CLI_END,
};

const struct cli_cmd report_cli = {
	.name = "report",
	.summary = "render a saved JSON report: text, GitHub annotations/summary/outputs, SARIF",
	.synopsis = "--in REPORT.json [options]",
	.opts = report_cmd_opts_table,
	.notes = "`check` takes the same reporting options (all but --in) and renders the same way.",
	.exit_status = "0 pass, 1 findings at or above --fail-on, 2 usage or input error.",
	.max_operands = 0,
};

/* Offset of the first byte after `end` that is not JSON whitespace (len if none). */
static size_t json_trailing(const char *buf, size_t len, const char *end)
{
	size_t i = end && buf && end >= buf ? (size_t)(end - buf) : len;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd_opts opts;
	struct err err = { { 0 }, 0 };
	struct strbuf in = STRBUF_INIT;
	struct cli_args args;
	const char *end = NULL;
	cJSON *doc;
	size_t trail;
	int rc;

	memset(&opts, 0, sizeof(opts));
	report_opts_init(&opts.ro);
	rc = cli_parse(&report_cli, argc, argv, &opts, &args);
	cli_args_release(&args);
	if (rc)
		return rc == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	if (!opts.in_path || !*opts.in_path)
		return cli_error(&report_cli, "missing --in REPORT.json");
	if (os_read_file(opts.in_path, REPORT_INPUT_MAX, &in, &err)) {
		say("", err.msg);
		strbuf_release(&in);
		return EXIT_USAGE;
	}
	doc = cJSON_ParseWithLengthOpts(in.buf, in.len, &end, 0);
	if (doc && (trail = json_trailing(in.buf, in.len, end)) < in.len) {
		/* a report followed by more bytes is not the report that was written */
		struct strbuf m = STRBUF_INIT;
		strbuf_addf(&m, "%s: data after the end of the JSON document (at byte %zu)", opts.in_path, trail);
		say("", m.buf);
		strbuf_release(&m);
		cJSON_Delete(doc);
		strbuf_release(&in);
		return EXIT_USAGE;
	}
	if (!doc) {
		struct strbuf m = STRBUF_INIT;
		const char *at = cJSON_GetErrorPtr();
		size_t off = (at && in.buf && at >= in.buf && at <= in.buf + in.len) ? (size_t)(at - in.buf) : 0;
		strbuf_addf(&m, "%s: not valid JSON (near byte %zu)", opts.in_path, off);
		say("", m.buf);
		strbuf_release(&m);
		strbuf_release(&in);
		return EXIT_USAGE;
	}
	opts.ro.input_path = opts.in_path;
	rc = report_run(doc, &opts.ro);
	cJSON_Delete(doc);
	strbuf_release(&in);
	return rc;
}
