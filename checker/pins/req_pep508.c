/*
 * req_pep508: the PEP 508 core of the pin-file parsers (see req_pep508.h for
 * what the format parsers get from it, requirements.h for the formats).
 *
 * A requirement string always reaches the one PEP 508 parser
 * (req_parse_pep508) together with a position map, so a pin found inside a
 * joined continuation line, a TOML string or a YAML scalar still gets the
 * line and column of its first character in the file. Markers are checked
 * with the evaluator in req_markers.c.
 *
 * Sources: PEP 508 (dependency specifiers and markers), PEP 440, PEP 503
 * (name normalisation), PEP 427 (wheel file names); pip's requirements file
 * format for the bare URL and archive path forms and `#egg=` names.
 */
#include "pins/req_pep508.h"
#include "pins/req_markers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/version.h"

/* ---------- small helpers ---------- */

char *req_trim_dup(const char *s, size_t n)
{
	while (n && ascii_isspace((unsigned char)*s))
		s++, n--;
	while (n && ascii_isspace((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

const char *req_basename(const char *path)
{
	const char *b = path, *p;
	for (p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	return b;
}

int req_ferr(const struct req_file *f, struct err *err, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(err, "%s:%u:%u: %s", f->path, line, col, msg);
}

/* ---------- names, variants, wheel file names ---------- */

void req_normalize_name(const char *name, size_t len, struct strbuf *out)
{
	size_t i;
	int sep = 0;
	strbuf_reset(out);
	for (i = 0; i < len; i++) {
		int c = (unsigned char)name[i];
		if (c == '-' || c == '_' || c == '.') {
			sep = 1;
			continue;
		}
		if (sep && out->len)
			strbuf_addch(out, '-');
		sep = 0;
		strbuf_addch(out, (c >= 'A' && c <= 'Z') ? c + 32 : c);
	}
}

/* cu121 / cpu / rocm6.1 / xpu: what a torch local version label or index folder names. */
static char *variant_of_label(const char *s, size_t n)
{
	size_t i;
	if (n >= 3 && !strncmp(s, "cu", 2) && ascii_isdigit((unsigned char)s[2])) {
		for (i = 2; i < n && ascii_isdigit((unsigned char)s[i]); i++)
			;
		return xstrndup(s, i);
	}
	if (n >= 3 && !strncmp(s, "cpu", 3) && (n == 3 || s[3] == '.' || s[3] == '-' || s[3] == '_'))
		return xstrdup("cpu");
	if (n >= 5 && !strncmp(s, "rocm", 4) && ascii_isdigit((unsigned char)s[4])) {
		for (i = 4; i < n && (ascii_isdigit((unsigned char)s[i]) || s[i] == '.'); i++)
			;
		return xstrndup(s, i);
	}
	if (n >= 3 && !strncmp(s, "xpu", 3) && (n == 3 || s[3] == '.'))
		return xstrdup("xpu");
	return NULL;
}

char *req_variant_of_version(const char *version)
{
	const char *plus;
	if (!version || !(plus = strchr(version, '+')))
		return NULL;
	return variant_of_label(plus + 1, strlen(plus + 1));
}

char *req_variant_of_url(const char *url)
{
	const char *p, *end, *seg;
	char *found = NULL;
	if (!url)
		return NULL;
	p = strstr(url, "://");
	p = p ? p + 3 : url;
	end = p + strcspn(p, "?#");
	seg = p;
	while (seg < end) {
		const char *e = seg;
		while (e < end && *e != '/')
			e++;
		/* Whole segments only: "cu121" yes, "cu121.html" no. */
		{
			char *v = variant_of_label(seg, (size_t)(e - seg));
			if (v && strlen(v) == (size_t)(e - seg)) {
				free(found);
				found = v;
			} else {
				free(v);
			}
		}
		seg = e < end ? e + 1 : e;
	}
	return found;
}

void wheel_name_release(struct wheel_name *w)
{
	free(w->name);
	free(w->version);
	free(w->build);
	free(w->python_tag);
	free(w->abi_tag);
	free(w->platform_tag);
	memset(w, 0, sizeof(*w));
}

static int is_wheel_ref(const char *s)
{
	size_t n = strcspn(s, "?#");
	return n >= 4 && !str_nicmp(s + n - 4, ".whl", 4);
}

int wheel_name_parse(struct wheel_name *w, const char *s, struct err *err)
{
	struct strbuf fn = STRBUF_INIT;
	const char *b = s, *p;
	size_t n = strcspn(s, "?#"), i;
	char *parts[6];
	size_t np = 0, start = 0;
	int bad = 0;

	memset(w, 0, sizeof(*w));
	for (p = s; p < s + n; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	for (p = b; p < s + n; p++) {
		int h1, h2;
		if (*p == '%' && p + 2 < s + n && (h1 = hex_digit((unsigned char)p[1])) >= 0 &&
		    (h2 = hex_digit((unsigned char)p[2])) >= 0) {
			strbuf_addch(&fn, h1 * 16 + h2);
			p += 2;
		} else {
			strbuf_addch(&fn, *p);
		}
	}
	if (fn.len < 5 || str_icmp(fn.buf + fn.len - 4, ".whl") || strlen(fn.buf) != fn.len) {
		char ex[80];
		text_excerpt(strbuf_str(&fn), fn.len, sizeof(ex) - 4, ex, sizeof(ex));
		strbuf_release(&fn);
		return err_set(err, "'%s' is not a wheel file name (NAME-VERSION-PYTHON-ABI-PLATFORM.whl)", ex);
	}
	fn.len -= 4;
	fn.buf[fn.len] = '\0';
	for (i = 0; i <= fn.len; i++) {
		if (i == fn.len || fn.buf[i] == '-') {
			if (np == 6 || i == start) {
				bad = 1;
				break;
			}
			parts[np++] = xstrndup(fn.buf + start, i - start);
			start = i + 1;
		}
	}
	if (bad || (np != 5 && np != 6)) {
		size_t k;
		char ex[80];
		for (k = 0; k < np; k++)
			free(parts[k]);
		text_excerpt(fn.buf, fn.len, sizeof(ex) - 4, ex, sizeof(ex));
		strbuf_release(&fn);
		return err_set(err, "'%s.whl' is not a wheel file name (NAME-VERSION-PYTHON-ABI-PLATFORM.whl)", ex);
	}
	strbuf_release(&fn);
	w->name = parts[0];
	w->version = parts[1];
	if (np == 6) {
		w->build = parts[2];
		w->python_tag = parts[3];
		w->abi_tag = parts[4];
		w->platform_tag = parts[5];
	} else {
		w->python_tag = parts[2];
		w->abi_tag = parts[3];
		w->platform_tag = parts[4];
	}
	return 0;
}

/* ---------- pins ---------- */

struct pin *req_add_pin(struct req_file *f, unsigned line, unsigned col, enum pin_source src,
			struct err *err)
{
	struct pin *p;
	if (f->n_pins >= REQ_MAX_PINS) {
		req_ferr(f, err, line, col, "more than %d pins in one file", REQ_MAX_PINS);
		return NULL;
	}
	ALLOC_GROW(f->pins, f->n_pins + 1, f->alloc_pins);
	p = &f->pins[f->n_pins++];
	memset(p, 0, sizeof(*p));
	p->file = xstrdup(f->path);
	p->line = line;
	p->col = col;
	p->source = src;
	return p;
}

void req_set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? xstrdup(s) : NULL;
}

static void set_owned(char **dst, char *s)
{
	free(*dst);
	*dst = s;
}

/* ---------- positions inside joined lines and strings ---------- */

void posmap_add(struct posmap *m, size_t off, unsigned line, unsigned col)
{
	ALLOC_GROW(m->v, m->n + 1, m->alloc);
	m->v[m->n].off = off;
	m->v[m->n].line = line;
	m->v[m->n].col = col;
	m->n++;
}

void posmap_at(const struct posmap *m, size_t off, unsigned *line, unsigned *col)
{
	size_t i, best = 0;
	for (i = 0; i < m->n; i++)
		if (m->v[i].off <= off)
			best = i;
	if (!m->n) {
		*line = 1;
		*col = 1;
		return;
	}
	*line = m->v[best].line;
	*col = m->v[best].col + (unsigned)(off - m->v[best].off > 100000 ? 100000 : off - m->v[best].off);
}

/* ---------- the PEP 508 requirement parser (plus pip's URL and path forms) ---------- */

int req_ctx_err(const struct req_ctx *r, size_t off, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	unsigned line, col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	posmap_at(r->map, r->base + off, &line, &col);
	return req_ferr(r->f, r->err, line, col, "%s", msg);
}

static int is_url(const char *s)
{
	size_t i = 0;
	if (!strncmp(s, "file:", 5))
		return 1;
	while (ascii_isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
		i++;
	return i > 0 && !strncmp(s + i, "://", 3);
}

static int is_path_like(const char *s, size_t n)
{
	static const char *const exts[] = { ".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz" };
	size_t i;
	if (n && (s[0] == '.' || s[0] == '/' || s[0] == '\\' || s[0] == '~'))
		return 1;
	if (n > 2 && s[1] == ':' && (s[2] == '\\' || s[2] == '/'))
		return 1;
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t e = strlen(exts[i]);
		if (n > e && !str_nicmp(s + n - e, exts[i], e))
			return 1;
	}
	return 0;
}

static int valid_name_span(const char *s, size_t n)
{
	size_t i;
	if (!n || !ascii_isalnum((unsigned char)s[0]) || !ascii_isalnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++)
		if (!ascii_isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return 0;
	return 1;
}

static void fill_from_wheel(struct pin *p, const struct wheel_name *w)
{
	struct strbuf nb = STRBUF_INIT;
	if (!p->name) {
		req_normalize_name(w->name, strlen(w->name), &nb);
		p->name = strbuf_detach(&nb);
	}
	strbuf_release(&nb);
	req_set_str(&p->version, w->version);
	req_set_str(&p->python_tag, w->python_tag);
	req_set_str(&p->abi_tag, w->abi_tag);
	req_set_str(&p->platform_tag, w->platform_tag);
	set_owned(&p->pep440, xasprintf("==%s", w->version));
	if (!p->variant) {
		p->variant = req_variant_of_version(w->version);
		if (p->variant)
			req_set_str(&p->variant_from, "wheel");
	}
	p->form = PIN_FORM_WHEEL;
}

/* Fills a pin's URL, form and (for wheels) version and tags. */
int req_apply_url(const struct req_ctx *r, struct pin *p, const char *url, size_t url_off)
{
	req_set_str(&p->url, url);
	if (is_wheel_ref(url)) {
		struct wheel_name w;
		struct err e;
		if (wheel_name_parse(&w, url, &e))
			return req_ctx_err(r, url_off, "%s", e.msg);
		fill_from_wheel(p, &w);
		wheel_name_release(&w);
	} else {
		p->form = PIN_FORM_URL;
		if (!p->variant) {
			p->variant = req_variant_of_url(url);
			if (p->variant)
				req_set_str(&p->variant_from, "url");
		}
	}
	return 0;
}

/* Checks a specifier list ("==2.4.0", ">=2.4,<2.6", "~=2.5.0", "==2.4.*"); returns the
 * offset of the bad clause or (size_t)-1 if all are good. */
size_t req_check_specifier(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t start, v;
		while (i < n && ascii_isspace((unsigned char)s[i]))
			i++;
		start = i;
		if (i < n && strchr("<>=!~", s[i])) {
			if (i + 2 < n && !strncmp(s + i, "===", 3))
				i += 3;
			else if (i + 1 < n && s[i + 1] == '=')
				i += 2;
			else if (s[i] == '<' || s[i] == '>')
				i += 1;
			else
				return start;
		} else {
			return start;
		}
		while (i < n && ascii_isspace((unsigned char)s[i]))
			i++;
		v = i;
		while (i < n && (ascii_isalnum((unsigned char)s[i]) || strchr(".*+!_-", s[i])))
			i++;
		if (i == v)
			return start;
		while (i < n && ascii_isspace((unsigned char)s[i]))
			i++;
		if (i < n && s[i] != ',')
			return start;
		if (i < n)
			i++;
	}
	return (size_t)-1;
}

char *req_strip_spaces(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	for (i = 0; i < n; i++)
		if (!ascii_isspace((unsigned char)s[i]))
			strbuf_addch(&sb, s[i]);
	return strbuf_detach(&sb);
}

/*
 * Validates a PEP 440 specifier with the version module. On error, *msg gets
 * its reason without the "at column N" part and *col the 0-based offset of
 * the offending character within the specifier text as parsed.
 */
int req_pep440_check(const char *spec, char *msg, size_t msglen, size_t *col)
{
	struct pep440_spec sp = PEP440_SPEC_INIT;
	struct err ve;
	const char *why;
	err_clear(&ve);
	if (!pep440_spec_parse(&sp, spec, &ve)) {
		pep440_spec_release(&sp);
		return 0;
	}
	why = strstr(ve.msg, " at column ");
	why = why ? strstr(why, ": ") : NULL;
	snprintf(msg, msglen, "%s", why ? why + 2 : ve.msg);
	*col = ve.code > 0 ? (size_t)ve.code - 1 : 0;
	return -1;
}

/* Sets version (exact pins) and the variant from the local version label. */
void req_derive_from_spec(struct pin *p)
{
	const char *s = p->pep440;
	if (!s)
		return;
	if (!strchr(s, ',') && !strchr(s, '*')) {
		if (!strncmp(s, "===", 3))
			req_set_str(&p->version, s + 3);
		else if (!strncmp(s, "==", 2))
			req_set_str(&p->version, s + 2);
	}
	if (!p->variant) {
		const char *plus = strchr(s, '+');
		if (plus) {
			size_t n = strcspn(plus + 1, ",");
			p->variant = variant_of_label(plus + 1, n);
			if (p->variant)
				req_set_str(&p->variant_from, "version");
		}
	}
}

/*
 * The PEP 508 parser, in the order a requirement is written:
 *   NAME [EXTRAS] (@ URL | SPECIFIER)? (; MARKERS)?
 * or, in pip files, a bare URL or archive path followed by "; MARKERS".
 * Each step reads from q->s at q->i and leaves q->i after what it read; on
 * error it sets the error (with the file position of the offending
 * character) and returns -1.
 */
struct pep508 {
	const struct req_ctx *r;
	char *s;        /* a NUL-terminated copy, cut after the last non-space */
	size_t i, len;  /* the cursor and the end of the requirement */
	struct pin *p;  /* the pin, once the name (or URL) has been read */
};

static void pep508_skip_spaces(struct pep508 *q)
{
	while (q->i < q->len && ascii_isspace((unsigned char)q->s[q->i]))
		q->i++;
}

/* Copies s0[0..n), refuses NUL bytes and empty requirements, trims it. */
static int pep508_text(struct pep508 *q, const char *s0, size_t n)
{
	q->s = xstrndup(s0, n);
	q->i = 0;
	q->len = n;
	if (strlen(q->s) != n)
		return req_ctx_err(q->r, strlen(q->s), "NUL byte in a requirement");
	pep508_skip_spaces(q);
	while (q->len > q->i && ascii_isspace((unsigned char)q->s[q->len - 1]))
		q->len--;
	q->s[q->len] = '\0';
	if (q->i == q->len)
		return req_ctx_err(q->r, q->i, "empty requirement");
	return 0;
}

/* A new pin at the current position. */
static int pep508_add_pin(struct pep508 *q)
{
	unsigned line, col;
	posmap_at(q->r->map, q->r->base + q->i, &line, &col);
	q->p = req_add_pin(q->r->f, line, col, q->r->source, q->r->err);
	return q->p ? 0 : -1;
}

/* pip: whether the requirement is a bare URL or a path to an archive. */
static int pep508_is_pip_url(const struct pep508 *q)
{
	const char *s = q->s + q->i;
	return q->r->pip && (is_url(s) || is_path_like(s, strcspn(s, " \t;")));
}

/* Reads a URL up to the next space into the pin (at least one character). */
static int pep508_url(struct pep508 *q, int egg_name)
{
	size_t u = q->i, ue = q->i;
	char *url;
	int rc;
	while (ue < q->len && !ascii_isspace((unsigned char)q->s[ue]))
		ue++;
	if (u == ue)
		return req_ctx_err(q->r, q->i, "expected a URL after '@'");
	url = xstrndup(q->s + u, ue - u);
	if (egg_name) {
		const char *egg = strstr(url, "#egg=");
		if (egg) {
			struct strbuf nb = STRBUF_INIT;
			req_normalize_name(egg + 5, strcspn(egg + 5, "&"), &nb);
			q->p->name = strbuf_detach(&nb);
		}
	}
	rc = req_apply_url(q->r, q->p, url, u);
	free(url);
	q->i = ue;
	return rc;
}

/* After `what` only "; markers" (or the end) may follow. */
static int pep508_only_markers_after(struct pep508 *q, const char *what)
{
	char ex[120];
	pep508_skip_spaces(q);
	if (q->i < q->len && q->s[q->i] != ';') {
		text_excerpt(q->s + q->i, q->len - q->i, sizeof(ex) - 4, ex, sizeof(ex));
		return req_ctx_err(q->r, q->i, "unexpected '%s' after %s", ex, what);
	}
	return 0;
}

/* After a URL: the ';' belongs to the URL unless a space comes first. */
static int pep508_after_url(struct pep508 *q)
{
	return pep508_only_markers_after(q, "the URL (markers go after ' ; ')");
}

/* pip: a bare URL or path (named by its #egg= fragment or its wheel file name). */
static int pep508_pip_url(struct pep508 *q)
{
	if (pep508_add_pin(q))
		return -1;
	q->p->raw = xstrdup(q->s + q->i);
	return pep508_url(q, 1) || pep508_after_url(q);
}

/* The project name, PEP 503-normalised; the pin starts here. */
static int pep508_name(struct pep508 *q)
{
	size_t start = q->i;
	struct strbuf nb = STRBUF_INIT;
	char ex[120];
	while (q->i < q->len && (ascii_isalnum((unsigned char)q->s[q->i]) || q->s[q->i] == '-' || q->s[q->i] == '_' ||
				 q->s[q->i] == '.'))
		q->i++;
	if (!valid_name_span(q->s + start, q->i - start)) {
		text_excerpt(q->s + start, q->len - start, sizeof(ex) - 4, ex, sizeof(ex));
		return req_ctx_err(q->r, start, "expected a package name at '%s'", ex);
	}
	{
		size_t end = q->i;
		q->i = start;
		if (pep508_add_pin(q))
			return -1;
		q->i = end;
	}
	q->p->raw = xstrdup(q->s + start);
	req_normalize_name(q->s + start, q->i - start, &nb);
	q->p->name = strbuf_detach(&nb);
	if (q->r->group)
		q->p->group = xstrdup(q->r->group);
	pep508_skip_spaces(q);
	return 0;
}

/* "[extra, other]": names, stored without spaces ("extra,other"); "[]" is none. */
static int pep508_extras(struct pep508 *q)
{
	struct pin *p = q->p;
	size_t e, k;
	if (q->i == q->len || q->s[q->i] != '[')
		return 0;
	for (e = q->i + 1; e < q->len && q->s[e] != ']'; e++)
		;
	if (e == q->len)
		return req_ctx_err(q->r, q->i, "unterminated extras (missing ']')");
	p->extras = req_strip_spaces(q->s + q->i + 1, e - q->i - 1);
	for (k = 0; p->extras[k];) {
		size_t m = strcspn(p->extras + k, ",");
		if (!valid_name_span(p->extras + k, m))
			return req_ctx_err(q->r, q->i, "invalid extras '[%s]'", p->extras);
		k += m;
		if (p->extras[k] == ',')
			k++;
	}
	if (!p->extras[0]) {
		free(p->extras);
		p->extras = NULL;
	}
	q->i = e + 1;
	pep508_skip_spaces(q);
	return 0;
}

/* "@ URL": a direct reference. */
static int pep508_direct_reference(struct pep508 *q)
{
	q->i++;
	pep508_skip_spaces(q);
	return pep508_url(q, 0) || pep508_after_url(q);
}

/* Where a bad clause of the specifier s[a..e) is, and why, as the error. */
static int pep508_bad_specifier(struct pep508 *q, size_t a, size_t bad)
{
	const char *s = q->s;
	size_t bl = strcspn(s + a + bad, ",;)");
	char ex[120];
	while (bl && ascii_isspace((unsigned char)s[a + bad + bl - 1]))
		bl--;
	text_excerpt(s + a + bad, bl, sizeof(ex) - 4, ex, sizeof(ex));
	if (ascii_isdigit((unsigned char)s[a + bad]))
		return req_ctx_err(q->r, a + bad,
				   "invalid version specifier '%s' (an operator such as == or >= must come first)", ex);
	return req_ctx_err(q->r, a + bad, "invalid version specifier '%s' (expected e.g. ==2.4.0 or >=2.4,<2.6)", ex);
}

/* The specifier s[a..e) as PEP 440 says it: p->pep440, or the error at the offending character. */
static int pep508_pep440(struct pep508 *q, size_t a, size_t e)
{
	struct pin *p = q->p;
	char why[ERR_MSG_MAX], ex[120];
	size_t bad_col, k = a, seen = 0;
	p->pep440 = xstrdup(p->spec);
	p->form = PIN_FORM_SPEC;
	if (!req_pep440_check(p->spec, why, sizeof(why), &bad_col))
		return 0;
	if (!pin_is_torch(p)) {
		/*
		 * Only torch's specifiers are judged: another package's that PEP 440
		 * cannot order here (numpy==99999999999999999999, which pip accepts)
		 * is kept as text and must not fail the gate.
		 */
		free(p->pep440);
		p->pep440 = NULL;
		return 0;
	}
	/* bad_col counts the specifier without its spaces: find that character in s */
	while (k < e && (seen < bad_col || ascii_isspace((unsigned char)q->s[k]))) {
		if (!ascii_isspace((unsigned char)q->s[k]))
			seen++;
		k++;
	}
	text_excerpt(p->spec, strlen(p->spec), sizeof(ex) - 4, ex, sizeof(ex));
	return req_ctx_err(q->r, k, "invalid version specifier '%s': %s", ex, why);
}

/* A version specifier, bare or in parentheses (PEP 508 allows both), up to ';'. */
static int pep508_specifier(struct pep508 *q)
{
	struct pin *p = q->p;
	size_t a = q->i, e, bad;
	if (q->s[q->i] == '(') {
		a = q->i + 1;
		for (e = a; e < q->len && q->s[e] != ')'; e++)
			;
		if (e == q->len)
			return req_ctx_err(q->r, q->i, "unterminated '(' in the version specifier");
		q->i = e + 1;
	} else {
		for (e = a; e < q->len && q->s[e] != ';'; e++)
			;
		q->i = e;
	}
	bad = req_check_specifier(q->s + a, e - a);
	if (bad != (size_t)-1)
		return pep508_bad_specifier(q, a, bad);
	p->spec = req_strip_spaces(q->s + a, e - a);
	if (!p->spec[0]) {
		free(p->spec);
		p->spec = NULL;
	} else if (pep508_pep440(q, a, e)) {
		return -1;
	}
	req_derive_from_spec(p);
	return pep508_only_markers_after(q, "the version specifier");
}

/* What follows the name and extras: "@ URL", a specifier, or nothing. */
static int pep508_version(struct pep508 *q)
{
	if (q->i < q->len && q->s[q->i] == '@')
		return pep508_direct_reference(q);
	if (q->i < q->len && q->s[q->i] != ';')
		return pep508_specifier(q);
	return 0;
}

/* At the end or at ';': the environment markers after it, checked for syntax. */
static int pep508_markers(struct pep508 *q)
{
	char ex[120];
	if (q->i == q->len)
		return 0;
	q->i++; /* ';' */
	pep508_skip_spaces(q);
	if (q->i == q->len)
		return req_ctx_err(q->r, q->i, "empty environment marker after ';'");
	q->p->markers = xstrdup(q->s + q->i);
	if (req_markers_on_windows(q->p->markers) == -2) {
		text_excerpt(q->s + q->i, q->len - q->i, sizeof(ex) - 4, ex, sizeof(ex));
		return req_ctx_err(q->r, q->i, "invalid environment marker '%s'", ex);
	}
	return 0;
}

/*
 * Parses one requirement s[0..n) (already free of pip options and comments)
 * and appends it as a pin. off 0 of s is at r->base in r->map.
 */
int req_parse_pep508(const struct req_ctx *r, const char *s0, size_t n, struct pin **out)
{
	struct pep508 q = { r, NULL, 0, 0, NULL };
	int rc;

	if (pep508_text(&q, s0, n))
		rc = -1;
	else if (pep508_is_pip_url(&q))
		rc = pep508_pip_url(&q) || pep508_markers(&q) ? -1 : 0;
	else
		rc = pep508_name(&q) || pep508_extras(&q) || pep508_version(&q) || pep508_markers(&q) ? -1 : 0;
	if (!rc && !q.p->name)
		q.p->name = xstrdup("");
	free(q.s);
	if (out)
		*out = rc ? NULL : q.p;
	return rc;
}

/* One requirement in a TOML or YAML string at (line, col). */
int req_parse_string(struct req_file *f, const char *s, unsigned line, unsigned col,
		     enum pin_source src, const char *group, struct pin **out, struct err *err)
{
	struct posmap map = { NULL, 0, 0 };
	struct req_ctx r;
	int rc;
	posmap_add(&map, 0, line, col);
	memset(&r, 0, sizeof(r));
	r.f = f;
	r.err = err;
	r.source = src;
	r.group = group;
	r.map = &map;
	rc = req_parse_pep508(&r, s, strlen(s), out);
	free(map.v);
	return rc;
}

/* ---------- includes and indexes ---------- */

/* Joins dir(path) and a relative include target, resolving "." and ".."; NULL if it leaves the tree. */
static char *resolve_include(const char *from, const char *target)
{
	struct strlist parts = STRLIST_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *b = req_basename(from);
	char *joined, *p, *save;
	size_t i;

	if (is_url(target) || target[0] == '/' || target[0] == '\\' || target[0] == '~' ||
	    (target[0] && target[1] == ':') || strchr(target, '$'))
		return NULL;
	joined = xasprintf("%.*s%s", (int)(b - from), from, target);
	for (p = joined; *p; p++)
		if (*p == '\\')
			*p = '/';
	for (p = strtok_r(joined, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (!strcmp(p, "."))
			continue;
		if (!strcmp(p, "..")) {
			if (!parts.n) {
				free(joined);
				strlist_release(&parts);
				return NULL;
			}
			free(parts.v[--parts.n]);
			continue;
		}
		strlist_push(&parts, p);
	}
	free(joined);
	for (i = 0; i < parts.n; i++) {
		if (i)
			strbuf_addch(&out, '/');
		strbuf_adds(&out, parts.v[i]);
	}
	strlist_release(&parts);
	if (!out.len) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out);
}

int req_add_include(struct req_file *f, const struct req_ctx *r, size_t off, const char *target, int constraint)
{
	struct req_include *inc;
	unsigned line, col;
	if (f->n_inc >= REQ_MAX_INCLUDES)
		return req_ctx_err(r, off, "more than %d includes in one file", REQ_MAX_INCLUDES);
	posmap_at(r->map, r->base + off, &line, &col);
	ALLOC_GROW(f->inc, f->n_inc + 1, f->alloc_inc);
	inc = &f->inc[f->n_inc++];
	memset(inc, 0, sizeof(*inc));
	inc->line = line;
	inc->col = col;
	inc->target = xstrdup(target);
	inc->resolved = resolve_include(f->path, target);
	inc->constraint = constraint;
	return 0;
}

void req_set_index(struct pin *p, const char *url)
{
	if (!url)
		return;
	req_set_str(&p->index_url, url);
	if (!p->variant) {
		p->variant = req_variant_of_url(url);
		if (p->variant)
			req_set_str(&p->variant_from, "index");
	}
}
