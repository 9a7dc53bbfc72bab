/*
 * test_gate: the parts of the pre-merge gate (gate.h) that need no runner
 * tree, on in-memory pin files: which changed paths decide the gate, an
 * installed torch against the pins (pin-mismatch), a PR that changes
 * nothing (pins-unchanged), a pin no matrix row covers (torch-uncovered on
 * its line). The runner side is tests/pins/test_gate.sh, on real trees and
 * git repositories.
 */
#include "harness.h"
#include "judge/gate.h"

#include <stdlib.h>

struct mem_file {
	const char *path, *text;
};

static int mem_read(void *ctx, const char *path, struct strbuf *out, struct err *err)
{
	const struct mem_file *f = ctx;
	(void)err;
	for (; f->path; f++)
		if (!strcmp(f->path, path)) {
			strbuf_adds(out, f->text);
			return 0;
		}
	return 1;
}

static int load(struct pinset *ps, const struct mem_file *files)
{
	struct strlist cands = STRLIST_INIT;
	struct err e;
	size_t i;
	int rc;
	for (i = 0; files[i].path; i++)
		if (req_kind_of_path(files[i].path) != REQ_NONE)
			strlist_push(&cands, files[i].path);
	rc = pinset_load(ps, &cands, mem_read, (void *)files, &e);
	strlist_release(&cands);
	return rc;
}

static const struct mem_file head_tree[] = {
	{ "requirements.txt", "numpy\n-r ci/torch.in\n" },
	{ "ci/torch.in", "# torch for Windows\ntorch==2.4.1\n" },
	{ "uv.lock", "version = 1\n[[package]]\nname = \"torch\"\nversion = \"2.4.1+cu121\"\n" },
	{ "environment.yml", "dependencies:\n  - pytorch>=2.3,<2.5\n" },
	{ "linux/requirements.txt", "torch==2.2.0 ; sys_platform == \"linux\"\n" },
	{ NULL, NULL },
};

static void test_touch(void)
{
	struct gate_pins g;
	struct strlist mx = STRLIST_INIT;
	gate_pins_init(&g);
	CHECK_INT(load(&g.head, head_tree), 0);
	strlist_push(&mx, "ci/matrix.yml");
	gate_pins_touch(&g, "README.md", &mx);
	gate_pins_touch(&g, "src/app.py", &mx);
	CHECK_INT(g.pins_touched, 0);
	CHECK_INT(g.matrix_touched, 0);
	gate_pins_touch(&g, "ci/torch.in", &mx); /* not a pin file by name: included by one */
	CHECK_INT(g.pins_touched, 1);
	CHECK_INT(g.matrix_touched, 0);
	g.pins_touched = 0;
	gate_pins_touch(&g, "docs/requirements.txt", &mx); /* a pin file by name, in neither side */
	CHECK_INT(g.pins_touched, 1);
	gate_pins_touch(&g, "ci/matrix.yml", &mx);
	CHECK_INT(g.matrix_touched, 1);
	strlist_release(&mx);
	gate_pins_release(&g);
}

/* rule, severity and anchor of finding i as "rule severity file:line:col" */
static char *describe(const struct findings *l, size_t i)
{
	const struct finding *f = &l->v[i];
	return xasprintf("%s %s %s:%u:%u", rule_get(f->rule)->id, severity_name(f->severity),
			 f->anchor.file ? f->anchor.file : "-", f->anchor.line, f->anchor.col);
}

static void test_installed(void)
{
	struct gate_pins g;
	struct findings l = FINDINGS_INIT;
	char *d;
	size_t i;
	gate_pins_init(&g);
	CHECK_INT(load(&g.head, head_tree), 0);
	/* 2.4.1+cu121 satisfies ==2.4.1, the lock and the conda range; linux/ is not for Windows */
	gate_installed(&l, &g, "C:\\py\\Lib\\site-packages\\torch", "2.4.1+cu121");
	CHECK_INT(l.n, 0);
	/* +cpu: the lock's variant differs */
	gate_installed(&l, &g, "C:\\py\\Lib\\site-packages\\torch", "2.4.1+cpu");
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		d = describe(&l, 0);
		CHECK_STR(d, "pin-mismatch warning uv.lock:4:12");
		free(d);
		CHECK_STR(l.v[0].title, "installed torch 2.4.1+cpu is not what uv.lock pins (torch 2.4.1+cu121)");
		CHECK_STR(l.v[0].install, "C:\\py\\Lib\\site-packages\\torch");
	}
	findings_release(&l);
	/* 2.5.0: outside every Windows pin */
	gate_installed(&l, &g, "C:\\t", "2.5.0");
	CHECK_INT(l.n, 3);
	for (i = 0; i < l.n; i++)
		CHECK_INT(l.v[i].rule, RULE_PIN_MISMATCH);
	/* not a version: nothing to compare */
	findings_release(&l);
	gate_installed(&l, &g, "C:\\t", "not a version");
	CHECK_INT(l.n, 0);
	findings_release(&l);
	gate_pins_release(&g);
}

static void test_unchanged_and_uncovered(void)
{
	struct gate_pins g;
	struct findings l = FINDINGS_INIT;
	struct matrix m;
	struct gate_runner r;
	struct err e;
	struct gate_report gr;
	char *d;
	static const char only[] = "schema: 1\nrows:\n  - id: old\n    torch: \"<2\"\n    status: inferred\n";
	memset(&r, 0, sizeof(r));
	r.arch = "x64";
	matrix_init(&m);
	CHECK_INT(matrix_load_buffer(&m, "only.yml", only, sizeof(only) - 1, NULL, &e), 0);
	gate_pins_init(&g);
	CHECK_INT(load(&g.head, head_tree), 0);
	g.has_base = 1;
	strcpy(g.base_sha, "1111111111111111111111111111111111111111");
	strcpy(g.head_sha, "2222222222222222222222222222222222222222");
	/* nothing that decides torch changed: one note, nothing judged (the runner is never looked at) */
	CHECK_INT(gate_judge(&l, &gr, &g, &m, &r, 0, &e), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_INT(l.v[0].rule, RULE_PINS_UNCHANGED);
		CHECK(l.v[0].anchor.file == NULL);
		CHECK_STR(l.v[0].message, "Between 111111111111 and 222222222222 no pin file and no matrix file changed, "
					  "so the torch pins were not judged against this runner.");
	}
	CHECK(!gr.judged);
	gate_report_release(&gr);
	findings_release(&l);
	/* forced: each Windows pin's rows; none covers 2.4 in this matrix, each uncovered on its own line */
	CHECK_INT(gate_judge(&l, &gr, &g, &m, &r, 1, &e), 0);
	CHECK_INT(l.n, 3);
	if (l.n == 3) {
		d = describe(&l, 0);
		CHECK_STR(d, "torch-uncovered error uv.lock:4:12");
		free(d);
		d = describe(&l, 1);
		CHECK_STR(d, "torch-uncovered error environment.yml:2:5");
		free(d);
		d = describe(&l, 2);
		CHECK_STR(d, "torch-uncovered error ci/torch.in:2:1");
		free(d);
	}
	CHECK(gr.judged);
	CHECK_INT(gr.ntargets, 4);
	gate_report_release(&gr);
	findings_release(&l);
	gate_pins_release(&g);
	matrix_release(&m);
}

int main(void)
{
	RUN(test_touch);
	RUN(test_installed);
	RUN(test_unchanged_and_uncovered);
	return HARNESS_EXIT();
}
