/*
 * fuzz_escape: the one line escaper (text.h) and the JSON escaping
 * (jsonout.h) on arbitrary bytes. Besides never crashing:
 *   - text_esc's output has no byte below 0x20 but none, no DEL, no C1 or
 *     invisible character, is valid UTF-8, and with TEXT_ESC_WORKFLOW holds
 *     no "##[" and does not start with "::" after blanks;
 *   - a JSON string of the input, escaped, is valid UTF-8, parses back to
 *     the input with U+FFFD for each byte that is not UTF-8, holds no "##[",
 *     and escaping it again changes nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/jsonout.h"
#include "util/text.h"
#include "util/utf.h"

#include "oracle.h"


static void check_line(const struct strbuf *sb)
{
	size_t i = 0;
	if (!utf8_valid(sb->buf, sb->len) || strstr(sb->buf, "##["))
		abort();
	while (i < sb->len) {
		long cp = utf8_next((const unsigned char *)sb->buf, sb->len, &i);
		if (cp < 0x20 || cp == 0x7f || text_is_invisible(cp))
			abort();
	}
	i = strspn(sb->buf, " ");
	if (sb->buf[i] == ':')
		abort();
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct strbuf line = STRBUF_INIT, repaired = STRBUF_INIT, json = STRBUF_INIT, again = STRBUF_INIT;
	char *s;
	cJSON *back;

	if (size > 1 << 16)
		return 0;
	text_esc(&line, (const char *)data, size, TEXT_ESC_WORKFLOW);
	check_line(&line);

	s = xstrndup((const char *)data, size); /* a C string: up to the first NUL */
	json_quote(&json, s);
	if (!utf8_valid(json.buf, json.len) || strstr(json.buf, "##["))
		abort();
	back = cJSON_ParseWithLength(json.buf, json.len);
	if (!back || !cJSON_IsString(back))
		abort();
	utf8_repair(&repaired, s, strlen(s));
	if (strcmp(back->valuestring, repaired.buf))
		abort();
	json_safe_append(&again, json.buf, json.len);
	if (again.len != json.len || memcmp(again.buf, json.buf, json.len))
		abort();
	cJSON_Delete(back);
	free(s);
	strbuf_release(&line);
	strbuf_release(&repaired);
	strbuf_release(&json);
	strbuf_release(&again);
	return 0;
}
