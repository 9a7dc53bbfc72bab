/*
 * inventory_parse: the text files of an install the inventory reads
 * (inventory.h): torch\version.py, the dist-info METADATA and a venv's
 * pyvenv.cfg, parsed from bytes already read (no view, no file system), so
 * that tests and fuzzers reach them directly. Malformed or truncated input
 * is an error naming the file and line, never a guess.
 */
#include "machine/inventory.h"

#include <stdlib.h>
#include <string.h>

#include "util/text.h"

#define INV_MAX_VERSION 64 /* characters in a version string */

static int valid_version(const char *s)
{
	size_t n = strlen(s), i;
	if (!n || n > INV_MAX_VERSION || s[0] < '0' || s[0] > '9')
		return 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (!(ascii_isalnum(c) || c == '.' ||
		      c == '+' || c == '!' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

/* Next line of a text: [*pos, end of line). 0 at the end. */
static int text_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
	const char *nl;
	if (*pos >= len)
		return 0;
	*line = text + *pos;
	nl = memchr(*line, '\n', len - *pos);
	*n = nl ? (size_t)(nl - *line) : len - *pos;
	*pos += nl ? *n + 1 : *n;
	if (*n && (*line)[*n - 1] == '\r')
		(*n)--;
	return 1;
}

static int has_nul(const char *text, size_t len, const char *name, struct err *err)
{
	const char *z = memchr(text, '\0', len);
	size_t i, line = 1;
	if (!z)
		return 0;
	for (i = 0; text + i < z; i++)
		line += text[i] == '\n';
	err_set(err, "%s:%zu: NUL byte: not a text file", name, line);
	return 1;
}

/* `NAME [: annotation] = VALUE` → VALUE as a string (NULL for None). 1 not this name, 0 ok, -1 error. */
static int py_assign(const char *l, size_t n, const char *want, char **val, const char *name, size_t lineno,
		     struct err *err)
{
	size_t i = 0, k = strlen(want), start;
	char q;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i) /* indented: inside a block, not the module-level assignment */
		return 1;
	if (n - i < k || memcmp(l + i, want, k))
		return 1;
	i += k;
	if (i < n && (l[i] == '_' || (l[i] >= 'a' && l[i] <= 'z') || (l[i] >= 'A' && l[i] <= 'Z') ||
		      (l[i] >= '0' && l[i] <= '9')))
		return 1; /* a longer name (cuda_version, __version___x) */
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i < n && l[i] == ':') { /* annotation: cuda: Optional[str] = None */
		while (i < n && l[i] != '=')
			i++;
	}
	if (i >= n || l[i] != '=' || (i + 1 < n && l[i + 1] == '='))
		return err_set(err, "%s:%zu: %s: expected '=' after the name", name, lineno, want);
	i++;
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (n - i >= 4 && !memcmp(l + i, "None", 4)) {
		*val = NULL;
		i += 4;
	} else if (i < n && (l[i] == '\'' || l[i] == '"')) {
		q = l[i++];
		start = i;
		while (i < n && l[i] != q && l[i] != '\\')
			i++;
		if (i < n && l[i] == '\\')
			return err_set(err, "%s:%zu: %s: backslash escapes are not expected in a version", name, lineno,
				       want);
		if (i >= n)
			return err_set(err, "%s:%zu: %s: unterminated string (expected a closing %c)", name, lineno,
				       want, q);
		*val = xstrndup(l + start, i - start);
		i++;
	} else {
		return err_set(err, "%s:%zu: %s: expected a quoted string or None", name, lineno, want);
	}
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	if (i < n && l[i] != '#') {
		free(*val);
		*val = NULL;
		return err_set(err, "%s:%zu: %s: unexpected text after the value", name, lineno, want);
	}
	return 0;
}

int inventory_parse_version_py(const char *text, size_t len, const char *name, char **version, char **cuda,
			       struct err *err)
{
	size_t pos = 0, lineno = 0, n;
	const char *l;
	int have_version = 0;
	*version = NULL;
	*cuda = NULL;
	if (len > INV_MAX_TEXT)
		return err_set(err, "%s: larger than %zu bytes: not torch's version.py", name, INV_MAX_TEXT);
	if (has_nul(text, len, name, err))
		return -1;
	while (text_line(text, len, &pos, &l, &n)) {
		char *val = NULL;
		int r;
		lineno++;
		r = py_assign(l, n, "__version__", &val, name, lineno, err);
		if (r < 0)
			goto fail;
		if (r == 0) {
			if (!val || !valid_version(val)) {
				err_set(err, "%s:%zu: __version__ '%s' is not a version (expected digits, dots and a +local label)",
					name, lineno, val ? val : "None");
				free(val);
				goto fail;
			}
			free(*version);
			*version = val;
			have_version = 1;
			continue;
		}
		r = py_assign(l, n, "cuda", &val, name, lineno, err);
		if (r < 0)
			goto fail;
		if (r == 0) {
			if (val && !valid_version(val)) {
				err_set(err, "%s:%zu: cuda '%s' is not a version", name, lineno, val);
				free(val);
				goto fail;
			}
			free(*cuda);
			*cuda = val;
		}
	}
	if (!have_version) {
		err_set(err, "%s: no \"__version__ = '...'\" line (truncated or not torch's version.py)", name);
		goto fail;
	}
	return 0;
fail:
	free(*version);
	free(*cuda);
	*version = *cuda = NULL;
	return -1;
}

/* Package names compare after PEP 503 normalisation: case, and runs of -_. as one. */
static int is_torch_name(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return n == 5 && !str_nicmp(s, "torch", 5);
}

int inventory_parse_metadata(const char *text, size_t len, const char *name, char **version, struct err *err)
{
	size_t pos = 0, lineno = 0, n;
	const char *l;
	int named = 0;
	*version = NULL;
	if (len > INV_MAX_TEXT)
		return err_set(err, "%s: larger than %zu bytes", name, INV_MAX_TEXT);
	if (has_nul(text, len, name, err))
		return -1;
	while (text_line(text, len, &pos, &l, &n)) {
		const char *colon, *v;
		size_t k;
		lineno++;
		if (!n)
			break; /* the body (the long description) starts here */
		if (l[0] == ' ' || l[0] == '\t')
			continue; /* a folded header line */
		colon = memchr(l, ':', n);
		if (!colon) {
			err_set(err, "%s:%zu: expected a \"Name: value\" header line", name, lineno);
			goto fail;
		}
		k = (size_t)(colon - l);
		v = colon + 1;
		while (v < l + n && (*v == ' ' || *v == '\t'))
			v++;
		if (k == 4 && !str_nicmp(l, "Name", 4)) {
			if (!is_torch_name(v, (size_t)(l + n - v))) {
				err_set(err, "%s:%zu: Name is \"%.*s\", expected torch", name, lineno,
					(int)((size_t)(l + n - v) > 100 ? 100 : (size_t)(l + n - v)), v);
				goto fail;
			}
			named = 1;
		} else if (k == 7 && !str_nicmp(l, "Version", 7)) {
			size_t vn = (size_t)(l + n - v);
			while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
				vn--;
			free(*version);
			*version = xstrndup(v, vn);
			if (!valid_version(*version)) {
				err_set(err, "%s:%zu: Version \"%.*s\" is not a version", name, lineno,
					(int)(vn > 100 ? 100 : vn), v);
				goto fail;
			}
		}
	}
	if (!*version) {
		err_set(err, "%s: no Version: header (truncated?)", name);
		goto fail;
	}
	if (!named) {
		err_set(err, "%s: no Name: header (truncated?)", name);
		goto fail;
	}
	return 0;
fail:
	free(*version);
	*version = NULL;
	return -1;
}

/*
 * One value of a venv's pyvenv.cfg (`home = C:\Python311`, `version =
 * 3.11.4`, `include-system-site-packages = false`), or NULL. Keys compare
 * case-insensitively; the last occurrence wins, as in CPython's site.py.
 */
char *inventory_pyvenv_value(const char *text, size_t len, const char *key)
{
	size_t pos = 0, n, klen = strlen(key);
	const char *l;
	char *out = NULL;
	while (text_line(text, len, &pos, &l, &n)) {
		const char *eq = memchr(l, '=', n), *val;
		size_t k, vn;
		if (!eq)
			continue;
		k = (size_t)(eq - l);
		while (k && (l[k - 1] == ' ' || l[k - 1] == '\t'))
			k--;
		val = eq + 1;
		while (val < l + n && (*val == ' ' || *val == '\t'))
			val++;
		vn = (size_t)(l + n - val);
		while (vn && (val[vn - 1] == ' ' || val[vn - 1] == '\t'))
			vn--;
		if (k == klen && !str_nicmp(l, key, k) && vn) {
			free(out);
			out = xstrndup(val, vn);
		}
	}
	return out;
}
