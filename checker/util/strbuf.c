#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char strbuf_slopbuf[1];

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		abort();
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_slopbuf;
	sb->len = 0;
	sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

char *strbuf_detach(struct strbuf *sb)
{
	char *r = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb);
	return r;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need < sb->len)
		abort();
	if (need <= sb->alloc)
		return;
	if (!sb->alloc) {
		size_t a = need < 64 ? 64 : need;
		sb->buf = xmalloc(a);
		sb->buf[0] = '\0';
		sb->alloc = a;
		return;
	}
	{
		size_t a = sb->alloc * 2;
		if (a < need)
			a = need;
		sb->buf = xrealloc(sb->buf, a);
		sb->alloc = a;
	}
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	if (len) /* data may be NULL then (an empty file's buffer): memcpy must not see it */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_add_capped(struct strbuf *sb, const void *data, size_t len, size_t cap)
{
	strbuf_add(sb, data, len);
	if (sb->len > cap) {
		size_t drop = sb->len - cap / 2;
		memmove(sb->buf, sb->buf + drop, sb->len - drop);
		sb->len -= drop;
		sb->buf[sb->len] = '\0';
	}
}

void strbuf_addch(struct strbuf *sb, int c)
{
	/* called per byte by the text readers: no memcpy of one byte */
	if (sb->len + 2 > sb->alloc)
		strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf;
}

void strlist_init(struct strlist *l)
{
	l->v = NULL;
	l->n = 0;
	l->alloc = 0;
}

void strlist_release(struct strlist *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	strlist_init(l);
}

void strlist_push_owned(struct strlist *l, char *s)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = s;
}

void strlist_push(struct strlist *l, const char *s)
{
	strlist_push_owned(l, xstrdup(s));
}

void strlist_pushf(struct strlist *l, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strlist_push_owned(l, strbuf_detach(&sb));
}

void strlist_copy(struct strlist *dst, const struct strlist *src)
{
	size_t i;
	for (i = 0; i < src->n; i++)
		strlist_push(dst, src->v[i]);
}

int strlist_has(const struct strlist *l, const char *s)
{
	size_t i;
	for (i = 0; l && s && i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

const char *strlist_find_icase(const struct strlist *l, const char *s)
{
	size_t i;
	for (i = 0; l && s && i < l->n; i++)
		if (!str_icmp(l->v[i], s))
			return l->v[i];
	return NULL;
}

int strlist_has_icase(const struct strlist *l, const char *s)
{
	return strlist_find_icase(l, s) != NULL;
}

static int lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

int str_icmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	while (*x && lower(*x) == lower(*y)) {
		x++;
		y++;
	}
	return lower(*x) - lower(*y);
}

int str_nicmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
	while (n && *x && lower(*x) == lower(*y)) {
		x++;
		y++;
		n--;
	}
	return n ? lower(*x) - lower(*y) : 0;
}

int str_iendswith(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !str_icmp(s + a - b, suffix);
}

int str_istartswith(const char *s, const char *prefix)
{
	return !str_nicmp(s, prefix, strlen(prefix));
}

/* Levenshtein distance, ASCII case-insensitive; 99 for names of 63 bytes or more. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64];
	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0], cur;
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			size_t sub = prev + ((a[i - 1] | 32) == (b[j - 1] | 32) ? 0 : 1);
			cur = del < ins ? del : ins;
			if (sub < cur)
				cur = sub;
			prev = row[j];
			row[j] = cur;
		}
	}
	return row[lb];
}

const char *str_nearest(const char *s, const char *const *names)
{
	const char *best = NULL;
	size_t bestd = 99, i, len = strlen(s);
	for (i = 0; names[i]; i++) {
		size_t d = edit_distance(s, names[i]);
		if (d < bestd) {
			bestd = d;
			best = names[i];
		}
	}
	if (best && (bestd <= 2 || bestd * 3 <= len) && bestd * 2 < (len > strlen(best) ? len : strlen(best)) + 1)
		return best;
	return NULL;
}

int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
