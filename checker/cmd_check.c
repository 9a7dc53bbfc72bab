/*
 * cmd_check: `torch-dll-check check` — will `import torch` load on this
 * machine, and if not, what exactly must be installed?
 *
 * For each torch install (one given with --torch / --site-packages /
 * --python, or every one under --scan DIR): run torch's procedure
 * (torchload.c), add its loader results to the report (result.c), then
 * judge it against its matrix row (policy.c) with the machine's inventory
 * (inventory.c). The report (docs/report-json.md) carries the inventory,
 * the matrix files and, per install, its row; report_run renders it (text
 * a person reads in ten seconds, JSON, GitHub, SARIF).
 *
 * Exit status: 0 pass, 1 findings at or above --fail-on, 2 usage/input error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "confirm.h"
#include "inventory.h"
#include "matrix.h"
#include "policy.h"
#include "registry.h"
#include "report.h"
#include "result.h"
#include "torchload.h"
#include "view.h"

static const char check_usage[] =
	"usage: torch-dll-check check (--torch DIR | --site-packages DIR | --python PATH | --scan DIR) [options]\n"
	"\n"
	"  --torch DIR          the torch package folder (...\\site-packages\\torch)\n"
	"  --site-packages DIR  a site-packages folder holding torch\n"
	"  --python PATH        python.exe of the environment (venv and conda layouts understood)\n"
	"  --scan DIR           every torch install under DIR (e.g. 'C:\\'), each checked with its own\n"
	"                       python and dll_paths; --depth N folders deep (default 8)\n"
	"  --root DIR           a host directory standing for C:\\ (a Wine prefix's drive_c brings\n"
	"                       its ../system.reg along)\n"
	"  --registry FILE      the machine's HKLM: a `reg export` file or a Wine system.reg;\n"
	"                       repeat to merge (e.g. a WOW6432Node export)\n"
	"  --matrix FILE        a matrix layered over the embedded one (repeatable; matrix/README.md)\n"
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
	"Exit status: 0 pass, 1 findings (errors, or warnings with --fail-on warning), 2 usage or input error.\n";

/* One install: the loader's run, its results, then the matrix row's verdict. */
static int check_install(struct result *report, struct view *v, const struct matrix *m, const struct inventory *inv,
			 const struct inv_install *install, const struct torch_inputs *in, struct err *e)
{
	struct torch_run *run = NULL;
	struct policy_input pin;
	cJSON *inst;
	int r;
	if (torch_run(&run, v, in, e))
		return -1;
	if (loader_host_error(run->ld) || view_host_error(v)) {
		/* a file or folder the host would not let us read has no Windows verdict */
		err_set(e, "cannot read the tree: %s", loader_host_error(run->ld) ? loader_host_error(run->ld)
										     : view_host_error(v));
		torch_run_free(run);
		return -1;
	}
	if (!cJSON_GetObjectItem(report->doc, "machine") ||
	    cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(report->doc, "machine"), "api_set_schema")))
		cJSON_ReplaceItemInObject(report->doc, "machine", result_machine_json(v, run->ld));
	inst = result_add_install(report, v, run, NULL);
	pin.matrix = m;
	pin.inv = inv;
	pin.install = install;
	pin.run = run;
	r = policy_evaluate(&report->findings, inst, v, &pin, e);
	torch_run_free(run);
	return r;
}

static const struct inv_install *find_install(const struct inventory *inv, const char *torch_dir)
{
	size_t i;
	for (i = 0; i < inv->ninstalls; i++)
		if (!str_icmp(inv->installs[i].torch_dir, torch_dir))
			return &inv->installs[i];
	return NULL;
}

static int parse_machine(const char *s, uint16_t *out)
{
	if (!strcmp(s, "x64"))
		*out = PE_MACHINE_AMD64;
	else if (!strcmp(s, "x86"))
		*out = PE_MACHINE_I386;
	else if (!strcmp(s, "arm64"))
		*out = PE_MACHINE_ARM64;
	else
		return -1;
	return 0;
}

int cmd_check(int argc, char **argv)
{
	const char *torch = NULL, *sitepk = NULL, *python = NULL, *userbase = NULL;
	const char *machine_s = NULL, *scan = NULL, *depth_s = NULL;
	struct strlist matrices = STRLIST_INIT;
	int i, rc = EXIT_USAGE, depth = 8;
	struct report_opts ro;
	struct confirm_opts co;
	struct view *v = NULL;
	struct torch_inputs in;
	struct inventory inv;
	struct matrix m;
	struct registry *reg = NULL;
	char *wtorch = NULL, *wpython = NULL, *wuser = NULL, *wscan = NULL;
	struct result report = RESULT_INIT;
	struct err e;
	struct view_opts vo;
	size_t k;

	memset(&in, 0, sizeof(in));
	view_opts_init(&vo);
	err_clear(&e);
	inventory_init(&inv);
	matrix_init(&m);
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
		CMD_OPT("--torch", torch = val)
		CMD_OPT("--site-packages", sitepk = val)
		CMD_OPT("--python", python = val)
		CMD_OPT("--scan", scan = val)
		CMD_OPT("--depth", depth_s = val)
		CMD_OPT("--matrix", strlist_push(&matrices, val))
		CMD_OPT("--userbase", userbase = val)
		CMD_OPT("--machine", machine_s = val)
		/* --root, --registry, --env: cmd_view.c */
		if ((r = view_opts_parse(&vo, argc, argv, &i)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
		fputs(check_usage, stderr);
		cmd_usage_error("check: unknown argument '%s'", a);
		goto out;
	}
	if (!torch && !sitepk && !python && !scan) {
		fputs(check_usage, stderr);
		cmd_usage_error("check: give --torch DIR, --site-packages DIR, --python PATH or --scan DIR");
		goto out;
	}
	if (scan && (torch || sitepk)) {
		cmd_usage_error("check: --scan checks every install it finds; it does not combine with --torch or "
				"--site-packages");
		goto out;
	}
	if (depth_s) {
		char *end;
		long d = strtol(depth_s, &end, 10);
		if (*end || d < 1 || d > 64) {
			cmd_usage_error("check: --depth %s: expected a number from 1 to 64", depth_s);
			goto out;
		}
		depth = (int)d;
	}
	if (machine_s && parse_machine(machine_s, &in.machine)) {
		cmd_usage_error("check: --machine %s (x64, x86 or arm64)", machine_s);
		goto out;
	}

	/* the matrix: the embedded default, then each --matrix file */
	if (matrix_load_default(&m, NULL, &e)) {
		cmd_usage_error("check: the embedded matrix: %s", e.msg);
		goto out;
	}
	for (k = 0; k < matrices.n; k++) {
		if (matrix_load_file(&m, matrices.v[k], NULL, &e)) {
			cmd_usage_error("check: %s (run `torch-dll-check matrix lint %s` for every error)", e.msg,
					matrices.v[k]);
			goto out;
		}
	}

	/* the machine: --root (or the live one), --registry files merged in order, --env */
	if (view_opts_open(&vo, "check", &reg, &v))
		goto out;
	if (python && !(wpython = cmd_winpath(v, python)))
		goto out;
	if (userbase && !(wuser = cmd_winpath(v, userbase)))
		goto out;
	if (wpython && !view_is_file(v, wpython)) {
		cmd_usage_error("check: %s: no such file", wpython);
		goto out;
	}
	if (scan) {
		if (!(wscan = cmd_winpath(v, scan)))
			goto out;
	} else if (torch) {
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
	if (wtorch && !view_is_dir(v, wtorch)) {
		cmd_usage_error("check: %s: no such directory", wtorch);
		goto out;
	}

	/* the inventory: redistributables, the installs, their runtime DLLs */
	if (scan) {
		if ((view_has_registry(v) && inventory_redist_view(&inv, v, &e)) ||
		    inventory_scan(&inv, v, wscan, depth, &e) || inventory_runtime_dlls(&inv, v, &e)) {
			cmd_usage_error("check: %s", e.msg);
			goto out;
		}
		if (!inv.ninstalls) {
			cmd_usage_error("check: no torch install under %s (looked %d folders deep)", wscan, depth);
			goto out;
		}
	} else if (inventory_collect(&inv, v, wtorch, wpython, &e)) {
		/* not a torch the inventory understands (no __init__.py, ...): the loader still runs */
		inventory_release(&inv);
		inventory_init(&inv);
		err_clear(&e);
		if ((view_has_registry(v) && inventory_redist_view(&inv, v, &e)) ||
		    inventory_runtime_dlls(&inv, v, &e)) {
			cmd_usage_error("check: %s", e.msg);
			goto out;
		}
	}

	result_init(&report, v, NULL);
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(report.doc, "machine"), "api_set_schema", cJSON_CreateNull());
	{
		cJSON *mj = cJSON_CreateObject(), *files = cJSON_AddArrayToObject(mj, "sources");
		for (k = 0; k < m.files.n; k++)
			cJSON_AddItemToArray(files, cJSON_CreateString(m.files.v[k]));
		cJSON_AddItemToObject(report.doc, "matrix", mj);
	}
	in.python_exe = wpython;
	in.userbase = wuser;
	if (scan) {
		for (k = 0; k < inv.ninstalls; k++) {
			struct torch_inputs one = in;
			one.torch_dir = inv.installs[k].torch_dir;
			one.python_exe = inv.installs[k].python;
			if (check_install(&report, v, &m, &inv, &inv.installs[k], &one, &e)) {
				cmd_usage_error("check: %s", e.msg);
				goto out;
			}
		}
	} else {
		in.torch_dir = wtorch;
		if (check_install(&report, v, &m, &inv, find_install(&inv, wtorch), &in, &e)) {
			cmd_usage_error("check: %s", e.msg);
			goto out;
		}
	}
	cJSON_AddItemToObject(report.doc, "inventory", inventory_to_json(&inv, v));
	if (cmd_confirm_installs(&report, &co))
		goto out;
	result_finish(&report);
	rc = report_run(report.doc, &ro);
out:
	result_release(&report);
	inventory_release(&inv);
	matrix_release(&m);
	registry_free(reg);
	view_free(v);
	free(wtorch);
	free(wpython);
	free(wuser);
	free(wscan);
	view_opts_release(&vo);
	strlist_release(&matrices);
	return rc;
}
