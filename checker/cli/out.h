/*
 * out: everything a command writes to stdout, through one gate that keeps
 * it from acting as a GitHub Actions workflow command or a terminal control
 * sequence. Used by the command layers of both programs (main.c, cmd_*.c,
 * git_main.c); library modules never print.
 *
 * The runner scans every line a step prints, on stdout and stderr, for
 * workflow commands: "::name ...::data" once leading whitespace is trimmed,
 * and the legacy "##[name]data" anywhere in a line (actions/runner,
 * src/Runner.Common/ActionCommand.cs and ActionCommandManager.cs). A command
 * can mask text, set outputs and environment, fail the step or forge
 * annotations. So, under GITHUB_ACTIONS=true, every byte we write is covered:
 *
 *   - text for people (out_printf): every %s argument through text.h's
 *     escaper, and the first text line begins the stop-commands guard,
 *     ::stop-commands::TOKEN (TOKEN 128 bits from os_random), which
 *     out_finish ends (::TOKEN::) when the command returns;
 *   - JSON and SARIF (out_json, or jsonout.h for files): escaped, so that
 *     they stay valid JSON for `> file` and pipes — no guard lines;
 *   - our own workflow commands (annotations, out_commands): printed while
 *     the guard is off, every field escaped by their builder (report.h);
 *   - stderr (cmd_usage_error, cmd_errorf): escaped line by line, because
 *     the runner reads stderr and stdout on separate pipes and a stderr line
 *     may be read before the guard line on stdout.
 *
 * When no random token can be drawn the guard refuses: nothing more is
 * written to stdout, and out_finish reports it so that main exits 2. There
 * is no unguarded fallback. Outside Actions there is no guard, and the same
 * escaping keeps raw ESC, BEL, CR, LF, C1 and bidi controls off the terminal.
 */
#ifndef TDC_OUT_H
#define TDC_OUT_H

#include <stddef.h>

#include "util/err.h"

struct cJSON;

/* Whether GITHUB_ACTIONS is "true" (the runner sets it for every step). */
int out_in_actions(void);

/*
 * printf to stdout with every %s argument escaped (text_addf, text.h).
 * Under Actions the first call begins the guard. Returns -1 when the guard
 * refused (nothing was written).
 */
int out_printf(const char *fmt, ...) ERR_PRINTF(1, 2);

/* The JSON text of item (formatted), made safe (jsonout.h), and a newline. */
int out_json(const struct cJSON *item);

/*
 * Text already made safe by its builder (a rendered report, whose renderer
 * escapes every field), under the guard like out_printf.
 */
int out_text(const char *s, size_t n);

/*
 * Our own workflow commands (annotation lines whose fields the builder
 * escaped): written with the guard off — it is ended first if it is on; the
 * next out_printf begins a new one.
 */
void out_commands(const char *s, size_t n);

/*
 * Begins the guard now (under Actions; once). -1 with a message when no token
 * can be drawn. out_printf and out_text call it themselves.
 */
int out_guard_begin(struct err *err);

/* Ends the guard if it is on (flushing stdout and stderr first). */
void out_guard_end(void);

/*
 * After the command: ends the guard. Returns -1 with the reason when the
 * guard refused during the command (main then exits 2), else 0.
 */
int out_finish(struct err *err);

/*
 * Whether an output target (--json FILE, --sarif FILE) names standard
 * output: "-" and "/dev/stdout". Replacing /dev/stdout, a link to
 * /proc/self/fd/1, would replace the link (os_write_file_atomic refuses
 * every other target that is not a regular file).
 */
int out_is_stdout(const char *path);

/* 32 lowercase hex digits (128 bits) from os_random: tokens and delimiters. */
int out_random_hex(char out[33], struct err *err);

#endif
