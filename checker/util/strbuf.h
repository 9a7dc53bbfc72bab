/*
 * strbuf: a growable NUL-terminated byte buffer, and strlist, a growable
 * array of owned strings. Modelled on git's strbuf: `buf` is never NULL —
 * STRBUF_INIT and strbuf_init point it at a shared empty string
 * (strbuf_slopbuf) until the first byte is added — so `sb.buf` is always a
 * valid C string and callers never guard it; strbuf_detach hands ownership
 * of the bytes to the caller.
 *
 * xmalloc and friends: allocation failure aborts the process in this one
 * place (as git's xmalloc and redis' zmalloc do). Sizes that come from
 * untrusted input are capped by the parsers before they allocate, so no input
 * can drive the program into this path.
 */
#ifndef TDC_STRBUF_H
#define TDC_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "util/err.h"

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) ERR_PRINTF(1, 2);

/* Grows array `p` (element count `alloc`) so that it holds at least `n` items. */
#define ALLOC_GROW(p, n, alloc)                                                \
	do {                                                                   \
		if ((n) > (alloc)) {                                           \
			size_t grow_ = (alloc) < 8 ? 8 : (alloc) * 2;          \
			if (grow_ < (n))                                       \
				grow_ = (n);                                   \
			(p) = xrealloc((p), grow_ * sizeof(*(p)));             \
			(alloc) = grow_;                                       \
		}                                                              \
	} while (0)

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

/* The empty string every unallocated strbuf points at; never written. */
extern char strbuf_slopbuf[1];

#define STRBUF_INIT { strbuf_slopbuf, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb); /* len = 0, keeps the memory */
char *strbuf_detach(struct strbuf *sb); /* caller frees; sb is re-initialised */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_adds(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
/* strbuf_add, then, past `cap` bytes, the oldest go so that the newest cap / 2 remain (a log that keeps its end). */
void strbuf_add_capped(struct strbuf *sb, const void *data, size_t len, size_t cap);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) ERR_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap) ERR_PRINTF(2, 0);
const char *strbuf_str(const struct strbuf *sb); /* sb->buf (kept for callers that prefer a function) */

struct strlist {
	char **v;
	size_t n;
	size_t alloc;
};

#define STRLIST_INIT { NULL, 0, 0 }

void strlist_init(struct strlist *l);
void strlist_release(struct strlist *l);
void strlist_push(struct strlist *l, const char *s);   /* copies s */
void strlist_push_owned(struct strlist *l, char *s);   /* takes s */
void strlist_pushf(struct strlist *l, const char *fmt, ...) ERR_PRINTF(2, 3);
void strlist_copy(struct strlist *dst, const struct strlist *src); /* appends copies */

/*
 * Whether l holds s: exactly (strlist_has) or ASCII case-insensitively, as
 * Windows compares file names (strlist_has_icase). A NULL list or string
 * holds nothing. strlist_find_icase gives the element itself (NULL if none).
 * A linear walk: these lists are short (for a large set, strmap.h).
 */
int strlist_has(const struct strlist *l, const char *s);
int strlist_has_icase(const struct strlist *l, const char *s);
const char *strlist_find_icase(const struct strlist *l, const char *s);

/* ASCII case-insensitive comparison, as NTFS and the loader compare names. */
int str_icmp(const char *a, const char *b);
int str_nicmp(const char *a, const char *b, size_t n);
int str_iendswith(const char *s, const char *suffix);
int str_istartswith(const char *s, const char *prefix);

/*
 * The one of `names` (NULL-terminated) nearest to `s` by edit distance, when
 * near enough to be a typo of it; else NULL. For "did you mean": the matrix
 * linter's keys and values, the command line's options and commands.
 */
const char *str_nearest(const char *s, const char *const *names);

/* The value of the hex digit c (0-9, a-f, A-F), or -1 if c is not one. */
int hex_digit(int c);

#endif
