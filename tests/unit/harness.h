/*
 * harness: the unit-test harness. A test file defines `static void
 * test_something(void)` functions and a main() that runs them with RUN().
 * Output is TAP-like, one line per test: "ok - file: name" or
 * "not ok - file: name" followed by "#"-prefixed lines saying which check
 * failed where. A test that cannot run here (a Wine file missing, say) calls
 * SKIP("why") and returns: its line is "ok - file: name # SKIP why", which
 * tests/run counts as skipped, never as passed (and fails under CI=true);
 * SKIP_OPTIONAL("why") is for a test allowed not to run in CI.
 *
 * One test, or a few: give words on the command line, and only the tests
 * whose function name contains one of them run (the others print nothing):
 *
 *   build/asan/tests/unit/test_pe pe32plus
 *
 * TDC_UNIT_FILTER (words separated by spaces) does the same where the
 * command line is not yours (a debugger's, a wrapper's). A filter that
 * selects no test of the binary is a failure ("not ok"), never a silent pass.
 *
 * A test binary runs in the checkout it was built in, whatever the folder it
 * is started from: before main, the harness changes to the folder that holds
 * its build/ (tests name files as tests/..., matrix/...).
 */
#ifndef TDC_HARNESS_H
#define TDC_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int harness_failed_checks;
static int harness_failed_tests;
static int harness_passed_tests;
static int harness_skipped_tests;
static char harness_skip_reason[512]; /* set by SKIP in the running test; "" if it ran */
static int harness_argc;
static char **harness_argv;
static int harness_selected; /* tests that ran under a filter */

/* The command line, before main: glibc hands every ELF constructor the
 * arguments main gets, so no test file's main has to pass them on. */
__attribute__((constructor)) static void harness_args(int argc, char **argv)
{
	char exe[4096], *at;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	harness_argc = argc;
	harness_argv = argv;
	/* CHECKOUT/build/asan/tests/unit/test_x: change to CHECKOUT */
	if (n > 0) {
		exe[n] = '\0';
		if ((at = strstr(exe, "/build/asan/tests/unit/")) && at > exe) {
			*at = '\0';
			if (chdir(exe))
				printf("# cannot change to the checkout %s\n", exe);
		}
	}
}

/* 1 when there is a filter, from the command line or TDC_UNIT_FILTER. */
static inline int harness_filtered(void)
{
	const char *env = getenv("TDC_UNIT_FILTER");
	return harness_argc > 1 || (env && strspn(env, " ") < strlen(env));
}

/* Does the test called name run? Every test, without a filter; else those
 * whose name contains one of the filter's words. */
static inline int harness_wanted(const char *name)
{
	const char *env = getenv("TDC_UNIT_FILTER");
	if (!harness_filtered())
		return 1;
	for (int i = 1; i < harness_argc; i++)
		if (harness_argv[i][0] && strstr(name, harness_argv[i]))
			return 1;
	while (env && *env) {
		size_t n;
		env += strspn(env, " ");
		n = strcspn(env, " ");
		if (n) {
			for (const char *p = name; strlen(p) >= n; p++)
				if (!strncmp(p, env, n))
					return 1;
		}
		env += n;
	}
	return 0;
}

/* A filter that selected no test: one "not ok" line, and the exit status 1. */
static inline int harness_none_selected(const char *file)
{
	if (!harness_filtered() || harness_selected)
		return 0;
	printf("not ok - %s: no test name contains the filter (", file);
	for (int i = 1; i < harness_argc; i++)
		printf("%s%s", i > 1 ? " " : "", harness_argv[i]);
	if (getenv("TDC_UNIT_FILTER"))
		printf("%sTDC_UNIT_FILTER=%s", harness_argc > 1 ? " " : "", getenv("TDC_UNIT_FILTER"));
	printf(")\n");
	return 1;
}

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
		if (!harness_wanted(#fn))                                               \
			break;                                                          \
		harness_selected++;                                                     \
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

#define HARNESS_EXIT() (harness_none_selected(__FILE__) | (harness_failed_tests ? 1 : 0))

#endif
