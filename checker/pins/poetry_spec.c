/*
 * poetry_spec: Poetry's constraint language translated to PEP 440: caret,
 * tilde, bare and wildcard versions
 * (https://python-poetry.org/docs/dependency-specification/).
 */
#include "pins/poetry_spec.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/text.h"

/* Numeric release parts of v ("2.4.1" -> {2,4,1}); -1 if v is not plain digits and dots. */
static int release_parts(const char *v, long *parts, int max)
{
	int n = 0;
	while (*v) {
		long x = 0;
		int digits = 0;
		while (ascii_isdigit((unsigned char)*v)) {
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
	if (ascii_isdigit((unsigned char)c[0])) {
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
		while (*p == ',' || ascii_isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		/* A clause ends at ',' or at a space that is not between an operator and its version. */
		while (*p && *p != ',' && n + 1 < sizeof(clause)) {
			if (ascii_isspace((unsigned char)*p)) {
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
