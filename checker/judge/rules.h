/*
 * rules: the table of finding rules (rows in rules.def). A finding's rule is
 * an `enum rule_id`, so a misspelled rule does not compile; its id string,
 * SARIF name, default severity, source and help texts are looked up here.
 */
#ifndef TDC_RULES_H
#define TDC_RULES_H

#include <stddef.h>

enum report_severity { SEV_NOTE = 0, SEV_WARNING = 1, SEV_ERROR = 2 };

/* Where findings of a rule come from (see rules.def). */
enum rule_source { RULE_SRC_LOAD_FAILURE, RULE_SRC_LOADER, RULE_SRC_MATRIX, RULE_SRC_LIVE, RULE_SRC_PINS };

enum rule_id {
#define RULE(name, id, sarif, sev, src, short_desc, full_desc, help, report) RULE_##name,
#include "judge/rules.def"
#undef RULE
	RULE_COUNT
};

struct rule {
	const char *id;       /* "missing-dll": the report's `rule`, SARIF ruleId */
	const char *name;     /* "MissingDll": SARIF rule name */
	enum report_severity severity; /* default */
	enum rule_source source;
	const char *short_desc;
	const char *full_desc;
	const char *help;     /* what to do, in general (each finding has its own `fix`) */
	const char *help_url; /* the rule's section of docs/rules.md */
	const char *report;   /* docs only: other severities, members of its own ("" if none) */
};

/* The project's home page; rules' help URLs point into its docs/rules.md. */
#define RULES_HOMEPAGE "https://github.com/torch-dll-check/torch-dll-check"
#define RULES_DOC_URL RULES_HOMEPAGE "/blob/main/docs/rules.md#"

/* Indexed by enum rule_id, in order of importance. */
extern const struct rule rule_table[RULE_COUNT];

/* The row of `r` (a valid enum value). */
const struct rule *rule_get(enum rule_id r);

/* The rule whose id is `id`; -1 when none is (a newer producer's rule, a typo in a document). */
int rule_find(const char *id, enum rule_id *out);

/* "error" | "warning" | "note". */
const char *severity_name(enum report_severity s);

/* The word back; -1 for anything else (NULL too). */
int severity_parse(const char *s, enum report_severity *out);

/* "the loader", "the matrix", ... (docs/rules.md). */
const char *rule_source_text(enum rule_source s);

#endif
