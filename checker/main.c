/*
 * main: dispatch to one subcommand. The only place (with the cmd_*.c files)
 * that decides exit statuses; library code below never exits.
 *
 * In GitHub Actions every line a step prints, on stdout or stderr, is
 * scanned for workflow commands. out.h is the one mechanism against that:
 * a command's first text line begins the stop-commands guard, JSON is
 * escaped instead, and main ends the guard (out_finish) when the command
 * returns — or exits 2 when the guard could not be set up.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "os.h"
#include "report.h"
#include "out.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "check", cmd_check, "will torch load on this machine? (findings, exit 1 on failure)" },
	{ "deps", cmd_deps, "the dependency tree of one binary, as the loader resolves it" },
	{ "pe", cmd_pe, "headers, imports, exports and version of PE files" },
	{ "inventory", cmd_inventory, "redistributables, runtime DLLs and torch installs found" },
	{ "matrix", cmd_matrix, "lint, show, select or derive the torch runtime matrix" },
	{ "pins", cmd_pins, "which torch a repository revision pins (requirements files, via git)" },
	{ "report", cmd_report, "render a saved JSON report: text, GitHub annotations/summary/outputs, SARIF" },
	/* hidden: started by check --confirm; its JSON lines go to the parent's pipe, never to a log */
	{ "confirm-helper", cmd_confirm_helper, NULL },
};

static void usage(FILE *f)
{
	size_t i;
	fprintf(f, "usage: torch-dll-check <command> [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].help)
			fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'torch-dll-check <command> --help' describes a command's options.\n"
		   "Exit status: 0 pass, 1 findings, 2 usage or input error.\n");
}

int main(int argc, char **argv)
{
	size_t i;
	os_init(&argc, &argv);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("torch-dll-check %s\n", TDC_VERSION);
		return EXIT_PASS;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_PASS;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			struct err e;
			int rc = commands[i].fn(argc - 1, argv + 1);
			err_clear(&e);
			if (out_finish(&e)) /* ends the guard its first text line began (out.h) */
				return cmd_usage_error("%s", e.msg);
			return rc;
		}
	cmd_usage_error("unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
