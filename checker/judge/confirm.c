/*
 * confirm: the prediction against the real loader (contracts in confirm.h).
 *
 * Why a child process: loading torch's DLLs for real runs their DllMain,
 * maps them, grows the loaded-module list, and may change PATH, crash or
 * hang. None of that may touch the checker's own process, and the helper
 * needs a fresh process so that nothing the checker loaded satisfies a
 * torch import by name. So `check --confirm` spawns
 * `<self> confirm-helper ...` (os_spawn, with a timeout) and reads its JSON
 * lines; the helper is the same program, so nothing extra has to be
 * shipped or found.
 *
 * What the helper performs is torch's and CPython's procedure as
 * docs/loader.md states it (sections 2-4: AddDllDirectory for dll_paths,
 * the VC++ runtime probe, torch\lib\*.dll with 0x1100 and the PATH
 * fallback on 126, the extension modules with DEFAULT_DIRS | DLL_LOAD_DIR),
 * for real, as tests/oracle/torchload_oracle.c does under Wine. torch\lib
 * is globbed live by glob's rules (dot-files skipped, folders kept); the
 * .pyd files are the ones the prediction chose by FileFinder's rules
 * (torchload.c). Nothing is freed: loaded modules satisfy later imports, as
 * in python.exe.
 *
 * Where it departs from python.exe, and why:
 *  - Its application directory is the checker's folder, not python.exe's
 *    (a process cannot choose it). python.exe's folder (`--app-dir`) is
 *    added with AddDllDirectory first and appended to the PATH prefix of the
 *    fallback: every file the real process finds there is found, only the
 *    position among equally named copies can differ. Ship the checker in a
 *    folder of its own (the static .exe needs nothing next to it).
 *  - It carries the checker's C runtime and the system DLLs the static .exe
 *    imports (msvcrt, advapi32, shell32 and their dependencies) in its
 *    loaded-module list. These resolve from System32 for torch too, so they
 *    change an outcome only if torch shipped its own copy of such a system
 *    DLL. `--confirm-import` runs the real python.exe and has no such
 *    departure: it is the ground truth, the helper the per-binary detail.
 *
 * Why the oracle is not shared: torchload_oracle.c is deliberately
 * freestanding (kernel32 only, no C runtime, its own argument parser) so
 * that the test oracle's loaded-module list holds nothing but kernel32;
 * this module is ordinary checker code (strbuf, cJSON, os.h). Sharing would
 * force one of them to give that up, so both exist, with the same output
 * fields (path, stage, error, first_error), and the Wine tests run both.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/confirm.h"
#include "util/os.h"
#include "machine/view.h"

#define FLAGS_TORCH 0x1100u /* LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS */
#define FLAGS_CTYPES 0x1000u /* LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: ctypes.CDLL of a bare name */
#define ERROR_MOD_NOT_FOUND_ 126

/* ---- the helper (child process) ---------------------------------------- */

static void emit_obj(cJSON *o, confirm_emit_fn emit, void *ctx)
{
	char *s = cJSON_PrintUnformatted(o);
	emit(s, ctx);
	cJSON_free(s);
	cJSON_Delete(o);
}

static void emit_begin(const char *path, confirm_emit_fn emit, void *ctx)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "event", "begin");
	cJSON_AddStringToObject(o, "path", path);
	emit_obj(o, emit, ctx);
}

static void emit_result(const char *path, const char *kind, const char *stage, unsigned flags, unsigned long error,
			int has_first, unsigned long first, confirm_emit_fn emit, void *ctx)
{
	cJSON *o = cJSON_CreateObject();
	char f[16];
	snprintf(f, sizeof(f), "0x%x", flags);
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddStringToObject(o, "stage", stage);
	cJSON_AddStringToObject(o, "flags", f);
	cJSON_AddNumberToObject(o, "error", (double)error);
	if (has_first)
		cJSON_AddNumberToObject(o, "first_error", (double)first);
	emit_obj(o, emit, ctx);
}

/* One load; -1 only when it cannot be tried at all. */
static int load(const char *path, unsigned flags, unsigned long *error, struct err *err)
{
	int r = os_load_library_ex(path, flags, error, err);
	if (r < 0)
		return -1;
	if (r == 0)
		*error = 0;
	return 0;
}

/* PATH = ";".join(dll_paths + [app_dir] + [PATH]), torch's one-time patch (+ the app-dir stand-in). */
static int patch_path(const struct confirm_helper_args *a, struct err *err)
{
	struct strbuf p = STRBUF_INIT;
	const char *old = os_getenv("PATH");
	size_t i;
	int rc;
	for (i = 0; i < a->dll_paths.n; i++)
		strbuf_addf(&p, "%s%s", p.len ? ";" : "", a->dll_paths.v[i]);
	if (a->app_dir)
		strbuf_addf(&p, "%s%s", p.len ? ";" : "", a->app_dir);
	if (old && *old)
		strbuf_addf(&p, "%s%s", p.len ? ";" : "", old);
	rc = os_setenv("PATH", strbuf_str(&p), err);
	strbuf_release(&p);
	return rc;
}

int confirm_helper_run(const struct confirm_helper_args *a, confirm_emit_fn emit, void *ctx, struct err *err)
{
	static const char *const vc[] = { "vcruntime140.dll", "msvcp140.dll", "vcruntime140_1.dll" };
	struct strlist names = STRLIST_INIT;
	char *lib;
	size_t i;
	int failed = 0, patched = 0;
	unsigned long e;

	if (!os_is_windows())
		return err_set(err, "live loading needs Windows; run the Windows build (torch-dll-check.exe)");
	if (a->app_dir && os_add_dll_directory(a->app_dir, err))
		return -1;
	for (i = 0; i < a->dll_paths.n; i++)
		if (os_add_dll_directory(a->dll_paths.v[i], err))
			return -1;
	if (a->vc_probe) {
		for (i = 0; i < 3; i++) {
			emit_begin(vc[i], emit, ctx);
			if (load(vc[i], FLAGS_CTYPES, &e, err))
				return -1;
			emit_result(vc[i], "vc_probe", "vc_probe", FLAGS_CTYPES, e, 0, 0, emit, ctx);
			if (e)
				break; /* torch's try block ends at the first OSError */
		}
	}
	lib = xasprintf("%s\\lib", a->torch_dir);
	if (os_list_dir(lib, &names, err)) {
		free(lib);
		strlist_release(&names);
		return -1;
	}
	for (i = 0; i < names.n; i++) {
		char *path;
		unsigned long first = 0;
		int fallback = 0;
		if (names.v[i][0] == '.' || !str_iendswith(names.v[i], ".dll"))
			continue;
		path = xasprintf("%s\\%s", lib, names.v[i]);
		emit_begin(path, emit, ctx);
		if (load(path, FLAGS_TORCH, &e, err))
			goto fail_path;
		if (e == ERROR_MOD_NOT_FOUND_) {
			if (!patched && patch_path(a, err))
				goto fail_path;
			patched = 1;
			fallback = 1;
			first = e;
			if (load(path, 0, &e, err))
				goto fail_path;
		}
		emit_result(path, "dll", fallback ? "path_fallback" : "add_dll_directory", fallback ? 0 : FLAGS_TORCH,
			    e, fallback, first, emit, ctx);
		failed |= e != 0;
		free(path);
		continue;
fail_path:
		free(path);
		free(lib);
		strlist_release(&names);
		return -1;
	}
	free(lib);
	strlist_release(&names);
	for (i = 0; i < a->pyds.n; i++) {
		emit_begin(a->pyds.v[i], emit, ctx);
		if (load(a->pyds.v[i], FLAGS_TORCH, &e, err))
			return -1;
		emit_result(a->pyds.v[i], "pyd", "cpython", FLAGS_TORCH, e, 0, 0, emit, ctx);
		failed |= e != 0;
	}
	return failed;
}

/* ---- the parent: comparing ------------------------------------------------ */

void confirm_opts_init(struct confirm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_ms = CONFIRM_DEFAULT_TIMEOUT_MS;
}

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static int jnum(const cJSON *o, const char *k, double *out)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(n))
		return 0;
	/*
	 * Callers take these as ints (error codes); a child's line can carry
	 * any number (a DllMain may print one), so the value is kept in int's
	 * range: converting 5e111 to int is undefined behaviour (fuzz_confirm).
	 */
	*out = n->valuedouble;
	if (!(*out >= INT_MIN)) /* NaN too */
		*out = INT_MIN;
	else if (*out > INT_MAX)
		*out = INT_MAX;
	return 1;
}

/* `predicted` / `real`: the two WinError values (-1 = none: a crash, a hang, not loaded). */
static void mismatch(struct findings *found, cJSON *install, const char *binary, int predicted, int real,
		     const char *title, const char *message)
{
	struct finding *f = finding_add(
		found, RULE_PREDICTION_MISMATCH, SEV_DEFAULT,
		&(struct finding_spec){ .winerror = real > 0 ? real : 0, .title = title, .message = message,
					.fix = "the live result is what this machine does: trust it, and please report "
					       "the disagreement with this JSON report so that the checker's model can "
					       "be fixed",
					.install = jstr(install, "torch_dir"), .binary = binary });
	f->predicted_winerror = predicted >= 0 ? predicted : -1;
	f->real_winerror = real >= 0 ? real : -1;
}

static void set_confirmed(cJSON *bin, const cJSON *res, int agrees, const char *note)
{
	cJSON *c = cJSON_CreateObject();
	double v;
	if (res && jnum(res, "error", &v))
		cJSON_AddNumberToObject(c, "error", v);
	else
		cJSON_AddNullToObject(c, "error");
	if (res && jstr(res, "stage"))
		cJSON_AddStringToObject(c, "stage", jstr(res, "stage"));
	else
		cJSON_AddNullToObject(c, "stage");
	if (res && jnum(res, "first_error", &v))
		cJSON_AddNumberToObject(c, "first_error", v);
	if (agrees < 0)
		cJSON_AddNullToObject(c, "agrees");
	else
		cJSON_AddBoolToObject(c, "agrees", agrees);
	if (note)
		cJSON_AddStringToObject(c, "note", note);
	if (cJSON_GetObjectItemCaseSensitive(bin, "confirmed"))
		cJSON_ReplaceItemInObjectCaseSensitive(bin, "confirmed", c);
	else
		cJSON_AddItemToObject(bin, "confirmed", c);
}

static cJSON *find_result(cJSON *results, const char *path, int vc, int *used_idx)
{
	cJSON *r;
	int i = 0;
	cJSON_ArrayForEach(r, results)
	{
		const char *k = jstr(r, "kind"), *p = jstr(r, "path");
		if (p && k && !str_icmp(p, path) && (strcmp(k, "vc_probe") == 0) == (vc != 0)) {
			*used_idx = i;
			return r;
		}
		i++;
	}
	return NULL;
}

static char *fmt_status(long long code)
{
	if (code >= 0xC0000000LL && code <= 0xFFFFFFFFLL)
		return xasprintf("0x%08llX", code);
	return xasprintf("%lld", code);
}

/* The helper's output being matched against an install's prediction. */
struct helper_match {
	struct findings *found;
	cJSON *install;
	cJSON *results;      /* the helper's result lines, in order */
	unsigned char *used; /* results[i] matched a predicted binary or probe */
	char *pending;       /* the binary the helper announced and never reported (it died loading it), or NULL */
	char *status;        /* the helper's exit status as text */
	int timed_out, ended_early;
	unsigned timeout_ms;
	int nconf, nmis;
};

/* The JSON lines of the helper's output; anything else (a DLL printing in DllMain) is ignored. */
static void read_results(struct helper_match *h, const char *out)
{
	const char *p = out ? out : "";
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *line = xstrndup(p, n);
		cJSON *o;
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		o = line[0] == '{' ? cJSON_Parse(line) : NULL;
		free(line);
		p += n + (e ? 1 : 0);
		if (!cJSON_IsObject(o) || !jstr(o, "path")) {
			cJSON_Delete(o);
			continue;
		}
		if (jstr(o, "event")) {
			free(h->pending);
			h->pending = xstrdup(jstr(o, "path"));
			cJSON_Delete(o);
			continue;
		}
		if (h->pending && !str_icmp(h->pending, jstr(o, "path"))) {
			free(h->pending);
			h->pending = NULL;
		}
		cJSON_AddItemToArray(h->results, o);
	}
}

/* A predicted binary the helper loaded: agree, or a mismatch. */
static void confirm_loaded(struct helper_match *h, cJSON *b, const cJSON *r, double pred)
{
	const char *path = jstr(b, "path"), *pstage = jstr(b, "stage"), *rstage = jstr(r, "stage");
	double real = 0;
	int agrees;
	char *title, *msg;
	jnum(r, "error", &real);
	agrees = (int)real == (int)pred && pstage && rstage && !strcmp(pstage, rstage);
	set_confirmed(b, r, agrees, NULL);
	h->nconf++;
	if (agrees)
		return;
	title = xasprintf("%s: predicted WinError %d (%s), the real loader gave %d (%s)", winpath_basename(path),
			  (int)pred, pstage ? pstage : "?", (int)real, rstage ? rstage : "?");
	msg = xasprintf("The checker's emulation predicted %s (WinError %d, stage %s) for %s; "
			"LoadLibraryExW in a helper process on this machine returned %d (stage %s).",
			jstr(b, "outcome") ? jstr(b, "outcome") : "?", (int)pred, pstage ? pstage : "?", path, (int)real,
			rstage ? rstage : "?");
	mismatch(h->found, h->install, path, (int)pred, (int)real, title, msg);
	h->nmis++;
	free(title);
	free(msg);
}

/* A predicted binary the helper has no result for: it died loading it, stopped before it, or never tried it. */
static void confirm_unloaded(struct helper_match *h, cJSON *b, double pred)
{
	const char *path = jstr(b, "path");
	char *title, *note;
	if (h->pending && !str_icmp(h->pending, path)) {
		note = h->timed_out ? xasprintf("the helper was killed after %u s while loading this binary "
						"(a hang in DllMain?)", h->timeout_ms / 1000)
				    : xasprintf("the helper process ended with status %s while loading "
						"this binary (a crash in DllMain?)", h->status);
		title = xasprintf("%s: predicted WinError %d, the real load %s", winpath_basename(path), (int)pred,
				  h->timed_out ? "did not finish" : "crashed the process");
		set_confirmed(b, NULL, 0, note);
		mismatch(h->found, h->install, path, (int)pred, -1, title, note);
		h->nmis++;
		free(note);
		free(title);
	} else if (h->ended_early) {
		set_confirmed(b, NULL, -1, "not reached: the helper stopped before this binary");
	} else {
		title = xasprintf("%s: predicted WinError %d, but the real procedure never loads it", winpath_basename(path),
				  (int)pred);
		set_confirmed(b, NULL, 0, "the real procedure did not load this binary");
		mismatch(h->found, h->install, path, (int)pred, -1, title,
			 "The helper performed torch's procedure and never reached this binary: the real "
			 "directory listing or extension list differs from the prediction.");
		h->nmis++;
		free(title);
	}
}

static void confirm_binaries(struct helper_match *h)
{
	cJSON *b, *r;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(h->install, "binaries"))
	{
		const char *path = jstr(b, "path");
		double pred = 0;
		int idx = -1;
		if (!path)
			continue;
		jnum(b, "winerror", &pred);
		r = find_result(h->results, path, 0, &idx);
		if (r) {
			h->used[idx] = 1;
			confirm_loaded(h, b, r, pred);
		} else {
			confirm_unloaded(h, b, pred);
		}
	}
}

/* torch's VC++ runtime probe */
static void confirm_vc_probe(struct helper_match *h)
{
	cJSON *b, *r;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(h->install, "vc_runtime_probe"))
	{
		const char *name = jstr(b, "name");
		double pred = 0, real = 0;
		int idx = -1;
		char *title;
		if (!name || !(r = find_result(h->results, name, 1, &idx)))
			continue;
		h->used[idx] = 1;
		jnum(b, "winerror", &pred);
		jnum(r, "error", &real);
		set_confirmed(b, r, (int)real == (int)pred, NULL);
		if ((int)real == (int)pred)
			continue;
		title = xasprintf("torch's runtime probe of %s: predicted WinError %d, the real loader gave %d", name,
				  (int)pred, (int)real);
		mismatch(h->found, h->install, NULL, (int)pred, (int)real, title,
			 "ctypes.CDLL's LoadLibraryExW(name, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) in the helper "
			 "disagrees with the prediction.");
		h->nmis++;
		free(title);
	}
}

/* binaries the real procedure loaded that the prediction does not list */
static void confirm_unpredicted(struct helper_match *h)
{
	cJSON *r;
	int i = 0;
	cJSON_ArrayForEach(r, h->results)
	{
		const char *k = jstr(r, "kind");
		if (!h->used[i] && k && strcmp(k, "vc_probe")) {
			double real = 0;
			char *title, *msg;
			jnum(r, "error", &real);
			title = xasprintf("%s: loaded by the real procedure (error %d) but missing from the prediction",
					  winpath_basename(jstr(r, "path")), (int)real);
			msg = xasprintf("The helper loaded %s (stage %s, error %d); the checker's report has no such "
					"binary.", jstr(r, "path"), jstr(r, "stage") ? jstr(r, "stage") : "?", (int)real);
			mismatch(h->found, h->install, jstr(r, "path"), -1, (int)real, title, msg);
			h->nmis++;
			free(title);
			free(msg);
		}
		i++;
	}
}

void confirm_apply_helper_output(struct findings *found, cJSON *install, const char *out, long long exit_code,
				 int timed_out, unsigned timeout_ms)
{
	struct helper_match h;
	cJSON *summary;
	memset(&h, 0, sizeof(h));
	h.found = found;
	h.install = install;
	h.results = cJSON_CreateArray();
	h.status = fmt_status(exit_code);
	h.timed_out = timed_out;
	h.ended_early = timed_out || (exit_code != 0 && exit_code != 1);
	h.timeout_ms = timeout_ms;
	read_results(&h, out);
	h.used = xcalloc((size_t)cJSON_GetArraySize(h.results) + 1, 1);
	confirm_binaries(&h);
	confirm_vc_probe(&h);
	confirm_unpredicted(&h);
	summary = cJSON_CreateObject();
	cJSON_AddStringToObject(summary, "method", "helper");
	if (timed_out)
		cJSON_AddNullToObject(summary, "exit_code");
	else
		cJSON_AddNumberToObject(summary, "exit_code", (double)exit_code);
	cJSON_AddBoolToObject(summary, "timed_out", timed_out);
	cJSON_AddNumberToObject(summary, "binaries_confirmed", h.nconf);
	cJSON_AddNumberToObject(summary, "mismatches", h.nmis);
	cJSON_AddItemToObject(install, "confirmation", summary);
	free(h.used);
	free(h.pending);
	free(h.status);
	cJSON_Delete(h.results);
}

/* The last non-empty line of a text (the OSError / ImportError line of a traceback). */
static char *last_line(const char *s)
{
	const char *end = s + strlen(s), *start;
	while (end > s && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' '))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	return end > start ? xstrndup(start, (size_t)(end - start)) : NULL;
}

/* N of "[WinError N]" in text, or 0. */
static int parse_winerror(const char *text)
{
	const char *p = text ? strstr(text, "[WinError ") : NULL;
	return p ? atoi(p + 10) : 0;
}

void confirm_apply_import_output(struct findings *found, cJSON *install, const char *python, const char *errout,
				 long long exit_code, int timed_out, unsigned timeout_ms)
{
	cJSON *ic = cJSON_CreateObject(), *ie = cJSON_GetObjectItemCaseSensitive(install, "import_error");
	char *last = last_line(errout ? errout : "");
	int real_we = parse_winerror(last), pred_fail = cJSON_IsObject(ie), real_fail = timed_out || exit_code != 0;
	double pred_we = 0;
	int agrees;

	if (pred_fail)
		jnum(ie, "winerror", &pred_we);
	agrees = !timed_out && pred_fail == real_fail && (!pred_fail || !real_we || real_we == (int)pred_we);
	cJSON_AddStringToObject(ic, "python", python);
	cJSON_AddStringToObject(ic, "command", "import torch");
	if (timed_out)
		cJSON_AddNullToObject(ic, "exit_code");
	else
		cJSON_AddNumberToObject(ic, "exit_code", (double)exit_code);
	cJSON_AddBoolToObject(ic, "timed_out", timed_out);
	if (last)
		cJSON_AddStringToObject(ic, "stderr_last_line", last);
	else
		cJSON_AddNullToObject(ic, "stderr_last_line");
	if (real_we)
		cJSON_AddNumberToObject(ic, "winerror", real_we);
	else
		cJSON_AddNullToObject(ic, "winerror");
	cJSON_AddBoolToObject(ic, "agrees", agrees);
	cJSON_AddItemToObject(install, "import_check", ic);
	if (!agrees) {
		char *pred = pred_fail ? xasprintf("import torch fails with WinError %d", (int)pred_we)
				       : xstrdup("import torch succeeds");
		char *real = timed_out ? xasprintf("did not finish within %u s", timeout_ms / 1000)
			     : real_fail ? xasprintf("exited with status %lld: %s", exit_code, last ? last : "(no stderr)")
					 : xstrdup("succeeded");
		char *title = xasprintf("import torch: the checker predicted %s, the real interpreter %s",
					pred_fail ? "a failure" : "success",
					timed_out ? "hung" : real_fail ? "failed" : "succeeded");
		char *msg = xasprintf("Predicted: %s. `%s -c \"import torch\"` %s.", pred, python, real);
		mismatch(found, install, NULL, pred_fail ? (int)pred_we : 0, real_fail ? (real_we ? real_we : -1) : 0,
			 title, msg);
		free(pred);
		free(real);
		free(title);
		free(msg);
	}
	free(last);
}

/* ---- the parent: running the children -------------------------------------- */

int confirm_run(struct findings *found, cJSON *install, const struct confirm_opts *o, struct err *err)
{
	const char *torch_dir = jstr(install, "torch_dir");
	struct strbuf out = STRBUF_INIT, errb = STRBUF_INIT;
	long long code = -1;
	int rc;

	if (!torch_dir)
		return err_set(err, "the report's install has no torch_dir");
	if (o->helper) {
		struct strlist argv = STRLIST_INIT;
		const cJSON *x;
		char *self = o->self ? xstrdup(o->self) : os_self_path(err);
		if (!self)
			return -1;
		strlist_push_owned(&argv, self);
		strlist_push(&argv, "confirm-helper");
		strlist_push(&argv, "--torch");
		strlist_push(&argv, torch_dir);
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(install, "dll_paths"))
		{
			if (!cJSON_GetStringValue(x))
				continue;
			strlist_push(&argv, "--dll-path");
			strlist_push(&argv, cJSON_GetStringValue(x));
		}
		cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(install, "binaries"))
		{
			const char *k = jstr(x, "kind");
			if (k && !strcmp(k, "pyd") && jstr(x, "path")) {
				strlist_push(&argv, "--pyd");
				strlist_push(&argv, jstr(x, "path"));
			}
		}
		if (jstr(install, "application_dir")) {
			strlist_push(&argv, "--app-dir");
			strlist_push(&argv, jstr(install, "application_dir"));
		}
		ALLOC_GROW(argv.v, argv.n + 1, argv.alloc);
		argv.v[argv.n] = NULL;
		rc = os_spawn((const char *const *)argv.v, NULL, o->timeout_ms, &out, &errb, &code, err);
		strlist_release(&argv);
		if (rc < 0) {
			strbuf_release(&out);
			strbuf_release(&errb);
			return err_prefix(err, "--confirm: ");
		}
		if (rc == 0 && code == 2 && !strstr(strbuf_str(&out), "\"event\"")) {
			/* the helper refused before loading anything: a setup error, not a result */
			char *last = last_line(strbuf_str(&errb));
			err_set(err, "--confirm: the helper failed: %s", last ? last : "(no message)");
			free(last);
			strbuf_release(&out);
			strbuf_release(&errb);
			return -1;
		}
		confirm_apply_helper_output(found, install, strbuf_str(&out), code, rc == 1, o->timeout_ms);
		strbuf_reset(&out);
		strbuf_reset(&errb);
	}
	if (o->import_check) {
		const char *python = jstr(install, "python");
		if (!python) {
			cJSON *ic = cJSON_CreateObject();
			cJSON_AddNullToObject(ic, "python");
			cJSON_AddStringToObject(ic, "skipped", "no python.exe is known for this install (give --python)");
			cJSON_AddItemToObject(install, "import_check", ic);
		} else {
			const char *argv[] = { python, "-c", "import torch", NULL };
			/* from site-packages, so that `import torch` finds this torch first (sys.path[0] is the cwd) */
			char *cwd = winpath_dirname(torch_dir);
			rc = os_spawn(argv, cwd, o->timeout_ms, &out, &errb, &code, err);
			free(cwd);
			if (rc < 0) {
				strbuf_release(&out);
				strbuf_release(&errb);
				return err_prefix(err, "--confirm-import: ");
			}
			confirm_apply_import_output(found, install, python, strbuf_str(&errb), code, rc == 1,
						    o->timeout_ms);
		}
	}
	strbuf_release(&out);
	strbuf_release(&errb);
	return 0;
}
