/*
 * github_event: what GitHub Actions says about the event that started a job,
 * read from the JSON file at $GITHUB_EVENT_PATH. For a pull request,
 * GITHUB_SHA is the merge commit; the commits the PR compares are
 * pull_request.base.sha and pull_request.head.sha
 * (docs.github.com/en/webhooks/webhook-events-and-payloads#pull_request).
 */
#ifndef TDC_GITHUB_EVENT_H
#define TDC_GITHUB_EVENT_H

#include <stddef.h>

#include "util/err.h"
#include "pins/pins.h"

#define GITHUB_EVENT_MAX_SIZE (64u << 20)

/*
 * Reads base and head commit ids (40 hex digits + NUL) of the pull request
 * in the event file. Returns -1 with a message naming the file and what is
 * missing when the file is unreadable, not JSON, or not a pull request event.
 */
int github_event_pr_shas(const char *path, char base[41], char head[41], struct err *err);

/* The same for an event already in memory (`name` names it in messages). */
int github_event_parse_pr_shas(const char *text, size_t len, const char *name, char base[41], char head[41],
			       struct err *err);

/* The revisions a pin_source names (github_event_pin_revs). */
struct pin_revs {
	const char *head_rev; /* as asked: --rev, --head, "HEAD", or "pull_request.head.sha" */
	const char *base_rev; /* NULL: no base, nothing compared */
	char head_sha[41], base_sha[41]; /* from the event payload; empty: resolve head_rev/base_rev */
};

/*
 * Fills *out from src. With an event payload (src->event, or
 * $GITHUB_EVENT_PATH in a pull_request job when src names no revision) both
 * commit ids come from it. Returns -1 with err when the payload cannot be
 * read.
 */
int github_event_pin_revs(const struct pins_where *src, struct pin_revs *out, struct err *err);

#endif
