/*
 * cmd_audit: the option tables of `audit`, `history` and `fleet`, and the
 * main program's side of them: run torch-dll-check-git, which has libgit2
 * (cli/git/git_cmd_audit.c, git_cmd_history.c and git_cmd_fleet.c do the work).
 */
#include "cli/cmd_audit.h"

#include "cli/cmd.h"
#include "util/os.h"

const char *audit_history_dir(const char *given)
{
	const char *ws = os_getenv("GITHUB_WORKSPACE");
	return given ? given : ws && *ws ? ws : ".";
}

static int set_audit_format(void *dst, const char *val, struct strbuf *why)
{
	return report_format_choose(val, REPORT_FORMATS_AUDIT, dst, why);
}

static int set_fleet_format(void *dst, const char *val, struct strbuf *why)
{
	return report_format_choose(val, REPORT_FORMATS_FLEET, dst, why);
}

static const struct cli_opt audit_opts_table[] = {
	CLI_OPT("--history", "DIR",
		"the git repository keeping the snapshots, bare or not\n"
		"(default: $GITHUB_WORKSPACE, else the current folder)",
		cli_set_str, struct audit_opts, history),
	CLI_OPT("--runner", "NAME", "the runner's name (default: $RUNNER_NAME); one ref per runner",
		cli_set_str, struct audit_opts, runner),
	CLI_OPT("--report", "FILE",
		"a saved `check --json FILE` report (or `inventory --json`)\n"
		"instead of running the check",
		cli_set_str, struct audit_opts, report),
	CLI_OPT("--json", "FILE", "write the audit (snapshot, parent, drift) as JSON to FILE", cli_set_str,
		struct audit_opts, json),
	CLI_OPT("--format", REPORT_FORMATS_AUDIT, "stdout (default: github when GITHUB_ACTIONS=true, else text)",
		set_audit_format, struct audit_opts, format),
	CLI_OPT("--summary", "FILE", "append the drift as Markdown (e.g. $GITHUB_STEP_SUMMARY)", cli_set_str,
		struct audit_opts, summary),
	CLI_OPT("--fail-on", "error|warning|note|never",
		"exit 1 on drift at or above this severity (default error)", cli_set_str,
		struct audit_opts, fail_on),
	CLI_OPT_HIDDEN("--date", "EPOCH", cli_set_str, struct audit_opts, date),
	CLI_END,
};

const struct cli_cmd audit_cli = {
	.name = "audit",
	.summary = "check this runner, keep the result as a snapshot in git, report what drifted",
	.synopsis = "[--history DIR] [--runner NAME] [--report FILE] [options] [CHECK-OPTIONS...] [-- CHECK-OPTIONS...]",
	.operands = "[CHECK-OPTIONS...]",
	.min_operands = 0,
	.max_operands = -1,
	.opts = audit_opts_table,
	.notes = "Without --report, runs `torch-dll-check check --format json` with CHECK-OPTIONS\n"
		 "(e.g. --scan 'C:\\' --python X), given directly or after `--`; check's options named as\n"
		 "audit's own (--json, --format, --summary, --fail-on) go after `--`;\n"
		 "when `inventory` with the same options finds no torch install, the snapshot is the\n"
		 "inventory alone. The snapshot is written as a commit on refs/torch-dll-check/<runner>\n"
		 "straight into the repository's object database (no worktree, no index, no git program),\n"
		 "the ref moved by compare-and-swap so that concurrent writers lose nothing. Drift against\n"
		 "the runner's previous snapshot: errors when a pass turns into a failure, warnings when a\n"
		 "change hides a known failure (libomp140.x86_64.dll appearing), notes for the rest.\n"
		 "Publishing: git push origin 'refs/torch-dll-check/*' (docs/audit.md).",
	.exit_status = "0 snapshot written, no drift at or above --fail-on; 1 such drift; 2 usage or input error\n"
		       "(no runner name, the check could not run, the repository cannot be written, the\n"
		       "previous snapshot is unreadable — the new one is still written when possible).",
};

static const struct cli_opt history_opts_table[] = {
	CLI_OPT("--history", "DIR", "the repository of snapshots (default: $GITHUB_WORKSPACE, else .)",
		cli_set_str, struct history_opts, history),
	CLI_OPT("--runner", "NAME", "one runner's timeline (default: $RUNNER_NAME; else every runner's latest)",
		cli_set_str, struct history_opts, runner),
	CLI_OPT("--limit", "N", "at most N snapshots, newest first (default: all)", cli_set_str,
		struct history_opts, limit),
	CLI_OPT("--json", NULL, "print JSON (schema torch-dll-check/history/v1)", cli_set_flag,
		struct history_opts, json),
	CLI_END,
};

const struct cli_cmd history_cli = {
	.name = "history",
	.summary = "a runner's audit timeline: date, status, what drifted",
	.opts = history_opts_table,
	.max_operands = 0,
	.notes = "Reads refs/torch-dll-check/<runner> of the repository (docs/audit.md).",
	.exit_status = "0 printed, 2 usage or input error (no such runner, unreadable history).",
};

static const struct cli_opt fleet_opts_table[] = {
	CLI_OPT("--history", "DIR", "every runner's latest snapshot in this repository", cli_set_str,
		struct fleet_opts, history),
	CLI_OPT("--format", REPORT_FORMATS_FLEET, "the table's form (default text)", set_fleet_format,
		struct fleet_opts, format),
	CLI_OPT("--summary", "FILE", "also append the Markdown table to FILE (e.g. $GITHUB_STEP_SUMMARY),\n"
		"cut to GitHub's 1 MiB limit", cli_set_str, struct fleet_opts, summary),
	CLI_END,
};

const struct cli_cmd fleet_cli = {
	.name = "fleet",
	.summary = "one table across runners: torch, verdict, redistributable, OpenMP, first error, drift",
	.synopsis = "(--history DIR | REPORT.json...) [options]",
	.operands = "[REPORT.json...]",
	.min_operands = 0,
	.max_operands = -1,
	.opts = fleet_opts_table,
	.notes = "REPORT.json files (from `check --json`) are named after their file name; with --history\n"
		 "each runner's latest snapshot and its drift are used. Failing rows come first.",
	.exit_status = "0 printed, 2 usage or input error.",
};
