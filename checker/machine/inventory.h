/*
 * inventory: what the machine being checked actually has.
 *
 *   - the VC++ 2015-2022 (v14) redistributables, from the registry key
 *     HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\{x64,x86,arm64}
 *     in both registry views (the installers are 32-bit programs: on a
 *     64-bit Windows the keys usually live under WOW6432Node);
 *   - the VC/UCRT/OpenMP runtime DLLs in System32, SysWOW64, next to
 *     python.exe, in torch\lib and in conda's Library\bin, each with its
 *     machine and VS_VERSIONINFO file version (or "no version resource":
 *     Wine's builtins carry none, and we never guess one);
 *   - torch installs, found from a python.exe, a site-packages folder, a
 *     torch folder, or by scanning a tree; each with its version from
 *     torch\version.py and the dist-info METADATA (cross-checked), its
 *     variant (cpu, cuXXX, rocm), the Python it belongs to, and notes on
 *     anything inconsistent.
 *
 * Nothing here decides pass or fail: the inventory states facts and notes
 * inconsistencies; `check` compares them with the matrix. Paths are Windows
 * paths as the view sees them.
 */
#ifndef TDC_INVENTORY_H
#define TDC_INVENTORY_H

#include <stddef.h>
#include <stdint.h>

#include "machine/gpu_driver.h"
#include "util/err.h"
#include "util/strbuf.h"

struct view;
struct registry;

#define INV_REDIST_KEY "SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes"

/* One architecture of the VC++ 2015-2022 redistributable. */
struct inv_redist {
	const char *arch;      /* "x64", "x86", "arm64" */
	int found;             /* the key exists in at least one view */
	int installed;         /* found, and Installed is absent or non-zero */
	long installed_value;  /* the Installed DWORD, -1 when absent */
	char *version;         /* "14.40.33810.0" (normalised), or NULL */
	char *version_raw;     /* the Version string as stored: "v14.40.33810.00" */
	uint16_t ver[4];       /* parsed version (from Version, else Major/Minor/Bld/Rbld) */
	int has_ver;
	int view;              /* 64 or 32: where the reported values come from */
	char *key;             /* full key path: "HKLM\\SOFTWARE\\WOW6432Node\\...\\x64" */
	struct strlist notes;  /* inconsistencies, each one sentence */
};

/* One runtime DLL found in one place. */
struct inv_dll {
	char *name;            /* as looked for: "msvcp140.dll" */
	char *path;            /* Windows path as it exists (real letter case) */
	char *where;           /* "System32", "SysWOW64", "python", "torch\\lib", "Library\\bin" */
	uint16_t machine;      /* 0 when the file could not be read as a PE */
	int has_version;       /* a VS_FIXEDFILEINFO was found */
	uint16_t ver[4];
	char *error;           /* why it could not be read, or NULL */
};

/* The runtime DLL names looked for, NULL-terminated. */
extern const char *const inv_runtime_dll_names[];

/* One torch install. */
struct inv_install {
	char *torch_dir;       /* C:\...\site-packages\torch */
	char *site_packages;
	char *kind;            /* "system", "venv", "conda", "user-site", "unknown" */
	char *prefix;          /* sys.prefix: the environment's root, or NULL */
	char *python;          /* python.exe of the environment, or NULL if not found */
	char *base_python_dir; /* a venv's base install (pyvenv.cfg home), or NULL */
	char *python_version;  /* "3.11": from python3XY.dll, pyvenv.cfg or the user-site folder */
	char *pyd_tag;         /* "cp311" from torch\_C.cp311-win_amd64.pyd, or NULL */
	char *arch;            /* "x64", "x86", "arm64" (pyd platform tag or python.exe), or NULL */
	char *version;         /* torch\version.py __version__, or NULL */
	char *metadata_version;/* torch-*.dist-info\METADATA Version:, or NULL */
	char *dist_info;       /* the dist-info folder used, or NULL */
	char *cuda;            /* version.py cuda = '12.1', or NULL */
	char *variant;         /* "cpu", "cu121", "rocm6.1", "cuda" (CUDA DLLs, version unknown) */
	struct strlist cuda_dlls; /* cudart64_*.dll, cublas64_*.dll, cudnn*.dll in torch\lib */
	struct strlist dll_dirs;  /* where this install's runtime DLLs were looked for */
	struct strlist notes;  /* inconsistencies: version mismatch, several dist-infos, ... */
};

struct inventory {
	struct inv_redist redist[3];     /* x64, x86, arm64 */
	char *redist_source;             /* "wine system.reg ...", "live registry"; NULL before read (owned) */
	int redist_read;                 /* whether a registry was available */

	struct inv_dll *dlls;
	size_t ndlls, adlls;

	struct inv_install *installs;
	size_t ninstalls, ainstalls;

	struct strlist notes;            /* inventory-wide notes (scan limits hit, ...) */

	struct gpu_driver gpu;           /* the NVIDIA driver: nvcuda.dll, display adapters (gpu_driver.h) */
	int gpu_read;                    /* gpu was collected (by inventory_runtime_dlls) */
};

void inventory_init(struct inventory *inv);
void inventory_release(struct inventory *inv);

/*
 * A registry lookup: 0 found (text in out), 1 absent, -1 error. The
 * redistributable reader only needs this, so it runs on a view, on an
 * offline registry without a tree, or on a test's table.
 */
typedef int (*inv_reg_get_fn)(void *ctx, const char *key, const char *value, int regview,
			      struct strbuf *out, struct err *err);

/* Reads the three architectures' redistributable keys. -1 on a registry error. */
int inventory_redist(struct inventory *inv, inv_reg_get_fn get, void *ctx, const char *source,
		     struct err *err);
int inventory_redist_view(struct inventory *inv, struct view *v, struct err *err);
int inventory_redist_registry(struct inventory *inv, const struct registry *reg, struct err *err);

/*
 * Runtime DLLs in System32 and SysWOW64, and in every folder the installs
 * found so far name (python, torch\lib, Library\bin). Unreadable files are
 * listed with their error, not dropped. The first call also reads the GPU
 * driver (inv->gpu: System32\nvcuda.dll and the display adapters' keys).
 */
int inventory_runtime_dlls(struct inventory *inv, struct view *v, struct err *err);

/*
 * Finding torch installs. Each adds what it finds (a torch folder already
 * listed is not added twice). -1 with a message when the starting point is
 * not what it claims (no python.exe there, no site-packages, no torch).
 */
int inventory_from_python(struct inventory *inv, struct view *v, const char *python, struct err *err);
int inventory_from_site_packages(struct inventory *inv, struct view *v, const char *dir, struct err *err);
int inventory_from_torch(struct inventory *inv, struct view *v, const char *torch_dir, struct err *err);

/*
 * What `check` needs for one install, in one call: the redistributables
 * (when the view has a registry), the install at torch_dir (or, without
 * one, those found from python), python attached to it when given, and the
 * runtime DLLs of System32, SysWOW64 and the install's folders.
 */
int inventory_collect(struct inventory *inv, struct view *v, const char *torch_dir, const char *python,
		      struct err *err);

/*
 * Every torch install under `root`: folders `...\Lib\site-packages\torch`
 * (and user sites `...\Python3XY\site-packages\torch`) holding `lib`, at
 * most `max_depth` folders deep, never following links or junctions, and
 * listing at most INV_SCAN_MAX_DIRS folders (a note says when that cap cut
 * the scan short).
 */
#define INV_SCAN_MAX_DIRS 50000
int inventory_scan(struct inventory *inv, struct view *v, const char *root, int max_depth, struct err *err);

#define INV_MAX_TEXT ((size_t)1 << 20) /* version.py, pyvenv.cfg, METADATA: read at most this */

/*
 * Parsers for the two version sources (inventory_parse.c), exposed for tests and fuzzing.
 * torch\version.py: `__version__ = '2.4.0+cpu'` (required) and
 * `cuda = '12.1'` / `cuda: Optional[str] = None`. METADATA: the RFC 822
 * header block, `Name:` must be torch, `Version:` required. Both return
 * -1 with "NAME:LINE: ..." on malformed or truncated input.
 */
int inventory_parse_version_py(const char *text, size_t len, const char *name, char **version, char **cuda,
			       struct err *err);
int inventory_parse_metadata(const char *text, size_t len, const char *name, char **version, struct err *err);
/* One value of a venv's pyvenv.cfg (`home`, `version`), allocated, or NULL; the last occurrence wins. */
char *inventory_pyvenv_value(const char *text, size_t len, const char *key);

/*
 * The `inventory` object of the JSON report (docs/report-json.md):
 * registry, redistributables, runtime_dlls, pythons, installs, notes.
 * `v` (may be NULL) adds host paths for offline trees. Caller owns it.
 */
struct cJSON;
struct cJSON *inventory_to_json(const struct inventory *inv, struct view *v);

/* "14.40.33810.0" from "v14.40.33810.00" (also "14.40.33810", "14.40"). 0 ok, -1 not a version. */
int inventory_parse_redist_version(const char *s, uint16_t ver[4]);

#endif
