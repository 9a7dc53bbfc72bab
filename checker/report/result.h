/*
 * result: the JSON report (docs/report-json.md, schema
 * torch-dll-check/report/v1) under construction — the one result model the
 * text, GitHub and SARIF renderers read.
 *
 * `doc` holds everything but the findings: `machine`, `installs[]` (one per
 * torch_run), and what the matrix and inventory modules attach (`inventory`,
 * `matrix`, installs[].matrix_row). The findings stay C structs in
 * `findings` (finding.h), where policy and confirmation add, merge and drop
 * them, until result_finish() writes them into the document with `status`
 * and `counts`.
 */
#ifndef TDC_RESULT_H
#define TDC_RESULT_H

#include <cjson/cJSON.h>

#include "judge/finding.h"
#include "loader/loader.h"
#include "loader/torchload.h"
#include "machine/view.h"

struct result {
	cJSON *doc;
	struct findings findings;
};
#define RESULT_INIT { NULL, FINDINGS_INIT }

/* A new report with schema, tool and machine (from the view and a loader, which may be NULL). */
void result_init(struct result *r, struct view *v, const struct loader *ld);

/* The `machine` object result_init writes, alone (the document takes the first loader's). */
cJSON *result_machine_json(struct view *v, const struct loader *ld);

/*
 * Appends installs[] for `run` and the loader's findings about it.
 * `matrix_row` (may be NULL) is attached as installs[].matrix_row (the
 * document takes ownership). Returns the install object (owned by the
 * document).
 */
cJSON *result_add_install(struct result *r, struct view *v, const struct torch_run *run, cJSON *matrix_row);

/*
 * One link-outside-root finding for every symbolic link that leads outside
 * --root the view met (view_outside_link), on the install whose folders hold
 * it. Call after the last install was added.
 */
void result_outside_links(struct result *r, struct view *v);

/* Writes the findings into the document's findings[], then `status` and `counts`. Call once, last. */
void result_finish(struct result *r);

/* Frees the document and the findings. */
void result_release(struct result *r);

/* The probes of a node as the report's array. */
cJSON *result_probes_json(const struct ldr_node *node);

/* Compares two dotted file versions ("14.40.33810.0"); <0, 0, >0. */
int result_version_cmp(const char *a, const char *b);

#endif
