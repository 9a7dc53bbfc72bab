/*
 * torchproc: each torch release's own _load_dll_libraries, as a value.
 *
 * torch's DLL procedure (docs/loader.md §2) changed over the releases: 2.3.1
 * added the user base's Library\bin (pytorch/pytorch#125109: `pip --user`
 * with MKL), 2.6.0 stopped probing vcruntime140_1.dll on ARM64, 2.8.0 added
 * sys.exec_prefix\bin and dropped the NVTX folder for one release, 2.14.0
 * anchored torch\lib on the torch._C extension. What each release does is
 * data of the matrix (its top-level `torch_load` table, measured from
 * torch/__init__.py of every win_amd64 wheel: matrix/evidence/
 * torch-win_amd64-init.txt); the matrix layer turns the entry that covers a
 * release into this value and torchload follows it. This module only holds
 * the value and the one built-in procedure followed when no matrix entry
 * is given (the newest measured releases', with a note saying so).
 */
#ifndef TDC_TORCHPROC_H
#define TDC_TORCHPROC_H

#include <stddef.h>

/* The folders dll_paths may hold before NVTX and CUDA, as the matrix names them. */
enum torch_folder {
	TORCH_FOLDER_LIB,         /* torch\lib */
	TORCH_FOLDER_PREFIX,      /* sys.exec_prefix\Library\bin */
	TORCH_FOLDER_BASE_PREFIX, /* sys.base_exec_prefix\Library\bin, when it differs (a venv) */
	TORCH_FOLDER_USERBASE,    /* the user base's Library\bin (sysconfig "userbase") */
	TORCH_FOLDER_PREFIX_BIN,  /* sys.exec_prefix\bin */
	TORCH_FOLDER_COUNT
};

/* When the VC++ probe loads vcruntime140_1.dll. */
enum torch_vc1 { TORCH_VC1_ALWAYS, TORCH_VC1_NOT_ARM64, TORCH_VC1_NOT_OLD_CUDA };

struct torch_proc {
	unsigned char folders[TORCH_FOLDER_COUNT]; /* enum torch_folder, in dll_paths order */
	size_t nfolders;
	int nvtx;                 /* NVTOOLSEXT_PATH\bin\x64 when no dll_paths folder has nvToolsExt64_1.dll */
	enum torch_vc1 vc1;
	int anchor_c;             /* torch\lib found from torch._C (2.14.0 on), else from __file__ */
	char torch[64];           /* the entry's torch specifier (">=2.3.1,<2.6"), or "built-in" */
	char entry[160];          /* where the entry is written ("<embedded>/matrix/torch.yml:700"), or "" */
	char status[16];          /* the entry's status: measured, sourced, inferred */
	char lines[256];          /* this release's "dll_paths:83,userbase:72,..." when measured, else "" */
	unsigned line;            /* this release's line of `dll_paths = ` in torch/__init__.py, 0 unknown */
	int exact;                /* the entry's `torch` covers the release (else the nearest entry, or built-in) */
	char note[240];           /* why this procedure when not exact, else "" */
};

/* Names as the matrix writes them ("lib", "not-arm64", ...); NULL-terminated lists for readers. */
extern const char *const torch_folder_names[TORCH_FOLDER_COUNT + 1];
extern const char *const torch_vc1_names[4];

/* Whether the procedure adds folder f. */
int torch_proc_has(const struct torch_proc *p, enum torch_folder f);

/*
 * The built-in procedure (the newest measured releases': every folder,
 * NVTX, vcruntime140_1 not on ARM64, torch._C), with `note` saying why it was
 * followed (NULL: no note).
 */
void torch_proc_builtin(struct torch_proc *out, const char *note);

#endif
