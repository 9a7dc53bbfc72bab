/*
 * test_extensions: torch's environment judged (judge/extensions.c) on a
 * small tree of real PE files (wine_tree.h; nothing runs under Wine) and a
 * matrix row written here (msvcp140.dll >= a minimum with WinError 1114,
 * ucrtbase.dll >= 10.1). torch\lib\c10.dll is Wine's msvcp140.dll; a
 * distribution PyQt5 5.15.0 imports nothing of torch's (no extension) and
 * ships a copy of a DLL torch needs in Qt5\bin, listed with its
 * distribution and file version. Its ucrtbase.dll (Wine's, 10.0.14393.2247)
 * is below the row's 10.1 but not judged: the tree's python.exe (Wine's
 * notepad.exe) loads its own ucrtbase.dll at start-up. Its msvcp140.dll
 * (Wine's ucrtbase.dll under that name: 10.0.14393.2247) against a 14.40
 * minimum is one runtime-copy warning ("if PyQt5 is imported before torch
 * ..."); a minimum it meets, or no row, gives none. A DLL torch does not
 * need is not listed; an --import-first name no distribution has is
 * counted, without a crash. An extension whose binary fails with 127 on a
 * symbol of torch's DLLs is an extension-mismatch naming the torch its
 * METADATA pins; one that loads with such a pin is an extension-torch-pin
 * warning.
 */
#include "harness.h"
#include "rows_yaml.h"
#include "judge/extensions.h"
#define WINE_TREE_NAME "extensions"
#include "wine_tree.h"

#define SP "Python311/Lib/site-packages"

static int load(struct matrix *m, const char *min, const struct matrix_row **row)
{
	char *yaml = xasprintf("schema: 1\n"
			       "rows:\n"
			       "  - id: t-2.5.1\n"
			       "    torch: \"==2.5.1\"\n"
			       "    status: sourced\n"
			       "    sources: [\"https://example.com/t-2.5.1\"]\n"
			       "    runtime_dlls:\n"
			       "      - {name: msvcp140.dll, where: either, min_version: \"%s\", winerror: 1114, why: w}\n"
			       "      - {name: ucrtbase.dll, where: either, min_version: \"10.1\", why: w}\n",
			       min);
	int r = rows_yaml_load(m, yaml);
	*row = !r && m->nrows == 1 ? m->rows[0] : NULL;
	free(yaml);
	return r;
}

/* PyQt5 5.15.0, its RECORD listing Qt5\bin\<dll> (a copy of Wine's `from`) and __init__.py. */
static void put_pyqt(const char *dll, const char *from)
{
	char *p = xasprintf(SP "/PyQt5/Qt5/bin/%s", dll);
	char *rec = xasprintf("PyQt5/__init__.py,,\nPyQt5/Qt5/bin/%s,,\nPyQt5-5.15.0.dist-info/METADATA,,\n"
			      "PyQt5-5.15.0.dist-info/RECORD,,\n",
			      dll);
	put(p, from, NULL);
	put(SP "/PyQt5/__init__.py", NULL, "");
	put(SP "/PyQt5-5.15.0.dist-info/METADATA", NULL, "Metadata-Version: 2.1\nName: PyQt5\nVersion: 5.15.0\n\n");
	put(SP "/PyQt5-5.15.0.dist-info/top_level.txt", NULL, "PyQt5\n");
	put(SP "/PyQt5-5.15.0.dist-info/RECORD", NULL, rec);
	free(rec);
	free(p);
}

/* The checks on the tree: `first` (NULL: none) imported first, the row's minimum `min` (NULL: no row). */
struct got {
	size_t ncopies, nexts, nmissing_first;
	char *copy; /* "name dist dist_version file_version" of the first copy, or NULL */
	char *findings; /* "rule severity title" lines */
};

static void check_tree(struct got *g, const char *first, const char *min)
{
	struct matrix m;
	const struct matrix_row *row = NULL;
	struct strlist names = STRLIST_INIT;
	struct ext_check c;
	struct findings fs = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct view *v;
	struct torch_run *run;
	size_t i;
	memset(g, 0, sizeof(*g));
	if (load(&m, min ? min : "10.1", &row)) {
		CHECK(0);
		return;
	}
	if (first)
		strlist_push(&names, first);
	ext_check_init(&c, &names, &m);
	run = run_tree(&v);
	CHECK(run != NULL);
	if (run) {
		ext_check_before_torch(&c, run, v);
		ext_check_after_torch(&c, run, v);
		ext_check_findings(&c, &fs, run, "2.5.1", min ? row : NULL);
		g->ncopies = c.ncopies;
		g->nexts = c.nexts;
		g->nmissing_first = c.missing_first.n;
		if (c.ncopies)
			g->copy = xasprintf("%s %s %s %s", c.copies[0].name, c.copies[0].dist,
					    c.copies[0].dist_version ? c.copies[0].dist_version : "-",
					    c.copies[0].file_version ? c.copies[0].file_version : "-");
		ext_check_release(&c, v);
		torch_run_free(run);
		view_free(v);
	} else {
		ext_check_release(&c, NULL);
	}
	for (i = 0; i < fs.n; i++)
		strbuf_addf(&sb, "%s %s %s\n", rule_get(fs.v[i].rule)->id, severity_name(fs.v[i].severity),
			    fs.v[i].title);
	g->findings = strbuf_detach(&sb);
	findings_release(&fs);
	strlist_release(&names);
	matrix_release(&m);
}

static void got_release(struct got *g)
{
	free(g->copy);
	free(g->findings);
}

static void test_old_runtime_copy_of_another_package(void)
{
	struct got g;
	if (make_tree("copy")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put(SP "/torch/lib/c10.dll", "msvcp140.dll", NULL);
	put_pyqt("ucrtbase.dll", "ucrtbase.dll");
	/* the tree's python.exe (Wine's notepad.exe) loads System32's ucrtbase.dll itself at start-up: no
	   package imported later can replace it, so the copy, below the row's 10.1, is listed and not judged */
	check_tree(&g, NULL, "14.40");
	CHECK_INT(g.ncopies, 1);
	CHECK_STR(g.copy, "ucrtbase.dll PyQt5 5.15.0 10.0.14393.2247");
	CHECK_STR(g.findings, "");
	got_release(&g);
	remove_tree();
	if (make_tree("copy2"))
		return;
	put(SP "/torch/lib/c10.dll", "msvcp140.dll", NULL);
	/* an msvcp140.dll of file version 10.0.14393.2247 (Wine's ucrtbase.dll under that name) */
	put_pyqt("msvcp140.dll", "ucrtbase.dll");
	check_tree(&g, NULL, "14.40");
	CHECK_INT(g.ncopies, 1);
	CHECK_INT(g.nexts, 0); /* nothing of PyQt5 imports torch's DLLs */
	CHECK_STR(g.copy, "msvcp140.dll PyQt5 5.15.0 10.0.14393.2247");
	CHECK_STR(g.findings, "runtime-copy warning if PyQt5 is imported before torch, msvcp140.dll 10.0.14393.2247 "
			      "is the one loaded; torch 2.5.1 needs >= 14.40\n");
	got_release(&g);
	/* new enough for the row, or no row: listed, not judged */
	check_tree(&g, NULL, "10.0");
	CHECK_INT(g.ncopies, 1);
	CHECK_STR(g.findings, "");
	got_release(&g);
	check_tree(&g, NULL, NULL);
	CHECK_INT(g.ncopies, 1);
	CHECK_STR(g.findings, "");
	got_release(&g);
	remove_tree();
}

static void test_unneeded_copy_and_unknown_first(void)
{
	struct got g;
	if (make_tree("other")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put(SP "/torch/lib/c10.dll", "msvcp140.dll", NULL);
	put_pyqt("qt5core.dll", "ucrtbase.dll"); /* a DLL torch does not need */
	check_tree(&g, "nosuchpkg", "10.1");
	CHECK_INT(g.ncopies, 0);
	CHECK(g.copy == NULL);
	CHECK_INT(g.nmissing_first, 1);
	CHECK_STR(g.findings, "");
	got_release(&g);
	remove_tree();
}

/*
 * An extension built against another torch: its .pyd (Wine's mciavi32.dll,
 * its import of msvfw32.dll renamed torchvw.dll) imports functions of one of
 * torch's own DLLs, torch\lib\torchvw.dll (a copy of Wine's version.dll,
 * which exports none of them): a 127 on a symbol of
 * torch's DLLs is one extension-mismatch finding, with the torch its
 * METADATA pins. With the real msvfw32.dll it loads, and its pin on another
 * torch is a warning of its own.
 */
/* Renames, in the tree's file `rel`, the first "msvfw32.dll" it holds (the import's name) to "torchvw.dll". */
static void rename_import(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "r+b");
	static char buf[1 << 20];
	size_t n, i;
	CHECK(f != NULL);
	if (f) {
		n = fread(buf, 1, sizeof(buf), f);
		for (i = 0; i + 11 <= n; i++)
			if (!memcmp(buf + i, "msvfw32.dll", 11))
				break;
		CHECK(i + 11 <= n);
		if (i + 11 <= n)
			CHECK(fseek(f, (long)i, SEEK_SET) == 0 && fwrite("torchvw.dll", 1, 11, f) == 11);
		fclose(f);
	}
	free(p);
}

static void put_ext(void)
{
	put(SP "/myext/_C.pyd", "mciavi32.dll", NULL);
	rename_import(SP "/myext/_C.pyd");
	put(SP "/myext/__init__.py", NULL, "");
	put(SP "/myext-0.1.0.dist-info/METADATA", NULL,
	    "Metadata-Version: 2.1\nName: myext\nVersion: 0.1.0\nRequires-Dist: torch==2.4.0\n\n");
	put(SP "/myext-0.1.0.dist-info/top_level.txt", NULL, "myext\n");
	put(SP "/myext-0.1.0.dist-info/RECORD", NULL,
	    "myext/__init__.py,,\nmyext/_C.pyd,,\nmyext-0.1.0.dist-info/METADATA,,\nmyext-0.1.0.dist-info/RECORD,,\n");
}

static void test_extension_built_for_another_torch(void)
{
	struct got g;
	if (make_tree("ext")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put(SP "/torch/lib/torchvw.dll", "version.dll", NULL);
	put_ext();
	check_tree(&g, NULL, NULL);
	CHECK_INT(g.nexts, 1);
	CHECK_STR(g.findings, "extension-mismatch error myext 0.1.0 was built for torch 2.4.0; torch 2.5.1 is installed\n");
	got_release(&g);
	remove_tree();
	if (make_tree("ext2"))
		return;
	put(SP "/torch/lib/torchvw.dll", "msvfw32.dll", NULL);
	put_ext();
	check_tree(&g, NULL, NULL);
	CHECK_INT(g.nexts, 1);
	CHECK_STR(g.findings, "extension-torch-pin warning myext 0.1.0 requires torch==2.4.0; torch 2.5.1 is installed\n");
	got_release(&g);
	remove_tree();
}

int main(void)
{
	RUN(test_old_runtime_copy_of_another_package);
	RUN(test_unneeded_copy_and_unknown_first);
	RUN(test_extension_built_for_another_torch);
	return HARNESS_EXIT();
}
