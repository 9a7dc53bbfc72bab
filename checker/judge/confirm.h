/*
 * confirm: live confirmation on Windows — the checker's prediction against
 * the real loader of the machine it runs on.
 *
 * Two halves:
 *  - the helper (confirm_helper_run), run by `torch-dll-check confirm-helper`
 *    in a CHILD process: torch's procedure for real (AddDllDirectory,
 *    LoadLibraryExW 0x1100 per torch\lib DLL after a package's preload in FindFirstFileW order, the PATH
 *    fallback on 126, CPython's .pyd loads), one JSON line per binary
 *    (confirm_line.h);
 *  - the parent (confirm_run), in `check --confirm`: spawns the helper with a
 *    timeout, compares each binary's real error with the predicted one
 *    (a `struct confirm_prediction`, from the torch run: confirm_predict),
 *    and gives its verdict as a `struct confirm_result` and
 *    `prediction-mismatch` findings; report/ writes the result
 *    (docs/report-json.md: `confirmed`, `confirmation`, `import_check`).
 *    `--confirm-import` also runs `<python> -c "import torch"`, the ground
 *    truth itself.
 */
#ifndef TDC_CONFIRM_H
#define TDC_CONFIRM_H

#include <stdint.h>

#include "util/err.h"
#include "judge/finding.h"
#include "loader/torchload.h"
#include "util/strbuf.h"

#define CONFIRM_DEFAULT_TIMEOUT_MS 120000u

/* What the helper performs (arguments of `confirm-helper`). */
struct confirm_helper_args {
	const char *torch_dir;    /* the torch package folder (Windows path) */
	struct strlist dll_paths; /* torch's add_dll_directory set, in order */
	struct strlist pyds;      /* extension modules, in the order CPython would load them */
	const char *app_dir;      /* python.exe's folder (stand-in, see confirm.c), or NULL */
	int vc_probe;             /* torch's ctypes probe of the VC++ runtimes first */
	struct strlist preloads;  /* a package's preload (loader/pkgpreload.h): full paths, loaded first, in order */
	int preload_stops;        /* the preload raises without a load failing (a package or DLL not there):
				     import torch ends after the preloads */
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
 * "error":N[,"first_error":126]}, and after every load its own private
 * commit before and after them ({"path":TORCH,"kind":"commit",
 * "private_before":B,"private_after":A}: confirm_line.h). Returns 0 when everything loaded, 1 when
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

/* One binary (or VC++ runtime probe) as predicted. */
struct confirm_bin {
	char *path;          /* Windows path; a probe: the DLL's name */
	int pyd;             /* an extension module (--pyd) */
	int winerror;        /* predicted; 0: loads */
	char *stage, *outcome; /* torch_stage_name, the outcome's name (NULL: not known) */
};

/* What the checker predicted for one install: what the helper is given and compared with. */
struct confirm_prediction {
	char *torch_dir, *python, *app_dir; /* python, app_dir NULL: not known */
	struct strlist dll_paths;
	int preload_stops;                  /* confirm_helper_args.preload_stops */
	struct confirm_bin *bins;           /* torch's binaries, in load order */
	size_t nbins;
	struct confirm_bin *vc;             /* the VC++ runtime probes attempted, in order */
	size_t nvc;
	int import_fails;                   /* the prediction has an import error */
	int import_winerror;                /* its WinError */
};

/* The prediction of a torch run (loader/torchload.h). */
void confirm_predict(struct confirm_prediction *p, const struct torch_run *run);
void confirm_prediction_release(struct confirm_prediction *p);

/* What the real loader did with one predicted binary or probe (`confirmed`). */
struct confirm_mark {
	int set;              /* 0: not confirmed (no `confirmed` member) */
	int has_error, has_first;
	double error, first_error; /* the helper's, within int's range */
	char *stage;          /* the helper's stage, or NULL */
	int agrees;           /* 1, 0, or -1: unknown (not reached) */
	char *note;           /* or NULL */
};

/* The verdict on one install (`confirmation`, `import_check`, each binary's `confirmed`). */
struct confirm_result {
	struct confirm_mark *bins, *vc; /* index-aligned with the prediction's; NULL: the helper did not run */
	size_t nbins, nvc;
	int helper;                     /* the helper ran: `confirmation` */
	long long exit_code;
	int timed_out, nconf, nmis;
	struct {                        /* the helper's private commit (installs[].commit.measured) */
		int seen;               /* it reported one (after every load) */
		int has;                /* with both figures */
		uint64_t before, after; /* bytes, before and after torch's loads */
	} commit;
	int import;                     /* the import check ran or was skipped: `import_check` */
	struct {
		char *python;           /* NULL: skipped (no python.exe known) */
		const char *skipped;    /* why, when skipped */
		long long exit_code;
		int timed_out;
		char *last_line;        /* stderr's last line, or NULL */
		int winerror;           /* its [WinError N], or 0 */
		int agrees;
	} ic;
};

void confirm_result_release(struct confirm_result *r);

/*
 * Confirms one install: the helper (o->helper) marks each predicted binary
 * and probe, the import check (o->import_check) runs `import torch`, into
 * `res` (zeroed first), and a `prediction-mismatch` finding goes to `found`
 * for every disagreement. -1 with `err` only when a child cannot be started
 * at all; a helper that crashes or times out is a result.
 */
int confirm_run(struct findings *found, const struct confirm_prediction *p, struct confirm_result *res,
		const struct confirm_opts *o, struct err *err);

/*
 * The comparison alone, on the helper's output (for tests): `out` is its
 * stdout, `exit_code` its status, `timed_out` whether it was killed.
 */
void confirm_apply_helper_output(struct findings *found, const struct confirm_prediction *p,
				 struct confirm_result *res, const char *out, long long exit_code, int timed_out,
				 unsigned timeout_ms);

/* The same for the import check: stderr of `python -c "import torch"` and its status. */
void confirm_apply_import_output(struct findings *found, const struct confirm_prediction *p,
				 struct confirm_result *res, const char *python, const char *errout,
				 long long exit_code, int timed_out, unsigned timeout_ms);

#endif
