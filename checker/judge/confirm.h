/*
 * confirm: live confirmation on Windows — the checker's prediction against
 * the real loader of the machine it runs on.
 *
 * Two halves:
 *  - the helper (confirm_helper_run), run by `torch-dll-check confirm-helper`
 *    in a CHILD process: torch's procedure for real (AddDllDirectory,
 *    LoadLibraryExW 0x1100 per torch\lib DLL in FindFirstFileW order, the PATH
 *    fallback on 126, CPython's .pyd loads), one JSON line per binary;
 *  - the parent (confirm_run), in `check --confirm`: spawns the helper with a
 *    timeout, compares each binary's real error with the report's predicted
 *    `winerror`, and writes the verdict into the report
 *    (docs/report-json.md: `confirmed`, `import_check`, rule
 *    `prediction-mismatch`). `--confirm-import` also runs
 *    `<python> -c "import torch"`, the ground truth itself.
 */
#ifndef TDC_CONFIRM_H
#define TDC_CONFIRM_H

#include <cjson/cJSON.h>

#include "util/err.h"
#include "judge/finding.h"
#include "util/strbuf.h"

#define CONFIRM_DEFAULT_TIMEOUT_MS 120000u

/* What the helper performs (arguments of `confirm-helper`). */
struct confirm_helper_args {
	const char *torch_dir;    /* the torch package folder (Windows path) */
	struct strlist dll_paths; /* torch's add_dll_directory set, in order */
	struct strlist pyds;      /* extension modules, in the order CPython would load them */
	const char *app_dir;      /* python.exe's folder (stand-in, see confirm.c), or NULL */
	int vc_probe;             /* torch's ctypes probe of the VC++ runtimes first */
};

/*
 * Receives each output line (one JSON object, no newline). The helper's
 * command prints and flushes it at once, so that a binary whose DllMain
 * kills the process still leaves its "begin" line behind.
 */
typedef void (*confirm_emit_fn)(const char *line, void *ctx);

/*
 * Performs the procedure in THIS process (which it leaves polluted: run it
 * only in the child). Lines: {"event":"begin","path":P} before each load,
 * then {"path":P,"kind":"dll"|"pyd"|"vc_probe","stage":S,"flags":"0x1100",
 * "error":N[,"first_error":126]}. Returns 0 when everything loaded, 1 when
 * something did not, -1 with `err` when it cannot try (not on Windows, no
 * torch\lib).
 */
int confirm_helper_run(const struct confirm_helper_args *a, confirm_emit_fn emit, void *ctx, struct err *err);

struct confirm_opts {
	int helper;          /* --confirm: run the live helper */
	int import_check;    /* --confirm-import: run python -c "import torch" */
	unsigned timeout_ms; /* per child process; 0 = no limit */
	const char *self;    /* the helper program (NULL: this program, os_self_path) */
};

void confirm_opts_init(struct confirm_opts *o);

/*
 * Confirms one install of the report (an element of installs[]): adds
 * `confirmed` to each binary (and to vc_runtime_probe entries), and
 * `import_check` to the install when asked, and a `prediction-mismatch`
 * finding to `found` for every disagreement. Call before
 * result_finish(). -1 with `err` only when a child cannot be started at all;
 * a helper that crashes or times out is a result, recorded in the report.
 */
int confirm_run(struct findings *found, cJSON *install, const struct confirm_opts *o, struct err *err);

/*
 * The comparison alone, on the helper's output (for tests): `out` is its
 * stdout, `exit_code` its status, `timed_out` whether it was killed.
 */
void confirm_apply_helper_output(struct findings *found, cJSON *install, const char *out, long long exit_code,
				 int timed_out, unsigned timeout_ms);

/* The same for the import check: stderr of `python -c "import torch"` and its status. */
void confirm_apply_import_output(struct findings *found, cJSON *install, const char *python, const char *errout,
				 long long exit_code, int timed_out, unsigned timeout_ms);

#endif
