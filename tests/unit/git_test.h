/*
 * git_test.h: what the git layer's unit tests (test_git_*.c) share: asking
 * the git program itself about the repository a test made, to compare.
 */
#ifndef TDC_GIT_TEST_H
#define TDC_GIT_TEST_H

#include <stdio.h>
#include <string.h>

/* The first line `git -C dir ARGS` prints, without its newline ("" when git fails). */
static inline void git_first_line(const char *dir, const char *args, char *out, size_t n)
{
	char cmd[1024];
	FILE *p;
	snprintf(cmd, sizeof(cmd), "git -C '%s' %s 2>/dev/null", dir, args);
	out[0] = '\0';
	if ((p = popen(cmd, "r"))) {
		if (fgets(out, (int)n, p))
			out[strcspn(out, "\n")] = '\0';
		pclose(p);
	}
}

#endif
