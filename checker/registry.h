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

int registry_load(struct registry **out, const char *path, struct err *err);
int registry_parse(struct registry **out, const void *data, size_t len, const char *name,
		   struct err *err);
void registry_free(struct registry *reg);

/* The value as text (REG_SZ as is, REG_DWORD in decimal). 0 found, 1 absent, -1 error. */
int registry_get(const struct registry *reg, const char *key, const char *value, int regview,
		 struct strbuf *out, struct err *err);

/* The direct subkey names of key. 0 found, 1 absent. */
int registry_subkeys(const struct registry *reg, const char *key, int regview, struct strlist *out,
		     struct err *err);

/* "reg export" or "wine system.reg", and the file it came from. */
const char *registry_describe(const struct registry *reg);

#endif
