/*
 * jsonout: making JSON text safe to print (contracts in jsonout.h).
 */
#include "util/jsonout.h"

#include <string.h>

#include "util/text.h"

/* The body of a string literal s[0..n) (no quotes; JSON escapes kept as they are). */
static void safe_body(struct strbuf *out, const unsigned char *s, size_t n)
{
	size_t i = 0, run;
	while (i < n) {
		unsigned char c = s[i];
		for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '#' && s[run] != '\\'; run++)
			;
		if (run > i) {
			strbuf_add(out, s + i, run - i);
			i = run;
			continue;
		}
		if (c == '\\') {
			/* an escape: copy it whole (\uXXXX's digits are plain ASCII anyway) */
			strbuf_addch(out, '\\');
			if (i + 1 < n)
				strbuf_addch(out, s[i + 1]);
			i += 2;
		} else if (c == '#') {
			strbuf_addch(out, '#');
			i++;
			if (i + 1 < n && s[i] == '#' && s[i + 1] == '[') {
				strbuf_adds(out, "\\u0023");
				i++;
			}
		} else if (c < 0x20 || c == 0x7f) {
			strbuf_addf(out, "\\u%04x", c);
			i++;
		} else if (text_put_char(out, s, n, &i) < 0) {
			strbuf_add(out, "\xef\xbf\xbd", 3); /* not UTF-8: U+FFFD marks the byte */
			i++;
		}
	}
}

void json_safe_append(struct strbuf *out, const char *json, size_t n)
{
	const unsigned char *s = (const unsigned char *)json;
	size_t i = 0;
	strbuf_grow(out, n);
	while (i < n) {
		const unsigned char *q = memchr(s + i, '"', n - i);
		size_t start, end;
		if (!q) {
			strbuf_add(out, s + i, n - i);
			break;
		}
		start = (size_t)(q - s) + 1;
		strbuf_add(out, s + i, start - i);
		/* the closing quote: the first '"' not escaped by a backslash */
		for (end = start; end < n && s[end] != '"'; end++)
			if (s[end] == '\\')
				end++;
		if (end > n)
			end = n;
		safe_body(out, s + start, end - start);
		if (end < n)
			strbuf_addch(out, '"');
		i = end + 1;
	}
}

void json_quote(struct strbuf *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i, run;
	if (!str) {
		strbuf_adds(out, "null");
		return;
	}
	strbuf_addch(out, '"');
	for (i = 0; s[i]; i = run) {
		/* escape quote and backslash here; safe_body does the rest */
		for (run = i; s[run] && s[run] != '"' && s[run] != '\\'; run++)
			;
		safe_body(out, s + i, run - i);
		if (s[run]) {
			strbuf_addch(out, '\\');
			strbuf_addch(out, s[run]);
			run++;
		}
	}
	strbuf_addch(out, '"');
}

void json_print(struct strbuf *out, const cJSON *item, int formatted)
{
	char *s = formatted ? cJSON_Print(item) : cJSON_PrintUnformatted(item);
	if (s) {
		json_safe_append(out, s, strlen(s));
		cJSON_free(s);
	}
}

cJSON *json_str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

void json_add_str_or_null(cJSON *obj, const char *key, const char *s)
{
	cJSON_AddItemToObject(obj, key, json_str_or_null(s));
}

cJSON *json_strlist(const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->v[i]));
	return a;
}

void json_add_strlist(cJSON *obj, const char *key, const struct strlist *l)
{
	cJSON_AddItemToObject(obj, key, json_strlist(l));
}
