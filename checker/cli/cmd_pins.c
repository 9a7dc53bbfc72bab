/*
 * cmd_pins: `torch-dll-check pins ...` runs `torch-dll-check-git pins ...`,
 * the program installed next to this one. Reading git objects needs libgit2,
 * whose start-up (~7 ms, ~8 MiB) the commands that never touch git should not
 * pay, so it lives in its own executable; users still see one tool.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "os.h"

int cmd_pins(int argc, char **argv)
{
	char **args = xcalloc((size_t)argc + 2, sizeof(*args));
	struct err err;
	int i, status = EXIT_USAGE;

	/* argv[0] is "pins": the sibling gets {path, "pins", options..., NULL}. */
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
