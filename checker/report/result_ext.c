/*
 * result_ext: extensions, packages imported first and runtime copies in the
 * report document (result_ext.h).
 */
#include "report/result_ext.h"

#include <stdio.h>
#include <stdlib.h>

#include "matrix/pairs.h"
#include "util/demangle.h"
#include "util/jsonout.h"

static cJSON *binary_json(const struct ext_binary *b)
{
	cJSON *o = cJSON_CreateObject(), *ch = cJSON_CreateArray();
	const struct ldr_node *leaf = b->res.leaf;
	char flags[16], *dm = b->res.symbol ? demangle_msvc(b->res.symbol) : NULL;
	cJSON_AddStringToObject(o, "path", b->path);
	cJSON_AddStringToObject(o, "how", ext_how_name(b->how));
	if (b->how == EXT_HOW_LAZY)
		cJSON_AddNullToObject(o, "flags");
	else {
		snprintf(flags, sizeof(flags), "0x%x", b->flags);
		cJSON_AddStringToObject(o, "flags", flags);
	}
	cJSON_AddNumberToObject(o, "winerror", b->winerror);
	cJSON_AddStringToObject(o, "outcome", b->outcome);
	cJSON_AddItemToObject(o, "leaf", json_str_or_null(leaf ? winpath_basename(leaf->name) : NULL));
	cJSON_AddItemToObject(o, "leaf_path", json_str_or_null(leaf ? leaf->path : NULL));
	cJSON_AddItemToObject(o, "symbol", json_str_or_null(b->res.symbol));
	cJSON_AddItemToObject(o, "symbol_demangled", json_str_or_null(dm));
	if (leaf) {
		struct strlist l = STRLIST_INIT;
		ldr_node_chain(leaf, &l);
		cJSON_Delete(ch);
		ch = json_strlist(&l);
		strlist_release(&l);
	}
	cJSON_AddItemToObject(o, "chain", ch);
	cJSON_AddBoolToObject(o, "import_raises", b->raises);
	cJSON_AddStringToObject(o, "effect", b->effect);
	free(dm);
	return o;
}

static cJSON *run_json(const struct ext_run *r)
{
	cJSON *o = cJSON_CreateObject(), *bins;
	const char *built = r->torch_pin ? r->torch_pin : r->version ? pairs_torch_of(r->name, r->version) : NULL;
	size_t i;
	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddItemToObject(o, "version", json_str_or_null(r->version));
	cJSON_AddStringToObject(o, "dist_info", r->dist_info);
	cJSON_AddStringToObject(o, "status", r->nfail ? "fail" : "pass");
	cJSON_AddItemToObject(o, "requires_torch", json_str_or_null(r->torch_pin));
	cJSON_AddItemToObject(o, "built_for_torch", json_str_or_null(built));
	cJSON_AddStringToObject(o, "built_for_source",
				r->torch_pin ? "metadata" : built ? PAIRS_SOURCE : "unknown");
	cJSON_AddStringToObject(o, "procedure", r->procedure);
	cJSON_AddItemToObject(o, "module", json_str_or_null(r->module));
	cJSON_AddBoolToObject(o, "record", r->has_record);
	cJSON_AddItemToObject(o, "dll_directories", json_strlist(&r->dll_dirs));
	cJSON_AddItemToObject(o, "path_prepended", json_str_or_null(r->path_prefix));
	cJSON_AddNumberToObject(o, "binaries_failing", (double)r->nfail);
	cJSON_AddItemToObject(o, "notes", json_strlist(&r->notes));
	bins = cJSON_AddArrayToObject(o, "binaries");
	for (i = 0; i < r->nbins; i++)
		cJSON_AddItemToArray(bins, binary_json(&r->bins[i]));
	return o;
}

/* One copy of a DLL torch needs that another distribution ships. */
static cJSON *copy_json(const struct ext_copy *cp)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", cp->name);
	cJSON_AddStringToObject(o, "path", cp->path);
	cJSON_AddStringToObject(o, "distribution", cp->dist);
	cJSON_AddItemToObject(o, "distribution_version", json_str_or_null(cp->dist_version));
	cJSON_AddItemToObject(o, "file_version", json_str_or_null(cp->file_version));
	cJSON_AddBoolToObject(o, "imported_first", cp->first);
	cJSON_AddNumberToObject(o, "imports_from_torch", (double)cp->gap.nimported);
	if (cp->gap.error)
		cJSON_AddNullToObject(o, "missing_exports");
	else
		cJSON_AddNumberToObject(o, "missing_exports", (double)cp->gap.nmissing);
	cJSON_AddItemToObject(o, "missing_export_names", json_strlist(&cp->gap.missing));
	cJSON_AddItemToObject(o, "export_error", json_str_or_null(cp->gap.error));
	return o;
}

void result_add_extensions(cJSON *inst, const struct ext_check *c)
{
	cJSON *a, *env, *copies;
	size_t i;
	env = cJSON_AddObjectToObject(inst, "environment");
	cJSON_AddItemToObject(env, "site_packages", json_str_or_null(c->site_packages));
	cJSON_AddNumberToObject(env, "distributions", c->have_dists ? (double)c->dists.n : 0);
	cJSON_AddItemToObject(env, "error", json_str_or_null(c->dists_error));
	cJSON_AddNumberToObject(env, "extensions_not_checked", (double)c->ext_over);
	cJSON_AddItemToObject(env, "notes", c->have_dists ? json_strlist(&c->dists.notes) : cJSON_CreateArray());
	a = cJSON_AddArrayToObject(inst, "imported_first");
	for (i = 0; i < c->nfirst; i++)
		cJSON_AddItemToArray(a, run_json(c->first[i]));
	a = cJSON_AddArrayToObject(inst, "extensions");
	for (i = 0; i < c->nexts; i++)
		cJSON_AddItemToArray(a, run_json(c->exts[i]));
	copies = cJSON_AddArrayToObject(env, "runtime_copies");
	for (i = 0; i < c->ncopies; i++)
		cJSON_AddItemToArray(copies, copy_json(&c->copies[i]));
}

void result_ext_copies(cJSON *all, const struct ext_check *c, const char *torch_dir)
{
	size_t i;
	for (i = 0; i < c->ncopies; i++) {
		cJSON *o = copy_json(&c->copies[i]);
		cJSON_AddItemToObject(o, "install", json_str_or_null(torch_dir));
		cJSON_AddItemToArray(all, o);
	}
}
