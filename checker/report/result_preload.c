/*
 * result_preload: the install's `package_preload` object (see result_preload.h).
 */
#include "report/result_preload.h"

#include <cjson/cJSON.h>
#include "util/jsonout.h"

cJSON *result_preload_json(const struct pkg_preload_run *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", r->spec.id);
	cJSON_AddStringToObject(o, "entry", r->spec.entry);
	cJSON_AddStringToObject(o, "outcome", pkg_preload_outcome_name(r->outcome));
	json_add_str_or_null(o, "list_from", r->list_from);
	json_add_strlist(o, "names", &r->names);
	json_add_str_or_null(o, "version", r->version);
	json_add_str_or_null(o, "nonce", r->nonce);
	json_add_str_or_null(o, "family", r->family);
	json_add_str_or_null(o, "family_from", r->family_from);
	json_add_strlist(o, "loaded", &r->loaded);
	json_add_strlist(o, "ignored", &r->ignored);
	if (r->listing_capped)
		cJSON_AddBoolToObject(o, "listing_capped", 1);
	json_add_str_or_null(o, "library", r->library);
	json_add_str_or_null(o, "package", r->package);
	json_add_str_or_null(o, "missing", r->missing);
	json_add_str_or_null(o, "error", r->error_text);
	json_add_str_or_null(o, "fix", r->fix);
	return o;
}
