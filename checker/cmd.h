/*
 * cmd: the command layer. One function per subcommand, each in cmd_<name>.c,
 * dispatched from main.c. A command parses its arguments, calls library
 * modules, prints, and returns the process exit status:
 *   0  pass (nothing at or above the failure threshold)
 *   1  findings at or above the threshold (the check failed)
 *   2  usage error or unusable input (bad arguments, unreadable file, bad YAML)
 * Commands are the only code that prints; library modules return errors.
 */
#ifndef TDC_CMD_H
#define TDC_CMD_H

#include "err.h"
#include "strbuf.h"

#define EXIT_PASS 0
#define EXIT_FINDINGS 1
#define EXIT_USAGE 2

#define TDC_VERSION "0.1.0"

int cmd_pe(int argc, char **argv);
int cmd_deps(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_inventory(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_pins(int argc, char **argv);
int cmd_report(int argc, char **argv);

/*
 * The reporting options `check` and `report` share (--format, --json,
 * --sarif, --summary, --outputs, --sarif-anchor, --fail-on; see
 * cmd_report.c). report_opts_parse returns 1 when argv[*i] was one of them
 * (advancing *i past its value), 0 when it is another option, -1 after
 * printing a usage error. report_run renders `doc` (a report v1 document) to
 * stdout and the files asked for and returns the exit status.
 */
struct report_opts;
struct cJSON;
int report_opts_parse(struct report_opts *o, int argc, char **argv, int *i);
int report_run(const struct cJSON *doc, const struct report_opts *o);

/*
 * Live confirmation (cmd_confirm.c, confirm.h): the hidden `confirm-helper`
 * command; confirm_opts_parse takes --confirm, --confirm-import and
 * --confirm-timeout SECONDS like report_opts_parse (1 taken, 0 another
 * option, -1 after a usage error — always on a non-Windows build);
 * cmd_confirm_installs runs confirm_run over every install of the report
 * (before result_finish), -1 after printing an error.
 */
struct confirm_opts;
struct result;
int cmd_confirm_helper(int argc, char **argv);
int confirm_opts_parse(struct confirm_opts *o, int argc, char **argv, int *i);
int cmd_confirm_installs(struct result *report, const struct confirm_opts *o);

/* Prints "torch-dll-check: <msg>" to stderr; returns EXIT_USAGE. */
int cmd_usage_error(const char *fmt, ...) ERR_PRINTF(1, 2);

/*
 * Prints one line to stderr, escaped like cmd_usage_error (controls made
 * visible, "::" and "##[" broken): for messages that quote the machine or
 * the repository but are not usage errors.
 */
void cmd_errorf(const char *fmt, ...) ERR_PRINTF(1, 2);

/*
 * Option matching for `--name VALUE` and `--name=VALUE`. On a match, *val
 * points at the value, *i is advanced past it and 1 is returned; 0 if argv[*i]
 * is another option; -1 (after printing a usage error) if the value is missing.
 */
int arg_value(int argc, char **argv, int *i, const char *name, const char **val);

/*
 * The machine to check, for commands that take --root: an offline tree when
 * `root` is given, else the live machine on Windows, else "/" standing for
 * C:\ (cmd_view.c). Prints and returns NULL on error.
 */
struct view;
struct view *cmd_open_view(const char *root);

/*
 * The options that describe the machine being checked, shared by `deps`,
 * `check` and `inventory` (cmd_view.c): --root DIR, --registry FILE (repeatable,
 * merged in order), --env NAME=VALUE (repeatable). view_opts_parse returns 1
 * when argv[*i] was one of them (advancing *i past its value), 0 when it is
 * another option, -1 after printing a usage error.
 *
 * view_opts_registry loads the --registry files into *reg (left NULL when
 * none was given). view_opts_open opens the view (cmd_open_view), attaches
 * *reg, or loads the --registry files when *reg is NULL, taking ownership
 * (*reg is set to NULL), and applies the --env assignments. Unless
 * `unreadable_registry_ok` is set, a Wine system.reg that is there but
 * unreadable is an input error rather than "no registry". Both print
 * "<cmd>: <message>" and return -1 on error; the caller frees *reg and *v.
 */
struct registry;
struct view_opts {
	const char *root;
	struct strlist registries;
	struct strlist envs;
	int unreadable_registry_ok;
};
void view_opts_init(struct view_opts *o);
void view_opts_release(struct view_opts *o);
int view_opts_parse(struct view_opts *o, int argc, char **argv, int *i);
int view_opts_registry(const struct view_opts *o, const char *cmd, struct registry **reg);
int view_opts_open(const struct view_opts *o, const char *cmd, struct registry **reg, struct view **v);

/*
 * A path the user gave, as a Windows path on the view: "C:\\..." as is;
 * a host path (absolute or relative) under the root is translated. Prints
 * and returns NULL when it lies outside the tree. Caller frees.
 */
char *cmd_winpath(struct view *v, const char *arg);

/*
 * Inside a command's option loop (`for (i = 1; i < argc; i++)` with `int r`
 * and `const char *val` in scope): matches `--name VALUE` / `--name=VALUE`,
 * runs `dst` (e.g. `root = val`) and continues the loop; a missing value
 * jumps to the command's `out:` label (arg_value has printed the error).
 */
#define CMD_OPT(name, dst)                                                                         \
	if ((r = arg_value(argc, argv, &i, name, &val)) != 0) {                                    \
		if (r < 0)                                                                         \
			goto out;                                                                  \
		dst;                                                                               \
		continue;                                                                          \
	}

#endif
