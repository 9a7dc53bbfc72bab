/*
 * report_pins: what `pins` says — which torch a repository revision pins,
 * what a pull request changes, and which matrix rows the Windows runners
 * must then satisfy — as text, as the JSON document (schema
 * torch-dll-check/pins/v1, docs/pins-json.md) and as GitHub notices at the
 * changed pins' file:line:col.
 *
 * The renderers' contract is report.h's: each fills a strbuf (or builds a
 * cJSON document) and never prints; cli/git/git_cmd_pins.c decides what goes to
 * stdout, inside the stop-commands guard (text) or outside it (the
 * notices, our own workflow commands). Every string from the repository
 * (paths, requirement text, commit subjects) is untrusted: text through
 * text_addf's escaping, notices through report_annotation, JSON through jsonout.h.
 * Where the pin sets came from (git objects, a working tree) is not this
 * module's business.
 */
#ifndef TDC_REPORT_PINS_H
#define TDC_REPORT_PINS_H

#include <cjson/cJSON.h>

#include "matrix/matrix.h"
#include "pins/pins.h"
#include "util/strbuf.h"

#define PINS_SCHEMA "torch-dll-check/pins/v1"

/* One side of the comparison: a revision, its commit and its pin set. */
struct pins_side {
	const char *rev;   /* as asked */
	char sha[41];
	struct strbuf subject;
	struct pinset ps;
	int loaded;
};

struct pins_report {
	const char *repository;            /* the repository's path */
	const struct pins_side *head;
	const struct pins_side *base;      /* NULL: one revision, no comparison */
	const struct pin_changes *changes; /* with a base */
	const struct matrix *matrix;       /* for the runner rows; NULL: not shown */
	int all;                           /* every package, not only torch */
};

/* The text report: each side's pins, the changes, the targets and their matrix rows. */
void report_pins_text(struct strbuf *out, const struct pins_report *r);

/*
 * ::notice annotations for the changes (the annotation budget of report.h), anchored
 * at the head's file:line:col, or without a file for a removed pin.
 */
void report_pins_github(struct strbuf *out, const struct pins_report *r);

/* The JSON document (caller deletes). */
cJSON *report_pins_json(const struct pins_report *r);

#endif
