#include "harness.h"
#include "util/span.h"
#include "util/strbuf.h"

#include <stdint.h>
#include <stdlib.h>

static void test_strbuf_grows_and_detaches(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;
	int i;
	strbuf_init(&sb);
	CHECK_STR(strbuf_str(&sb), "");
	for (i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%d,", i % 10);
	CHECK_INT(sb.len, 2000);
	s = strbuf_detach(&sb);
	CHECK_INT(strlen(s), 2000);
	CHECK_INT(sb.len, 0);
	free(s);
	strbuf_release(&sb);
}

static void test_strlist_push(void)
{
	struct strlist l = STRLIST_INIT;
	strlist_push(&l, "a");
	strlist_pushf(&l, "%s-%d", "b", 2);
	CHECK_INT(l.n, 2);
	CHECK_STR(l.v[1], "b-2");
	strlist_release(&l);
	CHECK_INT(l.n, 0);
}

static void test_icmp_is_ascii_case_insensitive(void)
{
	CHECK(str_icmp("VCRUNTIME140.dll", "vcruntime140.DLL") == 0);
	CHECK(str_icmp("a", "b") < 0);
	CHECK(str_iendswith("torch_cpu.DLL", ".dll"));
	CHECK(str_istartswith("API-MS-win-crt-runtime-l1-1-0.dll", "api-"));
	CHECK(!str_istartswith("ap", "api-"));
}

static void test_span_reads_refuse_out_of_bounds(void)
{
	unsigned char b[6] = { 1, 2, 3, 4, 5, 0 };
	struct span s = span_make(b, sizeof(b));
	uint32_t v;
	uint16_t w;
	uint64_t q;
	const char *str;
	size_t n;
	CHECK(span_u32(s, 0, &v) == 0 && v == 0x04030201);
	CHECK(span_u32(s, 2, &v) == 0);
	CHECK(span_u32(s, 3, &v) == -1);
	CHECK(span_u32(s, SIZE_MAX - 1, &v) == -1);
	CHECK(span_u16(s, 5, &w) == -1);
	CHECK(span_u64(s, 0, &q) == -1);
	CHECK(span_cstr(s, 0, 100, &str, &n) == 0 && n == 5);
	CHECK(span_cstr(s, 0, 3, &str, &n) == -1);
	CHECK(span_cstr(s, 6, 3, &str, &n) == -1);
}

static void test_strbuf_buf_is_never_null(void)
{
	struct strbuf a = STRBUF_INIT, b;
	char *d;
	CHECK(a.buf != NULL);
	CHECK_STR(a.buf, "");
	strbuf_init(&b);
	CHECK(b.buf != NULL && b.buf[0] == '\0');
	strbuf_add(&b, "", 0); /* an empty add allocates; the shared empty string is never written */
	CHECK_STR(b.buf, "");
	strbuf_reset(&a);
	CHECK_STR(a.buf, "");
	d = strbuf_detach(&a); /* detaching an empty buffer hands over a fresh "" */
	CHECK_STR(d, "");
	CHECK(d != strbuf_slopbuf);
	CHECK(a.buf == strbuf_slopbuf);
	free(d);
	strbuf_release(&b);
	CHECK(b.buf != NULL && b.len == 0);
	CHECK_INT(strbuf_slopbuf[0], 0);
}

/* strlist_has: exact; strlist_has_icase / strlist_find_icase: as Windows compares names. */
static void test_strlist_contains(void)
{
	struct strlist l = STRLIST_INIT;
	CHECK(!strlist_has(&l, "a"));
	CHECK(!strlist_has_icase(NULL, "a"));
	CHECK(!strlist_has(NULL, "a"));
	strlist_push(&l, "torch_cpu.dll");
	strlist_push(&l, "C:\\Python\\DLLs");
	CHECK(strlist_has(&l, "torch_cpu.dll"));
	CHECK(!strlist_has(&l, "TORCH_CPU.DLL"));
	CHECK(!strlist_has(&l, "torch_cpu"));
	CHECK(!strlist_has(&l, NULL));
	CHECK(strlist_has_icase(&l, "TORCH_CPU.DLL"));
	CHECK(strlist_has_icase(&l, "c:\\python\\dlls"));
	CHECK(!strlist_has_icase(&l, "torch_cpu.dl"));
	CHECK(!strlist_has_icase(&l, NULL));
	CHECK(strlist_find_icase(&l, "Torch_Cpu.Dll") == l.v[0]);
	CHECK(strlist_find_icase(&l, "c10.dll") == NULL);
	strlist_release(&l);
}

/* A capped buffer keeps its newest bytes: past the cap, down to half of it. */
static void test_add_capped_keeps_the_end(void)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_capped(&sb, "abcdef", 6, 8);
	CHECK_STR(sb.buf, "abcdef");
	strbuf_add_capped(&sb, "gh", 2, 8); /* exactly the cap: kept */
	CHECK_STR(sb.buf, "abcdefgh");
	strbuf_add_capped(&sb, "ij", 2, 8); /* past it: the newest 4 */
	CHECK_STR(sb.buf, "ghij");
	CHECK_INT(sb.len, 4);
	strbuf_add_capped(&sb, "0123456789", 10, 8);
	CHECK_STR(sb.buf, "6789");
	strbuf_release(&sb);
}

int main(void)
{
	RUN(test_strbuf_buf_is_never_null);
	RUN(test_strbuf_grows_and_detaches);
	RUN(test_strlist_push);
	RUN(test_strlist_contains);
	RUN(test_add_capped_keeps_the_end);
	RUN(test_icmp_is_ascii_case_insensitive);
	RUN(test_span_reads_refuse_out_of_bounds);
	return HARNESS_EXIT();
}
