/*
 * registry: an offline copy of HKEY_LOCAL_MACHINE, read from
 *   - a `reg export` file ("Windows Registry Editor Version 5.00", UTF-16LE
 *     with a BOM as reg.exe writes it, or UTF-8/ASCII),
 *   - a Wine prefix's system.reg ("WINE REGISTRY Version 2", text, keys
 *     relative to HKLM, strings with \\ and \xNNNN escapes), or
 *   - a regf hive file (Windows\System32\config\SOFTWARE or SYSTEM), read
 *     through libhivex (hive.h).
 * Text files are read up front as a stream, every line checked (a bad file
 * is an error naming its line), keeping only the subtrees asked for with
 * registry_keep: memory grows with what is kept, not with the file. Keys and
 * value names compare case-insensitively.
 *
 * Keys are given relative to HKLM ("SOFTWARE\\Microsoft\\VisualStudio\\
 * 14.0\\VC\\Runtimes\\x64"). `regview` 32 reads the 32-bit view, i.e.
 * SOFTWARE\\WOW6432Node\\... as on a 64-bit Windows.
 */
#ifndef TDC_REGISTRY_H
#define TDC_REGISTRY_H

#include <stddef.h>

#include "util/err.h"
#include "util/strbuf.h"

struct registry;

/*
 * What a registry keeps in all (every file loaded into it, values read
 * into the kept subtrees): values, and bytes of value data. Passing either
 * is an error naming the line (a check's subtrees hold a few thousand
 * values, a few KiB; 250,000 values cost about 50 MB).
 */
#define REGISTRY_MAX_VALUES 250000
#define REGISTRY_MAX_VALUE_BYTES ((size_t)64 << 20)

/* An empty registry that keeps everything until registry_keep narrows it. */
struct registry *registry_new(void);

/*
 * Keep only the keys at or below `subtree` (relative to HKLM, any case; a
 * SOFTWARE key keeps its WOW6432Node twin too, for the 32-bit view). Call it
 * before loading; several calls add up; none keeps everything. Lookups of
 * keys outside every kept subtree answer "absent".
 */
void registry_keep(struct registry *reg, const char *subtree);

/* Keep the key itself (its values), not its subkeys; as registry_keep otherwise. */
void registry_keep_key(struct registry *reg, const char *key);

/* Whether a key (relative to HKLM) is kept, lies above a kept subtree, or neither. */
enum { REGISTRY_SKIP = 0, REGISTRY_DESCEND = 1, REGISTRY_KEEP = 2 };
int registry_scope(const struct registry *reg, const char *key);

/*
 * Reads a text registry file (a reg export in UTF-16LE or UTF-8, or Wine's
 * system.reg) into reg, as `reg import` would (later values win, [-KEY]
 * deletes earlier keys). Errors name the file and line and say what was
 * expected there: "out.reg:7: value \"Major\": expected 1 to 8 hex digits
 * after \"dword:\", found \"zz\"". Files of any size are read (with `mapped`,
 * the mapped file's pages are given back as it is read); caps: 64 MiB per
 * line, 16 MiB per value, 4 million kept keys, and in all
 * REGISTRY_MAX_VALUES values and REGISTRY_MAX_VALUE_BYTES bytes of them
 * kept. Files of any format are read through regfile.h, which hands hives
 * to hive.h.
 */
int registry_parse_text(struct registry *reg, const void *data, size_t len, const char *name, int mapped,
			struct err *err);
void registry_free(struct registry *reg);

/*
 * The value as text: REG_SZ / REG_EXPAND_SZ as is (not expanded), REG_DWORD
 * and REG_QWORD in decimal, REG_MULTI_SZ one string per line, anything else
 * as reg-file hex bytes "01,02,ff". `value` NULL or "" is the default value.
 * 0 found, 1 absent (key or value), -1 error (a REG_DWORD that is not 4 bytes).
 */
int registry_get(const struct registry *reg, const char *key, const char *value, int regview,
		 struct strbuf *out, struct err *err);

/* The stored type (REG_SZ 1, REG_EXPAND_SZ 2, REG_BINARY 3, REG_DWORD 4, REG_MULTI_SZ 7, ...)
 * and raw bytes (strings in UTF-16LE with their NUL), owned by reg. 0 found, 1 absent. */
int registry_get_raw(const struct registry *reg, const char *key, const char *value, int regview,
		     unsigned *type, const unsigned char **data, size_t *len, struct err *err);

/* Formats raw value bytes as registry_get does. */
void registry_format(struct strbuf *out, unsigned type, const unsigned char *data, size_t len);

/* The direct subkey names of key, sorted case-insensitively (as RegEnumKeyEx), appended to out.
 * 0 found, 1 absent. */
int registry_subkeys(const struct registry *reg, const char *key, int regview, struct strlist *out,
		     struct err *err);

/* The value names of key ("" for the default value), in file order. 0 found, 1 absent. */
int registry_values(const struct registry *reg, const char *key, int regview, struct strlist *out,
		    struct err *err);

/* "reg export" or "wine system.reg", and the file it came from. */
const char *registry_describe(const struct registry *reg);


/*
 * For readers of other formats (hive.c): adds `key` (relative to HKLM) and,
 * unless value is NULL, one value (raw bytes as Windows stores them; copied).
 * The caller checks registry_scope first. Appends `what` to the description.
 */
int registry_put(struct registry *reg, const char *key, const char *value, unsigned type,
		 const void *data, size_t len, struct err *err);
void registry_describe_add(struct registry *reg, const char *what);

#endif
