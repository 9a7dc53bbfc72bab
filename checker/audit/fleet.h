/*
 * fleet: one table across runners, from their latest audit snapshots.
 *
 * A row per runner and torch install (one row for a runner with none):
 * runner, snapshot time, torch version and folder, verdict, the VC++
 * redistributable for the install's architecture, the OpenMP runtimes the
 * install can reach (in torch\lib, its environment, System32), the first
 * error, and the drift since the runner's previous snapshot. The table is
 * kept as its JSON document (`torch-dll-check/fleet/v1`); report_audit.h
 * renders that document as aligned text and as Markdown for a job summary,
 * so every form says the same.
 */
#ifndef TDC_FLEET_H
#define TDC_FLEET_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/strbuf.h"

#define FLEET_SCHEMA "torch-dll-check/fleet/v1"

struct fleet_row {
	char *runner, *when, *torch, *install, *verdict, *redist, *openmp, *first_error, *drift;
	int fails; /* the verdict is a failure: sorts first */
};

struct fleet {
	struct fleet_row *rows;
	size_t n, alloc;
	size_t runners;
};

#define FLEET_INIT { NULL, 0, 0, 0 }

/*
 * Adds a runner's rows. report: a report/v1 or inventory/v1 document (drift.h
 * checks it); drift: the snapshot's drift.json object or NULL (unknown);
 * when: seconds since the epoch or -1 (a report file given by hand).
 */
int fleet_add(struct fleet *f, const char *runner, int64_t when, const cJSON *report, const cJSON *drift,
	      struct err *err);

/*
 * A runner whose latest snapshot cannot be used (a damaged object, a ref
 * naming a blob, a report.json that is not a report): one row, verdict
 * "unreadable", saying why in the first-error column, so one bad runner
 * never hides the others. when: -1 when unknown.
 */
void fleet_add_problem(struct fleet *f, const char *runner, int64_t when, const char *why);

/* Failing rows first, then by runner and install. */
void fleet_sort(struct fleet *f);

/* The table as its document (FLEET_SCHEMA), which report_audit.h renders as text and Markdown. */
cJSON *fleet_json(const struct fleet *f);

void fleet_release(struct fleet *f);

#endif
