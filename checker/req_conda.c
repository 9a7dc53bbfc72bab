/*
 * req_conda: conda environment files (environment*.yml, conda*.yaml):
 * channels, match specs, and the `- pip:` sub-list (pip's format, req_pip.c).
 *
 * Match specs as conda's MatchSpec
 * (https://docs.conda.io/projects/conda/en/stable/user-guide/concepts/pkg-search.html):
 * `=1.17` is fuzzy 1.17.*, `==` exact; `channel::name`; a build string after
 * the version. The CUDA variant of pytorch comes from its build string
 * (cuda12.1, cpu) or from pytorch-cuda=12.1 / cpuonly in the same file.
 * YAML is read with libyaml into a small bounded tree (no aliases).
 */
#include "req_conda.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "req_pep508.h"
#include "req_pip.h"

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
	return req_ferr(b->f, b->err, (unsigned)ps->problem_mark.line + 1, (unsigned)ps->problem_mark.column + 1,
			"YAML: %s%s%s", ps->problem ? ps->problem : "syntax error", ps->context ? " " : "",
			ps->context ? ps->context : "");
}

/* Builds the node that starts with event ev (already parsed). */
static int yb_node(struct yb *b, yaml_event_t *ev, int depth, struct ynode **out)
{
	struct ynode *y;
	unsigned line = (unsigned)ev->start_mark.line + 1, col = (unsigned)ev->start_mark.column + 1;

	if (ev->type == YAML_ALIAS_EVENT)
		return req_ferr(b->f, b->err, line, col, "YAML aliases are not supported in a pin file");
	if (depth > YAML_MAX_DEPTH)
		return req_ferr(b->f, b->err, line, col, "YAML nested deeper than %d levels", YAML_MAX_DEPTH);
	if (++b->nodes > YAML_MAX_NODES)
		return req_ferr(b->f, b->err, line, col, "more than %d YAML nodes", YAML_MAX_NODES);
	y = xcalloc(1, sizeof(*y));
	y->line = line;
	y->col = col;
	if (ev->type == YAML_SCALAR_EVENT) {
		y->type = Y_SCALAR;
		y->str = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		if (strlen(y->str) != ev->data.scalar.length) {
			ynode_free(y);
			return req_ferr(b->f, b->err, line, col, "NUL character in a YAML scalar");
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
		return req_ferr(b->f, b->err, line, col, "unexpected YAML event");
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
	p = req_add_pin(f, y->line, y->col + (unsigned)lead, PIN_SRC_CONDA, err);
	if (!p)
		return -1;
	p->raw = req_trim_dup(s, strlen(s));
	name = s + lead;
	if (cc) {
		p->channel = req_trim_dup(name, (size_t)(cc - name));
		name = cc + 2;
	}
	nl = 0;
	while (is_alnum((unsigned char)name[nl]) || name[nl] == '-' || name[nl] == '_' || name[nl] == '.')
		nl++;
	if (!nl) {
		req_excerpt(ex, sizeof(ex), s, strlen(s));
		return req_ferr(f, err, y->line, y->col, "expected a conda package name in '%s'", ex);
	}
	req_normalize_name(name, nl, &nb);
	p->name = strbuf_detach(&nb);
	rest = name + nl;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (*rest == '[') {
		req_excerpt(ex, sizeof(ex), s, strlen(s));
		return req_ferr(f, err, y->line, y->col, "conda bracket specs are not supported: '%s'", ex);
	}
	if (!*rest)
		return 0;
	p->form = PIN_FORM_SPEC;
	if (rest[0] == '=' && rest[1] != '=') {
		size_t vl = strcspn(rest + 1, "= \t");
		version = xstrndup(rest + 1, vl);
		if (rest[1 + vl] == '=' || rest[1 + vl] == ' ')
			build = req_trim_dup(rest + 2 + vl, strlen(rest + 2 + vl));
		p->spec = req_strip_spaces(rest, strlen(rest));
		if (!vl) {
			free(version);
			free(build);
			return req_ferr(f, err, y->line, y->col, "expected a version after '=' in '%s'", p->raw);
		}
		p->pep440 = strchr(version, '*') ? xasprintf("==%s", version) : xasprintf("==%s.*", version);
	} else if (rest[0] == '=' && rest[1] == '=') {
		size_t vl = strcspn(rest + 2, "= \t");
		version = xstrndup(rest + 2, vl);
		if (rest[2 + vl])
			build = req_trim_dup(rest + 3 + vl, strlen(rest + 3 + vl));
		p->spec = req_strip_spaces(rest, strlen(rest));
		p->pep440 = xasprintf("==%s", version);
		if (!strchr(version, '*'))
			p->version = xstrdup(version);
	} else if (strchr("<>!~", rest[0])) {
		size_t vl = strcspn(rest, " \t");
		p->spec = xstrndup(rest, vl);
		if (rest[vl])
			build = req_trim_dup(rest + vl, strlen(rest + vl));
		if (!strchr(p->spec, '|') && req_check_specifier(p->spec, strlen(p->spec)) == (size_t)-1)
			p->pep440 = xstrdup(p->spec);
	} else if (is_digit((unsigned char)rest[0]) || rest[0] == '*') {
		size_t vl = strcspn(rest, " \t");
		version = xstrndup(rest, vl);
		if (rest[vl])
			build = req_trim_dup(rest + vl, strlen(rest + vl));
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
		req_excerpt(ex, sizeof(ex), s, strlen(s));
		free(version);
		return req_ferr(f, err, y->line, y->col, "cannot read the conda spec '%s'", ex);
	}
	if (p->pep440) {
		char why[ERR_MSG_MAX];
		size_t col;
		/* conda versions need not be PEP 440 ones: no equivalent then, not an error */
		if (req_pep440_check(p->pep440, why, sizeof(why), &col)) {
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

int req_parse_conda(struct req_file *f, const char *buf, size_t len, struct err *err)
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
		rc = req_ferr(f, err, root->line, root->col, "an environment file must be a mapping (name, channels, dependencies)");
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
		rc = req_ferr(f, err, deps->line, deps->col, "dependencies must be a list");
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
			rc = req_ferr(f, err, d->line, d->col, "a dependencies entry must be a package spec or '- pip: [...]'");
			goto out;
		}
		if (pip->type != Y_SEQ) {
			rc = req_ferr(f, err, pip->line, pip->col, "pip: must be a list of requirements");
			goto out;
		}
		for (j = 0; j < pip->n; j++) {
			const struct ynode *q = pip->kids[j];
			if (q->type != Y_SCALAR) {
				rc = req_ferr(f, err, q->line, q->col, "pip: entries must be requirement strings");
				goto out;
			}
			if (req_parse_pip(f, q->str, strlen(q->str), q->line, q->col, PIN_SRC_CONDA_PIP, err)) {
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
