/*
 * inventory_json: the inventory as the `inventory` object of the JSON
 * report (docs/report-json.md): registry, redistributables, runtime_dlls,
 * pythons, installs, notes.
 */
#include "machine/inventory.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "machine/view.h"
#include "pe/pe.h"
#include "util/jsonout.h"
#include "util/version.h"

static cJSON *jlist(const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
	return a;
}

/* Whether an install before installs[i] names the same python.exe (compared as Windows does). */
static int python_listed_before(const struct inventory *inv, size_t i)
{
	size_t k;
	for (k = 0; k < i; k++)
		if (inv->installs[k].python && !str_icmp(inv->installs[k].python, inv->installs[i].python))
			return 1;
	return 0;
}

cJSON *inventory_to_json(const struct inventory *inv, struct view *v)
{
	cJSON *o = cJSON_CreateObject(), *a, *py;
	size_t i, j;

	cJSON_AddItemToObject(o, "registry", json_str_or_null(inv->redist_read ? inv->redist_source : NULL));
	a = cJSON_AddArrayToObject(o, "redistributables");
	for (i = 0; inv->redist_read && i < 3; i++) {
		const struct inv_redist *r = &inv->redist[i];
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "arch", r->arch);
		cJSON_AddBoolToObject(e, "found", r->found);
		cJSON_AddBoolToObject(e, "installed", r->installed);
		cJSON_AddItemToObject(e, "version", json_str_or_null(r->version));
		cJSON_AddItemToObject(e, "version_raw", json_str_or_null(r->version_raw));
		cJSON_AddItemToObject(e, "installed_value",
				      r->installed_value >= 0 ? cJSON_CreateNumber((double)r->installed_value)
							      : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "view", r->found ? cJSON_CreateNumber(r->view) : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "source", json_str_or_null(r->key));
		cJSON_AddItemToObject(e, "notes", jlist(&r->notes));
		cJSON_AddItemToArray(a, e);
	}
	a = cJSON_AddArrayToObject(o, "runtime_dlls");
	for (i = 0; i < inv->ndlls; i++) {
		const struct inv_dll *d = &inv->dlls[i];
		cJSON *e = cJSON_CreateObject();
		char *ver = d->has_version ? winver_parts_str(d->ver) : NULL;
		cJSON_AddStringToObject(e, "name", d->name);
		cJSON_AddStringToObject(e, "path", d->path);
		cJSON_AddStringToObject(e, "where", d->where);
		cJSON_AddItemToObject(e, "machine", d->machine ? cJSON_CreateString(pe_machine_name(d->machine))
							       : cJSON_CreateNull());
		cJSON_AddItemToObject(e, "file_version", json_str_or_null(ver));
		cJSON_AddBoolToObject(e, "version_resource", d->has_version);
		cJSON_AddItemToObject(e, "error", json_str_or_null(d->error));
		cJSON_AddItemToArray(a, e);
		free(ver);
	}
	py = cJSON_AddArrayToObject(o, "pythons");
	a = cJSON_AddArrayToObject(o, "installs");
	for (i = 0; i < inv->ninstalls; i++) {
		const struct inv_install *in = &inv->installs[i];
		cJSON *e = cJSON_CreateObject(), *dd;
		char *host = v ? view_host_path(v, in->torch_dir) : NULL;
		cJSON_AddStringToObject(e, "torch_dir", in->torch_dir);
		cJSON_AddItemToObject(e, "host_path", json_str_or_null(host && !view_is_live(v) ? host : NULL));
		cJSON_AddStringToObject(e, "site_packages", in->site_packages);
		cJSON_AddStringToObject(e, "kind", in->kind);
		cJSON_AddItemToObject(e, "prefix", json_str_or_null(in->prefix));
		cJSON_AddItemToObject(e, "python", json_str_or_null(in->python));
		cJSON_AddItemToObject(e, "base_python_dir", json_str_or_null(in->base_python_dir));
		cJSON_AddItemToObject(e, "python_version", json_str_or_null(in->python_version));
		cJSON_AddItemToObject(e, "pyd_tag", json_str_or_null(in->pyd_tag));
		cJSON_AddItemToObject(e, "arch", json_str_or_null(in->arch));
		cJSON_AddItemToObject(e, "version", json_str_or_null(in->version));
		cJSON_AddItemToObject(e, "metadata_version", json_str_or_null(in->metadata_version));
		cJSON_AddItemToObject(e, "dist_info", json_str_or_null(in->dist_info));
		cJSON_AddItemToObject(e, "cuda", json_str_or_null(in->cuda));
		cJSON_AddStringToObject(e, "variant", in->variant);
		cJSON_AddItemToObject(e, "cuda_dlls", jlist(&in->cuda_dlls));
		dd = cJSON_AddArrayToObject(e, "dll_dirs");
		for (j = 0; j < in->dll_dirs.n; j++) {
			const char *tab = strchr(in->dll_dirs.v[j], '\t');
			cJSON *d = cJSON_CreateObject();
			char *label = xstrndup(in->dll_dirs.v[j], (size_t)(tab - in->dll_dirs.v[j]));
			cJSON_AddStringToObject(d, "where", label);
			cJSON_AddStringToObject(d, "path", tab + 1);
			cJSON_AddItemToArray(dd, d);
			free(label);
		}
		cJSON_AddItemToObject(e, "notes", jlist(&in->notes));
		cJSON_AddItemToArray(a, e);
		free(host);
		if (in->python && !python_listed_before(inv, i)) {
			cJSON *p = cJSON_CreateObject();
			cJSON_AddStringToObject(p, "python", in->python);
			cJSON_AddItemToObject(p, "version", json_str_or_null(in->python_version));
			cJSON_AddStringToObject(p, "kind", in->kind);
			cJSON_AddItemToObject(p, "prefix", json_str_or_null(in->prefix));
			cJSON_AddItemToObject(p, "base_python_dir", json_str_or_null(in->base_python_dir));
			cJSON_AddItemToArray(py, p);
		}
	}
	cJSON_AddItemToObject(o, "notes", jlist(&inv->notes));
	if (inv->gpu_read)
		cJSON_AddItemToObject(o, "gpu_driver", gpu_driver_to_json(&inv->gpu));
	return o;
}

