/*
 * wine_tree: a small Windows tree of real PE files for the unit tests that
 * run the emulated loader (test_torchload, test_loader_rules,
 * test_copy_exports): System32 holds Wine's builtin DLLs (hard links, or
 * copies across file systems; nothing runs under Wine), python.exe and a torch
 * with version.py and lib\asmjit.dll; put() adds a file, run_tree() runs
 * torch's procedure on it. Define WINE_TREE_NAME (the test's name, for the
 * folder under /tmp) before including it.
 */
#ifndef TDC_WINE_TREE_H
#define TDC_WINE_TREE_H

#include "util/os.h"
#include "loader/torchload.h"
#include "machine/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char wine_dir[] = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows";
static char root[256];

/* `verb 'path'` through the shell (rm -rf, mkdir -p). */
static inline int run_cmd(const char *verb, const char *path)
{
	char *cmd = xasprintf("%s '%s'", verb, path);
	int r = system(cmd);
	free(cmd);
	return r;
}

/* A file of the tree (host path under root), its folders created; `from` a Wine DLL or NULL (text `text`). */
static inline void put(const char *rel, const char *from, const char *text)
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
static inline int make_tree(const char *name)
{
	char *p;
	struct os_stat st;
	os_stat(wine_dir, &st);
	if (st.type != OS_DIR)
		return -1;
	snprintf(root, sizeof(root), "/tmp/tdc-test-" WINE_TREE_NAME "-%ld-%s", (long)getpid(), name);
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

static inline void remove_tree(void)
{
	run_cmd("rm -rf", root);
}

static inline struct torch_run *run_tree(struct view **v)
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

#endif
