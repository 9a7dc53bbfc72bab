/*
 * record_twins: two torch installs in one site folder, said as one cause.
 *
 * pip names a distribution's record folder after its version
 * (`torch-2.3.0.dist-info`). Installing torch again into a folder without
 * uninstalling the first leaves both: `pip install --target DIR` run twice
 * (pip moves the new `torch-X.dist-info` in beside the old one; without
 * --upgrade it keeps the old torch folder, with --upgrade it replaces the
 * folder but not the old dist-info: pip's `_handle_target_dir`), or an
 * upgrade over an environment whose uninstall did not finish. Then
 * torch\version.py belongs to one of them, judge/record compares the disk
 * with that one's RECORD, and every file the other install put there would
 * read as "a leftover of another install" one by one.
 *
 * This module reads the other torch dist-infos of the folder (their
 * METADATA version and their RECORD's .dll/.pyd rows), says them in one
 * finding naming every dist-info with its version and the one fix (uninstall
 * both, then install one), and lets record.c tell a file the other install
 * lists (explained by that cause) from a real leftover.
 *
 * Bounded: at most RECORD_TWINS_MAX other dist-infos are read; each RECORD
 * through machine/dist (its own bounds); a RECORD that cannot be read is
 * said in the finding, never a crash.
 */
#ifndef TDC_RECORD_TWINS_H
#define TDC_RECORD_TWINS_H

#include "judge/finding.h"
#include "machine/inventory.h"
#include "machine/view.h"
#include "util/strbuf.h"

#define RECORD_TWINS_MAX 32 /* other torch dist-infos read in one folder */

struct record_twins {
	struct strlist dist_infos; /* every torch-*.dist-info of the folder (Windows paths), the used one first */
	struct strlist versions;   /* parallel: each one's METADATA version, "" when unreadable */
	struct strlist notes;      /* why an other's METADATA or RECORD could not be read */
	struct strlist listed;     /* the .dll/.pyd paths the others' RECORDs list, upper-cased, sorted */
	size_t over;               /* torch dist-infos past RECORD_TWINS_MAX, not read */
	char *fix;                 /* the one fix, when there are others */
};

void record_twins_init(struct record_twins *t);
void record_twins_release(struct record_twins *t);

/*
 * Reads the torch dist-infos of install's site folder other than
 * install->dist_info. Returns how many there are (0: torch is installed once
 * there; t->fix stays NULL).
 */
size_t record_twins_read(struct record_twins *t, struct view *v, const struct inv_install *install);

/* Whether another torch dist-info's RECORD lists `winpath` (case-insensitively). */
int record_twins_lists(const struct record_twins *t, const char *winpath);

/*
 * The one finding: every torch dist-info with its version, which one
 * torch\version.py agrees with, and the fix; `theirs` are the binaries torch
 * loads that only the others' RECORDs list (counted, one named). Every
 * loader failure of `install_dir` whose failing binary or file is one of
 * them gets that fix instead of a DLL to install or remove.
 */
void record_twins_judge(struct findings *out, const struct record_twins *t, const struct inv_install *install,
			const char *install_dir, const struct strlist *theirs);

#endif
