/*
 * req_toml: what the TOML pin-file dialects share (pyproject.toml's PEP 621,
 * PEP 735, Poetry and uv tables, Pipfile, and the lock files): type checks
 * with the file's line and column, arrays of PEP 508 strings, named index
 * lists, and Poetry's and Pipfile's `name = "spec"` / `name = { ... }` tables.
 */
#include "pins/req_toml.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"
#include "pins/req_markers.h"
#include "pins/poetry_spec.h"

int req_toml_want(const struct req_file *f, const struct toml *t, enum toml_type type, const char *what,
		  struct err *err)
{
	if (t->type == type)
		return 0;
	return req_ferr(f, err, t->line, t->col, "%s must be %s, not %s", what, toml_type_name(type),
			toml_type_name(t->type));
}

int req_toml_array(struct req_file *f, const struct toml *arr, const char *what, enum pin_source src,
		   const char *group, struct err *err)
{
	size_t i;
	if (!arr)
		return 0;
	if (req_toml_want(f, arr, TOML_ARRAY, what, err))
		return -1;
	for (i = 0; i < arr->n_items; i++) {
		const struct toml *v = arr->items[i];
		if (src == PIN_SRC_GROUP && v->type == TOML_TABLE && toml_get(v, "include-group"))
			continue;
		if (v->type != TOML_STRING)
			return req_ferr(f, err, v->line, v->col, "%s must hold requirement strings, not %s", what,
					toml_type_name(v->type));
		if (req_parse_string(f, v->str, v->line, v->col, src, group, NULL, err))
			return -1;
	}
	return 0;
}

int req_toml_table_of_arrays(struct req_file *f, const struct toml *t, const char *what,
			     enum pin_source src, struct err *err)
{
	size_t i;
	if (!t)
		return 0;
	if (req_toml_want(f, t, TOML_TABLE, what, err))
		return -1;
	for (i = 0; i < t->n_kv; i++) {
		char *w = xasprintf("%s.%s", what, t->kv[i].key);
		int rc = req_toml_array(f, t->kv[i].val, w, src, t->kv[i].key, err);
		free(w);
		if (rc)
			return -1;
	}
	return 0;
}

/* name -> URL of a [[tool.poetry.source]] / [[tool.uv.index]] / Pipfile [[source]] list. */
const char *req_toml_index_by_name(const struct toml *aot, const char *name)
{
	size_t i;
	if (!aot || aot->type != TOML_ARRAY || !name)
		return NULL;
	for (i = 0; i < aot->n_items; i++) {
		const char *n = toml_str(toml_get(aot->items[i], "name"));
		if (n && !strcmp(n, name))
			return toml_str(toml_get(aot->items[i], "url"));
	}
	return NULL;
}

int req_toml_record_indexes(struct req_file *f, const struct toml *aot, const char *what, struct err *err)
{
	size_t i;
	if (!aot)
		return 0;
	if (req_toml_want(f, aot, TOML_ARRAY, what, err))
		return -1;
	for (i = 0; i < aot->n_items; i++) {
		const char *u = toml_str(toml_get(aot->items[i], "url"));
		if (u)
			strlist_push(&f->indexes, u);
	}
	return 0;
}

/* The version string of a keyed dependency: spec, PEP 440 form (Poetry's translated), exact version. */
static int keyed_version(struct req_file *f, struct pin *p, const char *name, const struct toml *ver, int poetry,
			 struct err *err)
{
	char why[ERR_MSG_MAX];
	size_t col;
	if (!strcmp(ver->str, "*") || !ver->str[0])
		return 0;
	p->spec = req_strip_spaces(ver->str, strlen(ver->str));
	p->pep440 = poetry ? req_poetry_to_pep440(ver->str) : xstrdup(p->spec);
	if (!poetry && req_check_specifier(p->spec, strlen(p->spec)) != (size_t)-1)
		return req_ferr(f, err, ver->line, ver->col, "invalid version specifier '%s' for \"%s\"", p->spec, name);
	if (p->pep440 && req_pep440_check(p->pep440, why, sizeof(why), &col)) {
		if (pin_is_torch(p))
			return req_ferr(f, err, ver->line, ver->col, "invalid version constraint '%s' for \"%s\": %s",
					p->spec, name, why);
		/* only torch's constraints are judged: another package's stays text (req_pep508.c says why) */
		free(p->pep440);
		p->pep440 = NULL;
	}
	p->form = PIN_FORM_SPEC;
	req_derive_from_spec(p);
	return 0;
}

/* markers, or Poetry's `platform`, or Pipfile's `sys_platform` ("== 'win32'"), checked for syntax. */
static int keyed_markers(struct req_file *f, struct pin *p, const char *name, const struct toml *v, int poetry,
			 struct err *err)
{
	const char *m = toml_str(toml_get(v, "markers"));
	const char *plat = toml_str(toml_get(v, "platform"));
	if (m)
		p->markers = xstrdup(m);
	else if (plat)
		p->markers = xasprintf("sys_platform == \"%s\"", plat);
	else if (!poetry && toml_str(toml_get(v, "sys_platform")))
		p->markers = xasprintf("sys_platform %s", toml_str(toml_get(v, "sys_platform")));
	if (p->markers && req_markers_on_windows(p->markers) == -2)
		return req_ferr(f, err, v->line, v->col, "invalid environment marker '%s' for \"%s\"", p->markers, name);
	return 0;
}

/* extras = ["a", "b"] as "a,b" (non-strings ignored). */
static void keyed_extras(struct pin *p, const struct toml *extras)
{
	struct strbuf eb = STRBUF_INIT;
	size_t i;
	if (!extras || extras->type != TOML_ARRAY)
		return;
	for (i = 0; i < extras->n_items; i++) {
		if (extras->items[i]->type != TOML_STRING)
			continue;
		if (eb.len)
			strbuf_addch(&eb, ',');
		strbuf_adds(&eb, extras->items[i]->str);
	}
	p->extras = eb.len ? strbuf_detach(&eb) : NULL;
	strbuf_release(&eb);
}

/* url / file / path: a direct reference, at the table's position. */
static int keyed_url(struct req_file *f, struct pin *p, const struct toml *v, struct err *err)
{
	const char *url = toml_str(toml_get(v, "url"));
	const char *file = toml_str(toml_get(v, "file"));
	const char *path = toml_str(toml_get(v, "path"));
	struct posmap map = { NULL, 0, 0 };
	struct req_ctx r;
	int rc;
	if (!url && !file && !path)
		return 0;
	posmap_add(&map, 0, v->line, v->col);
	memset(&r, 0, sizeof(r));
	r.f = f;
	r.err = err;
	r.map = &map;
	rc = req_apply_url(&r, p, url ? url : file ? file : path, 0);
	free(map.v);
	return rc;
}

/*
 * Poetry / Pipfile: `name = "spec"` or `name = { version = "...", ... }` (Poetry
 * also takes an array of such tables). `poetry` selects the dialect.
 */
static int keyed_dep(struct req_file *f, const char *name, const struct toml *v, enum pin_source src,
		     const char *group, const struct toml *sources, int poetry, struct err *err)
{
	struct strbuf nb = STRBUF_INIT;
	const struct toml *ver = NULL;
	const char *src_name;
	struct pin *p;
	size_t i;

	if (v->type == TOML_ARRAY && poetry) {
		for (i = 0; i < v->n_items; i++)
			if (keyed_dep(f, name, v->items[i], src, group, sources, poetry, err))
				return -1;
		return 0;
	}
	if (v->type == TOML_STRING)
		ver = v;
	else if (v->type == TOML_TABLE)
		ver = toml_get(v, "version");
	else
		return req_ferr(f, err, v->line, v->col, "dependency \"%s\" must be a version string or a table, not %s",
				name, toml_type_name(v->type));
	if (ver && ver->type != TOML_STRING)
		return req_ferr(f, err, ver->line, ver->col, "version of \"%s\" must be a string", name);
	p = req_add_pin(f, ver ? ver->line : v->line, ver ? ver->col : v->col, src, err);
	if (!p)
		return -1;
	req_normalize_name(name, strlen(name), &nb);
	p->name = strbuf_detach(&nb);
	if (group)
		p->group = xstrdup(group);
	if (ver && keyed_version(f, p, name, ver, poetry, err))
		return -1;
	p->raw = ver ? xasprintf("%s = \"%s\"", name, ver->str) : xasprintf("%s = {...}", name);
	if (v->type != TOML_TABLE)
		return 0;
	if (keyed_markers(f, p, name, v, poetry, err))
		return -1;
	keyed_extras(p, toml_get(v, "extras"));
	if (keyed_url(f, p, v, err))
		return -1;
	src_name = toml_str(toml_get(v, poetry ? "source" : "index"));
	if (src_name)
		req_set_index(p, req_toml_index_by_name(sources, src_name));
	return 0;
}

int req_toml_keyed_deps(struct req_file *f, const struct toml *t, const char *what, enum pin_source src,
			const char *group, const struct toml *sources, int poetry, struct err *err)
{
	size_t i;
	if (!t)
		return 0;
	if (req_toml_want(f, t, TOML_TABLE, what, err))
		return -1;
	for (i = 0; i < t->n_kv; i++) {
		if (poetry && !strcmp(t->kv[i].key, "python"))
			continue;
		if (keyed_dep(f, t->kv[i].key, t->kv[i].val, src, group, sources, poetry, err))
			return -1;
	}
	return 0;
}
