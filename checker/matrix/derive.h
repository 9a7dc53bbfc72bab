/*
 * derive: the facts a matrix row needs, measured from a real torch install.
 *
 * Given a folder holding torch (an unpacked wheel, a site-packages, or the
 * torch package folder itself), reads every DLL in torch\lib and every .pyd
 * at the top of the torch package and records, per binary, the linker
 * version in its optional header (MSVC writes its toolset there: 14.29 =
 * VS 2019 16.11, 14.4x = VS 2022 17.1x), the VC++ runtime DLLs and the
 * OpenMP runtime it imports (import and delay-import tables), and its
 * machine. From these it sums up what a row of matrix/torch.yml says:
 * the toolset (the newest linker among the binaries that use the VC++
 * runtime: Microsoft's redistributable must be at least that new), whether
 * vcruntime140_1.dll is imported, which OpenMP runtimes are imported, by
 * whom, and whether torch\lib bundles them. torch's version and variant come
 * from torch\version.py.
 *
 * Nothing here decides a verdict; it measures. Reads only headers and
 * import directories (pe_open maps the file and touches those pages).
 */
#ifndef TDC_DERIVE_H
#define TDC_DERIVE_H

#include <stdint.h>

#include "util/err.h"
#include "util/strbuf.h"

struct derive_binary {
	char *name;               /* "c10.dll", "_C.cp311-win_amd64.pyd" */
	int in_lib;               /* 1 for torch\lib, 0 for the torch package folder */
	uint16_t machine;
	unsigned linker_major, linker_minor;
	struct strlist runtime;   /* VC++ runtime DLLs imported, lower case */
	struct strlist openmp;    /* OpenMP runtimes imported, lower case */
};

struct derive_openmp {
	char *dll;                /* lower case */
	struct strlist importers; /* binary names */
	int bundled;              /* present in torch\lib */
};

struct derive {
	char *torch_dir;          /* host path of the torch package folder */
	char *version;            /* torch\version.py __version__, or NULL */
	char *variant;            /* its local label ("cpu", "cu121"), or NULL */
	struct derive_binary *bins;
	size_t nbins;
	unsigned toolset_major, toolset_minor; /* 0.0 when no binary uses the VC++ runtime */
	char *toolset_from;       /* the binary that set it */
	struct strlist runtime;   /* union of the binaries' runtime DLLs, sorted */
	struct derive_openmp *openmp;
	size_t nopenmp;
	int vcruntime140_1;       /* some binary imports vcruntime140_1.dll */
};

void derive_init(struct derive *d);
void derive_release(struct derive *d);

/*
 * Measures the torch found at or under `dir` (dir/torch/lib, dir/lib, or
 * dir itself being torch\lib's parent). -1 with a message naming the file
 * when no torch is there or a binary is not a readable PE file.
 */
int derive_dir(struct derive *d, const char *dir, struct err *err);

/* Which list a DLL name (any case) belongs to: 1 VC++ runtime, 2 OpenMP, 0 neither. */
int derive_classify(const char *dll);

/* The measured facts as JSON (schema torch-dll-check/derive/v1). Caller owns it. */
struct cJSON;
struct cJSON *derive_to_json(const struct derive *d);

#endif
