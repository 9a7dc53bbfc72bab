/*
 * req_poetry: Poetry's [tool.poetry] tables; its constraint language is
 * translated by poetry_spec.h (req_poetry_to_pep440).
 */
#ifndef TDC_REQ_POETRY_H
#define TDC_REQ_POETRY_H

#include "util/err.h"
#include "pins/pin.h"
#include "util/toml.h"

/* Reads a [tool.poetry] table into f; 0, or -1 with "PATH:LINE:COL: message" in err. */
int req_parse_poetry(struct req_file *f, const struct toml *poetry, struct err *err);

#endif
