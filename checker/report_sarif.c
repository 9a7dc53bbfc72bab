/*
 * report_sarif: SARIF 2.1.0 for GitHub code scanning
 * (github/codeql-action/upload-sarif) and any other SARIF reader.
 *
 * One rule per finding kind (rules.def, plus any rule id a newer v1
 * producer used that this build does not know), one result per finding.
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
 * warns that code scanning will refuse the file. The DLL path is in the
 * message and in properties; partialFingerprints carry a hash of (rule,
 * install, binary, leaf, symbol) so an alert keeps its identity between runs
 * although several results share one anchor line.
 */
#include "report.h"
#include "jsonout.h"

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

static cJSON *result(const struct report_view *v, const struct report_item *it, int rule_index,
		     const char *fallback, size_t *unanchored)
{
	const cJSON *f = it->f, *a = cJSON_GetObjectItemCaseSensitive(f, "anchor"), *inst, *row, *x;
	cJSON *r = cJSON_CreateObject(), *props, *fp;
	struct strbuf msg = STRBUF_INIT;
	char hex[17];
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *title = report_str(f, "title");

	cJSON_AddStringToObject(r, "ruleId", report_str(f, "rule"));
	cJSON_AddNumberToObject(r, "ruleIndex", rule_index);
	cJSON_AddStringToObject(r, "level", level_of(it->sev));
	strbuf_adds(&msg, title ? title : report_str(f, "rule"));
	strbuf_adds(&msg, ".");
	if (report_str(f, "message"))
		strbuf_addf(&msg, " %s", report_str(f, "message"));
	if (report_str(f, "binary"))
		strbuf_addf(&msg, " Binary: %s.", report_str(f, "binary"));
	if (report_str(f, "fix"))
		strbuf_addf(&msg, " Fix: %s", report_str(f, "fix"));
	cJSON_AddItemToObject(r, "message", text_obj(msg.buf));

	inst = install_of(v->doc, report_str(f, "install"));
	row = inst ? cJSON_GetObjectItemCaseSensitive(inst, "matrix_row") : NULL;
	if (cJSON_IsObject(a) && report_anchor_in_repo(report_str(a, "file")))
		cJSON_AddItemToObject(r, "locations",
				      location(report_str(a, "file"), report_int(a, "line", 1), report_int(a, "col", 0)));
	else if (cJSON_IsObject(row) && report_anchor_in_repo(report_str(row, "file")))
		cJSON_AddItemToObject(r, "locations", location(report_str(row, "file"), report_int(row, "line", 1),
							       report_int(row, "col", 0)));
	else if (report_anchor_in_repo(fallback))
		cJSON_AddItemToObject(r, "locations", location(fallback, 1, 0));
	else
		(*unanchored)++;

	h = fnv1a(h, report_str(f, "rule"));
	h = fnv1a(h, report_str(f, "install"));
	h = fnv1a(h, report_str(f, "binary"));
	h = fnv1a(h, report_str(f, "leaf"));
	h = fnv1a(h, report_str(f, "symbol"));
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)h);
	fp = cJSON_AddObjectToObject(r, "partialFingerprints");
	cJSON_AddStringToObject(fp, "torchDllCheckFinding/v1", hex);

	props = cJSON_AddObjectToObject(r, "properties");
	copy_str(props, f, "install");
	copy_str(props, f, "binary");
	copy_str(props, f, "leaf");
	copy_str(props, f, "symbol");
	copy_str(props, f, "fix");
	if (report_int(f, "winerror", 0))
		cJSON_AddNumberToObject(props, "winerror", (double)report_int(f, "winerror", 0));
	x = cJSON_GetObjectItemCaseSensitive(f, "chain");
	if (cJSON_IsArray(x))
		cJSON_AddItemToObject(props, "chain", cJSON_Duplicate(x, 1));
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
	for (i = 0; i < v->n; i++) {
		const char *id = report_str(v->items[i].f, "rule");
		enum rule_id known;
		int idx = rule_find(id, &known) ? -1 : (int)known;
		if (idx < 0)
			for (j = 0; j < extra.n; j++)
				if (!strcmp(extra.v[j], id))
					idx = (int)(RULE_COUNT + j);
		cJSON_AddItemToArray(results, result(v, &v->items[i], idx, fallback_anchor, unanchored));
	}
	json_print(out, root, 1);
	strbuf_addch(out, '\n');
	cJSON_Delete(root);
	strlist_release(&extra);
}
