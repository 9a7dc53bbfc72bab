/*
 * git_loose: a loose object checked against its header (see git_loose.h).
 */
#include "git/git_loose.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

#define LOOSE_MAX_HEADER 32 /* "commit 18446744073709551615\0" is 28 */
#define LOOSE_MAX_HEADER_INPUT 4096

/* "TYPE SIZE": 0 with info filled, -1 if it is not a header git writes. */
static int parse_header(const unsigned char *h, size_t n, struct git_loose_info *info)
{
	static const char *const types[] = { "blob", "tree", "commit", "tag" };
	const unsigned char *sp = memchr(h, ' ', n);
	size_t tlen, i, digits = 0;
	uint64_t v = 0;
	if (!sp)
		return -1;
	tlen = (size_t)(sp - h);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == tlen && !memcmp(h, types[i], tlen))
			break;
	if (i == sizeof(types) / sizeof(types[0]))
		return -1;
	for (const unsigned char *p = sp + 1; p < h + n; p++, digits++) {
		if (*p < '0' || *p > '9' || digits >= 19 || (digits == 1 && v == 0))
			return -1; /* not a digit, more than 19 of them, or a leading zero */
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (!digits)
		return -1;
	memcpy(info->type, types[i], tlen + 1);
	info->size = v;
	return 0;
}

/* The most a zlib stream of `size` bytes of content (plus its header) can take. */
static uint64_t max_compressed(uint64_t size)
{
	/* stored blocks: 5 bytes per 65535; the zlib header and trailer; slack for odd encoders */
	return size + size / 8192 + 5 * (size / 65535 + 1) + LOOSE_MAX_HEADER + 4096;
}

int git_loose_check(const unsigned char *data, size_t len, uint64_t max, struct git_loose_info *info,
		    struct err *err)
{
	z_stream z;
	unsigned char out[16384], hdr[LOOSE_MAX_HEADER];
	size_t hlen = 0;
	uint64_t content = 0;
	int zrc = Z_OK, have_hdr = 0, rc = -1;
	memset(info, 0, sizeof(*info));
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return err_set(err, "cannot start zlib");
	z.next_in = (unsigned char *)(uintptr_t)data;
	/* Fed at most UINT_MAX at a time: zlib's counters are 32-bit. */
	while (zrc == Z_OK) {
		size_t got, i = 0, fed = (size_t)(z.next_in - data);
		if (!z.avail_in && fed < len)
			z.avail_in = (uInt)(len - fed > UINT_MAX ? UINT_MAX : len - fed);
		if (!have_hdr && z.avail_in > LOOSE_MAX_HEADER_INPUT)
			z.avail_in = LOOSE_MAX_HEADER_INPUT; /* fed in small steps until the header is known */
		/* Before the header is known, inflate a few bytes at a time. */
		z.next_out = out;
		z.avail_out = have_hdr ? sizeof(out) : (uInt)(sizeof(hdr) - hlen);
		zrc = inflate(&z, Z_NO_FLUSH);
		if (zrc != Z_OK && zrc != Z_STREAM_END)
			break;
		got = (size_t)(z.next_out - out);
		while (!have_hdr && i < got) {
			hdr[hlen++] = out[i++];
			if (hdr[hlen - 1] == '\0') {
				have_hdr = 1;
				if (parse_header(hdr, hlen - 1, info) < 0) {
					err_set(err, "no valid object header");
					goto out;
				}
				if (info->size > max) {
					rc = GIT_LOOSE_TOO_BIG;
					goto out;
				}
				if (len > max_compressed(info->size)) {
					err_set(err, "damaged: %zu compressed bytes for the %llu its header states", len,
						(unsigned long long)info->size);
					goto out;
				}
			} else if (hlen == sizeof(hdr)) {
				err_set(err, "no valid object header");
				goto out;
			}
		}
		/* The header is the stream's first bytes: no real encoder needs more input than this for them. */
		if (!have_hdr && (size_t)(z.next_in - data) > LOOSE_MAX_HEADER_INPUT) {
			err_set(err, "no valid object header in its first %d bytes", LOOSE_MAX_HEADER_INPUT);
			goto out;
		}
		content += got - i;
		if (have_hdr && content > info->size) {
			err_set(err, "damaged: its header says %llu bytes, it holds more",
				(unsigned long long)info->size);
			goto out;
		}
		if (!got && zrc == Z_OK && !z.avail_in && (size_t)(z.next_in - data) >= len) {
			zrc = Z_BUF_ERROR; /* the input is used up before the stream ends */
			break;
		}
	}
	if (zrc != Z_STREAM_END)
		err_set(err, "damaged (%s)", zrc == Z_BUF_ERROR ? "truncated" : "not zlib data");
	else if (!have_hdr)
		err_set(err, "no valid object header");
	else if (content != info->size)
		err_set(err, "damaged: its header says %llu bytes, it holds %llu", (unsigned long long)info->size,
			(unsigned long long)content);
	else if (z.avail_in || (size_t)(z.next_in - data) < len)
		err_set(err, "damaged: trailing data after its zlib stream");
	else
		rc = GIT_LOOSE_OK;
out:
	inflateEnd(&z);
	return rc;
}
