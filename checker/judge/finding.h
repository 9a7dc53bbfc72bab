/*
 * finding: what torch-dll-check found, as a C struct, until the report
 * document is written (result_finish). The loader's results
 * (loader_rules.c), the matrix verdict (policy.c), the other passes of
 * check.h and live confirmation (confirm.c) add findings
 * to one `struct findings`; policy merges and drops them by field; only
 * report/ turns them into the report's findings[] (result_finish,
 * docs/report-json.md). Nothing here knows JSON.
 *
 * The root cause a finding reports is (rule, WinError, install, leaf,
 * symbol): the missing or old DLL, the missing export, the runtime. Several
 * torch binaries failing because of one missing leaf share it. A finding
 * without a leaf is its own cause, (rule, WinError, install, binary, issue,
 * title). The report writes the cause as each finding's `cause` id
 * (finding_cause_id; report_cause_id for a saved report's JSON), and every
 * renderer groups by it (report.h).
 */
#ifndef TDC_FINDING_H
#define TDC_FINDING_H

#include <stddef.h>

#include "loader/loader.h"
#include "judge/rules.h"
#include "util/strbuf.h"

struct finding_probe {
	char *path, *step, *why, *result;
	int minor;
};

struct finding {
	enum rule_id rule;
	enum report_severity severity;
	int winerror;           /* 0: none (null in the report) */
	char *title, *message, *fix;
	char *install;          /* the torch folder (Windows path), or NULL */
	char *binary;           /* the torch binary concerned, or NULL */
	char *leaf;             /* the DLL at fault: missing, too old, lacking `symbol` */
	char *symbol;           /* the missing export ("name" or "#ord"), or NULL */
	char *path;             /* where the DLL at fault was found (NULL: nowhere, or not one file) */
	struct strlist chain;   /* torch binary -> ... -> leaf */
	struct finding_probe *probes;
	size_t nprobes;
	struct {                /* the matrix row that judged it; row NULL: none */
		char *row, *file;
		unsigned line;
	} matrix;
	char *issue;            /* known-issue: the issue's id; another rule: the known issue it is (folded in) */
	char *explanation;      /* what the matrix row says about the leaf, in its words, or NULL */
	struct {                /* a repository file the finding is about (a torch pin); file NULL: none */
		char *file;     /* repository-relative, '/'-separated */
		unsigned line, col; /* 1-based; 0: the file as a whole (a pin the head removed) */
	} anchor;
	int matrix_noted;       /* policy appended its matrix row's words to `message` */
	int predicted_winerror; /* prediction-mismatch: -1 none */
	int real_winerror;      /* prediction-mismatch: -1 none */
	struct strlist profiles; /* check --pins: the machine profiles it holds on (docs/profiles.md); empty: none judged or none */
};

/* What a producer says about a finding; finding_add copies every string. */
struct finding_spec {
	int winerror;
	const char *title, *message, *fix, *install, *binary, *leaf, *symbol, *path, *issue;
	const struct ldr_node *chain;  /* the chain from the torch binary to this node */
	const struct ldr_node *probes; /* this node's probes */
};

struct findings {
	struct finding *v;
	size_t n, alloc;
};
#define FINDINGS_INIT { NULL, 0, 0 }

/* SEV_DEFAULT for finding_add: the rule's default severity (rules.def). */
#define SEV_DEFAULT ((int)-1)

/*
 * Appends a finding of `rule` with `severity` (an enum report_severity, or
 * SEV_DEFAULT). Returns it; the pointer is valid until the list changes.
 */
struct finding *finding_add(struct findings *l, enum rule_id rule, int severity, const struct finding_spec *spec);

/* Replaces *field (a string member of a finding) with a copy of s (may be NULL). */
void finding_set(char **field, const char *s);

/* Anchors f at FILE:LINE:COL of the repository (line 0: the file, no line). */
void finding_anchor(struct finding *f, const char *file, unsigned line, unsigned col);

/* Removes l->v[i], keeping the order of the others. */
void findings_remove(struct findings *l, size_t i);

/* Length of a cause id: hex digits of a 64-bit hash. */
#define FINDING_CAUSE_ID_LEN 16

/*
 * The fields a root cause is made of, as the report writes them: `rule` its
 * id (rules.def), `winerror` 0 for none; `symbol` counts only with a leaf,
 * `binary`, `issue` and `title` only without one.
 */
struct finding_cause {
	const char *rule;
	double winerror;
	const char *install, *leaf, *symbol, *binary, *issue, *title;
};

/*
 * The root cause `c` as FINDING_CAUSE_ID_LEN lowercase hex digits and a
 * NUL: FNV-1a 64 of the fields above, names (install, leaf, binary)
 * compared as Windows does, without regard to ASCII case. Stable across
 * runs and versions of the checker: SARIF's partialFingerprints carry it.
 */
void finding_cause_hash(const struct finding_cause *c, char out[FINDING_CAUSE_ID_LEN + 1]);

/* The root cause of `f` (finding_cause_hash of its fields). */
void finding_cause_id(const struct finding *f, char out[FINDING_CAUSE_ID_LEN + 1]);

/* Whether a and b report one root cause (the same finding_cause_id). */
int finding_same_cause(const struct finding *a, const struct finding *b);

void findings_release(struct findings *l);

#endif
