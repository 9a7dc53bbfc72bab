/*
 * req_pip: pip's requirements file format (requirements*.txt,
 * constraints*.txt, *.in, and the lines of a conda `- pip:` list).
 *
 * As pip's req_file.py: lines ending in `\` are joined first (unless they are
 * comment lines), then comments are cut ("(^|\s+)#.*$"); a line is either
 * options (-r/-c includes, -i/--extra-index-url, -f, -e, flags) or one PEP 508
 * requirement followed by per-requirement options (--hash, as
 * break_args_options). https://pip.pypa.io/en/stable/reference/requirements-file-format/
 */
#include "pins/req_pip.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"

struct tok {
	size_t off, len;
};

static size_t tokenize(const char *s, size_t n, struct tok *t, size_t max)
{
	size_t i = 0, k = 0;
	while (i < n && k < max) {
		while (i < n && ascii_isspace((unsigned char)s[i]))
			i++;
		if (i == n)
			break;
		t[k].off = i;
		while (i < n && !ascii_isspace((unsigned char)s[i]))
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

#define MAX_TOKENS 256

/* A line of options ("-r base.txt", "--index-url URL --pre"). */
static int parse_option_line(struct req_file *f, const struct req_ctx *r, const char *s, size_t n)
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
				return req_ctx_err(r, at, "option %.*s needs a file name", (int)wl, w);
			val = xstrndup(s + voff, vlen);
			if (req_add_include(f, r, voff, val, constraint)) {
				free(val);
				return -1;
			}
			free(val);
		} else if (VALUE_OPT("-i", "--index-url") || VALUE_OPT(NULL, "--extra-index-url")) {
			if (m < 0)
				return req_ctx_err(r, at, "option %.*s needs a URL", (int)wl, w);
			strlist_push_owned(&f->indexes, xstrndup(s + voff, vlen));
		} else if (VALUE_OPT("-f", "--find-links")) {
			/* .../whl/cu121/torch_stable.html names a variant too; the page itself is not read */
			if (m < 0)
				return req_ctx_err(r, at, "option %.*s needs a URL or folder", (int)wl, w);
			strlist_push_owned(&f->indexes, xstrndup(s + voff, vlen));
		} else if (VALUE_OPT(NULL, "--trusted-host") ||
			   VALUE_OPT(NULL, "--use-feature") || VALUE_OPT(NULL, "--no-binary") ||
			   VALUE_OPT(NULL, "--only-binary") || VALUE_OPT(NULL, "--config-settings")) {
			if (m < 0)
				return req_ctx_err(r, at, "option %.*s needs a value", (int)wl, w);
		} else if (VALUE_OPT("-e", "--editable")) {
			struct pin *p;
			struct req_ctx rr = *r;
			if (m < 0)
				return req_ctx_err(r, at, "option %.*s needs a path or URL", (int)wl, w);
			rr.pip = 1;
			rr.base = r->base + voff;
			/* An editable path or VCS URL: recorded by its #egg= name when it has one. */
			if (req_parse_pep508(&rr, s + voff, vlen, &p))
				return -1;
			if (p->form == PIN_FORM_NAME)
				p->form = PIN_FORM_URL;
		} else if ((wl == 5 && !strncmp(w, "--pre", 5)) || (wl == 10 && !strncmp(w, "--no-index", 10)) ||
			   (wl == 15 && !strncmp(w, "--prefer-binary", 15)) ||
			   (wl == 16 && !strncmp(w, "--require-hashes", 16))) {
			/* flags that do not change which torch is pinned */
		} else {
			text_excerpt(w, wl, sizeof(ex) - 4, ex, sizeof(ex));
			return req_ctx_err(r, at, "unknown option '%s' in a requirements file", ex);
		}
#undef VALUE_OPT
	}
	return 0;
}

/*
 * One logical requirements line (comments removed), with per-requirement
 * options (--hash) after the requirement, as pip's break_args_options.
 */
static int parse_req_line(struct req_file *f, const struct req_ctx *r, const char *s, size_t n)
{
	struct tok t[MAX_TOKENS];
	size_t nt, k, req_end = n, first_opt = MAX_TOKENS;
	struct pin *p;
	char ex[120];
	size_t lead = 0;

	while (lead < n && ascii_isspace((unsigned char)s[lead]))
		lead++;
	if (lead == n)
		return 0;
	if (s[lead] == '-')
		return parse_option_line(f, r, s, n);
	nt = tokenize(s, n, t, MAX_TOKENS);
	if (nt == MAX_TOKENS)
		return req_ctx_err(r, 0, "more than %d words on one requirements line", MAX_TOKENS);
	for (k = 0; k < nt; k++) {
		if (s[t[k].off] == '-' && t[k].len > 1 && s[t[k].off + 1] == '-') {
			first_opt = k;
			req_end = t[k].off;
			break;
		}
	}
	if (req_parse_pep508(r, s, req_end, &p))
		return -1;
	for (k = first_opt; k < nt; k++) {
		size_t voff = 0, vlen = 0, at = t[k].off;
		const char *w = s + t[k].off;
		size_t wl = t[k].len;
		int m = opt_match(s, t, nt, &k, NULL, "--hash", &voff, &vlen);
		if (m > 0) {
			const char *colon = memchr(s + voff, ':', vlen);
			if (!colon || colon == s + voff || (size_t)(colon - (s + voff)) + 1 >= vlen)
				return req_ctx_err(r, voff, "--hash needs the form ALGORITHM:HEXDIGEST");
			p->n_hashes++;
			continue;
		}
		if (m < 0)
			return req_ctx_err(r, at, "option --hash needs a value");
		m = opt_match(s, t, nt, &k, NULL, "--config-settings", &voff, &vlen);
		if (!m)
			m = opt_match(s, t, nt, &k, NULL, "--global-option", &voff, &vlen);
		if (!m)
			m = opt_match(s, t, nt, &k, NULL, "--install-option", &voff, &vlen);
		if (m > 0)
			continue;
		if (m < 0)
			return req_ctx_err(r, at, "option %.*s needs a value", (int)wl, w);
		text_excerpt(w, wl, sizeof(ex) - 4, ex, sizeof(ex));
		return req_ctx_err(r, at, "unknown per-requirement option '%s' (pip allows --hash, --config-settings, --global-option)", ex);
	}
	return 0;
}

/* Cuts a pip comment: '#' at the start or after whitespace, with the whitespace before it. */
static size_t strip_comment(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		if (s[i] == '#' && (i == 0 || ascii_isspace((unsigned char)s[i - 1]))) {
			while (i && ascii_isspace((unsigned char)s[i - 1]))
				i--;
			return i;
		}
	}
	return n;
}

static int is_comment_line(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && ascii_isspace((unsigned char)s[i]))
		i++;
	return i < n && s[i] == '#';
}

/*
 * A requirements file, or the lines of a conda `- pip:` list. `first_line`
 * and `first_col` place buf's first byte in the real file.
 */
int req_parse_pip(struct req_file *f, const char *buf, size_t len, unsigned first_line,
		  unsigned first_col, enum pin_source src, struct err *err)
{
	struct strbuf logical = STRBUF_INIT;
	struct posmap map = { NULL, 0, 0 };
	struct req_ctx r;
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
			rc = req_ferr(f, err, line, 1, "line longer than %d bytes", REQ_MAX_LINE);
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
