/*
 * test_result: findings as structs and the report document written from
 * them. finding_add's copies and default severities, the one JSON form of a
 * finding (members, order, nulls), removal and root-cause keys; then real
 * loader runs on the mingw-built trees of tests/lib/trees/policy.sh: the
 * loader's findings for each failing torch binary, and result_finish's
 * findings[], counts and statuses.
 */
#include "harness.h"
#include "policy_trees.h"
#include "judge/loader_rules.h"
#include "report/result.h"
#include "util/strbuf.h"
#include "machine/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The member names of a JSON object, comma-separated. */
static char *keys(const cJSON *o)
{
	struct strbuf sb = STRBUF_INIT;
	const cJSON *k;
	cJSON_ArrayForEach(k, o)
	strbuf_addf(&sb, "%s%s", sb.len ? "," : "", k->string);
	return strbuf_detach(&sb);
}

static void test_add_copies_and_takes_the_rules_severity(void)
{
	struct findings fs = FINDINGS_INIT;
	char title[32] = "a title";
	struct finding *f;
	size_t i;
	for (i = 0; i < RULE_COUNT; i++) {
		f = finding_add(&fs, (enum rule_id)i, SEV_DEFAULT, &(struct finding_spec){ .title = title });
		CHECK_INT(f->severity, rule_get((enum rule_id)i)->severity);
		CHECK_INT(f->rule, i);
	}
	f = finding_add(&fs, RULE_MISSING_DLL, SEV_NOTE, &(struct finding_spec){ .title = title, .leaf = "x.dll" });
	CHECK_INT(f->severity, SEV_NOTE);
	strcpy(title, "changed");
	CHECK_STR(fs.v[0].title, "a title");
	CHECK_STR(fs.v[fs.n - 1].leaf, "x.dll");
	CHECK(fs.v[0].message == NULL && fs.v[0].chain.n == 0 && fs.v[0].nprobes == 0);
	CHECK_INT(fs.v[0].predicted_winerror, -1);
	CHECK_INT(fs.v[0].real_winerror, -1);
	CHECK_INT(fs.n, RULE_COUNT + 1);
	findings_release(&fs);
	CHECK(fs.n == 0 && fs.v == NULL);
}

static void test_json_members_order_and_nulls(void)
{
	struct findings fs = FINDINGS_INIT;
	struct finding *f;
	cJSON *j;
	char *k;
	f = finding_add(&fs, RULE_KNOWN_ISSUE, SEV_NOTE,
			&(struct finding_spec){ .title = "t", .message = "m", .fix = "x", .install = TREE_TORCH_DIR,
						.issue = "some-issue", .symbol = "never written", .path = "nor this" });
	f->matrix.row = xstrdup("row-1");
	f->matrix.file = xstrdup("m.yml");
	f->matrix.line = 7;
	j = result_finding_json(f);
	k = keys(j);
	CHECK_STR(k, "rule,severity,winerror,title,message,fix,install,binary,leaf,chain,probes,anchor,matrix,issue,"
		     "cause");
	free(k);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "rule")), "known-issue");
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "severity")), "note");
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "winerror")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "binary")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "anchor")));
	CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "chain")), 0);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "matrix"), "line")), 7);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "issue")), "some-issue");
	cJSON_Delete(j);

	/* prediction-mismatch alone carries both WinErrors; -1 is null */
	f = finding_add(&fs, RULE_PREDICTION_MISMATCH, SEV_DEFAULT, &(struct finding_spec){ .winerror = 126 });
	f->predicted_winerror = 0;
	j = result_finding_json(f);
	k = keys(j);
	CHECK_STR(k, "rule,severity,winerror,title,message,fix,install,binary,leaf,chain,probes,anchor,"
		     "predicted_winerror,real_winerror,cause");
	free(k);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "winerror")), 126);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "predicted_winerror")), 0);
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "real_winerror")));
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(j, "title")));
	cJSON_Delete(j);
	findings_release(&fs);
}

static void test_remove_keeps_order_and_causes(void)
{
	struct findings fs = FINDINGS_INIT;
	struct finding *a, *b;
	finding_add(&fs, RULE_MISSING_DLL, SEV_DEFAULT, &(struct finding_spec){ .title = "0" });
	finding_add(&fs, RULE_MISSING_DLL, SEV_DEFAULT, &(struct finding_spec){ .title = "1" });
	finding_add(&fs, RULE_MISSING_DLL, SEV_DEFAULT, &(struct finding_spec){ .title = "2" });
	findings_remove(&fs, 1);
	findings_remove(&fs, 7); /* out of range: nothing */
	CHECK_INT(fs.n, 2);
	CHECK_STR(fs.v[0].title, "0");
	CHECK_STR(fs.v[1].title, "2");
	findings_release(&fs);

	/* the root cause: rule, install and leaf as Windows compares names, symbol exactly */
	a = finding_add(&fs, RULE_MISSING_ENTRY_POINT, SEV_DEFAULT,
			&(struct finding_spec){ .winerror = 127, .install = "C:\\T\\torch", .binary = "C:\\T\\a.dll",
						.leaf = "Fbgemm.dll", .symbol = "f" });
	b = finding_add(&fs, RULE_MISSING_ENTRY_POINT, SEV_DEFAULT,
			&(struct finding_spec){ .winerror = 127, .install = "c:\\t\\TORCH", .binary = "C:\\T\\b.dll",
						.leaf = "fbgemm.DLL", .symbol = "f" });
	a = &fs.v[0];
	CHECK(finding_same_cause(a, b));
	{ /* the symbol a leaf lacks is written, and is part of the cause id */
		cJSON *j = result_finding_json(b);
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "symbol")), "f");
		CHECK_INT(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(j, "cause"))), FINDING_CAUSE_ID_LEN);
		cJSON_Delete(j);
	}
	finding_set(&b->symbol, "F");
	CHECK(!finding_same_cause(a, b));
	finding_set(&b->symbol, "f");
	b->rule = RULE_MISSING_DLL;
	CHECK(!finding_same_cause(a, b));
	findings_release(&fs);
}

struct run {
	struct view *v;
	struct torch_run *run;
	int run_owned;         /* the report owns run (add_install) */
	struct result res;
};

static int run_open(struct run *r, const char *root)
{
	struct torch_inputs in;
	struct err e;
	memset(r, 0, sizeof(*r));
	memset(&in, 0, sizeof(in));
	in.torch_dir = TREE_TORCH_DIR;
	in.python_exe = TREE_PYTHON;
	if (view_open_root(&r->v, root, &e) || torch_run(&r->run, r->v, &in, &e)) {
		printf("# %s: %s\n", root, e.msg);
		return -1;
	}
	result_init(&r->res, r->v, r->run->ld);
	return 0;
}

static void run_close(struct run *r)
{
	result_release(&r->res);
	if (!r->run_owned)
		torch_run_free(r->run);
	view_free(r->v);
}

/* The run's entry in the report, as check records it (no verdict, no extensions); the report owns the run. */
static void add_install(struct run *r)
{
	struct check_install *ci = xcalloc(1, sizeof(*ci));
	ci->run = r->run;
	ext_check_init(&ci->xc, NULL, NULL);
	result_add_install(&r->res, ci);
	r->run_owned = 1;
}

static void test_each_failing_binary_is_a_finding_with_its_evidence(void)
{
	struct run r;
	size_t i, k, failing = 0;
	if (run_open(&r, omp_root)) {
		CHECK(0);
		return;
	}
	loader_rules(&r.res.findings, r.run);
	add_install(&r);
	for (i = 0; i < r.run->nbins; i++) {
		const struct torch_binary *b = &r.run->bins[i];
		const struct finding *f = NULL;
		if (!b->winerror)
			continue;
		failing++;
		for (k = 0; k < r.res.findings.n; k++)
			if (r.res.findings.v[k].binary && !strcmp(r.res.findings.v[k].binary, b->path))
				f = &r.res.findings.v[k];
		CHECK(f != NULL);
		if (!f)
			continue;
		CHECK_INT(f->rule, RULE_MISSING_DLL);
		CHECK_INT(f->severity, SEV_ERROR);
		CHECK_INT(f->winerror, 126);
		CHECK_STR(f->leaf, "libomp140.x86_64.dll");
		CHECK(f->path == NULL && f->symbol == NULL);
		CHECK_STR(f->install, TREE_TORCH_DIR);
		CHECK(f->chain.n >= 2);
		if (f->chain.n >= 2) {
			CHECK_STR(f->chain.v[0], winpath_basename(b->path));
			CHECK_STR(f->chain.v[f->chain.n - 1], "libomp140.x86_64.dll");
		}
		CHECK_INT(f->nprobes, b->res.leaf->nprobes);
		CHECK(f->nprobes > 0 && !strcmp(f->probes[0].result, "not found"));
	}
	CHECK(failing >= 2);
	CHECK_INT(r.res.findings.n, failing); /* nothing else is wrong in this tree */
	run_close(&r);
}

static void test_finish_writes_findings_counts_and_statuses(void)
{
	struct run r;
	cJSON *doc, *fs, *inst, *counts;
	size_t n;
	if (run_open(&r, shadow_root)) {
		CHECK(0);
		return;
	}
	loader_rules(&r.res.findings, r.run);
	add_install(&r);
	/* the loader alone: the app-local msvcp140 shadows System32's newer copy */
	CHECK_INT(r.res.findings.n, 1);
	CHECK_INT(r.res.findings.v[0].rule, RULE_SHADOWED_DLL);
	/* a note about the same install (another spelling) and an error about another one */
	finding_add(&r.res.findings, RULE_UNVERIFIED, SEV_DEFAULT,
		    &(struct finding_spec){ .title = "n", .install = "c:\\python311\\LIB\\site-packages\\torch" });
	finding_add(&r.res.findings, RULE_TORCH_UNCOVERED, SEV_DEFAULT,
		    &(struct finding_spec){ .title = "e", .install = "C:\\Other\\torch" });
	n = r.res.findings.n;
	result_finish(&r.res);
	doc = r.res.doc;
	fs = cJSON_GetObjectItem(doc, "findings");
	CHECK_INT(cJSON_GetArraySize(fs), n);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(fs, 0), "rule")), "shadowed-dll");
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(fs, 1), "rule")), "unverified");
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(fs, 2), "rule")), "torch-uncovered");
	counts = cJSON_GetObjectItem(doc, "counts");
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(counts, "errors")), 1);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(counts, "warnings")), 1);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(counts, "notes")), 1);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(counts, "installs")), 1);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(counts, "binaries")), r.run->nbins);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(counts, "binaries_failing")), 0);
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(doc, "status")), "fail");
	inst = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "installs"), 0);
	CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "installs")), 1);
	/* the install's status is its own worst finding: the warning, not the other install's error */
	CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(inst, "status")), "warn");
	run_close(&r);
}

static void test_version_cmp(void)
{
	CHECK(winver_text_cmp("14.40.33810.0", "14.40.33810.0") == 0);
	CHECK(winver_text_cmp("14.29.30133.0", "14.40.33810.0") < 0);
	CHECK(winver_text_cmp("14.40.33810.1", "14.40.33810") > 0);
	CHECK(winver_text_cmp("14.4", "14.40") < 0);
	CHECK(winver_text_cmp(NULL, "0.0.0.0") == 0);
}

int main(void)
{
	RUN(test_add_copies_and_takes_the_rules_severity);
	RUN(test_json_members_order_and_nulls);
	RUN(test_remove_keeps_order_and_causes);
	RUN(test_version_cmp);
	if (policy_trees()) {
		printf("ok - tests/unit/test_result.c: loader runs # SKIP the mingw-w64 fixture trees could not be "
		       "built (tests/lib/trees/policy.sh)\n");
		return HARNESS_EXIT();
	}
	RUN(test_each_failing_binary_is_a_finding_with_its_evidence);
	RUN(test_finish_writes_findings_counts_and_statuses);
	return HARNESS_EXIT();
}
