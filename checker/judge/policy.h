/*
 * policy: one torch install judged against its matrix row.
 *
 * The loader (torchload.c, loader_rules.c) says which torch binaries load; the
 * inventory (inventory.c) says what the machine has; the matrix (matrix.c)
 * says what this torch version needs. policy_evaluate() puts the three
 * together for one install and adds findings (finding.h; rules.def):
 * torch-uncovered, redist-missing, redist-too-old,
 * runtime-too-old, openmp-not-redistributable, known-issue and, for
 * requirements that cannot be checked (no registry, a DLL without a version
 * resource), `unverified` notes — unknown is never reported as missing.
 * It also gives the loader's own findings the row's concrete fix (the
 * minimum redistributable, where libomp140 comes from).
 *
 * Severity: a row or entry marked `sourced` gives an error, an `inferred`
 * one a warning (advice), as matrix/README.md asks. The decisions and words
 * it shares with the pre-merge gate (gate.c) are judge/row.h's.
 */
#ifndef TDC_POLICY_H
#define TDC_POLICY_H

#include "util/err.h"
#include "judge/finding.h"
#include "machine/inventory.h"
#include "matrix/matrix.h"
#include "loader/torchload.h"
#include "machine/view.h"

struct policy_input {
	const struct matrix *matrix;        /* the layered matrix (required) */
	const struct inventory *inv;        /* redistributables (+ runtime DLLs) of the machine (required) */
	const struct inv_install *install;  /* the inventory's view of this install, or NULL */
	const struct torch_run *run;        /* the loader's run for this install (required) */
};

/* What the matrix made of an install: the version and variant it was judged as, and the row (NULL: none). */
struct policy_verdict {
	const char *version; /* torch/version.py's, else the dist-info's; NULL: unknown (borrowed from the inventory) */
	const char *variant; /* the inventory's, or NULL */
	const struct matrix_row *row;
};

/*
 * Evaluates one install, after the loader's own findings about it
 * (judge/loader_rules.h) are in `out`: adds the matrix's findings, gives the
 * loader's findings about this install the row's fixes (or drops them where
 * a matrix finding says more), and sets *verdict (for the report's entry).
 * Returns 0; -1 only for internal errors (err set; *verdict is set anyway).
 */
int policy_evaluate(struct findings *out, struct policy_verdict *verdict, struct view *v, const struct policy_input *in,
		    struct err *err);

#endif
