/*
 * req_setup_cfg: setup.cfg, [options] install_requires and
 * [options.extras_require], as setuptools reads them: a one-line value is
 * split at ';', a multi-line value has one requirement per line, and
 * `file: a.txt, b.txt` (setuptools 62.6+) names files that are includes.
 */
#include "pins/req_setup_cfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"

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
			char *t = req_trim_dup(part, strlen(part));
			if (t[0]) {
				size_t lead = 0;
				while (ascii_isspace((unsigned char)part[lead]))
					lead++;
				if (req_parse_string(f, t, line, col + (unsigned)(a + lead), PIN_SRC_SETUP_CFG, group,
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
		const struct posmap_seg *sg = &lines->v[i];
		const char *s = buf + sg->off;
		size_t n = strcspn(s, "\n");
		char *t;
		size_t lead = 0;
		while (lead < n && ascii_isspace((unsigned char)s[lead]))
			lead++;
		if (lead == n || s[lead] == '#' || s[lead] == ';')
			continue;
		t = req_trim_dup(s, n);
		if (req_parse_string(f, t, sg->line, (unsigned)lead + 1, PIN_SRC_SETUP_CFG, group, NULL, err)) {
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
	struct req_ctx r;
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
		while (i < n && (ascii_isspace((unsigned char)list[i]) || list[i] == ','))
			i++;
		a = i;
		while (i < n && list[i] != ',' && !ascii_isspace((unsigned char)list[i]))
			i++;
		e = i;
		if (e == a)
			break;
		t = xstrndup(list + a, e - a);
		rc = req_add_include(f, &r, a, t, 0);
		free(t);
	}
	free(map.v);
	return rc;
}

/*
 * The lines after a key's line that continue its value: indented or blank
 * ones. Each is cut at its end (buf is the NUL-terminated copy), the
 * non-blank ones are recorded in `lines`; *line counts them. Returns the
 * offset after the last one.
 */
static size_t setup_cfg_continuations(char *buf, size_t len, size_t next, unsigned *line, struct posmap *lines)
{
	while (next < len) {
		size_t e2 = next + strcspn(buf + next, "\n");
		const char *t = buf + next;
		size_t tl = e2 - next;
		int blank = 1;
		size_t q;
		for (q = 0; q < tl; q++)
			if (!ascii_isspace((unsigned char)t[q]))
				blank = 0;
		if (!blank && !ascii_isspace((unsigned char)t[0]))
			break;
		if (tl && buf[e2 - 1] == '\r')
			buf[e2 - 1] = '\0';
		if (e2 < len)
			buf[e2] = '\0';
		(*line)++;
		if (!blank)
			posmap_add(lines, next, *line, 1);
		next = e2 < len ? e2 + 1 : len;
	}
	return next;
}

/*
 * The value of install_requires (in [options]) or of an extra (in
 * [options.extras_require]): `file:` includes, or requirements on the key's
 * line and the continuation lines. s + vs is the value on the key's line
 * (line vline); group is the extra's name or NULL.
 */
static int setup_cfg_requirements(struct req_file *f, const char *group, char *buf, const char *s, size_t vs,
				  unsigned vline, const struct posmap *lines, struct err *err)
{
	int rc = 0;
	if (!strncmp(s + vs, "file:", 5)) {
		/* install_requires = file: requirements.txt, more.txt (setuptools 62.6+) */
		return setup_cfg_files(f, s + vs + 5, vline, (unsigned)vs + 6, err);
	}
	if (s[vs] && lines->n) {
		/* "install_requires = torch" followed by more lines: the first line counts too */
		char *t = req_trim_dup(s + vs, strlen(s + vs));
		rc = req_parse_string(f, t, vline, (unsigned)vs + 1, PIN_SRC_SETUP_CFG, group, NULL, err);
		free(t);
	}
	if (!rc)
		rc = setup_cfg_value(f, group, buf, (size_t)(s + vs - buf), 0, vline, (unsigned)vs + 1, lines, lines->n,
				     err);
	return rc;
}

/*
 * One `key = value` (or `key: value`) line s of [options] or
 * [options.extras_require] (next: the offset of the line after it), with its
 * continuation lines; *after receives the offset after them, *line the
 * number of the last line read.
 */
static int setup_cfg_key(struct req_file *f, const char *section, char *buf, size_t len, char *s, size_t next,
			 unsigned *line, size_t *after, struct err *err)
{
	size_t k = strcspn(s, "=:"), ke = k, vs;
	struct posmap lines = { NULL, 0, 0 };
	unsigned vline = *line;
	char *key;
	int rc = 0;
	if (!s[k])
		return req_ferr(f, err, *line, 1, "expected 'key = value' in [%s]", section);
	while (ke && ascii_isspace((unsigned char)s[ke - 1]))
		ke--;
	key = xstrndup(s, ke);
	vs = k + 1;
	while (s[vs] == ' ' || s[vs] == '\t')
		vs++;
	*after = setup_cfg_continuations(buf, len, next, line, &lines);
	if (strcmp(section, "options"))
		rc = setup_cfg_requirements(f, key, buf, s, vs, vline, &lines, err);
	else if (!strcmp(key, "install_requires"))
		rc = setup_cfg_requirements(f, NULL, buf, s, vs, vline, &lines, err);
	free(key);
	free(lines.v);
	return rc;
}

int req_parse_setup_cfg(struct req_file *f, const char *buf0, size_t len, struct err *err)
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
				rc = req_ferr(f, err, line, 1, "section header without ']'");
			else
				snprintf(section, sizeof(section), "%.*s", (int)(close - s - 1), s + 1);
		} else if (s[0] && !ascii_isspace((unsigned char)s[0]) && s[0] != '#' && s[0] != ';' &&
			   (!strcmp(section, "options") || !strcmp(section, "options.extras_require"))) {
			rc = setup_cfg_key(f, section, buf, len, s, eol < len ? eol + 1 : len, &line, &pos, err);
			line++; /* past the key's own line (continuations were counted) */
			continue;
		}
		pos = eol < len ? eol + 1 : len;
		line++;
	}
	free(buf);
	return rc;
}
