/*
 * rules: the table itself, expanded from rules.def (see rules.h).
 */
#include "judge/rules.h"

#include <string.h>

const struct rule rule_table[RULE_COUNT] = {
#define RULE(name, id, sarif, sev, src, short_desc, full_desc, help, report) \
	[RULE_##name] = { id, sarif, SEV_##sev, RULE_SRC_##src, short_desc, full_desc, help, RULES_DOC_URL id, report },
#include "judge/rules.def"
#undef RULE
};

const struct rule *rule_get(enum rule_id r)
{
	return &rule_table[r];
}

int rule_find(const char *id, enum rule_id *out)
{
	size_t i;
	if (!id)
		return -1;
	for (i = 0; i < RULE_COUNT; i++)
		if (!strcmp(rule_table[i].id, id)) {
			*out = (enum rule_id)i;
			return 0;
		}
	return -1;
}

const char *severity_name(enum report_severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "note";
}

int severity_parse(const char *s, enum report_severity *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "error"))
		*out = SEV_ERROR;
	else if (!strcmp(s, "warning"))
		*out = SEV_WARNING;
	else if (!strcmp(s, "note"))
		*out = SEV_NOTE;
	else
		return -1;
	return 0;
}

const char *rule_source_text(enum rule_source s)
{
	switch (s) {
	case RULE_SRC_LOAD_FAILURE: return "the loader: a torch binary does not load";
	case RULE_SRC_LOADER: return "the loader";
	case RULE_SRC_MATRIX: return "the matrix row (policy)";
	case RULE_SRC_LIVE: return "the real loader (check --confirm)";
	case RULE_SRC_PINS: return "the repository's torch pins (check --pins)";
	}
	return "?";
}
