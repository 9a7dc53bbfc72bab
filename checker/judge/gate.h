/*
 * gate: the pre-merge gate (`check --pins`): the torch a repository's pin
 * files decide, judged against this runner before any torch is installed.
 *
 * For every pin that decides torch on Windows (pinset_torch_targets), the
 * matrix rows it selects (pins_target_probes: a range gives every row it
 * meets), then this runner against each row: the VC++ redistributable's
 * minimum in the registry (both views, inventory.h), the runtime DLLs the
 * row names as the search from python.exe's folder (--python, or the one
 * gate_judge finds), a conda env's Library\bin and System32 finds them, the
 * OpenMP runtime the row's binaries import and whether anything on the
 * runner provides it, and the row's known issues. Every finding is anchored on the pin's
 * FILE:LINE:COL at the head commit.
 *
 * Two kinds of verdict land in one list:
 *   - about this runner: a runtime DLL torch imports is missing here
 *     (missing-dll, WinError 126), the redistributable is missing or older
 *     than the row's minimum, the DLL that wins the search is too old;
 *   - about the version alone (2.4.0's libomp140, 2.9's 14.40 floor):
 *     reported as warnings that say so even when this runner is fine, since
 *     GitHub's images carry Visual Studio, which hides the libomp140 trap.
 * A range is judged as pip resolves it: the newest row it meets (pip
 * installs the newest release the range allows) is the verdict; older rows
 * that would fail are one pin-range-older-fails warning naming them, with
 * the lower bound that leaves them out.
 *
 * The module's files, each with one job: gate.c (the pins, each pin's rows
 * merged into its verdict, the change notes, an installed torch against the
 * pins), gate_row.c (one row against the runner, gate_row.h) and
 * gate_runner.c (the runner's DLL search, gate_runner.h).
 *
 * Nothing here reads git (the pinsets come from the caller: torch-dll-check-git
 * reads them with libgit2, tests from memory), nothing prints, and nothing
 * writes the report: what was judged is a `struct gate_report`, which
 * report/result.h writes as the document's `pins`.
 */
#ifndef TDC_GATE_H
#define TDC_GATE_H

#include "util/err.h"
#include "judge/finding.h"
#include "judge/gate_profile.h"
#include "judge/gate_runner.h"
#include "machine/inventory.h"
#include "matrix/matrix.h"
#include "pins/pins.h"
#include "util/strbuf.h"
#include "machine/view.h"

/* What a repository pins at head (and base), as read for the gate. */
struct gate_pins {
	char *repo;                /* the repository's folder, for the report */
	char *head_rev, *base_rev; /* as asked ("HEAD", "pull_request.head.sha", ...); base_rev NULL: no base */
	char head_sha[41], base_sha[41];
	struct strbuf head_subject, base_subject;
	struct pinset head, base;
	int has_base;
	struct pin_changes changes;   /* torch pins base -> head (has_base only) */
	int pins_touched;             /* has_base: a pin file (or a file one includes) differs */
	int matrix_touched;           /* has_base: a --matrix file inside the repository differs */
};

void gate_pins_init(struct gate_pins *g);
void gate_pins_release(struct gate_pins *g);

/*
 * Whether a path that differs between base and head decides the gate: a
 * pin file by name, a file either side's pins were read from (an include),
 * or one of `matrix_paths` (repository-relative). Sets g->pins_touched or
 * g->matrix_touched.
 */
void gate_pins_touch(struct gate_pins *g, const char *path, const struct strlist *matrix_paths);

/* Where the pins come from: check's --repo, --rev, --base, --head, --github-event, and its --matrix files. */
struct gate_source {
	struct pins_where at;
	const struct strlist *matrices; /* --matrix files: a PR that changes one is judged */
	int worktree;                   /* --worktree: the head is the working tree's pin files (always judged) */
};

/* Reads the pins (torch-dll-check-git: git_gate.c). 0, or -1 with err (an input error). */
typedef int (*gate_read_fn)(struct gate_pins *out, const struct gate_source *src, struct err *err);

/* The runner the pins are judged against: struct gate_runner (gate_runner.h). */

/* One matrix row a pin selects: the release and the row's id (NULL: no row covers it). */
struct gate_row {
	char *version, *row;
};

/* One pin that decides torch (pinset_torch_targets), as judged: where, what, for Windows or not. */
struct gate_target {
	char *file, *raw, *version, *specifier, *variant; /* NULL: not said */
	unsigned line, col;
	int on_windows;                                   /* 1, 0, -1: depends on markers */
	struct gate_row *rows;                            /* the rows judged, in pins_target_probes order */
	size_t nrows;
	enum gate_state runner;                           /* the pin's verdict on this runner */
	struct gate_profile_verdict *profiles;            /* its verdict on each gate_report.profiles (gate_profile.h) */
};

/* What the gate judged (the report's `pins` object, docs/report-json.md). */
struct gate_report {
	int judged;                 /* 0: the base is known and nothing that decides torch changed */
	char *python;               /* the python.exe judged against, or NULL: none */
	const char *python_from;    /* how it was found: "--python", "%CONDA_PREFIX%", "PATH" */
	struct gate_target *targets;
	size_t ntargets;
	char **profiles, **profile_titles; /* the machine profiles judged besides the runner (gate_runner.profiles) */
	size_t nprofiles;
};

void gate_report_release(struct gate_report *gr);

/*
 * Without `python`, the Python the job's `pip install` would use is looked
 * for on the runner: %CONDA_PREFIX%\python.exe (an activated conda env),
 * else the first python.exe on PATH (setup-python's tool cache); none found:
 * System32 alone, and the findings say so.
 *
 * Judges the head's pins (see the design comment) into `out`, and what it
 * judged into `gr` (release it with gate_report_release). When the base is
 * known and neither a pin file nor a matrix file changed, nothing is judged
 * unless `force`: one pins-unchanged note says so. -1 only on an internal
 * error (err set).
 */
int gate_judge(struct findings *out, struct gate_report *gr, const struct gate_pins *g, const struct matrix *m,
	       const struct gate_runner *r, int force, struct err *err);

/*
 * An installed torch (`version` as found, its folder `torch_dir`) against
 * the head's pins: one pin-mismatch per pin file whose torch pin (on
 * Windows) does not allow that version, anchored on the pin.
 */
void gate_installed(struct findings *out, const struct gate_pins *g, const char *torch_dir, const char *version);

#endif
