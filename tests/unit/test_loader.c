/*
 * test_loader: the loader's process state and its robustness, on a tree
 * whose System32 is Wine's directory of real PE DLLs (694 files nobody here
 * wrote): bare-name loads through KnownDLLs and API sets, the loaded-module
 * list persisting across loads and untouched by failed ones, 87 for
 * DLL_LOAD_DIR with a bare name, 193 for another machine, and every one of
 * Wine's DLLs loaded by full path without a crash and with a Win32 code the
 * loader can return; loaders that share their images (check --profile's)
 * answer as loaders of their own.
 */
#include "harness.h"
#include "loader/loader.h"
#include "util/os.h"
#include "machine/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char wine_dir[] = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows";
static char root[256];  /* "" when Wine's PE directory is missing */
static int root_broken; /* the test root could not be made */

static int make_root(void)
{
	char *p;
	struct os_stat st;
	os_stat(wine_dir, &st);
	if (st.type != OS_DIR)
		return -1;
	snprintf(root, sizeof(root), "/tmp/tdc-test-loader-%ld", (long)getpid());
	mkdir(root, 0755);
	p = xasprintf("%s/Windows", root);
	mkdir(p, 0755);
	free(p);
	/* hard links (a copy across file systems): a symbolic link out of --root is not followed */
	p = xasprintf("mkdir '%s/Windows/System32' && { cp -l '%s'/* '%s/Windows/System32/' 2>/dev/null || "
		      "cp '%s'/* '%s/Windows/System32/'; }",
		      root, wine_dir, root, wine_dir, root);
	if (system(p)) {
		free(p);
		root_broken = 1;
		return -1;
	}
	free(p);
	return 0;
}

static void remove_root(void)
{
	char *p = xasprintf("rm -rf '%s'", root);
	if (system(p))
		fprintf(stderr, "cannot remove %s\n", root);
	free(p);
}

static struct loader *open_loader(struct view **v, uint16_t machine)
{
	struct loader *ld = NULL;
	*v = NULL;
	CHECK(!root_broken);
	if (root_broken)
		return NULL;
	if (!root[0]) {
		SKIP("%s is missing (Debian wine64 is not installed)", wine_dir);
		return NULL;
	}
	CHECK_INT(view_open_root(v, root, NULL), 0);
	if (!*v)
		return NULL;
	CHECK_INT(loader_open(&ld, *v, "C:\\Python311", machine, NULL), 0);
	return ld;
}

static void test_bare_names_and_process_state(void)
{
	struct view *v;
	struct loader *ld = open_loader(&v, PE_MACHINE_AMD64);
	struct ldr_result r;
	if (!ld)
		return;
	CHECK(!loader_apiset_is_fallback(ld));
	CHECK_STR(loader_known_dlls_source(ld), "built-in list");
	CHECK(!loader_is_loaded(ld, "kernel32.dll"));
	CHECK_INT(loader_load(ld, "KERNEL32.DLL", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	CHECK_STR(r.root->via, "KnownDLLs");
	CHECK_STR(r.root->path, "C:\\Windows\\System32\\kernel32.dll");
	ldr_result_release(&r);
	/* the modules it mapped stay loaded */
	CHECK(loader_is_loaded(ld, "kernel32.dll"));
	CHECK(loader_is_loaded(ld, "NTDLL.dll"));
	/* an API set contract by bare name: the schema, then the host */
	CHECK_INT(loader_load(ld, "api-ms-win-crt-runtime-l1-1-0.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	CHECK_STR(r.root->apiset_host, "ucrtbase.dll");
	ldr_result_release(&r);
	CHECK(loader_is_loaded(ld, "ucrtbase.dll"));
	/* loading it again finds it in the loaded-module list */
	CHECK_INT(loader_load(ld, "ucrtbase.dll", 0, &r, NULL), 0);
	CHECK_STR(r.root->via, "loaded-module list");
	CHECK(r.root->preloaded);
	ldr_result_release(&r);
	/* a failed load adds nothing */
	CHECK_INT(loader_load(ld, "C:\\Python311\\missing.dll", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 126);
	ldr_result_release(&r);
	CHECK(!loader_is_loaded(ld, "missing.dll"));
	/* DLL_LOAD_DIR needs a full path */
	CHECK_INT(loader_load(ld, "ucrtbase.dll", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 87);
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
}

static void test_wrong_machine_is_193(void)
{
	struct view *v;
	struct loader *ld = open_loader(&v, PE_MACHINE_I386);
	struct ldr_result r;
	if (!ld)
		return;
	CHECK_INT(loader_load(ld, "C:\\Windows\\System32\\ucrtbase.dll", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 193);
	CHECK_INT(r.outcome, LDR_BAD_ARCH);
	CHECK_HAS(r.root->detail, "is x64, the process is x86");
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
}

static void test_every_wine_dll_loads_or_fails_cleanly(void)
{
	struct view *v;
	struct loader *ld = open_loader(&v, PE_MACHINE_AMD64);
	struct strlist names = STRLIST_INIT;
	size_t i, n = 0, ok = 0;
	if (!ld)
		return;
	CHECK_INT(view_list_dir(v, "C:\\Windows\\System32", &names, NULL), 0);
	for (i = 0; i < names.n; i++) {
		struct ldr_result r;
		char *p;
		if (!str_iendswith(names.v[i], ".dll"))
			continue;
		p = winpath_join("C:\\Windows\\System32", names.v[i]);
		CHECK_INT(loader_load(ld, p, 0x1100, &r, NULL), 0);
		if (r.winerror != 0 && r.winerror != 126 && r.winerror != 127 && r.winerror != 182 &&
		    r.winerror != 193) {
			printf("# %s: winerror %d\n", p, r.winerror);
			harness_failed_checks++;
		}
		/* a verdict is explainable: a failure names its leaf */
		if (r.winerror && !r.leaf) {
			printf("# %s: winerror %d without a leaf\n", p, r.winerror);
			harness_failed_checks++;
		}
		ok += r.winerror == 0;
		n++;
		ldr_result_release(&r);
		free(p);
		loader_trim(ld);
	}
	printf("# %zu of Wine's %zu DLLs load in the emulation\n", ok, n);
	CHECK(n > 400);
	CHECK(ok > n / 2);
	strlist_release(&names);
	loader_free(ld);
	view_free(v);
}

static void test_names_as_windows_normalises_them(void)
{
	char *n;
#define NORM(in, want)                        \
	do {                                  \
		n = ldr_dll_name_normalize(in); \
		CHECK_STR(n, want);             \
		free(n);                        \
	} while (0)
	NORM("plaindep2.", "plaindep2");       /* trailing '.': no ".dll", then dropped */
	NORM("foo", "foo.dll");
	NORM("dep.dll  ", "dep.dll");          /* trailing spaces */
	NORM("x.dll. . ", "x.dll");
	NORM("foo ", "foo .dll");              /* no '.': ".dll" comes first */
	NORM("sub/dir/c.dll", "sub\\dir\\c.dll");
	NORM("\\\\?\\C:\\x\\y.dll.", "C:\\x\\y.dll."); /* \\?\\ skips normalisation */
#undef NORM
}

static void test_paths_folders_and_path_entries(void)
{
	struct view *v;
	struct loader *ld;
	struct ldr_result r;
	size_t i;
	int quoted = 0, relative = 0;
	char *folder = xasprintf("%s/folder.dll", root);
	/* made before the view is opened: a view lists each folder once (view.h) */
	if (root[0] && !root_broken)
		CHECK_INT(mkdir(folder, 0755), 0);
	ld = open_loader(&v, PE_MACHINE_AMD64);
	if (!ld) {
		free(folder);
		return;
	}
	CHECK_INT(loader_load(ld, "C:/Windows/System32/version.dll", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	ldr_result_release(&r);
	CHECK_INT(loader_load(ld, "\\\\?\\C:\\Windows\\System32\\winmm.dll", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	ldr_result_release(&r);
	CHECK_INT(loader_load(ld, "C:\\Windows\\System32\\msimg32.dll. ", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	ldr_result_release(&r);
	/* a folder where a DLL is expected: STATUS_FILE_IS_A_DIRECTORY, WinError 5 ("C:\\Windows" would
	   be "C:\\Windows.dll": a name without an extension gets one, with a path too) */
	CHECK_INT(loader_load(ld, "C:\\Windows", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 126);
	ldr_result_release(&r);
	CHECK_INT(loader_load(ld, "C:\\folder.dll", 0x1100, &r, NULL), 0);
	CHECK_INT(r.winerror, 5);
	CHECK_INT(r.outcome, LDR_NOT_A_FILE);
	CHECK_STR(ldr_outcome_name(r.outcome), "not-a-file");
	ldr_result_release(&r);
	/* PATH taken literally: a quoted entry names no folder, a relative one is not searched */
	view_setenv(v, "PATH", "\"C:\\Windows\\System32\";relative\\dir;;C:\\Nowhere");
	CHECK_INT(loader_load(ld, "tdc_absent_anywhere.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 126);
	for (i = 0; r.root && i < r.root->nprobes; i++) {
		const struct ldr_probe *p = &r.root->probes[i];
		if (strcmp(p->step, "PATH"))
			continue;
		quoted += strstr(p->path, "\"C:\\Windows\\System32\"") && strstr(p->result, "quoted") != NULL;
		relative += strstr(p->result, "not searched: a relative PATH entry") != NULL;
	}
	CHECK_INT(quoted, 1);
	CHECK_INT(relative, 1);
	ldr_result_release(&r);
	/* every probe says why its place was searched; a caller's PATH prefix is labelled as the caller
	   says and the machine's entries keep their numbers; places that cannot matter are minor */
	view_setenv(v, "PATH", "C:\\Prefix;C:\\Nowhere;;C:\\Elsewhere");
	loader_label_path_prefix(ld, 1, "added by the test");
	CHECK_INT(loader_load(ld, "tdc_absent_anywhere.dll", 0, &r, NULL), 0);
	{
		static const char *const want[][3] = {
			{ "System32", "System32", "0" },
			{ "16-bit system dir", "the 16-bit system folder", "1" },
			{ "Windows dir", "the Windows folder", "0" },
			{ "current dir", "the current folder", "1" },
			{ "PATH", "added by the test", "0" },
			{ "PATH", "PATH entry 1", "0" },
			{ "PATH", "PATH entry 3", "0" },
		};
		size_t k = 0;
		for (i = 0; r.root && i < r.root->nprobes; i++) {
			const struct ldr_probe *p = &r.root->probes[i];
			if (!strcmp(p->step, "application dir"))
				continue;
			if (k < sizeof(want) / sizeof(want[0])) {
				CHECK_STR(p->step, want[k][0]);
				CHECK_STR(p->why, want[k][1]);
				CHECK_INT(p->minor, want[k][2][0] - '0');
			}
			k++;
		}
		CHECK_INT((long)k, (long)(sizeof(want) / sizeof(want[0])));
	}
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
	rmdir(folder);
	free(folder);
}

/*
 * A PATH entry is joined with the name and then normalised whole
 * (docs/loader.md §5.1): only the path's last component, the file name,
 * loses trailing spaces, so PATH `C:\\x\\sdir ` is a folder `sdir ` and the DLL
 * in `C:\\x\\sdir` is not found (126), while a single trailing period of the
 * folder goes (`C:\\x\\sdir.` finds it). AddDllDirectory normalises the
 * folder alone: there the space goes.
 */
/*
 * SetDllDirectoryW (a frozen app's launcher): its folder is searched right
 * after the application folder in the standard order (the current folder no
 * longer is) and as a USER_DIRS folder with the flags. SetDefaultDllDirectories:
 * a load with no search flag searches the default folders instead (PATH no
 * longer). Microsoft, "Dynamic-link library search order", LoadLibraryExW,
 * SetDefaultDllDirectories.
 */
static void test_dll_directory_and_default_dirs(void)
{
	struct view *v;
	struct loader *ld;
	struct ldr_result r;
	size_t i;
	int seen = 0;
	char *cmd = xasprintf("mkdir -p '%s/App/_internal' '%s/Tools' && cp '%s/msimg32.dll' '%s/App/_internal/tdc_dd.dll'"
			      " && cp '%s/msimg32.dll' '%s/Tools/tdc_pathonly.dll'",
			      root, root, wine_dir, root, wine_dir, root);
	if (root[0] && !root_broken)
		CHECK_INT(system(cmd), 0);
	free(cmd);
	ld = open_loader(&v, PE_MACHINE_AMD64);
	if (!ld)
		return;
	CHECK_INT(loader_load(ld, "tdc_dd.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 126);
	ldr_result_release(&r);
	loader_set_dll_directory(ld, "C:\\App\\_internal", "the app's top-level folder (test)");
	CHECK_INT(loader_load(ld, "tdc_dd.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	CHECK_STR(r.root->path, "C:\\App\\_internal\\tdc_dd.dll");
	for (i = 0; i < r.root->nprobes; i++) {
		seen |= !strcmp(r.root->probes[i].step, "DLL directory") &&
			!strcmp(r.root->probes[i].why, "the app's top-level folder (test)");
		CHECK(strcmp(r.root->probes[i].step, "current dir") != 0);
	}
	CHECK(seen);
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
	/* the same folder through the flags: USER_DIRS */
	ld = open_loader(&v, PE_MACHINE_AMD64);
	if (!ld)
		return;
	loader_set_dll_directory(ld, "C:\\App\\_internal", "the app's top-level folder (test)");
	CHECK_INT(loader_load(ld, "tdc_dd.dll", LDR_SEARCH_DEFAULT_DIRS, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
	/* SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_DEFAULT_DIRS): PATH is no longer searched by LoadLibraryW */
	ld = open_loader(&v, PE_MACHINE_AMD64);
	if (!ld)
		return;
	view_setenv(v, "PATH", "C:\\Tools");
	CHECK_INT(loader_load(ld, "tdc_pathonly.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	ldr_result_release(&r);
	loader_free(ld);
	ld = NULL;
	CHECK_INT(loader_open(&ld, v, "C:\\Python311", PE_MACHINE_AMD64, NULL), 0);
	loader_set_default_dll_directories(ld, LDR_SEARCH_DEFAULT_DIRS);
	CHECK_INT(loader_load(ld, "tdc_pathonly.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 126);
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
}

static void test_path_entry_trailing_space(void)
{
	struct view *v;
	struct loader *ld;
	struct ldr_result r;
	char *cmd = xasprintf("mkdir -p '%s/x/sdir' && cp '%s/msimg32.dll' '%s/x/sdir/tdc_sdir.dll'", root, wine_dir,
			      root);
	if (root[0] && !root_broken)
		CHECK_INT(system(cmd), 0);
	free(cmd);
	ld = open_loader(&v, PE_MACHINE_AMD64);
	if (!ld)
		return;
	view_setenv(v, "PATH", "C:\\x\\sdir ");
	CHECK_INT(loader_load(ld, "tdc_sdir.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 126);
	ldr_result_release(&r);
	view_setenv(v, "PATH", "C:\\x\\sdir.");
	CHECK_INT(loader_load(ld, "tdc_sdir.dll", 0, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	CHECK_STR(r.root->path, "C:\\x\\sdir\\tdc_sdir.dll");
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
	ld = open_loader(&v, PE_MACHINE_AMD64);
	if (!ld)
		return;
	loader_add_dll_directory(ld, "C:\\x\\sdir ");
	CHECK_INT(loader_load(ld, "tdc_sdir.dll", LDR_SEARCH_DEFAULT_DIRS, &r, NULL), 0);
	CHECK_INT(r.winerror, 0);
	ldr_result_release(&r);
	loader_free(ld);
	view_free(v);
	{
		char *f = ldr_path_entry_folder("C:\\x\\sdir ");
		CHECK_STR(f, "C:\\x\\sdir ");
		free(f);
		f = ldr_path_entry_folder("C:\\Tools\\omp.");
		CHECK_STR(f, "C:\\Tools\\omp");
		free(f);
		f = ldr_path_entry_folder("C:\\Tools\\omp .");
		CHECK_STR(f, "C:\\Tools\\omp ");
		free(f);
		f = ldr_win32_folder("C:\\x\\sdir "); /* AddDllDirectory normalises the folder itself */
		CHECK_STR(f, "C:\\x\\sdir");
		free(f);
	}
}

/* Everything a load answers, as text: the verdict and the whole tree with every probe. */
static void dump_node(struct strbuf *sb, const struct ldr_node *n, int depth)
{
	size_t i;
	strbuf_addf(sb, "%*s%s|%s|%s|%s|%d|%s|%s|%d%d%d%d%d|", depth, "", n->name, n->path ? n->path : "-",
		    n->via ? n->via : "-", n->apiset_host ? n->apiset_host : "-", (int)n->outcome,
		    n->detail ? n->detail : "-", n->version ? n->version : "-", n->delay, n->forwarder, n->dup,
		    n->preloaded, n->assumed);
	for (i = 0; i < n->missing.n; i++)
		strbuf_addf(sb, " missing %s", n->missing.v[i]);
	for (i = 0; i < n->shadowed.n; i++)
		strbuf_addf(sb, " shadowed %s", n->shadowed.v[i]);
	for (i = 0; i < n->order_candidates.n; i++)
		strbuf_addf(sb, " order %s", n->order_candidates.v[i]);
	strbuf_addch(sb, '\n');
	for (i = 0; i < n->nprobes; i++)
		strbuf_addf(sb, "%*s  probe %s|%s|%s|%d|%s\n", depth, "", n->probes[i].path, n->probes[i].step,
			    n->probes[i].why, n->probes[i].minor, n->probes[i].result);
	for (i = 0; i < n->nkids; i++)
		dump_node(sb, n->kids[i], depth + 1);
}

static char *dump_result(const struct ldr_result *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	strbuf_addf(&sb, "winerror %d outcome %d leaf %s symbol %s\n", r->winerror, (int)r->outcome,
		    r->leaf ? r->leaf->name : "-", r->symbol ? r->symbol : "-");
	for (i = 0; i < r->nwarnings; i++)
		strbuf_addf(&sb, "warning %s %s\n", r->warnings[i].node->name,
			    r->warnings[i].symbol ? r->warnings[i].symbol : "-");
	if (r->root)
		dump_node(&sb, r->root, 0);
	return strbuf_detach(&sb);
}

/*
 * check --profile's loaders share their images (loader_open_shared): what one
 * loader parsed and bound, the next takes as it is. Each round is one process
 * loading a slice of Wine's DLLs (kernel32's hundreds of forwarders to
 * kernelbase and ntdll among them) and an application folder whose
 * dbghelp.dll is another DLL renamed (its importers miss entries: 127), with
 * System32 as a machine profile shows it (some DLLs hidden, then back); a
 * loader of the shared store must answer every load, tree and probe exactly
 * as a loader of its own.
 */
static void test_shared_images_answer_as_a_loader_of_its_own(void)
{
	static const char *const named[] = {
		"kernel32.dll", "user32.dll", "shell32.dll", "ole32.dll", "imagehlp.dll", "fusion.dll",
		"mscoree.dll", "msvcp140.dll", "ws2_32.dll", "advapi32.dll",
	};
	static const char *const hide[][3] = {
		{ NULL }, { "kernelbase.dll", "msvcp140.dll", NULL }, { NULL }, { "ucrtbase.dll", "imagehlp.dll", NULL },
	};
	struct view *v;
	struct loader *probe;
	struct ldr_images *store;
	struct strlist names = STRLIST_INIT, all = STRLIST_INIT;
	size_t i, k, round, n127 = 0, nfail = 0;
	if (root[0] && !root_broken) { /* before the view lists C:\ */
		char *cmd = xasprintf("mkdir -p '%s/App' && cp '%s/version.dll' '%s/App/dbghelp.dll'", root, wine_dir, root);
		CHECK_INT(system(cmd), 0);
		free(cmd);
	}
	if (!(probe = open_loader(&v, PE_MACHINE_AMD64)))
		return;
	loader_free(probe);
	CHECK_INT(view_list_dir(v, "C:\\Windows\\System32", &all, NULL), 0);
	for (i = 0; i < all.n; i += 5) /* LoadLibraryExW(path, 0): the application folder's dbghelp.dll first */
		if (str_iendswith(all.v[i], ".dll") && str_icmp(all.v[i], "dbghelp.dll"))
			strlist_push(&names, all.v[i]);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		strlist_push(&names, named[i]);
	store = loader_images_new();
	for (round = 0; round < sizeof(hide) / sizeof(hide[0]); round++) {
		struct strlist hidden = STRLIST_INIT;
		struct loader *own = NULL, *shared = NULL;
		for (k = 0; hide[round][k]; k++)
			strlist_push(&hidden, hide[round][k]);
		view_hide_system32(v, hidden.n ? &hidden : NULL);
		CHECK_INT(loader_open(&own, v, "C:\\App", PE_MACHINE_AMD64, NULL), 0);
		CHECK_INT(loader_open_shared(&shared, v, "C:\\App", PE_MACHINE_AMD64, store, NULL), 0);
		for (i = 0; i < names.n; i++) {
			struct ldr_result a, b;
			char *p = winpath_join("C:\\Windows\\System32", names.v[i]), *da, *db;
			CHECK_INT(loader_load(own, p, 0, &a, NULL), 0);
			CHECK_INT(loader_load(shared, p, 0, &b, NULL), 0);
			da = dump_result(&a);
			db = dump_result(&b);
			if (strcmp(da, db)) {
				size_t at = 0;
				while (da[at] == db[at])
					at++;
				printf("# round %zu, %s: the shared loader answers otherwise from byte %zu:\n# %.200s\n# %.200s\n",
				       round, p, at, da + at, db + at);
				harness_failed_checks++;
			}
			n127 += a.winerror == 127;
			nfail += a.winerror != 0;
			free(da);
			free(db);
			ldr_result_release(&a);
			ldr_result_release(&b);
			free(p);
		}
		CHECK_STR(loader_apiset_source(shared), loader_apiset_source(own));
		CHECK_INT((int)loader_nmodules(shared), (int)loader_nmodules(own));
		loader_free(own);
		loader_free(shared);
		strlist_release(&hidden);
	}
	view_hide_system32(v, NULL);
	printf("# %zu loads a round, %zu failed in all (%zu with 127)\n", names.n, nfail, n127);
	CHECK(names.n > 100);
	CHECK(n127 > 0); /* the renamed dbghelp.dll: missing entries bound again from the store */
	CHECK(nfail > n127); /* the hidden DLLs: 126 */
	loader_images_free(store);
	strlist_release(&names);
	strlist_release(&all);
	view_free(v);
}

int main(void)
{
	int have_root = make_root() == 0;
	RUN(test_names_as_windows_normalises_them);
	RUN(test_paths_folders_and_path_entries);
	RUN(test_path_entry_trailing_space);
	RUN(test_dll_directory_and_default_dirs);
	RUN(test_bare_names_and_process_state);
	RUN(test_wrong_machine_is_193);
	RUN(test_every_wine_dll_loads_or_fails_cleanly);
	RUN(test_shared_images_answer_as_a_loader_of_its_own);
	if (have_root)
		remove_root();
	return HARNESS_EXIT();
}
