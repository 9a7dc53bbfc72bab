#include "harness.h"
#include "loader/loader.h"
#include "loader/torchproc.h"
#include "matrix/matrix.h"
#include "util/os.h"
#include "util/strbuf.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

static const char *repo(void)
{
	const char *r = getenv("TDC_REPO");
	return r && *r ? r : ".";
}

static int proc_of(const struct matrix *m, const char *version, struct torch_proc *p)
{
	memset(p, 0, sizeof(*p));
	return matrix_torch_load(m, version, p);
}

/* Each release gets the procedure of the embedded matrix's torch_load entry covering it. */
static void test_torchproc_rows_by_release(void)
{
	struct matrix m;
	struct torch_proc p;
	struct err e;
	matrix_init(&m);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	CHECK(m.nprocs >= 8);
	CHECK_INT(proc_of(&m, "2.3.0+cpu", &p), 0);
	CHECK_STR(p.torch, ">=2.0,<2.3.1");
	CHECK_INT(torch_proc_has(&p, TORCH_FOLDER_USERBASE), 0);
	CHECK_INT(p.exact, 1);
	CHECK_INT(p.line, 81);
	CHECK_INT(proc_of(&m, "2.3.1", &p), 0);
	CHECK_STR(p.torch, ">=2.3.1,<2.6");
	CHECK_INT(torch_proc_has(&p, TORCH_FOLDER_USERBASE), 1);
	CHECK_INT(torch_proc_has(&p, TORCH_FOLDER_PREFIX_BIN), 0);
	CHECK_INT(p.line, 83);
	CHECK(strstr(p.entry, "matrix/torch.yml:") != NULL);
	CHECK_STR(p.status, "measured");
	CHECK_INT(proc_of(&m, "2.8.0", &p), 0);
	CHECK_INT(torch_proc_has(&p, TORCH_FOLDER_PREFIX_BIN), 1);
	CHECK_INT(p.nvtx, 0);
	CHECK_INT(proc_of(&m, "2.9.1", &p), 0);
	CHECK_INT(p.nvtx, 1);
	CHECK_INT(p.vc1, TORCH_VC1_NOT_ARM64);
	CHECK_INT(proc_of(&m, "2.5.1", &p), 0);
	CHECK_INT(p.vc1, TORCH_VC1_ALWAYS);
	CHECK_INT(proc_of(&m, "1.9.1", &p), 0);
	CHECK_INT(p.vc1, TORCH_VC1_NOT_OLD_CUDA);
	CHECK_INT(proc_of(&m, "2.14.1", &p), 0);
	CHECK_INT(p.anchor_c, 1);
	CHECK_INT(p.line, 212);
	/* before the first entry: the oldest, said; a release the newest entry covers but nobody measured: no line */
	CHECK_INT(proc_of(&m, "1.5.1", &p), 0);
	CHECK_STR(p.torch, ">=1.7.1,<1.10");
	CHECK_INT(p.exact, 0);
	CHECK(strstr(p.note, "no torch_load entry covers torch 1.5.1") != NULL);
	CHECK_INT(proc_of(&m, "9.0", &p), 0);
	CHECK_STR(p.torch, ">=2.14");
	CHECK_INT(p.line, 0);
	CHECK_INT(proc_of(&m, "not a version", &p), 0);
	CHECK_STR(p.torch, ">=2.14");
	CHECK(strstr(p.note, "unknown") != NULL);
	CHECK_INT(proc_of(&m, NULL, &p), 0);
	CHECK_INT(p.exact, 0);
	CHECK_INT(proc_of(&m, "2.16.0", &p), 0);
	CHECK_INT(p.line, 0);
	matrix_release(&m);
	/* no table at all: -1, and torchload follows its built-in procedure with a note */
	matrix_init(&m);
	CHECK_INT(proc_of(&m, "2.3.0", &p), -1);
	matrix_release(&m);
	torch_proc_builtin(&p, "why");
	CHECK_STR(p.torch, "built-in");
	CHECK_STR(p.note, "why");
	CHECK_INT(torch_proc_has(&p, TORCH_FOLDER_USERBASE), 1);
}

/* The embedded table says what the survey measured, release by release (matrix/evidence/torch-win_amd64-init.txt). */
static void test_torch_load_agrees_with_the_survey(void)
{
	struct matrix m;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	char *path = xasprintf("%s/matrix/evidence/torch-win_amd64-init.txt", repo());
	const char *line;
	size_t n = 0;
	matrix_init(&m);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	CHECK_INT(os_read_file(path, 1 << 20, &sb, &e), 0);
	for (line = strbuf_str(&sb); *line;) {
		const char *nl = strchr(line, '\n');
		char *l = xstrndup(line, nl ? (size_t)(nl - line) : strlen(line));
		char rel[32], folders[128], nvtx[8], vc1[32], anchor[16], lines[256];
		const char *f = strstr(l, " folders="), *nv = strstr(l, " nvtx="), *v1 = strstr(l, " vcruntime140_1="),
			   *an = strstr(l, " anchor="), *li = strstr(l, " lines=");
		if (f && nv && v1 && an && li && sscanf(l, "%31s", rel) == 1 && sscanf(f, " folders=%127s", folders) == 1 &&
		    sscanf(nv, " nvtx=%7s", nvtx) == 1 && sscanf(v1, " vcruntime140_1=%31s", vc1) == 1 &&
		    sscanf(an, " anchor=%15s", anchor) == 1 && sscanf(li, " lines=%255s", lines) == 1) {
			struct torch_proc p;
			struct strbuf want = STRBUF_INIT;
			size_t i;
			CHECK_INT(proc_of(&m, rel, &p), 0);
			CHECK_INT(p.exact, 1);
			for (i = 0; i < p.nfolders; i++)
				strbuf_addf(&want, "%s%s", i ? "," : "", torch_folder_names[p.folders[i]]);
			CHECK_STR(strbuf_str(&want), folders);
			CHECK_STR(p.nvtx ? "yes" : "no", nvtx);
			CHECK_STR(torch_vc1_names[p.vc1], vc1);
			CHECK_STR(p.anchor_c ? "torch._C" : "__file__", anchor);
			CHECK_STR(p.lines, lines);
			CHECK_STR(p.status, "measured");
			strbuf_release(&want);
			n++;
		}
		free(l);
		line = nl ? nl + 1 : line + strlen(line);
	}
	CHECK(n >= 40);
	printf("# %zu releases of the survey checked against torch_load\n", n);
	strbuf_release(&sb);
	free(path);
	matrix_release(&m);
}

static size_t lint_says(const char *yaml, const char *want)
{
	struct matrix m;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	size_t i, hit = 0;
	matrix_init(&m);
	matrix_load_buffer(&m, "t.yml", yaml, strlen(yaml), &d, &e);
	for (i = 0; i < d.n; i++) {
		if (strstr(d.v[i].msg, want))
			hit++;
		else
			printf("#   other: %u:%u: %s\n", d.v[i].line, d.v[i].col, d.v[i].msg);
	}
	if (!hit)
		printf("# wanted \"%s\"\n", want);
	matrix_diags_release(&d);
	matrix_release(&m);
	return hit;
}

#define TL_HEAD "schema: 1\nrows: []\ntorch_load:\n"
#define TL_ENTRY(spec, rest) "  - {torch: \"" spec "\", folders: [lib], nvtx: true, vcruntime140_1: always, status: inferred" rest "}\n"

static void test_torch_load_lint(void)
{
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2.0,<2.4", "") TL_ENTRY(">=2.3.1", ""),
			"both cover torch 2.3.1; their `torch` ranges must not overlap"));
	/* PEP 440's ordering: 2.5.1.dev0 and 2.5.1rc1 are below 2.5.1, inside >=2.3.1,<2.6 */
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2.3.1,<2.6", "") TL_ENTRY(">=2.5.1.dev0,<2.5.1", ""),
			"their `torch` ranges must not overlap"));
	CHECK(lint_says(TL_HEAD "  - {torch: \">=2\", folders: [lib, usrbase], nvtx: true, vcruntime140_1: always, status: inferred}\n",
			"did you mean `userbase`"));
	CHECK(lint_says(TL_HEAD "  - {torch: \">=2\", folders: [lib, lib], nvtx: true, vcruntime140_1: always, status: inferred}\n",
			"listed twice"));
	CHECK(lint_says(TL_HEAD "  - {torch: \">=2\", folders: [], nvtx: true, vcruntime140_1: always, status: inferred}\n",
			"at least one folder"));
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2", ", anchor: torch_C"), "did you mean `torch._C`"));
	CHECK(lint_says(TL_HEAD "  - {torch: \">=2\", folders: [lib], nvtx: true, vcruntime140_1: not-arm, status: inferred}\n",
			"`vcruntime140_1` is `not-arm`"));
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2,<2.3", ", lines: {\"2.3.0\": \"dll_paths:81\"}"),
			"torch 2.3.0 is not one this entry's torch"));
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2", ", lines: {\"2.3.0\": \"dll_paths:x\"}"), "must be a number or ?"));
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2", ", lines: {\"2.3.0\": \"probe:9\"}"), "no dll_paths:LINE"));
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2", ", lines: {\"2.3.0\": \"dllpaths:9\"}"), "is not a statement name"));
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2", ", lines: {\"2.3\": \"dll_paths:1\", \"2.3.0\": \"dll_paths:2\"}"),
			"listed twice"));
	CHECK(lint_says(TL_HEAD "  - {torch: \">=2\", folders: [lib], nvtx: true, vcruntime140_1: always, status: measured}\n",
			"has no `evidence`"));
	CHECK(lint_says(TL_HEAD TL_ENTRY(">=2", ", evidence: [\"torch-2.0.0-cp311-cp311-win_amd64.whl sha256=00\"]"),
			"is not \"torch-VERSION"));
	CHECK(lint_says(TL_HEAD "  - {torch: \">=2\", folders: [lib], vcruntime140_1: always, status: inferred}\n",
			"missing `nvtx`"));
	CHECK(lint_says(TL_HEAD "  - {torch: \"\", folders: [lib], nvtx: true, vcruntime140_1: always, status: inferred}\n",
			"torch: bad specifier"));
}

/* A later layer's entry replaces the earlier entries it overlaps: the verdict follows the layer. */
static void test_torch_load_layers(void)
{
	struct matrix m;
	struct torch_proc p;
	struct err e;
	static const char layer[] = TL_HEAD "  - {torch: \">=2.3,<2.4\", folders: [lib, prefix, base_prefix, userbase], "
					    "nvtx: false, vcruntime140_1: always, status: inferred}\n";
	matrix_init(&m);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	CHECK_INT(matrix_load_buffer(&m, "mine.yml", layer, strlen(layer), NULL, &e), 0);
	CHECK_INT(proc_of(&m, "2.3.0", &p), 0);
	CHECK_STR(p.torch, ">=2.3,<2.4");
	CHECK_INT(torch_proc_has(&p, TORCH_FOLDER_USERBASE), 1);
	CHECK(strstr(p.entry, "mine.yml:") == p.entry);
	CHECK_INT(proc_of(&m, "2.2.0", &p), 0); /* its entry (>=2.0,<2.3.1) gave way: the nearest before it, said */
	CHECK_INT(p.exact, 0);
	CHECK_STR(p.torch, ">=1.10,<2.0");
	CHECK(strstr(p.note, "no torch_load entry covers torch 2.2.0") != NULL);
	CHECK_INT(proc_of(&m, "2.8.0", &p), 0); /* untouched */
	CHECK_STR(p.torch, ">=2.8,<2.9");
	matrix_release(&m);
}

/* A layer for 2.5.1's pre-releases replaces the built-in entry it overlaps, and 2.5.1rc1 follows it. */
static void test_torch_load_prereleases(void)
{
	struct matrix m;
	struct torch_proc p;
	struct err e;
	static const char layer[] = TL_HEAD "  - {torch: \">=2.5.1.dev0,<2.5.1\", folders: [lib, prefix, base_prefix, "
					    "userbase], nvtx: false, vcruntime140_1: always, status: inferred}\n";
	matrix_init(&m);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	CHECK_INT(matrix_load_buffer(&m, "pre.yml", layer, strlen(layer), NULL, &e), 0);
	CHECK_INT(proc_of(&m, "2.5.1rc1", &p), 0);
	CHECK_STR(p.torch, ">=2.5.1.dev0,<2.5.1");
	CHECK_INT(p.exact, 1);
	CHECK_INT(proc_of(&m, "2.6.0.dev20241001", &p), 0); /* a nightly still follows its release's entry */
	CHECK_STR(p.torch, ">=2.6,<2.8");
	matrix_release(&m);
}

static void check_folder(const char *in, const char *want)
{
	char *got = ldr_win32_folder(in);
	CHECK_STR(got, want);
	free(got);
}

/* Win32 normalisation of folders ("File path formats on Windows systems"). */
static void test_win32_folder(void)
{
	check_folder("C:\\x\\ub.\\Library\\bin", "C:\\x\\ub\\Library\\bin");
	check_folder("C:\\Tools\\omp.", "C:\\Tools\\omp");
	check_folder("C:\\Tools\\omp. . .", "C:\\Tools\\omp");
	check_folder("C:\\a..\\b", "C:\\a..\\b");      /* two periods: not "a single period" */
	check_folder("C:\\a \\b", "C:\\a \\b");        /* trailing spaces kept inside a path */
	check_folder("C:/Tools/omp", "C:\\Tools\\omp");
	check_folder("\\\\?\\C:\\x.\\y.", "\\\\?\\C:\\x.\\y."); /* taken as written */
	check_folder("", "");
	check_folder(".", "");
}

int main(void)
{
	RUN(test_torchproc_rows_by_release);
	RUN(test_torch_load_agrees_with_the_survey);
	RUN(test_torch_load_lint);
	RUN(test_torch_load_layers);
	RUN(test_torch_load_prereleases);
	RUN(test_win32_folder);
	return HARNESS_EXIT();
}
