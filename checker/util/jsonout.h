/*
 * jsonout: JSON text that is safe to print anywhere — a terminal, a GitHub
 * Actions log, a file a strict parser reads.
 *
 * Every JSON document torch-dll-check writes (report, SARIF, pe --json,
 * deps --json, inventory --json, matrix --json, pins --json) passes through
 * json_safe_append once, after cJSON has printed it. Inside string literals:
 *
 *   - bytes that are not valid UTF-8 (a PE import name is just bytes)
 *     become U+FFFD, one per byte: the document is always valid UTF-8, and
 *     the replacement character marks where the input was not text;
 *   - C0 and C1 controls, and the characters text.h calls invisible (bidi
 *     overrides and isolates, zero-width characters, line separators, BOM)
 *     become \uXXXX escapes;
 *   - the legacy GitHub workflow-command trigger "##[", which the runner
 *     honours anywhere in a line, is broken with a JSON escape: "#\u0023[".
 *     (The other form must start a line, after blanks, with "::"; a line of
 *     JSON text never starts inside a string.)
 *
 * The escapes decode to the same characters, so a JSON parser reads the same
 * strings as before (only invalid UTF-8 changes, to U+FFFD); but no line of
 * the text can be a workflow command or a terminal control sequence, so the
 * JSON can go to stdout under GITHUB_ACTIONS=true without a stop-commands
 * block (which would make it invalid JSON for `> file` or a pipe).
 */
#ifndef TDC_JSONOUT_H
#define TDC_JSONOUT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "util/strbuf.h"

/* Appends json[0..n), a JSON text, with its string literals made safe as above. */
void json_safe_append(struct strbuf *out, const char *json, size_t n);

/* Appends s as a JSON string literal, safe as above (NULL → null). */
void json_quote(struct strbuf *out, const char *s);

/* A JSON string, or null when s is NULL (the report's optional members). */
cJSON *json_str_or_null(const char *s);

/* Adds member key: json_str_or_null(s). */
void json_add_str_or_null(cJSON *obj, const char *key, const char *s);

/* A JSON array of l's strings, in order (an empty array for an empty list). */
cJSON *json_strlist(const struct strlist *l);

/* Adds member key: json_strlist(l). */
void json_add_strlist(cJSON *obj, const char *key, const struct strlist *l);

/* cJSON_Print (formatted) or cJSON_PrintUnformatted of item, made safe, appended. */
void json_print(struct strbuf *out, const cJSON *item, int formatted);

#endif
