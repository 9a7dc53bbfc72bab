/*
 * replay: a standalone driver for the libFuzzer targets (as libgit2's
 * fuzzers/standalone_driver.c). `make test` builds every fuzz_*.c with it
 * under ASan+UBSan and feeds it each file of the target's saved corpus, so
 * every input that ever crashed a parser stays a regression test. Each input
 * also runs under the size-and-time oracle (oracle.h). A cached input that
 * disappears between listing and reading (`make fuzz` running at the same
 * time reduces its corpus in place) is skipped, not a failure.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int i, n = 0;
	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		unsigned char *buf;
		long len;
		if (!f && errno == ENOENT) {
			/* listed, then gone: a fuzzer running now replaced it by a smaller input */
			fprintf(stderr, "replay: %s is gone (a running fuzzer reduced it); skipped\n", argv[i]);
			continue;
		}
		if (!f) {
			fprintf(stderr, "replay: cannot open %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		fseek(f, 0, SEEK_SET);
		buf = malloc(len > 0 ? (size_t)len : 1);
		if (!buf || (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
			fprintf(stderr, "replay: cannot read %s\n", argv[i]);
			return 2;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(buf, (size_t)len);
		free(buf);
		n++;
	}
	printf("replayed %d inputs\n", n);
	return 0;
}
