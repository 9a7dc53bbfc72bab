/*
 * test_view: the offline Windows view over a real temporary directory:
 * case-insensitive resolution, NTFS listing order, path mapping both ways,
 * environment, and the Windows path helpers.
 */
#include "harness.h"
#include "util/os.h"
#include "util/strbuf.h"
#include "machine/view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void touch(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
	free(p);
}

static void mkd(const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);
	mkdir(p, 0755);
	free(p);
}

static void make_tree(void)
{
	char *d;
	snprintf(root, sizeof(root), "/tmp/tdc-test-view-%ld", (long)getpid());
	d = xasprintf("rm -rf %s", root);
	if (system(d)) {
	}
	free(d);
	mkdir(root, 0755);
	mkd("Windows");
	mkd("Windows/System32");
	touch("Windows/System32/VCRUNTIME140.dll");
	touch("Windows/System32/kernel32.dll");
	mkd("Python311");
	mkd("Python311/Lib");
	mkd("Python311/Lib/site-packages");
	mkd("Python311/Lib/site-packages/torch");
	mkd("Python311/Lib/site-packages/torch/lib");
	touch("Python311/Lib/site-packages/torch/lib/torch_cpu.dll");
	touch("Python311/Lib/site-packages/torch/lib/torch.dll");
	touch("Python311/Lib/site-packages/torch/lib/_C_helper.dll");
	touch("Python311/Lib/site-packages/torch/lib/a.dll");
	touch("Python311/Lib/site-packages/torch/lib/B.dll");
	touch("Python311/Lib/site-packages/torch/lib/zlib.dll");
	mkd("Users");
	mkd("Users/J\xc3\xb6rg"); /* Jörg */
	touch("Users/J\xc3\xb6rg/x.dll");
}

static void remove_tree(void)
{
	char *d = xasprintf("rm -rf %s", root);
	if (system(d)) {
	}
	free(d);
}

static void test_case_insensitive_lookup(void)
{
	struct view *v = NULL;
	char *p = NULL, *h;
	CHECK_INT(view_open_root(&v, root, NULL), 0);
	if (!v)
		return;
	CHECK_INT(view_find_file(v, "c:\\WINDOWS\\system32", "vcruntime140.DLL", &p), 1);
	CHECK_STR(p, "C:\\WINDOWS\\system32\\VCRUNTIME140.dll");
	free(p);
	p = NULL;
	CHECK_INT(view_find_file(v, "C:\\Windows\\System32", "msvcp140.dll", &p), 0);
	CHECK_INT(view_find_file(v, "C:\\Nope\\System32", "kernel32.dll", &p), 0);
	/* a directory is not a file */
	CHECK_INT(view_find_file(v, "C:\\Windows", "system32", &p), 0);
	h = view_host_path(v, "C:/windows/SYSTEM32/Kernel32.DLL");
	{
		char *want = xasprintf("%s/Windows/System32/kernel32.dll", root);
		CHECK_STR(h, want);
		free(want);
	}
	free(h);
	/* a missing tail is appended as given */
	h = view_host_path(v, "C:\\windows\\NewDir\\x.dll");
	{
		char *want = xasprintf("%s/Windows/NewDir/x.dll", root);
		CHECK_STR(h, want);
		free(want);
	}
	free(h);
	CHECK(view_host_path(v, "D:\\x.dll") == NULL);
	CHECK(view_is_dir(v, "C:\\PYTHON311\\lib\\SITE-PACKAGES\\torch"));
	CHECK(view_is_file(v, "C:\\users\\J\xc3\x96RG\\X.DLL")); /* Ö upcases ö */
	CHECK(!view_is_file(v, "C:\\Windows"));
	view_free(v);
}

static void test_ntfs_order(void)
{
	struct view *v = NULL;
	struct strlist l = STRLIST_INIT;
	CHECK_INT(view_open_root(&v, root, NULL), 0);
	if (!v)
		return;
	CHECK_INT(view_list_dir(v, "C:\\Python311\\Lib\\site-packages\\torch\\lib", &l, NULL), 0);
	CHECK_INT(l.n, 6);
	if (l.n == 6) {
		/* upcased: A.DLL < B.DLL < TORCH.DLL < TORCH_CPU.DLL < ZLIB.DLL < _C_HELPER.DLL ('_' is 0x5F) */
		CHECK_STR(l.v[0], "a.dll");
		CHECK_STR(l.v[1], "B.dll");
		CHECK_STR(l.v[2], "torch.dll");
		CHECK_STR(l.v[3], "torch_cpu.dll");
		CHECK_STR(l.v[4], "zlib.dll");
		CHECK_STR(l.v[5], "_C_helper.dll");
	}
	CHECK(winpath_ntfs_cmp("abc", "ABC") == 0);
	CHECK(winpath_ntfs_cmp("a", "ab") < 0);
	CHECK(winpath_ntfs_cmp("z.dll", "_.dll") < 0);
	CHECK(winpath_ntfs_cmp("\xc3\xa9", "\xc3\x89") == 0); /* é == É */
	/* an ASCII run compared byte by byte, then the code units after it */
	CHECK(winpath_ntfs_cmp("ab\xc3\xa9x", "AB\xc3\x89X") == 0);
	CHECK(winpath_ntfs_cmp("ab", "ab\xc3\xa9") < 0 && winpath_ntfs_cmp("ab\xc3\xa9", "AB") > 0);
	CHECK(winpath_ntfs_cmp("abz", "ab\xc3\xa9") < 0 && winpath_ntfs_cmp("ab\xc3\xa9", "abZ") > 0);
	CHECK(winpath_ntfs_cmp("ab_", "abc") > 0 && winpath_ntfs_cmp("pkg042-1.0.dist-info", "PKG042") > 0);
	CHECK(winpath_ntfs_cmp("", "") == 0 && winpath_ntfs_cmp("", "a") < 0 && winpath_ntfs_cmp("\xc3\xa9", "") > 0);
	strlist_release(&l);
	CHECK_INT(view_list_dir(v, "C:\\missing", &l, NULL), -1);
	view_free(v);
}

static void test_win_path_mapping(void)
{
	struct view *v = NULL;
	char *host, *w;
	CHECK_INT(view_open_root(&v, root, NULL), 0);
	if (!v)
		return;
	host = xasprintf("%s/Python311/Lib", root);
	w = view_win_path(v, host);
	CHECK_STR(w, "C:\\Python311\\Lib");
	free(w);
	w = view_win_path(v, root);
	CHECK_STR(w, "C:\\");
	free(w);
	CHECK(view_win_path(v, "/etc/passwd") == NULL);
	free(host);
	host = xasprintf("%sX/y", root); /* a sibling whose name starts like the root */
	CHECK(view_win_path(v, host) == NULL);
	free(host);
	view_free(v);
}

static void test_env(void)
{
	struct view *v = NULL;
	CHECK_INT(view_open_root(&v, root, NULL), 0);
	if (!v)
		return;
	CHECK(view_getenv(v, "PATH") == NULL); /* nothing inherited from the host */
	view_setenv(v, "Path", "C:\\a;C:\\b");
	CHECK_STR(view_getenv(v, "PATH"), "C:\\a;C:\\b");
	CHECK_INT(view_setenv_assignment(v, "CUDA_PATH_V12_1=C:\\cuda"), 0);
	CHECK_STR(view_getenv(v, "cuda_path_v12_1"), "C:\\cuda");
	CHECK_INT(view_setenv_assignment(v, "novalue"), -1);
	CHECK_INT(view_setenv_assignment(v, "=x"), -1);
	CHECK(!view_has_registry(v));
	CHECK_STR(view_registry_source(v), "none");
	view_free(v);
}

static void test_path_helpers(void)
{
	char *s;
	s = winpath_normalize("c:/a//b\\\\c\\");
	CHECK_STR(s, "C:\\a\\b\\c");
	free(s);
	s = winpath_normalize("C:");
	CHECK_STR(s, "C:\\");
	free(s);
	s = winpath_normalize("\\\\server\\share\\x");
	CHECK_STR(s, "\\\\server\\share\\x");
	free(s);
	s = winpath_dirname("C:\\a\\b.dll");
	CHECK_STR(s, "C:\\a");
	free(s);
	s = winpath_dirname("C:\\b.dll");
	CHECK_STR(s, "C:\\");
	free(s);
	CHECK_STR(winpath_basename("C:\\a\\b.dll"), "b.dll");
	CHECK_STR(winpath_basename("b.dll"), "b.dll");
	s = winpath_join("C:\\", "x");
	CHECK_STR(s, "C:\\x");
	free(s);
	s = winpath_join("C:\\a", "x");
	CHECK_STR(s, "C:\\a\\x");
	free(s);
	CHECK(winpath_is_absolute("C:\\x"));
	CHECK(winpath_is_absolute("\\\\s\\x"));
	CHECK(!winpath_is_absolute("x.dll"));
	CHECK(!winpath_is_absolute("C:x.dll"));
}

/* ln -s TARGET ROOT/REL */
static void lnk(const char *base, const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", base, rel);
	CHECK_INT(symlink(target, p), 0);
	free(p);
}

/*
 * --root is a boundary: links are followed only to places inside the root
 * (relative with "..", absolute, or through a root that is itself a link);
 * one that leads out is neither file nor folder, gives no host path, nothing
 * behind it is listed, and it is recorded with where it leads.
 */
static void test_links_stop_at_root(void)
{
	char *in = xasprintf("%s-links", root), *out = xasprintf("%s-out", root), *via = xasprintf("%s-via", root);
	char *cmd = xasprintf("rm -rf '%s' '%s' '%s' && mkdir -p '%s/lib' '%s/stash/d' '%s/dir' && touch "
			      "'%s/stash/real.dll' '%s/stash/d/y.dll' '%s/evil.dll' '%s/dir/x.dll'",
			      in, out, via, in, in, out, in, in, out, out);
	char *abs_in = xasprintf("%s/stash/real.dll", in), *evil = xasprintf("%s/evil.dll", out);
	char *outdir = xasprintf("%s/dir", out), *climb = xasprintf("../../%s/evil.dll", strrchr(out, '/') + 1);
	char *back = xasprintf("../../%s/stash/real.dll", strrchr(in, '/') + 1), *ghost = xasprintf("%s/none.dll", out);
	char *via_abs = xasprintf("%s/stash/real.dll", via);
	struct view *v = NULL;
	struct strlist names = STRLIST_INIT;
	const char *t = NULL, *w = NULL;
	char *h, *found = NULL;
	CHECK_INT(system(cmd), 0);
	lnk(in, evil, "lib/out.dll");
	lnk(in, climb, "lib/climb.dll");
	lnk(in, "../stash/real.dll", "lib/rel.dll");
	lnk(in, abs_in, "lib/abs.dll");
	lnk(in, "../nothing.dll", "lib/dangling.dll");
	lnk(in, outdir, "lib/outdir");
	lnk(in, "../stash/d", "lib/indir");
	lnk(in, "..", "lib/top");
	lnk(in, "../..", "lib/up");
	lnk(in, outdir, "lib/skipped");
	lnk(in, "b.dll", "lib/a.dll"); /* a chain inside */
	lnk(in, "../stash/real.dll", "lib/b.dll");
	lnk(in, "loop2", "lib/loop1"); /* a loop */
	lnk(in, "loop1", "lib/loop2");
	lnk(in, back, "lib/comeback.dll"); /* up out of the root by "..", and back in */
	lnk(in, ghost, "lib/ghost.dll"); /* out, to nothing: still out (nothing out there is looked at) */
	lnk(in, via_abs, "lib/viaabs.dll"); /* through the root's other name */
	CHECK_INT(symlink(in, via), 0);
	CHECK_INT(view_open_root(&v, in, NULL), 0);
	if (!v)
		goto done;
	/* inside: followed, and opened where they really are */
	CHECK(view_is_file(v, "C:\\lib\\rel.dll"));
	CHECK(view_is_file(v, "C:\\lib\\ABS.dll"));
	CHECK_INT(view_find_file(v, "C:\\lib", "rel.dll", &found), 1);
	CHECK_STR(found, "C:\\lib\\rel.dll");
	h = view_host_path(v, "C:\\lib\\rel.dll");
	CHECK_STR(h, abs_in);
	free(h);
	free(found);
	found = NULL;
	CHECK_INT(view_find_file(v, "C:\\lib\\indir", "y.dll", &found), 1);
	CHECK(view_is_dir(v, "C:\\lib\\top\\stash"));
	/* the letter case as it exists, through a link kept as a name (not replaced by its target) */
	h = view_win_case(v, "c:\\LIB\\INDIR\\Y.DLL");
	CHECK_STR(h, "C:\\lib\\indir\\y.dll");
	free(h);
	CHECK_INT(view_outside_link(v, "C:\\lib", "rel.dll", NULL), 0);
	/* dangling: nothing there, nothing to report */
	CHECK(!view_is_file(v, "C:\\lib\\dangling.dll"));
	CHECK_INT(view_outside_link(v, "C:\\lib", "dangling.dll", NULL), 0);
	/* outside: absolute, relative climbing out, a folder, ".." above the root */
	CHECK(!view_is_file(v, "C:\\lib\\out.dll"));
	CHECK_INT(view_find_file(v, "C:\\lib", "out.dll", &found), 0);
	CHECK_INT(view_outside_link(v, "C:\\lib", "OUT.dll", &t), 1);
	CHECK_STR(t, evil);
	CHECK(view_host_path(v, "C:\\lib\\out.dll") == NULL);
	CHECK(!view_is_file(v, "C:\\lib\\climb.dll"));
	CHECK_INT(view_outside_link(v, "C:\\lib", "climb.dll", &t), 1);
	CHECK_STR(t, evil);
	CHECK(!view_is_dir(v, "C:\\lib\\outdir"));
	CHECK_INT(view_find_file(v, "C:\\lib\\outdir", "x.dll", &found), 0);
	CHECK(view_host_path(v, "C:\\lib\\outdir\\x.dll") == NULL);
	CHECK(view_list_dir(v, "C:\\lib\\outdir", &names, NULL) != 0);
	CHECK_INT((int)names.n, 0);
	/* a walk that asks first whether it is a link never follows it, so it is not recorded */
	CHECK(view_is_link(v, "C:\\lib\\skipped"));
	CHECK(view_is_link(v, "C:\\lib\\rel.dll"));
	CHECK(!view_is_link(v, "C:\\stash\\real.dll"));
	CHECK(!view_is_dir(v, "C:\\lib\\up"));
	CHECK_INT(view_outside_link(v, "C:\\lib", "up", &t), 1);
	CHECK(view_is_file(v, "C:\\lib\\a.dll"));
	CHECK(!view_is_file(v, "C:\\lib\\loop1"));
	CHECK_INT(view_outside_link(v, "C:\\lib", "loop1", NULL), 0);
	CHECK(view_is_file(v, "C:\\lib\\comeback.dll"));
	CHECK(!view_is_file(v, "C:\\lib\\ghost.dll"));
	CHECK_INT(view_outside_link(v, "C:\\lib", "ghost.dll", &t), 1);
	CHECK_STR(t, ghost);
	CHECK(!view_is_file(v, "C:\\lib\\viaabs.dll")); /* via is outside this root (a link we do not follow) */
	CHECK_INT((int)view_outside_links(v, 0, NULL, NULL), 6);
	CHECK_INT((int)view_outside_links(v, 0, &w, &t), 6);
	CHECK_STR(w, "C:\\lib\\out.dll");
	view_free(v);
	v = NULL;
	/* a root that is itself a link (a Wine prefix's dosdevices\c:): the boundary is where it leads */
	CHECK_INT(view_open_root(&v, via, NULL), 0);
	if (v) {
		CHECK(view_is_file(v, "C:\\lib\\abs.dll"));
		CHECK(view_is_file(v, "C:\\lib\\viaabs.dll")); /* the root as --root spells it */
		CHECK(!view_is_file(v, "C:\\lib\\out.dll"));
		h = view_host_path(v, "C:\\lib\\abs.dll");
		w = NULL;
		free(found);
		found = h ? view_win_path(v, h) : NULL;
		CHECK_STR(found, "C:\\stash\\real.dll");
		free(h);
		view_free(v);
	}
done:
	strlist_release(&names);
	free(found);
	free(cmd);
	cmd = xasprintf("rm -rf '%s' '%s' '%s'", in, out, via);
	if (system(cmd)) {
	}
	free(cmd);
	free(in);
	free(out);
	free(via);
	free(abs_in);
	free(evil);
	free(outdir);
	free(climb);
	free(back);
	free(ghost);
	free(via_abs);
}

static void test_root_must_exist(void)
{
	struct view *v = NULL;
	struct err e;
	err_clear(&e);
	CHECK_INT(view_open_root(&v, "/nonexistent/tdc", &e), -1);
	CHECK_HAS(e.msg, "not a directory");
}

/* view_mount's reader for the test: entry i's host path is a file of the tree, counted. */
static int mount_opens;

static char *mount_open(void *ctx, size_t i, struct err *err)
{
	(void)ctx;
	mount_opens++;
	if (i == 2) {
		err_set(err, "cannot inflate (test)");
		return NULL;
	}
	return xasprintf("%s/Windows/System32/kernel32.dll", root);
}

/*
 * A mounted folder (a onefile app's files): its folders are made from the
 * names, listed in NTFS order, typed without a stat, a file's host path made
 * once on first use; a file that cannot be made is a host error; a mount
 * over a folder that exists, or a name given twice, is refused.
 */
static void test_mount(void)
{
	static const char *const names[] = { "torch/lib/c10.dll", "python311.dll", "torch\\lib\\Bad.dll",
					     "torch/version.py" };
	static const char *const twice[] = { "a.dll", "A.DLL" };
	static const char *const both[] = { "a/b.dll", "a" };
	struct view *v = NULL;
	struct strlist l = STRLIST_INIT;
	struct err e;
	char *h;
	err_clear(&e);
	CHECK_INT(view_open_root(&v, root, NULL), 0);
	if (!v)
		return;
	CHECK_INT(view_mount(v, "C:\\Temp\\_MEI000000", names, 4, mount_open, NULL, &e), 0);
	CHECK(view_is_dir(v, "C:\\temp\\_mei000000"));
	CHECK(view_is_dir(v, "C:\\Temp\\_MEI000000\\TORCH\\lib"));
	CHECK(view_is_file(v, "C:\\Temp\\_MEI000000\\torch\\lib\\c10.dll"));
	CHECK(!view_is_file(v, "C:\\Temp\\_MEI000000\\torch\\lib\\nothere.dll"));
	CHECK_INT(view_list_dir(v, "C:\\Temp\\_MEI000000\\torch\\lib", &l, NULL), 0);
	CHECK_INT((int)l.n, 2);
	if (l.n == 2) {
		CHECK_STR(l.v[0], "Bad.dll");
		CHECK_STR(l.v[1], "c10.dll");
	}
	CHECK_INT(mount_opens, 0);
	h = view_host_path(v, "C:\\Temp\\_MEI000000\\torch\\lib\\C10.DLL");
	CHECK_HAS(h, "/Windows/System32/kernel32.dll");
	free(h);
	h = view_host_path(v, "C:\\Temp\\_MEI000000\\torch\\lib\\c10.dll");
	free(h);
	CHECK_INT(mount_opens, 1);
	CHECK(!view_is_link(v, "C:\\Temp\\_MEI000000\\torch\\lib\\c10.dll"));
	h = view_host_path(v, "C:\\Temp\\_MEI000000\\torch\\lib\\Bad.dll");
	CHECK(h == NULL);
	CHECK_HAS(view_host_error(v), "Bad.dll: cannot inflate (test)");
	free(h);
	strlist_release(&l);
	view_free(v);
	v = NULL;
	CHECK_INT(view_open_root(&v, root, NULL), 0);
	if (!v)
		return;
	CHECK_INT(view_mount(v, "C:\\Windows", names, 1, mount_open, NULL, &e), -1);
	CHECK_HAS(e.msg, "not a free folder");
	CHECK_INT(view_mount(v, "C:\\M", twice, 2, mount_open, NULL, &e), -1);
	CHECK_HAS(e.msg, "named twice");
	view_free(v);
	v = NULL;
	CHECK_INT(view_open_root(&v, root, NULL), 0);
	if (!v)
		return;
	CHECK_INT(view_mount(v, "C:\\M", both, 2, mount_open, NULL, &e), -1);
	CHECK_HAS(e.msg, "both a file and a folder");
	view_free(v);
}

int main(void)
{
	make_tree();
	RUN(test_case_insensitive_lookup);
	RUN(test_ntfs_order);
	RUN(test_win_path_mapping);
	RUN(test_env);
	RUN(test_path_helpers);
	RUN(test_root_must_exist);
	RUN(test_links_stop_at_root);
	RUN(test_mount);
	remove_tree();
	return HARNESS_EXIT();
}
