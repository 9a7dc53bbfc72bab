/*
 * pypath_file: the four small text formats sys.path is made from, parsed
 * from bytes with bounds (pypath.h). Each keeps what CPython would use and
 * says what it skipped:
 *   - python3XY._pth (Modules/getpath.py, "SET pythonpath FROM _PTH FILE"):
 *     a '#' starts a comment anywhere on a line; a line stripped of white
 *     space is a path, `import site`, or another `import ...` (CPython warns
 *     "unsupported 'import' line" and ignores it);
 *   - NAME.pth in a site folder (Lib/site.py, addpackage): lines starting
 *     with '#' are skipped, lines starting with "import " or "import\t" are
 *     run (never here: counted and said), the others are paths, right-stripped;
 *   - pyvenv.cfg (getpath.py and site.py's venv()): `key = value` lines split
 *     at the first '=', both sides stripped, the key lowercased;
 *   - py.ini (the py launcher, "Using Python on Windows"): `[section]` and
 *     `key=value` lines; only [defaults] is kept (`python=3.11`).
 * A line that is not UTF-8 or longer than PYPATH_MAX_LINE is skipped and
 * said; path lines past PYPATH_MAX_LINES are dropped and said once.
 */
#include "machine/pypath.h"

#include <stdlib.h>
#include <string.h>

#include "util/text.h"
#include "util/utf.h"

void pyfile_init(struct pyfile *f)
{
	memset(f, 0, sizeof(*f));
	strlist_init(&f->lines);
	strlist_init(&f->notes);
}

void pyfile_release(struct pyfile *f)
{
	strlist_release(&f->lines);
	strlist_release(&f->notes);
	pyfile_init(f);
}

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* [*s, *s + *n) without white space at either end. */
static void strip(const char **s, size_t *n)
{
	while (*n && is_ws(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_ws((*s)[*n - 1]))
		(*n)--;
}

static void rstrip(const char *s, size_t *n)
{
	while (*n && is_ws(s[*n - 1]))
		(*n)--;
}

static void keep_line(struct pyfile *f, const char *s, size_t n, size_t lineno, int *capped)
{
	if (f->lines.n >= PYPATH_MAX_LINES) {
		if (!*capped)
			strlist_pushf(&f->notes, "more than %d lines from line %zu on: the rest is not read",
				      PYPATH_MAX_LINES, lineno);
		*capped = 1;
		return;
	}
	strlist_push_owned(&f->lines, xstrndup(s, n));
}

static void key_value(struct pyfile *f, const char *s, size_t n, size_t lineno, int *capped)
{
	const char *eq = memchr(s, '=', n), *v;
	size_t kn, vn, i;
	char *line;
	if (!eq)
		return;
	kn = (size_t)(eq - s);
	v = eq + 1;
	vn = n - kn - 1;
	strip(&s, &kn);
	strip(&v, &vn);
	if (!kn)
		return;
	if (f->lines.n >= PYPATH_MAX_LINES) {
		keep_line(f, s, 0, lineno, capped);
		return;
	}
	line = xmalloc(kn + vn + 2);
	for (i = 0; i < kn; i++)
		line[i] = (char)(ascii_isupper((unsigned char)s[i]) ? s[i] + ('a' - 'A') : s[i]);
	line[kn] = '\t';
	memcpy(line + kn + 1, v, vn);
	line[kn + 1 + vn] = '\0';
	strlist_push_owned(&f->lines, line);
}

static void ini_key(struct pyfile *f, const char *s, size_t n, size_t lineno, int *capped);

/* One line (no newline) of a kind; `section` is py.ini's current one (1: [defaults]). */
static void one_line(struct pyfile *f, enum pyfile_kind kind, const char *s, size_t n, size_t lineno,
		     int *section, int *capped)
{
	switch (kind) {
	case PYFILE_PTH_OVERRIDE: {
		const char *hash = memchr(s, '#', n);
		if (hash)
			n = (size_t)(hash - s);
		strip(&s, &n);
		if (!n)
			return;
		if (n == 11 && !memcmp(s, "import site", 11))
			f->import_site = 1;
		else if (n >= 7 && !memcmp(s, "import ", 7))
			f->imports++;
		else
			keep_line(f, s, n, lineno, capped);
		return;
	}
	case PYFILE_SITE_PTH:
		if (n && s[0] == '#')
			return;
		if (n >= 7 && (!memcmp(s, "import ", 7) || !memcmp(s, "import\t", 7))) {
			f->imports++;
			return;
		}
		rstrip(s, &n);
		keep_line(f, s, n, lineno, capped);
		return;
	case PYFILE_PYVENV_CFG:
		key_value(f, s, n, lineno, capped);
		return;
	case PYFILE_PY_INI:
		strip(&s, &n);
		if (!n || s[0] == ';' || s[0] == '#')
			return;
		if (s[0] == '[') {
			/* only the first [defaults] counts: 0 before it, 1 in it, 2 after it */
			if (*section == 1)
				*section = 2;
			else if (!*section && n == 10 && !str_nicmp(s, "[defaults]", 10))
				*section = 1;
			return;
		}
		if (*section == 1)
			ini_key(f, s, n, lineno, capped);
		return;
	}
}

/*
 * A py.ini [defaults] line as GetPrivateProfileStringW gives it to the
 * launcher (PC/launcher2.c's _readIni): only its keys (python, python2,
 * python3) are kept, each the first time it appears, its value without one
 * pair of enclosing quotes ("3.10" or '3.10'). Measured under Wine, and
 * Microsoft's documentation of GetPrivateProfileString for the quotes.
 */
static void ini_key(struct pyfile *f, const char *s, size_t n, size_t lineno, int *capped)
{
	const char *eq = memchr(s, '=', n), *k = s, *v;
	size_t kn, vn, i;
	char key[8];
	if (!eq)
		return;
	kn = (size_t)(eq - s);
	strip(&k, &kn);
	if (!((kn == 6 && !str_nicmp(k, "python", 6)) ||
	      (kn == 7 && (!str_nicmp(k, "python2", 7) || !str_nicmp(k, "python3", 7)))))
		return;
	for (i = 0; i < kn; i++)
		key[i] = (char)ascii_tolower((unsigned char)k[i]);
	key[kn] = '\0';
	if (pyfile_first(f, key))
		return;
	v = eq + 1;
	vn = n - (size_t)(v - s);
	strip(&v, &vn);
	if (vn >= 2 && (v[0] == '"' || v[0] == '\'') && v[vn - 1] == v[0]) {
		v++;
		vn -= 2;
	}
	{
		struct strbuf line = STRBUF_INIT;
		strbuf_add(&line, k, kn);
		strbuf_addch(&line, '=');
		strbuf_add(&line, v, vn);
		key_value(f, line.buf, line.len, lineno, capped);
		strbuf_release(&line);
	}
}

void pyfile_parse(struct pyfile *f, enum pyfile_kind kind, const char *text, size_t len)
{
	size_t off = 0, lineno = 0, bad = 0, longl = 0, first_bad = 0, first_long = 0;
	int section = 0, capped = 0;
	if (kind == PYFILE_PY_INI && len >= 2 && (!memcmp(text, "\xff\xfe", 2) || !memcmp(text, "\xfe\xff", 2))) {
		/* GetPrivateProfileStringW reads a file with a UTF-16 byte order mark as UTF-16 (LE or BE) */
		struct strbuf u8 = STRBUF_INIT;
		unsigned char *le = NULL;
		const unsigned char *p = (const unsigned char *)text + 2;
		size_t i, m = len - 2;
		if (text[0] == '\xfe') {
			le = xmalloc(m + 1);
			for (i = 0; i + 1 < m; i += 2) {
				le[i] = p[i + 1];
				le[i + 1] = p[i];
			}
			p = le;
		}
		utf16le_to_utf8(&u8, p, m, 0, NULL);
		free(le);
		pyfile_parse(f, kind, u8.buf, u8.len);
		strbuf_release(&u8);
		return;
	}
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
		strlist_push(&f->notes, "starts with a UTF-8 byte order mark (skipped)");
		off = 3;
	}
	while (off < len) {
		const char *s = text + off, *nl = memchr(s, '\n', len - off);
		size_t n = nl ? (size_t)(nl - s) : len - off;
		off += n + (nl != NULL);
		lineno++;
		if (n > PYPATH_MAX_LINE) {
			if (!longl++)
				first_long = lineno;
			continue;
		}
		if (memchr(s, '\0', n) || !utf8_valid(s, n)) {
			if (!bad++)
				first_bad = lineno;
			continue;
		}
		one_line(f, kind, s, n, lineno, &section, &capped);
	}
	if (bad)
		strlist_pushf(&f->notes, "%zu line%s not UTF-8 text (first: line %zu): skipped", bad,
			      bad == 1 ? " is" : "s are", first_bad);
	if (longl)
		strlist_pushf(&f->notes, "%zu line%s longer than %d bytes (first: line %zu): skipped", longl,
			      longl == 1 ? " is" : "s are", PYPATH_MAX_LINE, first_long);
}

const char *pyfile_value(const struct pyfile *f, const char *key)
{
	size_t i, kn = strlen(key);
	const char *found = NULL;
	for (i = 0; i < f->lines.n; i++) /* the last one wins, as site.py loops over every line */
		if (!strncmp(f->lines.v[i], key, kn) && f->lines.v[i][kn] == '\t')
			found = f->lines.v[i] + kn + 1;
	return found;
}

const char *pyfile_first(const struct pyfile *f, const char *key)
{
	size_t i, kn = strlen(key);
	for (i = 0; i < f->lines.n; i++)
		if (!strncmp(f->lines.v[i], key, kn) && f->lines.v[i][kn] == '\t')
			return f->lines.v[i] + kn + 1;
	return NULL;
}
