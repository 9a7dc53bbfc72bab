/*
 * pairs: the embedded extension/torch evidence (pairs.h), parsed once on
 * first use. A line is "PROJECT VERSION FILE sha256=HEX torch==X" (the
 * only kind that pairs), "PROJECT VERSION FILE sha256=HEX torch SPEC" or
 * "PROJECT VERSION refused: WHY" (kept out).
 */
#include "matrix/pairs.h"

#include <stdlib.h>
#include <string.h>

#include "machine/dist.h"
#include "util/strbuf.h"
#include "util/version.h"

extern const char matrix_pairs_text[];
extern const size_t matrix_pairs_text_len;

struct pair {
	char *ext, *version, *torch;
};

static struct pair *pairs;
static size_t npairs, apairs;
static int loaded;

static size_t split(const char *l, size_t n, const char **f, size_t *fl, size_t max)
{
	size_t k = 0, i = 0;
	while (i < n && k < max) {
		while (i < n && l[i] == ' ')
			i++;
		if (i >= n)
			break;
		f[k] = l + i;
		while (i < n && l[i] != ' ')
			i++;
		fl[k] = (size_t)(l + i - f[k]);
		k++;
	}
	return k;
}

/* 1 a pairing line (fields out), 0 another valid line, -1 not an evidence line. */
static int parse_line(const char *l, size_t n, struct pair *out)
{
	const char *f[6];
	size_t fl[6], k = split(l, n, f, fl, 6);
	if (k >= 3 && fl[2] == 8 && !strncmp(f[2], "refused:", 8))
		return 0;
	if (k < 5 || fl[3] != 71 || strncmp(f[3], "sha256=", 7) || fl[4] < 5 || strncmp(f[4], "torch", 5))
		return -1;
	if (fl[4] == 5)
		return 0; /* "torch SPEC": not an exact pin */
	if (fl[4] < 8 || strncmp(f[4], "torch==", 7) || k != 5)
		return -1;
	out->ext = xstrndup(f[0], fl[0]);
	out->version = xstrndup(f[1], fl[1]);
	out->torch = xstrndup(f[4] + 7, fl[4] - 7);
	return 1;
}

static void load(void)
{
	const char *t = matrix_pairs_text, *e = t + matrix_pairs_text_len;
	if (loaded)
		return;
	loaded = 1;
	while (t < e) {
		const char *nl = memchr(t, '\n', (size_t)(e - t));
		size_t n = nl ? (size_t)(nl - t) : (size_t)(e - t);
		struct pair p;
		if (parse_line(t, n, &p) == 1) {
			ALLOC_GROW(pairs, npairs + 1, apairs);
			pairs[npairs++] = p;
		}
		t += n + (nl ? 1 : 0);
	}
}

size_t pairs_lint(const char *text, size_t len, size_t *first_bad)
{
	const char *t = text, *e = text + len;
	size_t bad = 0, line = 0;
	*first_bad = 0;
	while (t < e) {
		const char *nl = memchr(t, '\n', (size_t)(e - t));
		size_t n = nl ? (size_t)(nl - t) : (size_t)(e - t);
		struct pair p;
		int r = parse_line(t, n, &p);
		line++;
		if (r < 0 && !bad++)
			*first_bad = line;
		if (r == 1) {
			free(p.ext);
			free(p.version);
			free(p.torch);
		}
		t += n + (nl ? 1 : 0);
	}
	return bad;
}

const char *pairs_torch_of(const char *ext, const char *version)
{
	size_t i;
	load();
	for (i = 0; i < npairs; i++)
		if (dist_name_eq(pairs[i].ext, ext) && !strcmp(pairs[i].version, version))
			return pairs[i].torch;
	return NULL;
}

int pairs_knows(const char *ext)
{
	size_t i;
	load();
	for (i = 0; i < npairs; i++)
		if (dist_name_eq(pairs[i].ext, ext))
			return 1;
	return 0;
}

const char *pairs_ext_for(const char *ext, const char *torch_version)
{
	size_t i;
	const char *best = NULL;
	struct pep440 bv, v;
	load();
	for (i = 0; i < npairs; i++) {
		if (!dist_name_eq(pairs[i].ext, ext) || !pep440_same_public(pairs[i].torch, torch_version))
			continue;
		if (pep440_parse(&v, pairs[i].version, NULL))
			continue;
		if (!best || pep440_cmp(&v, &bv) > 0) {
			best = pairs[i].version;
			bv = v;
		}
	}
	return best;
}
