/*
 * test_cuda: the CUDA judge (judge/cuda.c) on a pinned torch, before
 * anything is installed (`check --pins`), with a matrix `cuda` table written
 * here and the NVIDIA driver described by hand: the toolkit's driver and the
 * minor-version-compatibility floor found per CUDA release; no driver (no
 * System32\nvcuda.dll, or an unreadable one), a driver below the toolkit's
 * (a note: minor version compatibility), below the floor (a warning), new
 * enough, with no version; a CUDA release the table lacks; a build PyTorch
 * never published for that CUDA release; CPU builds not judged at all.
 */
#include "harness.h"
#include "judge/cuda.h"

#include <stdlib.h>

static const char yaml[] = "schema: 1\n"
			   "rows: []\n"
			   "cuda:\n"
			   "  - {cuda: \"12.1\", driver: \"531.14\", floor: \"527.41\", published: \">=2.1,<2.6\",\n"
			   "     status: sourced, sources: [https://example.com/cuda-12.1]}\n"
			   "  - {cuda: \"12.4\", driver: \"551.61\", floor: \"527.41\", published: \">=2.4,<2.7\",\n"
			   "     status: sourced, sources: [https://example.com/cuda-12.4]}\n";

static int load(struct matrix *m)
{
	struct err e = { "", 0 };
	matrix_init(m);
	if (matrix_load_buffer(m, "cuda.yml", yaml, strlen(yaml), NULL, &e)) {
		printf("# cuda.yml: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* A driver: NULL path = no nvcuda.dll; major 0 = a file without a driver version. */
static void driver(struct gpu_driver *g, const char *path, const char *error, unsigned major, unsigned minor)
{
	gpu_driver_init(g);
	if (path)
		g->nvcuda_path = xstrdup(path);
	if (error)
		g->nvcuda_error = xstrdup(error);
	if (major) {
		g->has_driver = 1;
		g->driver.major = major;
		g->driver.minor = minor;
	}
}

/* The findings of a pinned version on the driver, as "rule severity title" lines. */
static char *pin(const struct matrix *m, const struct gpu_driver *g, const char *version, const char *variant)
{
	struct findings fs = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	size_t i, n = cuda_judge_pin(&fs, m, g, version, variant);
	CHECK_INT(n, fs.n);
	for (i = 0; i < fs.n; i++)
		strbuf_addf(&sb, "%s %s %s\n", rule_get(fs.v[i].rule)->id, severity_name(fs.v[i].severity), fs.v[i].title);
	findings_release(&fs);
	return strbuf_detach(&sb);
}

#define NVCUDA "C:\\Windows\\System32\\nvcuda.dll"

static void test_need_per_release(void)
{
	struct matrix m, empty;
	struct cuda_need need;
	if (load(&m)) {
		CHECK(!"the matrix loads");
		return;
	}
	CHECK_INT(cuda_need_find(&m, 12, 4, &need), 1);
	CHECK_INT(need.driver.major, 551);
	CHECK_INT(need.driver.minor, 61);
	CHECK_INT(need.has_floor, 1);
	CHECK_INT(need.floor.major, 527);
	CHECK_INT(need.floor.minor, 41);
	CHECK_STR(need.file, "cuda.yml");
	CHECK_INT(need.line, 6);
	CHECK_STR(need.source, "https://example.com/cuda-12.4");
	CHECK_INT(cuda_need_find(&m, 12, 9, &need), 0); /* not in the table */
	matrix_init(&empty);
	CHECK_INT(cuda_need_find(&empty, 12, 4, &need), -1); /* no table at all */
	CHECK_INT(cuda_need_find(NULL, 12, 4, &need), -1);
	matrix_release(&empty);
	matrix_release(&m);
}

static void test_driver_against_the_release(void)
{
	struct matrix m;
	struct gpu_driver g;
	char *s;
	if (load(&m)) {
		CHECK(!"the matrix loads");
		return;
	}
	driver(&g, NULL, NULL, 0, 0);
	s = pin(&m, &g, "2.4.0+cu124", NULL);
	CHECK_STR(s, "cuda-no-driver error a CUDA 12.4 build of torch on a machine without the NVIDIA driver (no "
		     "nvcuda.dll)\n");
	free(s);
	gpu_driver_release(&g);

	driver(&g, NVCUDA, "not a PE file (no MZ signature)", 0, 0);
	s = pin(&m, &g, "2.4.0+cu124", NULL);
	CHECK_STR(s, "cuda-no-driver error a CUDA 12.4 build of torch and " NVCUDA " is not a usable NVIDIA driver "
		     "file\n");
	free(s);
	gpu_driver_release(&g);

	/* between the floor and the toolkit's driver: minor version compatibility, a note */
	driver(&g, NVCUDA, NULL, 540, 0);
	s = pin(&m, &g, "2.4.0+cu124", NULL);
	CHECK_STR(s, "cuda-driver-too-old note NVIDIA driver 540.00 is older than CUDA 12.4 needs (>= 551.61)\n");
	free(s);
	s = pin(&m, &g, "2.4.0", "cu121"); /* the variant given apart: 12.1 needs 531.14 */
	CHECK_STR(s, "");
	free(s);
	gpu_driver_release(&g);

	/* below the floor: CUDA does not start, a warning */
	driver(&g, NVCUDA, NULL, 520, 5);
	s = pin(&m, &g, "2.4.0+cu124", NULL);
	CHECK_STR(s, "cuda-driver-too-old warning NVIDIA driver 520.05 is older than CUDA 12.4 needs (>= 551.61)\n");
	free(s);
	gpu_driver_release(&g);

	/* the toolkit's driver exactly, and newer */
	driver(&g, NVCUDA, NULL, 551, 61);
	s = pin(&m, &g, "2.4.0+cu124", NULL);
	CHECK_STR(s, "");
	free(s);
	gpu_driver_release(&g);
	driver(&g, NVCUDA, NULL, 560, 94);
	s = pin(&m, &g, "2.6.0+cu124", NULL);
	CHECK_STR(s, "");
	free(s);
	gpu_driver_release(&g);

	/* a driver file without a version the checker can read */
	driver(&g, NVCUDA, NULL, 0, 0);
	s = pin(&m, &g, "2.4.0+cu124", NULL);
	CHECK_STR(s, "cuda-driver-unverified warning the NVIDIA driver's version cannot be told: no version resource\n");
	free(s);
	gpu_driver_release(&g);
	matrix_release(&m);
}

static void test_builds_and_releases(void)
{
	struct matrix m;
	struct gpu_driver g;
	char *s;
	if (load(&m)) {
		CHECK(!"the matrix loads");
		return;
	}
	driver(&g, NULL, NULL, 0, 0);
	s = pin(&m, &g, "2.4.0+cpu", NULL); /* not a CUDA build: no driver needed */
	CHECK_STR(s, "");
	free(s);
	s = pin(&m, &g, "2.4.0", NULL); /* no variant: nothing says CUDA */
	CHECK_STR(s, "");
	free(s);
	gpu_driver_release(&g);

	driver(&g, NVCUDA, NULL, 560, 94);
	/* 12.4 builds start at 2.4 (its `published`); 12.1 has 2.3 */
	s = pin(&m, &g, "2.3.0+cu124", NULL);
	CHECK_STR(s, "cuda-variant-unpublished error torch 2.3.0+cu124: PyTorch published no Windows build of torch "
		     "2.3.0 for CUDA 12.4\n");
	free(s);
	s = pin(&m, &g, "2.3.0+cu121", NULL);
	CHECK_STR(s, "");
	free(s);
	/* a CUDA release the table lacks: unpublished, and its driver cannot be checked */
	s = pin(&m, &g, "2.4.0+cu129", NULL);
	CHECK_STR(s, "cuda-variant-unpublished error torch 2.4.0+cu129: PyTorch published no Windows build of torch "
		     "2.4.0 for CUDA 12.9\n"
		     "cuda-driver-unverified warning torch 2.4.0+cu129: CUDA 12.9 is not in the matrix's table of NVIDIA "
		     "driver minimums\n");
	free(s);
	gpu_driver_release(&g);
	matrix_release(&m);
}

int main(void)
{
	RUN(test_need_per_release);
	RUN(test_driver_against_the_release);
	RUN(test_builds_and_releases);
	return HARNESS_EXIT();
}
