/*
 * row: one matrix row judged against a Windows machine, the decisions that
 * `check` (policy.c: an installed torch, through the loader's verdicts) and
 * `check --pins` (gate_row.c: a pinned torch, before anything is installed)
 * share, so that a rule changes in one place:
 *
 *   - which of a row's entries apply to the architecture (row_arch_ok);
 *   - the VC++ redistributable of that architecture against the row's
 *     minimum (row_redist): no registry, no entry, not installed, no
 *     minimum, version unknown, older, new enough; the registry's version
 *     is read as a Windows file version here, once;
 *   - the copy of a runtime DLL that will load against the entry's
 *     min_version (row_dll_min), and the words both commands say about it;
 *   - the redistributable's download link and fix, the severity a row's
 *     status gives, and a finding that names the row that judged it.
 *
 * What differs stays with the caller: which copy of a DLL is the one that
 * loads (the loader's resolution in policy.c, the runner's search in
 * gate_runner.c), and how the messages name the torch (an install, or a pin).
 */
#ifndef TDC_ROW_H
#define TDC_ROW_H

#include "judge/finding.h"
#include "machine/inventory.h"
#include "matrix/matrix.h"
#include "util/version.h"

/* The download link of the VC++ 2015-2022 redistributable for "x64" / "x86" / "arm64". */
const char *row_redist_url(const char *arch);

/* How strongly a row's requirement is meant: a warning for an `inferred` row, else an error (sourced and measured are facts). */
enum report_severity row_severity(enum matrix_status s);

/* Whether an entry restricted to the architectures in `mask` (0: every one) applies to architecture index aidx (-1: unknown). */
int row_arch_ok(unsigned mask, int aidx);

/* " >= 14.42" for the row's redistributable minimum of architecture index aidx, or "" (row NULL, aidx < 0, none). Caller frees. */
char *row_redist_min(const struct matrix_row *row, int aidx);

/* "install the VC++ 2015-2022 x64 redistributable >= 14.42 (https://aka.ms/...)". Caller frees. */
char *row_redist_fix(const char *arch, const struct matrix_row *row, int aidx);

enum row_redist_state {
	ROW_REDIST_NO_REGISTRY,     /* no registry was read: unknown, not missing */
	ROW_REDIST_NO_ENTRY,        /* the inventory has no entry for the architecture */
	ROW_REDIST_NOT_INSTALLED,   /* absent, or Installed = 0 */
	ROW_REDIST_NO_MINIMUM,      /* installed; the row asks for no version (or there is no row) */
	ROW_REDIST_VERSION_UNKNOWN, /* installed, a minimum to check, no version recorded */
	ROW_REDIST_TOO_OLD,         /* installed, older than the row's minimum */
	ROW_REDIST_OK,              /* installed, at least the minimum */
};

struct row_redist {
	enum row_redist_state state;
	const struct inv_redist *rd;  /* the registry's entry for the architecture, or NULL */
	const struct matrix_min *min; /* the row's minimum for it, or NULL when none */
	struct winver have;           /* rd's version as a file version (when rd->has_ver) */
};

/* The redistributable of architecture `arch` (index aidx) against `row` (NULL: no row). */
void row_redist(struct row_redist *out, const struct inventory *inv, const struct matrix_row *row, const char *arch,
		int aidx);

enum row_dll_state {
	ROW_DLL_NOT_JUDGED,      /* the entry has no min_version, or is for another architecture */
	ROW_DLL_VERSION_UNKNOWN, /* the copy that loads has no version the checker can read */
	ROW_DLL_TOO_OLD,
	ROW_DLL_OK,
};

/* The copy of d's DLL that will load, of file version `have` (NULL: unknown), against d's min_version. */
enum row_dll_state row_dll_min(const struct matrix_dll *d, int aidx, const struct winver *have);

/*
 * applies_when `older` for one DLL: the copy that will load, of file version
 * `have` (NULL: unknown, which is never older), is below the min_version of
 * the row's runtime_dlls entry for `dll` on architecture index aidx.
 */
int row_dll_older(const struct matrix_row *row, const char *dll, int aidx, const struct winver *have);

/* "msvcp140.dll: version unknown, torch 2.4.0 needs >= 14.40". Caller frees. */
char *row_dll_unknown_title(const struct matrix_dll *d, const char *torch_version);

/* The fix of a copy without a version. */
#define ROW_DLL_UNKNOWN_FIX \
	"nothing to do if this is a Wine prefix; on Windows every Microsoft runtime DLL carries its version"

/*
 * "msvcp140.dll 14.29.30133.0 will be the one loaded (System32); torch 2.4.0
 * needs >= 14.40", with " (WinError 1114 in DllMain)" when the entry names
 * the error import torch raises. Caller frees.
 */
char *row_dll_too_old_title(const struct matrix_dll *d, const char *have, const char *where, const char *torch_version);

/*
 * The fix for a too-old copy at `path` (file version `have`): a newer
 * redistributable when the copy is System32's, else remove or update that
 * copy and install one. Caller frees.
 */
char *row_dll_too_old_fix(const struct matrix_dll *d, const char *path, const char *have, int in_system32,
			  const char *arch);

/*
 * The older torch a too-old runtime DLL copy still serves, by the matrix `m`:
 * "; or: torch < 2.9 (matrix row torch-2.8 asks no more of msvcp140.dll than
 * this copy's 14.34.31931.0)", from the newest upper bound (`<X`) of a row
 * other than `row`, of the architecture and variant (NULL: cpu), at or below
 * torch `version`, that asks no more of `dll` than `have` (its text
 * `have_text`). NULL when no row says so (or m is NULL). Caller frees.
 */
char *row_older_torch_offer(const struct matrix *m, const struct matrix_row *row, const char *version,
			    const char *variant, int aidx, const char *dll, const struct winver *have,
			    const char *have_text);

/* finding_add, and the finding names `row` (NULL: none) as the row that judged it. */
struct finding *row_finding_add(struct findings *out, const struct matrix_row *row, enum rule_id rule, int severity,
				const struct finding_spec *spec);

#endif
