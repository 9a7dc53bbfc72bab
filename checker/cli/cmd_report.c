/*
 * cmd_report: `torch-dll-check report --in report.json [options]` renders a
 * saved JSON report, and report_run() is what `check` calls with the
 * document it built, so both commands share one option set and one output
 * path:
 *
 *   --format text|json|github|sarif|markdown   what goes to stdout (default: github
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

/*
 * --format and a bare --json (which prints the JSON: --format json) do not
 * go together when they disagree: "--format sarif --json" would silently
 * print JSON. The options struct remembers who set the format.
 */
static int set_format(void *dst, const char *val, struct strbuf *why)
{
	struct report_opts *o = dst;
	enum report_format f;
	if (report_format_choose(val, REPORT_FORMATS_CHECK, &f, why) < 0)
		return -1;
	if (o->format_by_json && f != REPORT_FMT_JSON)
		return strbuf_adds(why, "does not go with a bare --json, which prints the JSON report; give "
				       "--json FILE to write it beside"), -1;
	o->format = f;
	o->format_given = 1;
	return 0;
}

/* `--summary -` (or /dev/stdout) prints the job summary's Markdown: --format markdown; `--summary FILE` appends to FILE. */
static int set_summary(void *dst, const char *val, struct strbuf *why)
{
	struct report_opts *o = dst;
	if (!out_is_stdout(val)) {
		o->summary_path = val;
		return 0;
	}
	if (o->format_by_json)
		return strbuf_adds(why, "prints the summary, which does not go with a bare --json (give --json FILE to "
				       "write the JSON beside it)"), -1;
	if (o->format_given && o->format != REPORT_FMT_MARKDOWN)
		return strbuf_adds(why, "prints the summary (--format markdown), which does not go with another "
				       "--format"), -1;
	o->format = REPORT_FMT_MARKDOWN;
	o->format_given = 1;
	return 0;
}

static int set_fail_on(void *dst, const char *val, struct strbuf *why)
{
	static const char *const words[] = { "error", "warning", "never", NULL };
	const char *near;
	if (!report_fail_on_parse(val, dst))
		return 0;
	strbuf_adds(why, "expected error, warning or never");
	if ((near = str_nearest(val, words)))
		strbuf_addf(why, " (did you mean '%s'?)", near);
	return -1;
}

static int set_color(void *dst, const char *val, struct strbuf *why)
{
	int *c = dst;
	if (!strcmp(val, "auto"))
		*c = -1;
	else if (!strcmp(val, "always"))
		*c = 1;
	else if (!strcmp(val, "never"))
		*c = 0;
	else
		return strbuf_adds(why, "expected auto, always or never"), -1;
	return 0;
}

/* `--json` alone or `--json -` prints the JSON (`check --json`); `--json FILE` writes it to FILE. */
static int set_json(void *dst, const char *val, struct strbuf *why)
{
	struct report_opts *o = dst;
	if (val && !out_is_stdout(val)) {
		o->json_path = val;
		return 0;
	}
	if (o->format_given && o->format != REPORT_FMT_JSON)
		return strbuf_adds(why, "prints the JSON report, which does not go with --format (give --json FILE to "
				       "write it beside that format)"), -1;
	o->format = REPORT_FMT_JSON;
	o->format_by_json = 1;
	return 0;
}

/* `--sarif -` (or /dev/stdout) prints the SARIF; `--sarif FILE` writes it to FILE. */
static int set_sarif(void *dst, const char *val, struct strbuf *why)
{
	struct report_opts *o = dst;
	if (!out_is_stdout(val)) {
		o->sarif_path = val;
		return 0;
	}
	if (o->format_by_json)
		return strbuf_adds(why, "prints SARIF, which does not go with a bare --json (give --json FILE to write "
				       "the JSON beside it)"), -1;
	o->format = REPORT_FMT_SARIF;
	o->format_given = 1;
	return 0;
}

const struct cli_opt report_cli_opts[] = {
	/* the whole struct: --format and a bare --json check each other */
	{ "--format", REPORT_FORMATS_CHECK, "what goes to stdout (default: github when GITHUB_ACTIONS=true, else text)",
	  set_format, 0, 0, NULL },
	/* the whole struct: --json sets either the format or the path */
	{ "--json", "FILE", "the JSON report (docs/report-json.md): alone or with -, printed to\n"
	  "stdout (so is /dev/stdout); with FILE, written there whole", set_json, 0, CLI_MAYBE_VALUE, NULL },
	{ "--sarif", "FILE", "SARIF 2.1.0 for GitHub code scanning, written to FILE whole (-: printed to stdout)",
	  set_sarif, 0, 0, NULL },
	{ "--summary", "FILE", "the Markdown job summary, appended to FILE (github format: default\n"
	  "$GITHUB_STEP_SUMMARY; an empty FILE turns it off; -: printed to stdout,\n"
	  "as --format markdown)", set_summary, 0, 0, NULL },
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
	CLI_OPT("--color", "auto|always|never", "ANSI colours in the text report (default auto: on a terminal, off with\n"
		"NO_COLOR set; FORCE_COLOR set to anything but 0 turns them on)", set_color, struct report_opts, color),
	CLI_OPT("--quiet", NULL, "the text report's verdict line alone (also -q)", cli_set_flag, struct report_opts, quiet),
	CLI_OPT_HIDDEN("-q", NULL, cli_set_flag, struct report_opts, quiet),
	CLI_END,
};

static int env_true(const char *name)
{
	const char *v = os_getenv(name);
	return v && !strcmp(v, "true");
}

/*
 * Colour: --color always|never decides; in auto, NO_COLOR (any value,
 * no-color.org) turns it off, then FORCE_COLOR (anything but "" and "0")
 * turns it on, then a terminal that is not TERM=dumb. In github format auto
 * means off unless FORCE_COLOR: the Actions log is no terminal.
 */
static int want_color(const struct report_opts *o, int github)
{
	const char *v;
	if (o->color >= 0)
		return o->color;
	v = os_getenv("NO_COLOR"); /* each os_getenv result is used before the next call */
	if (v && *v)
		return 0;
	v = os_getenv("FORCE_COLOR");
	if (v && *v && strcmp(v, "0") && strcmp(v, "false"))
		return 1;
	if (github)
		return 0;
	v = os_getenv("TERM");
	if (v && !strcmp(v, "dumb"))
		return 0;
	return os_isatty(1);
}

/* The width the text wraps at: $COLUMNS, else the terminal's, else 80. */
static int text_width(void)
{
	const char *v = os_getenv("COLUMNS");
	char *end;
	long n = v && *v ? strtol(v, &end, 10) : 0;
	if (v && *v && !*end && n > 0 && n < 10000)
		return (int)n;
	n = os_term_columns(1);
	return n > 0 ? (int)n : 80;
}

/*
 * The text report to stdout (inside the guard, out.h); each REPORT_TEXT_GROUP
 * ... REPORT_TEXT_ENDGROUP span becomes ::group::TITLE / ::endgroup::, our own
 * commands, written with the guard off (out_commands). -1 when the guard refused.
 */
static int put_text(const char *text)
{
	const char *p = text;
	size_t glen = strlen(REPORT_TEXT_GROUP), elen = strlen(REPORT_TEXT_ENDGROUP);
	while (*p) {
		const char *g = strstr(p, "\001"), *nl;
		struct strbuf cmd = STRBUF_INIT;
		if (!g)
			return out_text(p, strlen(p));
		if (g > p && out_text(p, (size_t)(g - p)))
			return -1;
		nl = strchr(g, '\n');
		if (!nl)
			nl = g + strlen(g);
		if (!strncmp(g, REPORT_TEXT_GROUP, glen)) {
			struct strbuf title = STRBUF_INIT;
			strbuf_add(&title, g + glen, (size_t)(nl - g) - glen);
			strbuf_adds(&cmd, "::group::");
			report_esc_gh_data(&cmd, title.buf);
			strbuf_addch(&cmd, '\n');
			strbuf_release(&title);
		} else if (!strncmp(g, REPORT_TEXT_ENDGROUP, elen)) {
			strbuf_adds(&cmd, "::endgroup::\n");
		}
		out_commands(cmd.buf, cmd.len);
		strbuf_release(&cmd);
		p = *nl ? nl + 1 : nl;
	}
	return 0;
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

/* --sarif FILE: the SARIF log, and a warning for results GitHub would refuse for want of an anchor. */
static int write_sarif(struct strbuf *sb, const struct report_view *v, const struct report_opts *o)
{
	size_t unanchored = 0;
	int failed;
	report_sarif(sb, v, o->sarif_anchor, &unanchored);
	failed = write_whole(o->sarif_path, sb, "--sarif");
	if (unanchored) {
		char m[200];
		snprintf(m, sizeof(m),
			 "%zu SARIF result%s without a repository file to anchor to: GitHub code scanning "
			 "refuses such a file; pass --sarif-anchor FILE",
			 unanchored, unanchored == 1 ? " is" : "s are");
		say("warning: ", m);
	}
	return failed;
}

/* --outputs FILE: the step outputs appended, multi-line values fenced by a random delimiter. */
static int write_outputs(struct strbuf *sb, const struct report_view *v, const struct report_opts *o)
{
	struct err err = { { 0 }, 0 };
	char delim[64];
	char hex[33];
	const char *rp = o->json_path && *o->json_path ? o->json_path : o->input_path;
	if (out_random_hex(hex, &err)) {
		say("", err.msg);
		return 1;
	}
	snprintf(delim, sizeof(delim), "ghadelimiter_%s", hex);
	if (report_outputs(sb, v, rp, delim, &err)) {
		say("--outputs: ", err.msg);
		return 1;
	}
	return append(o->outputs_path, sb, "--outputs");
}

/*
 * In Actions, the blob URL prefix of the PR's head commit (the pins' commit):
 * "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/blob/<head>/", for the summary's
 * pin links; NULL when any part is missing or not plainly what it should be
 * (caller frees).
 */
static char *blob_base(const struct cJSON *doc)
{
	const cJSON *pins = cJSON_GetObjectItemCaseSensitive(doc, "pins");
	const char *sha = report_str(cJSON_GetObjectItemCaseSensitive(pins, "head"), "commit");
	char *repo, *server;
	struct strbuf b = STRBUF_INIT;
	size_t i, slash = 0;
	int ok = 1;
	if (!env_true("GITHUB_ACTIONS") || !sha || strlen(sha) != 40 || strspn(sha, "0123456789abcdef") != 40 ||
	    !os_getenv("GITHUB_REPOSITORY"))
		return NULL;
	repo = xstrdup(os_getenv("GITHUB_REPOSITORY")); /* copies: os_getenv's pointer is not stable */
	server = xstrdup(os_getenv("GITHUB_SERVER_URL") ? os_getenv("GITHUB_SERVER_URL") : "https://github.com");
	for (i = 0; repo[i]; i++) {
		char ch = repo[i];
		if (ch == '/')
			slash++;
		else if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			   ch == '-' || ch == '_' || ch == '.'))
			ok = 0;
	}
	if (slash != 1 || repo[0] == '/' || repo[i - 1] == '/' || strncmp(server, "https://", 8) ||
	    strspn(server + 8, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:") != strlen(server + 8))
		ok = 0;
	if (ok)
		strbuf_addf(&b, "%s/%s/blob/%s/", server, repo, sha);
	free(repo);
	free(server);
	return ok ? strbuf_detach(&b) : NULL;
}

/* --summary FILE: the job summary appended, within what the file has left of GitHub's 1 MiB. */
static int write_summary(struct strbuf *sb, const struct report_view *v, const struct report_opts *o)
{
	struct os_stat st;
	size_t budget = REPORT_SUMMARY_MAX;
	char *base;
	os_stat(o->summary_path, &st);
	if (st.type == OS_FILE)
		budget = st.size >= REPORT_SUMMARY_MAX ? 0 : REPORT_SUMMARY_MAX - (size_t)st.size;
	if (budget < 4096) {
		say("warning: ", "the job summary file is already full; summary not written");
		return 0;
	}
	base = blob_base(v->doc);
	report_summary_linked(sb, v, budget, base);
	free(base);
	return append(o->summary_path, sb, "--summary");
}

/* --format json: the document, escaped (jsonout.h): valid JSON, no guard. */
static int stdout_json(struct strbuf *sb, const struct cJSON *doc, const struct report_view *v,
		       const struct report_opts *o)
{
	(void)v;
	(void)o;
	json_print(sb, doc, 1);
	strbuf_addch(sb, '\n');
	fwrite(sb->buf, 1, sb->len, stdout);
	return 0;
}

/* --format sarif: SARIF 2.1.0. */
static int stdout_sarif(struct strbuf *sb, const struct cJSON *doc, const struct report_view *v,
			const struct report_opts *o)
{
	(void)doc;
	report_sarif(sb, v, o->sarif_anchor, NULL);
	fwrite(sb->buf, 1, sb->len, stdout);
	return 0;
}

/* --format text: the text report, inside the guard. 1 when the guard refused it. */
static int stdout_text(struct strbuf *sb, const struct cJSON *doc, const struct report_view *v,
		       const struct report_opts *o)
{
	struct report_text_opts to;
	(void)doc;
	memset(&to, 0, sizeof(to));
	to.color = want_color(o, o->format == REPORT_FMT_GITHUB);
	to.trace = o->trace;
	to.quiet = o->quiet;
	to.width = text_width();
	to.groups = o->format == REPORT_FMT_GITHUB && !o->quiet; /* the form that speaks GitHub */
	report_text_ex(sb, v, &to);
	return put_text(sb->buf) ? 1 : 0; /* main says why (out_finish) */
}

/* --format github: the annotations first (our workflow commands, before the guard), then the text report. */
static int stdout_github(struct strbuf *sb, const struct cJSON *doc, const struct report_view *v,
			 const struct report_opts *o)
{
	report_github(sb, v, NULL);
	out_commands(sb->buf, sb->len);
	strbuf_reset(sb);
	return stdout_text(sb, doc, v, o);
}

/* --format markdown: the job summary, to preview it (--summary -), inside the guard like the text. */
static int stdout_markdown(struct strbuf *sb, const struct cJSON *doc, const struct report_view *v,
			   const struct report_opts *o)
{
	char *base = blob_base(v->doc);
	(void)doc;
	(void)o;
	report_summary_linked(sb, v, REPORT_SUMMARY_MAX, base);
	free(base);
	return put_text(sb->buf) ? 1 : 0;
}

/*
 * What each --format of check and report writes to stdout (REPORT_FORMATS_CHECK
 * names them; AUTO is decided before). A format without a writer here is a
 * usage error, never another format's output.
 */
static int (*const stdout_writers[REPORT_FMT_COUNT])(struct strbuf *sb, const struct cJSON *doc,
						      const struct report_view *v, const struct report_opts *o) = {
	[REPORT_FMT_TEXT] = stdout_text,
	[REPORT_FMT_JSON] = stdout_json,
	[REPORT_FMT_GITHUB] = stdout_github,
	[REPORT_FMT_SARIF] = stdout_sarif,
	[REPORT_FMT_MARKDOWN] = stdout_markdown,
};

/* stdout in o->format. 1 when it could not be written (said). */
static int write_stdout(struct strbuf *sb, const struct cJSON *doc, const struct report_view *v,
			const struct report_opts *o)
{
	int failed;
	if ((size_t)o->format >= REPORT_FMT_COUNT || !stdout_writers[o->format]) {
		char msg[96];
		snprintf(msg, sizeof(msg), "%s is not a form check and report write", report_format_name(o->format));
		say("--format ", msg);
		return 1;
	}
	failed = stdout_writers[o->format](sb, doc, v, o);
	fflush(stdout);
	return failed;
}

/* The file `path` names, for comparing two outputs: its real path when it exists, else its absolute path. */
static char *output_key(const char *path)
{
	char *k = os_realpath(path);
	return k ? k : os_absolute(path);
}

/*
 * Two outputs naming one file (--json R --sarif R, or --summary/--outputs the
 * same path, a link to it included) would overwrite each other: a usage
 * error, said, before anything is written.
 */
static int outputs_collide(const struct report_opts *o)
{
	const char *name[4] = { "--json", "--sarif", "--summary", "--outputs" };
	const char *path[4] = { o->json_path, o->sarif_path, o->summary_path, o->outputs_path };
	char *key[4] = { NULL, NULL, NULL, NULL };
	int i, j, hit = 0;
	for (i = 0; i < 4; i++)
		if (path[i] && *path[i] && strcmp(path[i], "-"))
			key[i] = output_key(path[i]);
	for (i = 0; i < 4 && !hit; i++)
		for (j = i + 1; j < 4 && !hit; j++)
			if (key[i] && key[j] && !strcmp(key[i], key[j])) {
				char *msg = xasprintf("%s and %s name the same file (%s): one would overwrite the other",
						      name[i], name[j], path[j]);
				say("", msg);
				free(msg);
				hit = 1;
			}
	for (i = 0; i < 4; i++)
		free(key[i]);
	return hit;
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
	if (outputs_collide(&o)) {
		report_view_release(&v);
		free(wf);
		free(env_summary);
		free(env_output);
		return EXIT_USAGE;
	}

	if (o.json_path && *o.json_path) {
		json_print(&sb, doc, 1);
		strbuf_addch(&sb, '\n');
		failed |= write_whole(o.json_path, &sb, "--json");
		strbuf_reset(&sb);
	}
	if (o.sarif_path && *o.sarif_path) {
		failed |= write_sarif(&sb, &v, &o);
		strbuf_reset(&sb);
	}
	if (o.outputs_path && *o.outputs_path) {
		failed |= write_outputs(&sb, &v, &o);
		strbuf_reset(&sb);
	}
	if (o.summary_path && *o.summary_path) {
		failed |= write_summary(&sb, &v, &o);
		strbuf_reset(&sb);
	}
	failed |= write_stdout(&sb, doc, &v, &o);

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
