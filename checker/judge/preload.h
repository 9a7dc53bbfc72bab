/*
 * preload: a package's preload inside `import torch` (loader/pkgpreload.h;
 * TheRock's torch\_rocm_init.py) as findings. When the preload raised
 * before torch loaded anything (its module, a package or a DLL missing), one
 * `package-preload-failed` error says Python's words, the folder or pattern
 * not found and the entry's fix (pip install "rocm[libraries]==<version>").
 * A missing-dll whose leaf the matrix's vendor_dlls gives to AMD's display
 * driver, on an install whose preload ran, gets the preload's fix instead:
 * there the HIP runtime comes from the rocm-sdk-core wheel, not the driver.
 */
#ifndef TDC_PRELOAD_H
#define TDC_PRELOAD_H

#include "judge/finding.h"
#include "loader/torchload.h"
#include "matrix/matrix.h"

void preload_judge(struct findings *out, const struct matrix *m, const struct torch_run *run);

#endif
