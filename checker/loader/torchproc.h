/*
 * torchproc: each torch release's own _load_dll_libraries, as measured.
 *
 * torch's DLL procedure (docs/loader.md §2) changed over the releases: 2.3.1
 * added the user base's Library\bin (pytorch/pytorch#125109: `pip --user`
 * with MKL), 2.6.0 stopped probing vcruntime140_1.dll on ARM64, 2.8.0 added
 * sys.exec_prefix\bin and dropped the NVTX folder for one release, 2.14.0
 * anchored torch\lib on the torch._C extension. torchload follows the
 * procedure of the release it checks: one row per procedure, each naming the
 * first release that has it, measured from torch/__init__.py of every
 * win_amd64 wheel PyPI serves (tests/wheels/survey_init.py; evidence in
 * matrix/evidence/torch-win_amd64-init.txt, with the line of each statement
 * per release). A release before the first measured one gets the oldest
 * row; a newer one, or an unknown version, the newest (and torchload says
 * which it used).
 */
#ifndef TDC_TORCHPROC_H
#define TDC_TORCHPROC_H

struct torch_proc {
	const char *since;          /* the first release with this procedure ("2.3.1") */
	const char *source;         /* "torch/__init__.py:83 of torch 2.3.1": dll_paths, as measured */
	unsigned userbase : 1;      /* the user base's Library\bin (sysconfig "userbase") */
	unsigned prefix_bin : 1;    /* sys.exec_prefix\bin */
	unsigned nvtx : 1;          /* NVTOOLSEXT_PATH\bin\x64 when no dll_paths folder has nvToolsExt64_1.dll */
	unsigned vc1_arm64 : 1;     /* vcruntime140_1.dll not probed on ARM64 */
	unsigned vc1_old_cuda : 1;  /* vcruntime140_1.dll not probed for CUDA 9.2 / 10.0 builds */
};

/*
 * The procedure of torch `version` (PEP 440 text, "2.3.0+cpu"; NULL or
 * unreadable: the newest). *exact: set to 1 when `version` falls inside the
 * measured releases (at or after the row's `since`, not newer than the newest
 * measured), else 0.
 */
const struct torch_proc *torch_proc_for(const char *version, int *exact);

/* The line of `dll_paths = ...` in torch/__init__.py of release `version` if it was measured, else 0. */
unsigned torch_proc_line(const char *version);

/* The newest release whose torch/__init__.py was measured ("2.15.0"). */
const char *torch_proc_newest_measured(void);

#endif
