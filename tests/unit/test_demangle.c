/*
 * test_demangle: MSVC decorated names from the real torch extension failures
 * (pytorch/vision#7294) come out as LLVM's demangler writes them; plain C
 * names, garbage and overlong names give NULL (the raw name is shown alone).
 */
#include "harness.h"
#include "util/demangle.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

/*
 * A name of 122 bytes whose back-references repeat: f's first parameter is
 * A<int>, each next one a function pointer taking the previous one nine
 * times (the digits), so the text grows ninefold per 15 bytes: 87 MB for
 * this one (llvm-undname), 790 MB with one more level. The demangler stops
 * at its budget and gives NULL (the raw name is shown), in bounded time and
 * memory; a name at the same depth without the repeats still demangles.
 */
static void test_backreference_bomb(void)
{
	char sym[512], *s;
	size_t n;
	int i, j;
	clock_t t0;
	if (!demangle_available()) {
		SKIP("this build has no demangler");
		return;
	}
	for (int depth = 6; depth <= 9; depth++) {
		n = (size_t)snprintf(sym, sizeof(sym), "?f@@YAXV?$A@H@@");
		for (i = 0; i < depth; i++) {
			n += (size_t)snprintf(sym + n, sizeof(sym) - n, "P6AX");
			for (j = 0; j < 9; j++)
				sym[n++] = (char)('0' + i);
			n += (size_t)snprintf(sym + n, sizeof(sym) - n, "@Z");
		}
		snprintf(sym + n, sizeof(sym) - n, "@Z");
		t0 = clock();
		s = demangle_msvc(sym);
		CHECK(s == NULL);
		CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5);
		free(s);
	}
	s = demangle_msvc("?f@@YAXV?$A@H@@P6AX0@ZP6AX1@Z@Z");
	CHECK_STR(s, "void __cdecl f(class A<int>, void (__cdecl *)(class A<int>), void (__cdecl *)(void (__cdecl *)(class A<int>)))");
	free(s);
}

int main(void)
{
	RUN(test_backreference_bomb);
	RUN(test_msvc_names);
	RUN(test_not_decorated);
	return HARNESS_EXIT();
}
