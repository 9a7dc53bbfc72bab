/*
 * req_setup_cfg: the pins and includes of a setup.cfg.
 */
#ifndef TDC_REQ_SETUP_CFG_H
#define TDC_REQ_SETUP_CFG_H

#include <stddef.h>

#include "util/err.h"
#include "pins/pin.h"

/* Parses buf[0..len) into f; 0, or -1 with "PATH:LINE:COL: message" in err. */
int req_parse_setup_cfg(struct req_file *f, const char *buf, size_t len, struct err *err);

#endif
