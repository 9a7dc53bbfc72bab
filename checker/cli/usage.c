/*
 * usage: the error lines of both programs, torch-dll-check (main.c) and
 * torch-dll-check-git (git/git_main.c), contracts in usage.h. Option parsing
 * is opt.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/usage.h"
#include "util/strbuf.h"
#include "util/text.h"

static void say_escaped(const char *prefix, const char *fmt, va_list ap) ERR_PRINTF(2, 0);

static void say_escaped(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT, out = STRBUF_INIT;
	strbuf_vaddf(&msg, fmt, ap);
	/*
	 * Messages quote paths and DLL names from the machine checked: printed
	 * as one safe line (controls visible, "::" and "##[" broken, report.h),
	 * so they can never act as a GitHub workflow command or a terminal escape.
	 */
	strbuf_adds(&out, prefix);
	text_esc_line(&out, msg.buf);
	strbuf_addch(&out, '\n');
	fputs(out.buf, stderr);
	strbuf_release(&msg);
	strbuf_release(&out);
}

int cmd_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_escaped("torch-dll-check: ", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

void cmd_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say_escaped("", fmt, ap);
	va_end(ap);
}
