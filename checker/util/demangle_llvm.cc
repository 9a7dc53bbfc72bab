// demangle_llvm: the one C++ file, a shim over LLVM's MSVC demangler for
// demangle.c (see demangle.h). llvm::microsoftDemangle allocates the result
// with malloc (std::free releases it), returns NULL or sets a non-zero
// status for a name it rejects, and never throws.
//
// Bounded: a short decorated name can demangle to an exponential size (each
// back-reference digit repeats an earlier type or name, and templates open a
// fresh set of ten: 122 bytes render 87 MB, 137 bytes 790 MB). LLVM has no
// limit, so the build links a copy of libLLVMDemangle.a whose malloc,
// realloc, free, new and delete are renamed to the tdc_dm_* functions below
// (objcopy --redefine-sym, Makefile). During one call they count every byte
// LLVM asks for and remember every block it holds; past TDC_DM_BUDGET bytes
// (or TDC_DM_BLOCKS blocks) the allocation jumps back here, every block of
// the call is freed, and the caller gets NULL (the raw name is shown).
// Time is bounded with it: LLVM's work is linear in its input plus the text
// it writes, and the text lives in blocks it allocated.
#include <csetjmp>
#include <cstddef>
#include <cstdlib>
#include <new>

#include <llvm/Demangle/Demangle.h>

#define TDC_DM_BUDGET ((size_t)1 << 20) // bytes asked for in one call
#define TDC_DM_BLOCKS 1024		// blocks held at once

extern "C" {
char *tdc_llvm_ms_demangle(const char *symbol);
void *tdc_dm_malloc(size_t n);
void *tdc_dm_realloc(void *p, size_t n);
void tdc_dm_free(void *p);
}

namespace {
struct dm_state {
	bool on;
	size_t asked;
	size_t nblocks;
	void *blocks[TDC_DM_BLOCKS];
	std::jmp_buf out;
};
thread_local dm_state dm;

[[noreturn]] void dm_over(void)
{
	std::longjmp(dm.out, 1);
}

void dm_forget(void *p)
{
	for (size_t i = dm.nblocks; i-- > 0;)
		if (dm.blocks[i] == p) {
			dm.blocks[i] = dm.blocks[--dm.nblocks];
			return;
		}
}
} // namespace

extern "C" void *tdc_dm_malloc(size_t n)
{
	void *p;
	if (!dm.on)
		return std::malloc(n);
	if (n > TDC_DM_BUDGET - dm.asked || dm.nblocks == TDC_DM_BLOCKS)
		dm_over();
	dm.asked += n;
	if (!(p = std::malloc(n ? n : 1)))
		dm_over();
	dm.blocks[dm.nblocks++] = p;
	return p;
}

extern "C" void *tdc_dm_realloc(void *p, size_t n)
{
	void *q;
	if (!dm.on)
		return std::realloc(p, n);
	if (!p)
		return tdc_dm_malloc(n);
	if (n > TDC_DM_BUDGET - dm.asked)
		dm_over();
	dm.asked += n;
	if (!(q = std::realloc(p, n ? n : 1)))
		dm_over(); // p is still held and still listed: freed on the way out
	for (size_t i = 0; i < dm.nblocks; i++)
		if (dm.blocks[i] == p)
			dm.blocks[i] = q;
	return q;
}

extern "C" void tdc_dm_free(void *p)
{
	if (dm.on && p)
		dm_forget(p);
	std::free(p);
}

// new, new[], delete and delete[] of the renamed archive (_Znwm, _Znam, _ZdlPv, _ZdaPv).
extern "C" void *tdc_dm_new(size_t n);
extern "C" void tdc_dm_delete(void *p);
extern "C" void *tdc_dm_new(size_t n)
{
	void *p = tdc_dm_malloc(n);
	if (!p)
		throw std::bad_alloc(); // not reached: tdc_dm_malloc jumps out instead
	return p;
}
extern "C" void tdc_dm_delete(void *p)
{
	tdc_dm_free(p);
}
extern "C" void *tdc_dm_new_array(size_t n);
extern "C" void tdc_dm_delete_array(void *p);
extern "C" void *tdc_dm_new_array(size_t n)
{
	return tdc_dm_new(n);
}
extern "C" void tdc_dm_delete_array(void *p)
{
	tdc_dm_free(p);
}

extern "C" char *tdc_llvm_ms_demangle(const char *symbol)
{
	// volatile: read after longjmp
	char *volatile out = nullptr;
	int status = 0;
	dm.on = true;
	dm.asked = 0;
	dm.nblocks = 0;
	if (setjmp(dm.out) == 0) {
		out = llvm::microsoftDemangle(symbol, nullptr, nullptr, nullptr, &status);
		// What LLVM still holds is only the result (its arena is freed).
		dm.on = false;
		if (status != 0) {
			std::free(out);
			out = nullptr;
		}
		return out;
	}
	// Over the budget: LLVM's frames were left; free what they held.
	dm.on = false;
	for (size_t i = 0; i < dm.nblocks; i++)
		std::free(dm.blocks[i]);
	dm.nblocks = 0;
	return nullptr;
}
