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

#include "cli/cmd.h"
#include "cli/out.h"
#include "loader/loader.h"
#include "report/result.h"
#include "loader/torchload.h"
#include "machine/registry.h"
#include "machine/view.h"
#include "matrix/matrix.h"
#include "util/jsonout.h"

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
	json_add_strlist(o, "missing_symbols", &n->missing);
	json_add_strlist(o, "shadowed", &n->shadowed);
	cJSON_AddItemToObject(o, "probes", result_probes_json(n));
	a = cJSON_AddArrayToObject(o, "imports");
	for (i = 0; i < n->nkids; i++)
		cJSON_AddItemToArray(a, node_json(n->kids[i]));
	return o;
}

/* ---- the command ---- */

struct deps_opts {
	unsigned long flags;
	const char *app_dir, *cwd;
	struct strlist add_dirs, preloads, matrices;
	uint16_t machine;
	int dld_importer, trace, json;
	struct view_opts vo;
};

static int set_flags(void *dst, const char *val, struct strbuf *why)
{
	char *end;
	unsigned long v = strtoul(val, &end, 0);
	if (!*val || *end || v > 0xffffffffUL || val[0] == '-') {
		strbuf_adds(why, "expected a number (0x1100, 0, ...)");
		return -1;
	}
	*(unsigned long *)dst = v;
	return 0;
}

static int set_dld(void *dst, const char *val, struct strbuf *why)
{
	if (strcmp(val, "top") && strcmp(val, "importer")) {
		strbuf_adds(why, "expected top or importer");
		return -1;
	}
	*(int *)dst = !strcmp(val, "importer");
	return 0;
}

static const struct cli_opt deps_opts_table[] = {
	CLI_OPT("--flags", "N", "LoadLibraryExW flags (default 0x1100, torch's; 0 = plain LoadLibraryW)",
		set_flags, struct deps_opts, flags),
	CLI_OPT("--app-dir", "DIR", "the process's application directory (python.exe's folder)",
		cli_set_str, struct deps_opts, app_dir),
	CLI_OPT("--add-dll-dir", "DIR", "an AddDllDirectory folder (repeatable, in order)",
		cli_push, struct deps_opts, add_dirs),
	CLI_OPT("--preload", "FILE", "load FILE first with the same flags (repeatable): the loaded-module list",
		cli_push, struct deps_opts, preloads),
	CLI_GROUP(view_cli_opts, struct deps_opts, vo),
	CLI_OPT("--cwd", "DIR", "the process's current directory (searched by the standard order)",
		cli_set_str, struct deps_opts, cwd),
	CLI_OPT("--machine", CLI_MACHINE_ARG, "the process architecture (default x64)",
		cli_set_machine, struct deps_opts, machine),
	CLI_OPT("--dll-load-dir", "top|importer", "what DLL_LOAD_DIR means below the first level (default top)",
		set_dld, struct deps_opts, dld_importer),
	CLI_OPT("--matrix", "FILE", "a matrix layered over the embedded one (repeatable; matrix/README.md): "
		"its vendor_dlls' delay_own_folder", cli_push, struct deps_opts, matrices),
	CLI_OPT("--trace", NULL, "print every probe in order, found or not", cli_set_flag, struct deps_opts, trace),
	CLI_OPT("--json", NULL, "print JSON", cli_set_flag, struct deps_opts, json),
	CLI_END,
};

const struct cli_cmd deps_cli = {
	.name = "deps",
	.summary = "the dependency tree of one binary, as the loader resolves it",
	.operands = "FILE",
	.min_operands = 1,
	.max_operands = 1,
	.opts = deps_opts_table,
	.notes = "FILE and DIRs are Windows paths (C:\\...) or host paths under --root; a bare\n"
		 "name (no slash) is searched for, as LoadLibraryExW does.",
	.exit_status = "0 it loads, 1 it does not load, 2 usage or input error (FILE missing or not a PE file).",
};

/*
 * The matrix, as `check` reads it (the embedded one, then each --matrix
 * file): its vendor_dlls say whose delay-load hook looks in the DLL's own
 * folder first (mkl's), so deps warns where check warns.
 */
static int load_matrix(const struct deps_opts *o, struct matrix *m)
{
	struct err e;
	size_t k;
	err_clear(&e);
	if (matrix_load_default(m, NULL, &e)) {
		cmd_usage_error("deps: the embedded matrix: %s", e.msg);
		return -1;
	}
	for (k = 0; k < o->matrices.n; k++) {
		if (matrix_load_file(m, o->matrices.v[k], NULL, &e)) {
			cmd_usage_error("deps: %s (run `torch-dll-check matrix lint %s` for every error)", e.msg,
					o->matrices.v[k]);
			return -1;
		}
	}
	return 0;
}

/* The process to load into: the view, then the loader with its directories. */
static int open_process(const struct deps_opts *o, struct matrix *m, struct registry **reg, struct view **v,
			struct loader **ld)
{
	char *wapp = NULL;
	size_t k;
	if (view_opts_open(&o->vo, "deps", reg, v))
		return -1;
	if (o->app_dir && !(wapp = cmd_winpath(*v, o->app_dir)))
		return -1;
	loader_open(ld, *v, wapp, o->machine, NULL);
	free(wapp);
	loader_set_dll_load_dir_mode(*ld, o->dld_importer ? LDR_DLD_IMPORTER : LDR_DLD_TOP);
	loader_set_delay_own_folder(*ld, matrix_delay_own_folder, m);
	for (k = 0; k < o->add_dirs.n; k++) {
		char *w = cmd_winpath(*v, o->add_dirs.v[k]);
		if (!w)
			return -1;
		loader_add_dll_directory(*ld, w);
		free(w);
	}
	if (o->cwd) {
		char *w = cmd_winpath(*v, o->cwd);
		if (!w)
			return -1;
		loader_set_current_dir(*ld, w);
		free(w);
	}
	return 0;
}

/* --preload: each FILE loaded first, into the loaded-module list. */
static int preload(const struct deps_opts *o, struct view *v, struct loader *ld)
{
	size_t k;
	for (k = 0; k < o->preloads.n; k++) {
		struct ldr_result pr;
		char *w = cmd_winpath(v, o->preloads.v[k]);
		if (!w)
			return -1;
		loader_load(ld, w, (unsigned)o->flags, &pr, NULL);
		if (pr.winerror && !o->json)
			out_printf("note: --preload %s does not load (WinError %d)\n", w, pr.winerror);
		ldr_result_release(&pr);
		free(w);
	}
	return 0;
}

/*
 * FILE as LoadLibraryExW gets it: a bare name stays a bare name (searched);
 * anything else is a path, which must be there — as given, or as the loader
 * names it (".dll" appended when the last component has no extension).
 */
static char *target_path(struct view *v, const char *file)
{
	char *w, *as_loaded;
	int given, loaded;
	if (!strchr(file, '/') && !strchr(file, '\\'))
		return xstrdup(file);
	if (!(w = cmd_winpath(v, file)))
		return NULL;
	if (!winpath_is_absolute(w))
		return w;
	as_loaded = ldr_dll_name_normalize(w);
	given = view_is_file(v, w);
	loaded = view_is_file(v, as_loaded);
	if (!given && !loaded)
		cmd_usage_error("deps: %s: no such file", file);
	else if (!loaded)
		/* /etc/passwd: LoadLibraryExW would look for passwd.dll, not for the file named */
		cmd_usage_error("deps: %s: no extension, so LoadLibraryExW looks for %s, which is not there; "
				"end the name with '.' to load the file as named",
				file, winpath_basename(as_loaded));
	free(as_loaded);
	if (!loaded) {
		free(w);
		return NULL;
	}
	return w;
}

static void print_json(const char *winfile, unsigned long flags, const struct ldr_result *res, struct loader *ld)
{
	cJSON *o = cJSON_CreateObject(), *w;
	char fl[16];
	size_t k;
	snprintf(fl, sizeof(fl), "0x%lx", flags);
	cJSON_AddStringToObject(o, "schema", "torch-dll-check/deps/v1");
	cJSON_AddStringToObject(o, "file", winfile);
	cJSON_AddStringToObject(o, "flags", fl);
	cJSON_AddNumberToObject(o, "winerror", res->winerror);
	cJSON_AddStringToObject(o, "outcome", ldr_outcome_name(res->outcome));
	if (res->leaf) {
		struct strlist ch = STRLIST_INIT;
		ldr_node_chain(res->leaf, &ch);
		json_add_strlist(o, "chain", &ch);
		cJSON_AddStringToObject(o, "leaf", ch.n ? ch.v[ch.n - 1] : res->leaf->name);
		strlist_release(&ch);
	} else {
		cJSON_AddNullToObject(o, "leaf");
		cJSON_AddArrayToObject(o, "chain");
	}
	if (res->symbol)
		cJSON_AddStringToObject(o, "symbol", res->symbol);
	else
		cJSON_AddNullToObject(o, "symbol");
	cJSON_AddStringToObject(o, "api_set_schema", loader_apiset_source(ld));
	cJSON_AddStringToObject(o, "known_dlls", loader_known_dlls_source(ld));
	w = cJSON_AddArrayToObject(o, "warnings");
	for (k = 0; k < res->nwarnings; k++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "rule", rule_get(RULE_DELAY_LOAD_MISSING)->id);
		cJSON_AddStringToObject(x, "dll", res->warnings[k].node->name);
		if (res->warnings[k].symbol)
			cJSON_AddStringToObject(x, "symbol", res->warnings[k].symbol);
		else
			cJSON_AddNullToObject(x, "symbol");
		cJSON_AddItemToArray(w, x);
	}
	cJSON_AddItemToObject(o, "tree", node_json(res->root));
	out_json(o);
	cJSON_Delete(o);
}

static void print_text(const struct deps_opts *o, const struct ldr_result *res, struct loader *ld)
{
	size_t k;
	if (o->trace) {
		print_trace(res->root);
		out_printf("\n");
	}
	print_tree(res->root, 0);
	out_printf("\n");
	if (!res->winerror) {
		out_printf("loads: LoadLibraryExW(flags 0x%lx) succeeds", o->flags);
	} else {
		struct strlist ch = STRLIST_INIT;
		ldr_node_chain(res->leaf, &ch);
		out_printf("fails: WinError %d (%s) %s", res->winerror, ldr_outcome_name(res->outcome),
		       winerror_text(res->winerror));
		out_printf("\n  leaf: %s", ch.n ? ch.v[ch.n - 1] : res->leaf->name);
		if (res->symbol)
			out_printf("  symbol: %s", res->symbol);
		out_printf("\n  chain:");
		for (k = 0; k < ch.n; k++)
			out_printf("%s%s", k ? " -> " : " ", ch.v[k]);
		strlist_release(&ch);
	}
	out_printf("\n");
	for (k = 0; k < res->nwarnings; k++)
		out_printf("warning: delay-loaded %s%s%s %s (fails on first call, not at load)\n",
		       res->warnings[k].node->name, res->warnings[k].symbol ? " lacks " : "",
		       res->warnings[k].symbol ? res->warnings[k].symbol : "",
		       res->warnings[k].symbol ? "" : "is missing");
	if (loader_apiset_is_fallback(ld))
		out_printf("note: API sets resolved with the built-in fallback table (%s)\n", loader_apiset_source(ld));
}

/* "deps: FILE: reason", FILE as the user gave it (the loader's detail names the host file). */
static void say_unreadable(struct view *v, const char *file, const struct ldr_node *root)
{
	const char *why = root->detail ? root->detail : "not a PE file";
	char *host = view_host_path(v, root->path);
	size_t n = host ? strlen(host) : 0;
	if (host && !strncmp(why, host, n) && !strncmp(why + n, ": ", 2))
		why += n + 2;
	cmd_usage_error("deps: %s: %s", file, why);
	free(host);
}

/*
 * A bare name is searched for, as LoadLibraryExW does, and with
 * LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR (torch's 0x1100) a bare name is WinError
 * 87: someone typing `deps fbgemm.dll` in torch\lib meant the file there.
 */
static void bare_name_hint(const char *file, int winerror)
{
	struct os_stat st;
	if (winerror != 87 || strchr(file, '/') || strchr(file, '\\'))
		return;
	os_stat(file, &st);
	if (st.type == OS_FILE)
		cmd_errorf("hint: %s is a bare name, which is searched for as LoadLibraryExW searches (WinError 87 "
			   "with these flags: they need a full path); to check the file in this folder, give a path: "
			   "./%s", file, file);
	else
		cmd_errorf("hint: %s is a bare name, which is searched for as LoadLibraryExW searches (WinError 87 "
			   "with these flags: they need a full path); to check a file, give its path", file);
}

int cmd_deps(int argc, char **argv)
{
	struct deps_opts o;
	struct cli_args args;
	struct registry *reg = NULL;
	struct view *v = NULL;
	struct loader *ld = NULL;
	struct ldr_result res;
	struct matrix m;
	char *winfile = NULL;
	int rc = EXIT_USAGE, r;

	memset(&res, 0, sizeof(res));
	memset(&o, 0, sizeof(o));
	matrix_init(&m);
	o.flags = 0x1100;
	o.machine = PE_MACHINE_AMD64;
	view_opts_init(&o.vo);
	/* deps has always gone on when a Wine prefix's system.reg is unreadable (check and inventory stop) */
	o.vo.unreadable_registry_ok = 1;
	r = cli_parse(&deps_cli, argc, argv, &o, &args);
	if (r) {
		rc = r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
		goto out;
	}
	if (load_matrix(&o, &m) || open_process(&o, &m, &reg, &v, &ld) || preload(&o, v, ld) || !(winfile = target_path(v, args.v[0])))
		goto out;
	/* an .exe is shown as its process starts it (its imports mapped), a DLL as LoadLibraryExW loads it */
	loader_load(ld, winfile, (unsigned)o.flags | LDR_AS_PROCESS_EXE, &res, NULL);
	if (loader_host_error(ld) || view_host_error(v)) {
		/* a file or folder the host would not let us read has no Windows verdict */
		cmd_usage_error("deps: cannot read the tree: %s",
				loader_host_error(ld) ? loader_host_error(ld) : view_host_error(v));
		goto out;
	}
	if (res.root && res.root->outcome == LDR_UNREADABLE && res.root->path) {
		/* FILE itself is no PE image: unusable input, as for `pe` (not a verdict about a dependency) */
		say_unreadable(v, args.v[0], res.root);
		goto out;
	}
	if (o.json)
		print_json(winfile, o.flags, &res, ld);
	else
		print_text(&o, &res, ld);
	if (!o.json) /* JSON readers get the document alone */
		bare_name_hint(args.v[0], res.winerror);
	rc = res.winerror ? EXIT_FINDINGS : EXIT_PASS;
out:
	cli_args_release(&args);
	ldr_result_release(&res);
	free(winfile);
	loader_free(ld);
	view_free(v);
	registry_free(reg);
	view_opts_release(&o.vo);
	strlist_release(&o.add_dirs);
	strlist_release(&o.preloads);
	strlist_release(&o.matrices);
	matrix_release(&m);
	return rc;
}
