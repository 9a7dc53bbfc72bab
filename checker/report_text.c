/*
 * report_text: the human report. The first line is the verdict a person
 * reads in ten seconds (PASS/WARN/FAIL, the most important finding, the
 * counts); then every error with its evidence and its fix, then warnings,
 * then notes. Our own words are ASCII so a legacy Windows console code page
 * shows them; untrusted strings pass through text_esc_line (text.h), so a DLL name
 * cannot move the cursor, recolour the terminal or start a workflow command.
 *
 * Colour (ANSI SGR) only when the caller says so: cmd_report enables it for
 * a terminal and never when NO_COLOR is set (https://no-color.org/).
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#define PROBES_SHOWN 8

struct style {
	const char *red, *yellow, *green, *cyan, *bold, *dim, *off;
};

static const struct style plain = { "", "", "", "", "", "", "" };
static const struct style ansi = { "\033[1;31m", "\033[1;33m", "\033[1;32m", "\033[36m", "\033[1m",
				   "\033[2m", "\033[0m" };

static void field(struct strbuf *out, const struct style *st, const char *label, const char *val)
{
	if (!val || !*val)
		return;
	strbuf_addf(out, "      %s%-9s%s ", st->dim, label, st->off);
	text_esc_line(out, val);
	strbuf_addch(out, '\n');
}

static void chain(struct strbuf *out, const struct style *st, const cJSON *f)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "chain"), *e;
	int first = 1;
	if (!cJSON_IsArray(c) || !cJSON_GetArraySize(c))
		return;
	strbuf_addf(out, "      %s%-9s%s ", st->dim, "chain:", st->off);
	cJSON_ArrayForEach(e, c)
	{
		if (!cJSON_IsString(e))
			continue;
		if (!first)
			strbuf_adds(out, " -> ");
		text_esc_line(out, e->valuestring);
		first = 0;
	}
	strbuf_addch(out, '\n');
}

static void probes(struct strbuf *out, const struct style *st, const cJSON *f)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(f, "probes"), *e;
	int n, shown = 0;
	if (!cJSON_IsArray(p) || !(n = cJSON_GetArraySize(p)))
		return;
	strbuf_addf(out, "      %s%-9s%s %d place%s\n", st->dim, "searched:", st->off, n, n == 1 ? "" : "s");
	cJSON_ArrayForEach(e, p)
	{
		if (shown == PROBES_SHOWN) {
			strbuf_addf(out, "        ... %d more in the JSON report\n", n - shown);
			break;
		}
		strbuf_adds(out, "        ");
		text_esc_line(out, report_str(e, "path"));
		strbuf_adds(out, "  (");
		text_esc_line(out, report_str(e, "step"));
		strbuf_adds(out, ": ");
		text_esc_line(out, report_str(e, "result"));
		strbuf_adds(out, ")\n");
		shown++;
	}
}

/*
 * Loader failures that share install, rule and leaf are one problem seen from
 * several torch binaries (torch_cpu.dll fails because fbgemm.dll does): the
 * first is shown in full, the others are named on its "also:" line.
 */
static int loader_rule(const char *r)
{
	enum rule_id id;
	return !rule_find(r, &id) && rule_get(id)->source == RULE_SRC_LOAD_FAILURE;
}

static int same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static const char *base_name(const char *p)
{
	const char *s = p;
	for (; p && *p; p++)
		if (*p == '\\' || *p == '/')
			s = p + 1;
	return s;
}

static void finding(struct strbuf *out, const struct style *st, const struct report_item *it, size_t num, int multi);

/*
 * A finding's grouping key. Two findings are the same problem when they have
 * the same severity, the same loader rule, leaf, install and WinError (and a
 * leaf and an install at all).
 */
struct group_key {
	size_t i; /* position in v->items */
	int sev;
	const char *rule, *leaf, *install;
	long winerror;
};

static int group_key_cmp(const void *pa, const void *pb)
{
	const struct group_key *a = pa, *b = pb;
	int c;
	if (a->sev != b->sev)
		return a->sev < b->sev ? -1 : 1;
	if ((c = strcmp(a->rule, b->rule)) || (c = strcmp(a->leaf, b->leaf)) || (c = strcmp(a->install, b->install)))
		return c;
	if (a->winerror != b->winerror)
		return a->winerror < b->winerror ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/*
 * next[i]: the next item (in ranked order) with the same severity and the
 * same problem as item i, or v->n. Sorting the keys once keeps grouping
 * O(n log n) where comparing every pair was quadratic (100,000 unreadable
 * DLLs took minutes).
 */
static size_t *group_links(const struct report_view *v)
{
	size_t *next = xmalloc((v->n + 1) * sizeof(*next)), i, k = 0;
	struct group_key *keys = xmalloc((v->n + 1) * sizeof(*keys));
	for (i = 0; i < v->n; i++) {
		const cJSON *f = v->items[i].f;
		struct group_key g;
		next[i] = v->n;
		g.i = i;
		g.sev = (int)v->items[i].sev;
		g.rule = report_str(f, "rule");
		g.leaf = report_str(f, "leaf");
		g.install = report_str(f, "install");
		g.winerror = report_int(f, "winerror", 0);
		if (loader_rule(g.rule) && g.leaf && g.install)
			keys[k++] = g;
	}
	if (k)
		qsort(keys, k, sizeof(*keys), group_key_cmp);
	for (i = 0; i + 1 < k; i++) {
		struct group_key a = keys[i], b = keys[i + 1];
		a.i = b.i = 0;
		if (!group_key_cmp(&a, &b))
			next[keys[i].i] = keys[i + 1].i;
	}
	free(keys);
	return next;
}

/* Renders item i and folds the later items with the same problem (next[] chain) into its "also:" line. */
static void finding_group(struct strbuf *out, const struct style *st, const struct report_view *v, size_t i,
			  unsigned char *done, const size_t *next, size_t num, int multi)
{
	size_t j, n = 0;
	struct strbuf also = STRBUF_INIT;
	finding(out, st, &v->items[i], num, multi);
	for (j = next[i]; j < v->n; j = next[j]) {
		if (done[j])
			continue;
		done[j] = 1;
		if (n++)
			strbuf_adds(&also, ", ");
		text_esc_line(&also, base_name(report_str(v->items[j].f, "binary")));
	}
	if (n)
		strbuf_addf(out, "      %s%-9s%s %s fail%s the same way (%zu more)\n", st->dim, "also:", st->off, also.buf,
			    n == 1 ? "s" : "", n);
	strbuf_release(&also);
}

static void finding(struct strbuf *out, const struct style *st, const struct report_item *it, size_t num, int multi)
{
	const cJSON *f = it->f, *a = cJSON_GetObjectItemCaseSensitive(f, "anchor");
	const char *col = it->sev == SEV_ERROR ? st->red : it->sev == SEV_WARNING ? st->yellow : st->cyan;
	long we = report_int(f, "winerror", 0);
	const char *title = report_str(f, "title");
	strbuf_addf(out, "  %s%zu.%s %s", col, num, st->off, st->bold);
	text_esc_line(out, title ? title : report_str(f, "rule"));
	strbuf_addf(out, "%s  [", st->off);
	text_esc_line(out, report_str(f, "rule"));
	if (we)
		strbuf_addf(out, ", WinError %ld", we);
	strbuf_adds(out, "]\n");
	if (report_str(f, "message")) {
		strbuf_adds(out, "      ");
		text_esc_line(out, report_str(f, "message"));
		strbuf_addch(out, '\n');
	}
	field(out, st, "binary:", report_str(f, "binary"));
	chain(out, st, f);
	field(out, st, we == 126 ? "missing:" : "leaf:", report_str(f, "leaf"));
	probes(out, st, f);
	if (cJSON_IsObject(a) && report_str(a, "file")) {
		strbuf_addf(out, "      %s%-9s%s ", st->dim, "at:", st->off);
		text_esc_line(out, report_str(a, "file"));
		if (report_int(a, "line", 0) > 0)
			strbuf_addf(out, ":%ld", report_int(a, "line", 0));
		strbuf_addch(out, '\n');
	}
	if (multi)
		field(out, st, "install:", report_str(f, "install"));
	if (report_str(f, "fix")) {
		strbuf_addf(out, "      %s%-9s%s ", st->bold, "fix:", st->off);
		text_esc_line(out, report_str(f, "fix"));
		strbuf_addch(out, '\n');
	}
}

static void counts(struct strbuf *out, const struct report_view *v)
{
	strbuf_addf(out, "%zu error%s, %zu warning%s, %zu note%s", v->count[SEV_ERROR],
		    v->count[SEV_ERROR] == 1 ? "" : "s", v->count[SEV_WARNING],
		    v->count[SEV_WARNING] == 1 ? "" : "s", v->count[SEV_NOTE], v->count[SEV_NOTE] == 1 ? "" : "s");
}

/* "torch 2.4.0+cpu" or "2 torch installs" or "no torch install". */
static void what(struct strbuf *out, const struct report_view *v)
{
	const cJSON *inst = cJSON_GetObjectItemCaseSensitive(v->doc, "installs");
	int n = cJSON_IsArray(inst) ? cJSON_GetArraySize(inst) : 0;
	if (n == 1 && report_str(cJSON_GetArrayItem(inst, 0), "version")) {
		strbuf_adds(out, "torch ");
		text_esc_line(out, report_str(cJSON_GetArrayItem(inst, 0), "version"));
	} else if (n > 1) {
		strbuf_addf(out, "%d torch installs", n);
	} else if (n == 1) {
		strbuf_adds(out, "torch");
	} else if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v->doc, "pins"))) {
		strbuf_adds(out, "the torch this branch pins"); /* check --pins before any install */
	} else {
		strbuf_adds(out, "no torch install");
	}
}

void report_text(struct strbuf *out, const struct report_view *v, int color)
{
	const struct style *st = color ? &ansi : &plain;
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(v->doc, "counts"), *inst;
	static const char *const head[3] = { "Notes", "Warnings", "Errors" };
	size_t i, num = 0;
	int sev, ninst = 0, nfail = 0, multi, pass;
	unsigned char *done = v->n ? xcalloc(v->n, 1) : NULL;
	size_t *next = group_links(v);

	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(v->doc, "installs"))
	{
		ninst++;
		nfail += same_str(report_str(inst, "status"), "fail");
	}
	multi = ninst > 1;

	/* The verdict line. */
	if (v->count[SEV_ERROR]) {
		strbuf_addf(out, "%sFAIL%s ", st->red, st->off);
		if (ninst > 1 && nfail)
			strbuf_addf(out, "%d of %d torch installs", nfail, ninst);
		else
			what(out, v);
		strbuf_adds(out, " will not load: ");
		text_esc_line(out, report_str(v->items[0].f, "title"));
	} else if (v->count[SEV_WARNING]) {
		strbuf_addf(out, "%sWARN%s ", st->yellow, st->off);
		what(out, v);
		strbuf_adds(out, " loads, but: ");
		text_esc_line(out, report_str(v->items[0].f, "title"));
	} else if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v->doc, "pins"),
								  "judged")) && !ninst) {
		strbuf_addf(out, "%sPASS%s no torch pin changed: the gate passes", st->green, st->off);
	} else {
		strbuf_addf(out, "%sPASS%s ", st->green, st->off);
		what(out, v);
		strbuf_adds(out, " loads");
	}
	strbuf_adds(out, " (");
	counts(out, v);
	if (cJSON_IsObject(c) && report_int(c, "binaries", -1) >= 0 &&
	    (ninst || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v->doc, "pins"))))
		strbuf_addf(out, "; %ld torch binaries checked, %ld fail", report_int(c, "binaries", 0),
			    report_int(c, "binaries_failing", 0));
	strbuf_adds(out, ")\n");

	/* Where, and what `import torch` would say (Windows names only the DLL it asked for); failing installs first. */
	for (pass = 0; pass < 2; pass++)
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(v->doc, "installs"))
	{
		const cJSON *ie = cJSON_GetObjectItemCaseSensitive(inst, "import_error");
		if (!report_str(inst, "torch_dir") || same_str(report_str(inst, "status"), "fail") != !pass)
			continue;
		{
			const char *is = report_str(inst, "status");
			if (same_str(is, "fail"))
				strbuf_addf(out, "  %sFAIL%s ", st->red, st->off);
			else if (same_str(is, "warn"))
				strbuf_addf(out, "  %sWARN%s ", st->yellow, st->off);
			else if (same_str(is, "pass"))
				strbuf_addf(out, "  %sPASS%s ", st->green, st->off);
			else
				strbuf_adds(out, "  ");
		}
		strbuf_addf(out, "%storch%s ", st->dim, st->off);
		text_esc_line(out, report_str(inst, "version") ? report_str(inst, "version") : "(version unknown)");
		strbuf_adds(out, " at ");
		text_esc_line(out, report_str(inst, "torch_dir"));
		strbuf_addch(out, '\n');
		if (cJSON_IsObject(ie) && report_str(ie, "text")) {
			strbuf_addf(out, "  %simport torch raises:%s ", st->dim, st->off);
			text_esc_line(out, report_str(ie, "text"));
			strbuf_addch(out, '\n');
		}
	}

	/* Findings by severity, most important first. */
	for (sev = SEV_ERROR; sev >= SEV_NOTE; sev--) {
		if (!v->count[sev])
			continue;
		strbuf_addf(out, "\n%s%s (%zu):%s\n", st->bold, head[sev], v->count[sev], st->off);
		for (i = 0; i < v->n; i++)
			if ((int)v->items[i].sev == sev && !done[i])
				finding_group(out, st, v, i, done, next, ++num, multi);
	}
	free(done);
	free(next);
	if (v->n && report_str(v->doc, "status") && strcmp(report_str(v->doc, "status"), report_status(v)))
		strbuf_addf(out, "\n(the report says status \"%s\"; its findings say \"%s\")\n",
			    strcmp(report_str(v->doc, "status"), "pass") && strcmp(report_str(v->doc, "status"), "warn") &&
					    strcmp(report_str(v->doc, "status"), "fail")
				    ? "?"
				    : report_str(v->doc, "status"),
			    report_status(v));
}
