/*
 * git_objects: objects of an untrusted repository (a pull request's pin
 * files, a previous night's snapshot) checked before libgit2 reads them.
 *
 * A loose object is checked against its own header by git_loose (zlib
 * only, streaming, bounded by the caller's cap) before libgit2 inflates it,
 * so a header that lies, a truncated stream or a blob bomb cost at most the
 * cap, never what the stream expands to. A packed object's size comes from
 * the pack's entry header (git_odb_read_header reads only that), and
 * libgit2's pack reader inflates into a buffer of exactly that size, so the
 * cap checked against it holds.
 *
 * Missing objects are told apart (objects_missing) because a partial clone
 * (`filter: blob:none`) lacks blobs by design: git_repo fetches those from
 * the promisor remote.
 */
#ifndef TDC_GIT_OBJECTS_H
#define TDC_GIT_OBJECTS_H

#include <git2.h>
#include <stdint.h>

#include "util/err.h"
#include "util/strbuf.h"

/* What objects_check and objects_read_blob found. */
enum objects_result {
	OBJECTS_OK = 0,      /* present, sound, at most the cap */
	OBJECTS_TOO_BIG = 1, /* its header says more than the cap: *size says how much; nothing was inflated */
	OBJECTS_MISSING = 2, /* not in the repository (a partial or shallow clone) */
};

/*
 * Checks object `id` (any type) against the cap `max` (bytes of content).
 * OBJECTS_OK / OBJECTS_TOO_BIG / OBJECTS_MISSING with *size set when known;
 * -1 with err when it is damaged or cannot be read.
 */
int objects_check(git_repository *repo, const git_oid *id, uint64_t max, uint64_t *size, struct err *err);

/* objects_check, then the blob's content into out (reset first) when OBJECTS_OK. */
int objects_read_blob(git_repository *repo, const git_oid *id, uint64_t max, struct strbuf *out, uint64_t *size,
		      struct err *err);

#endif
