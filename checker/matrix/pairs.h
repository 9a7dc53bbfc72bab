/*
 * pairs: which torch each release of a torch extension was built for, as
 * measured — the `Requires-Dist: torch==X` of every win_amd64 wheel of
 * torchvision and torchaudio PyPI serves (tests/wheels/survey_ext.sh writes
 * matrix/evidence/extensions-win_amd64.txt; the build embeds it).
 *
 * Used where the installed files do not say it (an extension whose METADATA
 * pins no torch), to name the release that matches an installed torch in a
 * fix ("install torchvision==0.24.1"), and by `check --pins` to judge a
 * pinned pair before anything is installed. Lines it cannot read are
 * skipped (pairs_lint reports them; a unit test keeps the file clean).
 */
#ifndef TDC_PAIRS_H
#define TDC_PAIRS_H

#include <stddef.h>

#define PAIRS_SOURCE "matrix/evidence/extensions-win_amd64.txt"

/* The torch release (X of torch==X) that release `version` of `ext` requires, or NULL. Borrowed. */
const char *pairs_torch_of(const char *ext, const char *version);

/*
 * The newest release of `ext` built for torch `torch_version` (its local
 * part, "+cpu", ignored), or NULL when the evidence has none. Borrowed.
 */
const char *pairs_ext_for(const char *ext, const char *torch_version);

/* Whether the evidence knows `ext` at all. */
int pairs_knows(const char *ext);

/* Lines of `text` that are not evidence lines (0 when clean); the first bad line number in *first_bad. */
size_t pairs_lint(const char *text, size_t len, size_t *first_bad);

#endif
