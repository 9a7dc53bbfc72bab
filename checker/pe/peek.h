/*
 * peek: the names of the DLLs a PE image imports, read with a handful of
 * small positioned reads (os_pread) instead of a mapping.
 *
 * The environment scan (judge/extensions.h) asks of every native binary of
 * every distribution whether it imports one of torch's DLLs: 600 binaries
 * beside torch in issue 20's benchmark, almost none of which do. Mapping
 * each (pe_open) costs far more than the few hundred bytes that answer the
 * question: the mapping is set up, its pages faulted in around each touch
 * and torn down again. peek reads the headers (one 4 KiB block), the import
 * descriptors and the DLL names through a cache of a few 4 KiB blocks, and
 * nothing else: no thunks, no exports, no resources.
 *
 * It is a filter in front of pe_open, never a second opinion: the headers
 * and the section table follow pe.c's rules exactly (the same checks), RVAs
 * are mapped by the same function (sections.h: the same clamping of a
 * section to its file data, the same header mapping), and the descriptors
 * are walked as pe.c walks them, so
 * every name peek gives is a name pe_open gives for the same bytes (or
 * pe_open refuses the file). Anything peek does not follow to the end — a
 * structure out of bounds, more than PEEK_MAX_SECTIONS sections, a name
 * longer than PEEK_MAX_NAME, a read error — returns -1, and the caller asks
 * pe_open, whose verdict and message stand. tests/fuzz/fuzz_pe.c checks on
 * every input that a complete peek lists at least the names pe_parse does.
 */
#ifndef TDC_PE_PEEK_H
#define TDC_PE_PEEK_H

#include <stddef.h>
#include <stdint.h>

#define PEEK_MAX_SECTIONS 96
#define PEEK_MAX_NAME 255

/* Where peek reads from: `read` gives up to n bytes at off (*got fewer only at the end), 0 or -1. */
struct pe_peek_src {
	int (*read)(void *ctx, uint64_t off, void *buf, size_t n, size_t *got);
	void *ctx;
	uint64_t size;
};

/*
 * Calls fn(ctx, dll, delay) for each DLL name of the directories `what`
 * selects (PE_IMPORTS, PE_DELAY_IMPORTS), in directory order; fn returns
 * nonzero to stop. Returns 0 when every selected directory was read to its
 * terminator, 1 when fn stopped the walk, -1 when peek cannot answer (see
 * above: ask pe_open).
 */
typedef int (*pe_peek_fn)(void *ctx, const char *dll, int delay);
int pe_peek_imports_src(const struct pe_peek_src *src, unsigned what, pe_peek_fn fn, void *ctx);

/* The same on a host file (opened, read with os_pread, closed). */
int pe_peek_imports(const char *path, unsigned what, pe_peek_fn fn, void *ctx);

/* The same on bytes in memory (fuzzing, tests). */
int pe_peek_imports_mem(const void *data, size_t len, unsigned what, pe_peek_fn fn, void *ctx);

#endif
