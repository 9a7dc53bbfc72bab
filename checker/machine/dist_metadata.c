/*
 * dist_metadata: METADATA (see dist.h for the design and the sources): the
 * header block's Name, Version and Requires-Dist (PEP 508, and the old
 * parenthesised specifiers), the checks of names and versions, and the
 * comparisons of normalised names. Every parser here takes (text, len) and
 * never reads past len; counts are capped before anything is allocated.
 */
#include "machine/dist.h"

#include <stdlib.h>
#include <string.h>

#include "machine/view.h"
#include "util/os.h"
#include "util/text.h"

/* ---- METADATA --------------------------------------------------------------------- */

void dist_metadata_release(struct dist_metadata *m)
{
	size_t i;
	for (i = 0; i < m->nrequires; i++) {
		free(m->requires[i].name);
		free(m->requires[i].extras);
		free(m->requires[i].spec);
		free(m->requires[i].marker);
	}
	free(m->requires);
	free(m->name);
	free(m->version);
	memset(m, 0, sizeof(*m));
}

static int valid_version_text(const char *s);

static int name_char(int c)
{
	return ascii_isalnum(c) || c == '.' || c == '_' || c == '-';
}

static int spec_char(int c)
{
	return ascii_isalnum(c) || strchr("<>=!~.*+,_-", c) != NULL;
}

static const char *skip_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* A PEP 508 requirement as METADATA writes it: NAME [EXTRAS] (SPEC) | SPEC | @ URL [; MARKER]. */
static int parse_require(struct dist_require *r, const char *s, size_t n, const char *name, size_t line,
			 struct err *err)
{
	const char *e = s + n, *p = s, *q;
	struct strbuf spec = STRBUF_INIT;
	memset(r, 0, sizeof(*r));
	r->line = line;
	p = skip_ws(p, e);
	q = p;
	while (q < e && name_char((unsigned char)*q))
		q++;
	if (q == p || !ascii_isalnum((unsigned char)*p))
		return err_set(err, "%s:%zu: Requires-Dist does not start with a project name", name, line);
	r->name = xstrndup(p, (size_t)(q - p));
	p = skip_ws(q, e);
	if (p < e && *p == '[') {
		q = memchr(p, ']', (size_t)(e - p));
		if (!q)
			goto bad;
		r->extras = xstrndup(p + 1, (size_t)(q - p - 1));
		p = skip_ws(q + 1, e);
	}
	q = memchr(p, ';', (size_t)(e - p));
	if (q) {
		const char *m = skip_ws(q + 1, e), *me = e;
		while (me > m && (me[-1] == ' ' || me[-1] == '\t'))
			me--;
		r->marker = xstrndup(m, (size_t)(me - m));
		e = q;
	}
	if (p < e && *p == '@') {
		/* a direct reference: kept as written, never an exact version */
		const char *ue = e;
		while (ue > p && (ue[-1] == ' ' || ue[-1] == '\t'))
			ue--;
		r->spec = xstrndup(p, (size_t)(ue - p));
		return 0;
	}
	if (p < e && *p == '(') {
		q = memchr(p, ')', (size_t)(e - p));
		if (!q || skip_ws(q + 1, e) != e)
			goto bad;
		p++;
		e = q;
	}
	for (; p < e; p++) {
		if (*p == ' ' || *p == '\t')
			continue;
		if (!spec_char((unsigned char)*p))
			goto bad;
		strbuf_addch(&spec, *p);
	}
	r->spec = strbuf_detach(&spec);
	return 0;
bad:
	strbuf_release(&spec);
	free(r->name);
	free(r->extras);
	free(r->marker);
	memset(r, 0, sizeof(*r));
	return err_set(err, "%s:%zu: Requires-Dist \"%s\" is not a PEP 508 requirement", name, line,
		       text_excerpt(s, n, 80, (char[192]){ 0 }, 192));
}

int dist_name_valid(const char *s)
{
	size_t i, n = strlen(s);
	if (!n || n > DIST_NAME_MAX || !ascii_isalnum((unsigned char)s[0]) || !ascii_isalnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++)
		if (!name_char((unsigned char)s[i]))
			return 0;
	return 1;
}

int dist_version_valid(const char *s)
{
	return valid_version_text(s);
}

static int valid_version_text(const char *s)
{
	size_t i, n = strlen(s);
	if (!n || n > 128 || !ascii_isalnum((unsigned char)s[0]))
		return 0;
	for (i = 0; i < n; i++)
		if (!ascii_isalnum((unsigned char)s[i]) && !strchr(".+-_!", s[i]))
			return 0;
	return 1;
}

/* Stores one complete header (folded lines joined with a space). */
static int metadata_header(struct dist_metadata *m, const char *key, size_t kn, const char *val, size_t vn,
			   const char *name, size_t line, struct err *err)
{
	while (vn && (val[vn - 1] == ' ' || val[vn - 1] == '\t' || val[vn - 1] == '\r'))
		vn--;
	if (kn == 4 && !str_nicmp(key, "Name", 4)) {
		if (!vn)
			return err_set(err, "%s:%zu: empty Name", name, line);
		free(m->name);
		m->name = xstrndup(val, vn);
	} else if (kn == 7 && !str_nicmp(key, "Version", 7)) {
		free(m->version);
		m->version = xstrndup(val, vn);
		if (!valid_version_text(m->version))
			return err_set(err, "%s:%zu: Version \"%s\" is not a version", name, line,
				       text_excerpt(val, vn, 60, (char[128]){ 0 }, 128));
	} else if (kn == 13 && !str_nicmp(key, "Requires-Dist", 13)) {
		if (m->nrequires >= DIST_MAX_REQUIRES)
			return err_set(err, "%s:%zu: more than %d Requires-Dist", name, line, DIST_MAX_REQUIRES);
		ALLOC_GROW(m->requires, m->nrequires + 1, m->arequires);
		if (parse_require(&m->requires[m->nrequires], val, vn, name, line, err))
			return -1;
		m->nrequires++;
	}
	return 0;
}

int dist_metadata_parse(struct dist_metadata *out, const char *text, size_t len, const char *name, struct err *err)
{
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	size_t pos = 0, lineno = 0, key_line = 0;
	int r = 0, ended = 0;
	memset(out, 0, sizeof(*out));
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		pos = 3; /* a UTF-8 byte-order mark is not part of the first header's name */
	while (pos < len) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		lineno++;
		if (pos > DIST_METADATA_MAX_HEADER) {
			r = err_set(err, "%s: the header block is longer than %u bytes", name, DIST_METADATA_MAX_HEADER);
			break;
		}
		pos += n + (nl ? 1 : 0);
		if (memchr(l, '\0', n)) {
			r = err_set(err, "%s:%zu: a NUL byte: not a text file", name, lineno);
			break;
		}
		if (n && l[n - 1] == '\r')
			n--;
		if (!n) {
			ended = 1;
			break; /* the body starts */
		}
		if (l[0] == ' ' || l[0] == '\t') {
			if (!key.len) {
				r = err_set(err, "%s:%zu: a continuation line before any header", name, lineno);
				break;
			}
			strbuf_addch(&val, ' ');
			strbuf_add(&val, skip_ws(l, l + n), (size_t)(l + n - skip_ws(l, l + n)));
			continue;
		}
		if (key.len &&
		    (r = metadata_header(out, key.buf, key.len, val.buf, val.len, name, key_line, err)) < 0)
			break;
		strbuf_reset(&key);
		strbuf_reset(&val);
		{
			const char *colon = memchr(l, ':', n), *v;
			size_t k;
			if (!colon || colon == l) {
				r = err_set(err, "%s:%zu: expected a \"Name: value\" header line", name, lineno);
				break;
			}
			for (k = 0; l + k < colon; k++)
				if (!ascii_isalnum((unsigned char)l[k]) && l[k] != '-' && l[k] != '_')
					break;
			if (l + k != colon) {
				r = err_set(err, "%s:%zu: expected a \"Name: value\" header line", name, lineno);
				break;
			}
			strbuf_add(&key, l, (size_t)(colon - l));
			v = skip_ws(colon + 1, l + n);
			strbuf_add(&val, v, (size_t)(l + n - v));
			key_line = lineno;
		}
	}
	(void)ended;
	if (!r && key.len)
		r = metadata_header(out, key.buf, key.len, val.buf, val.len, name, key_line, err);
	strbuf_release(&key);
	strbuf_release(&val);
	if (!r && !out->name)
		r = err_set(err, "%s: no Name: header (truncated?)", name);
	if (!r && !out->version)
		r = err_set(err, "%s: no Version: header (truncated?)", name);
	if (r)
		dist_metadata_release(out);
	return r;
}

char *dist_require_exact(const struct dist_require *r)
{
	const char *s = r->spec;
	size_t n;
	if (!s)
		return NULL;
	if (!strncmp(s, "===", 3))
		s += 3;
	else if (!strncmp(s, "==", 2))
		s += 2;
	else
		return NULL;
	n = strlen(s);
	if (!n || strpbrk(s, ",*<>!~=") || !valid_version_text(s))
		return NULL;
	return xstrndup(s, n);
}

char *dist_name_normalize(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	int run = 0;
	for (p = name; *p; p++) {
		if (*p == '-' || *p == '_' || *p == '.') {
			run = 1;
			continue;
		}
		if (run && sb.len)
			strbuf_addch(&sb, '-');
		run = 0;
		strbuf_addch(&sb, ascii_tolower((unsigned char)*p));
	}
	return strbuf_detach(&sb);
}

static int name_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

/*
 * The next character of the PEP 503 normalised name read from *p (what
 * dist_name_normalize writes, one at a time): '-' for a run of separators
 * between two other characters, the rest lower-cased, 0 at the end (leading
 * and trailing runs are dropped, as there).
 */
static int name_next(const char **p, int *started)
{
	const char *s = *p;
	if (name_sep(*s)) {
		while (name_sep(*s))
			s++;
		if (*started && *s) {
			*p = s;
			return '-';
		}
	}
	if (!*s) {
		*p = s;
		return 0;
	}
	*started = 1;
	*p = s + 1;
	return ascii_tolower((unsigned char)*s);
}

int dist_name_eq(const char *a, const char *b)
{
	/* compared as normalised without making the two strings: one site-packages asks this of every pair */
	int sa = 0, sb = 0, x, y;
	do {
		x = name_next(&a, &sa);
		y = name_next(&b, &sb);
	} while (x == y && x);
	return x == y;
}
