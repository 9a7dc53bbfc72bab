/*
 * hive: a regf registry hive file (Windows\System32\config\SOFTWARE or
 * SYSTEM of a mounted disk, VM image or container layer) read into a
 * registry (registry.h), keeping only the subtrees the registry keeps.
 *
 * The format is read by libhivex (the library behind libguestfs'
 * virt-win-reg), not by a parser of ours; this module is the glue: it checks
 * the base block first (a dirty hive, or one whose changes wait in its
 * transaction logs, is an error naming the logs, never a half-read
 * registry), tells SOFTWARE from SYSTEM, maps SYSTEM's current control set
 * to CurrentControlSet as Windows does at boot, and copies the kept keys.
 * A build without libhivex (TDC_HIVEX undefined: the Windows builds, the Linux
 * release programs, a build where pkg-config found no hivex) says so in its
 * error, and that builds with libhivex read hives.
 */
#ifndef TDC_HIVE_H
#define TDC_HIVE_H

#include <stddef.h>

#include "util/err.h"

struct registry;
struct os_map;

/*
 * Reads the hive at `path`, already mapped in `m` (for the base block), into
 * reg: its keys appear under HKLM\SOFTWARE or HKLM\SYSTEM, chosen by the file
 * name (SOFTWARE, SYSTEM, any case, any extension) or else by the hive's
 * top-level keys. Errors name the file and say what is wrong and what to do.
 */
int hive_load(struct registry *reg, const char *path, const struct os_map *m, struct err *err);

/*
 * The base block's verdict alone (no libhivex): 0 clean, -1 with err set for a
 * file too short, not regf, of an unknown version, or dirty (with any
 * transaction logs next to `path` described). `path` may be NULL (no logs).
 */
int hive_check_base(const unsigned char *data, size_t len, const char *path, struct err *err);

/* Whether this build reads hives (it was built with libhivex). */
int hive_supported(void);

#endif
