/*
 * test_policy: policy_evaluate on real loader runs, asserting the findings
 * as structs. Two Windows trees of real PE files built with mingw-w64
 * (tests/lib/trees/policy.sh, cached): torch 2.9.1 whose python.exe
 * folder holds an msvcp140.dll 14.29 that shadows System32's 14.40, and
 * torch 2.4.0 whose fbgemm.dll imports the absent libomp140.x86_64.dll.
 *
 * What is checked is what policy decides by field: the loader's
 * shadowed-dll finding about the very copy runtime-too-old names is dropped
 * (and no other), the WinError comes from the matrix entry's `winerror` and
 * never from the words of its `why`, the loader's missing-dll findings get
 * the row's fix and its words once however often the install is judged,
 * and an unread registry is `unverified`, never missing.
 */
#include "harness.h"
#include "judge/loader_rules.h"
#include "policy_trees.h"
#include "machine/inventory.h"
#include "matrix/matrix.h"
#include "judge/policy.h"
#include "report/result.h"
#include "util/strbuf.h"
#include "machine/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One install judged: its matrix, the loader's run, its findings, the inventory. */
struct judged {
	struct matrix m;
	struct view *v;
	struct torch_run *run;
	struct inventory inv;
	struct result res;
	struct policy_verdict verdict;
};

/*
 * The loader's run on `root` and its findings, with the matrix `yaml` (NULL:
 * the built-in one) ready to judge it. -1 (after a failed check) when any
 * of it fails; judge_close is needed either way.
 */
static int judge_open(struct judged *j, const char *root, const char *yaml)
{
	struct torch_inputs in;
	struct err e;
	memset(j, 0, sizeof(*j));
	matrix_init(&j->m);
	inventory_init(&j->inv);
	if (yaml ? matrix_load_buffer(&j->m, "unit.yml", yaml, strlen(yaml), NULL, &e)
		 : matrix_load_default(&j->m, NULL, &e))
		goto fail;
	if (view_open_root(&j->v, root, &e) || inventory_collect(&j->inv, j->v, TREE_TORCH_DIR, TREE_PYTHON, &e))
		goto fail;
	memset(&in, 0, sizeof(in));
	in.torch_dir = TREE_TORCH_DIR;
	in.python_exe = TREE_PYTHON;
	if (torch_run(&j->run, j->v, &in, &e))
		goto fail;
	result_init(&j->res, j->v, j->run->ld);
	loader_rules(&j->res.findings, j->run);
	return 0;
fail:
	printf("# %s: %s\n", root, e.msg);
	CHECK(0);
	return -1;
}

static int judge(struct judged *j)
{
	struct policy_input pin;
	struct err e;
	pin.matrix = &j->m;
	pin.inv = &j->inv;
	pin.install = j->inv.ninstalls ? &j->inv.installs[0] : NULL;
	pin.run = j->run;
	return policy_evaluate(&j->res.findings, &j->verdict, j->v, &pin, &e);
}

static void judge_close(struct judged *j)
{
	result_release(&j->res);
	if (j->run)
		torch_run_free(j->run);
	inventory_release(&j->inv);
	if (j->v)
		view_free(j->v);
	matrix_release(&j->m);
}

static size_t count(const struct findings *fs, enum rule_id rule)
{
	size_t i, n = 0;
	for (i = 0; i < fs->n; i++)
		n += fs->v[i].rule == rule;
	return n;
}

static const struct finding *first(const struct findings *fs, enum rule_id rule)
{
	size_t i;
	for (i = 0; i < fs->n; i++)
		if (fs->v[i].rule == rule)
			return &fs->v[i];
	return NULL;
}

static void test_runtime_too_old_replaces_the_shadow_warning(void)
{
	struct judged j;
	const struct finding *f;
	if (judge_open(&j, shadow_root, NULL))
		goto out;
	/* the loader alone: the app-local copy shadows System32's newer one */
	f = first(&j.res.findings, RULE_SHADOWED_DLL);
	CHECK(f != NULL);
	if (f) {
		CHECK_STR(f->leaf, "msvcp140.dll");
		CHECK_STR(f->path, "C:\\Python311\\msvcp140.dll");
		CHECK_INT(f->severity, SEV_WARNING);
	}
	CHECK_INT(judge(&j), 0);
	CHECK_INT(count(&j.res.findings, RULE_SHADOWED_DLL), 0);
	CHECK_INT(count(&j.res.findings, RULE_RUNTIME_TOO_OLD), 1);
	f = first(&j.res.findings, RULE_RUNTIME_TOO_OLD);
	if (f) {
		CHECK_INT(f->severity, SEV_ERROR); /* the entry is sourced */
		CHECK_INT(f->winerror, 1114);
		CHECK_STR(f->leaf, "msvcp140.dll");
		CHECK_STR(f->path, "C:\\Python311\\msvcp140.dll");
		CHECK_STR(f->install, TREE_TORCH_DIR);
		CHECK_STR(f->matrix.row, "torch-2.9-to-2.11");
		CHECK_STR(f->matrix.file, "<embedded>/matrix/torch.yml");
		CHECK_HAS(f->title, "needs >= 14.40 (WinError 1114 in DllMain)");
		CHECK_HAS(f->fix, "it shadows System32's 14.40.33810.0 copy with 14.29.30133.0");
		CHECK(f->nprobes > 0);
	}
out:
	judge_close(&j);
}

/* The runtime-too-old finding of the shadow tree judged by a one-row 2.9 matrix, msvcp140's entry with `extra`. */
static void judge_29(const char *extra, int winerror, enum report_severity sev)
{
	struct judged j;
	const struct finding *f;
	char *y = xasprintf("schema: 1\n"
			    "rows:\n"
			    "  - id: unit-2.9\n"
			    "    torch: \">=2.9\"\n"
			    "    status: inferred\n"
			    "    runtime_dlls:\n"
			    "      - {name: msvcp140.dll, min_version: \"14.40\", %s}\n",
			    extra);
	if (!judge_open(&j, shadow_root, y)) {
		CHECK_INT(judge(&j), 0);
		f = first(&j.res.findings, RULE_RUNTIME_TOO_OLD);
		CHECK(f != NULL);
		if (f) {
			CHECK_INT(f->winerror, winerror);
			CHECK_INT(f->severity, sev);
			CHECK_STR(f->matrix.row, "unit-2.9");
			if (winerror)
				CHECK_HAS(f->title, "(WinError 1114 in DllMain)");
			else
				CHECK(strstr(f->title, "WinError") == NULL);
		}
	}
	judge_close(&j);
	free(y);
}

static void test_winerror_is_the_entry_field_not_its_words(void)
{
	/* `why` speaks of the mutex and of 1114, but the entry gives no winerror; inferred: a warning */
	judge_29("why: \"constexpr std::mutex, WinError 1114\"", 0, SEV_WARNING);
	/* the field, with words that say nothing of it */
	judge_29("why: test, winerror: 1114, status: sourced, sources: [https://example.org/1114]", 1114, SEV_ERROR);
}

static void test_missing_leaf_gets_the_row_fix_once(void)
{
	struct judged j;
	size_t i, n = 0;
	const struct finding *a = NULL;
	if (judge_open(&j, omp_root, NULL))
		goto out;
	/* judged twice: the row's words are added once */
	CHECK_INT(judge(&j), 0);
	CHECK_INT(judge(&j), 0);
	for (i = 0; i < j.res.findings.n; i++) {
		const struct finding *f = &j.res.findings.v[i];
		const char *w;
		if (f->rule != RULE_MISSING_DLL)
			continue;
		n++;
		CHECK_STR(f->leaf, "libomp140.x86_64.dll");
		CHECK_INT(f->winerror, 126);
		CHECK_INT(f->severity, SEV_ERROR);
		CHECK(f->matrix_noted);
		CHECK_STR(f->fix, "upgrade to torch >= 2.4.1; or install the Visual Studio Build Tools' C++ workload; "
				  "or copy libomp140.x86_64.dll from a Visual Studio install into torch\\lib");
		CHECK_HAS(f->explanation, "the VC++ redistributable does not install it (matrix row torch-2.4.0");
		/* the row's known issue about libomp140 is this finding's, not a second one */
		CHECK_STR(f->issue, "libomp140-not-redistributable");
		CHECK_HAS(f->explanation, "Known issue libomp140-not-redistributable of torch 2.4.0");
		w = strstr(f->message, "Matrix row torch-2.4.0 (<embedded>/matrix/torch.yml:");
		CHECK(w != NULL);
		CHECK(w && strstr(w + 1, "Matrix row torch-2.4.0") == NULL);
		CHECK(f->matrix.row == NULL); /* the loader's finding, only enriched */
		/* one root cause seen from several torch binaries */
		if (!a)
			a = f;
		else
			CHECK(finding_same_cause(a, f) && strcmp(a->binary, f->binary));
	}
	CHECK(n >= 2);
out:
	judge_close(&j);
}

static void test_no_registry_is_unverified_and_the_issue_is_named(void)
{
	struct judged j;
	const struct finding *f;
	if (judge_open(&j, omp_root, NULL))
		goto out;
	CHECK_INT(judge(&j), 0);
	CHECK_INT(count(&j.res.findings, RULE_REDIST_MISSING), 0);
	f = first(&j.res.findings, RULE_UNVERIFIED);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->severity, SEV_NOTE);
		CHECK_STR(f->title, "VC++ redistributable: unknown (no registry)");
		CHECK_STR(f->matrix.row, "torch-2.4.0");
	}
	/* the issue (conditional on importing libomp140) is named by the missing-dll error it explains */
	CHECK_INT(count(&j.res.findings, RULE_KNOWN_ISSUE), 0);
	f = first(&j.res.findings, RULE_MISSING_DLL);
	CHECK(f != NULL);
	if (f) {
		CHECK_STR(f->issue, "libomp140-not-redistributable");
		CHECK_HAS(f->message, "Known issue libomp140-not-redistributable of torch 2.4.0");
	}
out:
	judge_close(&j);
}

int main(void)
{
	if (policy_trees()) {
		printf("ok - tests/unit/test_policy.c # SKIP the mingw-w64 fixture trees could not be built "
		       "(tests/lib/trees/policy.sh)\n");
		return 0;
	}
	RUN(test_runtime_too_old_replaces_the_shadow_warning);
	RUN(test_winerror_is_the_entry_field_not_its_words);
	RUN(test_missing_leaf_gets_the_row_fix_once);
	RUN(test_no_registry_is_unverified_and_the_issue_is_named);
	return HARNESS_EXIT();
}
