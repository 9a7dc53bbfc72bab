/*
 * cmd_check: `torch-dll-check check` — will `import torch` load its
 * binaries on this machine? Runs torch's procedure (torchload.c) for one
 * install, builds the JSON report (result.c) and prints it (--json) or a
 * text a person reads in ten seconds: the verdict first, then failures with
 * leaf, chain and fix, then warnings.
 *
 * The matrix and inventory (issue 4) plug in at check_install(): it takes
 * a torch run and an optional matrix row and appends to the report; their
 * findings are added to the same document before result_finish().
 *
 * Exit status: 0 everything loads, 1 something fails, 2 usage/input error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "confirm.h"
#include "report.h"
#include "result.h"
#include "torchload.h"
#include "registry.h"
#include "view.h"

static const char check_usage[] =
	"usage: torch-dll-check check (--torch DIR | --site-packages DIR | --python PATH) [options]\n"
	"\n"
	"  --torch DIR          the torch package folder (...\\site-packages\\torch)\n"
	"  --site-packages DIR  a site-packages folder holding torch\n"
	"  --python PATH        python.exe of the environment (venv and conda layouts understood)\n"
	"  --root DIR           a host directory standing for C:\\ (a Wine prefix's drive_c works)\n"
	"  --registry FILE      the machine's registry: a `reg export` file or a Wine system.reg\n"
	"  --env NAME=VALUE     an environment variable of the checked machine (PATH, CUDA_PATH_V12_1, ...)\n"
	"  --userbase DIR       the Python user base (default %PYTHONUSERBASE% or %APPDATA%\\Python)\n"
	"  --machine x64|x86|arm64  the process architecture (default: python.exe's, else x64)\n"
	"  --json [FILE]        print the JSON report (docs/report-json.md), or write it to FILE\n"
	"  --format text|json|github|sarif   stdout (default: github when GITHUB_ACTIONS=true, else text)\n"
	"  --sarif FILE, --summary FILE, --outputs FILE, --sarif-anchor FILE, --fail-on error|warning|never\n"
	"                       see `torch-dll-check report --help`\n"
	"  --confirm            Windows: also load every binary for real in a child process and report\n"
	"                       disagreements (--confirm-import: run python -c \"import torch\" too;\n"
	"                       --confirm-timeout SECONDS per child, default 120)\n"
	"\n"
	"Paths are Windows paths (C:\\...) or host paths under --root.\n"
	"Exit status: 0 everything loads, 1 something fails, 2 usage or input error.\n";

/* The seam for issue 4: one install's loader results (+ its matrix row) into the report. */
static cJSON *check_install(cJSON *report, struct view *v, const struct torch_run *run, cJSON *matrix_row)
{
	return result_add_install(report, v, run, matrix_row);
}

int cmd_check(int argc, char **argv)
{
	const char *torch = NULL, *sitepk = NULL, *python = NULL, *root = NULL, *userbase = NULL;
	const char *machine_s = NULL, *regfile = NULL;
	struct strlist envs = STRLIST_INIT;
	int i, rc = EXIT_USAGE;
	struct report_opts ro;
	struct confirm_opts co;
	struct view *v = NULL;
	struct torch_run *run = NULL;
	struct torch_inputs in;
	char *wtorch = NULL, *wpython = NULL, *wuser = NULL;
	cJSON *report = NULL;
	struct err e;
	size_t k;

	memset(&in, 0, sizeof(in));
	err_clear(&e);
	report_opts_init(&ro);
	confirm_opts_init(&co);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		int r;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(check_usage, stdout);
			rc = EXIT_PASS;
			goto out;
		}
		/* --format, --json [FILE], --sarif, --summary, --outputs, --fail-on: cmd_report.c */
		if ((r = report_opts_parse(&ro, argc, argv, &i)) != 0 ||
		    (r = confirm_opts_parse(&co, argc, argv, &i)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
#define OPT(name, dst)                                                                                 \
	if ((r = arg_value(argc, argv, &i, name, &val)) != 0) {                                        \
		if (r < 0)                                                                             \
			goto out;                                                                      \
		dst;                                                                                   \
		continue;                                                                              \
	}
		OPT("--torch", torch = val)
		OPT("--site-packages", sitepk = val)
		OPT("--python", python = val)
		OPT("--root", root = val)
		OPT("--registry", regfile = val)
		OPT("--env", strlist_push(&envs, val))
		OPT("--userbase", userbase = val)
		OPT("--machine", machine_s = val)
#undef OPT
		fputs(check_usage, stderr);
		cmd_usage_error("check: unknown argument '%s'", a);
		goto out;
	}
	if (!torch && !sitepk && !python) {
		fputs(check_usage, stderr);
		cmd_usage_error("check: give --torch DIR, --site-packages DIR or --python PATH");
		goto out;
	}
	if (machine_s) {
		if (!strcmp(machine_s, "x64"))
			in.machine = PE_MACHINE_AMD64;
		else if (!strcmp(machine_s, "x86"))
			in.machine = PE_MACHINE_I386;
		else if (!strcmp(machine_s, "arm64"))
			in.machine = PE_MACHINE_ARM64;
		else {
			cmd_usage_error("check: --machine %s (x64, x86 or arm64)", machine_s);
			goto out;
		}
	}
	v = cmd_open_view(root);
	if (!v)
		goto out;
	if (regfile) {
		struct registry *reg = NULL;
		struct err re;
		err_clear(&re);
		if (registry_load(&reg, regfile, &re)) {
			cmd_usage_error("check: %s", re.msg);
			goto out;
		}
		view_attach_registry(v, reg);
	}
	for (k = 0; k < envs.n; k++) {
		if (view_setenv_assignment(v, envs.v[k])) {
			cmd_usage_error("check: --env %s is not NAME=VALUE", envs.v[k]);
			goto out;
		}
	}
	if (python && !(wpython = cmd_winpath(v, python)))
		goto out;
	if (userbase && !(wuser = cmd_winpath(v, userbase)))
		goto out;
	if (torch) {
		if (!(wtorch = cmd_winpath(v, torch)))
			goto out;
	} else if (sitepk) {
		char *w = cmd_winpath(v, sitepk);
		if (!w)
			goto out;
		wtorch = winpath_join(w, "torch");
		free(w);
	} else {
		/* python.exe's environment: <dir>\Lib\site-packages, or <venv>\Lib\site-packages for Scripts\ */
		char *dir = winpath_dirname(wpython);
		wtorch = xasprintf("%s\\Lib\\site-packages\\torch", dir);
		if (!view_is_dir(v, wtorch) && !str_icmp(winpath_basename(dir), "Scripts")) {
			char *up = winpath_dirname(dir);
			free(wtorch);
			wtorch = xasprintf("%s\\Lib\\site-packages\\torch", up);
			free(up);
		}
		free(dir);
	}
	if (!view_is_dir(v, wtorch)) {
		cmd_usage_error("check: %s: no such directory", wtorch);
		goto out;
	}
	if (wpython && !view_is_file(v, wpython)) {
		cmd_usage_error("check: %s: no such file", wpython);
		goto out;
	}
	in.torch_dir = wtorch;
	in.python_exe = wpython;
	in.userbase = wuser;
	if (torch_run(&run, v, &in, &e)) {
		cmd_usage_error("check: %s", e.msg);
		goto out;
	}
	report = result_new(v, run->ld);
	check_install(report, v, run, NULL);
	if (cmd_confirm_installs(report, &co))
		goto out;
	result_finish(report);
	rc = report_run(report, &ro);
out:
	cJSON_Delete(report);
	torch_run_free(run);
	view_free(v);
	free(wtorch);
	free(wpython);
	free(wuser);
	strlist_release(&envs);
	return rc;
}
