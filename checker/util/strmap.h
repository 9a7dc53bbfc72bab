/*
 * strmap: a map from C strings to size_t values (usually an index into the
 * caller's own array), exact or ASCII case-insensitive as Windows compares
 * file and registry names (str_icmp).
 *
 * Open addressing with linear probing over a power-of-two table kept at
 * most half full, FNV-1a hashes (stored per slot, so a probe compares
 * strings only when the hashes agree). Lookups cost O(1) whatever the size:
 * the loader's image cache and module lists, the offline directory cache,
 * the registry's key table and TOML tables were each a hand-written copy of
 * this before, and the ones that were linear walks grew with the square of
 * the input.
 *
 * Contract:
 *   - Keys are borrowed, not copied (as libgit2's git_strmap): the map keeps
 *     the pointer, so the string must stay in place and unchanged while the
 *     map holds it. Every user keeps its keys in the array the values index.
 *   - strmap_add keeps the first value of a key: adding a key that is there
 *     already changes nothing, so a map built while appending to a list in
 *     order answers what a walk of that list from the start would.
 *   - Entries are never removed; strmap_release frees the table (not the keys).
 *   - Allocation failure aborts (xmalloc, strbuf.h); nothing else can fail.
 */
#ifndef TDC_STRMAP_H
#define TDC_STRMAP_H

#include <stddef.h>

#define STRMAP_ICASE 1 /* keys compare and hash ASCII case-insensitively */

struct strmap_slot {
	const char *key; /* NULL: empty */
	size_t hash;
	size_t val;
};

struct strmap {
	struct strmap_slot *slot;
	size_t n, cap; /* cap: 0 or a power of two, at least 2 * n */
	int flags;
};

#define STRMAP_INIT { NULL, 0, 0, 0 }

void strmap_init(struct strmap *m, int flags);
void strmap_release(struct strmap *m);

/* 1 with *val (may be NULL) set when key is in the map; 0 when it is not. */
int strmap_get(const struct strmap *m, const char *key, size_t *val);

/* Adds key → val unless key is there already: 0 added, 1 already there (left as it was). */
int strmap_add(struct strmap *m, const char *key, size_t val);

/* FNV-1a of s, of its ASCII upper case with STRMAP_ICASE: for tables with composite keys. */
size_t strmap_hash(const char *s, int flags);

#endif
