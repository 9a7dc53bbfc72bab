/*
 * opt: commands declared as tables. Each command describes itself once — its
 * name, operands, one-line summary, options (name, argument, help line, the
 * function that stores the value and where), notes and exit statuses — in a
 * `struct cli_cmd`, and everything else comes from that one description:
 * parsing (cli_parse), `--help` (cli_help), the top-level command list and
 * docs/cli.md (cli_markdown, through the hidden `--help-markdown`).
 * libgit2's `cli_opt_spec` and git's `parse_options` are the models.
 *
 * The conventions every command thereby shares (GNU's):
 *   --name VALUE and --name=VALUE; `--` ends the options; `-` is an operand;
 *   -h / --help prints the help to stdout and exits 0;
 *   a mistake prints one error line first, then one line pointing at
 *   `--help` — never the whole usage — and exits 2, with the same words for
 *   the same mistake in every command:
 *     torch-dll-check: CMD: unknown option '--trase' (did you mean '--trace'?)
 *     torch-dll-check: CMD: option '--root' needs a value (DIR)
 *     torch-dll-check: CMD: option '--trace' takes no value
 *     torch-dll-check: CMD: --machine amd65: expected x64, x86 or arm64
 *     torch-dll-check: CMD: unexpected argument 'x'
 *     torch-dll-check: CMD: missing FILE
 *     Try 'torch-dll-check CMD --help'.
 */
#ifndef TDC_CLI_OPT_H
#define TDC_CLI_OPT_H

#include <stddef.h>
#include <stdio.h>

#include "util/err.h"
#include "util/strbuf.h"

struct cli_opt;

/*
 * Stores one option's value (NULL for a switch) at `dst`. Returns 0, or -1
 * with the reason in `why` ("expected x64, x86 or arm64"): the parser prints
 * "CMD: --NAME VALUE: <why>" and the --help line.
 */
typedef int (*cli_set_fn)(void *dst, const char *val, struct strbuf *why);

enum cli_opt_flags {
	CLI_HIDDEN = 1,      /* parsed, never shown in --help or the docs */
	CLI_MAYBE_VALUE = 2, /* the value is optional: the next word unless it starts with '-' (but "-" is one) */
};

struct cli_opt {
	const char *name;            /* "--root"; NULL (with group NULL) ends the table */
	const char *arg;             /* "DIR" when it takes a value; NULL for a switch */
	const char *help;            /* the help line; "\n" starts a continuation line */
	cli_set_fn set;              /* cli_set_str, cli_set_flag, cli_push, or the command's own */
	size_t off;                  /* where `set` writes: offset in the command's options struct */
	unsigned flags;              /* enum cli_opt_flags */
	const struct cli_opt *group; /* with name NULL: a shared table, its offsets relative to `off` */
};

#define CLI_OPT(name, arg, help, set, type, field) { name, arg, help, set, offsetof(type, field), 0, NULL }
#define CLI_OPT_HIDDEN(name, arg, set, type, field) { name, arg, NULL, set, offsetof(type, field), CLI_HIDDEN, NULL }
#define CLI_GROUP(table, type, field) { NULL, NULL, NULL, NULL, offsetof(type, field), 0, table }
#define CLI_END { NULL, NULL, NULL, NULL, 0, 0, NULL }

struct cli_cmd {
	const char *name;        /* as typed after the program name: "deps", "matrix lint" */
	const char *summary;     /* one line, for the top-level help and the docs */
	const char *synopsis;    /* what follows the name in the usage line; NULL: "[options] " + operands */
	const char *operands;    /* "FILE", "FILE...", "[FILE...]"; NULL: none */
	int min_operands;        /* fewer: "missing <operands>" */
	int max_operands;        /* more: "unexpected argument"; -1 no limit */
	const struct cli_opt *opts;
	const char *notes;       /* paragraphs after the options; may be NULL */
	const char *exit_status; /* "0 ..., 1 ..., 2 ...", one line: every command says what its statuses mean */
};

/* What cli_parse found besides options: the operands, borrowed from argv. */
struct cli_args {
	const char **v;
	int n;
};

#define CLI_HELP_SHOWN 1

/*
 * Parses argv (argv[0] is the command's last word) against c->opts, storing
 * into `opts` (the command's options struct the offsets refer to) and
 * collecting operands into *args (cli_args_release it whatever the result). Returns 0, CLI_HELP_SHOWN
 * after printing the help to stdout (exit 0), or -1 after printing an error
 * and the --help line to stderr (exit 2).
 */
int cli_parse(const struct cli_cmd *c, int argc, char **argv, void *opts, struct cli_args *args);
void cli_args_release(struct cli_args *args);

/*
 * A usage mistake found after parsing (two options that do not combine, a
 * value out of range): prints "torch-dll-check: CMD: <msg>" (escaped like
 * cmd_usage_error) and the --help line; returns EXIT_USAGE (2).
 */
int cli_error(const struct cli_cmd *c, const char *fmt, ...) ERR_PRINTF(2, 3);

/*
 * The option of c named by arg ("--root", "--root=DIR": the name up to '='),
 * looked up in its table and the tables it includes; NULL when it has none.
 */
const struct cli_opt *cli_lookup(const struct cli_cmd *c, const char *arg);

/* Prints "Try 'torch-dll-check CMD --help'." to stderr. */
void cli_try_help(const struct cli_cmd *c);

/* The command's help: usage line, options, notes, exit statuses. */
void cli_help(const struct cli_cmd *c, FILE *f);

/* The same as a Markdown section (for docs/cli.md). */
void cli_markdown(const struct cli_cmd *c, struct strbuf *out);

/* Setters for the common kinds of value. */
int cli_set_str(void *dst, const char *val, struct strbuf *why);  /* const char * = val (last wins) */
int cli_set_flag(void *dst, const char *val, struct strbuf *why); /* int = 1 */
int cli_push(void *dst, const char *val, struct strbuf *why);     /* strlist_push (repeatable) */
/* uint16_t = the PE machine: x64 (amd64), x86 (i386) or arm64 — the one --machine parser. */
int cli_set_machine(void *dst, const char *val, struct strbuf *why);
#define CLI_MACHINE_ARG "x64|x86|arm64"

#endif
