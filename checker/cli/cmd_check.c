/*
 * cmd_check: `torch-dll-check check` — will `import torch` load on this
 * machine, and if not, what exactly must be installed?
 *
 * This file only gathers options and inputs (the matrix, the view, the
 * inventory) and calls the judging: for each torch install (one given with
 * --torch / --site-packages / --python, or every one under --scan DIR) the
 * passes of judge/check.h, from torch's procedure to its extensions'
 * RECORDs; then the gate (--pins), the links outside --root, the confirm
 * pass (--confirm); then result_finish writes the report once
 * (docs/report-json.md: the inventory, the matrix files and, per install,
 * its facts and row) and report_run renders it (text a person reads in ten
 * seconds, JSON, GitHub, SARIF).
 *
 * With --pins (the pre-merge gate, gate.h) the torch the repository pins at
 * head is judged against this runner too, or alone when no install option
 * is given; its findings join the same report. Reading git needs libgit2,
 * which only torch-dll-check-git links: this program hands the whole command
 * to it (cmd_git_sibling), and that program runs this same function with a
 * reader of git objects (git_gate.c). A check without --pins never starts
 * libgit2.
 *
 * Exit status: 0 pass, 1 findings at or above --fail-on, 2 usage/input error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/check_python.h"
#include "cli/cmd.h"
#include "judge/check.h"
#include "judge/confirm.h"
#include "judge/gate.h"
#include "cli/profile_opt.h"
#include "machine/dist.h"
#include "machine/frozen.h"
#include "machine/inventory.h"
#include "matrix/matrix.h"
#include "judge/policy.h"
#include "machine/memory.h"
#include "machine/osver.h"
#include "machine/registry.h"
#include "report/report.h"
#include "report/result.h"
#include "loader/torchload.h"
#include "machine/view.h"
#include "util/text.h"

/* One install: the passes of judge/check.h; the report keeps what they found. */
static int check_install(struct result *report, const struct check_env *env, const struct inv_install *install,
			 const struct torch_inputs *in, struct err *e)
{
	struct check_install *ci = xcalloc(1, sizeof(*ci));
	if (check_install_run(ci, &report->findings, env, install, in, e)) {
		check_install_release(ci);
		free(ci);
		return -1;
	}
	result_add_install(report, ci);
	return 0;
}

static const struct inv_install *find_install(const struct inventory *inv, const char *torch_dir)
{
	size_t i;
	for (i = 0; i < inv->ninstalls; i++)
		if (!str_icmp(inv->installs[i].torch_dir, torch_dir))
			return &inv->installs[i];
	return NULL;
}

/* ---- the command ---- */

static int set_memory(void *dst, const char *val, struct strbuf *why)
{
	struct err e;
	err_clear(&e);
	if (memory_parse_size(val, (uint64_t *)dst, &e)) {
		strbuf_adds(why, e.msg);
		return -1;
	}
	return 0;
}

static int set_processes(void *dst, const char *val, struct strbuf *why)
{
	char *end;
	long n = strtol(val, &end, 10);
	if (!*val || *end || n < 1 || n > COMMIT_MAX_PROCESSES) {
		strbuf_addf(why, "expected a number from 1 to %d", COMMIT_MAX_PROCESSES);
		return -1;
	}
	*(unsigned *)dst = (unsigned)n;
	return 0;
}

struct check_opts {
	const char *torch, *sitepk, *python, *userbase, *scan;
	const char *app; /* --app: a frozen app's executable or folder */
	const char *host, *default_dll_dirs; /* --host: a program that embeds Python; its SetDefaultDllDirectories */
	int depth;
	uint16_t machine; /* 0: python.exe's, else x64 */
	struct strlist matrices;
	struct strlist import_first;
	struct view_opts vo;
	struct report_opts ro;
	struct confirm_opts co;
	int pins, pins_unchanged, worktree;
	int verify_hashes;
	uint64_t memory;     /* --memory: bytes of RAM (0: not given) */
	unsigned processes;  /* --processes (0: not given) */
	int no_user_site;
	struct pins_where src; /* --repo, --rev, --base, --head, --github-event */
	struct strlist profiles; /* --profile NAME|FILE (cli/profile_opt.h) */
	const struct matrix_profile **prof; /* resolved */
	size_t nprof;
};

static const struct cli_opt check_opts_table[] = {
	CLI_OPT("--torch", "DIR", "the torch package folder (...\\site-packages\\torch)",
		cli_set_str, struct check_opts, torch),
	CLI_OPT("--site-packages", "DIR", "a site-packages folder holding torch",
		cli_set_str, struct check_opts, sitepk),
	CLI_OPT("--python", "PATH", "python.exe of the environment, or py:3.X / py for the py launcher's choice;\n"
		"its torch is the one its sys.path imports (default: the first python.exe on the\n"
		"machine's PATH, else the py launcher's default; docs/python.md)",
		cli_set_str, struct check_opts, python),
	CLI_OPT("--no-user-site", NULL, "python -s: the user site is not on sys.path",
		cli_set_flag, struct check_opts, no_user_site),
	CLI_OPT("--app", "PATH", "a frozen app (PyInstaller onedir or onefile, cx_Freeze): its .exe or its\n"
		"folder; checked as the process its launcher starts (docs/loader.md, Frozen apps)",
		cli_set_str, struct check_opts, app),
	CLI_OPT("--host", "EXE", "a program that embeds Python and imports the --torch or --site-packages\n"
		"given: its folder is the application folder, its imports are loaded before torch",
		cli_set_str, struct check_opts, host),
	CLI_OPT("--default-dll-dirs", "FLAGS", "with --host: the flags it gives SetDefaultDllDirectories (0x1000:\n"
		"LOAD_LIBRARY_SEARCH_DEFAULT_DIRS; 0x1f00 at most)",
		cli_set_str, struct check_opts, default_dll_dirs),
	CLI_OPT("--scan", "DIR", "every torch install under DIR (e.g. 'C:\\'), each checked with its own\n"
		"python and dll_paths",
		cli_set_str, struct check_opts, scan),
	CLI_OPT("--depth", "N", "how many folders deep --scan looks (1 to 64, default 8)",
		cmd_set_scan_depth, struct check_opts, depth),
	CLI_GROUP(view_cli_opts, struct check_opts, vo),
	CLI_OPT("--matrix", "FILE", "a matrix layered over the embedded one (repeatable; matrix/README.md)",
		cli_push, struct check_opts, matrices),
	CLI_OPT("--import-first", "PKG", "a package the program imports before torch (repeatable, in order): its\n"
		"binaries are loaded first, with its own DLL folders; PKG.module: only that module's\n"
		"(docs/loader.md)",
		cli_push, struct check_opts, import_first),
	CLI_OPT("--userbase", "DIR", "the Python user base (default %PYTHONUSERBASE% or %APPDATA%\\Python)",
		cli_set_str, struct check_opts, userbase),
	CLI_OPT("--machine", CLI_MACHINE_ARG, "the process architecture (default: python.exe's, else x64)",
		cli_set_machine, struct check_opts, machine),
	CLI_OPT("--pins", NULL, "the pre-merge gate: judge the torch the repository pins (at head; what a PR\n"
		"changes) against this runner, before torch is installed (docs/check.md)",
		cli_set_flag, struct check_opts, pins),
	CLI_GROUP(pins_where_cli_opts, struct check_opts, src),
	CLI_OPT("--pins-unchanged", NULL, "with --pins: judge the head's pins even when the PR changes no pin file\n"
		"and no --matrix file (else it passes at once, with one note)",
		cli_set_flag, struct check_opts, pins_unchanged),
	CLI_OPT("--worktree", NULL, "with --pins: judge the working tree's pin files, uncommitted edits included,\n"
		"as the head (as `pins --worktree` reads them; judged even when nothing changed)",
		cli_set_flag, struct check_opts, worktree),
	CLI_OPT("--profile", "NAME|FILE", "judge on this machine profile too (repeatable; docs/profiles.md): each\n"
		"pin (--pins; default " GATE_DEFAULT_PROFILE "), each install (its files with the\n"
		"profile's System32); a FILE's profiles; none: this machine alone",
		cli_push, struct check_opts, profiles),
	CLI_OPT("--verify-hashes", NULL, "compare every file torch's RECORD lists by sha256 too, not only by size\n"
		"(reads the whole install: seconds on a warm cache)",
		cli_set_flag, struct check_opts, verify_hashes),
	CLI_OPT("--processes", "N", "how many processes load torch at once: a DataLoader's num_workers + 1 (1 to\n"
		"4096, default 1); their commit charge is judged against the machine's limit (docs/commit.md)",
		set_processes, struct check_opts, processes),
	CLI_OPT("--memory", "SIZE", "the machine's physical memory (16GiB, 512MiB): with the registry's\n"
		"PagingFiles, the commit limit (live on Windows: the OS's own)",
		set_memory, struct check_opts, memory),
	CLI_GROUP(report_cli_opts, struct check_opts, ro),
	CLI_GROUP(confirm_cli_opts, struct check_opts, co),
	CLI_END,
};

const struct cli_cmd check_cli = {
	.name = "check",
	.summary = "will torch load on this machine? (findings, exit 1 on failure)",
	.synopsis = "[--torch DIR | --site-packages DIR | --python PATH | --app PATH | --scan DIR | --pins] [--host EXE] [options]",
	.opts = check_opts_table,
	.notes = "Paths are Windows paths (C:\\...) or host paths under --root. --pins alone judges the\n"
		 "repository's torch pins against this runner with no torch installed; with an install\n"
		 "option the loader check runs too, in the same report. --pins runs torch-dll-check-git,\n"
		 "installed next to torch-dll-check (it reads git with libgit2).",
	.exit_status = "0 pass, 1 findings (errors, or warnings with --fail-on warning), 2 usage or input error.",
	.max_operands = 0,
};

/* The install options: one of them (or --pins), and --scan alone; the gate's options need --pins. */
/*
 * An --import-first name: a distribution or package name (PEP 508, no dots:
 * PyQt5, PyQt5-Qt5) or a dotted Python module name (PyQt5.QtCore: ASCII
 * identifiers). A path, an empty component (".PyQt5", "PyQt5....") or torch
 * itself or one of its modules (importing torch.nn imports torch first) is a
 * usage error, said.
 */
static int import_first_bad(const char *name)
{
	const char *p = name, *why = NULL;
	int dotted = strchr(name, '.') != NULL;
	if (!strcmp(name, "torch") || !strncmp(name, "torch.", 6))
		/* importing torch.nn imports torch first: it is never imported before torch */
		why = "torch is the package checked (torch.MODULE imports torch first); --import-first names one imported "
		      "before it";
	else if (!dotted && !dist_name_valid(name))
		why = "not a package name";
	while (!why && dotted) {
		const char *e = strchr(p, '.');
		size_t n = e ? (size_t)(e - p) : strlen(p), i;
		if (!n || !(ascii_isalpha((unsigned char)p[0]) || p[0] == '_'))
			why = "not a Python module name (NAME or NAME.module)";
		for (i = 0; !why && i < n; i++)
			if (!ascii_isalnum((unsigned char)p[i]) && p[i] != '_')
				why = "not a Python module name (NAME or NAME.module)";
		if (!e)
			break;
		p = e + 1;
	}
	if (why) {
		char esc[128];
		cli_error(&check_cli, "--import-first %s: %s", text_excerpt(name, strlen(name), 60, esc, sizeof(esc)), why);
		return -1;
	}
	return 0;
}

static int check_combination(const struct check_opts *o)
{
	const struct pins_where *s = &o->src;
	size_t k;
	if (!o->pins && (s->repo || s->rev || s->base || s->head || s->event || o->pins_unchanged || o->worktree)) {
		cli_error(&check_cli,
			  "--repo, --rev, --base, --head, --github-event, --pins-unchanged and --worktree need --pins");
		return -1;
	}
	if (o->worktree && (s->rev || s->head)) {
		cli_error(&check_cli, "--worktree is the head: it does not go with --rev or --head");
		return -1;
	}
	if (pins_where_check(&check_cli, s) < 0)
		return -1;
	if (o->host && (o->app || o->python || o->scan || (!o->torch && !o->sitepk))) {
		cli_error(&check_cli, "--host EXE checks the torch a program's embedded Python imports: give it with "
				      "--torch DIR or --site-packages DIR (not --app, --python or --scan)");
		return -1;
	}
	if (o->default_dll_dirs) {
		char *end;
		unsigned long f = strtoul(o->default_dll_dirs, &end, 0);
		if (!o->host || *end || !f || (f & ~0x1f00UL)) {
			cli_error(&check_cli, "--default-dll-dirs FLAGS goes with --host, and FLAGS is a number of "
					      "LOAD_LIBRARY_SEARCH_* bits (0x100 to 0x1f00)");
			return -1;
		}
	}
	if (o->app && (o->torch || o->sitepk || o->python || o->scan || o->userbase)) {
		cli_error(&check_cli, "--app checks the app's own torch and process: it does not combine with --torch, "
				      "--site-packages, --python, --userbase or --scan");
		return -1;
	}
	for (k = 0; k < o->import_first.n; k++)
		if (import_first_bad(o->import_first.v[k]))
			return -1;
	if (o->scan && (o->torch || o->sitepk)) {
		cli_error(&check_cli, "--scan checks every install it finds; it does not combine with --torch or "
				      "--site-packages");
		return -1;
	}
	return 0;
}

/* The matrix: the embedded default, then each --matrix file. */
static int load_matrix(const struct check_opts *o, struct matrix *m)
{
	struct err e;
	size_t k;
	err_clear(&e);
	if (matrix_load_default(m, NULL, &e)) {
		cmd_usage_error("check: the embedded matrix: %s", e.msg);
		return -1;
	}
	for (k = 0; k < o->matrices.n; k++) {
		if (matrix_load_file(m, o->matrices.v[k], NULL, &e)) {
			cmd_usage_error("check: %s (run `torch-dll-check matrix lint %s` for every error)", e.msg,
					o->matrices.v[k]);
			return -1;
		}
	}
	return 0;
}

/* Where torch is, as Windows paths on the view (the caller frees them). */
struct check_paths {
	char *torch, *python, *userbase, *scan;
	char *host; /* --host's executable (Windows path) */
	struct frozen_app app; /* a frozen app's layout (--app, or a --torch inside one) */
	int frozen;
	struct ldr_images *images; /* every install's runs share their parsed images (loader.h): the profiles' too */
};

/* --app: the frozen app's layout and its torch. */
static int resolve_app(const struct check_opts *o, struct view *v, struct check_paths *p)
{
	struct err e;
	char *w = cmd_winpath(v, o->app);
	err_clear(&e);
	if (!w)
		return -1;
	if (frozen_app_open(&p->app, v, w, &e)) {
		cmd_usage_error("check: --app %s: %s%s", o->app, e.msg, cmd_root_hint(&o->vo, v, o->app));
		free(w);
		return -1;
	}
	free(w);
	p->frozen = 1;
	if (!p->app.torch_dir) {
		cmd_usage_error("check: --app %s: no torch folder in the app's top-level folder %s (not collected?)",
				o->app, p->app.home);
		return -1;
	}
	p->torch = xstrdup(p->app.torch_dir);
	return 0;
}

/*
 * Errors name the path as the user gave it (a host path stays a host path).
 * With --pins, --python may name a Python without torch (the gate runs before
 * pip install): p->torch is then NULL and only python.exe's folder is used.
 */
static int resolve_paths(const struct check_opts *o, struct view *v, struct check_paths *p, struct check_python *cp)
{
	if (o->python && !check_python_is_spec(o->python) && !(p->python = cmd_winpath(v, o->python)))
		return -1;
	/* no python named (or a py launcher spec): the one a person means (check_python.h) */
	if (!p->python && !o->torch && !o->sitepk && !o->scan && !o->app && (o->python || !o->pins) &&
	    check_python_choose(cp, v, o->python, &p->python))
		return -1;
	if (o->userbase && !(p->userbase = cmd_winpath(v, o->userbase)))
		return -1;
	if (p->python && !view_is_file(v, p->python)) {
		cmd_usage_error("check: --python %s: no such file%s", o->python, cmd_root_hint(&o->vo, v, o->python));
		return -1;
	}
	if (o->scan)
		return (p->scan = cmd_winpath(v, o->scan)) ? 0 : -1;
	if (o->app)
		return resolve_app(o, v, p);
	if (o->host) {
		if (!(p->host = cmd_winpath(v, o->host)))
			return -1;
		if (!view_is_file(v, p->host)) {
			cmd_usage_error("check: --host %s: no such file%s", o->host, cmd_root_hint(&o->vo, v, o->host));
			return -1;
		}
	}
	if (o->torch) {
		if (!(p->torch = cmd_winpath(v, o->torch)))
			return -1;
		/* torch inside a frozen app's folder: the app's launcher starts the process, not a python.exe */
		if (!o->python && !o->host && view_is_dir(v, p->torch))
			p->frozen = frozen_app_of_torch(&p->app, v, p->torch);
	} else if (o->sitepk) {
		char *w = cmd_winpath(v, o->sitepk);
		if (!w)
			return -1;
		p->torch = winpath_join(w, "torch");
		free(w);
	} else if (p->python) {
		/* the torch `import torch` picks: the first on python.exe's sys.path (machine/pypath.h) */
		const char *t = check_python_torch(cp, v, p->python, o->no_user_site);
		if (!p->userbase && cp->path.store_family && cp->path.user_base)
			p->userbase = xstrdup(cp->path.user_base);
		if (!t && o->pins)
			return 0;
		if (!t) {
			if (cp->path.cannot_start)
				cmd_usage_error("check: python %s: %s", p->python, cp->path.cannot_start);
			else if (cp->path.dropped) /* a cap is no answer: say that torch may be past it */
				cmd_usage_error("check: python %s: no torch package in the first %zu folders of its sys.path "
						"(from %s); %zu more were not looked at (at most %d are): torch may be "
						"among them",
						p->python, cp->path.n, cp->path.e[0].path, cp->path.dropped,
						PYPATH_MAX_ENTRIES);
			else
				cmd_usage_error("check: python %s: no torch package on its sys.path (%zu folders, from %s; "
						"`torch-dll-check check --json` lists them)",
						p->python, cp->path.n, cp->path.n ? cp->path.e[0].path : "none");
			return -1;
		}
		p->torch = xstrdup(t);
	} else {
		return 0; /* --pins alone: no install */
	}
	if (!view_is_dir(v, p->torch)) {
		if (o->torch)
			cmd_usage_error("check: --torch %s: no such directory", o->torch);
		else if (o->sitepk)
			cmd_usage_error("check: --site-packages %s: no torch folder in it", o->sitepk);
		else
			cmd_usage_error("check: python %s: its torch folder %s is not there", p->python, p->torch);
		return -1;
	}
	return 0;
}

/* The inventory: redistributables, the installs, their runtime DLLs. */
static int take_inventory(const struct check_opts *o, struct view *v, const struct check_paths *p,
			  struct inventory *inv)
{
	struct err e;
	err_clear(&e);
	if (o->scan) {
		if ((view_has_registry(v) && inventory_redist_view(inv, v, &e)) ||
		    inventory_scan(inv, v, p->scan, o->depth, &e) || inventory_runtime_dlls(inv, v, &e)) {
			cmd_usage_error("check: %s", e.msg);
			return -1;
		}
		if (!inv->ninstalls) {
			cmd_usage_error("check: no torch install under %s (looked %d folders deep)", o->scan, o->depth);
			return -1;
		}
		return 0;
	}
	if (p->torch && !inventory_collect(inv, v, p->torch, p->python, &e))
		return 0;
	/* not a torch the inventory understands (no __init__.py, ...): the loader still runs */
	inventory_release(inv);
	inventory_init(inv);
	err_clear(&e);
	if ((view_has_registry(v) && inventory_redist_view(inv, v, &e)) || inventory_runtime_dlls(inv, v, &e)) {
		cmd_usage_error("check: %s", e.msg);
		return -1;
	}
	return 0;
}

/* The report before any install: the machine, the matrix files. */
static void start_report(struct result *report, struct view *v, const struct matrix *m)
{
	cJSON *mj, *files;
	size_t k;
	result_init(report, v, NULL); /* its `machine` is the first install's (result_finish) */
	mj = cJSON_CreateObject();
	files = cJSON_AddArrayToObject(mj, "sources");
	for (k = 0; k < m->files.n; k++)
		cJSON_AddItemToArray(files, cJSON_CreateString(m->files.v[k]));
	cJSON_AddItemToObject(report->doc, "matrix", mj);
}

/* torch_inputs.procedure: the matrix's torch_load entry for the release. */
static int matrix_procedure(void *ctx, const char *version, struct torch_proc *out)
{
	return matrix_torch_load(ctx, version, out);
}

/*
 * The process PyInstaller's bootloader starts (docs/loader.md, "Frozen apps"): the
 * executable, SetDllDirectoryW on the top-level folder, ucrtbase.dll when
 * bundled and then the Python DLL by full path, sys.prefix the top-level
 * folder (pyi_main.c, pyi_pythonlib.c).
 */
static void frozen_launcher(struct torch_launcher *l, const struct frozen_app *app, const char *preload[2])
{
	memset(l, 0, sizeof(*l));
	l->exe = app->exe;
	l->preload = preload;
	if (app->python_static) { /* cx_Freeze: the base imports python3X.dll; lib\ added before Python runs */
		l->dll_directory = app->set_dir;
		l->dll_directory_why = "the app's lib folder: cx_Freeze's base calls SetDllDirectoryW on it";
		l->add_dll_directory = app->add_dir;
		l->add_dll_directory_why = "the app's lib folder: cx_Freeze's base and its __startup__ add it with "
					   "AddDllDirectory";
		l->prefix = app->home;
		l->what = app->what;
		return;
	}
	l->dll_directory = app->home;
	l->dll_directory_why = "the app's top-level folder: PyInstaller's bootloader calls SetDllDirectoryW on it";
	if (app->ucrtbase)
		preload[l->npreload++] = app->ucrtbase;
	preload[l->npreload++] = app->python_dll;
	l->prefix = app->home;
	l->what = app->what;
}

/*
 * --host: the program's process (docs/loader.md, Frozen apps): its
 * executable's imports at start-up, then SetDefaultDllDirectories when
 * given, nothing preloaded; sys.prefix is the folder above torch's Lib\
 * (<prefix>\Lib\site-packages\torch), else the executable's.
 */
static void host_launcher(struct torch_launcher *l, const char *exe, const char *torch, const char *flags,
			  char **prefix)
{
	char *sp = winpath_dirname(torch), *lib = winpath_dirname(sp);
	memset(l, 0, sizeof(*l));
	l->exe = exe;
	if (!str_icmp(winpath_basename(sp), "site-packages") && !str_icmp(winpath_basename(lib), "Lib"))
		*prefix = winpath_dirname(lib);
	l->prefix = *prefix;
	l->default_dll_dirs = flags ? (unsigned)strtoul(flags, NULL, 0) : 0;
	l->what = "a program that embeds Python";
	free(sp);
	free(lib);
}

/* Every install: the one given, or each --scan found with its own python. */
static int check_installs(struct result *report, struct view *v, const struct check_opts *o, const struct check_paths *p,
			  const struct matrix *m, const struct inventory *inv, const struct strlist *sys_path,
			  const struct check_scan *scan)
{
	struct torch_inputs in;
	struct torch_launcher launch;
	const char *preload[2];
	char *host_prefix = NULL;
	struct check_env env;
	struct machine_memory mem;
	struct err e;
	size_t k;
	memset(&in, 0, sizeof(in));
	err_clear(&e);
	machine_memory_init(&mem);
	if (o->memory) {
		mem.physical = o->memory;
		mem.physical_source = xstrdup("--memory");
	}
	if (memory_read(&mem, v, &e))
		goto fail;
	osver_read(&report->windows, v); /* the machine's Windows: the rows' min_windows (the report keeps it) */
	env.windows = &report->windows;
	env.memory = &mem;
	env.processes = o->processes;
	env.v = v;
	env.m = m;
	env.inv = inv;
	env.import_first = &o->import_first;
	env.verify_hashes = o->verify_hashes;
	env.sys_path = sys_path;
	in.machine = o->machine;
	in.python_exe = p->python;
	in.userbase = p->userbase;
	in.procedure = matrix_procedure;
	in.procedure_ctx = (void *)(uintptr_t)m; /* read only */
	in.images = p->images;
	in.delay_own_folder = matrix_delay_own_folder;
	in.delay_own_ctx = (void *)(uintptr_t)m; /* read only */
	in.preload = m->npreloads ? &m->preloads[0].v : NULL; /* TheRock's torch\_rocm_init.py (pkgpreload.h) */
	if (p->frozen) {
		frozen_launcher(&launch, &p->app, preload);
		in.launcher = &launch;
	} else if (p->host) {
		host_launcher(&launch, p->host, p->torch, o->default_dll_dirs, &host_prefix);
		in.launcher = &launch;
	}
	if (!o->scan && !p->torch)
		goto done; /* --pins without an install */
	if (!o->scan) {
		in.torch_dir = p->torch;
		if (check_install(report, &env, find_install(inv, p->torch), &in, &e))
			goto fail;
	}
	for (k = 0; o->scan && k < inv->ninstalls; k++) {
		struct torch_inputs one = in;
		one.torch_dir = inv->installs[k].torch_dir;
		one.python_exe = inv->installs[k].python;
		if (!one.python_exe) /* a user site: the python found whose sys.path imports it runs it */
			one.python_exe = check_scan_importer(scan, one.torch_dir);
		if (!one.userbase) /* with its user base (a Store Python's launcher sets its own) */
			one.userbase = check_scan_userbase(scan, one.python_exe);
		if (check_install(report, &env, &inv->installs[k], &one, &e))
			goto fail;
	}
	/* --profile named: each install on each profile's machine too (the gate's default is the gate's alone) */
	if (o->profiles.n && o->nprof)
		cli_profiles_check(report, v, &env, m, o->prof, o->nprof);
done:
	machine_memory_release(&mem);
	free(host_prefix);
	return 0;
fail:
	machine_memory_release(&mem);
	free(host_prefix);
	cmd_usage_error("check: %s", e.msg);
	return -1;
}

/* --pins: the pins from the reader (git_gate.c), first, so that a shallow clone fails before any work. */
static int read_gate_pins(const struct check_opts *o, gate_read_fn read_pins, struct gate_pins *gp)
{
	struct gate_source src;
	struct err e;
	memset(&src, 0, sizeof(src));
	err_clear(&e);
	src.at = o->src;
	src.matrices = &o->matrices;
	src.worktree = o->worktree;
	if (read_pins(gp, &src, &e) < 0) {
		cmd_usage_error("check --pins: %s", e.msg);
		return -1;
	}
	return 0;
}

/* The pins judged against this runner; each install against the pins. */
static int judge_gate_pins(struct result *report, struct view *v, const struct check_opts *o,
			   const struct check_paths *p, const struct matrix *m, const struct inventory *inv,
			   const struct gate_pins *gp)
{
	struct gate_runner run;
	struct gate_report gr;
	struct err e;
	memset(&run, 0, sizeof(run));
	memset(&gr, 0, sizeof(gr));
	err_clear(&e);
	run.v = v;
	run.inv = inv;
	run.python = p->python;
	run.arch = o->machine ? pe_machine_name(o->machine) : "x64";
	run.profiles = o->prof;
	run.nprofiles = o->nprof;
	if (check_gate(&report->findings, &gr, gp, m, &run, o->pins_unchanged, &e) < 0) {
		gate_report_release(&gr);
		cmd_usage_error("check --pins: %s", e.msg);
		return -1;
	}
	result_add_pins(report, gp, &gr); /* the report keeps it until result_finish */
	return 0;
}

int cmd_check(int argc, char **argv)
{
	return cmd_check_with(argc, argv, NULL);
}

int cmd_check_with(int argc, char **argv, gate_read_fn read_pins)
{
	struct check_opts o;
	struct check_paths p;
	struct cli_args args;
	struct view *v = NULL;
	struct registry *reg = NULL;
	struct inventory inv;
	struct matrix m;
	struct result report = RESULT_INIT;
	struct gate_pins gp;
	struct check_python cp;
	struct strlist sys_path = STRLIST_INIT;
	struct check_scan scan;
	int r, rc = EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	memset(&p, 0, sizeof(p));
	o.depth = 8;
	view_opts_init(&o.vo);
	report_opts_init(&o.ro);
	confirm_opts_init(&o.co);
	inventory_init(&inv);
	matrix_init(&m);
	gate_pins_init(&gp);
	check_python_init(&cp);
	check_scan_init(&scan);
	r = cli_parse(&check_cli, argc, argv, &o, &args);
	cli_args_release(&args);
	if (r) {
		rc = r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
		goto out;
	}
	if (check_combination(&o))
		goto out;
	if (o.pins && !read_pins) {
		/* git is read by torch-dll-check-git, which runs this command whole */
		view_opts_release(&o.vo);
		strlist_release(&o.matrices);
		strlist_release(&o.import_first);
		strlist_release(&o.profiles);
		return cmd_git_sibling(argc, argv);
	}
	if (load_matrix(&o, &m) ||
	    ((o.pins || o.profiles.n) &&
	     cli_profiles_resolve(&m, &o.profiles, o.pins ? GATE_DEFAULT_PROFILE : NULL, "check", &o.prof, &o.nprof)) ||
	    (o.pins && read_gate_pins(&o, read_pins, &gp)) ||
	    view_opts_open(&o.vo, "check", &reg, &v) || resolve_paths(&o, v, &p, &cp) || take_inventory(&o, v, &p, &inv))
		goto out;
	start_report(&report, v, &m);
	p.images = loader_images_new();
	if (cp.built) /* which python and which torch its sys.path imports */
		cJSON_AddItemToObject(report.doc, "interpreter", check_python_json(&cp));
	check_python_sys_path(&cp, &sys_path);
	if (o.scan)
		check_python_scan(&scan, v, &inv);
	if (check_installs(&report, v, &o, &p, &m, &inv, cp.built ? &sys_path : NULL, &scan))
		goto out;
	if (o.pins && judge_gate_pins(&report, v, &o, &p, &m, &inv, &gp))
		goto out;
	check_outside_links(&report.findings, v, report.installs, report.ninstalls); /* after every lookup: the gate's too */
	result_add_inventory(&report, inventory_to_json(&inv, v));
	if (cmd_confirm_installs(&report, &o.co))
		goto out;
	result_finish(&report);
	if (o.scan) /* each install with the python.exe found whose sys.path imports or shadows it */
		check_scan_json(&scan, report.doc);
	rc = report_run(report.doc, &o.ro);
out:
	result_release(&report);
	loader_images_free(p.images); /* after the runs that borrowed from it */
	inventory_release(&inv);
	gate_pins_release(&gp);
	check_python_release(&cp);
	strlist_release(&sys_path);
	check_scan_release(&scan);
	matrix_release(&m);
	registry_free(reg);
	view_free(v);
	free(p.torch);
	free(p.python);
	free(p.userbase);
	free(p.scan);
	free(p.host);
	frozen_app_release(&p.app);
	view_opts_release(&o.vo);
	strlist_release(&o.matrices);
	strlist_release(&o.import_first);
	strlist_release(&o.profiles);
	free(o.prof);
	return rc;
}
