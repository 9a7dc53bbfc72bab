/*
 * matrix_json: rows as JSON (matrix_row_json): the short reference the
 * report keeps (docs/report-json.md) or every field in schema.def's order,
 * as `matrix show --json` writes it.
 */
#include "matrix/matrix.h"

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/jsonout.h"

static cJSON *arch_array(unsigned mask)
{
	cJSON *a = cJSON_CreateArray();
	int i;
	for (i = 0; i < MATRIX_NARCH; i++)
		if (mask & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateString(matrix_arch_name(i)));
	return a;
}

static cJSON *pos_json(const struct matrix_pos *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file", p->file ? p->file : "");
	cJSON_AddNumberToObject(o, "line", p->line);
	cJSON_AddNumberToObject(o, "col", p->col);
	return o;
}

static void add_opt_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void dll_field_json(cJSON *x, const struct matrix_dll *d, enum matrix_dll_field k)
{
	const char *key = matrix_dll_fields[k].key;
	switch (k) {
	case MF_DLL_NAME:
		cJSON_AddStringToObject(x, key, d->name);
		break;
	case MF_DLL_MIN_VERSION:
		add_opt_str(x, key, d->min.set ? d->min.text : NULL);
		break;
	case MF_DLL_WHERE:
		cJSON_AddStringToObject(x, key, matrix_where_name(d->where));
		break;
	case MF_DLL_ARCH:
		cJSON_AddItemToObject(x, key, arch_array(d->arch_mask));
		break;
	case MF_DLL_WHY:
		cJSON_AddStringToObject(x, key, d->why);
		break;
	case MF_DLL_WINERROR:
		if (d->winerror)
			cJSON_AddNumberToObject(x, key, d->winerror);
		break;
	case MF_DLL_STATUS:
		cJSON_AddStringToObject(x, key, matrix_status_name(d->status));
		break;
	case MF_DLL_SOURCES:
		cJSON_AddItemToObject(x, key, json_strlist(&d->sources));
		break;
	case MF_DLL_COUNT:
		break;
	}
}

static void openmp_field_json(cJSON *x, const struct matrix_openmp *d, enum matrix_openmp_field k)
{
	const char *key = matrix_openmp_fields[k].key;
	switch (k) {
	case MF_OPENMP_DLL:
		cJSON_AddStringToObject(x, key, d->dll);
		break;
	case MF_OPENMP_WHERE:
		cJSON_AddStringToObject(x, key, matrix_where_name(d->where));
		break;
	case MF_OPENMP_REDISTRIBUTABLE:
		cJSON_AddBoolToObject(x, key, d->redistributable);
		break;
	case MF_OPENMP_ARCH:
		cJSON_AddItemToObject(x, key, arch_array(d->arch_mask));
		break;
	case MF_OPENMP_PROVIDER:
		add_opt_str(x, key, d->provider);
		break;
	case MF_OPENMP_FIX:
		add_opt_str(x, key, d->fix);
		break;
	case MF_OPENMP_WHY:
		add_opt_str(x, key, d->why);
		break;
	case MF_OPENMP_STATUS:
		cJSON_AddStringToObject(x, key, matrix_status_name(d->status));
		break;
	case MF_OPENMP_SOURCES:
		cJSON_AddItemToObject(x, key, json_strlist(&d->sources));
		break;
	case MF_OPENMP_COUNT:
		break;
	}
}

static cJSON *when_json(const struct matrix_when *w)
{
	cJSON *o = cJSON_CreateObject();
	int k;
	for (k = 0; k < MF_WHEN_COUNT; k++) {
		const char *key = matrix_when_fields[k].key;
		switch ((enum matrix_when_field)k) {
		case MF_WHEN_VARIANT:
			cJSON_AddItemToObject(o, key, json_strlist(&w->variant));
			break;
		case MF_WHEN_ARCH:
			cJSON_AddItemToObject(o, key, arch_array(w->arch_mask));
			break;
		case MF_WHEN_IMPORTS:
			cJSON_AddItemToObject(o, key, json_strlist(&w->imports));
			break;
		case MF_WHEN_UNRESOLVED:
			cJSON_AddItemToObject(o, key, json_strlist(&w->unresolved));
			break;
		case MF_WHEN_OLDER:
			cJSON_AddItemToObject(o, key, json_strlist(&w->older));
			break;
		case MF_WHEN_COUNT:
			break;
		}
	}
	return o;
}

static void issue_field_json(cJSON *x, const struct matrix_issue *d, enum matrix_issue_field k)
{
	const char *key = matrix_issue_fields[k].key;
	switch (k) {
	case MF_ISSUE_ID:
		cJSON_AddStringToObject(x, key, d->id);
		break;
	case MF_ISSUE_SYMPTOM:
		cJSON_AddStringToObject(x, key, d->symptom);
		break;
	case MF_ISSUE_CAUSE:
		cJSON_AddStringToObject(x, key, d->cause);
		break;
	case MF_ISSUE_FIX:
		cJSON_AddStringToObject(x, key, d->fix);
		break;
	case MF_ISSUE_STATUS:
		cJSON_AddStringToObject(x, key, matrix_status_name(d->status));
		break;
	case MF_ISSUE_SOURCES:
		cJSON_AddItemToObject(x, key, json_strlist(&d->sources));
		break;
	case MF_ISSUE_APPLIES_WHEN:
		cJSON_AddItemToObject(x, key, when_json(&d->when));
		break;
	case MF_ISSUE_COUNT:
		break;
	}
}

/* The list of one kind of entry: each entry's keys in the schema's order. */
#define ENTRIES_JSON(o, key, v, n, count, field_json)                        \
	do {                                                                 \
		cJSON *list_ = cJSON_AddArrayToObject(o, key);               \
		size_t i_;                                                   \
		int k_;                                                      \
		for (i_ = 0; i_ < (n); i_++) {                               \
			cJSON *x_ = cJSON_CreateObject();                    \
			for (k_ = 0; k_ < (count); k_++)                     \
				field_json(x_, &(v)[i_], k_);                \
			cJSON_AddItemToArray(list_, x_);                     \
		}                                                            \
	} while (0)

static void row_field_json(cJSON *o, const struct matrix_row *r, enum matrix_row_field k)
{
	const char *key = matrix_row_fields[k].key;
	cJSON *vc;
	int a;
	switch (k) {
	case MF_ROW_ID:
		cJSON_AddStringToObject(o, key, r->id);
		break;
	case MF_ROW_TORCH:
		cJSON_AddStringToObject(o, key, r->torch_text ? r->torch_text : "");
		break;
	case MF_ROW_VARIANT:
		cJSON_AddItemToObject(o, key, json_strlist(&r->variants));
		break;
	case MF_ROW_ARCH:
		cJSON_AddItemToObject(o, key, arch_array(r->arch_mask));
		break;
	case MF_ROW_STATUS:
		cJSON_AddStringToObject(o, key, matrix_status_name(r->status));
		break;
	case MF_ROW_SOURCES:
		cJSON_AddItemToObject(o, key, json_strlist(&r->sources));
		break;
	case MF_ROW_EVIDENCE:
		cJSON_AddItemToObject(o, key, json_strlist(&r->evidence));
		break;
	case MF_ROW_NOTE:
		add_opt_str(o, key, r->note);
		break;
	case MF_ROW_VC_REDIST:
		vc = cJSON_AddObjectToObject(o, key);
		for (a = 0; a < MATRIX_NARCH; a++)
			if (r->vc_redist[a].set)
				cJSON_AddStringToObject(vc, matrix_arch_name(a), r->vc_redist[a].text);
		break;
	case MF_ROW_RUNTIME_DLLS:
		ENTRIES_JSON(o, key, r->dlls, r->ndlls, MF_DLL_COUNT, dll_field_json);
		break;
	case MF_ROW_OPENMP:
		ENTRIES_JSON(o, key, r->openmp, r->nopenmp, MF_OPENMP_COUNT, openmp_field_json);
		break;
	case MF_ROW_KNOWN_ISSUES:
		ENTRIES_JSON(o, key, r->issues, r->nissues, MF_ISSUE_COUNT, issue_field_json);
		break;
	case MF_ROW_MIN_WINDOWS:
		if (r->min_windows.set)
			cJSON_AddStringToObject(o, key, r->min_windows.text);
		break;
	case MF_ROW_MIN_WINDOWS_WHY:
		if (r->min_windows_why)
			cJSON_AddStringToObject(o, key, r->min_windows_why);
		break;
	case MF_ROW_MERGE: /* applied when the layer was: the effective row has no merge */
	case MF_ROW_COUNT:
		break;
	}
}

cJSON *matrix_row_json(const struct matrix_row *r, int full)
{
	cJSON *o = cJSON_CreateObject();
	int k;
	if (!full) {
		cJSON_AddStringToObject(o, "id", r->id);
		cJSON_AddStringToObject(o, "file", r->pos.file ? r->pos.file : "");
		cJSON_AddNumberToObject(o, "line", r->pos.line);
		cJSON_AddNumberToObject(o, "col", r->pos.col);
		cJSON_AddStringToObject(o, "torch", r->torch_text ? r->torch_text : "");
		cJSON_AddStringToObject(o, "status", matrix_status_name(r->status));
		cJSON_AddItemToObject(o, "sources", json_strlist(&r->sources));
		return o;
	}
	for (k = 0; k < MF_ROW_COUNT; k++)
		row_field_json(o, r, (enum matrix_row_field)k);
	cJSON_AddItemToObject(o, "origin", pos_json(&r->pos));
	return o;
}

