/*
 * cmd_deps: `torch-dll-check deps FILE` — the dependency tree of one binary
 * as the emulated loader resolves it (Dependency Walker style), the verdict
 * LoadLibraryExW would return, and with --trace every probe in order, found
 * or not, the way Process Monitor shows a real load (NAME NOT FOUND lines).
 *
 * Exit status: 0 it loads, 1 it does not, 2 usage or input error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "out.h"
#include "loader.h"
#include "result.h"
#include "torchload.h"
#include "registry.h"
#include "view.h"

static const char deps_usage[] =
	"usage: torch-dll-check deps FILE [options]\n"
	"\n"
	"  --flags N            LoadLibraryExW flags (default 0x1100, torch's; 0 = plain LoadLibraryW)\n"
	"  --app-dir DIR        the process's application directory (python.exe's folder)\n"
	"  --add-dll-dir DIR    an AddDllDirectory folder (repeatable, in order)\n"
	"  --preload FILE       load FILE first with the same flags (repeatable): the loaded-module list\n"
	"  --root DIR           a host directory standing for C:\\ (default: / off Windows)\n"
	"  --registry FILE      the machine's registry: a `reg export` file or a Wine system.reg;\n"
	"                       repeat to merge (e.g. a WOW6432Node export)\n"
	"  --env NAME=VALUE     an environment variable of the checked machine (PATH, ...)\n"
	"  --cwd DIR            the process's current directory (searched by the standard order)\n"
	"  --machine x64|x86|arm64  the process architecture (default x64)\n"
	"  --dll-load-dir top|importer  what DLL_LOAD_DIR means below the first level (default top)\n"
	"  --trace              print every probe in order, found or not\n"
	"  --json               print JSON\n"
	"\n"
	"FILE and DIRs are Windows paths (C:\\...) or host paths under --root.\n"
	"Exit status: 0 it loads, 1 it does not load, 2 usage or input error.\n";

static const char *probe_code(const char *result)
{
	if (!strcmp(result, "found"))
		return "SUCCESS";
	if (!strcmp(result, "not found"))
		return "NAME NOT FOUND";
	if (!strncmp(result, "wrong machine", 13))
		return "WRONG MACHINE";
	if (!strncmp(result, "unreadable", 10))
		return "UNREADABLE";
	if (!strncmp(result, "assumed", 7))
		return "ASSUMED";
	if (!strncmp(result, "-> ", 3))
		return "API SET";
	return "NOTE";
}

static void print_trace(const struct ldr_node *n)
{
	size_t i;
	for (i = 0; i < n->nprobes; i++) {
		const struct ldr_probe *p = &n->probes[i];
		out_printf("%-14s %-18s %s", probe_code(p->result), p->step, p->path);
		if (strcmp(p->result, "found") && strcmp(p->result, "not found"))
			out_printf("  (%s)", p->result);
		if (n->parent)
			out_printf("  <- %s%s", winpath_basename(n->parent->path ? n->parent->path : n->parent->name),
			       n->delay ? " [delay]" : n->forwarder ? " [forwarder]" : "");
		out_printf("\n");
	}
	for (i = 0; i < n->nkids; i++)
		print_trace(n->kids[i]);
}

static void print_tree(const struct ldr_node *n, int depth)
{
	size_t i;
	out_printf("%*s%s", depth * 2, "", n->parent ? n->name : winpath_basename(n->name));
	if (n->apiset_host)
		out_printf(" -> %s", n->apiset_host);
	if (n->delay && (!n->parent || !n->parent->delay))
		out_printf(" [delay]");
	if (n->forwarder)
		out_printf(" [forwarder]");
	if (n->path)
		out_printf("  %s", n->path);
	if (n->machine)
		out_printf("  %s", pe_machine_name(n->machine));
	if (n->version)
		out_printf(" %s", n->version);
	if (n->via)
		out_printf("  [%s]", n->via);
	if (n->assumed)
		out_printf("  (assumed present)");
	else if (n->preloaded)
		out_printf("  (already loaded)");
	else if (n->dup && n->parent)
		out_printf("  (see above)");
	if (n->outcome == LDR_MISSING_DLL)
		out_printf("  NOT FOUND");
	else if (n->outcome != LDR_LOADS)
		out_printf("  %s", ldr_outcome_name(n->outcome));
	if (n->missing.n) {
		out_printf("  missing:");
		for (i = 0; i < n->missing.n; i++)
			out_printf(" %s", n->missing.v[i]);
	}
	if (n->detail && n->outcome != LDR_LOADS)
		out_printf("  (%s)", n->detail);
	out_printf("\n");
	for (i = 0; i < n->shadowed.n; i++)
		out_printf("%*s  shadows %s\n", depth * 2, "", n->shadowed.v[i]);
	for (i = 0; i < n->nkids; i++)
		print_tree(n->kids[i], depth + 1);
}

static cJSON *node_json(const struct ldr_node *n)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	cJSON_AddStringToObject(o, "name", n->name);
	if (n->apiset_host)
		cJSON_AddStringToObject(o, "api_set_host", n->apiset_host);
	if (n->path)
		cJSON_AddStringToObject(o, "path", n->path);
	else
		cJSON_AddNullToObject(o, "path");
	if (n->via)
		cJSON_AddStringToObject(o, "via", n->via);
	cJSON_AddStringToObject(o, "outcome", ldr_outcome_name(n->outcome));
	if (n->machine)
		cJSON_AddStringToObject(o, "machine", pe_machine_name(n->machine));
	if (n->version)
		cJSON_AddStringToObject(o, "file_version", n->version);
	if (n->detail)
		cJSON_AddStringToObject(o, "detail", n->detail);
	cJSON_AddBoolToObject(o, "delay", n->delay);
	cJSON_AddBoolToObject(o, "forwarder", n->forwarder);
	cJSON_AddBoolToObject(o, "already_loaded", n->preloaded);
	cJSON_AddBoolToObject(o, "assumed", n->assumed);
	a = cJSON_AddArrayToObject(o, "missing_symbols");
	for (i = 0; i < n->missing.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(n->missing.v[i]));
	a = cJSON_AddArrayToObject(o, "shadowed");
	for (i = 0; i < n->shadowed.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(n->shadowed.v[i]));
	cJSON_AddItemToObject(o, "probes", result_probes_json(n));
	a = cJSON_AddArrayToObject(o, "imports");
	for (i = 0; i < n->nkids; i++)
		cJSON_AddItemToArray(a, node_json(n->kids[i]));
	return o;
}

static uint16_t parse_machine(const char *s)
{
	if (!strcmp(s, "x64") || !strcmp(s, "amd64"))
		return PE_MACHINE_AMD64;
	if (!strcmp(s, "x86") || !strcmp(s, "i386"))
		return PE_MACHINE_I386;
	if (!strcmp(s, "arm64"))
		return PE_MACHINE_ARM64;
	return 0;
}

int cmd_deps(int argc, char **argv)
{
	const char *file = NULL, *app_dir = NULL, *flags_s = "0x1100", *cwd = NULL;
	const char *machine_s = "x64", *dld = "top";
	struct strlist add_dirs = STRLIST_INIT, preloads = STRLIST_INIT;
	struct view_opts vo;
	struct registry *reg = NULL;
	int trace = 0, json = 0, i, rc = EXIT_USAGE;
	struct view *v = NULL;
	struct loader *ld = NULL;
	struct ldr_result res;
	char *winfile = NULL, *end;
	unsigned long flags;
	uint16_t machine;
	size_t k;

	memset(&res, 0, sizeof(res));
	view_opts_init(&vo);
	/* deps has always gone on when a Wine prefix's system.reg is unreadable (check and inventory stop) */
	vo.unreadable_registry_ok = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		int r;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(deps_usage, stdout);
			rc = EXIT_PASS;
			goto out;
		}
		if (!strcmp(a, "--trace")) {
			trace = 1;
			continue;
		}
		if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		/* --root, --registry, --env: cmd_view.c */
		if ((r = view_opts_parse(&vo, argc, argv, &i)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
		CMD_OPT("--flags", flags_s = val)
		CMD_OPT("--app-dir", app_dir = val)
		CMD_OPT("--add-dll-dir", strlist_push(&add_dirs, val))
		CMD_OPT("--preload", strlist_push(&preloads, val))
		CMD_OPT("--cwd", cwd = val)
		CMD_OPT("--machine", machine_s = val)
		CMD_OPT("--dll-load-dir", dld = val)
		if (a[0] == '-' && a[1]) {
			fputs(deps_usage, stderr);
			cmd_usage_error("deps: unknown option '%s'", a);
			goto out;
		}
		if (file) {
			cmd_usage_error("deps: one FILE only ('%s' and '%s')", file, a);
			goto out;
		}
		file = a;
	}
	if (!file) {
		fputs(deps_usage, stderr);
		cmd_usage_error("deps: no FILE given");
		goto out;
	}
	flags = strtoul(flags_s, &end, 0);
	if (*end || flags > 0xffffffffUL) {
		cmd_usage_error("deps: --flags %s is not a number", flags_s);
		goto out;
	}
	machine = parse_machine(machine_s);
	if (!machine) {
		cmd_usage_error("deps: --machine %s (x64, x86 or arm64)", machine_s);
		goto out;
	}
	if (strcmp(dld, "top") && strcmp(dld, "importer")) {
		cmd_usage_error("deps: --dll-load-dir %s (top or importer)", dld);
		goto out;
	}
	if (view_opts_open(&vo, "deps", &reg, &v))
		goto out;
	{
		char *wapp = app_dir ? cmd_winpath(v, app_dir) : NULL;
		if (app_dir && !wapp)
			goto out;
		loader_open(&ld, v, wapp, machine, NULL);
		free(wapp);
	}
	loader_set_dll_load_dir_mode(ld, !strcmp(dld, "importer") ? LDR_DLD_IMPORTER : LDR_DLD_TOP);
	for (k = 0; k < add_dirs.n; k++) {
		char *w = cmd_winpath(v, add_dirs.v[k]);
		if (!w)
			goto out;
		loader_add_dll_directory(ld, w);
		free(w);
	}
	if (cwd) {
		char *w = cmd_winpath(v, cwd);
		if (!w)
			goto out;
		loader_set_current_dir(ld, w);
		free(w);
	}
	for (k = 0; k < preloads.n; k++) {
		struct ldr_result pr;
		char *w = cmd_winpath(v, preloads.v[k]);
		if (!w)
			goto out;
		loader_load(ld, w, (unsigned)flags, &pr, NULL);
		if (pr.winerror && !json)
			out_printf("note: --preload %s does not load (WinError %d)\n", w, pr.winerror);
		ldr_result_release(&pr);
		free(w);
	}
	/* a bare name stays a bare name (searched); anything else is a path */
	if (!strchr(file, '/') && !strchr(file, '\\'))
		winfile = xstrdup(file);
	else if (!(winfile = cmd_winpath(v, file)))
		goto out;
	if (winpath_is_absolute(winfile) && !view_is_file(v, winfile)) {
		cmd_usage_error("deps: %s: no such file", file);
		goto out;
	}
	loader_load(ld, winfile, (unsigned)flags, &res, NULL);
	if (loader_host_error(ld) || view_host_error(v)) {
		/* a file or folder the host would not let us read has no Windows verdict */
		cmd_usage_error("deps: cannot read the tree: %s",
				loader_host_error(ld) ? loader_host_error(ld) : view_host_error(v));
		goto out;
	}

	if (json) {
		cJSON *o = cJSON_CreateObject(), *w;
		char fl[16];
		snprintf(fl, sizeof(fl), "0x%lx", flags);
		cJSON_AddStringToObject(o, "schema", "torch-dll-check/deps/v1");
		cJSON_AddStringToObject(o, "file", winfile);
		cJSON_AddStringToObject(o, "flags", fl);
		cJSON_AddNumberToObject(o, "winerror", res.winerror);
		cJSON_AddStringToObject(o, "outcome", ldr_outcome_name(res.outcome));
		if (res.leaf) {
			struct strlist ch = STRLIST_INIT;
			cJSON *a = cJSON_AddArrayToObject(o, "chain");
			ldr_node_chain(res.leaf, &ch);
			for (k = 0; k < ch.n; k++)
				cJSON_AddItemToArray(a, cJSON_CreateString(ch.v[k]));
			cJSON_AddStringToObject(o, "leaf", ch.n ? ch.v[ch.n - 1] : res.leaf->name);
			strlist_release(&ch);
		} else {
			cJSON_AddNullToObject(o, "leaf");
			cJSON_AddArrayToObject(o, "chain");
		}
		if (res.symbol)
			cJSON_AddStringToObject(o, "symbol", res.symbol);
		else
			cJSON_AddNullToObject(o, "symbol");
		cJSON_AddStringToObject(o, "api_set_schema", loader_apiset_source(ld));
		cJSON_AddStringToObject(o, "known_dlls", loader_known_dlls_source(ld));
		w = cJSON_AddArrayToObject(o, "warnings");
		for (k = 0; k < res.nwarnings; k++) {
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "rule", rule_get(RULE_DELAY_LOAD_MISSING)->id);
			cJSON_AddStringToObject(x, "dll", res.warnings[k].node->name);
			if (res.warnings[k].symbol)
				cJSON_AddStringToObject(x, "symbol", res.warnings[k].symbol);
			else
				cJSON_AddNullToObject(x, "symbol");
			cJSON_AddItemToArray(w, x);
		}
		cJSON_AddItemToObject(o, "tree", node_json(res.root));
		out_json(o);
		cJSON_Delete(o);
	} else {
		if (trace) {
			print_trace(res.root);
			out_printf("\n");
		}
		print_tree(res.root, 0);
		out_printf("\n");
		if (!res.winerror) {
			out_printf("loads: LoadLibraryExW(flags 0x%lx) succeeds", flags);
		} else {
			struct strlist ch = STRLIST_INIT;
			ldr_node_chain(res.leaf, &ch);
			out_printf("fails: WinError %d (%s) %s", res.winerror, ldr_outcome_name(res.outcome),
			       winerror_text(res.winerror));
			out_printf("\n  leaf: %s", ch.n ? ch.v[ch.n - 1] : res.leaf->name);
			if (res.symbol)
				out_printf("  symbol: %s", res.symbol);
			out_printf("\n  chain:");
			for (k = 0; k < ch.n; k++)
				out_printf("%s%s", k ? " -> " : " ", ch.v[k]);
			strlist_release(&ch);
		}
		out_printf("\n");
		for (k = 0; k < res.nwarnings; k++)
			out_printf("warning: delay-loaded %s%s%s %s (fails on first call, not at load)\n",
			       res.warnings[k].node->name, res.warnings[k].symbol ? " lacks " : "",
			       res.warnings[k].symbol ? res.warnings[k].symbol : "",
			       res.warnings[k].symbol ? "" : "is missing");
		if (loader_apiset_is_fallback(ld))
			out_printf("note: API sets resolved with the built-in fallback table (%s)\n",
			       loader_apiset_source(ld));
	}
	rc = res.winerror ? EXIT_FINDINGS : EXIT_PASS;
out:
	ldr_result_release(&res);
	free(winfile);
	loader_free(ld);
	view_free(v);
	registry_free(reg);
	view_opts_release(&vo);
	strlist_release(&add_dirs);
	strlist_release(&preloads);
	return rc;
}
