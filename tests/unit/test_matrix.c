/*
 * test_matrix: the embedded default parses cleanly; selection over a grid of
 * real torch versions; layering (replace, merge, add, remove, later layer
 * wins, a bad layer changes nothing); specificity; positions.
 */
#include "harness.h"
#include "matrix/matrix.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

/* The id selected for version/variant/arch, "NONE" if uncovered, "ERR" on error. */
static const char *sel(const struct matrix *m, const char *version, const char *variant, const char *arch)
{
	struct pep440 v;
	const struct matrix_row *row;
	struct err e;
	int r;
	if (pep440_parse(&v, version, &e) < 0)
		return "BADVERSION";
	r = matrix_select(m, &v, version, variant, arch, &row, &e);
	if (r < 0)
		return "ERR";
	if (r > 0)
		return "NONE";
	return row->id;
}

static const struct matrix_row *row_of(const struct matrix *m, const char *version)
{
	struct pep440 v;
	const struct matrix_row *row = NULL;
	if (pep440_parse(&v, version, NULL) < 0 || matrix_select(m, &v, version, NULL, "x64", &row, NULL))
		return NULL;
	return row;
}

/* The 1-based line of the first occurrence of `needle` in the embedded matrix. */
static unsigned line_of(const char *needle)
{
	const char *p = strstr(matrix_default_yaml, needle), *q;
	unsigned line = 1;
	if (!p)
		return 0;
	for (q = matrix_default_yaml; q < p; q++)
		line += *q == '\n';
	return line;
}

static void load_default(struct matrix *m)
{
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	size_t i;
	matrix_init(m);
	err_clear(&e);
	CHECK_INT(matrix_load_default(m, &d, &e), 0);
	for (i = 0; i < d.n; i++)
		printf("# %s:%u:%u: %s\n", d.v[i].file, d.v[i].line, d.v[i].col, d.v[i].msg);
	CHECK_INT(d.n, 0);
	matrix_diags_release(&d);
}

static int load(struct matrix *m, const char *name, const char *yaml, struct err *e)
{
	return matrix_load_buffer(m, name, yaml, strlen(yaml), NULL, e);
}

static void test_default_parses(void)
{
	struct matrix m;
	size_t i;
	load_default(&m);
	CHECK_INT(m.nrows, 18);
	CHECK_INT(m.files.n, 1);
	CHECK_STR(m.files.v[0], MATRIX_DEFAULT_NAME);
	for (i = 0; i < m.nrows; i++) {
		const struct matrix_row *r = m.rows[i];
		CHECK(r->torch.n > 0);
		CHECK(r->vc_redist[MATRIX_X64].set);
		CHECK(r->status != MATRIX_SOURCED || r->sources.n > 0);
		CHECK(r->status != MATRIX_MEASURED || r->evidence.n > 0);
	}
	matrix_release(&m);
}

static void test_grid(void)
{
	struct matrix m;
	load_default(&m);
	CHECK_STR(sel(&m, "1.4.0", NULL, "x64"), "torch-1.4-and-older");
	CHECK_STR(sel(&m, "1.0.1", NULL, NULL), "torch-1.4-and-older");
	CHECK_STR(sel(&m, "1.5.0", NULL, "x64"), "torch-1.5.0");
	CHECK_STR(sel(&m, "1.5.0+cu101", NULL, "x64"), "torch-1.5.0");
	CHECK_STR(sel(&m, "1.5.0+cu92", NULL, "x64"), "torch-1.5-to-1.7-cu92"); /* variant beats the pin */
	CHECK_STR(sel(&m, "1.7.1+cu92", NULL, "x64"), "torch-1.5-to-1.7-cu92");
	CHECK_STR(sel(&m, "1.5.1", NULL, "x64"), "torch-1.5.1-to-1.6");
	CHECK_STR(sel(&m, "1.7.0", NULL, "x64"), "torch-1.7");
	CHECK_STR(sel(&m, "1.13.1", NULL, "x64"), "torch-1.8-to-1.13");
	CHECK_STR(sel(&m, "2.0.1", NULL, "x64"), "torch-2.0");
	CHECK_STR(sel(&m, "2.2.2+cu121", NULL, "x64"), "torch-2.1-to-2.2");
	CHECK_STR(sel(&m, "2.3.1+cpu", NULL, "x64"), "torch-2.3");
	CHECK_STR(sel(&m, "2.4.0", NULL, "x64"), "torch-2.4.0");
	CHECK_STR(sel(&m, "2.4.0+cu124", NULL, "x64"), "torch-2.4.0");
	CHECK_STR(sel(&m, "2.4.1", NULL, "x64"), "torch-2.4.1-to-2.6");
	CHECK_STR(sel(&m, "2.6.0+cu126", NULL, "x64"), "torch-2.4.1-to-2.6");
	CHECK_STR(sel(&m, "2.7.0", NULL, "x64"), "torch-2.7.0");
	CHECK_STR(sel(&m, "2.7.1", NULL, "x64"), "torch-2.7.1");
	CHECK_STR(sel(&m, "2.8.0", NULL, "x64"), "torch-2.8");
	CHECK_STR(sel(&m, "2.9.0.dev20250801+cpu", NULL, "x64"), "torch-2.9-to-2.11");
	CHECK_STR(sel(&m, "2.9.1+cpu", NULL, "x64"), "torch-2.9-to-2.11");
	CHECK_STR(sel(&m, "2.12.1", NULL, "x64"), "torch-2.12-to-2.13");
	CHECK_STR(sel(&m, "3.0.0", NULL, "x64"), "torch-2.14-and-newer");
	CHECK_STR(sel(&m, "2.9.0+rocm6.4", NULL, "x64"), "torch-2.9-and-newer-rocm");
	CHECK_STR(sel(&m, "2.9.0", "rocm6.4", "x64"), "torch-2.9-and-newer-rocm"); /* variant given explicitly */
	CHECK_STR(sel(&m, "2.9.0", "", "x64"), "torch-2.9-to-2.11");
	CHECK_STR(sel(&m, "2.4.0", NULL, "sparc"), "ERR");
	matrix_release(&m);
}

static void test_requirements(void)
{
	struct matrix m;
	const struct matrix_row *r;
	const struct matrix_dll *d;
	struct winver have;
	load_default(&m);

	r = row_of(&m, "2.9.1");
	CHECK(r != NULL);
	if (r) {
		d = matrix_row_dll(r, "MSVCP140.DLL", MATRIX_X64);
		CHECK(d && d->min.set);
		winver_parse(&have, "14.38.33135.0", NULL);
		CHECK(d && !winver_at_least(&have, &d->min.v));
		winver_parse(&have, "14.40.33810.0", NULL);
		CHECK(d && winver_at_least(&have, &d->min.v));
		CHECK_STR(r->vc_redist[MATRIX_X64].text, "14.42"); /* measured toolset */
		CHECK(r->nissues == 1 && !strcmp(r->issues[0].id, "msvcp140-older-than-14.40"));
		CHECK(r->status == MATRIX_MEASURED && r->evidence.n == 4); /* 2.9.0 2.9.1 2.10.0 2.11.0 */
		CHECK_STR(matrix_row_file(r), MATRIX_DEFAULT_NAME);
		CHECK_INT(r->pos.line, line_of("- id: torch-2.9-to-2.11\n") + 0);
		CHECK_INT(r->pos.col, 5);
		CHECK_INT(r->torch_pos.line, line_of("- id: torch-2.9-to-2.11\n") + 1);
		/* vcruntime140_1 only applies to x64 */
		CHECK(matrix_row_dll(r, "vcruntime140_1.dll", MATRIX_X64) != NULL);
		CHECK(matrix_row_dll(r, "vcruntime140_1.dll", MATRIX_ARM64) == NULL);
	}

	r = row_of(&m, "2.4.0+cu121");
	CHECK(r != NULL);
	if (r) {
		size_t i;
		int found = 0;
		for (i = 0; i < r->nopenmp; i++)
			if (!strcmp(r->openmp[i].dll, "libomp140.x86_64.dll")) {
				found = 1;
				CHECK(!r->openmp[i].redistributable);
				CHECK(r->openmp[i].where == MATRIX_SYSTEM);
				CHECK(r->openmp[i].fix != NULL);
			}
		CHECK(found);
		CHECK(r->nissues == 1 && r->issues[0].when.imports.n == 1 &&
		      !strcmp(r->issues[0].when.imports.v[0], "libomp140.x86_64.dll"));
		CHECK_INT(r->pos.line, line_of("- id: torch-2.4.0\n"));
	}

	r = row_of(&m, "1.4.0");
	CHECK(r && !matrix_row_dll(r, "vcruntime140_1.dll", MATRIX_X64));
	matrix_release(&m);
}

static void test_layer_replace_and_merge(void)
{
	struct matrix m;
	struct err e;
	const struct matrix_row *r;
	load_default(&m);
	/* merge: only vc_redist changes; known issues and DLLs stay */
	CHECK_INT(load(&m, "org.yml",
		       "schema: 1\nrows:\n  - id: torch-2.9-to-2.11\n    merge: true\n    vc_redist: {x64: \"14.43\"}\n", &e),
		  0);
	r = row_of(&m, "2.9.1");
	CHECK(r && !strcmp(r->vc_redist[MATRIX_X64].text, "14.43"));
	CHECK(r && r->nissues == 1 && r->ndlls == 3);
	CHECK(r && !strcmp(matrix_row_file(r), "org.yml") && r->pos.line == 3);
	CHECK(r && r->torch_pos.file && !strcmp(r->torch_pos.file, MATRIX_DEFAULT_NAME)); /* torch came from the default */
	CHECK_INT(m.nrows, 18);
	/* replace: the row is exactly the new one */
	CHECK_INT(load(&m, "org2.yml",
		       "schema: 1\nrows:\n  - id: torch-2.9-to-2.11\n    torch: \">=2.9\"\n    status: inferred\n    vc_redist: {x64: \"14.44\"}\n",
		       &e),
		  0);
	r = row_of(&m, "2.9.1");
	CHECK(r && !strcmp(r->vc_redist[MATRIX_X64].text, "14.44") && r->nissues == 0 && r->ndlls == 0);
	CHECK(r && !strcmp(matrix_row_file(r), "org2.yml"));
	CHECK_INT(m.nrows, 18);
	CHECK_INT(m.files.n, 3);
	matrix_release(&m);
}

static void test_layer_later_wins_and_remove(void)
{
	struct matrix m;
	struct err e;
	load_default(&m);
	/* A new, broader row in a later layer wins over the default's narrower ones. */
	CHECK_INT(load(&m, "org.yml",
		       "schema: 1\nrows:\n  - {id: org-2.x, torch: \">=2.0,<3\", status: inferred, vc_redist: {x64: \"14.44\"}}\n",
		       &e),
		  0);
	CHECK_STR(sel(&m, "2.4.0", NULL, "x64"), "org-2.x");
	CHECK_STR(sel(&m, "2.9.0+rocm6.4", NULL, "x64"), "org-2.x");
	CHECK_STR(sel(&m, "1.5.0", NULL, "x64"), "torch-1.5.0");
	CHECK_STR(sel(&m, "3.0.0", NULL, "x64"), "torch-2.14-and-newer");
	CHECK_INT(m.nrows, 19);
	/* remove */
	CHECK_INT(load(&m, "rm.yml", "schema: 1\nremove: [org-2.x, torch-2.4.0]\n", &e), 0);
	CHECK_INT(m.nrows, 17);
	CHECK_STR(sel(&m, "2.4.0", NULL, "x64"), "NONE");
	CHECK_STR(sel(&m, "2.4.1", NULL, "x64"), "torch-2.4.1-to-2.6");
	{
		struct pep440 v;
		const struct matrix_row *row;
		pep440_parse(&v, "2.4.0+cu121", NULL);
		err_clear(&e);
		CHECK_INT(matrix_select(&m, &v, "2.4.0+cu121", NULL, "x64", &row, &e), 1);
		CHECK_HAS(e.msg, "no matrix row covers torch 2.4.0+cu121 (variant cu121, arch x64)");
		CHECK_HAS(e.msg, "torch: \"==2.4.0\"");
	}
	matrix_release(&m);
}

static void test_bad_layer_changes_nothing(void)
{
	struct matrix m;
	struct err e;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	load_default(&m);
	err_clear(&e);
	CHECK_INT(matrix_load_buffer(&m, "bad.yml",
				     "schema: 1\nremove: [torch-2.4.0]\nrows:\n  - {id: ok, torch: \"==9.0\", status: inferred}\n"
				     "  - {id: bad, torch: \"==9.x\", status: inferred}\n",
				     strlen("schema: 1\nremove: [torch-2.4.0]\nrows:\n  - {id: ok, torch: \"==9.0\", status: inferred}\n"
					    "  - {id: bad, torch: \"==9.x\", status: inferred}\n"),
				     &d, &e),
		  -1);
	CHECK_STR(e.msg, "bad.yml:5:27: torch: bad specifier \"==9.x\" at column 5: unexpected \"x\"");
	CHECK_INT(d.n, 1);
	CHECK_INT(m.nrows, 18);
	CHECK_INT(m.files.n, 1);
	CHECK_STR(sel(&m, "2.4.0", NULL, "x64"), "torch-2.4.0");
	CHECK_STR(sel(&m, "9.0", NULL, "x64"), "torch-2.14-and-newer");
	matrix_diags_release(&d);
	matrix_release(&m);
}

static void test_arch_and_variant_rules(void)
{
	struct matrix m;
	struct err e;
	matrix_init(&m);
	CHECK_INT(load(&m, "a.yml",
		       "schema: 1\nrows:\n"
		       "  - {id: any, torch: \">=2\", status: inferred}\n"
		       "  - {id: arm, torch: \">=2\", arch: arm64, status: inferred}\n"
		       "  - {id: cuda, torch: \">=2\", variant: [\"cu12*\"], status: inferred}\n"
		       "  - {id: cuda-arm, torch: \">=2\", variant: \"cu12?\", arch: [arm64], status: inferred}\n"
		       "  - {id: pinned, torch: \"==2.5.0\", status: inferred}\n",
		       &e),
		  0);
	CHECK_STR(sel(&m, "2.5.1", NULL, "x64"), "any");
	CHECK_STR(sel(&m, "2.5.1", NULL, NULL), "any");     /* unknown arch: only unrestricted rows */
	CHECK_STR(sel(&m, "2.5.1", NULL, "arm64"), "arm");
	CHECK_STR(sel(&m, "2.5.1", NULL, "ARM64"), "arm");
	CHECK_STR(sel(&m, "2.5.1+cu121", NULL, "x64"), "cuda");
	CHECK_STR(sel(&m, "2.5.1+CU121", NULL, "x64"), "cuda");
	CHECK_STR(sel(&m, "2.5.1+cu118", NULL, "x64"), "any");
	CHECK_STR(sel(&m, "2.5.1+cu121", NULL, "arm64"), "cuda-arm");
	CHECK_STR(sel(&m, "2.5.1+cu1210", NULL, "arm64"), "cuda"); /* not cu12? (one character); cu12* and arm tie: later row */
	CHECK_STR(sel(&m, "2.5.0", NULL, "x64"), "pinned");
	CHECK_STR(sel(&m, "2.5.0+cu121", NULL, "x64"), "cuda");   /* variant outranks the pin */
	CHECK_STR(sel(&m, "1.0", NULL, "x64"), "NONE");
	matrix_release(&m);

	CHECK(matrix_glob("cu*", "cu121"));
	CHECK(matrix_glob("rocm6.*", "rocm6.2.4"));
	CHECK(!matrix_glob("rocm6.*", "rocm5.7"));
	CHECK(matrix_glob("*", ""));
	CHECK(!matrix_glob("cpu", "cpux"));
	CHECK(matrix_glob("c?u", "CPU"));
	CHECK(matrix_glob("*1*1", "cu121"));
}

static void test_overlap_detection(void)
{
	struct matrix m;
	struct err e;
	matrix_init(&m);
	/* Same answers: harmless. */
	CHECK_INT(load(&m, "same.yml",
		       "schema: 1\nrows:\n"
		       "  - {id: a, torch: \">=2.4,<2.6\", status: inferred, vc_redist: {x64: \"14.29\"}}\n"
		       "  - {id: b, torch: \">=2.5\", status: inferred, vc_redist: {x64: \"14.29.0\"}}\n",
		       &e),
		  0);
	/* Different answers where they meet: an error at the second row's specifier. */
	err_clear(&e);
	CHECK_INT(load(&m, "diff.yml",
		       "schema: 1\nrows:\n"
		       "  - {id: a, torch: \"~=2.4.0\", status: inferred, vc_redist: {x64: \"14.29\"}}\n"
		       "  - {id: b, torch: \"==2.4.*\", variant: cpu, status: inferred}\n"
		       "  - {id: c, torch: \">2.4.3,<2.5\", status: inferred, vc_redist: {x64: \"14.38\"}}\n",
		       &e),
		  -1);
	CHECK_STR(e.msg,
		  "diff.yml:5:20: rows `a` (line 3) and `c` both match torch 2.4.4 with different requirements "
		  "(vc_redist.x64 \"14.29\" vs \"14.38\"); narrow one `torch` specifier or restrict one row by `variant`/`arch`");
	/* Disjoint arches never overlap; != carves a hole. */
	CHECK_INT(load(&m, "disjoint.yml",
		       "schema: 1\nrows:\n"
		       "  - {id: a, torch: \">=2\", arch: x64, status: inferred, vc_redist: {x64: \"14.29\"}}\n"
		       "  - {id: b, torch: \">=2\", arch: [x86], status: inferred, vc_redist: {x86: \"14.38\"}}\n"
		       "  - {id: c, torch: \">=1,!=1.5.0,<2\", status: inferred}\n"
		       "  - {id: d, torch: \"===1.5.0\", status: inferred, vc_redist: {x64: \"14.20\"}}\n",
		       &e),
		  0);
	matrix_release(&m);
}

/* The fake install for matrix_issue_applies: imports and unresolved DLLs as ","-joined names. */
struct fake {
	const char *imports, *unresolved;
};

static int in_list(const char *list, const char *dll)
{
	const char *p = strstr(list, dll);
	size_t n = strlen(dll);
	return p && (p == list || p[-1] == ',') && (p[n] == ',' || !p[n]);
}

static int fake_imports(const char *dll, void *ctx)
{
	return in_list(((struct fake *)ctx)->imports, dll);
}

static int fake_unresolved(const char *dll, void *ctx)
{
	return in_list(((struct fake *)ctx)->unresolved, dll);
}

static void test_issue_applies(void)
{
	struct matrix m;
	const struct matrix_row *r;
	struct fake with = { "c10.dll,libomp140.x86_64.dll", "" }, without = { "c10.dll,vcomp140.dll", "" };
	struct fake missing = { "", "vcruntime140_1.dll" };
	struct err e;
	load_default(&m);
	r = row_of(&m, "2.4.0");
	CHECK(r && r->nissues == 1);
	if (r && r->nissues == 1) {
		CHECK(matrix_issue_applies(&r->issues[0], "cu121", MATRIX_X64, fake_imports, fake_unresolved, &with));
		CHECK(!matrix_issue_applies(&r->issues[0], "cu121", MATRIX_X64, fake_imports, fake_unresolved, &without));
		CHECK(!matrix_issue_applies(&r->issues[0], "", -1, NULL, NULL, NULL));
	}
	r = row_of(&m, "1.5.0");
	CHECK(r && r->nissues == 2);
	if (r && r->nissues == 2) {
		CHECK(matrix_issue_applies(&r->issues[0], "", MATRIX_X64, fake_imports, fake_unresolved, &missing));
		CHECK(!matrix_issue_applies(&r->issues[0], "", MATRIX_X64, fake_imports, fake_unresolved, &with));
		CHECK(matrix_issue_applies(&r->issues[1], "", -1, NULL, NULL, NULL)); /* no condition: always */
	}
	matrix_release(&m);
	matrix_init(&m);
	CHECK_INT(load(&m, "w.yml",
		       "schema: 1\nrows:\n  - id: r\n    torch: \">=1\"\n    status: inferred\n    known_issues:\n"
		       "      - {id: k, symptom: s, cause: c, fix: f, applies_when: {variant: [\"cu*\"], arch: [x64]}}\n",
		       &e),
		  0);
	CHECK(m.nrows == 1 && m.rows[0]->nissues == 1);
	if (m.nrows == 1 && m.rows[0]->nissues == 1) {
		const struct matrix_issue *is = &m.rows[0]->issues[0];
		CHECK(matrix_issue_applies(is, "cu118", MATRIX_X64, NULL, NULL, NULL));
		CHECK(!matrix_issue_applies(is, "cpu", MATRIX_X64, NULL, NULL, NULL));
		CHECK(!matrix_issue_applies(is, "", MATRIX_X64, NULL, NULL, NULL));
		CHECK(!matrix_issue_applies(is, "cu118", MATRIX_ARM64, NULL, NULL, NULL));
	}
	matrix_release(&m);
}

static void test_row_reference_json(void)
{
	struct matrix m;
	const struct matrix_row *r;
	cJSON *j;
	load_default(&m);
	r = row_of(&m, "2.4.0");
	CHECK(r != NULL);
	if (r) {
		j = matrix_row_json(r, 0);
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "id")), "torch-2.4.0");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "file")), MATRIX_DEFAULT_NAME);
		CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "line")), line_of("- id: torch-2.4.0\n"));
		CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(j, "col")), 5);
		CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItem(j, "status")), "measured");
		CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sources"), 0)),
			  "https://github.com/pytorch/pytorch/issues/131662");
		CHECK(cJSON_GetObjectItem(j, "known_issues") == NULL);
		cJSON_Delete(j);
		j = matrix_row_json(r, 1);
		CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "openmp")), 2); /* libomp140, vcomp140 */
		CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "evidence")), 1);
		cJSON_Delete(j);
	}
	matrix_release(&m);
}

static void test_evidence(void)
{
	struct matrix m;
	struct err e;
	struct pep440 v;
	const char *bad = "schema: 1\nrows:\n  - id: x\n    torch: \"==9.1\"\n    status: measured\n    vc_redist: {x64: \"14.42\"}\n"
			  "    evidence: [\"torch-9.1.0-cp311-cp311-win_amd64.whl sha256=abc\"]\n";
	const char *none = "schema: 1\nrows:\n  - id: x\n    torch: \"==9.1\"\n    status: measured\n    vc_redist: {x64: \"14.42\"}\n";
	load_default(&m);
	CHECK_INT(matrix_newest_measured(&m, &v), 1);
	CHECK_INT((int)v.release[0], 2);
	CHECK_INT((int)v.release[1], 15);
	CHECK_INT(load(&m, "bad.yml", bad, &e), -1);
	CHECK_HAS(e.msg, "bad.yml:7:16: evidence `torch-9.1.0-cp311-cp311-win_amd64.whl sha256=abc` is not");
	CHECK_INT(load(&m, "none.yml", none, &e), -1);
	CHECK_HAS(e.msg, "row `x` is `status: measured` but has no `evidence`");
	CHECK_INT(load(&m, "ok.yml",
		       "schema: 1\nrows:\n  - id: x\n    torch: \"==9.1\"\n    status: measured\n    vc_redist: {x64: \"14.42\"}\n"
		       "    evidence: [\"torch-9.1.0-cp311-cp311-win_amd64.whl sha256="
		       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"]\n",
		       &e),
		  0);
	CHECK_INT(matrix_newest_measured(&m, &v), 1);
	CHECK_INT((int)v.release[0], 9);
	matrix_release(&m);
}

/* The top-level `cuda` table: NVIDIA driver minimums per CUDA release, linted with positions, layered by release. */
static void test_cuda_table(void)
{
	struct matrix m;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	const struct matrix_cuda *c;
	static const char base[] = "schema: 1\nrows: []\ncuda:\n"
				   "  - {cuda: \"12.4\", driver: \"551.61\", floor: \"525.00\", status: sourced,\n"
				   "     sources: [https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html]}\n"
				   "  - {cuda: \"11.8\", driver: \"520.06\", status: inferred}\n";
	static const char later[] = "schema: 1\nrows: []\ncuda:\n  - {cuda: \"12.4\", driver: \"552.00\", status: inferred}\n";
	static const char bad[] = "schema: 1\nrows: []\ncuda:\n"
				  "  - {cuda: \"12.4\", driver: \"551.6\", status: inferred}\n"
				  "  - {cuda: \"12\", driver: \"551.61\", status: inferred}\n"
				  "  - {cuda: \"11.7\", driver: \"516.01\", status: sourced}\n"
				  "  - {cuda: \"11.8\", driver: \"520.06\", status: inferred}\n"
				  "  - {cuda: \"11.8\", driver: \"520.06\", status: inferred}\n";
	matrix_init(&m);
	CHECK_INT(matrix_load_buffer(&m, "a.yml", base, strlen(base), &d, &e), 0);
	CHECK_INT(m.ncuda, 2);
	c = matrix_cuda_find(&m, 12, 4);
	CHECK(c && c->driver[0] == 551 && c->driver[1] == 61 && c->floor_text && c->floor[0] == 525);
	CHECK(c && c->status == MATRIX_SOURCED && c->sources.n == 1 && c->pos.line == 4);
	CHECK(matrix_cuda_find(&m, 12, 8) == NULL);
	CHECK_INT(matrix_load_buffer(&m, "b.yml", later, strlen(later), &d, &e), 0);
	c = matrix_cuda_find(&m, 12, 4);
	CHECK(c && c->driver[0] == 552 && !c->floor_text); /* a later layer's entry replaces the release's */
	CHECK_INT(m.ncuda, 2);
	matrix_diags_release(&d);
	CHECK_INT(matrix_load_buffer(&m, "c.yml", bad, strlen(bad), &d, &e), -1);
	CHECK_INT(d.n, 4);
	CHECK(d.n == 4 && d.v[0].line == 4 && strstr(d.v[0].msg, "`driver` must be"));
	CHECK(d.n == 4 && d.v[1].line == 5 && strstr(d.v[1].msg, "`cuda` must be"));
	CHECK(d.n == 4 && d.v[2].line == 6 && strstr(d.v[2].msg, "has no `sources`"));
	CHECK(d.n == 4 && d.v[3].line == 8 && strstr(d.v[3].msg, "listed twice"));
	CHECK(matrix_cuda_find(&m, 12, 4)->driver[0] == 552); /* a file with errors changes nothing */
	matrix_diags_release(&d);
	matrix_release(&m);
}

/* Node by node: kind, place, quoting, text, items. 1 when the same. */
static int same_tree(const struct ynode *a, const struct ynode *b)
{
	size_t i;
	if (a->kind != b->kind || a->line != b->line || a->col != b->col || a->quoted != b->quoted || a->n != b->n)
		return 0;
	if (a->kind == Y_SCALAR)
		return a->len == b->len && !memcmp(a->s, b->s, a->len) && !b->s[b->len];
	for (i = 0; i < a->n; i++)
		if (!same_tree(a->kid[i], b->kid[i]))
			return 0;
	return 1;
}

/* The tree compiled in (build/gen/matrix_tree.c) is what libyaml gives for matrix/torch.yml, as run-time parsing would. */
static void test_default_tree(void)
{
	static const struct ytree_opts o = MATRIX_YTREE_OPTS;
	struct ytree_error ye;
	struct ynode *parsed, *built;
	int empty;
	long start = ytree_check_bytes((const unsigned char *)matrix_default_yaml, matrix_default_yaml_len, &ye);
	CHECK(start >= 0);
	if (start < 0)
		return;
	parsed = ytree_parse((const unsigned char *)matrix_default_yaml + start, matrix_default_yaml_len - (size_t)start,
			     &o, &empty, &ye);
	built = ytree_from_blob(&matrix_default_tree);
	CHECK(parsed && built && matrix_default_tree.nnodes > 1000);
	CHECK(parsed && built && same_tree(parsed, built));
	ynode_free(parsed);
	ytree_blob_free(built);
}

int main(void)
{
	RUN(test_default_tree);
	RUN(test_cuda_table);
	RUN(test_default_parses);
	RUN(test_evidence);
	RUN(test_grid);
	RUN(test_requirements);
	RUN(test_layer_replace_and_merge);
	RUN(test_layer_later_wins_and_remove);
	RUN(test_bad_layer_changes_nothing);
	RUN(test_arch_and_variant_rules);
	RUN(test_overlap_detection);
	RUN(test_row_reference_json);
	RUN(test_issue_applies);
	return HARNESS_EXIT();
}
