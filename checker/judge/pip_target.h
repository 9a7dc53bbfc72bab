/*
 * pip_target: torch installed with `pip install --target DIR`.
 *
 * `--target` installs into a plain folder: pip installs under a temporary
 * home scheme and moves what it holds into DIR, the wheels' data files too
 * (pip's `_handle_target_dir`: the data folder's `Library\` lands beside the
 * packages), so mkl's and intel-openmp's DLLs end up in `DIR\Library\bin`.
 * torch's own DLL search (torch/__init__.py, each release's folders:
 * matrix/torch.yml `torch_load`, docs/loader.md §2.1) adds torch\lib,
 * `sys.exec_prefix\Library\bin`, a venv's base `Library\bin`, from 2.3.1 the
 * user base's and from 2.8 `sys.exec_prefix\bin`: the interpreter's
 * folders, never the target folder's. A DLL only in `DIR\Library\bin` is
 * then missing (126), and "pip install mkl" (judge/required) would install
 * it into the interpreter's environment, not fix the program that puts DIR
 * on sys.path: the fix is `os.add_dll_directory(r"DIR\Library\bin")` before
 * `import torch` (carson-katri/dream-textures#796).
 *
 * The layout: the site folder holding torch is not an environment's
 * site-packages (inventory found no python.exe or pyvenv.cfg above it: kind
 * "unknown") nor a user site.
 */
#ifndef TDC_PIP_TARGET_H
#define TDC_PIP_TARGET_H

#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/inventory.h"
#include "machine/view.h"

/* Whether install's site folder is a plain folder (`pip install --target`), not an environment's. */
int pip_target_layout(const struct inv_install *install);

/*
 * For a --target layout: each missing-dll finding of the run whose leaf is
 * in the site folder's Library\bin gets the os.add_dll_directory fix and
 * says why torch does not search that folder. Runs after required_judge
 * (its `pip install` fix is replaced).
 */
void pip_target_judge(struct findings *out, const struct torch_run *run, struct view *v,
		      const struct inv_install *install);

#endif
