/*
 * gate_runner: which copy of a DLL the search on the runner finds, and the
 * Python whose folder it starts from (see gate_runner.h).
 */
#include "judge/gate_runner.h"

#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"
#include "util/strbuf.h"
#include "util/text.h"

void gate_copy_release(struct gate_copy *c)
{
	free(c->path);
	free(c->ver_text);
	free(c->error);
	memset(c, 0, sizeof(*c));
}

static void read_version(struct view *v, struct gate_copy *c)
{
	struct pe_image *img = NULL;
	struct err e;
	char *host = view_host_path(v, c->path);
	err_clear(&e);
	if (!host) {
		c->error = xstrdup("outside the view");
	} else if (pe_open(&img, host, PE_VERSION, &e)) {
		c->error = xstrdup(e.msg);
	} else if (img->version.present && img->version.has_fixed) {
		struct strbuf sb = STRBUF_INIT;
		memcpy(c->ver.part, img->version.file, sizeof(c->ver.part));
		c->ver.nparts = 4;
		c->has_ver = 1;
		winver_format(&c->ver, 1, &sb);
		c->ver_text = strbuf_detach(&sb);
	}
	pe_close(img);
	free(host);
}

/* A profile's machine: its System32 holds exactly the DLLs the profile lists, with their versions. */
static int profile_search(const struct matrix_profile *p, const char *dll, struct gate_copy *c)
{
	const struct matrix_profile_dll *d = matrix_profile_dll(p, dll);
	if (!d)
		return 0;
	c->path = xasprintf("C:\\Windows\\System32\\%s", d->name);
	c->where = "System32";
	if (d->version.set) {
		struct strbuf sb = STRBUF_INIT;
		c->ver = d->version.v;
		c->has_ver = 1;
		winver_format(&c->ver, 1, &sb);
		c->ver_text = strbuf_detach(&sb);
	} else {
		c->error = xasprintf("profile %s lists it without a version", p->name);
	}
	return 1;
}

/* The first copy of `dll` the search finds: 1 found (c filled), 0 nowhere. */
static int search(const struct gate_runner *r, const char *dll, struct gate_copy *c)
{
	char *dirs[3] = { NULL, NULL, NULL };
	const char *labels[3] = { "python.exe's folder", "the environment's Library\\bin", "System32" };
	size_t i;
	int found = 0;
	memset(c, 0, sizeof(*c));
	if (r->profile)
		return profile_search(r->profile, dll, c);
	if (r->python) {
		dirs[0] = winpath_dirname(r->python);
		dirs[1] = winpath_join(dirs[0], "Library\\bin");
	}
	dirs[2] = xstrdup(view_system32(r->v));
	for (i = 0; i < 3 && !found; i++) {
		char *wp = NULL;
		if (dirs[i] && view_find_file(r->v, dirs[i], dll, &wp) == 1) {
			c->path = wp;
			c->where = labels[i];
			read_version(r->v, c);
			found = 1;
		} else {
			free(wp);
		}
	}
	for (i = 0; i < 3; i++)
		free(dirs[i]);
	return found;
}

void gate_copies_release(struct gate_copies *cc)
{
	size_t i;
	for (i = 0; i < cc->n; i++) {
		free(cc->v[i].dll);
		gate_copy_release(&cc->v[i].c);
	}
	free(cc->v);
	memset(cc, 0, sizeof(*cc));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* search(), through the cache; *c is the caller's copy (gate_copy_release it). */
int gate_runner_find(struct gate_copies *cc, const struct gate_runner *r, const char *dll, struct gate_copy *c)
{
	size_t i;
	struct gate_cached *e = NULL;
	for (i = 0; i < cc->n && !e; i++)
		if (!str_icmp(cc->v[i].dll, dll))
			e = &cc->v[i];
	if (!e) {
		ALLOC_GROW(cc->v, cc->n + 1, cc->alloc);
		e = &cc->v[cc->n++];
		e->dll = xstrdup(dll);
		e->found = search(r, dll, &e->c);
	}
	*c = e->c;
	c->path = dup_or_null(e->c.path);
	c->ver_text = dup_or_null(e->c.ver_text);
	c->error = dup_or_null(e->c.error);
	return e->found;
}

/* Where the search looks, for messages (caller frees). */
char *gate_searched_text(const struct gate_runner *r, const char *from)
{
	if (!r->python)
		return xstrdup("System32; no --python was given and no python.exe is on PATH, so a Python's own copies "
			       "are not known");
	return xasprintf("the folder of %s (%s), its Library\\bin and System32", r->python,
			 !strcmp(from, "--python") ? "--python" : !strcmp(from, "PATH") ? "the python.exe on PATH"
											: "the active conda env");
}

/* An absolute folder's python.exe when it exists on the view (caller frees), else NULL. */
static char *python_in(struct view *v, const char *dir, size_t len)
{
	char *d = xstrndup(dir, len), *p = NULL;
	if (winpath_is_absolute(d)) {
		p = winpath_join(d, "python.exe");
		if (!view_is_file(v, p)) {
			free(p);
			p = NULL;
		}
	}
	free(d);
	return p;
}

/* The Python `pip install` would use here (see gate.h); *from says where it was found. Caller frees. */
char *gate_find_python(struct view *v, const char **from)
{
	const char *cp = view_getenv(v, "CONDA_PREFIX"), *path = view_getenv(v, "PATH");
	char *p;
	if (cp && (p = python_in(v, cp, strlen(cp)))) {
		*from = "%CONDA_PREFIX%";
		return p;
	}
	while (path && *path) {
		const char *semi = strchr(path, ';');
		size_t len = semi ? (size_t)(semi - path) : strlen(path);
		if ((p = python_in(v, path, len))) {
			*from = "PATH";
			return p;
		}
		path = semi ? semi + 1 : NULL;
	}
	return NULL;
}
