/*
 * policy: one torch install judged against its matrix row (see policy.h).
 *
 * What "the runtime DLL that will be loaded" means here: the module the
 * emulated process resolves for that name — python.exe's own imports first,
 * then torch's ctypes probe of vcruntime140/msvcp140/vcruntime140_1, then
 * torch\lib\*.dll in load order. The first resolution is the one in the
 * loaded-module list that every later import by that name gets (docs/loader.md §5.2),
 * so an app-local msvcp140.dll next to python.exe beats System32's, as on
 * Windows.
 *
 * Departures: the redistributable's registry key is trusted as the record
 * of what the VC++ installer put in System32; a machine with the DLLs but
 * no key (copied by hand, a Wine prefix) is reported as missing only when a
 * runtime DLL also fails to resolve, else as a warning. DllMain is not run:
 * the WinError 1114 of a too-old msvcp140.dll is predicted from its file
 * version (pytorch#169429, microsoft/STL#4730).
 */
#include "judge/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/dist.h"
#include "judge/row.h"
#include "util/strbuf.h"
#include "util/version.h"

struct pol {
	struct findings *out;
	struct view *v;
	const struct policy_input *in;
	const struct torch_run *run;
	const char *arch;  /* "x64" */
	int aidx;          /* enum matrix_arch, -1 if unknown */
	const struct matrix_row *row;
	const char *version, *variant;
};

/* A finding about this install, with the row that judged it. `severity`: as for finding_add. */
static struct finding *add(struct pol *p, enum rule_id rule, int severity, struct finding_spec spec)
{
	spec.install = p->run->torch_dir;
	return row_finding_add(p->out, p->row, rule, severity, &spec);
}

/* Whether f is about this install (Windows compares folder names without case). */
static int ours(const struct pol *p, const struct finding *f)
{
	return f->install && !str_icmp(f->install, p->run->torch_dir);
}

/* ---- what the emulated process loaded ---- */

static const char *node_base(const struct ldr_node *n)
{
	return winpath_basename(n->name);
}

/* First node named dll (static, not delay) in a tree: resolved ones when want_path, else unresolved. */
static const struct ldr_node *tree_find(const struct ldr_node *n, const char *dll, int want_path, int skip_root)
{
	size_t i;
	if (!n)
		return NULL;
	if (!skip_root && !n->delay && !str_icmp(node_base(n), dll) && (want_path ? n->path != NULL : n->path == NULL))
		return n;
	for (i = 0; i < n->nkids; i++) {
		const struct ldr_node *r;
		if (n->kids[i]->delay)
			continue;
		if ((r = tree_find(n->kids[i], dll, want_path, 0)))
			return r;
	}
	return NULL;
}

/* The module the process resolves for `dll` (see the design comment), or NULL. */
static const struct ldr_node *loaded(const struct torch_run *run, const char *dll)
{
	const struct ldr_node *n;
	size_t i;
	if ((n = tree_find(run->python_res.root, dll, 1, 0)))
		return n;
	for (i = 0; i < 3; i++)
		if (run->vc[i].attempted && (n = tree_find(run->vc[i].res.root, dll, 1, 0)))
			return n;
	for (i = 0; i < run->nbins; i++)
		if ((n = tree_find(run->bins[i].res.root, dll, 1, 1)))
			return n;
	return NULL;
}

static int cb_imports(const char *dll, void *ctx)
{
	const struct torch_run *run = ctx;
	size_t i;
	for (i = 0; i < run->nbins; i++)
		if (tree_find(run->bins[i].res.root, dll, 1, 1) || tree_find(run->bins[i].res.root, dll, 0, 1))
			return 1;
	return 0;
}

static int cb_unresolved(const char *dll, void *ctx)
{
	const struct torch_run *run = ctx;
	size_t i;
	for (i = 0; i < run->nbins; i++)
		if (tree_find(run->bins[i].res.root, dll, 0, 1))
			return 1;
	return 0;
}

static int in_dir(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return path && !str_nicmp(path, dir, n) && path[n] == '\\' && !strchr(path + n + 1, '\\');
}

/* "python.exe's folder", "System32", "torch\lib", or the folder. Caller frees. */
static char *where_text(const struct pol *p, const struct ldr_node *n)
{
	char *dir = winpath_dirname(n->path), *s;
	if (in_dir(n->path, view_system32(p->v)))
		s = xstrdup("System32");
	else if (p->run->app_dir && !str_icmp(dir, p->run->app_dir))
		s = xasprintf("%s's folder, %s", p->run->launched ? winpath_basename(p->run->python_exe) : "python.exe",
			      dir);
	else
		s = xstrdup(dir);
	free(dir);
	return s;
}

/* ---- the rules ---- */

static void uncovered(struct pol *p, const char *why)
{
	const char *semi = strstr(why, "; add a row");
	char *title = xasprintf("torch %s (%s, %s) is not covered by the matrix", p->version ? p->version : "?",
				p->variant && *p->variant ? p->variant : "variant unknown", p->arch);
	char *msg = semi ? xasprintf("%.*s: its runtime requirements (redistributable, runtime DLL versions, OpenMP) "
				     "are unknown, so only the loader's findings apply.",
				     (int)(semi - why), why)
			 : xstrdup(why);
	add(p, RULE_TORCH_UNCOVERED, SEV_ERROR,
	    (struct finding_spec){ .title = title, .message = msg,
				   .fix = semi ? semi + 2 : "add a row for it to a --matrix file" });
	free(title);
	free(msg);
}

static int vc_runtime_name(const char *n)
{
	return str_istartswith(n, "vcruntime140") || str_istartswith(n, "msvcp140") || str_istartswith(n, "concrt140") ||
	       str_istartswith(n, "vccorlib140") || str_istartswith(n, "vcomp140");
}

/* Whether any VC runtime DLL a torch binary or torch's probe needs fails to resolve. */
static int vc_runtime_unresolved(const struct torch_run *run, char **which)
{
	static const char *const names[] = { "vcruntime140.dll", "vcruntime140_1.dll", "msvcp140.dll",
					     "msvcp140_1.dll", "msvcp140_2.dll", "concrt140.dll", "vcomp140.dll" };
	size_t i, k;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		int bad = cb_unresolved(names[k], (void *)run);
		for (i = 0; !bad && i < 3; i++)
			bad = run->vc[i].attempted && run->vc[i].res.winerror && !str_icmp(run->vc[i].name, names[k]);
		if (bad) {
			*which = xstrdup(names[k]);
			return 1;
		}
	}
	return 0;
}

/* The redistributable of no registry: unknown, not missing. */
static void redist_no_registry(struct pol *p, const char *min)
{
	char *msg = xasprintf("No registry was read, so whether the VC++ 2015-2022 %s redistributable%s is "
			      "installed is unknown (not missing); the runtime DLLs were still checked "
			      "through the loader.",
			      p->arch, min);
	add(p, RULE_UNVERIFIED, SEV_NOTE,
	    (struct finding_spec){
		    .title = "VC++ redistributable: unknown (no registry)", .message = msg,
		    .fix = "give --registry FILE (a `reg export` of HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\"
			   "14.0\\VC\\Runtimes, or a Wine system.reg), or --root a Wine prefix's drive_c" });
	free(msg);
}

/* The redistributable of this architecture is not installed: an error when a runtime DLL does not resolve. */
static void redist_not_installed(struct pol *p, const struct inv_redist *r)
{
	const struct inventory *inv = p->in->inv;
	struct strbuf others = STRBUF_INIT;
	char *which = NULL, *title, *msg, *fix, *tail;
	int unresolved = vc_runtime_unresolved(p->run, &which);
	size_t i;
	for (i = 0; i < 3; i++) {
		const struct inv_redist *o = &inv->redist[i];
		if (o != r && o->installed)
			strbuf_addf(&others, "%s%s %s", others.len ? ", " : "", o->arch,
				    o->version ? o->version : "(version unknown)");
	}
	title = others.len ? xasprintf("%s installed but %s missing: the VC++ 2015-2022 %s redistributable "
				       "is not installed",
				       others.buf, p->arch, p->arch)
			   : xasprintf("the VC++ 2015-2022 %s redistributable is not installed", p->arch);
	tail = unresolved ? xasprintf("%s does not resolve for torch's %s process.", which, p->arch)
			  : xstrdup("The runtime DLLs still resolve on this machine (copied there without the "
				    "installer), so torch loads here, but nothing services or guarantees them.");
	msg = xasprintf("%s\\%s is %s in the registry (%s)%s%s%s. %s",
			"HKLM\\" INV_REDIST_KEY, p->arch, r->found ? "present with Installed = 0 or no version" : "absent",
			inv->redist_source ? inv->redist_source : "?",
			others.len ? "; only " : "", others.len ? others.buf : "",
			others.len ? " is installed, and a redistributable of another architecture never serves a "
				     "process of this one (x86 goes to SysWOW64; a 64-bit python.exe loads only x64 DLLs)"
				   : "",
			tail);
	free(tail);
	fix = row_redist_fix(p->arch, p->row, p->aidx);
	add(p, RULE_REDIST_MISSING, unresolved ? SEV_ERROR : SEV_WARNING,
	    (struct finding_spec){ .title = title, .message = msg, .fix = fix, .leaf = which });
	free(title);
	free(msg);
	free(fix);
	free(which);
	strbuf_release(&others);
}

/*
 * The error that a runtime DLL System32 gave (the redistributable's copy) is
 * too old, with its WinError (1114: judge/dllmain.c's or runtime_dlls'), in
 * this install; NULL if none.
 */
static struct finding *redist_dllmain_failure(struct pol *p)
{
	size_t i;
	for (i = 0; i < p->out->n; i++) {
		struct finding *f = &p->out->v[i];
		if (f->rule == RULE_RUNTIME_TOO_OLD && f->winerror && f->severity == SEV_ERROR && ours(p, f) &&
		    f->path && in_dir(f->path, view_system32(p->v)))
			return f;
	}
	return NULL;
}

/* Whether a finding of this install says a binary fails to load (an error with a WinError). */
static int load_error(struct pol *p)
{
	size_t i;
	for (i = 0; i < p->out->n; i++)
		if (p->out->v[i].winerror && p->out->v[i].severity == SEV_ERROR && ours(p, &p->out->v[i]))
			return 1;
	return 0;
}

static void redist(struct pol *p)
{
	const struct inventory *inv = p->in->inv;
	struct row_redist v;
	char *min = row_redist_min(p->row, p->aidx);
	row_redist(&v, inv, p->row, p->arch, p->aidx);
	if (v.state == ROW_REDIST_NO_REGISTRY) {
		redist_no_registry(p, min);
	} else if (v.state == ROW_REDIST_NOT_INSTALLED) {
		redist_not_installed(p, v.rd);
	} else if (v.state == ROW_REDIST_VERSION_UNKNOWN) {
		char *msg = xasprintf("%s is installed but records no version the checker can read, so the minimum "
				      "%s of matrix row %s cannot be checked.",
				      v.rd->key, v.min->text, p->row->id);
		add(p, RULE_UNVERIFIED, SEV_NOTE,
		    (struct finding_spec){
			    .title = "VC++ redistributable: version unknown", .message = msg,
			    .fix = "reinstall the VC++ 2015-2022 redistributable so its registry key is complete" });
		free(msg);
	} else if (v.state == ROW_REDIST_TOO_OLD) {
		const struct inv_redist *r = v.rd;
		struct finding *fails = redist_dllmain_failure(p);
		char *facts = xasprintf("%s (%s) records %s; the matrix row %s (%s:%u) asks for at least %s: the "
					"redistributable must be as new as the toolset torch was built with.",
					r->key, inv->redist_source ? inv->redist_source : "registry",
					r->version_raw ? r->version_raw : r->version, p->row->id,
					matrix_row_file(p->row), v.min->pos.line, v.min->text);
		if (fails) {
			/*
			 * One cause, one problem: the redistributable's DLL failing is this finding; its
			 * fix is the row's minimum, which mends both.
			 */
			char *m = xasprintf("%s %s", fails->message, facts);
			char *fix = row_redist_fix(p->arch, p->row, p->aidx);
			finding_set(&fails->message, m);
			finding_set(&fails->fix, fix);
			free(m);
			free(fix);
		} else {
			/* a rule the emulated loader contradicts is no error: unsupported, but it loads */
			int loads = p->run->import_error_index < 0 && !load_error(p);
			int sev = row_severity(p->row->status);
			char *title = xasprintf("VC++ %s redistributable %s is older than torch %s needs (>= %s)%s",
						p->arch, r->version, p->version, v.min->text,
						loads ? ", though every binary loads with it" : "");
			char *msg = loads ? xasprintf("%s Every torch binary loads with it here (the emulated loader "
						      "finds every import and no DllMain that fails): unsupported, not a "
						      "failure.",
						      facts)
					  : xstrdup(facts);
			char *fix = row_redist_fix(p->arch, p->row, p->aidx);
			if (loads && sev == SEV_ERROR)
				sev = SEV_WARNING;
			add(p, RULE_REDIST_TOO_OLD, sev, (struct finding_spec){ .title = title, .message = msg, .fix = fix });
			free(title);
			free(msg);
			free(fix);
		}
		free(facts);
	}
	free(min);
}

/* Removes the loader's shadowed-dll finding about the copy at `path` in this install (runtime-too-old says more). */
static void drop_shadow_finding(struct pol *p, const char *path)
{
	size_t i;
	for (i = 0; i < p->out->n; i++) {
		const struct finding *f = &p->out->v[i];
		if (f->rule == RULE_SHADOWED_DLL && ours(p, f) && f->path && !str_icmp(f->path, path)) {
			findings_remove(p->out, i);
			return;
		}
	}
}

/* The copy that loads has no version resource: the minimum cannot be checked (a note). */
static void runtime_dll_unknown(struct pol *p, const struct matrix_dll *d, const struct ldr_node *n, const char *where)
{
	char *title = row_dll_unknown_title(d, p->version);
	char *msg = xasprintf("%s (%s) will be the one loaded, but it has no version resource (Wine's builtins "
			      "have none), so the minimum %s cannot be checked.",
			      n->path, where, d->min.text);
	add(p, RULE_UNVERIFIED, SEV_NOTE,
	    (struct finding_spec){ .title = title, .message = msg, .fix = ROW_DLL_UNKNOWN_FIX, .leaf = d->name,
				   .path = n->path });
	free(title);
	free(msg);
}

/* A copy that the loaded one shadows and that would be new enough (its path and version), or NULL. */
static const char *newer_shadowed(const struct pol *p, const struct matrix_dll *d, const struct ldr_node *n,
				  const char **version)
{
	size_t k;
	for (k = 0; k < n->shadowed.n; k++) {
		const char *sv = loader_file_version(p->run->ld, n->shadowed.v[k]);
		struct winver w;
		struct err e;
		if (sv && !winver_parse(&w, sv, &e) && row_dll_min(d, p->aidx, &w) == ROW_DLL_OK) {
			*version = sv;
			return n->shadowed.v[k];
		}
	}
	return NULL;
}

/* The copy that loads is older than the row's min_version. */
static void runtime_dll_too_old(struct pol *p, const struct matrix_dll *d, const struct ldr_node *n, const char *where)
{
	struct strbuf shadow = STRBUF_INIT;
	const char *newer_ver = NULL, *newer_path = newer_shadowed(p, d, n, &newer_ver);
	char *title, *msg, *fix;
	if (newer_path)
		strbuf_addf(&shadow, " It shadows %s (file version %s), which would be new enough.", newer_path,
			    newer_ver);
	title = row_dll_too_old_title(d, n->version, where, p->version);
	msg = xasprintf("The process resolves %s to %s (%s, file version %s).%s Below %s: %s (matrix row %s, "
			"%s:%u).",
			d->name, n->path, n->via ? n->via : "?", n->version, strbuf_str(&shadow), d->min.text,
			d->why ? d->why : "too old for this torch", p->row->id, matrix_row_file(p->row),
			d->min.pos.line);
	if (newer_path) {
		char *sys = in_dir(newer_path, view_system32(p->v)) ? xstrdup("System32's")
								    : xasprintf("%s's", newer_path);
		fix = xasprintf("remove or update the %s at %s: it shadows %s %s copy with %s", d->name, n->path, sys,
				newer_ver, n->version);
		free(sys);
		drop_shadow_finding(p, n->path);
	} else {
		fix = row_dll_too_old_fix(d, n->path, n->version, in_dir(n->path, view_system32(p->v)), p->arch);
	}
	add(p, RULE_RUNTIME_TOO_OLD, row_severity(d->status),
	    (struct finding_spec){ .winerror = d->winerror, .title = title, .message = msg, .fix = fix,
				   .leaf = d->name, .path = n->path, .probes = n });
	free(title);
	free(msg);
	free(fix);
	strbuf_release(&shadow);
}

static void runtime_dlls(struct pol *p)
{
	size_t i;
	for (i = 0; p->row && i < p->row->ndlls; i++) {
		const struct matrix_dll *d = &p->row->dlls[i];
		const struct ldr_node *n;
		struct winver have;
		struct err e;
		enum row_dll_state s;
		char *where;
		if (row_dll_min(d, p->aidx, NULL) == ROW_DLL_NOT_JUDGED)
			continue;
		n = loaded(p->run, d->name);
		if (!n)
			continue; /* nobody loads it: the loader's findings say what is missing */
		s = row_dll_min(d, p->aidx, n->version && !winver_parse(&have, n->version, &e) ? &have : NULL);
		if (s == ROW_DLL_OK)
			continue;
		where = where_text(p, n);
		if (s == ROW_DLL_VERSION_UNKNOWN)
			runtime_dll_unknown(p, d, n, where);
		else
			runtime_dll_too_old(p, d, n, where);
		free(where);
	}
}

/*
 * The loader's findings that `leaf` is missing (or lacks an export) in this
 * install get the row's fix, and `extra` (the row's words) once.
 */
static void enrich_missing(struct pol *p, const char *leaf, const char *fix, const char *extra,
			   const char *explanation)
{
	size_t i;
	for (i = 0; i < p->out->n; i++) {
		struct finding *f = &p->out->v[i];
		if (!ours(p, f) || !f->leaf || str_icmp(f->leaf, leaf))
			continue;
		if (f->rule != RULE_MISSING_DLL && f->rule != RULE_VC_RUNTIME_PROBE && f->rule != RULE_MISSING_ENTRY_POINT)
			continue;
		if (fix)
			finding_set(&f->fix, fix);
		if (explanation && !f->explanation)
			finding_set(&f->explanation, explanation);
		if (extra && f->message && !f->matrix_noted) {
			char *m = xasprintf("%s %s", f->message, extra);
			free(f->message);
			f->message = m;
			f->matrix_noted = 1;
		}
	}
}

/* Whether this torch is older than 2.4.1, the first release that bundles its OpenMP runtime. */
static int before_2_4_1(const struct pol *p)
{
	struct pep440 v, fixed;
	return p->version && pep440_parse(&v, p->version, NULL) == 0 && pep440_parse(&fixed, "2.4.1", NULL) == 0 &&
	       pep440_cmp(&v, &fixed) < 0;
}

/* A DllMain failure (1114) of a too-old runtime DLL: an older torch that this copy serves, where the matrix says one. */
static void offer_older_torch(struct pol *p)
{
	size_t i;
	for (i = 0; i < p->out->n; i++) {
		struct finding *f = &p->out->v[i];
		const struct ldr_node *n;
		struct winver have;
		char *offer, *fix;
		if (f->rule != RULE_RUNTIME_TOO_OLD || f->winerror != 1114 || !ours(p, f) || !f->leaf || !f->fix ||
		    strstr(f->fix, "; or: torch <") || !(n = loaded(p->run, f->leaf)) || !n->version ||
		    winver_parse(&have, n->version, NULL) ||
		    !(offer = row_older_torch_offer(p->in->matrix, p->row, p->version, p->variant, p->aidx, f->leaf,
						    &have, n->version)))
			continue;
		fix = xasprintf("%s%s", f->fix, offer);
		finding_set(&f->fix, fix);
		free(fix);
		free(offer);
	}
}

static void openmp(struct pol *p)
{
	size_t i;
	for (i = 0; p->row && i < p->row->nopenmp; i++) {
		const struct matrix_openmp *o = &p->row->openmp[i];
		const struct ldr_node *n;
		char *fix, *extra, *why;
		if (o->redistributable || !row_arch_ok(o->arch_mask, p->aidx))
			continue;
		if (!cb_imports(o->dll, (void *)p->run))
			continue;
		/* the fix alone, its alternatives as the row lists them: why is the explanation's and the message's */
		n = loaded(p->run, o->dll);
		if (!n && o->where == MATRIX_BUNDLED) {
			/* this build ships it in torch\lib, and it is not there: the install is damaged */
			if (p->version && dist_version_valid(p->version))
				fix = xasprintf("reinstall torch (pip install --force-reinstall --no-deps torch==%s from the "
						"index it came from): this build ships %s in torch\\lib",
						p->version, o->dll);
			else
				fix = xasprintf("reinstall torch from the index it came from: this build ships %s in "
						"torch\\lib",
						o->dll);
			/* not the row's provider text ("..., shipped in torch\\lib"): here it is not there */
			extra = xasprintf("Matrix row %s (%s:%u): this build bundles %s in torch\\lib, and %s\\lib has none: "
					  "removed after install?",
					  p->row->id, matrix_row_file(p->row), o->pos.line, o->dll, p->run->torch_dir);
			why = xasprintf("%s ships in torch\\lib with this build (matrix row %s, %s:%u); the VC++ "
					"redistributable does not install it.",
					o->dll, p->row->id, matrix_row_file(p->row), o->pos.line);
			enrich_missing(p, o->dll, fix, extra, why);
			free(extra);
			free(why);
			free(fix);
			continue;
		}
		fix = o->fix ? xstrdup(o->fix)
			     : before_2_4_1(p) ? xstrdup("install the Visual Studio Build Tools' C++ OpenMP (LLVM) component; "
						 "or move to torch >= 2.4.1")
					       : xstrdup("install the Visual Studio Build Tools' C++ OpenMP (LLVM) component");
		if (!n) {
			extra = xasprintf("Matrix row %s (%s:%u): %s is %s; the VC++ redistributable does not install it.",
					  p->row->id, matrix_row_file(p->row), o->pos.line, o->dll,
					  o->provider ? o->provider : "not redistributable");
			why = xasprintf("%s is %s; the VC++ redistributable does not install it (matrix row %s, %s:%u).",
					o->dll, o->provider ? o->provider : "not redistributable", p->row->id,
					matrix_row_file(p->row), o->pos.line);
			enrich_missing(p, o->dll, fix, extra, why);
			free(extra);
			free(why);
		} else if (in_dir(n->path, view_system32(p->v)) && o->where != MATRIX_BUNDLED) {
			char *title = xasprintf("%s is found only in System32, where Visual Studio / Build Tools put it",
						o->dll);
			char *msg = xasprintf("torch %s imports %s and this machine resolves it to %s. The VC++ "
					      "redistributable does not install it (%s), so machines without Visual "
					      "Studio or Build Tools fail with WinError 126: this machine hides the "
					      "problem (GitHub-hosted runners have Visual Studio).",
					      p->version, o->dll, n->path,
					      o->provider ? o->provider : "MSVC's LLVM OpenMP runtime");
			add(p, RULE_OPENMP_NOT_REDISTRIBUTABLE, SEV_DEFAULT,
			    (struct finding_spec){ .title = title, .message = msg, .fix = fix, .leaf = o->dll,
						   .path = n->path, .probes = n });
			free(title);
			free(msg);
		}
		free(fix);
	}
}

/* The loader's VC runtime findings get the row's minimum and the other architectures' state. */
static void enrich_vc(struct pol *p)
{
	const struct inventory *inv = p->in->inv;
	char *min = row_redist_min(p->row, p->aidx);
	size_t i;
	for (i = 0; i < p->out->n; i++) {
		struct finding *f = &p->out->v[i];
		if (!ours(p, f) || !f->leaf || !vc_runtime_name(f->leaf))
			continue;
		if (f->rule != RULE_MISSING_DLL && f->rule != RULE_VC_RUNTIME_PROBE)
			continue;
		free(f->fix);
		f->fix = xasprintf("install the VC++ 2015-2022 %s redistributable%s (%s)%s", p->arch, min,
				   row_redist_url(p->arch),
				   inv->redist_read && !strcmp(p->arch, "x64") && inv->redist[1].installed &&
						   !inv->redist[0].installed
					   ? ": the x86 one that is installed does not serve a 64-bit Python"
					   : "");
	}
	free(min);
}

/* Errors and warnings (loader's and ours) already reported for this install. */
static int trouble(const struct pol *p)
{
	size_t i;
	int n = 0;
	for (i = 0; i < p->out->n; i++)
		n += p->out->v[i].severity != SEV_NOTE && ours(p, &p->out->v[i]);
	return n;
}

/*
 * A known issue that names the DLLs it is about (applies_when imports or
 * unresolved) and whose DLL is the leaf of an error or warning of this
 * install is that finding's explanation, not a second finding: the issue
 * is folded into each such finding (its id, its sources) and 1 returned.
 */
static int fold_known_issue(struct pol *p, const struct matrix_issue *is)
{
	const struct matrix_when *w = &is->when;
	struct strbuf note = STRBUF_INIT;
	size_t i, k;
	int folded = 0;
	strbuf_addf(&note, "Known issue %s of torch %s", is->id, p->version);
	for (k = 0; k < is->sources.n; k++)
		strbuf_addf(&note, "%s%s", k ? " " : ": ", is->sources.v[k]);
	strbuf_addch(&note, '.');
	for (i = 0; i < p->out->n; i++) {
		struct finding *f = &p->out->v[i];
		if (!ours(p, f) || !f->leaf || f->severity == SEV_NOTE || f->rule == RULE_KNOWN_ISSUE || f->issue)
			continue;
		if (!strlist_has_icase(&w->imports, f->leaf) && !strlist_has_icase(&w->unresolved, f->leaf) && !strlist_has_icase(&w->older, f->leaf))
			continue;
		finding_set(&f->issue, is->id);
		{
			char *e = f->explanation ? xasprintf("%s %s", f->explanation, note.buf) : xstrdup(note.buf);
			free(f->explanation);
			f->explanation = e;
		}
		if (f->message) {
			char *m = xasprintf("%s %s", f->message, note.buf);
			free(f->message);
			f->message = m;
		}
		folded = 1;
	}
	strbuf_release(&note);
	return folded;
}

/*
 * applies_when `older`: the copy of one of these DLLs the process resolves
 * has a version below the row's runtime_dlls min_version for it (a copy
 * without a version is not older: unknown is never reported as a fault).
 */
static int older_holds(const struct pol *p, const struct strlist *older)
{
	size_t i;
	if (!older->n)
		return 1;
	for (i = 0; i < older->n; i++) {
		const struct ldr_node *n = loaded(p->run, older->v[i]);
		struct winver have;
		struct err e;
		if (n && n->version && !winver_parse(&have, n->version, &e) &&
		    row_dll_older(p->row, older->v[i], p->aidx, &have))
			return 1;
	}
	return 0;
}

static void known_issues(struct pol *p)
{
	size_t i;
	int before = trouble(p);
	for (i = 0; p->row && i < p->row->nissues; i++) {
		const struct matrix_issue *is = &p->row->issues[i];
		const struct matrix_when *w = &is->when;
		int conditional = w->variant.n || w->arch_mask || w->imports.n || w->unresolved.n || w->older.n;
		struct strbuf msg = STRBUF_INIT, src = STRBUF_INIT;
		char *title;
		size_t k;
		if (!matrix_issue_applies(is, p->variant, p->aidx, cb_imports, cb_unresolved, (void *)p->run) ||
		    !older_holds(p, &w->older))
			continue;
		/* an issue with no condition is only worth a note next to other trouble */
		if (!conditional && !before)
			continue;
		if (fold_known_issue(p, is))
			continue;
		for (k = 0; k < is->sources.n; k++)
			strbuf_addf(&src, "%s%s", k ? " " : "", is->sources.v[k]);
		strbuf_addf(&msg, "Symptom: %s Cause: %s", is->symptom, is->cause);
		if (src.len)
			strbuf_addf(&msg, " Sources: %s", src.buf);
		title = xasprintf("known issue of torch %s: %s", p->version, is->id);
		add(p, RULE_KNOWN_ISSUE, conditional ? SEV_WARNING : SEV_NOTE,
		    (struct finding_spec){ .title = title, .message = msg.buf, .fix = is->fix, .issue = is->id });
		free(title);
		strbuf_release(&msg);
		strbuf_release(&src);
	}
}

/*
 * A torch newer than every wheel the matrix was measured on is still judged
 * by the row that covers it (the newest rows are open-ended), but its
 * binaries may need more: say so, naming the newest measured release.
 */
static void newer_than_measured(struct pol *p, const struct pep440 *ver)
{
	struct pep440 newest, v = *ver;
	char *title, *msg, *nv;
	size_t i;
	struct strbuf sb;
	if (!matrix_newest_measured(p->in->matrix, &newest))
		return;
	v.local[0] = '\0';
	if (pep440_cmp(&v, &newest) <= 0)
		return;
	strbuf_init(&sb);
	for (i = 0; i < newest.nrelease; i++)
		strbuf_addf(&sb, "%s%llu", i ? "." : "", (unsigned long long)newest.release[i]);
	nv = strbuf_detach(&sb);
	title = xasprintf("torch %s is newer than the newest wheel the matrix was measured on (%s)", p->version, nv);
	msg = xasprintf("Matrix row %s (%s:%u) covers torch %s, but its runtime needs were measured on wheels up "
			"to torch %s; a newer torch may need a newer toolset or more runtime DLLs. The loader's "
			"findings still come from this install's real binaries.",
			p->row->id, matrix_row_file(p->row), p->row->pos.line, p->version, nv);
	add(p, RULE_TORCH_NEWER_THAN_MEASURED, SEV_DEFAULT,
	    (struct finding_spec){ .title = title, .message = msg,
				   .fix = "nothing to do; an updated torch-dll-check carries rows measured on newer wheels" });
	free(title);
	free(msg);
	free(nv);
}

int policy_evaluate(struct findings *out, struct policy_verdict *verdict, struct view *v, const struct policy_input *in,
		    struct err *err)
{
	struct pol p;
	struct pep440 ver;
	struct err e;
	memset(&p, 0, sizeof(p));
	p.out = out;
	p.v = v;
	p.in = in;
	p.run = in->run;
	p.arch = pe_machine_name(loader_machine(in->run->ld));
	p.aidx = matrix_arch_parse(p.arch);
	if (in->install) {
		p.version = in->install->version ? in->install->version : in->install->metadata_version;
		p.variant = in->install->variant;
	}
	memset(verdict, 0, sizeof(*verdict));
	verdict->version = p.version;
	verdict->variant = p.variant;
	err_clear(&e);
	if (!p.version) {
		p.arch = p.arch ? p.arch : "x64";
		add(&p, RULE_TORCH_UNCOVERED, SEV_WARNING,
		    (struct finding_spec){
			    .title = "torch version unknown: no matrix row can be chosen",
			    .message = "Neither torch\\version.py nor a torch dist-info METADATA gives a version, so the "
				       "runtime requirements of this torch are unknown; only the loader's findings apply.",
			    .fix = "reinstall torch with pip (the install is incomplete or was copied)" });
	} else if (pep440_parse(&ver, p.version, &e)) {
		char *msg = xasprintf("%s: the matrix cannot place it.", e.msg);
		add(&p, RULE_TORCH_UNCOVERED, SEV_WARNING,
		    (struct finding_spec){ .title = "torch version is not a PEP 440 version", .message = msg,
					   .fix = "reinstall torch with pip" });
		free(msg);
	} else {
		int r = matrix_select(in->matrix, &ver, p.version,
				      p.variant && strcmp(p.variant, "cuda") ? p.variant : NULL, p.arch, &p.row, &e);
		if (r == 1)
			uncovered(&p, e.msg);
		else if (r < 0)
			return err_set(err, "%s", e.msg);
	}
	verdict->row = p.row;
	if (p.row)
		newer_than_measured(&p, &ver);
	enrich_vc(&p);
	runtime_dlls(&p); /* before redist: the redistributable's DLL that fails is the one finding of that cause */
	redist(&p);
	offer_older_torch(&p);
	openmp(&p);
	known_issues(&p);
	return 0;
}
