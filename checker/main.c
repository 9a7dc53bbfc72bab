/*
 * main: dispatch to one subcommand. The only place (with the cmd_*.c files)
 * that decides exit statuses; library code below never exits.
 *
 * In GitHub Actions every line a step prints, on stdout or stderr, is
 * scanned for workflow commands ("::cmd::" at a line start, the legacy
 * "##[cmd]" anywhere). `check` and `report` render GitHub output themselves
 * (annotations, then raw text inside stop-commands), and `pins` runs
 * torch-dll-check-git, which does the same. Every other command prints text
 * taken from the machine or the repository (DLL names, paths, YAML keys), so
 * main wraps its whole output in ::stop-commands::TOKEN ... ::TOKEN:: with an
 * unpredictable token: nothing it prints can act as a command.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "os.h"
#include "report.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
	int speaks_github; /* guards its own output against workflow commands */
};

static const struct command commands[] = {
	{ "check", cmd_check, "will torch load on this machine? (findings, exit 1 on failure)", 1 },
	{ "deps", cmd_deps, "the dependency tree of one binary, as the loader resolves it", 0 },
	{ "pe", cmd_pe, "headers, imports, exports and version of PE files", 0 },
	{ "inventory", cmd_inventory, "redistributables, runtime DLLs and torch installs found", 0 },
	{ "matrix", cmd_matrix, "lint, show, select or derive the torch runtime matrix", 0 },
	{ "pins", cmd_pins, "which torch a repository revision pins (requirements files, via git)", 1 },
	{ "report", cmd_report, "render a saved JSON report: text, GitHub annotations/summary/outputs, SARIF", 1 },
	/* hidden: started by check --confirm; its JSON lines go to the parent's pipe, never to a log */
	{ "confirm-helper", cmd_confirm_helper, NULL, 1 },
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

/* Runs a command whose output is raw text with workflow commands suspended. */
static int run_guarded(const struct command *c, int argc, char **argv)
{
	unsigned char rnd[16];
	char token[33];
	struct err e;
	size_t k;
	int rc;
	err_clear(&e);
	if (os_random(rnd, sizeof(rnd), &e))
		return cmd_usage_error("cannot guard the output against workflow commands: %s", e.msg);
	for (k = 0; k < sizeof(rnd); k++)
		snprintf(token + 2 * k, 3, "%02x", rnd[k]);
	printf("::stop-commands::%s\n", token);
	fflush(stdout);
	rc = c->fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	printf("::%s::\n", token);
	fflush(stdout);
	return rc;
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
			const char *gha = os_getenv("GITHUB_ACTIONS");
			if (!commands[i].speaks_github && gha && !strcmp(gha, "true"))
				return run_guarded(&commands[i], argc - 1, argv + 1);
			return commands[i].fn(argc - 1, argv + 1);
		}
	cmd_usage_error("unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
