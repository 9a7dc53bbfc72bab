/*
 * test_pairs: the embedded extension/torch pairs (matrix/evidence/
 * extensions-win_amd64.txt, measured by tests/wheels/survey_ext.sh): every
 * line of the committed file is an evidence line, the pairs the fixes name
 * are the measured ones, a local version label is ignored, unknown releases
 * and projects answer NULL, and the lint finds a damaged line.
 */
#include "harness.h"
#include "matrix/pairs.h"

#include <string.h>

extern const char matrix_pairs_text[];
extern const size_t matrix_pairs_text_len;

static void test_evidence_is_clean(void)
{
	size_t bad_line = 0;
	CHECK(matrix_pairs_text_len > 1000);
	CHECK_INT(pairs_lint(matrix_pairs_text, matrix_pairs_text_len, &bad_line), 0);
	CHECK_INT(bad_line, 0);
}

static void test_measured_pairs(void)
{
	CHECK_STR(pairs_torch_of("torchvision", "0.21.0"), "2.6.0");
	CHECK_STR(pairs_torch_of("torchaudio", "2.6.0"), "2.6.0");
	CHECK_STR(pairs_torch_of("TorchVision", "0.19.1"), "2.4.1");
	CHECK_STR(pairs_ext_for("torchvision", "2.9.1"), "0.24.1");
	CHECK_STR(pairs_ext_for("torchvision", "2.9.1+cpu"), "0.24.1");
	CHECK_STR(pairs_ext_for("torchaudio", "2.4.1"), "2.4.1");
	CHECK(pairs_torch_of("torchvision", "9.9.9") == NULL);
	CHECK(pairs_ext_for("torchvision", "1.0.0") == NULL);
	/* a release whose wheel requires a range, not one torch, pairs with none */
	CHECK(pairs_torch_of("torchvision", "0.29.2") == NULL);
	CHECK(pairs_knows("torchaudio"));
	CHECK(!pairs_knows("xformers"));
}

static void test_lint(void)
{
	static const char good[] =
		"torchvision 0.21.0 torchvision-0.21.0-cp311-cp311-win_amd64.whl "
		"sha256=49bcfad8cfe2c27dee116c45d4f866d7974bcf14a5a9fbef893635deae322f2f torch==2.6.0\n"
		"torchaudio 0.8.0 refused: wheels.py: PyPI lists no win_amd64 wheel of torchaudio 0.8.0\n"
		"torchvision 0.3.0 torchvision-0.3.0-cp37-cp37m-win_amd64.whl "
		"sha256=3ed016bea513e5a77642c58794a59146658270221b564f258d6c7483cc07344f torch >=1.1.0\n";
	static const char bad[] = "torchvision 0.21.0 x.whl sha256=short torch==2.6.0\n";
	size_t first = 9;
	CHECK_INT(pairs_lint(good, strlen(good), &first), 0);
	CHECK_INT(first, 0);
	CHECK_INT(pairs_lint(bad, strlen(bad), &first), 1);
	CHECK_INT(first, 1);
}

int main(void)
{
	RUN(test_evidence_is_clean);
	RUN(test_measured_pairs);
	RUN(test_lint);
	return HARNESS_EXIT();
}
