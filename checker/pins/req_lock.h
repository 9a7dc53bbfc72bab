/*
 * req_lock: the locked packages of uv.lock, poetry.lock and pdm.lock.
 */
#ifndef TDC_REQ_LOCK_H
#define TDC_REQ_LOCK_H

#include "util/err.h"
#include "pins/pin.h"
#include "util/toml.h"

/* Reads the [[package]] entries of the parsed document root into f as
 * PIN_FORM_LOCKED pins; 0, or -1 with "PATH:LINE:COL: message" in err. */
int req_parse_lock(struct req_file *f, const struct toml *root, struct err *err);

#endif
