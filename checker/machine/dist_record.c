/*
 * dist_record: RECORD (see dist.h for the design and the sources): each row
 * scanned and checked (three CSV fields, the path, the urlsafe base64
 * digest, the size) without being kept, the row list dist_record_parse
 * keeps, a digest decoded, and a RECORD path resolved inside its
 * environment. The scan (dist_rows.h) is shared with dist.c, which reads
 * the binaries of a distribution from the same pass. Every parser here
 * takes (text, len) and never reads past len; counts are capped before
 * anything is allocated for them.
 */
#include "machine/dist.h"

#include <stdlib.h>
#include <string.h>

#include "machine/dist_rows.h"
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
	['9'] = 1, ['-'] = 1, ['_'] = 1, ['='] = 1,
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

/*
 * Whether one of the eight bytes of x is below 0x20 or is 0x7f: the
 * "has a byte less than n" test (exact for n <= 128, whatever the other
 * bytes hold) and a zero-byte test of x ^ 0x7f..7f.
 */
static unsigned has_ctl8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t y = x ^ (0x7f * ones);
	return (((x - 0x20 * ones) & ~x & highs) | ((y - ones) & ~y & highs)) != 0;
}

static int check_path_text(const char *s, size_t n, const char *name, size_t line, struct err *err)
{
	size_t i;
	unsigned bad = 0;
	if (!n)
		return err_set(err, "%s:%zu: empty path", name, line);
	if (n > DIST_PATH_MAX)
		return err_set(err, "%s:%zu: a path of %zu bytes (more than %d)", name, line, n, DIST_PATH_MAX);
	/* every row's path: eight bytes at a time (a byte below 0x20, or 0x7f), the byte named after */
	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		bad |= has_ctl8(x);
	}
	for (; i < n; i++)
		bad |= (unsigned)ascii_iscntrl((unsigned char)s[i]);
	if (bad)
		for (i = 0; i < n; i++)
			if (ascii_iscntrl((unsigned char)s[i]))
				return err_set(err, "%s:%zu: a control character (0x%02x) in a path", name, line,
					       (unsigned)(unsigned char)s[i]);
	return 0;
}

/* Whether s[0..n) is all urlsafe base64 (or '=' padding): a table lookup per byte and no branch. */
static int b64url_text(const char *s, size_t n)
{
	size_t i;
	const unsigned char *u = (const unsigned char *)s;
	unsigned char ok = 1;
	/* four lookups per step: the 43 bytes of a sha256 digest are most of a RECORD row */
	for (i = 0; i + 4 <= n; i += 4)
		ok &= b64url_or_pad[u[i]] & b64url_or_pad[u[i + 1]] & b64url_or_pad[u[i + 2]] & b64url_or_pad[u[i + 3]];
	for (; i < n; i++)
		ok &= b64url_or_pad[u[i]];
	return ok != 0;
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

int dist_record_scan(const char *text, size_t len, const char *name, record_row_fn row, void *ctx,
		     struct err *err)
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
			if (!b64url_text(eq + 1, f[1].len - (size_t)(eq + 1 - f[1].buf))) {
				r = err_set(err, "%s:%zu: hash digest is not urlsafe base64", name, line);
				break;
			}
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

int dist_record_keep_row(void *ctx, const struct rec_field f[3], const char *eq, int64_t size, size_t line,
			 struct err *err)
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
	if (dist_record_scan(text, len, name, dist_record_keep_row, out, err)) {
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
