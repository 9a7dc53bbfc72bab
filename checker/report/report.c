/*
 * report: the shared part of the renderers — reading the JSON report
 * document and ranking its findings (by rules.def's order among others),
 * and one escaping function per output syntax (see report.h for why each
 * exists).
 *
 * The document is trusted for its shape only after report_view_init; its
 * strings are never trusted. Renderers read optional fields with
 * report_str/report_int, which return "absent" for a wrong type, so a
 * hand-edited or newer v1 document degrades to less detail, never to a crash.
 */
#include "report/report.h"
#include "judge/finding.h"
#include "machine/memory.h"
#include "util/text.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void report_opts_init(struct report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = REPORT_FMT_AUTO;
	o->fail_on = FAIL_ON_ERROR;
	o->color = -1;
}

static const char *const format_names[] = {
	[REPORT_FMT_AUTO] = "auto",	[REPORT_FMT_TEXT] = "text",   [REPORT_FMT_JSON] = "json",
	[REPORT_FMT_GITHUB] = "github", [REPORT_FMT_SARIF] = "sarif", [REPORT_FMT_MARKDOWN] = "markdown",
};
_Static_assert(sizeof(format_names) / sizeof(format_names[0]) == REPORT_FMT_COUNT,
	       "one name per enum report_format");

const char *report_format_name(enum report_format f)
{
	return (size_t)f < REPORT_FMT_COUNT && format_names[f] ? format_names[f] : "?";
}

int report_format_choose(const char *s, const char *choices, enum report_format *out, struct strbuf *why)
{
	const char *p = choices, *bar;
	size_t i, n = strlen(s);
	if (!strcmp(s, "auto")) {
		*out = REPORT_FMT_AUTO;
		return 0;
	}
	for (; *p; p = *bar ? bar + 1 : bar) {
		bar = p + strcspn(p, "|");
		if ((size_t)(bar - p) != n || strncmp(p, s, n))
			continue;
		for (i = REPORT_FMT_AUTO + 1; i < REPORT_FMT_COUNT; i++)
			if (format_names[i] && !strcmp(s, format_names[i])) {
				*out = (enum report_format)i;
				return 0;
			}
	}
	/* "a|b|c" -> "expected a, b or c", and the nearest when there is one */
	strbuf_adds(why, "expected ");
	for (p = choices; *p; p = *bar ? bar + 1 : bar) {
		bar = p + strcspn(p, "|");
		if (p != choices)
			strbuf_adds(why, *bar ? ", " : " or ");
		strbuf_add(why, p, (size_t)(bar - p));
	}
	{
		const char *words[8], *near;
		char buf[64];
		size_t k = 0, m;
		for (p = choices; *p && k < 7; p = *bar ? bar + 1 : bar) {
			bar = p + strcspn(p, "|");
			for (i = REPORT_FMT_AUTO + 1; i < REPORT_FMT_COUNT; i++) {
				m = format_names[i] ? strlen(format_names[i]) : 0;
				if (m && (size_t)(bar - p) == m && !strncmp(p, format_names[i], m))
					words[k++] = format_names[i];
			}
		}
		words[k] = NULL;
		if ((near = str_nearest(s, words))) {
			snprintf(buf, sizeof(buf), " (did you mean '%s'?)", near);
			strbuf_adds(why, buf);
		}
	}
	return -1;
}

int report_fail_on_parse(const char *s, enum report_fail_on *out)
{
	if (!strcmp(s, "error"))
		*out = FAIL_ON_ERROR;
	else if (!strcmp(s, "warning"))
		*out = FAIL_ON_WARNING;
	else if (!strcmp(s, "never"))
		*out = FAIL_ON_NEVER;
	else
		return -1;
	return 0;
}

const char *report_str(const cJSON *obj, const char *key)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long report_int(const cJSON *obj, const char *key, long def)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	if (!cJSON_IsNumber(v) || v->valuedouble != v->valuedouble)
		return def;
	if (v->valuedouble > (double)LONG_MAX / 2 || v->valuedouble < -(double)LONG_MAX / 2)
		return def;
	return (long)v->valuedouble;
}

/*
 * The torch binaries of every install, sorted by path (case-insensitively, as
 * Windows compares; ties in document order), so that each finding finds its
 * binary by binary search: one pass over the document, not one per finding.
 */
struct bin_ref {
	const char *path;
	const cJSON *b;
	size_t pos;
};

static int bin_ref_cmp(const void *pa, const void *pb)
{
	const struct bin_ref *a = pa, *b = pb;
	int c = str_icmp(a->path, b->path);
	return c ? c : a->pos < b->pos ? -1 : a->pos > b->pos;
}

static struct bin_ref *binary_index(const cJSON *doc, size_t *n)
{
	const cJSON *inst, *b;
	struct bin_ref *v = NULL;
	size_t alloc = 0;
	*n = 0;
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(doc, "installs"))
	{
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(inst, "binaries"))
		{
			const char *p = report_str(b, "path");
			if (!p)
				continue;
			ALLOC_GROW(v, *n + 1, alloc);
			v[*n].path = p;
			v[*n].b = b;
			v[*n].pos = *n;
			(*n)++;
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), bin_ref_cmp);
	return v;
}

/* The first torch binary named `path` in document order, or NULL. */
static const cJSON *find_binary(const struct bin_ref *idx, size_t n, const char *path)
{
	size_t lo = 0, hi = n;
	if (!path)
		return NULL;
	while (lo < hi) { /* the first entry not below path */
		size_t mid = lo + (hi - lo) / 2;
		if (str_icmp(idx[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !str_icmp(idx[lo].path, path) ? idx[lo].b : NULL;
}

static int item_cmp(const void *pa, const void *pb)
{
	const struct report_item *a = pa, *b = pb;
	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->failing_binary != b->failing_binary)
		return a->failing_binary ? -1 : 1;
	if (a->failing_binary && a->binary_order != b->binary_order)
		return a->binary_order < b->binary_order ? -1 : 1;
	if (a->rule_rank != b->rule_rank)
		return a->rule_rank < b->rule_rank ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* ---- grouping by root cause ---- */

/* A finding's grouping key: its cause id and its anchor. */
struct cause_key {
	size_t i; /* position in v->items (ranked) */
	const char *id, *file;
	long line, col;
};

static int cause_key_cmp(const void *pa, const void *pb)
{
	const struct cause_key *a = pa, *b = pb;
	int c;
	if ((c = strcmp(a->id, b->id)))
		return c;
	if (!a->file != !b->file)
		return a->file ? 1 : -1;
	if (a->file && (c = strcmp(a->file, b->file)))
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int same_group(const struct cause_key *a, const struct cause_key *b)
{
	struct cause_key x = *a, y = *b;
	x.i = y.i = 0;
	return !cause_key_cmp(&x, &y);
}

/* A `cause` the document carries: 1 to 64 of [0-9a-z-]. */
static int cause_id_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (n >= 64 || !((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'z') || s[n] == '-'))
			return 0;
	return n > 0;
}

static const char *base_name(const char *p)
{
	const char *s = p;
	for (; p && *p; p++)
		if (*p == '\\' || *p == '/')
			s = p + 1;
	return s;
}

static int str_icmp_ptr(const void *pa, const void *pb)
{
	return str_icmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* Distinct `binary` values of the cause's members: sorted once, O(n log n). */
static size_t count_binaries(const struct report_view *v, const struct report_cause *c)
{
	const char **b = xmalloc((c->n + 1) * sizeof(*b));
	size_t i, k = 0, d = 0;
	for (i = 0; i < c->n; i++) {
		const char *p = report_str(v->items[c->members[i]].f, "binary");
		if (p)
			b[k++] = p;
	}
	if (k)
		qsort(b, k, sizeof(*b), str_icmp_ptr);
	for (i = 0; i < k; i++)
		d += !i || str_icmp(b[i - 1], b[i]);
	free(b);
	return d;
}

void report_cause_id(const cJSON *f, char out[FINDING_CAUSE_ID_LEN + 1])
{
	const cJSON *we = cJSON_GetObjectItemCaseSensitive(f, "winerror");
	struct finding_cause c = {
		.rule = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "rule")),
		.winerror = cJSON_IsNumber(we) ? we->valuedouble : 0.0,
		.install = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "install")),
		.leaf = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "leaf")),
		.symbol = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "symbol")),
		.binary = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "binary")),
		.issue = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "issue")),
		.title = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "title")),
	};
	finding_cause_hash(&c, out);
}

/*
 * Groups the ranked items by (cause, anchor): sorting the keys once keeps it
 * O(n log n). Causes are numbered by their first member in rank order, so
 * they come out ranked too. Returns -1 for a malformed `cause`.
 */
static int group_causes(struct report_view *v, struct err *err)
{
	struct cause_key *keys = xmalloc((v->n + 1) * sizeof(*keys));
	size_t *cause_of = xmalloc((v->n + 1) * sizeof(*cause_of)), *next = xmalloc((v->n + 1) * sizeof(*next));
	char (*ids)[FINDING_CAUSE_ID_LEN + 1] = xmalloc((v->n + 1) * sizeof(*ids));
	size_t i, j, alloc = 0;
	for (i = 0; i < v->n; i++) {
		const cJSON *f = v->items[i].f, *c = cJSON_GetObjectItemCaseSensitive(f, "cause");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, "anchor");
		struct cause_key *k = &keys[i];
		k->i = i;
		if (c && !cJSON_IsNull(c)) {
			if (!cJSON_IsString(c) || !cause_id_ok(c->valuestring)) {
				err_set(err, "finding %zu: \"cause\" must be an id of 1 to 64 characters 0-9, a-z, -",
					v->items[i].index);
				free(keys);
				free(cause_of);
				free(next);
				free(ids);
				return -1;
			}
			k->id = c->valuestring;
		} else {
			report_cause_id(f, ids[i]);
			k->id = ids[i];
		}
		k->file = cJSON_IsObject(a) ? report_str(a, "file") : NULL;
		k->line = k->file ? report_int(a, "line", 0) : 0;
		k->col = k->file ? report_int(a, "col", 0) : 0;
		next[i] = v->n;
		cause_of[i] = v->n;
	}
	{
		struct cause_key *sorted = xmalloc((v->n + 1) * sizeof(*sorted));
		if (v->n)
			memcpy(sorted, keys, v->n * sizeof(*keys));
		if (v->n)
			qsort(sorted, v->n, sizeof(*sorted), cause_key_cmp);
		for (i = 0; i + 1 < v->n; i++)
			if (same_group(&sorted[i], &sorted[i + 1]))
				next[sorted[i].i] = sorted[i + 1].i; /* within a group the sort keeps rank order */
		free(sorted);
	}
	for (i = 0; i < v->n; i++) {
		struct report_cause *c;
		size_t n = 0, m;
		if (cause_of[i] != v->n)
			continue;
		for (j = i; j < v->n; j = next[j])
			n++;
		ALLOC_GROW(v->causes, v->ncauses + 1, alloc);
		c = &v->causes[v->ncauses];
		memset(c, 0, sizeof(*c));
		c->members = xmalloc(n * sizeof(*c->members));
		for (j = i, m = 0; j < v->n; j = next[j]) {
			c->members[m++] = j;
			cause_of[j] = v->ncauses;
		}
		c->n = n;
		c->sev = v->items[i].sev;
		snprintf(c->own, sizeof(c->own), "%s", keys[i].id); /* ids are checked to fit */
		v->ncause[c->sev]++;
		v->ncauses++;
	}
	for (i = 0; i < v->ncauses; i++) { /* the array no longer moves */
		v->causes[i].id = v->causes[i].own;
		v->causes[i].nbinaries = count_binaries(v, &v->causes[i]);
	}
	free(keys);
	free(cause_of);
	free(next);
	free(ids);
	return 0;
}

int report_fix_next(const char **s, const char **alt, size_t *len)
{
	static const char sep[] = "; or ";
	const char *next;
	if (!*s || !**s)
		return 0;
	next = strstr(*s, sep);
	*alt = *s;
	*len = next ? (size_t)(next - *s) : strlen(*s);
	*s = next ? next + sizeof(sep) - 1 : NULL;
	return 1;
}

const char *report_why(const cJSON *f)
{
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(f, "chain");
	const char *rule = report_str(f, "rule");
	int evidence_only = cJSON_IsArray(ch) && cJSON_GetArraySize(ch) > 0 && rule && !strcmp(rule, "missing-dll");
	return report_str(f, evidence_only ? "explanation" : "message");
}

const cJSON *report_cause_finding(const struct report_view *v, const struct report_cause *c)
{
	return v->items[c->members[0]].f;
}

/* The extension or first-imported package of the document one of whose binaries (or dist_info) is `path`. */
static const char *package_of(const cJSON *doc, const char *path)
{
	static const char *const groups[] = { "imported_first", "extensions" };
	const cJSON *inst, *run, *b;
	size_t g;
	cJSON_ArrayForEach(inst, cJSON_GetObjectItem(doc, "installs"))
	{
		for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			cJSON_ArrayForEach(run, cJSON_GetObjectItem(inst, groups[g]))
			{
				const char *di = report_str(run, "dist_info");
				if (di && !str_icmp(di, path))
					return report_str(run, "name");
				cJSON_ArrayForEach(b, cJSON_GetObjectItem(run, "binaries"))
				{
					const char *bp = report_str(b, "path");
					if (bp && !str_icmp(bp, path))
						return report_str(run, "name");
				}
			}
		}
	}
	return NULL;
}

const char *report_cause_owner(const struct report_view *v, const struct report_cause *c)
{
	const char *owner = NULL;
	size_t i;
	for (i = 0; i < c->n; i++) {
		const char *p = report_str(v->items[c->members[i]].f, "binary"), *o;
		if (!p)
			continue;
		o = package_of(v->doc, p);
		if (!o)
			o = "torch";
		if (owner && strcmp(owner, o))
			return NULL;
		owner = o;
	}
	return owner ? owner : "torch";
}

void report_cause_binaries(struct strbuf *out, const struct report_view *v, const struct report_cause *c,
			   size_t max_names, void (*esc)(struct strbuf *, const char *))
{
	const char *shown[16], *owner;
	size_t i, k, n = 0;
	if (!c->nbinaries)
		return;
	if (max_names > sizeof(shown) / sizeof(shown[0]))
		max_names = sizeof(shown) / sizeof(shown[0]);
	owner = report_cause_owner(v, c);
	strbuf_addf(out, "%zu ", c->nbinaries);
	if (owner) {
		esc(out, owner);
		strbuf_addch(out, ' ');
	}
	strbuf_addf(out, "binar%s: ", c->nbinaries == 1 ? "y" : "ies");
	for (i = 0; i < c->n && n < max_names; i++) {
		const char *p = report_str(v->items[c->members[i]].f, "binary");
		int dup = 0;
		if (!p)
			continue;
		for (k = 0; k < n && !dup; k++) /* O(max_names) per member */
			dup = !str_icmp(p, shown[k]);
		if (dup)
			continue;
		if (n)
			strbuf_adds(out, ", ");
		esc(out, base_name(p));
		shown[n++] = p;
	}
	if (c->nbinaries > n)
		strbuf_addf(out, " and %zu more", c->nbinaries - n);
}

/*
 * A cap far above any real report (a tree of 100,000 unreadable DLLs gives
 * 100,001 findings): every step below is O(n log n), and the input is
 * capped at REPORT_INPUT_MAX bytes anyway.
 */
#define REPORT_FINDINGS_MAX 1000000

int report_view_init(struct report_view *v, const cJSON *doc, struct err *err)
{
	const cJSON *findings, *f, *installs;
	const char *schema;
	size_t alloc = 0, nbin = 0;
	struct bin_ref *bins = NULL;
	memset(v, 0, sizeof(*v));
	if (!cJSON_IsObject(doc))
		return err_set(err, "the report is not a JSON object");
	schema = report_str(doc, "schema");
	if (!schema)
		return err_set(err, "the report has no \"schema\" (expected \"%s\")", REPORT_SCHEMA);
	if (strcmp(schema, REPORT_SCHEMA))
		return err_set(err, "unsupported report schema (expected \"%s\")", REPORT_SCHEMA);
	findings = cJSON_GetObjectItemCaseSensitive(doc, "findings");
	if (!cJSON_IsArray(findings))
		return err_set(err, "the report's \"findings\" is missing or not an array");
	installs = cJSON_GetObjectItemCaseSensitive(doc, "installs");
	if (installs && !cJSON_IsArray(installs) && !cJSON_IsNull(installs))
		return err_set(err, "the report's \"installs\" is not an array");
	if (cJSON_GetArraySize(findings) > REPORT_FINDINGS_MAX)
		return err_set(err, "the report has more than %d findings", REPORT_FINDINGS_MAX);
	v->doc = doc;
	bins = binary_index(doc, &nbin);
	cJSON_ArrayForEach(f, findings)
	{
		struct report_item it;
		const cJSON *b;
		const char *rule = report_str(f, "rule");
		if (!cJSON_IsObject(f)) {
			free(bins);
			report_view_release(v);
			return err_set(err, "finding %zu is not an object", v->n);
		}
		if (!rule || !*rule) {
			free(bins);
			report_view_release(v);
			return err_set(err, "finding %zu has no \"rule\"", v->n);
		}
		memset(&it, 0, sizeof(it));
		if (severity_parse(report_str(f, "severity"), &it.sev)) {
			free(bins);
			report_view_release(v);
			return err_set(err, "finding %zu: \"severity\" must be \"error\", \"warning\" or \"note\"", v->n);
		}
		it.f = f;
		it.index = v->n;
		{
			enum rule_id id;
			it.rule_rank = rule_find(rule, &id) ? INT_MAX : (int)id;
		}
		it.binary_order = INT_MAX;
		b = find_binary(bins, nbin, report_str(f, "binary"));
		if (b && report_int(b, "winerror", 0) != 0) {
			it.failing_binary = 1;
			it.binary_order = (int)report_int(b, "order", INT_MAX);
		}
		ALLOC_GROW(v->items, v->n + 1, alloc);
		v->items[v->n++] = it;
		v->count[it.sev]++;
	}
	free(bins);
	if (v->n)
		qsort(v->items, v->n, sizeof(*v->items), item_cmp);
	if (group_causes(v, err)) {
		report_view_release(v);
		return -1;
	}
	return 0;
}

void report_view_release(struct report_view *v)
{
	size_t i;
	for (i = 0; i < v->ncauses; i++)
		free(v->causes[i].members);
	free(v->causes);
	free(v->items);
	memset(v, 0, sizeof(*v));
}

const char *report_status(const struct report_view *v)
{
	if (v->count[SEV_ERROR])
		return "fail";
	if (v->count[SEV_WARNING])
		return "warn";
	return "pass";
}

/* An extension's binary failing is not torch failing to load (judge/extensions.h). */
static int is_extension_rule(const char *rule)
{
	enum rule_id id;
	return rule && rule_find(rule, &id) == 0 && (id == RULE_EXTENSION_MISMATCH || id == RULE_EXTENSION_LOAD_FAILURE);
}

int report_load_fails(const struct report_view *v)
{
	size_t i;
	for (i = 0; i < v->n; i++)
		if (v->items[i].sev == SEV_ERROR && report_int(v->items[i].f, "winerror", 0) != 0 &&
		    !is_extension_rule(report_str(v->items[i].f, "rule")))
			return 1;
	return 0;
}

int report_exit_status(const struct report_view *v, enum report_fail_on fail_on)
{
	switch (fail_on) {
	case FAIL_ON_NEVER:
		return 0;
	case FAIL_ON_WARNING:
		return (v->count[SEV_ERROR] || v->count[SEV_WARNING]) ? 1 : 0;
	case FAIL_ON_ERROR:
	default:
		return v->count[SEV_ERROR] ? 1 : 0;
	}
}

int report_anchor_in_repo(const char *file)
{
	const char *p;
	if (!file || !*file || strlen(file) > 4096)
		return 0;
	if (file[0] == '/' || file[0] == '\\' || file[0] == '<' || file[0] == '~')
		return 0;
	if (strchr(file, ':')) /* C:\..., file://, <embedded>: never a repository path */
		return 0;
	if (strstr(file, "##[")) /* would carry the legacy command form onto the annotation line */
		return 0;
	for (p = file; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	/* no ".." component, whichever separator */
	p = file;
	while (*p) {
		size_t n = strcspn(p, "/\\");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += n;
		if (*p)
			p++;
	}
	return 1;
}

/* ---- escaping ---- */

void report_esc_gh_data(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '%': strbuf_adds(out, "%25"); break;
		case '\r': strbuf_adds(out, "%0D"); break;
		case '\n': strbuf_adds(out, "%0A"); break;
		default: strbuf_addch(out, *s); break;
		}
	}
}

void report_esc_gh_prop(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '%': strbuf_adds(out, "%25"); break;
		case '\r': strbuf_adds(out, "%0D"); break;
		case '\n': strbuf_adds(out, "%0A"); break;
		case ':': strbuf_adds(out, "%3A"); break;
		case ',': strbuf_adds(out, "%2C"); break;
		default: strbuf_addch(out, *s); break;
		}
	}
}

/*
 * Runs of bytes the format itself handles (`special`) are written by `one`;
 * everything between goes through text_esc, so controls, C1, bidi marks
 * and invalid UTF-8 are shown exactly as in a terminal line.
 */
static void esc_with(struct strbuf *out, const char *str, const char *special, void (*one)(struct strbuf *, int))
{
	const char *s = str ? str : "";
	while (*s) {
		size_t n = strcspn(s, special);
		text_esc(out, s, n, 0);
		s += n;
		if (*s)
			one(out, (unsigned char)*s++);
	}
}

static void md_one(struct strbuf *out, int c)
{
	if (c == '\n' || c == '\r') {
		strbuf_addch(out, ' ');
		return;
	}
	strbuf_addch(out, '\\');
	strbuf_addch(out, c);
}

void report_esc_md(struct strbuf *out, const char *s)
{
	esc_with(out, s, "\n\r!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", md_one);
}

static void html_one(struct strbuf *out, int c)
{
	switch (c) {
	case '&': strbuf_adds(out, "&amp;"); break;
	case '<': strbuf_adds(out, "&lt;"); break;
	case '>': strbuf_adds(out, "&gt;"); break;
	case '"': strbuf_adds(out, "&quot;"); break;
	default: strbuf_adds(out, "&#39;"); break;
	}
}

void report_esc_html(struct strbuf *out, const char *s)
{
	esc_with(out, s, "&<>\"'", html_one);
}

void report_esc_uri(struct strbuf *out, const char *path)
{
	const unsigned char *s = (const unsigned char *)(path ? path : "");
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_addch(out, '/');
		else if (ascii_isalnum(*s) ||
			 strchr("-._~/", *s))
			strbuf_addch(out, *s);
		else
			strbuf_addf(out, "%%%02X", *s);
	}
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void report_count_phrase(struct strbuf *out, const struct report_view *v)
{
	strbuf_addf(out, "%zu %s: %zu %s, %zu %s, %zu %s; %zu %s", v->ncauses, plural(v->ncauses, "problem", "problems"),
		    v->ncause[SEV_ERROR], plural(v->ncause[SEV_ERROR], "error", "errors"), v->ncause[SEV_WARNING],
		    plural(v->ncause[SEV_WARNING], "warning", "warnings"), v->ncause[SEV_NOTE],
		    plural(v->ncause[SEV_NOTE], "note", "notes"), v->n, plural(v->n, "finding", "findings"));
}

static void add_count(cJSON *counts, const char *name, const size_t by_sev[3], size_t total)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "errors", (double)by_sev[SEV_ERROR]);
	cJSON_AddNumberToObject(o, "warnings", (double)by_sev[SEV_WARNING]);
	cJSON_AddNumberToObject(o, "notes", (double)by_sev[SEV_NOTE]);
	cJSON_AddNumberToObject(o, "total", (double)total);
	cJSON_AddItemToObject(counts, name, o);
}

void report_counts_json(cJSON *counts, const cJSON *doc)
{
	struct report_view v;
	struct err err;
	if (report_view_init(&v, doc, &err) < 0)
		return; /* a document no renderer could read: the renderers say why */
	add_count(counts, "problems", v.ncause, v.ncauses);
	add_count(counts, "findings", v.count, v.n);
	report_view_release(&v);
}

/* A byte count of the report as "12.3 MiB" (machine/memory.h's format). */
static void bytes_phrase(struct strbuf *out, const cJSON *n)
{
	char b[32];
	double v = cJSON_IsNumber(n) ? n->valuedouble : 0;
	memory_format(b, sizeof(b), v >= 0 && v < 18e18 ? (uint64_t)v : 0);
	strbuf_adds(out, b);
}

/* "; commit charge: predicted X per process, measured Y (...)": commit.measured, side by side (docs/commit.md). */
static void commit_measured_phrase(struct strbuf *out, const cJSON *inst, void (*esc)(struct strbuf *, const char *))
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(inst, "commit"), "measured");
	const cJSON *pred = cJSON_GetObjectItemCaseSensitive(m, "predicted");
	if (!cJSON_IsObject(m))
		return;
	strbuf_adds(out, "; commit charge: predicted ");
	if (cJSON_IsNumber(pred)) {
		bytes_phrase(out, pred);
		strbuf_adds(out, " per process (the images' writable sections)");
	} else {
		strbuf_adds(out, "unknown");
	}
	if (report_str(m, "note")) {
		strbuf_adds(out, ", ");
		esc(out, report_str(m, "note"));
		return;
	}
	strbuf_adds(out, ", measured ");
	bytes_phrase(out, cJSON_GetObjectItemCaseSensitive(m, "charged"));
	strbuf_adds(out, " (the helper's private commit grew from ");
	bytes_phrase(out, cJSON_GetObjectItemCaseSensitive(m, "private_before"));
	strbuf_adds(out, " to ");
	bytes_phrase(out, cJSON_GetObjectItemCaseSensitive(m, "private_after"));
	strbuf_adds(out, ")");
}

int report_confirm_phrase(struct strbuf *out, const cJSON *inst, void (*esc)(struct strbuf *, const char *))
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(inst, "confirmation");
	const cJSON *ic = cJSON_GetObjectItemCaseSensitive(inst, "import_check"), *ag;
	int any = 0;
	if (cJSON_IsObject(c)) {
		long n = report_int(c, "binaries_confirmed", 0), mis = report_int(c, "mismatches", 0);
		strbuf_addf(out, "confirmed by real loads on this machine: %ld torch binar%s loaded by LoadLibraryExW in a "
				 "helper process, ",
			    n, n == 1 ? "y" : "ies");
		if (mis)
			strbuf_addf(out, "%ld not as predicted (prediction-mismatch)", mis);
		else
			strbuf_adds(out, n == 1 ? "as predicted" : "all as predicted");
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "timed_out")))
			strbuf_adds(out, "; the helper timed out");
		commit_measured_phrase(out, inst, esc);
		any = 1;
	}
	if (cJSON_IsObject(ic)) {
		strbuf_adds(out, any ? "; " : "");
		if (report_str(ic, "skipped")) {
			strbuf_adds(out, "`import torch` not run: ");
			esc(out, report_str(ic, "skipped"));
		} else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ic, "timed_out"))) {
			strbuf_adds(out, "`import torch` run: timed out");
		} else {
			ag = cJSON_GetObjectItemCaseSensitive(ic, "agrees");
			strbuf_addf(out, "`import torch` run: exit %ld", report_int(ic, "exit_code", -1));
			if (cJSON_IsTrue(ag))
				strbuf_adds(out, ", as predicted");
			else if (cJSON_IsFalse(ag))
				strbuf_adds(out, ", not as predicted (prediction-mismatch)");
		}
		any = 1;
	}
	return any;
}
