/*
 * gate_profile: a pinned torch judged on machine profiles (matrix.h's
 * `profiles`, docs/profiles.md) besides the runner, for the pre-merge gate
 * (gate.h). A runner is not a user's machine: GitHub's images carry Visual
 * Studio, whose C++ workload puts libomp140.x86_64.dll in System32, and a
 * newer VC++ redistributable, so a pin can pass on the runner and fail for
 * every user.
 *
 * A profile is judged as the runner is, by the same judge of a matrix row
 * (gate_row.h), on the profile's machine instead of the runner's view: its
 * System32 holds exactly the profile's DLLs with their versions
 * (gate_runner.h's `profile`), its registry the profile's redistributable,
 * and there is no python.exe folder (a user's Python is not known). A range
 * is judged by its newest row, as pip resolves it.
 *
 * A profile can only add failures: what fails on the runner is the
 * runner's finding (already reported); an error on a profile that the
 * runner does not have is one profile-fails error per cause, naming every
 * profile it holds on and saying why the runner passes (the DLL the runner
 * has and the profile lacks: "loads on this runner only because Visual
 * Studio is installed here"). Warnings on a profile count in its verdict
 * only. Nothing here prints.
 */
#ifndef TDC_GATE_PROFILE_H
#define TDC_GATE_PROFILE_H

#include <stddef.h>

#include "judge/finding.h"
#include "judge/gate_runner.h"
#include "machine/inventory.h"
#include "machine/memory.h"
#include "matrix/matrix.h"
#include "pins/pins.h"

/* The profile the gate judges besides the runner when none is named. */
#define GATE_DEFAULT_PROFILE "win11-24h2-clean-vc14.44"

/*
 * The profile's memory as the commit judge reads it (judge/commit.h):
 * memory_gb as physical memory (0 when the profile does not say it: the
 * limit is then unknown, never a pass), paging_file as one paging file
 * (system-managed, a fixed size, or none; not said: Windows' default, one
 * system-managed file, with a note saying so). Release with
 * machine_memory_release.
 */
void gate_profile_memory(struct machine_memory *mem, const struct matrix_profile *p);

/* "16 GB, system-managed paging file", "16 GB, no paging file", "memory not said" (caller frees). */
char *gate_profile_memory_text(const struct matrix_profile *p);

/*
 * The matrix row's min_windows against the profile's `build`: one
 * windows-too-old error (WinError 127 on kernel32.dll) into `out` when the
 * profile's Windows is older; nothing when the row does not say it.
 * `version`: the torch judged, for the words.
 */
void gate_profile_windows(struct findings *out, const struct matrix_row *row, const char *version,
			  const struct matrix_profile *p);

/* One pin's verdict on one machine (the runner or a profile). */
enum gate_state { GATE_NOT_JUDGED = -1, GATE_PASS = 0, GATE_WARN = 1, GATE_FAIL = 2 };

struct gate_profile_verdict {
	enum gate_state state;
	int winerror;  /* the first error's [WinError N], 0: none */
	char *leaf;    /* the first error's DLL, or NULL */
	char *first;   /* the first error's title on that machine, or NULL */
};

void gate_profile_verdict_release(struct gate_profile_verdict *v);

/*
 * The profile's registry as an inventory: its redistributable per
 * architecture, installed with its version, or absent; and its NVIDIA
 * driver as the CUDA judge reads it (gpu: System32\nvcuda.dll of the
 * profile's driver version, or none for a profile without an NVIDIA GPU),
 * never the runner's (release with inventory_release).
 */
void gate_profile_inventory(struct inventory *inv, const struct matrix_profile *p);

/*
 * One pin `t` on each of r->profiles: the verdicts into v[0..r->nprofiles)
 * (release each), and into `out` one profile-fails error per cause the
 * runner does not share. `runner` is out[first..]: the findings already
 * emitted for this pin on the runner; `cache` is the runner's search cache.
 */
void gate_profiles_target(struct findings *out, size_t first, struct gate_profile_verdict *v,
			  const struct torch_target *t, const struct matrix *m, const struct gate_runner *r,
			  struct gate_copies *cache);

/* The worst severity among out[first..]: the runner's verdict on a pin. */
enum gate_state gate_state_of(const struct findings *out, size_t first);

#endif
