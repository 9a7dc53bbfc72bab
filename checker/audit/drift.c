/*
 * drift: compares two audit snapshots (see drift.h).
 *
 * Each fact is pulled out of both documents as (key, value) pairs, sorted by
 * key and walked side by side, so a comparison costs O(n log n) however many
 * binaries a runner has. Keys are Windows paths or names, compared without
 * case (the file system does); values are compared exactly.
 */
#include "audit/drift.h"

#include <stdlib.h>
#include <string.h>

#include "util/jsonout.h"
#include "report/report.h"

struct item {
	char *key;         /* lowercased, for sorting and matching */
	const char *shown; /* the key as the document spells it */
	char *value;       /* NULL: present without a value */
	const cJSON *obj;
	size_t ord;        /* position in the document */
};

struct items {
	struct item *v;
	size_t n, alloc;
};

static int bool_of(const cJSON *obj, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

static char *lower_dup(const char *s)
{
	char *d = xstrdup(s);
	for (char *p = d; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return d;
}

static void items_add(struct items *l, const char *key, char *value, const cJSON *obj)
{
	struct item *it;
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	it = &l->v[l->n++];
	it->key = lower_dup(key);
	it->shown = key;
	it->value = value;
	it->obj = obj;
	it->ord = l->n - 1;
}

static int item_cmp(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->key, ((const struct item *)b)->key);
}

static void items_sort(struct items *l)
{
	if (l->n > 1)
		qsort(l->v, l->n, sizeof(*l->v), item_cmp);
}

static void items_release(struct items *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * Walks two sorted lists side by side, calling fn once per key with the
 * item of each side (NULL on the side that lacks it).
 */
typedef void (*pair_fn)(const struct item *o, const struct item *n, const cJSON *new_doc, struct drift_list *out);

static void walk(const struct items *x, const struct items *y, pair_fn fn, const cJSON *new_doc,
		 struct drift_list *out)
{
	size_t i = 0, j = 0;
	while (i < x->n || j < y->n) {
		int c = i == x->n ? 1 : j == y->n ? -1 : strcmp(x->v[i].key, y->v[j].key);
		fn(c <= 0 ? &x->v[i] : NULL, c >= 0 ? &y->v[j] : NULL, new_doc, out);
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
}

/* Collects both documents' items, walks them, releases them. */
static void compare_lists(const cJSON *a, const cJSON *b, void (*collect)(const cJSON *, struct items *), pair_fn fn,
			  struct drift_list *out)
{
	struct items x = { 0 }, y = { 0 };
	collect(a, &x);
	collect(b, &y);
	walk(&x, &y, fn, b, out);
	items_release(&x);
	items_release(&y);
}

static int same(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static void add(struct drift_list *out, enum drift_kind kind, enum drift_severity sev, const char *key,
		const char *old_value, const char *new_value, char *title)
{
	struct drift *d;
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	d = &out->v[out->n++];
	d->kind = kind;
	d->severity = sev;
	d->key = xstrdup(key ? key : "");
	d->old_value = old_value ? xstrdup(old_value) : NULL;
	d->new_value = new_value ? xstrdup(new_value) : NULL;
	d->title = title;
}

int drift_snapshot_check(const cJSON *doc, struct err *err)
{
	const char *schema;
	if (!cJSON_IsObject(doc))
		return err_set(err, "not a JSON object");
	schema = report_str(doc, "schema");
	if (!schema)
		return err_set(err, "no \"schema\" field: not a torch-dll-check report");
	if (strcmp(schema, DRIFT_SCHEMA_REPORT) && strcmp(schema, DRIFT_SCHEMA_INVENTORY))
		return err_set(err, "schema %.200s, expected %s or %s", schema, DRIFT_SCHEMA_REPORT,
			       DRIFT_SCHEMA_INVENTORY);
	if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(doc, "inventory")))
		return err_set(err, "no \"inventory\" object");
	return 0;
}

static const cJSON *inventory_of(const cJSON *doc)
{
	return cJSON_GetObjectItemCaseSensitive(doc, "inventory");
}

static const cJSON *array_in(const cJSON *obj, const char *key)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsArray(a) ? a : NULL;
}

/* --- redistributables ---------------------------------------------------- */

static char *redist_value(const cJSON *r)
{
	const char *ver = report_str(r, "version");
	long view = report_int(r, "view", 0);
	if (!bool_of(r, "found"))
		return xstrdup("not installed");
	if (!bool_of(r, "installed"))
		return xasprintf("not installed (key present, %s)", ver ? ver : "no version");
	return xasprintf("%s (%s-bit registry view)", ver ? ver : "unknown version", view == 32 ? "32" : "64");
}

static void collect_redists(const cJSON *doc, struct items *l)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, array_in(inventory_of(doc), "redistributables")) {
		const char *arch = report_str(r, "arch");
		if (arch)
			items_add(l, arch, redist_value(r), r);
	}
	items_sort(l);
}

static int registry_read(const cJSON *doc)
{
	return cJSON_IsString(cJSON_GetObjectItemCaseSensitive(inventory_of(doc), "registry"));
}

static void redist_pair(const struct item *o, const struct item *n, const cJSON *new_doc, struct drift_list *out)
{
	const char *key = o ? o->shown : n->shown;
	const char *ov = o ? o->value : "not installed", *nv = n ? n->value : "not installed";
	int was = o && bool_of(o->obj, "installed"), now = n && bool_of(n->obj, "installed");
	char *title;
	(void)new_doc;
	if (same(ov, nv))
		return;
	if (!was && now)
		title = xasprintf("VC++ redistributable (%s) installed: %s", key, nv);
	else if (was && !now)
		title = xasprintf("VC++ redistributable (%s) removed (was %s)", key, ov);
	else
		title = xasprintf("VC++ redistributable (%s) changed: %s -> %s", key, ov, nv);
	add(out, DRIFT_REDIST, DRIFT_NOTE, key, ov, nv, title);
}

static void compare_redists(const cJSON *a, const cJSON *b, struct drift_list *out)
{
	if (registry_read(a) != registry_read(b)) {
		add(out, DRIFT_REDIST, DRIFT_NOTE, "registry", registry_read(a) ? "read" : "not read",
		    registry_read(b) ? "read" : "not read",
		    xstrdup(registry_read(b) ? "the registry is read again: redistributables are known"
					     : "the registry was not read this time: redistributables are unknown"));
		return;
	}
	compare_lists(a, b, collect_redists, redist_pair, out);
}

/* --- runtime DLLs -------------------------------------------------------- */

static char *dll_value(const cJSON *d)
{
	const char *ver = report_str(d, "file_version"), *error = report_str(d, "error");
	if (error)
		return xasprintf("unreadable (%s)", error);
	return xstrdup(ver ? ver : "no version resource");
}

static void collect_dlls(const cJSON *doc, struct items *l)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, array_in(inventory_of(doc), "runtime_dlls")) {
		const char *path = report_str(d, "path");
		if (path)
			items_add(l, path, dll_value(d), d);
	}
	items_sort(l);
}

static int is_libomp140(const cJSON *d)
{
	const char *name = report_str(d, "name");
	return name && !str_icmp(name, "libomp140.x86_64.dll");
}

static void dll_pair(const struct item *o, const struct item *n, const cJSON *new_doc, struct drift_list *out)
{
	const char *key = o ? o->shown : n->shown;
	(void)new_doc;
	if (!o && is_libomp140(n->obj))
		add(out, DRIFT_OPENMP, DRIFT_WARNING, key, NULL, n->value,
		    xasprintf("libomp140.x86_64.dll appeared at %s: torch binaries that import it now load "
			      "here, but fail on machines without Visual Studio (the VC++ redistributable "
			      "does not install it) — this runner now hides that failure", key));
	else if (!n && is_libomp140(o->obj))
		add(out, DRIFT_OPENMP, DRIFT_NOTE, key, o->value, NULL,
		    xasprintf("libomp140.x86_64.dll disappeared from %s: torch binaries that import it "
			      "fail here now, as on machines without Visual Studio", key));
	else if (!o)
		add(out, DRIFT_RUNTIME_DLL, DRIFT_NOTE, key, NULL, n->value, xasprintf("%s appeared (%s)", key, n->value));
	else if (!n)
		add(out, DRIFT_RUNTIME_DLL, DRIFT_NOTE, key, o->value, NULL,
		    xasprintf("%s disappeared (was %s)", key, o->value));
	else if (!same(o->value, n->value))
		add(out, DRIFT_RUNTIME_DLL, DRIFT_NOTE, key, o->value, n->value,
		    xasprintf("%s changed: %s -> %s", key, o->value, n->value));
}

/* --- torch installs and their binaries ----------------------------------- */

const char *drift_install_status(const cJSON *doc, const char *torch_dir)
{
	const cJSON *in;
	cJSON_ArrayForEach(in, array_in(doc, "installs")) {
		const char *d = report_str(in, "torch_dir");
		if (d && !str_icmp(d, torch_dir))
			return report_str(in, "status");
	}
	return NULL;
}

static void collect_installs(const cJSON *doc, struct items *l)
{
	const cJSON *in;
	cJSON_ArrayForEach(in, array_in(inventory_of(doc), "installs")) {
		const char *dir = report_str(in, "torch_dir"), *ver = report_str(in, "version");
		if (dir)
			items_add(l, dir, xstrdup(ver ? ver : "unknown version"), in);
	}
	items_sort(l);
}

static void install_pair(const struct item *o, const struct item *n, const cJSON *new_doc, struct drift_list *out)
{
	const char *key = o ? o->shown : n->shown;
	if (!o) {
		const char *st = drift_install_status(new_doc, key);
		int fails = st && !strcmp(st, "fail");
		add(out, DRIFT_INSTALL, fails ? DRIFT_ERROR : DRIFT_NOTE, key, NULL, n->value,
		    xasprintf("torch %s installed at %s%s", n->value, key, fails ? ", and it will not load" : ""));
	} else if (!n) {
		add(out, DRIFT_INSTALL, DRIFT_NOTE, key, o->value, NULL, xasprintf("torch %s removed from %s", o->value, key));
	} else if (!same(o->value, n->value)) {
		add(out, DRIFT_INSTALL, DRIFT_NOTE, key, o->value, n->value,
		    xasprintf("torch at %s changed: %s -> %s", key, o->value, n->value));
	}
}

static int outcome_fails(const cJSON *bin)
{
	return report_int(bin, "winerror", 0) != 0;
}

static char *verdict_value(const cJSON *bin)
{
	const char *outcome = report_str(bin, "outcome");
	const char *leaf = report_str(bin, "leaf");
	long w = report_int(bin, "winerror", 0);
	if (!w)
		return xstrdup(outcome ? outcome : "loads");
	if (leaf)
		return xasprintf("%s, WinError %ld (%s)", outcome ? outcome : "fails", w, leaf);
	return xasprintf("%s, WinError %ld", outcome ? outcome : "fails", w);
}

static void collect_binaries(const cJSON *doc, struct items *l)
{
	const cJSON *in, *bin;
	cJSON_ArrayForEach(in, array_in(doc, "installs"))
		cJSON_ArrayForEach(bin, array_in(in, "binaries")) {
			const char *path = report_str(bin, "path");
			if (path)
				items_add(l, path, verdict_value(bin), bin);
		}
	items_sort(l);
}

struct changed {
	const struct item *o, *n;
};

static int changed_cmp(const void *a, const void *b)
{
	const struct changed *x = a, *y = b;
	return x->n->ord < y->n->ord ? -1 : x->n->ord > y->n->ord;
}

/* Verdicts that changed, reported in the new snapshot's order (torch's load order). */
static void compare_binaries(const cJSON *a, const cJSON *b, struct drift_list *out)
{
	struct items x = { 0 }, y = { 0 };
	struct changed *ch = NULL;
	size_t i = 0, j = 0, n = 0, alloc = 0;
	collect_binaries(a, &x);
	collect_binaries(b, &y);
	while (i < x.n && j < y.n) {
		int c = strcmp(x.v[i].key, y.v[j].key);
		if (c == 0 && !same(x.v[i].value, y.v[j].value)) {
			ALLOC_GROW(ch, n + 1, alloc);
			ch[n].o = &x.v[i];
			ch[n++].n = &y.v[j];
		}
		/* A binary only on one side came or went with its install: compare_installs says so. */
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
	}
	if (n > 1)
		qsort(ch, n, sizeof(*ch), changed_cmp);
	for (size_t k = 0; k < n; k++) {
		const struct item *o = ch[k].o, *nw = ch[k].n;
		int was = outcome_fails(o->obj), now = outcome_fails(nw->obj);
		enum drift_severity sev = !was && now ? DRIFT_ERROR : DRIFT_NOTE;
		char *title = !was && now ? xasprintf("%s loaded and now fails: %s", nw->shown, nw->value)
			      : was && !now ? xasprintf("%s failed and now loads (was %s)", nw->shown, o->value)
					    : xasprintf("%s: %s -> %s", nw->shown, o->value, nw->value);
		add(out, DRIFT_VERDICT, sev, nw->shown, o->value, nw->value, title);
	}
	free(ch);
	items_release(&x);
	items_release(&y);
}

static const char *status_of(const cJSON *doc)
{
	const char *s = report_str(doc, "status");
	return s ? s : "inventory only";
}

static void compare_status(const cJSON *a, const cJSON *b, struct drift_list *out)
{
	const char *o = status_of(a), *n = status_of(b);
	if (same(o, n))
		return;
	if (!strcmp(n, "fail"))
		add(out, DRIFT_STATUS, DRIFT_ERROR, "status", o, n,
		    xasprintf("this runner now fails the check (was %s)", o));
	else
		add(out, DRIFT_STATUS, DRIFT_NOTE, "status", o, n, xasprintf("status changed: %s -> %s", o, n));
}

int drift_compare(const cJSON *old_doc, const cJSON *new_doc, struct drift_list *out, struct err *err)
{
	size_t first = out->n;
	if (drift_snapshot_check(old_doc, err) < 0)
		return err_prefix(err, "previous snapshot: ");
	if (drift_snapshot_check(new_doc, err) < 0)
		return err_prefix(err, "new snapshot: ");
	compare_redists(old_doc, new_doc, out);
	compare_lists(old_doc, new_doc, collect_dlls, dll_pair, out);
	compare_lists(old_doc, new_doc, collect_installs, install_pair, out);
	compare_binaries(old_doc, new_doc, out);
	compare_status(old_doc, new_doc, out);
	/* Stable by severity: errors, then warnings, then notes, each in the order found. */
	if (out->n - first > 1) {
		size_t n = out->n - first;
		struct drift *copy = xmalloc(n * sizeof(*copy));
		size_t k = 0;
		for (int s = DRIFT_ERROR; s <= DRIFT_NOTE; s++)
			for (size_t i = first; i < out->n; i++)
				if ((int)out->v[i].severity == s)
					copy[k++] = out->v[i];
		memcpy(out->v + first, copy, n * sizeof(*copy));
		free(copy);
	}
	return 0;
}

void drift_list_release(struct drift_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].old_value);
		free(l->v[i].new_value);
		free(l->v[i].title);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void drift_counts(const struct drift_list *l, size_t *errors, size_t *warnings, size_t *notes)
{
	size_t c[3] = { 0, 0, 0 };
	for (size_t i = 0; i < l->n; i++)
		c[l->v[i].severity]++;
	*errors = c[DRIFT_ERROR];
	*warnings = c[DRIFT_WARNING];
	*notes = c[DRIFT_NOTE];
}

const char *drift_kind_name(enum drift_kind k)
{
	switch (k) {
	case DRIFT_STATUS: return "status";
	case DRIFT_REDIST: return "redistributable";
	case DRIFT_RUNTIME_DLL: return "runtime-dll";
	case DRIFT_OPENMP: return "openmp";
	case DRIFT_INSTALL: return "install";
	case DRIFT_VERDICT: return "verdict";
	}
	return "unknown";
}

const char *drift_severity_name(enum drift_severity s)
{
	return s == DRIFT_ERROR ? "error" : s == DRIFT_WARNING ? "warning" : "note";
}

cJSON *drift_to_json(const struct drift_list *l)
{
	cJSON *doc = cJSON_CreateObject(), *arr;
	size_t e, w, n;
	drift_counts(l, &e, &w, &n);
	cJSON_AddNumberToObject(doc, "errors", (double)e);
	cJSON_AddNumberToObject(doc, "warnings", (double)w);
	cJSON_AddNumberToObject(doc, "notes", (double)n);
	arr = cJSON_AddArrayToObject(doc, "changes");
	for (size_t i = 0; i < l->n; i++) {
		const struct drift *d = &l->v[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", drift_kind_name(d->kind));
		cJSON_AddStringToObject(o, "severity", drift_severity_name(d->severity));
		cJSON_AddStringToObject(o, "key", d->key);
		json_add_str_or_null(o, "old", d->old_value);
		json_add_str_or_null(o, "new", d->new_value);
		cJSON_AddStringToObject(o, "title", d->title);
		cJSON_AddItemToArray(arr, o);
	}
	return doc;
}

static int count_of(const cJSON *drift, const char *name, long *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(drift, name);
	double d;
	*out = 0;
	if (!cJSON_IsNumber(v))
		return -1;
	d = v->valuedouble;
	if (!(d >= 0 && d <= (double)DRIFT_MAX_COUNT) || d != (double)(long)d)
		return -1;
	*out = (long)d;
	return 0;
}

int drift_json_counts(const cJSON *drift, long *errors, long *warnings, long *notes)
{
	int bad = count_of(drift, "errors", errors);
	bad |= count_of(drift, "warnings", warnings);
	bad |= count_of(drift, "notes", notes);
	if (bad || !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(drift, "changes"))) {
		*errors = *warnings = *notes = 0;
		return -1;
	}
	return 0;
}
