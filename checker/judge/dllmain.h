/*
 * dllmain: the DllMain that fails, predicted — WinError 1114
 * (ERROR_DLL_INIT_FAILED) carried by the torch binaries it stops.
 *
 * The loader maps and binds; it never runs an initialisation routine
 * (docs/loader.md §6). A matrix row's runtime DLL with a `winerror` says what
 * happens when the copy the process resolves is older than `min_version`:
 * torch 2.9 and later, built with the STL of VS 17.10 (14.40), crash in the
 * initialisation of their first module that uses that STL when msvcp140.dll
 * is older (microsoft/STL#4730, pytorch/pytorch#169429). Which module: the
 * first one initialised — binaries in torch's load order, each module after
 * its dependencies (the loader runs DllMain bottom-up) — that imports the
 * runtime DLL itself and was linked by a toolset at least as new as the
 * minimum (its PE linker version: an older toolset's STL has no constexpr
 * mutex). Every torch binary whose load maps that module and otherwise loads
 * then fails with the row's `winerror`: Windows runs the failed DllMain again
 * on each later load, since the failed load left nothing loaded. **[I]**,
 * settled by the Wine oracle on the real torch 2.9.1, 2.12.1 and 2.14.1
 * wheels with the real msvc-runtime 14.34 DLLs: Wine names the same module
 * ("Initialization of c10.dll failed") and fails the same binaries.
 *
 * dllmain_judge() marks those binaries in the torch run (torch_run_init_failed:
 * the import error is decided again, torch's way) and adds one finding per
 * binary, of the same root cause as policy's runtime-too-old finding (rule,
 * WinError, install, leaf), so every renderer says it once and lists the
 * binaries it fails. Call it after torch_run and before result_add_install.
 */
#ifndef TDC_DLLMAIN_H
#define TDC_DLLMAIN_H

#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/inventory.h"
#include "matrix/matrix.h"
#include "machine/view.h"

/*
 * Applies the runtime DLLs of install's matrix row (chosen as policy
 * chooses it: version, variant, the process's architecture) to `run`.
 * `install` may be NULL (no version: no row, nothing to do). Returns the
 * number of binaries marked.
 */
size_t dllmain_judge(struct findings *out, struct torch_run *run, struct view *v, const struct matrix *m,
		     const struct inv_install *install);

#endif
