/*
 * test_dllmain: the DllMain a too-old runtime DLL makes fail (judge/dllmain.c)
 * on a small tree of real PE files (wine_tree.h; nothing runs under Wine)
 * and a matrix row written here. torch\lib\c10.dll is Wine's msvcp140.dll,
 * which imports ucrtbase.dll itself; System32's ucrtbase.dll carries file
 * version 10.0.14393.2247. The row asks ucrtbase.dll >= 10.1 with WinError
 * 1114, so the copy the process resolves is too old: c10.dll, patched to
 * linker version 14.40 (a toolset at least as new as the minimum), is the
 * module whose DllMain fails, and the binary fails with 1114, one finding of
 * rule runtime-too-old naming it. Left alone (Wine's GNU ld 2.39 is older
 * than 10.1), or with a copy new enough (min 10.0), or without an install,
 * nothing is marked.
 */
#include "harness.h"
#include "rows_yaml.h"
#include "judge/dllmain.h"
#define WINE_TREE_NAME "dllmain"
#include "wine_tree.h"

#define C10 "Python311/Lib/site-packages/torch/lib/c10.dll"

static int load(struct matrix *m, const char *min)
{
	char *yaml = xasprintf("schema: 1\n"
			       "rows:\n"
			       "  - id: t-2.5.1\n"
			       "    torch: \"==2.5.1\"\n"
			       "    status: sourced\n"
			       "    sources: [\"https://example.com/t-2.5.1\"]\n"
			       "    runtime_dlls:\n"
			       "      - {name: ucrtbase.dll, where: either, min_version: \"%s\", winerror: 1114, why: w}\n",
			       min);
	int r = rows_yaml_load(m, yaml);
	free(yaml);
	return r;
}

/* Sets the PE linker version (optional header bytes 2 and 3) of the tree's file `rel`. */
static void set_linker(const char *rel, unsigned char major, unsigned char minor)
{
	char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "r+b");
	unsigned char b[4];
	long pe;
	CHECK(f != NULL);
	if (f) {
		CHECK(fseek(f, 0x3c, SEEK_SET) == 0 && fread(b, 1, 4, f) == 4);
		pe = (long)(b[0] | b[1] << 8 | b[2] << 16 | (unsigned long)b[3] << 24);
		b[0] = major;
		b[1] = minor;
		CHECK(fseek(f, pe + 24 + 2, SEEK_SET) == 0 && fwrite(b, 1, 2, f) == 2);
		fclose(f);
	}
	free(p);
}

/* dllmain_judge on the tree with the row's minimum `min`; the findings as "rule winerror title" lines. */
static char *judge(const char *min, int with_install, size_t *marked, int *c10_winerror)
{
	struct matrix m;
	struct findings fs = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct inv_install in;
	struct view *v;
	struct torch_run *run;
	size_t i;
	*marked = 0;
	*c10_winerror = -1;
	memset(&in, 0, sizeof(in));
	in.version = "2.5.1";
	if (load(&m, min)) {
		CHECK(0);
		return strbuf_detach(&sb);
	}
	run = run_tree(&v);
	CHECK(run != NULL);
	if (run) {
		*marked = dllmain_judge(&fs, run, v, &m, with_install ? &in : NULL);
		for (i = 0; i < run->nbins; i++)
			if (!str_icmp(winpath_basename(run->bins[i].path), "c10.dll"))
				*c10_winerror = run->bins[i].winerror;
		torch_run_free(run);
		view_free(v);
	}
	for (i = 0; i < fs.n; i++)
		strbuf_addf(&sb, "%s %d %s\n", rule_get(fs.v[i].rule)->id, fs.v[i].winerror, fs.v[i].title);
	findings_release(&fs);
	matrix_release(&m);
	return strbuf_detach(&sb);
}

static void test_too_old_runtime_fails_dllmain(void)
{
	size_t marked;
	int we;
	char *got;
	if (make_tree("old")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put(C10, "msvcp140.dll", NULL);
	set_linker(C10, 14, 40);
	got = judge("10.1", 1, &marked, &we);
	CHECK_INT(marked, 1);
	CHECK_INT(we, 1114);
	CHECK_STR(got, "runtime-too-old 1114 c10.dll fails in DllMain (WinError 1114): ucrtbase.dll 10.0.14393.2247 "
		       "is older than 10.1\n");
	free(got);
	remove_tree();
}

static void test_nothing_fails(void)
{
	size_t marked;
	int we;
	char *got;
	if (make_tree("fine")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put(C10, "msvcp140.dll", NULL);
	/* linked by an older toolset (GNU ld 2.39 < 10.1): its STL is not the one that crashes */
	got = judge("10.1", 1, &marked, &we);
	CHECK_INT(marked, 0);
	CHECK_INT(we, 0);
	CHECK_STR(got, "");
	free(got);
	set_linker(C10, 14, 40);
	/* the copy resolved is new enough */
	got = judge("10.0", 1, &marked, &we);
	CHECK_INT(marked, 0);
	CHECK_INT(we, 0);
	CHECK_STR(got, "");
	free(got);
	/* no install (no version): no row, nothing to do */
	got = judge("10.1", 0, &marked, &we);
	CHECK_INT(marked, 0);
	CHECK_INT(we, 0);
	CHECK_STR(got, "");
	free(got);
	remove_tree();
}

int main(void)
{
	RUN(test_too_old_runtime_fails_dllmain);
	RUN(test_nothing_fails);
	return HARNESS_EXIT();
}
