/*
 * policy_trees.h: the two Windows trees test_policy and test_result load
 * (tests/lib/trees/policy.sh builds them once into the fixture cache).
 * Fills shadow_root / omp_root with the trees' roots (what `--root` takes);
 * -1 when they could not be built (no mingw-w64: the caller skips).
 */
#ifndef TDC_POLICY_TREES_H
#define TDC_POLICY_TREES_H

#include <stdio.h>
#include <string.h>

#define TREE_TORCH_DIR "C:\\Python311\\Lib\\site-packages\\torch"
#define TREE_PYTHON "C:\\Python311\\python.exe"

static char shadow_root[1024], omp_root[1024];

static int policy_trees(void)
{
	char line[900];
	int n = 0;
	FILE *p = popen("bash tests/lib/trees/policy.sh", "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (n < 2)
			snprintf(n == 0 ? shadow_root : omp_root, sizeof(shadow_root), "%s/root", line);
		n++;
	}
	return pclose(p) == 0 && n == 2 ? 0 : -1;
}

#endif
