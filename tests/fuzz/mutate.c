/*
 * mutate: a driver for one fuzz target that derives inputs from a fixture
 * instead of replaying saved ones: every truncation of the file (lengths 0
 * to size-1), then FLIPS copies with 1 to 8 random bytes changed (a fixed
 * seed, so a failure repeats; three in four flips land after the first 4096
 * bytes, where a hive's cells are). Linked with the target under ASan+UBSan
 * by `make unit-build`; tests/inventory/test_hives.sh runs it on the hives it
 * builds. Usage: mutate FILE [FLIPS] (default 2000).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	FILE *f;
	unsigned char *orig, *buf;
	long len;
	size_t n, i;
	long flips = argc > 2 ? strtol(argv[2], NULL, 10) : 2000, k;
	if (argc < 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: mutate FILE [FLIPS]\n");
		return 2;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	n = len > 0 ? (size_t)len : 0;
	orig = malloc(n ? n : 1);
	buf = malloc(n ? n : 1);
	if (!orig || !buf || fread(orig, 1, n, f) != n) {
		fprintf(stderr, "mutate: cannot read %s\n", argv[1]);
		return 2;
	}
	fclose(f);
	for (i = 0; i < n; i++) {
		memcpy(buf, orig, i);
		LLVMFuzzerTestOneInput(buf, i);
	}
	for (k = 0; k < flips && n; k++) {
		int m = 1 + (int)(next() % 8), j;
		memcpy(buf, orig, n);
		for (j = 0; j < m; j++) {
			size_t at = (next() % 4 && n > 4096) ? 4096 + next() % (n - 4096) : next() % n;
			buf[at] ^= (unsigned char)(1 + next() % 255);
		}
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("mutate: %zu truncations and %ld flipped copies of %s\n", n, flips, argv[1]);
	free(orig);
	free(buf);
	return 0;
}
