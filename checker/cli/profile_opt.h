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

#include "judge/check.h"
#include "machine/inventory.h"
#include "machine/view.h"
#include "matrix/matrix.h"
#include "report/result.h"
#include "util/strbuf.h"

/*
 * The profiles `names` says, in order, each once, into *out (an array the
 * caller frees; the profiles are borrowed from m); `dflt` when names is
 * empty (NULL: none). `cmd` names the command in messages. Loads FILE
 * arguments into m first. 0, or -1 after a usage error.
 */
int cli_profiles_resolve(struct matrix *m, const struct strlist *names, const char *dflt, const char *cmd,
			 const struct matrix_profile ***out, size_t *n);

/*
 * check --profile with an install: each install of `report` judged again on
 * each profile's machine (view_hide_system32: what the profile's System32
 * lacks of the DLLs any profile lists is hidden, but nvcuda.dll on a profile
 * with an NVIDIA driver; env's inventory replaced by the profile's
 * redistributable and NVIDIA driver, env's memory by the profile's: the
 * commit limit of --processes); the loader is the same. Each verdict goes
 * into the report's `profile_checks`; a failure the runner does not share is
 * a profile-fails error on the install. A profile never passes an install
 * the runner fails. 0.
 */
int cli_profiles_check(struct result *report, struct view *v, const struct check_env *env, const struct matrix *m,
		       const struct matrix_profile *const *prof, size_t nprof);

/*
 * inventory --write-profile: the machine `inv` was read from (`v`: its tree
 * or the live machine; NULL: a registry file alone) as a profile file named
 * `name` (the redistributable, System32's runtime DLLs with their file
 * versions, nvcuda.dll and the driver it means, Windows' release and build
 * when the registry says them), written to `path`. 0, or -1 with err.
 */
int cli_write_profile(const struct inventory *inv, struct view *v, const char *name, const char *path,
		      struct err *err);

#endif
