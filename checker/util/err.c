#include "util/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;
	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char pre[ERR_MSG_MAX], old[ERR_MSG_MAX];
	va_list ap;
	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	{
		/* Truncation is fine: the message stays NUL-terminated and readable. */
		size_t n = strlen(pre);
		if (n >= sizeof(e->msg))
			n = sizeof(e->msg) - 1;
		memcpy(e->msg, pre, n);
		e->msg[n] = '\0';
		strncat(e->msg, old, sizeof(e->msg) - n - 1);
	}
	return -1;
}

void err_clear(struct err *e)
{
	if (e) {
		e->msg[0] = '\0';
		e->code = 0;
	}
}
