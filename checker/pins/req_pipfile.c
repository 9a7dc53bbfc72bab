/*
 * req_pipfile: Pipfile (pipenv), [packages], [dev-packages] and any other
 * table of `name = "spec"` / `name = { ... }` entries, with [[source]]
 * indexes. https://pipenv.pypa.io/en/latest/pipfile.html
 */
#include "pins/req_pipfile.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"
#include "pins/req_toml.h"

int req_parse_pipfile(struct req_file *f, const struct toml *root, struct err *err)
{
	const struct toml *sources = toml_get(root, "source");
	size_t i;
	if (req_toml_record_indexes(f, sources, "[[source]]", err))
		return -1;
	for (i = 0; i < root->n_kv; i++) {
		const char *k = root->kv[i].key;
		char *w;
		int rc;
		if (!strcmp(k, "source") || !strcmp(k, "requires") || !strcmp(k, "scripts") || !strcmp(k, "pipenv"))
			continue;
		if (root->kv[i].val->type != TOML_TABLE)
			continue;
		w = xasprintf("[%s]", k);
		rc = req_toml_keyed_deps(f, root->kv[i].val, w, PIN_SRC_PIPFILE, k, sources, 0, err);
		free(w);
		if (rc)
			return -1;
	}
	return 0;
}
