/*
 * check_python: the python.exe `check` is about when it names no torch
 * folder: the one --python gives (a path, or a py launcher spec `py:3.11`,
 * `py`), else the one a person means (machine/pyfind.h); its sys.path as
 * CPython builds it (machine/pypath.h); the torch `import torch` picks on
 * it, the others found there being shadowed. The report's `interpreter`
 * object comes from here (report/result_python.h).
 */
#ifndef TDC_CHECK_PYTHON_H
#define TDC_CHECK_PYTHON_H

#include <cjson/cJSON.h>

#include "machine/pyfind.h"
#include "machine/pypath.h"

struct view;

struct check_python {
	struct pyfind find;
	struct pypath path;
	struct pypath_hit *hits; /* every torch package on sys.path, in order */
	size_t nhits;
	char **versions;         /* each hit's version (its dist-info), or NULL */
	char *chosen_by;
	int built;               /* path and hits were computed */
};

void check_python_init(struct check_python *cp);
void check_python_release(struct check_python *cp);

/* Whether a --python value is a launcher spec ("py", "py:3.11") rather than a path. */
int check_python_is_spec(const char *arg);

/*
 * The python.exe: --python's spec, or (arg NULL) the one a person means.
 * *python is a Windows path (caller frees). 0, or -1 after saying why (exit 2).
 */
int check_python_choose(struct check_python *cp, struct view *v, const char *arg, char **python);

/*
 * sys.path of `python` and the torch packages on it; how it was chosen
 * ("--python" when the caller named it). Returns the imported torch folder
 * (borrowed from cp), or NULL when sys.path holds none.
 */
const char *check_python_torch(struct check_python *cp, struct view *v, const char *python, int no_user_site);

/* sys.path's folders in order, appended to out (nothing when nothing was built). */
void check_python_sys_path(const struct check_python *cp, struct strlist *out);

/* The report's `interpreter` object (NULL when nothing was built). */
cJSON *check_python_json(const struct check_python *cp);

/*
 * --scan: every python.exe the installs belong to, and the one a person
 * means (pyfind_default), each with the torch packages on its sys.path (the
 * first imported, the others shadowed).
 */
struct inventory;
struct result_python_pair;
struct check_scan {
	struct result_python_pair *pairs;
	size_t n;
	struct strlist pythons, dirs; /* the strings the pairs point at */
	struct strlist userbases;     /* per python: a Store Python's user base (its launcher's), else "" */
};
void check_scan_init(struct check_scan *s);
void check_scan_release(struct check_scan *s);
void check_python_scan(struct check_scan *s, struct view *v, const struct inventory *inv);
/* The python.exe found whose sys.path imports torch_dir first, or NULL. */
const char *check_scan_importer(const struct check_scan *s, const char *torch_dir);
/* The user base a python.exe found runs with when it is not the default (a Store Python's), or NULL. */
const char *check_scan_userbase(const struct check_scan *s, const char *python);
/* `interpreters[]` of each install in the finished report (report/result_python.h). */
void check_scan_json(const struct check_scan *s, cJSON *doc);

#endif
