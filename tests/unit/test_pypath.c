/*
 * test_pypath: sys.path as CPython builds it on Windows (machine/pypath.h)
 * and the python a person means (machine/pyfind.h), on trees written here:
 * the four small formats with their oddities (CRLF, comments, `import`
 * lines, a byte-order mark, bytes that are not UTF-8, long lines, more lines
 * than the cap); a python.org install whose .pth files name a folder that
 * exists, one that does not, another drive, their own folder, and one that
 * is a link out of --root; a .pth over the size bound; a venv with and
 * without include-system-site-packages; an embeddable ._pth with and
 * without `import site`; PYTHONPATH, PYTHONNOUSERSITE; the Store Python's
 * user base; PATH and the py launcher (py.ini, PY_PYTHON, PEP 514).
 */
#include "harness.h"
#include "machine/pyfind.h"
#include "machine/pypath.h"
#include "machine/regfile.h"
#include "machine/registry.h"
#include "machine/view.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put(const char *root, const char *rel, const char *text, size_t n)
{
	char *p = xasprintf("%s/%s", root, rel), *cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", p);
	FILE *f;
	if (system(cmd)) {
	}
	f = fopen(p, "wb");
	if (f) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
	free(cmd);
	free(p);
}
#define PUT(root, rel, lit) put(root, rel, lit, sizeof(lit) - 1)

static const char *joined(const struct strlist *l)
{
	static struct strbuf sb = STRBUF_INIT;
	size_t i;
	strbuf_release(&sb);
	for (i = 0; i < l->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", l->v[i]);
	return sb.buf;
}

static const char *entries(const struct pypath *pp)
{
	static struct strbuf sb = STRBUF_INIT;
	size_t i;
	strbuf_release(&sb);
	for (i = 0; i < pp->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", pp->e[i].path);
	return sb.buf;
}

static void parse(struct pyfile *f, enum pyfile_kind k, const char *text, size_t n)
{
	pyfile_init(f);
	pyfile_parse(f, k, text, n);
}
#define PARSE(f, k, lit) parse(f, k, lit, sizeof(lit) - 1)

static void test_formats(void)
{
	struct pyfile f;
	struct strbuf big = STRBUF_INIT;
	int i;
	PARSE(&f, PYFILE_PTH_OVERRIDE, "python311.zip\r\n.  # here\r\n\r\n# Uncomment\r\n#import site\r\nimport os\r\n");
	CHECK_STR(joined(&f.lines), "python311.zip|.");
	CHECK_INT(f.import_site, 0);
	CHECK_INT(f.imports, 1);
	pyfile_release(&f);
	PARSE(&f, PYFILE_PTH_OVERRIDE, "  import site  # on\n");
	CHECK_INT(f.import_site, 1);
	pyfile_release(&f);
	PARSE(&f, PYFILE_SITE_PTH, "# c\n ../src \nimport _x; _x.install()\nimport\tos\nimportlib\n\n");
	CHECK_STR(joined(&f.lines), " ../src|importlib|");
	CHECK_INT(f.imports, 2);
	pyfile_release(&f);
	PARSE(&f, PYFILE_PYVENV_CFG, "\xef\xbb\xbfHome = C:\\Py311\ninclude-system-site-packages=FALSE\nnot a pair\n = x\n");
	CHECK_STR(joined(&f.lines), "home\tC:\\Py311|include-system-site-packages\tFALSE");
	CHECK_STR(joined(&f.notes), "starts with a UTF-8 byte order mark (skipped)");
	CHECK_STR(pyfile_value(&f, "home"), "C:\\Py311");
	CHECK(pyfile_value(&f, "version") == NULL);
	pyfile_release(&f);
	PARSE(&f, PYFILE_PY_INI, "; x\n[commands]\npython=2\n[Defaults]\n python = 3.11 \n[other]\npython=3.9\n");
	CHECK_STR(pyfile_value(&f, "python"), "3.11");
	pyfile_release(&f);
	/* py.ini as GetPrivateProfileStringW reads it (measured under Wine): the first key of the first
	 * [defaults] wins, one pair of enclosing quotes goes, UTF-16 with a byte order mark is text, keys
	 * other than python/python2/python3 are not kept (so none can push python= over the line cap) */
	PARSE(&f, PYFILE_PY_INI, "[defaults]\npython=\"3.10\"\nPython=3.11\npython3='3.9'\n[defaults]\npython2=2.7\n");
	CHECK_STR(pyfile_value(&f, "python"), "3.10");
	CHECK_STR(pyfile_value(&f, "python3"), "3.9");
	CHECK(pyfile_value(&f, "python2") == NULL);
	pyfile_release(&f);
	PARSE(&f, PYFILE_PY_INI, "\xff\xfe[\0d\0e\0f\0a\0u\0l\0t\0s\0]\0\n\0p\0y\0t\0h\0o\0n\0=\0003\0.\0001\0000\0\n\0");
	CHECK_STR(pyfile_value(&f, "python"), "3.10");
	pyfile_release(&f);
	PARSE(&f, PYFILE_PY_INI, "\xfe\xff\0[\0d\0e\0f\0a\0u\0l\0t\0s\0]\0\n\0p\0y\0t\0h\0o\0n\0=\0003\0.\0001\0000\0\n");
	CHECK_STR(pyfile_value(&f, "python"), "3.10");
	pyfile_release(&f);
	strbuf_reset(&big);
	strbuf_adds(&big, "[defaults]\n");
	for (i = 0; i < PYPATH_MAX_LINES + 10; i++)
		strbuf_addf(&big, "k%d=v\n", i);
	strbuf_adds(&big, "python=3.10\n");
	parse(&f, PYFILE_PY_INI, big.buf, big.len);
	CHECK_STR(pyfile_value(&f, "python"), "3.10");
	pyfile_release(&f);
	PARSE(&f, PYFILE_SITE_PTH, "ok\n\xff\xfe\n\xc3\x28x\na\0b\n");
	CHECK_STR(joined(&f.lines), "ok");
	CHECK_STR(joined(&f.notes), "3 lines are not UTF-8 text (first: line 2): skipped");
	pyfile_release(&f);
	strbuf_reset(&big);
	for (i = 0; i < PYPATH_MAX_LINE + 1; i++)
		strbuf_addch(&big, 'a');
	strbuf_adds(&big, "\nshort\n");
	parse(&f, PYFILE_SITE_PTH, big.buf, big.len);
	CHECK_STR(joined(&f.lines), "short");
	CHECK_STR(joined(&f.notes), "1 line is longer than 4096 bytes (first: line 1): skipped");
	pyfile_release(&f);
	strbuf_reset(&big);
	for (i = 0; i < PYPATH_MAX_LINES + 10; i++)
		strbuf_addf(&big, "d%d\n", i);
	parse(&f, PYFILE_SITE_PTH, big.buf, big.len);
	CHECK_INT(f.lines.n, PYPATH_MAX_LINES);
	CHECK_STR(joined(&f.notes), "more than 512 lines from line 513 on: the rest is not read");
	pyfile_release(&f);
	strbuf_release(&big);
}

/* A fresh tree with python.org's Python 3.11 at C:\Py311. */
static int tree(char *root)
{
	if (!mkdtemp(root))
		return -1;
	PUT(root, "Py311/python.exe", "MZ");
	PUT(root, "Py311/python311.dll", "MZ");
	PUT(root, "Py311/DLLs/_ctypes.pyd", "MZ");
	PUT(root, "Py311/Lib/os.py", "");
	PUT(root, "Py311/Lib/site-packages/torch/__init__.py", "");
	return 0;
}

static void rmtree(const char *root)
{
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd)) {
	}
	free(cmd);
}

static int build(struct pypath *pp, struct view *v, const char *python, int no_user_site)
{
	struct pypath_opts o;
	struct err e;
	o.no_user_site = no_user_site;
	pypath_release(pp);
	return pypath_build(pp, v, python, &o, &e);
}

static void test_install(void)
{
	char root[] = "/tmp/tdc-pypath.XXXXXX", *link, *big;
	struct view *v = NULL;
	struct pypath pp;
	struct pypath_hit *hits;
	struct err e;
	size_t n;
	if (tree(root)) {
		SKIP("mkdtemp failed");
		return;
	}
	PUT(root, "Py311/extra/x.py", "");
	PUT(root, "Py311/Lib/site-packages/a.pth",
	    "# a\n../../extra\nnope\nD:\\other\nC:\\Py311\\Lib\\site-packages\n.\nimport evil; evil()\n..\\..\\..\\..\\..\\..\\etc\n");
	PUT(root, "Py311/Lib/site-packages/b.pth", "C:\\src\n");
	PUT(root, "src/torch/__init__.py", "");
	PUT(root, "Users/u/AppData/Roaming/Python/Python311/site-packages/torch/__init__.py", "");
	big = xmalloc(PYPATH_MAX_FILE + 1);
	memset(big, 'a', PYPATH_MAX_FILE + 1);
	put(root, "Py311/Lib/site-packages/c.pth", big, PYPATH_MAX_FILE + 1);
	free(big);
	link = xasprintf("%s/Py311/Lib/site-packages/d.pth", root);
	if (symlink("/etc/hostname", link)) {
	}
	free(link);
	CHECK_INT(view_open_root(&v, root, &e), 0);
	pypath_init(&pp);
	view_setenv(v, "APPDATA", "C:\\Users\\u\\AppData\\Roaming");
	CHECK_INT(build(&pp, v, "C:\\Py311\\python.exe", 0), 0);
	CHECK_STR(entries(&pp), "C:\\Py311\\python311.zip|C:\\Py311\\DLLs|C:\\Py311\\Lib|C:\\Py311|"
				"C:\\Users\\u\\AppData\\Roaming\\Python\\Python311\\site-packages|"
				"C:\\Py311\\Lib\\site-packages|C:\\Py311\\extra|C:\\src");
	CHECK_STR(pp.version, "3.11");
	CHECK_HAS(joined(&pp.notes), "a.pth has 1 `import` line Python runs at start-up: not followed here");
	CHECK_HAS(joined(&pp.notes), "c.pth is larger than 64 KiB: not read");
	CHECK(strstr(joined(&pp.notes), "d.pth") == NULL); /* the link out of the root is not there */
	n = pypath_find_package(&pp, v, "torch", 0, &hits);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(hits[0].dir, "C:\\Users\\u\\AppData\\Roaming\\Python\\Python311\\site-packages\\torch");
		CHECK_STR(pp.e[hits[0].entry].from, "user site");
		CHECK_STR(hits[1].dir, "C:\\Py311\\Lib\\site-packages\\torch");
		CHECK_STR(hits[2].dir, "C:\\src\\torch");
		CHECK_STR(pp.e[hits[2].entry].from, "b.pth in C:\\Py311\\Lib\\site-packages");
	}
	pypath_hits_free(hits, n);
	/* PYTHONPATH first; PYTHONNOUSERSITE and -s turn the user site off */
	view_setenv(v, "PYTHONPATH", "C:\\src;relative;;C:\\nowhere");
	view_setenv(v, "PYTHONNOUSERSITE", "1");
	CHECK_INT(build(&pp, v, "C:\\Py311\\python.exe", 0), 0);
	CHECK_STR(entries(&pp), "C:\\src|C:\\nowhere|C:\\Py311\\python311.zip|C:\\Py311\\DLLs|C:\\Py311\\Lib|C:\\Py311|"
				"C:\\Py311\\Lib\\site-packages|C:\\Py311\\extra");
	CHECK_STR(pp.user_site_off, "PYTHONNOUSERSITE is set");
	CHECK_HAS(joined(&pp.notes), "PYTHONPATH item \"relative\" is relative to the current folder");
	/* past PYPATH_MAX_ENTRIES: the entries dropped are counted and said once (it was said per entry) */
	{
		struct strbuf many = STRBUF_INIT;
		size_t i, said = 0;
		for (i = 0; i < PYPATH_MAX_ENTRIES + 100; i++)
			strbuf_addf(&many, "C:\\p%zu;", i);
		view_setenv(v, "PYTHONPATH", many.buf);
		CHECK_INT(build(&pp, v, "C:\\Py311\\python.exe", 0), 0);
		CHECK_INT(pp.n, PYPATH_MAX_ENTRIES);
		CHECK(pp.dropped >= 100);
		for (i = 0; i < pp.notes.n; i++)
			said += strstr(pp.notes.v[i], "more than 1024 entries") != NULL;
		CHECK_INT(said, 1);
		strbuf_release(&many);
	}
	view_setenv(v, "PYTHONPATH", "");
	view_setenv(v, "PYTHONNOUSERSITE", "");
	CHECK_INT(build(&pp, v, "C:\\Py311\\python.exe", 1), 0);
	CHECK_STR(pp.user_site_off, "python -s");
	CHECK_INT(build(&pp, v, "C:\\Py311\\nope.exe", 0), -1);
	pypath_release(&pp);
	view_free(v);
	rmtree(root);
}

static void test_venv_and_pth(void)
{
	char root[] = "/tmp/tdc-pypath.XXXXXX";
	struct view *v = NULL;
	struct pypath pp;
	struct err e;
	if (tree(root)) {
		SKIP("mkdtemp failed");
		return;
	}
	PUT(root, "venv/Scripts/python.exe", "MZ");
	PUT(root, "venv/pyvenv.cfg", "home = C:\\Py311\r\ninclude-system-site-packages = false\r\nversion = 3.11.9\r\n");
	PUT(root, "venv/Lib/site-packages/torch/__init__.py", "");
	PUT(root, "emb/python.exe", "MZ");
	PUT(root, "emb/python311.dll", "MZ");
	PUT(root, "emb/python311._pth", "python311.zip\n.\n..\\src\n#import site\n");
	PUT(root, "emb/Lib/site-packages/torch/__init__.py", "");
	CHECK_INT(view_open_root(&v, root, &e), 0);
	view_setenv(v, "APPDATA", "C:\\Users\\u\\AppData\\Roaming");
	view_setenv(v, "PYTHONPATH", "C:\\src");
	pypath_init(&pp);
	CHECK_INT(build(&pp, v, "C:\\venv\\Scripts\\python.exe", 0), 0);
	/* CPython 3.11 in a venv: [.., 'C:\\Py311', 'C:\\venv', 'C:\\venv\\Lib\\site-packages'] (home, not Scripts) */
	CHECK_STR(entries(&pp), "C:\\src|C:\\Py311\\python311.zip|C:\\Py311\\DLLs|C:\\Py311\\Lib|C:\\Py311|"
				"C:\\venv|C:\\venv\\Lib\\site-packages");
	CHECK_STR(pp.user_site_off, "a venv without include-system-site-packages = true");
	CHECK_STR(pp.home, "C:\\Py311");
	PUT(root, "venv/pyvenv.cfg", "home = C:\\Py311\ninclude-system-site-packages = true\n");
	CHECK_INT(build(&pp, v, "C:\\venv\\Scripts\\python.exe", 0), 0);
	CHECK_STR(entries(&pp), "C:\\src|C:\\Py311\\python311.zip|C:\\Py311\\DLLs|C:\\Py311\\Lib|C:\\Py311|"
				"C:\\venv|C:\\venv\\Lib\\site-packages|C:\\Py311\\Lib\\site-packages");
	CHECK_INT(pp.user_site, 1);
	/* the embeddable distribution: only the ._pth's lines, no PYTHONPATH, no site */
	CHECK_INT(build(&pp, v, "C:\\emb\\python.exe", 0), 0);
	CHECK_STR(entries(&pp), "C:\\emb\\python311.zip|C:\\emb|C:\\src");
	CHECK_STR(pp.pth, "C:\\emb\\python311._pth");
	CHECK_INT(pp.site, 0);
	PUT(root, "emb/python311._pth", "python311.zip\n.\nimport site\n");
	CHECK_INT(build(&pp, v, "C:\\emb\\python.exe", 0), 0);
	CHECK_STR(entries(&pp), "C:\\emb\\python311.zip|C:\\emb|C:\\emb\\Lib\\site-packages");
	CHECK_STR(pp.user_site_off, "isolated by its ._pth file");
	CHECK(pp.cannot_start == NULL);
	/* CPython 3.11+ stops at start-up on a ._pth of 32 KiB or more (getpath.c's readlines): no sys.path */
	{
		struct strbuf pth = STRBUF_INIT;
		strbuf_adds(&pth, "python311.zip\n.\nimport site\n");
		while (pth.len < PYPATH_GETPATH_MAX - 1)
			strbuf_addch(&pth, '#');
		put(root, "emb/python311._pth", pth.buf, pth.len); /* 32767 bytes: read */
		CHECK_INT(build(&pp, v, "C:\\emb\\python.exe", 0), 0);
		CHECK(pp.cannot_start == NULL);
		CHECK_INT(pp.n, 3);
		strbuf_addch(&pth, '#');
		put(root, "emb/python311._pth", pth.buf, pth.len); /* 32768 bytes: Python stops */
		CHECK_INT(build(&pp, v, "C:\\emb\\python.exe", 0), 0);
		CHECK_HAS(pp.cannot_start, "C:\\emb\\python311._pth is 32 KiB or larger");
		CHECK_INT(pp.n, 0);
		strbuf_release(&pth);
		PUT(root, "emb/python311._pth", "python311.zip\n.\nimport site\n");
	}
	/* PYTHONHOME: no ._pth search, the prefix is there */
	view_setenv(v, "PYTHONHOME", "C:\\Py311");
	view_setenv(v, "PYTHONPATH", "");
	CHECK_INT(build(&pp, v, "C:\\emb\\python.exe", 0), 0);
	CHECK(pp.pth == NULL);
	CHECK_STR(entries(&pp), "C:\\Py311\\python311.zip|C:\\Py311\\DLLs|C:\\Py311\\Lib|C:\\emb|C:\\Py311|"
				"C:\\Py311\\Lib\\site-packages"); /* no user site folder in this tree */
	pypath_release(&pp);
	view_free(v);
	rmtree(root);
}

static void test_store(void)
{
	char root[] = "/tmp/tdc-pypath.XXXXXX", root2[] = "/tmp/tdc-pypath.XXXXXX";
	struct view *v = NULL;
	struct pypath pp;
	struct pyfind f;
	struct err e;
#define PKG "Program Files/WindowsApps/PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0/"
#define ALIAS "Users/u/AppData/Local/Microsoft/WindowsApps/"
	if (!mkdtemp(root)) {
		SKIP("mkdtemp failed");
		return;
	}
	PUT(root, PKG "python.exe", "MZ");
	PUT(root, PKG "python311.dll", "MZ");
	PUT(root, ALIAS "python.exe", "");
	PUT(root, ALIAS "PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0/python.exe", "");
	PUT(root, "Python39/python.exe", "MZ");
	CHECK_INT(view_open_root(&v, root, &e), 0);
	view_setenv(v, "LOCALAPPDATA", "C:\\Users\\u\\AppData\\Local");
	view_setenv(v, "PYTHONUSERBASE", "C:\\ignored"); /* the Store launcher sets its own */
	view_setenv(v, "PATH", "\"\";rel;C:\\Users\\u\\AppData\\Local\\Microsoft\\WindowsApps;C:\\Python39");
	pyfind_init(&f);
	CHECK_INT(pyfind_default(&f, v, &e), 0);
	CHECK_STR(f.python, "C:\\Program Files\\WindowsApps\\PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__"
			    "qbz5n2kfra8p0\\python.exe");
	CHECK_HAS(f.why, "execution alias of the Microsoft Store Python PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0");
	pypath_init(&pp);
	CHECK_INT(build(&pp, v, f.python, 0), 0);
	CHECK_STR(pp.store_family, "PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0");
	CHECK_STR(pp.user_sitepk, "C:\\Users\\u\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.11_"
				  "qbz5n2kfra8p0\\LocalCache\\local-packages\\Python311\\site-packages");
	/* the execution alias alone (no package folder in the tree): the family names the version */
	CHECK_INT(build(&pp, v, "C:\\Users\\u\\AppData\\Local\\Microsoft\\WindowsApps\\PythonSoftwareFoundation."
				"Python.3.11_qbz5n2kfra8p0\\python.exe", 0), 0);
	CHECK_STR(pp.version, "3.11");
	CHECK_STR(pp.store_family, "PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0");
	pypath_release(&pp);
	/* the stub that opens the Store: passed over, said; the next python.exe on PATH */
	pyfind_release(&f);
	rmtree(root);
	view_free(v);
	if (!mkdtemp(root2)) {
		SKIP("mkdtemp failed");
		return;
	}
	PUT(root2, ALIAS "python.exe", "");
	PUT(root2, "Python39/python.exe", "MZ");
	CHECK_INT(view_open_root(&v, root2, &e), 0);
	view_setenv(v, "PATH", "C:\\Users\\u\\AppData\\Local\\Microsoft\\WindowsApps;C:\\Python39");
	CHECK_INT(pyfind_default(&f, v, &e), 0);
	CHECK_STR(f.python, "C:\\Python39\\python.exe");
	CHECK_STR(f.why, "the first python.exe on PATH");
	CHECK_HAS(joined(&f.notes), "is the execution alias that opens the Microsoft Store");
	pyfind_release(&f);
	view_free(v);
	rmtree(root2);
}

static void test_launcher(void)
{
	char root[] = "/tmp/tdc-pypath.XXXXXX", *reg;
	struct view *v = NULL;
	struct registry *r;
	struct pyfind f;
	struct err e;
	if (!mkdtemp(root)) {
		SKIP("mkdtemp failed");
		return;
	}
	PUT(root, "Py311/python.exe", "MZ");
	PUT(root, "Py312/python.exe", "MZ");
	PUT(root, "Py310-32/python.exe", "MZ");
	PUT(root, "Windows/py.exe", "MZ");
	PUT(root, "Windows/py.ini", "[defaults]\npython=3.11\n");
	PUT(root, "venv/Scripts/python.exe", "MZ");
	PUT(root, "pep514.reg",
	    "Windows Registry Editor Version 5.00\r\n\r\n"
	    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.11\\InstallPath]\r\n@=\"C:\\\\Py311\\\\\"\r\n\r\n"
	    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.11\\PythonPath\\Extra]\r\n@=\"C:\\\\Extra;rel\"\r\n\r\n"
	    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.12\\InstallPath]\r\n@=\"C:\\\\Elsewhere\"\r\n"
	    "\"ExecutablePath\"=\"C:\\\\Py312\\\\python.exe\"\r\n\r\n"
	    /* no default value: the launcher (PC/launcher2.c) passes it over, ExecutablePath or not */
	    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.14\\InstallPath]\r\n"
	    "\"ExecutablePath\"=\"C:\\\\Py311\\\\python.exe\"\r\n\r\n"
	    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.10-32\\InstallPath]\r\n@=\"C:\\\\Py310-32\"\r\n\r\n"
	    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.13\\InstallPath]\r\n@=\"C:\\\\Gone\"\r\n\r\n"
	    "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\not-a-tag\\InstallPath]\r\n@=\"C:\\\\Py311\"\r\n");
	CHECK_INT(view_open_root(&v, root, &e), 0);
	r = registry_new();
	view_registry_scope(r);
	reg = xasprintf("%s/pep514.reg", root);
	CHECK_INT(regfile_load_more(r, reg, &e), 0);
	free(reg);
	view_attach_registry(v, r);
	pyfind_init(&f);
	/* getpath.py: the PythonPath subkeys' paths come after the zip */
	{
		struct pypath pp;
		pypath_init(&pp);
		PUT(root, "Py311/python311.dll", "MZ");
		CHECK_INT(build(&pp, v, "C:\\Py311\\python.exe", 0), 0);
		CHECK_STR(entries(&pp), "C:\\Py311\\python311.zip|C:\\Extra|C:\\Py311|C:\\Py311\\Lib");
		if (pp.n > 1)
			CHECK_STR(pp.e[1].from, "registry PythonPath\\Extra");
		pypath_release(&pp);
	}
	/* py.ini beside py.exe says 3.11 */
	CHECK_INT(pyfind_launcher(&f, v, NULL, &e), 0);
	CHECK_STR(f.python, "C:\\Py311\\python.exe");
	CHECK_HAS(f.why, "of 3.11 from [defaults] python= of C:\\Windows\\py.ini");
	CHECK(strstr(joined(&f.notes), "3.13") == NULL); /* a registration the spec does not ask for is not said */
	pyfind_release(&f);
	/* PY_PYTHON wins over py.ini; "3" is the newest 3.x */
	view_setenv(v, "PY_PYTHON", "3");
	CHECK_INT(pyfind_launcher(&f, v, NULL, &e), 0);
	CHECK_STR(f.python, "C:\\Py312\\python.exe");
	CHECK_HAS(joined(&f.notes), "PythonCore\\3.13 names C:\\Gone\\python.exe, which is not there");
	CHECK_HAS(joined(&f.notes), "PythonCore\\3.14 has no InstallPath default value: the py launcher passes it over");
	pyfind_release(&f);
	CHECK_INT(pyfind_launcher(&f, v, "3.10-32", &e), 0);
	CHECK_STR(f.python, "C:\\Py310-32\\python.exe");
	pyfind_release(&f);
	CHECK_INT(pyfind_launcher(&f, v, "3.13", &e), -1);
	CHECK_HAS(e.msg, "finds no Python 3.13");
	pyfind_release(&f);
	CHECK_INT(pyfind_launcher(&f, v, "three\x1b[2J", &e), -1);
	CHECK_HAS(e.msg, "expected MAJOR[.MINOR][-32]");
	pyfind_release(&f);
	/* an active venv comes first */
	view_setenv(v, "VIRTUAL_ENV", "C:\\venv");
	CHECK_INT(pyfind_launcher(&f, v, NULL, &e), 0);
	CHECK_STR(f.python, "C:\\venv\\Scripts\\python.exe");
	pyfind_release(&f);
	/* no python on PATH, nothing registered for PY_PYTHON: the error names both */
	view_setenv(v, "VIRTUAL_ENV", "");
	view_setenv(v, "PY_PYTHON", "3.9");
	view_setenv(v, "PATH", "C:\\Windows");
	CHECK_INT(pyfind_default(&f, v, &e), -1);
	CHECK_HAS(e.msg, "no python.exe on the machine's PATH, and the py launcher finds no Python 3.9");
	pyfind_release(&f);
	view_free(v);
	rmtree(root);
}

int main(void)
{
	RUN(test_formats);
	RUN(test_install);
	RUN(test_venv_and_pth);
	RUN(test_store);
	RUN(test_launcher);
	return HARNESS_EXIT();
}
