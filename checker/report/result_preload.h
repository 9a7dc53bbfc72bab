/*
 * result_preload: a package's preload inside `import torch` (TheRock's
 * torch\_rocm_init.py, loader/pkgpreload.h) as the install's
 * `package_preload` object of the JSON report (docs/report-json.md). Only
 * written when the preload applied, so other installs' reports are unchanged.
 */
#ifndef TDC_RESULT_PRELOAD_H
#define TDC_RESULT_PRELOAD_H

#include "loader/pkgpreload.h"

struct cJSON;

struct cJSON *result_preload_json(const struct pkg_preload_run *r);

#endif
