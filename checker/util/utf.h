/*
 * utf: UTF-8 and UTF-16 in one place — validating and decoding UTF-8,
 * encoding code points as UTF-8 or UTF-16LE, and converting the UTF-16LE
 * text Windows stores (PE version resources, API set schemas, registry
 * values and reg export files) to UTF-8.
 *
 * The rules are Unicode's (chapter 3, D92 and Table 3-7): a valid UTF-8
 * sequence is the shortest form of a scalar value — no overlong forms, no
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF. Where text must stay
 * usable although it is not valid (a name printed or written into JSON),
 * each bad byte or unpaired surrogate becomes U+FFFD REPLACEMENT CHARACTER,
 * the visible mark Unicode reserves for it; callers that must refuse bad
 * text (reg export files, TOML) use the checking forms and name the line.
 */
#ifndef TDC_UTF_H
#define TDC_UTF_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

#define UTF_REPLACEMENT 0xfffdu

/* Whether cp is a Unicode scalar value (<= U+10FFFF and not a surrogate). */
static inline int utf_is_scalar(uint32_t cp)
{
	return cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
}

/*
 * Length (1..4) of the valid UTF-8 sequence at the start of s[0..n), or 0
 * when s does not start one (also when n is 0 or the sequence is cut off).
 * Never reads past s[n-1].
 */
size_t utf8_len(const unsigned char *s, size_t n);

/* utf8_len for a NUL-terminated string (the NUL ends any sequence). */
size_t utf8_len_z(const unsigned char *s);

/*
 * Decodes the sequence at s[*i] (s has n bytes): returns the code point and
 * advances *i past it, or returns -1 and leaves *i alone when the bytes there
 * are not valid UTF-8.
 */
long utf8_next(const unsigned char *s, size_t n, size_t *i);

/*
 * Where to cut s (at least n bytes long) to keep at most n bytes without
 * splitting a UTF-8 sequence: n, or less when s[n] continues a sequence.
 */
static inline size_t utf8_cut(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

/* Whether all n bytes are valid UTF-8. */
int utf8_valid(const char *s, size_t n);

/* Offset of the first byte that is not valid UTF-8, or n when all are. */
size_t utf8_invalid_at(const char *s, size_t n);

/*
 * Appends s[0..n) with each byte that does not belong to a valid sequence
 * replaced by U+FFFD (one per byte). The result is valid UTF-8; valid input
 * is copied unchanged.
 */
void utf8_repair(struct strbuf *out, const char *s, size_t n);

/* Appends cp as UTF-8; a value that is not a scalar value becomes U+FFFD. */
void utf8_put(struct strbuf *out, uint32_t cp);

/* Appends cp as UTF-16LE (a surrogate pair above U+FFFF); non-scalars as U+FFFD. */
void utf16le_put(struct strbuf *out, uint32_t cp);

enum utf16_flags {
	UTF16_STOP_AT_NUL = 1, /* stop before the first NUL code unit */
};

/*
 * Converts UTF-16LE p[0..len) to UTF-8 appended to out (an odd last byte is
 * ignored). Unpaired surrogates become U+FFFD; the return value counts them,
 * so a caller that must refuse such text can. *bad_at, when not NULL,
 * receives the byte offset of the first one (len when there is none).
 */
size_t utf16le_to_utf8(struct strbuf *out, const unsigned char *p, size_t len, unsigned flags, size_t *bad_at);

#endif
