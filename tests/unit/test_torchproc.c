#include "harness.h"
#include "loader/loader.h"
#include "loader/torchproc.h"

#include <stdlib.h>
#include <string.h>

/* Each release gets the procedure measured from its torch/__init__.py (matrix/evidence/torch-win_amd64-init.txt). */
static void test_torchproc_rows_by_release(void)
{
	int exact = -1;
	const struct torch_proc *p = torch_proc_for("2.3.0+cpu", &exact);
	CHECK_STR(p->since, "1.10.0");
	CHECK_INT(p->userbase, 0);
	CHECK_INT(exact, 1);
	p = torch_proc_for("2.3.1", &exact);
	CHECK_STR(p->since, "2.3.1");
	CHECK_INT(p->userbase, 1);
	CHECK_INT(p->prefix_bin, 0);
	p = torch_proc_for("2.8.0", &exact);
	CHECK_INT(p->prefix_bin, 1);
	CHECK_INT(p->nvtx, 0);
	p = torch_proc_for("2.9.1", &exact);
	CHECK_INT(p->nvtx, 1);
	CHECK_INT(p->vc1_arm64, 1);
	p = torch_proc_for("2.5.1", &exact);
	CHECK_INT(p->vc1_arm64, 0);
	p = torch_proc_for("1.9.1", &exact);
	CHECK_INT(p->vc1_old_cuda, 1);
	/* before the first measured release: the oldest row; newer or unknown: the newest, not measured */
	p = torch_proc_for("1.5.1", &exact);
	CHECK_STR(p->since, "1.7.1");
	p = torch_proc_for("9.0", &exact);
	CHECK_STR(p->since, "2.9.0");
	CHECK_INT(exact, 0);
	p = torch_proc_for("not a version", &exact);
	CHECK_STR(p->since, "2.9.0");
	CHECK_INT(exact, 0);
	p = torch_proc_for(NULL, &exact);
	CHECK_INT(exact, 0);
	CHECK_INT(torch_proc_line("2.3.0+cpu"), 81);
	CHECK_INT(torch_proc_line("2.15.0"), 222);
	CHECK_INT(torch_proc_line("2.16.0"), 0);
}

static void check_folder(const char *in, const char *want)
{
	char *got = ldr_win32_folder(in);
	CHECK_STR(got, want);
	free(got);
}

/* Win32 normalisation of folders ("File path formats on Windows systems"). */
static void test_win32_folder(void)
{
	check_folder("C:\\x\\ub.\\Library\\bin", "C:\\x\\ub\\Library\\bin");
	check_folder("C:\\Tools\\omp.", "C:\\Tools\\omp");
	check_folder("C:\\Tools\\omp. . .", "C:\\Tools\\omp");
	check_folder("C:\\a..\\b", "C:\\a..\\b");      /* two periods: not "a single period" */
	check_folder("C:\\a \\b", "C:\\a \\b");        /* trailing spaces kept inside a path */
	check_folder("C:/Tools/omp", "C:\\Tools\\omp");
	check_folder("\\\\?\\C:\\x.\\y.", "\\\\?\\C:\\x.\\y."); /* taken as written */
	check_folder("", "");
	check_folder(".", "");
}

int main(void)
{
	RUN(test_torchproc_rows_by_release);
	RUN(test_win32_folder);
	return HARNESS_EXIT();
}
