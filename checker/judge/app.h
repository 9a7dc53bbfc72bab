/*
 * app: the judging a frozen app adds (docs/loader.md, "Frozen apps"), on a
 * run its launcher started (torch_run.launched), after the policy pass:
 *
 * - a DLL the app does not hold (WinError 126) is one the freezer did not
 *   collect: the fix says how PyInstaller collects it (`--collect-binaries
 *   torch`, a hook's collect_dynamic_libs, `--add-binary`), before the
 *   machine-side fix the loader's rules gave;
 * - a runtime DLL found in the app that is too old or shadows a newer one
 *   was copied in by the freezer from the build machine: the fix says to
 *   rebuild where the VC++ runtime is new enough;
 * - a DLL of the app the process maps that is packed with UPX (sections
 *   named UPX0 / UPX1, as UPX writes them) is an upx-packed warning.
 */
#ifndef TDC_APP_H
#define TDC_APP_H

#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/view.h"

void app_judge(struct findings *out, const struct torch_run *run, struct view *v);

#endif
