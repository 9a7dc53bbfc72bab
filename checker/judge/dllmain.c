/*
 * dllmain: which DllMain fails and which torch binaries it stops (see
 * dllmain.h for the model and its sources).
 */
#include "judge/dllmain.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/version.h"

static const char *node_base(const struct ldr_node *n)
{
	return winpath_basename(n->name);
}

/* The first static node named `dll` that resolved, in a tree (the copy the process binds). */
static const struct ldr_node *find_resolved(const struct ldr_node *n, const char *dll)
{
	size_t i;
	if (!n || n->delay)
		return NULL;
	if (n->path && !str_icmp(node_base(n), dll))
		return n;
	for (i = 0; i < n->nkids; i++) {
		const struct ldr_node *r = find_resolved(n->kids[i], dll);
		if (r)
			return r;
	}
	return NULL;
}

/* The copy of `dll` the process resolves: python.exe's imports, torch's probe, then torch's binaries in order. */
static const struct ldr_node *resolved(const struct torch_run *run, const char *dll)
{
	const struct ldr_node *n;
	size_t i;
	if ((n = find_resolved(run->python_res.root, dll)))
		return n;
	for (i = 0; i < 3; i++)
		if (run->vc[i].attempted && (n = find_resolved(run->vc[i].res.root, dll)))
			return n;
	for (i = 0; i < run->nbins; i++)
		if (!run->bins[i].winerror && (n = find_resolved(run->bins[i].res.root, dll)))
			return n;
	return NULL;
}

/* Whether the PE at Windows path `p` was linked by a toolset >= min (major.minor of its linker version). */
static int linked_at_least(struct view *v, const char *p, const struct winver *min)
{
	char *host = view_host_path(v, p);
	struct pe_image *img = NULL;
	int r = 0;
	if (host && pe_open(&img, host, 0, NULL) == 0) {
		r = img->linker_major > min->part[0] ||
		    (img->linker_major == min->part[0] && img->linker_minor >= min->part[1]);
		pe_close(img);
	}
	free(host);
	return r;
}

/*
 * The first module initialised in `n`'s load (dependencies first) that
 * imports `dll` itself and was linked at least as new as `min`; NULL if none.
 * Modules met through the loaded-module list (dup) were expanded where they
 * were first loaded.
 */
static const struct ldr_node *first_init(struct view *v, const struct ldr_node *n, const char *dll,
					 const struct winver *min, int depth)
{
	size_t i;
	int direct = 0;
	if (!n || n->delay || n->dup || !n->path || depth > 4096)
		return NULL;
	for (i = 0; i < n->nkids; i++) {
		const struct ldr_node *k = n->kids[i], *r;
		if (k->delay)
			continue;
		if (!str_icmp(node_base(k), dll))
			direct = 1;
		else if ((r = first_init(v, k, dll, min, depth + 1)))
			return r;
	}
	return direct && linked_at_least(v, n->path, min) ? n : NULL;
}

static void add_finding(struct findings *out, const struct torch_run *run, const struct torch_binary *b,
			const struct matrix_row *row, const struct matrix_dll *d, const struct ldr_node *rt)
{
	const char *bin = winpath_basename(b->path), *mod = winpath_basename(b->init_failed->path);
	char *title, *msg, *fix;
	if (!str_icmp(bin, mod))
		title = xasprintf("%s fails in DllMain (WinError %d): %s %s is older than %s", bin, d->winerror,
				  d->name, rt->version, d->min.text);
	else
		title = xasprintf("%s cannot load: %s fails in DllMain (WinError %d), %s %s is older than %s", bin,
				  mod, d->winerror, d->name, rt->version, d->min.text);
	msg = xasprintf("WinError %d: every import of %s resolves, then the initialisation of %s (linked by a "
			"toolset >= %s, importing %s) fails with %s at %s (file version %s): %s (matrix row %s, "
			"%s:%u).",
			d->winerror, bin, mod, d->min.text, d->name, d->name, rt->path, rt->version,
			d->why ? d->why : "too old for this torch", row->id, matrix_row_file(row), d->min.pos.line);
	fix = xasprintf("make %s >= %s the one loaded: update or remove %s (install the latest VC++ 2015-2022 "
			"redistributable, https://aka.ms/vs/17/release/vc_redist.x64.exe)",
			d->name, d->min.text, rt->path);
	finding_add(out, RULE_RUNTIME_TOO_OLD, SEV_DEFAULT,
		    &(struct finding_spec){ .winerror = d->winerror, .title = title, .message = msg, .fix = fix,
					    .install = run->torch_dir, .binary = b->path, .leaf = d->name,
					    .path = rt->path, .chain = b->init_failed, .probes = rt });
	free(title);
	free(msg);
	free(fix);
}

/* The install's row, as policy_evaluate selects it; NULL if none. */
static const struct matrix_row *row_of(const struct torch_run *run, const struct matrix *m,
				       const struct inv_install *install)
{
	const struct matrix_row *row = NULL;
	const char *version, *variant;
	struct pep440 ver;
	struct err e;
	if (!m || !install)
		return NULL;
	version = install->version ? install->version : install->metadata_version;
	variant = install->variant;
	err_clear(&e);
	if (!version || pep440_parse(&ver, version, &e))
		return NULL;
	if (matrix_select(m, &ver, version, variant && strcmp(variant, "cuda") ? variant : NULL,
			  pe_machine_name(loader_machine(run->ld)), &row, &e) != 0)
		return NULL;
	return row;
}

size_t dllmain_judge(struct findings *out, struct torch_run *run, struct view *v, const struct matrix *m,
		     const struct inv_install *install)
{
	const struct matrix_row *row = row_of(run, m, install);
	size_t k, i, marked = 0;
	for (k = 0; row && k < row->ndlls; k++) {
		const struct matrix_dll *d = &row->dlls[k];
		const struct ldr_node *rt, *mod = NULL;
		struct winver have;
		struct err e;
		char *mpath;
		if (!d->winerror || !d->min.set)
			continue;
		rt = resolved(run, d->name);
		if (!rt || !rt->version || winver_parse(&have, rt->version, &e) || winver_at_least(&have, &d->min.v))
			continue;
		for (i = 0; i < run->nbins && !mod; i++)
			if (!run->bins[i].winerror)
				mod = first_init(v, run->bins[i].res.root, d->name, &d->min.v, 0);
		if (!mod)
			continue;
		mpath = xstrdup(mod->path); /* the marking below moves no node, but keep our own copy */
		marked += torch_run_init_failed(run, mpath, d->winerror);
		for (i = 0; i < run->nbins; i++)
			if (run->bins[i].init_failed && !str_icmp(run->bins[i].init_failed->path, mpath))
				add_finding(out, run, &run->bins[i], row, d, rt);
		free(mpath);
	}
	return marked;
}
