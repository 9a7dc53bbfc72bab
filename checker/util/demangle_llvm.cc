// demangle_llvm: the one C++ file, a shim over LLVM's MSVC demangler for
// demangle.c (see demangle.h). llvm::microsoftDemangle allocates the result
// with malloc (std::free releases it), returns NULL or sets a non-zero
// status for a name it rejects, and never throws.
#include <cstdlib>

#include <llvm/Demangle/Demangle.h>

extern "C" char *tdc_llvm_ms_demangle(const char *symbol);

extern "C" char *tdc_llvm_ms_demangle(const char *symbol)
{
	int status = 0;
	char *out = llvm::microsoftDemangle(symbol, nullptr, nullptr, nullptr, &status);
	if (status != 0) {
		std::free(out);
		return nullptr;
	}
	return out;
}
