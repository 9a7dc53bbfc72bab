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
 * (a `struct loader`), the way its package does it. What a package does is
 * data: an `extension_load` entry of the matrix (matrix/torch.yml, read by
 * matrix/matrix_ext.c into a `struct ext_proc`), written with the lines of
 * the real wheels' code in docs/loader.md ("Extensions and packages imported
 * first"). This file holds the mechanisms an entry names, in this order:
 *
 *   add_dll_directory  folders of the package added with os.add_dll_directory
 *                      (torchvision's and xformers' own folder);
 *   find               the folder holding a file — python.exe's, else a
 *                      folder of the package (then prepended to PATH too),
 *                      else the first PATH entry with it — added with
 *                      os.add_dll_directory (PyQt5's and PyQt6's find_qt);
 *   path_folders       every existing PATH folder added with
 *                      os.add_dll_directory, only on the interpreters listed
 *                      and when the installed file has the call
 *                      (torchaudio's _init_dll_path on Python 3.8);
 *   needs              a module without which the import loads no binary
 *                      (said in the run's notes);
 *   loads              each `module` found by importlib's FileFinder in
 *                      EXTENSION_SUFFIXES order, or `file` when it exists,
 *                      loaded by ctypes (torch.ops.load_library) or CPython's
 *                      import, both LoadLibraryExW(path, 0x1100); whether a
 *                      failure raises, and what it means to the user; a
 *                      `file` marked `absent` is loaded by its full path even
 *                      when it does not exist (torch-directml's DirectML.dll:
 *                      its own 126);
 *   others             every other .pyd imported by CPython (PyQt), or
 *                      listed as lazy, not checked.
 *
 * A distribution without an entry (proc NULL) has its extension modules
 * imported by CPython (0x1100), with no folders of its own (said in the
 * run's notes). No package is named in C.
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

enum ext_how {
	EXT_HOW_IMPORT = 0,   /* CPython's extension loading: LoadLibraryExW(path, 0x1100) */
	EXT_HOW_CTYPES,       /* torch.ops.load_library → ctypes.CDLL: LoadLibraryExW(path, 0x1100) */
	EXT_HOW_LAZY,         /* not loaded by the import (loaded on first use, or never): not checked */
};

/* One load of a procedure: `module` or `file` (the other NULL). */
struct ext_load {
	char *module;         /* dotted from the package folder ("_C", "lib._torchaudio"): FileFinder's find_spec */
	char *file;           /* relative to the package folder ("lib\\libtorchaudio.pyd"): loaded when it exists */
	enum ext_how how;     /* EXT_HOW_CTYPES or EXT_HOW_IMPORT */
	int raises;           /* its failure makes the import raise */
	char *fails;          /* what its failure does to the program */
	int absent;           /* `file` is loaded by full path even when it does not exist (a 126 of its own) */
};

/* A package's import procedure, as data (matrix.h's `extension_load` entry). */
struct ext_proc {
	char *package;            /* the distribution (PEP 503 compared); the procedure's name in reports */
	char *folder;             /* its folder in site-packages */
	struct strlist dll_dirs;  /* its folders added with os.add_dll_directory, in order ("." itself) */
	char *path_by;            /* who adds every existing PATH folder ("torchaudio's _init_dll_path"), or NULL */
	struct strlist path_python; /* ... on these interpreters ("3.8") */
	char *path_file;          /* ... when this file of the package ... */
	struct strlist path_has;  /* ... has all of these texts */
	char *find_by;            /* who looks for the folder holding find_file ("find_qt"), or NULL */
	char *find_file;          /* ... "Qt5Core.dll": python.exe's folder, else the package's find_in, else PATH */
	char *find_in;            /* ... "Qt5\\bin" */
	char *needs, *without;    /* the module without which nothing loads, and what the user then sees; or NULL */
	struct ext_load *loads;
	size_t nloads;
	int import_others;        /* the other .pyd files are imported by CPython (else listed as lazy) */
	char entry[160];          /* where it was written: "file:line" */
};

void ext_proc_init(struct ext_proc *p);
void ext_proc_release(struct ext_proc *p);

struct ext_binary {
	char *path;           /* Windows path */
	enum ext_how how;
	unsigned flags;
	int winerror;         /* 0 when it loads (or is not loaded) */
	const char *outcome;  /* "loads", "missing-entry-point", ..., "not-loaded" */
	int raises;           /* its failure makes the import raise */
	const char *effect;   /* what its failure does to the program (static text, or the ext_proc's: borrowed) */
	struct ldr_result res;
	char *init_module;    /* outcome "init-failed" (judge/extensions.c): the module whose DllMain fails */
	const struct ldr_node *init_failed; /* the node of res's tree that maps it */
};

struct ext_run {
	char *name, *version; /* the distribution's (METADATA, else its folder name) */
	char *dist_info;
	char *torch_pin;      /* METADATA `Requires-Dist: torch==X`: X, or NULL */
	char *torch_spec;     /* torch's specifier as written when not an exact pin ("" none), or NULL */
	char *package_dir;    /* the package folder the procedure works in, or NULL */
	char *procedure;      /* the procedure followed: the extension_load entry's package, or "cpython" */
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

const char *ext_how_name(enum ext_how h);    /* "import", "ctypes", "lazy" */

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
 * extension; or a fresh one before torch's steps, `first`), following `proc`
 * (borrowed; NULL: CPython's import alone). `run` gives the
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
		const struct dist *d, const struct ext_proc *proc, const char *site_packages, int first,
		const char *module, struct err *err);
void ext_run_free(struct ext_run *r);

#endif
