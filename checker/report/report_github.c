/*
 * report_github: workflow-command annotations (::error / ::warning /
 * ::notice). The raw text that follows them goes inside the stop-commands
 * guard (out.h).
 *
 * One annotation per root cause (report_view's causes): the demo's missing
 * libomp140.x86_64.dll fails five torch binaries and is ONE annotation that
 * names the five, with one fix.
 *
 * Limits (docs.github.com, "Workflow commands" and annotation limits): 10
 * errors, 10 warnings and 10 notices per step — a composite action is one
 * step — and messages cut at 4096 characters. We emit the most important
 * causes of each kind (report_view's rank), so the budget covers ten
 * different problems, then ONE notice that says how many more are in the
 * summary: the annotation budget of report.h, shared with pins and audit.
 *
 * Escaping: message data as the toolkit's escapeData (% CR LF), property
 * values as escapeProperty (% CR LF : ,) — actions/toolkit
 * packages/core/src/command.ts. On top of that every untrusted field is first
 * made a safe single line by text_esc_line (text.h) (controls visible, "::" and
 * "##[" broken), so the annotation text never carries a second command even
 * for a reader that ignored our escaping. `file=`/`line=`/`col=` are set only
 * for anchors inside the repository: GitHub links annotations only for
 * workspace files, so DLL paths go into the message.
 */
#include "report/report.h"

#include <string.h>


#include "util/utf.h"

/* Cuts `sb` to at most `max` bytes on a UTF-8 boundary, marking the cut. */
static void cut_utf8(struct strbuf *sb, size_t max)
{
	size_t n;
	if (sb->len <= max)
		return;
	n = utf8_cut(sb->buf, max - 3);
	sb->len = n;
	sb->buf[n] = '\0';
	strbuf_adds(sb, "...");
}

static void line_field(struct strbuf *msg, const char *label, const char *val)
{
	if (!val || !*val)
		return;
	strbuf_addf(msg, "\n%s ", label);
	text_esc_line(msg, val);
}

/* The fix, best first, each alternative on a line of its own (report_fix_next). */
static void fixes(struct strbuf *msg, const char *fix)
{
	struct strbuf one = STRBUF_INIT;
	const char *s = fix, *alt;
	size_t len;
	int first = 1;
	while (report_fix_next(&s, &alt, &len)) {
		strbuf_reset(&one);
		strbuf_add(&one, alt, len);
		line_field(msg, first ? "Fix:" : "or:", one.buf);
		first = 0;
	}
	strbuf_release(&one);
}

/* Names of the binaries a cause affects, at most this many, then "and N more". */
#define AFFECTED_NAMES 5

/*
 * The human message of one cause's annotation (unescaped for GitHub yet):
 * why (report_why; the finding's message when nothing else says it), the
 * binaries it affects (when more than one) or the one binary's path, that
 * finding's chain, the WinError, the fix best first.
 */
static void message(struct strbuf *msg, const struct report_view *v, const struct report_cause *c)
{
	const cJSON *f = report_cause_finding(v, c);
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(f, "chain"), *e;
	/* why (the chain and WinError have lines below); the evidence in prose when nothing else says why */
	text_esc_line(msg, report_why(f) ? report_why(f)
					 : report_str(f, "message") ? report_str(f, "message") : report_str(f, "title"));
	if (c->nbinaries > 1) {
		strbuf_adds(msg, "\nAffects ");
		report_cause_binaries(msg, v, c, AFFECTED_NAMES, text_esc_line);
	} else {
		line_field(msg, "Binary:", report_str(f, "binary"));
	}
	if (cJSON_IsArray(ch) && cJSON_GetArraySize(ch) > 0) {
		int first = 1;
		strbuf_adds(msg, "\nChain: ");
		cJSON_ArrayForEach(e, ch)
		{
			if (!cJSON_IsString(e))
				continue;
			if (!first)
				strbuf_adds(msg, " -> ");
			text_esc_line(msg, e->valuestring);
			first = 0;
		}
	}
	if (report_int(f, "winerror", 0))
		strbuf_addf(msg, "\nWinError %ld", report_int(f, "winerror", 0));
	fixes(msg, report_str(f, "fix"));
	cut_utf8(msg, REPORT_ANNOTATION_MAX);
}

static void annotation(struct strbuf *out, enum report_severity sev, const struct report_view *v,
		       const struct report_cause *c)
{
	const cJSON *f = report_cause_finding(v, c), *a = cJSON_GetObjectItemCaseSensitive(f, "anchor");
	struct strbuf title = STRBUF_INIT, msg = STRBUF_INIT;
	const char *t = report_str(f, "title"), *file = NULL;
	long line = 0, col = 0;
	if (cJSON_IsObject(a) && report_anchor_in_repo(report_str(a, "file"))) {
		file = report_str(a, "file");
		line = report_int(a, "line", 0);
		col = report_int(a, "col", 0);
	}
	/* The title is one line: esc_line, then the property escaping. */
	text_esc_line(&title, t ? t : report_str(f, "rule"));
	cut_utf8(&title, 480);
	if (c->nbinaries > 1) {
		const char *owner = report_cause_owner(v, c);
		strbuf_addf(&title, " (and %zu more ", c->nbinaries - 1);
		if (owner) {
			text_esc_line(&title, owner);
			strbuf_addch(&title, ' ');
		}
		strbuf_addf(&title, "binar%s)", c->nbinaries == 2 ? "y" : "ies");
	}
	message(&msg, v, c);
	report_annotation(out, sev, file, line, col, title.buf, msg.buf);
	strbuf_release(&title);
	strbuf_release(&msg);
}

void report_github(struct strbuf *out, const struct report_view *v, struct report_github_stats *st)
{
	struct report_annot_budget b;
	struct report_github_stats local;
	struct strbuf title = STRBUF_INIT, msg = STRBUF_INIT;
	size_t i;
	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	report_annot_budget_init(&b, v->ncause);
	for (i = 0; i < v->ncauses; i++)
		if (report_annot_take(&b, v->causes[i].sev))
			annotation(out, v->causes[i].sev, v, &v->causes[i]);
	memcpy(st->emitted, b.emitted, sizeof(st->emitted));
	st->omitted = report_annot_left(&b);
	if (st->omitted) {
		strbuf_addf(&title, "%zu more problems not annotated", st->omitted);
		strbuf_addf(&msg, "GitHub shows 10 annotations of each kind per step; %zu more (%zu errors, %zu warnings, "
			    "%zu notes; one per root cause) are in the job summary and the JSON report.",
			    st->omitted, b.left[SEV_ERROR], b.left[SEV_WARNING], b.left[SEV_NOTE]);
		report_annotation(out, SEV_NOTE, NULL, 0, 0, title.buf, msg.buf);
	}
	strbuf_release(&title);
	strbuf_release(&msg);
}
