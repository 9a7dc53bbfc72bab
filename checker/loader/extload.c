/*
 * extload: one distribution's import in torch's process (extload.h; the
 * procedures and their sources are in docs/loader.md, "Extensions and
 * packages imported first").
 */
#include "loader/extload.h"

#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"
#include "pe/peek.h"
#include "util/os.h"

const char *ext_how_name(enum ext_how h)
{
	switch (h) {
	case EXT_HOW_CTYPES: return "ctypes";
	case EXT_HOW_LAZY: return "lazy";
	case EXT_HOW_IMPORT: break;
	}
	return "import";
}

void ext_proc_init(struct ext_proc *p)
{
	memset(p, 0, sizeof(*p));
	strlist_init(&p->dll_dirs);
	strlist_init(&p->path_python);
	strlist_init(&p->path_has);
}

void ext_proc_release(struct ext_proc *p)
{
	size_t i;
	for (i = 0; i < p->nloads; i++) {
		free(p->loads[i].module);
		free(p->loads[i].file);
		free(p->loads[i].fails);
	}
	free(p->loads);
	free(p->package);
	free(p->folder);
	free(p->path_by);
	free(p->path_file);
	free(p->find_by);
	free(p->find_file);
	free(p->find_in);
	free(p->needs);
	free(p->without);
	strlist_release(&p->dll_dirs);
	strlist_release(&p->path_python);
	strlist_release(&p->path_has);
	ext_proc_init(p);
}

void ext_run_free(struct ext_run *r)
{
	size_t i;
	if (!r)
		return;
	for (i = 0; i < r->nbins; i++) {
		free(r->bins[i].path);
		free(r->bins[i].init_module);
		ldr_result_release(&r->bins[i].res);
	}
	free(r->bins);
	free(r->name);
	free(r->version);
	free(r->dist_info);
	free(r->torch_pin);
	free(r->torch_spec);
	free(r->package_dir);
	free(r->module);
	free(r->procedure);
	free(r->path_prefix);
	strlist_release(&r->dll_dirs);
	strlist_release(&r->notes);
	free(r);
}

void extload_torch_dlls(const struct torch_run *run, struct strlist *out)
{
	size_t i;
	for (i = 0; i < run->nbins; i++) {
		const char *b = winpath_basename(run->bins[i].path);
		if (run->bins[i].is_pyd)
			continue;
		if (str_istartswith(b, "c10") || str_istartswith(b, "torch") || str_istartswith(b, "caffe2") ||
		    !str_icmp(b, "shm.dll"))
			strlist_push(out, b);
	}
}

int extload_imports_any(struct view *v, const char *win_path, const struct strlist *names, const char **which)
{
	char *host = view_host_path(v, win_path);
	int r = host ? extload_imports_any_host(host, names, which) : -1;
	free(host);
	return r;
}

static int peek_hit(void *ctx, const char *dll, int delay)
{
	(void)delay;
	return strlist_find_icase(ctx, dll) != NULL;
}

int extload_imports_any_host(const char *host, const struct strlist *names, const char **which)
{
	struct pe_image *img = NULL;
	size_t i;
	int hit = 0;
	if (which)
		*which = NULL;
	/*
	 * Most binaries of an environment import none of torch's DLLs: a peek at
	 * their import names (a few reads, no mapping: pe/peek.h) says so. A hit,
	 * or anything the peek does not follow, is answered by pe_open.
	 */
	if (pe_peek_imports(host, PE_IMPORTS | PE_DELAY_IMPORTS, peek_hit, (void *)names) == 0)
		return 0;
	if (pe_open(&img, host, PE_IMPORTS | PE_DELAY_IMPORTS | PE_LENIENT, NULL))
		return -1;
	for (i = 0; i < img->nimports && !hit; i++) {
		const char *w = strlist_find_icase(names, img->imports[i].dll);
		if (w) {
			hit = 1;
			if (which)
				*which = w;
		}
	}
	for (i = 0; i < img->ndelay_imports && !hit; i++) {
		const char *w = strlist_find_icase(names, img->delay_imports[i].dll);
		if (w) {
			hit = 1;
			if (which)
				*which = w;
		}
	}
	pe_close(img);
	return hit;
}

/* ---- the steps -------------------------------------------------------------------- */

/*
 * Whether CPython would import file `name` as an extension module: it ends
 * in one of EXTENSION_SUFFIXES (case-insensitively, as FileFinder's cache
 * on Windows) and what is before the suffix holds no '.'.
 */
static int importable(const struct torch_run *run, const char *name)
{
	size_t i, n = strlen(name);
	for (i = 0; i < run->ext_suffixes.n; i++) {
		const char *suf = run->ext_suffixes.v[i];
		size_t sn = strlen(suf);
		if (n > sn && !str_icmp(name + n - sn, suf) && !memchr(name, '.', n - sn))
			return 1;
	}
	return 0;
}

/* importlib.machinery.FileFinder(dir).find_spec(module): the first suffix in EXTENSION_SUFFIXES order. */
static char *find_spec(struct view *v, const struct torch_run *run, const char *dir, const char *module)
{
	size_t i;
	for (i = 0; i < run->ext_suffixes.n; i++) {
		char *name = xasprintf("%s%s", module, run->ext_suffixes.v[i]);
		char *p = winpath_join(dir, name);
		free(name);
		if (view_is_file(v, p))
			return p;
		free(p);
	}
	return NULL;
}

static struct ext_binary *find_bin(struct ext_run *r, const char *path)
{
	size_t i;
	for (i = 0; i < r->nbins; i++)
		if (!str_icmp(r->bins[i].path, path))
			return &r->bins[i];
	return NULL;
}

static struct ext_binary *add_bin(struct ext_run *r, const char *path, enum ext_how how, int raises, const char *effect)
{
	struct ext_binary *b;
	ALLOC_GROW(r->bins, r->nbins + 1, r->abins);
	b = &r->bins[r->nbins++];
	memset(b, 0, sizeof(*b));
	b->path = xstrdup(path);
	b->how = how;
	b->raises = raises;
	b->effect = effect;
	b->outcome = how == EXT_HOW_LAZY ? "not-loaded" : "loads";
	return b;
}

/* LoadLibraryExW(path, NULL, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS | LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR). */
static void load_bin(struct loader *ld, struct ext_run *r, struct ext_binary *b)
{
	b->flags = LDR_SEARCH_DEFAULT_DIRS | LDR_SEARCH_DLL_LOAD_DIR;
	loader_load(ld, b->path, b->flags, &b->res, NULL);
	b->winerror = b->res.winerror;
	/* two AddDllDirectory folders, an order Windows leaves unspecified: no
	   verdict either way (docs/loader.md §5.3), as for torch's binaries */
	if (b->res.order_dependent)
		b->outcome = "order-dependent";
	else {
		b->outcome = ldr_outcome_name(b->res.outcome);
		if (b->winerror)
			r->nfail++;
	}
}

static void add_dll_directory(struct loader *ld, struct ext_run *r, const char *dir)
{
	char *why;
	if (strlist_find_icase(&r->dll_dirs, dir))
		return;
	strlist_push(&r->dll_dirs, dir);
	loader_add_dll_directory(ld, dir);
	why = xasprintf("added by %s with os.add_dll_directory", r->name);
	loader_label_user_dirs(ld, why);
	free(why);
}

static const char *effect_import(void)
{
	return "importing the module raises ImportError: DLL load failed";
}

/* A dotted module under `base` ("lib._torchaudio"): its folder (*dir, allocated) and its last name (in `module`). */
static const char *module_dir(const char *base, const char *module, char **dir)
{
	const char *s = module, *dot;
	*dir = xstrdup(base);
	while ((dot = strchr(s, '.'))) {
		char *part = xstrndup(s, (size_t)(dot - s));
		char *next = winpath_join(*dir, part);
		free(part);
		free(*dir);
		*dir = next;
		s = dot + 1;
	}
	return s;
}

/*
 * `--import-first PKG.mod.sub`: the file CPython imports for that module
 * (extload.h), found in the view. 0 with *file (NULL for pure Python, then
 * *pure names the .py); -1 with err listing where it looked.
 */
static int module_file(struct view *v, const struct torch_run *run, const char *site_packages, const char *module,
		       char **file, char **pure, struct err *err)
{
	char *dir, *sub, *pkg, *p;
	*file = *pure = NULL;
	sub = xstrdup(module_dir(site_packages, module, &dir));
	pkg = winpath_join(dir, sub);
	*file = find_spec(v, run, dir, sub);
	if (!*file)
		*file = find_spec(v, run, pkg, "__init__");
	if (!*file) {
		p = xasprintf("%s.py", sub);
		*pure = winpath_join(dir, p);
		free(p);
		if (!view_is_file(v, *pure)) {
			free(*pure);
			*pure = winpath_join(pkg, "__init__.py");
			if (!view_is_file(v, *pure)) {
				free(*pure);
				*pure = NULL;
			}
		}
	}
	if (!*file && !*pure)
		err_set(err, "no module %s: none of %s\\%s%s (each of EXTENSION_SUFFIXES), %s\\__init__%s, %s.py, "
			     "%s\\__init__.py exists",
			module, dir, sub, run->ext_suffixes.n ? run->ext_suffixes.v[0] : ".pyd", pkg,
			run->ext_suffixes.n ? run->ext_suffixes.v[0] : ".pyd", pkg, pkg);
	free(dir);
	free(sub);
	free(pkg);
	return *file || *pure ? 0 : -1;
}

struct path_at {
	const char *p;
	size_t i;
};

static int cmp_path_at(const void *a, const void *b)
{
	const struct path_at *x = a, *y = b;
	int c = str_icmp(x->p, y->p);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/*
 * For each path of `l`, the index of its first copy in `l`
 * (case-insensitively): one sort, where looking each one up among the
 * binaries added so far (find_bin) made N binaries cost N^2 (4,000 failing
 * binaries in separate folders: 8-19 s). Caller frees.
 */
static size_t *first_copies(const struct strlist *l)
{
	struct path_at *x = xcalloc(l->n ? l->n : 1, sizeof(*x));
	size_t *first = xcalloc(l->n ? l->n : 1, sizeof(*first)), i, g = 0;
	for (i = 0; i < l->n; i++) {
		x[i].p = l->v[i];
		x[i].i = i;
	}
	qsort(x, l->n, sizeof(*x), cmp_path_at);
	for (i = 0; i < l->n; i++) {
		if (!i || str_icmp(x[i].p, x[i - 1].p))
			g = x[i].i;
		first[x[i].i] = g;
	}
	free(x);
	return first;
}

/* Whether `path` is one of the first n binaries of r. */
static int in_first_bins(const struct ext_run *r, size_t n, const char *path)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!str_icmp(r->bins[i].path, path))
			return 1;
	return 0;
}

/*
 * Every importable extension module of the distribution, imported in RECORD
 * order (or only r->module's). A module the procedure loaded already (the
 * few before the loop), or an earlier row of the same path, is not again.
 */
static void import_all(struct loader *ld, struct view *v, const struct torch_run *run, struct ext_run *r,
		       const struct dist *d)
{
	size_t i, nb0 = r->nbins, *first;
	char *added;
	if (r->module)
		return; /* extload_run imports that one module after the package's procedure */
	first = first_copies(&d->binaries);
	added = xcalloc(d->binaries.n ? d->binaries.n : 1, 1);
	for (i = 0; i < d->binaries.n; i++) {
		const char *p = d->binaries.v[i], *base = winpath_basename(p);
		if (!str_iendswith(p, ".pyd") || added[first[i]] || in_first_bins(r, nb0, p))
			continue;
		if (!importable(run, base)) {
			r->nskipped++;
			continue;
		}
		added[first[i]] = 1;
		load_bin(ld, r, add_bin(r, p, EXT_HOW_IMPORT, 1, effect_import()));
	}
	free(first);
	free(added);
}

/* The .pyd files the procedure does not load at import: listed as lazy, not checked. */
static void rest_lazy(struct ext_run *r, const struct dist *d)
{
	size_t i, nb0 = r->nbins, *first = first_copies(&d->binaries);
	char *added = xcalloc(d->binaries.n ? d->binaries.n : 1, 1);
	for (i = 0; i < d->binaries.n; i++)
		if (str_iendswith(d->binaries.v[i], ".pyd") && !added[first[i]] && !in_first_bins(r, nb0, d->binaries.v[i])) {
			added[first[i]] = 1;
			add_bin(r, d->binaries.v[i], EXT_HOW_LAZY, 0, "loaded on first use, not by the import: not checked");
		}
	free(first);
	free(added);
}

/* Python MAJOR.MINOR `want` ("3.8") is the interpreter's (python_tag "cp38", "cp38d"...; not "cp381"). */
static int python_is(const struct torch_run *run, const char *want)
{
	const char *t = run->python_tag, *dot = strchr(want, '.');
	size_t nmaj, nmin;
	if (!t || !dot || strncmp(t, "cp", 2))
		return 0;
	nmaj = (size_t)(dot - want);
	nmin = strlen(dot + 1);
	t += 2;
	return !strncmp(t, want, nmaj) && !strncmp(t + nmaj, dot + 1, nmin) &&
	       !(t[nmaj + nmin] >= '0' && t[nmaj + nmin] <= '9');
}

/*
 * Whether the installed file (relative to the package folder) has every text
 * of the call (torchaudio 2.4.1's _extension/__init__.py: `if os.name == "nt"
 * and (3, 8) <= sys.version_info < (3, 9):` `_init_dll_path()`): read, not
 * guessed by version.
 */
static int file_has_all(struct view *v, const char *package_dir, const char *rel, const struct strlist *texts)
{
	char *path = winpath_join(package_dir, rel);
	char *host = view_host_path(v, path);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int yes = 0;
	if (host && os_read_small_file(host, 1 << 20, &sb, NULL) == 0)
		for (yes = 1, i = 0; i < texts->n && yes; i++)
			yes = strstr(sb.buf, texts->v[i]) != NULL;
	strbuf_release(&sb);
	free(host);
	free(path);
	return yes;
}

/*
 * path_folders (torchaudio's _extension/utils.py _init_dll_path: `for path in
 * os.environ.get("PATH", "").split(";"): if os.path.exists(path):
 * os.add_dll_directory(path)`, failures passed over). The PATH is the one
 * torch left. An entry that is not an absolute folder is passed over:
 * AddDllDirectory refuses a relative path, and a missing one fails
 * os.path.exists. Both calls see the entry through Win32 normalisation
 * (docs/loader.md §5.1): `C:\x\p_space ` and `C:\x\p_dot.` are the folders
 * p_space and p_dot.
 */
static void path_folders(struct loader *ld, struct view *v, struct ext_run *r, const char *by, const char *python)
{
	const char *path = view_getenv(v, "PATH");
	size_t n = 0;
	char *why;
	while (path && *path) {
		const char *semi = strchr(path, ';');
		char *entry = semi ? xstrndup(path, (size_t)(semi - path)) : xstrdup(path);
		/* normalised first: os.path.exists and AddDllDirectory both see the entry
		   on its own, its last segment without trailing spaces and periods
		   (`C:\x\p_space ` is `C:\x\p_space`, ldr_win32_folder) */
		char *w = entry[0] && winpath_is_absolute(entry) ? ldr_win32_folder(entry) : NULL;
		if (w && view_is_dir(v, w)) {
			char *dir = winpath_normalize(w);
			if (!strlist_find_icase(&r->dll_dirs, dir)) {
				strlist_push(&r->dll_dirs, dir);
				loader_add_dll_directory(ld, dir);
				n++;
			}
			free(dir);
		}
		free(w);
		free(entry);
		path = semi ? semi + 1 : NULL;
	}
	why = xasprintf("a PATH entry added by %s (Python %s) with os.add_dll_directory", by, python);
	loader_label_user_dirs(ld, why);
	free(why);
	strlist_pushf(&r->notes, "Python %s: %s added %zu PATH folder%s with os.add_dll_directory before loading its "
				 "libraries",
		      python, by, n, n == 1 ? "" : "s");
}

static void find_folder(struct loader *ld, struct view *v, const struct torch_run *run, struct ext_run *r,
			const struct ext_proc *p);

/* FileFinder's find_spec of a dotted module of the package, or NULL. */
static char *find_module(struct view *v, const struct torch_run *run, const char *package_dir, const char *module)
{
	char *dir, *p;
	const char *name = module_dir(package_dir, module, &dir);
	p = find_spec(v, run, dir, name);
	free(dir);
	return p;
}

/*
 * An `extension_load` entry's procedure (extload.h, in its order): its
 * folders, the folder it finds, the PATH folders when the call runs, the
 * module it needs, its loads; the others imported or lazy.
 */
static void proc_table(struct loader *ld, struct view *v, const struct torch_run *run, struct ext_run *r,
		       const struct dist *d, const struct ext_proc *p)
{
	size_t i;
	for (i = 0; i < p->dll_dirs.n; i++) {
		char *dir = strcmp(p->dll_dirs.v[i], ".") ? winpath_join(r->package_dir, p->dll_dirs.v[i])
							  : xstrdup(r->package_dir);
		add_dll_directory(ld, r, dir);
		free(dir);
	}
	if (p->find_by && p->find_file && p->find_in)
		find_folder(ld, v, run, r, p);
	for (i = 0; p->path_by && p->path_file && i < p->path_python.n; i++)
		if (python_is(run, p->path_python.v[i])) {
			if (file_has_all(v, r->package_dir, p->path_file, &p->path_has))
				path_folders(ld, v, r, p->path_by, p->path_python.v[i]);
			break;
		}
	if (p->needs) {
		char *spec = find_module(v, run, r->package_dir, p->needs);
		int found = spec != NULL;
		free(spec);
		if (!found) {
			char *dir;
			const char *name = module_dir(r->package_dir, p->needs, &dir);
			strlist_pushf(&r->notes, "%s\\%s has no extension module for this Python: %s", dir, name,
				      p->without ? p->without : "it loads no binary at import");
			free(dir);
			goto others;
		}
	}
	for (i = 0; i < p->nloads; i++) {
		const struct ext_load *l = &p->loads[i];
		char *path = NULL;
		if (l->module) {
			path = find_module(v, run, r->package_dir, l->module);
		} else if (l->file) {
			path = winpath_join(r->package_dir, l->file);
			/* `absent`: the package passes the full path whether or not the file is
			   there (torch-directml's torch.ops.load_library(directml_dll)), so an
			   absent file is its own WinError 126 */
			if (!l->absent && !view_is_file(v, path)) {
				free(path);
				path = NULL;
			}
		}
		if (path && !find_bin(r, path))
			load_bin(ld, r, add_bin(r, path, l->how, l->raises, l->fails));
		free(path);
	}
others:
	if (p->import_others)
		import_all(ld, v, run, r, d);
	else
		rest_lazy(r, d);
}

/*
 * `find` (PyQt5's and PyQt6's __init__.py, find_qt()): the folder holding
 * `file` — python.exe's, else the package's `in` folder (then prepended to
 * PATH too), else the first absolute PATH entry that has it — added with
 * os.add_dll_directory; none: said in the notes.
 */
static void find_folder(struct loader *ld, struct view *v, const struct torch_run *run, struct ext_run *r,
			const struct ext_proc *p)
{
	char *dll_dir = NULL, *probe;
	if (run->python_exe) {
		char *exe_dir = winpath_dirname(run->python_exe);
		probe = winpath_join(exe_dir, p->find_file);
		if (view_is_file(v, probe))
			dll_dir = exe_dir;
		else
			free(exe_dir);
		free(probe);
	}
	if (!dll_dir) {
		char *bin = winpath_join(r->package_dir, p->find_in);
		probe = winpath_join(bin, p->find_file);
		if (view_is_file(v, probe)) {
			const char *path = view_getenv(v, "PATH");
			char *np = xasprintf("%s;%s", bin, path ? path : "");
			view_setenv(v, "PATH", np);
			free(np);
			r->path_prefix = xstrdup(bin);
			dll_dir = bin;
		} else {
			const char *path = view_getenv(v, "PATH");
			free(bin);
			while (path && *path && !dll_dir) {
				const char *semi = strchr(path, ';');
				char *entry = semi ? xstrndup(path, (size_t)(semi - path)) : xstrdup(path);
				char *q = entry[0] ? winpath_join(entry, p->find_file) : NULL;
				if (q && winpath_is_absolute(entry) && view_is_file(v, q))
					dll_dir = winpath_normalize(entry);
				free(q);
				free(entry);
				path = semi ? semi + 1 : NULL;
			}
		}
		free(probe);
	}
	if (dll_dir)
		add_dll_directory(ld, r, dll_dir);
	else
		strlist_pushf(&r->notes, "%s found no %s (next to python.exe, in %s\\%s, or on PATH): it added no folder",
			      p->find_by, p->find_file, winpath_basename(r->package_dir), p->find_in);
	free(dll_dir);
}

static char *package_dir_of(const char *site_packages, const char *name)
{
	return winpath_join(site_packages, name);
}

int extload_run(struct ext_run **out, struct loader *ld, struct view *v, const struct torch_run *run,
		const struct dist *d, const struct ext_proc *proc, const char *site_packages, int first,
		const char *module, struct err *err)
{
	struct ext_run *r;
	char *mod_file = NULL, *mod_pure = NULL;
	size_t i;
	*out = NULL;
	if (module && module_file(v, run, site_packages, module, &mod_file, &mod_pure, err))
		return -1;
	r = xcalloc(1, sizeof(*r));
	r->module = module ? xstrdup(module) : NULL;
	r->name = xstrdup(d->name);
	r->version = d->version ? xstrdup(d->version) : NULL;
	r->dist_info = xstrdup(d->dist_info);
	r->first = first;
	r->has_record = d->has_record;
	for (i = 0; i < d->meta.nrequires; i++) {
		const struct dist_require *q = &d->meta.requires[i];
		if (!dist_name_eq(q->name, "torch") || (q->marker && strstr(q->marker, "extra")))
			continue;
		free(r->torch_pin);
		free(r->torch_spec);
		r->torch_pin = dist_require_exact(q);
		r->torch_spec = r->torch_pin ? NULL : xstrdup(q->spec ? q->spec : "");
	}
	strlist_copy(&r->notes, &d->notes);
	if (d->scan_note)
		strlist_push(&r->notes, d->scan_note);
	if (proc) {
		r->procedure = xstrdup(proc->package);
		r->package_dir = package_dir_of(site_packages, proc->folder ? proc->folder : proc->package);
		proc_table(ld, v, run, r, d, proc);
	} else {
		r->procedure = xstrdup("cpython");
		strlist_pushf(&r->notes, "no DLL folders are known for %s: its extension modules were imported with "
					 "CPython's search only (their own folder, python.exe's, the added DLL "
					 "directories, System32)",
			      d->name);
		import_all(ld, v, run, r, d);
	}
	if (module) {
		/* the package's procedure ran (its __init__); now the one module asked for */
		if (mod_file && !find_bin(r, mod_file))
			load_bin(ld, r, add_bin(r, mod_file, EXT_HOW_IMPORT, 1, effect_import()));
		else if (!mod_file)
			strlist_pushf(&r->notes, "%s is pure Python (%s): importing it loads no binary of its own", module,
				      mod_pure);
		/* only what was loaded: the rest of the distribution is not imported first */
		for (i = 0; i < r->nbins;) {
			if (r->bins[i].how == EXT_HOW_LAZY) {
				free(r->bins[i].path);
				ldr_result_release(&r->bins[i].res);
				memmove(&r->bins[i], &r->bins[i + 1], (r->nbins - i - 1) * sizeof(r->bins[0]));
				r->nbins--;
			} else {
				i++;
			}
		}
	}
	free(mod_file);
	free(mod_pure);
	loader_trim(ld); /* once per package: its loads share most images */
	if (r->nskipped)
		strlist_pushf(&r->notes, "%zu .pyd file%s for another Python (not in EXTENSION_SUFFIXES) not imported",
			      r->nskipped, r->nskipped == 1 ? "" : "s");
	(void)err;
	*out = r;
	return 0;
}
