/*
 * dist: .dist-info METADATA and RECORD (see dist.h for the design and the
 * sources). Every parser here takes (text, len) and never reads past len;
 * counts are capped before anything is allocated for them.
 */
#include "machine/dist.h"

#include <stdlib.h>
#include <string.h>

#include "machine/view.h"
#include "util/os.h"
#include "util/text.h"

/* ---- RECORD ------------------------------------------------------------------ */

void dist_record_release(struct dist_record *r)
{
	size_t i;
	for (i = 0; i < r->n; i++) {
		free(r->v[i].path);
		free(r->v[i].algo);
		free(r->v[i].digest);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}

/* urlsafe base64's alphabet (and '=' padding) as a table: RECORD holds one digest per row */
static const unsigned char b64url_or_pad[256] = {
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,
	['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
	['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1,
	['9'] = 1, ['-'] = 1, ['_'] = 1, ['='] = 2,
};


/* One field of a RECORD row: NUL-terminated, valid until the next row. */
struct rec_field {
	const char *buf;
	size_t len;
};

/*
 * One CSV row from text[*pos..len): up to 3 fields into out[], the field
 * count in *nf (more than 3 is counted, not kept). A row without quotes is
 * copied once into `line` and cut at its commas; a quoted one is unquoted
 * into f[] (strbufs). Returns 0 at a row, 1 at the end of the text, -1 on an
 * unterminated quote.
 */
static int csv_row(const char *text, size_t len, size_t *pos, size_t *lineno, struct strbuf f[3], struct strbuf *line,
		   struct rec_field out[3], size_t *nf, struct err *err, const char *name)
{
	size_t p = *pos, k = 0;
	int quoted = 0, started = 0, at_field_start = 1;
	size_t start_line = *lineno;
	if (p >= len)
		return 1;
	for (k = 0; k < 3; k++) {
		out[k].buf = "";
		out[k].len = 0;
	}
	k = 0;
	{
		/* the common row has no quote: split it at its commas without looking at each byte twice */
		const char *l = text + p, *nl = memchr(l, '\n', len - p);
		size_t n = nl ? (size_t)(nl - l) : len - p, start = 0, i;
		if (!memchr(l, '"', n)) {
			size_t body = n && l[n - 1] == '\r' ? n - 1 : n;
			char *b;
			strbuf_reset(line);
			strbuf_add(line, l, body);
			b = line->buf;
			for (;;) { /* each field up to the next comma (memchr: vectorised), cut there */
				char *comma = start < body ? memchr(b + start, ',', body - start) : NULL;
				i = comma ? (size_t)(comma - b) : body;
				if (comma)
					*comma = '\0';
				if (k < 3) {
					out[k].buf = b + start;
					out[k].len = i - start;
				}
				k++;
				start = i + 1;
				if (!comma)
					break;
			}
			*pos = p + n + (nl ? 1 : 0);
			if (nl)
				(*lineno)++;
			*nf = body ? k : 0;
			return 0;
		}
	}
	for (k = 0; k < 3; k++)
		strbuf_reset(&f[k]);
	k = 0;
	for (; p < len; p++) {
		char c = text[p];
		if (quoted) {
			if (c == '"') {
				if (p + 1 < len && text[p + 1] == '"') {
					if (k < 3)
						strbuf_addch(&f[k], '"');
					p++;
				} else {
					quoted = 0;
				}
			} else {
				if (c == '\n')
					(*lineno)++;
				if (k < 3)
					strbuf_addch(&f[k], c);
			}
			continue;
		}
		if (c == '"' && at_field_start) {
			quoted = 1;
			at_field_start = 0;
			started = 1;
			continue;
		}
		if (c == ',') {
			k++;
			at_field_start = 1;
			started = 1;
			continue;
		}
		if (c == '\r' && p + 1 < len && text[p + 1] == '\n')
			continue;
		if (c == '\n') {
			(*lineno)++;
			p++;
			break;
		}
		at_field_start = 0;
		started = 1;
		if (k < 3)
			strbuf_addch(&f[k], c);
	}
	if (quoted)
		return err_set(err, "%s:%zu: a quoted field is not closed", name, start_line);
	*pos = p;
	*nf = started ? k + 1 : 0;
	for (k = 0; k < 3; k++) {
		out[k].buf = f[k].buf ? f[k].buf : "";
		out[k].len = f[k].len;
	}
	return 0;
}

static int check_path_text(const char *s, size_t n, const char *name, size_t line, struct err *err)
{
	size_t i;
	if (!n)
		return err_set(err, "%s:%zu: empty path", name, line);
	if (n > DIST_PATH_MAX)
		return err_set(err, "%s:%zu: a path of %zu bytes (more than %d)", name, line, n, DIST_PATH_MAX);
	for (i = 0; i < n; i++)
		if (ascii_iscntrl((unsigned char)s[i]))
			return err_set(err, "%s:%zu: a control character (0x%02x) in a path", name, line,
				       (unsigned)(unsigned char)s[i]);
	return 0;
}

static int parse_size(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;
	size_t i;
	if (!n || n > 18)
		return -1;
	for (i = 0; i < n; i++) {
		if (!ascii_isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/*
 * Every row of RECORD text checked, and handed to `row` (its three fields,
 * NUL-terminated, and its line) without keeping it: the one pass both the
 * row list and the binaries scan use. `row` returns 0, or -1 to stop with
 * err set. -1 on the first bad row, with "NAME:LINE: ...".
 */
typedef int (*record_row_fn)(void *ctx, const struct rec_field f[3], const char *eq, int64_t size, size_t line,
			     struct err *err);

static int record_scan(const char *text, size_t len, const char *name, record_row_fn row, void *ctx, struct err *err)
{
	struct strbuf q[3] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT }, lb = STRBUF_INIT;
	struct rec_field f[3];
	size_t pos = 0, lineno = 1, nf = 0, k, nrows = 0;
	int r = 0;
	if (len > DIST_RECORD_MAX_BYTES)
		return err_set(err, "%s: %zu bytes, more than a RECORD may have (%u)", name, len, DIST_RECORD_MAX_BYTES);
	if (memchr(text, '\0', len))
		return err_set(err, "%s: a NUL byte: not a text file", name);
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
		/* a UTF-8 byte-order mark (an editor's save): not part of the first path */
		text += 3;
		len -= 3;
	}
	for (;;) {
		size_t line = lineno;
		const char *eq = NULL;
		int64_t size = -1;
		r = csv_row(text, len, &pos, &lineno, q, &lb, f, &nf, err, name);
		if (r == 1) {
			r = 0;
			break;
		}
		if (r < 0)
			break;
		if (nf == 0)
			continue; /* a blank row */
		if (nf != 3) {
			r = err_set(err, "%s:%zu: %zu fields, expected path,hash,size", name, line, nf);
			break;
		}
		if (nrows++ >= DIST_RECORD_MAX_ROWS) {
			r = err_set(err, "%s:%zu: more than %d rows", name, line, DIST_RECORD_MAX_ROWS);
			break;
		}
		if ((r = check_path_text(f[0].buf, f[0].len, name, line, err)) < 0)
			break;
		if (f[1].len) {
			eq = memchr(f[1].buf, '=', f[1].len);
			if (!eq || eq == f[1].buf || (size_t)(eq - f[1].buf) > 32) {
				r = err_set(err, "%s:%zu: hash \"%s\" is not ALGORITHM=DIGEST", name, line,
					    text_excerpt(f[1].buf, f[1].len, 60, (char[128]){ 0 }, 128));
				break;
			}
			for (k = 0; f[1].buf + k < eq; k++)
				if (!ascii_isalnum((unsigned char)f[1].buf[k])) {
					r = err_set(err, "%s:%zu: hash algorithm is not a name", name, line);
					break;
				}
			if (r < 0)
				break;
			if (eq + 1 == f[1].buf + f[1].len || f[1].len > 512) {
				r = err_set(err, "%s:%zu: hash digest empty or too long", name, line);
				break;
			}
			for (k = (size_t)(eq + 1 - f[1].buf); k < f[1].len; k++)
				if (!b64url_or_pad[(unsigned char)f[1].buf[k]]) {
					r = err_set(err, "%s:%zu: hash digest is not urlsafe base64", name, line);
					break;
				}
			if (r < 0)
				break;
		}
		if (f[2].len && parse_size(f[2].buf, f[2].len, &size)) {
			r = err_set(err, "%s:%zu: size \"%s\" is not a byte count", name, line,
				    text_excerpt(f[2].buf, f[2].len, 40, (char[96]){ 0 }, 96));
			break;
		}
		if ((r = row(ctx, f, eq, size, line, err)) < 0)
			break;
	}
	for (k = 0; k < 3; k++)
		strbuf_release(&q[k]);
	strbuf_release(&lb);
	return r;
}

static int keep_row(void *ctx, const struct rec_field f[3], const char *eq, int64_t size, size_t line, struct err *err)
{
	struct dist_record *out = ctx;
	struct dist_record_row r = { NULL, NULL, NULL, size, line };
	(void)err;
	r.path = xstrndup(f[0].buf, f[0].len);
	if (eq) {
		r.algo = xstrndup(f[1].buf, (size_t)(eq - f[1].buf));
		r.digest = xstrdup(eq + 1);
	}
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	out->v[out->n++] = r;
	return 0;
}

int dist_record_parse(struct dist_record *out, const char *text, size_t len, const char *name, struct err *err)
{
	memset(out, 0, sizeof(*out));
	if (record_scan(text, len, name, keep_row, out, err)) {
		dist_record_release(out);
		return -1;
	}
	return 0;
}

static int b64val(int c)
{
	if (ascii_isupper(c))
		return c - 'A';
	if (ascii_islower(c))
		return c - 'a' + 26;
	if (ascii_isdigit(c))
		return c - '0' + 52;
	if (c == '-' || c == '+')
		return 62;
	if (c == '_' || c == '/')
		return 63;
	return -1;
}

int dist_digest_decode(const char *digest, unsigned char *out, size_t cap, size_t *outlen, struct err *err)
{
	size_t n = strlen(digest), i, o = 0;
	uint32_t acc = 0;
	int bits = 0;
	while (n && digest[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return err_set(err, "digest \"%.40s\": %zu base64 characters is not a whole number of bytes", digest, n);
	for (i = 0; i < n; i++) {
		int v = b64val((unsigned char)digest[i]);
		if (v < 0)
			return err_set(err, "digest \"%.40s\": '%c' is not base64", digest, digest[i]);
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o >= cap)
				return err_set(err, "digest \"%.40s\": longer than %zu bytes", digest, cap);
			out[o++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc)
		return err_set(err, "digest \"%.40s\": stray bits at the end", digest);
	*outlen = o;
	return 0;
}

/* Whether `path` is `dir` or inside it (Windows paths, case-insensitive, on component boundaries). */
static int win_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	while (n && dir[n - 1] == '\\')
		n--;
	if (str_nicmp(path, dir, n))
		return 0;
	return path[n] == '\0' || path[n] == '\\';
}

int dist_record_resolve(const char *site_packages, const char *env_root, const char *rec_path, char **out,
			struct err *err)
{
	struct strbuf p = STRBUF_INIT;
	size_t i, n = strlen(rec_path), root_len;
	const char *seg;
	*out = NULL;
	if (!n)
		return err_set(err, "an empty path");
	if (rec_path[0] == '/' || rec_path[0] == '\\' || (n >= 2 && rec_path[1] == ':'))
		return err_set(err, "\"%.200s\" is absolute: outside the environment", rec_path);
	if (!env_root)
		env_root = site_packages;
	if (!win_inside(site_packages, env_root))
		return err_set(err, "%s is not inside %s", site_packages, env_root);
	strbuf_adds(&p, site_packages);
	while (p.len && p.buf[p.len - 1] == '\\')
		p.buf[--p.len] = '\0';
	root_len = strlen(env_root);
	while (root_len && env_root[root_len - 1] == '\\')
		root_len--;
	seg = rec_path;
	for (i = 0; i <= n; i++) {
		if (i < n && rec_path[i] != '/' && rec_path[i] != '\\')
			continue;
		{
			size_t sl = (size_t)(rec_path + i - seg);
			if (sl == 0 || (sl == 1 && seg[0] == '.')) {
				/* "a//b", "./a": nothing */
			} else if (sl == 2 && seg[0] == '.' && seg[1] == '.') {
				char *bs = strrchr(p.buf, '\\');
				if (!bs || (size_t)(bs - p.buf) < root_len) {
					strbuf_release(&p);
					return err_set(err, "\"%.200s\" climbs out of the environment %s", rec_path,
						       env_root);
				}
				p.len = (size_t)(bs - p.buf);
				p.buf[p.len] = '\0';
			} else if (memchr(seg, ':', sl)) {
				strbuf_release(&p);
				return err_set(err, "\"%.200s\": a ':' in a path component (a drive or a stream)", rec_path);
			} else {
				if (i == n) {
					/* Windows drops the last component's trailing dots and spaces: "c10.dll." is c10.dll */
					while (sl && (seg[sl - 1] == '.' || seg[sl - 1] == ' '))
						sl--;
					if (!sl) {
						strbuf_release(&p);
						return err_set(err, "\"%.200s\": its last component is only dots and spaces",
							       rec_path);
					}
				}
				strbuf_addch(&p, '\\');
				strbuf_add(&p, seg, sl);
			}
		}
		seg = rec_path + i + 1;
	}
	if (!win_inside(p.buf, env_root) || p.len <= root_len) {
		strbuf_release(&p);
		return err_set(err, "\"%.200s\" resolves outside the environment %s", rec_path, env_root);
	}
	*out = strbuf_detach(&p);
	return 0;
}

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

int dist_name_eq(const char *a, const char *b)
{
	char *x = dist_name_normalize(a), *y = dist_name_normalize(b);
	int eq = !strcmp(x, y);
	free(x);
	free(y);
	return eq;
}

/* ---- files of the view ----------------------------------------------------------- */

static int map_view_file(struct view *v, const char *winpath, struct os_map *m, struct err *err)
{
	char *host = view_host_path(v, winpath);
	int r;
	memset(m, 0, sizeof(*m));
	if (!host || !view_is_file(v, winpath)) {
		free(host);
		return err_set(err, "%s: not found", winpath);
	}
	r = os_map_file(m, host, err);
	free(host);
	return r;
}

/*
 * A small file is read (one read, no mapping to fault in and tear down: the
 * cost of 300 distributions is mostly that); a larger one is mapped.
 */
#define DIST_READ_SMALL (256u << 10)


/*
 * `fast_dir`: the host folder of the dist-info when dist_set_read found it
 * from its listing as it is named (a folder, not a link), else NULL.
 */
static int read_small(struct view *v, const char *fast_dir, const char *winpath, struct strbuf *out, int *too_big,
		      struct err *err)
{
	char *host;
	struct os_stat st;
	int r;
	*too_big = 0;
	if (fast_dir) {
		/* the dist-info folder came from the listing, as it is named: its files by name, no links */
		host = xasprintf("%s/%s", fast_dir, winpath_basename(winpath));
		r = os_read_small_file(host, DIST_READ_SMALL, out, err);
		free(host);
		if (r == 0 || r == -1)
			return r;
		if (r == 2) {
			*too_big = 1;
			return -1;
		}
	}
	/* a link, another letter case, a live view: the view knows */
	if (!(host = view_host_path(v, winpath)) || !view_is_file(v, winpath)) {
		free(host);
		return err_set(err, "%s: not found", winpath);
	}
	os_stat(host, &st);
	if (st.size > DIST_READ_SMALL) {
		free(host);
		*too_big = 1;
		return -1;
	}
	r = os_read_file(host, DIST_READ_SMALL, out, err);
	free(host);
	return r;
}

/*
 * RECORD of `dist_info` read (small) or mapped (large), every row through
 * `row` (record_scan). `used` (NULL: no budget) counts the RECORD bytes of
 * a site-packages read so far: a RECORD that would take it past
 * DIST_SET_RECORD_BYTES is not read (one 62 MB RECORD hard-linked into 20
 * dist-info folders cost 17x one copy).
 */
static int over_budget(size_t *used, size_t len, const char *path, struct err *err)
{
	if (!used)
		return 0;
	if (len > DIST_SET_RECORD_BYTES - *used)
		return err_set(err, "%s: %zu bytes, past what this site-packages' RECORDs may take together "
				    "(%u MiB, %zu read): not read",
			       path, len, DIST_SET_RECORD_BYTES >> 20, *used);
	*used += len;
	return 0;
}

static int scan_record_file(struct view *v, const char *fast_dir, const char *dist_info, record_row_fn row, void *ctx,
			    size_t *used, struct err *err)
{
	char *path = winpath_join(dist_info, "RECORD");
	struct strbuf sb = STRBUF_INIT;
	struct os_map m;
	int r, big;
	if (read_small(v, fast_dir, path, &sb, &big, err) == 0) {
		r = over_budget(used, sb.len, path, err) ? -1 : record_scan(sb.buf, sb.len, path, row, ctx, err);
		strbuf_release(&sb);
		free(path);
		return r;
	}
	strbuf_release(&sb);
	if (!big || map_view_file(v, path, &m, err)) {
		free(path);
		return -1;
	}
	if (m.size > DIST_RECORD_MAX_BYTES)
		r = err_set(err, "%s: %zu bytes, more than a RECORD may have (%u)", path, m.size, DIST_RECORD_MAX_BYTES);
	else if (over_budget(used, m.size, path, err))
		r = -1;
	else
		r = record_scan((const char *)m.data, m.size, path, row, ctx, err);
	os_unmap(&m);
	free(path);
	return r;
}

static int read_metadata(struct view *v, const char *fast_dir, const char *dist_info, struct dist_metadata *out,
			 struct err *err)
{
	char *path = winpath_join(dist_info, "METADATA");
	struct strbuf sb = STRBUF_INIT;
	struct os_map m;
	size_t len;
	int r, big;
	memset(out, 0, sizeof(*out));
	if (read_small(v, fast_dir, path, &sb, &big, err) == 0) {
		r = dist_metadata_parse(out, sb.buf, sb.len, path, err);
		strbuf_release(&sb);
		free(path);
		return r;
	}
	strbuf_release(&sb);
	if (!big || map_view_file(v, path, &m, err)) {
		free(path);
		return -1;
	}
	/* only the header block is parsed: the pages of the description are never touched */
	len = m.size;
	if (len > DIST_METADATA_MAX_HEADER + 4096)
		len = DIST_METADATA_MAX_HEADER + 4096;
	r = dist_metadata_parse(out, (const char *)m.data, len, path, err);
	os_unmap(&m);
	free(path);
	return r;
}

int dist_read_record(struct view *v, const char *dist_info, struct dist_record *out, struct err *err)
{
	memset(out, 0, sizeof(*out));
	if (scan_record_file(v, NULL, dist_info, keep_row, out, NULL, err)) {
		dist_record_release(out);
		return -1;
	}
	return 0;
}

int dist_read_metadata(struct view *v, const char *dist_info, struct dist_metadata *out, struct err *err)
{
	return read_metadata(v, NULL, dist_info, out, err);
}

/* ---- one site-packages ------------------------------------------------------------ */

static void dist_release(struct dist *d)
{
	free(d->name);
	free(d->version);
	free(d->dist_info);
	dist_metadata_release(&d->meta);
	strlist_release(&d->binaries);
	strlist_release(&d->binaries_host);
	strlist_release(&d->tops);
	free(d->scan_note);
	strlist_release(&d->notes);
}

void dist_set_release(struct dist_set *s)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		dist_release(&s->v[i]);
	free(s->v);
	free(s->site_packages);
	free(s->sp_host);
	free(s->env_root);
	strlist_release(&s->notes);
	memset(s, 0, sizeof(*s));
}

static int is_binary_name(const char *p)
{
	return str_iendswith(p, ".pyd") || str_iendswith(p, ".dll");
}

/* The top-level import name of a RECORD path: "torchvision" of "torchvision/_C.pyd", "six" of "six.py". */
static void record_top(struct dist *d, const char *p)
{
	const char *slash = strpbrk(p, "/\\");
	size_t n = slash ? (size_t)(slash - p) : strlen(p);
	char *top;
	if (!slash) {
		/* a top-level module file: its name up to the first dot (x.cp311-win_amd64.pyd) */
		const char *dot = memchr(p, '.', n);
		if (!dot || !(str_iendswith(p, ".py") || str_iendswith(p, ".pyd")))
			return;
		n = (size_t)(dot - p);
	}
	if (!n || memchr(p, ':', n))
		return;
	/* RECORD lists a package's files together: most rows repeat the last name */
	if (d->tops.n && strlen(d->tops.v[d->tops.n - 1]) == n && !str_nicmp(d->tops.v[d->tops.n - 1], p, n))
		return;
	if (d->tops.n >= 64)
		return;
	top = xstrndup(p, n);
	if (str_iendswith(top, ".dist-info") || str_iendswith(top, ".data") || str_iendswith(top, ".egg-info") ||
	    !strcmp(top, "..") || !strcmp(top, ".") || !strcmp(top, "__pycache__") || strlist_has_icase(&d->tops, top))
		free(top);
	else
		strlist_push_owned(&d->tops, top);
}

/*
 * The host path of a RECORD file inside the site-packages, found without the
 * view's folder listings: every component below the site-packages taken
 * exactly as RECORD writes it and checked with lstat (a folder, never a
 * link; the file a regular file), so no link can lead out of the tree.
 * NULL when that does not find it (letter case differs, a link, outside the
 * site-packages, a live view): the caller asks the view, which knows.
 * `ok_dir` caches the last folder found good.
 */
static char *fast_host(const struct dist_set *s, const char *rec_path, struct strbuf *ok_dir)
{
	struct strbuf h = STRBUF_INIT;
	struct os_stat st;
	const char *p = rec_path, *slash;
	if (!s->sp_host || rec_path[0] == '.' || strstr(rec_path, "..") || strchr(rec_path, ':'))
		return NULL;
	strbuf_adds(&h, s->sp_host);
	while ((slash = strpbrk(p, "/\\")) != NULL) {
		if (slash == p) {
			strbuf_release(&h);
			return NULL;
		}
		strbuf_addch(&h, '/');
		strbuf_add(&h, p, (size_t)(slash - p));
		if (!(ok_dir->len == h.len && !memcmp(ok_dir->buf, h.buf, h.len))) {
			if (os_lstat(h.buf, &st) || st.type != OS_DIR) {
				strbuf_release(&h);
				return NULL;
			}
		}
		p = slash + 1;
	}
	strbuf_reset(ok_dir);
	strbuf_add(ok_dir, h.buf, h.len);
	strbuf_addch(&h, '/');
	strbuf_adds(&h, p);
	if (!*p || os_lstat(h.buf, &st) || st.type != OS_FILE) {
		strbuf_release(&h);
		return NULL;
	}
	return strbuf_detach(&h);
}

/* The binaries RECORD lists, each resolved inside the environment (or refused, and said): one row at a time. */
struct bins {
	struct dist *d;
	struct view *v;
	const struct dist_set *s;
	size_t rows, refused, over, missing;
	char *first_refused, *first_missing;
	struct strbuf ok_dir;
};

static int bin_row(void *ctx, const struct rec_field f[3], const char *eq, int64_t size, size_t line, struct err *err)
{
	struct bins *b = ctx;
	struct dist *d = b->d;
	const char *p = f[0].buf;
	struct err e;
	char *w, *host = NULL;
	(void)eq;
	(void)size;
	(void)err;
	b->rows++;
	record_top(d, p);
	if (!is_binary_name(p))
		return 0;
	if (dist_record_resolve(b->s->site_packages, b->s->env_root, p, &w, &e)) {
		if (!b->refused++)
			b->first_refused = xasprintf("RECORD line %zu: %s", line, e.msg);
		return 0;
	}
	if (d->binaries.n >= DIST_MAX_BINARIES) {
		b->over++;
	} else if (!(host = fast_host(b->s, p, &b->ok_dir)) && !view_is_file(b->v, w)) {
		/* listed but gone: removed after install (antivirus quarantine is one cause) */
		if (!b->missing++)
			b->first_missing = xstrdup(w);
	} else {
		strlist_push(&d->binaries, w);
		strlist_push(&d->binaries_host, host ? host : "");
	}
	free(host);
	free(w);
	return 0;
}

static void bins_notes(struct bins *b)
{
	struct dist *d = b->d;
	if (b->refused)
		strlist_pushf(&d->notes, "%zu RECORD path%s refused, not checked: %s", b->refused,
			      b->refused == 1 ? "" : "s", b->first_refused);
	if (b->missing)
		strlist_pushf(&d->notes, "%zu binar%s listed in RECORD but not on disk (removed after install?): %s%s",
			      b->missing, b->missing == 1 ? "y" : "ies", b->first_missing, b->missing > 1 ? ", ..." : "");
	if (b->over)
		strlist_pushf(&d->notes, "%zu binaries beyond the %d checked per distribution were not checked", b->over,
			      DIST_MAX_BINARIES);
}

static void bins_release(struct bins *b)
{
	free(b->first_refused);
	free(b->first_missing);
	strbuf_release(&b->ok_dir);
}

struct walk {
	struct view *v;
	struct dist *d;
	size_t entries, over;
	int capped;
};

/* A bounded walk for .pyd/.dll files; links are not followed, so it cannot loop. */
static void walk_binaries(struct walk *w, const char *dir, int depth)
{
	struct strlist names = STRLIST_INIT;
	size_t i;
	if (depth > DIST_SCAN_MAX_DEPTH) {
		w->capped = 1;
		return;
	}
	if (view_list_dir(w->v, dir, &names, NULL))
		return;
	for (i = 0; i < names.n; i++) {
		char *p;
		if (++w->entries > DIST_SCAN_MAX_ENTRIES) {
			w->capped = 1;
			break;
		}
		p = winpath_join(dir, names.v[i]);
		if (view_is_link(w->v, p)) {
			/* not followed */
		} else if (view_is_dir(w->v, p)) {
			walk_binaries(w, p, depth + 1);
		} else if (is_binary_name(names.v[i])) {
			if (w->d->binaries.n >= DIST_MAX_BINARIES)
				w->over++;
			else {
				strlist_push(&w->d->binaries, p);
				strlist_push(&w->d->binaries_host, "");
			}
		}
		free(p);
	}
	strlist_release(&names);
}

/* Without RECORD: top_level.txt names, else the distribution's own name, looked up as folders and modules. */
static void binaries_by_scan(struct dist *d, struct view *v, const struct dist_set *s, const char *why)
{
	struct walk w = { v, d, 0, 0, 0 };
	struct strlist names = STRLIST_INIT, listing = STRLIST_INIT;
	struct strbuf how = STRBUF_INIT, text = STRBUF_INIT;
	char *tl = winpath_join(d->dist_info, "top_level.txt"), *host = view_host_path(v, tl);
	const char *from = "top_level.txt";
	size_t i, k;
	if (host && view_is_file(v, tl) && !os_read_file(host, 1 << 16, &text, NULL)) {
		const char *p = text.buf, *e = text.buf + text.len;
		while (p < e && names.n < 64) {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			const char *le = nl ? nl : e, *q;
			while (le > p && (le[-1] == '\r' || le[-1] == ' '))
				le--;
			for (q = p; q < le && (ascii_isalnum((unsigned char)*q) || *q == '_'); q++)
				;
			if (q == le && le > p)
				strlist_push_owned(&names, xstrndup(p, (size_t)(le - p)));
			p = nl ? nl + 1 : e;
		}
	}
	if (!names.n) {
		char *n = xstrdup(d->name);
		for (i = 0; n[i]; i++)
			if (n[i] == '-' || n[i] == '.')
				n[i] = '_';
		strlist_push_owned(&names, n);
		from = "the distribution's name";
	}
	view_list_dir(v, s->site_packages, &listing, NULL);
	for (i = 0; i < names.n; i++) {
		if (!strlist_has_icase(&d->tops, names.v[i]))
			strlist_push(&d->tops, names.v[i]);
		for (k = 0; k < listing.n; k++) {
			const char *e = listing.v[k];
			size_t nl = strlen(names.v[i]);
			char *p;
			if (str_nicmp(e, names.v[i], nl) || (e[nl] && e[nl] != '.'))
				continue;
			p = winpath_join(s->site_packages, e);
			if (!e[nl] && view_is_dir(v, p) && !view_is_link(v, p))
				walk_binaries(&w, p, 0);
			else if (e[nl] == '.' && str_iendswith(e, ".pyd") && view_is_file(v, p)) {
				strlist_push(&d->binaries, p);
				strlist_push(&d->binaries_host, "");
			}
			free(p);
		}
		strbuf_addf(&how, "%s%s", i ? ", " : "", names.v[i]);
	}
	d->scan_note = xasprintf("%s: its binaries were found by walking %s\\{%s} (the names from %s) for .pyd and "
				 ".dll files%s",
				 why, s->site_packages, how.buf, from, w.capped ? "; the walk stopped at its limit" : "");
	if (w.capped)
		strlist_pushf(&d->notes, "the walk for binaries stopped after %d entries or %d levels", DIST_SCAN_MAX_ENTRIES,
			      DIST_SCAN_MAX_DEPTH);
	if (w.over)
		strlist_pushf(&d->notes, "%zu binaries beyond the %d checked per distribution were not checked", w.over,
			      DIST_MAX_BINARIES);
	strbuf_release(&how);
	strbuf_release(&text);
	strlist_release(&names);
	strlist_release(&listing);
	free(tl);
	free(host);
}

/* "torchvision-0.21.0.dist-info" → name "torchvision", version "0.21.0" (the version may be absent). */
static void name_from_folder(const char *folder, char **name, char **version)
{
	size_t n = strlen(folder) - strlen(".dist-info");
	const char *dash = memchr(folder, '-', n);
	if (dash) {
		*name = xstrndup(folder, (size_t)(dash - folder));
		*version = xstrndup(dash + 1, n - (size_t)(dash + 1 - folder));
	} else {
		*name = xstrndup(folder, n);
		*version = NULL;
	}
}

static void read_one(struct dist_set *s, struct view *v, const char *folder)
{
	char *fast = NULL;
	struct dist *d;
	struct bins b;
	struct err e;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	d = &s->v[s->n++];
	memset(d, 0, sizeof(*d));
	d->dist_info = winpath_join(s->site_packages, folder);
	memset(&b, 0, sizeof(b));
	b.d = d;
	b.v = v;
	b.s = s;
	strbuf_init(&b.ok_dir);
	if (s->sp_host) {
		struct os_stat st;
		fast = xasprintf("%s/%s", s->sp_host, folder);
		if (os_lstat(fast, &st) || st.type != OS_DIR) {
			free(fast);
			fast = NULL;
		}
	}
	if (!read_metadata(v, fast, d->dist_info, &d->meta, &e)) {
		d->has_metadata = 1;
		d->name = xstrdup(d->meta.name);
		d->version = xstrdup(d->meta.version);
	} else {
		name_from_folder(folder, &d->name, &d->version);
		strlist_pushf(&d->notes, "METADATA unreadable (%s): name and version taken from the folder name", e.msg);
	}
	if (!dist_name_valid(d->name) || (d->version && !dist_version_valid(d->version)))
		strlist_pushf(&d->notes, "not a valid distribution: its name \"%s\" or version is not one PEP 508 allows; "
					 "no command names it",
			      text_excerpt(d->name, strlen(d->name), 60, (char[128]){ 0 }, 128));
	if (!scan_record_file(v, fast, d->dist_info, bin_row, &b, &s->record_bytes, &e)) {
		d->has_record = 1;
		d->nfiles = b.rows;
		bins_notes(&b);
		bins_release(&b);
	} else {
		/* what the rows before the bad one gave is not trusted */
		bins_release(&b);
		strlist_release(&d->binaries);
		strlist_release(&d->binaries_host);
		strlist_release(&d->tops);
		char *rp = winpath_join(d->dist_info, "RECORD");
		int absent = !view_is_file(v, rp);
		char *why = absent ? xstrdup("no RECORD") : xasprintf("RECORD unreadable (%s)", e.msg);
		binaries_by_scan(d, v, s, why);
		free(why);
		free(rp);
	}
	free(fast);
}

static char *infer_env_root(const char *sp)
{
	char *parent = winpath_dirname(sp);
	if (str_iendswith(sp, "\\Lib\\site-packages")) {
		char *root = winpath_dirname(parent);
		free(parent);
		return root;
	}
	return parent;
}

int dist_set_read(struct dist_set *out, struct view *v, const char *site_packages, const char *env_root,
		  struct err *err)
{
	struct strlist names = STRLIST_INIT;
	size_t i, nd = 0;
	memset(out, 0, sizeof(*out));
	out->site_packages = winpath_normalize(site_packages);
	if (view_list_dir(v, out->site_packages, &names, err)) {
		strlist_release(&names);
		dist_set_release(out);
		return -1;
	}
	out->env_root = env_root ? winpath_normalize(env_root) : infer_env_root(out->site_packages);
	if (!view_is_live(v) && !view_is_link(v, out->site_packages))
		out->sp_host = view_host_path(v, out->site_packages);
	for (i = 0; i < names.n; i++) {
		char *p;
		if (!str_iendswith(names.v[i], ".dist-info") || strlen(names.v[i]) == strlen(".dist-info"))
			continue;
		if (nd >= DIST_SET_MAX) {
			out->over++; /* counted by name: what is not read is not looked at either */
			continue;
		}
		p = winpath_join(out->site_packages, names.v[i]);
		if (view_is_dir(v, p) && !view_is_link(v, p)) {
			nd++;
			read_one(out, v, names.v[i]);
		}
		free(p);
	}
	if (out->over)
		strlist_pushf(&out->notes, "more than %d .dist-info folders in %s: %zu more were not read", DIST_SET_MAX,
			      out->site_packages, out->over);
	strlist_release(&names);
	return 0;
}

const struct dist *dist_set_find(const struct dist_set *s, const char *name)
{
	size_t i, k;
	for (i = 0; i < s->n; i++)
		if (dist_name_eq(s->v[i].name, name))
			return &s->v[i];
	for (i = 0; i < s->n; i++)
		for (k = 0; k < s->v[i].tops.n; k++)
			if (!strcmp(s->v[i].tops.v[k], name))
				return &s->v[i];
	return NULL;
}
