/*
 * pyiarchive: PyInstaller's appended archive, cookie and TOC (see
 * pyiarchive.h for the layout and what is checked).
 */
#include "machine/pyiarchive.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/os.h"
#include "util/strbuf.h"

static const unsigned char pyi_magic[8] = { 'M', 'E', 'I', 014, 013, 012, 013, 016 };

/* Big-endian, as PyInstaller writes every integer of the cookie and the TOC ('!' in struct). */
static int be32(struct span s, size_t off, uint32_t *out)
{
	if (!span_has(s, off, 4))
		return -1;
	*out = ((uint32_t)s.p[off] << 24) | ((uint32_t)s.p[off + 1] << 16) | ((uint32_t)s.p[off + 2] << 8) |
	       (uint32_t)s.p[off + 3];
	return 0;
}

/* The last offset of the magic in `file`, or -1: the bootloader's back-to-front scan. */
static int64_t find_cookie(struct span file)
{
	size_t i;
	if (file.len < PYI_COOKIE_LEN)
		return -1;
	for (i = file.len - PYI_COOKIE_LEN + 1; i-- > 0;)
		if (file.p[i] == 'M' && !memcmp(file.p + i, pyi_magic, sizeof(pyi_magic)))
			return (int64_t)i;
	return -1;
}

int pyi_archive_has_cookie(struct span file)
{
	return find_cookie(file) >= 0;
}

/* A name the bootloader would join under its folder: relative, no "." or ".." part, no drive, no NUL. */
static const char *bad_name(const char *n)
{
	const char *p = n;
	if (!*n)
		return "an empty name";
	if (n[0] == '/' || n[0] == '\\' || (n[0] && n[1] == ':'))
		return "an absolute name";
	while (*p) {
		size_t len = strcspn(p, "/\\");
		if (!len)
			return "an empty path component";
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return "a '.' or '..' component";
		p += len;
		if (*p)
			p++;
	}
	return NULL;
}

static int extractable(char t)
{
	return t == 'b' || t == 'x' || t == 'Z' || t == 'n' || t == 'd';
}

/* One TOC entry at `off` of `toc`; *next past it. */
static int parse_entry(struct pyi_archive *a, struct span toc, size_t off, size_t *next, struct err *err)
{
	uint32_t elen, doff, dlen, ulen;
	struct pyi_entry *e;
	const unsigned char *name;
	size_t nmax, nlen;
	const char *why;
	uint32_t data_end = (uint32_t)(a->cookie_pos - a->pkg_offset); /* data lies before the TOC's cookie */
	if (be32(toc, off, &elen) || be32(toc, off + 4, &doff) || be32(toc, off + 8, &dlen) ||
	    be32(toc, off + 12, &ulen) || !span_has(toc, off, 18))
		return err_set(err, "TOC entry %zu at TOC offset %zu is cut short by the end of the TOC", a->n, off);
	if (elen < 18 || !span_has(toc, off, elen))
		return err_set(err, "TOC entry %zu at TOC offset %zu says it is %u bytes long: %s", a->n, off, elen,
			       elen < 18 ? "shorter than its header (18 bytes)" : "past the end of the TOC");
	if (doff > data_end || data_end - doff < dlen)
		return err_set(err, "TOC entry %zu says its data is %u bytes at offset %u of the archive, past "
				    "the archive's %u bytes of data",
			       a->n, dlen, doff, data_end);
	if (toc.p[off + 16] > 1)
		return err_set(err, "TOC entry %zu has compression flag %u (0 or 1)", a->n, toc.p[off + 16]);
	name = toc.p + off + 18;
	nmax = elen - 18;
	nlen = 0;
	while (nlen < nmax && name[nlen])
		nlen++;
	if (a->n >= PYI_MAX_ENTRIES)
		return err_set(err, "the TOC holds more than %d entries: not an archive this checker reads",
			       PYI_MAX_ENTRIES);
	ALLOC_GROW(a->entries, a->n + 1, a->alloc);
	e = &a->entries[a->n];
	memset(e, 0, sizeof(*e));
	e->name = xstrndup((const char *)name, nlen);
	e->typecode = (char)toc.p[off + 17];
	e->compressed = toc.p[off + 16];
	e->offset = doff;
	e->length = dlen;
	e->ulength = ulen;
	a->n++;
	/* options ('o') are strings, not paths: "pyi-contents-directory _internal", "v", "W ignore" */
	if (e->typecode != 'o' && (why = bad_name(e->name)) != NULL)
		return err_set(err, "TOC entry %zu has %s", a->n - 1, why);
	if (!e->compressed && e->typecode != 'o' && ulen != dlen)
		return err_set(err, "TOC entry %zu is stored uncompressed but says %u bytes stored, %u uncompressed",
			       a->n - 1, dlen, ulen);
	if (extractable(e->typecode))
		a->onefile = 1;
	if (e->typecode == 'o' && !strncmp(e->name, "pyi-contents-directory ", 23) && !a->contents_dir &&
	    !bad_name(e->name + 23))
		a->contents_dir = xstrdup(e->name + 23);
	*next = off + elen;
	return 0;
}

int pyi_archive_parse(struct pyi_archive *a, struct span file, struct err *err)
{
	int64_t pos;
	uint32_t toc_off, toc_len, pyver;
	struct span toc;
	size_t off;
	memset(a, 0, sizeof(*a));
	if ((pos = find_cookie(file)) < 0)
		return err_set(err, "no PyInstaller archive (no cookie MEI\\014\\013\\012\\013\\016 in the file)");
	a->cookie_pos = (uint64_t)pos;
	if (be32(file, (size_t)pos + 8, &a->pkg_length) || be32(file, (size_t)pos + 12, &toc_off) ||
	    be32(file, (size_t)pos + 16, &toc_len) || be32(file, (size_t)pos + 20, &pyver))
		return err_set(err, "the archive's cookie is cut short");
	if ((uint64_t)a->pkg_length > a->cookie_pos + PYI_COOKIE_LEN || a->pkg_length < PYI_COOKIE_LEN)
		return err_set(err, "the cookie says the archive is %u bytes, but it ends %llu bytes into the file",
			       a->pkg_length, (unsigned long long)(a->cookie_pos + PYI_COOKIE_LEN));
	a->pkg_offset = a->cookie_pos + PYI_COOKIE_LEN - a->pkg_length;
	if (toc_len > PYI_MAX_TOC)
		return err_set(err, "the cookie says the TOC is %u bytes (more than %u)", toc_len, PYI_MAX_TOC);
	if (toc_off > a->pkg_length - PYI_COOKIE_LEN || a->pkg_length - PYI_COOKIE_LEN - toc_off < toc_len)
		return err_set(err, "the cookie puts the TOC (%u bytes at %u) outside the archive's %u bytes", toc_len,
			       toc_off, a->pkg_length - PYI_COOKIE_LEN);
	a->python_version = pyver;
	memcpy(a->python_libname, file.p + pos + 24, 64);
	a->python_libname[64] = '\0';
	toc = span_make(file.p + a->pkg_offset + toc_off, toc_len);
	for (off = 0; off < toc.len;)
		if (parse_entry(a, toc, off, &off, err))
			return -1;
	return 0;
}

/*
 * The stored bytes [from, to) of a file mapping: dropped (os_drop_pages) in
 * whole 64 KiB steps of the file's offsets, a multiple of every page size,
 * from the mapping's page-aligned start: *done is where the last drop ended.
 */
static void drop_read(struct span file, size_t *done, size_t to)
{
	size_t from = *done & ~(size_t)0xffff, end = to & ~(size_t)0xffff;
	if (end > from)
		os_drop_pages(file.p + from, end - from);
	if (end > *done)
		*done = end;
}

int pyi_archive_stream(const struct pyi_archive *a, struct span file, int mapped, const struct pyi_entry *e,
		       size_t cap, int (*sink)(void *ctx, const unsigned char *p, size_t n, struct err *err), void *ctx,
		       struct err *err)
{
	size_t base, fed = 0, produced = 0, dropped;
	unsigned char *obuf;
	z_stream zs;
	int r;
	if (a->pkg_offset > file.len || file.len - a->pkg_offset < (uint64_t)e->offset + e->length)
		return err_set(err, "%s: its data lies past the end of the file", e->name);
	if (!e->compressed && e->ulength != e->length)
		return err_set(err, "%s: stored uncompressed but says %u bytes stored, %u uncompressed", e->name,
			       e->length, e->ulength);
	if (e->ulength > cap)
		return err_set(err, "%s: %u bytes uncompressed, more than the %zu this checker inflates", e->name,
			       e->ulength, cap);
	/* deflate makes at most about 1032 bytes of each stored one: a larger claim is a lie, refused before allocating */
	if (e->compressed && (uint64_t)e->ulength > (uint64_t)e->length * 1032 + 64)
		return err_set(err, "%s: says %u bytes uncompressed from %u stored, more than deflate can make", e->name,
			       e->ulength, e->length);
	base = (size_t)a->pkg_offset + e->offset;
	dropped = base;
	if (!e->compressed) {
		while (fed < e->length) {
			size_t n = e->length - fed < PYI_CHUNK ? e->length - fed : PYI_CHUNK;
			if (sink(ctx, file.p + base + fed, n, err))
				return -1;
			fed += n;
			if (mapped)
				drop_read(file, &dropped, base + fed);
		}
		return 0;
	}
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		return err_set(err, "%s: zlib cannot start", e->name);
	obuf = xmalloc(PYI_CHUNK);
	for (;;) {
		size_t room = e->ulength - produced < PYI_CHUNK ? e->ulength - produced : PYI_CHUNK, n;
		if (!zs.avail_in && fed < e->length) {
			size_t k = e->length - fed < PYI_CHUNK ? e->length - fed : PYI_CHUNK;
			if (mapped)
				drop_read(file, &dropped, base + fed);
			zs.next_in = (unsigned char *)(uintptr_t)(file.p + base + fed); /* zlib's API is not const; it only reads */
			zs.avail_in = (uInt)k;
			fed += k;
		}
		zs.next_out = obuf;
		zs.avail_out = (uInt)room;
		r = inflate(&zs, Z_NO_FLUSH);
		n = room - zs.avail_out;
		if (n && sink(ctx, obuf, n, err)) {
			r = -100;
			break;
		}
		produced += n;
		if (r == Z_STREAM_END && produced == e->ulength) {
			r = 0;
			break;
		}
		if (r == Z_OK || (r == Z_BUF_ERROR && !zs.avail_in && fed < e->length))
			continue;
		if (r == Z_BUF_ERROR && !room && zs.avail_in)
			err_set(err, "%s: inflates past its declared %u bytes", e->name, e->ulength);
		else
			err_set(err, "%s: cannot inflate (%s; %lu of %u bytes)", e->name,
				r == Z_DATA_ERROR ? (zs.msg ? zs.msg : "corrupt data") : "the stream ends early",
				(unsigned long)zs.total_out, e->ulength);
		r = -100;
		break;
	}
	if (mapped)
		drop_read(file, &dropped, base + fed);
	inflateEnd(&zs);
	free(obuf);
	return r ? -1 : 0;
}

/* pyi_archive_data's sink: into the buffer of the entry's length (never more: the stream checks it). */
struct into_buf {
	unsigned char *buf;
	size_t len;
};

static int to_buf(void *ctx, const unsigned char *p, size_t n, struct err *err)
{
	struct into_buf *b = ctx;
	(void)err;
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	return 0;
}

int pyi_archive_data(const struct pyi_archive *a, struct span file, const struct pyi_entry *e, size_t cap,
		     unsigned char **out, size_t *len, struct err *err)
{
	struct into_buf b = { NULL, 0 };
	*out = NULL;
	*len = 0;
	/* the bounds first, as the stream checks them, so that a lie allocates nothing */
	if (a->pkg_offset > file.len || file.len - a->pkg_offset < (uint64_t)e->offset + e->length ||
	    (!e->compressed && e->ulength != e->length) || e->ulength > cap ||
	    (e->compressed && (uint64_t)e->ulength > (uint64_t)e->length * 1032 + 64))
		return pyi_archive_stream(a, file, 0, e, cap, to_buf, &b, err);
	b.buf = xmalloc(e->ulength ? e->ulength : 1);
	if (pyi_archive_stream(a, file, 0, e, cap, to_buf, &b, err)) {
		free(b.buf);
		return -1;
	}
	*out = b.buf;
	*len = b.len;
	return 0;
}

int pyi_archive_read(struct pyi_archive *a, const char *path, struct err *err)
{
	struct os_map m;
	int r;
	memset(a, 0, sizeof(*a));
	if (os_map_file(&m, path, err))
		return -1;
	r = pyi_archive_parse(a, span_make(m.data, m.size), err);
	os_unmap(&m);
	return r;
}

void pyi_archive_release(struct pyi_archive *a)
{
	size_t i;
	for (i = 0; i < a->n; i++)
		free(a->entries[i].name);
	free(a->entries);
	free(a->contents_dir);
	memset(a, 0, sizeof(*a));
}
