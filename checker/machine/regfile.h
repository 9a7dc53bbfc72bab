/*
 * regfile: a registry file of any format read into a registry (registry.h):
 * a reg export (UTF-16LE, as reg.exe writes it, or UTF-8), Wine's
 * system.reg, or a regf hive (hive.h). The format is told by the first
 * bytes, never by the name.
 */
#ifndef TDC_REGFILE_H
#define TDC_REGFILE_H

#include <stddef.h>

#include "util/err.h"

struct registry;

/*
 * Errors name the file and line and say what was expected there:
 * "out.reg:7: value \"Major\": expected 1 to 8 hex digits after \"dword:\", found \"zz\"".
 * Files of any size are read (a mapped file's pages are given back as it is
 * read); caps: 64 MiB per line, 16 MiB per value, 4 million kept keys.
 * A file starting with "regf" is a hive (hive.h).
 */
int regfile_load(struct registry **out, const char *path, struct err *err);
int regfile_parse(struct registry **out, const void *data, size_t len, const char *name,
		   struct err *err);

/*
 * Adds another file to a registry, as `reg import` would (later values win,
 * [-KEY] deletes earlier keys). For a reg export of the 32-bit view, which
 * reg.exe writes without WOW6432Node in the paths, export
 * HKLM\SOFTWARE\WOW6432Node\... instead and load both files.
 */
int regfile_load_more(struct registry *reg, const char *path, struct err *err);
int regfile_parse_more(struct registry *reg, const void *data, size_t len, const char *name,
			struct err *err);
/* Whether data starts like a regf hive. */
int regfile_is_hive(const void *data, size_t len);

#endif
