/*
 * frozen: a frozen app's layout, read from the view (see frozen.h).
 */
#include "machine/frozen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/pyiarchive.h"
#include "machine/winpath.h"
#include "pe/pe.h"
#include "util/os.h"
#include "util/strbuf.h"

/* Whether `needle` occurs in the first `n` bytes of `s` (the bootloader's part of the file). */
static int has_bytes(struct span s, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;
	if (n > s.len)
		n = s.len;
	for (i = 0; k && i + k <= n; i++)
		if (s.p[i] == (unsigned char)needle[0] && !memcmp(s.p + i, needle, k))
			return 1;
	return 0;
}

static int imports_python(const char *host, char py[64], int *add_dll_dir, int *set_dll_dir);

/* Whether folder `dir` has cx_Freeze's lib\\library.zip. */
static int has_cx_lib(struct view *v, const char *dir)
{
	char *zip = xasprintf("%s\\lib\\library.zip", dir);
	int r = view_is_file(v, zip);
	free(zip);
	return r;
}

/*
 * The one .exe in `dir` whose file holds a PyInstaller archive, or, in a
 * folder with lib\\library.zip, imports a pythonXY.dll (cx_Freeze); NULL
 * when none, or two.
 */
static char *launcher_in(struct view *v, const char *dir)
{
	int cx = has_cx_lib(v, dir);
	struct strlist names = STRLIST_INIT;
	char *found = NULL;
	size_t i;
	int two = 0;
	if (view_list_dir(v, dir, &names, NULL) == 0)
		for (i = 0; i < names.n && !two; i++) {
			char *w, *host;
			struct os_map m;
			if (!str_iendswith(names.v[i], ".exe"))
				continue;
			w = winpath_join(dir, names.v[i]);
			host = view_host_path(v, w);
			if (host && view_is_file(v, w) && os_map_file(&m, host, NULL) == 0) {
				char py[64];
				int add = 0, set = 0;
				if (pyi_archive_has_cookie(span_make(m.data, m.size)) ||
				    (cx && imports_python(host, py, &add, &set))) {
					if (found)
						two = 1;
					else
						found = xstrdup(w);
				}
				os_unmap(&m);
			}
			free(host);
			free(w);
		}
	strlist_release(&names);
	if (two) {
		free(found);
		found = NULL;
	}
	return found;
}

static int to_memfile(void *ctx, const unsigned char *p, size_t n, struct err *err)
{
	return os_memfile_append(*(int *)ctx, p, n, err);
}

/*
 * view_mount's reader: entry i of the mount inflated into a file in memory,
 * a chunk at a time (pyi_archive_stream): neither the inflated binary nor
 * its stored bytes stay in the process's memory, only in the file.
 */
static char *open_entry(void *ctx, size_t i, struct err *err)
{
	struct frozen_app *app = ctx;
	const struct pyi_entry *e = &app->ar.entries[app->mounted[i]];
	char *path = NULL;
	int fd = -1;
	if (os_memfile_new(&path, &fd, err))
		return NULL;
	if (pyi_archive_stream(&app->ar, span_make(app->map.data, app->map.size), 1, e, FROZEN_MAX_INFLATE,
			       to_memfile, &fd, err)) {
		os_memfile_close(fd);
		free(path);
		return NULL;
	}
	ALLOC_GROW(app->fds, app->nfds + 1, app->afds);
	app->fds[app->nfds++] = fd;
	return path;
}

/* A onefile build: its files on the view at <TEMP>\_MEI000000, the top-level folder. */
static int mount_onefile(struct frozen_app *app, struct view *v, struct err *err)
{
	const char *temp = view_getenv(v, "TEMP");
	const char **names;
	size_t i;
	int r;
	app->home = xasprintf("%s\\_MEI000000", temp && winpath_is_absolute(temp) ? temp : "C:\\Windows\\Temp");
	names = xcalloc(app->ar.n ? app->ar.n : 1, sizeof(*names));
	app->mounted = xcalloc(app->ar.n ? app->ar.n : 1, sizeof(*app->mounted));
	for (i = 0; i < app->ar.n; i++) {
		const struct pyi_entry *e = &app->ar.entries[i];
		if (e->typecode != 'b' && e->typecode != 'x' && e->typecode != 'Z')
			continue;
		if (strchr(e->name, ':')) {
			free(names);
			return err_set(err, "archive entry %s: a ':' in a file name", e->name);
		}
		app->mounted[app->nmounted] = i;
		names[app->nmounted++] = e->name;
	}
	r = view_mount(v, app->home, names, app->nmounted, open_entry, app, err);
	free(names);
	return r;
}

/* Whether the PE at host path `host` imports a pythonXY.dll; its name into py (64 bytes). */
static int imports_python(const char *host, char py[64], int *add_dll_dir, int *set_dll_dir)
{
	struct pe_image *img = NULL;
	size_t i, k;
	int r = 0;
	if (pe_open(&img, host, PE_IMPORTS, NULL))
		return 0;
	for (i = 0; i < img->nimports; i++) {
		const char *d = img->imports[i].dll;
		if (!str_nicmp(d, "python3", 7) && str_iendswith(d, ".dll") && strlen(d) < 64 && str_icmp(d, "python3.dll")) {
			snprintf(py, 64, "%s", d);
			r = 1;
		}
		if (!str_icmp(d, "kernel32.dll"))
			for (k = 0; k < img->imports[i].nfuncs; k++) {
				const char *f = img->imports[i].funcs[k].name;
				*add_dll_dir |= f && !strcmp(f, "AddDllDirectory");
				*set_dll_dir |= f && (!strcmp(f, "SetDllDirectoryW") || !strcmp(f, "SetDllDirectoryA"));
			}
	}
	pe_close(img);
	return r;
}

/*
 * A cx_Freeze app: the executable imports pythonXY.dll, found beside it, and lib\library.zip is there
 * (frozen.h). 1 with app filled, 0 when not one.
 */
static int cxfreeze_open(struct frozen_app *app, struct view *v, const char *host)
{
	char py[64], *dir = winpath_dirname(app->exe), *pydll;
	int add = 0, set = 0, ok;
	ok = has_cx_lib(v, dir) && imports_python(host, py, &add, &set);
	pydll = ok ? winpath_join(dir, py) : NULL;
	ok = ok && view_is_file(v, pydll);
	if (!ok) {
		free(pydll);
		free(dir);
		return 0;
	}
	app->freezer = "cx_Freeze";
	app->python_static = 1;
	app->python_dll = pydll;
	app->home = dir;
	app->add_dir = winpath_join(dir, "lib");
	if (add) {
		app->generation = "6.16 or later";
		app->evidence = "the base imports AddDllDirectory (cx_Freeze 6.16 and later)";
	} else {
		app->generation = "before 6.16";
		app->evidence = set ? "the base imports SetDllDirectoryW (before cx_Freeze 6.16)"
				    : "the base imports neither AddDllDirectory nor SetDllDirectoryW";
		if (set) { /* SetDllDirectoryW(lib) */
			free(app->add_dir);
			app->add_dir = NULL;
			app->set_dir = winpath_join(dir, "lib");
		}
	}
	snprintf(app->what, sizeof(app->what), "cx_Freeze %s", app->generation);
	app->torch_dir = winpath_join(dir, "lib\\torch");
	if (!view_is_dir(v, app->torch_dir)) {
		free(app->torch_dir);
		app->torch_dir = NULL;
	}
	{
		unsigned maj = 0, min = 0;
		if (sscanf(py, "python%1u%u", &maj, &min) == 2)
			app->python_version = maj * 100 + min;
	}
	return 1;
}

int frozen_app_open(struct frozen_app *app, struct view *v, const char *win, struct err *err)
{
	char *host = NULL, *dir;
	int r = -1;
	memset(app, 0, sizeof(*app));
	if (view_is_dir(v, win)) {
		if (!(app->exe = launcher_in(v, win)))
			return err_set(err, "%s: no frozen app's executable in this folder (an .exe with the archive "
					    "PyInstaller appends, or cx_Freeze's beside lib\\library.zip; two are "
					    "ambiguous: name the one)",
				       win);
	} else if (view_is_file(v, win)) {
		app->exe = winpath_normalize(win);
	} else {
		return err_set(err, "%s: no such file or folder", win);
	}
	if (!(host = view_host_path(v, app->exe)))
		return err_set(err, "%s: cannot be read", app->exe);
	if (os_map_file(&app->map, host, err)) {
		free(host);
		return -1;
	}
	if (!pyi_archive_has_cookie(span_make(app->map.data, app->map.size)) && cxfreeze_open(app, v, host)) {
		r = 0;
		goto out;
	}
	if (pyi_archive_parse(&app->ar, span_make(app->map.data, app->map.size), err)) {
		char msg[ERR_MSG_MAX];
		memcpy(msg, err->msg, sizeof(msg));
		err_set(err, "%s: %s", app->exe, msg);
		goto out;
	}
	app->freezer = "PyInstaller";
	app->python_version = app->ar.python_version;
	app->onefile = app->ar.onefile;
	app->nentries = app->ar.n;
	if (app->ar.contents_dir) {
		app->generation = "6.x";
		app->evidence = "the archive's pyi-contents-directory option (PyInstaller 6.0 and later)";
	} else if (has_bytes(span_make(app->map.data, app->map.size), (size_t)app->ar.pkg_offset, "pyi-contents-directory")) {
		app->generation = "6.x";
		app->evidence = "the bootloader reads a pyi-contents-directory option (PyInstaller 6.0 and later)";
	} else {
		app->generation = "5.x or older";
		app->evidence = "the bootloader knows no pyi-contents-directory option (before PyInstaller 6.0)";
	}
	if (!app->ar.python_libname[0] || strchr(app->ar.python_libname, '\\') ||
	    strchr(app->ar.python_libname, '/') || strchr(app->ar.python_libname, ':')) {
		err_set(err, "%s: the archive names no Python DLL", app->exe);
		goto out;
	}
	snprintf(app->what, sizeof(app->what), "PyInstaller %s %s", app->generation,
		 app->onefile ? "onefile" : "onedir");
	if (app->onefile) {
		char msg[ERR_MSG_MAX];
		if (mount_onefile(app, v, err)) {
			memcpy(msg, err->msg, sizeof(msg));
			err_set(err, "%s: a onefile build: %s", app->exe, msg);
			goto out;
		}
	} else {
		dir = winpath_dirname(app->exe);
		app->home = app->ar.contents_dir && strcmp(app->ar.contents_dir, ".")
				    ? winpath_join(dir, app->ar.contents_dir)
				    : xstrdup(dir);
		free(dir);
	}
	app->python_dll = winpath_join(app->home, app->ar.python_libname);
	app->ucrtbase = winpath_join(app->home, "ucrtbase.dll");
	if (!view_is_file(v, app->ucrtbase)) {
		free(app->ucrtbase);
		app->ucrtbase = NULL;
	}
	app->torch_dir = winpath_join(app->home, "torch");
	if (!view_is_dir(v, app->torch_dir)) {
		free(app->torch_dir);
		app->torch_dir = NULL;
	}
	r = 0;
out:
	if (!app->onefile || r) { /* a onefile build's mount reads the archive until the app is released */
		pyi_archive_release(&app->ar);
		os_unmap(&app->map);
		memset(&app->map, 0, sizeof(app->map));
	}
	free(host);
	return r;
}

/* The app of folder `dir` (its .exe files, in listing order) whose torch is `torch_dir`: 1 with app filled. */
static int app_in(struct frozen_app *app, struct view *v, const char *dir, const char *torch_dir)
{
	struct strlist names = STRLIST_INIT;
	size_t i;
	int r = 0;
	if (view_list_dir(v, dir, &names, NULL) == 0)
		for (i = 0; i < names.n && !r; i++) {
			char *exe;
			struct err e;
			if (!str_iendswith(names.v[i], ".exe"))
				continue;
			err_clear(&e);
			exe = winpath_join(dir, names.v[i]);
			r = frozen_app_open(app, v, exe, &e) == 0 && !app->onefile && app->torch_dir &&
			    !str_icmp(app->torch_dir, torch_dir);
			if (!r)
				frozen_app_release(app);
			free(exe);
		}
	strlist_release(&names);
	return r;
}

int frozen_app_of_torch(struct frozen_app *app, struct view *v, const char *torch_dir)
{
	char *home = winpath_dirname(torch_dir), *up;
	int r;
	memset(app, 0, sizeof(*app));
	/* PyInstaller's top-level folder holds base_library.zip beside torch, cx_Freeze's lib\\ library.zip */
	{
		char *bl = winpath_join(home, "base_library.zip"), *lz = winpath_join(home, "library.zip");
		int hit = view_is_file(v, bl) || view_is_file(v, lz);
		free(bl);
		free(lz);
		if (!hit) {
			free(home);
			return 0;
		}
	}
	/* PyInstaller 6.x and cx_Freeze: the executable one level up; PyInstaller 5.x: beside torch */
	up = winpath_dirname(home);
	r = app_in(app, v, up, torch_dir) || app_in(app, v, home, torch_dir);
	free(up);
	free(home);
	return r;
}

void frozen_app_release(struct frozen_app *app)
{
	size_t i;
	for (i = 0; i < app->nfds; i++)
		os_memfile_close(app->fds[i]);
	free(app->fds);
	free(app->mounted);
	pyi_archive_release(&app->ar);
	if (app->map.data || app->map.priv)
		os_unmap(&app->map);
	free(app->exe);
	free(app->home);
	free(app->python_dll);
	free(app->ucrtbase);
	free(app->torch_dir);
	free(app->add_dir);
	free(app->set_dir);
	memset(app, 0, sizeof(*app));
}
