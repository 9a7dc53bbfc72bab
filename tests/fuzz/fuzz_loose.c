/*
 * fuzz_loose: loose git objects whose headers lie (checker/git/git_loose.c).
 * The first input byte chooses how to read the rest: as a loose object file
 * as it is (zlib, then "TYPE SIZE\0" and the content), or, to reach past
 * zlib's own checks, as a header and content compressed here so the stream
 * is valid and only the header lies (the size stated, a type, digits) or the
 * stream is cut or padded. The cap the check is given comes from the input
 * too. Every object must be judged sound, too large (from its header alone)
 * or damaged, in CPU and heap bounded by the input (oracle.h): a 1 KiB input
 * stating and holding 1 GiB is "too large" at once, never inflated.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "git/git_loose.h"

#include "oracle.h"

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct git_loose_info info;
	struct err err;
	uint64_t caps[] = { 0, 16, 4096, 16u << 20, 256u << 20, UINT64_MAX };
	uint64_t cap;
	int rc;
	if (size < 2)
		return 0;
	cap = caps[data[1] % (sizeof(caps) / sizeof(caps[0]))];
	err_clear(&err);
	if (!(data[0] & 1)) {
		rc = git_loose_check(data + 2, size - 2, cap, &info, &err);
	} else {
		/* compress the rest, cut or padded by the first byte's other bits */
		uLongf n = compressBound((uLong)(size - 2)) + 16;
		unsigned char *z = malloc(n);
		size_t len;
		if (!z || compress(z, &n, data + 2, (uLong)(size - 2)) != Z_OK) {
			free(z);
			return 0;
		}
		len = n;
		if (data[0] & 2)
			len = len > 4 ? len - 1 - data[0] % 4 : len; /* truncated */
		else if (data[0] & 4)
			z[len < n + 16 ? len++ : len - 1] = 0;        /* trailing byte */
		rc = git_loose_check(z, len, cap, &info, &err);
		free(z);
	}
	if (rc == GIT_LOOSE_TOO_BIG && info.size <= cap)
		abort(); /* "too big" must be what the header says */
	if (rc == GIT_LOOSE_OK && info.size > cap)
		abort();
	if (rc < 0 && !err.msg[0])
		abort(); /* a refusal says why */
	return 0;
}
