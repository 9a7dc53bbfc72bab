/*
 * gate_row: one matrix row a torch pin selects, judged against the runner
 * (gate_runner.h) for the pre-merge gate (gate.h): the VC++
 * redistributable against the row's minimum, the runtime DLLs the row names
 * as the search finds them, the OpenMP runtime the row's binaries import,
 * and the row's known issues.
 *
 * What a row's binaries import comes from the row itself (its runtime_dlls
 * and openmp entries): a known issue's `imports` condition holds when the
 * row says torch imports that DLL from outside torch\lib, `unresolved` when
 * such a DLL is not on this runner. An issue that needs the binaries (an
 * OpenMP bundled in torch\lib meeting another copy) is left to the loader
 * check of an installed torch.
 *
 * The findings are the row's own (struct gate_judge's `out`), not yet
 * anchored on the pin: gate.c merges a pin's rows into its verdicts. Nothing
 * here prints.
 */
#ifndef TDC_GATE_ROW_H
#define TDC_GATE_ROW_H

#include <stddef.h>

#include "judge/finding.h"
#include "judge/gate_runner.h"
#include "matrix/matrix.h"
#include "pins/pins.h"

/* One row a pin selects, as it is judged. */
struct gate_judge {
	const struct gate_runner *r;
	const struct matrix_row *row;
	const struct torch_target *t;
	const char *version; /* the probe as shown: "2.4.0" (a row's "2.9.0.dev0" boundary shows as "2.9.0") */
	int aidx;
	int range;           /* the pin allows several versions */
	struct findings out; /* this row's findings */
	int redist_missing;  /* the redistributable is not installed: missing DLLs are that */
	struct gate_copies *cache;
	const char *searched; /* gate_searched_text() */
	const struct matrix *matrix; /* for the older torch a too-old copy serves (row_older_torch_offer), or NULL */
	size_t sys_fail;     /* 1 + the index in out of a runtime-too-old with a WinError on System32's copy, or 0 */
};

/* A judged row, and how bad its findings are ("worst case first"). */
struct gate_verdict {
	struct gate_judge j;
	long bad;
	size_t order;
};

/*
 * One row the pin selects, judged against the runner into *rv (version:
 * pins_shown_version's, rv's to free). m: the matrix, for the older torch a
 * too-old runtime DLL still serves (NULL: not offered).
 */
void gate_row_judge(struct gate_verdict *rv, const struct torch_target *t, const struct matrix_row *row, char *version,
		    const struct gate_runner *r, struct gate_copies *cache, const char *searched,
		    const struct matrix *m);

#endif
