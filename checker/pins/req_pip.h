/*
 * req_pip: pip's requirements file format, for requirements*.txt,
 * constraints*.txt and *.in files and for the lines of a conda `- pip:` list.
 */
#ifndef TDC_REQ_PIP_H
#define TDC_REQ_PIP_H

#include <stddef.h>

#include "util/err.h"
#include "pins/pin.h"

/*
 * Parses buf[0..len) as requirements-file lines into f: pins labelled `src`,
 * -r/-c includes, index URLs. (first_line, first_col) is where buf's first
 * byte sits in the real file (a conda `- pip:` entry starts mid-file).
 * Returns 0, or -1 with "PATH:LINE:COL: message" in err.
 */
int req_parse_pip(struct req_file *f, const char *buf, size_t len, unsigned first_line, unsigned first_col,
		  enum pin_source src, struct err *err);

#endif
