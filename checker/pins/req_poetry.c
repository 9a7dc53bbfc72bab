/*
 * req_poetry: Poetry's [tool.poetry] tables in pyproject.toml (dependencies,
 * dev-dependencies, groups, [[tool.poetry.source]]); its constraint
 * language is translated by poetry_spec.h.
 */
#include "pins/req_poetry.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"
#include "pins/req_toml.h"

/* [tool.poetry]: its sources, dependencies, dev-dependencies and groups. */
int req_parse_poetry(struct req_file *f, const struct toml *poetry, struct err *err)
{
	const struct toml *sources = toml_get(poetry, "source"), *t;
	size_t i;

	if (req_toml_record_indexes(f, sources, "[[tool.poetry.source]]", err) ||
	    req_toml_keyed_deps(f, toml_get(poetry, "dependencies"), "[tool.poetry.dependencies]", PIN_SRC_POETRY,
				NULL, sources, 1, err) ||
	    req_toml_keyed_deps(f, toml_get(poetry, "dev-dependencies"), "[tool.poetry.dev-dependencies]",
				PIN_SRC_POETRY, "dev", sources, 1, err))
		return -1;
	t = toml_get(poetry, "group");
	if (t && req_toml_want(f, t, TOML_TABLE, "[tool.poetry.group]", err))
		return -1;
	for (i = 0; t && i < t->n_kv; i++) {
		char *w = xasprintf("[tool.poetry.group.%s.dependencies]", t->kv[i].key);
		int rc = req_toml_keyed_deps(f, toml_get(t->kv[i].val, "dependencies"), w, PIN_SRC_POETRY,
					     t->kv[i].key, sources, 1, err);
		free(w);
		if (rc)
			return -1;
	}
	return 0;
}
