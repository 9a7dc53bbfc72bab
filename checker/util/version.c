/*
 * version: PEP 440 versions and specifiers, Windows file versions, torch
 * variants. See version.h for what is modelled and the one deliberate
 * departure (pre-releases are not excluded from specifiers).
 *
 * The PEP 440 scanner follows the grammar of `packaging.version`'s
 * VERSION_PATTERN (https://github.com/pypa/packaging, src/packaging/
 * version.py) by hand, so that every error can say which column is wrong.
 * Specifier matching follows `packaging.specifiers.Specifier` (_compare_*):
 * local labels are ignored unless an == / != clause writes one; `<V` does not
 * match pre-releases of V itself; `>V` does not match post-releases or local
 * variants of V itself; `~=X.Y.Z` is `>=X.Y.Z, ==X.Y.*`.
 */
#include "util/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/text.h"

/* Appends text for a message, quoted: at most 80 bytes, escaped by text.h. */
static void add_quoted(struct strbuf *sb, const char *s, size_t len)
{
	char buf[400];
	strbuf_addch(sb, '"');
	strbuf_adds(sb, text_excerpt(s, len, 80, buf, sizeof(buf)));
	strbuf_addch(sb, '"');
}

/* Sets "bad <what> "<text>" at column N: <why>" and err->code = N. */
static int bad_at(struct err *err, const char *what, const char *s, size_t len, size_t off, const char *why)
{
	struct strbuf sb = STRBUF_INIT;
	add_quoted(&sb, s, len);
	err_set(err, "bad %s %s at column %zu: %s", what, strbuf_str(&sb), off + 1, why);
	strbuf_release(&sb);
	if (err)
		err->code = (int)(off + 1);
	return -1;
}

/* "unexpected "x"" (or "unexpected end") for the byte at off. */
static int unexpected_at(struct err *err, const char *what, const char *s, size_t len, size_t off)
{
	char why[64];
	unsigned char c;
	if (off >= len)
		return bad_at(err, what, s, len, off, "unexpected end");
	c = (unsigned char)s[off];
	if (c >= 0x21 && c < 0x7f)
		snprintf(why, sizeof(why), "unexpected \"%c\"", c);
	else
		snprintf(why, sizeof(why), "unexpected byte 0x%02x", c);
	return bad_at(err, what, s, len, off, why);
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int is_sep(int c)
{
	return c == '.' || c == '-' || c == '_';
}

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * Reads digits at *i into *out. 0 on success, 1 if there is no digit, -1 on
 * overflow (values are capped at 10^18 so arithmetic never wraps).
 */
static int read_num(const char *s, size_t len, size_t *i, uint64_t *out)
{
	uint64_t v = 0;
	size_t j = *i;
	if (j >= len || !is_digit(s[j]))
		return 1;
	while (j < len && is_digit(s[j])) {
		if (v > 100000000000000000ULL)
			return -1;
		v = v * 10 + (uint64_t)(s[j] - '0');
		j++;
	}
	*i = j;
	*out = v;
	return 0;
}

/* Case-insensitive match of the longest label in `labels` at *i. Returns its index or -1. */
static int match_label(const char *s, size_t len, size_t i, const char *const *labels, size_t *mlen)
{
	int k, best = -1;
	size_t bestlen = 0;
	for (k = 0; labels[k]; k++) {
		size_t n = strlen(labels[k]);
		if (n <= len - i && n > bestlen && !str_nicmp(s + i, labels[k], n)) {
			best = k;
			bestlen = n;
		}
	}
	*mlen = bestlen;
	return best;
}

/*
 * After a label: an optional separator followed by a number, or a number.
 * The separator is consumed only together with the number (as the regex
 * backtracks). *has is set when a number was read.
 */
static int read_label_num(const char *s, size_t len, size_t *i, uint64_t *n, int *has)
{
	size_t j = *i;
	int r;
	*has = 0;
	*n = 0;
	if (j < len && is_sep(s[j]) && j + 1 < len && is_digit(s[j + 1]))
		j++;
	r = read_num(s, len, &j, n);
	if (r < 0)
		return -1;
	if (r == 0) {
		*has = 1;
		*i = j;
	}
	return 0;
}

static const char *const pre_labels[] = { "alpha", "a", "beta", "b", "preview", "pre", "c", "rc", NULL };
static const enum pep440_pre pre_kinds[] = { PEP440_PRE_A, PEP440_PRE_A, PEP440_PRE_B, PEP440_PRE_B,
					     PEP440_PRE_RC, PEP440_PRE_RC, PEP440_PRE_RC, PEP440_PRE_RC };
static const char *const post_labels[] = { "post", "rev", "r", NULL };
static const char *const dev_labels[] = { "dev", NULL };

/* Where and why the scanner stopped; the callers turn it into a message. */
struct scanfail {
	size_t off;
	const char *why;
};

static int fail(struct scanfail *f, size_t off, const char *why)
{
	f->off = off;
	f->why = why;
	return -1;
}

/* [v] [N!] N(.N)* at *ip: the optional epoch and the release numbers. */
static int scan_release(struct pep440 *v, const char *s, size_t len, size_t *ip, struct scanfail *f)
{
	size_t i = *ip;
	uint64_t n;
	int r;
	if (s[i] == 'v' || s[i] == 'V')
		i++;
	r = read_num(s, len, &i, &n);
	if (r > 0)
		return fail(f, i, "expected a number");
	if (r < 0)
		return fail(f, i, "number too large");
	if (i < len && s[i] == '!') {
		v->epoch = n;
		i++;
		r = read_num(s, len, &i, &n);
		if (r > 0)
			return fail(f, i, "expected a number after the epoch \"!\"");
		if (r < 0)
			return fail(f, i, "number too large");
	}
	v->release[0] = n;
	v->nrelease = 1;
	while (i + 1 < len && s[i] == '.' && is_digit(s[i + 1])) {
		size_t at = i + 1;
		i++;
		if (v->nrelease >= PEP440_MAX_RELEASE)
			return fail(f, at, "more than 20 release numbers");
		if (read_num(s, len, &i, &n) < 0)
			return fail(f, at, "number too large");
		v->release[v->nrelease++] = n;
	}
	*ip = i;
	return 0;
}

/*
 * [-_.]? label [-_.]? N? at *ip, label one of `labels`: the index of the
 * label matched (*ip past it and its number in *num), -1 when there is none
 * (*ip unchanged), -2 when the number is too large (*ip at it).
 */
static int scan_labelled(const char *s, size_t len, size_t *ip, const char *const *labels, uint64_t *num)
{
	size_t i = *ip, ml;
	int k, has;
	if (i < len && is_sep(s[i]))
		i++;
	k = match_label(s, len, i, labels, &ml);
	if (k < 0)
		return -1;
	i += ml;
	if (read_label_num(s, len, &i, num, &has) < 0) {
		*ip = i;
		return -2;
	}
	*ip = i;
	return k;
}

/* The pre-, post- and dev-release parts, each optional, in that order. */
static int scan_suffixes(struct pep440 *v, const char *s, size_t len, size_t *ip, struct scanfail *f)
{
	size_t i = *ip;
	int k;

	/* pre-release: [-_.]? (a|b|rc|...) [-_.]? N? */
	k = scan_labelled(s, len, &i, pre_labels, &v->pre_n);
	if (k == -2)
		return fail(f, i, "number too large");
	if (k >= 0)
		v->pre = pre_kinds[k];

	/* post-release: -N | [-_.]? (post|rev|r) [-_.]? N? */
	if (i + 1 < len && s[i] == '-' && is_digit(s[i + 1])) {
		i++;
		if (read_num(s, len, &i, &v->post) < 0)
			return fail(f, i, "number too large");
		v->has_post = 1;
	} else {
		k = scan_labelled(s, len, &i, post_labels, &v->post);
		if (k == -2)
			return fail(f, i, "number too large");
		if (k >= 0)
			v->has_post = 1;
	}

	/* dev-release: [-_.]? dev [-_.]? N? */
	k = scan_labelled(s, len, &i, dev_labels, &v->dev);
	if (k == -2)
		return fail(f, i, "number too large");
	if (k >= 0)
		v->has_dev = 1;
	*ip = i;
	return 0;
}

/* local: + [a-z0-9]+ ([-_.] [a-z0-9]+)*, at *ip just past the '+'; stored lowercased, '.'-separated. */
static int scan_local(struct pep440 *v, const char *s, size_t len, size_t *ip, struct scanfail *f)
{
	size_t i = *ip, o = 0;
	for (;;) {
		size_t seg = i;
		while (i < len && ascii_isalnum(s[i])) {
			if (o + 1 >= sizeof(v->local))
				return fail(f, i, "local label longer than 63 characters");
			v->local[o++] = (char)ascii_tolower(s[i]);
			i++;
		}
		if (i == seg)
			return fail(f, i,
				    seg > 0 && s[seg - 1] == '+' ? "expected a letter or digit after \"+\""
								 : "expected a letter or digit after the separator");
		if (!(i + 1 < len && is_sep(s[i]) && ascii_isalnum(s[i + 1])))
			break;
		if (o + 1 >= sizeof(v->local))
			return fail(f, i, "local label longer than 63 characters");
		v->local[o++] = '.';
		i++;
	}
	v->local[o] = '\0';
	*ip = i;
	return 0;
}

/*
 * The scanner. On success *end is where parsing stopped (the caller decides
 * whether trailing text is an error: specifiers look for ".*" there).
 */
static int scan_version(struct pep440 *v, const char *s, size_t len, size_t *end, struct scanfail *f)
{
	size_t i = 0;

	memset(v, 0, sizeof(*v));
	while (i < len && is_space(s[i]))
		i++;
	if (i >= len)
		return fail(f, i, "empty version");
	if (scan_release(v, s, len, &i, f) < 0 || scan_suffixes(v, s, len, &i, f) < 0)
		return -1;
	if (i < len && s[i] == '+') {
		i++;
		if (scan_local(v, s, len, &i, f) < 0)
			return -1;
	}
	*end = i;
	return 0;
}

/* The error for text left after a version at j (j < len). */
static int trailing_error(struct err *err, const char *what, const char *s, size_t len, size_t j)
{
	if (s[j] == '.' && j + 1 < len && s[j + 1] == '*')
		return bad_at(err, what, s, len, j, "a wildcard \".*\" is only allowed with == and !=");
	if (is_sep(s[j]) || s[j] == '+') {
		if (j + 1 >= len)
			return bad_at(err, what, s, len, j, "unexpected separator at the end");
		return unexpected_at(err, what, s, len, j + 1);
	}
	return unexpected_at(err, what, s, len, j);
}

/* Trailing text after a version: only whitespace is allowed. */
static int expect_end(const char *s, size_t len, size_t i, struct err *err)
{
	size_t j = i;
	while (j < len && is_space(s[j]))
		j++;
	if (j >= len)
		return 0;
	return trailing_error(err, "version", s, len, j);
}

int pep440_parsen(struct pep440 *out, const char *s, size_t len, struct err *err)
{
	size_t end;
	struct scanfail f;
	if (len > PEP440_MAX_TEXT)
		return bad_at(err, "version", s, len, PEP440_MAX_TEXT, "longer than 256 characters");
	if (memchr(s, '\0', len))
		return bad_at(err, "version", s, len, (size_t)((const char *)memchr(s, '\0', len) - s),
			      "NUL byte");
	if (scan_version(out, s, len, &end, &f) < 0) {
		bad_at(err, "version", s, len, f.off, f.why);
		memset(out, 0, sizeof(*out));
		out->nrelease = 1;
		return -1;
	}
	if (expect_end(s, len, end, err) < 0) {
		memset(out, 0, sizeof(*out));
		out->nrelease = 1;
		return -1;
	}
	return 0;
}

int pep440_parse(struct pep440 *out, const char *s, struct err *err)
{
	return pep440_parsen(out, s, strlen(s), err);
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* Local labels: numeric parts sort after alphanumeric ones, numbers by value. */
static int cmp_local(const char *a, const char *b)
{
	if (!*a || !*b)
		return (*a != 0) - (*b != 0);
	for (;;) {
		size_t la = strcspn(a, "."), lb = strcspn(b, ".");
		size_t i;
		int na = 1, nb = 1, c;
		for (i = 0; i < la; i++)
			na &= is_digit(a[i]);
		for (i = 0; i < lb; i++)
			nb &= is_digit(b[i]);
		if (na && nb) {
			/* Compare by value without converting: strip zeros, then length, then digits. */
			const char *pa = a, *pb = b;
			size_t xa = la, xb = lb;
			while (xa > 1 && *pa == '0')
				pa++, xa--;
			while (xb > 1 && *pb == '0')
				pb++, xb--;
			if (xa != xb)
				return xa < xb ? -1 : 1;
			c = memcmp(pa, pb, xa);
		} else if (na != nb) {
			c = na ? 1 : -1;
		} else {
			c = memcmp(a, b, la < lb ? la : lb);
			if (!c && la != lb)
				c = la < lb ? -1 : 1;
		}
		if (c)
			return c < 0 ? -1 : 1;
		a += la;
		b += lb;
		if (!*a || !*b)
			return (*a != 0) - (*b != 0);
		a++;
		b++;
	}
}

static int cmp_release(const struct pep440 *a, const struct pep440 *b)
{
	size_t i, n = a->nrelease > b->nrelease ? a->nrelease : b->nrelease;
	for (i = 0; i < n; i++) {
		uint64_t x = i < a->nrelease ? a->release[i] : 0;
		uint64_t y = i < b->nrelease ? b->release[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* The pre-release sort class: 0 = a dev-only release (sorts first), 1 = a/b/rc, 2 = none. */
static int pre_class(const struct pep440 *v)
{
	if (v->pre == PEP440_PRE_NONE && !v->has_post && v->has_dev)
		return 0;
	return v->pre == PEP440_PRE_NONE ? 2 : 1;
}

static int cmp_public(const struct pep440 *a, const struct pep440 *b)
{
	int c, ca, cb;
	if ((c = cmp_u64(a->epoch, b->epoch)))
		return c;
	if ((c = cmp_release(a, b)))
		return c;
	ca = pre_class(a);
	cb = pre_class(b);
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == 1) {
		if (a->pre != b->pre)
			return a->pre < b->pre ? -1 : 1;
		if ((c = cmp_u64(a->pre_n, b->pre_n)))
			return c;
	}
	if (a->has_post != b->has_post)
		return a->has_post ? 1 : -1;
	if ((c = cmp_u64(a->post, b->post)))
		return c;
	if (a->has_dev != b->has_dev)
		return a->has_dev ? -1 : 1;
	return cmp_u64(a->dev, b->dev);
}

int pep440_cmp(const struct pep440 *a, const struct pep440 *b)
{
	int c = cmp_public(a, b);
	return c ? c : cmp_local(a->local, b->local);
}

void pep440_format(const struct pep440 *v, struct strbuf *sb)
{
	size_t i;
	static const char *const pre_names[] = { "", "a", "b", "rc" };
	if (v->epoch)
		strbuf_addf(sb, "%llu!", (unsigned long long)v->epoch);
	for (i = 0; i < v->nrelease; i++)
		strbuf_addf(sb, "%s%llu", i ? "." : "", (unsigned long long)v->release[i]);
	if (v->pre != PEP440_PRE_NONE)
		strbuf_addf(sb, "%s%llu", pre_names[v->pre], (unsigned long long)v->pre_n);
	if (v->has_post)
		strbuf_addf(sb, ".post%llu", (unsigned long long)v->post);
	if (v->has_dev)
		strbuf_addf(sb, ".dev%llu", (unsigned long long)v->dev);
	if (v->local[0])
		strbuf_addf(sb, "+%s", v->local);
}

void pep440_public(struct pep440 *out, const struct pep440 *v)
{
	*out = *v;
	out->local[0] = '\0';
}

int pep440_is_prerelease(const struct pep440 *v)
{
	return v->pre != PEP440_PRE_NONE || v->has_dev;
}

/* Epoch and release only ("2.4.0" of "2.4.0rc1.post1+cpu"). */
static void base_version(struct pep440 *out, const struct pep440 *v)
{
	memset(out, 0, sizeof(*out));
	out->epoch = v->epoch;
	out->nrelease = v->nrelease;
	memcpy(out->release, v->release, sizeof(out->release));
}

/* ==V.* : same epoch, and v's release padded with zeros starts with V's release. */
static int prefix_match(const struct pep440 *v, const struct pep440 *prefix)
{
	size_t i;
	if (v->epoch != prefix->epoch)
		return 0;
	for (i = 0; i < prefix->nrelease; i++) {
		uint64_t x = i < v->nrelease ? v->release[i] : 0;
		if (x != prefix->release[i])
			return 0;
	}
	return 1;
}

static int clause_eq(const struct pep440_clause *c, const struct pep440 *v)
{
	struct pep440 pub;
	if (c->wildcard)
		return prefix_match(v, &c->v);
	if (c->v.local[0])
		return pep440_cmp(v, &c->v) == 0;
	pep440_public(&pub, v);
	return cmp_public(&pub, &c->v) == 0;
}

int pep440_clause_contains(const struct pep440_clause *c, const struct pep440 *v, const char *raw)
{
	struct pep440 pub, b1, b2;
	switch (c->op) {
	case PEP440_OP_EQ:
		return clause_eq(c, v);
	case PEP440_OP_NE:
		return !clause_eq(c, v);
	case PEP440_OP_LE:
		pep440_public(&pub, v);
		return cmp_public(&pub, &c->v) <= 0;
	case PEP440_OP_GE:
		pep440_public(&pub, v);
		return cmp_public(&pub, &c->v) >= 0;
	case PEP440_OP_LT:
		if (!(pep440_cmp(v, &c->v) < 0))
			return 0;
		if (!pep440_is_prerelease(&c->v) && pep440_is_prerelease(v)) {
			base_version(&b1, v);
			base_version(&b2, &c->v);
			if (cmp_public(&b1, &b2) == 0)
				return 0;
		}
		return 1;
	case PEP440_OP_GT:
		if (!(pep440_cmp(v, &c->v) > 0))
			return 0;
		base_version(&b1, v);
		base_version(&b2, &c->v);
		if (!c->v.has_post && v->has_post && cmp_public(&b1, &b2) == 0)
			return 0;
		if (v->local[0] && cmp_public(&b1, &b2) == 0)
			return 0;
		return 1;
	case PEP440_OP_COMPATIBLE: {
		struct pep440 prefix;
		pep440_public(&pub, v);
		if (cmp_public(&pub, &c->v) < 0)
			return 0;
		base_version(&prefix, &c->v);
		prefix.nrelease--; /* parse guarantees >= 2 */
		return prefix_match(v, &prefix);
	}
	case PEP440_OP_ARBITRARY: {
		/* `packaging` compares the canonical form; the text as found is accepted too. */
		struct strbuf sb = STRBUF_INIT;
		int r;
		pep440_format(v, &sb);
		r = !str_icmp(strbuf_str(&sb), c->arbitrary);
		strbuf_release(&sb);
		if (!r && raw) {
			size_t n;
			while (is_space(*raw))
				raw++;
			n = strlen(raw);
			while (n && is_space(raw[n - 1]))
				n--;
			r = n == strlen(c->arbitrary) && !str_nicmp(raw, c->arbitrary, n);
		}
		return r;
	}
	}
	return 0;
}

int pep440_spec_contains(const struct pep440_spec *spec, const struct pep440 *v, const char *raw)
{
	size_t i;
	for (i = 0; i < spec->n; i++)
		if (!pep440_clause_contains(&spec->v[i], v, raw))
			return 0;
	return 1;
}

void pep440_spec_release(struct pep440_spec *spec)
{
	size_t i;
	for (i = 0; i < spec->n; i++)
		free(spec->v[i].arbitrary);
	free(spec->v);
	spec->v = NULL;
	spec->n = spec->alloc = 0;
}

static const struct {
	const char *text;
	enum pep440_op op;
} ops[] = {
	{ "===", PEP440_OP_ARBITRARY }, { "~=", PEP440_OP_COMPATIBLE }, { "==", PEP440_OP_EQ },
	{ "!=", PEP440_OP_NE },         { "<=", PEP440_OP_LE },         { ">=", PEP440_OP_GE },
	{ "<", PEP440_OP_LT },          { ">", PEP440_OP_GT },
};

static const char *op_text(enum pep440_op op)
{
	size_t i;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].op == op)
			return ops[i].text;
	return "?";
}

/* Parses one clause s[a, b) (a..b trimmed of spaces by the caller) into *c. */
static int parse_clause(struct pep440_clause *c, const char *s, size_t len, size_t a, size_t b, struct err *err)
{
	const char *what = "specifier";
	size_t i, oplen = 0, vs, ve, end;
	struct scanfail f;
	int found = -1;

	memset(c, 0, sizeof(*c));
	c->col = a + 1;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);
		if (n <= b - a && !memcmp(s + a, ops[i].text, n)) {
			found = (int)i;
			oplen = n;
			break;
		}
	}
	if (found < 0) {
		if (s[a] == '=')
			return bad_at(err, what, s, len, a, "\"=\" is not an operator; did you mean \"==\"?");
		if (s[a] == '~')
			return bad_at(err, what, s, len, a, "expected \"~=\"");
		if (is_digit(s[a]) || s[a] == 'v' || s[a] == 'V')
			return bad_at(err, what, s, len, a,
				      "expected an operator (==, !=, <=, >=, <, >, ~=, ===) before the version");
		return bad_at(err, what, s, len, a, "expected an operator: ==, !=, <=, >=, <, >, ~= or ===");
	}
	c->op = ops[found].op;
	vs = a + oplen;
	while (vs < b && is_space(s[vs]))
		vs++;
	ve = b;
	if (vs >= ve)
		return bad_at(err, what, s, len, vs, "expected a version after the operator");

	if (c->op == PEP440_OP_ARBITRARY) {
		for (i = vs; i < ve; i++)
			if (is_space(s[i]))
				return bad_at(err, what, s, len, i, "=== takes one word (no spaces)");
		c->arbitrary = xstrndup(s + vs, ve - vs);
		return 0;
	}

	if (scan_version(&c->v, s + vs, ve - vs, &end, &f) < 0)
		return bad_at(err, what, s, len, vs + f.off, f.why);
	end += vs;
	if (end + 2 == ve && s[end] == '.' && s[end + 1] == '*') {
		if (c->op != PEP440_OP_EQ && c->op != PEP440_OP_NE)
			return bad_at(err, what, s, len, end,
				      "a wildcard \".*\" is only allowed with == and !=");
		if (c->v.pre || c->v.has_post || c->v.has_dev || c->v.local[0])
			return bad_at(err, what, s, len, end,
				      "a wildcard \".*\" must follow the release numbers only (==2.4.*)");
		c->wildcard = 1;
		end = ve;
	}
	if (end < ve) {
		if (s[end] == '.' && end + 1 < ve && s[end + 1] == '*')
			return bad_at(err, what, s, len, end + 2, "nothing may follow the wildcard \".*\"");
		if (is_space(s[end]))
			return bad_at(err, what, s, len, end, "expected \",\" between clauses");
		return trailing_error(err, what, s, len, end);
	}
	if (c->v.local[0] && c->op != PEP440_OP_EQ && c->op != PEP440_OP_NE)
		return bad_at(err, what, s, len, vs,
			      "a local label (+cu121) is only allowed with == and !=");
	if (c->op == PEP440_OP_COMPATIBLE && c->v.nrelease < 2)
		return bad_at(err, what, s, len, vs, "~= needs at least two release numbers (~=2.5 or ~=2.5.0)");
	return 0;
}

int pep440_spec_parse(struct pep440_spec *out, const char *s, struct err *err)
{
	size_t len = strlen(s), i = 0;
	pep440_spec_release(out);
	if (len > PEP440_MAX_TEXT)
		return bad_at(err, "specifier", s, len, PEP440_MAX_TEXT, "longer than 256 characters");
	while (i <= len) {
		size_t a = i, b, next;
		const char *comma = memchr(s + i, ',', len - i);
		b = comma ? (size_t)(comma - s) : len;
		next = b + 1;
		while (a < b && is_space(s[a]))
			a++;
		while (b > a && is_space(s[b - 1]))
			b--;
		if (a < b) {
			struct pep440_clause c;
			if (out->n >= PEP440_MAX_CLAUSES) {
				pep440_spec_release(out);
				return bad_at(err, "specifier", s, len, a, "more than 32 clauses");
			}
			if (parse_clause(&c, s, len, a, b, err) < 0) {
				free(c.arbitrary);
				pep440_spec_release(out);
				return -1;
			}
			ALLOC_GROW(out->v, out->n + 1, out->alloc);
			out->v[out->n++] = c;
		}
		if (!comma)
			break;
		i = next;
	}
	if (!out->n) {
		i = 0;
		while (i < len && is_space(s[i]))
			i++;
		return bad_at(err, "specifier", s, len, i,
			      "empty; write a clause such as \"==2.4.0\" (\">=0\" matches every version)");
	}
	return 0;
}

void pep440_spec_format(const struct pep440_spec *spec, struct strbuf *sb)
{
	size_t i;
	for (i = 0; i < spec->n; i++) {
		const struct pep440_clause *c = &spec->v[i];
		if (i)
			strbuf_addch(sb, ',');
		strbuf_adds(sb, op_text(c->op));
		if (c->op == PEP440_OP_ARBITRARY) {
			strbuf_adds(sb, c->arbitrary);
			continue;
		}
		pep440_format(&c->v, sb);
		if (c->wildcard)
			strbuf_adds(sb, ".*");
	}
}

/* Windows file versions. */

int winver_parse(struct winver *out, const char *s, struct err *err)
{
	size_t len = strlen(s), i = 0;
	const char *what = "file version";
	memset(out, 0, sizeof(*out));
	if (len > PEP440_MAX_TEXT)
		return bad_at(err, what, s, len, PEP440_MAX_TEXT, "longer than 256 characters");
	while (i < len && is_space(s[i]))
		i++;
	if (i < len && (s[i] == 'v' || s[i] == 'V'))
		i++;
	for (;;) {
		uint64_t n;
		size_t at = i;
		int r = read_num(s, len, &i, &n);
		if (r > 0)
			return out->nparts ? bad_at(err, what, s, len, i, "expected a number after \".\"")
					   : bad_at(err, what, s, len, i, "expected a number");
		if (r < 0 || n > 65535)
			return bad_at(err, what, s, len, at, "each part must be at most 65535");
		if (out->nparts >= 4)
			return bad_at(err, what, s, len, at, "more than four parts");
		out->part[out->nparts++] = (uint16_t)n;
		if (i < len && s[i] == '.') {
			i++;
			continue;
		}
		break;
	}
	while (i < len && is_space(s[i]))
		i++;
	if (i < len)
		return unexpected_at(err, what, s, len, i);
	if (out->nparts < 2)
		return bad_at(err, what, s, len, len, "expected at least two parts (\"14.40\")");
	return 0;
}

void winver_from_ms_ls(struct winver *out, uint32_t ms, uint32_t ls)
{
	out->part[0] = (uint16_t)(ms >> 16);
	out->part[1] = (uint16_t)(ms & 0xffff);
	out->part[2] = (uint16_t)(ls >> 16);
	out->part[3] = (uint16_t)(ls & 0xffff);
	out->nparts = 4;
}

int winver_cmp(const struct winver *a, const struct winver *b)
{
	int i;
	for (i = 0; i < 4; i++) {
		unsigned x = (unsigned)i < a->nparts ? a->part[i] : 0;
		unsigned y = (unsigned)i < b->nparts ? b->part[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* Loader versions are "a.b.c.d" as pe.c formats them; anything unparsable counts as 0.0.0.0. */
static void text_winver(struct winver *v, const char *s)
{
	if (!s || winver_parse(v, s, NULL) < 0)
		memset(v, 0, sizeof(*v));
}

int winver_text_cmp(const char *a, const char *b)
{
	struct winver x, y;
	text_winver(&x, a);
	text_winver(&y, b);
	return winver_cmp(&x, &y);
}

int winver_at_least(const struct winver *have, const struct winver *min)
{
	unsigned i;
	for (i = 0; i < min->nparts && i < 4; i++) {
		unsigned x = i < have->nparts ? have->part[i] : 0;
		if (x != min->part[i])
			return x > min->part[i];
	}
	return 1;
}

void winver_format(const struct winver *v, int all, struct strbuf *sb)
{
	unsigned i, n = all ? 4 : (v->nparts ? v->nparts : 1);
	for (i = 0; i < n && i < 4; i++)
		strbuf_addf(sb, "%s%u", i ? "." : "", i < v->nparts ? (unsigned)v->part[i] : 0u);
}

char *winver_parts_str(const uint16_t part[4])
{
	return xasprintf("%u.%u.%u.%u", part[0], part[1], part[2], part[3]);
}

/* torch variants. */

int torch_variant_parse(struct torch_variant *out, const char *local, struct err *err)
{
	size_t seg = strcspn(local, ".-_"), i;
	memset(out, 0, sizeof(*out));
	if (!*local)
		return 0;
	if (seg == 3 && !str_nicmp(local, "cpu", 3)) {
		out->kind = VARIANT_CPU;
		strcpy(out->name, "cpu");
		return 0;
	}
	if (seg == 3 && !str_nicmp(local, "xpu", 3)) {
		out->kind = VARIANT_XPU;
		strcpy(out->name, "xpu");
		return 0;
	}
	if (seg >= 2 && !str_nicmp(local, "cu", 2) && (seg == 2 || is_digit(local[2]))) {
		unsigned v = 0;
		for (i = 2; i < seg; i++) {
			if (!is_digit(local[i]) || v > 100000)
				return err_set(err, "bad CUDA variant \"%.*s\": expected cu and 2-4 digits (cu121 = CUDA 12.1)",
					       (int)(seg > 16 ? 16 : seg), local);
			v = v * 10 + (unsigned)(local[i] - '0');
		}
		if (seg < 4 || seg > 6)
			return err_set(err, "bad CUDA variant \"%.*s\": expected cu and 2-4 digits (cu121 = CUDA 12.1)",
				       (int)(seg > 16 ? 16 : seg), local);
		out->kind = VARIANT_CUDA;
		out->major = v / 10;
		out->minor = v % 10;
		snprintf(out->name, sizeof(out->name), "cu%u", v);
		return 0;
	}
	if (!str_nicmp(local, "rocm", 4)) {
		/* rocm6.1 / rocm6.2.4: the numbers run on past the first '.' */
		const char *p = local + 4;
		unsigned part[3] = { 0, 0, 0 }, n = 0;
		while (n < 3 && is_digit(*p)) {
			unsigned v = 0;
			while (is_digit(*p) && v < 100000)
				v = v * 10 + (unsigned)(*p++ - '0');
			part[n++] = v;
			if (*p == '.' && is_digit(p[1]))
				p++;
			else
				break;
		}
		if (n < 2 || is_digit(*p))
			return err_set(err, "bad ROCm variant \"%.20s\": expected rocmX.Y (rocm6.1)", local);
		out->kind = VARIANT_ROCM;
		out->major = part[0];
		out->minor = part[1];
		out->patch = part[2];
		if (n == 3)
			snprintf(out->name, sizeof(out->name), "rocm%u.%u.%u", part[0], part[1], part[2]);
		else
			snprintf(out->name, sizeof(out->name), "rocm%u.%u", part[0], part[1]);
		return 0;
	}
	out->kind = VARIANT_OTHER;
	if (seg >= sizeof(out->name))
		seg = sizeof(out->name) - 1;
	for (i = 0; i < seg; i++)
		out->name[i] = (char)ascii_tolower(local[i]);
	out->name[seg] = '\0';
	return 0;
}

void torch_variant_describe(const struct torch_variant *v, struct strbuf *sb)
{
	switch (v->kind) {
	case VARIANT_UNKNOWN:
		strbuf_adds(sb, "unknown");
		break;
	case VARIANT_CPU:
		strbuf_adds(sb, "CPU");
		break;
	case VARIANT_CUDA:
		strbuf_addf(sb, "CUDA %u.%u", v->major, v->minor);
		break;
	case VARIANT_ROCM:
		strbuf_addf(sb, "ROCm %u.%u", v->major, v->minor);
		break;
	case VARIANT_XPU:
		strbuf_adds(sb, "XPU");
		break;
	case VARIANT_OTHER:
		strbuf_adds(sb, v->name);
		break;
	}
}
