/*
 * git_loose: one loose git object file (zlib of "TYPE SIZE\0" + content)
 * checked against its own header, streaming, before anything inflates it
 * whole.
 *
 * Why: the header states the content's size, and a reader that trusts the
 * stream instead (libgit2 1.5 inflates a blob into memory, then compares
 * its size with a cap) lets a 1 MB object that inflates to 1 GiB cost
 * 1 GiB of memory; libgit2 1.5 also loops forever on a truncated stream
 * (libgit2/libgit2#7342) and writes past its buffer when the header claims
 * fewer bytes than the stream holds (#7177). So: the header is read first
 * (the first few inflated bytes) and compared with the caller's cap; then
 * the rest is inflated into a small fixed buffer and counted, and refused
 * the moment it passes the header's size. The work is bounded by the cap,
 * never by what the stream expands to, and memory is constant. The input
 * size is bounded too: deflate adds at most 5 bytes per 64 KiB stored
 * block, so a file much larger than its header's size allows is refused
 * before it is read (a stream of empty blocks would otherwise read without
 * producing anything).
 *
 * zlib only (no libgit2), so the fuzz target and unit tests use it alone.
 * Format: git's Documentation/technical (loose object format: "<type>
 * <size>\0<content>", zlib-deflated).
 */
#ifndef TDC_GIT_LOOSE_H
#define TDC_GIT_LOOSE_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

struct git_loose_info {
	char type[8];  /* "blob", "tree", "commit" or "tag" */
	uint64_t size; /* the content's size, from the header */
};

/* What git_loose_check found. */
enum git_loose_result {
	GIT_LOOSE_OK = 0,      /* the stream inflates to exactly the header's size, nothing after it */
	GIT_LOOSE_TOO_BIG = 1, /* the header says more than max bytes: info filled, the content untouched */
};

/*
 * Checks the loose object file `data` (len bytes) whose content may be at
 * most max bytes. 0 (GIT_LOOSE_OK) or 1 (GIT_LOOSE_TOO_BIG) with info set;
 * -1 with err saying how it is damaged (no header, not zlib data,
 * truncated, a header that lies about the size, trailing data).
 */
int git_loose_check(const unsigned char *data, size_t len, uint64_t max, struct git_loose_info *info,
		    struct err *err);

#endif
