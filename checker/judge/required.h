/*
 * required: the packages torch's METADATA requires on Windows, named in the
 * fix of a DLL they ship.
 *
 * torch 2.3.x requires `mkl<=2021.4.0,>=2021.1.1; platform_system ==
 * "Windows"` (Requires-Dist of its METADATA; measured per release in
 * matrix/evidence/torch-win_amd64-init.txt): its torch_cpu.dll imports
 * mkl_intel_thread.1.dll, which only the `mkl` wheel ships (into
 * <prefix>\Library\bin, a folder torch adds). Without it torch_cpu.dll fails
 * with 126, and the generic fix ("put the DLL where the loader looks") does
 * not say what to install. Which distribution ships which DLL is measured
 * from the wheels of mkl, intel-openmp and tbb (their RECORDs; the table in
 * required.c): where a missing DLL is one of them and torch's METADATA
 * requires that distribution on Windows, the fix is
 * `pip install "<name><specifier>"` as METADATA writes it.
 *
 * When the DLL is in the user base's Library\bin and the release's own
 * procedure does not search it (torch 2.3.0: loader/torchproc.h), the fix
 * says so: install into the environment, or move to torch >= 2.3.1.
 */
#ifndef TDC_REQUIRED_H
#define TDC_REQUIRED_H

#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/inventory.h"
#include "machine/view.h"
#include "matrix/matrix.h"

/* Gives this install's missing-dll findings the requirement's fix. Reads the install's METADATA. */
void required_judge(struct findings *out, const struct matrix *m, const struct torch_run *run, struct view *v,
		    const struct inv_install *install);

/* The distribution (PEP 503 name) whose wheel ships DLL `name` (the matrix's `vendor_dlls`), NULL if none. */
const char *required_dist_of(const struct matrix *m, const char *name);

/*
 * Whether a Requires-Dist environment marker holds on Windows (PEP 508,
 * pins/req_markers.h: platform_system == "Windows", sys_platform == "win32",
 * os_name == "nt" hold; != "Windows", Linux-only markers do not); none holds;
 * a marker on `extra` does not (pip install torch does not install it); one
 * that depends only on the Python version holds.
 */
int required_marker_on_windows(const char *marker);

#endif
