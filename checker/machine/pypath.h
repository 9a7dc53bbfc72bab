/*
 * pypath: sys.path as CPython builds it on Windows for one python.exe, and
 * which folder on it `import NAME` takes a package from.
 *
 * The order is CPython's (docs/python.md cites the sources): Modules/getpath.py
 * (3.11+) computes the start — PYTHONPATH, python3XY.zip, DLLs, Lib, the
 * executable's folder, or, when a python3XY._pth / python._pth sits beside
 * the DLL or python.exe, only the paths that file lists; then Lib/site.py
 * adds the venv's site-packages (pyvenv.cfg), the user site (%APPDATA%\Python\
 * Python3XY\site-packages, the Store Python's LocalCache\local-packages) and
 * the install's own site-packages, each followed by the paths of its .pth
 * files. Everything is read through the view (view.h): files are read with
 * bounds (PYPATH_MAX_FILE), lines, entries and .pth files are capped, and
 * a path that leaves the tree is not there, as the view says. What Python
 * would run (`import` lines of a .pth) is said, never followed.
 *
 * The parsers of the four small formats (._pth, .pth, pyvenv.cfg, py.ini)
 * take bytes and never touch the view (tests/fuzz/fuzz_pypath.c).
 */
#ifndef TDC_PYPATH_H
#define TDC_PYPATH_H

#include <stddef.h>

#include "util/err.h"
#include "util/strbuf.h"

struct view;

#define PYPATH_MAX_FILE (64 * 1024) /* a ._pth, .pth, pyvenv.cfg or py.ini larger is not read, said */
#define PYPATH_MAX_LINE 4096        /* longer lines are skipped, said */
#define PYPATH_MAX_LINES 512        /* path lines kept per file */
#define PYPATH_MAX_ENTRIES 1024     /* sys.path entries kept */
#define PYPATH_MAX_PTH 256          /* .pth files read per site folder */
/* CPython 3.11+ reads a ._pth and pyvenv.cfg whole at start-up and stops with "cannot read file larger
 * than 32KB during initialization" at this many bytes (Modules/getpath.c, getpath_readlines) */
#define PYPATH_GETPATH_MAX (32 * 1024)

/* ---- the small formats ---- */

enum pyfile_kind {
	PYFILE_PTH_OVERRIDE, /* python3XY._pth: paths, "import site", '#' comments anywhere on a line */
	PYFILE_SITE_PTH,     /* a site folder's NAME.pth: paths, "import ..." lines run by site.py */
	PYFILE_PYVENV_CFG,   /* key = value lines */
	PYFILE_PY_INI,       /* [section] and key=value lines: the [defaults] section's keys */
};

struct pyfile {
	struct strlist lines; /* paths as written (the _pth and .pth kinds) or "key\tvalue" (key lowercased) */
	int import_site;      /* ._pth: an `import site` line */
	size_t imports;       /* import lines: ._pth's other ones (CPython warns), .pth ones (site.py runs them) */
	struct strlist notes; /* what was odd: bytes that are not UTF-8, long lines, lines over the cap */
};

void pyfile_init(struct pyfile *f);
void pyfile_release(struct pyfile *f);
/* Parses `len` bytes (not NUL-terminated) of one kind; never fails: what it skips it says in f->notes. */
void pyfile_parse(struct pyfile *f, enum pyfile_kind kind, const char *text, size_t len);
/* A "key\tvalue" line's value (pyvenv.cfg, py.ini), borrowed, or NULL: the last such line (site.py's reading)... */
const char *pyfile_value(const struct pyfile *f, const char *key);
/* ...or the first (getpath.py's reading of `home`). */
const char *pyfile_first(const struct pyfile *f, const char *key);

/* ---- sys.path ---- */

struct pypath_entry {
	char *path; /* a Windows path */
	char *from; /* why it is there: "PYTHONPATH", "python311.zip", "DLLs", "Lib", "python.exe's folder",
		       "python311._pth", "venv site-packages", "user site", "site-packages", "NAME.pth in DIR" */
	int site;   /* a site folder (site.py read its .pth files) */
};

struct pypath {
	char *python;      /* the python.exe asked about */
	char *version;     /* "3.11" (python3XY.dll beside it or its base), or NULL */
	char *home;        /* the base install (pyvenv.cfg home, PYTHONHOME, the ._pth's folder, else python.exe's) */
	char *venv;        /* the venv folder (pyvenv.cfg), or NULL */
	int system_site;   /* venv: include-system-site-packages = true */
	char *pth;         /* the ._pth in effect, or NULL */
	int site;          /* site.py runs (no ._pth, or its `import site` line) */
	int user_site;     /* the user site is on sys.path's recipe (enabled, whether or not it exists) */
	char *user_site_off; /* why it is not: "PYTHONNOUSERSITE is set", "-s", "a venv without ...", ... */
	char *user_base;   /* site.USER_BASE: PYTHONUSERBASE, the Store package's local-packages, %APPDATA%\Python */
	char *user_base_from;
	char *user_sitepk; /* site.USER_SITE, or NULL (no version known) */
	char *store_family; /* the Microsoft Store package family (PythonSoftwareFoundation.Python.3.11_...) */
	struct pypath_entry *e;
	size_t n, alloc;
	size_t dropped;       /* entries past PYPATH_MAX_ENTRIES, not looked at */
	char *cannot_start;   /* why python.exe stops before sys.path exists (then it is empty), or NULL */
	struct strlist notes; /* what was not followed or could not be read, one sentence each */
};

struct pypath_opts {
	int no_user_site; /* python -s */
};

void pypath_init(struct pypath *pp);
void pypath_release(struct pypath *pp);

/*
 * Builds sys.path for `python` (a Windows path of python.exe on the view)
 * with the machine's environment (view_getenv: PYTHONPATH, PYTHONHOME,
 * PYTHONNOUSERSITE, PYTHONUSERBASE, APPDATA, LOCALAPPDATA). 0, or -1 with
 * err when python.exe is not there. The script's own folder, which Python
 * puts first, is not known here (the notes say so).
 */
int pypath_build(struct pypath *pp, struct view *v, const char *python, const struct pypath_opts *o,
		 struct err *err);

/* One place a package is found on sys.path. */
struct pypath_hit {
	size_t entry; /* index into pp->e */
	char *dir;    /* ENTRY\NAME: a folder with __init__.py (a regular package) */
};

/*
 * Every regular package `name` on sys.path, in sys.path order: the first is
 * what `import name` imports, the others are shadowed by it. Folders NAME
 * without __init__ (namespace portions, which the import system passes over
 * while a regular package follows) are hits only with `portions` (every
 * folder NAME). Returns the count; *hits is the caller's (pypath_hits_free).
 */
size_t pypath_find_package(const struct pypath *pp, struct view *v, const char *name, int portions,
			   struct pypath_hit **hits);
void pypath_hits_free(struct pypath_hit *hits, size_t n);

/* Which entry a folder is (case-insensitively), or -1. */
long pypath_entry_of(const struct pypath *pp, const char *dir);

#endif
