/*
 * fuzz_toml: the TOML reader on its own (pyproject.toml, Pipfile and the
 * lock files all go through it; fuzz_requirements drives it through the pin
 * extractors). Any input gives a tree or a clean "LINE:COL: message"; an
 * accepted tree is walked whole, and every node keeps a position.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/toml.h"

#include "oracle.h"

static size_t walk(const struct toml *t, int depth)
{
	size_t i, n = 1;
	if (!t || depth > TOML_MAX_DEPTH + 2 || t->line == 0 || t->col == 0)
		abort();
	if ((t->type == TOML_STRING || t->type == TOML_SCALAR) && !t->str)
		abort();
	for (i = 0; i < t->n_kv; i++) {
		if (!t->kv[i].key || toml_get(t, t->kv[i].key) == NULL)
			abort();
		n += walk(t->kv[i].val, depth + 1);
	}
	for (i = 0; i < t->n_items; i++)
		n += walk(t->items[i], depth + 1);
	return n;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct toml_doc doc;
	struct err e;
	e.msg[0] = '\0';
	if (toml_parse(&doc, (const char *)data, size, &e) == 0) {
		if (!doc.root || doc.root->type != TOML_TABLE || walk(doc.root, 0) > TOML_MAX_NODES + 1)
			abort();
		toml_path(doc.root, "tool.poetry.dependencies");
		toml_path(doc.root, "project.dependencies");
		toml_doc_release(&doc);
	} else if (!e.msg[0]) {
		abort();
	}
	return 0;
}
