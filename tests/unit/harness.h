/*
 * harness: the unit-test harness. A test file defines `static void
 * test_something(void)` functions and a main() that runs them with RUN().
 * Output is TAP-like, one line per test: "ok - file: name" or
 * "not ok - file: name" followed by "#"-prefixed lines saying which check
 * failed where. A test that cannot run here (a Wine file missing, say) calls
 * SKIP("why") and returns: its line is "ok - file: name # SKIP why", which
 * tests/run counts as skipped, never as passed (and fails under CI=true);
 * SKIP_OPTIONAL("why") is for a test allowed not to run in CI.
 */
#ifndef TDC_HARNESS_H
#define TDC_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int harness_failed_checks;
static int harness_failed_tests;
static int harness_passed_tests;
static int harness_skipped_tests;
static char harness_skip_reason[512]; /* set by SKIP in the running test; "" if it ran */

static inline void harness_skip(int optional, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(harness_skip_reason, sizeof(harness_skip_reason), "%s", optional ? "optional: " : "");
	va_start(ap, fmt);
	vsnprintf(harness_skip_reason + n, sizeof(harness_skip_reason) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* The running test could not run here; say why (printf format). Return after it. */
#define SKIP(...) harness_skip(0, __VA_ARGS__)
#define SKIP_OPTIONAL(...) harness_skip(1, __VA_ARGS__)

#define CHECK(cond)                                                                    \
	do {                                                                           \
		if (!(cond)) {                                                         \
			printf("# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			harness_failed_checks++;                                       \
		}                                                                      \
	} while (0)

#define CHECK_INT(a, b)                                                                 \
	do {                                                                            \
		long long a_ = (long long)(a), b_ = (long long)(b);                     \
		if (a_ != b_) {                                                         \
			printf("# %s:%d: %s == %lld, expected %s == %lld\n", __FILE__,  \
			       __LINE__, #a, a_, #b, b_);                               \
			harness_failed_checks++;                                        \
		}                                                                       \
	} while (0)

#define CHECK_STR(a, b)                                                                 \
	do {                                                                            \
		const char *a_ = (a), *b_ = (b);                                        \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                     \
			printf("# %s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__,    \
			       __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");   \
			harness_failed_checks++;                                        \
		}                                                                       \
	} while (0)

/* Checks that string a contains b. */
#define CHECK_HAS(a, b)                                                                 \
	do {                                                                            \
		const char *a_ = (a), *b_ = (b);                                        \
		if (!a_ || !b_ || !strstr(a_, b_)) {                                    \
			printf("# %s:%d: %s is \"%s\", expected it to contain \"%s\"\n", \
			       __FILE__, __LINE__, #a, a_ ? a_ : "(null)", b_);         \
			harness_failed_checks++;                                        \
		}                                                                       \
	} while (0)

#define RUN(fn)                                                                         \
	do {                                                                            \
		int before_ = harness_failed_checks;                                    \
		harness_skip_reason[0] = '\0';                                          \
		fn();                                                                   \
		if (harness_failed_checks != before_) {                                 \
			printf("not ok - %s: %s\n", __FILE__, #fn);                     \
			harness_failed_tests++;                                         \
		} else if (harness_skip_reason[0]) {                                    \
			printf("ok - %s: %s # SKIP %s\n", __FILE__, #fn,                 \
			       harness_skip_reason);                                    \
			harness_skipped_tests++;                                        \
		} else {                                                                \
			printf("ok - %s: %s\n", __FILE__, #fn);                         \
			harness_passed_tests++;                                         \
		}                                                                       \
		fflush(stdout);                                                         \
	} while (0)

#define HARNESS_EXIT() (harness_failed_tests ? 1 : 0)

#endif
