/*
 * fuzz_report: any bytes as a report document, through every renderer.
 * Besides never crashing, the GitHub-facing promises must hold for every
 * input the view accepts:
 * - each line of the annotations starts with ::error, ::warning or ::notice
 *   and there are at most 10 of each kind;
 * - no line of the text report can act as a workflow command (after the
 *   runner's leading-whitespace trim it never starts with "::", and "##["
 *   appears nowhere) nor carries a control character but LF;
 * - the summary stays within its budget;
 * - outputs are either refused or exactly four delimited values.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#include "oracle.h"


static size_t lines_starting(const char *s, const char *p)
{
	size_t n = 0, pl = strlen(p);
	for (; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (!strncmp(s, p, pl))
			n++;
	return n;
}

static void check_text(const char *s)
{
	const char *line = s;
	if (strstr(s, "##["))
		abort();
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n') || *s == 0x7f)
			abort();
	while (line && *line) {
		const char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (p[0] == ':' && p[1] == ':')
			abort();
		line = strchr(line, '\n');
		if (line)
			line++;
	}
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct report_github_stats st;
	struct err e;
	size_t un, lines;
	const char *p;

	if (!doc)
		return 0;
	if (report_view_init(&v, doc, &e)) {
		cJSON_Delete(doc);
		return 0;
	}
	report_github(&out, &v, &st);
	lines = 0;
	for (p = out.buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		lines++;
	if (lines != lines_starting(out.buf, "::error ") + lines_starting(out.buf, "::warning ") +
			     lines_starting(out.buf, "::notice "))
		abort();
	if (lines_starting(out.buf, "::error ") > 10 || lines_starting(out.buf, "::warning ") > 10 ||
	    lines_starting(out.buf, "::notice ") > 10 || (out.len && strchr(out.buf, '\r')))
		abort();
	strbuf_reset(&out);
	report_text(&out, &v, 0, 0);
	check_text(out.buf);
	strbuf_reset(&out);
	report_text(&out, &v, 0, 1); /* --trace: every probe, the minor ones too */
	check_text(out.buf);
	strbuf_reset(&out);
	{ /* wrapped narrow: a continuation must never start a workflow command either */
		struct report_text_opts to = { 0, 1, 40, 0, 0 };
		report_text_ex(&out, &v, &to);
		check_text(out.buf);
		strbuf_reset(&out);
	}
	report_summary(&out, &v, 64 * 1024);
	if (out.len > 64 * 1024)
		abort();
	strbuf_reset(&out);
	if (report_outputs(&out, &v, "r.json", "ghadelimiter_0123456789abcdef", &e) == 0 &&
	    lines_starting(out.buf, "ghadelimiter_0123456789abcdef") != 6)
		abort();
	strbuf_reset(&out);
	report_sarif(&out, &v, ".github/workflows/ci.yml", &un);
	if (un != 0)
		abort();
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(doc);
	return 0;
}
