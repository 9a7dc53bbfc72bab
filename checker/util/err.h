/*
 * err: error values for library code.
 *
 * Library functions never print and never exit. A function that can fail
 * takes a `struct err *` as its last argument, fills it with one message a
 * user can act on ("import descriptor 3: name RVA 0x1234 outside any
 * section") and returns -1 (or NULL). Only main() decides what to print and
 * which exit status to use. A NULL `struct err *` is allowed: the message is
 * then dropped.
 */
#ifndef TDC_ERR_H
#define TDC_ERR_H

#include <stddef.h>

#define ERR_MSG_MAX 1024

struct err {
	char msg[ERR_MSG_MAX];
	int code; /* optional detail for callers that act on it; 0 if unused */
};

#include <stdio.h> /* on mingw-w64: __MINGW_PRINTF_FORMAT, C99 printf (%zu) under -std=c11 */

#if defined(__MINGW_PRINTF_FORMAT)
/* mingw's "printf" archetype is msvcrt's (no %zu); its C99 stdio is gnu_printf. */
#define ERR_PRINTF(a, b) __attribute__((format(__MINGW_PRINTF_FORMAT, a, b)))
#elif defined(__GNUC__) || defined(__clang__)
#define ERR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ERR_PRINTF(a, b)
#endif

/* Sets the message (printf-style) and returns -1, so `return err_set(...)` reads well. */
int err_set(struct err *e, const char *fmt, ...) ERR_PRINTF(2, 3);

/* Prepends context: "pe.dll: " + existing message. Returns -1. */
int err_prefix(struct err *e, const char *fmt, ...) ERR_PRINTF(2, 3);

void err_clear(struct err *e);

#endif
