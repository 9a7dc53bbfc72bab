/*
 * annotate: the annotation writer and limiter of every command (report.h).
 */

#include <string.h>

#include "report/report.h"

void report_annot_budget_init(struct report_annot_budget *b, const size_t wanted[3])
{
	int s, over = 0;
	memset(b, 0, sizeof(*b));
	for (s = 0; s < 3; s++) {
		b->limit[s] = REPORT_ANNOTATIONS_PER_KIND;
		over |= wanted[s] > REPORT_ANNOTATIONS_PER_KIND;
	}
	/* Something will be left out: keep one notice for saying so. */
	if (over)
		b->limit[SEV_NOTE] = REPORT_ANNOTATIONS_PER_KIND - 1;
}

int report_annot_take(struct report_annot_budget *b, enum report_severity sev)
{
	if (b->emitted[sev] < b->limit[sev]) {
		b->emitted[sev]++;
		return 1;
	}
	b->left[sev]++;
	return 0;
}

size_t report_annot_left(const struct report_annot_budget *b)
{
	return b->left[SEV_ERROR] + b->left[SEV_WARNING] + b->left[SEV_NOTE];
}

void report_annotation(struct strbuf *out, enum report_severity sev, const char *file, long line, long col,
		       const char *title, const char *msg)
{
	static const char *const cmd[3] = { "notice", "warning", "error" };
	strbuf_addf(out, "::%s ", cmd[sev]);
	if (file) {
		strbuf_adds(out, "file=");
		report_esc_gh_prop(out, file);
		if (line > 0)
			strbuf_addf(out, ",line=%ld", line);
		if (line > 0 && col > 0)
			strbuf_addf(out, ",col=%ld", col);
		strbuf_addch(out, ',');
	}
	strbuf_adds(out, "title=");
	report_esc_gh_prop(out, title ? title : "");
	strbuf_adds(out, "::");
	report_esc_gh_data(out, msg ? msg : "");
	strbuf_addch(out, '\n');
}
