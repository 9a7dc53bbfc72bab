/*
 * cmd_pins: `torch-dll-check pins ...` runs `torch-dll-check-git pins ...`,
 * the program installed next to this one. Reading git objects needs libgit2,
 * whose start-up (~7 ms, ~8 MiB) the commands that never touch git should not
 * pay, so it lives in its own executable; users still see one tool. Its
 * description (pins_cli) lives here, so that this program's help and
 * docs/cli.md show it; git_main.c parses with the same table.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/cmd.h"
#include "util/os.h"

const struct cli_opt pins_where_cli_opts[] = {
	CLI_OPT("--repo", "DIR", "the repository (default: the current folder or a parent)",
		cli_set_str, struct pins_where, repo),
	CLI_OPT("--rev", "REV", "one revision whose pins are read (default HEAD)", cli_set_str, struct pins_where, rev),
	CLI_OPT("--base", "REV", "compare with this revision: the torch pins added, changed or removed",
		cli_set_str, struct pins_where, base),
	CLI_OPT("--head", "REV", "the other side of --base (default HEAD)", cli_set_str, struct pins_where, head),
	CLI_OPT("--github-event", "FILE", "base and head from a pull request event payload (default in a\n"
		"pull_request job: $GITHUB_EVENT_PATH)",
		cli_set_str, struct pins_where, event),
	CLI_END,
};

int pins_where_check(const struct cli_cmd *cmd, const struct pins_where *s)
{
	if ((s->rev && (s->base || s->head || s->event)) || (s->event && (s->base || s->head))) {
		cli_error(cmd, "use one of --rev, --base/--head, --github-event");
		return -1;
	}
	if (s->head && !s->base) {
		cli_error(cmd, "--head needs --base");
		return -1;
	}
	return 0;
}

static const struct cli_opt pins_opts_table[] = {
	CLI_GROUP(pins_where_cli_opts, struct pins_opts, src),
	CLI_OPT("--matrix", "FILE", "a matrix layered over the embedded one (repeatable), for the runner rows",
		cli_push, struct pins_opts, matrices),
	CLI_OPT("--worktree", NULL, "read the working tree's pin files, uncommitted edits included, as the head\n"
		"(with --base: what the edits change against that revision)", cli_set_flag, struct pins_opts, worktree),
	CLI_OPT("--all", NULL, "every package, not only torch", cli_set_flag, struct pins_opts, all),
	CLI_OPT("--json", NULL, "print JSON (schema torch-dll-check/pins/v1, docs/pins-json.md)",
		cli_set_flag, struct pins_opts, json),
	CLI_END,
};

const struct cli_cmd pins_cli = {
	.name = "pins",
	.summary = "which torch a repository revision pins (requirements files, via git)",
	.synopsis = "[--repo DIR] [--rev REV | --base REV [--head REV] | --github-event FILE] [options]",
	.opts = pins_opts_table,
	.notes = "Reads requirements*.txt, constraints*.txt, pyproject.toml, environment.yml, setup.cfg,\n"
		 "Pipfile, uv.lock, poetry.lock and pdm.lock from git objects. With a base, also what\n"
		 "changed, at the head's line. A pull request job (GITHUB_EVENT_NAME=pull_request*)\n"
		 "compares the PR's base and head by default. `check --pins` judges them against this\n"
		 "runner. Without --worktree the pins are the commit's: when the working tree's torch pins\n"
		 "differ from HEAD's, a note says so (--worktree reads them). Runs torch-dll-check-git,\n"
		 "installed next to torch-dll-check.",
	.exit_status = "0 done, 2 usage or input error (not a repository, a bad revision, a pin file that does not parse).",
	.max_operands = 0,
};

int cmd_git_sibling(int argc, char **argv)
{
	char **args = xcalloc((size_t)argc + 2, sizeof(*args));
	struct err err;
	int i, status = EXIT_USAGE;

	/* argv[0] is the command's name: the sibling gets {path, NAME, options..., NULL}. */
	for (i = 0; i < argc; i++)
		args[i + 1] = argv[i];
	err_clear(&err);
	if (os_exec_sibling("torch-dll-check-git", args, &status, &err) < 0) {
		free(args);
		return cmd_usage_error("%s", err.msg);
	}
	free(args);
	return status;
}

int cmd_pins(int argc, char **argv)
{
	return cmd_git_sibling(argc, argv);
}
