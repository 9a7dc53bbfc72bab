/*
 * min_windows: the machine checked against an install's matrix row
 * min_windows (the oldest Windows whose kernel32.dll exports what the
 * release imports). The machine's version comes from machine/osver.h:
 *
 *   older, real Windows   windows-too-old error (WinError 127 on
 *                         kernel32.dll), the fix naming the Windows needed;
 *   older, a Wine prefix  windows-too-old as a note: Wine's kernel32.dll
 *                         exports the functions whatever version winecfg
 *                         makes it report, so the load succeeds under Wine
 *                         and fails on the real Windows it reports;
 *   unknown               windows-version-unknown note: never a pass, never
 *                         an error;
 *   as new or newer       nothing.
 *
 * A row without min_windows: nothing. Machine profiles are judged by
 * judge/gate_profile.h (their `build`).
 */
#ifndef TDC_MIN_WINDOWS_H
#define TDC_MIN_WINDOWS_H

#include "judge/finding.h"
#include "machine/osver.h"
#include "matrix/matrix.h"

/* `version`: the torch judged (for the words); `install`: its torch folder (the finding's install). */
void min_windows_judge(struct findings *out, const struct matrix_row *row, const char *version, const struct osver *w,
		       const char *install);

#endif
