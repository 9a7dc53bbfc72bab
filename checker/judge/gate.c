/*
 * gate: a repository's torch pins judged against this runner (see gate.h).
 *
 * Which copy of a runtime DLL "wins": the search of a process started from
 * python.exe with torch's dll_paths — python.exe's folder first (a
 * python.org install's own vcruntime140.dll, a conda env root's
 * msvcp140.dll), then the env's Library\bin (a dll_paths folder, added with
 * AddDllDirectory before System32 is searched), then System32
 * (docs/loader.md). Without --python only System32 is known, and the
 * findings say so. torch\lib does not exist yet (nothing is installed), so
 * what the row says torch bundles is not looked for.
 *
 * What a row's binaries import comes from the row itself (its runtime_dlls
 * and openmp entries): a known issue's `imports` condition holds when the
 * row says torch imports that DLL from outside torch\lib, `unresolved` when
 * such a DLL is not on this runner. An issue that needs the binaries (an
 * OpenMP bundled in torch\lib meeting another copy) is left to the loader
 * check of an installed torch.
 */
#include "judge/gate.h"

#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"
#include "judge/cuda.h"
#include "judge/row.h"
#include "util/version.h"

void gate_pins_init(struct gate_pins *g)
{
	memset(g, 0, sizeof(*g));
	strbuf_init(&g->head_subject);
	strbuf_init(&g->base_subject);
}

void gate_pins_release(struct gate_pins *g)
{
	free(g->repo);
	free(g->head_rev);
	free(g->base_rev);
	strbuf_release(&g->head_subject);
	strbuf_release(&g->base_subject);
	pinset_release(&g->head);
	pinset_release(&g->base);
	pin_changes_release(&g->changes);
	gate_pins_init(g);
}

static int in_pinset(const struct pinset *ps, const char *path)
{
	size_t i;
	for (i = 0; i < ps->n; i++)
		if (!strcmp(ps->files[i].path, path))
			return 1;
	return 0;
}

void gate_pins_touch(struct gate_pins *g, const char *path, const struct strlist *matrix_paths)
{
	if (req_kind_of_path(path) != REQ_NONE || in_pinset(&g->head, path) || in_pinset(&g->base, path))
		g->pins_touched = 1;
	if (strlist_has(matrix_paths, path))
		g->matrix_touched = 1;
}

/* ---- the runner: which copy of a DLL the search finds ---- */

struct copy {
	char *path;        /* Windows path, NULL: not found */
	const char *where; /* "python.exe's folder", "Library\\bin", "System32" */
	int has_ver;
	struct winver ver;
	char *ver_text;    /* "14.40.33810.0" or NULL */
	char *error;       /* unreadable: why */
};

static void copy_release(struct copy *c)
{
	free(c->path);
	free(c->ver_text);
	free(c->error);
	memset(c, 0, sizeof(*c));
}

static void read_version(struct view *v, struct copy *c)
{
	struct pe_image *img = NULL;
	struct err e;
	char *host = view_host_path(v, c->path);
	err_clear(&e);
	if (!host) {
		c->error = xstrdup("outside the view");
	} else if (pe_open(&img, host, PE_VERSION, &e)) {
		c->error = xstrdup(e.msg);
	} else if (img->version.present && img->version.has_fixed) {
		struct strbuf sb = STRBUF_INIT;
		memcpy(c->ver.part, img->version.file, sizeof(c->ver.part));
		c->ver.nparts = 4;
		c->has_ver = 1;
		winver_format(&c->ver, 1, &sb);
		c->ver_text = strbuf_detach(&sb);
	}
	pe_close(img);
	free(host);
}

/* The first copy of `dll` the search finds: 1 found (c filled), 0 nowhere. */
static int search(const struct gate_runner *r, const char *dll, struct copy *c)
{
	char *dirs[3] = { NULL, NULL, NULL };
	const char *labels[3] = { "python.exe's folder", "the environment's Library\\bin", "System32" };
	size_t i;
	int found = 0;
	memset(c, 0, sizeof(*c));
	if (r->python) {
		dirs[0] = winpath_dirname(r->python);
		dirs[1] = winpath_join(dirs[0], "Library\\bin");
	}
	dirs[2] = xstrdup(view_system32(r->v));
	for (i = 0; i < 3 && !found; i++) {
		char *wp = NULL;
		if (dirs[i] && view_find_file(r->v, dirs[i], dll, &wp) == 1) {
			c->path = wp;
			c->where = labels[i];
			read_version(r->v, c);
			found = 1;
		} else {
			free(wp);
		}
	}
	for (i = 0; i < 3; i++)
		free(dirs[i]);
	return found;
}

/* What the search found per DLL name, so each is looked up and read once per run. */
struct copies {
	struct cached {
		char *dll;
		int found;
		struct copy c;
	} *v;
	size_t n, alloc;
};

static void copies_release(struct copies *cc)
{
	size_t i;
	for (i = 0; i < cc->n; i++) {
		free(cc->v[i].dll);
		copy_release(&cc->v[i].c);
	}
	free(cc->v);
	memset(cc, 0, sizeof(*cc));
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* search(), through the cache; *c is the caller's copy (copy_release it). */
static int runner_find(struct copies *cc, const struct gate_runner *r, const char *dll, struct copy *c)
{
	size_t i;
	struct cached *e = NULL;
	for (i = 0; i < cc->n && !e; i++)
		if (!str_icmp(cc->v[i].dll, dll))
			e = &cc->v[i];
	if (!e) {
		ALLOC_GROW(cc->v, cc->n + 1, cc->alloc);
		e = &cc->v[cc->n++];
		e->dll = xstrdup(dll);
		e->found = search(r, dll, &e->c);
	}
	*c = e->c;
	c->path = dup_or_null(e->c.path);
	c->ver_text = dup_or_null(e->c.ver_text);
	c->error = dup_or_null(e->c.error);
	return e->found;
}

/* Where the search looks, for messages (caller frees). */
static char *searched_text(const struct gate_runner *r, const char *from)
{
	if (!r->python)
		return xstrdup("System32; no --python was given and no python.exe is on PATH, so a Python's own copies "
			       "are not known");
	return xasprintf("the folder of %s (%s), its Library\\bin and System32", r->python,
			 !strcmp(from, "--python") ? "--python" : !strcmp(from, "PATH") ? "the python.exe on PATH"
											: "the active conda env");
}

/* An absolute folder's python.exe when it exists on the view (caller frees), else NULL. */
static char *python_in(struct view *v, const char *dir, size_t len)
{
	char *d = xstrndup(dir, len), *p = NULL;
	if (winpath_is_absolute(d)) {
		p = winpath_join(d, "python.exe");
		if (!view_is_file(v, p)) {
			free(p);
			p = NULL;
		}
	}
	free(d);
	return p;
}

/* The Python `pip install` would use here (see gate.h); *from says where it was found. Caller frees. */
static char *find_python(struct view *v, const char **from)
{
	const char *cp = view_getenv(v, "CONDA_PREFIX"), *path = view_getenv(v, "PATH");
	char *p;
	if (cp && (p = python_in(v, cp, strlen(cp)))) {
		*from = "%CONDA_PREFIX%";
		return p;
	}
	while (path && *path) {
		const char *semi = strchr(path, ';');
		size_t len = semi ? (size_t)(semi - path) : strlen(path);
		if ((p = python_in(v, path, len))) {
			*from = "PATH";
			return p;
		}
		path = semi ? semi + 1 : NULL;
	}
	return NULL;
}

/* ---- one row a pin selects ---- */

struct judge {
	const struct gate_runner *r;
	const struct matrix_row *row;
	const struct torch_target *t;
	const char *version; /* the probe as shown: "2.4.0" (a row's "2.9.0.dev0" boundary shows as "2.9.0") */
	int aidx;
	int range;           /* the pin allows several versions */
	struct findings out; /* this row's findings */
	int redist_missing;  /* the redistributable is not installed: missing DLLs are that */
	struct copies *cache;
	const char *searched; /* searched_text() */
};

static int arch_ok(const struct judge *j, unsigned mask)
{
	return row_arch_ok(mask, j->aidx);
}

/* A finding about the pin, judged by the row. */
static struct finding *add(struct judge *j, enum rule_id rule, int sev, struct finding_spec spec)
{
	return row_finding_add(&j->out, j->row, rule, sev, &spec);
}

/* "torch 2.4.0 (requirements.txt: torch==2.4.0)" */
static char *pinned(const struct judge *j)
{
	return xasprintf("torch %s (%s: %s)", j->version, j->t->file, j->t->pin->raw);
}

/* The sentence a range's findings end with. */
static char *range_note(const struct judge *j)
{
	if (!j->range)
		return xstrdup("");
	return xasprintf(" The pin allows several versions; pip installs the newest, so %s and later are judged, "
			 "by row %s (older releases the range allows are a warning of their own when they fail).",
			 j->version, j->row->id);
}

static int row_imports(const struct judge *j, const char *dll)
{
	size_t i;
	for (i = 0; i < j->row->ndlls; i++)
		if (!str_icmp(j->row->dlls[i].name, dll) && j->row->dlls[i].where != MATRIX_BUNDLED &&
		    arch_ok(j, j->row->dlls[i].arch_mask))
			return 1;
	for (i = 0; i < j->row->nopenmp; i++)
		if (!str_icmp(j->row->openmp[i].dll, dll) && j->row->openmp[i].where != MATRIX_BUNDLED &&
		    arch_ok(j, j->row->openmp[i].arch_mask))
			return 1;
	return 0;
}

static int cb_imports(const char *dll, void *ctx)
{
	return row_imports(ctx, dll);
}

static int cb_unresolved(const char *dll, void *ctx)
{
	struct judge *j = ctx;
	struct copy c;
	int found;
	if (!row_imports(j, dll))
		return 0;
	found = runner_find(j->cache, j->r, dll, &c);
	copy_release(&c);
	return !found;
}

static char *redist_fix(const struct judge *j)
{
	return row_redist_fix(j->r->arch, j->row, j->aidx);
}

/*
 * The DLLs the VC++ redistributable installs that the row needs and this
 * runner lacks, as "a, b" in `names` (the first in *first, caller frees).
 * Returns how many.
 */
static size_t missing_runtimes(const struct judge *j, struct strbuf *names, char **first)
{
	size_t i, n = 0;
	*first = NULL;
	for (i = 0; i < j->row->ndlls + j->row->nopenmp; i++) {
		const char *dll;
		struct copy c;
		int found;
		if (i < j->row->ndlls) {
			const struct matrix_dll *d = &j->row->dlls[i];
			if (d->where == MATRIX_BUNDLED || !arch_ok(j, d->arch_mask))
				continue;
			dll = d->name;
		} else {
			const struct matrix_openmp *o = &j->row->openmp[i - j->row->ndlls];
			if (!o->redistributable || o->where == MATRIX_BUNDLED || !arch_ok(j, o->arch_mask))
				continue;
			dll = o->dll;
		}
		found = runner_find(j->cache, j->r, dll, &c);
		copy_release(&c);
		if (found)
			continue;
		strbuf_addf(names, "%s%s", n ? ", " : "", dll);
		if (!*first)
			*first = xstrdup(dll);
		n++;
	}
	return n;
}

/* What the registry says, for a redistributable whose DLLs are not on the runner. Caller frees. */
static char *registry_says(const struct row_redist *v)
{
	switch (v->state) {
	case ROW_REDIST_NO_REGISTRY:
		return xstrdup("no registry was read");
	case ROW_REDIST_NO_ENTRY:
	case ROW_REDIST_NOT_INSTALLED:
		return xstrdup("the registry has no installed redistributable for it");
	case ROW_REDIST_TOO_OLD:
		/* an older release that predates these DLLs (14.34 has no vcruntime140_threads.dll) is not broken */
		return xasprintf("the registry records %s installed, older than the %s this needs: an older "
				 "redistributable lacks them",
				 v->rd->version, v->min->text);
	case ROW_REDIST_NO_MINIMUM:
	case ROW_REDIST_VERSION_UNKNOWN:
	case ROW_REDIST_OK:
		break;
	}
	return xstrdup("yet the registry records it as installed (a broken install)");
}

/* One root cause: the redistributable's DLLs are not here (whatever the registry says). */
static void redist_dlls_missing(struct judge *j, const struct row_redist *v, const char *missing, const char *leaf)
{
	char *who = pinned(j), *rn = range_note(j), *min = row_redist_min(j->row, j->aidx), *fix = redist_fix(j);
	char *reg = registry_says(v);
	char *title = xasprintf("torch %s needs the VC++ 2015-2022 %s redistributable%s: its DLLs are not on this runner "
				"(%s)",
				j->version, j->r->arch, min, missing);
	char *msg = xasprintf("%s imports %s, which the VC++ 2015-2022 %s redistributable installs; %s. Found nowhere "
			      "the search looks (%s): import torch fails with WinError 126 on this runner.%s",
			      who, missing, j->r->arch, reg, j->searched, rn);
	add(j, RULE_REDIST_MISSING, SEV_ERROR,
	    (struct finding_spec){ .winerror = 126, .title = title, .message = msg, .fix = fix, .leaf = leaf });
	j->redist_missing = 1;
	free(title);
	free(msg);
	free(reg);
	free(who);
	free(rn);
	free(min);
	free(fix);
}

/* The runner's DLLs are there: the registry's state of the redistributable against the row's minimum. */
static void redist_registry(struct judge *j, const struct row_redist *v)
{
	const struct inventory *inv = j->r->inv;
	const struct inv_redist *rd = v->rd;
	char *who = pinned(j), *rn = range_note(j), *min = row_redist_min(j->row, j->aidx), *fix = redist_fix(j);
	char *title = NULL, *msg = NULL;
	if (v->state == ROW_REDIST_NO_REGISTRY) {
		title = xasprintf("VC++ %s redistributable%s for torch %s: unknown on this runner (no registry)", j->r->arch,
				  min, j->version);
		msg = xasprintf("%s needs the VC++ 2015-2022 %s redistributable%s. No registry was read, so whether this "
				"runner has it is unknown (not missing); the DLLs torch imports from it are there.%s",
				who, j->r->arch, min, rn);
		add(j, RULE_UNVERIFIED, SEV_NOTE,
		    (struct finding_spec){ .title = title, .message = msg,
					   .fix = "run on the Windows runner itself, or give --registry FILE (a `reg "
						  "export`, a Wine system.reg or a SOFTWARE hive) or --root a Wine "
						  "prefix's drive_c" });
	} else if (v->state == ROW_REDIST_NO_ENTRY || v->state == ROW_REDIST_NOT_INSTALLED) {
		title = xasprintf("torch %s needs the VC++ 2015-2022 %s redistributable%s: it is not installed on this "
				  "runner",
				  j->version, j->r->arch, min);
		msg = xasprintf("%s needs the VC++ 2015-2022 %s redistributable%s; HKLM\\%s\\%s is %s (%s). The DLLs "
				"torch imports from it are still found here (copied without the installer), so torch "
				"would load, but nothing services or guarantees them.%s",
				who, j->r->arch, min, INV_REDIST_KEY, j->r->arch,
				rd && rd->found ? "present with Installed = 0 or no version" : "absent",
				inv->redist_source ? inv->redist_source : "registry", rn);
		add(j, RULE_REDIST_MISSING, SEV_WARNING, (struct finding_spec){ .title = title, .message = msg, .fix = fix });
	} else if (v->state == ROW_REDIST_VERSION_UNKNOWN) {
		title = xasprintf("VC++ %s redistributable: version unknown, torch %s needs >= %s", j->r->arch, j->version,
				  v->min->text);
		msg = xasprintf("%s is installed but records no version the checker can read, so the minimum %s of "
				"matrix row %s (for %s) cannot be checked.%s",
				rd->key, v->min->text, j->row->id, who, rn);
		add(j, RULE_UNVERIFIED, SEV_NOTE,
		    (struct finding_spec){ .title = title, .message = msg,
					   .fix = "reinstall the VC++ 2015-2022 redistributable so its registry key is "
						  "complete" });
	} else if (v->state == ROW_REDIST_TOO_OLD) {
		title = xasprintf("VC++ %s redistributable %s on this runner is older than torch %s needs (>= %s)",
				  j->r->arch, rd->version, j->version, v->min->text);
		msg = xasprintf("%s needs at least %s (matrix row %s, %s:%u): the redistributable must be as new "
				"as the toolset torch was built with. %s (%s) records %s.%s",
				who, v->min->text, j->row->id, matrix_row_file(j->row), v->min->pos.line, rd->key,
				inv->redist_source ? inv->redist_source : "registry",
				rd->version_raw ? rd->version_raw : rd->version, rn);
		add(j, RULE_REDIST_TOO_OLD, row_severity(j->row->status),
		    (struct finding_spec){ .title = title, .message = msg, .fix = fix });
	}
	free(title);
	free(msg);
	free(who);
	free(rn);
	free(min);
	free(fix);
}

static void judge_redist(struct judge *j)
{
	struct row_redist v;
	struct strbuf missing = STRBUF_INIT;
	char *leaf = NULL;
	row_redist(&v, j->r->inv, j->row, j->r->arch, j->aidx);
	if (missing_runtimes(j, &missing, &leaf))
		redist_dlls_missing(j, &v, missing.buf, leaf);
	else
		redist_registry(j, &v);
	free(leaf);
	strbuf_release(&missing);
}

/* A runtime or OpenMP DLL the row needs from the system, found nowhere: import torch fails with 126. */
static void missing_here(struct judge *j, const char *dll, const char *why, const char *fix)
{
	char *who = pinned(j), *rn = range_note(j);
	char *title = xasprintf("%s is not on this runner: torch %s imports it (WinError 126)", dll, j->version);
	char *msg = xasprintf("%s imports %s (%s; matrix row %s). It is found nowhere the search looks (%s), so "
			      "import torch fails with WinError 126 on this runner.%s",
			      who, dll, why ? why : "the row's runtime needs", j->row->id, j->searched, rn);
	add(j, RULE_MISSING_DLL, SEV_ERROR,
	    (struct finding_spec){ .winerror = 126, .title = title, .message = msg, .fix = fix, .leaf = dll });
	free(who);
	free(rn);
	free(title);
	free(msg);
}

/* The copy the search finds against the entry's min_version. */
static void judge_dll_copy(struct judge *j, const struct matrix_dll *d, const struct copy *c)
{
	char *title, *msg, *fix = NULL, *who, *rn;
	enum row_dll_state s = row_dll_min(d, j->aidx, c->has_ver ? &c->ver : NULL);
	if (s == ROW_DLL_NOT_JUDGED || s == ROW_DLL_OK)
		return;
	who = pinned(j);
	rn = range_note(j);
	if (s == ROW_DLL_VERSION_UNKNOWN) {
		title = row_dll_unknown_title(d, j->version);
		msg = xasprintf("%s (%s) is the copy the search finds for %s, but %s, so the minimum %s cannot be "
				"checked.%s",
				c->path, c->where, who, c->error ? c->error : "it has no version resource (Wine's "
									      "builtins have none)",
				d->min.text, rn);
		add(j, RULE_UNVERIFIED, SEV_NOTE,
		    (struct finding_spec){ .title = title, .message = msg, .fix = ROW_DLL_UNKNOWN_FIX, .leaf = d->name,
					   .path = c->path });
	} else {
		title = row_dll_too_old_title(d, c->ver_text, c->where, j->version);
		msg = xasprintf("For %s the search finds %s first (file version %s). Below %s: %s (matrix row %s, "
				"%s:%u).%s",
				who, c->path, c->ver_text, d->min.text, d->why ? d->why : "too old for this torch",
				j->row->id, matrix_row_file(j->row), d->min.pos.line, rn);
		fix = row_dll_too_old_fix(d, c->path, c->ver_text, !strcmp(c->where, "System32"), j->r->arch);
		add(j, RULE_RUNTIME_TOO_OLD, row_severity(d->status),
		    (struct finding_spec){ .winerror = d->winerror, .title = title, .message = msg, .fix = fix,
					   .leaf = d->name, .path = c->path });
	}
	free(title);
	free(msg);
	free(fix);
	free(who);
	free(rn);
}

static void judge_runtime_dlls(struct judge *j)
{
	size_t i;
	for (i = 0; i < j->row->ndlls; i++) {
		const struct matrix_dll *d = &j->row->dlls[i];
		struct copy c;
		if (d->where == MATRIX_BUNDLED || !arch_ok(j, d->arch_mask))
			continue;
		if (!runner_find(j->cache, j->r, d->name, &c)) {
			if (!j->redist_missing) {
				char *f = redist_fix(j);
				missing_here(j, d->name, d->why, f);
				free(f);
			}
			continue;
		}
		judge_dll_copy(j, d, &c);
		copy_release(&c);
	}
}

static void judge_openmp(struct judge *j)
{
	size_t i;
	for (i = 0; i < j->row->nopenmp; i++) {
		const struct matrix_openmp *o = &j->row->openmp[i];
		struct copy c;
		char *fix, *who, *rn, *title, *msg;
		if (o->where == MATRIX_BUNDLED || !arch_ok(j, o->arch_mask))
			continue;
		if (!o->redistributable && o->where != MATRIX_SYSTEM)
			continue; /* bundled by some builds, not others: the loader check of an install decides */
		fix = o->redistributable ? redist_fix(j)
			: o->fix ? xstrdup(o->fix) /* the finding's why: says it is not redistributable */
				 : xasprintf("pin a torch that does not import %s, or install the Visual Studio Build "
					     "Tools' C++ workload on every machine",
					     o->dll);
		if (!runner_find(j->cache, j->r, o->dll, &c)) {
			if (!(o->redistributable && j->redist_missing)) {
				char *why = xasprintf("%s%s%s", o->provider ? o->provider : "OpenMP runtime",
						      o->why ? "; " : "", o->why ? o->why : "");
				missing_here(j, o->dll, why, fix);
				free(why);
			}
			free(fix);
			continue;
		}
		if (o->redistributable) {
			free(fix);
			copy_release(&c);
			continue;
		}
		who = pinned(j);
		rn = range_note(j);
		title = xasprintf("torch %s imports %s, which the VC++ redistributable does not install: this runner has "
				  "it (%s), machines without Visual Studio do not",
				  j->version, o->dll, c.where);
		msg = xasprintf("%s imports %s (%s). This runner finds it at %s, where Visual Studio or the Build Tools "
				"put it, so torch would load here; machines with only the VC++ redistributable fail with "
				"WinError 126. Reported for the torch version alone, even though this runner is fine "
				"(GitHub-hosted runners carry Visual Studio, which hides it).%s",
				who, o->dll, o->provider ? o->provider : "not redistributable", c.path, rn);
		add(j, RULE_OPENMP_NOT_REDISTRIBUTABLE, SEV_WARNING,
		    (struct finding_spec){ .title = title, .message = msg, .fix = fix, .leaf = o->dll, .path = c.path });
		free(title);
		free(msg);
		free(who);
		free(rn);
		free(fix);
		copy_release(&c);
	}
}

/* A finding of this row that speaks for the issue already (same DLL, or the DLL whose floor it names). */
static struct finding *speaks_for(struct judge *j, const struct matrix_issue *is)
{
	size_t i, k;
	for (i = 0; i < j->out.n; i++) {
		struct finding *f = &j->out.v[i];
		if (!f->leaf)
			continue;
		for (k = 0; k < is->when.imports.n; k++)
			if (!str_icmp(is->when.imports.v[k], f->leaf))
				return f;
		for (k = 0; k < is->when.unresolved.n; k++)
			if (!str_icmp(is->when.unresolved.v[k], f->leaf))
				return f;
		if (!is->when.imports.n && !is->when.unresolved.n && f->rule == RULE_RUNTIME_TOO_OLD && f->winerror)
			return f;
	}
	return NULL;
}

/*
 * applies_when `older`, as check decides it (row_dll_older) on the copy this
 * runner's search finds: one of these DLLs is found, with a version below the
 * row's min_version. Not found, or no version: not older.
 */
static int older_holds(struct judge *j, const struct strlist *older)
{
	size_t i;
	int held = !older->n;
	for (i = 0; i < older->n && !held; i++) {
		struct copy c;
		if (runner_find(j->cache, j->r, older->v[i], &c) && c.has_ver)
			held = row_dll_older(j->row, older->v[i], j->aidx, &c.ver);
		copy_release(&c);
	}
	return held;
}

static void judge_issues(struct judge *j)
{
	size_t i, k;
	for (i = 0; i < j->row->nissues; i++) {
		const struct matrix_issue *is = &j->row->issues[i];
		struct strbuf msg = STRBUF_INIT, src = STRBUF_INIT;
		struct finding *f;
		char *title, *who, *rn;
		if (!matrix_issue_applies(is, j->t->variant, j->aidx, cb_imports, cb_unresolved, j) ||
		    !older_holds(j, &is->when.older))
			continue;
		if ((f = speaks_for(j, is))) {
			if (!f->issue) {
				char *m = xasprintf("%s Known issue %s of torch %s: %s", f->message, is->id, j->version,
						    is->symptom);
				free(f->message);
				f->message = m;
				finding_set(&f->issue, is->id);
			}
			continue;
		}
		who = pinned(j);
		rn = range_note(j);
		for (k = 0; k < is->sources.n; k++)
			strbuf_addf(&src, "%s%s", k ? " " : "", is->sources.v[k]);
		if (is->when.unresolved.n)
			strbuf_addf(&msg, "On this runner a DLL it names does not resolve, so %s hits it. ", who);
		else
			strbuf_addf(&msg, "This depends on the torch version alone, so it is reported even when this runner "
					  "is fine: machines that %s hit it with %s. ",
				    is->when.imports.n ? "lack what it imports" : "match its cause", who);
		strbuf_addf(&msg, "Symptom: %s Cause: %s%s", is->symptom, is->cause,
			    is->cause[0] && is->cause[strlen(is->cause) - 1] == '.' ? "" : ".");
		if (src.len)
			strbuf_addf(&msg, " Sources: %s", src.buf);
		strbuf_adds(&msg, rn);
		title = xasprintf("known issue of torch %s: %s", j->version, is->id);
		add(j, RULE_KNOWN_ISSUE, SEV_WARNING,
		    (struct finding_spec){ .title = title, .message = msg.buf, .fix = is->fix, .issue = is->id });
		free(title);
		free(who);
		free(rn);
		strbuf_release(&msg);
		strbuf_release(&src);
	}
}

/* How bad a row's findings are, for "worst case first". */
static long badness(const struct findings *l)
{
	long b = 0;
	size_t i;
	for (i = 0; i < l->n; i++)
		b += l->v[i].severity == SEV_ERROR ? 10000 : l->v[i].severity == SEV_WARNING ? 100 : 1;
	return b;
}

/* Moves f into out, anchored on the pin (findings own their strings: a shallow move). */
static void move_into(struct findings *out, struct finding *f, const struct pin *p)
{
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	out->v[out->n] = *f;
	memset(f, 0, sizeof(*f));
	finding_anchor(&out->v[out->n], p->file, p->line, p->col);
	out->n++;
}

static int same_finding(const struct finding *a, const struct finding *b)
{
	return a->rule == b->rule && a->winerror == b->winerror &&
	       ((!a->leaf && !b->leaf) || (a->leaf && b->leaf && !str_icmp(a->leaf, b->leaf))) &&
	       ((!a->issue && !b->issue) || (a->issue && b->issue && !strcmp(a->issue, b->issue)));
}

struct row_verdict {
	struct judge j;
	long bad;
	size_t order;
};

static int cmp_verdict(const void *pa, const void *pb)
{
	const struct row_verdict *a = pa, *b = pb;
	if (a->bad != b->bad)
		return a->bad > b->bad ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void uncovered(struct findings *out, const struct torch_target *t, const char *version, const char *why,
		      int sev)
{
	const char *semi = why ? strstr(why, "; add a row") : NULL;
	char *title = xasprintf("torch %s pinned at %s is not covered by the matrix", version ? version : t->pin->raw,
				t->file);
	char *msg = semi ? xasprintf("%.*s: the runtime needs of this torch (redistributable, runtime DLL versions, "
				     "OpenMP) are unknown, so the runner cannot be judged for it.",
				     (int)(semi - why), why)
			 : xstrdup(why ? why : "no matrix row covers it");
	struct finding *f = finding_add(out, RULE_TORCH_UNCOVERED, sev,
					&(struct finding_spec){ .title = title, .message = msg,
								.fix = semi ? semi + 2
									    : "add a row for it to a --matrix file" });
	finding_anchor(f, t->pin->file, t->pin->line, t->pin->col);
	free(title);
	free(msg);
}

/*
 * A range (">=2.4,<2.6") as pip resolves it: pip installs the newest release
 * the range allows, so the newest row judged (rv[n-1]: rows are judged in
 * version order) is the verdict. The older rows that would fail (an error)
 * are one warning naming them, with the lower bound that leaves them out;
 * their findings are dropped. Moves the verdict row to rv[0] and returns 1
 * (the rows to emit).
 */
static size_t range_verdict(struct findings *out, const struct torch_target *t, struct row_verdict *rv, size_t n)
{
	struct strbuf names = STRBUF_INIT;
	struct row_verdict newest = rv[n - 1];
	size_t i, k, last_failing = n;
	for (i = 0; i + 1 < n; i++)
		for (k = 0; k < rv[i].j.out.n; k++)
			if (rv[i].j.out.v[k].severity == SEV_ERROR) {
				strbuf_addf(&names, "%s%s (row %s: %s)", names.len ? "; " : "", rv[i].j.version,
					    rv[i].j.row->id, rv[i].j.out.v[k].title ? rv[i].j.out.v[k].title : "fails");
				last_failing = i;
				break;
			}
	if (last_failing < n) {
		const char *floor = rv[last_failing + 1].j.version;
		char *title = xasprintf("torch %s at %s also allows older releases that fail on this runner", t->pin->raw,
					t->file);
		char *msg = xasprintf("pip installs the newest release the range allows (%s and later, row %s: the "
				      "verdict), but an older pin, a cached wheel or a resolver constraint can land "
				      "on these, which fail here: %s.",
				      newest.j.version, newest.j.row->id, names.buf);
		char *fix = xasprintf("raise the lower bound to leave them out: >=%s", floor);
		struct finding *f = finding_add(out, RULE_PIN_RANGE_OLDER_FAILS, SEV_DEFAULT,
						&(struct finding_spec){ .title = title, .message = msg, .fix = fix });
		finding_anchor(f, t->pin->file, t->pin->line, t->pin->col);
		free(title);
		free(msg);
		free(fix);
	}
	strbuf_release(&names);
	for (i = 0; i + 1 < n; i++)
		findings_release(&rv[i].j.out);
	rv[n - 1] = rv[0];
	rv[0] = newest;
	memset(&rv[n - 1], 0, sizeof(rv[n - 1])); /* released above (or the newest, moved) */
	return 1;
}

/* The pin's entry of the report (its rows are added as they are judged): where, what, for Windows or not. */
static void target_facts(struct gate_target *o, const struct torch_target *t)
{
	memset(o, 0, sizeof(*o));
	o->file = dup_or_null(t->file);
	o->line = t->pin->line;
	o->col = t->pin->col;
	o->raw = dup_or_null(t->pin->raw);
	o->version = dup_or_null(t->version);
	o->specifier = dup_or_null(t->specifier);
	o->variant = dup_or_null(t->variant);
	o->on_windows = t->on_windows;
}

void gate_report_release(struct gate_report *gr)
{
	size_t i, k;
	for (i = 0; i < gr->ntargets; i++) {
		struct gate_target *o = &gr->targets[i];
		for (k = 0; k < o->nrows; k++) {
			free(o->rows[k].version);
			free(o->rows[k].row);
		}
		free(o->rows);
		free(o->file);
		free(o->raw);
		free(o->version);
		free(o->specifier);
		free(o->variant);
	}
	free(gr->targets);
	free(gr->python);
	memset(gr, 0, sizeof(*gr));
}

/* One row the pin selects, judged against the runner into *rv (version: pins_shown_version's, rv's to free). */
static void judge_row(struct row_verdict *rv, const struct torch_target *t, const struct matrix_row *row,
		      char *version, const struct gate_runner *r, struct copies *cache, const char *searched)
{
	rv->j.r = r;
	rv->j.cache = cache;
	rv->j.searched = searched;
	rv->j.row = row;
	rv->j.t = t;
	rv->j.version = version;
	rv->j.aidx = matrix_arch_parse(r->arch);
	rv->j.range = !t->version;
	judge_redist(&rv->j);
	judge_runtime_dlls(&rv->j);
	judge_openmp(&rv->j);
	judge_issues(&rv->j);
	rv->bad = badness(&rv->j.out);
}

/*
 * The judged rows' findings into out, worst row first: a finding an earlier
 * (worse) row already gave is skipped, and the one kept names the later rows
 * it holds for as well.
 */
static void emit_verdicts(struct findings *out, const struct torch_target *t, struct row_verdict *rv, size_t n)
{
	size_t i, k;
	for (i = 0; i < n; i++) {
		for (k = 0; k < rv[i].j.out.n; k++) {
			struct finding *f = &rv[i].j.out.v[k];
			size_t a, b;
			struct strbuf also = STRBUF_INIT;
			int dup = 0;
			/* the same finding from an earlier (worse) row was kept: skip it */
			for (a = 0; a < i && !dup; a++)
				for (b = 0; b < rv[a].j.out.n && !dup; b++)
					dup = same_finding(&rv[a].j.out.v[b], f);
			if (dup)
				continue;
			for (a = i + 1; a < n; a++)
				for (b = 0; b < rv[a].j.out.n; b++)
					if (same_finding(&rv[a].j.out.v[b], f)) {
						strbuf_addf(&also, "%s%s (%s)", also.len ? ", " : "", rv[a].j.row->id,
							    rv[a].j.version);
						break;
					}
			if (also.len) {
				char *msg = xasprintf("%s The same holds for rows %s.", f->message ? f->message : "",
						      also.buf);
				free(f->message);
				f->message = msg;
			}
			strbuf_release(&also);
			move_into(out, f, t->pin);
		}
	}
}

/* One pin: every row it selects, judged, worst first, shared findings once. */
static void judge_target(struct findings *out, struct gate_target *o, const struct torch_target *t,
			 const struct matrix *m, const struct gate_runner *r, struct copies *cache, const char *searched)
{
	struct pin_probes pr = { NULL, 0, 0 };
	struct err e;
	struct row_verdict *rv;
	char **shown;
	size_t i, n = 0;
	target_facts(o, t);
	if (t->on_windows == 0)
		return;
	err_clear(&e);
	if (pins_target_probes(m, t, r->arch, &pr, &e) < 0) {
		uncovered(out, t, NULL, e.msg, SEV_WARNING);
		pin_probes_release(&pr);
		return;
	}
	o->rows = pr.n ? xcalloc(pr.n, sizeof(*o->rows)) : NULL;
	rv = pr.n ? xcalloc(pr.n, sizeof(*rv)) : NULL;
	shown = pr.n ? xcalloc(pr.n, sizeof(*shown)) : NULL;
	for (i = 0; i < pr.n; i++) {
		o->rows[o->nrows].version = xstrdup(pr.v[i].version);
		o->rows[o->nrows++].row = pr.v[i].row ? xstrdup(pr.v[i].row->id) : NULL;
		if (!pr.v[i].row) {
			/* a range is judged by its newest release: an older one the matrix lacks is no verdict */
			if (t->version || i + 1 == pr.n)
				uncovered(out, t, pr.v[i].version, pr.v[i].uncovered, SEV_ERROR);
			continue;
		}
		shown[n] = pins_shown_version(pr.v[i].version, t);
		judge_row(&rv[n], t, pr.v[i].row, shown[n], r, cache, searched);
		rv[n].order = n;
		n++;
	}
	if (n > 1 && !t->version)
		n = range_verdict(out, t, rv, n);
	if (n > 1)
		qsort(rv, n, sizeof(*rv), cmp_verdict);
	emit_verdicts(out, t, rv, n);
	for (i = 0; i < pr.n; i++) {
		if (i < n)
			findings_release(&rv[i].j.out);
		free(shown[i]);
	}
	free(rv);
	free(shown);
	pin_probes_release(&pr);
}

static void change_notes(struct findings *out, const struct gate_pins *g, const struct matrix *m,
			 const struct gate_runner *r)
{
	size_t i;
	for (i = 0; i < g->changes.n; i++) {
		const struct pin_change *c = &g->changes.v[i];
		const struct pin *p = c->head ? c->head : c->base;
		struct strbuf msg = STRBUF_INIT;
		char *title = xasprintf("torch pin %s: %s", pin_change_name(c->kind), p->raw);
		struct finding *f;
		if (c->kind == PIN_CHANGED)
			strbuf_addf(&msg, "%s:%u: %s -> %s:%u: %s.", c->base->file, c->base->line, c->base->raw,
				    c->head->file, c->head->line, c->head->raw);
		else if (c->kind == PIN_ADDED)
			strbuf_addf(&msg, "Added at %s:%u: %s.", p->file, p->line, p->raw);
		else
			strbuf_addf(&msg, "Removed: %s, at %s:%u in the base.", p->raw, p->file, p->line);
		if (c->head)
			pins_held_to(&msg, m, p, r->arch, " ");
		f = finding_add(out, RULE_PIN_CHANGED, SEV_DEFAULT,
				&(struct finding_spec){ .title = title, .message = msg.buf });
		if (c->head)
			finding_anchor(f, p->file, p->line, p->col);
		else
			finding_anchor(f, p->file, 0, 0);
		free(title);
		strbuf_release(&msg);
	}
}

int gate_judge(struct findings *out, struct gate_report *gr, const struct gate_pins *g, const struct matrix *m,
	       const struct gate_runner *r, int force, struct err *err)
{
	struct torch_target *t = NULL;
	struct gate_runner run = *r;
	char *found = NULL;
	const char *from = "--python";
	size_t n, i;
	int judged = !g->has_base || g->pins_touched || g->matrix_touched || force;
	(void)err;
	if (!run.python && judged && run.v && (found = find_python(run.v, &from)))
		run.python = found;
	memset(gr, 0, sizeof(*gr));
	gr->judged = judged;
	gr->python = run.python ? xstrdup(run.python) : NULL;
	gr->python_from = from;
	if (!judged) {
		char *msg = xasprintf("Between %.12s and %.12s no pin file and no matrix file changed, so the torch pins were "
				      "not judged against this runner.",
				      g->base_sha, g->head_sha);
		finding_add(out, RULE_PINS_UNCHANGED, SEV_DEFAULT,
			    &(struct finding_spec){ .title = "this pull request changes no torch pin: the gate passes",
						    .message = msg,
						    .fix = "nothing to do; --pins-unchanged (action input pins-unchanged) "
							   "judges the head's pins anyway" });
		free(msg);
	} else {
		struct copies cache = { NULL, 0, 0 };
		char *searched = searched_text(&run, from);
		n = pinset_torch_targets(&g->head, &t);
		gr->targets = n ? xcalloc(n, sizeof(*gr->targets)) : NULL;
		for (i = 0; i < n; i++) {
			judge_target(out, &gr->targets[gr->ntargets++], &t[i], m, &run, &cache, searched);
			if (t[i].on_windows != 0 && run.inv && run.inv->gpu_read)
				cuda_gate_target(out, &t[i], m, &run.inv->gpu);
		}
		free(t);
		free(searched);
		copies_release(&cache);
		if (g->has_base)
			change_notes(out, g, m, &run); /* after the verdicts: notes are context */
	}
	free(found);
	return 0;
}

void gate_installed(struct findings *out, const struct gate_pins *g, const char *torch_dir, const char *version)
{
	struct torch_target *t = NULL;
	struct pep440 iv;
	struct err e;
	size_t n, i;
	char ivariant[32];
	if (!version || pep440_parse(&iv, version, &e))
		return;
	matrix_variant_of(&iv, ivariant, sizeof(ivariant));
	n = pinset_torch_targets(&g->head, &t);
	for (i = 0; i < n; i++) {
		struct pep440_spec spec = PEP440_SPEC_INIT;
		char *text = t[i].version ? xasprintf("==%s", t[i].version) : t[i].specifier ? xstrdup(t[i].specifier) : NULL;
		int ok = 1;
		if (t[i].on_windows == 0) {
			free(text);
			continue;
		}
		if (text && !pep440_spec_parse(&spec, text, &e))
			ok = pep440_spec_contains(&spec, &iv, version);
		if (ok && t[i].variant && ivariant[0] && str_icmp(t[i].variant, ivariant))
			ok = 0;
		if (!ok) {
			char *title = xasprintf("installed torch %s is not what %s pins (%s)", version, t[i].file, t[i].pin->raw);
			char *msg = xasprintf("The loader check judged the torch at %s, version %s, but %s:%u pins %s%s%s: "
					      "the branch installs another torch than the one checked here.",
					      torch_dir, version, t[i].file, t[i].pin->line, t[i].pin->raw,
					      t[i].variant ? ", variant " : "", t[i].variant ? t[i].variant : "");
			struct finding *f = finding_add(out, RULE_PIN_MISMATCH, SEV_DEFAULT,
							&(struct finding_spec){
								.title = title, .message = msg, .install = torch_dir,
								.fix = "install torch from the branch's pin files before "
								       "the check, or pin the version you test" });
			finding_anchor(f, t[i].pin->file, t[i].pin->line, t[i].pin->col);
			free(title);
			free(msg);
		}
		pep440_spec_release(&spec);
		free(text);
	}
	free(t);
}
