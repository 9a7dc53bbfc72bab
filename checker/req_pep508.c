/*
 * requirements: parsers for the files people pin torch in (see
 * requirements.h for the formats and where we depart from pip, conda,
 * Poetry and uv).
 *
 * Every parser works on a length-delimited buffer: the text formats are
 * first checked for NUL bytes and split into lines by index, never by
 * pointer arithmetic past `len`. A requirement string always reaches the
 * one PEP 508 parser (parse_pep508) together with a position map, so a pin
 * found inside a joined continuation line, a TOML string or a YAML scalar
 * still gets the line and column of its first character in the file.
 *
 * Sources: pip's requirements file format and its req_file.py (comment
 * regex "(^|\s+)#.*$", line joining before comment stripping, options per
 * line); PEP 508 (dependency specifiers and markers), PEP 440, PEP 503 (name
 * normalisation), PEP 427 (wheel file names), PEP 621, PEP 735; conda's
 * MatchSpec (https://docs.conda.io/projects/conda/en/stable/user-guide/
 * concepts/pkg-search.html: `=1.17` is fuzzy 1.17.*, `==` exact); Poetry's
 * caret/tilde rules (https://python-poetry.org/docs/dependency-specification/).
 */
#include "requirements.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "toml.h"
#include "version.h"

/* ---------- small helpers ---------- */

static int is_alnum(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static char *trim_dup(const char *s, size_t n)
{
	while (n && is_space((unsigned char)*s))
		s++, n--;
	while (n && is_space((unsigned char)s[n - 1]))
		n--;
	return xstrndup(s, n);
}

static const char *basename_of(const char *path)
{
	const char *b = path, *p;
	for (p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	return b;
}

/* "PATH:LINE:COL: message" */
static int ferr(const struct req_file *f, struct err *err, unsigned line, unsigned col, const char *fmt, ...)
	ERR_PRINTF(5, 6);

static int ferr(const struct req_file *f, struct err *err, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(err, "%s:%u:%u: %s", f->path, line, col, msg);
}

/* A short, printable excerpt of untrusted text for error messages. */
static void excerpt(char *out, size_t outlen, const char *s, size_t n)
{
	size_t i, o = 0;
	for (i = 0; i < n && o + 4 < outlen; i++) {
		unsigned char c = (unsigned char)s[i];
		out[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	if (i < n && o + 4 <= outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/* ---------- names, kinds, variants ---------- */

enum req_kind req_kind_of_path(const char *path)
{
	const char *b = basename_of(path);
	size_t blen = strlen(b);
	int txt = str_iendswith(b, ".txt") || str_iendswith(b, ".in");

	if (!strcmp(b, "pyproject.toml"))
		return REQ_PYPROJECT;
	if (!strcmp(b, "setup.cfg"))
		return REQ_SETUP_CFG;
	if (!strcmp(b, "Pipfile"))
		return REQ_PIPFILE;
	if (!strcmp(b, "uv.lock"))
		return REQ_UV_LOCK;
	if (!strcmp(b, "poetry.lock"))
		return REQ_POETRY_LOCK;
	if (!strcmp(b, "pdm.lock"))
		return REQ_PDM_LOCK;
	if ((str_istartswith(b, "environment") || str_istartswith(b, "conda")) &&
	    (str_iendswith(b, ".yml") || str_iendswith(b, ".yaml")))
		return REQ_CONDA;
	if (txt && strstr(b, "constraints"))
		return REQ_CONSTRAINTS;
	if (txt && strstr(b, "requirements"))
		return REQ_REQUIREMENTS;
	/* requirements/base.txt, requirements/windows.in */
	if (txt && blen < strlen(path)) {
		size_t dlen = (size_t)(b - path) - 1;
		const char *d = path;
		size_t i;
		for (i = 0; i < dlen; i++)
			if (path[i] == '/' || path[i] == '\\')
				d = path + i + 1;
		if ((size_t)(b - 1 - d) == strlen("requirements") && !strncmp(d, "requirements", 12))
			return REQ_REQUIREMENTS;
	}
	return REQ_NONE;
}

const char *req_kind_name(enum req_kind k)
{
	switch (k) {
	case REQ_NONE: return "none";
	case REQ_REQUIREMENTS: return "requirements";
	case REQ_CONSTRAINTS: return "constraints";
	case REQ_PYPROJECT: return "pyproject";
	case REQ_CONDA: return "conda";
	case REQ_SETUP_CFG: return "setup.cfg";
	case REQ_PIPFILE: return "pipfile";
	case REQ_UV_LOCK: return "uv.lock";
	case REQ_POETRY_LOCK: return "poetry.lock";
	case REQ_PDM_LOCK: return "pdm.lock";
	}
	return "?";
}

const char *pin_source_name(enum pin_source s)
{
	switch (s) {
	case PIN_SRC_REQUIREMENTS: return "requirements";
	case PIN_SRC_CONSTRAINTS: return "constraints";
	case PIN_SRC_PROJECT: return "project";
	case PIN_SRC_OPTIONAL: return "optional-dependencies";
	case PIN_SRC_GROUP: return "dependency-groups";
	case PIN_SRC_BUILD: return "build-system";
	case PIN_SRC_POETRY: return "poetry";
	case PIN_SRC_UV: return "uv";
	case PIN_SRC_PIPFILE: return "pipfile";
	case PIN_SRC_CONDA: return "conda";
	case PIN_SRC_CONDA_PIP: return "conda-pip";
	case PIN_SRC_SETUP_CFG: return "setup.cfg";
	case PIN_SRC_LOCK: return "lock";
	}
	return "?";
}

const char *pin_form_name(enum pin_form f)
{
	switch (f) {
	case PIN_FORM_NAME: return "name";
	case PIN_FORM_SPEC: return "specifier";
	case PIN_FORM_URL: return "url";
	case PIN_FORM_WHEEL: return "wheel";
	case PIN_FORM_LOCKED: return "locked";
	}
	return "?";
}

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
	if (n >= 3 && !strncmp(s, "cu", 2) && is_digit((unsigned char)s[2])) {
		for (i = 2; i < n && is_digit((unsigned char)s[i]); i++)
			;
		return xstrndup(s, i);
	}
	if (n >= 3 && !strncmp(s, "cpu", 3) && (n == 3 || s[3] == '.' || s[3] == '-' || s[3] == '_'))
		return xstrdup("cpu");
	if (n >= 5 && !strncmp(s, "rocm", 4) && is_digit((unsigned char)s[4])) {
		for (i = 4; i < n && (is_digit((unsigned char)s[i]) || s[i] == '.'); i++)
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
		excerpt(ex, sizeof(ex), strbuf_str(&fn), fn.len);
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
		excerpt(ex, sizeof(ex), fn.buf, fn.len);
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

/* ---------- Poetry constraints as PEP 440 ---------- */

/* Numeric release parts of v ("2.4.1" -> {2,4,1}); -1 if v is not plain digits and dots. */
static int release_parts(const char *v, long *parts, int max)
{
	int n = 0;
	while (*v) {
		long x = 0;
		int digits = 0;
		while (is_digit((unsigned char)*v)) {
			if (x > 100000000)
				return -1;
			x = x * 10 + (*v - '0');
			v++;
			digits++;
		}
		if (!digits || n == max)
			return -1;
		parts[n++] = x;
		if (*v == '.')
			v++;
		else if (*v)
			return -1;
	}
	return n;
}

static int poetry_clause(struct strbuf *out, const char *c)
{
	long parts[8];
	int n, i;
	if (!strcmp(c, "*"))
		return 0;
	if (out->len)
		strbuf_addch(out, ',');
	if (c[0] == '^' || (c[0] == '~' && c[1] != '=')) {
		const char *v = c + 1;
		n = release_parts(v, parts, 8);
		if (n < 1)
			return -1;
		strbuf_addf(out, ">=%s,<", v);
		if (c[0] == '^') {
			/* The first non-zero part is bumped; ^0.0 bumps the last given part. */
			int k = 0;
			while (k < n - 1 && parts[k] == 0)
				k++;
			for (i = 0; i < k; i++)
				strbuf_addf(out, "%ld.", parts[i]);
			strbuf_addf(out, "%ld", parts[k] + 1);
			for (i = k + 1; i < (n > 2 ? n : 2); i++)
				strbuf_adds(out, ".0");
		} else {
			int k = n >= 2 ? 1 : 0;
			for (i = 0; i < k; i++)
				strbuf_addf(out, "%ld.", parts[i]);
			strbuf_addf(out, "%ld", parts[k] + 1);
			for (i = k + 1; i < (n > 2 ? n : 2); i++)
				strbuf_adds(out, ".0");
		}
		return 0;
	}
	if (strchr("<>=!~", c[0])) {
		strbuf_adds(out, c);
		return 0;
	}
	if (is_digit((unsigned char)c[0])) {
		strbuf_addf(out, "==%s", c);
		return 0;
	}
	return -1;
}

char *req_poetry_to_pep440(const char *spec)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = spec;
	if (!spec || strstr(spec, "||") || strchr(spec, '|'))
		return NULL;
	while (*p) {
		char clause[256];
		size_t n = 0;
		while (*p == ',' || is_space((unsigned char)*p))
			p++;
		if (!*p)
			break;
		/* A clause ends at ',' or at a space that is not between an operator and its version. */
		while (*p && *p != ',' && n + 1 < sizeof(clause)) {
			if (is_space((unsigned char)*p)) {
				if (n && strchr("<>=!~^", clause[n - 1])) {
					p++;
					continue;
				}
				break;
			}
			clause[n++] = *p++;
		}
		if (n + 1 >= sizeof(clause)) {
			strbuf_release(&out);
			return NULL;
		}
		clause[n] = '\0';
		if (poetry_clause(&out, clause)) {
			strbuf_release(&out);
			return NULL;
		}
	}
	if (!out.len) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out);
}

/* ---------- PEP 508 markers, evaluated for a Windows x64 CPython runner ---------- */

struct mk {
	const char *s;
	size_t pos;
	int depth;
	int bad;
};

static void mk_ws(struct mk *m)
{
	while (is_space((unsigned char)m->s[m->pos]))
		m->pos++;
}

static int mk_word(struct mk *m, const char *w)
{
	size_t n = strlen(w);
	mk_ws(m);
	if (!strncmp(m->s + m->pos, w, n) && !is_alnum((unsigned char)m->s[m->pos + n]) &&
	    m->s[m->pos + n] != '_' && m->s[m->pos + n] != '.') {
		m->pos += n;
		return 1;
	}
	return 0;
}

static const char *const marker_vars[][2] = {
	{ "sys_platform", "win32" },          { "sys.platform", "win32" },
	{ "platform_system", "Windows" },     { "os_name", "nt" },
	{ "os.name", "nt" },                  { "platform_machine", "AMD64" },
	{ "platform.machine", "AMD64" },      { "implementation_name", "cpython" },
	{ "platform_python_implementation", "CPython" },
	{ "platform.python_implementation", "CPython" },
	{ "python_version", NULL },           { "python_full_version", NULL },
	{ "platform_release", NULL },         { "platform_version", NULL },
	{ "platform.version", NULL },         { "implementation_version", NULL },
	{ "extra", NULL },                    { "dependency_groups", NULL },
	{ "extras", NULL },
};

/* A marker value: a quoted string or a variable. *known = 0 if its value is unknown on Windows. */
static int mk_value(struct mk *m, char *buf, size_t buflen, int *known)
{
	const char *s = m->s;
	size_t i, n = 0;
	mk_ws(m);
	if (s[m->pos] == '"' || s[m->pos] == '\'') {
		char q = s[m->pos++];
		while (s[m->pos] && s[m->pos] != q) {
			if (n + 1 < buflen)
				buf[n++] = s[m->pos];
			m->pos++;
		}
		if (!s[m->pos])
			return -1;
		m->pos++;
		buf[n] = '\0';
		*known = 1;
		return 0;
	}
	while (is_alnum((unsigned char)s[m->pos]) || s[m->pos] == '_' || s[m->pos] == '.') {
		if (n + 1 < buflen)
			buf[n++] = s[m->pos];
		m->pos++;
	}
	buf[n] = '\0';
	for (i = 0; i < sizeof(marker_vars) / sizeof(marker_vars[0]); i++) {
		if (!strcmp(buf, marker_vars[i][0])) {
			if (marker_vars[i][1]) {
				snprintf(buf, buflen, "%s", marker_vars[i][1]);
				*known = 1;
			} else {
				*known = 0;
			}
			return 0;
		}
	}
	return -1;
}

static int mk_or(struct mk *m);

static int mk_atom(struct mk *m)
{
	char a[256], b[256], op[4] = "";
	int ka, kb, r;
	mk_ws(m);
	if (m->s[m->pos] == '(') {
		if (++m->depth > 32)
			return m->bad = 1, -1;
		m->pos++;
		r = mk_or(m);
		mk_ws(m);
		if (m->s[m->pos] != ')')
			return m->bad = 1, -1;
		m->pos++;
		m->depth--;
		return r;
	}
	if (mk_value(m, a, sizeof(a), &ka))
		return m->bad = 1, -1;
	mk_ws(m);
	{
		static const char *const ops[] = { "===", "==", "!=", "<=", ">=", "~=", "<", ">" };
		size_t i;
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			if (!strncmp(m->s + m->pos, ops[i], strlen(ops[i]))) {
				snprintf(op, sizeof(op), "%s", ops[i]);
				m->pos += strlen(ops[i]);
				break;
			}
		}
		if (!op[0]) {
			if (mk_word(m, "in"))
				snprintf(op, sizeof(op), "in");
			else if (mk_word(m, "not") && mk_word(m, "in"))
				snprintf(op, sizeof(op), "!in");
			else
				return m->bad = 1, -1;
		}
	}
	if (mk_value(m, b, sizeof(b), &kb))
		return m->bad = 1, -1;
	if (!ka || !kb)
		return -1;
	if (!strcmp(op, "==") || !strcmp(op, "==="))
		return !strcmp(a, b);
	if (!strcmp(op, "!="))
		return !!strcmp(a, b);
	if (!strcmp(op, "in"))
		return strstr(b, a) != NULL;
	if (!strcmp(op, "!in"))
		return strstr(b, a) == NULL;
	return -1; /* version comparisons of platform strings: not worth guessing */
}

static int mk_and(struct mk *m)
{
	int r = mk_atom(m);
	while (!m->bad && mk_word(m, "and")) {
		int s = mk_atom(m);
		if (r == 0 || s == 0)
			r = 0;
		else if (r == -1 || s == -1)
			r = -1;
	}
	return r;
}

static int mk_or(struct mk *m)
{
	int r = mk_and(m);
	while (!m->bad && mk_word(m, "or")) {
		int s = mk_and(m);
		if (r == 1 || s == 1)
			r = 1;
		else if (r == -1 || s == -1)
			r = -1;
	}
	return r;
}

int req_markers_on_windows(const char *markers)
{
	struct mk m = { markers, 0, 0, 0 };
	int r;
	if (!markers)
		return 1;
	mk_ws(&m);
	if (!markers[m.pos])
		return 1;
	r = mk_or(&m);
	mk_ws(&m);
	if (m.bad || markers[m.pos])
		return -2;
	return r;
}

/* ---------- pins ---------- */

static void pin_release(struct pin *p)
{
	free(p->file);
	free(p->raw);
	free(p->name);
	free(p->extras);
	free(p->spec);
	free(p->pep440);
	free(p->version);
	free(p->variant);
	free(p->variant_from);
	free(p->markers);
	free(p->url);
	free(p->index_url);
	free(p->python_tag);
	free(p->abi_tag);
	free(p->platform_tag);
	free(p->group);
	free(p->channel);
}

void req_file_release(struct req_file *f)
{
	size_t i;
	for (i = 0; i < f->n_pins; i++)
		pin_release(&f->pins[i]);
	free(f->pins);
	for (i = 0; i < f->n_inc; i++) {
		free(f->inc[i].target);
		free(f->inc[i].resolved);
	}
	free(f->inc);
	strlist_release(&f->indexes);
	free(f->path);
	free(f->included_by);
	memset(f, 0, sizeof(*f));
}

int pin_is_torch(const struct pin *p)
{
	if (!p->name)
		return 0;
	if (!strcmp(p->name, "torch"))
		return 1;
	return !strcmp(p->name, "pytorch") && (p->source == PIN_SRC_CONDA);
}

static struct pin *add_pin(struct req_file *f, unsigned line, unsigned col, enum pin_source src,
			   struct err *err)
{
	struct pin *p;
	if (f->n_pins >= REQ_MAX_PINS) {
		ferr(f, err, line, col, "more than %d pins in one file", REQ_MAX_PINS);
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

static void set_str(char **dst, const char *s)
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

struct seg {
	size_t off;
	unsigned line, col;
};

struct posmap {
	struct seg *v;
	size_t n, alloc;
};

static void posmap_add(struct posmap *m, size_t off, unsigned line, unsigned col)
{
	ALLOC_GROW(m->v, m->n + 1, m->alloc);
	m->v[m->n].off = off;
	m->v[m->n].line = line;
	m->v[m->n].col = col;
	m->n++;
}

static void posmap_at(const struct posmap *m, size_t off, unsigned *line, unsigned *col)
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

struct rctx {
	struct req_file *f;
	struct err *err;
	enum pin_source source;
	const char *group;
	const struct posmap *map;
	size_t base;            /* offset of the string within the posmap's text */
	int pip;                /* pip forms allowed: bare URLs and paths */
};

static int rerr(const struct rctx *r, size_t off, const char *fmt, ...) ERR_PRINTF(3, 4);

static int rerr(const struct rctx *r, size_t off, const char *fmt, ...)
{
	char msg[ERR_MSG_MAX];
	unsigned line, col;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	posmap_at(r->map, r->base + off, &line, &col);
	return ferr(r->f, r->err, line, col, "%s", msg);
}

static int is_url(const char *s)
{
	size_t i = 0;
	if (!strncmp(s, "file:", 5))
		return 1;
	while (is_alnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.')
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
	if (!n || !is_alnum((unsigned char)s[0]) || !is_alnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++)
		if (!is_alnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
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
	set_str(&p->version, w->version);
	set_str(&p->python_tag, w->python_tag);
	set_str(&p->abi_tag, w->abi_tag);
	set_str(&p->platform_tag, w->platform_tag);
	set_owned(&p->pep440, xasprintf("==%s", w->version));
	if (!p->variant) {
		p->variant = req_variant_of_version(w->version);
		if (p->variant)
			set_str(&p->variant_from, "wheel");
	}
	p->form = PIN_FORM_WHEEL;
}

/* Fills a pin's URL, form and (for wheels) version and tags. */
static int apply_url(const struct rctx *r, struct pin *p, const char *url, size_t url_off)
{
	set_str(&p->url, url);
	if (is_wheel_ref(url)) {
		struct wheel_name w;
		struct err e;
		if (wheel_name_parse(&w, url, &e))
			return rerr(r, url_off, "%s", e.msg);
		fill_from_wheel(p, &w);
		wheel_name_release(&w);
	} else {
		p->form = PIN_FORM_URL;
		if (!p->variant) {
			p->variant = req_variant_of_url(url);
			if (p->variant)
				set_str(&p->variant_from, "url");
		}
	}
	return 0;
}

/* Checks a specifier list ("==2.4.0", ">=2.4,<2.6", "~=2.5.0", "==2.4.*"); returns the
 * offset of the bad clause or (size_t)-1 if all are good. */
static size_t check_specifier(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t start, v;
		while (i < n && is_space((unsigned char)s[i]))
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
		while (i < n && is_space((unsigned char)s[i]))
			i++;
		v = i;
		while (i < n && (is_alnum((unsigned char)s[i]) || strchr(".*+!_-", s[i])))
			i++;
		if (i == v)
			return start;
		while (i < n && is_space((unsigned char)s[i]))
			i++;
		if (i < n && s[i] != ',')
			return start;
		if (i < n)
			i++;
	}
	return (size_t)-1;
}

static char *strip_spaces(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	for (i = 0; i < n; i++)
		if (!is_space((unsigned char)s[i]))
			strbuf_addch(&sb, s[i]);
	return strbuf_detach(&sb);
}

/*
 * Validates a PEP 440 specifier with the version module. On error, *msg gets
 * its reason without the "at column N" part and *col the 0-based offset of
 * the offending character within the specifier text as parsed.
 */
static int pep440_check(const char *spec, char *msg, size_t msglen, size_t *col)
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
static void derive_from_spec(struct pin *p)
{
	const char *s = p->pep440;
	if (!s)
		return;
	if (!strchr(s, ',') && !strchr(s, '*')) {
		if (!strncmp(s, "===", 3))
			set_str(&p->version, s + 3);
		else if (!strncmp(s, "==", 2))
			set_str(&p->version, s + 2);
	}
	if (!p->variant) {
		const char *plus = strchr(s, '+');
		if (plus) {
			size_t n = strcspn(plus + 1, ",");
			p->variant = variant_of_label(plus + 1, n);
			if (p->variant)
				set_str(&p->variant_from, "version");
		}
	}
}

/*
 * Parses one requirement s[0..n) (already free of pip options and comments)
 * and appends it as a pin. off 0 of s is at r->base in r->map.
 */
static int parse_pep508(const struct rctx *r, const char *s0, size_t n, struct pin **out)
{
	char *s = xstrndup(s0, n);
	size_t i = 0, name_start, name_end, len = n;
	struct strbuf nb = STRBUF_INIT;
	struct pin *p = NULL;
	unsigned line, col;
	int rc = -1;
	char ex[120];

	if (strlen(s) != n) {
		rerr(r, strlen(s), "NUL byte in a requirement");
		goto out;
	}
	while (i < len && is_space((unsigned char)s[i]))
		i++;
	while (len > i && is_space((unsigned char)s[len - 1]))
		len--;
	s[len] = '\0';
	if (i == len) {
		rerr(r, i, "empty requirement");
		goto out;
	}
	posmap_at(r->map, r->base + i, &line, &col);

	/* pip: a bare URL or a path to an archive, optionally followed by "; markers". */
	if (r->pip && (is_url(s + i) || is_path_like(s + i, strcspn(s + i, " \t;")))) {
		size_t u = i, ue = i;
		while (ue < len && !is_space((unsigned char)s[ue]))
			ue++;
		/* "url;marker" without a space: the ';' belongs to the URL only if no space follows */
		p = add_pin(r->f, line, col, r->source, r->err);
		if (!p)
			goto out;
		p->raw = xstrdup(s + i);
		{
			char *url = xstrndup(s + u, ue - u);
			const char *egg = strstr(url, "#egg=");
			if (egg) {
				size_t en = strcspn(egg + 5, "&");
				req_normalize_name(egg + 5, en, &nb);
				p->name = strbuf_detach(&nb);
			}
			if (apply_url(r, p, url, u)) {
				free(url);
				goto out;
			}
			free(url);
		}
		i = ue;
		while (i < len && is_space((unsigned char)s[i]))
			i++;
		if (i < len) {
			if (s[i] != ';') {
				excerpt(ex, sizeof(ex), s + i, len - i);
				rerr(r, i, "unexpected '%s' after the URL (markers go after ' ; ')", ex);
				goto out;
			}
			i++;
			goto markers;
		}
		if (!p->name)
			p->name = xstrdup("");
		rc = 0;
		goto out;
	}

	name_start = i;
	while (i < len && (is_alnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.'))
		i++;
	name_end = i;
	if (!valid_name_span(s + name_start, name_end - name_start)) {
		excerpt(ex, sizeof(ex), s + name_start, len - name_start);
		rerr(r, name_start, "expected a package name at '%s'", ex);
		goto out;
	}
	p = add_pin(r->f, line, col, r->source, r->err);
	if (!p)
		goto out;
	p->raw = xstrdup(s + name_start);
	req_normalize_name(s + name_start, name_end - name_start, &nb);
	p->name = strbuf_detach(&nb);
	if (r->group)
		p->group = xstrdup(r->group);

	while (i < len && is_space((unsigned char)s[i]))
		i++;
	if (i < len && s[i] == '[') {
		size_t e = i + 1, k;
		while (e < len && s[e] != ']')
			e++;
		if (e == len) {
			rerr(r, i, "unterminated extras (missing ']')");
			goto out;
		}
		p->extras = strip_spaces(s + i + 1, e - i - 1);
		for (k = 0; p->extras[k];) {
			size_t m = strcspn(p->extras + k, ",");
			if (!valid_name_span(p->extras + k, m)) {
				rerr(r, i, "invalid extras '[%s]'", p->extras);
				goto out;
			}
			k += m;
			if (p->extras[k] == ',')
				k++;
		}
		if (!p->extras[0]) {
			free(p->extras);
			p->extras = NULL;
		}
		i = e + 1;
		while (i < len && is_space((unsigned char)s[i]))
			i++;
	}

	if (i < len && s[i] == '@') {
		size_t u, ue;
		i++;
		while (i < len && is_space((unsigned char)s[i]))
			i++;
		u = ue = i;
		while (ue < len && !is_space((unsigned char)s[ue]))
			ue++;
		if (u == ue) {
			rerr(r, i, "expected a URL after '@'");
			goto out;
		}
		{
			char *url = xstrndup(s + u, ue - u);
			if (apply_url(r, p, url, u)) {
				free(url);
				goto out;
			}
			free(url);
		}
		i = ue;
		while (i < len && is_space((unsigned char)s[i]))
			i++;
		if (i < len && s[i] != ';') {
			excerpt(ex, sizeof(ex), s + i, len - i);
			rerr(r, i, "unexpected '%s' after the URL (markers go after ' ; ')", ex);
			goto out;
		}
	} else if (i < len && s[i] != ';') {
		size_t a = i, e, bad;
		int paren = s[i] == '(';
		if (paren) {
			a = i + 1;
			e = a;
			while (e < len && s[e] != ')')
				e++;
			if (e == len) {
				rerr(r, i, "unterminated '(' in the version specifier");
				goto out;
			}
			i = e + 1;
		} else {
			e = a;
			while (e < len && s[e] != ';')
				e++;
			i = e;
		}
		bad = check_specifier(s + a, e - a);
		if (bad != (size_t)-1) {
			size_t bl = strcspn(s + a + bad, ",;)");
			while (bl && is_space((unsigned char)s[a + bad + bl - 1]))
				bl--;
			excerpt(ex, sizeof(ex), s + a + bad, bl);
			if (is_digit((unsigned char)s[a + bad]))
				rerr(r, a + bad, "invalid version specifier '%s' (an operator such as == or >= must come first)", ex);
			else
				rerr(r, a + bad, "invalid version specifier '%s' (expected e.g. ==2.4.0 or >=2.4,<2.6)", ex);
			goto out;
		}
		p->spec = strip_spaces(s + a, e - a);
		if (!p->spec[0]) {
			free(p->spec);
			p->spec = NULL;
		} else {
			char why[ERR_MSG_MAX];
			size_t bad_col, k = a, seen = 0;
			p->pep440 = xstrdup(p->spec);
			p->form = PIN_FORM_SPEC;
			if (pep440_check(p->spec, why, sizeof(why), &bad_col)) {
				/* bad_col counts the specifier without its spaces: find that character in s */
				while (k < e && (seen < bad_col || is_space((unsigned char)s[k]))) {
					if (!is_space((unsigned char)s[k]))
						seen++;
					k++;
				}
				excerpt(ex, sizeof(ex), p->spec, strlen(p->spec));
				rerr(r, k, "invalid version specifier '%s': %s", ex, why);
				goto out;
			}
		}
		derive_from_spec(p);
		while (i < len && is_space((unsigned char)s[i]))
			i++;
		if (i < len && s[i] != ';') {
			excerpt(ex, sizeof(ex), s + i, len - i);
			rerr(r, i, "unexpected '%s' after the version specifier", ex);
			goto out;
		}
	}
	if (i < len && s[i] == ';') {
		i++;
markers:
		while (i < len && is_space((unsigned char)s[i]))
			i++;
		if (i == len) {
			rerr(r, i, "empty environment marker after ';'");
			goto out;
		}
		p->markers = xstrdup(s + i);
		if (req_markers_on_windows(p->markers) == -2) {
			excerpt(ex, sizeof(ex), s + i, len - i);
			rerr(r, i, "invalid environment marker '%s'", ex);
			goto out;
		}
	}
	if (!p->name)
		p->name = xstrdup("");
	rc = 0;
out:
	strbuf_release(&nb);
	free(s);
	if (out)
		*out = rc ? NULL : p;
	return rc;
}

/* One requirement in a TOML or YAML string at (line, col). */
static int parse_string_req(struct req_file *f, const char *s, unsigned line, unsigned col,
			    enum pin_source src, const char *group, struct pin **out, struct err *err)
{
	struct posmap map = { NULL, 0, 0 };
	struct rctx r;
	int rc;
	posmap_add(&map, 0, line, col);
	memset(&r, 0, sizeof(r));
	r.f = f;
	r.err = err;
	r.source = src;
	r.group = group;
	r.map = &map;
	rc = parse_pep508(&r, s, strlen(s), out);
	free(map.v);
	return rc;
}

/* ---------- pip requirements files ---------- */

struct tok {
	size_t off, len;
};

static size_t tokenize(const char *s, size_t n, struct tok *t, size_t max)
{
	size_t i = 0, k = 0;
	while (i < n && k < max) {
		while (i < n && is_space((unsigned char)s[i]))
			i++;
		if (i == n)
			break;
		t[k].off = i;
		while (i < n && !is_space((unsigned char)s[i]))
			i++;
		t[k].len = i - t[k].off;
		k++;
	}
	return k;
}

/*
 * Matches option `shortopt`/`longopt` at token k: "-r FILE", "-rFILE",
 * "--requirement FILE", "--requirement=FILE". Returns 1 and sets the value's
 * offset/length, 0 if not this option, -1 if its value is missing.
 */
static int opt_match(const char *s, const struct tok *t, size_t nt, size_t *k, const char *shortopt,
		     const char *longopt, size_t *voff, size_t *vlen)
{
	const char *w = s + t[*k].off;
	size_t wl = t[*k].len;
	size_t ll = longopt ? strlen(longopt) : 0;
	if (longopt && wl >= ll && !strncmp(w, longopt, ll) && (wl == ll || w[ll] == '=')) {
		if (wl > ll) {
			*voff = t[*k].off + ll + 1;
			*vlen = wl - ll - 1;
			return 1;
		}
	} else if (shortopt && wl >= 2 && !strncmp(w, shortopt, 2) && w[1] != '-') {
		if (wl > 2) {
			*voff = t[*k].off + 2 + (w[2] == '=');
			*vlen = wl - 2 - (w[2] == '=');
			return 1;
		}
	} else {
		return 0;
	}
	if (*k + 1 >= nt)
		return -1;
	*k += 1;
	*voff = t[*k].off;
	*vlen = t[*k].len;
	return 1;
}

/* Joins dir(path) and a relative include target, resolving "." and ".."; NULL if it leaves the tree. */
static char *resolve_include(const char *from, const char *target)
{
	struct strlist parts = STRLIST_INIT;
	struct strbuf out = STRBUF_INIT;
	const char *b = basename_of(from);
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

static int add_include(struct req_file *f, const struct rctx *r, size_t off, const char *target, int constraint)
{
	struct req_include *inc;
	unsigned line, col;
	if (f->n_inc >= REQ_MAX_INCLUDES)
		return rerr(r, off, "more than %d includes in one file", REQ_MAX_INCLUDES);
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

#define MAX_TOKENS 256

/* A line of options ("-r base.txt", "--index-url URL --pre"). */
static int parse_option_line(struct req_file *f, const struct rctx *r, const char *s, size_t n)
{
	struct tok t[MAX_TOKENS];
	size_t nt = tokenize(s, n, t, MAX_TOKENS), k;
	char ex[120];
	for (k = 0; k < nt; k++) {
		size_t voff = 0, vlen = 0, at = t[k].off;
		int m;
		char *val;
		const char *w = s + t[k].off;
		size_t wl = t[k].len;
#define VALUE_OPT(sh, lo)                                                                       \
	(m = opt_match(s, t, nt, &k, sh, lo, &voff, &vlen)) != 0
		if (VALUE_OPT("-r", "--requirement") || VALUE_OPT("-c", "--constraint")) {
			int constraint = w[1] == 'c' || (wl > 3 && w[2] == 'c');
			if (m < 0)
				return rerr(r, at, "option %.*s needs a file name", (int)wl, w);
			val = xstrndup(s + voff, vlen);
			if (add_include(f, r, voff, val, constraint)) {
				free(val);
				return -1;
			}
			free(val);
		} else if (VALUE_OPT("-i", "--index-url") || VALUE_OPT(NULL, "--extra-index-url")) {
			if (m < 0)
				return rerr(r, at, "option %.*s needs a URL", (int)wl, w);
			strlist_push_owned(&f->indexes, xstrndup(s + voff, vlen));
		} else if (VALUE_OPT("-f", "--find-links")) {
			/* .../whl/cu121/torch_stable.html names a variant too; the page itself is not read */
			if (m < 0)
				return rerr(r, at, "option %.*s needs a URL or folder", (int)wl, w);
			strlist_push_owned(&f->indexes, xstrndup(s + voff, vlen));
		} else if (VALUE_OPT(NULL, "--trusted-host") ||
			   VALUE_OPT(NULL, "--use-feature") || VALUE_OPT(NULL, "--no-binary") ||
			   VALUE_OPT(NULL, "--only-binary") || VALUE_OPT(NULL, "--config-settings")) {
			if (m < 0)
				return rerr(r, at, "option %.*s needs a value", (int)wl, w);
		} else if (VALUE_OPT("-e", "--editable")) {
			struct pin *p;
			struct rctx rr = *r;
			if (m < 0)
				return rerr(r, at, "option %.*s needs a path or URL", (int)wl, w);
			rr.pip = 1;
			rr.base = r->base + voff;
			/* An editable path or VCS URL: recorded by its #egg= name when it has one. */
			if (parse_pep508(&rr, s + voff, vlen, &p))
				return -1;
			if (p->form == PIN_FORM_NAME)
				p->form = PIN_FORM_URL;
		} else if ((wl == 5 && !strncmp(w, "--pre", 5)) || (wl == 10 && !strncmp(w, "--no-index", 10)) ||
			   (wl == 15 && !strncmp(w, "--prefer-binary", 15)) ||
			   (wl == 16 && !strncmp(w, "--require-hashes", 16))) {
			/* flags that do not change which torch is pinned */
		} else {
			excerpt(ex, sizeof(ex), w, wl);
			return rerr(r, at, "unknown option '%s' in a requirements file", ex);
		}
#undef VALUE_OPT
	}
	return 0;
}

/*
 * One logical requirements line (comments removed), with per-requirement
 * options (--hash) after the requirement, as pip's break_args_options.
 */
static int parse_req_line(struct req_file *f, const struct rctx *r, const char *s, size_t n)
{
	struct tok t[MAX_TOKENS];
	size_t nt, k, req_end = n, first_opt = MAX_TOKENS;
	struct pin *p;
	char ex[120];
	size_t lead = 0;

	while (lead < n && is_space((unsigned char)s[lead]))
		lead++;
	if (lead == n)
		return 0;
	if (s[lead] == '-')
		return parse_option_line(f, r, s, n);
	nt = tokenize(s, n, t, MAX_TOKENS);
	if (nt == MAX_TOKENS)
		return rerr(r, 0, "more than %d words on one requirements line", MAX_TOKENS);
	for (k = 0; k < nt; k++) {
		if (s[t[k].off] == '-' && t[k].len > 1 && s[t[k].off + 1] == '-') {
			first_opt = k;
			req_end = t[k].off;
			break;
		}
	}
	if (parse_pep508(r, s, req_end, &p))
		return -1;
	for (k = first_opt; k < nt; k++) {
		size_t voff = 0, vlen = 0, at = t[k].off;
		const char *w = s + t[k].off;
		size_t wl = t[k].len;
		int m = opt_match(s, t, nt, &k, NULL, "--hash", &voff, &vlen);
		if (m > 0) {
			const char *colon = memchr(s + voff, ':', vlen);
			if (!colon || colon == s + voff || (size_t)(colon - (s + voff)) + 1 >= vlen)
				return rerr(r, voff, "--hash needs the form ALGORITHM:HEXDIGEST");
			p->n_hashes++;
			continue;
		}
		if (m < 0)
			return rerr(r, at, "option --hash needs a value");
		m = opt_match(s, t, nt, &k, NULL, "--config-settings", &voff, &vlen);
		if (!m)
			m = opt_match(s, t, nt, &k, NULL, "--global-option", &voff, &vlen);
		if (!m)
			m = opt_match(s, t, nt, &k, NULL, "--install-option", &voff, &vlen);
		if (m > 0)
			continue;
		if (m < 0)
			return rerr(r, at, "option %.*s needs a value", (int)wl, w);
		excerpt(ex, sizeof(ex), w, wl);
		return rerr(r, at, "unknown per-requirement option '%s' (pip allows --hash, --config-settings, --global-option)", ex);
	}
	return 0;
}

/* Cuts a pip comment: '#' at the start or after whitespace, with the whitespace before it. */
static size_t strip_comment(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		if (s[i] == '#' && (i == 0 || is_space((unsigned char)s[i - 1]))) {
			while (i && is_space((unsigned char)s[i - 1]))
				i--;
			return i;
		}
	}
	return n;
}

static int is_comment_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && is_space((unsigned char)s[i]))
		i++;
	return i < n && s[i] == '#';
}

/*
 * A requirements file, or the lines of a conda `- pip:` list. `first_line`
 * and `first_col` place buf's first byte in the real file.
 */
static int parse_requirements_text(struct req_file *f, const char *buf, size_t len, unsigned first_line,
				   unsigned first_col, enum pin_source src, struct err *err)
{
	struct strbuf logical = STRBUF_INIT;
	struct posmap map = { NULL, 0, 0 };
	struct rctx r;
	size_t pos = 0;
	unsigned line = first_line;
	int rc = 0, joining = 0;

	memset(&r, 0, sizeof(r));
	r.f = f;
	r.err = err;
	r.source = src;
	r.map = &map;
	r.pip = 1;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3;
	while (pos < len) {
		size_t eol = pos, n;
		unsigned col = line == first_line ? first_col : 1;
		const char *s = buf + pos;
		while (eol < len && buf[eol] != '\n')
			eol++;
		n = eol - pos;
		if (n && s[n - 1] == '\r')
			n--;
		if (!joining) {
			strbuf_reset(&logical);
			map.n = 0;
		}
		if (logical.len + n > REQ_MAX_LINE) {
			rc = ferr(f, err, line, 1, "line longer than %d bytes", REQ_MAX_LINE);
			break;
		}
		posmap_add(&map, logical.len, line, col);
		/* pip: a line ending in '\' continues on the next, unless it is a comment line. */
		if (n && s[n - 1] == '\\' && !is_comment_line(s, n)) {
			strbuf_add(&logical, s, n - 1);
			joining = 1;
		} else {
			strbuf_add(&logical, s, n);
			joining = 0;
			if (parse_req_line(f, &r, logical.buf, strip_comment(logical.buf, logical.len))) {
				rc = -1;
				break;
			}
		}
		pos = eol + 1;
		line++;
	}
	/* The last line ended in '\': what was joined so far is still a line. */
	if (!rc && joining && parse_req_line(f, &r, logical.buf, strip_comment(logical.buf, logical.len)))
		rc = -1;
	strbuf_release(&logical);
	free(map.v);
	return rc;
}

/* ---------- TOML-based files ---------- */

static int want(const struct req_file *f, const struct toml *t, enum toml_type type, const char *what,
		struct err *err)
{
	if (t->type == type)
		return 0;
	return ferr(f, err, t->line, t->col, "%s must be %s, not %s", what, toml_type_name(type),
		    toml_type_name(t->type));
}

static int req_array(struct req_file *f, const struct toml *arr, const char *what, enum pin_source src,
		     const char *group, struct err *err)
{
	size_t i;
	if (!arr)
		return 0;
	if (want(f, arr, TOML_ARRAY, what, err))
		return -1;
	for (i = 0; i < arr->n_items; i++) {
		const struct toml *v = arr->items[i];
		if (src == PIN_SRC_GROUP && v->type == TOML_TABLE && toml_get(v, "include-group"))
			continue;
		if (v->type != TOML_STRING)
			return ferr(f, err, v->line, v->col, "%s must hold requirement strings, not %s", what,
				    toml_type_name(v->type));
		if (parse_string_req(f, v->str, v->line, v->col, src, group, NULL, err))
			return -1;
	}
	return 0;
}

static int req_table_of_arrays(struct req_file *f, const struct toml *t, const char *what,
			       enum pin_source src, struct err *err)
{
	size_t i;
	if (!t)
		return 0;
	if (want(f, t, TOML_TABLE, what, err))
		return -1;
	for (i = 0; i < t->n_kv; i++) {
		char *w = xasprintf("%s.%s", what, t->kv[i].key);
		int rc = req_array(f, t->kv[i].val, w, src, t->kv[i].key, err);
		free(w);
		if (rc)
			return -1;
	}
	return 0;
}

/* name -> URL of a [[tool.poetry.source]] / [[tool.uv.index]] / Pipfile [[source]] list. */
static const char *index_by_name(const struct toml *aot, const char *name)
{
	size_t i;
	if (!aot || aot->type != TOML_ARRAY || !name)
		return NULL;
	for (i = 0; i < aot->n_items; i++) {
		const char *n = toml_str(toml_get(aot->items[i], "name"));
		if (n && !strcmp(n, name))
			return toml_str(toml_get(aot->items[i], "url"));
	}
	return NULL;
}

static void set_index(struct pin *p, const char *url)
{
	if (!url)
		return;
	set_str(&p->index_url, url);
	if (!p->variant) {
		p->variant = req_variant_of_url(url);
		if (p->variant)
			set_str(&p->variant_from, "index");
	}
}

static int record_indexes(struct req_file *f, const struct toml *aot, const char *what, struct err *err)
{
	size_t i;
	if (!aot)
		return 0;
	if (want(f, aot, TOML_ARRAY, what, err))
		return -1;
	for (i = 0; i < aot->n_items; i++) {
		const char *u = toml_str(toml_get(aot->items[i], "url"));
		if (u)
			strlist_push(&f->indexes, u);
	}
	return 0;
}

/*
 * Poetry / Pipfile: `name = "spec"` or `name = { version = "...", ... }` (Poetry
 * also takes an array of such tables). `poetry` selects the dialect.
 */
static int keyed_dep(struct req_file *f, const char *name, const struct toml *v, enum pin_source src,
		     const char *group, const struct toml *sources, int poetry, struct err *err)
{
	struct strbuf nb = STRBUF_INIT;
	const struct toml *ver = NULL;
	struct pin *p;
	size_t i;

	if (v->type == TOML_ARRAY && poetry) {
		for (i = 0; i < v->n_items; i++)
			if (keyed_dep(f, name, v->items[i], src, group, sources, poetry, err))
				return -1;
		return 0;
	}
	if (v->type == TOML_STRING)
		ver = v;
	else if (v->type == TOML_TABLE)
		ver = toml_get(v, "version");
	else
		return ferr(f, err, v->line, v->col, "dependency \"%s\" must be a version string or a table, not %s",
			    name, toml_type_name(v->type));
	if (ver && ver->type != TOML_STRING)
		return ferr(f, err, ver->line, ver->col, "version of \"%s\" must be a string", name);
	p = add_pin(f, ver ? ver->line : v->line, ver ? ver->col : v->col, src, err);
	if (!p)
		return -1;
	req_normalize_name(name, strlen(name), &nb);
	p->name = strbuf_detach(&nb);
	if (group)
		p->group = xstrdup(group);
	if (ver && strcmp(ver->str, "*") && ver->str[0]) {
		p->spec = strip_spaces(ver->str, strlen(ver->str));
		p->pep440 = poetry ? req_poetry_to_pep440(ver->str) : xstrdup(p->spec);
		if (!poetry && check_specifier(p->spec, strlen(p->spec)) != (size_t)-1)
			return ferr(f, err, ver->line, ver->col, "invalid version specifier '%s' for \"%s\"",
				    p->spec, name);
		if (p->pep440) {
			char why[ERR_MSG_MAX];
			size_t col;
			if (pep440_check(p->pep440, why, sizeof(why), &col))
				return ferr(f, err, ver->line, ver->col, "invalid version constraint '%s' for \"%s\": %s",
					    p->spec, name, why);
		}
		p->form = PIN_FORM_SPEC;
		derive_from_spec(p);
	}
	p->raw = ver ? xasprintf("%s = \"%s\"", name, ver->str) : xasprintf("%s = {...}", name);
	if (v->type == TOML_TABLE) {
		const char *m = toml_str(toml_get(v, "markers"));
		const char *plat = toml_str(toml_get(v, "platform"));
		const char *src_name = toml_str(toml_get(v, poetry ? "source" : "index"));
		const char *url = toml_str(toml_get(v, "url"));
		const char *file = toml_str(toml_get(v, "file"));
		const char *path = toml_str(toml_get(v, "path"));
		const struct toml *extras = toml_get(v, "extras");
		if (m)
			p->markers = xstrdup(m);
		else if (plat)
			p->markers = xasprintf("sys_platform == \"%s\"", plat);
		else if (!poetry && toml_str(toml_get(v, "sys_platform")))
			p->markers = xasprintf("sys_platform %s", toml_str(toml_get(v, "sys_platform")));
		if (p->markers && req_markers_on_windows(p->markers) == -2)
			return ferr(f, err, v->line, v->col, "invalid environment marker '%s' for \"%s\"",
				    p->markers, name);
		if (extras && extras->type == TOML_ARRAY) {
			struct strbuf eb = STRBUF_INIT;
			for (i = 0; i < extras->n_items; i++) {
				if (extras->items[i]->type != TOML_STRING)
					continue;
				if (eb.len)
					strbuf_addch(&eb, ',');
				strbuf_adds(&eb, extras->items[i]->str);
			}
			p->extras = eb.len ? strbuf_detach(&eb) : NULL;
			strbuf_release(&eb);
		}
		if (url || file || path) {
			struct posmap map = { NULL, 0, 0 };
			struct rctx r;
			posmap_add(&map, 0, v->line, v->col);
			memset(&r, 0, sizeof(r));
			r.f = f;
			r.err = err;
			r.map = &map;
			i = (size_t)apply_url(&r, p, url ? url : file ? file : path, 0);
			free(map.v);
			if (i)
				return -1;
		}
		if (src_name)
			set_index(p, index_by_name(sources, src_name));
	}
	return 0;
}

static int keyed_deps(struct req_file *f, const struct toml *t, const char *what, enum pin_source src,
		      const char *group, const struct toml *sources, int poetry, struct err *err)
{
	size_t i;
	if (!t)
		return 0;
	if (want(f, t, TOML_TABLE, what, err))
		return -1;
	for (i = 0; i < t->n_kv; i++) {
		if (poetry && !strcmp(t->kv[i].key, "python"))
			continue;
		if (keyed_dep(f, t->kv[i].key, t->kv[i].val, src, group, sources, poetry, err))
			return -1;
	}
	return 0;
}

/* [tool.setuptools.dynamic] dependencies = { file = ["requirements.txt"] }: includes. */
static int dynamic_file_includes(struct req_file *f, const struct toml *dyn, struct err *err)
{
	const struct toml *file = toml_get(dyn, "file");
	size_t i, n;
	if (!file)
		return 0;
	n = file->type == TOML_ARRAY ? file->n_items : 1;
	for (i = 0; i < n; i++) {
		const struct toml *v = file->type == TOML_ARRAY ? file->items[i] : file;
		struct posmap map = { NULL, 0, 0 };
		struct rctx r;
		int rc;
		if (v->type != TOML_STRING)
			return ferr(f, err, v->line, v->col, "[tool.setuptools.dynamic] file must be a string or an array of strings");
		posmap_add(&map, 0, v->line, v->col);
		memset(&r, 0, sizeof(r));
		r.f = f;
		r.err = err;
		r.map = &map;
		rc = add_include(f, &r, 0, v->str, 0);
		free(map.v);
		if (rc)
			return -1;
	}
	return 0;
}

static int parse_pyproject(struct req_file *f, const struct toml *root, struct err *err)
{
	const struct toml *proj = toml_get(root, "project"), *poetry = toml_path(root, "tool.poetry");
	const struct toml *uv = toml_path(root, "tool.uv"), *t;
	size_t i, j;

	if (proj && want(f, proj, TOML_TABLE, "[project]", err))
		return -1;
	if (req_array(f, toml_get(proj, "dependencies"), "[project] dependencies", PIN_SRC_PROJECT, NULL, err) ||
	    req_table_of_arrays(f, toml_get(proj, "optional-dependencies"), "[project.optional-dependencies]",
				PIN_SRC_OPTIONAL, err) ||
	    req_table_of_arrays(f, toml_get(root, "dependency-groups"), "[dependency-groups]", PIN_SRC_GROUP, err) ||
	    req_array(f, toml_path(root, "build-system.requires"), "[build-system] requires", PIN_SRC_BUILD, NULL, err))
		return -1;
	t = toml_path(root, "tool.setuptools.dynamic");
	if (t && t->type == TOML_TABLE) {
		if (dynamic_file_includes(f, toml_get(t, "dependencies"), err))
			return -1;
		t = toml_get(t, "optional-dependencies");
		for (i = 0; t && t->type == TOML_TABLE && i < t->n_kv; i++)
			if (dynamic_file_includes(f, t->kv[i].val, err))
				return -1;
	}
	if (poetry) {
		const struct toml *sources = toml_get(poetry, "source");
		if (record_indexes(f, sources, "[[tool.poetry.source]]", err) ||
		    keyed_deps(f, toml_get(poetry, "dependencies"), "[tool.poetry.dependencies]", PIN_SRC_POETRY,
			       NULL, sources, 1, err) ||
		    keyed_deps(f, toml_get(poetry, "dev-dependencies"), "[tool.poetry.dev-dependencies]",
			       PIN_SRC_POETRY, "dev", sources, 1, err))
			return -1;
		t = toml_get(poetry, "group");
		if (t && want(f, t, TOML_TABLE, "[tool.poetry.group]", err))
			return -1;
		for (i = 0; t && i < t->n_kv; i++) {
			char *w = xasprintf("[tool.poetry.group.%s.dependencies]", t->kv[i].key);
			int rc = keyed_deps(f, toml_get(t->kv[i].val, "dependencies"), w, PIN_SRC_POETRY,
					    t->kv[i].key, sources, 1, err);
			free(w);
			if (rc)
				return -1;
		}
	}
	if (uv) {
		const struct toml *index = toml_get(uv, "index"), *sources = toml_get(uv, "sources");
		size_t first = f->n_pins;
		if (want(f, uv, TOML_TABLE, "[tool.uv]", err) ||
		    record_indexes(f, index, "[[tool.uv.index]]", err) ||
		    req_array(f, toml_get(uv, "dev-dependencies"), "[tool.uv] dev-dependencies", PIN_SRC_UV, "dev", err) ||
		    req_array(f, toml_get(uv, "constraint-dependencies"), "[tool.uv] constraint-dependencies",
			      PIN_SRC_UV, "constraint", err) ||
		    req_array(f, toml_get(uv, "override-dependencies"), "[tool.uv] override-dependencies",
			      PIN_SRC_UV, "override", err))
			return -1;
		(void)first;
		if (sources && want(f, sources, TOML_TABLE, "[tool.uv.sources]", err))
			return -1;
		/* [tool.uv.sources] torch = { index = "pytorch-cu121" } (or a list with markers):
		 * the pins of that package install from that index. */
		for (i = 0; sources && i < sources->n_kv; i++) {
			struct strbuf nb = STRBUF_INIT;
			const struct toml *s = sources->kv[i].val;
			const char *iname = NULL;
			req_normalize_name(sources->kv[i].key, strlen(sources->kv[i].key), &nb);
			if (s->type == TOML_TABLE)
				iname = toml_str(toml_get(s, "index"));
			else if (s->type == TOML_ARRAY) {
				/* Several sources by marker: take the one that applies on Windows. */
				for (j = 0; j < s->n_items && !iname; j++) {
					const char *m = toml_str(toml_get(s->items[j], "marker"));
					if (!m || req_markers_on_windows(m) == 1)
						iname = toml_str(toml_get(s->items[j], "index"));
				}
			}
			for (j = 0; iname && j < f->n_pins; j++)
				if (!strcmp(f->pins[j].name, nb.buf ? nb.buf : ""))
					set_index(&f->pins[j], index_by_name(index, iname));
			strbuf_release(&nb);
		}
	}
	return 0;
}

static int parse_pipfile(struct req_file *f, const struct toml *root, struct err *err)
{
	const struct toml *sources = toml_get(root, "source");
	size_t i;
	if (record_indexes(f, sources, "[[source]]", err))
		return -1;
	for (i = 0; i < root->n_kv; i++) {
		const char *k = root->kv[i].key;
		char *w;
		int rc;
		if (!strcmp(k, "source") || !strcmp(k, "requires") || !strcmp(k, "scripts") || !strcmp(k, "pipenv"))
			continue;
		if (root->kv[i].val->type != TOML_TABLE)
			continue;
		w = xasprintf("[%s]", k);
		rc = keyed_deps(f, root->kv[i].val, w, PIN_SRC_PIPFILE, k, sources, 0, err);
		free(w);
		if (rc)
			return -1;
	}
	return 0;
}

static int parse_lock(struct req_file *f, const struct toml *root, struct err *err)
{
	const struct toml *pkgs = toml_get(root, "package");
	struct strbuf nb = STRBUF_INIT;
	size_t i;
	if (!pkgs)
		return 0;
	if (want(f, pkgs, TOML_ARRAY, "package", err))
		return -1;
	for (i = 0; i < pkgs->n_items; i++) {
		const struct toml *pk = pkgs->items[i], *name, *ver, *src, *rm;
		struct pin *p;
		if (want(f, pk, TOML_TABLE, "a [[package]] entry", err))
			goto fail;
		name = toml_get(pk, "name");
		ver = toml_get(pk, "version");
		if (!name || name->type != TOML_STRING) {
			ferr(f, err, pk->line, pk->col, "[[package]] entry without a name string");
			goto fail;
		}
		if (ver && ver->type != TOML_STRING) {
			ferr(f, err, ver->line, ver->col, "version of \"%s\" must be a string", name->str);
			goto fail;
		}
		p = add_pin(f, ver ? ver->line : name->line, ver ? ver->col : name->col, PIN_SRC_LOCK, err);
		if (!p)
			goto fail;
		req_normalize_name(name->str, strlen(name->str), &nb);
		p->name = strbuf_detach(&nb);
		p->form = PIN_FORM_LOCKED;
		if (ver) {
			p->version = xstrdup(ver->str);
			p->spec = xasprintf("==%s", ver->str);
			{
				struct pep440 v;
				struct err ve;
				/* a locked version that is not PEP 440 has no specifier to offer */
				p->pep440 = pep440_parse(&v, ver->str, &ve) ? NULL : xstrdup(p->spec);
			}
			p->raw = xasprintf("%s %s", name->str, ver->str);
			p->variant = req_variant_of_version(ver->str);
			if (p->variant)
				p->variant_from = xstrdup("version");
		} else {
			p->raw = xstrdup(name->str);
		}
		/* uv: source = { registry = URL } ; poetry: [package.source] url = URL */
		src = toml_get(pk, "source");
		if (src && src->type == TOML_TABLE) {
			const char *u = toml_str(toml_get(src, "registry"));
			if (!u)
				u = toml_str(toml_get(src, "url"));
			set_index(p, u);
		}
		{
			const char *m = toml_str(toml_get(pk, "markers"));
			if (!m)
				m = toml_str(toml_get(pk, "marker"));
			if (m)
				p->markers = xstrdup(m);
		}
		/* uv forks: resolution-markers say on which platforms this entry is used. */
		rm = toml_get(pk, "resolution-markers");
		if (!p->markers && rm && rm->type == TOML_ARRAY && rm->n_items) {
			struct strbuf mb = STRBUF_INIT;
			size_t j;
			for (j = 0; j < rm->n_items; j++) {
				if (rm->items[j]->type != TOML_STRING)
					continue;
				if (mb.len)
					strbuf_adds(&mb, " or ");
				strbuf_addf(&mb, "(%s)", rm->items[j]->str);
			}
			if (mb.len)
				p->markers = strbuf_detach(&mb);
			strbuf_release(&mb);
		}
	}
	return 0;
fail:
	strbuf_release(&nb);
	return -1;
}

static int parse_toml_file(struct req_file *f, const char *buf, size_t len, struct err *err)
{
	struct toml_doc doc;
	struct err e;
	int rc;
	if (toml_parse(&doc, buf, len, &e))
		return err_set(err, "%s:%s", f->path, e.msg);
	switch (f->kind) {
	case REQ_PYPROJECT: rc = parse_pyproject(f, doc.root, err); break;
	case REQ_PIPFILE: rc = parse_pipfile(f, doc.root, err); break;
	default: rc = parse_lock(f, doc.root, err); break;
	}
	toml_doc_release(&doc);
	return rc;
}

/* ---------- conda environment.yml (libyaml) ---------- */

#define YAML_MAX_NODES 200000
#define YAML_MAX_DEPTH 64

enum ynode_type { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ynode_type type;
	unsigned line, col;
	char *str;
	struct ynode **kids; /* maps: key, value, key, value... */
	size_t n, alloc;
};

static void ynode_free(struct ynode *y)
{
	size_t i;
	if (!y)
		return;
	for (i = 0; i < y->n; i++)
		ynode_free(y->kids[i]);
	free(y->kids);
	free(y->str);
	free(y);
}

struct yb {
	yaml_parser_t parser;
	struct req_file *f;
	struct err *err;
	size_t nodes;
};

static int yb_error(struct yb *b)
{
	const yaml_parser_t *ps = &b->parser;
	return ferr(b->f, b->err, (unsigned)ps->problem_mark.line + 1, (unsigned)ps->problem_mark.column + 1,
		    "YAML: %s%s%s", ps->problem ? ps->problem : "syntax error", ps->context ? " " : "",
		    ps->context ? ps->context : "");
}

/* Builds the node that starts with event ev (already parsed). */
static int yb_node(struct yb *b, yaml_event_t *ev, int depth, struct ynode **out)
{
	struct ynode *y;
	unsigned line = (unsigned)ev->start_mark.line + 1, col = (unsigned)ev->start_mark.column + 1;

	if (ev->type == YAML_ALIAS_EVENT)
		return ferr(b->f, b->err, line, col, "YAML aliases are not supported in a pin file");
	if (depth > YAML_MAX_DEPTH)
		return ferr(b->f, b->err, line, col, "YAML nested deeper than %d levels", YAML_MAX_DEPTH);
	if (++b->nodes > YAML_MAX_NODES)
		return ferr(b->f, b->err, line, col, "more than %d YAML nodes", YAML_MAX_NODES);
	y = xcalloc(1, sizeof(*y));
	y->line = line;
	y->col = col;
	if (ev->type == YAML_SCALAR_EVENT) {
		y->type = Y_SCALAR;
		y->str = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (strlen(y->str) != ev->data.scalar.length) {
			ynode_free(y);
			return ferr(b->f, b->err, line, col, "NUL character in a YAML scalar");
		}
		/* Quoted scalars: point at the first character inside the quotes. */
		if (ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
		    ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE)
			y->col++;
		*out = y;
		return 0;
	}
	if (ev->type != YAML_SEQUENCE_START_EVENT && ev->type != YAML_MAPPING_START_EVENT) {
		ynode_free(y);
		return ferr(b->f, b->err, line, col, "unexpected YAML event");
	}
	y->type = ev->type == YAML_SEQUENCE_START_EVENT ? Y_SEQ : Y_MAP;
	for (;;) {
		yaml_event_t e;
		struct ynode *kid;
		if (!yaml_parser_parse(&b->parser, &e)) {
			ynode_free(y);
			return yb_error(b);
		}
		if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		if (yb_node(b, &e, depth + 1, &kid)) {
			yaml_event_delete(&e);
			ynode_free(y);
			return -1;
		}
		yaml_event_delete(&e);
		ALLOC_GROW(y->kids, y->n + 1, y->alloc);
		y->kids[y->n++] = kid;
	}
	*out = y;
	return 0;
}

static int yaml_load(struct req_file *f, const char *buf, size_t len, struct ynode **root, struct err *err)
{
	struct yb b;
	int rc = 0, done = 0;
	memset(&b, 0, sizeof(b));
	b.f = f;
	b.err = err;
	*root = NULL;
	if (!yaml_parser_initialize(&b.parser))
		return err_set(err, "%s: cannot initialise the YAML parser", f->path);
	yaml_parser_set_input_string(&b.parser, (const unsigned char *)buf, len);
	while (!done) {
		yaml_event_t e;
		if (!yaml_parser_parse(&b.parser, &e)) {
			rc = yb_error(&b);
			break;
		}
		switch (e.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_SCALAR_EVENT:
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
		case YAML_ALIAS_EVENT:
			if (*root) {
				/* A second document: only the first one is an environment. */
				done = 1;
				break;
			}
			rc = yb_node(&b, &e, 0, root);
			if (rc)
				done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&b.parser);
	if (rc) {
		ynode_free(*root);
		*root = NULL;
	}
	return rc;
}

static const struct ynode *ymap_get(const struct ynode *m, const char *key)
{
	size_t i;
	if (!m || m->type != Y_MAP)
		return NULL;
	for (i = 0; i + 1 < m->n; i += 2)
		if (m->kids[i]->type == Y_SCALAR && !strcmp(m->kids[i]->str, key))
			return m->kids[i + 1];
	return NULL;
}

/* cuda12.1 / cuda121 / cuda_12.1 in a build string -> cu121; "cpu" -> cpu. */
static char *variant_of_build(const char *b)
{
	const char *c = strstr(b, "cuda");
	if (c) {
		struct strbuf sb = STRBUF_INIT;
		c += 4;
		if (*c == '_')
			c++;
		while (is_digit((unsigned char)*c) || (*c == '.' && is_digit((unsigned char)c[1]))) {
			if (*c != '.')
				strbuf_addch(&sb, *c);
			c++;
		}
		if (sb.len) {
			char *v = xasprintf("cu%s", sb.buf);
			strbuf_release(&sb);
			return v;
		}
		strbuf_release(&sb);
	}
	if (!strncmp(b, "cpu", 3) || strstr(b, "_cpu"))
		return xstrdup("cpu");
	return NULL;
}

/* One conda match spec: [channel::]name[ version[ build]] | name=ver[=build] | name==ver | name>=a,<b */
static int parse_conda_spec(struct req_file *f, const struct ynode *y, struct err *err)
{
	const char *s = y->str, *name, *rest, *cc = strstr(s, "::");
	struct strbuf nb = STRBUF_INIT;
	struct pin *p;
	size_t nl, lead = 0;
	char *version = NULL, *build = NULL;
	char ex[120];

	while (is_space((unsigned char)s[lead]))
		lead++;
	p = add_pin(f, y->line, y->col + (unsigned)lead, PIN_SRC_CONDA, err);
	if (!p)
		return -1;
	p->raw = trim_dup(s, strlen(s));
	name = s + lead;
	if (cc) {
		p->channel = trim_dup(name, (size_t)(cc - name));
		name = cc + 2;
	}
	nl = 0;
	while (is_alnum((unsigned char)name[nl]) || name[nl] == '-' || name[nl] == '_' || name[nl] == '.')
		nl++;
	if (!nl) {
		excerpt(ex, sizeof(ex), s, strlen(s));
		return ferr(f, err, y->line, y->col, "expected a conda package name in '%s'", ex);
	}
	req_normalize_name(name, nl, &nb);
	p->name = strbuf_detach(&nb);
	rest = name + nl;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest == '[') {
		excerpt(ex, sizeof(ex), s, strlen(s));
		return ferr(f, err, y->line, y->col, "conda bracket specs are not supported: '%s'", ex);
	}
	if (!*rest)
		return 0;
	p->form = PIN_FORM_SPEC;
	if (rest[0] == '=' && rest[1] != '=') {
		size_t vl = strcspn(rest + 1, "= \t");
		version = xstrndup(rest + 1, vl);
		if (rest[1 + vl] == '=' || rest[1 + vl] == ' ')
			build = trim_dup(rest + 2 + vl, strlen(rest + 2 + vl));
		p->spec = strip_spaces(rest, strlen(rest));
		if (!vl) {
			free(version);
			free(build);
			return ferr(f, err, y->line, y->col, "expected a version after '=' in '%s'", p->raw);
		}
		p->pep440 = strchr(version, '*') ? xasprintf("==%s", version) : xasprintf("==%s.*", version);
	} else if (rest[0] == '=' && rest[1] == '=') {
		size_t vl = strcspn(rest + 2, "= \t");
		version = xstrndup(rest + 2, vl);
		if (rest[2 + vl])
			build = trim_dup(rest + 3 + vl, strlen(rest + 3 + vl));
		p->spec = strip_spaces(rest, strlen(rest));
		p->pep440 = xasprintf("==%s", version);
		if (!strchr(version, '*'))
			p->version = xstrdup(version);
	} else if (strchr("<>!~", rest[0])) {
		size_t vl = strcspn(rest, " \t");
		p->spec = xstrndup(rest, vl);
		if (rest[vl])
			build = trim_dup(rest + vl, strlen(rest + vl));
		if (!strchr(p->spec, '|') && check_specifier(p->spec, strlen(p->spec)) == (size_t)-1)
			p->pep440 = xstrdup(p->spec);
	} else if (is_digit((unsigned char)rest[0]) || rest[0] == '*') {
		size_t vl = strcspn(rest, " \t");
		version = xstrndup(rest, vl);
		if (rest[vl])
			build = trim_dup(rest + vl, strlen(rest + vl));
		p->spec = xstrdup(version);
		if (!strcmp(version, "*")) {
			free(p->spec);
			p->spec = NULL;
			p->form = PIN_FORM_NAME;
		} else if (strchr(version, '*')) {
			size_t l = strlen(version);
			p->pep440 = (l >= 2 && version[l - 2] == '.') ? xasprintf("==%s", version)
								     : xasprintf("==%.*s.*", (int)(l - 1), version);
		} else {
			p->pep440 = xasprintf("==%s", version);
			p->version = xstrdup(version);
		}
	} else {
		excerpt(ex, sizeof(ex), s, strlen(s));
		free(version);
		return ferr(f, err, y->line, y->col, "cannot read the conda spec '%s'", ex);
	}
	if (p->pep440) {
		char why[ERR_MSG_MAX];
		size_t col;
		/* conda versions need not be PEP 440 ones: no equivalent then, not an error */
		if (pep440_check(p->pep440, why, sizeof(why), &col)) {
			free(p->pep440);
			p->pep440 = NULL;
		}
	}
	if (build && *build) {
		p->variant = variant_of_build(build);
		if (p->variant)
			p->variant_from = xstrdup("conda");
	}
	free(version);
	free(build);
	return 0;
}

static int parse_conda(struct req_file *f, const char *buf, size_t len, struct err *err)
{
	struct ynode *root;
	const struct ynode *deps, *ch;
	char *file_variant = NULL;
	size_t i;
	int rc = 0;

	if (yaml_load(f, buf, len, &root, err))
		return -1;
	if (!root || (root->type == Y_SCALAR && !root->str[0])) {
		ynode_free(root);
		return 0;
	}
	if (root->type != Y_MAP) {
		rc = ferr(f, err, root->line, root->col, "an environment file must be a mapping (name, channels, dependencies)");
		goto out;
	}
	ch = ymap_get(root, "channels");
	if (ch && ch->type == Y_SEQ)
		for (i = 0; i < ch->n; i++)
			if (ch->kids[i]->type == Y_SCALAR)
				strlist_push(&f->indexes, ch->kids[i]->str);
	deps = ymap_get(root, "dependencies");
	if (!deps || (deps->type == Y_SCALAR && !deps->str[0]))
		goto out;
	if (deps->type != Y_SEQ) {
		rc = ferr(f, err, deps->line, deps->col, "dependencies must be a list");
		goto out;
	}
	for (i = 0; i < deps->n; i++) {
		const struct ynode *d = deps->kids[i], *pip;
		size_t j;
		if (d->type == Y_SCALAR) {
			if (parse_conda_spec(f, d, err)) {
				rc = -1;
				goto out;
			}
			continue;
		}
		pip = ymap_get(d, "pip");
		if (d->type != Y_MAP || !pip || d->n != 2) {
			rc = ferr(f, err, d->line, d->col, "a dependencies entry must be a package spec or '- pip: [...]'");
			goto out;
		}
		if (pip->type != Y_SEQ) {
			rc = ferr(f, err, pip->line, pip->col, "pip: must be a list of requirements");
			goto out;
		}
		for (j = 0; j < pip->n; j++) {
			const struct ynode *q = pip->kids[j];
			if (q->type != Y_SCALAR) {
				rc = ferr(f, err, q->line, q->col, "pip: entries must be requirement strings");
				goto out;
			}
			if (parse_requirements_text(f, q->str, strlen(q->str), q->line, q->col, PIN_SRC_CONDA_PIP, err)) {
				rc = -1;
				goto out;
			}
		}
	}
	/* pytorch-cuda=12.1 / cpuonly select the build of pytorch in the same environment. */
	for (i = 0; i < f->n_pins; i++) {
		const struct pin *p = &f->pins[i];
		if (p->source != PIN_SRC_CONDA)
			continue;
		if (!strcmp(p->name, "pytorch-cuda") && p->pep440) {
			struct strbuf sb = STRBUF_INIT;
			const char *v = p->pep440 + 2;
			while (*v && *v != '*') {
				if (is_digit((unsigned char)*v))
					strbuf_addch(&sb, *v);
				v++;
			}
			if (sb.len) {
				free(file_variant);
				file_variant = xasprintf("cu%s", sb.buf);
			}
			strbuf_release(&sb);
		} else if (!strcmp(p->name, "cpuonly")) {
			free(file_variant);
			file_variant = xstrdup("cpu");
		}
	}
	for (i = 0; file_variant && i < f->n_pins; i++) {
		struct pin *p = &f->pins[i];
		if (p->source == PIN_SRC_CONDA && pin_is_torch(p) && !p->variant) {
			p->variant = xstrdup(file_variant);
			p->variant_from = xstrdup("conda");
		}
	}
out:
	free(file_variant);
	ynode_free(root);
	return rc;
}

/* ---------- setup.cfg ---------- */

static int setup_cfg_value(struct req_file *f, const char *group, const char *buf, size_t vstart,
			   size_t vend_first, unsigned line, unsigned col, const struct posmap *lines,
			   size_t nlines, struct err *err)
{
	size_t i;
	(void)vend_first;
	if (nlines == 0) {
		/* One line: setuptools splits it at ';' (so markers need the multi-line form). */
		const char *s = buf + vstart;
		size_t n = strlen(s), a = 0;
		while (a < n) {
			size_t e = a + strcspn(s + a, ";");
			char *part = xstrndup(s + a, e - a);
			char *t = trim_dup(part, strlen(part));
			if (t[0]) {
				size_t lead = 0;
				while (is_space((unsigned char)part[lead]))
					lead++;
				if (parse_string_req(f, t, line, col + (unsigned)(a + lead), PIN_SRC_SETUP_CFG, group,
						     NULL, err)) {
					free(part);
					free(t);
					return -1;
				}
			}
			free(part);
			free(t);
			a = e + 1;
		}
		return 0;
	}
	for (i = 0; i < nlines; i++) {
		const struct seg *sg = &lines->v[i];
		const char *s = buf + sg->off;
		size_t n = strcspn(s, "\n");
		char *t;
		size_t lead = 0;
		while (lead < n && is_space((unsigned char)s[lead]))
			lead++;
		if (lead == n || s[lead] == '#' || s[lead] == ';')
			continue;
		t = trim_dup(s, n);
		if (parse_string_req(f, t, sg->line, (unsigned)lead + 1, PIN_SRC_SETUP_CFG, group, NULL, err)) {
			free(t);
			return -1;
		}
		free(t);
	}
	return 0;
}

/* `file: a.txt, b.txt`: each file is an include, as -r in a requirements file. */
static int setup_cfg_files(struct req_file *f, const char *list, unsigned line, unsigned col, struct err *err)
{
	struct posmap map = { NULL, 0, 0 };
	struct rctx r;
	size_t i = 0, n = strlen(list);
	int rc = 0;
	posmap_add(&map, 0, line, col);
	memset(&r, 0, sizeof(r));
	r.f = f;
	r.err = err;
	r.map = &map;
	while (i < n && !rc) {
		size_t a, e;
		char *t;
		while (i < n && (is_space((unsigned char)list[i]) || list[i] == ','))
			i++;
		a = i;
		while (i < n && list[i] != ',' && !is_space((unsigned char)list[i]))
			i++;
		e = i;
		if (e == a)
			break;
		t = xstrndup(list + a, e - a);
		rc = add_include(f, &r, a, t, 0);
		free(t);
	}
	free(map.v);
	return rc;
}

static int parse_setup_cfg(struct req_file *f, const char *buf0, size_t len, struct err *err)
{
	/* Work on a NUL-terminated copy with '\r' removed from line ends. */
	char *buf = xstrndup(buf0, len);
	char section[128] = "";
	size_t pos = 0;
	unsigned line = 1;
	int rc = 0;

	while (pos < len && !rc) {
		size_t eol = pos + strcspn(buf + pos, "\n"), n = eol - pos;
		char *s = buf + pos;
		if (n && s[n - 1] == '\r')
			s[--n] = '\0';
		if (eol < len)
			buf[eol] = '\0';
		if (s[0] == '[') {
			char *close = strchr(s, ']');
			if (!close)
				rc = ferr(f, err, line, 1, "section header without ']'");
			else
				snprintf(section, sizeof(section), "%.*s", (int)(close - s - 1), s + 1);
		} else if (s[0] && !is_space((unsigned char)s[0]) && s[0] != '#' && s[0] != ';' &&
			   (!strcmp(section, "options") || !strcmp(section, "options.extras_require"))) {
			size_t k = strcspn(s, "=:"), ke = k, vs;
			struct posmap lines = { NULL, 0, 0 };
			size_t next = eol < len ? eol + 1 : len;
			unsigned vline = line;
			char *key;
			if (!s[k]) {
				rc = ferr(f, err, line, 1, "expected 'key = value' in [%s]", section);
				break;
			}
			while (ke && is_space((unsigned char)s[ke - 1]))
				ke--;
			key = xstrndup(s, ke);
			vs = k + 1;
			while (s[vs] == ' ' || s[vs] == '\t')
				vs++;
			/* continuation lines: indented (or blank) lines that follow */
			while (next < len) {
				size_t e2 = next + strcspn(buf + next, "\n");
				const char *t = buf + next;
				size_t tl = e2 - next;
				int blank = 1;
				size_t q;
				for (q = 0; q < tl; q++)
					if (!is_space((unsigned char)t[q]))
						blank = 0;
				if (!blank && !is_space((unsigned char)t[0]))
					break;
				if (tl && buf[e2 - 1] == '\r')
					buf[e2 - 1] = '\0';
				if (e2 < len)
					buf[e2] = '\0';
				line++;
				if (!blank)
					posmap_add(&lines, next, line, 1);
				next = e2 < len ? e2 + 1 : len;
			}
			if ((!strcmp(section, "options") ? !strcmp(key, "install_requires") : 1) &&
			    !strncmp(s + vs, "file:", 5)) {
				/* install_requires = file: requirements.txt, more.txt (setuptools 62.6+) */
				rc = setup_cfg_files(f, s + vs + 5, vline, (unsigned)vs + 6, err);
			} else if (!strcmp(section, "options") ? !strcmp(key, "install_requires") : 1) {
				const char *group = strcmp(section, "options") ? key : NULL;
				if (s[vs] && lines.n) {
					/* "install_requires = torch" followed by more lines: the first line counts too */
					char *t = trim_dup(s + vs, strlen(s + vs));
					rc = parse_string_req(f, t, vline, (unsigned)vs + 1, PIN_SRC_SETUP_CFG, group, NULL, err);
					free(t);
				}
				if (!rc)
					rc = setup_cfg_value(f, group, buf, (size_t)(s + vs - buf), 0, vline,
							     (unsigned)vs + 1, &lines, lines.n, err);
			}
			free(key);
			free(lines.v);
			pos = next;
			line++; /* past the key's own line (continuations were counted above) */
			continue;
		}
		pos = eol < len ? eol + 1 : len;
		line++;
	}
	free(buf);
	return rc;
}

/* ---------- dispatch ---------- */

static int check_text(const struct req_file *f, const char *buf, size_t len, struct err *err)
{
	const char *nul = memchr(buf, '\0', len);
	if (nul) {
		unsigned line = 1, col = 1;
		const char *p;
		for (p = buf; p < nul; p++) {
			if (*p == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		return ferr(f, err, line, col, "NUL byte: not a text file");
	}
	return 0;
}

int req_file_parse(struct req_file *f, const char *path, enum req_kind kind, const char *buf, size_t len,
		   struct err *err)
{
	size_t i;
	int rc;
	if (kind == REQ_NONE)
		kind = req_kind_of_path(path);
	f->path = xstrdup(path);
	f->kind = kind;
	if (len > REQ_MAX_FILE_SIZE)
		return err_set(err, "%s: larger than %u bytes; refusing to parse it", path, REQ_MAX_FILE_SIZE);
	if (check_text(f, buf, len, err))
		return -1;
	switch (kind) {
	case REQ_REQUIREMENTS:
	case REQ_CONSTRAINTS:
		rc = parse_requirements_text(f, buf, len, 1, 1,
					     kind == REQ_CONSTRAINTS ? PIN_SRC_CONSTRAINTS : PIN_SRC_REQUIREMENTS, err);
		break;
	case REQ_PYPROJECT:
	case REQ_PIPFILE:
	case REQ_UV_LOCK:
	case REQ_POETRY_LOCK:
	case REQ_PDM_LOCK:
		rc = parse_toml_file(f, buf, len, err);
		break;
	case REQ_CONDA:
		rc = parse_conda(f, buf, len, err);
		break;
	case REQ_SETUP_CFG:
		rc = parse_setup_cfg(f, buf, len, err);
		break;
	default:
		return err_set(err, "%s: not a file torch is pinned in", path);
	}
	if (rc)
		return -1;
	/* pip applies --index-url / --extra-index-url to every line of the file. */
	if (kind == REQ_REQUIREMENTS || kind == REQ_CONSTRAINTS || kind == REQ_CONDA) {
		for (i = 0; i < f->n_pins; i++) {
			struct pin *p = &f->pins[i];
			size_t j;
			if (p->variant || p->form == PIN_FORM_WHEEL || p->form == PIN_FORM_URL)
				continue;
			if (kind == REQ_CONDA && p->source != PIN_SRC_CONDA_PIP)
				continue;
			for (j = 0; j < f->indexes.n && !p->variant; j++)
				set_index(p, f->indexes.v[j]);
			if (!p->variant)
				set_str(&p->index_url, NULL);
		}
	}
	return 0;
}
