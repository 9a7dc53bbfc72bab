/*
 * confirm_line: the helper's lines, written and read (see confirm_line.h).
 */
#include "judge/confirm_line.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

void confirm_line_quote(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	strbuf_addch(sb, '"');
	for (; *p; p++) {
		switch (*p) {
		case '"': strbuf_adds(sb, "\\\""); break;
		case '\\': strbuf_adds(sb, "\\\\"); break;
		case '\b': strbuf_adds(sb, "\\b"); break;
		case '\f': strbuf_adds(sb, "\\f"); break;
		case '\n': strbuf_adds(sb, "\\n"); break;
		case '\r': strbuf_adds(sb, "\\r"); break;
		case '\t': strbuf_adds(sb, "\\t"); break;
		default:
			if (*p < 32)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addch(sb, (char)*p);
		}
	}
	strbuf_addch(sb, '"');
}

/* A number of a child's line, kept in int's range: converting 5e111 to int is undefined behaviour (fuzz_confirm). */
static double clamp_int(double v)
{
	if (!(v >= INT_MIN)) /* NaN too */
		return INT_MIN;
	return v > INT_MAX ? INT_MAX : v;
}

/* What cJSON skips as white space (every byte up to ' '), so that a line reads as it did with cJSON's parser. */
static const char *skip_ws(const char *p)
{
	while (*p && (unsigned char)*p <= ' ')
		p++;
	return p;
}

/* A JSON number at p (cJSON's reading: the span of number characters, then strtod); the end, or NULL. */
static const char *parse_number(const char *p, double *out)
{
	size_t n = strspn(p, "0123456789+-.eE");
	char *buf, *end;
	const char *r;
	if (!n)
		return NULL;
	buf = xstrndup(p, n);
	*out = strtod(buf, &end);
	r = end > buf ? p + (end - buf) : NULL;
	free(buf);
	return r;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* cJSON's parse_hex4: four hex digits, any other character making the whole value 0. */
static unsigned hex4(const char *p)
{
	unsigned h = 0;
	int i;
	for (i = 0; i < 4; i++) {
		int d = hexval((unsigned char)p[i]);
		if (d < 0)
			return 0;
		h = h << 4 | (unsigned)d;
	}
	return h;
}

static void add_utf8(struct strbuf *sb, unsigned c)
{
	if (c < 0x80) {
		strbuf_addch(sb, (int)c);
	} else if (c < 0x800) {
		strbuf_addch(sb, (int)(0xC0 | c >> 6));
		strbuf_addch(sb, (int)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		strbuf_addch(sb, (int)(0xE0 | c >> 12));
		strbuf_addch(sb, (int)(0x80 | (c >> 6 & 0x3F)));
		strbuf_addch(sb, (int)(0x80 | (c & 0x3F)));
	} else {
		strbuf_addch(sb, (int)(0xF0 | c >> 18));
		strbuf_addch(sb, (int)(0x80 | (c >> 12 & 0x3F)));
		strbuf_addch(sb, (int)(0x80 | (c >> 6 & 0x3F)));
		strbuf_addch(sb, (int)(0x80 | (c & 0x3F)));
	}
}

/*
 * A JSON string at p (at its '"'): its text into *out (NULL: only skipped);
 * the end, or NULL when malformed. As cJSON reads one: the end is the first
 * unescaped '"', and a \u escape whose digits are not hex is U+0000 (which
 * ends the C string).
 */
static const char *parse_string(const char *p, char **out)
{
	const char *q = p + 1, *end = q;
	struct strbuf sb = STRBUF_INIT;
	while (*end && *end != '"') {
		if (*end == '\\' && !*++end)
			return NULL;
		end++;
	}
	if (*end != '"')
		return NULL;
	while (q < end) {
		unsigned c, lo;
		if (*q != '\\') {
			strbuf_addch(&sb, *q++);
			continue;
		}
		switch (q[1]) {
		case '"': case '\\': case '/': strbuf_addch(&sb, q[1]); break;
		case 'b': strbuf_addch(&sb, '\b'); break;
		case 'f': strbuf_addch(&sb, '\f'); break;
		case 'n': strbuf_addch(&sb, '\n'); break;
		case 'r': strbuf_addch(&sb, '\r'); break;
		case 't': strbuf_addch(&sb, '\t'); break;
		case 'u':
			if (end - q < 6)
				goto bad;
			c = hex4(q + 2);
			if (c >= 0xDC00 && c <= 0xDFFF)
				goto bad;
			if (c >= 0xD800 && c <= 0xDBFF) { /* a surrogate pair */
				if (end - (q + 6) < 6 || q[6] != '\\' || q[7] != 'u')
					goto bad;
				lo = hex4(q + 8);
				if (lo < 0xDC00 || lo > 0xDFFF)
					goto bad;
				c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
				q += 6;
			}
			add_utf8(&sb, c);
			q += 6;
			continue;
		default:
			goto bad;
		}
		q += 2;
	}
	if (out)
		*out = strbuf_detach(&sb);
	else
		strbuf_release(&sb);
	return end + 1;
bad:
	strbuf_release(&sb);
	return NULL;
}

/* Any JSON value at p, skipped: the end, or NULL when malformed (nested to cJSON's limit, 1000 deep). */
static const char *skip_value(const char *p, int depth)
{
	char close;
	p = skip_ws(p);
	if (*p == '"')
		return parse_string(p, NULL);
	if (*p == '{' || *p == '[') {
		if (depth >= 1000)
			return NULL;
		close = *p == '{' ? '}' : ']';
		p = skip_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				if (*p != '"' || !(p = parse_string(p, NULL)))
					return NULL;
				p = skip_ws(p);
				if (*p++ != ':')
					return NULL;
			}
			if (!(p = skip_value(p, depth + 1)))
				return NULL;
			p = skip_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
			p = skip_ws(p);
		}
	}
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		double v;
		return parse_number(p, &v);
	}
	return NULL;
}

void confirm_line_release(struct confirm_line *l)
{
	free(l->path);
	free(l->kind);
	free(l->stage);
	memset(l, 0, sizeof(*l));
}

/* A string member: the first of that name counts. */
static const char *take_string(const char *p, const char *key, const char *want, char **dst, int *seen)
{
	char *v = NULL;
	if (strcmp(key, want) || *seen)
		return NULL;
	*seen = 1;
	if (*p != '"')
		return skip_value(p, 0);
	p = parse_string(p, &v);
	*dst = v;
	return p;
}

static const char *take_number(const char *p, const char *key, const char *want, double *dst, int *has, int *seen)
{
	if (strcmp(key, want) || *seen)
		return NULL;
	*seen = 1;
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		double v;
		const char *end = parse_number(p, &v);
		if (!end)
			return NULL;
		*dst = clamp_int(v);
		*has = 1;
		return end;
	}
	return skip_value(p, 0);
}

/* A byte count: a whole number in [0, CONFIRM_LINE_MAX_BYTES], else absent (a DllMain may print anything). */
static const char *take_bytes(const char *p, const char *key, const char *want, double *dst, int *has, int *seen)
{
	double v;
	const char *end = take_number(p, key, want, &v, has, seen);
	if (end && *has) {
		/* take_number clamped to int's range: read the number again, unclamped */
		parse_number(p, &v);
		*has = v >= 0 && v <= CONFIRM_LINE_MAX_BYTES && v == (double)(long long)v;
		*dst = *has ? v : 0;
	}
	return end;
}

int confirm_line_parse(const char *p, struct confirm_line *l)
{
	int seen[8] = { 0 };
	char *event = NULL;
	memset(l, 0, sizeof(*l));
	p = skip_ws(p);
	if (*p++ != '{')
		return -1;
	p = skip_ws(p);
	if (*p == '}')
		goto done;
	for (;;) {
		char *key = NULL;
		const char *q;
		if (*p != '"' || !(p = parse_string(p, &key)))
			goto bad;
		p = skip_ws(p);
		if (*p++ != ':') {
			free(key);
			goto bad;
		}
		p = skip_ws(p);
		if (!(q = take_string(p, key, "path", &l->path, &seen[0])) &&
		    !(q = take_string(p, key, "kind", &l->kind, &seen[1])) &&
		    !(q = take_string(p, key, "stage", &l->stage, &seen[2])) &&
		    !(q = take_string(p, key, "event", &event, &seen[3])) &&
		    !(q = take_number(p, key, "error", &l->error, &l->has_error, &seen[4])) &&
		    !(q = take_number(p, key, "first_error", &l->first_error, &l->has_first, &seen[5])) &&
		    !(q = take_bytes(p, key, "private_before", &l->private_before, &l->has_before, &seen[6])) &&
		    !(q = take_bytes(p, key, "private_after", &l->private_after, &l->has_after, &seen[7])))
			q = skip_value(p, 0);
		free(key);
		if (!(p = q))
			goto bad;
		p = skip_ws(p);
		if (*p == '}')
			break;
		if (*p++ != ',')
			goto bad;
		p = skip_ws(p);
	}
done:
	l->event = event != NULL;
	free(event);
	if (!l->path)
		goto bad_done;
	return 0;
bad:
	free(event);
bad_done:
	confirm_line_release(l);
	return -1;
}
