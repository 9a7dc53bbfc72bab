/*
 * result_python: the `interpreter` object of the report (result_python.h).
 */
#include "report/result_python.h"

#include "machine/pypath.h"
#include "util/jsonout.h"
#include "util/strbuf.h"

cJSON *result_python_json(const struct result_python *rp)
{
	const struct pypath *pp = rp->pp;
	cJSON *o = cJSON_CreateObject(), *us, *sp, *t, *notes;
	size_t i;
	cJSON_AddStringToObject(o, "python", pp->python);
	cJSON_AddStringToObject(o, "chosen_by", rp->chosen_by);
	cJSON_AddItemToObject(o, "version", json_str_or_null(pp->version));
	cJSON_AddItemToObject(o, "home", json_str_or_null(pp->home));
	cJSON_AddItemToObject(o, "venv", json_str_or_null(pp->venv));
	if (pp->venv)
		cJSON_AddBoolToObject(o, "include_system_site_packages", pp->system_site);
	cJSON_AddItemToObject(o, "pth_file", json_str_or_null(pp->pth));
	cJSON_AddBoolToObject(o, "site", pp->site);
	us = cJSON_AddObjectToObject(o, "user_site");
	cJSON_AddBoolToObject(us, "enabled", pp->user_site);
	cJSON_AddItemToObject(us, "path", json_str_or_null(pp->user_sitepk));
	cJSON_AddItemToObject(us, "user_base", json_str_or_null(pp->user_base));
	cJSON_AddItemToObject(us, "user_base_from", json_str_or_null(pp->user_base_from));
	cJSON_AddItemToObject(us, "off_because", json_str_or_null(pp->user_site_off));
	cJSON_AddItemToObject(us, "store_package", json_str_or_null(pp->store_family));
	sp = cJSON_AddArrayToObject(o, "sys_path");
	for (i = 0; i < pp->n; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "path", pp->e[i].path);
		cJSON_AddStringToObject(e, "from", pp->e[i].from);
		cJSON_AddItemToArray(sp, e);
	}
	t = cJSON_AddArrayToObject(o, "torch");
	for (i = 0; i < rp->ntorch; i++) {
		const struct pypath_hit *h = rp->torch[i].hit;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "torch_dir", h->dir);
		cJSON_AddItemToObject(e, "version", json_str_or_null(rp->torch[i].version));
		cJSON_AddStringToObject(e, "sys_path_entry", pp->e[h->entry].path);
		cJSON_AddStringToObject(e, "from", pp->e[h->entry].from);
		cJSON_AddStringToObject(e, "status", i ? "shadowed" : "imported");
		cJSON_AddItemToArray(t, e);
	}
	notes = cJSON_CreateArray();
	for (i = 0; rp->find_notes && i < rp->find_notes->n; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(rp->find_notes->v[i]));
	for (i = 0; i < pp->notes.n; i++)
		cJSON_AddItemToArray(notes, cJSON_CreateString(pp->notes.v[i]));
	cJSON_AddItemToObject(o, "notes", notes);
	return o;
}

void result_python_pairs(cJSON *doc, const struct result_python_pair *pairs, size_t n)
{
	cJSON *inst;
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(doc, "installs"))
	{
		const cJSON *td = cJSON_GetObjectItemCaseSensitive(inst, "torch_dir");
		cJSON *a;
		size_t i;
		if (!cJSON_IsString(td))
			continue;
		a = cJSON_AddArrayToObject(inst, "interpreters");
		for (i = 0; i < n; i++) {
			cJSON *e;
			if (str_icmp(pairs[i].torch_dir, td->valuestring))
				continue;
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "python", pairs[i].python);
			cJSON_AddStringToObject(e, "status", pairs[i].imported ? "imported" : "shadowed");
			cJSON_AddStringToObject(e, "from", pairs[i].from);
			cJSON_AddItemToArray(a, e);
		}
	}
}
