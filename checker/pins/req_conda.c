/*
 * req_conda: conda environment files (environment*.yml, conda*.yaml):
 * channels, match specs, and the `- pip:` sub-list (pip's format, req_pip.c).
 *
 * Match specs as conda's MatchSpec
 * (https://docs.conda.io/projects/conda/en/stable/user-guide/concepts/pkg-search.html):
 * `=1.17` is fuzzy 1.17.*, `==` exact; `channel::name`; a build string after
 * the version. The CUDA variant of pytorch comes from its build string
 * (cuda12.1, cpu) or from pytorch-cuda=12.1 / cpuonly in the same file.
 * YAML is read by the one YAML tree reader (util/yamltree.h), with a pin
 * file's bounds.
 */
#include "pins/req_conda.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"
#include "pins/req_pip.h"
#include "util/yamltree.h"

/*
 * The one YAML tree reader (util/yamltree.h), with a pin file's bounds: the
 * caller caps the file at REQ_MAX_FILE_SIZE; anchors and tags are ignored,
 * aliases refused, a second document ends the environment; a "\0" escape is
 * refused rather than cut.
 */
static const struct ytree_opts conda_yaml = {
	64, 200000, REQ_MAX_FILE_SIZE, 200000, "a pin file", "a pin file", NULL, YT_REFUSE_NUL,
};

/* A node's column as pins and errors give it: a quoted scalar's is its first character inside the quotes. */
static unsigned ycol(const struct ynode *y)
{
	return y->col + (y->kind == Y_SCALAR && y->quoted == 1);
}

/* The first document of buf[0..len) (*root NULL: an empty file). */
static int yaml_load(struct req_file *f, const char *buf, size_t len, struct ynode **root, struct err *err)
{
	struct ytree_error ye;
	long start = ytree_check_bytes((const unsigned char *)buf, len, &ye);
	int empty = 0;
	*root = NULL;
	if (start < 0)
		return req_ferr(f, err, ye.line, ye.col, "%s", ye.msg);
	*root = ytree_parse((const unsigned char *)buf + start, len - (size_t)start, &conda_yaml, &empty, &ye);
	if (!*root && !empty)
		return req_ferr(f, err, ye.line, ye.col, "%s", ye.msg);
	return 0;
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
	const char *s = y->s, *name, *cc = strstr(s, "::");
	struct strbuf nb = STRBUF_INIT;
	struct pin *p;
	size_t nl = 0, lead = 0;
	char ex[120];

	while (ascii_isspace((unsigned char)s[lead]))
		lead++;
	p = req_add_pin(f, y->line, ycol(y) + (unsigned)lead, PIN_SRC_CONDA, err);
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
		req_ferr(f, err, y->line, ycol(y), "expected a conda package name in '%s'", ex);
		return NULL;
	}
	req_normalize_name(name, nl, &nb);
	p->name = strbuf_detach(&nb);
	*rest = name + nl;
	while (**rest == ' ' || **rest == '\t')
		(*rest)++;
	if (**rest == '[') {
		text_excerpt(s, strlen(s), sizeof(ex) - 4, ex, sizeof(ex));
		req_ferr(f, err, y->line, ycol(y), "conda bracket specs are not supported: '%s'", ex);
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
			return req_ferr(f, err, y->line, ycol(y), "expected a version after '=' in '%s'", p->raw);
		}
	} else if (rest[0] == '=') {
		conda_exact(p, rest, &build);
	} else if (strchr("<>!~", rest[0])) {
		conda_range(p, rest, &build);
	} else if (ascii_isdigit((unsigned char)rest[0]) || rest[0] == '*') {
		conda_bare(p, rest, &build);
	} else {
		text_excerpt(y->s, strlen(y->s), sizeof(ex) - 4, ex, sizeof(ex));
		return req_ferr(f, err, y->line, ycol(y), "cannot read the conda spec '%s'", ex);
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
	const struct ynode *ch = ynode_get(root, "channels");
	size_t i;
	if (ch && ch->kind == Y_SEQ)
		for (i = 0; i < ch->n; i++)
			if (ch->kid[i]->kind == Y_SCALAR)
				strlist_push(&f->indexes, ch->kid[i]->s);
}

/* A `- pip: [...]` entry: each string is a requirements-file line. */
static int conda_pip_list(struct req_file *f, const struct ynode *d, struct err *err)
{
	const struct ynode *pip = ynode_get(d, "pip");
	size_t j;
	if (d->kind != Y_MAP || !pip || d->n != 2)
		return req_ferr(f, err, d->line, ycol(d), "a dependencies entry must be a package spec or '- pip: [...]'");
	if (pip->kind != Y_SEQ)
		return req_ferr(f, err, pip->line, ycol(pip), "pip: must be a list of requirements");
	for (j = 0; j < pip->n; j++) {
		const struct ynode *q = pip->kid[j];
		if (q->kind != Y_SCALAR)
			return req_ferr(f, err, q->line, ycol(q), "pip: entries must be requirement strings");
		if (req_parse_pip(f, q->s, strlen(q->s), q->line, ycol(q), PIN_SRC_CONDA_PIP, err))
			return -1;
	}
	return 0;
}

/* dependencies: [...]: match specs and `- pip:` lists. */
static int conda_dependencies(struct req_file *f, const struct ynode *root, struct err *err)
{
	const struct ynode *deps = ynode_get(root, "dependencies");
	size_t i;
	if (!deps || (deps->kind == Y_SCALAR && !deps->s[0]))
		return 0;
	if (deps->kind != Y_SEQ)
		return req_ferr(f, err, deps->line, ycol(deps), "dependencies must be a list");
	for (i = 0; i < deps->n; i++) {
		const struct ynode *d = deps->kid[i];
		if (d->kind == Y_SCALAR ? parse_conda_spec(f, d, err) : conda_pip_list(f, d, err))
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
	if (!root || (root->kind == Y_SCALAR && !root->s[0])) {
		ynode_free(root);
		return 0;
	}
	if (root->kind != Y_MAP)
		rc = req_ferr(f, err, root->line, ycol(root),
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
