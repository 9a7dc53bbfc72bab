/*
 * result_commit: an install's `commit` in the report (docs/report-json.md,
 * docs/commit.md): what one process that loads torch charges against the
 * commit limit, the images that charge, N, and the limit when known.
 */
#ifndef TDC_RESULT_COMMIT_H
#define TDC_RESULT_COMMIT_H

#include <cjson/cJSON.h>

#include "judge/commit.h"
#include "judge/confirm.h"

/* Adds `commit` to `inst` (an installs[] object) when the pass measured it. */
void result_add_commit(cJSON *inst, const struct commit_summary *s);

/*
 * Adds `commit.measured` to `inst` when --confirm's helper ran: its private
 * commit before and after torch's real loads, the growth beside the
 * predicted per_process, or why there is none ("not measured: ...").
 */
void result_add_commit_measured(cJSON *inst, const struct confirm_result *c);

#endif
