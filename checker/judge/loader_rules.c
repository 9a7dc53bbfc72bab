/*
 * loader_rules: the findings the emulated loader's run gives by itself (see
 * loader_rules.h), before any matrix row is looked at.
 */
#include "judge/loader_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/version.h"

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

const char *loader_leaf_label(const struct ldr_node *leaf)
{
	return leaf->parent ? leaf->name : winpath_basename(leaf->name);
}

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
	const char *lname = leaf ? loader_leaf_label(leaf) : bin;
	char *title = NULL, *msg = NULL, *fix = NULL, *chain = leaf ? chain_text(leaf) : xstrdup(bin);
	switch (b->res.outcome) {
	case LDR_MISSING_DLL:
		title = xasprintf("%s cannot load: %s is missing", bin, lname);
		msg = xasprintf("WinError 126: %s (chain %s) is found nowhere on the search path; %zu %s "
				"searched.%s",
				lname, chain, leaf ? leaf->nprobes : 0,
				leaf && leaf->nprobes == 1 ? "place was" : "places were",
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
				leaf && leaf->parent ? loader_leaf_label(leaf->parent) : bin, chain);
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
const char *loader_ambiguous_dll(const struct ldr_node *an)
{
	if (an && an->order_candidates.n)
		return winpath_basename(an->order_candidates.v[0]);
	return an ? an->name : "a DLL";
}

void loader_order_finding(struct findings *out, const char *install, const char *bin_path,
			  const struct ldr_result *res, const char *adder)
{
	const struct ldr_node *an = res->ambiguous_node;
	const char *bin = winpath_basename(bin_path), *dll = loader_ambiguous_dll(an);
	struct strbuf sb = STRBUF_INIT;
	char *title, *msg, *fix, *first, *other;
	size_t k;
	for (k = 0; an && k < an->order_candidates.n; k++)
		strbuf_addf(&sb, "%s%s", k ? " and " : "", an->order_candidates.v[k]);
	title = xasprintf("%s: whether it loads depends on which copy of %s Windows takes", bin, dll);
	msg = xasprintf("%s is in two folders %s%s with AddDllDirectory (%s), and Microsoft leaves the "
			"search order of such folders unspecified. In the order they were added %s; in the "
			"other order %s.",
			dll, adder ? adder : "added", adder ? " adds" : "", strbuf_str(&sb),
			first = verdict_text(res->winerror, res->outcome),
			other = verdict_text(res->alt_winerror, res->alt_outcome));
	free(first);
	free(other);
	fix = adder ? xasprintf("keep one copy of %s in %s's dll_paths folders (remove the one that does not fit)", dll,
				adder)
		    : xasprintf("keep one copy of %s in the folders added with AddDllDirectory (remove the one that "
				"does not fit)",
				dll);
	finding_add(out, RULE_ORDER_DEPENDENT, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = install,
					    .binary = bin_path, .leaf = dll, .chain = an, .probes = an });
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

static void collect_shadows(struct findings *out, struct loader *ld, const struct torch_run *run,
			    const struct ldr_node *n, struct strlist *seen)
{
	size_t i;
	if (!n)
		return;
	if (n->path && n->shadowed.n && !strlist_has_icase(seen, n->path)) {
		const char *wv = n->version;
		for (i = 0; i < n->shadowed.n; i++) {
			const char *lv = loader_file_version(ld, n->shadowed.v[i]);
			if (lv && (!wv || winver_text_cmp(lv, wv) > 0)) {
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
		if (strlist_has_icase(seen, key)) {
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


/* A binary that loads only because torch retried with PATH: what it found there. */
static void loads_via_path(struct findings *out, const struct torch_run *run, const struct torch_binary *b)
{
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
			fl ? loader_leaf_label(fl) : "a dependency", via.n ? " finding " : "", strbuf_str(&sb));
	finding_add(out, RULE_LOADS_VIA_PATH, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg,
					    .fix = "put the DLL in torch\\lib or one of torch's dll_paths "
						   "folders so the load no longer depends on PATH",
					    .install = run->torch_dir, .binary = b->path,
					    .leaf = fl ? loader_leaf_label(fl) : NULL, .chain = fl, .probes = fl });
	free(title);
	free(msg);
	strbuf_release(&sb);
	strlist_release(&via);
}

/* torch's ctypes probe of the VC++ runtime DLLs (vcruntime140, msvcp140, vcruntime140_1) that failed. */
static void vc_probe_failures(struct findings *out, const struct torch_run *run, const char *arch)
{
	size_t i;
	for (i = 0; run->vc_failed && i < 3; i++) {
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
				    .leaf = r->leaf ? loader_leaf_label(r->leaf) : run->vc[i].name, .chain = r->leaf,
				    .probes = r->leaf });
		free(title);
		free(fix);
	}
}

void loader_rules(struct findings *out, const struct torch_run *run)
{
	const char *arch = pe_machine_name(loader_machine(run->ld));
	struct strlist seen = STRLIST_INIT, dseen = STRLIST_INIT;
	size_t i;
	for (i = 0; i < run->nbins; i++) {
		const struct torch_binary *b = &run->bins[i];
		if (b->res.order_dependent)
			loader_order_finding(out, run->torch_dir, b->path, &b->res, "torch");
		else if (b->winerror && !b->init_failed) /* init-failed: judge/dllmain.c's findings say why */
			binary_failure(out, run, b, arch);
		else if (!b->winerror && b->stage == TORCH_STAGE_PATH_FALLBACK)
			loads_via_path(out, run, b);
		delay_warnings(out, run, b, &dseen);
	}
	vc_probe_failures(out, run, arch);
	path_entry_findings(out, run);
	/* shadowing anywhere the process resolved a DLL */
	collect_shadows(out, run->ld, run, run->python_res.root, &seen);
	for (i = 0; i < 3; i++)
		collect_shadows(out, run->ld, run, run->vc[i].res.root, &seen);
	for (i = 0; i < run->nbins; i++)
		collect_shadows(out, run->ld, run, run->bins[i].res.root, &seen);
	strlist_release(&seen);
	strlist_release(&dseen);
}
