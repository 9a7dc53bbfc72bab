/*
 * oracle.h: the size-and-time oracle every fuzz target runs under, besides
 * the sanitizers. A target defines fuzz_one(); this file defines
 * LLVMFuzzerTestOneInput around it, measuring the CPU time (not wall time,
 * so a busy or niced machine does not raise false alarms) one input costs.
 * An input that takes more than FUZZ_BASE_MS plus FUZZ_MS_PER_KB for each
 * KiB of input is a finding: the reader is worse than linear somewhere, or
 * its constant is absurd. The limits are generous for a sanitizer build;
 * TDC_FUZZ_MS_PER_KB in the environment overrides the slope.
 * The memory oracle next to it: the heap an input makes the reader hold at
 * its peak (counted through the sanitizer's malloc and free hooks, so it is
 * the input's own and not the process's high-water mark) must stay under
 * FUZZ_BASE_MIB plus FUZZ_KIB_PER_KIB for each KiB of input; a reader that
 * amplifies (a blob bomb inflated before its size is checked, a hive loop
 * copying values at every level) fails the fuzzer like a crash.
 * TDC_FUZZ_KIB_PER_KIB and TDC_FUZZ_BASE_MIB override the slope and base. Without the hooks (a build with
 * no sanitizer) only the time oracle runs.
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
#define FUZZ_BASE_MIB 16.0
#define FUZZ_KIB_PER_KIB 128.0

/* The sanitizer runtime's hooks (compiler-rt; gcc's libsanitizer has them too), weak: absent, no oracle. */
int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
					      void (*f)(const volatile void *)) __attribute__((weak));
size_t __sanitizer_get_allocated_size(const volatile void *p) __attribute__((weak));

static int fuzz_mem_on;
static long long fuzz_mem_now, fuzz_mem_peak;

static void fuzz_mem_malloc(const volatile void *p, size_t n)
{
	(void)p;
	if (!fuzz_mem_on)
		return;
	fuzz_mem_now += (long long)n;
	if (fuzz_mem_now > fuzz_mem_peak)
		fuzz_mem_peak = fuzz_mem_now;
}

static void fuzz_mem_free(const volatile void *p)
{
	if (fuzz_mem_on && p)
		fuzz_mem_now -= (long long)__sanitizer_get_allocated_size(p);
}

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
	static double per_kb = -1, kib_per_kib = -1, base_mib = -1;
	static int hooked;
	double t0, ms, budget, mem_budget;
	if (per_kb < 0) {
		const char *s = getenv("TDC_FUZZ_MS_PER_KB");
		per_kb = s && atof(s) > 0 ? atof(s) : FUZZ_MS_PER_KB;
		s = getenv("TDC_FUZZ_KIB_PER_KIB");
		kib_per_kib = s && atof(s) > 0 ? atof(s) : FUZZ_KIB_PER_KIB;
		s = getenv("TDC_FUZZ_BASE_MIB");
		base_mib = s && atof(s) > 0 ? atof(s) : FUZZ_BASE_MIB;
		if (__sanitizer_install_malloc_and_free_hooks && __sanitizer_get_allocated_size)
			hooked = __sanitizer_install_malloc_and_free_hooks(fuzz_mem_malloc, fuzz_mem_free) != 0;
	}
	fuzz_mem_now = fuzz_mem_peak = 0;
	fuzz_mem_on = hooked;
	t0 = fuzz_cpu_ms();
	fuzz_one(data, size);
	ms = fuzz_cpu_ms() - t0;
	fuzz_mem_on = 0;
	mem_budget = (base_mib * 1024.0 + kib_per_kib * (double)size / 1024.0) * 1024.0;
	if (hooked && (double)fuzz_mem_peak > mem_budget) {
		fprintf(stderr, "fuzz oracle: %zu bytes held %.1f MiB of heap at the peak, over the budget of %.1f MiB"
				" (%.0f MiB + %.0f KiB per KiB): the reader amplifies its input\n",
			size, (double)fuzz_mem_peak / 1048576.0, mem_budget / 1048576.0, base_mib, kib_per_kib);
		abort();
	}
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
