/*
 * report_outputs: step outputs for $GITHUB_OUTPUT.
 *
 * Every value is written in the multi-line form
 *     name<<DELIM
 *     value
 *     DELIM
 * with a random delimiter, as actions/toolkit's prepareKeyValueMessage does
 * (packages/core/src/file-command.ts). A value that contains the delimiter
 * would let the rest of it define outputs of its own (CVE-2022-35954, the
 * toolkit's fix refuses such values); we refuse too, and nothing is written
 * then. The `report` value is a path the user chose, so it is untrusted text
 * like any other.
 */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

static int add_output(struct strbuf *out, const char *name, const char *value, const char *delim, struct err *err)
{
	if (strstr(name, delim) || strstr(value, delim))
		return err_set(err, "output %s: the value contains the delimiter; refusing to write it", name);
	strbuf_addf(out, "%s<<%s\n%s\n%s\n", name, delim, value, delim);
	return 0;
}

int report_outputs(struct strbuf *out, const struct report_view *v, const char *report_path, const char *delim,
		   struct err *err)
{
	struct strbuf tmp = STRBUF_INIT;
	char num[32];
	int rc = 0;
	if (!delim || strlen(delim) < 8 || strchr(delim, '\n') || strchr(delim, '\r'))
		return err_set(err, "GITHUB_OUTPUT delimiter must be one line of at least 8 characters");
	rc |= add_output(&tmp, "status", report_status(v), delim, err);
	/* counted as the annotations and the summary count them: one per root cause */
	snprintf(num, sizeof(num), "%zu", v->ncause[SEV_ERROR]);
	rc |= add_output(&tmp, "failures", num, delim, err);
	snprintf(num, sizeof(num), "%zu", v->ncause[SEV_WARNING]);
	rc |= add_output(&tmp, "warnings", num, delim, err);
	/* the two counts by name (report.h): root causes, and the findings behind them */
	snprintf(num, sizeof(num), "%zu", v->ncauses);
	rc |= add_output(&tmp, "problems", num, delim, err);
	snprintf(num, sizeof(num), "%zu", v->n);
	rc |= add_output(&tmp, "findings", num, delim, err);
	if (!rc)
		rc |= add_output(&tmp, "report", report_path ? report_path : "", delim, err);
	if (!rc)
		strbuf_add(out, tmp.buf, tmp.len);
	strbuf_release(&tmp);
	return rc ? -1 : 0;
}
