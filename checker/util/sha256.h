/*
 * sha256: SHA-256 (FIPS 180-4), for comparing installed files with the
 * hashes pip wrote into RECORD. Streaming: feed any number of chunks.
 */
#ifndef TDC_SHA256_H
#define TDC_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;          /* bytes fed */
	unsigned char buf[64];
	size_t nbuf;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
void sha256_final(struct sha256 *s, unsigned char out[32]);

#endif
