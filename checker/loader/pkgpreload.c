/*
 * pkgpreload: a package's preload inside `import torch` (see pkgpreload.h).
 * What it reads of the Python files is bounded: 1 MiB a file, 64 short names
 * of at most 47 characters, the generated assignments of _dist_info.py at
 * the start of a line; what it lists, at most PKG_LISTING_CAP entries.
 */
#include "loader/pkgpreload.h"

#include <stdlib.h>
#include <string.h>

#include "machine/winpath.h"
#include "util/os.h"
#include "util/strbuf.h"

#define PKG_LISTING_CAP 4096 /* site-packages entries looked at for ignored nonces; bin entries matched */
#define PKG_IGNORED_CAP 16

const char *pkg_preload_outcome_name(enum pkg_preload_outcome o)
{
	switch (o) {
	case PKG_PRELOAD_OK: return "ok";
	case PKG_PRELOAD_NO_MODULE: return "no-module";
	case PKG_PRELOAD_UNKNOWN_LIB: return "unknown-library";
	case PKG_PRELOAD_NO_PACKAGE: return "no-package";
	case PKG_PRELOAD_NO_FILE: return "no-file";
	case PKG_PRELOAD_LOAD_FAILED: return "load-failed";
	}
	return "?";
}

void pkg_preload_run_release(struct pkg_preload_run *r)
{
	free(r->site_packages);
	free(r->version);
	free(r->nonce);
	free(r->family);
	free(r->family_from);
	free(r->list_from);
	strlist_release(&r->names);
	strlist_release(&r->loaded);
	strlist_release(&r->ignored);
	free(r->library);
	free(r->missing);
	free(r->package);
	free(r->error_text);
	free(r->fix);
	memset(r, 0, sizeof(*r));
}

int pkg_preload_match(const char *p, const char *s)
{
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '*') {
			star = ++p;
			resume = s;
		} else if (*p && (*p | 0x20) == (*s | 0x20) && ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))) {
			p++;
			s++;
		} else if (*p && *p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++resume;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

/* A Python string literal at s ('...' or "...", no escapes kept beyond the quote): a copy, or NULL. */
static char *py_string(const char *s, size_t max)
{
	char q = *s;
	const char *e;
	if (q != '\'' && q != '"')
		return NULL;
	e = strchr(s + 1, q);
	if (!e || (size_t)(e - s - 1) > max || memchr(s + 1, '\n', (size_t)(e - s - 1)) || memchr(s + 1, '\\', (size_t)(e - s - 1)))
		return NULL;
	return xstrndup(s + 1, (size_t)(e - s - 1));
}

/* The value of `NAME = '...'` or `NAME: str = '...'` at the start of a line, the last one; or NULL. */
static char *py_assign(const char *text, const char *name)
{
	size_t n = strlen(name);
	const char *line = text;
	char *last = NULL;
	while (line && *line) {
		const char *p = line;
		if (!strncmp(p, name, n) && (p[n] == ' ' || p[n] == '=' || p[n] == ':')) {
			p += n;
			if (*p == ':') { /* a type annotation: up to '=' on this line */
				while (*p && *p != '=' && *p != '\n')
					p++;
			}
			while (*p == ' ')
				p++;
			if (*p == '=') {
				char *s;
				p++;
				while (*p == ' ')
					p++;
				if ((s = py_string(p, 200))) {
					free(last);
					last = s;
				}
			}
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return last;
}

/* The quoted names of `preload_shortnames=[...]` in _rocm_init.py, with the line of the list; 0 if none. */
static unsigned read_list(const char *text, struct strlist *out)
{
	const char *p = strstr(text, "preload_shortnames=["), *q;
	unsigned line = 1;
	if (!p)
		return 0;
	for (q = text; q < p; q++)
		line += *q == '\n';
	p += strlen("preload_shortnames=[");
	while (*p && *p != ']') {
		char *s;
		if (*p == '\'' || *p == '"') {
			if (!(s = py_string(p, 47)) || out->n >= PKG_PRELOAD_MAX_LIBS) {
				free(s);
				strlist_release(out);
				return 0;
			}
			p = strchr(p + 1, *p) + 1;
			strlist_push_owned(out, s);
		} else if (*p == ' ' || *p == ',' || *p == '\n' || *p == '\r' || *p == '\t') {
			p++;
		} else {
			strlist_release(out); /* not a plain list of literals: the matrix's list stands */
			return 0;
		}
	}
	if (*p != ']') {
		strlist_release(out);
		return 0;
	}
	return line;
}

/* "_" + dist with {target_family} replaced and - as _, + nonce. */
static char *py_package_name(const char *dist, const char *family, const char *nonce)
{
	struct strbuf b = STRBUF_INIT;
	const char *t = strstr(dist, "{target_family}");
	char *fam = family ? xstrndup(family, strcspn(family, ":")) : NULL, *p;
	strbuf_adds(&b, "_");
	if (t) {
		strbuf_add(&b, dist, (size_t)(t - dist));
		strbuf_adds(&b, fam ? fam : "");
		strbuf_adds(&b, t + strlen("{target_family}"));
	} else {
		strbuf_adds(&b, dist);
	}
	free(fam);
	p = strbuf_detach(&b);
	for (t = p; *t; t++) /* the dist name's - as _, not the nonce's (appended after, as _dist_info does) */
		if (*t == '-')
			p[t - p] = '_';
	if (nonce && *nonce) {
		char *q = xasprintf("%s%s", p, nonce);
		free(p);
		p = q;
	}
	return p;
}

static const struct pkg_preload_lib *find_lib(const struct pkg_preload *s, const char *name)
{
	size_t i;
	for (i = 0; i < s->nlibs; i++)
		if (!strcmp(s->libs[i].name, name))
			return &s->libs[i];
	return NULL;
}

static const char *dist_of(const struct pkg_preload *s, const char *logical, const char *overridden)
{
	size_t i;
	if (overridden)
		return overridden;
	for (i = 0; i < s->npackages; i++)
		if (!strcmp(s->packages[i].logical, logical))
			return s->packages[i].dist;
	return NULL;
}

/* site-packages entries that are the same dist's module with another nonce: said, never imported. */
static void note_ignored(struct pkg_preload_run *r, struct view *v, const struct strlist *names, const char *stem,
			 const char *used)
{
	size_t i, n = strlen(stem);
	for (i = 0; i < names->n && i < PKG_LISTING_CAP; i++) {
		const char *e = names->v[i];
		char *full;
		if (str_nicmp(e, stem, n) || !str_icmp(e, used) || r->ignored.n >= PKG_IGNORED_CAP)
			continue;
		if (e[n] && e[n] != '_')
			continue; /* _rocm_sdk_core_x, not _rocm_sdk_corex */
		full = winpath_join(r->site_packages, e);
		if (view_is_dir(v, full) && !strlist_has(&r->ignored, full))
			strlist_push(&r->ignored, full);
		free(full);
	}
}

static int cmp_ci(const void *a, const void *b)
{
	return str_icmp(*(const char *const *)a, *(const char *const *)b);
}

/* The entry's fix with {version}; without a version, "=={version}" (or {version}) dropped. */
static char *fix_text(const char *fix, const char *version)
{
	struct strbuf f = STRBUF_INIT;
	const char *p = strstr(fix, "{version}");
	if (!p)
		return xstrdup(fix);
	if (!version && p - fix >= 2 && !strncmp(p - 2, "==", 2))
		strbuf_add(&f, fix, (size_t)(p - 2 - fix));
	else
		strbuf_add(&f, fix, (size_t)(p - fix));
	strbuf_adds(&f, version ? version : "");
	strbuf_adds(&f, p + strlen("{version}"));
	return strbuf_detach(&f);
}

static void fail(struct pkg_preload_run *r, enum pkg_preload_outcome o, const char *lib, char *missing, char *text)
{
	r->outcome = o;
	r->library = lib ? xstrdup(lib) : NULL;
	r->missing = missing;
	r->error_text = text;
}

int pkg_preload_run(struct pkg_preload_run *r, const struct pkg_preload *spec, struct view *v, const char *torch_dir,
		    struct torch_run *run, pkg_preload_load_fn load)
{
	struct strbuf text = STRBUF_INIT, init = STRBUF_INIT;
	struct strlist site = STRLIST_INIT, done = STRLIST_INIT;
	char *when = winpath_join(torch_dir, spec->when_file), *mod, *di, *libs_over = NULL;
	const char *env;
	size_t i;
	unsigned line;
	memset(r, 0, sizeof(*r));
	strlist_init(&r->names);
	strlist_init(&r->loaded);
	strlist_init(&r->ignored);
	if (!*spec->when_file || !view_is_file(v, when)) {
		free(when);
		return 0;
	}
	r->spec = *spec;
	r->site_packages = winpath_dirname(torch_dir);
	/* the list: _rocm_init.py's own, else the matrix's */
	if (view_read_small(v, when, 1 << 20, &init) == 0 && (line = read_list(strbuf_str(&init), &r->names)) != 0) {
		r->list_from = xasprintf("%s:%u", when, line);
	} else {
		for (i = 0; i < spec->npreload; i++)
			strlist_push(&r->names, spec->preload[i]);
		r->list_from = xasprintf("the matrix's package_preload entry %s (%s: no plain preload_shortnames list)",
					 spec->entry, when);
	}
	mod = winpath_join(r->site_packages, spec->module);
	di = winpath_join(mod, spec->dist_info);
	if (!view_is_dir(v, mod) || !view_is_file(v, di)) {
		fail(r, PKG_PRELOAD_NO_MODULE, NULL, xstrdup(view_is_dir(v, mod) ? di : mod),
		     xasprintf("ModuleNotFoundError: No module named '%s'", spec->module));
		r->package = xstrdup(spec->module);
		goto out;
	}
	if (view_read_small(v, di, 1 << 20, &text) == 0) {
		const char *t = strbuf_str(&text), *o;
		r->version = py_assign(t, "__version__");
		r->nonce = py_assign(t, "PY_PACKAGE_SUFFIX_NONCE");
		/* kpack-split distributions make the libraries package arch-neutral (py_packaging.py) */
		if ((o = strstr(t, "ALL_PACKAGES[\"libraries\"].dist_package_template = ")))
			libs_over = py_string(o + strlen("ALL_PACKAGES[\"libraries\"].dist_package_template = "), 95);
		env = *spec->family_env ? view_getenv(v, spec->family_env) : NULL;
		if (env && *env && strlen(env) < 64) {
			r->family = xstrdup(env);
			r->family_from = xstrdup(spec->family_env);
		} else if ((r->family = py_assign(t, "DEFAULT_TARGET_FAMILY"))) {
			r->family_from = xasprintf("DEFAULT_TARGET_FAMILY of %s", di);
		}
	}
	view_list_dir(v, r->site_packages, &site, NULL);
	for (i = 0; i < r->names.n; i++) {
		const char *name = r->names.v[i];
		const struct pkg_preload_lib *lib = find_lib(spec, name);
		const char *dist;
		char *pkg, *pkgdir, *bin, *stem;
		struct strlist entries = STRLIST_INIT, matches = STRLIST_INIT;
		size_t k;
		int we, is_pkg;
		char *init_py;
		if (strlist_has(&done, name))
			continue; /* rocm_sdk's _ALL_CDLLS: a short name is loaded once */
		strlist_push(&done, name);
		if (!lib) {
			fail(r, PKG_PRELOAD_UNKNOWN_LIB, name, NULL,
			     xasprintf("ModuleNotFoundError: Unknown rocm library '%s'", name));
			break;
		}
		if (!*lib->pattern)
			continue; /* none on Windows: skipped */
		dist = dist_of(spec, lib->package, !strcmp(lib->package, "libraries") ? libs_over : NULL);
		if (!dist)
			continue;
		pkg = py_package_name(dist, r->family, r->nonce);
		pkgdir = winpath_join(r->site_packages, pkg);
		stem = py_package_name(dist, r->family, NULL);
		note_ignored(r, v, &site, stem, pkg);
		free(stem);
		init_py = winpath_join(pkgdir, "__init__.py");
		is_pkg = view_is_dir(v, pkgdir) && view_is_file(v, init_py);
		free(init_py);
		if (!is_pkg) {
			r->package = xstrdup(dist);
			fail(r, PKG_PRELOAD_NO_PACKAGE, name, pkgdir,
			     xstrdup("UnboundLocalError: cannot access local variable 'py_module' where it is not "
				     "associated with a value"));
			free(pkg);
			break;
		}
		bin = winpath_join(pkgdir, spec->folder);
		view_list_dir(v, bin, &entries, NULL);
		for (k = 0; k < entries.n && matches.n < PKG_LISTING_CAP; k++)
			if (pkg_preload_match(lib->pattern, entries.v[k]))
				strlist_push(&matches, entries.v[k]);
		strlist_release(&entries);
		if (!matches.n) {
			char *miss = winpath_join(bin, lib->pattern);
			fail(r, PKG_PRELOAD_NO_FILE, name, miss,
			     xasprintf("FileNotFoundError: Could not find rocm library '%s' at path '%s,' no match for "
				       "pattern '%s'", name, bin, lib->pattern));
			free(bin);
			free(pkg);
			free(pkgdir);
			break;
		}
		qsort(matches.v, matches.n, sizeof(*matches.v), cmp_ci);
		{
			char *path = winpath_join(bin, matches.v[0]);
			we = load(run, path);
			strlist_push(&r->loaded, path);
			if (we) {
				r->outcome = PKG_PRELOAD_LOAD_FAILED;
				r->library = xstrdup(name);
				r->error_text = we == 126 ? xasprintf("FileNotFoundError: Could not find module '%s' (or one "
								     "of its dependencies). Try using the full path "
								     "with constructor syntax.", path)
							  : xasprintf("OSError: [WinError %d]", we);
			}
			free(path);
		}
		strlist_release(&matches);
		free(bin);
		free(pkg);
		free(pkgdir);
		if (r->outcome != PKG_PRELOAD_OK)
			break;
	}
	r->listing_capped = site.n > PKG_LISTING_CAP;
out:
	if (*spec->fix)
		r->fix = fix_text(spec->fix, r->version);
	strlist_release(&done);
	strlist_release(&site);
	strbuf_release(&text);
	strbuf_release(&init);
	free(libs_over);
	free(mod);
	free(di);
	free(when);
	return 1;
}
