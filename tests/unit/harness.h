/*
 * harness: the unit-test harness. A test file defines `static void
 * test_something(void)` functions and a main() that runs them with RUN().
 * Output is TAP-like, one line per test: "ok - file: name" or
 * "not ok - file: name" followed by "#"-prefixed lines saying which check
 * failed where. tests/run counts these lines and prints "N passed, N failed".
 */
#ifndef TDC_HARNESS_H
#define TDC_HARNESS_H

#include <stdio.h>
#include <string.h>

static int harness_failed_checks;
static int harness_failed_tests;
static int harness_passed_tests;

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
		fn();                                                                   \
		if (harness_failed_checks == before_) {                                 \
			printf("ok - %s: %s\n", __FILE__, #fn);                         \
			harness_passed_tests++;                                         \
		} else {                                                                \
			printf("not ok - %s: %s\n", __FILE__, #fn);                     \
			harness_failed_tests++;                                         \
		}                                                                       \
		fflush(stdout);                                                         \
	} while (0)

#define HARNESS_EXIT() (harness_failed_tests ? 1 : 0)

#endif
