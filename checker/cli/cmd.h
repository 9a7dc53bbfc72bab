/*
 * cmd: the command layer. One function per subcommand, each in cmd_<name>.c,
 * dispatched from main.c. Each declares its options in one table (opt.h),
 * parses with cli_parse, calls library modules, prints, and returns the
 * process exit status:
 *   0  pass (nothing at or above the failure threshold)
 *   1  findings at or above the threshold (the check failed)
 *   2  usage error or unusable input (bad arguments, unreadable file, bad YAML)
 * Commands are the only code that prints; library modules return errors.
 */
#ifndef TDC_CMD_H
#define TDC_CMD_H

#include "util/err.h"
#include "util/strbuf.h"
#include "cli/opt.h"
#include "cli/usage.h"
#include "pins/pins.h"
#include "util/tdc.h"


/*
 * The commands: each takes argv with argv[0] its last word ("deps", "lint")
 * and returns the exit status; each *_cli describes it (opt.h), for parsing,
 * --help, the top-level help and docs/cli.md.
 */
int cmd_pe(int argc, char **argv);
int cmd_deps(int argc, char **argv);
int cmd_check(int argc, char **argv);
/*
 * `check` with a reader of the repository's pins for --pins (gate.h's
 * gate_read_fn). cmd_check passes NULL: --pins then runs the whole command
 * in torch-dll-check-git, whose cmd_git_check (git_gate.c) passes the git
 * reader.
 */
struct gate_pins;
struct gate_source;
int cmd_check_with(int argc, char **argv,
		   int (*read_pins)(struct gate_pins *out, const struct gate_source *src, struct err *err));
int cmd_git_check(int argc, char **argv);
/* `pins` in torch-dll-check-git (cli/git/git_cmd_pins.c), with the options of pins_cli. */
int cmd_git_pins(int argc, char **argv);
int cmd_inventory(int argc, char **argv);
int cmd_matrix_lint(int argc, char **argv);
int cmd_matrix_show(int argc, char **argv);
int cmd_matrix_select(int argc, char **argv);
int cmd_matrix_derive(int argc, char **argv);
int cmd_pins(int argc, char **argv);
/* Runs torch-dll-check-git (next to this program) for the command in argv[0]: pins, audit, ... */
int cmd_git_sibling(int argc, char **argv);
int cmd_report(int argc, char **argv);
extern const struct cli_cmd pe_cli, deps_cli, check_cli, inventory_cli, matrix_lint_cli, matrix_show_cli,
	matrix_select_cli, matrix_derive_cli, pins_cli, report_cli, confirm_helper_cli;

/*
 * `pins` runs in torch-dll-check-git (cli/git/git_cmd_pins.c) but is described here, so
 * that the main program's help and docs/cli.md list it too.
 */
/*
 * --repo, --rev, --base, --head, --github-event over a struct pins_where
 * (cmd_pins.c): a table to include with CLI_GROUP, for `pins` and
 * `check --pins`. pins_where_check refuses two sources at once (-1 after
 * cli_error on cmd).
 */
extern const struct cli_opt pins_where_cli_opts[];
int pins_where_check(const struct cli_cmd *cmd, const struct pins_where *s);

struct pins_opts {
	struct pins_where src;
	struct strlist matrices;
	int all, json;
	int worktree; /* --worktree: the head is the working tree, uncommitted edits included */
};

/*
 * The reporting options `check` and `report` share (--format, --json,
 * --sarif, --summary, --outputs, --sarif-anchor, --fail-on; cmd_report.c),
 * a table to include with CLI_GROUP over a struct report_opts. report_run
 * renders `doc` (a report v1 document) to stdout and the files asked for and
 * returns the exit status.
 */
struct report_opts;
struct cJSON;
extern const struct cli_opt report_cli_opts[];
int report_run(const struct cJSON *doc, const struct report_opts *o);

/*
 * Live confirmation (cmd_confirm.c, confirm.h): the hidden `confirm-helper`
 * command; confirm_cli_opts, over a struct confirm_opts, are --confirm,
 * --confirm-import and --confirm-timeout SECONDS (each a usage error on a
 * non-Windows build);
 * cmd_confirm_installs runs the confirm pass (judge/check.h) over every install of the report
 * (before result_finish), -1 after printing an error.
 */
struct confirm_opts;
struct result;
int cmd_confirm_helper(int argc, char **argv);
extern const struct cli_opt confirm_cli_opts[];
int cmd_confirm_installs(struct result *report, const struct confirm_opts *o);


/*
 * The machine to check, for commands that take --root: an offline tree when
 * `root` is given, else the live machine on Windows, else "/" standing for
 * C:\ (view_opt.c). Prints and returns NULL on error.
 */
struct view;
struct view *cmd_open_view(const char *root);

/*
 * The options that describe the machine being checked, shared by `deps`,
 * `check` and `inventory` (view_opt.c): --root DIR, --registry FILE (repeatable,
 * merged in order), --env NAME=VALUE (repeatable); view_cli_opts is their
 * table, to include with CLI_GROUP over a struct view_opts.
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
	const char *also_keep;  /* a registry key kept besides those a check reads (inventory --query) */
};
void view_opts_init(struct view_opts *o);
void view_opts_release(struct view_opts *o);
extern const struct cli_opt view_cli_opts[];
int view_opts_registry(const struct view_opts *o, const char *cmd, struct registry **reg);
int view_opts_open(const struct view_opts *o, const char *cmd, struct registry **reg, struct view **v);

/*
 * A hint for a Windows path (C:\...) that is not there on an offline view
 * opened without --root (C:\ is then "/"): " (without --root, ...)", else "".
 */
const char *cmd_root_hint(const struct view_opts *o, struct view *v, const char *arg);

/* The --depth setter of check and inventory (opt.h): how many folders deep --scan looks, 1 to 64. */
int cmd_set_scan_depth(void *dst, const char *val, struct strbuf *why);

/*
 * A path the user gave, as a Windows path on the view: "C:\\..." as is;
 * a host path (absolute or relative) under the root is translated. Prints
 * and returns NULL when it lies outside the tree. Caller frees.
 */
char *cmd_winpath(struct view *v, const char *arg);

#endif
