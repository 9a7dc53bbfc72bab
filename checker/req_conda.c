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
		while (ascii_isdigit((unsigned char)*c) || (*c == '.' && ascii_isdigit((unsigned char)c[1]))) {
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

/* The pin of a match spec, with its channel and name; *rest: what follows the name. NULL with err on error. */
static struct pin *conda_pin(struct req_file *f, const struct ynode *y, const char **rest, struct err *err)
{
	const char *s = y->str, *name, *cc = strstr(s, "::");
	struct strbuf nb = STRBUF_INIT;
	struct pin *p;
	size_t nl = 0, lead = 0;
	char ex[120];

	while (ascii_isspace((unsigned char)s[lead]))
		lead++;
	p = req_add_pin(f, y->line, y->col + (unsigned)lead, PIN_SRC_CONDA, err);
	if (!p)
		return NULL;
	p->raw = req_trim_dup(s, strlen(s));
	name = s + lead;
	if (cc) {
		p->channel = req_trim_dup(name, (size_t)(cc - name));
		name = cc + 2;
	}
	while (ascii_isalnum((unsigned char)name[nl]) || name[nl] == '-' || name[nl] == '_' || name[nl] == '.')
		nl++;
	if (!nl) {
		text_excerpt(s, strlen(s), sizeof(ex) - 4, ex, sizeof(ex));
		req_ferr(f, err, y->line, y->col, "expected a conda package name in '%s'", ex);
		return NULL;
	}
	req_normalize_name(name, nl, &nb);
	p->name = strbuf_detach(&nb);
	*rest = name + nl;
	while (**rest == ' ' || **rest == '\t')
		(*rest)++;
	if (**rest == '[') {
		text_excerpt(s, strlen(s), sizeof(ex) - 4, ex, sizeof(ex));
		req_ferr(f, err, y->line, y->col, "conda bracket specs are not supported: '%s'", ex);
		return NULL;
	}
	return p;
}

/* "=1.17[=build]": fuzzy, 1.17.* (-1 when no version follows the '='). */
static int conda_fuzzy(struct pin *p, const char *rest, char **build)
{
	size_t vl = strcspn(rest + 1, "= \t");
	char *version = xstrndup(rest + 1, vl);
	if (rest[1 + vl] == '=' || rest[1 + vl] == ' ')
		*build = req_trim_dup(rest + 2 + vl, strlen(rest + 2 + vl));
	p->spec = req_strip_spaces(rest, strlen(rest));
	if (vl)
		p->pep440 = strchr(version, '*') ? xasprintf("==%s", version) : xasprintf("==%s.*", version);
	free(version);
	return vl ? 0 : -1;
}

/* "==1.17[=build]": exact. */
static void conda_exact(struct pin *p, const char *rest, char **build)
{
	size_t vl = strcspn(rest + 2, "= \t");
	char *version = xstrndup(rest + 2, vl);
	if (rest[2 + vl])
		*build = req_trim_dup(rest + 3 + vl, strlen(rest + 3 + vl));
	p->spec = req_strip_spaces(rest, strlen(rest));
	p->pep440 = xasprintf("==%s", version);
	if (!strchr(version, '*'))
		p->version = version;
	else
		free(version);
}

/* ">=2.4,<2.6[ build]": a range, PEP 440 when it reads as one (no '|'). */
static void conda_range(struct pin *p, const char *rest, char **build)
{
	size_t vl = strcspn(rest, " \t");
	p->spec = xstrndup(rest, vl);
	if (rest[vl])
		*build = req_trim_dup(rest + vl, strlen(rest + vl));
	if (!strchr(p->spec, '|') && req_check_specifier(p->spec, strlen(p->spec)) == (size_t)-1)
		p->pep440 = xstrdup(p->spec);
}

/* "1.17[ build]", "1.17.*", "1.1*", "*": exact, or a wildcard, or any version. */
static void conda_bare(struct pin *p, const char *rest, char **build)
{
	size_t vl = strcspn(rest, " \t");
	char *version = xstrndup(rest, vl);
	if (rest[vl])
		*build = req_trim_dup(rest + vl, strlen(rest + vl));
	if (!strcmp(version, "*")) {
		p->form = PIN_FORM_NAME;
	} else if (strchr(version, '*')) {
		size_t l = strlen(version);
		p->spec = xstrdup(version);
		p->pep440 = (l >= 2 && version[l - 2] == '.') ? xasprintf("==%s", version)
							     : xasprintf("==%.*s.*", (int)(l - 1), version);
	} else {
		p->spec = xstrdup(version);
		p->pep440 = xasprintf("==%s", version);
		p->version = xstrdup(version);
	}
	free(version);
}

/* One conda match spec: [channel::]name[ version[ build]] | name=ver[=build] | name==ver | name>=a,<b */
static int parse_conda_spec(struct req_file *f, const struct ynode *y, struct err *err)
{
	const char *rest;
	struct pin *p = conda_pin(f, y, &rest, err);
	char *build = NULL;
	char ex[120];

	if (!p)
		return -1;
	if (!*rest)
		return 0;
	p->form = PIN_FORM_SPEC;
	if (rest[0] == '=' && rest[1] != '=') {
		if (conda_fuzzy(p, rest, &build)) {
			free(build);
			return req_ferr(f, err, y->line, y->col, "expected a version after '=' in '%s'", p->raw);
		}
	} else if (rest[0] == '=') {
		conda_exact(p, rest, &build);
	} else if (strchr("<>!~", rest[0])) {
		conda_range(p, rest, &build);
	} else if (ascii_isdigit((unsigned char)rest[0]) || rest[0] == '*') {
		conda_bare(p, rest, &build);
	} else {
		text_excerpt(y->str, strlen(y->str), sizeof(ex) - 4, ex, sizeof(ex));
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
	free(build);
	return 0;
}

/* channels: [...], in file order. */
static void conda_channels(struct req_file *f, const struct ynode *root)
{
	const struct ynode *ch = ymap_get(root, "channels");
	size_t i;
	if (ch && ch->type == Y_SEQ)
		for (i = 0; i < ch->n; i++)
			if (ch->kids[i]->type == Y_SCALAR)
				strlist_push(&f->indexes, ch->kids[i]->str);
}

/* A `- pip: [...]` entry: each string is a requirements-file line. */
static int conda_pip_list(struct req_file *f, const struct ynode *d, struct err *err)
{
	const struct ynode *pip = ymap_get(d, "pip");
	size_t j;
	if (d->type != Y_MAP || !pip || d->n != 2)
		return req_ferr(f, err, d->line, d->col, "a dependencies entry must be a package spec or '- pip: [...]'");
	if (pip->type != Y_SEQ)
		return req_ferr(f, err, pip->line, pip->col, "pip: must be a list of requirements");
	for (j = 0; j < pip->n; j++) {
		const struct ynode *q = pip->kids[j];
		if (q->type != Y_SCALAR)
			return req_ferr(f, err, q->line, q->col, "pip: entries must be requirement strings");
		if (req_parse_pip(f, q->str, strlen(q->str), q->line, q->col, PIN_SRC_CONDA_PIP, err))
			return -1;
	}
	return 0;
}

/* dependencies: [...]: match specs and `- pip:` lists. */
static int conda_dependencies(struct req_file *f, const struct ynode *root, struct err *err)
{
	const struct ynode *deps = ymap_get(root, "dependencies");
	size_t i;
	if (!deps || (deps->type == Y_SCALAR && !deps->str[0]))
		return 0;
	if (deps->type != Y_SEQ)
		return req_ferr(f, err, deps->line, deps->col, "dependencies must be a list");
	for (i = 0; i < deps->n; i++) {
		const struct ynode *d = deps->kids[i];
		if (d->type == Y_SCALAR ? parse_conda_spec(f, d, err) : conda_pip_list(f, d, err))
			return -1;
	}
	return 0;
}

/* pytorch-cuda=12.1 / cpuonly select the build of pytorch in the same environment. */
static void conda_torch_variant(struct req_file *f)
{
	char *file_variant = NULL;
	size_t i;
	for (i = 0; i < f->n_pins; i++) {
		const struct pin *p = &f->pins[i];
		if (p->source != PIN_SRC_CONDA)
			continue;
		if (!strcmp(p->name, "pytorch-cuda") && p->pep440) {
			struct strbuf sb = STRBUF_INIT;
			const char *v = p->pep440 + 2;
			while (*v && *v != '*') {
				if (ascii_isdigit((unsigned char)*v))
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
	free(file_variant);
}

int req_parse_conda(struct req_file *f, const char *buf, size_t len, struct err *err)
{
	struct ynode *root;
	int rc = 0;

	if (yaml_load(f, buf, len, &root, err))
		return -1;
	if (!root || (root->type == Y_SCALAR && !root->str[0])) {
		ynode_free(root);
		return 0;
	}
	if (root->type != Y_MAP)
		rc = req_ferr(f, err, root->line, root->col,
			      "an environment file must be a mapping (name, channels, dependencies)");
	if (!rc) {
		conda_channels(f, root);
		rc = conda_dependencies(f, root, err);
	}
	if (!rc)
		conda_torch_variant(f);
	ynode_free(root);
	return rc;
}
