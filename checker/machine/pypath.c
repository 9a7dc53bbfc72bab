/*
 * pypath: sys.path for one python.exe on the view, in CPython's order
 * (pypath.h; docs/python.md walks through it with the sources):
 *
 *   getpath.py   home: PYTHONHOME (unless a ._pth), else pyvenv.cfg's `home`
 *                (pyvenv.cfg one folder above python.exe, then beside it);
 *                a ._pth beside the DLL (python3XY._pth) or python.exe
 *                (python._pth) replaces everything below with its lines,
 *                makes the process isolated (no PYTHONPATH, no user site)
 *                and runs site only on an `import site` line;
 *                else PYTHONPATH, python3XY.zip, the registry's PythonPath
 *                subkeys (HKLM), DLLs (or the prefix when there is no DLLs
 *                folder), Lib, python.exe's folder (a venv: pyvenv.cfg's home).
 *   site.py      venv(): the venv folder and its Lib\site-packages; with
 *                include-system-site-packages other than true, the user site
 *                is off and the base install's site-packages too;
 *                the user site (off with PYTHONNOUSERSITE, -s, isolation):
 *                USER_BASE\Python3XY\site-packages, USER_BASE being
 *                PYTHONUSERBASE or %APPDATA%\Python (the Store Python's
 *                launcher sets PYTHONUSERBASE to its package's
 *                LocalCache\local-packages, PC/python_uwp.cpp);
 *                then each prefix and prefix\Lib\site-packages.
 *                Every site folder's .pth files, in sorted order, add the
 *                folders they name that exist, at the end, once each.
 *
 * sys.winver, which names the user site folder, is "3.11", "3.11-32" (a
 * 32-bit python.exe) or "3.11-arm64" (python.exe's machine).
 *
 * Not modelled, and said where it matters: the script's folder (sys.path[0]),
 * HKCU's PythonPath keys, -E/-I given on a command line, what a .pth
 * `import` line would add.
 */
#include "machine/pypath.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/view.h"
#include "machine/winpath.h"
#include "pe/pe.h"
#include "util/os.h"
#include "util/text.h"

void pypath_init(struct pypath *pp)
{
	memset(pp, 0, sizeof(*pp));
	strlist_init(&pp->notes);
}

void pypath_release(struct pypath *pp)
{
	size_t i;
	for (i = 0; i < pp->n; i++) {
		free(pp->e[i].path);
		free(pp->e[i].from);
	}
	free(pp->e);
	free(pp->python);
	free(pp->version);
	free(pp->cannot_start);
	free(pp->home);
	free(pp->venv);
	free(pp->pth);
	free(pp->user_site_off);
	free(pp->user_base);
	free(pp->user_base_from);
	free(pp->user_sitepk);
	free(pp->store_family);
	strlist_release(&pp->notes);
	pypath_init(pp);
}

long pypath_entry_of(const struct pypath *pp, const char *dir)
{
	size_t i;
	for (i = 0; i < pp->n; i++)
		if (!str_icmp(pp->e[i].path, dir))
			return (long)i;
	return -1;
}

/* Appends an entry unless it is there already (site.py's known_paths, case-insensitively); takes path. */
static int add_entry(struct pypath *pp, char *path, const char *from, int site)
{
	if (pypath_entry_of(pp, path) >= 0) {
		free(path);
		return 0;
	}
	if (pp->n >= PYPATH_MAX_ENTRIES) {
		if (!pp->dropped++) /* said once: n stays at the cap */
			strlist_pushf(&pp->notes, "sys.path has more than %d entries: the rest are not looked at",
				      PYPATH_MAX_ENTRIES);
		free(path);
		return 0;
	}
	ALLOC_GROW(pp->e, pp->n + 1, pp->alloc);
	pp->e[pp->n].path = path;
	pp->e[pp->n].from = xstrdup(from);
	pp->e[pp->n].site = site;
	pp->n++;
	return 1;
}

static int exists(struct view *v, const char *p)
{
	return view_is_dir(v, p) || view_is_file(v, p);
}

/*
 * Reads one small file of a kind into f: 0 read, 1 absent, -1 not read (too
 * large, unreadable: said in pp->notes).
 */
static int read_pyfile(struct pypath *pp, struct view *v, const char *winpath, enum pyfile_kind kind,
		       struct pyfile *f, size_t *bytes)
{
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	char *host;
	int r;
	size_t i;
	if (!view_is_file(v, winpath))
		return 1;
	host = view_host_path(v, winpath);
	if (!host)
		return 1;
	err_clear(&e);
	r = os_read_small_file(host, PYPATH_MAX_FILE, &sb, &e);
	free(host);
	if (r == 1) {
		strbuf_release(&sb);
		return 1;
	}
	if (bytes)
		*bytes = r == 2 ? SIZE_MAX : r == 0 ? sb.len : 0;
	if (r == 2 || r < 0) {
		if (r == 2)
			strlist_pushf(&pp->notes, "%s is larger than %d KiB: not read", winpath, PYPATH_MAX_FILE / 1024);
		else
			strlist_pushf(&pp->notes, "%s cannot be read: %s", winpath, e.msg);
		strbuf_release(&sb);
		return -1;
	}
	pyfile_parse(f, kind, sb.buf, sb.len);
	for (i = 0; i < f->notes.n; i++)
		strlist_pushf(&pp->notes, "%s: %s", winpath, f->notes.v[i]);
	strbuf_release(&sb);
	return 0;
}

/* "python311.dll" → "3.11"; NULL for python3.dll, python311_d.dll and others. */
static char *dll_version(const char *name)
{
	size_t i, n = strlen(name);
	if (n < 12 || str_nicmp(name, "python3", 7) || !str_iendswith(name, ".dll"))
		return NULL;
	for (i = 7; i < n - 4; i++)
		if (!ascii_isdigit((unsigned char)name[i]))
			return NULL;
	return xasprintf("3.%.*s", (int)(n - 11), name + 7);
}

static char *version_in(struct view *v, const char *dir)
{
	struct strlist names = STRLIST_INIT;
	struct err e;
	char *ver = NULL;
	size_t i;
	if (view_list_dir(v, dir, &names, &e) == 0)
		for (i = 0; i < names.n && !ver; i++)
			ver = dll_version(names.v[i]);
	strlist_release(&names);
	return ver;
}

/* sys.winver's suffix for python.exe's machine: "" (x64), "-32", "-arm64" (PC/pyconfig, PYWINVER). */
static const char *winver_suffix(struct view *v, const char *python)
{
	char *host = view_host_path(v, python);
	struct pe_image *img = NULL;
	struct err e;
	const char *sfx = "";
	if (host && pe_open(&img, host, 0, &e) == 0) {
		if (img->machine == PE_MACHINE_I386)
			sfx = "-32";
		else if (img->machine == PE_MACHINE_ARM64)
			sfx = "-arm64";
		pe_close(img);
	}
	free(host);
	return sfx;
}

/* A path line of a file in `dir`: absolute as given, else joined (and folded) with dir. */
static char *resolve(const char *dir, const char *line)
{
	char *j, *n;
	if (winpath_is_absolute(line))
		return winpath_normalize(line);
	j = winpath_join(dir, line);
	n = winpath_normalize(j);
	free(j);
	return n;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* site.addsitedir: the folder, then each of its .pth files (sorted) adds the folders it names that exist. */
static void add_site_dir(struct pypath *pp, struct view *v, const char *dir, const char *from)
{
	struct strlist names = STRLIST_INIT, pths = STRLIST_INIT;
	struct err e;
	size_t i, j;
	if (!view_is_dir(v, dir))
		return;
	add_entry(pp, xstrdup(dir), from, 1);
	if (view_list_dir(v, dir, &names, &e)) {
		strlist_pushf(&pp->notes, "cannot list %s for .pth files: %s", dir, e.msg);
		return;
	}
	for (i = 0; i < names.n; i++)
		if (str_iendswith(names.v[i], ".pth") && strcmp(names.v[i], ".pth"))
			strlist_push(&pths, names.v[i]);
	/* site.py sorts the names as Python strings: by code point, which is UTF-8's byte order */
	if (pths.n)
		qsort(pths.v, pths.n, sizeof(*pths.v), cmp_names);
	for (i = 0; i < pths.n; i++) {
		struct pyfile f;
		char *p, *label;
		if (i == PYPATH_MAX_PTH) {
			strlist_pushf(&pp->notes, "%s has %zu .pth files: only the first %d are read", dir, pths.n,
				      PYPATH_MAX_PTH);
			break;
		}
		p = winpath_join(dir, pths.v[i]);
		pyfile_init(&f);
		if (read_pyfile(pp, v, p, PYFILE_SITE_PTH, &f, NULL) == 0) {
			label = xasprintf("%s in %s", pths.v[i], dir);
			for (j = 0; j < f.lines.n; j++) {
				char *r = resolve(dir, f.lines.v[j]);
				if (exists(v, r))
					add_entry(pp, r, label, 0);
				else
					free(r);
			}
			if (f.imports)
				strlist_pushf(&pp->notes,
					      "%s has %zu `import` line%s Python runs at start-up: not followed here "
					      "(what it adds to sys.path is not known)",
					      p, f.imports, f.imports == 1 ? "" : "s");
			free(label);
		}
		pyfile_release(&f);
		free(p);
	}
	strlist_release(&pths);
	strlist_release(&names);
}

/* "PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0" (or the alias folder's family) → the family. */
static char *store_family(const char *python)
{
	const char *p = python, *comp;
	while ((comp = strstr(p, "\\PythonSoftwareFoundation.Python.")) != NULL) {
		const char *start = comp + 1, *end = strchr(start, '\\'), *us, *dus;
		char *c;
		if (!end)
			return NULL;
		c = xstrndup(start, (size_t)(end - start));
		us = strchr(c, '_');
		dus = strstr(c, "__");
		if (us && dus && dus[2]) { /* Name_Version_Arch__PublisherId */
			char *fam = xasprintf("%.*s_%s", (int)(us - c), c, dus + 2);
			free(c);
			return fam;
		}
		if (us && !dus && us[1]) /* Name_PublisherId: the execution alias's folder */
			return c;
		free(c);
		p = end;
	}
	return NULL;
}

/* The user base, as site.py and the Store launcher make it. */
static void user_base(struct pypath *pp, struct view *v)
{
	const char *ub = view_getenv(v, "PYTHONUSERBASE"), *appdata = view_getenv(v, "APPDATA");
	pp->store_family = store_family(pp->python);
	if (pp->store_family) {
		const char *lad = view_getenv(v, "LOCALAPPDATA");
		if (lad) {
			pp->user_base = xasprintf("%s\\Packages\\%s\\LocalCache\\local-packages", lad, pp->store_family);
			pp->user_base_from = xstrdup("the Microsoft Store Python's package (its launcher sets PYTHONUSERBASE)");
		} else {
			strlist_pushf(&pp->notes, "a Microsoft Store Python (%s) without LOCALAPPDATA in the machine's "
						  "environment: its user base is not known (give --env LOCALAPPDATA=...)",
				      pp->store_family);
		}
	} else if (ub && *ub) {
		pp->user_base = winpath_normalize(ub);
		pp->user_base_from = xstrdup("PYTHONUSERBASE");
	} else if (appdata && *appdata) {
		pp->user_base = xasprintf("%s\\Python", appdata);
		pp->user_base_from = xstrdup("%APPDATA%\\Python");
	} else {
		strlist_push(&pp->notes, "APPDATA is not in the machine's environment: the user site is not known "
					 "(give --env APPDATA=...)");
	}
	if (pp->user_base && pp->version) {
		char *n = winpath_normalize(pp->user_base);
		free(pp->user_base);
		pp->user_base = n;
		pp->user_sitepk = xasprintf("%s\\Python3%s%s\\site-packages", pp->user_base, pp->version + 2,
					    winver_suffix(v, pp->python));
	}
}

/* getpath.py's search for a ._pth: beside the DLL (python3XY._pth), then python.exe ("python._pth"). */
static char *find_pth(struct view *v, const char *libdir, const char *exe_dir, const char *exe_name, const char *ver)
{
	char *cands[3] = { NULL, NULL, NULL }, *found = NULL, *stem;
	size_t i, k = 0;
	if (ver)
		cands[k++] = xasprintf("%s\\python3%s._pth", libdir, ver + 2);
	stem = xstrdup(exe_name);
	if (str_iendswith(stem, ".exe"))
		stem[strlen(stem) - 4] = '\0';
	cands[k++] = xasprintf("%s\\%s._pth", exe_dir, stem);
	if (str_icmp(libdir, exe_dir))
		cands[k++] = xasprintf("%s\\%s._pth", libdir, stem);
	free(stem);
	for (i = 0; i < k; i++) {
		if (!found && view_is_file(v, cands[i]))
			found = view_win_case(v, cands[i]);
		free(cands[i]);
	}
	return found;
}

/* The ._pth's paths (relative to its folder); site only on `import site`. */
static void from_pth(struct pypath *pp, struct view *v, size_t *bytes)
{
	struct pyfile f;
	char *dir = winpath_dirname(pp->pth);
	size_t i;
	const char *base = winpath_basename(pp->pth);
	pyfile_init(&f);
	if (read_pyfile(pp, v, pp->pth, PYFILE_PTH_OVERRIDE, &f, bytes) < 0)
		strlist_pushf(&pp->notes, "Python fails to start when it cannot read %s", pp->pth);
	for (i = 0; i < f.lines.n; i++)
		add_entry(pp, resolve(dir, f.lines.v[i]), base, 0);
	pp->site = f.import_site;
	if (f.imports)
		strlist_pushf(&pp->notes, "%s: %zu `import` line%s other than `import site`: CPython ignores %s", pp->pth,
			      f.imports, f.imports == 1 ? "" : "s", f.imports == 1 ? "it" : "them");
	pyfile_release(&f);
	free(dir);
}

/*
 * getpath.py: the default value of each subkey of SOFTWARE\Python\PythonCore\
 * <winver>\PythonPath (HKCU, then HKLM: the view's registry is HKLM only),
 * ';'-separated paths, after the zip. The core key's own default value counts
 * only when the standard library was not found, which a real install is not.
 */
static void registry_paths(struct pypath *pp, struct view *v)
{
	struct strlist subs = STRLIST_INIT;
	struct err e;
	const char *sfx;
	char *key;
	size_t i;
	int regview;
	if (!pp->version || !view_has_registry(v))
		return;
	sfx = winver_suffix(v, pp->python);
	regview = !strcmp(sfx, "-32") ? 32 : 64;
	key = xasprintf("SOFTWARE\\Python\\PythonCore\\%s%s\\PythonPath", pp->version, sfx);
	err_clear(&e);
	if (view_reg_subkeys(v, key, regview, &subs, &e) == 0) {
		for (i = 0; i < subs.n && i < 64; i++) {
			struct strbuf val = STRBUF_INIT;
			char *sub = xasprintf("%s\\%s", key, subs.v[i]), *from = xasprintf("registry PythonPath\\%s", subs.v[i]);
			const char *s2;
			if (view_reg_get(v, sub, "", regview, &val, &e) == 0)
				for (s2 = val.buf; *s2;) {
					const char *semi = strchr(s2, ';');
					size_t n = semi ? (size_t)(semi - s2) : strlen(s2);
					char *one = xstrndup(s2, n);
					if (n && winpath_is_absolute(one))
						add_entry(pp, winpath_normalize(one), from, 0);
					free(one);
					s2 += n + (semi != NULL);
				}
			strbuf_release(&val);
			free(sub);
			free(from);
		}
	}
	strlist_release(&subs);
	free(key);
}

/* getpath.py's Windows start of sys.path (no ._pth). */
static void from_getpath(struct pypath *pp, struct view *v, const char *libdir, const char *exe_dir)
{
	const char *pp_env = view_getenv(v, "PYTHONPATH");
	char *dlls, *lib, *zip;
	if (pp_env && *pp_env) {
		const char *s = pp_env;
		while (*s) {
			const char *semi = strchr(s, ';');
			size_t n = semi ? (size_t)(semi - s) : strlen(s);
			char *one = xstrndup(s, n);
			if (!n)
				; /* an empty item: the current folder, not known here */
			else if (winpath_is_absolute(one))
				add_entry(pp, winpath_normalize(one), "PYTHONPATH", 0);
			else
				strlist_pushf(&pp->notes, "PYTHONPATH item \"%s\" is relative to the current folder, "
							  "which is not known here: not looked at", one);
			free(one);
			s += n + (semi != NULL);
		}
	}
	zip = pp->version ? xasprintf("%s\\python3%s.zip", libdir, pp->version + 2) : NULL;
	if (zip)
		add_entry(pp, zip, winpath_basename(zip), 0);
	registry_paths(pp, v);
	dlls = winpath_join(pp->home, "DLLs");
	if (view_is_dir(v, dlls)) {
		add_entry(pp, dlls, "DLLs", 0);
	} else { /* gh-98790: without DLLs, the prefix itself takes its place */
		free(dlls);
		add_entry(pp, xstrdup(pp->home), "the install's folder (no DLLs folder)", 0);
	}
	lib = winpath_join(pp->home, "Lib");
	add_entry(pp, lib, "Lib", 0);
	/* getpath.py's executable_dir: pyvenv.cfg's home replaced python.exe's folder (a venv lists the base's) */
	if (pp->venv && pp->home && str_icmp(pp->home, exe_dir))
		add_entry(pp, xstrdup(pp->home), "the base install's folder (pyvenv.cfg home)", 0);
	else
		add_entry(pp, xstrdup(exe_dir), "python.exe's folder", 0);
}

/* site.py: the venv, the user site, each prefix's site-packages. */
static void from_site(struct pypath *pp, struct view *v, const struct pypath_opts *o, int isolated)
{
	const char *nus = view_getenv(v, "PYTHONNOUSERSITE");
	char *sp;
	int user = 1;
	if (pp->venv) {
		add_site_dir(pp, v, pp->venv, "the venv's folder");
		sp = winpath_join(pp->venv, "Lib\\site-packages");
		add_site_dir(pp, v, sp, "venv site-packages");
		free(sp);
		if (!pp->system_site) {
			user = 0;
			pp->user_site_off = xstrdup("a venv without include-system-site-packages = true");
		}
	}
	if (user && isolated) {
		user = 0;
		pp->user_site_off = xstrdup("isolated by its ._pth file");
	} else if (user && o && o->no_user_site) {
		user = 0;
		pp->user_site_off = xstrdup("python -s");
	} else if (user && nus && *nus) {
		user = 0;
		pp->user_site_off = xstrdup("PYTHONNOUSERSITE is set");
	}
	pp->user_site = user;
	if (user && pp->user_sitepk)
		add_site_dir(pp, v, pp->user_sitepk, "user site");
	if (!pp->venv || pp->system_site) {
		add_site_dir(pp, v, pp->home, "the install's folder");
		sp = winpath_join(pp->home, "Lib\\site-packages");
		add_site_dir(pp, v, sp, "site-packages");
		free(sp);
	}
}

/* Whether this Python's getpath reads ._pth and pyvenv.cfg whole (3.11 and newer: getpath.py). */
static int getpath_reads_whole(const char *version)
{
	return version && version[0] == '3' && version[1] == '.' && atoi(version + 2) >= 11;
}

int pypath_build(struct pypath *pp, struct view *v, const char *python, const struct pypath_opts *o,
		 struct err *err)
{
	char *exe_dir, *up, *libdir, *cfgpath = NULL, *cfg_big = NULL;
	const char *home_env = view_getenv(v, "PYTHONHOME"), *exe_name;
	struct pyfile cfg;
	int isolated = 0;
	size_t cfg_bytes = 0, pth_bytes = 0;

	pp->python = winpath_normalize(python);
	if (!view_is_file(v, pp->python))
		return err_set(err, "%s: no such file", pp->python);
	exe_name = winpath_basename(pp->python);
	exe_dir = winpath_dirname(pp->python);
	up = exe_dir ? winpath_dirname(exe_dir) : NULL;
	pyfile_init(&cfg);

	/* pyvenv.cfg: one folder above python.exe, then beside it; PYTHONHOME overrides it */
	if (up) {
		cfgpath = winpath_join(up, "pyvenv.cfg");
		if (view_is_file(v, cfgpath))
			pp->venv = xstrdup(up);
	}
	if (!pp->venv) {
		free(cfgpath);
		cfgpath = winpath_join(exe_dir, "pyvenv.cfg");
		if (view_is_file(v, cfgpath)) /* site.py's prefix is still python.exe's parent */
			pp->venv = xstrdup(up ? up : exe_dir);
	}
	if (pp->venv) {
		const char *home, *inc;
		read_pyfile(pp, v, cfgpath, PYFILE_PYVENV_CFG, &cfg, &cfg_bytes);
		cfg_big = cfg_bytes >= PYPATH_GETPATH_MAX ? xstrdup(cfgpath) : NULL;
		home = pyfile_first(&cfg, "home"); /* getpath.py stops at the first `home` */
		inc = pyfile_value(&cfg, "include-system-site-packages");
		pp->system_site = !inc || !str_icmp(inc, "true"); /* site.py: "true" unless the file says otherwise */
		if (home && *home && winpath_is_absolute(home))
			pp->home = winpath_normalize(home);
		else
			strlist_pushf(&pp->notes, "%s names no absolute `home`: the base install is taken to be "
						  "python.exe's folder", cfgpath);
	}
	free(cfgpath);
	if (home_env && *home_env) {
		/* getpath.py: PYTHONHOME wins over pyvenv.cfg's home for the prefix (the venv is still site.py's) */
		char *h = winpath_normalize(home_env);
		if (winpath_is_absolute(h)) {
			free(pp->home);
			pp->home = h;
			strlist_pushf(&pp->notes, "PYTHONHOME is set (%s): the standard library and site-packages come "
						  "from there", h);
		} else {
			free(h);
		}
	}
	if (!pp->home)
		pp->home = xstrdup(exe_dir);
	libdir = xstrdup(pp->home); /* python3XY.dll lives in the base install's folder */
	pp->version = version_in(v, libdir);
	if (!pp->version && str_icmp(libdir, exe_dir))
		pp->version = version_in(v, exe_dir);
	if (!pp->version) {
		const char *ver = pyfile_value(&cfg, "version");
		if (!ver)
			ver = pyfile_value(&cfg, "version_info");
		if (ver && ver[0] == '3' && ver[1] == '.' && ascii_isdigit((unsigned char)ver[2])) {
			size_t n = 3;
			while (ascii_isdigit((unsigned char)ver[n]))
				n++;
			pp->version = xstrndup(ver, n);
		}
	}
	if (!pp->version) {
		/* a Store Python's execution alias alone: the package family names the version */
		char *fam = store_family(pp->python);
		const char *p3 = fam ? strstr(fam, ".Python.3.") : NULL;
		if (p3 && ascii_isdigit((unsigned char)p3[10])) {
			size_t n = 10;
			while (ascii_isdigit((unsigned char)p3[n]))
				n++;
			pp->version = xasprintf("3.%.*s", (int)(n - 10), p3 + 10);
		}
		free(fam);
	}
	if (!pp->version)
		strlist_pushf(&pp->notes, "no python3XY.dll beside %s: its version, python3XY.zip and the user "
					  "site are not known", pp->python);

	pp->pth = home_env && *home_env ? NULL : find_pth(v, libdir, exe_dir, exe_name, pp->version);
	if (pp->pth) {
		char *d = winpath_dirname(pp->pth);
		free(pp->home);
		pp->home = d;
		isolated = 1;
		from_pth(pp, v, &pth_bytes);
	} else {
		pp->site = 1;
		from_getpath(pp, v, libdir, exe_dir);
	}
	user_base(pp, v);
	if (pp->site)
		from_site(pp, v, o, isolated);
	else {
		pp->user_site_off = xstrdup("site is not imported (its ._pth has no `import site` line)");
	}
	if (getpath_reads_whole(pp->version)) {
		const char *big = cfg_big ? cfg_big : pth_bytes >= PYPATH_GETPATH_MAX ? pp->pth : NULL;
		if (big) {
			size_t i;
			pp->cannot_start = xasprintf("Python %s stops at start-up: %s is 32 KiB or larger, and CPython "
						     "3.11+ reads it whole at start ('cannot read file larger than 32KB "
						     "during initialization'): make it smaller",
						     pp->version, big);
			for (i = 0; i < pp->n; i++) {
				free(pp->e[i].path);
				free(pp->e[i].from);
			}
			pp->n = 0;
		}
	}
	free(cfg_big);
	pyfile_release(&cfg);
	free(libdir);
	free(up);
	free(exe_dir);
	return 0;
}

size_t pypath_find_package(const struct pypath *pp, struct view *v, const char *name, int portions,
			   struct pypath_hit **hits)
{
	size_t i, n = 0, alloc = 0;
	*hits = NULL;
	for (i = 0; i < pp->n; i++) {
		char *dir = winpath_join(pp->e[i].path, name), *init = NULL;
		if (view_is_dir(v, dir) && (portions || view_find_file(v, dir, "__init__.py", &init) ||
					    view_find_file(v, dir, "__init__.pyc", &init))) {
			ALLOC_GROW(*hits, n + 1, alloc);
			(*hits)[n].entry = i;
			(*hits)[n].dir = dir;
			dir = NULL;
			n++;
		}
		free(init);
		free(dir);
	}
	return n;
}

void pypath_hits_free(struct pypath_hit *hits, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(hits[i].dir);
	free(hits);
}
