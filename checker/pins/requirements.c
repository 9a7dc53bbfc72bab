/*
 * requirements: the front door of the pin-file parsers (see requirements.h
 * for the formats and where we depart from pip, conda, Poetry and uv): which
 * format a path is, and req_file_parse, which hands the file to its parser.
 *
 * One file per format, all on the PEP 508 core (req_pep508.c, with the
 * marker evaluator in req_markers.c):
 *   req_pip.c         requirements*.txt, constraints*.txt, *.in
 *   req_pyproject.c   pyproject.toml (PEP 621, PEP 735, [tool.uv]), with
 *   req_poetry.c      its [tool.poetry] tables and Poetry's constraints
 *   req_pipfile.c     Pipfile
 *   req_lock.c        uv.lock, poetry.lock, pdm.lock
 *   req_toml.c        what the TOML dialects share
 *   req_conda.c       environment.yml
 *   req_setup_cfg.c   setup.cfg
 *
 * Every parser works on a length-delimited buffer: the text formats are
 * first checked for NUL bytes and split into lines by index, never by
 * pointer arithmetic past `len`.
 */
#include "pins/requirements.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_conda.h"
#include "pins/req_lock.h"
#include "pins/req_pep508.h"
#include "pins/req_pip.h"
#include "pins/req_pipfile.h"
#include "pins/req_pyproject.h"
#include "pins/req_setup_cfg.h"
#include "util/toml.h"

/* ---------- the formats ---------- */

static int parse_requirements(struct req_file *f, const char *buf, size_t len, struct err *err)
{
	return req_parse_pip(f, buf, len, 1, 1, PIN_SRC_REQUIREMENTS, err);
}

static int parse_constraints(struct req_file *f, const char *buf, size_t len, struct err *err)
{
	return req_parse_pip(f, buf, len, 1, 1, PIN_SRC_CONSTRAINTS, err);
}

/*
 * One entry per enum req_kind, in its order: the name reports use, the file
 * name that is always this format (the others are recognised by
 * req_kind_of_path's patterns), its parser (of the text, or of the TOML
 * document), and which of its pins pip's --index-url / --extra-index-url
 * lines apply to. Adding a format is a value of enum req_kind and a line here: the
 * size check below and test_requirements' walk of the table fail until both
 * are written.
 */
static const struct req_format {
	const char *name;
	const char *file;
	int (*text)(struct req_file *f, const char *buf, size_t len, struct err *err);
	int (*toml)(struct req_file *f, const struct toml *root, struct err *err);
	enum { NO_INDEX, EVERY_PIN, PIP_PINS } indexes; /* which pins pip's index lines apply to: none, all, conda's pip: list */
} formats[] = {
	[REQ_NONE] = { "none", NULL, NULL, NULL, NO_INDEX },
	[REQ_REQUIREMENTS] = { "requirements", NULL, parse_requirements, NULL, EVERY_PIN },
	[REQ_CONSTRAINTS] = { "constraints", NULL, parse_constraints, NULL, EVERY_PIN },
	[REQ_PYPROJECT] = { "pyproject", "pyproject.toml", NULL, req_parse_pyproject, NO_INDEX },
	[REQ_CONDA] = { "conda", NULL, req_parse_conda, NULL, PIP_PINS },
	[REQ_SETUP_CFG] = { "setup.cfg", "setup.cfg", req_parse_setup_cfg, NULL, NO_INDEX },
	[REQ_PIPFILE] = { "pipfile", "Pipfile", NULL, req_parse_pipfile, NO_INDEX },
	[REQ_UV_LOCK] = { "uv.lock", "uv.lock", NULL, req_parse_lock, NO_INDEX },
	[REQ_POETRY_LOCK] = { "poetry.lock", "poetry.lock", NULL, req_parse_lock, NO_INDEX },
	[REQ_PDM_LOCK] = { "pdm.lock", "pdm.lock", NULL, req_parse_lock, NO_INDEX },
};
_Static_assert(sizeof(formats) / sizeof(formats[0]) == REQ_KIND_COUNT, "one entry of formats[] per enum req_kind");

const char *req_kind_name(enum req_kind k)
{
	return (size_t)k < REQ_KIND_COUNT && formats[k].name ? formats[k].name : "?";
}

enum req_kind req_kind_of_path(const char *path)
{
	const char *b = req_basename(path);
	size_t blen = strlen(b), k;
	int txt = str_iendswith(b, ".txt") || str_iendswith(b, ".in");

	for (k = 0; k < REQ_KIND_COUNT; k++)
		if (formats[k].file && !strcmp(b, formats[k].file))
			return (enum req_kind)k;
	if ((str_istartswith(b, "environment") || str_istartswith(b, "conda")) &&
	    (str_iendswith(b, ".yml") || str_iendswith(b, ".yaml")))
		return REQ_CONDA;
	if (txt && strstr(b, "constraints"))
		return REQ_CONSTRAINTS;
	if (txt && strstr(b, "requirements"))
		return REQ_REQUIREMENTS;
	/* requirements/base.txt, requirements/windows.in */
	if (txt && blen < strlen(path)) {
		size_t dlen = (size_t)(b - path) - 1;
		const char *d = path;
		size_t i;
		for (i = 0; i < dlen; i++)
			if (path[i] == '/' || path[i] == '\\')
				d = path + i + 1;
		if ((size_t)(b - 1 - d) == strlen("requirements") && !strncmp(d, "requirements", 12))
			return REQ_REQUIREMENTS;
	}
	return REQ_NONE;
}

static int parse_toml_file(struct req_file *f, const struct req_format *fmt, const char *buf, size_t len,
			   struct err *err)
{
	struct toml_doc doc;
	struct err e;
	int rc;
	if (toml_parse(&doc, buf, len, &e))
		return err_set(err, "%s:%s", f->path, e.msg);
	rc = fmt->toml(f, doc.root, err);
	toml_doc_release(&doc);
	return rc;
}

static int check_text(const struct req_file *f, const char *buf, size_t len, struct err *err)
{
	const char *nul = memchr(buf, '\0', len);
	if (nul) {
		unsigned line = 1, col = 1;
		const char *p;
		for (p = buf; p < nul; p++) {
			if (*p == '\n') {
				line++;
				col = 1;
			} else {
				col++;
			}
		}
		return req_ferr(f, err, line, col, "NUL byte: not a text file");
	}
	return 0;
}

int req_file_parse(struct req_file *f, const char *path, enum req_kind kind, const char *buf, size_t len,
		   struct err *err)
{
	const struct req_format *fmt;
	size_t i;
	int rc;
	if (kind == REQ_NONE)
		kind = req_kind_of_path(path);
	f->path = xstrdup(path);
	f->kind = kind;
	if (len > REQ_MAX_FILE_SIZE)
		return err_set(err, "%s: larger than %u bytes; refusing to parse it", path, REQ_MAX_FILE_SIZE);
	if (check_text(f, buf, len, err))
		return -1;
	fmt = (size_t)kind < REQ_KIND_COUNT ? &formats[kind] : NULL;
	if (!fmt || (!fmt->text && !fmt->toml))
		return err_set(err, "%s: not a file torch is pinned in", path);
	rc = fmt->text ? fmt->text(f, buf, len, err) : parse_toml_file(f, fmt, buf, len, err);
	if (rc)
		return -1;
	/* pip applies --index-url / --extra-index-url to every line of the file. */
	if (fmt->indexes != NO_INDEX) {
		for (i = 0; i < f->n_pins; i++) {
			struct pin *p = &f->pins[i];
			size_t j;
			if (p->variant || p->form == PIN_FORM_WHEEL || p->form == PIN_FORM_URL)
				continue;
			if (fmt->indexes == PIP_PINS && p->source != PIN_SRC_CONDA_PIP)
				continue;
			for (j = 0; j < f->indexes.n && !p->variant; j++)
				req_set_index(p, f->indexes.v[j]);
			if (!p->variant)
				req_set_str(&p->index_url, NULL);
		}
	}
	return 0;
}
