/*
 * winpath: Windows names and paths as text (winpath.h), nothing read from a
 * disk. Names compare as NTFS orders them: upcased UTF-16 code units
 * (ASCII, Latin-1, Greek and Cyrillic letters folded; other characters by
 * their code units unchanged; the real $UpCase table covers more scripts,
 * but names torch and Python ship are ASCII, and the scripts folded here
 * cover the non-ASCII user names we have seen in paths). Paths are
 * normalised the way GetFullPathNameW does for the parts that matter here.
 */
#include "machine/winpath.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/utf.h"

/* ---- names: UTF-8 → UTF-16 code units, upcased ------------------------- */

static unsigned up16(unsigned c)
{
	if (c >= 'a' && c <= 'z')
		return c - 32;
	if ((c >= 0xe0 && c <= 0xfe && c != 0xf7))
		return c - 32;
	if (c == 0xff)
		return 0x178;
	if (c >= 0x3b1 && c <= 0x3c9 && c != 0x3c2)
		return c - 32;
	if (c >= 0x430 && c <= 0x44f)
		return c - 32;
	if (c >= 0x450 && c <= 0x45f)
		return c - 80;
	return c;
}

/* Decodes one code point (utf.h); a byte that does not start valid UTF-8 maps to itself, as Latin-1. */
static unsigned next_cp(const unsigned char **pp)
{
	size_t n = utf8_len_z(*pp), i = 0;
	if (!n)
		return *(*pp)++;
	n = (size_t)utf8_next(*pp, n, &i);
	*pp += i;
	return (unsigned)n;
}

/* A cursor yielding upcased UTF-16 code units (surrogate pairs for > U+FFFF). */
struct u16cur {
	const unsigned char *p;
	unsigned pending;
};

static unsigned u16_next(struct u16cur *c)
{
	unsigned cp;
	if (c->pending) {
		cp = c->pending;
		c->pending = 0;
		return cp;
	}
	if (!*c->p)
		return 0;
	cp = next_cp(&c->p);
	if (cp >= 0x10000) {
		cp -= 0x10000;
		c->pending = 0xdc00 + (cp & 0x3ff);
		return 0xd800 + (cp >> 10);
	}
	return up16(cp);
}

/* NTFS collation: upcased UTF-16 code units, shorter name first on a tie. */
int winpath_ntfs_cmp(const char *a, const char *b)
{
	const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
	struct u16cur x, y;
	/* ASCII (most names): each byte is one code unit, upcased A-Z only; the cursors take over at the rest */
	while (*p && *p < 0x80 && *q && *q < 0x80) {
		unsigned ca = *p >= 'a' && *p <= 'z' ? *p - 32u : *p, cb = *q >= 'a' && *q <= 'z' ? *q - 32u : *q;
		if (ca != cb)
			return ca < cb ? -1 : 1;
		p++;
		q++;
	}
	x.p = p;
	x.pending = 0;
	y.p = q;
	y.pending = 0;
	for (;;) {
		unsigned ca = u16_next(&x), cb = u16_next(&y);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (!ca)
			return 0;
	}
}

char *winpath_upcase(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	size_t i;
	for (i = 0; p[i] && p[i] < 0x80; i++)
		;
	if (!p[i]) {
		/* ASCII (the common case): upcase a copy in place */
		char *r = xstrndup(s, i);
		for (i = 0; r[i]; i++)
			if (r[i] >= 'a' && r[i] <= 'z')
				r[i] = (char)(r[i] - 32);
		return r;
	}
	while (*p) {
		/* re-encoded as UTF-8 (utf.h) for a stable byte key */
		utf8_put(&sb, up16(next_cp(&p)));
	}
	return strbuf_detach(&sb);
}

/* ---- paths ------------------------------------------------------------- */

/*
 * "." and ".." components of a drive path folded as Windows folds them
 * (GetFullPathNameW, which every path given to CreateFileW or LoadLibraryExW
 * goes through): ".." at X:\ stays at X:\. So "C:\..\..\tmp" is C:\tmp,
 * inside the tree, and no host path built from a Windows path climbs out of
 * --root. Takes and returns an already normalised path (frees it).
 */
static char *fold_dots(char *norm)
{
	char *out;
	const char *p;
	size_t len, keep;
	if (!(norm[0] && norm[1] == ':' && norm[2] == '\\') || !strstr(norm, "\\."))
		return norm;
	out = xmalloc(strlen(norm) + 1);
	memcpy(out, norm, 3);
	len = keep = 3;
	for (p = norm + 3; *p;) {
		size_t n = strcspn(p, "\\");
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > keep && out[len - 1] != '\\')
				len--;
			if (len > keep)
				len--;
		} else if (n && !(n == 1 && p[0] == '.')) {
			if (len > keep)
				out[len++] = '\\';
			memcpy(out + len, p, n);
			len += n;
		}
		p += n;
		if (*p)
			p++;
	}
	out[len] = '\0';
	free(norm);
	return out;
}

char *winpath_normalize(const char *path)
{
	size_t n = strlen(path), len = 0;
	char *out = xmalloc(n + 2);
	const char *p = path;
	int unc = 0;
	if ((p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/')) {
		out[len++] = '\\';
		out[len++] = '\\';
		p += 2;
		unc = 1;
	}
	for (; *p; p++) {
		char c = *p == '/' ? '\\' : *p;
		if (c == '\\' && len && out[len - 1] == '\\' && !(unc && len == 2))
			continue;
		out[len++] = c;
	}
	/* "C:" → "C:\", keep the root's separator; drop other trailing ones */
	if (len == 2 && out[1] == ':')
		out[len++] = '\\';
	while (len > 3 && out[len - 1] == '\\')
		len--;
	out[len] = '\0';
	if (len >= 2 && out[1] == ':' && out[0] >= 'a' && out[0] <= 'z')
		out[0] = (char)(out[0] - 32);
	return fold_dots(out);
}

char *winpath_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && (dir[n - 1] == '\\' || dir[n - 1] == '/'))
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s\\%s", dir, name);
}

const char *winpath_basename(const char *path)
{
	const char *b = path, *p;
	for (p = path; *p; p++)
		if (*p == '\\' || *p == '/' || (*p == ':' && p == path + 1))
			b = p + 1;
	return b;
}

char *winpath_dirname(const char *path)
{
	const char *b = winpath_basename(path);
	size_t n = (size_t)(b - path);
	/* keep "C:\" whole; strip the separator otherwise */
	if (n > 0 && (path[n - 1] == '\\' || path[n - 1] == '/') && !(n == 3 && path[1] == ':'))
		n--;
	return xstrndup(path, n);
}

int winpath_is_absolute(const char *path)
{
	if (path[0] && path[1] == ':' && (path[2] == '\\' || path[2] == '/'))
		return 1;
	return (path[0] == '\\' || path[0] == '/') && (path[1] == '\\' || path[1] == '/');
}
