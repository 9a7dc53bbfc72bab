/*
 * req_markers: PEP 508 environment markers, evaluated for the one machine
 * the checker cares about: a Windows x64 CPython runner
 * (https://peps.python.org/pep-0508/#environment-markers).
 *
 * Variables with a fixed value there (sys_platform "win32", platform_system
 * "Windows", os_name "nt", platform_machine "AMD64", the implementation) are
 * compared; everything else (python_version, extra, platform_release...)
 * makes the answer "unknown" (-1), and so do version comparisons of platform
 * strings: a pin that depends on them is neither taken nor dropped. The
 * grammar is PEP 508's: or / and / parentheses (32 levels at most), the
 * comparison operators, `in` and `not in`; anything else is a syntax error
 * (-2), which the parsers report with the marker's position.
 */
#include "pins/req_markers.h"

#include <stdio.h>
#include <string.h>

#include "util/text.h"


struct mk {
	const char *s;
	size_t pos;
	int depth;
	int bad;
};

static void mk_ws(struct mk *m)
{
	while (ascii_isspace((unsigned char)m->s[m->pos]))
		m->pos++;
}

static int mk_word(struct mk *m, const char *w)
{
	size_t n = strlen(w);
	mk_ws(m);
	if (!strncmp(m->s + m->pos, w, n) && !ascii_isalnum((unsigned char)m->s[m->pos + n]) &&
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
	while (ascii_isalnum((unsigned char)s[m->pos]) || s[m->pos] == '_' || s[m->pos] == '.') {
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
