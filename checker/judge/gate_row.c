/*
 * gate_row: one row a torch pin selects, judged against the runner (see
 * gate_row.h): the redistributable, the runtime DLLs, OpenMP, known issues.
 */
#include "judge/gate_row.h"

#include <stdlib.h>
#include <string.h>

#include "judge/row.h"
#include "util/strbuf.h"
#include "util/text.h"

static int arch_ok(const struct gate_judge *j, unsigned mask)
{
	return row_arch_ok(mask, j->aidx);
}

/* A finding about the pin, judged by the row. */
static struct finding *add(struct gate_judge *j, enum rule_id rule, int sev, struct finding_spec spec)
{
	return row_finding_add(&j->out, j->row, rule, sev, &spec);
}

/* "torch 2.4.0 (requirements.txt: torch==2.4.0)" */
static char *pinned(const struct gate_judge *j)
{
	return xasprintf("torch %s (%s: %s)", j->version, j->t->file, j->t->pin->raw);
}

/* The sentence a range's findings end with. */
static char *range_note(const struct gate_judge *j)
{
	if (!j->range)
		return xstrdup("");
	return xasprintf(" The pin allows several versions; pip installs the newest, so %s and later are judged, "
			 "by row %s (older releases the range allows are a warning of their own when they fail).",
			 j->version, j->row->id);
}

static int row_imports(const struct gate_judge *j, const char *dll)
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
	struct gate_judge *j = ctx;
	struct gate_copy c;
	int found;
	if (!row_imports(j, dll))
		return 0;
	found = gate_runner_find(j->cache, j->r, dll, &c);
	gate_copy_release(&c);
	return !found;
}

static char *redist_fix(const struct gate_judge *j)
{
	return row_redist_fix(j->r->arch, j->row, j->aidx);
}

/*
 * The DLLs the VC++ redistributable installs that the row needs and this
 * runner lacks, as "a, b" in `names` (the first in *first, caller frees).
 * Returns how many.
 */
static size_t missing_runtimes(const struct gate_judge *j, struct strbuf *names, char **first)
{
	size_t i, n = 0;
	*first = NULL;
	for (i = 0; i < j->row->ndlls + j->row->nopenmp; i++) {
		const char *dll;
		struct gate_copy c;
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
		found = gate_runner_find(j->cache, j->r, dll, &c);
		gate_copy_release(&c);
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
static void redist_dlls_missing(struct gate_judge *j, const struct row_redist *v, const char *missing, const char *leaf)
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

/* Whether a finding of this row says a binary fails to load (an error with a WinError). */
static int load_error(const struct gate_judge *j)
{
	size_t i;
	for (i = 0; i < j->out.n; i++)
		if (j->out.v[i].winerror && j->out.v[i].severity == SEV_ERROR)
			return 1;
	return 0;
}

/* The runner's DLLs are there: the registry's state of the redistributable against the row's minimum. */
static void redist_registry(struct gate_judge *j, const struct row_redist *v)
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
	} else if (v->state == ROW_REDIST_TOO_OLD && j->sys_fail) {
		/*
		 * One cause, one problem (as check says it, judge/policy.c): System32's copy failing is
		 * the redistributable being too old; the registry's facts go into that finding, and its
		 * fix is the row's minimum, which mends both.
		 */
		struct finding *f = &j->out.v[j->sys_fail - 1];
		const char *offer = f->fix ? strstr(f->fix, "; or: torch <") : NULL;
		char *m = xasprintf("%s %s (%s) records %s; the matrix row %s (%s:%u) asks for at least %s: the "
				    "redistributable must be as new as the toolset torch was built with.",
				    f->message, rd->key, inv->redist_source ? inv->redist_source : "registry",
				    rd->version_raw ? rd->version_raw : rd->version, j->row->id, matrix_row_file(j->row),
				    v->min->pos.line, v->min->text);
		char *fx = xasprintf("%s%s", fix, offer ? offer : "");
		finding_set(&f->message, m);
		finding_set(&f->fix, fx);
		free(m);
		free(fx);
	} else if (v->state == ROW_REDIST_TOO_OLD) {
		/* a rule the row's own DLL minimums contradict is no error: unsupported, but it would load */
		int loads = !load_error(j), sev = row_severity(j->row->status);
		title = xasprintf("VC++ %s redistributable %s on this runner is older than torch %s needs (>= %s)%s",
				  j->r->arch, rd->version, j->version, v->min->text,
				  loads ? ", though every binary would load with it" : "");
		msg = xasprintf("%s needs at least %s (matrix row %s, %s:%u): the redistributable must be as new "
				"as the toolset torch was built with. %s (%s) records %s.%s%s",
				who, v->min->text, j->row->id, matrix_row_file(j->row), v->min->pos.line, rd->key,
				inv->redist_source ? inv->redist_source : "registry",
				rd->version_raw ? rd->version_raw : rd->version,
				loads ? " Every torch binary would load with it on this runner (each DLL the row names is "
					"found, as new as the row asks): unsupported, not a failure."
				      : "",
				rn);
		if (loads && sev == SEV_ERROR)
			sev = SEV_WARNING;
		add(j, RULE_REDIST_TOO_OLD, sev, (struct finding_spec){ .title = title, .message = msg, .fix = fix });
	}
	free(title);
	free(msg);
	free(who);
	free(rn);
	free(min);
	free(fix);
}

/* The redistributable's DLLs missing: 1 when said (then the registry is not judged). */
static int judge_redist_dlls(struct gate_judge *j)
{
	struct row_redist v;
	struct strbuf missing = STRBUF_INIT;
	char *leaf = NULL;
	int n;
	row_redist(&v, j->r->inv, j->row, j->r->arch, j->aidx);
	n = missing_runtimes(j, &missing, &leaf) > 0;
	if (n)
		redist_dlls_missing(j, &v, missing.buf, leaf);
	free(leaf);
	strbuf_release(&missing);
	return n;
}

/*
 * The registry against the row's minimum, judged after the runtime DLLs (a
 * copy of System32 that fails is this cause's one finding), its finding put
 * at `at`, where the redistributable's findings come first.
 */
static void judge_redist_registry(struct gate_judge *j, size_t at)
{
	struct row_redist v;
	size_t n = j->out.n;
	row_redist(&v, j->r->inv, j->row, j->r->arch, j->aidx);
	redist_registry(j, &v);
	if (j->out.n == n + 1 && at < n) {
		struct finding f = j->out.v[n];
		memmove(&j->out.v[at + 1], &j->out.v[at], (n - at) * sizeof(f));
		j->out.v[at] = f;
	}
}

/* A runtime or OpenMP DLL the row needs from the system, found nowhere: import torch fails with 126. */
static void missing_here(struct gate_judge *j, const char *dll, const char *why, const char *fix)
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
static void judge_dll_copy(struct gate_judge *j, const struct matrix_dll *d, const struct gate_copy *c)
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
		if (d->winerror == 1114 && c->has_ver) {
			/* as check offers it: the older torch this copy still serves, where the matrix says one */
			char *offer = row_older_torch_offer(j->matrix, j->row, j->version, j->t->variant, j->aidx,
							    d->name, &c->ver, c->ver_text);
			if (offer) {
				char *fx = xasprintf("%s%s", fix, offer);
				free(fix);
				fix = fx;
				free(offer);
			}
		}
		add(j, RULE_RUNTIME_TOO_OLD, row_severity(d->status),
		    (struct finding_spec){ .winerror = d->winerror, .title = title, .message = msg, .fix = fix,
					   .leaf = d->name, .path = c->path });
		if (d->winerror && row_severity(d->status) == SEV_ERROR && !strcmp(c->where, "System32") && !j->sys_fail)
			j->sys_fail = j->out.n;
	}
	free(title);
	free(msg);
	free(fix);
	free(who);
	free(rn);
}

static void judge_runtime_dlls(struct gate_judge *j)
{
	size_t i;
	for (i = 0; i < j->row->ndlls; i++) {
		const struct matrix_dll *d = &j->row->dlls[i];
		struct gate_copy c;
		if (d->where == MATRIX_BUNDLED || !arch_ok(j, d->arch_mask))
			continue;
		if (!gate_runner_find(j->cache, j->r, d->name, &c)) {
			if (!j->redist_missing) {
				char *f = redist_fix(j);
				missing_here(j, d->name, d->why, f);
				free(f);
			}
			continue;
		}
		judge_dll_copy(j, d, &c);
		gate_copy_release(&c);
	}
}

static void judge_openmp(struct gate_judge *j)
{
	size_t i;
	for (i = 0; i < j->row->nopenmp; i++) {
		const struct matrix_openmp *o = &j->row->openmp[i];
		struct gate_copy c;
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
		if (!gate_runner_find(j->cache, j->r, o->dll, &c)) {
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
			gate_copy_release(&c);
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
		gate_copy_release(&c);
	}
}

/* A finding of this row that speaks for the issue already (same DLL, or the DLL whose floor it names). */
static struct finding *speaks_for(struct gate_judge *j, const struct matrix_issue *is)
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
static int older_holds(struct gate_judge *j, const struct strlist *older)
{
	size_t i;
	int held = !older->n;
	for (i = 0; i < older->n && !held; i++) {
		struct gate_copy c;
		if (gate_runner_find(j->cache, j->r, older->v[i], &c) && c.has_ver)
			held = row_dll_older(j->row, older->v[i], j->aidx, &c.ver);
		gate_copy_release(&c);
	}
	return held;
}

static void judge_issues(struct gate_judge *j)
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

/* One row the pin selects, judged against the runner into *rv (version: pins_shown_version's, rv's to free). */
void gate_row_judge(struct gate_verdict *rv, const struct torch_target *t, const struct matrix_row *row, char *version,
		    const struct gate_runner *r, struct gate_copies *cache, const char *searched,
		    const struct matrix *m)
{
	size_t at;
	rv->j.r = r;
	rv->j.matrix = m;
	rv->j.sys_fail = 0;
	rv->j.cache = cache;
	rv->j.searched = searched;
	rv->j.row = row;
	rv->j.t = t;
	rv->j.version = version;
	rv->j.aidx = matrix_arch_parse(r->arch);
	rv->j.range = !t->version;
	if (!judge_redist_dlls(&rv->j)) {
		at = rv->j.out.n;
		judge_runtime_dlls(&rv->j);
		judge_openmp(&rv->j);
		judge_redist_registry(&rv->j, at);
	} else {
		judge_runtime_dlls(&rv->j);
		judge_openmp(&rv->j);
	}
	judge_issues(&rv->j);
	rv->bad = badness(&rv->j.out);
}
