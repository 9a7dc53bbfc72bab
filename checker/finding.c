/*
 * finding: the findings list and its one JSON form (see finding.h).
 */
#include "finding.h"

#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct finding *finding_add(struct findings *l, enum rule_id rule, int severity, const struct finding_spec *spec)
{
	struct finding *f;
	size_t i;
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->severity = severity == SEV_DEFAULT ? rule_get(rule)->severity : (enum report_severity)severity;
	f->winerror = spec->winerror;
	f->title = dup_or_null(spec->title);
	f->message = dup_or_null(spec->message);
	f->fix = dup_or_null(spec->fix);
	f->install = dup_or_null(spec->install);
	f->binary = dup_or_null(spec->binary);
	f->leaf = dup_or_null(spec->leaf);
	f->symbol = dup_or_null(spec->symbol);
	f->path = dup_or_null(spec->path);
	f->issue = dup_or_null(spec->issue);
	strlist_init(&f->chain);
	if (spec->chain)
		ldr_node_chain(spec->chain, &f->chain);
	if (spec->probes && spec->probes->nprobes) {
		f->probes = xcalloc(spec->probes->nprobes, sizeof(*f->probes));
		for (i = 0; i < spec->probes->nprobes; i++) {
			f->probes[i].path = dup_or_null(spec->probes->probes[i].path);
			f->probes[i].step = dup_or_null(spec->probes->probes[i].step);
			f->probes[i].result = dup_or_null(spec->probes->probes[i].result);
		}
		f->nprobes = spec->probes->nprobes;
	}
	f->predicted_winerror = f->real_winerror = -1;
	return f;
}

void finding_set(char **field, const char *s)
{
	char *c = dup_or_null(s);
	free(*field);
	*field = c;
}

void finding_anchor(struct finding *f, const char *file, unsigned line, unsigned col)
{
	finding_set(&f->anchor.file, file);
	f->anchor.line = line;
	f->anchor.col = line ? col : 0;
}

static void finding_release(struct finding *f)
{
	size_t i;
	free(f->anchor.file);
	free(f->title);
	free(f->message);
	free(f->fix);
	free(f->install);
	free(f->binary);
	free(f->leaf);
	free(f->symbol);
	free(f->path);
	free(f->issue);
	free(f->matrix.row);
	free(f->matrix.file);
	strlist_release(&f->chain);
	for (i = 0; i < f->nprobes; i++) {
		free(f->probes[i].path);
		free(f->probes[i].step);
		free(f->probes[i].result);
	}
	free(f->probes);
}

void findings_remove(struct findings *l, size_t i)
{
	if (i >= l->n)
		return;
	finding_release(&l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
}

/* Windows compares file and folder names without regard to case. */
static int same_name(const char *a, const char *b)
{
	return a == b || (a && b && !str_icmp(a, b));
}

int finding_same_cause(const struct finding *a, const struct finding *b)
{
	return a->rule == b->rule && a->winerror == b->winerror && same_name(a->install, b->install) &&
	       same_name(a->leaf, b->leaf) && ((!a->symbol && !b->symbol) || (a->symbol && b->symbol &&
									       !strcmp(a->symbol, b->symbol)));
}

void findings_release(struct findings *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		finding_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static cJSON *winerror_or_null(int w)
{
	return w >= 0 ? cJSON_CreateNumber(w) : cJSON_CreateNull();
}

cJSON *finding_json(const struct finding *f)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	cJSON_AddStringToObject(o, "rule", rule_get(f->rule)->id);
	cJSON_AddStringToObject(o, "severity", severity_name(f->severity));
	cJSON_AddItemToObject(o, "winerror", f->winerror ? cJSON_CreateNumber(f->winerror) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "title", json_str_or_null(f->title));
	cJSON_AddItemToObject(o, "message", json_str_or_null(f->message));
	cJSON_AddItemToObject(o, "fix", json_str_or_null(f->fix));
	cJSON_AddItemToObject(o, "install", json_str_or_null(f->install));
	cJSON_AddItemToObject(o, "binary", json_str_or_null(f->binary));
	cJSON_AddItemToObject(o, "leaf", json_str_or_null(f->leaf));
	a = cJSON_AddArrayToObject(o, "chain");
	for (i = 0; i < f->chain.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(f->chain.v[i]));
	a = cJSON_AddArrayToObject(o, "probes");
	for (i = 0; i < f->nprobes; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "path", f->probes[i].path);
		cJSON_AddStringToObject(p, "step", f->probes[i].step);
		cJSON_AddStringToObject(p, "result", f->probes[i].result);
		cJSON_AddItemToArray(a, p);
	}
	if (f->anchor.file) {
		cJSON *an = cJSON_AddObjectToObject(o, "anchor");
		cJSON_AddItemToObject(an, "file", json_str_or_null(f->anchor.file));
		if (f->anchor.line) {
			cJSON_AddNumberToObject(an, "line", f->anchor.line);
			cJSON_AddNumberToObject(an, "col", f->anchor.col);
		} else {
			cJSON_AddNullToObject(an, "line");
			cJSON_AddNullToObject(an, "col");
		}
	} else {
		cJSON_AddNullToObject(o, "anchor");
	}
	if (f->matrix.row) {
		cJSON *m = cJSON_AddObjectToObject(o, "matrix");
		cJSON_AddStringToObject(m, "row", f->matrix.row);
		cJSON_AddStringToObject(m, "file", f->matrix.file ? f->matrix.file : "");
		cJSON_AddNumberToObject(m, "line", f->matrix.line);
	}
	if (f->issue)
		cJSON_AddStringToObject(o, "issue", f->issue);
	if (f->rule == RULE_PREDICTION_MISMATCH) {
		cJSON_AddItemToObject(o, "predicted_winerror", winerror_or_null(f->predicted_winerror));
		cJSON_AddItemToObject(o, "real_winerror", winerror_or_null(f->real_winerror));
	}
	return o;
}
