/*
 * profile_opt: `--profile NAME|FILE` (repeatable), the machine profiles a
 * check judges besides the runner (docs/profiles.md): a NAME is a profile
 * of the matrix in effect (built-in or from --matrix), a FILE (a path that
 * exists, or one ending in .yml/.yaml) a matrix layer whose profiles are all
 * judged; `none` alone: no profile, the runner alone. An unknown name is a usage error listing the known ones, with the
 * nearest; a bad file is one with its file:line:col.
 */
#ifndef TDC_CLI_PROFILE_OPT_H
#define TDC_CLI_PROFILE_OPT_H

#include <stddef.h>

#include "matrix/matrix.h"
#include "util/strbuf.h"

/*
 * The profiles `names` says, in order, each once, into *out (an array the
 * caller frees; the profiles are borrowed from m); `dflt` when names is
 * empty (NULL: none). `cmd` names the command in messages. Loads FILE
 * arguments into m first. 0, or -1 after a usage error.
 */
int cli_profiles_resolve(struct matrix *m, const struct strlist *names, const char *dflt, const char *cmd,
			 const struct matrix_profile ***out, size_t *n);

#endif
