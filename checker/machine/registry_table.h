/*
 * registry_table: the key table inside the registry module (registry.h),
 * private to its files. registry.c owns it: the keys kept, their values as
 * Windows stores them (a type and the raw bytes, strings in UTF-16LE with
 * their NUL), the subtrees asked for, and every lookup. registry_text.c
 * reads `reg export` files and Wine's system.reg into it through the
 * functions below; hive.c goes through registry_put (registry.h) instead.
 */
#ifndef TDC_REGISTRY_TABLE_H
#define TDC_REGISTRY_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"
#include "util/strmap.h"

#define REG_MAX_PATH_BYTES 32767 /* bytes in a key path */
#define REG_MAX_KEYS_ALL 4000000

struct reg_value {
	char *name;             /* UTF-8; "" for the default value (@) */
	char *fold;             /* ASCII-lowercased name */
	uint32_t type;          /* REG_* or REG_TYPE_DELETED (a later "Name"=- line) */
	unsigned char *data;
	size_t len;
};

#define REG_TYPE_DELETED 0xffffffffu

struct reg_key {
	char *path;             /* relative to HKLM, as first written */
	char *fold;
	int deleted;
	struct reg_value *values; /* in file order; the last one of a name wins */
	size_t nvalues, avalues;
};

struct registry {
	struct reg_key **keys;
	size_t nkeys, akeys;
	struct strmap table;    /* fold → index into keys */
	size_t ndeletes;
	unsigned long long delete_work;
	int arch32;             /* Wine prefix with #arch=win32: a single view */
	struct strlist keep;    /* folded subtrees kept (registry_keep); none: everything */
	size_t nvalues_all;     /* values kept, against REGISTRY_MAX_VALUES */
	size_t value_bytes_all; /* their bytes, against REGISTRY_MAX_VALUE_BYTES */
	struct strbuf desc;
};
/* The key stored under path (relative to HKLM, any case), NULL if none; `fold` is the path lowercased. */
struct reg_key *reg_key_find(const struct registry *reg, const char *fold);
/* The key at path, added if absent; a deleted key comes back to life (empty). */
struct reg_key *reg_key_get(struct registry *reg, const char *path);
/* [-KEY]: the key and everything under it. */
void reg_key_delete_tree(struct registry *reg, const char *path);
/*
 * Appends a value (the key takes data); type REG_TYPE_DELETED records a
 * "Name"=- line. Refused (data freed) when the registry's budget would
 * be passed: -1 REGISTRY_MAX_VALUES, -2 REGISTRY_MAX_VALUE_BYTES (counted
 * as read: a deleted key gives nothing back).
 */
int reg_key_add_value(struct registry *reg, struct reg_key *k, const char *name, uint32_t type,
		      unsigned char *data, size_t len);
/* The error text of reg_key_add_value's refusal `why` (1 or 2). */
const char *reg_budget_error(int why);

/*
 * Strips an HKLM root. Returns 1 for HKLM (*rest = path below it, "" for the
 * root itself), 2 for another root, 0 for no known root.
 */
int reg_split_root(const char *path, const char **rest);

/* UTF-16LE code units → UTF-8; returns the number of unpaired surrogates (each became U+FFFD). */
size_t reg_utf16_to_utf8(struct strbuf *out, const unsigned char *p, size_t len, int stop_at_nul);

#endif
