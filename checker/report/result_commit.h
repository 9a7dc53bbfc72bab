/*
 * result_commit: an install's `commit` in the report (docs/report-json.md,
 * docs/commit.md): what one process that loads torch charges against the
 * commit limit, the images that charge, N, and the limit when known.
 */
#ifndef TDC_RESULT_COMMIT_H
#define TDC_RESULT_COMMIT_H

#include <cjson/cJSON.h>

#include "judge/commit.h"

/* Adds `commit` to `inst` (an installs[] object) when the pass measured it. */
void result_add_commit(cJSON *inst, const struct commit_summary *s);

#endif
