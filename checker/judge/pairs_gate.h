/*
 * pairs_gate: `check --pins` judging the pairs a repository pins — torch and
 * the extensions built for one torch release each (torchvision,
 * torchaudio). For every pin file, an extension pinned to an exact release
 * whose win_amd64 wheel requires another torch than the one the same file
 * (else the repository's first torch pin) fixes is an `extension-pair` error
 * anchored on the extension's pin: pip cannot install the pair, and forced
 * together (`--no-deps`) its binaries fail with WinError 127 on torch's
 * symbols. What each release requires is the measured evidence
 * (matrix/pairs.h); pins that do not apply on Windows are left alone.
 */
#ifndef TDC_PAIRS_GATE_H
#define TDC_PAIRS_GATE_H

#include "judge/finding.h"
#include "pins/pins.h"

/* Adds the findings; returns how many. */
size_t gate_extension_pairs(struct findings *out, const struct pinset *head);

#endif
