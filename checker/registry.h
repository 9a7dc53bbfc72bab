/*
 * registry: an offline copy of HKEY_LOCAL_MACHINE, read from
 *   - a `reg export` file ("Windows Registry Editor Version 5.00", UTF-16LE
 *     with a BOM as reg.exe writes it, or UTF-8/ASCII), or
 *   - a Wine prefix's system.reg ("WINE REGISTRY Version 2", text, keys
 *     relative to HKLM, strings with \\ and \xNNNN escapes).
 * Both are parsed completely up front with every line checked; a bad file is
 * an error naming its line. Keys and value names compare case-insensitively.
 *
 * Keys are given relative to HKLM ("SOFTWARE\\Microsoft\\VisualStudio\\
 * 14.0\\VC\\Runtimes\\x64"). `regview` 32 reads the 32-bit view, i.e.
 * SOFTWARE\\WOW6432Node\\... as on a 64-bit Windows.
 */
#ifndef TDC_REGISTRY_H
#define TDC_REGISTRY_H

#include <stddef.h>

#include "err.h"
#include "strbuf.h"

struct registry;

/*
 * Errors name the file and line and say what was expected there:
 * "out.reg:7: value \"Major\": expected 1 to 8 hex digits after \"dword:\", found \"zz\"".
 * Caps: 256 MiB per file, 16 MiB per value, 4 million keys.
 */
int registry_load(struct registry **out, const char *path, struct err *err);
int registry_parse(struct registry **out, const void *data, size_t len, const char *name,
		   struct err *err);

/*
 * Adds another file to a registry, as `reg import` would (later values win,
 * [-KEY] deletes earlier keys). For a reg export of the 32-bit view, which
 * reg.exe writes without WOW6432Node in the paths, export
 * HKLM\SOFTWARE\WOW6432Node\... instead and load both files.
 */
int registry_load_more(struct registry *reg, const char *path, struct err *err);
int registry_parse_more(struct registry *reg, const void *data, size_t len, const char *name,
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

#endif
