/*
 * fleet: the cross-runner table (see fleet.h).
 */
#include "audit/fleet.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit/drift.h"
#include "report/report.h"

static const cJSON *array_in(const cJSON *obj, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsArray(a) ? a : NULL;
}

static char *when_text(int64_t when)
{
	time_t t = (time_t)when;
	struct tm tm;
	char buf[32];
	if (when < 0)
		return xstrdup("-");
#ifdef _WIN32
	if (gmtime_s(&tm, &t) != 0)
		return xstrdup("-");
#else
	if (!gmtime_r(&t, &tm))
		return xstrdup("-");
#endif
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm);
	return xstrdup(buf);
}

static char *redist_for(const cJSON *inv, const char *arch)
{
	const cJSON *r;
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(inv, "registry")))
		return xstrdup("unknown (no registry)");
	cJSON_ArrayForEach(r, array_in(inv, "redistributables")) {
		const char *a = report_str(r, "arch"), *v = report_str(r, "version");
		if (!a || strcmp(a, arch))
			continue;
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "installed")))
			return xstrdup("not installed");
		return xstrdup(v ? v : "installed, no version");
	}
	return xstrdup("not installed");
}

static int starts_with_ci(const char *s, const char *prefix)
{
	return prefix && *prefix && str_istartswith(s, prefix);
}

/* The OpenMP runtimes this install can reach: "libiomp5md (torch\lib), libomp140 (System32)". */
static char *openmp_for(const cJSON *inv, const char *torch_dir, const char *prefix)
{
	static const char *const names[] = { "libiomp5md.dll", "libomp140.x86_64.dll", "vcomp140.dll" };
	struct strbuf sb = STRBUF_INIT;
	const cJSON *d;
	cJSON_ArrayForEach(d, array_in(inv, "runtime_dlls")) {
		const char *name = report_str(d, "name"), *path = report_str(d, "path"), *where = report_str(d, "where");
		int known = 0;
		if (!name || !path || !where)
			continue;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			known |= !str_icmp(name, names[i]);
		if (!known)
			continue;
		if (strcmp(where, "System32") && strcmp(where, "SysWOW64") && !starts_with_ci(path, torch_dir) &&
		    !starts_with_ci(path, prefix))
			continue;
		if (sb.len)
			strbuf_adds(&sb, ", ");
		strbuf_add(&sb, name, strlen(name) - 4);
		strbuf_addf(&sb, " (%s)", where);
	}
	if (!sb.len)
		strbuf_adds(&sb, "none found");
	return strbuf_detach(&sb);
}

static char *first_error_for(const cJSON *report, const char *torch_dir)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, array_in(report, "findings")) {
		const char *sev = report_str(f, "severity"), *inst = report_str(f, "install"), *title = report_str(f, "title");
		if (!sev || strcmp(sev, "error") || !title)
			continue;
		if (torch_dir && inst && str_icmp(inst, torch_dir))
			continue;
		return xstrdup(title);
	}
	return xstrdup("-");
}

static char *drift_text(const cJSON *drift)
{
	const cJSON *e, *w, *n;
	if (!drift)
		return xstrdup("unknown");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(drift, "first")))
		return xstrdup("first snapshot");
	e = cJSON_GetObjectItemCaseSensitive(drift, "errors");
	w = cJSON_GetObjectItemCaseSensitive(drift, "warnings");
	n = cJSON_GetObjectItemCaseSensitive(drift, "notes");
	if (!cJSON_IsNumber(e) || !cJSON_IsNumber(w) || !cJSON_IsNumber(n))
		return xstrdup(report_str(drift, "problem") ? "not compared" : "unknown");
	if (!e->valuedouble && !w->valuedouble && !n->valuedouble)
		return xstrdup("none");
	return xasprintf("%.0f error(s), %.0f warning(s), %.0f note(s)", e->valuedouble, w->valuedouble,
			 n->valuedouble);
}

static void add_row(struct fleet *f, const char *runner, int64_t when, const cJSON *report, const cJSON *drift,
		    const cJSON *install)
{
	const cJSON *inv = cJSON_GetObjectItemCaseSensitive(report, "inventory");
	const char *dir = install ? report_str(install, "torch_dir") : NULL;
	const char *arch = install ? report_str(install, "arch") : NULL;
	const char *status = dir ? drift_install_status(report, dir) : report_str(report, "status");
	struct fleet_row *r;
	ALLOC_GROW(f->rows, f->n + 1, f->alloc);
	r = &f->rows[f->n++];
	r->runner = xstrdup(runner);
	r->when = when_text(when);
	r->torch = xstrdup(install && report_str(install, "version") ? report_str(install, "version") : "-");
	r->install = xstrdup(dir ? dir : "(no torch install)");
	if (!status)
		status = dir ? "not checked (inventory only)" : "no torch";
	r->verdict = xstrdup(status);
	r->fails = !strcmp(status, "fail");
	r->redist = redist_for(inv, arch ? arch : "x64");
	r->openmp = openmp_for(inv, dir, install ? report_str(install, "prefix") : NULL);
	r->first_error = first_error_for(report, dir);
	r->drift = drift_text(drift);
}

int fleet_add(struct fleet *f, const char *runner, int64_t when, const cJSON *report, const cJSON *drift,
	      struct err *err)
{
	const cJSON *inv, *in;
	size_t before = f->n;
	if (drift_snapshot_check(report, err) < 0)
		return err_prefix(err, "runner %s: ", runner);
	inv = cJSON_GetObjectItemCaseSensitive(report, "inventory");
	cJSON_ArrayForEach(in, array_in(inv, "installs"))
		if (report_str(in, "torch_dir"))
			add_row(f, runner, when, report, drift, in);
	if (f->n == before)
		add_row(f, runner, when, report, drift, NULL);
	f->runners++;
	return 0;
}

void fleet_add_problem(struct fleet *f, const char *runner, int64_t when, const char *why)
{
	struct fleet_row *r;
	ALLOC_GROW(f->rows, f->n + 1, f->alloc);
	r = &f->rows[f->n++];
	r->runner = xstrdup(runner);
	r->when = when_text(when);
	r->torch = xstrdup("-");
	r->install = xstrdup("-");
	r->verdict = xstrdup("unreadable");
	r->fails = 1; /* among the rows that need someone's attention */
	r->redist = xstrdup("-");
	r->openmp = xstrdup("-");
	r->first_error = xstrdup(why);
	r->drift = xstrdup("-");
	f->runners++;
}

static int row_cmp(const void *a, const void *b)
{
	const struct fleet_row *x = a, *y = b;
	int c;
	if (x->fails != y->fails)
		return y->fails - x->fails;
	if ((c = strcmp(x->runner, y->runner)))
		return c;
	return strcmp(x->install, y->install);
}

void fleet_sort(struct fleet *f)
{
	if (f->n > 1)
		qsort(f->rows, f->n, sizeof(*f->rows), row_cmp);
}

#define NCOLS 9

static const char *cell(const struct fleet_row *r, int i)
{
	const char *const v[NCOLS] = { r->runner, r->when, r->torch, r->install, r->verdict,
				       r->redist, r->openmp, r->first_error, r->drift };
	return v[i];
}

cJSON *fleet_json(const struct fleet *f)
{
	static const char *const keys[NCOLS] = { "runner", "snapshot", "torch", "install", "verdict",
						 "redistributable", "openmp", "first_error", "drift" };
	cJSON *doc = cJSON_CreateObject(), *rows;
	cJSON_AddStringToObject(doc, "schema", FLEET_SCHEMA);
	cJSON_AddNumberToObject(doc, "runners", (double)f->runners);
	rows = cJSON_AddArrayToObject(doc, "rows");
	for (size_t r = 0; r < f->n; r++) {
		cJSON *o = cJSON_CreateObject();
		for (int i = 0; i < NCOLS; i++)
			cJSON_AddStringToObject(o, keys[i], cell(&f->rows[r], i));
		cJSON_AddItemToArray(rows, o);
	}
	return doc;
}

void fleet_release(struct fleet *f)
{
	for (size_t r = 0; r < f->n; r++) {
		struct fleet_row *x = &f->rows[r];
		free(x->runner);
		free(x->when);
		free(x->torch);
		free(x->install);
		free(x->verdict);
		free(x->redist);
		free(x->openmp);
		free(x->first_error);
		free(x->drift);
	}
	free(f->rows);
	memset(f, 0, sizeof(*f));
}
