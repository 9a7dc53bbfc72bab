/*
 * github_event: pull request commits from $GITHUB_EVENT_PATH (see the header).
 * The file is trusted no more than any input: size-capped, parsed with
 * cJSON's length-bounded parser, and the ids checked to be 40 hex digits
 * before anyone passes them to git.
 */
#include "pins/github_event.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "util/os.h"
#include "util/strbuf.h"
#include "util/text.h"

static int get_sha(const cJSON *pr, const char *which, char out[41])
{
	const cJSON *side = cJSON_GetObjectItemCaseSensitive(pr, which);
	const cJSON *sha = cJSON_GetObjectItemCaseSensitive(side, "sha");
	size_t i;
	if (!cJSON_IsString(sha) || !sha->valuestring || strlen(sha->valuestring) != 40)
		return -1;
	for (i = 0; i < 40; i++) {
		char c = sha->valuestring[i];
		if (!(ascii_isdigit(c) || (c >= 'a' && c <= 'f')))
			return -1;
	}
	memcpy(out, sha->valuestring, 41);
	return 0;
}

int github_event_parse_pr_shas(const char *text, size_t len, const char *name, char base[41], char head[41],
			       struct err *err)
{
	cJSON *root = cJSON_ParseWithLength(text ? text : "", len);
	const cJSON *pr;
	int rc = 0;

	if (!root)
		return err_set(err, "%s: not valid JSON (is it a GitHub event payload?)", name);
	pr = cJSON_GetObjectItemCaseSensitive(root, "pull_request");
	if (!cJSON_IsObject(pr))
		rc = err_set(err, "%s: not a pull request event (no pull_request object); pass --base and --head", name);
	else if (get_sha(pr, "base", base))
		rc = err_set(err, "%s: pull_request.base.sha is missing or not a 40-digit commit id", name);
	else if (get_sha(pr, "head", head))
		rc = err_set(err, "%s: pull_request.head.sha is missing or not a 40-digit commit id", name);
	cJSON_Delete(root);
	return rc;
}

int github_event_pr_shas(const char *path, char base[41], char head[41], struct err *err)
{
	struct strbuf buf = STRBUF_INIT;
	int rc;

	/* a failed read (too large, a FIFO, unreadable) may have filled part of buf */
	if (os_read_file(path, GITHUB_EVENT_MAX_SIZE, &buf, err) < 0) {
		strbuf_release(&buf);
		return -1;
	}
	rc = github_event_parse_pr_shas(buf.buf, buf.len, path, base, head, err);
	strbuf_release(&buf);
	return rc;
}

int github_event_pin_revs(const struct pins_where *src, struct pin_revs *out, struct err *err)
{
	const char *event = src->event;
	char *ev;
	int r;
	memset(out, 0, sizeof(*out));
	out->head_rev = src->rev ? src->rev : src->head ? src->head : "HEAD";
	out->base_rev = src->base;
	if (!event && !src->rev && !src->base) {
		const char *name = os_getenv("GITHUB_EVENT_NAME");
		if (name && !strncmp(name, "pull_request", 12))
			event = os_getenv("GITHUB_EVENT_PATH");
	}
	if (!event)
		return 0;
	ev = xstrdup(event); /* os_getenv's pointer is not stable */
	r = github_event_pr_shas(ev, out->base_sha, out->head_sha, err);
	free(ev);
	if (r < 0)
		return -1;
	out->head_rev = "pull_request.head.sha";
	out->base_rev = "pull_request.base.sha";
	return 0;
}
