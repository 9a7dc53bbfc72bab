/*
 * req_pyproject: pyproject.toml, the pins of PEP 621 [project] dependencies
 * and optional-dependencies, PEP 735 [dependency-groups], [build-system]
 * requires, [tool.setuptools.dynamic] files (as includes), [tool.poetry]
 * (req_poetry.c) and [tool.uv]'s dependency lists, indexes and sources.
 */
#include "pins/req_pyproject.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"
#include "pins/req_poetry.h"
#include "pins/req_toml.h"
#include "pins/req_markers.h"

/* [tool.setuptools.dynamic] dependencies = { file = ["requirements.txt"] }: includes. */
static int dynamic_file_includes(struct req_file *f, const struct toml *dyn, struct err *err)
{
	const struct toml *file = toml_get(dyn, "file");
	size_t i, n;
	if (!file)
		return 0;
	n = file->type == TOML_ARRAY ? file->n_items : 1;
	for (i = 0; i < n; i++) {
		const struct toml *v = file->type == TOML_ARRAY ? file->items[i] : file;
		struct posmap map = { NULL, 0, 0 };
		struct req_ctx r;
		int rc;
		if (v->type != TOML_STRING)
			return req_ferr(f, err, v->line, v->col, "[tool.setuptools.dynamic] file must be a string or an array of strings");
		posmap_add(&map, 0, v->line, v->col);
		memset(&r, 0, sizeof(r));
		r.f = f;
		r.err = err;
		r.map = &map;
		rc = req_add_include(f, &r, 0, v->str, 0);
		free(map.v);
		if (rc)
			return -1;
	}
	return 0;
}

/* [tool.uv]: its dependency lists, [[tool.uv.index]] and [tool.uv.sources]. */
static int parse_uv(struct req_file *f, const struct toml *uv, struct err *err)
{
	const struct toml *index = toml_get(uv, "index"), *sources = toml_get(uv, "sources");
	size_t i, j;

	if (req_toml_want(f, uv, TOML_TABLE, "[tool.uv]", err) ||
	    req_toml_record_indexes(f, index, "[[tool.uv.index]]", err) ||
	    req_toml_array(f, toml_get(uv, "dev-dependencies"), "[tool.uv] dev-dependencies", PIN_SRC_UV, "dev", err) ||
	    req_toml_array(f, toml_get(uv, "constraint-dependencies"), "[tool.uv] constraint-dependencies",
			   PIN_SRC_UV, "constraint", err) ||
	    req_toml_array(f, toml_get(uv, "override-dependencies"), "[tool.uv] override-dependencies",
			   PIN_SRC_UV, "override", err))
		return -1;
	if (sources && req_toml_want(f, sources, TOML_TABLE, "[tool.uv.sources]", err))
		return -1;
	/* [tool.uv.sources] torch = { index = "pytorch-cu121" } (or a list with markers):
	 * the pins of that package install from that index. */
	for (i = 0; sources && i < sources->n_kv; i++) {
		struct strbuf nb = STRBUF_INIT;
		const struct toml *s = sources->kv[i].val;
		const char *iname = NULL;
		req_normalize_name(sources->kv[i].key, strlen(sources->kv[i].key), &nb);
		if (s->type == TOML_TABLE)
			iname = toml_str(toml_get(s, "index"));
		else if (s->type == TOML_ARRAY) {
			/* Several sources by marker: take the one that applies on Windows. */
			for (j = 0; j < s->n_items && !iname; j++) {
				const char *m = toml_str(toml_get(s->items[j], "marker"));
				if (!m || req_markers_on_windows(m) == 1)
					iname = toml_str(toml_get(s->items[j], "index"));
			}
		}
		for (j = 0; iname && j < f->n_pins; j++)
			if (!strcmp(f->pins[j].name, nb.buf))
				req_set_index(&f->pins[j], req_toml_index_by_name(index, iname));
		strbuf_release(&nb);
	}
	return 0;
}

int req_parse_pyproject(struct req_file *f, const struct toml *root, struct err *err)
{
	const struct toml *proj = toml_get(root, "project"), *poetry = toml_path(root, "tool.poetry");
	const struct toml *uv = toml_path(root, "tool.uv"), *t;
	size_t i;

	if (proj && req_toml_want(f, proj, TOML_TABLE, "[project]", err))
		return -1;
	if (req_toml_array(f, toml_get(proj, "dependencies"), "[project] dependencies", PIN_SRC_PROJECT, NULL, err) ||
	    req_toml_table_of_arrays(f, toml_get(proj, "optional-dependencies"), "[project.optional-dependencies]",
				     PIN_SRC_OPTIONAL, err) ||
	    req_toml_table_of_arrays(f, toml_get(root, "dependency-groups"), "[dependency-groups]", PIN_SRC_GROUP, err) ||
	    req_toml_array(f, toml_path(root, "build-system.requires"), "[build-system] requires", PIN_SRC_BUILD, NULL, err))
		return -1;
	t = toml_path(root, "tool.setuptools.dynamic");
	if (t && t->type == TOML_TABLE) {
		if (dynamic_file_includes(f, toml_get(t, "dependencies"), err))
			return -1;
		t = toml_get(t, "optional-dependencies");
		for (i = 0; t && t->type == TOML_TABLE && i < t->n_kv; i++)
			if (dynamic_file_includes(f, t->kv[i].val, err))
				return -1;
	}
	if (poetry && req_parse_poetry(f, poetry, err))
		return -1;
	if (uv && parse_uv(f, uv, err))
		return -1;
	return 0;
}
