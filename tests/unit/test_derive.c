/*
 * test_derive: which DLL names count as VC++ runtime and OpenMP, and the
 * errors of derive_dir on folders that hold no torch or a broken binary.
 * Real torch installs are measured in tests/wheels/ (PyPI's wheels).
 */
#include "matrix/derive.h"
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_classify(void)
{
	CHECK_INT(derive_classify("VCRUNTIME140.dll"), 1);
	CHECK_INT(derive_classify("vcruntime140_1.dll"), 1);
	CHECK_INT(derive_classify("VCRUNTIME140_THREADS.dll"), 1);
	CHECK_INT(derive_classify("MSVCP140.dll"), 1);
	CHECK_INT(derive_classify("msvcp140_atomic_wait.dll"), 1);
	CHECK_INT(derive_classify("concrt140.dll"), 1);
	CHECK_INT(derive_classify("libiomp5md.dll"), 2);
	CHECK_INT(derive_classify("VCOMP140.DLL"), 2);
	CHECK_INT(derive_classify("libomp140.x86_64.dll"), 2);
	CHECK_INT(derive_classify("KERNEL32.dll"), 0);
	CHECK_INT(derive_classify("msvcp140"), 0); /* not a DLL name */
	CHECK_INT(derive_classify("api-ms-win-crt-runtime-l1-1-0.dll"), 0);
	CHECK_INT(derive_classify("libiompstubs5md.dll"), 0); /* shipped, never imported for OpenMP */
}

static void test_dir_errors(void)
{
	char root[] = "/tmp/tdc-derive-XXXXXX", *p;
	struct derive d;
	struct err e;
	FILE *f;
	if (!mkdtemp(root)) {
		CHECK(0);
		return;
	}
	derive_init(&d);
	err_clear(&e);
	CHECK_INT(derive_dir(&d, root, &e), -1);
	CHECK(strstr(e.msg, "no torch here") != NULL);
	derive_release(&d);

	p = xasprintf("%s/torch", root);
	mkdir(p, 0755);
	free(p);
	p = xasprintf("%s/torch/lib", root);
	mkdir(p, 0755);
	free(p);
	derive_init(&d);
	CHECK_INT(derive_dir(&d, root, &e), -1);
	CHECK(strstr(e.msg, "no DLL in torch") != NULL);
	derive_release(&d);

	p = xasprintf("%s/torch/lib/c10.dll", root);
	f = fopen(p, "w");
	if (f) {
		fputs("not a PE file", f);
		fclose(f);
	}
	derive_init(&d);
	CHECK_INT(derive_dir(&d, root, &e), -1);
	CHECK(strstr(e.msg, "c10.dll") != NULL);
	derive_release(&d);
	unlink(p);
	free(p);
	p = xasprintf("%s/torch/lib", root);
	rmdir(p);
	free(p);
	p = xasprintf("%s/torch", root);
	rmdir(p);
	free(p);
	rmdir(root);
}

int main(void)
{
	RUN(test_classify);
	RUN(test_dir_errors);
	return HARNESS_EXIT();
}
