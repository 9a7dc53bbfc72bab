/*
 * pyfind: the python.exe a person means (pyfind.h). PATH is searched as a
 * console does for `python`: each entry in order, python.exe in it. The
 * py launcher's choice follows the launcher's documentation ("Using Python
 * on Windows", the Python Launcher section) and PEP 514 (registry layout):
 * InstallPath's ExecutablePath value, else its default value + python.exe;
 * a registration without the default value is passed over (PC/launcher2.c).
 */
#include "machine/pyfind.h"

#include <stdlib.h>
#include <string.h>

#include "machine/pypath.h"
#include "machine/view.h"
#include "machine/winpath.h"
#include "util/os.h"
#include "util/text.h"

#define PEP514_KEY "SOFTWARE\\Python\\PythonCore"
/* A PATH Windows keeps holds at most 32,767 characters, so at most 8,192 absolute entries ("C:\;"):
 * the cap is never reached by a real machine's PATH, and said when --env gives a longer one */
#define PYFIND_MAX_PATH_ENTRIES 8192
#define PYFIND_MAX_PATH_ENTRIES_TEXT "8,192"

void pyfind_init(struct pyfind *f)
{
	memset(f, 0, sizeof(*f));
	strlist_init(&f->notes);
}

void pyfind_release(struct pyfind *f)
{
	free(f->python);
	free(f->why);
	strlist_release(&f->notes);
	pyfind_init(f);
}

/* "3.11" → 3, 11; "3.11-32" → 3, 11, suffix "-32". 0 when it is not MAJOR[.MINOR][-SUFFIX]. */
static int parse_tag(const char *t, long *maj, long *min, const char **suffix)
{
	char *end;
	if (!ascii_isdigit((unsigned char)t[0]))
		return 0;
	*maj = strtol(t, &end, 10);
	*min = -1;
	if (*end == '.') {
		if (!ascii_isdigit((unsigned char)end[1]))
			return 0;
		*min = strtol(end + 1, &end, 10);
	}
	if (*end && *end != '-')
		return 0;
	*suffix = end;
	return *maj >= 0 && *maj < 100 && *min < 1000;
}

/* A PATH entry as Windows takes it: surrounding quotes dropped; NULL for empty or relative ones. */
static char *path_entry(const char *s, size_t n)
{
	char *e, *norm;
	while (n && (*s == ' ' || *s == '"')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '"'))
		n--;
	if (!n)
		return NULL;
	e = xstrndup(s, n);
	if (!winpath_is_absolute(e)) {
		free(e);
		return NULL;
	}
	norm = winpath_normalize(e);
	free(e);
	return norm;
}

/* Newest "PythonSoftwareFoundation.Python.3.X_<publisher>" folder holding python.exe in `dir`, or NULL. */
static char *store_alias_family(struct view *v, const char *dir)
{
	struct strlist names = STRLIST_INIT;
	struct err e;
	char *best = NULL;
	long bmin = -1;
	size_t i;
	if (view_list_dir(v, dir, &names, &e))
		return NULL;
	for (i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		long min;
		char *sub, *exe = NULL;
		if (str_nicmp(n, "PythonSoftwareFoundation.Python.3.", 34) || !ascii_isdigit((unsigned char)n[34]))
			continue;
		min = strtol(n + 34, NULL, 10);
		sub = winpath_join(dir, n);
		if (min > bmin && view_find_file(v, sub, "python.exe", &exe)) {
			free(best);
			best = xstrdup(n);
			bmin = min;
		}
		free(exe);
		free(sub);
	}
	strlist_release(&names);
	return best;
}

/* The installed package folder of a Store family: C:\Program Files\WindowsApps\<Name>_<ver>_<arch>__<publisher>. */
static char *store_package_python(struct view *v, const char *family)
{
	static const char *const apps = "C:\\Program Files\\WindowsApps";
	struct strlist names = STRLIST_INIT;
	struct err e;
	const char *us = strrchr(family, '_');
	char *found = NULL;
	size_t i, nl;
	if (!us || view_list_dir(v, apps, &names, &e))
		return NULL;
	nl = (size_t)(us - family);
	for (i = 0; i < names.n && !found; i++) {
		const char *n = names.v[i], *dus = strstr(n, "__");
		char *sub;
		if (str_nicmp(n, family, nl) || n[nl] != '_' || !dus || str_icmp(dus + 2, us + 1))
			continue;
		sub = winpath_join(apps, n);
		view_find_file(v, sub, "python.exe", &found);
		free(sub);
	}
	strlist_release(&names);
	return found;
}

/*
 * A python.exe found on PATH in the folder of the execution aliases: the
 * Store package it stands for (0, f->python set), or the stub that opens the
 * Store (1: passed over, said).
 */
static int resolve_alias(struct pyfind *f, struct view *v, const char *dir, const char *exe)
{
	char *fam = store_alias_family(v, dir), *pkg;
	if (!fam) {
		strlist_pushf(&f->notes, "%s is the execution alias that opens the Microsoft Store (no Store Python "
					 "is installed): passed over, as `python` there runs nothing",
			      exe);
		return 1;
	}
	pkg = store_package_python(v, fam);
	if (pkg) {
		f->python = pkg;
		f->why = xasprintf("the first python.exe on PATH: %s, the execution alias of the Microsoft Store "
				   "Python %s",
				   exe, fam);
	} else {
		f->python = xasprintf("%s\\%s\\python.exe", dir, fam);
		f->why = xasprintf("the first python.exe on PATH: %s, the execution alias of the Microsoft Store "
				   "Python %s (its package folder under C:\\Program Files\\WindowsApps is not in this "
				   "tree)",
				   exe, fam);
	}
	free(fam);
	return 0;
}

static int from_path(struct pyfind *f, struct view *v)
{
	const char *path = view_getenv(v, "PATH"), *s;
	size_t k = 0;
	if (!path)
		return 1;
	for (s = path; *s && k < PYFIND_MAX_PATH_ENTRIES; k++) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		char *dir = path_entry(s, n), *exe = NULL;
		s += n + (semi != NULL);
		if (!dir)
			continue;
		if (view_find_file(v, dir, "python.exe", &exe)) {
			int alias = !str_icmp(winpath_basename(dir), "WindowsApps") &&
				    str_iendswith(dir, "\\Microsoft\\WindowsApps");
			if (!alias) {
				f->python = exe;
				f->why = xstrdup("the first python.exe on PATH");
				free(dir);
				return 0;
			}
			if (resolve_alias(f, v, dir, exe) == 0) {
				free(exe);
				free(dir);
				return 0;
			}
		}
		free(exe);
		free(dir);
	}
	if (*s) {
		strlist_pushf(&f->notes, "PATH has more than %d entries (more than Windows' 32,767 characters hold): "
					 "the rest were not searched for python.exe", PYFIND_MAX_PATH_ENTRIES);
		return 2;
	}
	return 1;
}

/* py.exe: on PATH, else where the installers put it. NULL when none. */
static char *find_py(struct view *v)
{
	const char *path = view_getenv(v, "PATH"), *lad = view_getenv(v, "LOCALAPPDATA"), *s;
	char *exe = NULL, *cand;
	size_t k = 0;
	for (s = path ? path : ""; *s && k < PYFIND_MAX_PATH_ENTRIES; k++) {
		const char *semi = strchr(s, ';');
		size_t n = semi ? (size_t)(semi - s) : strlen(s);
		char *dir = path_entry(s, n);
		s += n + (semi != NULL);
		if (dir && view_find_file(v, dir, "py.exe", &exe)) {
			free(dir);
			return exe;
		}
		free(dir);
	}
	if (view_find_file(v, view_windows_dir(v), "py.exe", &exe))
		return exe;
	if (lad) {
		cand = xasprintf("%s\\Programs\\Python\\Launcher", lad);
		if (view_find_file(v, cand, "py.exe", &exe)) {
			free(cand);
			return exe;
		}
		free(cand);
	}
	return NULL;
}

/* [defaults] python= of one py.ini, or NULL; its oddities go to notes. */
static char *ini_default(struct pyfind *f, struct view *v, const char *ini)
{
	struct strbuf sb = STRBUF_INIT;
	struct pyfile pf;
	struct err e;
	char *host, *out = NULL;
	int r;
	size_t i;
	if (!view_is_file(v, ini) || !(host = view_host_path(v, ini)))
		return NULL;
	err_clear(&e);
	r = os_read_small_file(host, PYPATH_MAX_FILE, &sb, &e);
	free(host);
	if (r == 2)
		strlist_pushf(&f->notes, "%s is larger than %d KiB: not read", ini, PYPATH_MAX_FILE / 1024);
	else if (r < 0)
		strlist_pushf(&f->notes, "%s cannot be read: %s", ini, e.msg);
	if (r) {
		strbuf_release(&sb);
		return NULL;
	}
	pyfile_init(&pf);
	pyfile_parse(&pf, PYFILE_PY_INI, sb.buf, sb.len);
	for (i = 0; i < pf.notes.n; i++)
		strlist_pushf(&f->notes, "%s: %s", ini, pf.notes.v[i]);
	if (pyfile_value(&pf, "python") && *pyfile_value(&pf, "python"))
		out = xstrdup(pyfile_value(&pf, "python"));
	pyfile_release(&pf);
	strbuf_release(&sb);
	return out;
}

struct pep514 {
	char *tag, *exe;
	long maj, min;
	const char *suffix;
	int view;
};

static int tag_matches(const struct pep514 *r, long maj, long min, const char *suffix);

/*
 * The registrations of one registry view that answer the spec (want_*) and
 * whose python.exe is on the machine. Every tag is looked at (the first 256
 * alone hid a 3.11 registered after 50,000 others); the ones passed over
 * because their python.exe is not there are said, the first PEP514_MAX_SAID
 * of them one by one, then counted.
 */
#define PEP514_MAX_SAID 8
static void pep514_list(struct pyfind *f, struct view *v, int regview, long want_maj, long want_min,
			const char *want_suffix, size_t *gone, struct pep514 **out, size_t *n, size_t *alloc)
{
	struct strlist tags = STRLIST_INIT;
	struct err e;
	size_t i;
	err_clear(&e);
	if (view_reg_subkeys(v, PEP514_KEY, regview, &tags, &e) != 0)
		return;
	for (i = 0; i < tags.n; i++) {
		struct strbuf val = STRBUF_INIT;
		char *key, *exe = NULL;
		long maj, min;
		const char *suffix;
		struct pep514 probe;
		if (!parse_tag(tags.v[i], &maj, &min, &suffix))
			continue;
		probe.tag = tags.v[i];
		probe.maj = maj;
		probe.min = min;
		if (!tag_matches(&probe, want_maj, want_min, want_suffix))
			continue;
		key = xasprintf("%s\\%s\\InstallPath", PEP514_KEY, tags.v[i]);
		/* launcher2.c's _registryReadEnvironment: no InstallPath default value, no environment, even
		 * with an ExecutablePath */
		if (view_reg_get(v, key, "", regview, &val, &e) == 0 && val.len) {
			char *d = winpath_normalize(val.buf);
			strbuf_reset(&val);
			if (view_reg_get(v, key, "ExecutablePath", regview, &val, &e) == 0 && val.len)
				exe = winpath_normalize(val.buf);
			else
				exe = winpath_join(d, "python.exe");
			free(d);
		} else if ((*gone)++ < PEP514_MAX_SAID) {
			strlist_pushf(&f->notes, "PEP 514 registration PythonCore\\%s has no InstallPath default value: "
						 "the py launcher passes it over", tags.v[i]);
		}
		strbuf_release(&val);
		free(key);
		if (!exe)
			continue;
		if (!view_is_file(v, exe)) {
			if ((*gone)++ < PEP514_MAX_SAID)
				strlist_pushf(&f->notes, "PEP 514 registration PythonCore\\%s names %s, which is not there",
					      tags.v[i], exe);
			free(exe);
			continue;
		}
		ALLOC_GROW(*out, *n + 1, *alloc);
		(*out)[*n].tag = xstrdup(tags.v[i]);
		(*out)[*n].exe = exe;
		(*out)[*n].maj = maj;
		(*out)[*n].min = min;
		(*out)[*n].view = regview;
		(*n)++;
	}
	strlist_release(&tags);
}

/* Whether registration r answers spec (maj, min or -1, suffix or ""). */
static int tag_matches(const struct pep514 *r, long maj, long min, const char *suffix)
{
	const char *rs = strchr(r->tag, '-');
	if (r->maj != maj || (min >= 0 && r->min != min))
		return 0;
	if (*suffix)
		return rs && !str_icmp(rs, suffix);
	return 1;
}

/* Better: newer, then 64-bit (no "-32" suffix) first, then the 64-bit registry view. */
static int better(const struct pep514 *a, const struct pep514 *b)
{
	int a32 = strstr(a->tag, "-32") != NULL, b32 = strstr(b->tag, "-32") != NULL;
	if (a->maj != b->maj)
		return a->maj > b->maj;
	if (a->min != b->min)
		return a->min > b->min;
	if (a32 != b32)
		return !a32;
	return a->view == 64 && b->view != 64;
}

int pyfind_launcher(struct pyfind *f, struct view *v, const char *spec, struct err *err)
{
	struct pep514 *regs = NULL;
	size_t n = 0, alloc = 0, i, gone = 0;
	char *py = find_py(v), *chosen_spec = NULL, *spec_from = NULL;
	const struct pep514 *best = NULL;
	long maj = 3, min = -1;
	const char *suffix = "";
	int r = -1;

	if (!spec || !*spec) {
		const char *venv = view_getenv(v, "VIRTUAL_ENV"), *env = view_getenv(v, "PY_PYTHON"),
			   *lad = view_getenv(v, "LOCALAPPDATA");
		char *exe = NULL;
		if (venv && *venv && winpath_is_absolute(venv)) {
			char *scripts = xasprintf("%s\\Scripts", venv);
			if (view_find_file(v, scripts, "python.exe", &exe)) {
				f->python = exe;
				f->why = xstrdup("the py launcher's choice: the active virtual environment (VIRTUAL_ENV)");
				free(scripts);
				free(py);
				return 0;
			}
			strlist_pushf(&f->notes, "VIRTUAL_ENV names %s, which has no Scripts\\python.exe", venv);
			free(scripts);
		}
		if (env && *env) {
			chosen_spec = xstrdup(env);
			spec_from = xstrdup("PY_PYTHON");
		}
		if (!chosen_spec && lad) {
			char *ini = xasprintf("%s\\py.ini", lad);
			if ((chosen_spec = ini_default(f, v, ini)))
				spec_from = xasprintf("[defaults] python= of %s", ini);
			free(ini);
		}
		if (!chosen_spec && py) {
			char *d = winpath_dirname(py), *ini = winpath_join(d, "py.ini");
			if ((chosen_spec = ini_default(f, v, ini)))
				spec_from = xasprintf("[defaults] python= of %s", ini);
			free(ini);
			free(d);
		}
		spec = chosen_spec;
	}
	if (spec && *spec && !parse_tag(spec, &maj, &min, &suffix)) {
		char esc[80];
		err_set(err, "py launcher version \"%s\"%s%s: expected MAJOR[.MINOR][-32] (3, 3.11, 3.11-32)",
			text_excerpt(spec, strlen(spec), 40, esc, sizeof(esc)), spec_from ? " from " : "",
			spec_from ? spec_from : "");
		goto out;
	}
	pep514_list(f, v, 64, maj, min, suffix, &gone, &regs, &n, &alloc);
	pep514_list(f, v, 32, maj, min, suffix, &gone, &regs, &n, &alloc);
	if (gone > PEP514_MAX_SAID)
		strlist_pushf(&f->notes, "%zu more PEP 514 registrations name a python.exe that is not there",
			      gone - PEP514_MAX_SAID);
	for (i = 0; i < n; i++)
		if (!best || better(&regs[i], best))
			best = &regs[i];
	if (!best) {
		/* a registration passed over (its python.exe is not there) is the likely cause: say it */
		const char *said = NULL;
		for (i = 0; i < f->notes.n && !said; i++)
			if (!strncmp(f->notes.v[i], "PEP 514 registration ", 21))
				said = f->notes.v[i];
		err_set(err, "the py launcher finds no Python %s: no PEP 514 registration under HKLM\\%s matches%s "
			     "(per-user installs, registered under HKCU, are not read)%s%s",
			spec && *spec ? spec : "3", PEP514_KEY, view_has_registry(v) ? "" : " (no registry given)",
			said ? "; " : "", said ? said : "");
		goto out;
	}
	f->python = xstrdup(best->exe);
	f->why = xasprintf("the py launcher's choice%s%s%s%s: PEP 514 registration PythonCore\\%s%s", spec && *spec ? " of " : "",
			   spec && *spec ? spec : "", spec_from ? " from " : "", spec_from ? spec_from : "", best->tag,
			   best->view == 32 ? " (32-bit registry view)" : "");
	if (!py)
		strlist_push(&f->notes, "no py.exe on PATH, in the Windows folder or under %LOCALAPPDATA%\\Programs\\"
					"Python\\Launcher: the registrations were read as it would read them");
	r = 0;
out:
	for (i = 0; i < n; i++) {
		free(regs[i].tag);
		free(regs[i].exe);
	}
	free(regs);
	free(py);
	free(chosen_spec);
	free(spec_from);
	return r;
}

int pyfind_default(struct pyfind *f, struct view *v, struct err *err)
{
	struct err e;
	int capped = from_path(f, v);
	if (capped == 0)
		return 0;
	capped = capped == 2;
	err_clear(&e);
	if (pyfind_launcher(f, v, NULL, &e) == 0) {
		char *why = xasprintf("no python.exe on PATH; %s", f->why);
		free(f->why);
		f->why = why;
		return 0;
	}
	return err_set(err, "no python.exe %s the machine's PATH%s, and %s",
		       capped ? "in the first " PYFIND_MAX_PATH_ENTRIES_TEXT " entries of" : "on",
		       view_getenv(v, "PATH") ? "" : " (PATH is not set: --env PATH=...)", e.msg);
}
