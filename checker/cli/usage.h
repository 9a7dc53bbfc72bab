/*
 * usage: the process exit statuses and the error lines every command of both
 * programs prints (stderr, one escaped line each), so that the same mistake
 * reads the same in every command.
 *   0  pass (nothing at or above the failure threshold)
 *   1  findings at or above the threshold (the check failed)
 *   2  usage error or unusable input (bad arguments, unreadable file, bad YAML)
 */
#ifndef TDC_USAGE_H
#define TDC_USAGE_H

#include "util/err.h"

#define EXIT_PASS 0
#define EXIT_FINDINGS 1
#define EXIT_USAGE 2

/* Prints "torch-dll-check: <msg>" to stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *fmt, ...) ERR_PRINTF(1, 2);

/*
 * Prints one line to stderr, escaped like cmd_usage_error (controls made
 * visible, "::" and "##[" broken): for messages that quote the machine or
 * the repository but are not usage errors.
 */
void cmd_errorf(const char *fmt, ...) ERR_PRINTF(1, 2);

#endif
