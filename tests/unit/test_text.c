/*
 * test_text: the one escaper for untrusted text in a line, and the JSON
 * escaping built on the same rules (checker/util/text.h, jsonout.h).
 */
#include "harness.h"
#include "util/jsonout.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/utf.h"

#include <stdlib.h>

static const char *esc(struct strbuf *sb, const char *s, unsigned flags)
{
	strbuf_reset(sb);
	text_esc(sb, s, strlen(s), flags);
	return sb->buf;
}

static void test_controls_c1_bidi_and_bad_bytes_are_visible(void)
{
	struct strbuf sb = STRBUF_INIT;
	CHECK_STR(esc(&sb, "a\x1b[2J\x07\r\n\tb\x7f", 0), "a\\x1b[2J\\x07\\r\\n\\tb\\x7f");
	CHECK_STR(esc(&sb, "x\xc2\x9b" "31m", 0), "x\\u009b31m");                 /* C1 CSI */
	CHECK_STR(esc(&sb, "evil\xe2\x80\xae" "lld.exe", 0), "evil\\u202elld.exe"); /* RLO */
	CHECK_STR(esc(&sb, "\xe2\x81\xa6x\xe2\x81\xa9", 0), "\\u2066x\\u2069");    /* isolates */
	CHECK_STR(esc(&sb, "a\xe2\x80\x8b" "b", 0), "a\\u200bb");                  /* zero-width space */
	CHECK_STR(esc(&sb, "\xef\xbb\xbf" "x\xe2\x80\xa8y", 0), "\\ufeffx\\u2028y");
	CHECK_STR(esc(&sb, "bad\xff\xc0\xaf", 0), "bad\\xff\\xc0\\xaf");             /* invalid UTF-8 */
	CHECK_STR(esc(&sb, "caf\xc3\xa9 \xe4\xb8\xad", 0), "caf\xc3\xa9 \xe4\xb8\xad"); /* text stays text */
	CHECK_STR(esc(&sb, "C:\\Python311\\Lib\\torch\\lib\\c10.dll", 0), "C:\\Python311\\Lib\\torch\\lib\\c10.dll");
	CHECK_STR(esc(&sb, "a\nb", TEXT_ESC_KEEP_NL), "a\nb");
	strbuf_release(&sb);
}

static void test_workflow_triggers_broken_visibly(void)
{
	struct strbuf sb = STRBUF_INIT;
	/* "::" where a line can start (after blanks, which the runner trims) */
	CHECK_STR(esc(&sb, "::error::x", TEXT_ESC_WORKFLOW), "\\x3a:error::x");
	CHECK_STR(esc(&sb, "  \t::error::x", TEXT_ESC_WORKFLOW), "  \\t\\x3a:error::x");
	CHECK_STR(esc(&sb, ":", TEXT_ESC_WORKFLOW), "\\x3a");
	CHECK_STR(esc(&sb, "\xe3\x80\x80\xc2\xa0::error::x", TEXT_ESC_WORKFLOW), "\xe3\x80\x80\xc2\xa0\\x3a:error::x"); /* a ':' before the text could complete it */
	/* a line break in the text is escaped, so "::" further on cannot start a line: kept */
	CHECK_STR(esc(&sb, "pytorch::pytorch=2.3.1", TEXT_ESC_WORKFLOW), "pytorch::pytorch=2.3.1");
	CHECK_STR(esc(&sb, "x\n::error::y", TEXT_ESC_WORKFLOW), "x\\n::error::y");
	CHECK_STR(esc(&sb, "x\n::error::y", TEXT_ESC_WORKFLOW | TEXT_ESC_KEEP_NL), "x\n\\x3a:error::y");
	/* the legacy form counts anywhere */
	CHECK_STR(esc(&sb, "x##[add-mask]torch##[error]pwned.dll", TEXT_ESC_WORKFLOW),
		  "x#\\x23[add-mask]torch#\\x23[error]pwned.dll");
	CHECK_STR(esc(&sb, "###[", TEXT_ESC_WORKFLOW), "##\\x23[");
	CHECK_STR(esc(&sb, "#[error]x", TEXT_ESC_WORKFLOW), "\\x23[error]x"); /* a '#' before could complete it */
	CHECK_STR(esc(&sb, "C:\\x ## [ a#[ :", TEXT_ESC_WORKFLOW), "C:\\x ## [ a#[ :"); /* near misses stay */
	CHECK_STR(esc(&sb, "::error::x", 0), "::error::x");
	/* nothing invisible is inserted: the output is ASCII when the input is */
	CHECK(!strstr(esc(&sb, "##[error]::x", TEXT_ESC_WORKFLOW), "\xe2\x80\x8b"));
	strbuf_reset(&sb);
	text_esc_line(&sb, NULL);
	CHECK_STR(sb.buf, "");
	strbuf_release(&sb);
}

static void test_quote_cuts_on_a_character(void)
{
	struct strbuf sb = STRBUF_INIT;
	CHECK_STR(text_quote(&sb, "ab\xc3\xa9" "cd", 3), "ab...");
	strbuf_reset(&sb);
	CHECK_STR(text_quote(&sb, "short", 10), "short");
	{
		char buf[12];
		CHECK_STR(text_excerpt("a\x1b" "bcdefghijk", 12, 60, buf, sizeof(buf)), "a\\x1bbcd...");
		CHECK_STR(text_excerpt("abcdef", 6, 3, buf, sizeof(buf)), "abc...");
		CHECK_STR(text_excerpt("abc", 3, 60, buf, sizeof(buf)), "abc");
		CHECK_STR(text_excerpt("abc", 3, 60, buf, 1), "");
	}
	CHECK(text_needs_esc("::b", 3));
	CHECK(!text_needs_esc("a::b", 4));
	strbuf_release(&sb);
}

static void test_addf_escapes_string_arguments_only(void)
{
	struct strbuf sb = STRBUF_INIT;
	text_addf(&sb, "%s|%-6s|%6s|%.3s|%d|%zu|%04x|%c|%%\n", "a\nb", "x\x1b", "y", "abcdef", -5, (size_t)7, 255, 'q');
	CHECK_STR(sb.buf, "a\\nb|x\\x1b |     y|abc|-5|7|00ff|q|%\n");
	strbuf_reset(&sb);
	text_addf(&sb, "%*s|%-*s|%.*s|%lu|%lld", 4, "z", 3, "w", 2, "##[error]", 9ul, -1ll);
	CHECK_STR(sb.buf, "   z|w  |##|9|-1");
	strbuf_reset(&sb);
	text_addf(&sb, "%s|%s", "::set-output name=x::y", "a\r::b");
	CHECK_STR(sb.buf, "\\x3a:set-output name=x::y|a\\r::b");
	strbuf_release(&sb);
}

static void test_json_strings_are_valid_and_inert(void)
{
	struct strbuf sb = STRBUF_INIT;
	cJSON *o = cJSON_CreateObject(), *back;
	const char *hostile = "x##[add-mask]torch##[error]pwned\xff.dll\xc2\x9b\xe2\x80\xae\n::warning::";
	cJSON_AddStringToObject(o, "name", hostile);
	cJSON_AddStringToObject(o, "ok", "caf\xc3\xa9 # [x] a:b");
	json_print(&sb, o, 1);
	CHECK(!strstr(sb.buf, "##["));
	CHECK(!strstr(sb.buf, "\xc2\x9b"));
	CHECK(!strstr(sb.buf, "\xe2\x80\xae"));
	CHECK(utf8_valid(sb.buf, sb.len));
	CHECK_HAS(sb.buf, "#\\u0023[add-mask]");
	CHECK_HAS(sb.buf, "\\u009b\\u202e\\n::warning::");
	/* a parser reads the same strings back, with U+FFFD where the bytes were not UTF-8 */
	back = cJSON_Parse(sb.buf);
	CHECK(back != NULL);
	if (back) {
		CHECK_STR(cJSON_GetObjectItem(back, "name")->valuestring,
			  "x##[add-mask]torch##[error]pwned\xef\xbf\xbd.dll\xc2\x9b\xe2\x80\xae\n::warning::");
		CHECK_STR(cJSON_GetObjectItem(back, "ok")->valuestring, "caf\xc3\xa9 # [x] a:b");
		cJSON_Delete(back);
	}
	strbuf_reset(&sb);
	json_quote(&sb, "q\"b\\s\n::##[");
	CHECK_STR(sb.buf, "\"q\\\"b\\\\s\\u000a::#\\u0023[\"");
	strbuf_reset(&sb);
	json_quote(&sb, NULL);
	CHECK_STR(sb.buf, "null");
	/* escaping twice changes nothing more */
	strbuf_reset(&sb);
	{
		const char *twice = "{\"a\":\"x::y#\\u0023[\"}";
		json_safe_append(&sb, twice, strlen(twice));
	}
	CHECK_STR(sb.buf, "{\"a\":\"x::y#\\u0023[\"}");
	cJSON_Delete(o);
	strbuf_release(&sb);
}

/* Only a ':' that can come first on a line is escaped (issue: "imports (2 DLLs)\x3a"). */
static void test_colon_escaped_only_at_line_start(void)
{
	struct strbuf sb = STRBUF_INIT;
	text_addf(&sb, "  %s (%d DLLs)%s\n", "imports", 2, ":");
	CHECK_STR(sb.buf, "  imports (2 DLLs):\n");
	text_addf(&sb, "%s", "::error::x");
	CHECK_STR(sb.buf, "  imports (2 DLLs):\n\\x3a:error::x");
	strbuf_reset(&sb);
	strbuf_adds(&sb, "   ");
	text_esc_line(&sb, "::warning::y");
	CHECK_STR(sb.buf, "   \\x3a:warning::y");
	strbuf_reset(&sb);
	strbuf_adds(&sb, "why: ");
	text_esc_line(&sb, ": (measured)");
	CHECK_STR(sb.buf, "why: : (measured)");
	strbuf_reset(&sb);
	strbuf_adds(&sb, "a\r");
	text_esc_line(&sb, ":z");
	CHECK_STR(sb.buf, "a\r\\x3az");
	strbuf_reset(&sb);
	strbuf_adds(&sb, "x#");
	text_esc_line(&sb, "#[y");
	CHECK_STR(sb.buf, "x#\\x23[y"); /* "##[" anywhere still broken */
	strbuf_release(&sb);
}

/* A string list as a JSON array member, in order; an empty list is [] (never null). */
static void test_json_strlist(void)
{
	struct strlist l = STRLIST_INIT;
	struct strbuf sb = STRBUF_INIT;
	cJSON *o = cJSON_CreateObject();
	json_add_strlist(o, "none", &l);
	strlist_push(&l, "b.dll");
	strlist_push(&l, "a.dll");
	json_add_strlist(o, "two", &l);
	json_print(&sb, o, 0);
	CHECK_STR(sb.buf, "{\"none\":[],\"two\":[\"b.dll\",\"a.dll\"]}");
	cJSON_Delete(o);
	strbuf_release(&sb);
	strlist_release(&l);
}

int main(void)
{
	RUN(test_colon_escaped_only_at_line_start);
	RUN(test_controls_c1_bidi_and_bad_bytes_are_visible);
	RUN(test_workflow_triggers_broken_visibly);
	RUN(test_quote_cuts_on_a_character);
	RUN(test_addf_escapes_string_arguments_only);
	RUN(test_json_strings_are_valid_and_inert);
	RUN(test_json_strlist);
	return HARNESS_EXIT();
}
