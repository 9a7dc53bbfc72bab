#include "harness.h"
#include "util/sha256.h"

#include <stdio.h>
#include <string.h>

static void hex(const unsigned char d[32], char out[65])
{
	int i;
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

static const char *digest_of(const void *p, size_t n, size_t chunk, char out[65])
{
	struct sha256 s;
	unsigned char d[32];
	size_t off;
	sha256_init(&s);
	for (off = 0; off < n; off += chunk)
		sha256_update(&s, (const char *)p + off, n - off < chunk ? n - off : chunk);
	sha256_final(&s, d);
	hex(d, out);
	return out;
}

/* FIPS 180-4's examples (NIST CSRC "Examples with Intermediate Values"), in any chunking. */
static void test_sha256_known_vectors(void)
{
	char out[65];
	static char million[1000000];
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	size_t c;
	CHECK_STR(digest_of("", 0, 1, out), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	for (c = 1; c <= 3; c++)
		CHECK_STR(digest_of("abc", 3, c, out), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	for (c = 1; c <= 64; c += 7)
		CHECK_STR(digest_of(two, strlen(two), c, out),
			  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	CHECK_STR(digest_of(million, sizeof(million), 4096, out),
		  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* 55, 56 and 64 bytes: the padding's edge cases */
	CHECK_STR(digest_of(million, 55, 55, out), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	CHECK_STR(digest_of(million, 56, 13, out), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	CHECK_STR(digest_of(million, 64, 64, out), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

int main(void)
{
	RUN(test_sha256_known_vectors);
	return HARNESS_EXIT();
}
