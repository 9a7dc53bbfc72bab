/*
 * result_preload: the install's `package_preload` object (see result_preload.h).
 */
#include "report/result_preload.h"

#include <cjson/cJSON.h>

static void add_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_list(cJSON *o, const char *key, const struct strlist *l)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	size_t i;
	for (i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
}

cJSON *result_preload_json(const struct pkg_preload_run *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", r->spec.id);
	cJSON_AddStringToObject(o, "entry", r->spec.entry);
	cJSON_AddStringToObject(o, "outcome", pkg_preload_outcome_name(r->outcome));
	add_str(o, "list_from", r->list_from);
	add_list(o, "names", &r->names);
	add_str(o, "version", r->version);
	add_str(o, "nonce", r->nonce);
	add_str(o, "family", r->family);
	add_str(o, "family_from", r->family_from);
	add_list(o, "loaded", &r->loaded);
	add_list(o, "ignored", &r->ignored);
	if (r->listing_capped)
		cJSON_AddBoolToObject(o, "listing_capped", 1);
	add_str(o, "library", r->library);
	add_str(o, "package", r->package);
	add_str(o, "missing", r->missing);
	add_str(o, "error", r->error_text);
	add_str(o, "fix", r->fix);
	return o;
}
