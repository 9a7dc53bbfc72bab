/*
 * report: everything torch-dll-check says about a check, rendered from ONE
 * document — the JSON report (schema torch-dll-check/report/v1, see
 * docs/report-json.md). `check` builds that cJSON document; these renderers
 * only read it, so the text, the GitHub annotations, the job summary, the
 * step outputs and SARIF can never disagree with each other or with the JSON.
 *
 * Every renderer fills a strbuf and never prints: cmd_report.c decides what
 * goes to stdout, stderr and which files.
 *
 * Trust: every string in the document may come from the machine checked or
 * the repository (DLL names from import tables, paths, YAML values, git
 * data). Nothing in it may become a GitHub workflow command, a terminal
 * escape sequence, Markdown/HTML markup or a forged output line. Each output
 * syntax has one escaping function here, and each renderer passes every
 * untrusted string through it. GitHub's rules are from actions/toolkit
 * packages/core/src/command.ts (escapeData, escapeProperty) and
 * actions/runner src/Runner.Common/ActionCommand.cs (TryParseV2 trims leading
 * whitespace then wants "::"; TryParse finds the legacy "##[" anywhere).
 */
#ifndef TDC_REPORT_H
#define TDC_REPORT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/err.h"
#include "judge/finding.h"
#include "judge/rules.h"
#include "util/strbuf.h"
#include "util/text.h"

#define REPORT_SCHEMA "torch-dll-check/report/v1"
#define REPORT_HOMEPAGE RULES_HOMEPAGE

/* GitHub shows at most this many annotations of each kind per step. */
#define REPORT_ANNOTATIONS_PER_KIND 10
/* GitHub cuts annotation messages after 4096 characters; we cut first, cleanly. */
#define REPORT_ANNOTATION_MAX 4000
/* GITHUB_STEP_SUMMARY is refused over 1 MiB per step. */
#define REPORT_SUMMARY_MAX (1024 * 1024)
/* Largest report document `report --in` accepts. */
#define REPORT_INPUT_MAX (64u << 20)

enum report_format {
	REPORT_FMT_AUTO = 0,
	REPORT_FMT_TEXT,
	REPORT_FMT_JSON,
	REPORT_FMT_GITHUB,
	REPORT_FMT_SARIF,
	REPORT_FMT_MARKDOWN,
	REPORT_FMT_COUNT /* report.c's table of names has one entry each; each command's table of writers is this long */
};

/* The word --format takes for `f` ("auto", "text", "json", ...); "?" out of range. */
const char *report_format_name(enum report_format f);

/* The forms each command's --format takes, as --help shows them (report_format_choose). */
#define REPORT_FORMATS_CHECK "text|json|github|sarif|markdown"
#define REPORT_FORMATS_AUDIT "text|github"
#define REPORT_FORMATS_FLEET "text|markdown|json"

enum report_fail_on { FAIL_ON_ERROR = 0, FAIL_ON_WARNING, FAIL_ON_NEVER };

/* The options `check` and `report` share (their table: report_cli_opts, checker/cli/cmd_report.c). */
struct report_opts {
	enum report_format format;   /* what goes to stdout; AUTO: github when GITHUB_ACTIONS=true */
	const char *json_path;       /* --json FILE: the document, written whole */
	const char *sarif_path;      /* --sarif FILE */
	const char *summary_path;    /* --summary FILE (appended); default $GITHUB_STEP_SUMMARY in github format */
	const char *outputs_path;    /* --outputs FILE (appended); default $GITHUB_OUTPUT in github format */
	const char *sarif_anchor;    /* --sarif-anchor FILE: repository file for results without an anchor */
	const char *input_path;      /* the saved report read by `report --in` (the `report` output when no --json) */
	enum report_fail_on fail_on; /* --fail-on */
	int color;                   /* --color: -1 auto (NO_COLOR, FORCE_COLOR, a terminal), 0 never, 1 always */
	int trace;                   /* --trace: the text report lists every probe, minor ones too */
	int quiet;                   /* -q, --quiet: the text report's verdict line alone */
	int format_given;            /* --format was given (it and a bare --json must agree) */
	int format_by_json;          /* a bare --json set the format */
};

void report_opts_init(struct report_opts *o);

/*
 * A finding with the keys the renderers sort and count by. `f` is borrowed
 * from the document. Rank order: severity (error, warning, note), then
 * findings about a torch binary that fails to load (in load order), then the
 * rule's importance (rules.def's order), then document order.
 */
struct report_item {
	const cJSON *f;
	enum report_severity sev;
	int failing_binary; /* 1 when `binary` is a torch binary whose winerror != 0 */
	int binary_order;   /* that binary's position in torch's load order, else INT_MAX */
	int rule_rank;      /* enum rule_id; unknown rules sort last */
	size_t index;       /* position in the document */
};

/*
 * One root cause and the findings that report it: the findings with the
 * same `cause` id (finding.h: rule, WinError, install, leaf, symbol) and
 * the same `anchor` (file, line, col), so a result anchored to a pin's
 * file:line:col stays there. A document without `cause` ids (written
 * before they were added) is grouped by the same id computed from its
 * fields. Every renderer says a cause once: its first member in full, the
 * others as the binaries it affects.
 */
struct report_cause {
	const char *id;           /* the cause id (points into `own`) */
	enum report_severity sev; /* its highest member's */
	size_t *members;          /* indexes into report_view.items, ranked; members[0] is shown in full */
	size_t n;
	size_t nbinaries;         /* distinct `binary` values among the members (case-insensitively) */
	char own[65];             /* the document's id (at most 64 characters), or the one computed */
};

/*
 * The cause id of `f`, a finding in its JSON form (a saved report's, which
 * may predate `cause` ids): finding_cause_hash of the fields
 * result_finding_json wrote, so the same finding gets the same id either way.
 */
void report_cause_id(const cJSON *f, char out[FINDING_CAUSE_ID_LEN + 1]);

struct report_view {
	const cJSON *doc;
	struct report_item *items; /* ranked */
	size_t n;
	size_t count[3]; /* findings, by enum report_severity */
	struct report_cause *causes; /* ranked by their first member */
	size_t ncauses;
	size_t ncause[3]; /* causes, by enum report_severity */
};

/*
 * Checks that `doc` is a v1 report renderers can trust the shape of (types of
 * the fields they read; severities and rules are known words) and ranks its
 * findings. Returns -1 with a message naming the bad field.
 */
int report_view_init(struct report_view *v, const cJSON *doc, struct err *err);
void report_view_release(struct report_view *v);

/*
 * The binaries cause `c` affects, as "N torch binaries: a.dll, b.dll,
 * ..." (base names, distinct, in rank order, at most `max_names` (up to
 * 16), then "and N more"); each name written through `esc` (the renderer's
 * escaper). "torch" is report_cause_owner's word ("2 torchvision binaries").
 * Writes nothing when no member names a binary.
 */
void report_cause_binaries(struct strbuf *out, const struct report_view *v, const struct report_cause *c,
			   size_t max_names, void (*esc)(struct strbuf *, const char *));

/*
 * Whose binaries the members of cause `c` name, the word every renderer puts
 * before "binaries": "torch" for a torch install's own, else the `name` of the
 * extension or --import-first package (installs[].extensions[],
 * installs[].imported_first[]) whose binary (or dist_info) it is, as the
 * document has it (untrusted: escape it). NULL when the members name binaries
 * of several owners ("N binaries").
 */
const char *report_cause_owner(const struct report_view *v, const struct report_cause *c);

/* The cause's representative finding: the one rendered in full. */
const cJSON *report_cause_finding(const struct report_view *v, const struct report_cause *c);

/*
 * Why a finding happened, for renderers that show its evidence (chain,
 * places searched) on lines of their own: its `message`, except where the
 * message only tells that evidence in prose (a missing DLL's chain and
 * searches, written for annotations, which have no lines of their own):
 * then the matrix's `explanation`, or NULL when there is none.
 */
const char *report_why(const cJSON *f);

/*
 * The alternatives of a finding's `fix`, best first, one at a time: a fix
 * lists them separated by "; or " (docs/report-json.md), and each renderer
 * shows each on a line of its own. *s is the rest of the fix (NULL or "" at
 * the end); returns 1 with *alt, *len the next alternative (not
 * NUL-terminated, possibly empty) and *s moved past it, or 0 when none is left.
 */
int report_fix_next(const char **s, const char **alt, size_t *len);

/*
 * The two counts, each under its own name, the same in every form: a
 * PROBLEM is one root cause (report_cause: one annotation, one summary
 * entry, one SARIF result), a FINDING one finding of the document (the
 * demo's missing libomp140.x86_64.dll is 1 problem of 5 findings, one per
 * torch binary it fails).
 *
 * report_count_phrase: "1 problem: 1 error, 0 warnings, 0 notes; 5 findings"
 * (the text's verdict line and the summary say it so).
 * report_counts_json: adds "problems" and "findings", each {errors,
 * warnings, notes, total}, to the document's `counts` object (result.c);
 * the flat errors/warnings/notes there stay the findings (schema v1).
 */
void report_count_phrase(struct strbuf *out, const struct report_view *v);

/*
 * What --confirm's real loads said about install `inst` (its `confirmation`
 * and `import_check`), as one phrase without a newline: "confirmed by real
 * loads on this machine: 12 torch binaries loaded by LoadLibraryExW in a
 * helper process, all as predicted; `import torch` run: exit 0, as
 * predicted". Every renderer states it, agreement included. Untrusted text
 * through `esc`. Returns 0 (and writes nothing) when nothing was confirmed.
 */
int report_confirm_phrase(struct strbuf *out, const cJSON *inst, void (*esc)(struct strbuf *, const char *));
void report_counts_json(cJSON *counts, const cJSON *doc);

/* "pass" | "warn" | "fail", from the findings (not the document's own claim). */
const char *report_status(const struct report_view *v);

/*
 * Whether an error says torch will not load (one with a WinError: 126, 127,
 * 193, 1114, ...), as opposed to errors that only break a requirement (a
 * redistributable older than the matrix asks for while every binary loads):
 * verdict lines say "will not load" only then.
 */
int report_load_fails(const struct report_view *v);

/* 0 pass, 1 when a finding reaches `fail_on` (cmd.h's EXIT_* values). */
int report_exit_status(const struct report_view *v, enum report_fail_on fail_on);

/*
 * The one --format parser of every command: `s` is one of `choices` (the
 * option's argument as --help shows it, "text|json|github|sarif"), or
 * "auto" (the command's default). 0 ok; -1 with `why` = "expected text,
 * json, github or sarif", the same words in every command.
 */
int report_format_choose(const char *s, const char *choices, enum report_format *out, struct strbuf *why);

/* Parsing --fail-on's word; 0 ok, -1 unknown word. */
int report_fail_on_parse(const char *s, enum report_fail_on *out);

/* Borrowed string member or NULL; integer member or `def`. */
const char *report_str(const cJSON *obj, const char *key);
long report_int(const cJSON *obj, const char *key, long def);

/*
 * Whether `file` (an anchor) names a file inside the repository: relative,
 * no "..", no drive letter, no "<embedded>" pseudo-path. Only such files get
 * `file=` on annotations and a SARIF location.
 */
int report_anchor_in_repo(const char *file);

/* ---- escaping (one function per output syntax) ---- */

/*
 * Untrusted text for a human-readable line (a terminal, a log) is
 * text_esc_line's (text.h): controls, C1, bidi marks and invalid UTF-8
 * shown as visible escapes, "::" and "##[" broken visibly.
 */

/* Annotation data, exactly as the toolkit's escapeData: % → %25, CR → %0D, LF → %0A. */
void report_esc_gh_data(struct strbuf *out, const char *s);

/* Annotation property values, as escapeProperty: escapeData plus : → %3A, , → %2C. */
void report_esc_gh_prop(struct strbuf *out, const char *s);

/* Inline Markdown (tables, headings): every ASCII punctuation backslash-escaped,
 * line breaks to spaces, the rest as text_esc (controls, C1, bidi visible). */
void report_esc_md(struct strbuf *out, const char *s);

/* Text inside HTML (<pre>, <summary>): & < > " ' as entities, the rest as text_esc. */
void report_esc_html(struct strbuf *out, const char *s);

/*
 * A Mermaid label (report_mermaid.c): text_esc_line, then every character
 * but ASCII letters, digits, space, . _ - as a Mermaid entity code (#92;).
 */
void report_esc_mermaid(struct strbuf *out, const char *s);

/* A repository-relative path as a SARIF artifactLocation.uri (forward slashes, %-encoded). */
void report_esc_uri(struct strbuf *out, const char *path);

/* ---- annotations, for every command that writes them (annotate.c) ---- */

/*
 * GitHub workflow-command annotations of check, pins and audit: one line writer with the Actions
 * toolkit's escaping, and one limiter of how many of each kind a step shows.
 *
 * Limits (docs.github.com, "Workflow commands"): 10 errors, 10 warnings and
 * 10 notices per step (a composite action is one step). A command asks the
 * limiter once with how many annotations of each kind it has, in rank
 * order, then asks before each one whether it is written. The first 10 of
 * each kind are; when anything is left out, one notice slot is kept for the
 * single notice that says how many were (a notice itself), so at most 9
 * notes go before it. The command words that notice itself (what was left
 * out and where the rest is): report_annot_left says how many.
 *
 * Escaping: message data as the toolkit's escapeData (% CR LF), property
 * values as escapeProperty (% CR LF : ,) — actions/toolkit
 * packages/core/src/command.ts. Callers make every untrusted field a safe
 * single line first (text_esc_line), so the annotation never carries a
 * second command even for a reader that ignored this escaping.
 */
struct report_annot_budget {
	size_t limit[3];   /* by enum report_severity */
	size_t emitted[3];
	size_t left[3];
};

/* `wanted`: how many annotations of each severity the command has (by enum report_severity). */
void report_annot_budget_init(struct report_annot_budget *b, const size_t wanted[3]);

/* 1 when the next annotation of severity `sev` is written (and counts it), 0 when it is left out. */
int report_annot_take(struct report_annot_budget *b, enum report_severity sev);

/* How many were left out, all severities. */
size_t report_annot_left(const struct report_annot_budget *b);

/*
 * One annotation: "::error file=F,line=L,col=C,title=T::MSG\n" (notice,
 * warning, error by `sev`). `file` NULL: no location; `line` <= 0: no line
 * (nor col); `col` <= 0: no col. `title` and `msg` are escaped here as
 * property and data; nothing else is done to them.
 */
void report_annotation(struct strbuf *out, enum report_severity sev, const char *file, long line, long col,
		       const char *title, const char *msg);

/* ---- renderers ---- */

/*
 * The human report. `color`: ANSI colours (the caller decides: tty and no
 * NO_COLOR). `trace`: every place searched, also those that cannot matter
 * (probes[].minor), none elided.
 */
void report_text(struct strbuf *out, const struct report_view *v, int color, int trace);

/*
 * The same with every choice: `width` wraps lines longer than that many
 * columns (0: none; the verdict line never: scripts read it with head -1) at spaces, continuing under the field's value ("why:",
 * "fix:"), a long word cut where the line is full, and a ':' that would
 * begin a continuation escaped as at any line start; `groups` puts each
 * problem's evidence between a REPORT_TEXT_GROUP line (with its title) and
 * a REPORT_TEXT_ENDGROUP line, which the caller turns into ::group:: /
 * ::endgroup:: outside the stop-commands guard (the text itself can hold no
 * raw control byte, so the marker cannot be forged); `quiet`: the verdict
 * line alone.
 */
#define REPORT_TEXT_GROUP "\001group "
#define REPORT_TEXT_ENDGROUP "\001endgroup"
struct report_text_opts {
	int color, trace, width, groups, quiet;
};
void report_text_ex(struct strbuf *out, const struct report_view *v, const struct report_text_opts *o);

/* Wraps rendered text at `width` columns (at least 40), as report_text_ex does. */
void report_text_wrap(struct strbuf *out, const char *text, size_t width);

struct report_github_stats {
	size_t emitted[3]; /* annotations written, by severity */
	size_t omitted;    /* causes left out for the per-step limits */
};

/*
 * GitHub annotations, one per root cause (v->causes): at most
 * REPORT_ANNOTATIONS_PER_KIND of each kind in rank order, then one notice
 * counting those left out (the notice counts against the notice limit, so
 * at most 9 notes are emitted when one is needed). `file`/`line`/`col` only
 * for anchors inside the repository.
 */
void report_github(struct strbuf *out, const struct report_view *v, struct report_github_stats *st);

/*
 * The job summary (Markdown + a little HTML). At most `max` bytes: sections
 * that do not fit are left out and an explicit truncation note says so.
 */
void report_summary(struct strbuf *out, const struct report_view *v, size_t max);
/*
 * The same, a pin's file:line next to its finding linked to the file in the
 * repository: blob_base is "https://github.com/OWNER/REPO/blob/<commit>/"
 * (the PR's head; the caller builds it), NULL for plain text.
 */
void report_summary_linked(struct strbuf *out, const struct report_view *v, size_t max, const char *blob_base);

/*
 * The chain of cause `c` as a ```mermaid flowchart block (report_mermaid.c):
 * the failing torch binaries through their imports to the leaf, the leaf
 * marked. Returns 0 and writes nothing when no member has a chain.
 */
int report_mermaid_chain(struct strbuf *out, const struct report_view *v, const struct report_cause *c);

/*
 * Step outputs in GITHUB_OUTPUT's `name<<DELIM` form: status, failures and
 * warnings (errors and warnings counted by root cause, as the annotations
 * are), report (`report_path`, may be NULL). Refuses (-1) a value that
 * contains `delim` (CVE-2022-35954) and writes nothing then.
 */
int report_outputs(struct strbuf *out, const struct report_view *v, const char *report_path,
		   const char *delim, struct err *err);

/*
 * SARIF 2.1.0. Results without an anchor in the repository are anchored to
 * the install's matrix row when that file is in the repository, else to
 * `fallback_anchor` (a repository file, line 1) when given, else carry no
 * location — GitHub code scanning then rejects the upload, so cmd_report
 * always supplies a fallback in GitHub Actions (the workflow file).
 * `*unanchored` receives how many results have no location.
 */
void report_sarif(struct strbuf *out, const struct report_view *v, const char *fallback_anchor,
		  size_t *unanchored);

#endif
