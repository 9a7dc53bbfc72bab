/*
 * report_summary: the job summary ($GITHUB_STEP_SUMMARY), GitHub-flavoured
 * Markdown with a little HTML (<details>, <pre>).
 *
 * Order is importance, because the summary is cut when it would pass
 * GitHub's 1 MiB per step: the verdict and the two counts (problems,
 * findings), every install on one line with the failing ones first, each
 * error — one entry per root cause (report_view's causes), naming the torch
 * binaries it affects, fix visible, why with its links as links, the chain as
 * a Mermaid graph (report_mermaid.c), chain and search trace in a collapsed
 * <details>; a finding anchored to a pin names its file:line next to the
 * title, linked to the file at the PR's head commit when the caller knows
 * the repository (report_summary_linked) — warnings, notes: every finding
 * before any supporting table; then each failing install in full (what
 * `import torch` raises, wrapped in its <pre>; the matrix row with its
 * source links; what --confirm's real loads said; the table of torch
 * binaries × outcome, the loader's stages in words), each passing install as
 * one line with those details folded, the inventory, the machine (only the
 * fields it has). Content is added in chunks; the first chunk that does
 * not fit ends the summary and an explicit note says what was left out and
 * where the complete result is (the JSON report).
 *
 * Untrusted text: inline Markdown through report_esc_md (every ASCII
 * punctuation backslash-escaped, so `|` cannot split a table cell and `<`
 * cannot open a tag); trace blocks are <pre> with report_esc_html, whose
 * contents Markdown does not interpret. Links are made only from http(s)
 * URLs made of URL characters (CommonMark autolinks <URL> inside text,
 * [URL](URL) for sources); anything else is shown as text. Mermaid labels
 * through report_esc_mermaid.
 */
#include "report/report.h"

#include <stdio.h>
#include <string.h>

#include "util/utf.h"

#define NOTE_RESERVE 1024 /* room always kept for the truncation note */

struct sum {
	struct strbuf *out;
	const char *blob_base; /* "https://github.com/o/r/blob/<sha>/" or NULL */
	size_t max;
	int full;
	size_t dropped_findings;
	struct strlist dropped;
};

static void dropped(struct sum *s, const char *section)
{
	if (section && !strlist_has(&s->dropped, section))
		strlist_push(&s->dropped, section);
}

/* Appends the chunk if it fits; else the summary is full from here on. */
static void add(struct sum *s, struct strbuf *chunk, const char *section, int is_finding)
{
	if (!s->full && s->out->len + chunk->len + NOTE_RESERVE <= s->max) {
		strbuf_add(s->out, chunk->buf, chunk->len);
	} else {
		s->full = 1;
		if (is_finding)
			s->dropped_findings++;
		else
			dropped(s, section);
	}
	strbuf_reset(chunk);
}

static int url_ok(const char *u)
{
	const char *p;
	if (strncmp(u, "https://", 8) && strncmp(u, "http://", 7))
		return 0;
	if (strlen(u) > 2000)
		return 0;
	for (p = u; *p; p++)
		if (!(ascii_isalnum(*p) ||
		      strchr("-._~:/?#@!$&*+,;=%", *p)))
			return 0;
	return 1;
}

static void link_or_text(struct strbuf *c, const char *u)
{
	if (!u)
		return;
	if (url_ok(u)) {
		strbuf_adds(c, "[");
		report_esc_md(c, u);
		strbuf_addf(c, "](%s)", u);
	} else {
		report_esc_md(c, u);
	}
}

/* Where an http(s) URL starting at s ends: URL characters, less trailing punctuation. */
static size_t url_end(const char *s)
{
	size_t n = 0;
	while (s[n] && (ascii_isalnum(s[n]) || strchr("-._~:/?#@!$&*+,;=%", s[n])))
		n++;
	while (n && strchr(".,;:!?", s[n - 1]))
		n--;
	return n;
}

/*
 * Inline Markdown with its http(s) URLs as links (<URL>, CommonMark's
 * autolink), the rest escaped as report_esc_md: a URL inside a "why" stays a
 * link instead of https\:\/\/... text.
 */
static void md_with_links(struct strbuf *c, const char *s)
{
	struct strbuf part = STRBUF_INIT;
	while (s && *s) {
		const char *a = strstr(s, "https://"), *b = strstr(s, "http://");
		const char *u = a && (!b || a < b) ? a : b;
		size_t n = u ? url_end(u) : 0;
		strbuf_reset(&part);
		strbuf_add(&part, s, u ? (size_t)(u - s) : strlen(s));
		report_esc_md(c, part.buf);
		if (!u)
			break;
		strbuf_reset(&part);
		strbuf_add(&part, u, n);
		if (n > 8 && url_ok(part.buf))
			strbuf_addf(c, "<%s>", part.buf);
		else
			report_esc_md(c, part.buf);
		s = u + (n ? n : 1); /* n >= 7: "http://" is made of URL characters */
	}
	strbuf_release(&part);
}

/* Long lines inside <pre> broken at a space before `width` characters (or at width), each escaped. */
#define PRE_WIDTH 100

static void pre_wrapped(struct strbuf *c, const char *s, const char *indent)
{
	struct strbuf line = STRBUF_INIT;
	size_t n = s ? strlen(s) : 0;
	while (n > PRE_WIDTH) {
		size_t cut = PRE_WIDTH;
		while (cut > PRE_WIDTH / 2 && s[cut] != ' ')
			cut--;
		if (s[cut] != ' ')
			cut = utf8_cut(s, PRE_WIDTH);
		strbuf_reset(&line);
		strbuf_add(&line, s, cut);
		report_esc_html(c, line.buf);
		strbuf_addf(c, "\n%s", indent);
		s += cut + (s[cut] == ' ');
		n = strlen(s);
	}
	report_esc_html(c, s ? s : "");
	strbuf_release(&line);
}

/* The loader's stage of a torch binary in words a reader knows (docs/report-json.md has the names). */
static const char *stage_words(const char *stage)
{
	if (!stage)
		return NULL;
	if (!strcmp(stage, "add_dll_directory"))
		return "torch's first load (its DLL folders)";
	if (!strcmp(stage, "path_fallback"))
		return "torch's retry with PATH (after WinError 126)";
	if (!strcmp(stage, "cpython"))
		return "Python's import of the .pyd";
	return stage;
}

static void pre_line(struct strbuf *c, const char *label, const char *val)
{
	if (!val || !*val)
		return;
	strbuf_addf(c, "%-10s", label);
	report_esc_html(c, val);
	strbuf_addch(c, '\n');
}

/* The fix, best first, each alternative on a line of its own (report_fix_next). */
static void fixes(struct strbuf *c, const char *fix)
{
	struct strbuf one = STRBUF_INIT;
	const char *s = fix, *alt;
	size_t len;
	int first = 1;
	while (report_fix_next(&s, &alt, &len)) {
		strbuf_reset(&one);
		strbuf_add(&one, alt, len);
		strbuf_adds(c, first ? "**Fix:** " : "**or:** ");
		report_esc_md(c, one.buf);
		strbuf_adds(c, "  \n");
		first = 0;
	}
	strbuf_release(&one);
}

/* A chain as "a -> b -> c" inside <pre>. */
static void pre_chain(struct strbuf *c, const cJSON *ch)
{
	const cJSON *e;
	int first = 1;
	cJSON_ArrayForEach(e, ch)
	{
		if (!cJSON_IsString(e))
			continue;
		if (!first)
			strbuf_adds(c, " -&gt; ");
		report_esc_html(c, e->valuestring);
		first = 0;
	}
}

/* Chains of the other findings of a cause shown, at most this many. */
#define OTHER_CHAINS 20

/*
 * One entry per root cause: its first finding's title, the binaries it
 * affects, the fix (best first), why (report_why), then (collapsed) that
 * finding's chain and search trace and the other binaries' chains.
 */
/* A repository path in a URL: unreserved characters and '/' as they are, the rest %XX. */
static void url_path(struct strbuf *c, const char *p)
{
	for (; *p; p++) {
		unsigned char ch = (unsigned char)*p;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr("-._~/", ch))
			strbuf_addch(c, (char)ch);
		else
			strbuf_addf(c, "%%%02X", ch);
	}
}

/*
 * " · requirements.txt:2" after a finding's title when it is anchored to a
 * repository file; a link to that line of the file at the PR's head commit
 * when base (the blob URL prefix) is known.
 */
static void anchor_link(struct strbuf *c, const cJSON *f, const char *base)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, "anchor");
	const char *file = report_str(a, "file");
	long line = report_int(a, "line", 0);
	if (!cJSON_IsObject(a) || !file || !*file || file[0] == '/' || strstr(file, ".."))
		return;
	strbuf_adds(c, " · ");
	if (base)
		strbuf_adds(c, "[");
	report_esc_md(c, file);
	if (line > 0)
		strbuf_addf(c, "\\:%ld", line);
	if (base) {
		strbuf_addf(c, "](%s", base);
		url_path(c, file);
		if (line > 0)
			strbuf_addf(c, "#L%ld", line);
		strbuf_adds(c, ")");
	}
}

static void cause_entry(struct strbuf *c, const struct report_view *v, const struct report_cause *rc, size_t num,
			const char *base)
{
	static const char *const icon[3] = { "ℹ️", "⚠️", "❌" };
	const cJSON *f = report_cause_finding(v, rc), *ch, *pr, *e, *a;
	long we = report_int(f, "winerror", 0);
	size_t i, shown = 0;
	strbuf_addf(c, "%s **%zu\\. ", icon[rc->sev], num);
	report_esc_md(c, report_str(f, "title") ? report_str(f, "title") : report_str(f, "rule"));
	strbuf_adds(c, "** \\(");
	report_esc_md(c, report_str(f, "rule"));
	if (we)
		strbuf_addf(c, ", WinError %ld", we);
	strbuf_adds(c, "\\)");
	anchor_link(c, f, base);
	strbuf_adds(c, "  \n");
	if (rc->nbinaries > 1) {
		strbuf_adds(c, "**Affects** ");
		report_cause_binaries(c, v, rc, 10, report_esc_md);
		strbuf_adds(c, "  \n");
	}
	fixes(c, report_str(f, "fix"));
	if (report_why(f)) { /* the chain and the places searched are in the details below */
		strbuf_adds(c, "**Why:** ");
		md_with_links(c, report_why(f));
		strbuf_adds(c, "\n");
	}
	if (rc->sev == SEV_ERROR) { /* the failing chain as a picture: torch's binaries to the leaf */
		strbuf_addch(c, '\n');
		report_mermaid_chain(c, v, rc);
	}
	ch = cJSON_GetObjectItemCaseSensitive(f, "chain");
	pr = cJSON_GetObjectItemCaseSensitive(f, "probes");
	a = cJSON_GetObjectItemCaseSensitive(f, "anchor");
	strbuf_adds(c, "\n<details><summary>Chain and search trace</summary>\n\n<pre>\n");
	pre_line(c, "binary:", report_str(f, "binary"));
	pre_line(c, "install:", report_str(f, "install"));
	if (cJSON_IsArray(ch) && cJSON_GetArraySize(ch)) {
		strbuf_addf(c, "%-10s", "chain:");
		pre_chain(c, ch);
		strbuf_addch(c, '\n');
	}
	pre_line(c, "leaf:", report_str(f, "leaf"));
	if (cJSON_IsArray(pr) && cJSON_GetArraySize(pr)) {
		int minor = 0;
		strbuf_addf(c, "searched (%d places, in order):\n", cJSON_GetArraySize(pr));
		cJSON_ArrayForEach(e, pr)
		{
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "minor"))) { /* cannot matter here */
				minor++;
				continue;
			}
			strbuf_adds(c, "  ");
			report_esc_html(c, report_str(e, "path"));
			strbuf_adds(c, "  (");
			report_esc_html(c, report_str(e, "why") ? report_str(e, "why") : report_str(e, "step"));
			strbuf_adds(c, ": ");
			report_esc_html(c, report_str(e, "result"));
			strbuf_adds(c, ")\n");
		}
		if (minor)
			strbuf_addf(c, "  (%d more that cannot matter here: in the JSON report)\n", minor);
	}
	if (cJSON_IsObject(a) && report_str(a, "file")) {
		strbuf_addf(c, "%-10s", "anchor:");
		report_esc_html(c, report_str(a, "file"));
		if (report_int(a, "line", 0) > 0)
			strbuf_addf(c, ":%ld", report_int(a, "line", 0));
		strbuf_addch(c, '\n');
	}
	for (i = 1; i < rc->n; i++) {
		const cJSON *o = v->items[rc->members[i]].f, *och = cJSON_GetObjectItemCaseSensitive(o, "chain");
		if (!report_str(o, "binary"))
			continue;
		if (shown++ == OTHER_CHAINS) {
			strbuf_addf(c, "... %zu more in the JSON report\n", rc->n - i);
			break;
		}
		if (shown == 1)
			strbuf_adds(c, "the same way:\n");
		strbuf_adds(c, "  ");
		report_esc_html(c, report_str(o, "binary"));
		if (cJSON_IsArray(och) && cJSON_GetArraySize(och)) {
			strbuf_adds(c, "  (");
			pre_chain(c, och);
			strbuf_adds(c, ")");
		}
		strbuf_addch(c, '\n');
	}
	strbuf_adds(c, "</pre>\n</details>\n\n");
}

static void cell(struct strbuf *c, const char *s)
{
	strbuf_adds(c, " ");
	if (s && *s)
		report_esc_md(c, s);
	else
		strbuf_adds(c, "–");
	strbuf_adds(c, " |");
}

static void binaries(struct sum *s, struct strbuf *c, const cJSON *inst)
{
	const cJSON *b;
	const cJSON *bins = cJSON_GetObjectItemCaseSensitive(inst, "binaries");
	if (!cJSON_IsArray(bins) || !cJSON_GetArraySize(bins))
		return;
	strbuf_adds(c, "| # | torch binary | stage | outcome | WinError | missing / symbol |\n"
		       "|---:|---|---|---|---:|---|\n");
	add(s, c, "binaries table", 0);
	cJSON_ArrayForEach(b, bins)
	{
		const char *path = report_str(b, "path"), *base = path;
		const char *outcome = report_str(b, "outcome");
		long we = report_int(b, "winerror", 0);
		char num[32];
		if (path) {
			const char *p;
			for (p = path; *p; p++)
				if (*p == '\\' || *p == '/')
					base = p + 1;
		}
		strbuf_adds(c, "|");
		snprintf(num, sizeof(num), "%ld", report_int(b, "order", -1));
		cell(c, report_int(b, "order", -1) >= 0 ? num : NULL);
		cell(c, base);
		cell(c, stage_words(report_str(b, "stage")));
		strbuf_adds(c, " ");
		if (outcome && (!strcmp(outcome, "loads")))
			strbuf_adds(c, "✅ ");
		else if (outcome && !strcmp(outcome, "loads-via-path"))
			strbuf_adds(c, "⚠️ ");
		else
			strbuf_adds(c, "❌ ");
		report_esc_md(c, outcome ? outcome : "?");
		strbuf_adds(c, " |");
		if (we) {
			snprintf(num, sizeof(num), "%ld", we);
			cell(c, num);
		} else {
			cell(c, NULL);
		}
		cell(c, report_str(b, "symbol") ? report_str(b, "symbol") : report_str(b, "leaf"));
		strbuf_addch(c, '\n');
		add(s, c, "binaries table", 0);
	}
	strbuf_addch(c, '\n');
	add(s, c, "binaries table", 0);
}

/* before, --confirm's phrase for inst, after; nothing when it confirmed nothing. */
static void confirmed(struct strbuf *c, const cJSON *inst, const char *before, const char *after)
{
	struct strbuf p = STRBUF_INIT;
	if (report_confirm_phrase(&p, inst, report_esc_md)) {
		strbuf_adds(c, before);
		strbuf_add(c, p.buf, p.len);
		strbuf_adds(c, after);
	}
	strbuf_release(&p);
}

static int install_fails(const cJSON *inst)
{
	const char *st = report_str(inst, "status");
	return st && !strcmp(st, "fail");
}

/*
 * "✅ torch 2.5.1+cpu — C:\...\torch: loads", the failing ones in bold with
 * their WinError: the overview line (Markdown), and a passing install's fold
 * (`html`: inside <summary>, where Markdown is not read).
 */
static void install_line(struct strbuf *c, const cJSON *inst, int html)
{
	void (*esc)(struct strbuf *, const char *) = html ? report_esc_html : report_esc_md;
	const char *st = report_str(inst, "status"), *b = html ? "<b>" : "**", *eb = html ? "</b>" : "**";
	const cJSON *ie = cJSON_GetObjectItemCaseSensitive(inst, "import_error");
	int fails = st && !strcmp(st, "fail"), warns = st && !strcmp(st, "warn");
	strbuf_addf(c, "%s%storch ", fails ? "❌ " : warns ? "⚠️ " : "✅ ", fails ? b : "");
	esc(c, report_str(inst, "version") ? report_str(inst, "version") : "(unknown version)");
	strbuf_addf(c, "%s — ", fails ? eb : "");
	esc(c, report_str(inst, "torch_dir"));
	if (fails && cJSON_IsObject(ie) && report_int(ie, "winerror", 0))
		strbuf_addf(c, ": %swill not load%s %sWinError %ld%s", b, eb, html ? "(" : "\\(",
			    report_int(ie, "winerror", 0), html ? ")" : "\\)");
	else if (fails)
		strbuf_addf(c, ": %sfails the check%s", b, eb);
	else
		strbuf_adds(c, warns ? ": loads, with warnings" : ": loads");
}

static void matrix_row_of(struct strbuf *c, const cJSON *inst)
{
	const cJSON *row = cJSON_GetObjectItemCaseSensitive(inst, "matrix_row"), *src;
	if (!cJSON_IsObject(row))
		return;
	strbuf_adds(c, "Matrix row applied: **");
	report_esc_md(c, report_str(row, "id"));
	strbuf_adds(c, "** from ");
	report_esc_md(c, report_str(row, "file"));
	if (report_int(row, "line", 0) > 0)
		strbuf_addf(c, ":%ld", report_int(row, "line", 0));
	src = cJSON_GetObjectItemCaseSensitive(row, "sources");
	if (cJSON_IsArray(src) && cJSON_GetArraySize(src)) {
		const cJSON *e;
		strbuf_adds(c, "; sources:");
		cJSON_ArrayForEach(e, src)
		{
			if (!cJSON_IsString(e))
				continue;
			strbuf_adds(c, " ");
			link_or_text(c, e->valuestring);
		}
	}
	strbuf_adds(c, "\n\n");
}

/* The packages imported before torch and torch's extensions, one row each (report/result_ext.h). */
static void environment(struct sum *s, struct strbuf *c, const cJSON *inst)
{
	static const char *const groups[2] = { "imported_first", "extensions" };
	const cJSON *e;
	int g, n = 0;
	for (g = 0; g < 2; g++)
		n += cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(inst, groups[g]));
	if (!n)
		return;
	strbuf_adds(c, "| package | version | when | built for torch | verdict | binaries failing |\n"
		       "|---|---|---|---|---|---:|\n");
	add(s, c, "extensions table", 0);
	for (g = 0; g < 2; g++)
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(inst, groups[g]))
		{
			char num[32];
			long failing = report_int(e, "binaries_failing", 0);
			strbuf_adds(c, "|");
			cell(c, report_str(e, "name"));
			cell(c, report_str(e, "version"));
			cell(c, g ? "extension, after torch" : "imported before torch");
			cell(c, report_str(e, "built_for_torch"));
			strbuf_adds(c, failing ? " ❌ fail |" : " ✅ loads |");
			snprintf(num, sizeof(num), "%ld", failing);
			cell(c, num);
			strbuf_addch(c, '\n');
			add(s, c, "extensions table", 0);
		}
	strbuf_addch(c, '\n');
	add(s, c, "extensions table", 0);
}

/* A failing install in full: heading, what `import torch` raises, the row, every binary. */
static void install(struct sum *s, struct strbuf *c, const cJSON *inst)
{
	const cJSON *ie = cJSON_GetObjectItemCaseSensitive(inst, "import_error");
	strbuf_adds(c, "#### torch ");
	report_esc_md(c, report_str(inst, "version") ? report_str(inst, "version") : "(unknown version)");
	strbuf_adds(c, " — ");
	report_esc_md(c, report_str(inst, "torch_dir"));
	strbuf_adds(c, "\n\n");
	if (cJSON_IsObject(ie) && report_str(ie, "text")) {
		strbuf_adds(c, "`import torch` would raise:\n<pre>");
		pre_wrapped(c, report_str(ie, "text"), "  ");
		strbuf_adds(c, "</pre>\n\n");
	}
	confirmed(c, inst, "**--confirm:** ", "\n\n");
	matrix_row_of(c, inst);
	add(s, c, "installs", 0);
	binaries(s, c, inst);
	environment(s, c, inst);
}

/* An install that does not fail: one line, its row and binaries folded under it. */
static void install_folded(struct sum *s, struct strbuf *c, const cJSON *inst)
{
	strbuf_adds(c, "<details><summary>");
	install_line(c, inst, 1);
	strbuf_adds(c, "</summary>\n\n");
	matrix_row_of(c, inst);
	add(s, c, "installs", 0);
	binaries(s, c, inst);
	strbuf_adds(c, "</details>\n\n");
	add(s, c, "installs", 0);
}

static void inventory_of(struct sum *s, struct strbuf *c, const cJSON *doc)
{
	const cJSON *inv = cJSON_GetObjectItemCaseSensitive(doc, "inventory");
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(inv, "redistributables");
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(inv, "runtime_dlls"), *e;
	if (!cJSON_IsObject(inv))
		return;
	strbuf_adds(c, "### Inventory\n\n");
	if (cJSON_IsArray(r) && cJSON_GetArraySize(r)) {
		strbuf_adds(c, "| VC++ redistributable | version | installed | source |\n|---|---|---|---|\n");
		cJSON_ArrayForEach(e, r)
		{
			const cJSON *ins = cJSON_GetObjectItemCaseSensitive(e, "installed");
			strbuf_adds(c, "|");
			cell(c, report_str(e, "arch"));
			cell(c, report_str(e, "version"));
			cell(c, cJSON_IsBool(ins) ? (cJSON_IsTrue(ins) ? "yes" : "no") : NULL);
			cell(c, report_str(e, "source"));
			strbuf_addch(c, '\n');
		}
		strbuf_addch(c, '\n');
	} else {
		strbuf_adds(c, "No Visual C++ 2015–2022 redistributable found.\n\n");
	}
	add(s, c, "inventory", 0);
	if (cJSON_IsArray(d) && cJSON_GetArraySize(d)) {
		strbuf_adds(c, "| runtime DLL | version | machine | path |\n|---|---|---|---|\n");
		add(s, c, "inventory", 0);
		cJSON_ArrayForEach(e, d)
		{
			strbuf_adds(c, "|");
			cell(c, report_str(e, "name"));
			cell(c, report_str(e, "file_version"));
			cell(c, report_str(e, "machine"));
			cell(c, report_str(e, "path"));
			strbuf_addch(c, '\n');
			add(s, c, "inventory", 0);
		}
		strbuf_addch(c, '\n');
		add(s, c, "inventory", 0);
	}
}

static void machine(struct sum *s, struct strbuf *c, const cJSON *doc)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "machine");
	const cJSON *mx = cJSON_GetObjectItemCaseSensitive(doc, "matrix"), *e;
	if (!cJSON_IsObject(m))
		return;
	const char *src = report_str(m, "source"), *arch = report_str(m, "arch");
	const char *api = report_str(m, "api_set_schema"), *known = report_str(m, "known_dlls");
	int nsrc = 0;
	/* only the fields the machine has: never "API sets: ;" */
	strbuf_adds(c, "<sub>Machine: ");
	report_esc_md(c, src && *src ? src : "unknown");
	if (arch && *arch) {
		strbuf_adds(c, ", ");
		report_esc_md(c, arch);
	}
	if (api && *api) {
		strbuf_adds(c, "; API sets: ");
		report_esc_md(c, api);
	}
	if (known && *known) {
		strbuf_adds(c, "; KnownDLLs: ");
		report_esc_md(c, known);
	}
	if (cJSON_IsObject(mx))
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(mx, "sources"))
		{
			if (!cJSON_IsString(e) || !*e->valuestring)
				continue;
			strbuf_adds(c, nsrc++ ? " " : "; matrix: ");
			report_esc_md(c, e->valuestring);
		}
	strbuf_adds(c, ".</sub>\n\n");
	add(s, c, "machine", 0);
}

/* Whether a verdict word is `w`. */
static int prof_is(const char *s, const char *w)
{
	return s && !strcmp(s, w);
}

/* check --pins with machine profiles (docs/profiles.md): a table, one row per pin, one column per machine. */
static void profile_table(struct strbuf *c, const struct report_view *v)
{
	const cJSON *pins = cJSON_GetObjectItemCaseSensitive(v->doc, "pins"), *t, *p;
	const cJSON *profiles = cJSON_GetObjectItemCaseSensitive(pins, "profiles");
	const cJSON *checks = cJSON_GetObjectItemCaseSensitive(v->doc, "profile_checks");
	if (cJSON_GetArraySize(checks)) { /* check --profile with an install: one row per install and profile */
		strbuf_adds(c, "| torch install | machine profile | verdict |\n|---|---|---|\n");
		cJSON_ArrayForEach(p, checks)
		{
			const char *x = report_str(p, "verdict");
			strbuf_adds(c, "| ");
			report_esc_md(c, report_str(p, "torch_dir") ? report_str(p, "torch_dir") : "?");
			strbuf_adds(c, " | ");
			report_esc_md(c, report_str(p, "title") ? report_str(p, "title") : "?");
			strbuf_adds(c, " (");
			report_esc_md(c, report_str(p, "profile") ? report_str(p, "profile") : "?");
			strbuf_adds(c, ") | ");
			strbuf_adds(c, prof_is(x, "fail") ? "❌ fails" : prof_is(x, "warn") ? "⚠️ loads, warnings" :
				       prof_is(x, "pass") ? "✅ loads" : "not judged");
			if (prof_is(x, "fail") && report_str(p, "leaf")) {
				strbuf_adds(c, " (");
				if (report_int(p, "winerror", 0))
					strbuf_addf(c, "WinError %ld, ", report_int(p, "winerror", 0));
				report_esc_md(c, report_str(p, "leaf"));
				strbuf_adds(c, ")");
			}
			strbuf_adds(c, " |\n");
		}
		strbuf_adds(c, "\n");
	}
	if (!cJSON_GetArraySize(profiles))
		return;
	strbuf_adds(c, "| torch pin | this runner |");
	cJSON_ArrayForEach(p, profiles)
	{
		strbuf_adds(c, " ");
		report_esc_md(c, report_str(p, "title"));
		strbuf_adds(c, " (");
		report_esc_md(c, report_str(p, "name"));
		strbuf_adds(c, ") |");
	}
	strbuf_adds(c, "\n|---|---|");
	cJSON_ArrayForEach(p, profiles)
		strbuf_adds(c, "---|");
	strbuf_adds(c, "\n");
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(pins, "targets"))
	{
		const cJSON *vd = cJSON_GetObjectItemCaseSensitive(t, "verdicts");
		const char *r;
		if (!cJSON_IsObject(vd))
			continue;
		strbuf_adds(c, "| ");
		report_esc_md(c, report_str(t, "raw"));
		strbuf_adds(c, " (");
		report_esc_md(c, report_str(t, "file") ? report_str(t, "file") : "?");
		strbuf_addf(c, ":%ld) | ", report_int(t, "line", 0));
		r = report_str(vd, "runner");
		strbuf_adds(c, prof_is(r, "fail") ? "❌ fails" : prof_is(r, "warn") ? "⚠️ loads, warnings" :
			       prof_is(r, "pass") ? "✅ loads" : "not judged");
		strbuf_adds(c, " |");
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(vd, "profiles"))
		{
			const char *x = report_str(p, "verdict");
			strbuf_adds(c, " ");
			strbuf_adds(c, prof_is(x, "fail") ? "❌ fails" : prof_is(x, "warn") ? "⚠️ loads, warnings" :
				       prof_is(x, "pass") ? "✅ loads" : "not judged");
			if (prof_is(x, "fail") && report_str(p, "leaf")) {
				strbuf_adds(c, " (");
				if (report_int(p, "winerror", 0))
					strbuf_addf(c, "WinError %ld, ", report_int(p, "winerror", 0));
				report_esc_md(c, report_str(p, "leaf"));
				strbuf_adds(c, ")");
			}
			strbuf_adds(c, " |");
		}
		strbuf_adds(c, "\n");
	}
	strbuf_adds(c, "\n");
}

/*
 * The verdict: the headline, the first problem's title, the two counts and
 * what was checked, then every install on one line, the failing ones first
 * (what a reader looks for first).
 */
static void verdict(struct sum *s, struct strbuf *c, const struct report_view *v)
{
	const cJSON *inst, *t = cJSON_GetObjectItemCaseSensitive(v->doc, "tool");
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(v->doc, "counts"), *pins;
	size_t i, num = 0;

	if (v->count[SEV_ERROR] && report_load_fails(v))
		strbuf_adds(c, "### ❌ torch-dll-check: torch will not load\n\n");
	else if (v->count[SEV_ERROR])
		strbuf_adds(c, "### ❌ torch-dll-check: torch fails the check\n\n");
	else if (v->count[SEV_WARNING])
		strbuf_adds(c, "### ⚠️ torch-dll-check: torch loads, with warnings\n\n");
	else
		strbuf_adds(c, "### ✅ torch-dll-check: torch loads\n\n");
	if (v->n && v->items[0].sev != SEV_NOTE) {
		strbuf_adds(c, "**");
		report_esc_md(c, report_str(v->items[0].f, "title"));
		strbuf_adds(c, "**  \n");
	}
	report_count_phrase(c, v);
	pins = cJSON_GetObjectItemCaseSensitive(v->doc, "pins");
	if (cJSON_IsObject(counts) && report_int(counts, "binaries", -1) >= 0 &&
	    (report_int(counts, "installs", 0) > 0 || !cJSON_IsObject(pins)))
		strbuf_addf(c, " · %ld torch binaries checked, %ld fail", report_int(counts, "binaries", 0),
			    report_int(counts, "binaries_failing", 0));
	if (cJSON_IsObject(pins)) { /* check --pins: which commit's pins */
		const char *sha = report_str(cJSON_GetObjectItemCaseSensitive(pins, "head"), "commit");
		strbuf_adds(c, " · torch pins of ");
		report_esc_md(c, sha ? sha : "?");
		if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(pins, "judged")))
			strbuf_adds(c, " (unchanged: not judged)");
	}
	if (cJSON_IsObject(t) && report_str(t, "version")) {
		strbuf_adds(c, " · torch-dll-check ");
		report_esc_md(c, report_str(t, "version"));
	}
	strbuf_adds(c, "\n\n");
	for (i = 0; i < 2; i++)
		cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(v->doc, "installs"))
			if (report_str(inst, "torch_dir") && install_fails(inst) == !i) {
				install_line(c, inst, 0);
				strbuf_adds(c, "  \n");
				/* --confirm: said when it agrees too (real loads happened) */
				confirmed(c, inst, "↳ ", "  \n");
				num++;
			}
	if (num)
		strbuf_adds(c, "\n");
	profile_table(c, v);
	add(s, c, "verdict", 0);
}

/*
 * The causes of severity sev under their heading ("Errors (2)"), one entry
 * each, numbered on from *num (the numbers run on across severities).
 */
static void causes_of(struct sum *s, struct strbuf *c, const struct report_view *v, int sev, size_t *num)
{
	static const char *const head[3] = { "Notes", "Warnings", "Errors" };
	static const char *const section[3] = { "notes", "warnings", "errors" };
	size_t i;
	if (!v->ncause[sev])
		return;
	strbuf_addf(c, "#### %s (%zu)\n\n", head[sev], v->ncause[sev]);
	add(s, c, section[sev], 0);
	for (i = 0; i < v->ncauses; i++)
		if ((int)v->causes[i].sev == sev) {
			cause_entry(c, v, &v->causes[i], ++*num, s->blob_base);
			add(s, c, NULL, 1);
		}
}

/* What the cut left out, and where the complete result is. */
static void truncation_note(struct strbuf *out, const struct sum *s)
{
	size_t i;
	strbuf_adds(out, "\n---\n**Summary truncated** at GitHub's 1 MiB job-summary limit; left out:");
	if (s->dropped_findings)
		strbuf_addf(out, " %zu problem%s", s->dropped_findings, s->dropped_findings == 1 ? "" : "s");
	if (s->dropped.n)
		strbuf_addf(out, "%s the section%s", s->dropped_findings ? " and" : "", s->dropped.n == 1 ? "" : "s");
	for (i = 0; i < s->dropped.n; i++)
		strbuf_addf(out, "%s %s", i ? "," : "", s->dropped.v[i]);
	strbuf_adds(out, ". The complete result is the JSON report (the `report` output).\n");
}

void report_summary(struct strbuf *out, const struct report_view *v, size_t max)
{
	report_summary_linked(out, v, max, NULL);
}

void report_summary_linked(struct strbuf *out, const struct report_view *v, size_t max, const char *blob_base)
{
	struct sum s;
	struct strbuf c = STRBUF_INIT;
	const cJSON *inst;
	size_t num = 0, start = out->len;

	memset(&s, 0, sizeof(s));
	s.out = out;
	s.blob_base = blob_base;
	s.max = start + (max > NOTE_RESERVE * 2 ? max : NOTE_RESERVE * 2);

	verdict(&s, &c, v);
	causes_of(&s, &c, v, SEV_ERROR, &num);
	causes_of(&s, &c, v, SEV_WARNING, &num);
	causes_of(&s, &c, v, SEV_NOTE, &num); /* every finding before the supporting tables */
	/* Failing installs first and in full; the others one line each, folded. */
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(v->doc, "installs"))
		if (install_fails(inst))
			install(&s, &c, inst);
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(v->doc, "installs"))
		if (!install_fails(inst) && report_str(inst, "torch_dir"))
			install_folded(&s, &c, inst);
	inventory_of(&s, &c, v->doc);
	machine(&s, &c, v->doc);

	if (s.full)
		truncation_note(out, &s);
	strlist_release(&s.dropped);
	strbuf_release(&c);
}
