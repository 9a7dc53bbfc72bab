/*
 * torchload: `import torch` on Windows, binary by binary, on an emulated
 * process (loader.c).
 *
 * The procedure — torch's _load_dll_libraries, Python's glob, CPython's
 * FileFinder, EXTENSION_SUFFIXES and dynload_win.c — is written once, with
 * its sources, in docs/loader.md (sections 1-4). torch_run() performs its
 * numbered steps, one function each: 0 load_interpreter, 1
 * compute_dll_paths, 2 add_dll_directories, 3 probe_vc_runtime, 4
 * load_torch_lib_dlls, 5 import_extension_modules. torch stops at the first
 * failure; we go on so every binary gets a verdict, as if the failed one
 * had been skipped (a failed load leaves nothing loaded), and record the
 * first failure as the import error.
 */
#include "loader/torchload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/os.h"

const char *winerror_text(int winerror)
{
	switch (winerror) {
	case 0: return "The operation completed successfully.";
	case 5: return "Access is denied.";
	case 87: return "The parameter is incorrect.";
	case 126: return "The specified module could not be found.";
	case 127: return "The specified procedure could not be found.";
	case 182: return "The operating system cannot run %1.";
	case 193: return "%1 is not a valid Win32 application.";
	case 1114: return "A dynamic link library (DLL) initialization routine failed.";
	}
	return "Unknown error.";
}

const char *torch_stage_name(enum torch_stage s)
{
	switch (s) {
	case TORCH_STAGE_ADD_DLL_DIRECTORY: return "add_dll_directory";
	case TORCH_STAGE_PATH_FALLBACK: return "path_fallback";
	case TORCH_STAGE_CPYTHON: return "cpython";
	case TORCH_STAGE_PRELOAD: return "package_preload";
	}
	return "?";
}

void torch_run_free(struct torch_run *run)
{
	size_t i;
	if (!run)
		return;
	for (i = 0; i < run->nbins; i++) {
		free(run->bins[i].path);
		free(run->bins[i].init_module);
		ldr_result_release(&run->bins[i].res);
		ldr_result_release(&run->bins[i].first);
	}
	free(run->bins);
	for (i = 0; i < 3; i++)
		ldr_result_release(&run->vc[i].res);
	ldr_result_release(&run->python_res);
	strlist_release(&run->dll_paths);
	free(run->torch_dir);
	free(run->python_exe);
	free(run->app_dir);
	free(run->launcher_what);
	free(run->dll_directory);
	free(run->exec_prefix);
	free(run->base_exec_prefix);
	free(run->userbase);
	free(run->cuda_version);
	free(run->torch_version);
	free(run->import_error_text);
	free(run->saved_path);
	free(run->cfg_version);
	free(run->python_tag);
	strlist_release(&run->ext_suffixes);
	if (run->preload_ran)
		pkg_preload_run_release(&run->preload);
	loader_free(run->ld);
	free(run);
}

static char *trim(char *s)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* The value of `key = value` in pyvenv.cfg, or NULL. */
static char *cfg_value(const char *text, const char *key)
{
	const char *line = text;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		char *l = nl ? xstrndup(line, (size_t)(nl - line)) : xstrdup(line);
		char *eq = strchr(l, '=');
		if (eq) {
			*eq = '\0';
			if (!str_icmp(trim(l), key)) {
				char *v = xstrdup(trim(eq + 1));
				free(l);
				return v;
			}
		}
		free(l);
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/*
 * A string of torch\version.py: `cuda = '12.1'` (or `cuda: Optional[str] =
 * '12.1'`), `__version__ = '2.3.0+cpu'`; NULL when absent or not a string.
 */
static char *read_version_py(struct view *v, const char *torch_dir, const char *key)
{
	size_t kl = strlen(key);
	char *p = winpath_join(torch_dir, "version.py");
	struct strbuf sb = STRBUF_INIT;
	char *res = NULL;
	if (view_read_small(v, p, 1 << 20, &sb) == 0) {
		const char *line = strbuf_str(&sb);
		while (line && *line && !res) {
			const char *nl = strchr(line, '\n');
			if (!strncmp(line, key, kl) && (line[kl] == ' ' || line[kl] == '=' || line[kl] == ':')) {
				const char *eq = strchr(line, '=');
				const char *end = nl ? nl : line + strlen(line);
				if (eq && eq < end) {
					const char *q = eq + 1;
					while (q < end && (*q == ' '))
						q++;
					if (q < end && (*q == '\'' || *q == '"')) {
						const char *qe = memchr(q + 1, *q, (size_t)(end - q - 1));
						if (qe)
							res = xstrndup(q + 1, (size_t)(qe - q - 1));
					}
				}
			}
			line = nl ? nl + 1 : NULL;
		}
	}
	strbuf_release(&sb);
	free(p);
	return res;
}

static void add_if_dir(struct view *v, struct strlist *l, const char *dir)
{
	char *n;
	if (!dir || !*dir)
		return;
	/*
	 * os.path.exists and AddDllDirectory see the folder through Win32
	 * normalisation (C:\x\ub.\Library\bin is C:\x\ub\Library\bin); torch
	 * keeps the string as it built it, for dll_paths and for PATH.
	 */
	char *w = ldr_win32_folder(dir);
	n = winpath_normalize(dir);
	if (view_is_dir(v, w))
		strlist_push_owned(l, n);
	else
		free(n);
	free(w);
}

static int dirs_have(struct view *v, const struct strlist *dirs, const char *name, int prefix_glob)
{
	size_t i, k;
	for (i = 0; i < dirs->n; i++) {
		if (!prefix_glob) {
			/* os.path.exists: a folder of that name counts too */
			char *p = winpath_join(dirs->v[i], name);
			int hit = view_is_file(v, p) || view_is_dir(v, p);
			free(p);
			if (hit)
				return 1;
		} else {
			/* glob: folders match too, names starting with '.' never start with `name` */
			struct strlist names = STRLIST_INIT;
			int hit = 0;
			if (view_list_dir(v, dirs->v[i], &names, NULL) == 0)
				for (k = 0; k < names.n && !hit; k++)
					hit = str_istartswith(names.v[k], name) && str_iendswith(names.v[k], ".dll");
			strlist_release(&names);
			if (hit)
				return 1;
		}
	}
	return 0;
}

/* One folder of the procedure's dll_paths, if it exists (a prefix's only when the run knows it). */
static void add_folder(struct torch_run *run, struct view *v, enum torch_folder f, const char *lib)
{
	char *p = NULL;
	switch (f) {
	case TORCH_FOLDER_LIB:
		p = xstrdup(lib);
		break;
	case TORCH_FOLDER_PREFIX:
		if (run->exec_prefix)
			p = xasprintf("%s\\Library\\bin", run->exec_prefix);
		break;
	case TORCH_FOLDER_BASE_PREFIX: /* sys.base_exec_prefix != sys.exec_prefix: a venv */
		if (run->base_exec_prefix && run->exec_prefix && str_icmp(run->base_exec_prefix, run->exec_prefix))
			p = xasprintf("%s\\Library\\bin", run->base_exec_prefix);
		break;
	case TORCH_FOLDER_USERBASE: /* 2.3.1 and later */
		if (run->userbase)
			p = xasprintf("%s\\Library\\bin", run->userbase);
		break;
	case TORCH_FOLDER_PREFIX_BIN: /* 2.8.0 and later: sys.exec_prefix\bin */
		if (run->exec_prefix)
			p = xasprintf("%s\\bin", run->exec_prefix);
		break;
	case TORCH_FOLDER_COUNT:
		break;
	}
	add_if_dir(v, &run->dll_paths, p);
	free(p);
}

static void compute_dll_paths(struct torch_run *run, struct view *v)
{
	const char *pf = view_getenv(v, "ProgramFiles");
	char *lib = winpath_join(run->torch_dir, "lib");
	size_t i;
	if (!pf)
		pf = "C:\\Program Files";
	for (i = 0; i < run->proc->nfolders && i < TORCH_FOLDER_COUNT; i++)
		add_folder(run, v, (enum torch_folder)run->proc->folders[i], lib);
	free(lib);
	{
		char *nvtx = NULL, *cuda = NULL;
		if (run->proc->nvtx && !dirs_have(v, &run->dll_paths, "nvToolsExt64_1.dll", 0)) {
			const char *base = view_getenv(v, "NVTOOLSEXT_PATH");
			nvtx = base ? xasprintf("%s\\bin\\x64", base)
				    : xasprintf("%s\\NVIDIA Corporation\\NvToolsExt\\bin\\x64", pf);
		}
		if (run->cuda_version && !dirs_have(v, &run->dll_paths, "cudart64", 1)) {
			char *var = xasprintf("CUDA_PATH_V%s", run->cuda_version);
			const char *cp;
			char *q;
			for (q = var; *q; q++)
				if (*q == '.')
					*q = '_';
			cp = view_getenv(v, var);
			cuda = cp ? xasprintf("%s\\bin", cp)
				  : xasprintf("%s\\NVIDIA GPU Computing Toolkit\\CUDA\\v%s\\bin", pf,
					      run->cuda_version);
			free(var);
		}
		add_if_dir(v, &run->dll_paths, nvtx);
		add_if_dir(v, &run->dll_paths, cuda);
		free(nvtx);
		free(cuda);
	}
}

/* python.exe, the prefixes and the application directory, from the inputs. */
static void locate_python(struct torch_run *run, struct view *v, const struct torch_inputs *in)
{
	char *exe = NULL, *dir, *cfgp, *home = NULL;
	struct strbuf sb = STRBUF_INIT;
	if (in->python_exe) {
		exe = winpath_normalize(in->python_exe);
	} else {
		/* torch in <prefix>\Lib\site-packages\torch */
		char *sp = winpath_dirname(run->torch_dir);
		char *lib = winpath_dirname(sp);
		char *prefix = winpath_dirname(lib);
		char *cand = winpath_join(prefix, "python.exe");
		char *cand2 = xasprintf("%s\\Scripts\\python.exe", prefix);
		if (view_is_file(v, cand))
			exe = cand, cand = NULL;
		else if (view_is_file(v, cand2))
			exe = cand2, cand2 = NULL;
		else
			run->exec_prefix = xstrdup(prefix); /* still the prefix torch's paths use */
		free(cand);
		free(cand2);
		free(sp);
		free(lib);
		free(prefix);
	}
	if (!exe) {
		run->base_exec_prefix = run->exec_prefix ? xstrdup(run->exec_prefix) : NULL;
		return;
	}
	run->python_exe = exe;
	dir = winpath_dirname(exe);
	/* a venv: pyvenv.cfg next to python.exe or one level up (Scripts\) */
	cfgp = winpath_join(dir, "pyvenv.cfg");
	if (view_read_small(v, cfgp, 1 << 20, &sb) != 0) {
		char *up = winpath_dirname(dir);
		free(cfgp);
		cfgp = winpath_join(up, "pyvenv.cfg");
		strbuf_reset(&sb);
		if (view_read_small(v, cfgp, 1 << 20, &sb) == 0) {
			run->exec_prefix = up;
			up = NULL;
		}
		free(up);
	} else {
		run->exec_prefix = xstrdup(dir);
	}
	if (run->exec_prefix) {
		home = cfg_value(strbuf_str(&sb), "home");
		run->cfg_version = cfg_value(strbuf_str(&sb), "version");
		if (!run->cfg_version)
			run->cfg_version = cfg_value(strbuf_str(&sb), "version_info");
	}
	if (run->exec_prefix && home) {
		/* the venv launcher runs the base interpreter: its dir is the application dir */
		run->base_exec_prefix = winpath_normalize(home);
		run->app_dir = xstrdup(run->base_exec_prefix);
	} else {
		if (!run->exec_prefix)
			run->exec_prefix = xstrdup(dir);
		run->base_exec_prefix = xstrdup(run->exec_prefix);
		run->app_dir = xstrdup(dir);
	}
	free(home);
	free(cfgp);
	free(dir);
	strbuf_release(&sb);
}

/* A launcher's process: its executable's folder is the application folder, sys.prefix its prefix. */
static void locate_launcher(struct torch_run *run, const struct torch_launcher *l)
{
	run->launched = 1;
	run->launcher_what = l->what ? xstrdup(l->what) : NULL;
	run->dll_directory = l->dll_directory ? winpath_normalize(l->dll_directory) : NULL;
	run->python_exe = winpath_normalize(l->exe);
	run->app_dir = winpath_dirname(run->python_exe);
	run->exec_prefix = winpath_normalize(l->prefix ? l->prefix : run->app_dir);
	run->base_exec_prefix = xstrdup(run->exec_prefix);
}

static void set_outcome(struct torch_binary *b)
{
	b->winerror = b->res.winerror;
	if (b->res.order_dependent)
		b->outcome = "order-dependent";
	else if (!b->res.winerror)
		b->outcome = b->stage == TORCH_STAGE_PATH_FALLBACK ? "loads-via-path" : "loads";
	else
		b->outcome = ldr_outcome_name(b->res.outcome);
}

/* The module a .pyd defines: its name up to the first '.'. */
static char *module_name_of_pyd(const char *path)
{
	const char *base = winpath_basename(path);
	const char *dot = strchr(base, '.');
	return dot ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
}

static struct torch_binary *new_binary(struct torch_run *run, const char *path, int is_pyd, enum torch_stage stage)
{
	struct torch_binary *b;
	run->bins = xrealloc(run->bins, (run->nbins + 1) * sizeof(*run->bins));
	b = &run->bins[run->nbins];
	memset(b, 0, sizeof(*b));
	b->path = xstrdup(path);
	b->is_pyd = is_pyd;
	b->order = (int)run->nbins++;
	b->flags = LDR_SEARCH_DEFAULT_DIRS | LDR_SEARCH_DLL_LOAD_DIR;
	b->stage = stage;
	return b;
}

/* The first binary that fails is what `import torch` raises. */
static void note_import_error(struct torch_run *run, struct torch_binary *b)
{
	/* an order-dependent verdict is not a certain failure (result.c reports it as such) */
	if (!b->winerror || b->res.order_dependent || run->import_error_index >= 0)
		return;
	run->import_error_index = (int)(b - run->bins);
	run->import_error_winerror = b->winerror;
	if (b->is_pyd) {
		char *mod = module_name_of_pyd(b->path);
		run->import_error_text = xasprintf("ImportError: DLL load failed while importing %s: %s", mod,
						   winerror_text(b->winerror));
		free(mod);
	} else {
		run->import_error_text = xasprintf("OSError: [WinError %d] %s Error loading \"%s\" or one of its "
						   "dependencies.",
						   b->winerror, winerror_text(b->winerror), b->path);
	}
}

/*
 * Whether the load tree `n` maps a module of `failed` (Windows paths), and so
 * runs its DllMain. Adds every module whose load does to `failed`, so that a
 * later tree that meets such a module through the loaded-module list (a node
 * without children) counts too.
 */
static int maps_failed(const struct ldr_node *n, struct strlist *failed, int depth)
{
	size_t i;
	int r = 0;
	if (!n || n->delay || !n->path || depth > 4096)
		return 0;
	if (strlist_has_icase(failed, n->path))
		return 1;
	for (i = 0; i < n->nkids; i++)
		r |= maps_failed(n->kids[i], failed, depth + 1);
	if (r)
		strlist_push(failed, n->path);
	return r;
}

/* The first static node below `n` (n itself when `self`) whose path is `path`, or in `set` when path is NULL. */
static const struct ldr_node *find_node(const struct ldr_node *n, const char *path, const struct strlist *set,
					int self, int depth)
{
	size_t i;
	if (!n || n->delay || depth > 4096)
		return NULL;
	if (self && n->path && (path ? !str_icmp(n->path, path) : strlist_has_icase(set, n->path)))
		return n;
	for (i = 0; i < n->nkids; i++) {
		const struct ldr_node *r = find_node(n->kids[i], path, set, 1, depth + 1);
		if (r)
			return r;
	}
	return NULL;
}

size_t torch_run_init_failed(struct torch_run *run, const char *module_path, int winerror)
{
	struct strlist failed = STRLIST_INIT;
	size_t i, marked = 0;
	strlist_push(&failed, module_path);
	/* every module whose load maps it, wherever it was expanded (python's and the probe's loads too) */
	maps_failed(run->python_res.root, &failed, 0);
	for (i = 0; i < 3; i++)
		maps_failed(run->vc[i].res.root, &failed, 0);
	for (i = 0; i < run->nbins; i++)
		maps_failed(run->bins[i].res.root, &failed, 0);
	for (i = 0; i < run->nbins; i++) {
		struct torch_binary *b = &run->bins[i];
		const struct ldr_node *r = b->res.root, *hit;
		/* a load that fails to map or bind never runs an initialisation routine */
		if (b->winerror || b->res.order_dependent || !r || !r->path || !strlist_has_icase(&failed, r->path))
			continue;
		/* the chain: to the module itself, else to the first module that maps it */
		if (!(hit = find_node(r, module_path, NULL, 1, 0)) && !(hit = find_node(r, NULL, &failed, 0, 0)))
			hit = r;
		b->init_failed = hit;
		free(b->init_module);
		b->init_module = xstrdup(module_path);
		b->winerror = winerror;
		b->outcome = "init-failed";
		marked++;
	}
	strlist_release(&failed);
	if (!marked)
		return 0;
	/* torch raises at the first binary of its order that fails: decide again */
	free(run->import_error_text);
	run->import_error_text = NULL;
	run->import_error_index = -1;
	run->import_error_winerror = 0;
	for (i = 0; i < run->nbins; i++)
		note_import_error(run, &run->bins[i]);
	return marked;
}

/* ---- the Python the process runs ------------------------------------------------ */

/* "311", "313t" from "python311.dll", "python313t_d.dll"; NULL otherwise. *debug set for "_d". */
static char *python_dll_tag(const char *name, int *debug)
{
	const char *p = name + 6, *q;
	if (str_nicmp(name, "python", 6) || p[0] != '3' || !(p[1] >= '0' && p[1] <= '9'))
		return NULL;
	for (q = p; *q >= '0' && *q <= '9'; q++)
		;
	if (*q == 't' || *q == 'T')
		q++;
	*debug = !str_nicmp(q, "_d.dll", 6) && !q[6];
	if (!*debug && (str_icmp(q, ".dll")))
		return NULL;
	return xstrndup(p, (size_t)(q - p));
}

/*
 * "311" from the `Tag: cp311-cp311-win_amd64` of the torch dist-info's WHEEL
 * file beside the package: the interpreter pip installed this torch for.
 * NULL when there is none, or two dist-infos disagree.
 */
static char *wheel_tag(struct torch_run *run, struct view *v)
{
	char *sp = winpath_dirname(run->torch_dir), *tag = NULL;
	struct strlist names = STRLIST_INIT;
	size_t i;
	int conflict = 0;
	if (view_list_dir(v, sp, &names, NULL) == 0) {
		for (i = 0; i < names.n && !conflict; i++) {
			struct strbuf sb = STRBUF_INIT;
			char *w;
			const char *t;
			if (str_nicmp(names.v[i], "torch-", 6) || !str_iendswith(names.v[i], ".dist-info"))
				continue;
			w = xasprintf("%s\\%s\\WHEEL", sp, names.v[i]);
			if (view_read_small(v, w, 1 << 20, &sb) == 0 && (t = strstr(strbuf_str(&sb), "\nTag: cp3")) != NULL) {
				const char *e = t + 9;
				char *cand;
				while (*e >= '0' && *e <= '9')
					e++;
				if (*e == 't')
					e++;
				cand = xstrndup(t + 8, (size_t)(e - t - 8));
				if (tag && strcmp(tag, cand))
					conflict = 1;
				if (!tag)
					tag = cand;
				else
					free(cand);
			}
			strbuf_release(&sb);
			free(w);
		}
	}
	strlist_release(&names);
	free(sp);
	if (conflict) {
		free(tag);
		tag = NULL;
	}
	return tag;
}

/*
 * The interpreter's "cpXY[t]" tag: from the pythonXY.dll python.exe imports,
 * else the one pythonXY.dll in its folder, else the torch wheel's tag, else
 * pyvenv.cfg's `version`.
 */
static void find_python_tag(struct torch_run *run, struct view *v)
{
	size_t i;
	int debug = 0;
	char *tag = NULL;
	const struct ldr_node *root = run->python_res.root;
	for (i = 0; root && i < root->nkids && !tag; i++)
		tag = python_dll_tag(winpath_basename(root->kids[i]->name), &debug);
	if (!tag && run->app_dir) {
		struct strlist names = STRLIST_INIT;
		if (view_list_dir(v, run->app_dir, &names, NULL) == 0) {
			for (i = 0; i < names.n; i++) {
				int d = 0;
				char *t = python_dll_tag(names.v[i], &d);
				if (t && tag && str_icmp(t, tag)) {
					free(t);
					free(tag);
					tag = NULL; /* two interpreters' DLLs: not this way */
					break;
				}
				if (t && !tag) {
					tag = t;
					debug = d;
				} else {
					free(t);
				}
			}
		}
		strlist_release(&names);
	}
	if (!tag)
		tag = wheel_tag(run, v);
	if (!tag && run->cfg_version) {
		/* "3.11.9" → "311" */
		unsigned maj = 0, min = 0;
		if (sscanf(run->cfg_version, "%u.%u", &maj, &min) == 2 && maj == 3)
			tag = xasprintf("3%u", min);
	}
	if (tag) {
		run->python_tag = xasprintf("cp%s", tag);
		run->python_debug = debug;
		free(tag);
	}
}

static const char *platform_tag(uint16_t machine)
{
	switch (machine) {
	case PE_MACHINE_I386: return "win32";
	case PE_MACHINE_ARM64: return "win_arm64";
	case PE_MACHINE_ARMNT: return "win_arm32";
	}
	return "win_amd64";
}

/*
 * importlib.machinery.EXTENSION_SUFFIXES of that interpreter (CPython's
 * _PyImport_DynLoadFiletab, Include/internal/pycore_importdl.h): the tagged
 * suffix "[_d].cpXY[t]-<platform>.pyd" (3.5 and later), then "[_d].pyd".
 * Unknown interpreter: NULL tag, and any cpXY tag of the platform is taken.
 */
static void extension_suffixes(struct torch_run *run)
{
	const char *d = run->python_debug ? "_d" : "";
	unsigned minor = 0;
	if (run->python_tag && sscanf(run->python_tag, "cp3%u", &minor) == 1 && minor >= 5)
		strlist_pushf(&run->ext_suffixes, "%s.%s-%s.pyd", d, run->python_tag, platform_tag(run->machine));
	strlist_pushf(&run->ext_suffixes, "%s.pyd", d);
}

/*
 * Whether file `name` is module + `suffix` as FileFinder sees it on
 * Windows: its cache keeps the text before the first '.' as written and
 * lower-cases the rest, so the part of the suffix before its '.' ("_d" of a
 * debug build) matches exactly and the rest in any case. *mlen: the
 * module name's length (a module name holds no '.').
 */
static int has_suffix(const char *name, const char *suffix, size_t *mlen)
{
	size_t n = strlen(name), sn = strlen(suffix);
	const char *dot = strchr(name, '.'), *sdot = strchr(suffix, '.');
	size_t pre = sdot ? (size_t)(sdot - suffix) : sn;
	if (!dot || !sdot || n <= sn || (size_t)(dot - name) != n - sn + pre)
		return 0;
	if (strncmp(name + n - sn, suffix, pre) || str_icmp(dot, sdot))
		return 0;
	*mlen = n - sn;
	return 1;
}

/* The rank of `name`'s suffix in EXTENSION_SUFFIXES, -1 if none; *mlen the module name's length. */
static int suffix_rank(const struct torch_run *run, const char *name, size_t *mlen)
{
	size_t i;
	for (i = 0; i < run->ext_suffixes.n; i++)
		if (has_suffix(name, run->ext_suffixes.v[i], mlen))
			return (int)i;
	if (!run->python_tag) {
		/* unknown interpreter: ".cpXY[t]-<platform>.pyd" of any XY */
		const char *dot = strchr(name, '.');
		char *want = xasprintf("-%s.pyd", platform_tag(run->machine));
		int ok = dot && dot != name && !str_nicmp(dot, ".cp", 3) && str_iendswith(dot, want) &&
			 strchr(dot + 1, '.') == dot + strlen(dot) - 4; /* one tag, then ".pyd" */
		free(want);
		if (ok) {
			*mlen = (size_t)(dot - name);
			return 0;
		}
	}
	return -1;
}

/* Whether `dir\<module>` is a package (holds __init__ with a suffix importlib loads), which shadows the module file. */
static int is_package_dir(const struct torch_run *run, struct view *v, const char *dir, const char *module)
{
	char *pkg = xasprintf("%s\\%s", dir, module);
	struct strlist names = STRLIST_INIT;
	size_t i, ml;
	int r = 0;
	if (view_is_dir(v, pkg) && view_list_dir(v, pkg, &names, NULL) == 0)
		for (i = 0; i < names.n && !r; i++)
			r = !strncmp(names.v[i], "__init__", 8) &&
			    ((suffix_rank(run, names.v[i], &ml) >= 0 && ml == 8) || !str_icmp(names.v[i] + 8, ".py") ||
			     !str_icmp(names.v[i] + 8, ".pyc"));
	strlist_release(&names);
	free(pkg);
	return r;
}

/* A directory name Python can import as a package (an identifier; non-ASCII letters taken as such). */
static int is_package_name(const char *n)
{
	const unsigned char *p = (const unsigned char *)n;
	if (!*p || (*p >= '0' && *p <= '9'))
		return 0;
	for (; *p; p++)
		if (!(*p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      *p >= 0x80))
			return 0;
	return 1;
}

/* Whether the folder at a Windows path is a link or junction on the host (not followed: links can loop). */
static int is_link_dir(struct view *v, const char *winpath)
{
	char *host = view_host_path(v, winpath);
	int r = host && os_is_link(host);
	free(host);
	return r;
}

/*
 * The extension modules under `dir` CPython would import, as importlib's
 * FileFinder picks them: for each module name, the file whose suffix comes
 * first in EXTENSION_SUFFIXES (the module name is compared as written, the
 * suffix case-insensitively, as FileFinder's cache on Windows does); a
 * package folder of that name wins over the file. Recurses into folders
 * that can be packages, without depth limit; linked folders are not
 * followed (so no walk can loop).
 */
static void collect_pyds(struct torch_run *run, struct view *v, const char *dir, struct strlist *out, int top)
{
	struct strlist names = STRLIST_INIT, mods = STRLIST_INIT;
	size_t i, k;
	if (view_list_dir(v, dir, &names, NULL)) {
		strlist_release(&names);
		return;
	}
	for (i = 0; i < names.n; i++) {
		size_t mlen = 0, ml2 = 0;
		int rank = suffix_rank(run, names.v[i], &mlen);
		char *p = winpath_join(dir, names.v[i]);
		if (rank >= 0 && mlen && view_is_file(v, p)) {
			/* the best suffix of this module in this folder */
			int best = 1;
			char *mod = xstrndup(names.v[i], mlen);
			for (k = 0; k < names.n && best; k++) {
				int r2 = suffix_rank(run, names.v[k], &ml2);
				if (k != i && r2 >= 0 && r2 < rank && ml2 == mlen && !strncmp(names.v[k], mod, mlen))
					best = 0;
			}
			if (best && !strlist_has(&mods, mod) && !is_package_dir(run, v, dir, mod)) {
				strlist_push(&mods, mod);
				strlist_push(out, p);
			}
			free(mod);
		} else if (!(top && !str_icmp(names.v[i], "lib")) && is_package_name(names.v[i]) && view_is_dir(v, p) &&
			   !is_link_dir(v, p)) {
			/* torch\lib holds torch's DLLs, loaded by step 4, not imported */
			collect_pyds(run, v, p, out, 0);
		}
		free(p);
	}
	strlist_release(&mods);
	strlist_release(&names);
}

/* ---- the steps ------------------------------------------------------------------- */

/* 0. The process: python.exe's own static imports, loaded at start-up. */
static void load_interpreter(struct torch_run *run, struct view *v)
{
	/* a venv launcher runs the base interpreter: load that one's imports */
	char *base_exe;
	const char *exe;
	if (!run->python_exe || !view_is_file(v, run->python_exe))
		return;
	base_exe = winpath_join(run->app_dir, "python.exe");
	exe = view_is_file(v, base_exe) ? base_exe : run->python_exe;
	loader_load(run->ld, exe, LDR_AS_PROCESS_EXE, &run->python_res, NULL);
	run->python_loaded = !run->python_res.winerror;
	free(base_exe);
}

/*
 * 0. A launcher's process: its executable's static imports at start-up, then
 * SetDllDirectoryW, then each DLL it loads by full path before Python runs,
 * in order (LoadLibraryExW with LOAD_WITH_ALTERED_SEARCH_PATH). Each of those
 * loads hangs below the executable's node, so the judges that look at what
 * the process holds before torch see them; the first that fails is the
 * start-up's verdict (the app would not start).
 */
static void start_launcher(struct torch_run *run, struct view *v, const struct torch_launcher *l)
{
	struct ldr_node *root;
	size_t i;
	int debug = 0;
	if (!view_is_file(v, run->python_exe))
		return;
	loader_load(run->ld, run->python_exe, LDR_AS_PROCESS_EXE, &run->python_res, NULL);
	if (l->default_dll_dirs)
		loader_set_default_dll_directories(run->ld, l->default_dll_dirs);
	if (l->dll_directory)
		loader_set_dll_directory(run->ld, l->dll_directory, l->dll_directory_why ? l->dll_directory_why
											: "set with SetDllDirectoryW");
	if (l->add_dll_directory) {
		loader_add_dll_directory(run->ld, l->add_dll_directory);
		loader_label_user_dirs(run->ld, l->add_dll_directory_why ? l->add_dll_directory_why
									: "added with AddDllDirectory by the launcher");
	}
	root = run->python_res.root;
	for (i = 0; root && i < l->npreload; i++) {
		struct ldr_result r;
		char *tag = python_dll_tag(winpath_basename(l->preload[i]), &debug);
		memset(&r, 0, sizeof(r));
		loader_load(run->ld, l->preload[i], LDR_WITH_ALTERED_SEARCH_PATH, &r, NULL);
		if (tag && !run->python_tag) {
			run->python_tag = xasprintf("cp%s", tag);
			run->python_debug = debug;
		}
		free(tag);
		if (r.winerror && !run->python_res.winerror) {
			run->python_res.winerror = r.winerror;
			run->python_res.outcome = r.outcome;
			run->python_res.leaf = r.leaf;
			run->python_res.symbol = r.symbol;
			r.symbol = NULL;
		}
		if (r.root) {
			ALLOC_GROW(root->kids, root->nkids + 1, root->akids);
			root->kids[root->nkids++] = r.root;
			r.root->parent = root;
			r.root = NULL;
		}
		ldr_result_release(&r);
	}
	run->python_loaded = !run->python_res.winerror;
}

/* 2. os.add_dll_directory for each of dll_paths (SetDefaultDllDirectories is not called). */
static void add_dll_directories(struct torch_run *run)
{
	size_t i;
	for (i = 0; i < run->dll_paths.n; i++)
		loader_add_dll_directory(run->ld, run->dll_paths.v[i]);
	loader_label_user_dirs(run->ld, "added by torch with os.add_dll_directory");
}

/* 3. ctypes.CDLL of the VC++ runtimes; the first failure ends the probe (torch prints a warning). */
static void probe_vc_runtime(struct torch_run *run)
{
	static const char *const probe[] = { "vcruntime140.dll", "msvcp140.dll", "vcruntime140_1.dll" };
	/* vcruntime140_1.dll: not on ARM64 from 2.6.0, not for CUDA 9.2 / 10.0 builds before 1.10 */
	int skip1 = (run->proc->vc1 == TORCH_VC1_NOT_ARM64 && run->machine == PE_MACHINE_ARM64) ||
		    (run->proc->vc1 == TORCH_VC1_NOT_OLD_CUDA && run->cuda_version &&
		     (!strcmp(run->cuda_version, "9.2") || !strcmp(run->cuda_version, "10.0")));
	size_t n = skip1 ? 2 : 3, i;
	for (i = 0; i < n; i++) {
		run->vc[i].name = probe[i];
		run->vc[i].attempted = 1;
		loader_load(run->ld, probe[i], LDR_SEARCH_DEFAULT_DIRS, &run->vc[i].res, NULL);
		if (run->vc[i].res.winerror) {
			run->vc_failed = 1;
			break;
		}
	}
}

/*
 * glob.glob(os.path.join(torch\lib, "*.dll")): the folder's entries in
 * listing order (no sorting), names starting with '.' skipped (glob's hidden
 * rule), "*.dll" matched case-insensitively (fnmatch normcases on Windows);
 * folders match too, and torch passes them to LoadLibraryExW.
 */
static void glob_torch_dlls(struct view *v, const char *lib, struct strlist *out)
{
	struct strlist names = STRLIST_INIT;
	size_t i;
	view_list_dir(v, lib, &names, NULL);
	for (i = 0; i < names.n; i++)
		if (names.v[i][0] != '.' && str_iendswith(names.v[i], ".dll"))
			strlist_push_owned(out, winpath_join(lib, names.v[i]));
	strlist_release(&names);
}

/* PATH = ";".join(dll_paths + [PATH]), once, before the first LoadLibraryW retry. */
static void patch_path(struct torch_run *run, struct view *v)
{
	struct strbuf np = STRBUF_INIT;
	size_t k;
	if (run->path_patched)
		return;
	for (k = 0; k < run->dll_paths.n; k++)
		strbuf_addf(&np, "%s;", run->dll_paths.v[k]);
	strbuf_adds(&np, run->saved_path ? run->saved_path : "");
	view_setenv(v, "PATH", strbuf_str(&np));
	loader_label_path_prefix(run->ld, run->dll_paths.n, "added to PATH by torch's fallback");
	strbuf_release(&np);
	run->path_patched = 1;
}

/* 4. Every torch\lib\*.dll with LoadLibraryExW(path, 0x1100); on 126 the PATH fallback. */
static void load_torch_lib_dlls(struct torch_run *run, struct view *v, const char *lib)
{
	struct strlist dlls = STRLIST_INIT;
	size_t i;
	glob_torch_dlls(v, lib, &dlls);
	for (i = 0; i < dlls.n; i++) {
		struct torch_binary *b = new_binary(run, dlls.v[i], 0, TORCH_STAGE_ADD_DLL_DIRECTORY);
		loader_load(run->ld, b->path, b->flags, &b->res, NULL);
		if (b->res.winerror == WINERR_MOD_NOT_FOUND) {
			patch_path(run, v);
			b->first = b->res;
			memset(&b->res, 0, sizeof(b->res));
			b->flags = 0;
			b->stage = TORCH_STAGE_PATH_FALLBACK;
			loader_load(run->ld, b->path, 0, &b->res, NULL); /* LoadLibraryW */
		}
		set_outcome(b);
		note_import_error(run, b); /* the loader trims its pages by its own budget (loader_state.h LDR_TRIM_PAGES) */
	}
	strlist_release(&dlls);
}

/* 5. CPython imports the extension modules: LoadLibraryExW(path, DEFAULT_DIRS | DLL_LOAD_DIR). */
static void import_extension_modules(struct torch_run *run, struct view *v)
{
	struct strlist pyds = STRLIST_INIT;
	size_t i;
	collect_pyds(run, v, run->torch_dir, &pyds, 1);
	for (i = 0; i < pyds.n; i++) {
		/* torch\_C first: `import torch` imports it before anything else */
		char *dir = winpath_dirname(pyds.v[i]);
		if (!str_icmp(dir, run->torch_dir) && !strncmp(winpath_basename(pyds.v[i]), "_C.", 3) && i) {
			char *t = pyds.v[i];
			memmove(&pyds.v[1], &pyds.v[0], i * sizeof(char *));
			pyds.v[0] = t;
		}
		free(dir);
	}
	for (i = 0; i < pyds.n; i++) {
		struct torch_binary *b = new_binary(run, pyds.v[i], 1, TORCH_STAGE_CPYTHON);
		loader_load(run->ld, b->path, b->flags, &b->res, NULL);
		set_outcome(b);
		note_import_error(run, b);
	}
	strlist_release(&pyds);
}

/*
 * 0b. A package's preload (pkgpreload.h): ctypes.CDLL of a full path,
 * LoadLibraryExW(path, 0x1100), no retry; the import error is ctypes'.
 */
static int preload_load(struct torch_run *run, const char *path)
{
	struct torch_binary *b = new_binary(run, path, 0, TORCH_STAGE_PRELOAD);
	loader_load(run->ld, b->path, b->flags, &b->res, NULL);
	set_outcome(b);
	note_import_error(run, b);
	if (b->winerror && run->import_error_index == (int)(b - run->bins)) {
		free(run->import_error_text);
		run->import_error_text = b->winerror == WINERR_MOD_NOT_FOUND
			? xasprintf("FileNotFoundError: Could not find module '%s' (or one of its dependencies). Try "
				    "using the full path with constructor syntax.", b->path)
			: xasprintf("OSError: [WinError %d] %s", b->winerror, winerror_text(b->winerror));
	}
	return b->winerror;
}

/* The user base: --userbase, PYTHONUSERBASE, else %APPDATA%\Python (site.py on Windows). */
static void find_userbase(struct torch_run *run, struct view *v, const struct torch_inputs *in)
{
	if (in->userbase)
		run->userbase = winpath_normalize(in->userbase);
	else if (view_getenv(v, "PYTHONUSERBASE"))
		run->userbase = winpath_normalize(view_getenv(v, "PYTHONUSERBASE"));
	else if (view_getenv(v, "APPDATA"))
		run->userbase = xasprintf("%s\\Python", view_getenv(v, "APPDATA"));
}

/* The process's machine: the caller's, else python.exe's, else x64. */
static uint16_t process_machine(struct torch_run *run, struct view *v, uint16_t machine)
{
	if (!machine && run->python_exe) {
		char *host = view_host_path(v, run->python_exe);
		struct pe_image *img = NULL;
		if (host && pe_open(&img, host, 0, NULL) == 0) {
			machine = img->machine;
			pe_close(img);
		}
		free(host);
	}
	return machine ? machine : PE_MACHINE_AMD64;
}

/* The release's procedure: the caller's (the matrix's `torch_load` entry), else the built-in one, said. */
static void choose_procedure(struct torch_run *run, const struct torch_inputs *in)
{
	run->proc = &run->proc_value;
	if (in->procedure && in->procedure(in->procedure_ctx, run->torch_version, &run->proc_value) == 0)
		return;
	torch_proc_builtin(&run->proc_value, "the matrix has no `torch_load` entry: followed the built-in procedure "
					     "of the newest measured releases (every folder, NVTX, vcruntime140_1 not on ARM64)");
}

int torch_run(struct torch_run **out, struct view *view, const struct torch_inputs *in, struct err *err)
{
	struct torch_run *run;
	char *lib;

	if (!in->torch_dir)
		return err_set(err, "no torch directory given");
	run = xcalloc(1, sizeof(*run));
	run->import_error_index = -1;
	run->torch_dir = winpath_normalize(in->torch_dir);
	lib = winpath_join(run->torch_dir, "lib");
	if (!view_is_dir(view, lib)) {
		err_set(err, "%s: no lib directory; is this a torch package directory?", run->torch_dir);
		free(lib);
		torch_run_free(run);
		return -1;
	}
	if (in->launcher)
		locate_launcher(run, in->launcher);
	else
		locate_python(run, view, in);
	find_userbase(run, view, in);
	run->cuda_version = read_version_py(view, run->torch_dir, "cuda");
	run->torch_version = read_version_py(view, run->torch_dir, "__version__");
	choose_procedure(run, in);
	run->machine = process_machine(run, view, in->machine);
	loader_open_shared(&run->ld, view, run->app_dir, run->machine, in->images, NULL);
	loader_set_delay_own_folder(run->ld, in->delay_own_folder, in->delay_own_ctx);
	if (view_getenv(view, "PATH"))
		run->saved_path = xstrdup(view_getenv(view, "PATH"));

	if (in->launcher)
		start_launcher(run, view, in->launcher); /* 0 */
	else
		load_interpreter(run, view);  /* 0 */
	if (!run->python_tag)
		find_python_tag(run, view);
	extension_suffixes(run);
	if (in->before_torch)
		in->before_torch(in->before_ctx, run, view); /* packages imported before torch */
	if (in->preload && (run->preload_ran = pkg_preload_run(&run->preload, in->preload, view, run->torch_dir, run,
								 preload_load)) &&
	    run->preload.outcome != PKG_PRELOAD_OK)
		goto skip; /* import torch raised in torch\_rocm_init.py: none of torch's own DLLs is loaded */
	compute_dll_paths(run, view);         /* 1 */
	add_dll_directories(run);             /* 2 */
	probe_vc_runtime(run);                /* 3 */
	load_torch_lib_dlls(run, view, lib);  /* 4 */
	import_extension_modules(run, view);  /* 5 */
skip:

	/* the machine's PATH is not ours to keep changed */
	if (run->path_patched)
		view_setenv(view, "PATH", run->saved_path ? run->saved_path : "");
	free(lib);
	*out = run;
	return 0;
}
