/*
 * result: the JSON report (docs/report-json.md, schema
 * torch-dll-check/report/v1) as a cJSON document — the one result model the
 * text, GitHub and SARIF renderers read.
 *
 * The loader part fills `machine`, `installs[]` (one per torch_run) and the
 * loader findings. The matrix and inventory modules add theirs through the
 * same document: result_add_finding() and the `inventory` / `matrix` members,
 * and result_add_install() takes an optional matrix row to attach. Call
 * result_finish() last: it computes `status` and `counts`.
 */
#ifndef TDC_RESULT_H
#define TDC_RESULT_H

#include <cjson/cJSON.h>

#include "loader.h"
#include "torchload.h"
#include "view.h"

/* A new report with schema, tool and machine (from the view and a loader, which may be NULL). */
cJSON *result_new(struct view *v, const struct loader *ld);

/*
 * Appends installs[] for `run` and its findings. `matrix_row` (may be NULL)
 * is attached as installs[].matrix_row (the document takes ownership).
 * Returns the install object (owned by the report).
 */
cJSON *result_add_install(cJSON *report, struct view *v, const struct torch_run *run, cJSON *matrix_row);

/*
 * Appends one finding. Strings may be NULL (written as null); `chain` and
 * `probes` (arrays) may be NULL and are owned by the report afterwards.
 */
cJSON *result_add_finding(cJSON *report, const char *rule, const char *severity, int winerror, const char *title,
			  const char *message, const char *fix, const char *install, const char *binary,
			  const char *leaf, cJSON *chain, cJSON *probes);

/* Sets `status` and `counts` from the findings and installs. */
void result_finish(cJSON *report);

/* The probes of a node as the report's array. */
cJSON *result_probes_json(const struct ldr_node *node);

/* Compares two dotted file versions ("14.40.33810.0"); <0, 0, >0. */
int result_version_cmp(const char *a, const char *b);

#endif
