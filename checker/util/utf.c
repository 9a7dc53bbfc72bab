/*
 * utf: UTF-8 and UTF-16 conversions (contracts in utf.h).
 */
#include "util/utf.h"

size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need, k;
	uint32_t cp, min;
	if (!n)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 1, cp = s[0] & 0x1fu, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 2, cp = s[0] & 0x0fu, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 3, cp = s[0] & 0x07u, min = 0x10000;
	else
		return 0;
	if (n <= need)
		return 0;
	for (k = 1; k <= need; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3fu);
	}
	if (cp < min || !utf_is_scalar(cp))
		return 0;
	return need + 1;
}

size_t utf8_len_z(const unsigned char *s)
{
	size_t n = 0;
	/* A sequence is at most 4 bytes: look no further than the NUL. */
	while (n < 4 && s[n])
		n++;
	return utf8_len(s, n);
}

long utf8_next(const unsigned char *s, size_t n, size_t *i)
{
	size_t k, len = *i < n ? utf8_len(s + *i, n - *i) : 0;
	uint32_t cp;
	if (!len)
		return -1;
	cp = len == 1 ? s[*i] : (uint32_t)(s[*i] & (0x7fu >> len));
	for (k = 1; k < len; k++)
		cp = (cp << 6) | (s[*i + k] & 0x3fu);
	*i += len;
	return (long)cp;
}

size_t utf8_invalid_at(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;
	while (i < n) {
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		k = utf8_len(s + i, n - i);
		if (!k)
			return i;
		i += k;
	}
	return n;
}

int utf8_valid(const char *s, size_t n)
{
	return utf8_invalid_at(s, n) == n;
}

void utf8_repair(struct strbuf *out, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		size_t run = utf8_invalid_at((const char *)s + i, n - i);
		strbuf_add(out, s + i, run);
		i += run;
		if (i < n) {
			strbuf_add(out, "\xef\xbf\xbd", 3);
			i++;
		}
	}
}

void utf8_put(struct strbuf *out, uint32_t cp)
{
	char *b;
	/* called per character by the registry and UTF-16 readers: written in place */
	if (out->len + 5 > out->alloc)
		strbuf_grow(out, 4);
	b = out->buf + out->len;
	if (!utf_is_scalar(cp))
		cp = UTF_REPLACEMENT;
	if (cp < 0x80) {
		b[0] = (char)cp;
		out->len += 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xc0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3f));
		out->len += 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xe0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (char)(0x80 | (cp & 0x3f));
		out->len += 3;
	} else {
		b[0] = (char)(0xf0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[3] = (char)(0x80 | (cp & 0x3f));
		out->len += 4;
	}
	out->buf[out->len] = '\0';
}

static void put_u16(struct strbuf *out, uint32_t u)
{
	if (out->len + 3 > out->alloc)
		strbuf_grow(out, 2);
	out->buf[out->len++] = (char)(u & 0xff);
	out->buf[out->len++] = (char)((u >> 8) & 0xff);
	out->buf[out->len] = '\0';
}

void utf16le_put(struct strbuf *out, uint32_t cp)
{
	if (!utf_is_scalar(cp))
		cp = UTF_REPLACEMENT;
	if (cp >= 0x10000) {
		cp -= 0x10000;
		put_u16(out, 0xd800 | (cp >> 10));
		put_u16(out, 0xdc00 | (cp & 0x3ff));
	} else {
		put_u16(out, cp);
	}
}

size_t utf16le_to_utf8(struct strbuf *out, const unsigned char *p, size_t len, unsigned flags, size_t *bad_at)
{
	size_t off, bad = 0;
	if (bad_at)
		*bad_at = len;
	/* room for all of it (a code unit is at most 3 bytes of UTF-8): ASCII is stored directly */
	strbuf_grow(out, len / 2 * 3 + 4);
	for (off = 0; off < len && len - off >= 2; off += 2) {
		uint32_t u = (uint32_t)p[off] | ((uint32_t)p[off + 1] << 8), u2;
		if (u == 0 && (flags & UTF16_STOP_AT_NUL))
			break;
		if (u < 0x80) {
			out->buf[out->len++] = (char)u;
			continue;
		}
		if (u >= 0xd800 && u <= 0xdbff && len - off >= 4) {
			u2 = (uint32_t)p[off + 2] | ((uint32_t)p[off + 3] << 8);
			if (u2 >= 0xdc00 && u2 <= 0xdfff) {
				utf8_put(out, 0x10000 + ((u - 0xd800) << 10) + (u2 - 0xdc00));
				off += 2;
				continue;
			}
		}
		if (u >= 0xd800 && u <= 0xdfff) {
			if (!bad++ && bad_at)
				*bad_at = off;
			u = UTF_REPLACEMENT;
		}
		utf8_put(out, u);
	}
	out->buf[out->len] = '\0';
	return bad;
}
