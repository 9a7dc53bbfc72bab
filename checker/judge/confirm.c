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
 * this module is ordinary checker code (strbuf, os.h). Sharing would
 * force one of them to give that up, so both exist, with the same output
 * fields (path, stage, error, first_error), and the Wine tests run both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/confirm.h"
#include "judge/confirm_line.h"
#include "util/os.h"
#include "machine/memory.h"
#include "machine/view.h"

#define FLAGS_TORCH 0x1100u /* LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS */
#define FLAGS_CTYPES 0x1000u /* LOAD_LIBRARY_SEARCH_DEFAULT_DIRS: ctypes.CDLL of a bare name */
#define ERROR_MOD_NOT_FOUND_ 126
#define ERROR_COMMITMENT_LIMIT_ 1455 /* "The paging file is too small for this operation to complete." */

/* ---- the helper (child process) ---------------------------------------- */

static void emit_line(struct strbuf *sb, confirm_emit_fn emit, void *ctx)
{
	emit(strbuf_str(sb), ctx);
	strbuf_release(sb);
}

static void emit_begin(const char *path, confirm_emit_fn emit, void *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "{\"event\":\"begin\",\"path\":");
	confirm_line_quote(&sb, path);
	strbuf_addch(&sb, '}');
	emit_line(&sb, emit, ctx);
}

static void emit_result(const char *path, const char *kind, const char *stage, unsigned flags, unsigned long error,
			int has_first, unsigned long first, confirm_emit_fn emit, void *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "{\"path\":");
	confirm_line_quote(&sb, path);
	strbuf_adds(&sb, ",\"kind\":");
	confirm_line_quote(&sb, kind);
	strbuf_adds(&sb, ",\"stage\":");
	confirm_line_quote(&sb, stage);
	strbuf_addf(&sb, ",\"flags\":\"0x%x\",\"error\":%lu", flags, error);
	if (has_first)
		strbuf_addf(&sb, ",\"first_error\":%lu", first);
	strbuf_addch(&sb, '}');
	emit_line(&sb, emit, ctx);
}

/* This process's private commit (GetProcessMemoryInfo's PrivateUsage), or 0 when the OS does not say. */
static uint64_t private_commit(void)
{
	struct os_memory m;
	return os_memory_status(&m) == 0 ? m.process_private : 0;
}

/* {"path":TORCH,"kind":"commit","private_before":B,"private_after":A}: the figures left out when unknown (0). */
static void emit_commit(const char *torch_dir, uint64_t before, uint64_t after, confirm_emit_fn emit, void *ctx)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "{\"path\":");
	confirm_line_quote(&sb, torch_dir);
	strbuf_adds(&sb, ",\"kind\":\"commit\"");
	if (before && after)
		strbuf_addf(&sb, ",\"private_before\":%llu,\"private_after\":%llu", (unsigned long long)before,
			    (unsigned long long)after);
	strbuf_addch(&sb, '}');
	emit_line(&sb, emit, ctx);
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
	uint64_t before;

	if (!os_is_windows())
		return err_set(err, "live loading needs Windows; run the Windows build (torch-dll-check.exe)");
	before = private_commit(); /* before torch's first load, so that the growth is what torch charged */
	if (a->app_dir && os_add_dll_directory(a->app_dir, err))
		return -1;
	/* a package's preload inside import torch, before torch's own DLLs: ctypes.CDLL(full path), no retry */
	for (i = 0; i < a->preloads.n; i++) {
		emit_begin(a->preloads.v[i], emit, ctx);
		if (load(a->preloads.v[i], FLAGS_TORCH, &e, err))
			return -1;
		emit_result(a->preloads.v[i], "dll", "package_preload", FLAGS_TORCH, e, 0, 0, emit, ctx);
		if (e) {
			failed = 1;
			break;
		}
	}
	if (failed || a->preload_stops) {
		/* the preload raised: torch's own loading never starts */
		emit_commit(a->torch_dir, before, private_commit(), emit, ctx);
		return failed;
	}
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
	emit_commit(a->torch_dir, before, private_commit(), emit, ctx);
	return failed;
}

/* ---- the parent: the prediction and the verdict ------------------------------ */

void confirm_opts_init(struct confirm_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_ms = CONFIRM_DEFAULT_TIMEOUT_MS;
}

void confirm_predict(struct confirm_prediction *p, const struct torch_run *run)
{
	size_t i;
	memset(p, 0, sizeof(*p));
	p->torch_dir = xstrdup(run->torch_dir);
	p->python = run->python_exe ? xstrdup(run->python_exe) : NULL;
	p->app_dir = run->app_dir ? xstrdup(run->app_dir) : NULL;
	strlist_copy(&p->dll_paths, &run->dll_paths);
	p->preload_stops = run->preload_ran && run->preload.outcome != PKG_PRELOAD_OK &&
			   run->preload.outcome != PKG_PRELOAD_LOAD_FAILED;
	p->bins = xcalloc(run->nbins + 1, sizeof(*p->bins));
	for (i = 0; i < run->nbins; i++) {
		const struct torch_binary *b = &run->bins[i];
		struct confirm_bin *c = &p->bins[p->nbins++];
		c->path = xstrdup(b->path);
		c->pyd = b->is_pyd;
		c->winerror = b->winerror;
		c->stage = xstrdup(torch_stage_name(b->stage));
		c->outcome = b->outcome ? xstrdup(b->outcome) : NULL;
	}
	p->vc = xcalloc(3, sizeof(*p->vc));
	for (i = 0; i < 3; i++) {
		if (!run->vc[i].attempted)
			continue;
		p->vc[p->nvc].path = xstrdup(run->vc[i].name);
		p->vc[p->nvc++].winerror = run->vc[i].res.winerror;
	}
	p->import_fails = run->import_error_index >= 0;
	p->import_winerror = p->import_fails ? run->import_error_winerror : 0;
}

static void bins_release(struct confirm_bin *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].stage);
		free(v[i].outcome);
	}
	free(v);
}

void confirm_prediction_release(struct confirm_prediction *p)
{
	free(p->torch_dir);
	free(p->python);
	free(p->app_dir);
	strlist_release(&p->dll_paths);
	bins_release(p->bins, p->nbins);
	bins_release(p->vc, p->nvc);
	memset(p, 0, sizeof(*p));
}

static void mark_release(struct confirm_mark *m)
{
	free(m->stage);
	free(m->note);
	memset(m, 0, sizeof(*m));
}

void confirm_result_release(struct confirm_result *r)
{
	size_t i;
	for (i = 0; i < r->nbins; i++)
		mark_release(&r->bins[i]);
	for (i = 0; i < r->nvc; i++)
		mark_release(&r->vc[i]);
	free(r->bins);
	free(r->vc);
	free(r->ic.python);
	free(r->ic.last_line);
	memset(r, 0, sizeof(*r));
}

/* ---- the parent: comparing ------------------------------------------------ */

/* `predicted` / `real`: the two WinError values (-1 = none: a crash, a hang, not loaded). */
static void mismatch(struct findings *found, const struct confirm_prediction *p, const char *binary, int predicted,
		     int real, const char *title, const char *message)
{
	struct finding *f = finding_add(
		found, RULE_PREDICTION_MISMATCH, SEV_DEFAULT,
		&(struct finding_spec){ .winerror = real > 0 ? real : 0, .title = title, .message = message,
					.fix = "the live result is what this machine does: trust it, and please report "
					       "the disagreement with this JSON report so that the checker's model can "
					       "be fixed",
					.install = p->torch_dir, .binary = binary });
	f->predicted_winerror = predicted >= 0 ? predicted : -1;
	f->real_winerror = real >= 0 ? real : -1;
}

/* The helper's result lines, in order. */
struct confirm_lines {
	struct confirm_line *v;
	size_t n, alloc;
};

static void set_confirmed(struct confirm_mark *m, const struct confirm_line *res, int agrees, const char *note)
{
	mark_release(m);
	m->set = 1;
	if (res) {
		m->has_error = res->has_error;
		m->error = res->error;
		m->stage = res->stage ? xstrdup(res->stage) : NULL;
		m->has_first = res->has_first;
		m->first_error = res->first_error;
	}
	m->agrees = agrees;
	m->note = note ? xstrdup(note) : NULL;
}

static const struct confirm_line *find_result(const struct confirm_lines *results, const char *path, int vc,
					     size_t *used_idx)
{
	size_t i;
	for (i = 0; i < results->n; i++) {
		const struct confirm_line *r = &results->v[i];
		if (r->kind && !str_icmp(r->path, path) && (strcmp(r->kind, "vc_probe") == 0) == (vc != 0)) {
			*used_idx = i;
			return r;
		}
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
	const struct confirm_prediction *p;
	struct confirm_result *res;
	struct confirm_lines results; /* the helper's result lines, in order */
	unsigned char *used;         /* results[i] matched a predicted binary or probe */
	char *pending;               /* the binary the helper announced and never reported (it died loading it), or NULL */
	char *status;                /* the helper's exit status as text */
	int timed_out, ended_early;
	unsigned timeout_ms;
	int nconf, nmis;
};

/* The result lines of the helper's output; anything else (a DLL printing in DllMain) is ignored. */
static void read_results(struct helper_match *h, const char *out)
{
	const char *p = out ? out : "";
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *line = xstrndup(p, n);
		struct confirm_line l;
		int ok;
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		ok = line[0] == '{' && !confirm_line_parse(line, &l);
		free(line);
		p += n + (e ? 1 : 0);
		if (!ok)
			continue;
		if (l.event) {
			free(h->pending);
			h->pending = xstrdup(l.path);
			confirm_line_release(&l);
			continue;
		}
		if (l.kind && !strcmp(l.kind, "commit")) { /* the helper's private commit, after every load */
			h->res->commit.seen = 1;
			h->res->commit.has = l.has_before && l.has_after;
			h->res->commit.before = h->res->commit.has ? (uint64_t)l.private_before : 0;
			h->res->commit.after = h->res->commit.has ? (uint64_t)l.private_after : 0;
			confirm_line_release(&l);
			continue;
		}
		if (h->pending && !str_icmp(h->pending, l.path)) {
			free(h->pending);
			h->pending = NULL;
		}
		ALLOC_GROW(h->results.v, h->results.n + 1, h->results.alloc);
		h->results.v[h->results.n++] = l;
	}
}

/* msg (freed) + what a real WinError 1455 means, with the helper's measured commit when it gave one. */
static char *commit_limit_note(char *msg, const struct confirm_result *res)
{
	struct strbuf sb = STRBUF_INIT;
	char b[32];
	strbuf_addf(&sb, "%s WinError 1455 is the paging file: this machine's commit limit was reached while the DLL "
			 "was mapped", msg);
	if (res->commit.has) {
		memory_format(b, sizeof(b), res->commit.after);
		strbuf_addf(&sb, "; the helper's private commit after its loads was %s", b);
	}
	strbuf_adds(&sb, " (docs/commit.md).");
	free(msg);
	return strbuf_detach(&sb);
}

/* A predicted binary the helper loaded: agree, or a mismatch. */
static void confirm_loaded(struct helper_match *h, size_t bi, const struct confirm_line *r)
{
	const struct confirm_bin *b = &h->p->bins[bi];
	const char *path = b->path, *pstage = b->stage, *rstage = r->stage;
	int pred = b->winerror, real = r->has_error ? (int)r->error : 0;
	int agrees = real == pred && pstage && rstage && !strcmp(pstage, rstage);
	char *title, *msg;
	set_confirmed(&h->res->bins[bi], r, agrees, NULL);
	h->nconf++;
	if (agrees)
		return;
	title = xasprintf("%s: predicted WinError %d (%s), the real loader gave %d (%s)", winpath_basename(path), pred,
			  pstage ? pstage : "?", real, rstage ? rstage : "?");
	msg = xasprintf("The checker's emulation predicted %s (WinError %d, stage %s) for %s; "
			"LoadLibraryExW in a helper process on this machine returned %d (stage %s).",
			b->outcome ? b->outcome : "?", pred, pstage ? pstage : "?", path, real, rstage ? rstage : "?");
	if (real == ERROR_COMMITMENT_LIMIT_)
		msg = commit_limit_note(msg, h->res);
	mismatch(h->found, h->p, path, pred, real, title, msg);
	h->nmis++;
	free(title);
	free(msg);
}

/* A predicted binary the helper has no result for: it died loading it, stopped before it, or never tried it. */
static void confirm_unloaded(struct helper_match *h, size_t bi)
{
	const char *path = h->p->bins[bi].path;
	struct confirm_mark *m = &h->res->bins[bi];
	int pred = h->p->bins[bi].winerror;
	char *title, *note;
	if (h->pending && !str_icmp(h->pending, path)) {
		note = h->timed_out ? xasprintf("the helper was killed after %u s while loading this binary "
						"(a hang in DllMain?)", h->timeout_ms / 1000)
				    : xasprintf("the helper process ended with status %s while loading "
						"this binary (a crash in DllMain?)", h->status);
		title = xasprintf("%s: predicted WinError %d, the real load %s", winpath_basename(path), pred,
				  h->timed_out ? "did not finish" : "crashed the process");
		set_confirmed(m, NULL, 0, note);
		mismatch(h->found, h->p, path, pred, -1, title, note);
		h->nmis++;
		free(note);
		free(title);
	} else if (h->ended_early) {
		set_confirmed(m, NULL, -1, "not reached: the helper stopped before this binary");
	} else {
		title = xasprintf("%s: predicted WinError %d, but the real procedure never loads it", winpath_basename(path),
				  pred);
		set_confirmed(m, NULL, 0, "the real procedure did not load this binary");
		mismatch(h->found, h->p, path, pred, -1, title,
			 "The helper performed torch's procedure and never reached this binary: the real "
			 "directory listing or extension list differs from the prediction.");
		h->nmis++;
		free(title);
	}
}

static void confirm_binaries(struct helper_match *h)
{
	size_t i, idx;
	for (i = 0; i < h->p->nbins; i++) {
		const struct confirm_line *r;
		if (!h->p->bins[i].path)
			continue;
		r = find_result(&h->results, h->p->bins[i].path, 0, &idx);
		if (r) {
			h->used[idx] = 1;
			confirm_loaded(h, i, r);
		} else {
			confirm_unloaded(h, i);
		}
	}
}

/* torch's VC++ runtime probe */
static void confirm_vc_probe(struct helper_match *h)
{
	size_t i, idx;
	for (i = 0; i < h->p->nvc; i++) {
		const char *name = h->p->vc[i].path;
		const struct confirm_line *r;
		int pred = h->p->vc[i].winerror, real;
		char *title;
		if (!name || !(r = find_result(&h->results, name, 1, &idx)))
			continue;
		h->used[idx] = 1;
		real = r->has_error ? (int)r->error : 0;
		set_confirmed(&h->res->vc[i], r, real == pred, NULL);
		if (real == pred)
			continue;
		title = xasprintf("torch's runtime probe of %s: predicted WinError %d, the real loader gave %d", name,
				  pred, real);
		mismatch(h->found, h->p, NULL, pred, real, title,
			 "ctypes.CDLL's LoadLibraryExW(name, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS) in the helper "
			 "disagrees with the prediction.");
		h->nmis++;
		free(title);
	}
}

/* binaries the real procedure loaded that the prediction does not list */
static void confirm_unpredicted(struct helper_match *h)
{
	size_t i;
	for (i = 0; i < h->results.n; i++) {
		const struct confirm_line *r = &h->results.v[i];
		if (!h->used[i] && r->kind && strcmp(r->kind, "vc_probe")) {
			int real = r->has_error ? (int)r->error : 0;
			char *title, *msg;
			title = xasprintf("%s: loaded by the real procedure (error %d) but missing from the prediction",
					  winpath_basename(r->path), real);
			msg = xasprintf("The helper loaded %s (stage %s, error %d); the checker's report has no such "
					"binary.", r->path, r->stage ? r->stage : "?", real);
			mismatch(h->found, h->p, r->path, -1, real, title, msg);
			h->nmis++;
			free(title);
			free(msg);
		}
	}
}

void confirm_apply_helper_output(struct findings *found, const struct confirm_prediction *p,
				 struct confirm_result *res, const char *out, long long exit_code, int timed_out,
				 unsigned timeout_ms)
{
	struct helper_match h;
	size_t i;
	memset(&h, 0, sizeof(h));
	h.found = found;
	h.p = p;
	h.res = res;
	h.status = fmt_status(exit_code);
	h.timed_out = timed_out;
	h.ended_early = timed_out || (exit_code != 0 && exit_code != 1);
	h.timeout_ms = timeout_ms;
	if (!res->bins) {
		res->bins = xcalloc(p->nbins + 1, sizeof(*res->bins));
		res->nbins = p->nbins;
		res->vc = xcalloc(p->nvc + 1, sizeof(*res->vc));
		res->nvc = p->nvc;
	}
	read_results(&h, out);
	h.used = xcalloc(h.results.n + 1, 1);
	confirm_binaries(&h);
	confirm_vc_probe(&h);
	confirm_unpredicted(&h);
	res->helper = 1;
	res->exit_code = exit_code;
	res->timed_out = timed_out;
	res->nconf = h.nconf;
	res->nmis = h.nmis;
	for (i = 0; i < h.results.n; i++)
		confirm_line_release(&h.results.v[i]);
	free(h.results.v);
	free(h.used);
	free(h.pending);
	free(h.status);
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

void confirm_apply_import_output(struct findings *found, const struct confirm_prediction *p,
				 struct confirm_result *res, const char *python, const char *errout,
				 long long exit_code, int timed_out, unsigned timeout_ms)
{
	char *last = last_line(errout ? errout : "");
	int real_we = parse_winerror(last), pred_fail = p->import_fails, real_fail = timed_out || exit_code != 0;
	int pred_we = pred_fail ? p->import_winerror : 0;
	int agrees = !timed_out && pred_fail == real_fail && (!pred_fail || !real_we || real_we == pred_we);

	free(res->ic.python);
	free(res->ic.last_line);
	res->import = 1;
	res->ic.python = xstrdup(python);
	res->ic.skipped = NULL;
	res->ic.exit_code = exit_code;
	res->ic.timed_out = timed_out;
	res->ic.last_line = last ? xstrdup(last) : NULL;
	res->ic.winerror = real_we;
	res->ic.agrees = agrees;
	if (!agrees) {
		char *pred = pred_fail ? xasprintf("import torch fails with WinError %d", pred_we)
				       : xstrdup("import torch succeeds");
		char *real = timed_out ? xasprintf("did not finish within %u s", timeout_ms / 1000)
			     : real_fail ? xasprintf("exited with status %lld: %s", exit_code, last ? last : "(no stderr)")
					 : xstrdup("succeeded");
		char *title = xasprintf("import torch: the checker predicted %s, the real interpreter %s",
					pred_fail ? "a failure" : "success",
					timed_out ? "hung" : real_fail ? "failed" : "succeeded");
		char *msg = xasprintf("Predicted: %s. `%s -c \"import torch\"` %s.", pred, python, real);
		mismatch(found, p, NULL, pred_fail ? pred_we : 0, real_fail ? (real_we ? real_we : -1) : 0, title, msg);
		free(pred);
		free(real);
		free(title);
		free(msg);
	}
	free(last);
}

/* ---- the parent: running the children -------------------------------------- */

/* `confirm-helper` with the prediction's folders and extension modules (argv NULL-terminated). */
static int helper_argv(struct strlist *argv, const struct confirm_prediction *p, const struct confirm_opts *o,
		       struct err *err)
{
	size_t i;
	char *self = o->self ? xstrdup(o->self) : os_self_path(err);
	if (!self)
		return -1;
	strlist_push_owned(argv, self);
	strlist_push(argv, "confirm-helper");
	strlist_push(argv, "--torch");
	strlist_push(argv, p->torch_dir);
	for (i = 0; i < p->dll_paths.n; i++) {
		strlist_push(argv, "--dll-path");
		strlist_push(argv, p->dll_paths.v[i]);
	}
	for (i = 0; i < p->nbins; i++) {
		if (p->bins[i].path && p->bins[i].stage && !strcmp(p->bins[i].stage, "package_preload")) {
			strlist_push(argv, "--preload");
			strlist_push(argv, p->bins[i].path);
		}
	}
	if (p->preload_stops)
		strlist_push(argv, "--preload-stops");
	for (i = 0; i < p->nbins; i++) {
		if (p->bins[i].pyd && p->bins[i].path) {
			strlist_push(argv, "--pyd");
			strlist_push(argv, p->bins[i].path);
		}
	}
	if (p->app_dir) {
		strlist_push(argv, "--app-dir");
		strlist_push(argv, p->app_dir);
	}
	ALLOC_GROW(argv->v, argv->n + 1, argv->alloc);
	argv->v[argv->n] = NULL;
	return 0;
}

/* The helper child: its lines compared into res; -1 when it cannot start or refuses before loading anything. */
static int run_helper(struct findings *found, const struct confirm_prediction *p, struct confirm_result *res,
		      const struct confirm_opts *o, struct err *err)
{
	struct strlist argv = STRLIST_INIT;
	struct strbuf out = STRBUF_INIT, errb = STRBUF_INIT;
	long long code = -1;
	int rc;
	if (helper_argv(&argv, p, o, err)) { /* no program to run (os_self_path said why) */
		strlist_release(&argv);
		return -1;
	}
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
	confirm_apply_helper_output(found, p, res, strbuf_str(&out), code, rc == 1, o->timeout_ms);
	strbuf_release(&out);
	strbuf_release(&errb);
	return 0;
}

/* `python -c "import torch"` from site-packages, compared into res (skipped without a python.exe). */
static int run_import(struct findings *found, const struct confirm_prediction *p, struct confirm_result *res,
		      const struct confirm_opts *o, struct err *err)
{
	struct strbuf out = STRBUF_INIT, errb = STRBUF_INIT;
	const char *argv[] = { p->python, "-c", "import torch", NULL };
	long long code = -1;
	char *cwd;
	int rc;
	if (!p->python) {
		res->import = 1;
		res->ic.skipped = "no python.exe is known for this install (give --python)";
		return 0;
	}
	/* from site-packages, so that `import torch` finds this torch first (sys.path[0] is the cwd) */
	cwd = winpath_dirname(p->torch_dir);
	rc = os_spawn(argv, cwd, o->timeout_ms, &out, &errb, &code, err);
	free(cwd);
	if (rc >= 0)
		confirm_apply_import_output(found, p, res, p->python, strbuf_str(&errb), code, rc == 1, o->timeout_ms);
	strbuf_release(&out);
	strbuf_release(&errb);
	return rc < 0 ? err_prefix(err, "--confirm-import: ") : 0;
}

int confirm_run(struct findings *found, const struct confirm_prediction *p, struct confirm_result *res,
		const struct confirm_opts *o, struct err *err)
{
	memset(res, 0, sizeof(*res));
	if (!p->torch_dir)
		return err_set(err, "the report's install has no torch_dir");
	if (o->helper && run_helper(found, p, res, o, err))
		return -1;
	if (o->import_check && run_import(found, p, res, o, err))
		return -1;
	return 0;
}
