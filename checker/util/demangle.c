/*
 * demangle: the C side of the MSVC demangler (demangle.h). The work is
 * LLVM's, in demangle_llvm.cc; without TDC_LLVM_DEMANGLE (the mingw build)
 * there is none.
 */
#include "util/demangle.h"

#include <stdlib.h>
#include <string.h>

#include "util/text.h"

#ifdef TDC_LLVM_DEMANGLE
char *tdc_llvm_ms_demangle(const char *symbol); /* demangle_llvm.cc: malloc'd, or NULL */
#endif

int demangle_available(void)
{
#ifdef TDC_LLVM_DEMANGLE
	return 1;
#else
	return 0;
#endif
}

char *demangle_msvc(const char *symbol)
{
#ifdef TDC_LLVM_DEMANGLE
	char *out;
	size_t i, n;
	if (!symbol || symbol[0] != '?' || (n = strlen(symbol)) > 4096)
		return NULL;
	for (i = 0; i < n; i++)
		if (!ascii_isprint((unsigned char)symbol[i]))
			return NULL; /* decorated names are printable ASCII */
	out = tdc_llvm_ms_demangle(symbol);
	if (out && (!out[0] || !strcmp(out, symbol))) {
		free(out);
		return NULL;
	}
	return out;
#else
	(void)symbol;
	return NULL;
#endif
}
