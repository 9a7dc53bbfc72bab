/*
 * test_apiset: the API set schema reader against Wine's real
 * apisetschema.dll (every entry compared with `winedump dump -j apiset`),
 * a hand-built schema with importer-specific hosts, and broken schemas.
 */
#include "pe/apiset.h"
#include "harness.h"
#include "util/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char wine_schema[] = "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/apisetschema.dll";

static void test_wine_schema_matches_winedump(void)
{
	struct apiset *as = NULL;
	struct err e;
	char cmd[512], line[1024];
	FILE *f;
	size_t n = 0, compared = 0;
	err_clear(&e);
	if (access(wine_schema, R_OK) != 0) {
		SKIP("%s is not installed (Debian wine64)", wine_schema);
		return;
	}
	CHECK_INT(apiset_load(&as, wine_schema, &e), 0);
	if (!as) {
		printf("# %s\n", e.msg);
		return;
	}
	CHECK_INT(apiset_version(as), 6);
	CHECK(!apiset_is_fallback(as));
	CHECK_INT(apiset_count(as), 504);
	snprintf(cmd, sizeof(cmd), "winedump dump -j apiset %s 2>/dev/null", wine_schema);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		char flags[16], name[512], arrow[8], host[512];
		const char *got = NULL;
		int k;
		host[0] = '\0';
		k = sscanf(line, " %15s %511s %7s %511s", flags, name, arrow, host);
		if (k < 3 || strcmp(arrow, "->"))
			continue;
		if (strncmp(name, "api-", 4) && strncmp(name, "ext-", 4))
			continue;
		n++;
		/* every entry resolves, by its own name with ".dll", to winedump's host */
		{
			char *full = xasprintf("%s.dll", name);
			int r = apiset_resolve(as, full, NULL, &got);
			if (host[0]) {
				if (r != 1 || strcmp(got, host)) {
					printf("# %s: got %s (%d), winedump says %s\n", name, got ? got : "-", r, host);
					harness_failed_checks++;
				}
			} else if (r != 0) {
				printf("# %s: expected no host, got %d\n", name, r);
				harness_failed_checks++;
			}
			free(full);
		}
		compared++;
	}
	if (f)
		pclose(f);
	CHECK_INT(n, 504);
	CHECK_INT(compared, 504);
	apiset_free(as);
}

static void test_revision_and_case_are_ignored(void)
{
	struct apiset *as = NULL;
	const char *host = NULL;
	if (access(wine_schema, R_OK) != 0) {
		SKIP("%s is not installed (Debian wine64)", wine_schema);
		return;
	}
	CHECK_INT(apiset_load(&as, wine_schema, NULL), 0);
	if (!as)
		return;
	/* the schema has api-ms-win-crt-runtime-l1-1-0; -l1-1-7 matches it (last number ignored) */
	CHECK_INT(apiset_resolve(as, "API-MS-Win-CRT-Runtime-L1-1-7.DLL", NULL, &host), 1);
	CHECK_STR(host, "ucrtbase.dll");
	/* but not another minor version (l1-2-0), nor a truncated name */
	CHECK_INT(apiset_resolve(as, "api-ms-win-crt-runtime-l1-2-0.dll", NULL, &host), -1);
	CHECK_INT(apiset_resolve(as, "api-ms-win-crt-runtime.dll", NULL, &host), -1);
	CHECK_INT(apiset_resolve(as, "kernel32.dll", NULL, &host), -1);
	apiset_free(as);
}

/* --- a hand-built schema: one entry with a default and an importer-specific host --- */

struct blob {
	unsigned char b[1024];
	size_t len;
};

static void put32(struct blob *x, size_t off, uint32_t v)
{
	x->b[off] = v & 0xff;
	x->b[off + 1] = (v >> 8) & 0xff;
	x->b[off + 2] = (v >> 16) & 0xff;
	x->b[off + 3] = (v >> 24) & 0xff;
}

static uint32_t put16s(struct blob *x, const char *s)
{
	uint32_t off = (uint32_t)x->len;
	for (; *s; s++) {
		x->b[x->len++] = (unsigned char)*s;
		x->b[x->len++] = 0;
	}
	return off;
}

static void build_schema(struct blob *x, uint32_t version)
{
	uint32_t name, imp, h1, h2;
	memset(x, 0, sizeof(*x));
	/* header 28, entry at 28 (24), values at 52 (2 x 20), hash at 92 (8), strings from 100 */
	x->len = 100;
	name = put16s(x, "api-ms-win-test-thing-l1-1-0");
	imp = put16s(x, "special.dll");
	h1 = put16s(x, "default.dll");
	h2 = put16s(x, "other.dll");
	put32(x, 0, version);
	put32(x, 4, (uint32_t)x->len);
	put32(x, 12, 1);
	put32(x, 16, 28);
	put32(x, 20, 92);
	put32(x, 24, 31);
	put32(x, 28 + 4, name);
	put32(x, 28 + 8, 56);      /* 28 chars */
	put32(x, 28 + 12, 52);     /* up to the last hyphen, without it: 26 chars */
	put32(x, 28 + 16, 52);
	put32(x, 28 + 20, 2);
	put32(x, 52 + 12, h1);
	put32(x, 52 + 16, 22);
	put32(x, 72 + 4, imp);
	put32(x, 72 + 8, 22);
	put32(x, 72 + 12, h2);
	put32(x, 72 + 16, 18);
}

static void test_importer_specific_host(void)
{
	struct blob x;
	struct apiset *as = NULL;
	const char *host = NULL;
	build_schema(&x, 6);
	CHECK_INT(apiset_parse(&as, x.b, x.len, NULL), 0);
	if (!as)
		return;
	CHECK_INT(apiset_resolve(as, "api-ms-win-test-thing-l1-1-0.dll", "torch_cpu.dll", &host), 1);
	CHECK_STR(host, "default.dll");
	CHECK_INT(apiset_resolve(as, "api-ms-win-test-thing-l1-1-0.dll", "SPECIAL.DLL", &host), 1);
	CHECK_STR(host, "other.dll");
	CHECK_INT(apiset_resolve(as, "ext-ms-win-test-thing-l1-1-0.dll", NULL, &host), -1);
	apiset_free(as);
}

static void test_broken_schemas_are_errors(void)
{
	struct blob x;
	struct apiset *as = NULL;
	struct err e;
	err_clear(&e);
	build_schema(&x, 4);
	CHECK_INT(apiset_parse(&as, x.b, x.len, &e), -1);
	CHECK_HAS(e.msg, "version 4");
	build_schema(&x, 6);
	put32(&x, 28 + 4, 5000); /* name outside */
	CHECK_INT(apiset_parse(&as, x.b, x.len, &e), -1);
	CHECK_HAS(e.msg, "entry 0: name at 0x1388");
	build_schema(&x, 6);
	put32(&x, 12, 0x7fffffff); /* count */
	CHECK_INT(apiset_parse(&as, x.b, x.len, &e), -1);
	CHECK_HAS(e.msg, "entries (more than");
	build_schema(&x, 6);
	put32(&x, 4, 100000); /* size beyond the section */
	CHECK_INT(apiset_parse(&as, x.b, x.len, &e), -1);
	CHECK_HAS(e.msg, "exceeds");
	build_schema(&x, 6);
	put32(&x, 28 + 12, 60); /* hashed longer than the name */
	CHECK_INT(apiset_parse(&as, x.b, x.len, &e), -1);
	CHECK_HAS(e.msg, "hashed length");
	CHECK_INT(apiset_parse(&as, x.b, 10, &e), -1);
	CHECK(as == NULL);
}

static void test_fallback_says_so(void)
{
	struct apiset *as = apiset_fallback();
	const char *host = NULL;
	CHECK(apiset_is_fallback(as));
	CHECK_INT(apiset_resolve(as, "api-ms-win-crt-heap-l1-1-0.dll", NULL, &host), 1);
	CHECK_STR(host, "ucrtbase.dll");
	CHECK_INT(apiset_resolve(as, "api-ms-win-core-synch-l1-2-0.dll", NULL, &host), 1);
	CHECK_STR(host, "kernelbase.dll");
	CHECK_INT(apiset_resolve(as, "ext-ms-win-foo-l1-1-0.dll", NULL, &host), -1);
	CHECK(apiset_is_contract("EXT-ms-x-l1-1-0.dll"));
	CHECK(!apiset_is_contract("apix.dll"));
	apiset_free(as);
}

int main(void)
{
	RUN(test_wine_schema_matches_winedump);
	RUN(test_revision_and_case_are_ignored);
	RUN(test_importer_specific_host);
	RUN(test_broken_schemas_are_errors);
	RUN(test_fallback_says_so);
	return HARNESS_EXIT();
}
