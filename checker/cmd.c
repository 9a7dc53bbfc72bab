/*
 * cmd: helpers shared by the command layers of both programs,
 * torch-dll-check (main.c) and torch-dll-check-git (git_main.c): the usage
 * error line and `--name VALUE` option matching (contracts in cmd.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int cmd_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("torch-dll-check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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
