/*
 * main: dispatch to one subcommand. The only place (with the cmd_*.c files)
 * that decides exit statuses; library code below never exits.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "os.h"
#include "report.h"

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
	{ "matrix", cmd_matrix, "lint or show the torch runtime matrix" },
	{ "pins", cmd_pins, "which torch a repository revision pins (requirements files, via git)" },
	{ "report", cmd_report, "render a saved JSON report: text, GitHub annotations/summary/outputs, SARIF" },
};

static void usage(FILE *f)
{
	size_t i;
	fprintf(f, "usage: torch-dll-check <command> [options]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'torch-dll-check <command> --help' describes a command's options.\n"
		   "Exit status: 0 pass, 1 findings, 2 usage or input error.\n");
}

int cmd_usage_error(const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT, out = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	/*
	 * Messages quote paths and DLL names from the machine checked: printed
	 * as one safe line (controls visible, "::" and "##[" broken, report.h),
	 * so they can never act as a GitHub workflow command or a terminal escape.
	 */
	strbuf_adds(&out, "torch-dll-check: ");
	report_esc_line(&out, msg.buf);
	strbuf_addch(&out, '\n');
	fputs(out.buf, stderr);
	strbuf_release(&msg);
	strbuf_release(&out);
	return EXIT_USAGE;
}

int arg_value(int argc, char **argv, int *i, const char *name, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*val = a + n + 1;
		return 1;
	}
	if (a[n] != '\0')
		return 0;
	if (*i + 1 >= argc) {
		cmd_usage_error("option %s needs a value", name);
		return -1;
	}
	*i += 1;
	*val = argv[*i];
	return 1;
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
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "torch-dll-check: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return EXIT_USAGE;
}
