/*
 * req_pipfile: the pins and indexes of a Pipfile.
 */
#ifndef TDC_REQ_PIPFILE_H
#define TDC_REQ_PIPFILE_H

#include "util/err.h"
#include "pins/pin.h"
#include "util/toml.h"

/* Reads the parsed document root into f; 0, or -1 with "PATH:LINE:COL: message" in err. */
int req_parse_pipfile(struct req_file *f, const struct toml *root, struct err *err);

#endif
