/*
 * drift: what changed on one runner between two audit snapshots.
 *
 * A snapshot is a JSON report (`torch-dll-check/report/v1`, from `check`) or
 * an inventory (`torch-dll-check/inventory/v1`, when no torch is installed).
 * drift_compare() reads the facts both carry — the redistributables (per
 * architecture, with the registry view they came from), every runtime DLL
 * found (by path, with its file version), the torch installs, every torch
 * binary's verdict and the overall status — and lists each change as a
 * drift finding. Severity follows what the change means for `import torch`:
 *
 *   error    a pass turned into a failure (the runner's status, a binary
 *            that loaded and now does not, a new install that fails);
 *   warning  a change that hides a known failure: libomp140.x86_64.dll
 *            appearing (a Visual Studio install puts it in System32; torch
 *            wheels that import it then load here and fail elsewhere);
 *   note     everything else (upgrades, removals, a failure now fixed).
 *
 * Errors come first in the list, then warnings, then notes; within a
 * severity the order is the documents' (redistributables, runtime DLLs,
 * installs, binaries, status).
 */
#ifndef TDC_DRIFT_H
#define TDC_DRIFT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util/err.h"
#include "util/strbuf.h"

enum drift_kind {
	DRIFT_STATUS,        /* the runner's overall status */
	DRIFT_REDIST,        /* a VC++ redistributable installed, removed, version or view changed */
	DRIFT_RUNTIME_DLL,   /* a runtime DLL appeared, disappeared, or changed version */
	DRIFT_OPENMP,        /* libomp140.x86_64.dll appeared or disappeared */
	DRIFT_INSTALL,       /* a torch install added, removed, upgraded or downgraded */
	DRIFT_VERDICT,       /* a torch binary's verdict changed */
};

enum drift_severity { DRIFT_ERROR, DRIFT_WARNING, DRIFT_NOTE };

struct drift {
	enum drift_kind kind;
	enum drift_severity severity;
	char *key;     /* what changed: an architecture, a DLL path, a torch folder, a binary path */
	char *old_value; /* NULL when it did not exist */
	char *new_value; /* NULL when it no longer exists */
	char *title;   /* one line */
};

struct drift_list {
	struct drift *v;
	size_t n, alloc;
};

#define DRIFT_LIST_INIT { NULL, 0, 0 }

/* The schema names a snapshot may carry. */
#define DRIFT_SCHEMA_REPORT "torch-dll-check/report/v1"
#define DRIFT_SCHEMA_INVENTORY "torch-dll-check/inventory/v1"

/*
 * Checks that doc is a snapshot drift_compare understands; on error says
 * what it is instead ("schema torch-dll-check/pins/v1", "not a JSON object").
 */
int drift_snapshot_check(const cJSON *doc, struct err *err);

/* Appends to out every change from old_doc to new_doc; -1 (err set) when either is no snapshot. */
int drift_compare(const cJSON *old_doc, const cJSON *new_doc, struct drift_list *out, struct err *err);

void drift_list_release(struct drift_list *l);

/* The status ("pass", "warn", "fail") of the install at torch_dir in a report; NULL for an inventory. */
const char *drift_install_status(const cJSON *report, const char *torch_dir);

/* Counts by severity. */
void drift_counts(const struct drift_list *l, size_t *errors, size_t *warnings, size_t *notes);

const char *drift_kind_name(enum drift_kind k);       /* "status", "redistributable", ... */
const char *drift_severity_name(enum drift_severity s); /* "error", "warning", "note" */

/* {"errors":N,"warnings":N,"notes":N,"changes":[{kind,severity,key,old,new,title}...]} */
cJSON *drift_to_json(const struct drift_list *l);

/*
 * The counts of a drift.json read back (a snapshot's, so anyone could have
 * written it): 0 when errors, warnings and notes are all whole numbers from
 * 0 to DRIFT_MAX_COUNT and changes is an array; -1 otherwise (counts 0): a
 * drift.json of {} must read as unreadable, not as -9223372036854775808
 * errors (a missing number is NaN, and NaN cast to an integer is undefined).
 */
#define DRIFT_MAX_COUNT 1000000000L
int drift_json_counts(const cJSON *drift, long *errors, long *warnings, long *notes);

#endif
