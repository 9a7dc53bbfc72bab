/*
 * test_check: the judging of one install as a named, ordered list of passes
 * (checker/judge/check.c): the table's order is the one check.h documents,
 * and the passes on a real loader run (the libomp140 tree of policy_trees.h)
 * leave typed facts (the run, the verdict) and the findings, with nothing
 * written to a report; a torch folder that is not there is an error, with
 * nothing to release but the facts.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "judge/check.h"
#include "policy_trees.h"
#include "util/os.h"

static const char *const order[] = { "load", "readable", "dllmain", "loader", "policy", "required",
				     "cuda", "windows", "record", "app", "extensions", "ext-record", "commit" };

static void test_pass_order(void)
{
	size_t i;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		CHECK_STR(check_pass_name(i), order[i]);
	CHECK(check_pass_name(i) == NULL);
}

/* check.h's comment names every pass, in the table's order, at the start of a line. */
static void test_passes_documented_in_order(void)
{
	const char *r = getenv("TDC_REPO");
	char *path = xasprintf("%s/checker/judge/check.h", r && *r ? r : ".");
	struct strbuf h = STRBUF_INIT;
	struct err e;
	const char *at;
	size_t i;
	CHECK_INT(os_read_file(path, 1 << 20, &h, &e), 0);
	at = h.buf ? h.buf : "";
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		char *want = xasprintf("\n *   %s ", order[i]);
		const char *p = strstr(at, want);
		CHECK(p != NULL);
		if (p)
			at = p + 1;
		free(want);
	}
	strbuf_release(&h);
	free(path);
}

static void test_no_torch_is_an_error(void)
{
	struct check_env env;
	struct check_install ci;
	struct findings out = FINDINGS_INIT;
	struct torch_inputs in;
	struct matrix m;
	struct inventory inv;
	struct err e;
	memset(&env, 0, sizeof(env));
	memset(&in, 0, sizeof(in));
	matrix_init(&m);
	inventory_init(&inv);
	err_clear(&e);
	CHECK_INT(view_open_root(&env.v, omp_root, &e), 0);
	env.m = &m;
	env.inv = &inv;
	in.torch_dir = "C:\\nowhere\\torch";
	CHECK_INT(check_install_run(&ci, &out, &env, NULL, &in, &e), -1);
	CHECK(e.msg[0] != '\0');
	CHECK_INT(out.n, 0);
	check_install_release(&ci);
	findings_release(&out);
	inventory_release(&inv);
	matrix_release(&m);
	view_free(env.v);
}

static void test_passes_on_a_real_run(void)
{
	struct check_env env;
	struct check_install ci;
	struct findings out = FINDINGS_INIT;
	struct torch_inputs in;
	struct matrix m;
	struct inventory inv;
	struct err e;
	size_t i, omp = 0;
	memset(&env, 0, sizeof(env));
	memset(&in, 0, sizeof(in));
	matrix_init(&m);
	inventory_init(&inv);
	err_clear(&e);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	CHECK_INT(view_open_root(&env.v, omp_root, &e), 0);
	CHECK_INT(inventory_collect(&inv, env.v, TREE_TORCH_DIR, TREE_PYTHON, &e), 0);
	env.m = &m;
	env.inv = &inv;
	in.torch_dir = TREE_TORCH_DIR;
	in.python_exe = TREE_PYTHON;
	CHECK_INT(check_install_run(&ci, &out, &env, inv.ninstalls ? &inv.installs[0] : NULL, &in, &e), 0);
	CHECK(ci.judged);
	CHECK(ci.run != NULL && ci.run->nbins > 0);
	CHECK(ci.verdict.row != NULL);     /* policy */
	CHECK_STR(ci.verdict.version, "2.4.0+cpu");
	for (i = 0; i < out.n; i++)        /* loader, refixed by policy */
		omp += out.v[i].rule == RULE_MISSING_DLL && out.v[i].leaf && !strcmp(out.v[i].leaf, "libomp140.x86_64.dll");
	CHECK(omp >= 1);
	check_install_release(&ci);
	findings_release(&out);
	inventory_release(&inv);
	matrix_release(&m);
	view_free(env.v);
}

int main(void)
{
	RUN(test_pass_order);
	RUN(test_passes_documented_in_order);
	if (policy_trees()) {
		printf("ok - tests/unit/test_check.c: loader runs # SKIP the mingw-w64 fixture trees could not be "
		       "built (tests/lib/trees/policy.sh)\n");
		return HARNESS_EXIT();
	}
	RUN(test_no_torch_is_an_error);
	RUN(test_passes_on_a_real_run);
	return HARNESS_EXIT();
}
