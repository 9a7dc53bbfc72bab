/*
 * tdc: the tool's own version, written into every report it produces
 * (result.c, inventory and pins JSON) and printed by --version. One place:
 * action/dist.sh reads it from here for the release's tag.
 */
#ifndef TDC_TDC_H
#define TDC_TDC_H

#define TDC_VERSION "0.1.0"

#endif
