/*
 * registry_lines: reading a text registry file as lines (registry_lines.h):
 * the encoding from the first bytes (a UTF-16LE BOM, UTF-16LE without one,
 * a UTF-8 BOM or plain UTF-8; UTF-16 big-endian and an odd UTF-16 length
 * refused), each line checked or decoded, a line over 64 MiB refused, and
 * a mapped file's pages given back in steps of 1 MiB as the reader moves on.
 */
#include "machine/registry_lines.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "util/os.h"
#include "util/span.h"
#include "util/utf.h"

int reg_perr(struct parser *ps, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	err_set(ps->err, "%s:%lu: %s", ps->name, ps->line_no, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* Checks one line of UTF-8 text: valid, no NUL. */
static int check_utf8_line(struct parser *ps, const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		/* eight bytes at a time while they are all ASCII and none is NUL (the common case) */
		while (n - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if ((w & 0x8080808080808080ull) || ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if (s[i] && s[i] < 0x80) {
			i++;
			continue;
		}
		if (!s[i])
			return reg_perr(ps, "NUL byte in a text file (a UTF-16 file without its BOM?)");
		if (utf8_next(s, n, &i) < 0)
			return reg_perr(ps, "invalid UTF-8 (reg export files are UTF-16LE with a BOM or UTF-8)");
	}
	return 0;
}

/* One line of UTF-16LE code units → ps->line in UTF-8. */
static int decode_utf16_line(struct parser *ps, const unsigned char *p, size_t len)
{
	struct span s = span_make(p, len);
	size_t off;
	uint16_t u, u2;
	strbuf_reset(&ps->line);
	/* room for the whole line (a code unit is at most 3 UTF-8 bytes): ASCII is stored directly */
	strbuf_grow(&ps->line, len / 2 * 3);
	for (off = 0; span_u16(s, off, &u) == 0; off += 2) {
		if (u == 0)
			return reg_perr(ps, "NUL character in the text");
		if (u < 0x80) {
			ps->line.buf[ps->line.len++] = (char)u;
		} else if (u >= 0xd800 && u <= 0xdbff) {
			if (span_u16(s, off + 2, &u2) || u2 < 0xdc00 || u2 > 0xdfff)
				return reg_perr(ps, "unpaired UTF-16 surrogate 0x%04x", u);
			utf8_put(&ps->line, 0x10000 + (((uint32_t)u - 0xd800) << 10) + (u2 - 0xdc00));
			off += 2;
		} else if (u >= 0xdc00 && u <= 0xdfff) {
			return reg_perr(ps, "unpaired UTF-16 surrogate 0x%04x", u);
		} else {
			utf8_put(&ps->line, u);
		}
	}
	ps->line.buf[ps->line.len] = '\0';
	return 0;
}

/* Gives the pages of a mapped file that lie wholly before `upto` back to the OS. */
static void drop_read_pages(struct parser *ps, size_t upto)
{
	size_t n;
	if (!ps->mapped || upto < ps->dropped || upto - ps->dropped < REG_DROP_CHUNK)
		return;
	n = (upto - ps->dropped) / REG_DROP_CHUNK * REG_DROP_CHUNK;
	os_drop_pages(ps->raw + ps->dropped, n);
	ps->dropped += n;
}

/*
 * The next physical line, decoded and checked, without its CR LF: 1; 0 at the
 * end of the text; -1 (error set, naming the line) for a bad one.
 */
int reg_next_line(struct parser *ps, const char **line, size_t *n)
{
	const unsigned char *p;
	size_t rest, len;
	if (ps->pos >= ps->len)
		return 0;
	p = ps->raw + ps->pos;
	rest = ps->len - ps->pos;
	ps->line_no++;
	if (ps->enc == ENC_UTF8) {
		const unsigned char *nl = memchr(p, '\n', rest);
		len = nl ? (size_t)(nl - p) : rest;
		ps->pos += nl ? len + 1 : len;
		if (len > REG_MAX_LINE)
			return reg_perr(ps, "line longer than %zu bytes", REG_MAX_LINE);
		if (check_utf8_line(ps, p, len))
			return -1;
		*line = (const char *)p;
	} else {
		size_t k;
		for (k = 0; k + 1 < rest && !(p[k] == '\n' && p[k + 1] == 0); k += 2)
			;
		len = k < rest ? k : rest;
		ps->pos += k + 1 < rest ? len + 2 : rest;
		if (len > 2 * REG_MAX_LINE)
			return reg_perr(ps, "line longer than %zu bytes", 2 * REG_MAX_LINE);
		if (decode_utf16_line(ps, p, len))
			return -1;
		*line = ps->line.buf;
		len = ps->line.len;
	}
	drop_read_pages(ps, ps->pos);
	if (len && (*line)[len - 1] == '\r')
		len--;
	*n = len;
	return 1;
}

/* The encoding from the first bytes: where the text starts, or -1 (error set). */
int reg_detect_encoding(struct parser *ps, const unsigned char *p, size_t len)
{
	if (len >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] && !p[1])) && len % 2)
		return err_set(ps->err, "%s: UTF-16 text with an odd number of bytes (%zu): truncated?", ps->name,
			       len);
	if (len >= 2 && p[0] == 0xff && p[1] == 0xfe) {
		ps->enc = ENC_UTF16LE;
		ps->pos = 2;
	} else if (len >= 2 && p[0] == 0xfe && p[1] == 0xff) {
		return err_set(ps->err, "%s: UTF-16 big-endian is not a reg export format (reg.exe writes UTF-16LE)",
			       ps->name);
	} else if (len >= 2 && p[0] && !p[1]) {
		ps->enc = ENC_UTF16LE; /* UTF-16LE without a BOM: "W\0i\0..." */
	} else if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		ps->pos = 3;
	}
	return 0;
}
