/*
 * report_sarif: SARIF 2.1.0 for GitHub code scanning
 * (github/codeql-action/upload-sarif) and any other SARIF reader.
 *
 * One rule per finding kind (rules.def, plus any rule id a newer v1
 * producer used that this build does not know), one result per root cause
 * (report_view's causes): the demo's missing libomp140.x86_64.dll is one
 * result whose relatedLocations are the five torch binaries it fails.
 *
 * Locations. Code scanning rejects the WHOLE upload when a result has no
 * location ("locationFromSarifResult: expected at least one location",
 * github/codeql-action#1738, #2459), and it accepts only files of the
 * repository. A finding about C:\...\fbgemm.dll has no such file, so each
 * result is anchored, in order, to: the finding's own anchor (a requirements
 * pin, a matrix row) when it is in the repository; its install's matrix row
 * when that file is in the repository (an org matrix, not the embedded one);
 * the caller's fallback (cmd_report passes --sarif-anchor or, in GitHub
 * Actions, the running workflow file from GITHUB_WORKFLOW_REF) at line 1.
 * Only when none exists is the result left without locations, and the caller
 * warns that code scanning will refuse the file. The DLL paths are in the
 * message, the relatedLocations and properties; partialFingerprints carry a
 * hash of the cause id (finding.h: rule, WinError, install, leaf, symbol)
 * and the anchor's file, so an alert keeps its identity between runs
 * although several results share one anchor line.
 */
#include "report/report.h"
#include "util/jsonout.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *level_of(enum report_severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

static cJSON *text_obj(const char *text)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", text ? text : "");
	return o;
}

static void add_rule(cJSON *rules, const struct rule *r)
{
	cJSON *o = cJSON_CreateObject(), *cfg, *props, *tags;
	struct strbuf md = STRBUF_INIT;
	cJSON_AddStringToObject(o, "id", r->id);
	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddItemToObject(o, "shortDescription", text_obj(r->short_desc));
	cJSON_AddItemToObject(o, "fullDescription", text_obj(r->full_desc));
	cJSON_AddItemToObject(o, "help", text_obj(r->help));
	if (r->help_url)
		cJSON_AddStringToObject(o, "helpUri", r->help_url);
	strbuf_addf(&md, "**%s**\n\n%s\n\n**Fix:** %s", r->short_desc, r->full_desc, r->help);
	cJSON_AddStringToObject(cJSON_GetObjectItemCaseSensitive(o, "help"), "markdown", md.buf);
	cfg = cJSON_AddObjectToObject(o, "defaultConfiguration");
	cJSON_AddStringToObject(cfg, "level", level_of(r->severity));
	props = cJSON_AddObjectToObject(o, "properties");
	tags = cJSON_AddArrayToObject(props, "tags");
	cJSON_AddItemToArray(tags, cJSON_CreateString("windows"));
	cJSON_AddItemToArray(tags, cJSON_CreateString("dll"));
	cJSON_AddItemToArray(tags, cJSON_CreateString("pytorch"));
	cJSON_AddItemToArray(rules, o);
	strbuf_release(&md);
}

/* The install object whose torch_dir is `dir`. */
static const cJSON *install_of(const cJSON *doc, const char *dir)
{
	const cJSON *i;
	if (!dir)
		return NULL;
	cJSON_ArrayForEach(i, cJSON_GetObjectItemCaseSensitive(doc, "installs"))
	{
		const char *d = report_str(i, "torch_dir");
		if (d && !str_icmp(d, dir))
			return i;
	}
	return NULL;
}

static cJSON *location(const char *file, long line, long col)
{
	cJSON *locs = cJSON_CreateArray(), *loc = cJSON_CreateObject(), *phys, *art, *reg;
	struct strbuf uri = STRBUF_INIT;
	report_esc_uri(&uri, file);
	phys = cJSON_AddObjectToObject(loc, "physicalLocation");
	art = cJSON_AddObjectToObject(phys, "artifactLocation");
	cJSON_AddStringToObject(art, "uri", uri.buf);
	reg = cJSON_AddObjectToObject(phys, "region");
	cJSON_AddNumberToObject(reg, "startLine", line > 0 ? (double)line : 1);
	if (col > 0)
		cJSON_AddNumberToObject(reg, "startColumn", (double)col);
	cJSON_AddItemToArray(locs, loc);
	strbuf_release(&uri);
	return locs;
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	h ^= 0xff; /* field separator */
	h *= 0x100000001b3ULL;
	return h;
}

static void copy_str(cJSON *to, const cJSON *from, const char *key)
{
	const char *s = report_str(from, key);
	if (s)
		cJSON_AddStringToObject(to, key, s);
}

static void add_plain(struct strbuf *out, const char *s)
{
	strbuf_adds(out, s ? s : "");
}

/* Names of the binaries a cause affects in its message, at most this many. */
#define AFFECTED_NAMES 10
/* relatedLocations per result, at most this many (the rest are counted in the message). */
#define RELATED_MAX 100

/*
 * The affected torch binaries as relatedLocations: each a logical location
 * (the binary's Windows path, kind "module") with the path as its message.
 * Code scanning wants a repository file on a location, and a DLL on the
 * checked machine is none, so each also carries the result's own physical
 * location (`phys`, a repository file) when it has one.
 */
static void related(cJSON *r, const struct report_view *v, const struct report_cause *c, const cJSON *phys)
{
	cJSON *rel = NULL;
	size_t i, k, n = 0;
	const char *seen[RELATED_MAX];
	for (i = 0; i < c->n && n < RELATED_MAX; i++) {
		const char *p = report_str(v->items[c->members[i]].f, "binary");
		cJSON *loc, *ll, *l;
		int dup = 0;
		if (!p)
			continue;
		for (k = 0; k < n && !dup; k++) /* O(RELATED_MAX) per member */
			dup = !str_icmp(p, seen[k]);
		if (dup)
			continue;
		seen[n++] = p;
		if (!rel)
			rel = cJSON_AddArrayToObject(r, "relatedLocations");
		loc = cJSON_CreateObject();
		cJSON_AddNumberToObject(loc, "id", (double)n);
		if (phys)
			cJSON_AddItemToObject(loc, "physicalLocation", cJSON_Duplicate(phys, 1));
		ll = cJSON_AddArrayToObject(loc, "logicalLocations");
		l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "fullyQualifiedName", p);
		cJSON_AddStringToObject(l, "kind", "module");
		cJSON_AddItemToArray(ll, l);
		cJSON_AddItemToObject(loc, "message", text_obj(p));
		cJSON_AddItemToArray(rel, loc);
	}
}

/* One result per root cause: its first finding in full, the others as the binaries it affects. */
static cJSON *result(const struct report_view *v, const struct report_cause *c, int rule_index,
		     const char *fallback, size_t *unanchored)
{
	const cJSON *f = report_cause_finding(v, c), *a = cJSON_GetObjectItemCaseSensitive(f, "anchor"), *inst, *row, *x;
	cJSON *r = cJSON_CreateObject(), *props, *fp, *locs = NULL, *bins;
	struct strbuf msg = STRBUF_INIT;
	char hex[17];
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *title = report_str(f, "title"), *afile = NULL;
	size_t i;

	cJSON_AddStringToObject(r, "ruleId", report_str(f, "rule"));
	cJSON_AddNumberToObject(r, "ruleIndex", rule_index);
	cJSON_AddStringToObject(r, "level", level_of(c->sev));
	strbuf_adds(&msg, title ? title : report_str(f, "rule"));
	strbuf_adds(&msg, ".");
	if (report_str(f, "message"))
		strbuf_addf(&msg, " %s", report_str(f, "message"));
	if (c->nbinaries > 1) {
		strbuf_adds(&msg, " Affects ");
		report_cause_binaries(&msg, v, c, AFFECTED_NAMES, add_plain);
		strbuf_adds(&msg, ".");
	} else if (report_str(f, "binary")) {
		strbuf_addf(&msg, " Binary: %s.", report_str(f, "binary"));
	}
	if (report_str(f, "fix"))
		strbuf_addf(&msg, " Fix: %s", report_str(f, "fix"));
	cJSON_AddItemToObject(r, "message", text_obj(msg.buf));

	inst = install_of(v->doc, report_str(f, "install"));
	row = inst ? cJSON_GetObjectItemCaseSensitive(inst, "matrix_row") : NULL;
	if (cJSON_IsObject(a) && report_anchor_in_repo(report_str(a, "file"))) {
		afile = report_str(a, "file");
		locs = location(afile, report_int(a, "line", 1), report_int(a, "col", 0));
	} else if (cJSON_IsObject(row) && report_anchor_in_repo(report_str(row, "file"))) {
		locs = location(report_str(row, "file"), report_int(row, "line", 1), report_int(row, "col", 0));
	} else if (report_anchor_in_repo(fallback)) {
		locs = location(fallback, 1, 0);
	} else {
		(*unanchored)++;
	}
	if (locs)
		cJSON_AddItemToObject(r, "locations", locs);

	/*
	 * The alert's identity: the cause, and the pin it is anchored to, so a
	 * cause reported once per pin is one alert per pin; not the line (an
	 * edit above the pin keeps the alert).
	 */
	h = fnv1a(h, c->id);
	h = fnv1a(h, afile);
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)h);
	fp = cJSON_AddObjectToObject(r, "partialFingerprints");
	cJSON_AddStringToObject(fp, "torchDllCheckCause/v1", hex);
	related(r, v, c,
		locs ? cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(locs, 0), "physicalLocation") : NULL);

	props = cJSON_AddObjectToObject(r, "properties");
	cJSON_AddStringToObject(props, "cause", c->id);
	copy_str(props, f, "install");
	copy_str(props, f, "binary");
	copy_str(props, f, "leaf");
	copy_str(props, f, "symbol");
	copy_str(props, f, "fix");
	if (report_int(f, "winerror", 0))
		cJSON_AddNumberToObject(props, "winerror", (double)report_int(f, "winerror", 0));
	bins = cJSON_AddArrayToObject(props, "binaries");
	for (i = 0; i < c->n; i++) /* every member's, in rank order: the JSON report's findings of this cause */
		if (report_str(v->items[c->members[i]].f, "binary"))
			cJSON_AddItemToArray(bins, cJSON_CreateString(report_str(v->items[c->members[i]].f, "binary")));
	x = cJSON_GetObjectItemCaseSensitive(f, "chain");
	if (cJSON_IsArray(x))
		cJSON_AddItemToObject(props, "chain", cJSON_Duplicate(x, 1));
	x = cJSON_GetObjectItemCaseSensitive(f, "profiles"); /* check --pins: the machine profiles it holds on */
	if (cJSON_IsArray(x))
		cJSON_AddItemToObject(props, "profiles", cJSON_Duplicate(x, 1));
	x = cJSON_GetObjectItemCaseSensitive(f, "probes");
	if (cJSON_IsArray(x))
		cJSON_AddItemToObject(props, "probes", cJSON_Duplicate(x, 1));
	strbuf_release(&msg);
	return r;
}

void report_sarif(struct strbuf *out, const struct report_view *v, const char *fallback_anchor, size_t *unanchored)
{
	cJSON *root = cJSON_CreateObject(), *runs, *run, *tool, *driver, *rules, *results;
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(v->doc, "tool");
	struct strlist extra = STRLIST_INIT;
	size_t i, j, dummy = 0;

	if (!unanchored)
		unanchored = &dummy;
	*unanchored = 0;
	cJSON_AddStringToObject(root, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(root, "version", "2.1.0");
	runs = cJSON_AddArrayToObject(root, "runs");
	run = cJSON_CreateObject();
	cJSON_AddItemToArray(runs, run);
	tool = cJSON_AddObjectToObject(run, "tool");
	driver = cJSON_AddObjectToObject(tool, "driver");
	cJSON_AddStringToObject(driver, "name", "torch-dll-check");
	cJSON_AddStringToObject(driver, "version", report_str(t, "version") ? report_str(t, "version") : "unknown");
	cJSON_AddStringToObject(driver, "informationUri", REPORT_HOMEPAGE);
	rules = cJSON_AddArrayToObject(driver, "rules");
	for (i = 0; i < RULE_COUNT; i++)
		add_rule(rules, rule_get((enum rule_id)i));
	/* Rules this build does not know (a newer v1 producer): generic entries. */
	for (i = 0; i < v->n; i++) {
		const char *id = report_str(v->items[i].f, "rule");
		enum rule_id known;
		if (!rule_find(id, &known))
			continue;
		for (j = 0; j < extra.n && strcmp(extra.v[j], id); j++)
			;
		if (j == extra.n) {
			struct rule r = { id, "UnknownRule", SEV_WARNING, RULE_SRC_LOADER,
					  "A finding kind unknown to this renderer.",
					  "Produced by a newer torch-dll-check; see its documentation.",
					  "See the finding's message and fix.", NULL, "" };
			strlist_push(&extra, id);
			add_rule(rules, &r);
		}
	}
	results = cJSON_AddArrayToObject(run, "results");
	for (i = 0; i < v->ncauses; i++) {
		const char *id = report_str(report_cause_finding(v, &v->causes[i]), "rule");
		enum rule_id known;
		int idx = rule_find(id, &known) ? -1 : (int)known;
		if (idx < 0)
			for (j = 0; j < extra.n; j++)
				if (!strcmp(extra.v[j], id))
					idx = (int)(RULE_COUNT + j);
		cJSON_AddItemToArray(results, result(v, &v->causes[i], idx, fallback_anchor, unanchored));
	}
	json_print(out, root, 1);
	strbuf_addch(out, '\n');
	cJSON_Delete(root);
	strlist_release(&extra);
}
