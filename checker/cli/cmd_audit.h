/*
 * cmd_audit: the nightly-audit commands `audit`, `history` and `fleet`.
 *
 * They keep snapshots in a git repository, so they run in
 * torch-dll-check-git (cli/git/git_cmd_audit.c, git_cmd_history.c, git_cmd_fleet.c); the main program knows their option
 * tables (cmd_audit.c) so that its help and docs/cli.md list them, and runs
 * the sibling program for them as it does for `pins` (cmd_git_sibling).
 */
#ifndef TDC_CMD_AUDIT_H
#define TDC_CMD_AUDIT_H

#include "cli/opt.h"
#include "report/report.h"
#include "util/strbuf.h"

/* Largest snapshot (a report) the audit commands read. */
#define AUDIT_SNAPSHOT_MAX (256u << 20)

struct audit_opts {
	const char *history, *runner, *report, *json, *summary, *fail_on, *date;
	enum report_format format; /* --format text|github (report_format_choose) */
};

struct history_opts {
	const char *history, *runner, *limit;
	int json;
};

struct fleet_opts {
	const char *history, *summary;
	enum report_format format; /* --format text|markdown|json */
};

/* The snapshots' repository: `given` (--history), else $GITHUB_WORKSPACE, else ".". */
const char *audit_history_dir(const char *given);

extern const struct cli_cmd audit_cli, history_cli, fleet_cli;

/* torch-dll-check-git: the commands themselves (cli/git/git_cmd_<name>.c). */
int cmd_git_audit(int argc, char **argv);
int cmd_git_history(int argc, char **argv);
int cmd_git_fleet(int argc, char **argv);

#endif
