/*
 * cmd_audit: the nightly-audit commands `audit`, `history` and `fleet`.
 *
 * They keep snapshots in a git repository, so they run in
 * torch-dll-check-git (git_audit.c); the main program knows their option
 * tables (cmd_audit.c) so that its help and docs/cli.md list them, and runs
 * the sibling program for them as it does for `pins` (cmd_git_sibling).
 */
#ifndef TDC_CMD_AUDIT_H
#define TDC_CMD_AUDIT_H

#include "cli/opt.h"
#include "util/strbuf.h"

struct audit_opts {
	const char *history, *runner, *report, *json, *format, *summary, *fail_on, *date;
};

struct history_opts {
	const char *history, *runner, *limit;
	int json;
};

struct fleet_opts {
	const char *history, *format, *summary;
};

extern const struct cli_cmd audit_cli, history_cli, fleet_cli;

/* torch-dll-check-git: the commands themselves. */
int cmd_git_audit(int argc, char **argv);
int cmd_git_history(int argc, char **argv);
int cmd_git_fleet(int argc, char **argv);

#endif
