/*
 * test_rules: the rule table (checker/judge/rules.def) and the docs written from
 * it. Every row is complete and its id and SARIF name well formed, ids
 * round-trip, and docs/rules.md is exactly what the table generates
 * (TDC_WRITE_DOCS=1 rewrites it).
 */
#include "harness.h"
#include "loader/loader.h"
#include "util/os.h"
#include "judge/rules.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *repo(void)
{
	const char *r = getenv("TDC_REPO");
	return r && *r ? r : ".";
}

static int all_of(const char *s, const char *set)
{
	return s && *s && strspn(s, set) == strlen(s);
}

static void test_every_row_complete(void)
{
	size_t i, j;
	for (i = 0; i < RULE_COUNT; i++) {
		const struct rule *r = rule_get((enum rule_id)i);
		char url[256];
		CHECK(r->id && r->name && r->short_desc && r->full_desc && r->help && r->help_url && r->report);
		if (!r->id || !r->name)
			continue;
		CHECK(all_of(r->id, "abcdefghijklmnopqrstuvwxyz-") && r->id[0] != '-');
		CHECK(r->name[0] >= 'A' && r->name[0] <= 'Z');
		CHECK(all_of(r->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"));
		snprintf(url, sizeof(url), "%s%s", RULES_DOC_URL, r->id);
		CHECK_STR(r->help_url, url);
		for (j = 0; j < i; j++) {
			CHECK(strcmp(rule_get((enum rule_id)j)->id, r->id));
			CHECK(strcmp(rule_get((enum rule_id)j)->name, r->name));
		}
	}
}

static void test_find_and_severity_words(void)
{
	enum rule_id id;
	enum report_severity s;
	size_t i;
	for (i = 0; i < RULE_COUNT; i++) {
		CHECK_INT(rule_find(rule_get((enum rule_id)i)->id, &id), 0);
		CHECK_INT(id, i);
	}
	CHECK_INT(rule_find("missing-dlls", &id), -1);
	CHECK_INT(rule_find("", &id), -1);
	CHECK_INT(rule_find(NULL, &id), -1);
	CHECK_STR(rule_get(RULE_MISSING_DLL)->id, "missing-dll");
	CHECK_INT(rule_get(RULE_RUNTIME_TOO_OLD)->source, RULE_SRC_MATRIX);
	CHECK_INT(rule_get(RULE_INVALID_PARAMETER)->source, RULE_SRC_LOAD_FAILURE);
	for (i = 0; i < 3; i++) {
		CHECK_INT(severity_parse(severity_name((enum report_severity)i), &s), 0);
		CHECK_INT(s, i);
	}
	CHECK_INT(severity_parse("Error", &s), -1);
	CHECK_INT(severity_parse(NULL, &s), -1);
}

/* A binary's `outcome` and the rule of its finding are one word (docs/report-json.md). */
static void test_every_load_failure_outcome_is_a_rule(void)
{
	enum ldr_outcome o;
	enum rule_id id;
	size_t n = 0, i;
	for (o = LDR_MISSING_DLL; o <= LDR_OUTCOME_LAST; o++) {
		CHECK_INT(rule_find(ldr_outcome_name(o), &id), 0);
		if (!rule_find(ldr_outcome_name(o), &id))
			CHECK_INT(rule_get(id)->source, RULE_SRC_LOAD_FAILURE);
	}
	for (i = 0; i < RULE_COUNT; i++)
		n += rule_get((enum rule_id)i)->source == RULE_SRC_LOAD_FAILURE;
	CHECK_INT(n, LDR_OUTCOME_LAST - LDR_MISSING_DLL + 1);
}

/* docs/rules.md as the table writes it. */
static void rules_markdown(struct strbuf *md)
{
	size_t i;
	strbuf_adds(md, "# Finding rules\n\n"
			"<!-- Generated from checker/judge/rules.def by tests/unit/test_rules.c: do not edit here.\n"
			"     After changing a rule: TDC_WRITE_DOCS=1 build/asan/tests/unit/test_rules -->\n\n"
			"Every finding of the JSON report ([report-json.md](report-json.md)) has one of these\n"
			"`rule`s. They are listed in order of importance: the text, GitHub and SARIF reports\n"
			"rank the findings of one severity by it. A finding has its rule's default severity\n"
			"(SARIF's `defaultConfiguration.level`) unless its section says otherwise. Findings\n"
			"from the matrix row also carry `\"matrix\": {\"row\", \"file\", \"line\"}`, the row\n"
			"that judged the install; a row or entry marked `sourced` gives an error, `inferred`\n"
			"a warning.\n\n"
			"| rule | SARIF name | default severity | found by |\n|---|---|---|---|\n");
	for (i = 0; i < RULE_COUNT; i++) {
		const struct rule *r = rule_get((enum rule_id)i);
		strbuf_addf(md, "| [`%s`](#%s) | `%s` | %s | %s |\n", r->id, r->id, r->name, severity_name(r->severity),
			    rule_source_text(r->source));
	}
	for (i = 0; i < RULE_COUNT; i++) {
		const struct rule *r = rule_get((enum rule_id)i);
		strbuf_addf(md, "\n## %s\n\n**%s**\n\n%s\n\n", r->id, r->short_desc, r->full_desc);
		if (*r->report)
			strbuf_addf(md, "**In the report:** %s\n\n", r->report);
		strbuf_addf(md, "**Fix:** %s\n", r->help);
	}
}

static void test_rules_md_is_generated(void)
{
	struct strbuf want = STRBUF_INIT, have = STRBUF_INIT;
	struct err e;
	char *path = xasprintf("%s/docs/rules.md", repo());
	rules_markdown(&want);
	if (getenv("TDC_WRITE_DOCS")) {
		CHECK_INT(os_write_file_atomic(path, want.buf, want.len, &e), 0);
		printf("# wrote %s\n", path);
	}
	CHECK_INT(os_read_file(path, 1 << 20, &have, &e), 0);
	CHECK(have.len == want.len && !memcmp(strbuf_str(&have), strbuf_str(&want), want.len));
	if (have.len != want.len || memcmp(strbuf_str(&have), strbuf_str(&want), want.len))
		printf("# %s differs from checker/judge/rules.def: TDC_WRITE_DOCS=1 build/asan/tests/unit/test_rules\n", path);
	free(path);
	strbuf_release(&want);
	strbuf_release(&have);
}

int main(void)
{
	RUN(test_every_row_complete);
	RUN(test_find_and_severity_words);
	RUN(test_every_load_failure_outcome_is_a_rule);
	RUN(test_rules_md_is_generated);
	return HARNESS_EXIT();
}
