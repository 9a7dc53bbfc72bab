/*
 * cuda: a CUDA build of torch judged against the machine's NVIDIA driver.
 *
 * What a CUDA build needs beyond what the loader sees (docs/cuda.md):
 *   - nvcuda.dll, the CUDA driver API, which only the NVIDIA display driver
 *     installs (System32). torch's caffe2_nvrtc.dll imports it, delay-loaded
 *     since torch 1.6 (/DELAYLOAD:nvcuda.dll in caffe2/CMakeLists.txt,
 *     pytorch#37811, "so we can import torch compiled with cuda on a
 *     CPU-only machine"), statically before; cudart64_*.dll loads it when
 *     CUDA starts. Without it `import torch` loads (>= 1.6) or fails with
 *     WinError 126 on caffe2_nvrtc.dll (<= 1.5), and CUDA is unavailable
 *     either way: cuda-no-driver, an error, whose fix is the driver or the
 *     CPU build of the same torch. The loader's own finding about
 *     nvcuda.dll (delay-load-missing, or missing-dll for a static import)
 *     says "put nvcuda.dll where the loader looks", which helps nobody: it is
 *     replaced (delay-load) or given this fix (static).
 *   - a driver at least as new as NVIDIA's minimum for the build's CUDA
 *     release: below the minor-version-compatibility floor of its major
 *     release CUDA is unavailable (cuda-driver-too-old, a warning); between
 *     the floor and the toolkit's own driver CUDA runs with a limited
 *     feature set (a note). The minimums are matrix data (matrix/torch.yml,
 *     `cuda`, rows of matrix/schema.def), with NVIDIA's tables as sources.
 *   - its own CUDA libraries: torch\lib carries them; a copy from anywhere
 *     else that a torch binary would bind to (a CUDA toolkit's bin through
 *     %CUDA_PATH_Vx_y% or PATH, another package's folder) is named
 *     (cuda-dll-outside-torch).
 * Facts that cannot be told (an nvcuda.dll without a usable version
 * resource, a +cuXYZ the matrix does not know) are a warning
 * (cuda-driver-unverified), never a silent pass.
 *
 * The same judgement serves the pre-merge gate (check --pins): a pin of a
 * CUDA variant against a runner without the driver is cuda-no-driver before
 * anything is installed (cuda_judge_pin).
 */
#ifndef TDC_CUDA_H
#define TDC_CUDA_H

#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/gpu_driver.h"
#include "machine/inventory.h"
#include "matrix/matrix.h"
#include "util/err.h"

/* What the matrix says a CUDA release needs of the Windows driver. */
struct cuda_need {
	unsigned major, minor;            /* CUDA 12.4 */
	struct nv_driver_version driver;  /* the toolkit's driver: NVIDIA's minimum for the release */
	struct nv_driver_version floor;   /* the minor-version-compatibility floor of the major release */
	int has_floor;
	const char *file;                 /* where the matrix entry was written (borrowed), or NULL */
	unsigned line;
	const char *source;               /* its first source (borrowed), or NULL */
};

/*
 * The need of CUDA major.minor from the matrix: 1 found, 0 not in the
 * matrix's table, -1 the matrix has no CUDA table at all.
 */
int cuda_need_find(const struct matrix *m, unsigned major, unsigned minor, struct cuda_need *out);

/*
 * One install (after the loader's run and its findings are in `out`): adds
 * the CUDA findings, replaces or rewrites the loader's findings about
 * nvcuda.dll. A CPU build adds nothing. Returns 0; -1 only on internal errors.
 */
int cuda_judge_install(struct findings *out, const struct matrix *m, const struct gpu_driver *gpu,
		       const struct inv_install *install, const struct torch_run *run, struct err *err);

/*
 * One torch pin of the gate (check --pins): `version` as pinned ("2.5.1",
 * "2.5.1+cu124"), `variant` its build ("cu124", or NULL: PyPI's default,
 * the CPU build on Windows). Adds the driver findings (no driver, too old,
 * unverified) and returns how many it added (the caller anchors them).
 */
size_t cuda_judge_pin(struct findings *out, const struct matrix *m, const struct gpu_driver *gpu,
		      const char *version, const char *variant);

/* The gate's call: cuda_judge_pin for one torch target, its findings anchored on the pin. */
struct torch_target;
void cuda_gate_target(struct findings *out, const struct torch_target *t, const struct matrix *m,
		      const struct gpu_driver *gpu);

#endif
