/*
 * test_policy: policy_evaluate on real loader runs, asserting the findings
 * as structs. Two Windows trees of real PE files built with mingw-w64
 * (tests/unit/policy_trees.sh, cached): torch 2.9.1 whose python.exe
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
#include "inventory.h"
#include "matrix.h"
#include "policy.h"
#include "result.h"
#include "strbuf.h"
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TORCH_DIR "C:\\Python311\\Lib\\site-packages\\torch"
#define PYTHON "C:\\Python311\\python.exe"

static char shadow_root[1024], omp_root[1024];

/* One install judged: the loader's run, its findings, the inventory. */
struct judged {
	struct view *v;
	struct torch_run *run;
	struct inventory inv;
	struct result res;
	cJSON *inst;
};

static int build_trees(void)
{
	char line[900];
	int n = 0;
	FILE *p = popen("bash tests/unit/policy_trees.sh", "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (n < 2)
			snprintf(n == 0 ? shadow_root : omp_root, sizeof(shadow_root), "%s/root", line);
		n++;
	}
	return pclose(p) == 0 && n == 2 ? 0 : -1;
}

static int judge_open(struct judged *j, const char *root)
{
	struct torch_inputs in;
	struct err e;
	memset(j, 0, sizeof(*j));
	inventory_init(&j->inv);
	if (view_open_root(&j->v, root, &e) || inventory_collect(&j->inv, j->v, TORCH_DIR, PYTHON, &e)) {
		printf("# %s: %s\n", root, e.msg);
		return -1;
	}
	memset(&in, 0, sizeof(in));
	in.torch_dir = TORCH_DIR;
	in.python_exe = PYTHON;
	if (torch_run(&j->run, j->v, &in, &e)) {
		printf("# %s: %s\n", root, e.msg);
		return -1;
	}
	result_init(&j->res, j->v, j->run->ld);
	j->inst = result_add_install(&j->res, j->v, j->run, NULL);
	return 0;
}

static int judge(struct judged *j, const struct matrix *m)
{
	struct policy_input pin;
	struct err e;
	pin.matrix = m;
	pin.inv = &j->inv;
	pin.install = j->inv.ninstalls ? &j->inv.installs[0] : NULL;
	pin.run = j->run;
	return policy_evaluate(&j->res.findings, j->inst, j->v, &pin, &e);
}

static void judge_close(struct judged *j)
{
	result_release(&j->res);
	torch_run_free(j->run);
	inventory_release(&j->inv);
	view_free(j->v);
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

static int load_matrix(struct matrix *m, const char *yaml)
{
	struct err e;
	matrix_init(m);
	if (!yaml)
		return matrix_load_default(m, NULL, &e);
	if (matrix_load_buffer(m, "unit.yml", yaml, strlen(yaml), NULL, &e)) {
		printf("# unit.yml: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static void test_runtime_too_old_replaces_the_shadow_warning(void)
{
	struct judged j;
	struct matrix m;
	const struct finding *f;
	CHECK_INT(load_matrix(&m, NULL), 0);
	if (judge_open(&j, shadow_root)) {
		CHECK(0);
		matrix_release(&m);
		return;
	}
	/* the loader alone: the app-local copy shadows System32's newer one */
	f = first(&j.res.findings, RULE_SHADOWED_DLL);
	CHECK(f != NULL);
	if (f) {
		CHECK_STR(f->leaf, "msvcp140.dll");
		CHECK_STR(f->path, "C:\\Python311\\msvcp140.dll");
		CHECK_INT(f->severity, SEV_WARNING);
	}
	CHECK_INT(judge(&j, &m), 0);
	CHECK_INT(count(&j.res.findings, RULE_SHADOWED_DLL), 0);
	CHECK_INT(count(&j.res.findings, RULE_RUNTIME_TOO_OLD), 1);
	f = first(&j.res.findings, RULE_RUNTIME_TOO_OLD);
	if (f) {
		CHECK_INT(f->severity, SEV_ERROR); /* the entry is sourced */
		CHECK_INT(f->winerror, 1114);
		CHECK_STR(f->leaf, "msvcp140.dll");
		CHECK_STR(f->path, "C:\\Python311\\msvcp140.dll");
		CHECK_STR(f->install, TORCH_DIR);
		CHECK_STR(f->matrix.row, "torch-2.9-and-newer");
		CHECK_STR(f->matrix.file, "<embedded>/matrix/torch.yml");
		CHECK_HAS(f->title, "needs >= 14.40 (WinError 1114 in DllMain)");
		CHECK_HAS(f->fix, "it shadows System32's 14.40.33810.0 copy with 14.29.30133.0");
		CHECK(f->nprobes > 0);
	}
	judge_close(&j);
	matrix_release(&m);
}

/* A one-row matrix for torch 2.9 whose msvcp140 entry has `extra` (YAML flow-mapping members). */
static char *row_29(const char *extra)
{
	return xasprintf("schema: 1\n"
			 "rows:\n"
			 "  - id: unit-2.9\n"
			 "    torch: \">=2.9\"\n"
			 "    status: inferred\n"
			 "    runtime_dlls:\n"
			 "      - {name: msvcp140.dll, min_version: \"14.40\", %s}\n",
			 extra);
}

static void test_winerror_is_the_entry_field_not_its_words(void)
{
	struct judged j;
	struct matrix m;
	const struct finding *f;
	/* `why` speaks of the mutex, but the entry gives no winerror: none is predicted */
	char *y = row_29("why: \"constexpr std::mutex, WinError 1114\"");
	CHECK_INT(load_matrix(&m, y), 0);
	free(y);
	if (judge_open(&j, shadow_root)) {
		CHECK(0);
		matrix_release(&m);
		return;
	}
	CHECK_INT(judge(&j, &m), 0);
	f = first(&j.res.findings, RULE_RUNTIME_TOO_OLD);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->winerror, 0);
		CHECK_INT(f->severity, SEV_WARNING); /* an inferred row's minimum is advice */
		CHECK(strstr(f->title, "WinError") == NULL);
		CHECK_STR(f->matrix.row, "unit-2.9");
	}
	judge_close(&j);
	matrix_release(&m);

	/* the field, with words that say nothing of it */
	y = row_29("why: test, winerror: 1114, status: sourced, sources: [https://example.org/1114]");
	CHECK_INT(load_matrix(&m, y), 0);
	free(y);
	if (judge_open(&j, shadow_root)) {
		CHECK(0);
		matrix_release(&m);
		return;
	}
	CHECK_INT(judge(&j, &m), 0);
	f = first(&j.res.findings, RULE_RUNTIME_TOO_OLD);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->winerror, 1114);
		CHECK_INT(f->severity, SEV_ERROR);
		CHECK_HAS(f->title, "(WinError 1114 in DllMain)");
	}
	judge_close(&j);
	matrix_release(&m);
}

static void test_missing_leaf_gets_the_row_fix_once(void)
{
	struct judged j;
	struct matrix m;
	size_t i, n = 0;
	const struct finding *a = NULL;
	CHECK_INT(load_matrix(&m, NULL), 0);
	if (judge_open(&j, omp_root)) {
		CHECK(0);
		matrix_release(&m);
		return;
	}
	/* judged twice (two layers of a scan could): the row's words are added once */
	CHECK_INT(judge(&j, &m), 0);
	CHECK_INT(judge(&j, &m), 0);
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
		CHECK_HAS(f->fix, "libomp140.x86_64.dll is not part of the VC++ redistributable: ");
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
	judge_close(&j);
	matrix_release(&m);
}

static void test_no_registry_is_unverified_and_the_issue_is_named(void)
{
	struct judged j;
	struct matrix m;
	const struct finding *f;
	CHECK_INT(load_matrix(&m, NULL), 0);
	if (judge_open(&j, omp_root)) {
		CHECK(0);
		matrix_release(&m);
		return;
	}
	CHECK_INT(judge(&j, &m), 0);
	CHECK_INT(count(&j.res.findings, RULE_REDIST_MISSING), 0);
	f = first(&j.res.findings, RULE_UNVERIFIED);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->severity, SEV_NOTE);
		CHECK_STR(f->title, "VC++ redistributable: unknown (no registry)");
		CHECK_STR(f->matrix.row, "torch-2.4.0");
	}
	f = first(&j.res.findings, RULE_KNOWN_ISSUE);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(f->severity, SEV_WARNING); /* conditional on importing libomp140 */
		CHECK(f->issue && *f->issue);
		CHECK_HAS(f->title, f->issue);
	}
	judge_close(&j);
	matrix_release(&m);
}

int main(void)
{
	if (build_trees()) {
		printf("ok - tests/unit/test_policy.c # SKIP the mingw-w64 fixture trees could not be built "
		       "(tests/unit/policy_trees.sh)\n");
		return 0;
	}
	RUN(test_runtime_too_old_replaces_the_shadow_warning);
	RUN(test_winerror_is_the_entry_field_not_its_words);
	RUN(test_missing_leaf_gets_the_row_fix_once);
	RUN(test_no_registry_is_unverified_and_the_issue_is_named);
	return HARNESS_EXIT();
}
