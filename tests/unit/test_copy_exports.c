/*
 * test_copy_exports: torch's imports against another distribution's copy of
 * a DLL they name (judge/copy_exports.c), on a small tree of real PE files
 * (wine_tree.h; nothing runs under Wine): torch\lib\c10.dll is Wine's
 * winmm.dll, which imports acm* functions from msacm32.dll. Wine's own
 * msacm32.dll exports all of them: no gap. Another DLL under that name
 * (version.dll) exports none: every import is counted missing, the first
 * named with its importer, the list capped. A copy that is not a PE gets its
 * reason and nothing else; a copy no torch binary imports from counts none.
 */
#include "harness.h"
#include "judge/copy_exports.h"
#define WINE_TREE_NAME "copy-exports"
#include "wine_tree.h"

/* gaps[0]: a copy of msacm32.dll at Windows path C:\other\msacm32.dll made from the Wine DLL `from` (NULL: text). */
static void check_copy(const char *from, struct copy_gap *g, const char *name)
{
	struct view *v;
	struct torch_run *run;
	char *host = xasprintf("%s/other/%s", root, name);
	put("other/x", NULL, "");
	if (from) {
		char *cmd = xasprintf("cp '%s/%s' '%s'", wine_dir, from, host);
		CHECK_INT(system(cmd), 0);
		free(cmd);
	} else {
		put("other/msacm32.dll", NULL, "not a PE file");
	}
	memset(g, 0, sizeof(*g));
	g->name = name;
	g->win_path = "C:\\other\\msacm32.dll";
	g->host = host;
	run = run_tree(&v);
	CHECK(run != NULL);
	if (run) {
		copy_exports_check(v, run, g, 1);
		torch_run_free(run);
		view_free(v);
	}
	g->host = NULL;
	free(host);
}

static void test_copy_that_exports_everything(void)
{
	struct copy_gap g;
	if (make_tree("same")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put("Python311/Lib/site-packages/torch/lib/c10.dll", "winmm.dll", NULL);
	check_copy("msacm32.dll", &g, "msacm32.dll");
	CHECK(g.error == NULL);
	CHECK(g.nimported > 0);
	CHECK_INT(g.nmissing, 0);
	CHECK(g.symbol == NULL && g.importer == NULL);
	CHECK_INT(g.missing.n, 0);
	copy_gap_release(&g);
	remove_tree();
}

static void test_copy_that_lacks_them(void)
{
	struct copy_gap g;
	if (make_tree("other")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put("Python311/Lib/site-packages/torch/lib/c10.dll", "winmm.dll", NULL);
	check_copy("version.dll", &g, "msacm32.dll");
	CHECK(g.error == NULL);
	CHECK(g.nimported > 0);
	CHECK_INT(g.nmissing, g.nimported); /* version.dll exports no acm* function */
	CHECK(g.symbol && !strncmp(g.symbol, "acm", 3));
	CHECK_STR(g.importer, "C:\\Python311\\Lib\\site-packages\\torch\\lib\\c10.dll");
	CHECK_INT(g.missing.n, g.nmissing < COPY_EXPORTS_MAX_LISTED ? g.nmissing : COPY_EXPORTS_MAX_LISTED);
	if (g.missing.n) {
		char *first = xasprintf("c10.dll: %s", g.symbol);
		CHECK_STR(g.missing.v[0], first);
		free(first);
	}
	copy_gap_release(&g);
	CHECK(g.symbol == NULL && g.nmissing == 0 && g.missing.n == 0);
	remove_tree();
}

static void test_unreadable_and_unimported_copies(void)
{
	struct copy_gap g;
	if (make_tree("bad")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put("Python311/Lib/site-packages/torch/lib/c10.dll", "winmm.dll", NULL);
	check_copy(NULL, &g, "msacm32.dll");
	CHECK_HAS(g.error, "not a PE file");
	CHECK_INT(g.nimported, 0);
	CHECK_INT(g.nmissing, 0);
	copy_gap_release(&g);
	/* a copy of a DLL no torch binary imports: nothing counted */
	check_copy("version.dll", &g, "libiomp5md.dll");
	CHECK(g.error == NULL);
	CHECK_INT(g.nimported, 0);
	CHECK_INT(g.nmissing, 0);
	copy_gap_release(&g);
	remove_tree();
}

int main(void)
{
	RUN(test_copy_that_exports_everything);
	RUN(test_copy_that_lacks_them);
	RUN(test_unreadable_and_unimported_copies);
	return HARNESS_EXIT();
}
