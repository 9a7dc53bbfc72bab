/*
 * torchload: what `import torch` does to load its binaries, emulated on a
 * loader: torch's _load_dll_libraries (torch\lib\*.dll) and then CPython's
 * extension-module loading for every .pyd in the torch package. The result
 * gives every binary a verdict and names the error `import torch` raises.
 */
#ifndef TDC_TORCHLOAD_H
#define TDC_TORCHLOAD_H

#include "loader/loader.h"
#include "loader/pkgpreload.h"
#include "loader/torchproc.h"
#include "machine/view.h"

struct torch_run;

/*
 * The process a frozen app's launcher or a program that embeds Python
 * starts, in place of python.exe (docs/loader.md, "Frozen apps"): its executable, whose
 * folder is the application folder; the folder it gives SetDllDirectoryW;
 * the DLLs it loads by full path with LOAD_WITH_ALTERED_SEARCH_PATH before
 * Python runs (PyInstaller's bootloader: ucrtbase.dll when bundled, then
 * python3X.dll); and sys.prefix (PyInstaller's sys._MEIPASS). Every path is
 * a Windows path; the caller owns them.
 */
struct torch_launcher {
	const char *exe;
	const char *dll_directory;     /* NULL: SetDllDirectoryW is not called */
	const char *dll_directory_why; /* its probes' label ("set by PyInstaller's bootloader ...") */
	const char *const *preload;
	size_t npreload;
	const char *add_dll_directory; /* a folder it gives AddDllDirectory before Python runs, or NULL */
	unsigned default_dll_dirs;     /* its SetDefaultDllDirectories flags (after its start-up), or 0 */
	const char *add_dll_directory_why;
	const char *prefix;            /* NULL: the executable's folder */
	const char *what;              /* for the report: "PyInstaller 6.x onedir" */
};

struct torch_inputs {
	const char *torch_dir;  /* Windows path of the torch package (required) */
	const char *python_exe; /* Windows path of python.exe, or NULL (guessed from torch_dir) */
	const char *userbase;   /* Windows path of the Python user base, or NULL (PYTHONUSERBASE / APPDATA) */
	uint16_t machine;       /* process machine; 0 = python.exe's, else x64 */
	/*
	 * What the program imports before torch (extload.h): called once the
	 * interpreter is loaded and EXTENSION_SUFFIXES known, before torch's
	 * step 1, on the same process. NULL: nothing.
	 */
	void (*before_torch)(void *ctx, struct torch_run *run, struct view *v);
	void *before_ctx;
	/*
	 * The procedure of torch `version` (torch.__version__, or NULL when
	 * unknown): 0 with *out filled, -1 when there is none (the matrix has
	 * no `torch_load` entry). NULL, or -1: the built-in procedure, with a
	 * note saying so (torchproc.h).
	 */
	int (*procedure)(void *ctx, const char *version, struct torch_proc *out);
	void *procedure_ctx;
	const struct torch_launcher *launcher; /* NULL: python.exe starts the process */
	struct ldr_images *images; /* parsed images shared with other runs on this view (loader_open_shared), or NULL */
	/* DLLs whose delay-load hook looks in their own folder first (loader_set_delay_own_folder); NULL: none */
	int (*delay_own_folder)(void *ctx, const char *name);
	void *delay_own_ctx;
	/* a package's preload inside `import torch` before torch's own DLLs (pkgpreload.h), or NULL: none */
	const struct pkg_preload *preload;
};

enum torch_stage { TORCH_STAGE_ADD_DLL_DIRECTORY, TORCH_STAGE_PATH_FALLBACK, TORCH_STAGE_CPYTHON, TORCH_STAGE_PRELOAD };

struct torch_binary {
	char *path;                /* Windows path */
	int is_pyd;
	int order;                 /* position in the load order */
	unsigned flags;            /* of the last LoadLibraryExW modelled */
	enum torch_stage stage;
	int winerror;              /* 0 when it loads */
	const char *outcome;       /* "loads", "loads-via-path", "missing-dll", ... */
	struct ldr_result res;     /* the last attempt */
	struct ldr_result first;   /* the 0x1100 attempt when a PATH retry followed (else empty) */
	/* outcome "init-failed" (torch_run_init_failed): the module whose DllMain fails (Windows path) and
	   the node of res's tree that leads to it (that module, or the first module whose load maps it) */
	char *init_module;
	const struct ldr_node *init_failed;
};

struct torch_vcprobe {
	const char *name;          /* vcruntime140.dll, msvcp140.dll, vcruntime140_1.dll */
	int attempted;
	struct ldr_result res;
};

struct torch_run {
	char *torch_dir;
	char *python_exe;          /* as modelled (NULL if unknown) */
	char *app_dir;             /* the process's application directory */
	char *exec_prefix, *base_exec_prefix, *userbase;
	char *cuda_version;        /* torch.version.cuda, or NULL */
	char *torch_version;       /* torch.__version__ from torch\version.py, or NULL */
	const struct torch_proc *proc; /* the release's own procedure followed (torchproc.h): &proc_value */
	struct torch_proc proc_value;
	struct strlist dll_paths;  /* torch's add_dll_directory set, in order */
	int path_patched;          /* the PATH fallback ran */
	struct torch_vcprobe vc[3];
	int vc_failed;             /* the probe would print its warning */
	struct ldr_result python_res; /* python.exe's own imports at process start (if found); with a launcher,
					 its executable's, and below its root each DLL it loads before Python */
	int launched;              /* the process is torch_inputs.launcher's (python_exe: its executable) */
	char *launcher_what;       /* its torch_launcher.what, or NULL */
	char *dll_directory;       /* the folder it gave SetDllDirectoryW, or NULL */
	int python_loaded;
	struct torch_binary *bins;
	size_t nbins;
	int import_error_index;    /* first failing binary, -1 if none */
	char *import_error_text;   /* exactly what Python prints, or NULL */
	int import_error_winerror;
	struct loader *ld;         /* the emulated process (versions, sources) */
	uint16_t machine;          /* the process's machine */
	char *saved_path;          /* PATH before torch's fallback changed it */
	char *cfg_version;         /* pyvenv.cfg `version`, or NULL */
	char *python_tag;          /* "cp311", "cp313t": the interpreter's, or NULL if unknown */
	int python_debug;          /* a debug build (python311_d.dll): "_d" suffixes */
	struct strlist ext_suffixes; /* importlib.machinery.EXTENSION_SUFFIXES of that interpreter */
	int preload_ran;           /* torch_inputs.preload applied (its when_file is in torch's folder) */
	struct pkg_preload_run preload; /* what it did; when it failed, torch loaded none of its own DLLs */
};

/* Runs the procedure. Fails only on unusable input (no torch\lib, ...). */
int torch_run(struct torch_run **out, struct view *view, const struct torch_inputs *in, struct err *err);
void torch_run_free(struct torch_run *run);

/*
 * The DllMain of the module at Windows path `module_path` fails with
 * `winerror` (1114, ERROR_DLL_INIT_FAILED): the loader does not run
 * initialisation routines, a judge predicts it (judge/dllmain.h). Every
 * binary whose load maps that module and that otherwise loads fails with
 * `winerror`, outcome "init-failed", `init_failed` its node of that module,
 * and the import error is decided again as torch decides it: the first binary
 * of the load order that fails. Returns how many binaries it marked.
 */
size_t torch_run_init_failed(struct torch_run *run, const char *module_path, int winerror);

/* The message FormatMessageW gives for a Win32 error, as ctypes.WinError shows it. */
const char *winerror_text(int winerror);

const char *torch_stage_name(enum torch_stage s);

#endif
