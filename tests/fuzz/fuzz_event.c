/*
 * fuzz_event: any bytes as the GitHub event payload ($GITHUB_EVENT_PATH).
 * Besides never crashing or leaking, whatever the reader accepts must be two
 * 40-digit lowercase hex commit ids (they are handed to git), and a refusal
 * must say why.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pins/github_event.h"

#include "oracle.h"

static int is_sha(const char *s)
{
	size_t i;
	for (i = 0; i < 40; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[40] == '\0';
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	char base[41], head[41];
	struct err e;
	e.msg[0] = '\0';
	if (github_event_parse_pr_shas((const char *)data, size, "event.json", base, head, &e) == 0) {
		if (!is_sha(base) || !is_sha(head))
			abort();
	} else if (!e.msg[0]) {
		abort();
	}
	return 0;
}
