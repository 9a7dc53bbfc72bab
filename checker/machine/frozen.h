/*
 * frozen: a frozen Python app on the view — which freezer built it, where
 * its launcher and its top-level folder (sys.prefix) are, which Python DLL
 * the launcher loads and where torch is — read from the files alone
 * (docs/loader.md, "Frozen apps", for what the launcher then does).
 *
 * PyInstaller (bootloader/src/pyi_main.c, pyi_pythonlib.c): the
 * executable is the bootloader with the PKG archive appended
 * (pyiarchive.h). Onedir 6.x keeps everything but the executable in a
 * contents folder named by the archive's "pyi-contents-directory" option
 * (`_internal` by default; "." is the executable's folder); onedir 5.x
 * and older keep it next to the executable. That folder is the
 * application's top-level folder (sys._MEIPASS). The bootloader's version
 * is not written in the file: 6.x is told from the contents-directory
 * option or the option's name among the bootloader's strings, else 5.x or
 * older.
 *
 * cx_Freeze (its bases: the console/Win32GUI launcher of the cx_Freeze
 * wheel, cx_Freeze/initscripts/__startup__.py): the executable imports
 * python3X.dll, which sits beside it, so the loader maps it at start-up;
 * the packages are in `lib\` with `lib\library.zip`. Before Python runs the
 * base gives `lib\` to AddDllDirectory (6.16 and later: cx_Freeze PR 2144
 * "Replace SetDllDirectory by AddDllDirectory"; SetDllDirectoryW before),
 * told from which of the two the base imports; __startup__.py then adds
 * every folder of sys.path (`lib\`) with os.add_dll_directory and to PATH.
 * sys.prefix is taken as the executable's folder.
 *
 * A onefile build (the archive holds the binaries: pyiarchive.h) is
 * extracted by its bootloader to %TEMP%\_MEIxxxxxx at each start; here
 * nothing is extracted: its binaries and data files are mounted on the view
 * at <TEMP>\_MEI000000 (view_mount; the number is the process's at run time,
 * so any stands for it), read-only, and a file is inflated into memory
 * (os_memfile, a chunk at a time: pyi_archive_stream) only when a reader
 * first needs it, at most FROZEN_MAX_INFLATE bytes each.
 */
#ifndef TDC_FROZEN_H
#define TDC_FROZEN_H

#include "machine/pyiarchive.h"
#include "machine/view.h"
#include "util/err.h"
#include "util/os.h"

#define FROZEN_MAX_INFLATE ((size_t)2 << 30) /* torch_cuda.dll, the largest binary, is about 1 GB */

struct frozen_app {
	const char *freezer;   /* "PyInstaller" */
	const char *generation; /* "6.x", "5.x or older" */
	const char *evidence;  /* how the generation was told */
	char *exe;             /* Windows path of the launcher */
	char *home;            /* the top-level folder, sys._MEIPASS (Windows path) */
	char *python_dll;      /* home\python3X.dll as the archive's cookie names it */
	char *ucrtbase;        /* home\ucrtbase.dll when bundled (loaded first), else NULL */
	char *torch_dir;       /* home\torch when it is a folder, else NULL */
	unsigned python_version; /* 311, from the cookie */
	int onefile;
	size_t nentries;
	char what[64];         /* "PyInstaller 6.x onedir", "cx_Freeze 6.16 or later" */
	char *add_dir;         /* a folder the launcher gives AddDllDirectory (cx_Freeze's lib\), or NULL */
	char *set_dir;         /* a folder it gives SetDllDirectoryW besides home's (cx_Freeze before 6.16), or NULL */
	int python_static;     /* the executable imports the Python DLL (cx_Freeze): no preload */
	/* a onefile build's mount: the executable's mapping, its archive, the mounted entries, their memory files */
	struct os_map map;
	struct pyi_archive ar;
	size_t *mounted;       /* mount index -> archive entry */
	size_t nmounted;
	int *fds;
	size_t nfds, afds;       /* the archive's TOC entries */
};

/*
 * The frozen app at Windows path `win` (its executable, or the folder that
 * holds it). 0, or -1 with err saying why it is not one this checker
 * reads. A onefile build's files are mounted on `v`, which reads them
 * through `app`: release `app` after the view is done (and either way).
 */
int frozen_app_open(struct frozen_app *app, struct view *v, const char *win, struct err *err);

/*
 * Whether the torch folder `torch_dir` lies in a PyInstaller onedir app's
 * top-level folder: 1 with `app` filled (release it), 0 when not.
 */
int frozen_app_of_torch(struct frozen_app *app, struct view *v, const char *torch_dir);

void frozen_app_release(struct frozen_app *app);

#endif
