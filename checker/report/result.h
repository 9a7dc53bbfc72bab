/*
 * result: the JSON report (docs/report-json.md, schema
 * torch-dll-check/report/v1) under construction — the one result model the
 * text, GitHub and SARIF renderers read.
 *
 * `doc` holds what does not depend on the judging: schema, tool, and the
 * `matrix` sources the command attaches. Everything else stays C structs
 * until result_finish() writes it, once, last: the findings
 * (judge/finding.h), where the judges add, merge and drop them; each
 * install's facts as the passes of judge/check.h left them
 * (result_add_install keeps them: the torch run, its verdict, its RECORD
 * comparisons, its extensions, live confirmation's verdict), written as
 * its installs[] entry with its status (the worst of its findings); the
 * gate's report (`pins`, result_add_pins) and the `inventory`
 * (result_add_inventory); then `machine` (from the first install's
 * loader), `status` and `counts`. Nothing edits the document after it is
 * written.
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
#include "machine/osver.h"
#include "machine/view.h"

struct result {
	cJSON *doc;
	struct view *v;                    /* the view the installs were judged on */
	struct findings findings;
	struct check_install **installs;   /* owned: judge/check.h's facts, in the order judged */
	size_t ninstalls, alloc;
	const struct gate_pins *pins;      /* --pins: what the repository pins (borrowed), or NULL */
	struct gate_report gate;           /* and what the gate judged of it (owned) */
	cJSON *inventory;                  /* machine/inventory.h's JSON (owned), or NULL */
	struct osver windows;              /* the machine's Windows (machine/osver.h; check reads it): machine.windows */
};
#define RESULT_INIT { NULL, NULL, FINDINGS_INIT, NULL, 0, 0, NULL, { 0, NULL, NULL, NULL, 0, NULL, NULL, 0 }, NULL, \
		      { 0, 0, 0, 0, 0, NULL, NULL, { NULL, 0, 0 } } }

/* A new report with schema, tool and machine (from the view and a loader, which may be NULL). */
void result_init(struct result *r, struct view *v, const struct loader *ld);

/* The `machine` object result_init writes, alone (the document takes the first loader's). */
cJSON *result_machine_json(struct view *v, const struct loader *ld);

/*
 * Keeps one judged install (judge/check.h: what the passes left in `ci`,
 * which the report now owns and frees) for its installs[] entry: what the
 * install is and what the loader did, with the version, variant and matrix
 * row of its verdict, its RECORD comparisons, its extensions and what live
 * confirmation adds to `ci` before result_finish.
 */
void result_add_install(struct result *r, struct check_install *ci);

/*
 * Keeps the pre-merge gate's verdict for the document's `pins`: what `g`
 * pins (borrowed: it must outlive result_finish) and what gate_judge judged
 * of it (`gr`, which the report now owns; *gr is left empty).
 */
void result_add_pins(struct result *r, const struct gate_pins *g, struct gate_report *gr);

/*
 * check --profile with an install (docs/profiles.md): the install's verdict
 * on one machine profile, appended to the document's `profile_checks`
 * (state: judge/gate_profile.h's; winerror 0, leaf and first NULL: none).
 */
void result_add_profile_check(struct result *r, const char *profile, const char *title, const char *torch_dir,
			      enum gate_state state, int winerror, const char *leaf, const char *first, const char *note);

/*
 * Keeps the document's `inventory` (machine/inventory.h's JSON, which it
 * takes); result_finish adds runtime_copies[], every install's copies of a
 * DLL torch needs that another distribution ships (result_ext.h).
 */
void result_add_inventory(struct result *r, cJSON *inventory);

/* Writes the findings, each install's entry, `pins`, `inventory`, `machine`, then `status` and `counts`. Call once, last. */
void result_finish(struct result *r);

/* Frees the document, the findings and the facts it keeps. */
void result_release(struct result *r);

/* A finding as the report's findings[] object, with its `cause` id (finding_cause_id). */
cJSON *result_finding_json(const struct finding *f);

/*
 * Live confirmation's verdict `c` on an install a saved report holds (an
 * installs[] object, as result_finish writes them): each binary's and
 * probe's `confirmed`, `confirmation`, `import_check`; and the prediction
 * that install holds, for confirm_apply_*_output (tests, fuzzing).
 */
void result_confirm_prediction(const cJSON *install, struct confirm_prediction *p);
void result_confirm_json(cJSON *install, const struct confirm_result *c);

/* The probes of a node as the report's array. */
cJSON *result_probes_json(const struct ldr_node *node);


#endif
