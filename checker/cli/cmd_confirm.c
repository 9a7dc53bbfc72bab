/*
 * cmd_confirm: the command side of live confirmation (confirm.h):
 *   - the hidden subcommand `confirm-helper`, which `check --confirm` starts
 *     as a child process of itself (never meant to be typed by a person);
 *   - the `check` options --confirm, --confirm-import, --confirm-timeout,
 *     and the confirm pass (judge/check.h) over every install of a report.
 * On a non-Windows build the options are a usage error (exit 2): there is
 * no real Windows loader to ask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "judge/check.h"
#include "judge/confirm.h"
#include "util/jsonout.h"
#include "util/os.h"
#include "report/result.h"

static void print_line(const char *line, void *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	(void)ctx;
	json_safe_append(&sb, line, strlen(line)); /* like every JSON we print (jsonout.h) */
	strbuf_addch(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	fflush(stdout); /* a crash in the next DllMain must not lose this line */
}

static int clear_flag(void *dst, const char *val, struct strbuf *why)
{
	*(int *)dst = 0;
	return 0;
}

static int set_flag(void *dst, const char *val, struct strbuf *why)
{
	*(int *)dst = 1;
	return 0;
}

static const struct cli_opt helper_opts[] = {
	CLI_OPT("--torch", "DIR", "the torch package folder", cli_set_str, struct confirm_helper_args, torch_dir),
	CLI_OPT("--dll-path", "DIR", "a dll_paths folder, added with AddDllDirectory (repeatable, in order)",
		cli_push, struct confirm_helper_args, dll_paths),
	CLI_OPT("--pyd", "PATH", "an extension module to load after torch\\lib (repeatable, in order)",
		cli_push, struct confirm_helper_args, pyds),
	CLI_OPT("--app-dir", "DIR", "python.exe's folder", cli_set_str, struct confirm_helper_args, app_dir),
	CLI_OPT("--preload", "PATH", "a package's preload: a full path loaded before torch\\lib (repeatable, in order)",
		cli_push, struct confirm_helper_args, preloads),
	CLI_OPT("--preload-stops", NULL, "import torch ends after the preloads (the preload raises)", set_flag,
		struct confirm_helper_args, preload_stops),
	CLI_OPT("--no-vc-probe", NULL, "skip torch's VC runtime probe", clear_flag, struct confirm_helper_args, vc_probe),
	CLI_END,
};

/* Hidden: main lists it in no help and docs/cli.md leaves it out. */
const struct cli_cmd confirm_helper_cli = {
	.name = "confirm-helper",
	.summary = "Internal: performs torch's DLL loading for real in this process and prints one JSON\n"
		   "line per binary ({path, kind, stage, flags, error}). `check --confirm` runs it as a\n"
		   "child process. Windows only.",
	.synopsis = "--torch DIR [--dll-path DIR]... [--pyd PATH]... [--app-dir DIR] [--preload PATH]... [--preload-stops]\n"
		    "[--no-vc-probe]",
	.opts = helper_opts,
	.exit_status = "0 all loaded, 1 some did not, 2 usage.",
	.max_operands = 0,
};

int cmd_confirm_helper(int argc, char **argv)
{
	struct confirm_helper_args a;
	struct cli_args args;
	struct err e;
	int r, rc = EXIT_USAGE;

	memset(&a, 0, sizeof(a));
	a.vc_probe = 1;
	err_clear(&e);
	r = cli_parse(&confirm_helper_cli, argc, argv, &a, &args);
	cli_args_release(&args);
	if (r) {
		rc = r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
		goto out;
	}
	if (!a.torch_dir) {
		cli_error(&confirm_helper_cli, "missing --torch DIR");
		goto out;
	}
	r = confirm_helper_run(&a, print_line, NULL, &e);
	if (r < 0) {
		cmd_usage_error("confirm-helper: %s", e.msg);
		goto out;
	}
	rc = r ? EXIT_FINDINGS : EXIT_PASS;
out:
	strlist_release(&a.dll_paths);
	strlist_release(&a.pyds);
	strlist_release(&a.preloads);
	return rc;
}

static int needs_windows(struct strbuf *why)
{
	if (os_is_windows())
		return 0;
	strbuf_adds(why, "needs Windows (the real loader); run the Windows build, torch-dll-check.exe");
	return -1;
}

static int set_on(void *dst, const char *val, struct strbuf *why)
{
	if (needs_windows(why))
		return -1;
	*(int *)dst = 1;
	return 0;
}

static int set_timeout(void *dst, const char *val, struct strbuf *why)
{
	char *end;
	long s;
	if (needs_windows(why))
		return -1;
	s = strtol(val, &end, 10);
	if (*end || end == val || s < 0 || s > 86400) {
		strbuf_adds(why, "give seconds (0 = no limit, at most 86400)");
		return -1;
	}
	*(unsigned *)dst = (unsigned)s * 1000u;
	return 0;
}

const struct cli_opt confirm_cli_opts[] = {
	CLI_OPT("--confirm", NULL, "Windows: also load every binary for real in a child process and report\n"
		"disagreements with the prediction",
		set_on, struct confirm_opts, helper),
	CLI_OPT("--confirm-import", NULL, "Windows: also run python -c \"import torch\" and compare",
		set_on, struct confirm_opts, import_check),
	CLI_OPT("--confirm-timeout", "SECONDS", "Windows: the limit for each child process (default 120; 0 = none)",
		set_timeout, struct confirm_opts, timeout_ms),
	CLI_END,
};

int cmd_confirm_installs(struct result *report, const struct confirm_opts *o)
{
	struct err e;
	const char *src;
	size_t i;
	if (!o->helper && !o->import_check)
		return 0;
	/* the binaries' paths must be real ones: an offline tree (--root) cannot be loaded */
	src = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(report->doc, "machine"), "source"));
	if (!src || strcmp(src, "live")) {
		cmd_usage_error("check: --confirm and --confirm-import confirm the live machine; "
				"they cannot be combined with --root");
		return -1;
	}
	err_clear(&e);
	for (i = 0; i < report->ninstalls; i++)
		if (check_confirm(report->installs[i], &report->findings, o, &e)) {
			cmd_usage_error("check: %s", e.msg);
			return -1;
		}
	return 0;
}
