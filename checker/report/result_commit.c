/*
 * result_commit: an install's `commit` object (result_commit.h).
 */
#include "report/result_commit.h"

#include <inttypes.h>
#include <stdio.h>

/* Bytes as a JSON number: exact up to 2^53, which 8 PiB of commit does not reach. */
static void num(cJSON *o, const char *k, uint64_t v)
{
	cJSON_AddNumberToObject(o, k, (double)v);
}

void result_add_commit(cJSON *inst, const struct commit_summary *s)
{
	cJSON *o, *a;
	size_t i;
	if (!s->measured)
		return;
	o = cJSON_AddObjectToObject(inst, "commit");
	num(o, "per_process", s->per_process);
	num(o, "processes", s->processes);
	num(o, "total", s->per_process * s->processes);
	num(o, "images_mapped", s->nmapped);
	num(o, "images_unreadable", s->nunparsed);
	if (s->limit_known) {
		num(o, "limit_start", s->limit_start);
		num(o, "limit_reach", s->limit_reach);
	} else {
		cJSON_AddNullToObject(o, "limit_start");
		cJSON_AddNullToObject(o, "limit_reach");
	}
	if (s->os_limit) { /* live: what the OS says now, beside the limit computed */
		num(o, "os_commit_limit", s->os_limit);
		num(o, "os_commit_total", s->os_total);
	} else {
		cJSON_AddNullToObject(o, "os_commit_limit");
		cJSON_AddNullToObject(o, "os_commit_total");
	}
	a = cJSON_AddArrayToObject(o, "images");
	for (i = 0; i < s->nimages; i++) {
		cJSON *im = cJSON_CreateObject();
		cJSON_AddStringToObject(im, "path", s->images[i].path);
		num(im, "bytes", s->images[i].bytes);
		if (s->images[i].section)
			cJSON_AddStringToObject(im, "section", s->images[i].section);
		else
			cJSON_AddNullToObject(im, "section");
		cJSON_AddBoolToObject(im, "bounded", s->images[i].bounded);
		cJSON_AddItemToArray(a, im);
	}
}

void result_add_commit_measured(cJSON *inst, const struct confirm_result *c)
{
	cJSON *o, *m;
	const cJSON *pp;
	const char *note = NULL;
	if (!c->helper)
		return;
	o = cJSON_GetObjectItemCaseSensitive(inst, "commit");
	if (!cJSON_IsObject(o))
		o = cJSON_AddObjectToObject(inst, "commit");
	cJSON_DeleteItemFromObjectCaseSensitive(o, "measured");
	m = cJSON_AddObjectToObject(o, "measured");
	cJSON_AddStringToObject(m, "method", "the --confirm helper's private commit (GetProcessMemoryInfo: "
					     "PrivateUsage, or PagefileUsage) before and after torch's loads");
	pp = cJSON_GetObjectItemCaseSensitive(o, "per_process");
	if (cJSON_IsNumber(pp))
		cJSON_AddNumberToObject(m, "predicted", pp->valuedouble);
	else
		cJSON_AddNullToObject(m, "predicted");
	if (c->commit.has) {
		num(m, "private_before", c->commit.before);
		num(m, "private_after", c->commit.after);
		num(m, "charged", c->commit.after > c->commit.before ? c->commit.after - c->commit.before : 0);
	} else {
		cJSON_AddNullToObject(m, "private_before");
		cJSON_AddNullToObject(m, "private_after");
		cJSON_AddNullToObject(m, "charged");
		note = c->commit.seen ? "not measured: the OS did not give the helper's private commit"
				      : "not measured: the helper did not finish torch's loads";
	}
	if (note)
		cJSON_AddStringToObject(m, "note", note);
	else
		cJSON_AddNullToObject(m, "note");
}
