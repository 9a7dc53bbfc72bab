/*
 * report_audit: what the nightly-audit commands say, rendered from their
 * documents — `audit` from the audit document (schema
 * torch-dll-check/audit/v1: the snapshot written, its parent, the drift),
 * `history` from the timeline document (torch-dll-check/history/v1), `fleet`
 * from the fleet table (torch-dll-check/fleet/v1) — so that the text, the
 * annotations, the Markdown for the job summary and the JSON (the document
 * itself) never disagree. docs/audit.md describes the documents.
 *
 * The renderers' contract is report.h's: each fills a strbuf and never
 * prints; cli/git/ decides what goes to stdout (text inside the
 * stop-commands guard, annotations outside it) and which files. Every
 * string in the documents comes from a machine or a repository (DLL paths,
 * runner names, commit contents) and is untrusted: text lines through
 * text_esc_line, annotations through report_annotation, Markdown through
 * report_esc_md. Where the documents came from (git snapshots, report
 * files) is not this module's business: it reads no git.
 */
#ifndef TDC_REPORT_AUDIT_H
#define TDC_REPORT_AUDIT_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "util/strbuf.h"

#define AUDIT_SCHEMA "torch-dll-check/audit/v1"
#define HISTORY_SCHEMA "torch-dll-check/history/v1"

/* `audit`: the snapshot written and the drift since the previous one, one change a line. */
void report_audit_text(struct strbuf *out, const cJSON *audit);

/* `audit --format github`: one annotation per drift change (report.h's annotation budget), by severity. */
void report_audit_github(struct strbuf *out, const cJSON *audit);

/* `audit --summary`: the same as Markdown, at most `max` bytes of changes (then a note). */
void report_audit_markdown(struct strbuf *out, const cJSON *audit, size_t max);

/* `history`: one line per snapshot: date, status, commit, what drifted. */
void report_history_text(struct strbuf *out, const cJSON *history);

/* `fleet`: the table as aligned text, and as Markdown (rows cut to stay within `max` bytes; 0: no limit). */
void report_fleet_text(struct strbuf *out, const cJSON *fleet);
void report_fleet_markdown(struct strbuf *out, const cJSON *fleet, size_t max);

#endif
