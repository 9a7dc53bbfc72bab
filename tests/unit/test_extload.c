/*
 * test_extload: an extension's import (loader/extload.c) following the
 * matrix's `extension_load` entries (matrix/matrix_ext.c), on small trees of
 * real PE files (Wine's builtin DLLs under the extensions' names: the
 * "extension" mciavi32.dll imports msvfw32.dll, which each test puts where
 * the procedure must, or must not, find it). No network, no Wine process.
 *
 * torchvision: its folder added with os.add_dll_directory, _C and image by
 * ctypes (caught), a missing video_reader passed over, other .pyd lazy;
 * torchaudio: the Python 3.8 _init_dll_path (PATH folders added) only on a
 * cp38 interpreter and when the installed __init__.py has the call, and its
 * `needs` note without lib._torchaudio; xformers' note without _C;
 * torchtext 0.18.0's library before its module, and 0.17.0 (no entry
 * covers it) CPython's; PyQt5's find_qt (its Qt5\\bin prepended to PATH
 * and added, or a note); a
 * distribution without an entry is CPython's; a --matrix layer adding an
 * extension nobody has heard of is followed (its folder added, its failure
 * words used), and one replacing torchvision's entry replaces it; the lint of
 * the table (bad words, overlaps, evidence of another package, paths that
 * climb out of the package).
 */
#include "harness.h"
#include "loader/extload.h"
#include "loader/torchload.h"
#include "machine/dist.h"
#include "machine/view.h"
#include "matrix/matrix.h"
#include "util/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char wine_dir[] = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows";
static char root[256];

#define SP "Python311/Lib/site-packages"
#define SP_WIN "C:\\Python311\\Lib\\site-packages"

/* Runs the command (freed). */
static int sh(char *cmd)
{
	int r = system(cmd);
	free(cmd);
	return r;
}

/* A file of the tree, its folders made: a copy of Wine's `from`, else `text`. */
static void put(const char *rel, const char *from, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *d = xstrdup(p);
	*strrchr(d, '/') = '\0';
	CHECK_INT(sh(xasprintf("mkdir -p '%s'", d)), 0);
	if (from) {
		CHECK_INT(sh(xasprintf("cp '%s/%s' '%s'", wine_dir, from, p)), 0);
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

/*
 * A distribution NAME VERSION whose RECORD lists `files` (paths under
 * site-packages, '/'-separated, NULL-ended); each .pyd a copy of mciavi32.dll
 * (it imports msvfw32.dll), each other file `text`.
 */
static void put_dist(const char *name, const char *version, const char *const *files, const char *text)
{
	struct strbuf rec = STRBUF_INIT;
	char *di = xasprintf(SP "/%s-%s.dist-info", name, version), *p;
	size_t i;
	for (i = 0; files[i]; i++) {
		p = xasprintf(SP "/%s", files[i]);
		if (strstr(files[i], ".pyd"))
			put(p, "mciavi32.dll", NULL);
		else
			put(p, NULL, text);
		free(p);
		strbuf_addf(&rec, "%s,,\n", files[i]);
	}
	p = xasprintf("%s/METADATA", di);
	{
		char *meta = xasprintf("Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n", name, version);
		put(p, NULL, meta);
		free(meta);
	}
	free(p);
	strbuf_addf(&rec, "%s-%s.dist-info/METADATA,,\n%s-%s.dist-info/RECORD,,\n", name, version, name, version);
	p = xasprintf("%s/RECORD", di);
	put(p, NULL, rec.buf);
	free(p);
	free(di);
	strbuf_release(&rec);
}

/* A tree with Wine's System32 less msvfw32.dll, python.exe with python3XY.dll (`pydll`), and torch. */
static int make_tree(const char *name, const char *pydll)
{
	char *p;
	struct os_stat st;
	os_stat(wine_dir, &st);
	if (st.type != OS_DIR) {
		SKIP("no Wine PE directory %s", wine_dir);
		return -1;
	}
	snprintf(root, sizeof(root), "/tmp/tdc-test-extload-%ld-%s", (long)getpid(), name);
	sh(xasprintf("rm -rf '%s'", root));
	p = xasprintf("%s/Windows/System32", root);
	CHECK_INT(sh(xasprintf("mkdir -p '%s'", p)), 0);
	/* hard links (a copy across file systems): a symbolic link out of --root is not followed */
	CHECK_INT(sh(xasprintf("cp -l '%s'/* '%s/' 2>/dev/null || cp '%s'/* '%s/'", wine_dir, p, wine_dir, p)), 0);
	CHECK_INT(sh(xasprintf("rm -f '%s/msvfw32.dll'", p)), 0);
	free(p);
	put("Python311/python.exe", "notepad.exe", NULL);
	p = xasprintf("Python311/%s", pydll);
	put(p, "version.dll", NULL);
	free(p);
	put(SP "/torch/__init__.py", NULL, "");
	put(SP "/torch/version.py", NULL, "__version__ = '2.4.1+cpu'\n");
	put(SP "/torch/lib/asmjit.dll", "version.dll", NULL);
	return 0;
}

static void remove_tree(void)
{
	sh(xasprintf("rm -rf '%s'", root));
}

/* What one import did, and the objects that go with it. */
struct fixture {
	struct view *v;
	struct torch_run *run;
	struct dist_set dists;
	struct matrix m;
	struct ext_run *r;
};

/* torch's procedure on the tree, then `import DIST` the way the matrix (default + `layer`) says. */
static int import_dist_module(struct fixture *f, const char *dist, const char *path, const char *layer,
			      const char *module, struct err *me)
{
	struct torch_inputs in = { 0 };
	struct err e;
	const struct dist *d;
	memset(f, 0, sizeof(*f));
	err_clear(&e);
	matrix_init(&f->m);
	if (matrix_load_default(&f->m, NULL, &e) ||
	    (layer && matrix_load_buffer(&f->m, "layer.yml", layer, strlen(layer), NULL, &e))) {
		printf("# matrix: %s\n", e.msg);
		return -1;
	}
	if (view_open_root(&f->v, root, &e)) {
		printf("# view: %s\n", e.msg);
		return -1;
	}
	view_setenv(f->v, "PATH", path ? path : "C:\\Windows\\System32");
	in.torch_dir = SP_WIN "\\torch";
	in.python_exe = "C:\\Python311\\python.exe";
	if (torch_run(&f->run, f->v, &in, &e)) {
		printf("# torch_run: %s\n", e.msg);
		return -1;
	}
	if (dist_set_read(&f->dists, f->v, SP_WIN, NULL, &e)) {
		printf("# dists: %s\n", e.msg);
		return -1;
	}
	d = dist_set_find(&f->dists, dist);
	CHECK(d != NULL);
	if (!d)
		return -1;
	return extload_run(&f->r, f->run->ld, f->v, f->run, d, matrix_extension_load(&f->m, d->name, d->version), SP_WIN,
			   module != NULL, module, me ? me : &e);
}

static int import_dist(struct fixture *f, const char *dist, const char *path, const char *layer)
{
	return import_dist_module(f, dist, path, layer, NULL, NULL);
}

static void fixture_release(struct fixture *f)
{
	ext_run_free(f->r);
	dist_set_release(&f->dists);
	torch_run_free(f->run);
	view_free(f->v);
	matrix_release(&f->m);
	remove_tree();
}

/* The binary of the run whose path ends with `tail`, or NULL. */
static const struct ext_binary *bin(const struct ext_run *r, const char *tail)
{
	size_t i, n = strlen(tail);
	for (i = 0; r && i < r->nbins; i++) {
		size_t k = strlen(r->bins[i].path);
		if (k >= n && !strcmp(r->bins[i].path + k - n, tail))
			return &r->bins[i];
	}
	return NULL;
}

static int has_note(const struct ext_run *r, const char *text)
{
	size_t i;
	for (i = 0; r && i < r->notes.n; i++)
		if (strstr(r->notes.v[i], text))
			return 1;
	return 0;
}

static int has_dir(const struct ext_run *r, const char *dir)
{
	size_t i;
	for (i = 0; r && i < r->dll_dirs.n; i++)
		if (!strcmp(r->dll_dirs.v[i], dir))
			return 1;
	return 0;
}

static void test_torchvision_from_the_table(void)
{
	static const char *const files[] = { "torchvision/__init__.py", "torchvision/_C.pyd", "torchvision/image.pyd",
					     "torchvision/other.pyd", NULL };
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("tv", "python311.dll"))
		return;
	put_dist("torchvision", "0.24.1", files, "");
	put(SP "/torchvision/msvfw32.dll", "msvfw32.dll", NULL); /* found through the added package folder */
	CHECK_INT(import_dist(&f, "torchvision", NULL, NULL), 0);
	if (f.r) {
		CHECK_STR(f.r->procedure, "torchvision");
		CHECK_INT(f.r->dll_dirs.n, 1);
		CHECK(has_dir(f.r, SP_WIN "\\torchvision"));
		b = bin(f.r, "\\_C.pyd");
		CHECK(b && b->how == EXT_HOW_CTYPES && !b->raises && b->winerror == 0 && b->flags == 0x1100);
		CHECK(b && strstr(b->effect, "Couldn't load custom C++ ops"));
		b = bin(f.r, "\\image.pyd");
		CHECK(b && b->how == EXT_HOW_CTYPES && b->winerror == 0);
		CHECK(b && !strcmp(b->effect, "import torchvision warns \"Failed to load image Python extension\"; "
					      "torchvision.io's image decoding and encoding fail"));
		b = bin(f.r, "\\other.pyd");
		CHECK(b && b->how == EXT_HOW_LAZY && !strcmp(b->outcome, "not-loaded"));
		CHECK(bin(f.r, "video_reader.pyd") == NULL); /* not shipped: passed over */
		CHECK_INT(f.r->nbins, 3);
		CHECK_INT(f.r->nfail, 0);
	}
	fixture_release(&f);
}

/* torchaudio with lib\libtorchaudio.pyd (needs msvfw32.dll) and lib\_torchaudio.pyd; __init__.py `init`. */
static void put_torchaudio(const char *init)
{
	static const char *const files[] = { "torchaudio/__init__.py", "torchaudio/lib/libtorchaudio.pyd",
					     "torchaudio/lib/_torchaudio.pyd", NULL };
	put_dist("torchaudio", "2.4.1", files, "");
	put(SP "/torchaudio/_extension/__init__.py", NULL, init);
	put("Tools/msvfw32.dll", "msvfw32.dll", NULL); /* only in a PATH folder */
}

static const char init_38[] = "import os, sys\n"
			      "if os.name == \"nt\" and (3, 8) <= sys.version_info < (3, 9):\n"
			      "    _init_dll_path()\n";
#define PATH_38 "C:\\Windows\\System32;C:\\Tools;C:\\NotThere;relative"

static void test_torchaudio_python38_adds_the_path_folders(void)
{
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("ta38", "python38.dll"))
		return;
	put_torchaudio(init_38);
	CHECK_INT(import_dist(&f, "torchaudio", PATH_38, NULL), 0);
	if (f.r) {
		CHECK_STR(f.r->procedure, "torchaudio");
		CHECK(has_dir(f.r, "C:\\Tools") && has_dir(f.r, "C:\\Windows\\System32"));
		CHECK(!has_dir(f.r, "C:\\NotThere"));
		CHECK_INT(f.r->dll_dirs.n, 2);
		CHECK(has_note(f.r, "Python 3.8: torchaudio's _init_dll_path added 2 PATH folders with "
				    "os.add_dll_directory before loading its libraries"));
		b = bin(f.r, "\\lib\\libtorchaudio.pyd");
		CHECK(b && b->how == EXT_HOW_CTYPES && b->raises && b->winerror == 0);
		b = bin(f.r, "\\lib\\_torchaudio.pyd");
		CHECK(b && b->how == EXT_HOW_IMPORT && b->raises && b->winerror == 0);
		CHECK(f.r->nbins >= 2 && strstr(f.r->bins[0].path, "libtorchaudio")); /* the library first */
	}
	fixture_release(&f);
}

/*
 * os.path.exists and AddDllDirectory see a PATH entry given on its own through
 * Win32 normalisation: its last segment loses trailing spaces and periods, so
 * `C:\\P_space ` and `C:\\P_dot.` are the folders P_space and P_dot, both added
 * (docs/loader.md §5.1); msvfw32.dll in P_space is then found.
 */
static void test_torchaudio_python38_normalises_before_exists(void)
{
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("ta38sp", "python38.dll"))
		return;
	put_torchaudio(init_38);
	put("P_space/msvfw32.dll", "msvfw32.dll", NULL);
	put("P_dot/readme.txt", NULL, "x");
	CHECK_INT(import_dist(&f, "torchaudio", "C:\\Windows\\System32;C:\\P_space ;C:\\P_dot.", NULL), 0);
	if (f.r) {
		CHECK(has_dir(f.r, "C:\\P_space") && has_dir(f.r, "C:\\P_dot"));
		CHECK_INT(f.r->dll_dirs.n, 3);
		b = bin(f.r, "\\lib\\libtorchaudio.pyd");
		CHECK(b && b->winerror == 0);
	}
	fixture_release(&f);
}

/*
 * msvfw32.dll in two folders both added with AddDllDirectory (the PATH
 * folders of Python 3.8's _init_dll_path), only one copy with the exports
 * the extension needs: Windows leaves the order of such folders unspecified,
 * so the verdict is order-dependent, not a confident 127 nor a load
 * (docs/loader.md §5.3).
 */
static void test_extension_order_dependent(void)
{
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("ta38od", "python38.dll"))
		return;
	put_torchaudio(init_38);
	put("A/msvfw32.dll", "version.dll", NULL);
	put("B/msvfw32.dll", "msvfw32.dll", NULL);
	CHECK_INT(import_dist(&f, "torchaudio", "C:\\Windows\\System32;C:\\A;C:\\B", NULL), 0);
	if (f.r) {
		CHECK_INT(f.r->dll_dirs.n, 3);
		b = bin(f.r, "\\lib\\libtorchaudio.pyd");
		CHECK(b && b->res.order_dependent);
		CHECK(b && !strcmp(b->outcome, "order-dependent"));
		CHECK_INT(f.r->nfail, 0);
	}
	fixture_release(&f);
}

static void test_torchaudio_python38_without_the_call(void)
{
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("ta38n", "python38.dll"))
		return;
	put_torchaudio("import os\n# patched: no Python 3.8 branch\n");
	CHECK_INT(import_dist(&f, "torchaudio", PATH_38, NULL), 0);
	if (f.r) {
		CHECK_INT(f.r->dll_dirs.n, 0);
		CHECK(!has_note(f.r, "_init_dll_path"));
		b = bin(f.r, "\\lib\\libtorchaudio.pyd");
		CHECK(b && b->winerror == 126 && !strcmp(b->effect, "import torchaudio raises OSError: Could not load "
								     "this library: ...\\torchaudio\\lib\\libtorchaudio.pyd"));
		CHECK_INT(f.r->nfail, 2);
	}
	fixture_release(&f);
}

static void test_torchaudio_python311_skips_the_call(void)
{
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("ta311", "python311.dll"))
		return;
	put_torchaudio(init_38);
	CHECK_INT(import_dist(&f, "torchaudio", PATH_38, NULL), 0);
	if (f.r) {
		CHECK_INT(f.r->dll_dirs.n, 0);
		CHECK(!has_note(f.r, "_init_dll_path"));
		b = bin(f.r, "\\lib\\_torchaudio.pyd");
		CHECK(b && b->winerror == 126 && b->raises);
	}
	fixture_release(&f);
}

static void test_needs_without_its_module(void)
{
	static const char *const ta[] = { "torchaudio/__init__.py", "torchaudio/lib/libtorchaudio.pyd", NULL };
	static const char *const xf[] = { "xformers/__init__.py", "xformers/other.pyd", NULL };
	struct fixture f;
	if (make_tree("needs", "python311.dll"))
		return;
	put_dist("torchaudio", "2.4.1", ta, "");
	put_dist("xformers", "0.0.33", xf, "");
	CHECK_INT(import_dist(&f, "torchaudio", NULL, NULL), 0);
	if (f.r) {
		CHECK(has_note(f.r, SP_WIN "\\torchaudio\\lib\\_torchaudio has no extension module for this Python: "
					   "torchaudio loads no binary at import"));
		CHECK_INT(f.r->nbins, 1);
		CHECK(f.r->nbins && f.r->bins[0].how == EXT_HOW_LAZY);
	}
	ext_run_free(f.r);
	dist_set_release(&f.dists);
	torch_run_free(f.run);
	view_free(f.v);
	matrix_release(&f.m);
	CHECK_INT(import_dist(&f, "xformers", NULL, NULL), 0);
	if (f.r) {
		CHECK_STR(f.r->procedure, "xformers");
		CHECK(has_dir(f.r, SP_WIN "\\xformers")); /* added before _C is looked for */
		CHECK(has_note(f.r, SP_WIN "\\xformers\\_C has no extension module for this Python: import xformers "
					   "warns that xFormers was not built, and loads no binary"));
	}
	fixture_release(&f);
}

/*
 * torchtext 0.18.0 (the entry added as one line of data): lib\libtorchtext.pyd by ctypes before
 * _torchtext.pyd, whatever RECORD's order; its `version` covers 0.18.0 only, so 0.17.0 is CPython's.
 */
static void test_torchtext_entry_and_its_version(void)
{
	static const char *const files[] = { "torchtext/__init__.py", "torchtext/_torchtext.pyd",
					     "torchtext/lib/libtorchtext.pyd", NULL };
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("tt", "python311.dll"))
		return;
	put_dist("torchtext", "0.18.0", files, "");
	put(SP "/torchtext/lib/msvfw32.dll", "msvfw32.dll", NULL); /* the library's own folder: DLL_LOAD_DIR */
	CHECK_INT(import_dist(&f, "torchtext", NULL, NULL), 0);
	if (f.r) {
		CHECK_STR(f.r->procedure, "torchtext");
		CHECK_INT(f.r->dll_dirs.n, 0);
		CHECK_INT(f.r->nbins, 2);
		b = f.r->nbins == 2 ? &f.r->bins[0] : NULL;
		CHECK(b && strstr(b->path, "\\lib\\libtorchtext.pyd") && b->how == EXT_HOW_CTYPES && b->raises &&
		      b->winerror == 0);
		b = bin(f.r, "\\torchtext\\_torchtext.pyd");
		/* msvfw32.dll is in lib\ only, but the library loaded first brought it in: found by name */
		CHECK(b && b->how == EXT_HOW_IMPORT && b->raises && b->winerror == 0);
		CHECK(b && !strcmp(b->effect, "import torchtext raises ImportError: DLL load failed while importing _torchtext"));
	}
	fixture_release(&f);
	if (make_tree("tt17", "python311.dll"))
		return;
	put_dist("torchtext", "0.17.0", files, "");
	CHECK_INT(import_dist(&f, "torchtext", NULL, NULL), 0);
	if (f.r)
		CHECK_STR(f.r->procedure, "cpython");
	fixture_release(&f);
}

/* PyQt5's find_qt as data: Qt5\\bin (it has Qt5Core.dll) prepended to PATH and added; every .pyd imported. */
static void test_pyqt5_find(void)
{
	static const char *const files[] = { "PyQt5/__init__.py", "PyQt5/QtCore.pyd", NULL };
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("qt", "python311.dll"))
		return;
	put_dist("PyQt5", "5.15.11", files, "");
	put(SP "/PyQt5/Qt5/bin/Qt5Core.dll", "version.dll", NULL);
	put(SP "/PyQt5/Qt5/bin/msvfw32.dll", "msvfw32.dll", NULL);
	CHECK_INT(import_dist(&f, "PyQt5", NULL, NULL), 0);
	if (f.r) {
		CHECK_STR(f.r->procedure, "PyQt5");
		CHECK(has_dir(f.r, SP_WIN "\\PyQt5\\Qt5\\bin"));
		CHECK_STR(f.r->path_prefix, SP_WIN "\\PyQt5\\Qt5\\bin");
		CHECK_HAS(view_getenv(f.v, "PATH"), SP_WIN "\\PyQt5\\Qt5\\bin;");
		b = bin(f.r, "\\QtCore.pyd");
		CHECK(b && b->how == EXT_HOW_IMPORT && b->raises && b->winerror == 0);
	}
	fixture_release(&f);
	if (make_tree("qt0", "python311.dll"))
		return;
	put_dist("PyQt5", "5.15.11", files, "");
	CHECK_INT(import_dist(&f, "PyQt5", NULL, NULL), 0);
	if (f.r) {
		CHECK(has_note(f.r, "find_qt found no Qt5Core.dll (next to python.exe, in PyQt5\\Qt5\\bin, or on PATH): it "
				    "added no folder"));
		CHECK_INT(f.r->dll_dirs.n, 0);
		b = bin(f.r, "\\QtCore.pyd");
		CHECK(b && b->winerror == 126);
	}
	fixture_release(&f);
}

/* --import-first PyQt5.QtCore: the package's procedure (find_qt), then that module alone; a missing one is an error. */
static void test_import_first_one_module(void)
{
	static const char *const files[] = { "PyQt5/__init__.py", "PyQt5/QtCore.pyd", "PyQt5/QtGui.pyd", NULL };
	struct fixture f;
	struct err e;
	if (make_tree("qtmod", "python311.dll"))
		return;
	put_dist("PyQt5", "5.15.11", files, "");
	put(SP "/PyQt5/Qt5/bin/Qt5Core.dll", "version.dll", NULL);
	put(SP "/PyQt5/Qt5/bin/msvfw32.dll", "msvfw32.dll", NULL);
	CHECK_INT(import_dist_module(&f, "PyQt5", NULL, NULL, "PyQt5.QtCore", NULL), 0);
	if (f.r) {
		CHECK(f.r->first);
		CHECK(has_dir(f.r, SP_WIN "\\PyQt5\\Qt5\\bin"));
		CHECK_INT(f.r->nbins, 1);
		CHECK(bin(f.r, "\\QtCore.pyd") && bin(f.r, "\\QtCore.pyd")->winerror == 0);
	}
	ext_run_free(f.r);
	dist_set_release(&f.dists);
	torch_run_free(f.run);
	view_free(f.v);
	matrix_release(&f.m);
	err_clear(&e);
	CHECK_INT(import_dist_module(&f, "PyQt5", NULL, NULL, "PyQt5.QtNope", &e), -1);
	CHECK(f.r == NULL);
	CHECK_HAS(e.msg, "no module PyQt5.QtNope: none of " SP_WIN "\\PyQt5\\QtNope");
	fixture_release(&f);
}

static const char *const madeup_files[] = { "madeup_ext/__init__.py", "madeup_ext/core.pyd", NULL };
static const char madeup_layer[] = "schema: 1\n"
				   "rows: []\n"
				   "extension_load:\n"
				   "  - package: madeup-ext\n"
				   "    folder: madeup_ext\n"
				   "    add_dll_directory: [bin]\n"
				   "    loads:\n"
				   "      - {module: core, how: ctypes, raises: false, fails: \"madeup's core ops are missing\"}\n"
				   "    status: inferred\n";

/* An extension the default does not know: CPython's import, its DLL folder unknown (126). */
static void test_unknown_extension_is_cpythons(void)
{
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("cpy", "python311.dll"))
		return;
	put_dist("madeup-ext", "1.0", madeup_files, "");
	put(SP "/madeup_ext/bin/msvfw32.dll", "msvfw32.dll", NULL);
	CHECK_INT(import_dist(&f, "madeup-ext", NULL, NULL), 0);
	if (f.r) {
		CHECK_STR(f.r->procedure, "cpython");
		CHECK(has_note(f.r, "no DLL folders are known for madeup-ext"));
		b = bin(f.r, "\\core.pyd");
		CHECK(b && b->how == EXT_HOW_IMPORT && b->raises && b->winerror == 126);
	}
	fixture_release(&f);
}

/* The same tree with a --matrix layer adding its entry: its folder added, the load by ctypes, found. */
static void test_a_layer_adds_an_extension(void)
{
	struct fixture f;
	const struct ext_binary *b;
	if (make_tree("layer", "python311.dll"))
		return;
	put_dist("madeup-ext", "1.0", madeup_files, "");
	put(SP "/madeup_ext/bin/msvfw32.dll", "msvfw32.dll", NULL);
	CHECK_INT(import_dist(&f, "Madeup_Ext", NULL, madeup_layer), 0); /* PEP 503 names */
	if (f.r) {
		CHECK_STR(f.r->procedure, "madeup-ext");
		CHECK(has_dir(f.r, SP_WIN "\\madeup_ext\\bin"));
		b = bin(f.r, "\\core.pyd");
		CHECK(b && b->how == EXT_HOW_CTYPES && !b->raises && b->winerror == 0);
		CHECK(b && !strcmp(b->effect, "madeup's core ops are missing"));
	}
	fixture_release(&f);
	/* and its failure is said in the entry's words */
	if (make_tree("layer2", "python311.dll"))
		return;
	put_dist("madeup-ext", "1.0", madeup_files, "");
	CHECK_INT(import_dist(&f, "madeup-ext", NULL, madeup_layer), 0);
	b = bin(f.r, "\\core.pyd");
	CHECK(b && b->winerror == 126 && !strcmp(b->effect, "madeup's core ops are missing"));
	fixture_release(&f);
}

/* A layer's torchvision entry for some releases replaces the default's (which covers every release). */
static void test_a_layer_replaces_an_entry(void)
{
	static const char layer[] = "schema: 1\nrows: []\nextension_load:\n"
				    "  - package: torchvision\n    version: \">=0.30\"\n"
				    "    loads: [{module: _C, how: import, raises: true, fails: new words}]\n"
				    "    status: inferred\n";
	struct matrix m;
	struct err e;
	const struct ext_proc *p;
	matrix_init(&m);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	p = matrix_extension_load(&m, "torchvision", "0.24.1+cpu");
	CHECK(p && p->nloads == 4);
	CHECK(p && !strncmp(p->entry, MATRIX_DEFAULT_NAME ":", strlen(MATRIX_DEFAULT_NAME) + 1));
	CHECK(matrix_extension_load(&m, "TorchVision", NULL) == p); /* no version: the entry for every release */
	CHECK(matrix_extension_load(&m, "torch", "2.4.1") == NULL);
	CHECK_INT(matrix_load_buffer(&m, "layer.yml", layer, strlen(layer), NULL, &e), 0);
	CHECK(matrix_extension_load(&m, "torchvision", "0.24.1") == NULL); /* replaced: nothing covers 0.24.1 */
	p = matrix_extension_load(&m, "torchvision", "0.30.0");
	CHECK(p && p->nloads == 1 && p->loads[0].how == EXT_HOW_IMPORT && !strcmp(p->entry, "layer.yml:4"));
	CHECK(matrix_extension_load(&m, "torchaudio", "2.9.1") != NULL); /* the others stay */
	matrix_release(&m);
}

/* ---- the lint ---- */

#define HEAD "schema: 1\nrows: []\nextension_load:\n"
#define LOADS "    loads: [{module: _C, how: ctypes, raises: false, fails: f}]\n"
#define HASH "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* Whether linting `yaml` says `want` at line:col (0: any). */
static int lint_says(const char *yaml, const char *want, unsigned line, unsigned col)
{
	struct matrix m;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	size_t i;
	int said = 0;
	matrix_init(&m);
	CHECK_INT(matrix_load_buffer(&m, "t.yml", yaml, strlen(yaml), &d, &e), -1);
	CHECK_INT(m.nexts, 0); /* a file with errors changes nothing */
	for (i = 0; i < d.n; i++)
		if (strstr(d.v[i].msg, want) && (!line || d.v[i].line == line) && (!col || d.v[i].col == col))
			said = 1;
	if (!said)
		for (i = 0; i < d.n; i++)
			printf("#   %u:%u: %s\n", d.v[i].line, d.v[i].col, d.v[i].msg);
	matrix_diags_release(&d);
	matrix_release(&m);
	return said;
}

static void test_lint(void)
{
	CHECK(lint_says(HEAD "  - package: a\n" LOADS "    status: inferred\n"
			     "  - package: A\n" LOADS "    status: inferred\n",
			"extension_load entries of A at lines 4 and 7 both cover every release", 7, 5));
	CHECK(lint_says(HEAD "  - package: a\n    version: \">=1,<3\"\n" LOADS "    status: inferred\n"
			     "  - package: a\n    version: \">=2\"\n" LOADS "    status: inferred\n",
			"both cover release 2", 9, 14));
	CHECK(lint_says(HEAD "  - package: a\n" LOADS "    status: measured\n",
			"is `status: measured` but has no `evidence`", 4, 5));
	CHECK(lint_says(HEAD "  - package: a\n" LOADS "    status: measured\n"
			     "    evidence: [\"b-1.0-py3-none-win_amd64.whl sha256=" HASH "\"]\n",
			"is a wheel of b, not of a", 7, 16));
	CHECK(lint_says(HEAD "  - package: a\n    version: \">=2\"\n" LOADS "    status: measured\n"
			     "    evidence: [\"a-1.0-py3-none-win_amd64.whl sha256=" HASH "\"]\n",
			"a 1.0 is not a release this entry's version \">=2\" covers", 8, 16));
	CHECK(lint_says(HEAD "  - package: a\n" LOADS "    status: measured\n    evidence: [\"a-1.0.whl\"]\n",
			"is not \"PACKAGE-VERSION-...whl sha256=", 7, 16));
	CHECK(lint_says(HEAD "  - package: a\n" LOADS "    status: infered\n", "did you mean `inferred`?", 6, 13));
	CHECK(lint_says(HEAD "  - package: a\n" LOADS "    status: inferred\n    add_dll_directroy: [.]\n",
			"did you mean `add_dll_directory`?", 7, 5));
	CHECK(lint_says(HEAD "  - package: a\n    loads: [{module: _C, how: ctype, raises: false, fails: f}]\n"
			     "    status: inferred\n",
			"did you mean `ctypes`?", 5, 31));
	CHECK(lint_says(HEAD "  - package: a\n    loads: [{module: _C, file: x.pyd, how: import, raises: true, fails: f}]\n"
			     "    status: inferred\n",
			"must name one of `module` and `file`", 5, 13));
	CHECK(lint_says(HEAD "  - package: a\n    loads: [{file: '..\\evil.dll', how: import, raises: true, fails: f}]\n"
			     "    status: inferred\n",
			"`file` is `..\\evil.dll`", 5, 20));
	CHECK(lint_says(HEAD "  - package: a\n    add_dll_directory: ['C:\\Windows']\n" LOADS "    status: inferred\n",
			"`add_dll_directory` has `C:\\Windows`; expected folders of the package", 5, 25));
	CHECK(lint_says(HEAD "  - package: a\n    loads: [{module: lib..x, how: import, raises: true, fails: f}]\n"
			     "    status: inferred\n",
			"`module` is `lib..x`", 5, 22));
	CHECK(lint_says(HEAD "  - package: a\n    without: nothing loads\n" LOADS "    status: inferred\n",
			"give `needs` too", 5, 14));
	CHECK(lint_says(HEAD "  - package: a\n    loads: []\n    status: inferred\n", "must list at least one binary", 5, 12));
	CHECK(lint_says(HEAD "  - package: a\n    path_folders: {by: x, python: [\"3\"], file: f.py, has: y}\n" LOADS
			     "    status: inferred\n",
			"`python` has `3`; expected Python versions", 5, 36));
	CHECK(lint_says(HEAD "  - package: a\n    path_folders: {by: x, python: \"3.8\", has: y}\n" LOADS
			     "    status: inferred\n",
			"is missing `file`", 5, 19));
	CHECK(lint_says(HEAD "  - package: -a\n" LOADS "    status: inferred\n", "`package` is `-a`", 4, 14));
	CHECK(lint_says(HEAD "  - package: a\n    status: inferred\n", "loads nothing: give `loads`, or `others: import`", 4, 5));
	CHECK(lint_says(HEAD "  - package: a\n    others: imprt\n    status: inferred\n", "did you mean `import`?", 5, 13));
	CHECK(lint_says(HEAD "  - package: a\n    find: {by: f, file: Qt5Core, in: bin}\n    others: import\n"
			     "    status: inferred\n",
			"`file` is `Qt5Core`; expected a DLL file name", 5, 25));
}

int main(void)
{
	RUN(test_torchvision_from_the_table);
	RUN(test_torchaudio_python38_adds_the_path_folders);
	RUN(test_torchaudio_python38_normalises_before_exists);
	RUN(test_extension_order_dependent);
	RUN(test_torchaudio_python38_without_the_call);
	RUN(test_torchaudio_python311_skips_the_call);
	RUN(test_needs_without_its_module);
	RUN(test_torchtext_entry_and_its_version);
	RUN(test_pyqt5_find);
	RUN(test_import_first_one_module);
	RUN(test_unknown_extension_is_cpythons);
	RUN(test_a_layer_adds_an_extension);
	RUN(test_a_layer_replaces_an_entry);
	RUN(test_lint);
	return HARNESS_EXIT();
}
