/*
 * out: the stdout gate and the workflow-command guard (design in out.h).
 */
#include "cli/out.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/jsonout.h"
#include "util/os.h"
#include "util/strbuf.h"
#include "util/text.h"

static char token[33];      /* the guard's token while it is on */
static int refused;         /* no token could be drawn: stdout is closed */
static struct err refusal;

int out_in_actions(void)
{
	const char *v = os_getenv("GITHUB_ACTIONS");
	return v && !strcmp(v, "true");
}

int out_random_hex(char out[33], struct err *err)
{
	unsigned char b[16];
	size_t i;
	out[0] = '\0';
	if (os_random(b, sizeof(b), err))
		return -1;
	for (i = 0; i < sizeof(b); i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
	return 0;
}

int out_guard_begin(struct err *err)
{
	if (refused)
		return err_set(err, "%s", refusal.msg);
	if (token[0] || !out_in_actions())
		return 0;
	if (out_random_hex(token, &refusal)) {
		token[0] = '\0';
		refused = 1;
		err_prefix(&refusal, "cannot guard the output against GitHub workflow commands: ");
		return err_set(err, "%s", refusal.msg);
	}
	fflush(stderr);
	printf("::stop-commands::%s\n", token);
	fflush(stdout);
	return 0;
}

void out_guard_end(void)
{
	if (!token[0])
		return;
	fflush(stdout);
	fflush(stderr);
	printf("::%s::\n", token);
	fflush(stdout);
	token[0] = '\0';
}

int out_finish(struct err *err)
{
	out_guard_end();
	fflush(stdout);
	if (refused)
		return err_set(err, "%s", refusal.msg);
	return 0;
}

int out_text(const char *s, size_t n)
{
	if (out_guard_begin(NULL))
		return -1;
	fwrite(s, 1, n, stdout);
	return 0;
}

int out_printf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;
	va_start(ap, fmt);
	text_vaddf(&sb, fmt, ap);
	va_end(ap);
	r = out_text(sb.buf, sb.len);
	strbuf_release(&sb);
	return r;
}

int out_json(const struct cJSON *item)
{
	struct strbuf sb = STRBUF_INIT;
	if (refused)
		return -1;
	json_print(&sb, item, 1);
	strbuf_addch(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	return 0;
}

void out_commands(const char *s, size_t n)
{
	if (refused)
		return;
	out_guard_end();
	fwrite(s, 1, n, stdout);
	fflush(stdout);
}

int out_is_stdout(const char *path)
{
	return path && (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"));
}
