/*
 * test_pyiarchive: an entry's data read from PyInstaller's archive
 * (checker/machine/pyiarchive.h) a chunk at a time — several chunks on
 * both sides, the bounds of the whole-buffer reader kept (a stream longer
 * or shorter than declared, cut short, corrupt), a sink's refusal, and the
 * archive read from a file mapping whose pages are dropped behind.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "machine/pyiarchive.h"
#include "util/os.h"

#define PAYLOAD (3 * PYI_CHUNK + 123) /* three chunks and a bit, inflated */

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* An archive (no bootloader before it) of one 'b' entry "x.dll": `stored` bytes, saying `ulen` uncompressed. */
static unsigned char *archive(const unsigned char *stored, size_t slen, uint32_t ulen, size_t *len)
{
	size_t toc = 32, total = slen + toc + PYI_COOKIE_LEN;
	unsigned char *a = calloc(1, total), *t = a + slen, *c = t + toc;
	memcpy(a, stored, slen);
	put32(t, (uint32_t)toc);
	put32(t + 4, 0);
	put32(t + 8, (uint32_t)slen);
	put32(t + 12, ulen);
	t[16] = 1;
	t[17] = 'b';
	memcpy(t + 18, "x.dll", 5);
	memcpy(c, "MEI\014\013\012\013\016", 8);
	put32(c + 8, (uint32_t)total);
	put32(c + 12, (uint32_t)slen);
	put32(c + 16, (uint32_t)toc);
	put32(c + 20, 311);
	memcpy(c + 24, "python311.dll", 13);
	*len = total;
	return a;
}

/* Bytes deflate cannot shrink much (a linear congruential sequence): the stored side is several chunks too. */
static unsigned char *payload(void)
{
	unsigned char *p = malloc(PAYLOAD);
	uint32_t x = 12345;
	size_t i;
	for (i = 0; i < PAYLOAD; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (unsigned char)(x >> 16);
	}
	return p;
}

static unsigned char *deflated(const unsigned char *p, size_t *len)
{
	uLongf n = compressBound(PAYLOAD);
	unsigned char *z = malloc(n);
	if (compress2(z, &n, p, PAYLOAD, 6) != Z_OK)
		abort();
	*len = n;
	return z;
}

struct seen {
	unsigned char *buf;
	size_t len, pieces, largest;
	int refuse;
};

static int sink(void *ctx, const unsigned char *p, size_t n, struct err *err)
{
	struct seen *s = ctx;
	if (s->refuse)
		return err_set(err, "no room");
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->pieces++;
	if (n > s->largest)
		s->largest = n;
	return 0;
}

/* pyi_archive_data of the archive with the stored bytes z[0..zlen) saying `ulen`; its error, or "" */
static const char *data_err(const unsigned char *z, size_t zlen, uint32_t ulen, struct err *e)
{
	size_t len, alen;
	unsigned char *a = archive(z, zlen, ulen, &alen), *out;
	struct pyi_archive ar;
	err_clear(e);
	if (pyi_archive_parse(&ar, span_make(a, alen), e) == 0 &&
	    pyi_archive_data(&ar, span_make(a, alen), &ar.entries[0], (size_t)1 << 30, &out, &len, e) == 0) {
		CHECK_INT(len, ulen);
		free(out);
	}
	pyi_archive_release(&ar);
	free(a);
	return e->msg;
}

static void test_chunks_and_bounds(void)
{
	unsigned char *p = payload(), *z, *a, *bad;
	size_t zlen, alen;
	struct pyi_archive ar;
	struct seen s = { NULL, 0, 0, 0, 0 };
	struct err e;
	z = deflated(p, &zlen);
	CHECK(zlen > 2 * PYI_CHUNK);
	a = archive(z, zlen, PAYLOAD, &alen);
	err_clear(&e);
	CHECK_INT(pyi_archive_parse(&ar, span_make(a, alen), &e), 0);
	s.buf = malloc(PAYLOAD);
	CHECK_INT(pyi_archive_stream(&ar, span_make(a, alen), 0, &ar.entries[0], (size_t)1 << 30, sink, &s, &e), 0);
	CHECK_INT(s.len, PAYLOAD);
	CHECK(!memcmp(s.buf, p, PAYLOAD));
	CHECK(s.pieces >= 4);
	CHECK(s.largest > 0 && s.largest <= PYI_CHUNK);
	/* a sink's refusal stops the stream with its error */
	s.refuse = 1;
	err_clear(&e);
	CHECK_INT(pyi_archive_stream(&ar, span_make(a, alen), 0, &ar.entries[0], (size_t)1 << 30, sink, &s, &e), -1);
	CHECK_STR(e.msg, "no room");
	pyi_archive_release(&ar);
	free(a);

	CHECK_STR(data_err(z, zlen, PAYLOAD, &e), "");
	CHECK_STR(data_err(z, zlen, PAYLOAD - 1, &e), "x.dll: inflates past its declared 3145850 bytes");
	CHECK_STR(data_err(z, zlen, PAYLOAD + 1, &e),
		  "x.dll: cannot inflate (the stream ends early; 3145851 of 3145852 bytes)");
	CHECK_HAS(data_err(z, zlen - 100, PAYLOAD, &e), "x.dll: cannot inflate (the stream ends early; ");
	bad = malloc(zlen);
	memcpy(bad, z, zlen);
	bad[zlen - 2] ^= 0x55; /* the Adler-32 at the end */
	CHECK_STR(data_err(bad, zlen, PAYLOAD, &e),
		  "x.dll: cannot inflate (incorrect data check; 3145851 of 3145851 bytes)");
	free(bad);
	free(s.buf);
	free(z);
	free(p);
}

/* The archive as a file mapping, its pages dropped behind the reader: the same bytes, and the mapping intact. */
static void test_mapped(void)
{
	unsigned char *p = payload(), *z, *a;
	size_t zlen, alen;
	char path[] = "/tmp/tdc-pyiarchive-XXXXXX";
	struct os_map m;
	struct pyi_archive ar;
	struct seen s = { NULL, 0, 0, 0, 0 };
	struct err e;
	int fd = mkstemp(path);
	FILE *f;
	z = deflated(p, &zlen);
	a = archive(z, zlen, PAYLOAD, &alen);
	CHECK(fd >= 0 && (f = fdopen(fd, "wb")) != NULL && fwrite(a, 1, alen, f) == alen && fclose(f) == 0);
	err_clear(&e);
	CHECK_INT(os_map_file(&m, path, &e), 0);
	CHECK_INT(pyi_archive_parse(&ar, span_make(m.data, m.size), &e), 0);
	s.buf = malloc(PAYLOAD);
	CHECK_INT(pyi_archive_stream(&ar, span_make(m.data, m.size), 1, &ar.entries[0], (size_t)1 << 30, sink, &s, &e),
		  0);
	CHECK_INT(s.len, PAYLOAD);
	CHECK(!memcmp(s.buf, p, PAYLOAD));
	CHECK(m.size == alen && !memcmp(m.data, a, alen));
	pyi_archive_release(&ar);
	os_unmap(&m);
	unlink(path);
	free(s.buf);
	free(a);
	free(z);
	free(p);
}

int main(void)
{
	RUN(test_chunks_and_bounds);
	RUN(test_mapped);
	return HARNESS_EXIT();
}
