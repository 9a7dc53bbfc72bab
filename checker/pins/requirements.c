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

/* ---------- dispatch ---------- */

enum req_kind req_kind_of_path(const char *path)
{
	const char *b = req_basename(path);
	size_t blen = strlen(b);
	int txt = str_iendswith(b, ".txt") || str_iendswith(b, ".in");

	if (!strcmp(b, "pyproject.toml"))
		return REQ_PYPROJECT;
	if (!strcmp(b, "setup.cfg"))
		return REQ_SETUP_CFG;
	if (!strcmp(b, "Pipfile"))
		return REQ_PIPFILE;
	if (!strcmp(b, "uv.lock"))
		return REQ_UV_LOCK;
	if (!strcmp(b, "poetry.lock"))
		return REQ_POETRY_LOCK;
	if (!strcmp(b, "pdm.lock"))
		return REQ_PDM_LOCK;
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


static int parse_toml_file(struct req_file *f, const char *buf, size_t len, struct err *err)
{
	struct toml_doc doc;
	struct err e;
	int rc;
	if (toml_parse(&doc, buf, len, &e))
		return err_set(err, "%s:%s", f->path, e.msg);
	switch (f->kind) {
	case REQ_PYPROJECT: rc = req_parse_pyproject(f, doc.root, err); break;
	case REQ_PIPFILE: rc = req_parse_pipfile(f, doc.root, err); break;
	default: rc = req_parse_lock(f, doc.root, err); break;
	}
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
	switch (kind) {
	case REQ_REQUIREMENTS:
	case REQ_CONSTRAINTS:
		rc = req_parse_pip(f, buf, len, 1, 1,
				   kind == REQ_CONSTRAINTS ? PIN_SRC_CONSTRAINTS : PIN_SRC_REQUIREMENTS, err);
		break;
	case REQ_PYPROJECT:
	case REQ_PIPFILE:
	case REQ_UV_LOCK:
	case REQ_POETRY_LOCK:
	case REQ_PDM_LOCK:
		rc = parse_toml_file(f, buf, len, err);
		break;
	case REQ_CONDA:
		rc = req_parse_conda(f, buf, len, err);
		break;
	case REQ_SETUP_CFG:
		rc = req_parse_setup_cfg(f, buf, len, err);
		break;
	default:
		return err_set(err, "%s: not a file torch is pinned in", path);
	}
	if (rc)
		return -1;
	/* pip applies --index-url / --extra-index-url to every line of the file. */
	if (kind == REQ_REQUIREMENTS || kind == REQ_CONSTRAINTS || kind == REQ_CONDA) {
		for (i = 0; i < f->n_pins; i++) {
			struct pin *p = &f->pins[i];
			size_t j;
			if (p->variant || p->form == PIN_FORM_WHEEL || p->form == PIN_FORM_URL)
				continue;
			if (kind == REQ_CONDA && p->source != PIN_SRC_CONDA_PIP)
				continue;
			for (j = 0; j < f->indexes.n && !p->variant; j++)
				req_set_index(p, f->indexes.v[j]);
			if (!p->variant)
				req_set_str(&p->index_url, NULL);
		}
	}
	return 0;
}
