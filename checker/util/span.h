/*
 * span: bounds-checked reads from untrusted bytes.
 *
 * Every read of file data goes through these helpers. Each one compares the
 * offset with the length first and subtracts second (`off > len || len - off
 * < n`), so no addition can wrap. They return 0 on success and -1 when the
 * read would leave the span; the caller turns -1 into a specific message.
 * Values are little-endian, as in PE/COFF, whatever the host.
 */
#ifndef TDC_SPAN_H
#define TDC_SPAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct span {
	const unsigned char *p;
	size_t len;
};

static inline struct span span_make(const void *p, size_t len)
{
	struct span s;
	s.p = (const unsigned char *)p;
	s.len = len;
	return s;
}

static inline int span_has(struct span s, size_t off, size_t n)
{
	return off <= s.len && s.len - off >= n;
}

static inline int span_u8(struct span s, size_t off, uint8_t *out)
{
	if (!span_has(s, off, 1))
		return -1;
	*out = s.p[off];
	return 0;
}

static inline int span_u16(struct span s, size_t off, uint16_t *out)
{
	if (!span_has(s, off, 2))
		return -1;
	*out = (uint16_t)(s.p[off] | (s.p[off + 1] << 8));
	return 0;
}

static inline int span_u32(struct span s, size_t off, uint32_t *out)
{
	if (!span_has(s, off, 4))
		return -1;
	*out = (uint32_t)s.p[off] | ((uint32_t)s.p[off + 1] << 8) |
	       ((uint32_t)s.p[off + 2] << 16) | ((uint32_t)s.p[off + 3] << 24);
	return 0;
}

static inline int span_u64(struct span s, size_t off, uint64_t *out)
{
	uint32_t lo, hi;
	if (span_u32(s, off, &lo) || span_u32(s, off + 4, &hi) || off + 4 < off)
		return -1;
	*out = (uint64_t)lo | ((uint64_t)hi << 32);
	return 0;
}

/* A sub-span [off, off+n). */
static inline int span_sub(struct span s, size_t off, size_t n, struct span *out)
{
	if (!span_has(s, off, n))
		return -1;
	out->p = s.p + off;
	out->len = n;
	return 0;
}

/* A sub-span from off to the end. */
static inline int span_from(struct span s, size_t off, struct span *out)
{
	if (off > s.len)
		return -1;
	out->p = s.p + off;
	out->len = s.len - off;
	return 0;
}

/*
 * A NUL-terminated string at off, at most max bytes before the NUL.
 * On success *len is its length (without the NUL). Fails if no NUL is found
 * within min(max, remaining) bytes.
 */
static inline int span_cstr(struct span s, size_t off, size_t max, const char **str, size_t *len)
{
	size_t lim;
	const unsigned char *z;
	if (off >= s.len)
		return -1;
	lim = s.len - off;
	if (lim > max + 1)
		lim = max + 1;
	z = memchr(s.p + off, '\0', lim); /* libc's: words at a time, where names of 100+ bytes are common */
	if (!z)
		return -1;
	*str = (const char *)s.p + off;
	*len = (size_t)(z - (s.p + off));
	return 0;
}

/* Checked size arithmetic: returns -1 on overflow. */
static inline int size_add(size_t a, size_t b, size_t *out)
{
	if (a > (size_t)-1 - b)
		return -1;
	*out = a + b;
	return 0;
}

static inline int size_mul(size_t a, size_t b, size_t *out)
{
	if (a && b > (size_t)-1 / a)
		return -1;
	*out = a * b;
	return 0;
}

#endif
