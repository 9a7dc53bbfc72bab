/*
 * req_poetry: Poetry's [tool.poetry] tables and its constraint language
 * (req_poetry_to_pep440, declared in requirements.h).
 */
#ifndef TDC_REQ_POETRY_H
#define TDC_REQ_POETRY_H

#include "err.h"
#include "requirements.h"
#include "toml.h"

/* Reads a [tool.poetry] table into f; 0, or -1 with "PATH:LINE:COL: message" in err. */
int req_parse_poetry(struct req_file *f, const struct toml *poetry, struct err *err);

#endif
