/*
 * req_conda: the channels and pins of a conda environment file.
 */
#ifndef TDC_REQ_CONDA_H
#define TDC_REQ_CONDA_H

#include <stddef.h>

#include "util/err.h"
#include "pins/pin.h"

/* Parses buf[0..len) (YAML; its first document only) into f; 0, or -1 with
 * "PATH:LINE:COL: message" in err. */
int req_parse_conda(struct req_file *f, const char *buf, size_t len, struct err *err);

#endif
