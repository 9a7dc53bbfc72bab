/*
 * test_loader_rules: the loader's findings about one torch install
 * (judge/loader_rules.c), from the emulated run of a small tree of real PE
 * files (Wine's builtin DLLs copied under torch's names, as
 * tests/unit/test_torchload.c lays them out; nothing runs under Wine): a
 * torch DLL whose import is missing (missing-dll, with the chain, the
 * probes, and the fix), a folder named like a DLL (not-a-file), a file that
 * is not a PE (unreadable), and a healthy tree without a finding.
 */
#include "harness.h"
#include "judge/loader_rules.h"
#include "util/os.h"
#include "machine/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char wine_dir[] = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows";
static char root[256];

/* `verb 'path'` through the shell (rm -rf, mkdir -p). */
static int run_cmd(const char *verb, const char *path)
{
	char *cmd = xasprintf("%s '%s'", verb, path);
	int r = system(cmd);
	free(cmd);
	return r;
}

/* A file of the tree (host path under root), its folders created; `from` a Wine DLL or NULL (text `text`). */
static void put(const char *rel, const char *from, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *d = xstrdup(p), *slash = strrchr(d, '/');
	char *cmd;
	*slash = '\0';
	cmd = xasprintf("mkdir -p '%s'", d);
	CHECK_INT(system(cmd), 0);
	free(cmd);
	if (from) {
		cmd = xasprintf("cp '%s/%s' '%s'", wine_dir, from, p);
		CHECK_INT(system(cmd), 0);
		free(cmd);
	} else {
		FILE *f = fopen(p, "wb");
		CHECK(f != NULL);
		if (f) {
			fputs(text, f);
			fclose(f);
		}
	}
	free(d);
	free(p);
}

/* A fresh tree: System32 = Wine's DLLs, python.exe, torch with version.py and lib\. */
static int make_tree(const char *name)
{
	char *p;
	struct os_stat st;
	os_stat(wine_dir, &st);
	if (st.type != OS_DIR)
		return -1;
	snprintf(root, sizeof(root), "/tmp/tdc-test-loader-rules-%ld-%s", (long)getpid(), name);
	run_cmd("rm -rf", root);
	p = xasprintf("%s/Windows", root);
	CHECK_INT(run_cmd("mkdir -p", p), 0);
	free(p);
	/* hard links (a copy across file systems): a symbolic link out of --root is not followed */
	p = xasprintf("%s/Windows/System32", root);
	CHECK_INT(run_cmd("mkdir", p), 0);
	free(p);
	p = xasprintf("cp -l '%s'/* '%s/Windows/System32/' 2>/dev/null || cp '%s'/* '%s/Windows/System32/'", wine_dir,
		      root, wine_dir, root);
	CHECK_INT(system(p), 0);
	free(p);
	put("Python311/python.exe", "notepad.exe", NULL);
	put("Python311/Lib/site-packages/torch/__init__.py", NULL, "");
	put("Python311/Lib/site-packages/torch/version.py", NULL, "__version__ = '2.5.1+cpu'\n");
	put("Python311/Lib/site-packages/torch/lib/asmjit.dll", "version.dll", NULL);
	return 0;
}

static void remove_tree(void)
{
	run_cmd("rm -rf", root);
}

static struct torch_run *run_tree(struct view **v)
{
	struct torch_inputs in = { 0 };
	struct torch_run *run = NULL;
	struct err e;
	err_clear(&e);
	*v = NULL;
	if (view_open_root(v, root, &e)) {
		printf("# view: %s\n", e.msg);
		return NULL;
	}
	view_setenv(*v, "PATH", "C:\\Windows\\System32");
	view_setenv(*v, "APPDATA", "C:\\Users\\me\\AppData\\Roaming");
	in.torch_dir = "C:\\Python311\\Lib\\site-packages\\torch";
	in.python_exe = "C:\\Python311\\python.exe";
	if (torch_run(&run, *v, &in, &e)) {
		printf("# torch_run: %s\n", e.msg);
		return NULL;
	}
	return run;
}

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
