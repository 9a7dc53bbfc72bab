/*
 * test_inventory: the redistributable reader on real registry text (both
 * views, inconsistencies), the redistributable version syntax, and the
 * version.py / METADATA parsers on good, truncated and garbage input.
 */
#include "harness.h"
#include "machine/inventory.h"
#include "machine/regfile.h"
#include "machine/registry.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "machine/view.h"

#define V(s) vpy((s), strlen(s))

#define HDR "Windows Registry Editor Version 5.00\r\n\r\n"
#define RT "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\"
#define RT32 "[HKEY_LOCAL_MACHINE\\SOFTWARE\\WOW6432Node\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\"

static int redist_of(const char *text, struct inventory *inv)
{
	struct registry *reg = NULL;
	struct err err;
	int r;
	inventory_init(inv);
	if (regfile_parse(&reg, text, strlen(text), "t.reg", &err)) {
		printf("# parse: %s\n", err.msg);
		return -1;
	}
	r = inventory_redist_registry(inv, reg, &err);
	registry_free(reg);
	return r;
}

static const char *notes(const struct strlist *l)
{
	static struct strbuf sb = STRBUF_INIT;
	size_t i;
	strbuf_release(&sb);
	for (i = 0; i < l->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", l->v[i]);
	return strbuf_str(&sb);
}

static void test_redist_consistent_both_archs(void)
{
	struct inventory inv;
	CHECK_INT(redist_of(HDR RT "x64]\n\"Version\"=\"v14.40.33810.00\"\n\"Major\"=dword:0000000e\n"
			    "\"Minor\"=dword:00000028\n\"Bld\"=dword:00008412\n\"Rbld\"=dword:00000000\n"
			    "\"Installed\"=dword:00000001\n" RT32 "x86]\n\"Version\"=\"v14.38.33130.00\"\n"
			    "\"Installed\"=dword:00000001\n",
			    &inv),
		  0);
	CHECK(inv.redist[0].found && inv.redist[0].installed);
	CHECK_STR(inv.redist[0].arch, "x64");
	CHECK_STR(inv.redist[0].version, "14.40.33810.0");
	CHECK_STR(inv.redist[0].version_raw, "v14.40.33810.00");
	CHECK_INT(inv.redist[0].view, 64);
	CHECK_STR(inv.redist[0].key, "HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64");
	CHECK_STR(notes(&inv.redist[0].notes), "");
	CHECK(inv.redist[1].found && inv.redist[1].installed);
	CHECK_INT(inv.redist[1].view, 32);
	CHECK_STR(inv.redist[1].key, "HKLM\\SOFTWARE\\WOW6432Node\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x86");
	CHECK_STR(inv.redist[1].version, "14.38.33130.0");
	CHECK(!inv.redist[2].found && !inv.redist[2].installed);
	CHECK_STR(inv.redist_source, "reg export t.reg");
	inventory_release(&inv);
}

static void test_redist_inconsistencies(void)
{
	struct inventory inv;
	CHECK_INT(redist_of(HDR RT "x64]\n\"Version\"=\"v14.40.33810.00\"\n\"Major\"=dword:e\n\"Minor\"=dword:26\n"
			    "\"Bld\"=dword:8412\n\"Installed\"=dword:0\n"
			    RT "arm64]\n\"Version\"=\"garbage\"\n\"Major\"=\"14\"\n\"Minor\"=hex:01,02\n",
			    &inv),
		  0);
	CHECK(inv.redist[0].found && !inv.redist[0].installed);
	CHECK_INT(inv.redist[0].installed_value, 0);
	CHECK_STR(notes(&inv.redist[0].notes),
		  "Version v14.40.33810.00 disagrees with Major/Minor/Bld 14.38.33810|"
		  "Installed = 0: the key is there but the runtime is marked not installed");
	/* a Version that is not one, and a DWORD that is binary: said, not guessed */
	CHECK(inv.redist[2].found && !inv.redist[2].has_ver);
	CHECK(inv.redist[2].version == NULL);
	CHECK_STR(notes(&inv.redist[2].notes), "Version \"garbage\" is not a version number|"
					       "Minor is \"01,02\", expected a DWORD");
	inventory_release(&inv);
}

static void test_redist_both_views_reports_newer(void)
{
	struct inventory inv;
	CHECK_INT(redist_of(HDR RT "x64]\n\"Version\"=\"v14.29.30133.00\"\n" RT32 "x64]\n\"Version\"=\"v14.42.34433.00\"\n"
			    "\"Installed\"=dword:1\n",
			    &inv),
		  0);
	CHECK_STR(inv.redist[0].version, "14.42.34433.0");
	CHECK_INT(inv.redist[0].view, 32);
	CHECK(inv.redist[0].installed);
	CHECK_STR(notes(&inv.redist[0].notes), "the 64-bit registry view also has v14.29.30133.00");
	inventory_release(&inv);
	/* only Major/Minor/Bld, no Version: the version comes from them, the gap is noted */
	CHECK_INT(redist_of(HDR RT "x86]\n\"Major\"=dword:e\n\"Minor\"=dword:28\n\"Bld\"=dword:8412\n", &inv), 0);
	CHECK_STR(inv.redist[1].version, "14.40.33810.0");
	CHECK(inv.redist[1].installed);
	CHECK_STR(notes(&inv.redist[1].notes),
		  "no Version value in HKLM\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x86");
	inventory_release(&inv);
}

static void test_parse_redist_version(void)
{
	uint16_t v[4];
	CHECK_INT(inventory_parse_redist_version("v14.40.33810.00", v), 0);
	CHECK(v[0] == 14 && v[1] == 40 && v[2] == 33810 && v[3] == 0);
	CHECK_INT(inventory_parse_redist_version("14.40", v), 0);
	CHECK(v[0] == 14 && v[1] == 40 && v[2] == 0);
	CHECK_INT(inventory_parse_redist_version("14", v), -1);
	CHECK_INT(inventory_parse_redist_version("v14.40.99999.0", v), -1);
	CHECK_INT(inventory_parse_redist_version("14.40.1.2.3", v), -1);
	CHECK_INT(inventory_parse_redist_version("14..40", v), -1);
	CHECK_INT(inventory_parse_redist_version("14.40.", v), -1);
	CHECK_INT(inventory_parse_redist_version("", v), -1);
}

static const char version_py[] = "from typing import Optional\n\n"
				 "__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
				 "__version__ = '2.5.1+cu121'\n"
				 "debug = False\n"
				 "cuda: Optional[str] = '12.1'\n"
				 "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\n"
				 "hip: Optional[str] = None\n";

/* Parses version.py text; returns "version cuda" or "ERR: msg". */
static const char *vpy(const char *text, size_t len)
{
	static char buf[1200];
	char *ver = NULL, *cuda = NULL;
	struct err err;
	if (inventory_parse_version_py(text, len, "version.py", &ver, &cuda, &err)) {
		snprintf(buf, sizeof(buf), "ERR: %s", err.msg);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s %s", ver, cuda ? cuda : "None");
	free(ver);
	free(cuda);
	return buf;
}

static void test_version_py(void)
{
	size_t n;
	CHECK_STR(vpy(version_py, strlen(version_py)), "2.5.1+cu121 12.1");
	CHECK_STR(V("__version__ = \"2.4.0+cpu\"\ncuda = None\n"), "2.4.0+cpu None");
	CHECK_STR(V("__version__ = '1.4.0'  # comment\r\ncuda = '10.1'\r\n"), "1.4.0 10.1");
	/* indented and longer names are not the module-level assignments */
	CHECK_STR(V("__version__ = '2.0.0'\nif x:\n    cuda = '11.8'\ncuda_version = '9'\n"), "2.0.0 None");
	/* every truncation of a real file: an error or the right answer, never anything else */
	for (n = 0; n < strlen(version_py); n++) {
		const char *r = vpy(version_py, n);
		if (strncmp(r, "ERR: ", 5) && strcmp(r, "2.5.1+cu121 None") && strcmp(r, "2.5.1+cu121 12.1") &&
		    strcmp(r, "2.5.1+cu121 12.") && strcmp(r, "2.5.1+cu121 12") && strcmp(r, "2.5.1+cu121 1")) {
			printf("# truncated at %zu: %s\n", n, r);
			CHECK(0);
		}
	}
	CHECK_STR(V(""), "ERR: version.py: no \"__version__ = '...'\" line (truncated or not torch's version.py)");
	CHECK_STR(V("__version__ = '2.4"), "ERR: version.py:1: __version__: unterminated string (expected a closing ')");
	CHECK_STR(V("x\n__version__ == '2'\n"), "ERR: version.py:2: __version__: expected '=' after the name");
	CHECK_STR(V("__version__ = 2.4\n"), "ERR: version.py:1: __version__: expected a quoted string or None");
	CHECK_STR(V("__version__ = 'x y'\n"),
		  "ERR: version.py:1: __version__ 'x y' is not a version (expected digits, dots and a +local label)");
	CHECK_STR(V("__version__ = None\n"),
		  "ERR: version.py:1: __version__ 'None' is not a version (expected digits, dots and a +local label)");
	CHECK_STR(V("__version__ = '2.4' x\n"), "ERR: version.py:1: __version__: unexpected text after the value");
	CHECK_STR(V("__version__ = '2\\n'\n"), "ERR: version.py:1: __version__: backslash escapes are not expected in a version");
	CHECK_STR(V("__version__ = '2.4'\ncuda = '1 2'\n"), "ERR: version.py:2: cuda '1 2' is not a version");
	CHECK_STR(vpy("\n\n__version__\0 = '2'\n", 20), "ERR: version.py:3: NUL byte: not a text file");
}

static const char *meta(const char *text)
{
	static char buf[1200];
	char *ver = NULL;
	struct err err;
	if (inventory_parse_metadata(text, strlen(text), "METADATA", &ver, &err)) {
		snprintf(buf, sizeof(buf), "ERR: %s", err.msg);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s", ver);
	free(ver);
	return buf;
}

static void test_metadata(void)
{
	static const char good[] = "Metadata-Version: 2.1\nName: torch\nVersion: 2.4.0+cpu\n"
				   "Summary: Tensors\nClassifier: A\n  folded line: x\n\n"
				   "Version: 9.9.9\nbody text without a colon\n";
	size_t n;
	CHECK_STR(meta(good), "2.4.0+cpu");
	CHECK_STR(meta("Name: Torch\r\nVersion: 1.5.0 \r\n"), "1.5.0");
	CHECK_STR(meta(""), "ERR: METADATA: no Version: header (truncated?)");
	CHECK_STR(meta("Name: torch\n"), "ERR: METADATA: no Version: header (truncated?)");
	CHECK_STR(meta("Version: 2.4.0\n"), "ERR: METADATA: no Name: header (truncated?)");
	CHECK_STR(meta("Name: torchvision\nVersion: 0.19.0\n"), "ERR: METADATA:1: Name is \"torchvision\", expected torch");
	CHECK_STR(meta("Name: torch\ngarbage\n"), "ERR: METADATA:2: expected a \"Name: value\" header line");
	CHECK_STR(meta("Name: torch\nVersion: two\n"), "ERR: METADATA:2: Version \"two\" is not a version");
	/* every truncation: an error or the right answer */
	for (n = 0; n < sizeof(good) - 1; n++) {
		char *cut = xstrndup(good, n);
		const char *r = meta(cut);
		if (strncmp(r, "ERR: ", 5) && strcmp(r, "2.4.0+cpu") && strncmp("2.4.0+cpu", r, strlen(r))) {
			printf("# truncated at %zu: %s\n", n, r);
			CHECK(0);
		}
		free(cut);
	}
}

static void put(const char *root, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *q;
	FILE *f;
	for (q = p + strlen(root) + 1; *q; q++) {
		if (*q == '/') {
			*q = '\0';
			mkdir(p, 0755);
			*q = '/';
		}
	}
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

static void test_collect_one_install(void)
{
	char root[128], *cmd;
	struct view *v = NULL;
	struct inventory inv;
	struct err err;
	snprintf(root, sizeof(root), "/tmp/tdc-test-inventory-%ld", (long)getpid());
	mkdir(root, 0755);
	put(root, "Python311/python.exe", "not a PE");
	put(root, "Python311/Lib/site-packages/torch/version.py", "__version__ = '2.4.0+cpu'\n");
	put(root, "Python311/Lib/site-packages/torch/__init__.py", "");
	put(root, "Python311/Lib/site-packages/torch/_C.cp311-win_amd64.pyd", "");
	put(root, "Python311/Lib/site-packages/torch/lib/c10.dll", "");
	put(root, "Python311/Lib/site-packages/torch-2.4.0+cpu.dist-info/METADATA", "Name: torch\nVersion: 2.4.0+cpu\n");
	put(root, "Windows/System32/msvcp140.dll", "");
	inventory_init(&inv);
	CHECK_INT(view_open_root(&v, root, &err), 0);
	if (v) {
		CHECK_INT(inventory_collect(&inv, v, "C:\\python311\\lib\\site-packages\\torch", "C:\\Python311\\python.exe",
					    &err), 0);
		CHECK_INT(inv.ninstalls, 1);
		CHECK(!inv.redist_read); /* no registry: unknown, not "not installed" */
		if (inv.ninstalls == 1) {
			const struct inv_install *in = &inv.installs[0];
			CHECK_STR(in->torch_dir, "C:\\Python311\\Lib\\site-packages\\torch");
			CHECK_STR(in->python, "C:\\Python311\\python.exe");
			CHECK_STR(in->kind, "system");
			CHECK_STR(in->version, "2.4.0+cpu");
			CHECK_STR(in->metadata_version, "2.4.0+cpu");
			CHECK_STR(in->variant, "cpu");
			CHECK_STR(in->arch, "x64");
			CHECK_STR(notes(&in->notes), "");
			CHECK_STR(notes(&in->dll_dirs), "python\tC:\\Python311|torch\\lib\tC:\\Python311\\Lib\\site-packages\\torch\\lib");
		}
		/* the empty msvcp140.dll is listed with its error, not dropped */
		CHECK_INT(inv.ndlls, 1);
		if (inv.ndlls == 1) {
			CHECK_STR(inv.dlls[0].where, "System32");
			CHECK(inv.dlls[0].error != NULL);
		}
		/* a python.exe without Lib\site-packages is a clear error */
		CHECK_INT(inventory_from_python(&inv, v, "C:\\Windows\\System32\\msvcp140.dll", &err), -1);
		CHECK_STR(err.msg, "C:\\Windows\\System32\\msvcp140.dll: no Lib\\site-packages under C:\\Windows\\System32 "
				   "(an embeddable Python, or not a Python install?)");
	}
	inventory_release(&inv);
	view_free(v);
	cmd = xasprintf("rm -rf %s", root);
	if (system(cmd)) {
	}
	free(cmd);
}

/* pyvenv.cfg: keys case-insensitive and trimmed, the last occurrence wins, CRLF, an empty value is none. */
static void test_pyvenv_value(void)
{
	static const char cfg[] = "home = C:\\Python311\r\n"
				  "Version\t=\t3.11.4 \r\n"
				  "no equals sign here\n"
				  "include-system-site-packages = false\n"
				  "home=D:\\Py\n"
				  "prompt =\n";
	char *v;
	v = inventory_pyvenv_value(cfg, strlen(cfg), "home");
	CHECK_STR(v, "D:\\Py");
	free(v);
	v = inventory_pyvenv_value(cfg, strlen(cfg), "version");
	CHECK_STR(v, "3.11.4");
	free(v);
	CHECK(inventory_pyvenv_value(cfg, strlen(cfg), "prompt") == NULL);
	CHECK(inventory_pyvenv_value(cfg, strlen(cfg), "hom") == NULL);
	CHECK(inventory_pyvenv_value("", 0, "home") == NULL);
}

int main(void)
{
	RUN(test_redist_consistent_both_archs);
	RUN(test_redist_inconsistencies);
	RUN(test_redist_both_views_reports_newer);
	RUN(test_parse_redist_version);
	RUN(test_version_py);
	RUN(test_metadata);
	RUN(test_pyvenv_value);
	RUN(test_collect_one_install);
	return HARNESS_EXIT();
}
