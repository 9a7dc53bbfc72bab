/*
 * result: the JSON report (docs/report-json.md, schema
 * torch-dll-check/report/v1) under construction — the one result model the
 * text, GitHub and SARIF renderers read.
 *
 * `doc` holds what is known before the findings: schema, tool, `machine`,
 * and what the matrix and inventory modules attach (`inventory`, `matrix`,
 * `pins`). The rest stays C structs until result_finish() writes it, once,
 * last: the findings (finding.h), where the loader's rules
 * (judge/loader_rules.h), policy and confirmation add, merge and drop them,
 * and each install's entry (`installs`: its facts and the loader's
 * verdicts, recorded by result_add_install with the version, variant and
 * matrix row policy chose, and its status, the worst of its findings), then
 * `status` and `counts`. Nothing edits an entry after it is written.
 */
#ifndef TDC_RESULT_H
#define TDC_RESULT_H

#include <cjson/cJSON.h>

#include "judge/check.h"
#include "judge/finding.h"
#include "judge/gate.h"
#include "judge/policy.h"
#include "loader/loader.h"
#include "loader/torchload.h"
#include "machine/view.h"

/*
 * An install's entry until result_finish writes it into installs[] with its
 * status (the one member not known before every finding is): what the
 * install is, the row that judged it, what the loader did. Live confirmation
 * (judge/confirm.h) adds what the real loader did to `entry` before that.
 */
struct result_install {
	char *torch_dir, *python, *app_dir; /* the folders links are matched against */
	size_t nbins, nfailing;             /* torch binaries, and those that do not load */
	cJSON *entry;                       /* every member but `status` */
};

struct result {
	cJSON *doc;
	struct findings findings;
	struct result_install *installs;
	size_t ninstalls, alloc;
};
#define RESULT_INIT { NULL, FINDINGS_INIT, NULL, 0, 0 }

/* A new report with schema, tool and machine (from the view and a loader, which may be NULL). */
void result_init(struct result *r, struct view *v, const struct loader *ld);

/* The `machine` object result_init writes, alone (the document takes the first loader's). */
cJSON *result_machine_json(struct view *v, const struct loader *ld);

/*
 * Records the installs[] entry of one judged install (judge/check.h: what
 * the passes left in `ci`): what the install is and what the loader did,
 * with the version, variant and matrix row of its verdict, its RECORD
 * comparisons and its extensions. `ci` may be released afterwards. The
 * first install sets the document's `machine` from its loader.
 */
void result_add_install(struct result *r, struct view *v, const struct check_install *ci);

/* The document's `pins` (the pre-merge gate): what `g` pins and what gate_judge judged of it (`gr`). */
void result_add_pins(struct result *r, const struct gate_pins *g, const struct gate_report *gr);

/*
 * The document's `inventory` (machine/inventory.h's JSON, which it takes),
 * with runtime_copies[]: every install's copies of a DLL torch needs that
 * another distribution ships (result_ext.h). Call after the last install.
 */
void result_add_inventory(struct result *r, cJSON *inventory);

/*
 * One link-outside-root finding for every symbolic link that leads outside
 * --root the view met (view_outside_link), on the install whose folders hold
 * it. Call after the last install was added.
 */
void result_outside_links(struct result *r, struct view *v);

/* Writes the findings into the document's findings[], each install's entry, then `status` and `counts`. Call once, last. */
void result_finish(struct result *r);

/* Frees the document and the findings. */
void result_release(struct result *r);

/* A finding as the report's findings[] object, with its `cause` id (finding_cause_id). */
cJSON *result_finding_json(const struct finding *f);

/* The probes of a node as the report's array. */
cJSON *result_probes_json(const struct ldr_node *node);


#endif
