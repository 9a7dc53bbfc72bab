/*
 * test_loader_rules: the loader's findings about one torch install
 * (judge/loader_rules.c), from the emulated run of a small tree of real PE
 * files (wine_tree.h: Wine's builtin DLLs under torch's names; nothing runs
 * under Wine): a torch DLL whose import is missing (missing-dll, with the
 * chain, the probes and the fix), an import the DLL found does not export
 * (missing-entry-point), a folder named like a DLL (not-a-file), a file that
 * is not a PE (unreadable), and a healthy tree without a finding.
 */
#include "harness.h"
#include "judge/loader_rules.h"
#define WINE_TREE_NAME "loader-rules"
#include "wine_tree.h"

/* The findings of the tree, as "rule severity winerror leaf | title" lines. */
static char *judge(struct findings *fs)
{
	struct view *v;
	struct torch_run *run = run_tree(&v);
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	CHECK(run != NULL);
	if (!run)
		return xstrdup("(no run)");
	loader_rules(fs, run);
	for (i = 0; i < fs->n; i++)
		strbuf_addf(&sb, "%s %s %d %s | %s\n", rule_get(fs->v[i].rule)->id, severity_name(fs->v[i].severity),
			    fs->v[i].winerror, fs->v[i].leaf ? fs->v[i].leaf : "-", fs->v[i].title);
	torch_run_free(run);
	view_free(v);
	return strbuf_detach(&sb);
}

/* Host path of a file of the tree. */
static char *host(const char *rel)
{
	return xasprintf("%s/%s", root, rel);
}

static void test_healthy_tree_has_no_finding(void)
{
	struct findings fs = FINDINGS_INIT;
	char *s;
	if (make_tree("healthy")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put("Python311/Lib/site-packages/torch/lib/c10.dll", "winmm.dll", NULL);
	s = judge(&fs);
	CHECK_STR(s, "");
	free(s);
	findings_release(&fs);
	remove_tree();
}

static void test_missing_dll(void)
{
	struct findings fs = FINDINGS_INIT;
	char *s, *p;
	if (make_tree("missing")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put("Python311/Lib/site-packages/torch/lib/c10.dll", "winmm.dll", NULL); /* winmm imports msacm32.dll */
	p = host("Windows/System32/msacm32.dll");
	CHECK_INT(unlink(p), 0);
	free(p);
	s = judge(&fs);
	CHECK_STR(s, "missing-dll error 126 msacm32.dll | c10.dll cannot load: msacm32.dll is missing\n");
	free(s);
	if (fs.n == 1) {
		const struct finding *f = &fs.v[0];
		CHECK_STR(f->binary, "C:\\Python311\\Lib\\site-packages\\torch\\lib\\c10.dll");
		CHECK_INT(f->chain.n, 2);
		if (f->chain.n == 2) {
			CHECK_STR(f->chain.v[0], "c10.dll");
			CHECK_STR(f->chain.v[1], "msacm32.dll");
		}
		CHECK(f->nprobes > 1); /* every place searched, each with its result */
		CHECK_HAS(f->message, "WinError 126: msacm32.dll (chain c10.dll -> msacm32.dll) is found nowhere on the "
				      "search path");
		CHECK_STR(f->fix, "put msacm32.dll where the loader looks (torch\\lib, python.exe's folder or a torch "
				  "dll_paths folder), or install the package that ships it");
	}
	findings_release(&fs);
	remove_tree();
}

static void test_missing_entry_point(void)
{
	struct findings fs = FINDINGS_INIT;
	char *s, *p, *cmd;
	if (make_tree("entry")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put("Python311/Lib/site-packages/torch/lib/c10.dll", "winmm.dll", NULL);
	/* an msacm32.dll that is another DLL: it exports none of what winmm.dll imports from it */
	p = host("Windows/System32/msacm32.dll");
	CHECK_INT(unlink(p), 0);
	cmd = xasprintf("cp '%s/version.dll' '%s'", wine_dir, p);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	free(p);
	s = judge(&fs);
	CHECK_HAS(s, "missing-entry-point error 127 msacm32.dll | c10.dll cannot load: ");
	free(s);
	CHECK_INT(fs.n, 1);
	if (fs.n == 1) {
		CHECK(fs.v[0].symbol && !strncmp(fs.v[0].symbol, "acm", 3)); /* one of msacm32's acm* functions */
		CHECK_STR(fs.v[0].path, "C:\\Windows\\System32\\msacm32.dll");
	}
	findings_release(&fs);
	remove_tree();
}

static void test_folder_and_text_file(void)
{
	struct findings fs = FINDINGS_INIT;
	char *s;
	if (make_tree("bad")) {
		SKIP("no Wine DLLs at %s (apt-get install wine64)", wine_dir);
		return;
	}
	put("Python311/Lib/site-packages/torch/lib/folder.dll/inside.txt", NULL, "a folder named *.dll");
	put("Python311/Lib/site-packages/torch/lib/text.dll", NULL, "not a PE");
	s = judge(&fs);
	CHECK_STR(s, "not-a-file error 5 folder.dll | folder.dll is a folder, not a DLL\n"
		     "unreadable error 193 text.dll | text.dll cannot load: text.dll is not a loadable PE file\n");
	free(s);
	if (fs.n == 2) {
		CHECK_STR(fs.v[0].fix, "remove or rename the folder C:\\Python311\\Lib\\site-packages\\torch\\lib\\folder.dll");
		CHECK_HAS(fs.v[1].fix, "reinstall the package that ships text.dll");
	}
	findings_release(&fs);
	remove_tree();
}

static void test_leaf_label(void)
{
	struct ldr_node root_node, child;
	memset(&root_node, 0, sizeof(root_node));
	memset(&child, 0, sizeof(child));
	root_node.name = "C:\\t\\lib\\c10.dll";
	child.name = "MSVCP140.dll";
	child.parent = &root_node;
	CHECK_STR(loader_leaf_label(&child), "MSVCP140.dll"); /* as imported */
	CHECK_STR(loader_leaf_label(&root_node), "c10.dll");  /* the torch binary's file name */
}

int main(void)
{
	RUN(test_healthy_tree_has_no_finding);
	RUN(test_missing_dll);
	RUN(test_missing_entry_point);
	RUN(test_folder_and_text_file);
	RUN(test_leaf_label);
	return HARNESS_EXIT();
}
