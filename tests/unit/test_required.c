/*
 * test_required: which distribution ships a DLL (the measured table), and
 * which of torch's Requires-Dist markers hold on Windows (PEP 508).
 */
#include "harness.h"
#include "judge/required.h"

static void test_shipped_by(void)
{
	CHECK_STR(required_dist_of("mkl_intel_thread.1.dll"), "mkl");
	CHECK_STR(required_dist_of("MKL_CORE.1.DLL"), "mkl");
	CHECK_STR(required_dist_of("libiomp5md.dll"), "intel-openmp");
	CHECK_STR(required_dist_of("tbb12.dll"), "tbb");
	CHECK(required_dist_of("libiomp5md.dll.bak") == NULL);
	CHECK(required_dist_of("c10.dll") == NULL);
	CHECK(required_dist_of(NULL) == NULL);
}

static void test_markers(void)
{
	CHECK_INT(required_marker_on_windows(NULL), 1);
	CHECK_INT(required_marker_on_windows(""), 1);
	CHECK_INT(required_marker_on_windows("platform_system == \"Windows\""), 1); /* torch 2.3.x's mkl */
	CHECK_INT(required_marker_on_windows("sys_platform == \"win32\""), 1);
	CHECK_INT(required_marker_on_windows("platform_system != \"Windows\""), 0);
	CHECK_INT(required_marker_on_windows("platform_system == \"Linux\" and platform_machine == \"x86_64\""), 0);
	CHECK_INT(required_marker_on_windows("sys_platform == \"linux\""), 0);
	CHECK_INT(required_marker_on_windows("extra == \"opt-einsum\""), 0);
	CHECK_INT(required_marker_on_windows("platform_system == \"Windows\" and python_version < \"3.13\""), 1);
	CHECK_INT(required_marker_on_windows("platform_system == \"Darwin\" or python_version < \"3.9\""), 1);
}

int main(void)
{
	RUN(test_shipped_by);
	RUN(test_markers);
	return HARNESS_EXIT();
}
