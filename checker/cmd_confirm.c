/*
 * cmd_confirm: the command side of live confirmation (confirm.h):
 *   - the hidden subcommand `confirm-helper`, which `check --confirm` starts
 *     as a child process of itself (never meant to be typed by a person);
 *   - the `check` options --confirm, --confirm-import, --confirm-timeout,
 *     and running confirm_run over every install of a report.
 * On a non-Windows build the options are a usage error (exit 2): there is
 * no real Windows loader to ask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "confirm.h"
#include "jsonout.h"
#include "os.h"
#include "result.h"

static const char helper_usage[] =
	"usage: torch-dll-check confirm-helper --torch DIR [--dll-path DIR]... [--pyd PATH]...\n"
	"                                      [--app-dir DIR] [--no-vc-probe]\n"
	"\n"
	"Internal: performs torch's DLL loading for real in this process and prints one JSON\n"
	"line per binary ({path, kind, stage, flags, error}). `check --confirm` runs it as a\n"
	"child process. Windows only. Exit status: 0 all loaded, 1 some did not, 2 usage.\n";

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

int cmd_confirm_helper(int argc, char **argv)
{
	struct confirm_helper_args a;
	struct err e;
	int i, r, rc = EXIT_USAGE;

	memset(&a, 0, sizeof(a));
	a.vc_probe = 1;
	err_clear(&e);
	for (i = 1; i < argc; i++) {
		const char *val;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(helper_usage, stdout);
			rc = EXIT_PASS;
			goto out;
		}
		if (!strcmp(argv[i], "--no-vc-probe")) {
			a.vc_probe = 0;
			continue;
		}
		if ((r = arg_value(argc, argv, &i, "--torch", &val)) != 0) {
			if (r < 0)
				goto out;
			a.torch_dir = val;
			continue;
		}
		if ((r = arg_value(argc, argv, &i, "--dll-path", &val)) != 0) {
			if (r < 0)
				goto out;
			strlist_push(&a.dll_paths, val);
			continue;
		}
		if ((r = arg_value(argc, argv, &i, "--pyd", &val)) != 0) {
			if (r < 0)
				goto out;
			strlist_push(&a.pyds, val);
			continue;
		}
		if ((r = arg_value(argc, argv, &i, "--app-dir", &val)) != 0) {
			if (r < 0)
				goto out;
			a.app_dir = val;
			continue;
		}
		fputs(helper_usage, stderr);
		cmd_usage_error("confirm-helper: unknown argument '%s'", argv[i]);
		goto out;
	}
	if (!a.torch_dir) {
		fputs(helper_usage, stderr);
		cmd_usage_error("confirm-helper: give --torch DIR");
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
	return rc;
}

int confirm_opts_parse(struct confirm_opts *o, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *val;
	int r, is_confirm = !strcmp(a, "--confirm") || !strcmp(a, "--confirm-import");

	if ((is_confirm || !strncmp(a, "--confirm-timeout", 17)) && !os_is_windows()) {
		cmd_usage_error("%s needs Windows (the real loader); run the Windows build, torch-dll-check.exe",
				a);
		return -1;
	}
	if (!strcmp(a, "--confirm")) {
		o->helper = 1;
		return 1;
	}
	if (!strcmp(a, "--confirm-import")) {
		o->import_check = 1;
		return 1;
	}
	if ((r = arg_value(argc, argv, i, "--confirm-timeout", &val)) != 0) {
		char *end;
		long s;
		if (r < 0)
			return -1;
		s = strtol(val, &end, 10);
		if (*end || end == val || s < 0 || s > 86400) {
			cmd_usage_error("--confirm-timeout %s: give seconds (0 = no limit, at most 86400)", val);
			return -1;
		}
		o->timeout_ms = (unsigned)s * 1000u;
		return 1;
	}
	return 0;
}

int cmd_confirm_installs(struct result *report, const struct confirm_opts *o)
{
	cJSON *inst;
	struct err e;
	const char *src;
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
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(report->doc, "installs"))
	{
		if (confirm_run(&report->findings, inst, o, &e)) {
			cmd_usage_error("check: %s", e.msg);
			return -1;
		}
	}
	return 0;
}
