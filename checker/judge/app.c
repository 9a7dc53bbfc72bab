/*
 * app: a frozen app's own findings and fixes (see app.h).
 */
#include "judge/app.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

/* Whether Windows path `p` lies in folder `dir` or below it. */
static int under(const char *p, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	return p && n && !str_nicmp(p, dir, n) && p[n] == '\\';
}

static int in_app(const struct torch_run *run, const char *p)
{
	return under(p, run->app_dir) || under(p, run->dll_directory);
}

/* Where the finding's DLL was found: its path, else the probe that found it. */
static const char *found_at(const struct finding *f)
{
	size_t i;
	if (f->path)
		return f->path;
	for (i = 0; i < f->nprobes; i++)
		if (f->probes[i].result && !strcmp(f->probes[i].result, "found"))
			return f->probes[i].path;
	return NULL;
}

static void prefix_fix(struct finding *f, const char *fix)
{
	char *s = f->fix && *f->fix ? xasprintf("%s; or: %s", fix, f->fix) : xstrdup(fix);
	finding_set(&f->fix, s);
	free(s);
}

/* Which freezer started the process (run->launcher_what, "PyInstaller 6.x onedir", "cx_Freeze 7.x"); a
 * program that embeds Python (--host) is neither, and gets no freezer's options. */
enum app_kind { APP_PYINSTALLER, APP_CX_FREEZE, APP_HOST };

static enum app_kind app_kind(const struct torch_run *run)
{
	const char *w = run->launcher_what;
	if (w && !strncmp(w, "PyInstaller", 11))
		return APP_PYINSTALLER;
	if (w && !strncmp(w, "cx_Freeze", 9))
		return APP_CX_FREEZE;
	return APP_HOST;
}

static void refix(struct findings *out, const struct torch_run *run)
{
	size_t i;
	enum app_kind kind = app_kind(run);
	if (kind == APP_HOST)
		return; /* its own files: the generic fixes stand */
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		const char *at;
		char *fix;
		if (!f->install || str_icmp(f->install, run->torch_dir) || !f->leaf)
			continue;
		if ((f->winerror == 126 && f->rule == RULE_MISSING_DLL) || f->rule == RULE_DELETED_AFTER_INSTALL) {
			if (kind == APP_CX_FREEZE)
				fix = xasprintf("rebuild the app so that it holds %s: cx_Freeze copies a package whole when "
						"build_exe's `packages` names it (packages=[\"torch\"]), a DLL from "
						"elsewhere when `include_files` does",
						f->leaf);
			else
				fix = xasprintf("rebuild the app so that it holds %s: PyInstaller collects torch's DLLs with "
						"`--collect-binaries torch` (in a hook: collect_dynamic_libs(\"torch\")); a DLL "
						"from elsewhere with `--add-binary SRC;.` (the top-level folder, which the "
						"bootloader searches)",
						f->leaf);
			prefix_fix(f, fix);
			free(fix);
		} else if ((f->rule == RULE_RUNTIME_TOO_OLD || f->rule == RULE_SHADOWED_DLL) &&
			   (at = found_at(f)) && in_app(run, at)) {
			fix = xasprintf("the app bundles %s (the freezer copied the build machine's): rebuild the app "
					"where the latest VC++ 2015-2022 redistributable is installed, or replace the "
					"bundled copy before packaging",
					at);
			prefix_fix(f, fix);
			free(fix);
		}
	}
}

/* Whether the PE at Windows path `p` has a section named UPX0 or UPX1. */
static int upx_packed(struct view *v, const char *p)
{
	char *host = view_host_path(v, p);
	struct pe_image *img = NULL;
	size_t i;
	int r = 0;
	if (host && pe_open(&img, host, 0, NULL) == 0) {
		for (i = 0; i < img->nsections && !r; i++)
			r = !strcmp(img->sections[i].name, "UPX0") || !strcmp(img->sections[i].name, "UPX1");
		pe_close(img);
	}
	free(host);
	return r;
}

static void walk(const struct ldr_node *n, const struct torch_run *run, struct strlist *seen, int depth)
{
	size_t i;
	if (!n || depth > 4096)
		return;
	if (n->path && !n->dup && in_app(run, n->path) && !strlist_has_icase(seen, n->path))
		strlist_push(seen, n->path);
	for (i = 0; i < n->nkids; i++)
		walk(n->kids[i], run, seen, depth + 1);
}

static void upx(struct findings *out, const struct torch_run *run, struct view *v)
{
	struct strlist seen = STRLIST_INIT;
	size_t i;
	enum app_kind kind = app_kind(run);
	walk(run->python_res.root, run, &seen, 0);
	for (i = 0; i < 3; i++)
		walk(run->vc[i].res.root, run, &seen, 0);
	for (i = 0; i < run->nbins; i++)
		walk(run->bins[i].res.root, run, &seen, 0);
	for (i = 0; i < seen.n; i++) {
		const char *base = winpath_basename(seen.v[i]);
		char *title, *msg, *fix;
		if (!upx_packed(v, seen.v[i]))
			continue;
		title = xasprintf("%s is packed with UPX", base);
		msg = xasprintf("%s has sections named UPX0/UPX1: %s compressed it with UPX. It unpacks "
				"itself in memory when loaded; UPX breaks DLLs built with Control Flow Guard and is a "
				"known cause of corrupt or failing torch DLLs in frozen apps.",
				seen.v[i], kind == APP_PYINSTALLER ? "the freezer" : "something");
		if (kind == APP_PYINSTALLER)
			fix = xasprintf("rebuild the app with PyInstaller's `--noupx`, or `--upx-exclude %s`", base);
		else
			fix = xasprintf("replace %s with the uncompressed DLL it was made from", base);
		finding_add(out, RULE_UPX_PACKED, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg, .fix = fix,
						    .install = run->torch_dir, .binary = seen.v[i], .leaf = base,
						    .path = seen.v[i] });
		free(title);
		free(msg);
		free(fix);
	}
	strlist_release(&seen);
}

void app_judge(struct findings *out, const struct torch_run *run, struct view *v)
{
	if (!run || !run->launched)
		return;
	refix(out, run);
	upx(out, run, v);
}
