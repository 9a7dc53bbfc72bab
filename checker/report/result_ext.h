/*
 * result_ext: torch's environment in the report document (docs/report-json.md,
 * "extensions"): per install, `extensions[]` (each extension of torch with
 * its name, version, the torch it was built for, the procedure followed,
 * its binaries with their verdicts) and `imported_first[]` (the packages
 * --import-first named, in the same form), `environment` (the site-packages
 * read, how many distributions, what could not be read); and in the
 * `inventory`, `runtime_copies[]`: every copy of a DLL torch needs that
 * another distribution ships, with its file version.
 */
#ifndef TDC_RESULT_EXT_H
#define TDC_RESULT_EXT_H

#include <cjson/cJSON.h>

#include "judge/extensions.h"

/* Adds the members above to `inst` (an installs[] object): its copies go to environment.runtime_copies. */
void result_add_extensions(cJSON *inst, const struct ext_check *c);

/* Appends the copies of `c` to `all` (inventory.runtime_copies[]), each with its `install`, torch_dir. */
void result_ext_copies(cJSON *all, const struct ext_check *c, const char *torch_dir);

#endif
