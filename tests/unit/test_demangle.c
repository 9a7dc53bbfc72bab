/*
 * test_demangle: MSVC decorated names from the real torch extension failures
 * (pytorch/vision#7294) come out as LLVM's demangler writes them; plain C
 * names, garbage and overlong names give NULL (the raw name is shown alone).
 */
#include "harness.h"
#include "util/demangle.h"

#include <stdlib.h>
#include <string.h>

static void test_msvc_names(void)
{
	char *s;
	if (!demangle_available()) {
		SKIP("this build has no demangler");
		return;
	}
	s = demangle_msvc("?toScalarType@TypeMeta@caffe2@@QEBA?AW4ScalarType@c10@@XZ");
	CHECK_STR(s, "public: enum c10::ScalarType __cdecl caffe2::TypeMeta::toScalarType(void) const");
	free(s);
	s = demangle_msvc("?x@@3HA");
	CHECK_STR(s, "int x");
	free(s);
}

static void test_not_decorated(void)
{
	char big[5000];
	CHECK(demangle_msvc("tensor_post_acc_grad_hooks") == NULL);
	CHECK(demangle_msvc("") == NULL);
	CHECK(demangle_msvc(NULL) == NULL);
	CHECK(demangle_msvc("?") == NULL);
	CHECK(demangle_msvc("?@@@@@@") == NULL);
	CHECK(demangle_msvc("?a\x01@@3HA") == NULL);
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '?';
	big[sizeof(big) - 1] = '\0';
	CHECK(demangle_msvc(big) == NULL);
}

int main(void)
{
	RUN(test_msvc_names);
	RUN(test_not_decorated);
	return HARNESS_EXIT();
}
