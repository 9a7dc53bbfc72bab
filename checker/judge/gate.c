/*
 * gate: a repository's torch pins judged against this runner (see gate.h):
 * which pins decide torch, every row each selects judged (gate_row.h)
 * against the runner's search (gate_runner.h), the rows merged into one
 * verdict per pin (a range as pip resolves it, the worst row first, a
 * finding shared by rows once), anchored on the pin; the notes on what a
 * pull request changed; an installed torch against the pins.
 */
#include "judge/gate.h"

#include <stdlib.h>
#include <string.h>

#include "judge/cuda.h"
#include "judge/gate_row.h"
#include "util/version.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

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

static int cmp_verdict(const void *pa, const void *pb)
{
	const struct gate_verdict *a = pa, *b = pb;
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
static size_t range_verdict(struct findings *out, const struct torch_target *t, struct gate_verdict *rv, size_t n)
{
	struct strbuf names = STRBUF_INIT;
	struct gate_verdict newest = rv[n - 1];
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
		for (k = 0; o->profiles && k < gr->nprofiles; k++)
			gate_profile_verdict_release(&o->profiles[k]);
		free(o->profiles);
		free(o->file);
		free(o->raw);
		free(o->version);
		free(o->specifier);
		free(o->variant);
	}
	free(gr->targets);
	for (i = 0; i < gr->nprofiles; i++) {
		free(gr->profiles[i]);
		free(gr->profile_titles[i]);
	}
	free(gr->profiles);
	free(gr->profile_titles);
	free(gr->python);
	memset(gr, 0, sizeof(*gr));
}

/*
 * The judged rows' findings into out, worst row first: a finding an earlier
 * (worse) row already gave is skipped, and the one kept names the later rows
 * it holds for as well.
 */
static void emit_verdicts(struct findings *out, const struct torch_target *t, struct gate_verdict *rv, size_t n)
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
			 const struct matrix *m, const struct gate_runner *r, struct gate_copies *cache, const char *searched)
{
	struct pin_probes pr = { NULL, 0, 0 };
	struct err e;
	struct gate_verdict *rv;
	char **shown;
	size_t i, n = 0, first = out->n;
	target_facts(o, t);
	o->runner = GATE_NOT_JUDGED;
	if (t->on_windows == 0)
		return;
	err_clear(&e);
	if (pins_target_probes(m, t, r->arch, &pr, &e) < 0) {
		uncovered(out, t, NULL, e.msg, SEV_WARNING);
		o->runner = gate_state_of(out, first);
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
		gate_row_judge(&rv[n], t, pr.v[i].row, shown[n], r, cache, searched, m);
		rv[n].order = n;
		n++;
	}
	if (n > 1 && !t->version)
		n = range_verdict(out, t, rv, n);
	if (n > 1)
		qsort(rv, n, sizeof(*rv), cmp_verdict);
	emit_verdicts(out, t, rv, n);
	o->runner = gate_state_of(out, first);
	if (r->nprofiles) {
		o->profiles = xcalloc(r->nprofiles, sizeof(*o->profiles));
		gate_profiles_target(out, first, o->profiles, t, m, r, cache);
	}
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
	if (!run.python && judged && run.v && (found = gate_find_python(run.v, &from)))
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
		struct gate_copies cache = { NULL, 0, 0 };
		char *searched = gate_searched_text(&run, from);
		n = pinset_torch_targets(&g->head, &t);
		gr->targets = n ? xcalloc(n, sizeof(*gr->targets)) : NULL;
		gr->nprofiles = run.nprofiles;
		gr->profiles = run.nprofiles ? xcalloc(run.nprofiles, sizeof(*gr->profiles)) : NULL;
		gr->profile_titles = run.nprofiles ? xcalloc(run.nprofiles, sizeof(*gr->profile_titles)) : NULL;
		for (i = 0; i < run.nprofiles; i++) {
			gr->profiles[i] = xstrdup(run.profiles[i]->name);
			gr->profile_titles[i] = xstrdup(run.profiles[i]->title);
		}
		for (i = 0; i < n; i++) {
			judge_target(out, &gr->targets[gr->ntargets++], &t[i], m, &run, &cache, searched);
			if (t[i].on_windows != 0 && run.inv && run.inv->gpu_read)
				cuda_gate_target(out, &t[i], m, &run.inv->gpu);
		}
		free(t);
		free(searched);
		gate_copies_release(&cache);
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
