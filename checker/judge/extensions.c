/*
 * extensions: torch's environment (extensions.h). The loading is
 * loader/extload.c's; this file decides which distributions are
 * extensions, lists the copies of torch's DLLs, and turns the runs into
 * findings.
 */
#include "judge/extensions.h"

#include <stdlib.h>
#include <string.h>

#include "judge/loader_rules.h"
#include "machine/dist.h"
#include "machine/inventory.h"
#include "matrix/pairs.h"
#include "util/demangle.h"
#include "util/strmap.h"
#include "util/version.h"

void ext_check_init(struct ext_check *c, const struct strlist *import_first, const struct matrix *m)
{
	memset(c, 0, sizeof(*c));
	c->matrix = m;
	if (import_first)
		strlist_copy(&c->import_first, import_first);
}

void ext_check_restore_path(struct ext_check *c, struct view *v)
{
	if (c->path_changed && v)
		view_setenv(v, "PATH", c->orig_path ? c->orig_path : "");
	c->path_changed = 0;
}

void ext_check_release(struct ext_check *c, struct view *v)
{
	size_t i;
	ext_check_restore_path(c, v);
	for (i = 0; i < c->nfirst; i++)
		ext_run_free(c->first[i]);
	for (i = 0; i < c->nexts; i++)
		ext_run_free(c->exts[i]);
	free(c->first);
	free(c->exts);
	for (i = 0; i < c->ncopies; i++) {
		free(c->copies[i].name);
		free(c->copies[i].path);
		free(c->copies[i].dist);
		free(c->copies[i].dist_version);
		free(c->copies[i].file_version);
		free(c->copies[i].host);
		copy_gap_release(&c->copies[i].gap);
	}
	free(c->copies);
	if (c->have_dists)
		dist_set_release(&c->dists);
	for (i = 0; i < c->nsites; i++) {
		if (c->sites[i].ok)
			dist_set_release(&c->sites[i].set);
		free(c->sites[i].dir);
	}
	free(c->sites);
	strlist_release(&c->import_first);
	strlist_release(&c->missing_first);
	strlist_release(&c->torch_dlls);
	free(c->site_packages);
	free(c->dists_error);
	free(c->first_error);
	free(c->orig_path);
	memset(c, 0, sizeof(*c));
}

static void read_dists(struct ext_check *c, const struct torch_run *run, struct view *v)
{
	struct err e;
	if (c->have_dists || c->dists_error)
		return;
	c->site_packages = winpath_dirname(run->torch_dir);
	if (dist_set_read(&c->dists, v, c->site_packages, NULL, &e))
		c->dists_error = xstrdup(e.msg);
	else
		c->have_dists = 1;
}

/* The distributions of every other sys.path folder, in sys.path order (torch's own folder is c->dists). */
static void read_sites(struct ext_check *c, struct view *v)
{
	size_t i;
	if (c->sites_read || !c->sys_path)
		return;
	c->sites_read = 1;
	c->sites = xcalloc(c->sys_path->n ? c->sys_path->n : 1, sizeof(*c->sites));
	for (i = 0; i < c->sys_path->n; i++) {
		struct ext_site *s = &c->sites[c->nsites];
		struct err e;
		const char *dir = c->sys_path->v[i];
		if (!view_is_dir(v, dir))
			continue;
		s->dir = xstrdup(dir);
		/* torch's own folder is read once, as c->dists */
		if (!(c->site_packages && !str_icmp(dir, c->site_packages)))
			s->ok = dist_set_read(&s->set, v, dir, NULL, &e) == 0;
		c->nsites++;
	}
}

/* The distribution set of sys.path folder i (torch's: c->dists), or NULL. */
static const struct dist_set *site_set(const struct ext_check *c, size_t i)
{
	if (c->site_packages && !str_icmp(c->sites[i].dir, c->site_packages))
		return c->have_dists ? &c->dists : NULL;
	return c->sites[i].ok ? &c->sites[i].set : NULL;
}

/*
 * The first distribution `name` on sys.path and its folder (*sp), as `import`
 * finds it: torch's site-packages alone without a sys.path.
 */
static const struct dist *find_on_path(struct ext_check *c, struct view *v, const char *name, const char **sp)
{
	size_t i;
	read_sites(c, v);
	*sp = c->site_packages;
	if (!c->nsites)
		return c->have_dists ? dist_set_find(&c->dists, name) : NULL;
	for (i = 0; i < c->nsites; i++) {
		const struct dist_set *s = site_set(c, i);
		const struct dist *d = s ? dist_set_find(s, name) : NULL;
		if (d) {
			*sp = c->sites[i].dir;
			return d;
		}
	}
	return NULL;
}

static int same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

void ext_check_before_torch(void *ctx, struct torch_run *run, struct view *v)
{
	struct ext_check *c = ctx;
	size_t i;
	if (!c->import_first.n)
		return;
	read_dists(c, run, v);
	c->orig_path = view_getenv(v, "PATH") ? xstrdup(view_getenv(v, "PATH")) : NULL;
	for (i = 0; i < c->import_first.n; i++) {
		const char *name = c->import_first.v[i], *module = NULL, *sp = c->site_packages;
		const struct dist *d = find_on_path(c, v, name, &sp);
		struct ext_run *r = NULL;
		struct err e;
		if (!d && strchr(name, '.')) {
			/* PKG.module: the distribution whose top-level package PKG is, and that module of it */
			char *top = xstrndup(name, (size_t)(strchr(name, '.') - name));
			d = find_on_path(c, v, top, &sp);
			module = name;
			free(top);
		}
		if (!d) {
			strlist_push(&c->missing_first, name);
			if (!c->first_error)
				c->first_error = c->nsites
					? xasprintf("--import-first %s: no distribution on python's sys.path (%zu folders) "
						    "is named so (nor has it as a top-level package)",
						    name, c->nsites)
					: xasprintf("--import-first %s: no distribution of %s is named so (nor has "
						    "it as a top-level package)",
						    name, c->site_packages ? c->site_packages : "torch's site-packages");
			continue;
		}
		if (extload_run(&r, run->ld, v, run, d, matrix_extension_load(c->matrix, d->name, d->version),
				sp, 1, module, &e) == 0) {
			ALLOC_GROW(c->first, c->nfirst + 1, c->afirst);
			c->first[c->nfirst++] = r;
		} else {
			strlist_push(&c->missing_first, name);
			if (!c->first_error)
				c->first_error = xasprintf("--import-first %s: %s", name, e.msg);
		}
	}
	if (!same_text(c->orig_path, view_getenv(v, "PATH"))) {
		/* torch's PATH fallback prepends to the PATH the program has by then */
		c->path_changed = 1;
		free(run->saved_path);
		run->saved_path = view_getenv(v, "PATH") ? xstrdup(view_getenv(v, "PATH")) : NULL;
	}
}

static int imported_first(const struct ext_check *c, const struct dist *d)
{
	size_t i;
	for (i = 0; i < c->nfirst; i++)
		if (!str_icmp(c->first[i]->dist_info, d->dist_info))
			return 1;
	return 0;
}

static int tree_has(const struct ldr_node *n, const char *name, const char *path);

/* Whether a binary of a package imported first brought the file `path` into the process. */
static int loaded_first(const struct ext_check *c, const char *path)
{
	size_t i, k;
	for (i = 0; i < c->nfirst; i++)
		for (k = 0; k < c->first[i]->nbins; k++)
			if (!c->first[i]->bins[k].winerror && tree_has(c->first[i]->bins[k].res.root, NULL, path))
				return 1;
	return 0;
}

static int is_extension(const struct ext_check *c, struct view *v, const struct dist *d)
{
	size_t i;
	for (i = 0; i < d->binaries.n; i++) {
		const char *host = i < d->binaries_host.n ? d->binaries_host.v[i] : "";
		if ((host[0] ? extload_imports_any_host(host, &c->torch_dlls, NULL)
			     : extload_imports_any(v, d->binaries.v[i], &c->torch_dlls, NULL)) == 1)
			return 1;
	}
	return 0;
}

static int cmp_icase(const void *a, const void *b)
{
	return str_icmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The DLL names torch needs that another package may ship: the VC/OpenMP
 * runtimes and torch\lib's third-party DLLs. `lib_names`: the base names of
 * torch's DLLs, sorted (str_icmp), so that each of a package's binaries is
 * one search (a walk of torch's binaries per binary made 20,000 x 20,000).
 */
static int torch_needs(const struct strlist *lib_names, const char *base)
{
	size_t i;
	for (i = 0; inv_runtime_dll_names[i]; i++)
		if (!str_icmp(base, inv_runtime_dll_names[i]))
			return 1;
	return lib_names->n && bsearch(&base, lib_names->v, lib_names->n, sizeof(char *), cmp_icase) != NULL;
}

static void list_copies(struct ext_check *c, const struct torch_run *run, struct view *v)
{
	size_t i, k;
	struct strlist lib_names = STRLIST_INIT;
	for (i = 0; i < run->nbins; i++)
		if (!run->bins[i].is_pyd)
			strlist_push(&lib_names, winpath_basename(run->bins[i].path));
	if (lib_names.n > 1)
		qsort(lib_names.v, lib_names.n, sizeof(char *), cmp_icase);
	for (i = 0; i < c->dists.n; i++) {
		const struct dist *d = &c->dists.v[i];
		if (dist_name_eq(d->name, "torch"))
			continue;
		for (k = 0; k < d->binaries.n; k++) {
			const char *p = d->binaries.v[k], *base = winpath_basename(p), *fv;
			struct ext_copy *cp;
			if (!str_iendswith(base, ".dll") || !torch_needs(&lib_names, base))
				continue;
			ALLOC_GROW(c->copies, c->ncopies + 1, c->acopies);
			cp = &c->copies[c->ncopies++];
			memset(cp, 0, sizeof(*cp));
			cp->name = xstrdup(base);
			cp->path = xstrdup(p);
			cp->dist = xstrdup(d->name);
			cp->dist_version = d->version ? xstrdup(d->version)
				: d->bare     ? xstrdup("(not installed by pip: no RECORD)")
					      : NULL;
			fv = loader_file_version(run->ld, p);
			cp->file_version = fv ? xstrdup(fv) : NULL;
			cp->first = imported_first(c, d) && loaded_first(c, p);
			cp->host = k < d->binaries_host.n && d->binaries_host.v[k][0] ? xstrdup(d->binaries_host.v[k]) : NULL;
		}
	}
	strlist_release(&lib_names);
	for (i = 0; i < c->ncopies; i++) {
		struct ext_copy *cp = &c->copies[i];
		cp->gap.name = cp->name;
		cp->gap.win_path = cp->path;
		cp->gap.host = cp->host;
	}
	if (c->ncopies) {
		/* one pass over torch's binaries for every copy (c->copies no longer moves) */
		struct copy_gap *gaps = xcalloc(c->ncopies, sizeof(*gaps));
		for (i = 0; i < c->ncopies; i++)
			gaps[i] = c->copies[i].gap;
		copy_exports_check(v, run, gaps, c->ncopies);
		for (i = 0; i < c->ncopies; i++)
			c->copies[i].gap = gaps[i];
		free(gaps);
	}
}

/* The distribution names an earlier sys.path folder has (str_icmp), looked up in one step each. */
struct seen_names {
	struct strlist names;
	struct strmap map; /* ICASE; keys borrowed from names */
};

/* One folder's extensions; `seen` holds the names an earlier sys.path folder has (they shadow these). */
static void extensions_in(struct ext_check *c, struct torch_run *run, struct view *v, const struct dist_set *set,
			  const char *sp, struct seen_names *seen)
{
	size_t i;
	for (i = 0; i < set->n; i++) {
		const struct dist *d = &set->v[i];
		struct ext_run *r = NULL;
		if (seen && strmap_get(&seen->map, d->name, NULL))
			continue;
		if (seen) {
			strlist_push(&seen->names, d->name);
			strmap_add(&seen->map, seen->names.v[seen->names.n - 1], 0);
		}
		if (dist_name_eq(d->name, "torch") || imported_first(c, d) || !is_extension(c, v, d))
			continue;
		if (c->nexts >= EXT_MAX_EXTENSIONS) {
			c->ext_over++;
			continue;
		}
		if (extload_run(&r, run->ld, v, run, d, matrix_extension_load(c->matrix, d->name, d->version), sp, 0,
				NULL, NULL) == 0) {
			ALLOC_GROW(c->exts, c->nexts + 1, c->aexts);
			c->exts[c->nexts++] = r;
		}
	}
}

void ext_check_after_torch(struct ext_check *c, struct torch_run *run, struct view *v)
{
	struct seen_names seen = { STRLIST_INIT, STRMAP_INIT };
	size_t i;
	strmap_init(&seen.map, STRMAP_ICASE);
	read_dists(c, run, v);
	if (!c->have_dists)
		return;
	extload_torch_dlls(run, &c->torch_dlls);
	read_sites(c, v);
	if (!c->nsites)
		extensions_in(c, run, v, &c->dists, c->site_packages, NULL);
	for (i = 0; i < c->nsites; i++) /* sys.path order: the first folder with a distribution wins */
		if (site_set(c, i))
			extensions_in(c, run, v, site_set(c, i), c->sites[i].dir, &seen);
	strmap_release(&seen.map);
	strlist_release(&seen.names);
	list_copies(c, run, v);
}

/* ---- findings ---------------------------------------------------------------------- */

/* A failure on a symbol of one of torch's own DLLs: the extension was built against another torch. */
static int torch_symbol_failure(const struct ext_check *c, const struct ext_binary *b)
{
	return (b->res.outcome == LDR_MISSING_ENTRY || b->res.outcome == LDR_MISSING_ORDINAL) && b->res.leaf &&
	       strlist_has_icase(&c->torch_dlls, winpath_basename(b->res.leaf->name));
}

/* "?sym@@... (public: void __cdecl ...)" or the plain name. */
static void add_symbol(struct strbuf *sb, const char *sym)
{
	char *d = sym ? demangle_msvc(sym) : NULL;
	strbuf_adds(sb, sym ? sym : "?");
	if (d)
		strbuf_addf(sb, " (%s)", d);
	free(d);
}

/* The torch release the extension was built for, and where that is said ("its METADATA requires torch==X"). */
static const char *torch_of_ext(const struct ext_run *r, struct strbuf *why)
{
	const char *t;
	if (r->torch_pin) {
		strbuf_addf(why, "its METADATA requires torch==%s", r->torch_pin);
		return r->torch_pin;
	}
	t = r->version ? pairs_torch_of(r->name, r->version) : NULL;
	if (t)
		strbuf_addf(why, "its win_amd64 wheel on PyPI requires torch==%s, per " PAIRS_SOURCE, t);
	return t;
}

static void mismatch_finding(const struct ext_check *c, struct findings *out, const struct torch_run *run,
			     const struct ext_run *r, const char *torch_version)
{
	struct strbuf msg = STRBUF_INIT, others = STRBUF_INIT;
	const struct ext_binary *first = NULL;
	struct strbuf why = STRBUF_INIT;
	const char *built = torch_of_ext(r, &why), *match;
	char *installed = pep440_drop_local(torch_version), *title, *fix;
	const char *ver = r->version ? r->version : "(unknown version)";
	size_t i, n = 0;
	for (i = 0; i < r->nbins; i++) {
		const struct ext_binary *b = &r->bins[i];
		if (!torch_symbol_failure(c, b))
			continue;
		if (!first) {
			first = b;
		} else {
			strbuf_addf(&others, "%s%s (%s lacks ", n > 1 ? "; " : "", winpath_basename(b->path),
				    winpath_basename(b->res.leaf->name));
			add_symbol(&others, b->res.symbol);
			strbuf_addch(&others, ')');
		}
		n++;
	}
	if (!first) {
		strbuf_release(&msg);
		strbuf_release(&why);
		strbuf_release(&others);
		free(installed);
		return;
	}
	match = installed ? pairs_ext_for(r->name, installed) : NULL;
	strbuf_addf(&msg, "WinError %d: %s's %s imports ", first->winerror, r->name, winpath_basename(first->path));
	add_symbol(&msg, first->res.symbol);
	strbuf_addf(&msg, " from %s, which the %s that torch %s loaded (%s) does not export", winpath_basename(first->res.leaf->name),
		    winpath_basename(first->res.leaf->name), torch_version ? torch_version : "?",
		    first->res.leaf->path ? first->res.leaf->path : "?");
	if (n > 1)
		strbuf_addf(&msg, "; also %s", others.buf);
	strbuf_addf(&msg, ". %s.", first->effect);
	if (built && installed && !pep440_same_public(built, installed)) {
		title = xasprintf("%s %s was built for torch %s; torch %s is installed", r->name, ver, built,
				  torch_version);
		strbuf_addf(&msg, " %s was built for torch %s (%s).", r->name, built, why.buf);
		if (match)
			fix = xasprintf("install %s==%s (built for torch %s), or torch==%s", r->name, match, installed,
					built);
		else
			fix = xasprintf("install the %s release built for torch %s (its METADATA requires torch==%s), "
					"or torch==%s",
					r->name, installed, installed, built);
	} else if (built) {
		title = xasprintf("%s %s does not match torch %s, though it requires exactly that torch", r->name, ver,
				  torch_version ? torch_version : "?");
		strbuf_addf(&msg, " Its requirement (%s) says it was built for this torch: its binaries are from "
				  "another build than its metadata says.",
			    why.buf);
		fix = xasprintf("reinstall %s from PyPI (pip install --force-reinstall --no-deps %s==%s), or the torch "
				"its binaries were built for",
				r->name, r->name, ver);
	} else {
		title = xasprintf("%s %s was built for another torch than %s", r->name, ver,
				  torch_version ? torch_version : "the one installed");
		strbuf_addf(&msg, " %s's METADATA pins no torch, and the measured pairs (" PAIRS_SOURCE ") do not "
				  "know this release.",
			    r->name);
		if (match)
			fix = xasprintf("install %s==%s (built for torch %s)", r->name, match, installed);
		else
			fix = xasprintf("install the %s release built for torch %s", r->name,
					installed ? installed : "the installed version");
	}
	if (!dist_name_valid(r->name) || (r->version && !dist_version_valid(r->version))) {
		/* package data that is not a name never reaches a command */
		free(fix);
		fix = xasprintf("reinstall it by hand: %s is not a valid distribution (its name or version is not one "
				"PEP 508 allows), so no command is given",
				r->dist_info);
	}
	finding_add(out, RULE_EXTENSION_MISMATCH, SEV_DEFAULT,
		    &(struct finding_spec){ .winerror = first->winerror, .title = title, .message = msg.buf, .fix = fix,
					    .install = run->torch_dir, .binary = first->path,
					    .leaf = winpath_basename(first->res.leaf->name), .symbol = first->res.symbol,
					    .path = first->res.leaf->path, .chain = first->res.leaf });
	free(title);
	free(fix);
	free(installed);
	strbuf_release(&msg);
	strbuf_release(&why);
	strbuf_release(&others);
}

/*
 * Whether `name` is one of the DLLs only a GPU build of torch has in torch\lib (c10_cuda.dll,
 * torch_cuda.dll, caffe2_nvrtc.dll, c10_hip.dll, torch_hip.dll, ...), so an extension importing it
 * next to a CPU torch was built for a CUDA (or ROCm) torch.
 */
static int has_ci(const char *s, const char *sub)
{
	size_t n = strlen(sub);
	for (; *s; s++)
		if (!str_nicmp(s, sub, n))
			return 1;
	return 0;
}

static int torch_gpu_dll(const char *name)
{
	return (str_istartswith(name, "c10_") || str_istartswith(name, "torch_") || str_istartswith(name, "caffe2_")) &&
	       (has_ci(name, "cuda") || has_ci(name, "hip") || has_ci(name, "nvrtc"));
}

static void load_failure(const struct ext_check *c, struct findings *out, const struct torch_run *run,
			 const struct ext_run *r, const struct ext_binary *b, const char *torch_version)
{
	const struct ldr_node *leaf = b->res.leaf ? b->res.leaf : b->init_failed;
	const char *lname = leaf ? (leaf->parent ? leaf->name : winpath_basename(leaf->name)) : winpath_basename(b->path);
	const char *bin = winpath_basename(b->path);
	struct strbuf msg = STRBUF_INIT;
	char *title, *fix;
	int gpu = b->res.outcome == LDR_MISSING_DLL && !r->first && torch_gpu_dll(lname) &&
		  !strlist_has_icase(&c->torch_dlls, lname);
	switch (b->res.outcome) {
	case LDR_MISSING_DLL:
		if (gpu)
			title = xasprintf("%s's %s needs %s, which only a GPU build of torch has; torch %s is installed",
					  r->name, bin, lname, torch_version ? torch_version : "without it");
		else
			title = xasprintf("%s's %s cannot load: %s is missing", r->name, bin, lname);
		break;
	case LDR_MISSING_ENTRY:
	case LDR_MISSING_ORDINAL:
		title = xasprintf("%s's %s cannot load: %s lacks %s", r->name, bin, lname,
				  b->res.symbol ? b->res.symbol : "?");
		break;
	default:
		if (b->init_module)
			title = xasprintf("%s's %s cannot load: %s fails in DllMain (WinError %d)", r->name, bin,
					  winpath_basename(b->init_module), b->winerror);
		else
			title = xasprintf("%s's %s cannot load (WinError %d, %s)", r->name, bin, b->winerror,
					  b->outcome);
		break;
	}
	strbuf_addf(&msg, "WinError %d (%s) loading %s", b->winerror, winerror_text(b->winerror), b->path);
	if (leaf && leaf->parent) {
		struct strlist ch = STRLIST_INIT;
		size_t k;
		ldr_node_chain(leaf, &ch);
		strbuf_adds(&msg, " (chain ");
		for (k = 0; k < ch.n; k++)
			strbuf_addf(&msg, "%s%s", k ? " -> " : "", ch.v[k]);
		strbuf_addch(&msg, ')');
		strlist_release(&ch);
	}
	if (b->init_module)
		strbuf_addf(&msg, ": every import resolves, then the initialisation of %s fails as it does for torch's "
				  "own binaries (a failed initialisation leaves nothing loaded, so this load runs it again)",
			    b->init_module);
	if (b->res.symbol) {
		strbuf_adds(&msg, ": missing export ");
		add_symbol(&msg, b->res.symbol);
	}
	if (r->first)
		strbuf_addf(&msg, ". %s is imported before torch (--import-first): %s.", r->name, b->effect);
	else
		strbuf_addf(&msg, ". %s.", b->effect);
	if (gpu)
		strbuf_addf(&msg, " %s is a DLL of torch's own CUDA (or ROCm) build, which torch\\lib lacks here: %s %s "
				  "was built for a GPU build of torch%s%s.",
			    lname, r->name, r->version ? r->version : "", r->torch_pin ? " " : "",
			    r->torch_pin ? r->torch_pin : "");
	fix = gpu ? xasprintf("install the GPU build of torch%s%s that %s was built for (PyTorch's CUDA wheel index), or a "
			      "%s built for torch %s",
			      r->torch_pin ? "==" : "", r->torch_pin ? r->torch_pin : "", r->name, r->name,
			      torch_version ? torch_version : "as installed")
	    : b->res.outcome == LDR_MISSING_DLL
		      ? xasprintf("install or copy %s where %s's loader looks for it (the places searched are listed), "
				  "or reinstall %s%s%s",
				  lname, r->name, r->name, r->version ? "==" : "", r->version ? r->version : "")
		      : xasprintf("reinstall %s%s%s so that its files and the DLLs it binds to come from matching "
				  "builds",
				  r->name, r->version ? "==" : "", r->version ? r->version : "");
	finding_add(out, RULE_EXTENSION_LOAD_FAILURE, r->first ? SEV_WARNING : SEV_DEFAULT,
		    &(struct finding_spec){ .winerror = b->winerror, .title = title, .message = msg.buf, .fix = fix,
					    .install = run->torch_dir, .binary = b->path, .leaf = leaf ? lname : NULL,
					    .symbol = b->res.symbol, .path = leaf ? leaf->path : NULL, .chain = leaf,
					    .probes = leaf });
	free(title);
	free(fix);
	strbuf_release(&msg);
	(void)c;
}

static void pin_warning(struct findings *out, const struct torch_run *run, const struct ext_run *r,
			const char *torch_version)
{
	char *installed = pep440_drop_local(torch_version), *title, *msg, *fix;
	const char *match;
	if (!r->torch_pin || !installed || pep440_same_public(r->torch_pin, installed)) {
		free(installed);
		return;
	}
	match = pairs_ext_for(r->name, installed);
	title = xasprintf("%s %s requires torch==%s; torch %s is installed", r->name, r->version ? r->version : "",
			  r->torch_pin, torch_version);
	msg = xasprintf("%s's METADATA (%s) requires torch==%s. Its binaries load next to torch %s here, but pip "
			"reports the conflict, and C++ code built against another torch can still fail when called.",
			r->name, r->dist_info, r->torch_pin, torch_version);
	fix = match ? xasprintf("install %s==%s (built for torch %s), or torch==%s", r->name, match, installed,
				r->torch_pin)
		    : xasprintf("install the %s release built for torch %s, or torch==%s", r->name, installed,
				r->torch_pin);
	finding_add(out, RULE_EXTENSION_TORCH_PIN, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = run->torch_dir,
					    .binary = r->dist_info });
	free(title);
	free(msg);
	free(fix);
	free(installed);
}

/* The first torch binary (load order) that imports `name` directly. */
static const struct torch_binary *first_importer(const struct torch_run *run, const char *name)
{
	size_t i, k;
	for (i = 0; i < run->nbins; i++) {
		const struct ldr_node *root = run->bins[i].res.root;
		for (k = 0; root && k < root->nkids; k++)
			if (!str_icmp(root->kids[k]->name, name))
				return &run->bins[i];
	}
	return NULL;
}

/* Whether the tree under `n` holds a module named `name` (by base name) or, with `path`, that very file. */
static int tree_has(const struct ldr_node *n, const char *name, const char *path)
{
	size_t i;
	if (!n)
		return 0;
	if (n->path && (path ? !str_icmp(n->path, path) : !str_icmp(winpath_basename(n->path), name)))
		return 1;
	for (i = 0; i < n->nkids && !n->dup; i++)
		if (tree_has(n->kids[i], name, path))
			return 1;
	return 0;
}

/* The copy is what torch's binaries bound to (a package imported first loaded it): the loader's verdict says it. */
static int copy_bound(const struct torch_run *run, const struct ext_copy *cp)
{
	size_t i;
	for (i = 0; i < run->nbins; i++)
		if (tree_has(run->bins[i].res.root, cp->name, cp->path))
			return 1;
	return 0;
}

/* The import name of the package that ships the copy (its first top-level name, else the distribution's). */
static const char *importer_of(const struct ext_check *c, const struct ext_copy *cp)
{
	size_t i;
	for (i = 0; i < c->dists.n; i++)
		if (!strcmp(c->dists.v[i].name, cp->dist))
			return c->dists.v[i].tops.n ? c->dists.v[i].tops.v[0] : cp->dist;
	return cp->dist;
}

/* The copy lacks names torch's binaries import from it (copy_exports.h): a 127 if its package comes first. */
static void exports_warning(struct findings *out, const struct torch_run *run, const struct ext_check *c,
			    const struct ext_copy *cp)
{
	const struct copy_gap *g = &cp->gap;
	const char *pkg = importer_of(c, cp), *imp = winpath_basename(g->importer);
	struct strbuf msg = STRBUF_INIT;
	char *title, *fix;
	size_t i;
	title = xasprintf("if %s is imported before torch, %s is the one loaded and lacks %s that %s imports "
			  "(WinError 127)",
			  pkg, cp->path, g->symbol, imp);
	strbuf_addf(&msg, "%s (shipped by %s %s%s%s) is a copy of a DLL torch's binaries import. If a program "
			  "imports %s before torch, that copy is already in the process when torch asks for %s, and it "
			  "is used before any search; it does not export ",
		    cp->path, cp->dist, cp->dist_version ? cp->dist_version : "",
		    cp->file_version ? ", file version " : "", cp->file_version ? cp->file_version : "", pkg, cp->name);
	add_symbol(&msg, g->symbol);
	strbuf_addf(&msg, ", which %s imports from it, so loading %s fails with WinError 127 (The specified procedure "
			  "could not be found) before any DllMain runs. It lacks %zu of the %zu names torch's binaries "
			  "import from %s",
		    imp, imp, g->nmissing, g->nimported, cp->name);
	for (i = 0; i < g->missing.n; i++)
		strbuf_addf(&msg, "%s%s", i ? "; " : ": ", g->missing.v[i]);
	if (g->nmissing > g->missing.n)
		strbuf_addf(&msg, "; and %zu more", g->nmissing - g->missing.n);
	strbuf_addf(&msg, ". `--import-first %s` checks that order.", pkg);
	fix = xasprintf("import torch before %s, or update %s (a release whose %s exports what torch imports)", pkg,
			cp->dist, cp->name);
	finding_add(out, RULE_RUNTIME_COPY_EXPORTS, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg.buf, .fix = fix, .install = run->torch_dir,
					    .binary = g->importer, .leaf = cp->name, .symbol = g->symbol,
					    .path = cp->path });
	free(title);
	free(fix);
	strbuf_release(&msg);
}

static void copy_warning(struct findings *out, const struct torch_run *run, const struct ext_check *c,
			 const struct ext_copy *cp, const char *torch_version, const struct matrix_row *row)
{
	if (cp->gap.nmissing) {
		/* a 127 comes before any DllMain: the version does not matter then. Said unless python.exe
		   loads that name itself at start-up, or the loader bound torch to the copy (its verdict says it),
		   or the package imported first left the copy out of the process */
		if (!tree_has(run->python_res.root, cp->name, NULL) && !copy_bound(run, cp) && !cp->first)
			exports_warning(out, run, c, cp);
		return;
	}
	size_t i;
	const struct dist *d = NULL;
	const struct matrix_dll *md = NULL;
	struct winver have;
	const struct torch_binary *imp;
	const char *importer;
	char *title, *msg, *fix, *wtext;
	for (i = 0; row && i < row->ndlls; i++)
		if (!str_icmp(row->dlls[i].name, cp->name) && row->dlls[i].min.set)
			md = &row->dlls[i];
	if (!md || !cp->file_version || winver_parse(&have, cp->file_version, NULL) ||
	    winver_at_least(&have, &md->min.v))
		return;
	/* python.exe loads its own copy at start-up: no package imported later can replace it */
	if (tree_has(run->python_res.root, cp->name, NULL))
		return;
	if (copy_bound(run, cp))
		return; /* the loader's findings on torch's binaries say it, with the real chain */
	imp = first_importer(run, cp->name);
	for (i = 0; i < c->dists.n; i++)
		if (!strcmp(c->dists.v[i].name, cp->dist))
			d = &c->dists.v[i];
	importer = d && d->tops.n ? d->tops.v[0] : cp->dist;
	wtext = md->winerror ? xasprintf(" (WinError %d in %s)", md->winerror,
					 imp ? winpath_basename(imp->path) : "torch's DLLs")
			     : xstrdup("");
	if (cp->first) {
		title = xasprintf("%s, imported before torch, loads %s %s; torch %s needs >= %s", importer, cp->name,
				  cp->file_version, torch_version ? torch_version : "", md->min.text);
		msg = xasprintf("%s is imported before torch (--import-first), so %s (shipped by %s %s) is in the "
				"process when torch asks for %s, and torch's binaries bind to it%s. Matrix row %s: "
				"%s.",
				importer, cp->path, cp->dist, cp->dist_version ? cp->dist_version : "", cp->name, wtext,
				row->id, md->why ? md->why : "the minimum of this DLL");
	} else {
		title = xasprintf("if %s is imported before torch, %s %s is the one loaded; torch %s needs >= %s",
				  importer, cp->name, cp->file_version, torch_version ? torch_version : "", md->min.text);
		msg = xasprintf("%s (shipped by %s %s) is a copy of a DLL torch needs. If a program imports %s before "
				"torch, that copy is already in the process when torch asks for %s, and it wins over "
				"every search: torch %s needs %s >= %s%s. Matrix row %s. `--import-first %s` checks "
				"that order.",
				cp->path, cp->dist, cp->dist_version ? cp->dist_version : "", importer, cp->name,
				torch_version ? torch_version : "", cp->name, md->min.text, wtext, row->id, importer);
	}
	fix = xasprintf("import torch before %s, or update %s (a release whose %s is >= %s)", importer, cp->dist,
			cp->name, md->min.text);
	finding_add(out, RULE_RUNTIME_COPY, cp->first ? SEV_ERROR : SEV_DEFAULT,
		    &(struct finding_spec){ .winerror = cp->first ? md->winerror : 0, .title = title, .message = msg,
					    .fix = fix, .install = run->torch_dir,
					    .binary = imp ? imp->path : NULL, .leaf = cp->name, .path = cp->path });
	free(title);
	free(msg);
	free(fix);
	free(wtext);
}

/*
 * A runtime DLL too old for torch (WinError 1114 in DllMain) that a package
 * imported first brought into the process: a newer redistributable cannot
 * help while that copy is loaded first, so the fix is the order (as a plain
 * run says), then the package's update.
 */
static void refix_first_copy(const struct ext_check *c, struct findings *out, const struct ext_copy *cp)
{
	const char *importer = NULL;
	size_t i, k;
	/* the package imported first whose binaries brought it in (PyQt5 brings PyQt5-Qt5's copy) */
	for (i = 0; i < c->nfirst && !importer; i++)
		for (k = 0; k < c->first[i]->nbins && !importer; k++)
			if (!c->first[i]->bins[k].winerror && tree_has(c->first[i]->bins[k].res.root, NULL, cp->path))
				importer = c->first[i]->module ? c->first[i]->module : c->first[i]->name;
	if (!importer)
		return;
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		char *fix;
		if (f->rule != RULE_RUNTIME_TOO_OLD || !f->winerror || !f->path || str_icmp(f->path, cp->path))
			continue;
		fix = xasprintf("import torch before %s (torch's binaries then bind the %s they need first), or update "
				"%s (a release whose %s is new enough); a newer VC++ redistributable cannot help while "
				"%s's copy is loaded first",
				importer, cp->name, cp->dist, cp->name, importer);
		finding_set(&f->fix, fix);
		free(fix);
	}
}

/* A limit reached is said, never a pass: what was not loaded may fail. */
static void not_checked(const struct ext_check *c, struct findings *out, const struct torch_run *run)
{
	char *title, *msg;
	if (c->ext_over) {
		title = xasprintf("%zu extensions beyond the first %d were not checked", c->ext_over, EXT_MAX_EXTENSIONS);
		msg = xasprintf("%s holds more than %d distributions whose binaries import torch's; the checker loads at "
				"most %d, so %zu were not loaded and any of them may fail to import.",
				c->site_packages ? c->site_packages : "The site-packages", EXT_MAX_EXTENSIONS,
				EXT_MAX_EXTENSIONS, c->ext_over);
		finding_add(out, RULE_NOT_CHECKED, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg, .install = run->torch_dir,
						    .path = c->site_packages });
		free(title);
		free(msg);
	}
	if (c->have_dists && c->dists.over) {
		title = xasprintf("%zu .dist-info folders beyond the first %d were not read", c->dists.over, DIST_SET_MAX);
		msg = xasprintf("%s holds more than %d .dist-info folders; %zu were not read, so their extensions, "
				"RECORDs and copies of torch's DLLs were not checked.",
				c->dists.site_packages, DIST_SET_MAX, c->dists.over);
		finding_add(out, RULE_NOT_CHECKED, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg, .install = run->torch_dir,
						    .path = c->dists.site_packages });
		free(title);
		free(msg);
	}
	if (c->have_dists && c->dists.bare_over) {
		title = xasprintf("%zu package folders without a .dist-info beyond the first %d were not read",
				  c->dists.bare_over, DIST_BARE_MAX);
		msg = xasprintf("%s holds more than %d package folders with native binaries that pip did not install "
				"(no .dist-info names them); %zu were not read, so their copies of torch's DLLs were not "
				"checked.",
				c->dists.site_packages, DIST_BARE_MAX, c->dists.bare_over);
		finding_add(out, RULE_NOT_CHECKED, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg, .install = run->torch_dir,
						    .path = c->dists.site_packages });
		free(title);
		free(msg);
	}
}

/*
 * Whether the load tree `n` maps a module of `failed` (Windows paths); adds
 * every module whose load does, so that a tree meeting one through the
 * loaded-module list (a node without children) counts too (as torchload.c's
 * torch_run_init_failed). *hit gets the first node of `failed` met.
 */
static int maps_failed(const struct ldr_node *n, struct strlist *failed, const struct ldr_node **hit, int depth)
{
	size_t i;
	int r = 0;
	if (!n || n->delay || !n->path || depth > 4096)
		return 0;
	if (strlist_has_icase(failed, n->path)) {
		if (hit && !*hit)
			*hit = n;
		return 1;
	}
	for (i = 0; i < n->nkids; i++)
		r |= maps_failed(n->kids[i], failed, hit, depth + 1);
	if (r)
		strlist_push(failed, n->path);
	return r;
}

/*
 * A DllMain that fails (judge/dllmain.c marked torch's binaries) fails every
 * later load that maps that module again: a load whose initialisation fails
 * is undone, so the module is not kept in the process and the next load
 * runs its DllMain again (docs/loader.md §5.4). An extension binary that
 * otherwise loads and whose tree maps the failed module (or a torch module
 * whose failed load mapped it) gets the same WinError.
 */
static void ext_init_failed(struct ext_check *c, const struct torch_run *run)
{
	struct strlist seen = STRLIST_INIT;
	size_t i, k, j;
	for (j = 0; j < run->nbins; j++) {
		const struct torch_binary *tb = &run->bins[j];
		struct strlist failed = STRLIST_INIT;
		/* once per failing module: every torch binary it stops names the same one */
		if (!tb->init_module || strcmp(tb->outcome, "init-failed") || strlist_has_icase(&seen, tb->init_module))
			continue;
		strlist_push(&seen, tb->init_module);
		strlist_push(&failed, tb->init_module);
		for (i = 0; i < run->nbins; i++)
			maps_failed(run->bins[i].res.root, &failed, NULL, 0);
		for (i = 0; i < c->nexts; i++) {
			struct ext_run *r = c->exts[i];
			for (k = 0; k < r->nbins; k++) {
				struct ext_binary *b = &r->bins[k];
				const struct ldr_node *hit = NULL;
				if (b->winerror || strcmp(b->outcome, "loads") || b->res.order_dependent ||
				    !maps_failed(b->res.root, &failed, &hit, 0))
					continue;
				b->winerror = tb->winerror;
				b->outcome = "init-failed";
				b->init_module = xstrdup(tb->init_module);
				b->init_failed = hit;
				r->nfail++;
			}
		}
		strlist_release(&failed);
	}
	strlist_release(&seen);
}

void ext_check_findings(struct ext_check *c, struct findings *out, const struct torch_run *run,
			const char *torch_version, const struct matrix_row *row)
{
	size_t i, k;
	ext_init_failed(c, run);
	for (i = 0; i < c->nfirst; i++)
		for (k = 0; k < c->first[i]->nbins; k++)
			if (c->first[i]->bins[k].res.order_dependent)
				loader_order_finding(out, run->torch_dir, c->first[i]->bins[k].path,
						     &c->first[i]->bins[k].res, NULL);
			else if (c->first[i]->bins[k].winerror)
				load_failure(c, out, run, c->first[i], &c->first[i]->bins[k], torch_version);
	for (i = 0; i < c->nexts; i++) {
		const struct ext_run *r = c->exts[i];
		int mismatch = 0;
		for (k = 0; k < r->nbins; k++) {
			const struct ext_binary *b = &r->bins[k];
			if (b->res.order_dependent)
				loader_order_finding(out, run->torch_dir, b->path, &b->res, NULL);
			if (!b->winerror || b->res.order_dependent)
				continue;
			if (torch_symbol_failure(c, b))
				mismatch = 1;
			else
				load_failure(c, out, run, r, b, torch_version);
		}
		if (mismatch)
			mismatch_finding(c, out, run, r, torch_version);
		else
			pin_warning(out, run, r, torch_version);
	}
	for (i = 0; i < c->ncopies; i++)
		copy_warning(out, run, c, &c->copies[i], torch_version, row);
	for (i = 0; i < c->ncopies; i++)
		refix_first_copy(c, out, &c->copies[i]);
	not_checked(c, out, run);
}
