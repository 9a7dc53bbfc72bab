/*
 * oracle.h: the size-and-time oracle every fuzz target runs under, besides
 * the sanitizers. A target defines fuzz_one(); this file defines
 * LLVMFuzzerTestOneInput around it, measuring the CPU time (not wall time,
 * so a busy or niced machine does not raise false alarms) one input costs.
 * An input that takes more than FUZZ_BASE_MS plus FUZZ_MS_PER_KB for each
 * KiB of input is a finding: the reader is worse than linear somewhere, or
 * its constant is absurd. The limits are generous for a sanitizer build;
 * TDC_FUZZ_MS_PER_KB in the environment overrides the slope.
 * Included by every tests/fuzz/fuzz_*.c, both for libFuzzer (run.sh) and
 * for the standalone replay driver `make test` uses (replay.c).
 */
#ifndef TDC_FUZZ_ORACLE_H
#define TDC_FUZZ_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FUZZ_BASE_MS 250.0
#define FUZZ_MS_PER_KB 10.0

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static int fuzz_one(const uint8_t *data, size_t size);

static double fuzz_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static double per_kb = -1;
	double t0, ms, budget;
	if (per_kb < 0) {
		const char *s = getenv("TDC_FUZZ_MS_PER_KB");
		per_kb = s && atof(s) > 0 ? atof(s) : FUZZ_MS_PER_KB;
	}
	t0 = fuzz_cpu_ms();
	fuzz_one(data, size);
	ms = fuzz_cpu_ms() - t0;
	budget = FUZZ_BASE_MS + per_kb * (double)size / 1024.0;
	if (ms > budget) {
		fprintf(stderr, "fuzz oracle: %zu bytes took %.0f ms of CPU, over the budget of %.0f ms"
				" (%.0f ms + %.0f ms per KiB): worse than linear?\n",
			size, ms, budget, FUZZ_BASE_MS, per_kb);
		abort();
	}
	return 0;
}

#endif
