/*
 * req_pyproject: the pins, indexes and includes of a pyproject.toml.
 */
#ifndef TDC_REQ_PYPROJECT_H
#define TDC_REQ_PYPROJECT_H

#include "util/err.h"
#include "pins/pin.h"
#include "util/toml.h"

/* Reads the parsed document root into f; 0, or -1 with "PATH:LINE:COL: message" in err. */
int req_parse_pyproject(struct req_file *f, const struct toml *root, struct err *err);

#endif
