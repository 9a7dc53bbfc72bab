/*
 * test_torchload: torch's and CPython's procedure (torchload.c) on a small
 * tree of real PE files (Wine's builtin DLLs, copied under torch's names):
 * torch's glob (dot-files skipped, "*.DLL" in any case, folders matched and
 * failing with 5), CPython's EXTENSION_SUFFIXES for the interpreter found
 * (pythonXY.dll in python.exe's folder, the wheel's tag, pyvenv.cfg, a
 * debug build) and
 * importlib's choice of one file per module, packages shadowing modules,
 * the import error torch raises, and the numbered steps' order.
 */
#include "harness.h"
#define WINE_TREE_NAME "torchload"
#include "wine_tree.h"

/* The binary whose path ends with `tail`, or NULL. */
static const struct torch_binary *bin(const struct torch_run *run, const char *tail)
{
	size_t i, n = strlen(tail);
	for (i = 0; i < run->nbins; i++) {
		size_t m = strlen(run->bins[i].path);
		if (m >= n && !strcmp(run->bins[i].path + m - n, tail))
			return &run->bins[i];
	}
	return NULL;
}

static void test_glob_skips_dot_files_and_matches_folders(void)
{
	struct view *v;
	struct torch_run *run;
	const struct torch_binary *b;
	if (make_tree("glob"))
		return;
	put("Python311/Lib/site-packages/torch/lib/._asmjit.dll", NULL, "\x00\x05\x16\x07 AppleDouble");
	put("Python311/Lib/site-packages/torch/lib/C10.DLL", "winmm.dll", NULL);
	put("Python311/Lib/site-packages/torch/lib/notes.txt", NULL, "not a dll");
	put("Python311/Lib/site-packages/torch/lib/asmjit.lib", NULL, "import library");
	put("Python311/Lib/site-packages/torch/lib/folder.dll/inside.txt", NULL, "a folder named *.dll");
	run = run_tree(&v);
	CHECK(run != NULL);
	if (!run)
		return;
	CHECK_INT(run->nbins, 3); /* asmjit.dll, C10.DLL, folder.dll: no ._asmjit.dll, no .txt/.lib */
	CHECK(bin(run, "\\._asmjit.dll") == NULL);
	b = bin(run, "\\C10.DLL");
	CHECK(b && b->winerror == 0 && !strcmp(b->outcome, "loads"));
	b = bin(run, "\\folder.dll");
	CHECK(b != NULL);
	if (b) {
		CHECK_INT(b->winerror, 5);
		CHECK_STR(b->outcome, "not-a-file");
		CHECK_INT(b->stage, TORCH_STAGE_ADD_DLL_DIRECTORY); /* 5 is not 126: no PATH fallback */
	}
	CHECK_INT(run->import_error_winerror, 5);
	CHECK_HAS(run->import_error_text, "OSError: [WinError 5] Access is denied. Error loading \"C:\\Python311\\Lib"
					  "\\site-packages\\torch\\lib\\folder.dll\" or one of its dependencies.");
	torch_run_free(run);
	view_free(v);
	remove_tree();
}

static void test_extension_suffixes_of_the_interpreter(void)
{
	struct view *v;
	struct torch_run *run;
	size_t i, npyd = 0;
	if (make_tree("pyd"))
		return;
	put("Python311/python311.dll", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/_C.cp311-win_amd64.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/_C.cp310-win_amd64.pyd", "version.dll", NULL); /* stale */
	put("Python311/Lib/site-packages/torch/_C.pyd", "version.dll", NULL);                 /* later suffix */
	put("Python311/Lib/site-packages/torch/_extra.PYD", "version.dll", NULL); /* suffix case-insensitive */
	put("Python311/Lib/site-packages/torch/_old.cp39-win_amd64.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/_arm.cp311-win_arm64.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/sub/_m.cp311-win_amd64.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/sub/deeper/still/_d.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/pkg.pyd", "version.dll", NULL); /* shadowed by the package */
	put("Python311/Lib/site-packages/torch/pkg/__init__.py", NULL, "");
	put("Python311/Lib/site-packages/torch/not-a-package/_x.pyd", "version.dll", NULL);
	run = run_tree(&v);
	CHECK(run != NULL);
	if (!run)
		return;
	CHECK_STR(run->python_tag, "cp311");
	CHECK_INT(run->ext_suffixes.n, 2);
	if (run->ext_suffixes.n == 2) {
		CHECK_STR(run->ext_suffixes.v[0], ".cp311-win_amd64.pyd");
		CHECK_STR(run->ext_suffixes.v[1], ".pyd");
	}
	for (i = 0; i < run->nbins; i++)
		npyd += run->bins[i].is_pyd;
	CHECK_INT(npyd, 4);
	CHECK(bin(run, "\\torch\\_C.cp311-win_amd64.pyd") != NULL);
	CHECK(bin(run, "\\torch\\_extra.PYD") != NULL);
	CHECK(bin(run, "\\sub\\_m.cp311-win_amd64.pyd") != NULL);
	CHECK(bin(run, "\\still\\_d.pyd") != NULL);
	CHECK(bin(run, "_C.cp310-win_amd64.pyd") == NULL);
	CHECK(bin(run, "\\_C.pyd") == NULL);
	CHECK(bin(run, "_old.cp39-win_amd64.pyd") == NULL);
	CHECK(bin(run, "_arm.cp311-win_arm64.pyd") == NULL);
	CHECK(bin(run, "\\pkg.pyd") == NULL);
	CHECK(bin(run, "\\_x.pyd") == NULL);
	/* step 4 before step 5, torch\_C first among the extension modules */
	CHECK(!run->bins[0].is_pyd);
	CHECK(run->bins[1].is_pyd && strstr(run->bins[1].path, "\\torch\\_C.cp311-win_amd64.pyd"));
	for (i = 0; i < run->nbins; i++)
		CHECK_INT(run->bins[i].order, (long long)i);
	torch_run_free(run);
	view_free(v);
	remove_tree();
}

static void test_python_tag_from_pyvenv_and_debug_build(void)
{
	struct view *v;
	struct torch_run *run;
	if (make_tree("venv"))
		return;
	/* no pythonXY.dll next to python.exe: pyvenv.cfg's version decides */
	put("Python311/pyvenv.cfg", NULL, "home = C:\\Python311\r\nversion = 3.12.4\r\n");
	put("Python311/Lib/site-packages/torch/_C.cp312-win_amd64.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/_C.cp311-win_amd64.pyd", "version.dll", NULL);
	run = run_tree(&v);
	CHECK(run != NULL);
	if (run) {
		CHECK_STR(run->python_tag, "cp312");
		CHECK(bin(run, "_C.cp312-win_amd64.pyd") != NULL);
		CHECK(bin(run, "_C.cp311-win_amd64.pyd") == NULL);
		torch_run_free(run);
		view_free(v);
	}
	remove_tree();

	/* no pythonXY.dll, no pyvenv.cfg: the torch wheel's tag (dist-info WHEEL) decides */
	if (make_tree("wheel"))
		return;
	put("Python311/Lib/site-packages/torch-2.5.1.dist-info/WHEEL", NULL,
	    "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.44.0)\nRoot-Is-Purelib: false\nTag: cp310-cp310-win_amd64\n");
	put("Python311/Lib/site-packages/torch/_C.cp310-win_amd64.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/_C.cp311-win_amd64.pyd", "version.dll", NULL);
	run = run_tree(&v);
	CHECK(run != NULL);
	if (run) {
		CHECK_STR(run->python_tag, "cp310");
		CHECK(bin(run, "_C.cp310-win_amd64.pyd") != NULL);
		CHECK(bin(run, "_C.cp311-win_amd64.pyd") == NULL);
		torch_run_free(run);
		view_free(v);
	}
	remove_tree();

	if (make_tree("debug"))
		return;
	put("Python311/python313t_d.dll", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/_C_d.cp313t-win_amd64.pyd", "version.dll", NULL);
	put("Python311/Lib/site-packages/torch/_C.cp313t-win_amd64.pyd", "version.dll", NULL);
	run = run_tree(&v);
	CHECK(run != NULL);
	if (run) {
		CHECK_STR(run->python_tag, "cp313t");
		CHECK_INT(run->python_debug, 1);
		CHECK(run->ext_suffixes.n == 2 && !strcmp(run->ext_suffixes.v[0], "_d.cp313t-win_amd64.pyd"));
		/* a debug interpreter imports module "_C" from "_C_d.<tag>.pyd" only */
		CHECK(bin(run, "\\_C_d.cp313t-win_amd64.pyd") != NULL);
		CHECK(bin(run, "\\_C.cp313t-win_amd64.pyd") == NULL);
		torch_run_free(run);
		view_free(v);
	}
	remove_tree();
}

/*
 * Three AddDllDirectory folders (of torch's four dll_paths) hold winmm.dll,
 * and only the middle copy is the real one: the order Windows leaves unspecified
 * decides, and neither the added order nor its reverse shows it — every
 * folder first in turn does. msacm32.dll (Wine's, importing winmm) stands
 * for a torch DLL.
 */
static void test_order_of_three_user_dirs(void)
{
	struct view *v;
	struct torch_run *run;
	const struct torch_binary *b;
	if (make_tree("order3"))
		return;
	/* torch\lib (DLL_LOAD_DIR, and the first folder added) has no winmm.dll */
	put("Python311/Lib/site-packages/torch/lib/msacm32.dll", "msacm32.dll", NULL);
	put("Python311/Library/bin/winmm.dll", "version.dll", NULL);                     /* 2nd added: not winmm */
	put("Users/me/AppData/Roaming/Python/Library/bin/winmm.dll", "winmm.dll", NULL); /* 3rd: the real one */
	put("Program Files/NVIDIA Corporation/NvToolsExt/bin/x64/winmm.dll", "version.dll", NULL); /* 4th */
	run = run_tree(&v);
	CHECK(run != NULL);
	if (!run)
		return;
	CHECK_INT(run->dll_paths.n, 4);
	b = bin(run, "\\msacm32.dll");
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(b->outcome, "order-dependent");
		CHECK_INT(b->res.order_dependent, 1);
		CHECK_INT(b->res.winerror, 127);     /* added order, and reversed: a copy without winmm's exports */
		CHECK_INT(b->res.alt_winerror, 0);   /* the userbase's folder first: the real winmm */
		CHECK(b->res.ambiguous_node && b->res.ambiguous_node->order_candidates.n == 3);
	}
	CHECK_INT(run->import_error_index, -1); /* not a certain failure */
	torch_run_free(run);
	view_free(v);
	remove_tree();
}

static void test_winerror_text(void)
{
	CHECK_STR(winerror_text(126), "The specified module could not be found.");
	CHECK_STR(winerror_text(5), "Access is denied.");
	CHECK_STR(winerror_text(127), "The specified procedure could not be found.");
	CHECK_STR(torch_stage_name(TORCH_STAGE_PATH_FALLBACK), "path_fallback");
}

int main(void)
{
	struct os_stat st;
	RUN(test_winerror_text);
	os_stat(wine_dir, &st);
	if (st.type != OS_DIR) {
		printf("ok - tests/unit/test_torchload.c: tree tests # SKIP %s missing (wine64 not installed)\n",
		       wine_dir);
		return HARNESS_EXIT();
	}
	RUN(test_glob_skips_dot_files_and_matches_folders);
	RUN(test_extension_suffixes_of_the_interpreter);
	RUN(test_python_tag_from_pyvenv_and_debug_build);
	RUN(test_order_of_three_user_dirs);
	return HARNESS_EXIT();
}
