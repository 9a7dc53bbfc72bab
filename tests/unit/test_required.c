/*
 * test_required: which distribution ships a DLL (the measured table), and
 * which of torch's Requires-Dist markers hold on Windows (PEP 508).
 */
#include "harness.h"
#include "judge/required.h"

#include <string.h>

static void test_shipped_by(void)
{
	struct matrix m;
	struct err e;
	const struct matrix_vendor *x;
	matrix_init(&m);
	err_clear(&e);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	CHECK_STR(required_dist_of(&m, "mkl_intel_thread.1.dll"), "mkl");
	CHECK_STR(required_dist_of(&m, "MKL_CORE.1.DLL"), "mkl");
	CHECK_STR(required_dist_of(&m, "libiomp5md.dll"), "intel-openmp");
	CHECK_STR(required_dist_of(&m, "tbb12.dll"), "tbb");
	/* torch +xpu's oneAPI runtime, from the wheels' RECORDs */
	CHECK_STR(required_dist_of(&m, "sycl8.dll"), "intel-sycl-rt");
	CHECK_STR(required_dist_of(&m, "LIBMMD.DLL"), "intel-cmplr-lib-rt");
	CHECK_STR(required_dist_of(&m, "ur_win_proxy_loader.dll"), "intel-cmplr-lib-ur");
	CHECK_STR(required_dist_of(&m, "umf.dll"), "umf");
	CHECK_STR(required_dist_of(&m, "libhwloc-15.dll"), "tcmlib");
	CHECK_STR(required_dist_of(&m, "pti_view-0-10.dll"), "intel-pti");
	/* the Level Zero loader is the driver's: no wheel, its fix said */
	CHECK(required_dist_of(&m, "ze_loader.dll") == NULL);
	x = matrix_vendor_of(&m, "ZE_LOADER.dll");
	CHECK(x && x->driver && strstr(x->fix, "Intel Arc"));
	CHECK(required_dist_of(&m, "libiomp5md.dll.bak") == NULL);
	CHECK(required_dist_of(&m, "c10.dll") == NULL);
	CHECK(required_dist_of(&m, NULL) == NULL);
	matrix_release(&m);
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
