/*
 * apiset: API set contracts ("api-ms-win-crt-runtime-l1-1-0.dll") resolved
 * to their host DLLs, as the loader does before any file search.
 *
 * Source of truth: the `.apiset` section of System32\apisetschema.dll
 * (schema version 6, Windows 10+). When the checked machine has no schema
 * (a generated tree), a small built-in table stands in and says so
 * (apiset_is_fallback), so a report can tell its reader the answer is a guess.
 */
#ifndef TDC_APISET_H
#define TDC_APISET_H

#include <stddef.h>

#include "util/err.h"

struct apiset;

/* Caps on the schema (Windows 11 has about 2,000 entries). */
#define APISET_MAX_ENTRIES 65536
#define APISET_MAX_VALUES 64

/* Parses the schema in apisetschema.dll at host path `path`. */
int apiset_load(struct apiset **out, const char *path, struct err *err);

/* Parses the raw bytes of a `.apiset` section (an API_SET_NAMESPACE, version 6). */
int apiset_parse(struct apiset **out, const void *data, size_t len, struct err *err);

/* The built-in fallback table (never fails). */
struct apiset *apiset_fallback(void);

void apiset_free(struct apiset *as);

int apiset_is_fallback(const struct apiset *as);

/* Whether a DLL name is an API set contract name ("api-" or "ext-", any case). */
int apiset_is_contract(const char *name);

/*
 * Resolves contract `name` (with or without ".dll") imported by module
 * `importer` (base name, may be NULL). The contract matches an entry when
 * the names agree, case-insensitively, up to the last hyphen (the trailing
 * revision number is ignored, as Windows does). Returns
 *   1  found, *host is the host DLL name (borrowed from `as`),
 *   0  the contract exists but has no host here (*host = NULL),
 *  -1  no such contract in the schema.
 */
int apiset_resolve(const struct apiset *as, const char *name, const char *importer, const char **host);

/* Entries, for listing and tests: name without ".dll" (as stored) and default host ("" if none). */
size_t apiset_count(const struct apiset *as);
void apiset_entry(const struct apiset *as, size_t i, const char **name, const char **host);

/* Schema version parsed (6), or 0 for the fallback. */
unsigned apiset_version(const struct apiset *as);

#endif
