/*
 * check: the judging of one torch install as a named, ordered list of
 * passes over typed facts (check_passes[] in check.c, in the order they
 * run). Each pass reads the facts the passes before it left in a `struct
 * check_install` and the findings list, and adds its own:
 *
 *   load        torch's procedure on one process (loader/torchload.h), the
 *               packages imported first before it and the extensions after
 *               it (judge/extensions.h)            -> run, xc
 *   readable    a file the host would not let us read: no Windows verdict
 *               (an error, not a finding)
 *   dllmain     the binaries whose DllMain fails (judge/dllmain.h); before
 *               the loader's findings, which it changes  -> findings
 *   loader      the loader's own findings (judge/loader_rules.h) -> findings
 *   policy      the matrix row's verdict: its findings, the loader's fixes
 *               (judge/policy.h)                   -> verdict, findings
 *   required    the distributions torch requires (judge/required.h); after
 *               policy, since its fix names the package    -> findings
 *   cuda        the CUDA driver against the row (judge/cuda.h) -> findings
 *   windows     the machine's Windows against the row's min_windows
 *               (judge/min_windows.h)                -> findings
 *   record      torch's RECORD against the disk; refixes the loader's
 *               findings on deleted or leftover files (judge/record.h)
 *                                                   -> record, findings
 *   app         a frozen app's launcher started the process: the fixes
 *               name the freezer's options, UPX-packed DLLs; after
 *               record, whose fixes it comes before (judge/app.h)
 *                                                   -> findings
 *   extensions  the extensions' and first packages' load failures
 *               (ext_check_findings)               -> findings
 *   ext-record  their RECORDs; after `extensions`, whose findings it
 *               refixes                            -> ext_records, findings
 *   commit      the commit the images mapped charge, times --processes,
 *               against the machine's memory (judge/commit.h) -> commit, findings
 *
 * The passes after `policy` that need its verdict (required, cuda, windows,
 * record, ext-record) are skipped once a pass failed; `extensions` always runs.
 * After the last pass the view's PATH is as before the packages changed
 * it, so the next install starts from the machine's.
 *
 * Then the passes over the whole check, in this order (cmd_check calls
 * them):
 *
 *   gate        --pins: the torch the repository pins against this runner,
 *               each installed torch against the pins, the torch/extension
 *               pairs pinned (judge/gate.h, pairs_gate.h)
 *                                                   -> gate_report, findings
 *   links       every symbolic link outside --root the view met, on the
 *               install whose folders hold it; after every lookup, the
 *               gate's too (check_outside_links)    -> findings
 *   confirm     --confirm, --confirm-import, on each install: the
 *               prediction against the real loader (judge/confirm.h)
 *                                                   -> confirm, findings
 *
 * Nothing here knows the report: report/result.h keeps the facts
 * (result_add_install) and writes them, with the findings, once
 * (result_finish).
 */
#ifndef TDC_CHECK_H
#define TDC_CHECK_H

#include "judge/commit.h"
#include "judge/confirm.h"
#include "judge/extensions.h"
#include "judge/finding.h"
#include "judge/gate.h"
#include "judge/policy.h"
#include "judge/record.h"
#include "loader/torchload.h"
#include "machine/inventory.h"
#include "machine/osver.h"
#include "matrix/matrix.h"
#include "machine/view.h"
#include "util/err.h"
#include "util/strbuf.h"

/* What every install is judged with. */
struct check_env {
	struct view *v;
	const struct matrix *m;
	const struct inventory *inv;
	const struct strlist *import_first; /* --import-first, in order */
	int verify_hashes;                  /* record: compare sha256 too */
	const struct machine_memory *memory; /* commit: the machine's memory facts, or NULL */
	unsigned processes;                 /* commit: --processes (0: not given) */
	const struct strlist *sys_path;     /* python.exe's sys.path (pypath.h), or NULL: extensions and packages
					       imported first come from torch's site-packages alone */
	const struct osver *windows;        /* windows: the machine's Windows (machine/osver.h), or NULL: not judged */
};

/* One install's facts, as the passes leave them. */
struct check_install {
	const struct inv_install *install;  /* the inventory's entry, or NULL */
	struct torch_inputs in;             /* torch_run's inputs */
	struct torch_run *run;              /* load */
	struct ext_check xc;                /* load */
	struct policy_verdict verdict;      /* policy */
	int judged;                         /* no pass failed: the passes that need the verdict ran */
	struct record_summary record;       /* record */
	struct record_summaries ext_records; /* ext-record */
	struct confirm_result confirm;      /* confirm */
	struct commit_summary commit;       /* commit */
};

/*
 * Runs every pass on the install `in` names (`install`: the inventory's
 * entry, or NULL), adding findings to `out`. 0, or -1 with err when a pass
 * failed (an input or internal error: the check has no verdict). Release
 * `ci` with check_install_release either way.
 */
int check_install_run(struct check_install *ci, struct findings *out, const struct check_env *env,
		      const struct inv_install *install, const struct torch_inputs *in, struct err *err);

/*
 * The gate pass: gate_judge into `gr` (release it with gate_report_release),
 * then every torch of r->inv against the head's pins, then the pairs the
 * head pins when the gate judged it. -1 only as gate_judge.
 */
int check_gate(struct findings *out, struct gate_report *gr, const struct gate_pins *g, const struct matrix *m,
	       const struct gate_runner *r, int force, struct err *err);

/*
 * The links pass: one link-outside-root finding for every symbolic link
 * that leads outside --root the view met (view_outside_link), on the
 * install of `installs` whose torch, python or application folder holds
 * it, else the only one.
 */
void check_outside_links(struct findings *out, struct view *v, struct check_install *const *installs,
			 size_t ninstalls);

/* The confirm pass: the real loader on this machine against the facts (o: which children to run). */
int check_confirm(struct check_install *ci, struct findings *out, const struct confirm_opts *o, struct err *err);

/* Frees the facts. */
void check_install_release(struct check_install *ci);

/* The name of pass i in order, NULL past the last (for docs and tests). */
const char *check_pass_name(size_t i);

#endif
