/*
 * test_utf: the one UTF-8/UTF-16 module (checker/util/utf.h) against the
 * cases that tell decoders apart: overlong forms, surrogates, > U+10FFFF,
 * cut-off sequences, and unpaired surrogates in UTF-16.
 */
#include "harness.h"
#include "util/strbuf.h"
#include "util/utf.h"

#include <stdint.h>

#define U(s) ((const unsigned char *)(s))

static void test_utf8_len_accepts_shortest_forms_only(void)
{
	CHECK_INT(utf8_len(U("a"), 1), 1);
	CHECK_INT(utf8_len(U("\xc3\xa9"), 2), 2);            /* é */
	CHECK_INT(utf8_len(U("\xe2\x80\xae"), 3), 3);        /* U+202E */
	CHECK_INT(utf8_len(U("\xf0\x9f\x98\x80"), 4), 4);    /* U+1F600 */
	CHECK_INT(utf8_len(U("\xf4\x8f\xbf\xbf"), 4), 4);    /* U+10FFFF */
	CHECK_INT(utf8_len(U("\xc0\xaf"), 2), 0);            /* overlong '/' */
	CHECK_INT(utf8_len(U("\xc1\xbf"), 2), 0);
	CHECK_INT(utf8_len(U("\xe0\x80\xaf"), 3), 0);        /* overlong, 3 bytes */
	CHECK_INT(utf8_len(U("\xf0\x80\x80\xaf"), 4), 0);    /* overlong, 4 bytes */
	CHECK_INT(utf8_len(U("\xed\xa0\x80"), 3), 0);        /* U+D800, a surrogate */
	CHECK_INT(utf8_len(U("\xed\xbf\xbf"), 3), 0);        /* U+DFFF */
	CHECK_INT(utf8_len(U("\xf4\x90\x80\x80"), 4), 0);    /* U+110000 */
	CHECK_INT(utf8_len(U("\xf5\x80\x80\x80"), 4), 0);
	CHECK_INT(utf8_len(U("\x80"), 1), 0);                /* a lone continuation byte */
	CHECK_INT(utf8_len(U("\xc3\xa9"), 1), 0);            /* cut off by the length */
	CHECK_INT(utf8_len(U("\xe2\x80"), 2), 0);
	CHECK_INT(utf8_len(U(""), 0), 0);
	CHECK_INT(utf8_len_z(U("\xe2\x80")), 0);             /* cut off by the NUL */
	CHECK_INT(utf8_len_z(U("\xe2\x80\xae!")), 3);
}

static void test_utf8_next_decodes(void)
{
	size_t i = 0;
	const unsigned char *s = U("a\xc3\xa9\xf0\x9f\x98\x80\xff");
	CHECK_INT(utf8_next(s, 8, &i), 'a');
	CHECK_INT(utf8_next(s, 8, &i), 0xe9);
	CHECK_INT(utf8_next(s, 8, &i), 0x1f600);
	CHECK_INT(i, 7);
	CHECK_INT(utf8_next(s, 8, &i), -1);
	CHECK_INT(i, 7); /* unchanged on failure */
	i = 8;
	CHECK_INT(utf8_next(s, 8, &i), -1);
}

static void test_utf8_valid_and_repair(void)
{
	struct strbuf sb = STRBUF_INIT;
	CHECK(utf8_valid("plain", 5));
	CHECK(utf8_valid("caf\xc3\xa9", 5));
	CHECK(!utf8_valid("x\xff", 2));
	CHECK_INT(utf8_invalid_at("ab\xc0\xaf", 4), 2);
	utf8_repair(&sb, "a\xffz\xc3", 4);
	CHECK_STR(sb.buf, "a\xef\xbf\xbdz\xef\xbf\xbd"); /* one U+FFFD per bad byte */
	strbuf_reset(&sb);
	utf8_repair(&sb, "caf\xc3\xa9", 5);
	CHECK_STR(sb.buf, "caf\xc3\xa9"); /* valid input unchanged */
	strbuf_release(&sb);
}

static void test_utf8_put_and_utf16le_put(void)
{
	struct strbuf sb = STRBUF_INIT;
	utf8_put(&sb, 'A');
	utf8_put(&sb, 0xe9);
	utf8_put(&sb, 0x20ac);
	utf8_put(&sb, 0x1f600);
	utf8_put(&sb, 0xd800);   /* not a scalar value */
	utf8_put(&sb, 0x110000);
	CHECK_STR(sb.buf, "A\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd\xef\xbf\xbd");
	strbuf_reset(&sb);
	utf16le_put(&sb, 'A');
	utf16le_put(&sb, 0x1f600);
	CHECK_INT(sb.len, 6);
	CHECK(!memcmp(sb.buf, "A\0\x3d\xd8\x00\xde", 6));
	strbuf_release(&sb);
}

static void test_utf16le_to_utf8(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t bad_at;
	/* "é", U+1F600 as a pair, then NUL, then "x" */
	static const unsigned char a[] = { 0xe9, 0, 0x3d, 0xd8, 0x00, 0xde, 0, 0, 'x', 0 };
	/* a lone high surrogate, a lone low surrogate, and an odd trailing byte */
	static const unsigned char b[] = { 'a', 0, 0x00, 0xd8, 'b', 0, 0x00, 0xdc, 'c' };
	CHECK_INT(utf16le_to_utf8(&sb, a, sizeof(a), UTF16_STOP_AT_NUL, &bad_at), 0);
	CHECK_STR(sb.buf, "\xc3\xa9\xf0\x9f\x98\x80");
	CHECK_INT(bad_at, sizeof(a));
	strbuf_reset(&sb);
	CHECK_INT(utf16le_to_utf8(&sb, a, sizeof(a), 0, NULL), 0);
	CHECK_INT(sb.len, 8); /* the NUL is kept without UTF16_STOP_AT_NUL */
	strbuf_reset(&sb);
	CHECK_INT(utf16le_to_utf8(&sb, b, sizeof(b), 0, &bad_at), 2);
	CHECK_STR(sb.buf, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	CHECK_INT(bad_at, 2);
	strbuf_reset(&sb);
	CHECK_INT(utf16le_to_utf8(&sb, a, 3, 0, NULL), 0); /* a pair cut in half: one unit, then the odd byte */
	CHECK_STR(sb.buf, "\xc3\xa9");
	strbuf_release(&sb);
}

int main(void)
{
	RUN(test_utf8_len_accepts_shortest_forms_only);
	RUN(test_utf8_next_decodes);
	RUN(test_utf8_valid_and_repair);
	RUN(test_utf8_put_and_utf16le_put);
	RUN(test_utf16le_to_utf8);
	return HARNESS_EXIT();
}
