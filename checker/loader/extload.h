/*
 * extload: the packages around torch, loaded in torch's process.
 *
 * torch never loads alone. A program imports torch and then its extensions
 * (torchvision, torchaudio, ...), whose binaries import c10.dll,
 * torch_cpu.dll, torch_python.dll and are bound to whatever of those is
 * already in the loaded-module list, as torch's own procedure left it
 * (torchload.h); and it may import other packages first (PyQt5), whose
 * binaries then put their own copies of runtime DLLs (msvcp140.dll) in
 * that list before torch asks for them.
 *
 * extload_run() performs one distribution's import on an existing process
 * (a `struct loader`), the way its package does it — written, with the
 * lines of the real wheels' code, in docs/loader.md ("Extensions and
 * packages imported first"):
 *
 *   torchvision  os.add_dll_directory(<torchvision>), then _C and image
 *                (and video_reader, gpu_decoder when shipped) found by
 *                importlib's FileFinder and loaded by torch.ops.load_library
 *                = ctypes.CDLL = LoadLibraryExW(path, 0x1100); failures are
 *                caught: import torchvision warns (image) or its C++ ops
 *                raise RuntimeError later (_C);
 *   torchaudio   on Python 3.8, when its _extension\__init__.py has the call,
 *                _init_dll_path(): every existing PATH folder added with
 *                os.add_dll_directory; then
 *                torch.ops.load_library(torchaudio\lib\libtorchaudio.pyd),
 *                then `import torchaudio.lib._torchaudio` (CPython: 0x1100);
 *                a failure makes `import torchaudio` raise; torio's FFmpeg
 *                modules are loaded lazily, not by the import;
 *   PyQt5        find_qt(): PyQt5\Qt5\bin prepended to PATH and added with
 *                os.add_dll_directory (or python.exe's folder, when
 *                Qt5Core.dll is there), then its extension modules imported;
 *                PyQt6 the same with Qt6Core.dll and PyQt6\Qt6\bin;
 *   xformers     os.add_dll_directory(<xformers>), then _C found by FileFinder
 *                and loaded by torch.ops.load_library (ctypes, 0x1100); a
 *                failure is caught: import xformers logs a warning and its
 *                C++/CUDA operators are unavailable;
 *   any other    its extension modules imported by CPython (0x1100), with no
 *                folders of its own (said in the run's notes).
 *
 * Every binary gets a verdict like a torch binary's (an ldr_result) and what
 * its failure does to the program. A failed load leaves nothing loaded, so
 * the others are judged as if it had been skipped.
 */
#ifndef TDC_EXTLOAD_H
#define TDC_EXTLOAD_H

#include <stddef.h>

#include "loader/loader.h"
#include "loader/torchload.h"
#include "machine/dist.h"
#include "machine/view.h"
#include "util/err.h"
#include "util/strbuf.h"

enum ext_proc {
	EXT_PROC_CPYTHON = 0, /* its extension modules imported, nothing else known */
	EXT_PROC_TORCHVISION,
	EXT_PROC_TORCHAUDIO,
	EXT_PROC_PYQT5,
	EXT_PROC_PYQT6,       /* PyQt6's find_qt: PyQt5's with Qt6Core.dll and PyQt6\Qt6\bin */
	EXT_PROC_XFORMERS,    /* _cpp_lib._register_extensions: torchvision's way, one module (_C) */
};

enum ext_how {
	EXT_HOW_IMPORT = 0,   /* CPython's extension loading: LoadLibraryExW(path, 0x1100) */
	EXT_HOW_CTYPES,       /* torch.ops.load_library → ctypes.CDLL: LoadLibraryExW(path, 0x1100) */
	EXT_HOW_LAZY,         /* not loaded by the import (loaded on first use, or never): not checked */
};

struct ext_binary {
	char *path;           /* Windows path */
	enum ext_how how;
	unsigned flags;
	int winerror;         /* 0 when it loads (or is not loaded) */
	const char *outcome;  /* "loads", "missing-entry-point", ..., "not-loaded" */
	int raises;           /* its failure makes the import raise */
	const char *effect;   /* what its failure does to the program (static text) */
	struct ldr_result res;
};

struct ext_run {
	char *name, *version; /* the distribution's (METADATA, else its folder name) */
	char *dist_info;
	char *torch_pin;      /* METADATA `Requires-Dist: torch==X`: X, or NULL */
	char *torch_spec;     /* torch's specifier as written when not an exact pin ("" none), or NULL */
	char *package_dir;    /* the package folder the procedure works in, or NULL */
	enum ext_proc proc;
	int first;            /* imported before torch */
	char *module;         /* --import-first PKG.module: the dotted name asked for, or NULL (the whole distribution) */
	int has_record;       /* its binaries came from RECORD (else a scan: dist->scan_note) */
	struct strlist dll_dirs;  /* what it added with os.add_dll_directory, in order */
	char *path_prefix;    /* what it prepended to PATH, or NULL */
	struct strlist notes; /* about the procedure and the distribution (dist notes included) */
	struct ext_binary *bins;
	size_t nbins, abins;
	size_t nfail;         /* binaries that were loaded and failed */
	size_t nskipped;      /* .pyd files this interpreter would not import (another cpXY tag) */
};

const char *ext_proc_name(enum ext_proc p);  /* "torchvision", "torchaudio", "PyQt5", "PyQt6", "xformers", "cpython" */
const char *ext_how_name(enum ext_how h);    /* "import", "ctypes", "lazy" */

/* The procedure a distribution's import follows (by its PEP 503 name). */
enum ext_proc ext_proc_of(const char *dist_name);

/*
 * torch's own DLLs of a run (torch\lib's c10*, torch*, caffe2*, shm.dll),
 * the names an extension imports: base names, as listed.
 */
void extload_torch_dlls(const struct torch_run *run, struct strlist *out);

/*
 * Whether the binary at `win_path` imports (statically or delay-loaded) one
 * of `names` (case-insensitive); *which (may be NULL) gets the first one as
 * written (borrowed from `names`). Reads only the PE headers and import
 * directory. 0 no, 1 yes, -1 when the file cannot be read as a PE.
 */
int extload_imports_any(struct view *v, const char *win_path, const struct strlist *names, const char **which);
/* The same for a host path the caller resolved (machine/dist.h's binaries_host). */
int extload_imports_any_host(const char *host, const struct strlist *names, const char **which);

/*
 * One distribution's import on process `ld` (the one torch_run left, for an
 * extension; or a fresh one before torch's steps, `first`). `run` gives the
 * interpreter (EXTENSION_SUFFIXES, application folder) and, after torch,
 * the PATH torch left. The loads join the loaded-module list.
 *
 * `module` (NULL: the whole distribution) is a dotted name `PKG.mod[.sub]`
 * of that distribution (`--import-first PyQt5.QtCore`): Python imports the
 * package first (its __init__: PyQt5's find_qt, torchvision's and
 * torchaudio's procedures), then only that module — of its folder
 * `PKG\mod`, the first of `sub<EXTENSION_SUFFIXES>` (`QtCore.cp311-win_amd64.pyd`,
 * `QtCore.pyd`) that exists, else the package `sub\__init__<suffix>`, else
 * `sub.py` or `sub\__init__.py` (pure Python: no binary of its own, said in
 * the notes). -1 (err: the places looked at) when there is no such module.
 */
int extload_run(struct ext_run **out, struct loader *ld, struct view *v, const struct torch_run *run,
		const struct dist *d, const char *site_packages, int first, const char *module, struct err *err);
void ext_run_free(struct ext_run *r);

#endif
