/*
 * git_main: torch-dll-check-git, the part of torch-dll-check that reads git
 * repositories (libgit2). `torch-dll-check pins` runs it (cli/cmd_pins.c), as
 * do `check --pins` (cmd_check.c hands the whole command over; git_gate.c)
 * and the audit commands, so users see one tool; it follows the same command
 * conventions (cmd.h). Each command is in cli/git/git_cmd_<name>.c (pins, audit,
 * history, fleet; check's git reader in git_gate.c) and renders through
 * report/; this file only dispatches.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/cmd_audit.h"
#include "cli/out.h"

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: torch-dll-check-git pins|check|audit|history|fleet [options]   (also run as 'torch-dll-check <command>')\n"
			"Try 'torch-dll-check <command> --help'.\n");
		return argc < 2 ? EXIT_USAGE : EXIT_PASS;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("torch-dll-check-git %s\n", TDC_VERSION);
		return EXIT_PASS;
	}
	{
		static const struct {
			const char *name;
			int (*fn)(int, char **);
		} cmds[] = { { "pins", cmd_git_pins },
			     { "check", cmd_git_check },
			     { "audit", cmd_git_audit },
			     { "history", cmd_git_history },
			     { "fleet", cmd_git_fleet } };
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[1], cmds[i].name)) {
				struct err e;
				int rc = cmds[i].fn(argc - 1, argv + 1);
				err_clear(&e);
				if (out_finish(&e))
					return cmd_usage_error("%s", e.msg);
				return rc;
			}
	}
	return cmd_usage_error("unknown command '%s' for torch-dll-check-git (pins, check, audit, history, fleet)",
			       argv[1]);
}
