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
			*section = n == 10 && !str_nicmp(s, "[defaults]", 10);
			return;
		}
		if (*section)
			key_value(f, s, n, lineno, capped);
		return;
	}
}

void pyfile_parse(struct pyfile *f, enum pyfile_kind kind, const char *text, size_t len)
{
	size_t off = 0, lineno = 0, bad = 0, longl = 0, first_bad = 0, first_long = 0;
	int section = 0, capped = 0;
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
