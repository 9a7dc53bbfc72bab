/*
 * text: the one escaper for untrusted text in a line (contracts in text.h).
 */
#include "util/text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/utf.h"

/* Characters that reorder or hide text: shown as \uXXXX. */
int text_is_invisible(long cp)
{
	return (cp >= 0x80 && cp <= 0x9f) ||      /* C1 controls */
	       cp == 0x061c ||                    /* ARABIC LETTER MARK */
	       (cp >= 0x200b && cp <= 0x200f) ||  /* zero-width space/joiners, LRM, RLM */
	       (cp >= 0x2028 && cp <= 0x202e) ||  /* line/paragraph separators, bidi embeddings/overrides */
	       (cp >= 0x2060 && cp <= 0x2069) ||  /* word joiner, invisible operators, bidi isolates */
	       cp == 0xfeff;                      /* BOM / zero-width no-break space */
}

int text_is_space(long cp)
{
	return cp == ' ' || (cp >= '\t' && cp <= '\r') || cp == 0x85 || cp == 0xa0 || cp == 0x1680 ||
	       (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f ||
	       cp == 0x3000;
}

/*
 * Whether out's last line already has visible ASCII text: then what is
 * appended cannot be where the runner looks for "::" (it trims white space,
 * Unicode's too: bytes >= 0x80 count as possibly white).
 */
static int midline(const struct strbuf *out)
{
	size_t i;
	for (i = out->len; i > 0; i--) {
		unsigned char c = (unsigned char)out->buf[i - 1];
		if (c == '\n' || c == '\r')
			return 0;
		if (c != ' ' && c != '\t' && c < 0x80)
			return 1;
	}
	return 0;
}

void text_esc(struct strbuf *out, const char *str, size_t n, unsigned flags)
{
	const unsigned char *s = (const unsigned char *)str;
	int wf = (flags & TEXT_ESC_WORKFLOW) != 0, mid = (flags & TEXT_ESC_MIDLINE) != 0;
	int at_start = 1; /* only whitespace so far on this line of the text */
	size_t i = 0, run;
	strbuf_grow(out, n);
	while (i < n) {
		unsigned char c = s[i];
		if (c == ' ' || c == '\t') {
			strbuf_add(out, c == ' ' ? " " : "\\t", c == ' ' ? 1 : 2);
			i++;
			continue;
		}
		if (wf && at_start && ((c == ':' && !mid) || (c == '#' && i + 1 < n && s[i + 1] == '['))) {
			/* where a line may start: the runner trims whitespace, then looks for "::" */
			strbuf_adds(out, c == ':' ? "\\x3a" : "\\x23");
			i++;
			at_start = 0;
			continue;
		}
		if (at_start && c >= 0x80) {
			/* .NET's TrimStart trims Unicode white space too (U+00A0, U+3000...) */
			size_t j = i;
			long cp = utf8_next(s, n, &j);
			if (cp > 0 && text_is_space(cp) && !text_is_invisible(cp)) {
				strbuf_add(out, s + i, j - i);
				i = j;
				continue;
			}
		}
		at_start = 0;
		/* The common case: a run of printable ASCII with no trigger in it. */
		for (run = i; run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '#'; run++)
			;
		if (run > i) {
			strbuf_add(out, s + i, run - i);
			i = run;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n':
				if (flags & TEXT_ESC_KEEP_NL) {
					strbuf_addch(out, '\n');
					at_start = 1;
					mid = 0;
				} else {
					strbuf_adds(out, "\\n");
				}
				break;
			case '\r': strbuf_adds(out, "\\r"); break;
			default: strbuf_addf(out, "\\x%02x", c); break;
			}
			i++;
		} else if (c == '#') {
			strbuf_addch(out, '#');
			if (wf && i + 2 < n && s[i + 1] == '#' && s[i + 2] == '[') {
				/* the legacy form, honoured anywhere in a line */
				strbuf_adds(out, "\\x23");
				i++;
			}
			i++;
		} else if (text_put_char(out, s, n, &i) < 0) {
			strbuf_addf(out, "\\x%02x", c);
			i++;
		}
	}
}

int text_put_char(struct strbuf *out, const unsigned char *s, size_t n, size_t *i)
{
	size_t j = *i;
	long cp = utf8_next(s, n, &j);
	if (cp < 0)
		return -1;
	if (text_is_invisible(cp))
		strbuf_addf(out, "\\u%04lx", cp);
	else
		strbuf_add(out, s + *i, j - *i);
	*i = j;
	return 0;
}

void text_esc_line(struct strbuf *out, const char *s)
{
	if (s)
		text_esc(out, s, strlen(s), TEXT_ESC_WORKFLOW | (midline(out) ? TEXT_ESC_MIDLINE : 0));
}

const char *text_quote(struct strbuf *out, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0, cut = n;
	if (cut > max) {
		cut = max;
		/* do not split a UTF-8 sequence: back up over continuation bytes */
		cut = utf8_cut(s, cut);
	}
	if (s)
		text_esc(out, s, cut, TEXT_ESC_WORKFLOW);
	if (cut < n)
		strbuf_adds(out, "...");
	return out->buf;
}

const char *text_excerpt(const char *s, size_t len, size_t max, char *buf, size_t size)
{
	struct strbuf sb = STRBUF_INIT;
	size_t cut = len < max ? len : max, room, n;
	int more;
	if (!size)
		return buf;
	if (cut < len)
		cut = utf8_cut(s, cut); /* do not split a UTF-8 sequence */
	text_esc(&sb, s, cut, TEXT_ESC_WORKFLOW);
	room = size - 1;
	n = sb.len;
	more = cut < len || n > room;
	if (more) {
		size_t lim = room >= 3 ? room - 3 : 0;
		if (n > lim)
			n = lim;
		n = utf8_cut(sb.buf, n);
	}
	memcpy(buf, sb.buf, n);
	if (more) {
		size_t d = room - n < 3 ? room - n : 3;
		memcpy(buf + n, "...", d);
		n += d;
	}
	buf[n] = '\0';
	strbuf_release(&sb);
	return buf;
}

int text_needs_esc(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	int r;
	text_esc(&sb, s, n, TEXT_ESC_WORKFLOW);
	r = sb.len != n || memcmp(sb.buf, s, n) != 0;
	strbuf_release(&sb);
	return r;
}

/*
 * Each conversion is re-built as its own spec ("%[flags][width][.prec][len]c",
 * with * replaced by the number) and handed to strbuf_addf with the argument
 * fetched at its type; only %s is ours. The specs are built from `fmt`, which
 * the compiler checks at every caller (ERR_PRINTF), hence the pragma.
 */
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
/* One conversion of a text_vaddf format, parsed. */
struct conv_spec {
	char spec[32]; /* rebuilt "%[flags][width][.prec][len]c", '*' resolved */
	int width, prec, left;
	char len[3];
	char conv;
};

/* Reads the number after a '*' or the digits at *fmt. */
static int spec_number(const char **fmt, va_list *ap)
{
	int n = 0;
	if (**fmt == '*') {
		(*fmt)++;
		return va_arg(*ap, int);
	}
	while (ascii_isdigit(**fmt))
		n = n * 10 + (*(*fmt)++ - '0');
	return n;
}

/*
 * Parses the conversion after a '%' at *fmt into *c, fetching '*' widths and
 * precisions from *ap. -1 when the format ends or the spec would not fit:
 * the caller stops there, as a truncated format cannot be printed.
 */
static int parse_conv(const char **fmt, va_list *ap, struct conv_spec *c)
{
	const char *f = *fmt;
	size_t k = 0, ll;
	c->width = -1;
	c->prec = -1;
	c->left = 0;
	memset(c->len, 0, sizeof(c->len));
	c->spec[k++] = '%';
	while (*f && strchr("-+ #0", *f)) {
		if (*f == '-')
			c->left = 1;
		if (k < 8)
			c->spec[k++] = *f;
		f++;
	}
	if (*f == '*' || ascii_isdigit(*f)) {
		c->width = spec_number(&f, ap);
		if (c->width < 0) {
			c->left = 1;
			c->width = -c->width;
		}
	}
	if (*f == '.') {
		f++;
		c->prec = spec_number(&f, ap);
	}
	while (*f && strchr("hlzjtL", *f) && strlen(c->len) < 2)
		c->len[strlen(c->len)] = *f++;
	c->conv = *f;
	*fmt = f;
	if (!c->conv)
		return -1;
	*fmt = f + 1;
	if (c->width >= 0)
		k += (size_t)snprintf(c->spec + k, sizeof(c->spec) - k, "%d", c->width);
	if (c->prec >= 0 && c->conv != 's')
		k += (size_t)snprintf(c->spec + k, sizeof(c->spec) - k, ".%d", c->prec);
	ll = strlen(c->len);
	if (k + ll + 2 > sizeof(c->spec))
		return -1;
	memcpy(c->spec + k, c->len, ll);
	k += ll;
	c->spec[k++] = c->conv;
	c->spec[k] = '\0';
	return 0;
}

/* %s: escaped for a workflow log, then padded to the width on its side. */
static void add_string(struct strbuf *out, const struct conv_spec *c, const char *s)
{
	struct strbuf e = STRBUF_INIT;
	size_t n;
	int pad;
	if (!s)
		s = "(null)";
	if (c->prec >= 0) {
		const char *z = memchr(s, '\0', (size_t)c->prec);
		n = z ? (size_t)(z - s) : (size_t)c->prec;
	} else {
		n = strlen(s);
	}
	text_esc(&e, s, n, TEXT_ESC_WORKFLOW | (midline(out) ? TEXT_ESC_MIDLINE : 0));
	pad = c->width > 0 && e.len < (size_t)c->width;
	if (pad && !c->left)
		strbuf_addf(out, "%*s", c->width - (int)e.len, "");
	strbuf_add(out, e.buf, e.len);
	if (pad && c->left)
		strbuf_addf(out, "%*s", c->width - (int)e.len, "");
	strbuf_release(&e);
}

/* An integer conversion, its argument fetched at the type its length names. */
static void add_integer(struct strbuf *out, const struct conv_spec *c, va_list *ap)
{
	const char *len = c->len;
	if (!strcmp(len, "l"))
		strbuf_addf(out, c->spec, va_arg(*ap, long));
	else if (!strcmp(len, "ll"))
		strbuf_addf(out, c->spec, va_arg(*ap, long long));
	else if (!strcmp(len, "z"))
		strbuf_addf(out, c->spec, va_arg(*ap, size_t));
	else if (!strcmp(len, "j"))
		strbuf_addf(out, c->spec, va_arg(*ap, intmax_t));
	else if (!strcmp(len, "t"))
		strbuf_addf(out, c->spec, va_arg(*ap, ptrdiff_t));
	else
		strbuf_addf(out, c->spec, va_arg(*ap, int));
}

static void add_conv(struct strbuf *out, const struct conv_spec *c, va_list *ap)
{
	switch (c->conv) {
	case 's':
		add_string(out, c, va_arg(*ap, const char *));
		break;
	case 'c':
		strbuf_addf(out, c->spec, va_arg(*ap, int));
		break;
	case 'p':
		strbuf_addf(out, c->spec, va_arg(*ap, void *));
		break;
	case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
		add_integer(out, c, ap);
		break;
	case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
		if (!strcmp(c->len, "L"))
			strbuf_addf(out, c->spec, va_arg(*ap, long double));
		else
			strbuf_addf(out, c->spec, va_arg(*ap, double));
		break;
	default: /* %n or an unknown conversion: the format is ours, so this is a bug; print it */
		strbuf_adds(out, c->spec);
		break;
	}
}

void text_vaddf(struct strbuf *out, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		struct conv_spec c;
		if (!pct) {
			strbuf_adds(out, fmt);
			break;
		}
		strbuf_add(out, fmt, (size_t)(pct - fmt));
		fmt = pct + 1;
		if (*fmt == '%') {
			strbuf_addch(out, '%');
			fmt++;
			continue;
		}
		if (parse_conv(&fmt, &cp, &c) < 0)
			break;
		add_conv(out, &c, &cp);
	}
	va_end(cp);
}

void text_addf(struct strbuf *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_vaddf(out, fmt, ap);
	va_end(ap);
}
