/*
 * report_text: the human report. The first line is the verdict a person
 * reads in ten seconds (PASS/WARN/FAIL, the most important finding, the
 * counts of root causes); then the installs and what `import torch` raises;
 * then one entry per root cause (report.h), errors, warnings, notes: its
 * headline, the fix (best first, alternatives after), why (the matrix's
 * words), then the evidence — chain, the places searched with why each was
 * searched (the loader's labels; places that cannot matter only with
 * --trace), the binaries it fails. Our own words are ASCII so a legacy Windows console code page
 * shows them; untrusted strings pass through text_esc_line (text.h), so a DLL name
 * cannot move the cursor, recolour the terminal or start a workflow command.
 *
 * Colour (ANSI SGR) only when the caller says so: cmd_report enables it for
 * a terminal and never when NO_COLOR is set (https://no-color.org/).
 */
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

#include "util/utf.h"

#define PROBES_SHOWN 8

struct style {
	const char *red, *yellow, *green, *cyan, *bold, *dim, *off;
};

static const struct style plain = { "", "", "", "", "", "", "" };
static const struct style ansi = { "\033[1;31m", "\033[1;33m", "\033[1;32m", "\033[36m", "\033[1m",
				   "\033[2m", "\033[0m" };

static void field(struct strbuf *out, const struct style *st, const char *label, const char *val)
{
	if (!val || !*val)
		return;
	strbuf_addf(out, "      %s%-9s%s ", st->dim, label, st->off);
	text_esc_line(out, val);
	strbuf_addch(out, '\n');
}

static void chain(struct strbuf *out, const struct style *st, const cJSON *f)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "chain"), *e;
	int first = 1;
	if (!cJSON_IsArray(c) || !cJSON_GetArraySize(c))
		return;
	strbuf_addf(out, "      %s%-9s%s ", st->dim, "chain:", st->off);
	cJSON_ArrayForEach(e, c)
	{
		if (!cJSON_IsString(e))
			continue;
		if (!first)
			strbuf_adds(out, " -> ");
		text_esc_line(out, e->valuestring);
		first = 0;
	}
	strbuf_addch(out, '\n');
}

/* A probe's place: the folder when the probe looked for `leaf` there, else the path as tried. */
static void place(struct strbuf *out, const char *path, const char *leaf)
{
	size_t n = path ? strlen(path) : 0, l = leaf ? strlen(leaf) : 0;
	if (l && n > l + 1 && path[n - l - 1] == '\\' && !str_icmp(path + n - l, leaf))
		text_esc(out, path, n - l - 1, TEXT_ESC_WORKFLOW);
	else
		text_esc_line(out, path);
}

/*
 * Where the loader looked, one place a line with why it was searched there
 * (probes[].why, the loader's words) and what it found. Places that cannot
 * matter (probes[].minor) only with --trace; a count says what was left out.
 */
static void probes(struct strbuf *out, const struct style *st, const cJSON *f, int trace)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(f, "probes"), *e;
	const char *leaf = report_str(f, "leaf");
	int n, shown = 0, hidden = 0;
	if (!cJSON_IsArray(p) || !(n = cJSON_GetArraySize(p)))
		return;
	cJSON_ArrayForEach(e, p)
	{
		if (!trace && (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "minor")) || shown == PROBES_SHOWN)) {
			hidden++;
			continue;
		}
		strbuf_addf(out, "      %s%-9s%s ", st->dim, shown ? "" : "searched:", st->off);
		place(out, report_str(e, "path"), leaf);
		strbuf_adds(out, "  (");
		text_esc_line(out, report_str(e, "why") ? report_str(e, "why") : report_str(e, "step"));
		strbuf_adds(out, ": ");
		text_esc_line(out, report_str(e, "result"));
		strbuf_adds(out, ")\n");
		shown++;
	}
	if (hidden)
		strbuf_addf(out, "      %-9s %s(%d more place%s with --trace)%s\n", shown ? "" : "searched:", st->dim, hidden,
			    hidden == 1 ? "" : "s", st->off);
}

/* The fix, best first, one alternative a line (report_fix_next). */
static void fixes(struct strbuf *out, const struct style *st, const char *fix)
{
	const char *s = fix, *alt;
	size_t len;
	int first = 1;
	while (report_fix_next(&s, &alt, &len)) {
		strbuf_addf(out, "      %s%-9s%s ", first ? st->bold : st->dim, first ? "fix:" : "or:", st->off);
		text_esc(out, alt, len, TEXT_ESC_WORKFLOW);
		strbuf_addch(out, '\n');
		first = 0;
	}
}

static int same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

/*
 * One finding: the headline, the fix (best first), why (report_why: the
 * message, or the matrix's explanation where the message only tells the
 * evidence below in prose), then the evidence.
 */
static void finding(struct strbuf *out, const struct style *st, const struct report_item *it, size_t num, int multi,
		    int trace, int groups)
{
	const cJSON *f = it->f, *a = cJSON_GetObjectItemCaseSensitive(f, "anchor");
	const char *col = it->sev == SEV_ERROR ? st->red : it->sev == SEV_WARNING ? st->yellow : st->cyan;
	long we = report_int(f, "winerror", 0);
	const char *title = report_str(f, "title");
	strbuf_addf(out, "  %s%zu.%s %s", col, num, st->off, st->bold);
	text_esc_line(out, title ? title : report_str(f, "rule"));
	strbuf_addf(out, "%s  [", st->off);
	text_esc_line(out, report_str(f, "rule"));
	if (we)
		strbuf_addf(out, ", WinError %ld", we);
	strbuf_adds(out, "]\n");
	fixes(out, st, report_str(f, "fix"));
	field(out, st, "why:", report_why(f));
	if (groups) { /* the evidence folds under Actions: a marker line cmd_report turns into ::group:: */
		strbuf_addf(out, "%sevidence of problem %zu: ", REPORT_TEXT_GROUP, num);
		text_esc_line(out, title ? title : report_str(f, "rule"));
		strbuf_addch(out, '\n');
	}
	chain(out, st, f);
	probes(out, st, f, trace);
	if (trace)
		field(out, st, "binary:", report_str(f, "binary"));
	if (cJSON_IsObject(a) && report_str(a, "file")) {
		strbuf_addf(out, "      %s%-9s%s ", st->dim, "at:", st->off);
		text_esc_line(out, report_str(a, "file"));
		if (report_int(a, "line", 0) > 0)
			strbuf_addf(out, ":%ld", report_int(a, "line", 0));
		strbuf_addch(out, '\n');
	}
	if (multi)
		field(out, st, "install:", report_str(f, "install"));
}

static void esc_line(struct strbuf *out, const char *s)
{
	text_esc_line(out, s);
}

/* A root cause: its most important finding in full, then the torch binaries it makes fail. */
static void cause(struct strbuf *out, const struct style *st, const struct report_view *v,
		  const struct report_cause *c, size_t num, int multi, int trace, int groups)
{
	finding(out, st, &v->items[c->members[0]], num, multi, trace, groups);
	if (c->nbinaries > 1) {
		strbuf_addf(out, "      %s%-9s%s ", st->dim, "affects:", st->off);
		report_cause_binaries(out, v, c, 8, esc_line);
		strbuf_addch(out, '\n');
	}
	if (groups)
		strbuf_addf(out, "%s\n", REPORT_TEXT_ENDGROUP);
}

/* "torch 2.4.0+cpu" or "2 torch installs" or "no torch install". */
static void what(struct strbuf *out, const struct report_view *v)
{
	const cJSON *inst = cJSON_GetObjectItemCaseSensitive(v->doc, "installs");
	int n = cJSON_IsArray(inst) ? cJSON_GetArraySize(inst) : 0;
	if (n == 1 && report_str(cJSON_GetArrayItem(inst, 0), "version")) {
		strbuf_adds(out, "torch ");
		text_esc_line(out, report_str(cJSON_GetArrayItem(inst, 0), "version"));
	} else if (n > 1) {
		strbuf_addf(out, "%d torch installs", n);
	} else if (n == 1) {
		strbuf_adds(out, "torch");
	} else if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v->doc, "pins"))) {
		strbuf_adds(out, "the torch this branch pins"); /* check --pins before any install */
	} else {
		strbuf_adds(out, "no torch install");
	}
}

static void report_text_lines(struct strbuf *out, const struct report_view *v, const struct report_text_opts *o);

/* Columns a piece of rendered text takes: ANSI SGR sequences none, a UTF-8 character one. */
static size_t columns(const char *s, size_t n)
{
	size_t i = 0, w = 0;
	while (i < n) {
		if (s[i] == '\033' && i + 1 < n && s[i + 1] == '[') {
			i += 2;
			while (i < n && !(s[i] >= '@' && s[i] <= '~'))
				i++;
			i++;
			continue;
		}
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
		i++;
	}
	return w;
}

/* Where a continuation of this line starts: after "   label:   " when it has one, else its indent + 2. */
static size_t hang(const char *s, size_t n)
{
	size_t i = 0, j;
	while (i < n && s[i] == ' ')
		i++;
	j = i;
	while (j < n && s[j] != ' ' && s[j] != ':')
		j++;
	if (j < n && s[j] == ':' && j + 1 < n && s[j + 1] == ' ' && j - i < 12) {
		j++;
		while (j < n && s[j] == ' ')
			j++;
		return columns(s, j) < 40 ? columns(s, j) : i + 2;
	}
	return i + 2;
}

/*
 * Writes the white space a continuation begins with (Unicode's: U+3000, ...)
 * and, when a ':' follows it, that ':' as \x3a; returns where the rest starts.
 */
static size_t continuation_start(struct strbuf *out, const char *line, size_t i, size_t n)
{
	const unsigned char *s = (const unsigned char *)line;
	size_t j = i;
	for (;;) {
		size_t k = j;
		long cp = j < n ? utf8_next(s, n, &k) : -1;
		if (cp < 0 || !text_is_space(cp) || text_is_invisible(cp))
			break;
		j = k;
	}
	strbuf_add(out, line + i, j - i);
	if (j < n && line[j] == ':') {
		strbuf_adds(out, "\\x3a");
		j++;
	}
	return j;
}

void report_text_wrap(struct strbuf *out, const char *text, size_t width)
{
	const char *line = text;
	if (width < 40)
		width = 40;
	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line), indent = hang(line, n), start = 0;
		if (line[0] == REPORT_TEXT_GROUP[0] || columns(line, n) <= width) {
			strbuf_add(out, line, n);
		} else {
			int first = 1;
			while (start < n) {
				size_t room = width - (first ? 0 : indent), i = start, cut = 0, col = 0;
				/* the longest prefix that fits, cut at a space */
				while (i < n && col < room) {
					if (line[i] == ' ' && i > start)
						cut = i;
					if (line[i] == '\033' && i + 1 < n && line[i + 1] == '[') { /* SGR: no columns */
						i += 2;
						while (i < n && !(line[i] >= '@' && line[i] <= '~'))
							i++;
						i += i < n;
						continue;
					}
					col += ((unsigned char)line[i] & 0xc0) != 0x80;
					i++;
				}
				if (i >= n)
					cut = n;
				else if (!cut || cut <= start + (first ? indent : 0))
					cut = i; /* one long word (a path): cut where the line is full */
				while (cut < n && ((unsigned char)line[cut] & 0xc0) == 0x80)
					cut++;
				if (!first) {
					strbuf_addf(out, "\n%*s", (int)indent, "");
					/*
					 * A continuation starts a line: the runner trims white
					 * space (Unicode's too), then looks for "::" there.
					 */
					start = continuation_start(out, line, start, n);
				}
				strbuf_add(out, line + start, cut - start);
				start = cut;
				while (start < n && line[start] == ' ')
					start++;
				first = 0;
			}
		}
		if (!nl)
			break;
		strbuf_addch(out, '\n');
		line = nl + 1;
	}
}

/* One line per package imported before torch and per extension (report/result_ext.h). */
static void environment(struct strbuf *out, const struct style *st, const cJSON *inst)
{
	static const char *const groups[2] = { "imported_first", "extensions" };
	const cJSON *e;
	int g;
	for (g = 0; g < 2; g++)
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(inst, groups[g]))
		{
			const cJSON *b;
			long loaded = 0, failing = report_int(e, "binaries_failing", 0);
			cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(e, "binaries"))
				loaded += !same_str(report_str(b, "how"), "lazy");
			if (failing)
				strbuf_addf(out, "    %sFAIL%s ", st->red, st->off);
			else
				strbuf_addf(out, "    %sPASS%s ", st->green, st->off);
			text_esc_line(out, report_str(e, "name") ? report_str(e, "name") : "?");
			strbuf_addch(out, ' ');
			text_esc_line(out, report_str(e, "version") ? report_str(e, "version") : "(version unknown)");
			if (!g && report_str(e, "built_for_torch")) {
				strbuf_adds(out, " (imported before torch, built for torch ");
				text_esc_line(out, report_str(e, "built_for_torch"));
				strbuf_adds(out, ")");
			} else if (!g) {
				strbuf_adds(out, " (imported before torch)");
			} else if (report_str(e, "built_for_torch")) {
				strbuf_adds(out, " (built for torch ");
				text_esc_line(out, report_str(e, "built_for_torch"));
				strbuf_adds(out, ")");
			}
			if (failing)
				strbuf_addf(out, ": %ld of %ld binaries loaded at import fail\n", failing, loaded);
			else
				strbuf_addf(out, ": %ld binar%s loaded at import, all load\n", loaded, loaded == 1 ? "y" : "ies");
		}
}

/*
 * The python.exe checked and why it was chosen, and, when its sys.path holds
 * more than one torch, which one `import torch` takes (docs/python.md).
 */
static void interpreter(struct strbuf *out, const struct style *st, const cJSON *ip)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(ip, "torch"), *e;
	int i = 0;
	if (!cJSON_IsObject(ip) || !report_str(ip, "python"))
		return;
	strbuf_addf(out, "  %spython%s ", st->dim, st->off);
	text_esc_line(out, report_str(ip, "python"));
	strbuf_adds(out, " (");
	text_esc_line(out, report_str(ip, "chosen_by") ? report_str(ip, "chosen_by") : "?");
	strbuf_adds(out, ")\n");
	if (cJSON_GetArraySize(t) < 2)
		return;
	strbuf_adds(out, "  ");
	cJSON_ArrayForEach(e, t)
	{
		if (i)
			strbuf_adds(out, "; ");
		text_esc_line(out, report_str(e, "torch_dir") ? report_str(e, "torch_dir") : "?");
		strbuf_addch(out, ' ');
		text_esc_line(out, report_str(e, "version") ? report_str(e, "version") : "(version unknown)");
		strbuf_adds(out, " (");
		text_esc_line(out, report_str(e, "from") ? report_str(e, "from") : "?");
		strbuf_adds(out, i ? ") is shadowed" : ") is the one imported");
		i++;
	}
	strbuf_addch(out, '\n');
}

/*
 * --scan: the python.exe found whose sys.path imports this torch, and those
 * it is shadowed for; nothing when one python.exe imports it from its own
 * environment's site-packages and no other has it.
 */
static void scan_interpreters(struct strbuf *out, const struct style *st, const cJSON *inst)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(inst, "interpreters"), *e;
	int pass;
	if (!cJSON_IsArray(a))
		return;
	e = cJSON_GetArrayItem(a, 0);
	if (cJSON_GetArraySize(a) == 1 && same_str(report_str(e, "status"), "imported") &&
	    (same_str(report_str(e, "from"), "site-packages") || same_str(report_str(e, "from"), "venv site-packages")))
		return;
	if (!cJSON_GetArraySize(a)) {
		strbuf_addf(out, "    %sno python.exe found by the scan has it on sys.path%s\n", st->dim, st->off);
		return;
	}
	for (pass = 0; pass < 2; pass++)
		cJSON_ArrayForEach(e, a)
		{
			if (same_str(report_str(e, "status"), "imported") != !pass)
				continue;
			strbuf_addf(out, "    %s%s%s ", st->dim, pass ? "shadowed for" : "imported by", st->off);
			text_esc_line(out, report_str(e, "python") ? report_str(e, "python") : "?");
			strbuf_adds(out, " (");
			text_esc_line(out, report_str(e, "from") ? report_str(e, "from") : "?");
			strbuf_adds(out, ")\n");
		}
}

void report_text(struct strbuf *out, const struct report_view *v, int color, int trace)
{
	struct report_text_opts o = { 0, 0, 0, 0, 0 };
	o.color = color;
	o.trace = trace;
	report_text_ex(out, v, &o);
}

void report_text_ex(struct strbuf *out, const struct report_view *v, const struct report_text_opts *o)
{
	struct strbuf raw = STRBUF_INIT;
	const char *nl;
	report_text_lines(&raw, v, o);
	/* The verdict line stays one line, whatever its length: scripts read it with `head -1`. */
	nl = raw.len ? strchr(raw.buf, '\n') : NULL;
	if (o->width && nl) {
		strbuf_add(out, raw.buf, (size_t)(nl - raw.buf) + 1);
		report_text_wrap(out, nl + 1, (size_t)o->width);
	} else {
		strbuf_add(out, raw.buf, raw.len);
	}
	strbuf_release(&raw);
}

/* A profile's verdict, red when it fails, and the failure's "(WinError N, leaf)". */
static void profile_verdict_words(struct strbuf *out, const cJSON *p, const struct style *st)
{
	int fail = same_str(report_str(p, "verdict"), "fail");
	strbuf_adds(out, fail ? st->red : "");
	text_esc_line(out, report_str(p, "verdict"));
	strbuf_adds(out, fail ? st->off : "");
	if (fail && report_str(p, "leaf")) {
		strbuf_adds(out, " (");
		if (report_int(p, "winerror", 0))
			strbuf_addf(out, "WinError %ld, ", report_int(p, "winerror", 0));
		text_esc_line(out, report_str(p, "leaf"));
		strbuf_adds(out, ")");
	}
}

/*
 * The note of a profile check (what its verdict rests on, and what it leaves
 * unjudged: memory_gb unsaid), said once: under the first check that has it,
 * naming every profile that shares it when there are several; nothing under
 * the later ones.
 */
static void profile_note(struct strbuf *out, const struct report_view *v, const cJSON *p, const struct style *st)
{
	const cJSON *q;
	const char *note = report_str(p, "note");
	struct strlist names = { NULL, 0, 0 };
	int before = 1;
	size_t i;
	cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(v->doc, "profile_checks"))
	{
		const char *name = report_str(q, "profile") ? report_str(q, "profile") : "?";
		if (q == p)
			before = 0;
		if (!report_str(q, "note") || strcmp(report_str(q, "note"), note))
			continue;
		if (before) { /* said already, under an earlier profile's line */
			strlist_release(&names);
			return;
		}
		for (i = 0; i < names.n && strcmp(names.v[i], name); i++)
			;
		if (i == names.n)
			strlist_push(&names, name);
	}
	strbuf_addf(out, "    %snote", st->dim);
	if (names.n > 1) {
		strbuf_adds(out, " (on ");
		for (i = 0; i < names.n; i++) {
			strbuf_adds(out, i ? ", " : "");
			text_esc_line(out, names.v[i]);
		}
		strbuf_adds(out, ")");
	}
	strbuf_addf(out, ":%s ", st->off);
	text_esc_line(out, note);
	strbuf_adds(out, "\n");
	strlist_release(&names);
}

/*
 * check --pins with machine profiles (docs/profiles.md): each pin's verdict
 * on this runner and on each profile, one line per pin.
 */
static void profile_verdicts(struct strbuf *out, const struct report_view *v, const struct style *st)
{
	const cJSON *pins = cJSON_GetObjectItemCaseSensitive(v->doc, "pins"), *t, *p;
	/* check --profile with an install: each install's verdict on each profile */
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(v->doc, "profile_checks"))
	{
		strbuf_adds(out, "  on ");
		text_esc_line(out, report_str(p, "profile"));
		strbuf_adds(out, ": ");
		profile_verdict_words(out, p, st);
		strbuf_adds(out, ": torch at ");
		text_esc_line(out, report_str(p, "torch_dir"));
		strbuf_adds(out, "\n");
		if (report_str(p, "note"))
			profile_note(out, v, p, st);
	}
	if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pins, "profiles")))
		return;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(pins, "targets"))
	{
		const cJSON *vd = cJSON_GetObjectItemCaseSensitive(t, "verdicts");
		if (!cJSON_IsObject(vd))
			continue;
		strbuf_adds(out, "  ");
		text_esc_line(out, report_str(t, "raw"));
		strbuf_adds(out, " (");
		text_esc_line(out, report_str(t, "file") ? report_str(t, "file") : "?");
		strbuf_addf(out, ":%ld): this runner ", report_int(t, "line", 0));
		text_esc_line(out, report_str(vd, "runner"));
		cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(vd, "profiles"))
		{
			strbuf_adds(out, "; ");
			text_esc_line(out, report_str(p, "name"));
			strbuf_adds(out, " ");
			profile_verdict_words(out, p, st);
		}
		strbuf_adds(out, "\n");
	}
}

static void report_text_lines(struct strbuf *out, const struct report_view *v, const struct report_text_opts *o)
{
	const struct style *st = o->color ? &ansi : &plain;
	int trace = o->trace;
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(v->doc, "counts"), *inst;
	static const char *const head[3] = { "Notes", "Warnings", "Errors" };
	size_t i, num = 0;
	int sev, ninst = 0, nfail = 0, multi, pass;

	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(v->doc, "installs"))
	{
		ninst++;
		nfail += same_str(report_str(inst, "status"), "fail");
	}
	multi = ninst > 1;

	/* The verdict line. */
	if (v->count[SEV_ERROR]) {
		strbuf_addf(out, "%sFAIL%s ", st->red, st->off);
		if (ninst > 1 && nfail)
			strbuf_addf(out, "%d of %d torch installs", nfail, ninst);
		else
			what(out, v);
		strbuf_adds(out, report_load_fails(v) ? " will not load: " : ": ");
		text_esc_line(out, report_str(report_cause_finding(v, &v->causes[0]), "title"));
	} else if (v->count[SEV_WARNING]) {
		strbuf_addf(out, "%sWARN%s ", st->yellow, st->off);
		what(out, v);
		strbuf_adds(out, " loads, but: ");
		text_esc_line(out, report_str(report_cause_finding(v, &v->causes[0]), "title"));
	} else if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(v->doc, "pins"),
								  "judged")) && !ninst) {
		strbuf_addf(out, "%sPASS%s no torch pin changed: the gate passes", st->green, st->off);
	} else {
		strbuf_addf(out, "%sPASS%s ", st->green, st->off);
		what(out, v);
		strbuf_adds(out, " loads");
	}
	strbuf_adds(out, " (");
	report_count_phrase(out, v);
	if (cJSON_IsObject(c) && report_int(c, "binaries", -1) >= 0 &&
	    (ninst || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v->doc, "pins"))))
		strbuf_addf(out, "; %ld torch binaries checked, %ld fail", report_int(c, "binaries", 0),
			    report_int(c, "binaries_failing", 0));
	strbuf_adds(out, ")\n");
	if (o->quiet)
		return;
	interpreter(out, st, cJSON_GetObjectItemCaseSensitive(v->doc, "interpreter"));
	profile_verdicts(out, v, st);

	/* Where, and what `import torch` would say (Windows names only the DLL it asked for); failing installs first. */
	for (pass = 0; pass < 2; pass++)
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(v->doc, "installs"))
	{
		const cJSON *ie = cJSON_GetObjectItemCaseSensitive(inst, "import_error");
		if (!report_str(inst, "torch_dir") || same_str(report_str(inst, "status"), "fail") != !pass)
			continue;
		{
			const char *is = report_str(inst, "status");
			if (same_str(is, "fail"))
				strbuf_addf(out, "  %sFAIL%s ", st->red, st->off);
			else if (same_str(is, "warn"))
				strbuf_addf(out, "  %sWARN%s ", st->yellow, st->off);
			else if (same_str(is, "pass"))
				strbuf_addf(out, "  %sPASS%s ", st->green, st->off);
			else
				strbuf_adds(out, "  ");
		}
		strbuf_addf(out, "%storch%s ", st->dim, st->off);
		text_esc_line(out, report_str(inst, "version") ? report_str(inst, "version") : "(version unknown)");
		strbuf_adds(out, " at ");
		text_esc_line(out, report_str(inst, "torch_dir"));
		strbuf_addch(out, '\n');
		if (cJSON_IsObject(ie) && report_str(ie, "text")) {
			strbuf_addf(out, "  %simport torch raises:%s ", st->dim, st->off);
			text_esc_line(out, report_str(ie, "text"));
			strbuf_addch(out, '\n');
		}
		{ /* --confirm: said when it agrees too (real loads happened) */
			struct strbuf p = STRBUF_INIT;
			if (report_confirm_phrase(&p, inst, text_esc_line))
				strbuf_addf(out, "  %s\n", p.buf);
			strbuf_release(&p);
		}
		scan_interpreters(out, st, inst);
		environment(out, st, inst);
	}

	/* One entry per root cause (report.h), by severity, most important first. */
	for (sev = SEV_ERROR; sev >= SEV_NOTE; sev--) {
		if (!v->ncause[sev])
			continue;
		strbuf_addf(out, "\n%s%s (%zu):%s\n", st->bold, head[sev], v->ncause[sev], st->off);
		for (i = 0; i < v->ncauses; i++)
			if ((int)v->causes[i].sev == sev)
				cause(out, st, v, &v->causes[i], ++num, multi, trace, o->groups);
	}
	if (v->n && report_str(v->doc, "status") && strcmp(report_str(v->doc, "status"), report_status(v)))
		strbuf_addf(out, "\n(the report says status \"%s\"; its findings say \"%s\")\n",
			    strcmp(report_str(v->doc, "status"), "pass") && strcmp(report_str(v->doc, "status"), "warn") &&
					    strcmp(report_str(v->doc, "status"), "fail")
				    ? "?"
				    : report_str(v->doc, "status"),
			    report_status(v));
}
