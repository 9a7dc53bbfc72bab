/*
 * apiset: the API set schema, version 6 (Windows 10 and later), and the
 * built-in fallback used when a tree carries no apisetschema.dll.
 *
 * Layout of the `.apiset` section (all offsets from the start of the
 * section, all integers little-endian 32-bit, names UTF-16LE without NUL):
 *   namespace (28 bytes): Version, Size, Flags, Count, EntryOffset,
 *                         HashOffset, HashFactor
 *   Count entries (24 bytes each) at EntryOffset: Flags, NameOffset,
 *       NameLength (bytes, the full name without ".dll"), HashedLength
 *       (bytes: the name up to its last hyphen), ValueOffset, ValueCount
 *   value entries (20 bytes): Flags, NameOffset, NameLength (the importing
 *       module this value applies to; 0 for the default), ValueOffset,
 *       ValueLength (the host DLL name; 0 = no host)
 *   Count hash entries (8 bytes: Hash, Index) at HashOffset, sorted by hash.
 * Sources: learn.microsoft.com "API set loader operation" (contract names,
 * the ignored trailing revision), Geoff Chappell's API_SET_NAMESPACE notes
 * and the public API_SET_NAMESPACE definitions in Wine's include/apiset.h
 * (structure fields; no code copied).
 *
 * Resolution as the loader does it (ApiSetResolveToHost): only names that
 * start with "api-" or "ext-" are contracts; the part up to the last hyphen
 * is compared case-insensitively with each entry's hashed part (we binary
 * search entries sorted by that part rather than by the hash: same answer,
 * no dependence on the file's hash factor); the value whose importer name
 * equals the importing module wins, else the first (default) value. A host of
 * length 0 means "contract with no host on this machine".
 *
 * Departure: the hash table is not used for lookups (see above); its
 * presence and bounds are still checked so a broken schema is reported.
 */
#include "pe/apiset.h"

#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"
#include "util/span.h"
#include "util/strbuf.h"
#include "util/utf.h"
#include "util/text.h"

struct apiset_value {
	char *importer; /* NULL for the default */
	char *host;     /* "" for none */
};

struct apiset_entry {
	char *name; /* full, lower case, without ".dll" */
	size_t hashed_len; /* bytes of name that are compared */
	struct apiset_value *values;
	size_t nvalues;
};

struct apiset {
	unsigned version;
	int fallback;
	struct apiset_entry *entries; /* sorted by the hashed prefix */
	size_t n;
};

/* UTF-16LE → UTF-8 (utf.h), lower-cased (ASCII), from span bytes [off, off+len). */
static int utf16_str(struct span s, uint32_t off, uint32_t len, char **out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	if (len % 2 || !span_has(s, off, len))
		return -1;
	utf16le_to_utf8(&sb, s.p + off, len, 0, NULL);
	for (i = 0; i < sb.len; i++)
		sb.buf[i] = (char)ascii_tolower((unsigned char)sb.buf[i]);
	*out = strbuf_detach(&sb);
	return 0;
}

/* Compares a lower-case key of length n with a name prefix of length m. */
static int prefix_cmp(const char *a, size_t n, const char *b, size_t m)
{
	size_t i;
	for (i = 0; i < n && i < m; i++) {
		int ca = ascii_tolower((unsigned char)a[i]), cb = ascii_tolower((unsigned char)b[i]);
		if (ca != cb)
			return ca - cb;
	}
	return n == m ? 0 : (n < m ? -1 : 1);
}

static int entry_cmp(const void *x, const void *y)
{
	const struct apiset_entry *a = x, *b = y;
	return prefix_cmp(a->name, a->hashed_len, b->name, b->hashed_len);
}

void apiset_free(struct apiset *as)
{
	size_t i, j;
	if (!as)
		return;
	for (i = 0; i < as->n; i++) {
		for (j = 0; j < as->entries[i].nvalues; j++) {
			free(as->entries[i].values[j].importer);
			free(as->entries[i].values[j].host);
		}
		free(as->entries[i].values);
		free(as->entries[i].name);
	}
	free(as->entries);
	free(as);
}

int apiset_parse(struct apiset **out, const void *data, size_t len, struct err *err)
{
	struct span s = span_make(data, len);
	uint32_t version, size, count, entry_off, hash_off;
	struct apiset *as;
	uint32_t i;

	if (span_u32(s, 0, &version))
		return err_set(err, "API set schema: %zu bytes, too short for a header", len);
	if (version != 6)
		return err_set(err, "API set schema version %u (only version 6, Windows 10+, is read)", version);
	if (span_u32(s, 4, &size) || span_u32(s, 12, &count) || span_u32(s, 16, &entry_off) ||
	    span_u32(s, 20, &hash_off))
		return err_set(err, "API set schema: truncated namespace header");
	if (size > len)
		return err_set(err, "API set schema: size %u exceeds the section's %zu bytes", size, len);
	s.len = size; /* nothing outside the namespace may be referenced */
	if (count > APISET_MAX_ENTRIES)
		return err_set(err, "API set schema: %u entries (more than %d)", count, APISET_MAX_ENTRIES);
	if (!span_has(s, entry_off, (size_t)count * 24))
		return err_set(err, "API set schema: entry table at 0x%x (%u entries) outside the schema",
			       entry_off, count);
	if (!span_has(s, hash_off, (size_t)count * 8))
		return err_set(err, "API set schema: hash table at 0x%x outside the schema", hash_off);

	as = xcalloc(1, sizeof(*as));
	as->version = version;
	as->entries = xcalloc(count ? count : 1, sizeof(*as->entries));
	for (i = 0; i < count; i++) {
		size_t eo = entry_off + (size_t)i * 24;
		uint32_t name_off = 0, name_len = 0, hashed_len = 0, val_off = 0, val_count = 0, k;
		struct apiset_entry *e = &as->entries[as->n];
		span_u32(s, eo + 4, &name_off);
		span_u32(s, eo + 8, &name_len);
		span_u32(s, eo + 12, &hashed_len);
		span_u32(s, eo + 16, &val_off);
		span_u32(s, eo + 20, &val_count);
		if (utf16_str(s, name_off, name_len, &e->name)) {
			err_set(err, "API set schema: entry %u: name at 0x%x (%u bytes) outside the schema", i,
				name_off, name_len);
			goto fail;
		}
		as->n++;
		if (hashed_len > name_len || hashed_len % 2) {
			err_set(err, "API set schema: entry %u (%s): hashed length %u > name length %u", i,
				e->name, hashed_len, name_len);
			goto fail;
		}
		e->hashed_len = strlen(e->name) - (name_len - hashed_len) / 2;
		if (val_count > APISET_MAX_VALUES) {
			err_set(err, "API set schema: entry %u (%s): %u values (more than %d)", i, e->name,
				val_count, APISET_MAX_VALUES);
			goto fail;
		}
		if (!span_has(s, val_off, (size_t)val_count * 20)) {
			err_set(err, "API set schema: entry %u (%s): values at 0x%x outside the schema", i,
				e->name, val_off);
			goto fail;
		}
		e->values = xcalloc(val_count ? val_count : 1, sizeof(*e->values));
		for (k = 0; k < val_count; k++) {
			size_t vo = val_off + (size_t)k * 20;
			uint32_t imp_off = 0, imp_len = 0, host_off = 0, host_len = 0;
			struct apiset_value *v = &e->values[e->nvalues];
			span_u32(s, vo + 4, &imp_off);
			span_u32(s, vo + 8, &imp_len);
			span_u32(s, vo + 12, &host_off);
			span_u32(s, vo + 16, &host_len);
			if ((imp_len && utf16_str(s, imp_off, imp_len, &v->importer)) ||
			    utf16_str(s, host_off, host_len, &v->host)) {
				free(v->importer);
				v->importer = NULL;
				err_set(err, "API set schema: entry %u (%s) value %u: name outside the schema", i,
					e->name, k);
				goto fail;
			}
			e->nvalues++;
		}
	}
	qsort(as->entries, as->n, sizeof(*as->entries), entry_cmp);
	*out = as;
	return 0;
fail:
	apiset_free(as);
	return -1;
}

int apiset_load(struct apiset **out, const char *path, struct err *err)
{
	struct pe_image *img;
	size_t i;
	int ret;
	if (pe_open(&img, path, 0, err))
		return -1;
	for (i = 0; i < img->nsections; i++) {
		const struct pe_section *sec = &img->sections[i];
		struct span sub;
		size_t n;
		if (strcmp(sec->name, ".apiset"))
			continue;
		n = sec->raw_size;
		if (sec->vsize && sec->vsize < n)
			n = sec->vsize;
		if (span_sub(img->file, sec->raw_off, n, &sub)) {
			pe_close(img);
			return err_set(err, "%s: section .apiset lies outside the file", path);
		}
		ret = apiset_parse(out, sub.p, sub.len, err);
		pe_close(img);
		if (ret)
			err_prefix(err, "%s: ", path);
		return ret;
	}
	pe_close(img);
	return err_set(err, "%s: no .apiset section", path);
}

/*
 * The fallback: what every Windows 10+ x64 machine maps these families to.
 * Deliberately small; anything else is "unknown contract" and reported.
 */
static const struct {
	const char *prefix;
	const char *host;
} fallback_table[] = {
	{ "api-ms-win-crt-", "ucrtbase.dll" },
	{ "api-ms-win-core-", "kernelbase.dll" },
	{ "api-ms-win-security-", "advapi32.dll" },
	{ "api-ms-win-eventing-", "advapi32.dll" },
	{ "api-ms-win-downlevel-", "kernelbase.dll" },
};

struct apiset *apiset_fallback(void)
{
	struct apiset *as = xcalloc(1, sizeof(*as));
	as->fallback = 1;
	return as;
}

int apiset_is_fallback(const struct apiset *as)
{
	return as->fallback;
}

unsigned apiset_version(const struct apiset *as)
{
	return as->version;
}

int apiset_is_contract(const char *name)
{
	return str_istartswith(name, "api-") || str_istartswith(name, "ext-");
}

int apiset_resolve(const struct apiset *as, const char *name, const char *importer, const char **host)
{
	const char *dash = strrchr(name, '-');
	size_t n, lo, hi, k;
	*host = NULL;
	if (!apiset_is_contract(name) || !dash)
		return -1;
	if (as->fallback) {
		for (k = 0; k < sizeof(fallback_table) / sizeof(fallback_table[0]); k++) {
			if (str_istartswith(name, fallback_table[k].prefix)) {
				*host = fallback_table[k].host;
				return 1;
			}
		}
		return -1;
	}
	n = (size_t)(dash - name);
	lo = 0;
	hi = as->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct apiset_entry *e = &as->entries[mid];
		int c = prefix_cmp(e->name, e->hashed_len, name, n);
		if (c < 0) {
			lo = mid + 1;
		} else if (c > 0) {
			hi = mid;
		} else {
			const struct apiset_value *v = NULL;
			if (!e->nvalues)
				return 0;
			if (importer) {
				for (k = 1; k < e->nvalues; k++)
					if (e->values[k].importer && !str_icmp(e->values[k].importer, importer))
						v = &e->values[k];
			}
			if (!v)
				v = &e->values[0];
			if (!v->host[0])
				return 0;
			*host = v->host;
			return 1;
		}
	}
	return -1;
}

size_t apiset_count(const struct apiset *as)
{
	return as->n;
}

void apiset_entry(const struct apiset *as, size_t i, const char **name, const char **host)
{
	*name = as->entries[i].name;
	*host = as->entries[i].nvalues ? as->entries[i].values[0].host : "";
}
