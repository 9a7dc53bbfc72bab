/*
 * result: builds the JSON report document from torch runs (see result.h).
 *
 * Every finding carries its evidence (the chain from the torch binary to
 * the leaf, every probe, versions) and one concrete fix, so the renderers
 * never need to look anything up again.
 */
#include "report/result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/tdc.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/jsonout.h"

static int strlist_has(const struct strlist *l, const char *s)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (!str_icmp(l->v[i], s))
			return 1;
	return 0;
}

/* Loader versions are "a.b.c.d" as pe.c formats them; anything unparsable counts as 0.0.0.0. */
static void file_version(struct winver *v, const char *s)
{
	if (!s || winver_parse(v, s, NULL) < 0)
		memset(v, 0, sizeof(*v));
}

int result_version_cmp(const char *a, const char *b)
{
	struct winver x, y;
	file_version(&x, a);
	file_version(&y, b);
	return winver_cmp(&x, &y); /* the one comparison of Windows file versions (version.h) */
}

cJSON *result_machine_json(struct view *v, const struct loader *ld)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "source", view_is_live(v) ? "live" : "offline");
	cJSON_AddItemToObject(m, "root", json_str_or_null(view_root(v)));
	cJSON_AddStringToObject(m, "arch", pe_machine_name(ld ? loader_machine(ld) : PE_MACHINE_AMD64));
	cJSON_AddItemToObject(m, "api_set_schema", json_str_or_null(ld ? loader_apiset_source(ld) : NULL));
	cJSON_AddItemToObject(m, "known_dlls", json_str_or_null(ld ? loader_known_dlls_source(ld) : NULL));
	cJSON_AddStringToObject(m, "registry", view_registry_source(v));
	return m;
}

void result_init(struct result *res, struct view *v, const struct loader *ld)
{
	cJSON *r = cJSON_CreateObject(), *tool;
	cJSON_AddStringToObject(r, "schema", "torch-dll-check/report/v1");
	tool = cJSON_AddObjectToObject(r, "tool");
	cJSON_AddStringToObject(tool, "name", "torch-dll-check");
	cJSON_AddStringToObject(tool, "version", TDC_VERSION);
	cJSON_AddStringToObject(r, "status", "pass");
	cJSON_AddObjectToObject(r, "counts");
	cJSON_AddItemToObject(r, "machine", result_machine_json(v, ld));
	cJSON_AddArrayToObject(r, "installs");
	cJSON_AddArrayToObject(r, "findings");
	res->doc = r;
	res->findings = (struct findings)FINDINGS_INIT;
}

void result_release(struct result *r)
{
	cJSON_Delete(r->doc);
	r->doc = NULL;
	findings_release(&r->findings);
}

cJSON *result_probes_json(const struct ldr_node *node)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; node && i < node->nprobes; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "path", node->probes[i].path);
		cJSON_AddStringToObject(p, "step", node->probes[i].step);
		cJSON_AddItemToObject(p, "why", json_str_or_null(node->probes[i].why));
		cJSON_AddBoolToObject(p, "minor", node->probes[i].minor);
		cJSON_AddStringToObject(p, "result", node->probes[i].result);
		cJSON_AddItemToArray(a, p);
	}
	return a;
}

static cJSON *chain_json(const struct ldr_node *node)
{
	struct strlist l = STRLIST_INIT;
	cJSON *a = cJSON_CreateArray();
	size_t i;
	if (node)
		ldr_node_chain(node, &l);
	for (i = 0; i < l.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l.v[i]));
	strlist_release(&l);
	return a;
}

static char *chain_text(const struct ldr_node *node)
{
	struct strlist l = STRLIST_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	ldr_node_chain(node, &l);
	for (i = 0; i < l.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " -> " : "", l.v[i]);
	strlist_release(&l);
	return strbuf_detach(&sb);
}

static int is_vc_runtime(const char *name)
{
	return str_istartswith(name, "vcruntime140") || str_istartswith(name, "msvcp140") ||
	       str_istartswith(name, "concrt140") || str_istartswith(name, "vccorlib140") ||
	       str_istartswith(name, "vcomp140");
}

static char *fix_for_missing(const char *leaf, const char *arch)
{
	if (!str_icmp(leaf, "libomp140.x86_64.dll") || !str_icmp(leaf, "libomp140.i386.dll"))
		return xasprintf("%s is not part of the VC++ redistributable: it ships only with Visual Studio / "
				 "Build Tools (C++ OpenMP (LLVM) component); install that, or move to a torch build "
				 "that bundles its OpenMP runtime (torch >= 2.4.1)",
				 leaf);
	if (is_vc_runtime(leaf))
		return xasprintf("install the Microsoft Visual C++ 2015-2022 %s redistributable "
				 "(https://aka.ms/vs/17/release/vc_redist.%s.exe)",
				 arch, arch);
	return xasprintf("put %s where the loader looks (torch\\lib, python.exe's folder or a torch dll_paths "
			 "folder), or install the package that ships it",
			 leaf);
}

/* Whether the search for `leaf` skipped a relative PATH entry (it depends on the current directory). */
static int unsearched(const struct ldr_node *leaf)
{
	size_t i;
	for (i = 0; leaf && i < leaf->nprobes; i++)
		if (strstr(leaf->probes[i].result, "relative PATH entry"))
			return 1;
	return 0;
}

static const char *leaf_label(const struct ldr_node *leaf)
{
	return leaf->parent ? leaf->name : winpath_basename(leaf->name);
}

/* The finding for a binary that does not load. */
/* The rule of a binary that fails to load with this outcome. */
static enum rule_id failure_rule(enum ldr_outcome o)
{
	switch (o) {
	case LDR_MISSING_ENTRY: return RULE_MISSING_ENTRY_POINT;
	case LDR_MISSING_ORDINAL: return RULE_MISSING_ORDINAL;
	case LDR_BAD_ARCH: return RULE_BAD_ARCH;
	case LDR_UNREADABLE: return RULE_UNREADABLE;
	case LDR_BAD_PARAM: return RULE_INVALID_PARAMETER;
	case LDR_NOT_A_FILE: return RULE_NOT_A_FILE;
	case LDR_LOADS:
	case LDR_MISSING_DLL:
		break;
	}
	return RULE_MISSING_DLL;
}

static void binary_failure(struct findings *out, const struct torch_run *run, const struct torch_binary *b,
			   const char *arch)
{
	const struct ldr_node *leaf = b->res.leaf;
	const char *bin = winpath_basename(b->path);
	const char *lname = leaf ? leaf_label(leaf) : bin;
	char *title = NULL, *msg = NULL, *fix = NULL, *chain = leaf ? chain_text(leaf) : xstrdup(bin);
	switch (b->res.outcome) {
	case LDR_MISSING_DLL:
		title = xasprintf("%s cannot load: %s is missing", bin, lname);
		msg = xasprintf("WinError 126: %s (chain %s) is found nowhere on the search path; %zu places "
				"were searched.%s",
				lname, chain, leaf ? leaf->nprobes : 0,
				unsearched(leaf) ? " A relative PATH entry was not searched: it depends on the current "
						   "directory, and if the process starts where that folder holds the "
						   "DLL, Windows finds it there."
						 : "");
		fix = fix_for_missing(lname, arch);
		break;
	case LDR_MISSING_ENTRY:
	case LDR_MISSING_ORDINAL:
		title = xasprintf("%s cannot load: %s lacks %s", bin, lname, b->res.symbol ? b->res.symbol : "?");
		msg = xasprintf("WinError %d: %s at %s (file version %s) has no export %s that %s imports "
				"(chain %s).",
				b->winerror, lname, leaf && leaf->path ? leaf->path : "?",
				leaf && leaf->version ? leaf->version : "unknown", b->res.symbol ? b->res.symbol : "?",
				leaf && leaf->parent ? leaf_label(leaf->parent) : bin, chain);
		fix = xasprintf("the %s that is loaded is older than, or from another build than, the one %s was "
				"built against: remove or update the copy at %s",
				lname, bin, leaf && leaf->path ? leaf->path : "?");
		break;
	case LDR_BAD_ARCH:
		title = xasprintf("%s cannot load: %s is for another architecture", bin, lname);
		msg = xasprintf("WinError %d: %s", b->winerror, leaf && leaf->detail ? leaf->detail : lname);
		fix = xasprintf("replace %s with its %s build", leaf && leaf->path ? leaf->path : lname, arch);
		break;
	case LDR_UNREADABLE:
		title = xasprintf("%s cannot load: %s is not a loadable PE file", bin, lname);
		msg = xasprintf("WinError %d: %s", b->winerror, leaf && leaf->detail ? leaf->detail : lname);
		fix = xasprintf("reinstall the package that ships %s (an empty or damaged file is what an antivirus "
				"quarantine leaves)",
				lname);
		break;
	case LDR_NOT_A_FILE:
		if (!leaf || !leaf->parent) {
			title = xasprintf("%s is a folder, not a DLL", bin);
			msg = xasprintf("WinError %d: torch's glob(\"*.dll\") matches folders too, and LoadLibraryExW "
					"cannot open a folder.",
					b->winerror);
			fix = xasprintf("remove or rename the folder %s", b->path);
		} else {
			title = xasprintf("%s cannot load: a folder named %s is on the search path", bin, lname);
			msg = xasprintf("WinError %d: the search for %s (chain %s) stops at the folder %s, which the "
					"loader cannot open as a DLL.",
					b->winerror, lname, chain, leaf->path ? leaf->path : "?");
			fix = xasprintf("remove or rename the folder %s", leaf->path ? leaf->path : lname);
		}
		break;
	default:
		title = xasprintf("%s cannot load (WinError %d)", bin, b->winerror);
		msg = xasprintf("WinError %d: %s", b->winerror, winerror_text(b->winerror));
		fix = xstrdup("load it by full path");
		break;
	}
	finding_add(out, failure_rule(b->res.outcome), SEV_DEFAULT,
		    &(struct finding_spec){ .winerror = b->winerror, .title = title, .message = msg, .fix = fix,
					    .install = run->torch_dir, .binary = b->path, .leaf = leaf ? lname : NULL,
					    .symbol = b->res.symbol, .path = leaf ? leaf->path : NULL, .chain = leaf,
					    .probes = leaf });
	free(title);
	free(msg);
	free(fix);
	free(chain);
}

/* "it loads" / "it fails with WinError 127 (missing-entry-point)". Caller frees. */
static char *verdict_text(int winerror, enum ldr_outcome o)
{
	if (!winerror)
		return xstrdup("it loads");
	return xasprintf("it fails with WinError %d (%s)", winerror, ldr_outcome_name(o));
}

/* The DLL two AddDllDirectory folders both hold (the node may be a module loaded because of it). */
static const char *ambiguous_dll(const struct ldr_node *an)
{
	if (an && an->order_candidates.n)
		return winpath_basename(an->order_candidates.v[0]);
	return an ? an->name : "a DLL";
}

/*
 * A binary whose verdict depends on the unspecified order of two
 * AddDllDirectory folders: both outcomes and both candidates, no guess.
 */
static void order_dependent_finding(struct findings *out, const struct torch_run *run, const struct torch_binary *b)
{
	const struct ldr_node *an = b->res.ambiguous_node;
	const char *bin = winpath_basename(b->path), *dll = ambiguous_dll(an);
	struct strbuf sb = STRBUF_INIT;
	char *title, *msg, *fix, *first, *other;
	size_t k;
	for (k = 0; an && k < an->order_candidates.n; k++)
		strbuf_addf(&sb, "%s%s", k ? " and " : "", an->order_candidates.v[k]);
	title = xasprintf("%s: whether it loads depends on which copy of %s Windows takes", bin, dll);
	msg = xasprintf("%s is in two folders torch adds with AddDllDirectory (%s), and Microsoft leaves the "
			"search order of such folders unspecified. In the order they were added %s; in the "
			"other order %s.",
			dll, strbuf_str(&sb), first = verdict_text(b->res.winerror, b->res.outcome),
			other = verdict_text(b->res.alt_winerror, b->res.alt_outcome));
	free(first);
	free(other);
	fix = xasprintf("keep one copy of %s in torch's dll_paths folders (remove the one that does not fit)", dll);
	finding_add(out, RULE_ORDER_DEPENDENT, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = run->torch_dir,
					    .binary = b->path, .leaf = dll, .chain = an, .probes = an });
	free(title);
	free(msg);
	free(fix);
	strbuf_release(&sb);
}

/* Nodes found through PATH in a tree (what a loads-via-path binary depends on). */
static void collect_via_path(const struct ldr_node *n, struct strlist *out)
{
	size_t i;
	if (n->via && !strcmp(n->via, "PATH") && !n->delay)
		strlist_pushf(out, "%s (%s)", n->name, n->path);
	for (i = 0; i < n->nkids; i++)
		collect_via_path(n->kids[i], out);
}

static void collect_shadows(struct findings *out, struct loader *ld, const struct torch_run *run, const struct ldr_node *n,
			    struct strlist *seen)
{
	size_t i;
	if (!n)
		return;
	if (n->path && n->shadowed.n && !strlist_has(seen, n->path)) {
		const char *wv = n->version;
		for (i = 0; i < n->shadowed.n; i++) {
			const char *lv = loader_file_version(ld, n->shadowed.v[i]);
			if (lv && (!wv || result_version_cmp(lv, wv) > 0)) {
				/* without a version resource the winner's age is unknown, not "older" */
				char *title = wv ? xasprintf("%s: the copy that loads (%s) is older than %s", n->name, wv, lv)
						 : xasprintf("%s: the copy that loads has no version; it shadows %s", n->name,
							     lv);
				char *msg = xasprintf("%s (file version %s) is found first on the search path (%s) and "
						      "wins over %s (file version %s).",
						      n->path, wv ? wv : "unknown", n->via ? n->via : "?",
						      n->shadowed.v[i], lv);
				char *fix = xasprintf("remove or update %s: it shadows the newer %s", n->path,
						      n->shadowed.v[i]);
				finding_add(out, RULE_SHADOWED_DLL, SEV_DEFAULT,
					    &(struct finding_spec){ .title = title, .message = msg, .fix = fix,
								    .install = run->torch_dir, .leaf = n->name,
								    .path = n->path, .chain = n, .probes = n });
				free(title);
				free(msg);
				free(fix);
				break;
			}
		}
		strlist_push(seen, n->path);
	}
	for (i = 0; i < n->nkids; i++)
		collect_shadows(out, ld, run, n->kids[i], seen);
}

static void delay_warnings(struct findings *out, const struct torch_run *run, const struct torch_binary *b,
			   struct strlist *seen)
{
	size_t i;
	for (i = 0; i < b->res.nwarnings; i++) {
		const struct ldr_warning *w = &b->res.warnings[i];
		char *key = xasprintf("%s|%s", w->node->name, w->symbol ? w->symbol : "");
		char *title, *msg;
		if (strlist_has(seen, key)) {
			free(key);
			continue;
		}
		strlist_push_owned(seen, key);
		if (w->symbol) {
			title = xasprintf("%s: delay-loaded %s lacks %s", winpath_basename(b->path), w->node->name,
					  w->symbol);
			msg = xasprintf("%s is delay-loaded and found at %s, but has no export %s: the first call "
					"fails with exception 0xC06D007F, not at import.",
					w->node->name, w->node->path ? w->node->path : "?", w->symbol);
		} else {
			title = xasprintf("%s: delay-loaded %s is missing", winpath_basename(b->path), w->node->name);
			msg = xasprintf("%s is delay-loaded and not found: `import torch` works, the first call into it "
					"fails with exception 0xC06D007E.",
					w->node->name);
		}
		finding_add(out, RULE_DELAY_LOAD_MISSING, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg,
						    .fix = "install the component that provides it if the feature "
							   "that uses it is needed",
						    .install = run->torch_dir, .binary = b->path, .leaf = w->node->name,
						    .symbol = w->symbol, .path = w->node->path, .chain = w->node,
						    .probes = w->node });
		free(title);
		free(msg);
	}
}

/*
 * PATH entries the loader does not use as the user may think: a quoted one
 * (the loader takes the quotes literally; only cmd.exe strips them) and a
 * relative one (resolved against the current directory, unknown here).
 */
static void path_entry_findings(struct findings *out, const struct torch_run *run)
{
	const char *p = run->saved_path;
	while (p && *p) {
		const char *semi = strchr(p, ';');
		char *e = semi ? xstrndup(p, (size_t)(semi - p)) : xstrdup(p);
		if (*e && strchr(e, '"')) {
			char *title = xasprintf("PATH entry %s is quoted: the DLL loader never searches it", e);
			finding_add(out, RULE_PATH_ENTRY, SEV_WARNING,
				    &(struct finding_spec){
					    .title = title,
					    .message = "LoadLibrary takes PATH entries literally; the quotes become part "
						       "of the folder name, so no DLL is ever found there (cmd.exe strips "
						       "quotes, the loader does not).",
					    .fix = "remove the quotes from the PATH entry", .install = run->torch_dir });
			free(title);
		} else if (*e && !winpath_is_absolute(e)) {
			char *title = xasprintf("PATH entry %s is relative: not searched by this check", e);
			finding_add(out, RULE_PATH_ENTRY, SEV_NOTE,
				    &(struct finding_spec){
					    .title = title,
					    .message = "The loader resolves a relative PATH entry against the process's "
						       "current directory, which a static check does not know: DLLs there "
						       "were not considered, and whether Windows finds them depends on "
						       "where python is started.",
					    .fix = "use a full path in PATH", .install = run->torch_dir });
			free(title);
		}
		free(e);
		p = semi ? semi + 1 : NULL;
	}
}

cJSON *result_add_install(struct result *res, struct view *v, const struct torch_run *run, cJSON *matrix_row)
{
	struct findings *out = &res->findings;
	cJSON *inst = cJSON_CreateObject(), *arr, *bins;
	const char *arch = pe_machine_name(loader_machine(run->ld));
	char *host = view_host_path(v, run->torch_dir);
	struct strlist seen = STRLIST_INIT, dseen = STRLIST_INIT;
	size_t i;
	int failing = 0;

	cJSON_AddStringToObject(inst, "torch_dir", run->torch_dir);
	cJSON_AddItemToObject(inst, "host_path", json_str_or_null(view_is_live(v) ? NULL : host));
	free(host);
	cJSON_AddNullToObject(inst, "version");
	cJSON_AddItemToObject(inst, "variant", run->cuda_version ? cJSON_CreateString("cuda") : cJSON_CreateNull());
	cJSON_AddStringToObject(inst, "arch", arch);
	cJSON_AddItemToObject(inst, "python", json_str_or_null(run->python_exe));
	cJSON_AddItemToObject(inst, "application_dir", json_str_or_null(run->app_dir));
	cJSON_AddItemToObject(inst, "cuda_version", json_str_or_null(run->cuda_version));
	cJSON_AddItemToObject(inst, "python_tag", json_str_or_null(run->python_tag));
	arr = cJSON_AddArrayToObject(inst, "extension_suffixes");
	for (i = 0; i < run->ext_suffixes.n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(run->ext_suffixes.v[i]));
	cJSON_AddStringToObject(inst, "status", "pass");
	cJSON_AddItemToObject(inst, "matrix_row", matrix_row ? matrix_row : cJSON_CreateNull());
	{
		/* the release's own _load_dll_libraries that was followed (loader/torchproc.h) */
		cJSON *pr = cJSON_AddObjectToObject(inst, "procedure");
		unsigned line = torch_proc_line(run->torch_version);
		cJSON_AddStringToObject(pr, "since", run->proc->since);
		if (line) {
			char *src = xasprintf("torch/__init__.py:%u of torch %s", line, run->torch_version);
			cJSON_AddStringToObject(pr, "source", src);
			free(src);
		} else {
			cJSON_AddStringToObject(pr, "source", run->proc->source);
		}
		cJSON_AddBoolToObject(pr, "measured", line != 0);
	}
	arr = cJSON_AddArrayToObject(inst, "dll_paths");
	for (i = 0; i < run->dll_paths.n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(run->dll_paths.v[i]));
	cJSON_AddBoolToObject(inst, "path_fallback_used", run->path_patched);
	if (run->import_error_index >= 0) {
		cJSON *ie = cJSON_AddObjectToObject(inst, "import_error");
		cJSON_AddNumberToObject(ie, "winerror", run->import_error_winerror);
		cJSON_AddStringToObject(ie, "text", run->import_error_text);
		cJSON_AddStringToObject(ie, "binary", run->bins[run->import_error_index].path);
	} else {
		cJSON_AddNullToObject(inst, "import_error");
	}
	{
		cJSON *vc = cJSON_AddArrayToObject(inst, "vc_runtime_probe");
		for (i = 0; i < 3; i++) {
			cJSON *o;
			if (!run->vc[i].attempted)
				continue;
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", run->vc[i].name);
			cJSON_AddNumberToObject(o, "winerror", run->vc[i].res.winerror);
			cJSON_AddItemToObject(o, "path", json_str_or_null(run->vc[i].res.root ? run->vc[i].res.root->path : NULL));
			cJSON_AddItemToObject(o, "file_version",
					      json_str_or_null(run->vc[i].res.root ? run->vc[i].res.root->version : NULL));
			cJSON_AddItemToArray(vc, o);
		}
	}
	bins = cJSON_AddArrayToObject(inst, "binaries");
	for (i = 0; i < run->nbins; i++) {
		const struct torch_binary *b = &run->bins[i];
		/* init-failed: the module whose DllMain fails (judge/dllmain.c says why, in its findings) */
		const struct ldr_node *leaf = b->init_failed ? b->init_failed : b->res.leaf;
		cJSON *o = cJSON_CreateObject();
		char flags[16];
		snprintf(flags, sizeof(flags), "0x%x", b->flags);
		cJSON_AddStringToObject(o, "path", b->path);
		cJSON_AddStringToObject(o, "kind", b->is_pyd ? "pyd" : "dll");
		cJSON_AddNumberToObject(o, "order", b->order);
		cJSON_AddStringToObject(o, "flags", flags);
		cJSON_AddStringToObject(o, "stage", torch_stage_name(b->stage));
		cJSON_AddNumberToObject(o, "winerror", b->winerror);
		cJSON_AddStringToObject(o, "outcome", b->outcome);
		if (b->init_module) {
			cJSON_AddStringToObject(o, "leaf", winpath_basename(b->init_module));
			cJSON_AddStringToObject(o, "leaf_path", b->init_module);
		} else {
			cJSON_AddItemToObject(o, "leaf", json_str_or_null(leaf ? leaf_label(leaf) : NULL));
			cJSON_AddItemToObject(o, "leaf_path", json_str_or_null(leaf ? leaf->path : NULL));
		}
		cJSON_AddItemToObject(o, "symbol", json_str_or_null(b->res.symbol));
		cJSON_AddItemToObject(o, "chain", leaf ? chain_json(leaf) : cJSON_CreateArray());
		cJSON_AddItemToObject(o, "probes", result_probes_json(leaf));
		cJSON_AddItemToObject(o, "file_version", json_str_or_null(b->res.root ? b->res.root->version : NULL));
		if (b->stage == TORCH_STAGE_PATH_FALLBACK) {
			/* the 0x1100 attempt torch made first: why the PATH retry happened */
			const struct ldr_node *fl = b->first.leaf;
			cJSON *fa = cJSON_AddObjectToObject(o, "first_attempt");
			cJSON_AddStringToObject(fa, "flags", "0x1100");
			cJSON_AddNumberToObject(fa, "winerror", b->first.winerror);
			cJSON_AddStringToObject(fa, "outcome", ldr_outcome_name(b->first.outcome));
			cJSON_AddItemToObject(fa, "leaf", json_str_or_null(fl ? leaf_label(fl) : NULL));
			cJSON_AddItemToObject(fa, "chain", fl ? chain_json(fl) : cJSON_CreateArray());
			cJSON_AddItemToObject(fa, "probes", result_probes_json(fl));
		}
		cJSON_AddItemToArray(bins, o);

		if (b->res.order_ambiguous) {
			const struct ldr_node *an = b->res.ambiguous_node;
			cJSON *od = cJSON_AddObjectToObject(o, "order_dependent");
			cJSON *cands = cJSON_AddArrayToObject(od, "candidates");
			size_t k;
			cJSON_AddStringToObject(od, "dll", ambiguous_dll(an));
			for (k = 0; an && k < an->order_candidates.n; k++)
				cJSON_AddItemToArray(cands, cJSON_CreateString(an->order_candidates.v[k]));
			cJSON_AddBoolToObject(od, "verdict_differs", b->res.order_dependent);
			cJSON_AddNumberToObject(od, "winerror_other_order", b->res.order_dependent ? b->res.alt_winerror
												  : b->winerror);
		}
		if (b->res.order_dependent) {
			order_dependent_finding(out, run, b);
		} else if (b->winerror) {
			failing++;
			if (!b->init_failed)
				binary_failure(out, run, b, arch);
		} else if (b->stage == TORCH_STAGE_PATH_FALLBACK) {
			struct strlist via = STRLIST_INIT;
			struct strbuf sb = STRBUF_INIT;
			const struct ldr_node *fl = b->first.leaf;
			size_t k;
			char *title, *msg;
			collect_via_path(b->res.root, &via);
			for (k = 0; k < via.n; k++)
				strbuf_addf(&sb, "%s%s", k ? ", " : "", via.v[k]);
			title = xasprintf("%s loads only through torch's PATH fallback", winpath_basename(b->path));
			msg = xasprintf("LoadLibraryExW(0x1100) fails with 126 (%s not found); the retry with PATH "
					"succeeds%s%s.",
					fl ? leaf_label(fl) : "a dependency", via.n ? " finding " : "",
					strbuf_str(&sb));
			finding_add(out, RULE_LOADS_VIA_PATH, SEV_DEFAULT,
				    &(struct finding_spec){ .title = title, .message = msg,
							    .fix = "put the DLL in torch\\lib or one of torch's dll_paths "
								   "folders so the load no longer depends on PATH",
							    .install = run->torch_dir, .binary = b->path,
							    .leaf = fl ? leaf_label(fl) : NULL, .chain = fl, .probes = fl });
			free(title);
			free(msg);
			strbuf_release(&sb);
			strlist_release(&via);
		}
		delay_warnings(out, run, b, &dseen);
	}
	if (run->vc_failed) {
		for (i = 0; i < 3; i++) {
			const struct ldr_result *r = &run->vc[i].res;
			char *title, *fix;
			if (!run->vc[i].attempted || !r->winerror)
				continue;
			title = xasprintf("torch's VC++ runtime probe fails on %s", run->vc[i].name);
			fix = xasprintf("install the Microsoft Visual C++ 2015-2022 %s redistributable "
					"(https://aka.ms/vs/17/release/vc_redist.%s.exe)",
					arch, arch);
			finding_add(out, RULE_VC_RUNTIME_PROBE, SEV_DEFAULT,
				    &(struct finding_spec){
					    .winerror = r->winerror, .title = title,
					    .message = "import torch prints \"Microsoft Visual C++ Redistributable is not "
						       "installed, this may lead to the DLL load failure.\"",
					    .fix = fix, .install = run->torch_dir,
					    .leaf = r->leaf ? leaf_label(r->leaf) : run->vc[i].name, .chain = r->leaf,
					    .probes = r->leaf });
			free(title);
			free(fix);
		}
	}
	path_entry_findings(out, run);
	/* shadowing anywhere the process resolved a DLL */
	collect_shadows(out, run->ld, run, run->python_res.root, &seen);
	for (i = 0; i < 3; i++)
		collect_shadows(out, run->ld, run, run->vc[i].res.root, &seen);
	for (i = 0; i < run->nbins; i++)
		collect_shadows(out, run->ld, run, run->bins[i].res.root, &seen);
	strlist_release(&seen);
	strlist_release(&dseen);
	if (failing)
		cJSON_ReplaceItemInObject(inst, "status", cJSON_CreateString("fail"));
	cJSON_AddItemToArray(cJSON_GetObjectItem(res->doc, "installs"), inst);
	return inst;
}

/* Whether Windows path `p` is `dir` or below it (case-insensitively). */
static int win_under(const char *p, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	return n && !str_nicmp(p, dir, n) && (!p[n] || p[n] == '\\' || dir[n - 1] == '\\');
}

/*
 * The install a link belongs to: the one whose torch folder, python folder or
 * application folder holds it, else the only install; NULL when neither.
 */
static const char *link_install(cJSON *installs, const char *win)
{
	static const char *const dirs[] = { "torch_dir", "application_dir" };
	cJSON *inst;
	size_t i;
	cJSON_ArrayForEach(inst, installs)
	{
		const char *py = cJSON_GetStringValue(cJSON_GetObjectItem(inst, "python"));
		char *pydir = py ? winpath_dirname(py) : NULL;
		int hit = pydir && win_under(win, pydir);
		free(pydir);
		for (i = 0; i < 2 && !hit; i++)
			hit = win_under(win, cJSON_GetStringValue(cJSON_GetObjectItem(inst, dirs[i])));
		if (hit)
			return cJSON_GetStringValue(cJSON_GetObjectItem(inst, "torch_dir"));
	}
	inst = cJSON_GetArraySize(installs) == 1 ? cJSON_GetArrayItem(installs, 0) : NULL;
	return inst ? cJSON_GetStringValue(cJSON_GetObjectItem(inst, "torch_dir")) : NULL;
}

void result_outside_links(struct result *res, struct view *v)
{
	size_t i, n = view_outside_links(v, 0, NULL, NULL);
	cJSON *installs = cJSON_GetObjectItem(res->doc, "installs");
	for (i = 0; i < n; i++) {
		const char *win, *target;
		char *title, *msg;
		const char *base;
		int binary;
		view_outside_links(v, i, &win, &target);
		base = winpath_basename(win);
		binary = str_iendswith(base, ".dll") || str_iendswith(base, ".pyd");
		title = xasprintf("%s is a link outside --root: not followed", win);
		msg = xasprintf("%s is a symbolic link (or junction) to %s, outside the tree checked (--root). "
				"Nothing outside --root is read: the check treats %s as absent, so the verdicts "
				"that need it are those of a machine without it.",
				win, target, base);
		finding_add(&res->findings, RULE_LINK_OUTSIDE_ROOT, SEV_DEFAULT,
			    &(struct finding_spec){
				    .title = title, .message = msg,
				    .fix = "put the real file or folder in the tree (copy it, or hard-link it) instead "
					   "of a link that leaves --root, or give a --root that contains both",
				    .install = link_install(installs, win), .binary = binary ? win : NULL,
				    .leaf = win, .path = win });
		free(title);
		free(msg);
	}
}

void result_finish(struct result *res)
{
	cJSON *report = res->doc, *inst, *counts = cJSON_CreateObject();
	cJSON *fs = cJSON_GetObjectItem(report, "findings");
	int errors = 0, warnings = 0, notes = 0, ninst = 0, nbin = 0, nfail = 0;
	size_t i;
	for (i = 0; i < res->findings.n; i++) {
		enum report_severity sev = res->findings.v[i].severity;
		errors += sev == SEV_ERROR;
		warnings += sev == SEV_WARNING;
		notes += sev == SEV_NOTE;
		cJSON_AddItemToArray(fs, finding_json(&res->findings.v[i]));
	}
	cJSON_ArrayForEach(inst, cJSON_GetObjectItem(report, "installs"))
	{
		cJSON *b;
		const char *dir = cJSON_GetStringValue(cJSON_GetObjectItem(inst, "torch_dir"));
		int worst = 0; /* an install's status is its worst finding (loader and matrix alike) */
		for (i = 0; i < res->findings.n; i++) {
			const struct finding *f = &res->findings.v[i];
			if (dir && f->install && !str_icmp(dir, f->install) && (int)f->severity > worst)
				worst = (int)f->severity;
		}
		cJSON_ReplaceItemInObject(inst, "status",
					  cJSON_CreateString(worst == 2 ? "fail" : worst ? "warn" : "pass"));
		ninst++;
		cJSON_ArrayForEach(b, cJSON_GetObjectItem(inst, "binaries"))
		{
			nbin++;
			if (cJSON_GetNumberValue(cJSON_GetObjectItem(b, "winerror")) != 0)
				nfail++;
		}
	}
	cJSON_AddNumberToObject(counts, "errors", errors);
	cJSON_AddNumberToObject(counts, "warnings", warnings);
	cJSON_AddNumberToObject(counts, "notes", notes);
	cJSON_AddNumberToObject(counts, "installs", ninst);
	cJSON_AddNumberToObject(counts, "binaries", nbin);
	cJSON_AddNumberToObject(counts, "binaries_failing", nfail);
	cJSON_ReplaceItemInObject(report, "counts", counts);
	cJSON_ReplaceItemInObject(report, "status",
				  cJSON_CreateString(errors ? "fail" : warnings ? "warn" : "pass"));
}
