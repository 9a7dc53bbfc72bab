/*
 * fuzz_version: the first line of the input as a specifier, the second as
 * a version, the third as a Windows file version and the fourth as a local
 * label. Besides never crashing, canonical forms must round-trip: a
 * formatted version parses back to an equal version, a formatted specifier
 * to one that answers the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/version.h"

#include "input.h"
#include "oracle.h"

static int fuzz_one(const uint8_t *data, size_t size)
{
	char *spec_text = line_of(data, size, 0), *ver_text = line_of(data, size, 1);
	char *win_text = line_of(data, size, 2), *local_text = line_of(data, size, 3);
	struct pep440_spec spec = PEP440_SPEC_INIT, again = PEP440_SPEC_INIT;
	struct pep440 v, w;
	struct winver wv, wv2;
	struct torch_variant tv;
	struct strbuf sb = STRBUF_INIT;
	int have_v;

	have_v = pep440_parse(&v, ver_text, NULL) == 0;
	if (have_v) {
		pep440_format(&v, &sb);
		/* The canonical form can be longer than the input ("1r" → "1.post0"): past the cap it may not parse. */
		if (sb.len <= PEP440_MAX_TEXT && (pep440_parse(&w, strbuf_str(&sb), NULL) < 0 || pep440_cmp(&v, &w) != 0))
			abort();
		if (sb.len <= PEP440_MAX_TEXT && pep440_cmp(&w, &v) != 0)
			abort();
		strbuf_reset(&sb);
	}
	if (pep440_spec_parse(&spec, spec_text, NULL) == 0) {
		pep440_spec_format(&spec, &sb);
		if (sb.len <= PEP440_MAX_TEXT) {
			if (pep440_spec_parse(&again, strbuf_str(&sb), NULL) < 0)
				abort();
			if (have_v && pep440_spec_contains(&spec, &v, NULL) != pep440_spec_contains(&again, &v, NULL))
				abort();
		}
		if (have_v)
			(void)pep440_spec_contains(&spec, &v, ver_text);
		strbuf_reset(&sb);
	}
	if (winver_parse(&wv, win_text, NULL) == 0) {
		winver_format(&wv, 0, &sb);
		if (winver_parse(&wv2, strbuf_str(&sb), NULL) < 0 || winver_cmp(&wv, &wv2) != 0)
			abort();
		if (!winver_at_least(&wv, &wv2) || winver_at_least(&wv, &wv2) != (winver_cmp(&wv, &wv2) >= 0))
			abort();
	}
	if (torch_variant_parse(&tv, local_text, NULL) == 0)
		torch_variant_describe(&tv, &sb);
	pep440_spec_release(&spec);
	pep440_spec_release(&again);
	strbuf_release(&sb);
	free(spec_text);
	free(ver_text);
	free(win_text);
	free(local_text);
	return 0;
}
