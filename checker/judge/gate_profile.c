/*
 * gate_profile: a pin judged on machine profiles besides the runner (see
 * gate_profile.h): each profile's machine through the same row judge, its
 * errors the runner does not share turned into profile-fails findings.
 */
#include "judge/gate_profile.h"

#include <stdlib.h>
#include <string.h>

#include "judge/cuda.h"
#include "judge/gate_row.h"
#include "util/strbuf.h"
#include "util/text.h"

void gate_profile_verdict_release(struct gate_profile_verdict *v)
{
	free(v->leaf);
	free(v->first);
	memset(v, 0, sizeof(*v));
}

/* The profile's NVIDIA driver as gpu_driver_collect would read it from that machine. */
static void profile_gpu(struct gpu_driver *g, const struct matrix_profile *p)
{
	const struct matrix_profile_dll *nv = matrix_profile_dll(p, "nvcuda.dll");
	struct gpu_adapter *a;
	g->registry_read = 1;
	g->registry_source = xasprintf("the machine profile %s", p->name);
	if (!p->driver_text)
		return; /* no NVIDIA GPU: no nvcuda.dll, no adapter */
	g->nvcuda_path = xstrdup("C:\\Windows\\System32\\nvcuda.dll");
	g->nvcuda_machine = 0x8664;
	g->has_driver = 1;
	g->driver.major = p->driver[0];
	g->driver.minor = p->driver[1];
	if (nv && nv->version.set) {
		g->nvcuda_has_version = 1;
		memcpy(g->nvcuda_ver, nv->version.v.part, sizeof(g->nvcuda_ver));
	}
	g->adapters = a = xcalloc(1, sizeof(*a));
	g->nadapters = g->aadapters = 1;
	a->key = xasprintf("the machine profile %s", p->name);
	a->provider = xstrdup("NVIDIA");
	a->description = xasprintf("the NVIDIA GPU of the machine profile %s", p->name);
	a->driver_version = xstrdup(p->driver_text);
	a->nvidia = 1;
	a->vendor = "nvidia";
	a->has_nv = 1;
	a->nv = g->driver;
}

void gate_profile_inventory(struct inventory *inv, const struct matrix_profile *p)
{
	int a;
	inventory_init(inv);
	inv->redist_read = 1;
	inv->redist_source = xasprintf("profile %s", p->name);
	for (a = 0; a < MATRIX_NARCH && a < 3; a++) {
		struct inv_redist *rd = &inv->redist[a];
		const struct matrix_min *v = &p->vc_redist[a];
		struct strbuf sb = STRBUF_INIT;
		rd->arch = matrix_arch_name(a);
		rd->installed_value = -1;
		rd->view = 64;
		rd->key = xasprintf("the VC++ redistributable of profile %s", p->name);
		if (!v->set)
			continue;
		rd->found = rd->installed = 1;
		memcpy(rd->ver, v->v.part, sizeof(rd->ver));
		rd->has_ver = 1;
		winver_format(&v->v, 1, &sb);
		rd->version = strbuf_detach(&sb);
		rd->version_raw = xstrdup(v->text);
	}
	profile_gpu(&inv->gpu, p);
	inv->gpu_read = 1;
}

void gate_profile_memory(struct machine_memory *mem, const struct matrix_profile *p)
{
	machine_memory_init(mem);
	if (p->memory_gb) {
		mem->physical = (uint64_t)p->memory_gb * MEM_GIB;
		mem->physical_source = xasprintf("the machine profile %s", p->name);
	}
	mem->paging_source = xasprintf("the machine profile %s", p->name);
	if (p->paging_file_gb == -2) {
		strlist_pushf(&mem->notes, "the machine profile %s does not say its paging file: Windows' default, one "
			      "system-managed paging file, taken", p->name);
		return; /* paging_known 0: memory_limits takes Windows' default */
	}
	mem->paging_known = 1;
	if (p->paging_file_gb == 0)
		return; /* no paging file */
	mem->files = xcalloc(1, sizeof(*mem->files));
	mem->nfiles = 1;
	mem->files[0].path = xstrdup("C:\\pagefile.sys");
	if (p->paging_file_gb == -1) {
		mem->files[0].kind = PAGING_SYSTEM_MANAGED;
	} else {
		mem->files[0].kind = PAGING_FIXED;
		mem->files[0].min = mem->files[0].max = (uint64_t)p->paging_file_gb * MEM_GIB;
	}
}

char *gate_profile_memory_text(const struct matrix_profile *p)
{
	if (!p->memory_gb)
		return xstrdup("memory not said");
	if (p->paging_file_gb == -1)
		return xasprintf("%u GB, system-managed paging file", p->memory_gb);
	if (p->paging_file_gb == -2)
		return xasprintf("%u GB, paging file not said (taken as system-managed)", p->memory_gb);
	if (p->paging_file_gb == 0)
		return xasprintf("%u GB, no paging file", p->memory_gb);
	return xasprintf("%u GB, a %d GB paging file", p->memory_gb, p->paging_file_gb);
}

/* Windows' name for an NT version: "Windows 8 (NT 6.2)"; the version alone when it has no other. Caller frees. */
static char *windows_name(const struct matrix_min *v)
{
	static const struct {
		unsigned major, minor;
		const char *name;
	} names[] = { { 6, 0, "Vista" }, { 6, 1, "7" }, { 6, 2, "8" }, { 6, 3, "8.1" }, { 10, 0, "10" } };
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (v->v.part[0] == names[i].major && v->v.part[1] == names[i].minor)
			return xasprintf("Windows %s (NT %s)", names[i].name, v->text);
	return xasprintf("Windows NT %s", v->text);
}

void gate_profile_windows(struct findings *out, const struct matrix_row *row, const char *version,
			  const struct matrix_profile *p)
{
	char *title, *msg, *fix, *need;
	if (!row || !row->min_windows.set || !p->build.set || winver_at_least(&p->build.v, &row->min_windows.v))
		return;
	need = windows_name(&row->min_windows);
	title = xasprintf("torch %s needs %s or newer (the matrix row %s's min_windows); %s has Windows %s (%s)",
			  version ? version : "", need, row->id, p->name, p->windows ? p->windows : "?", p->build.text);
	msg = xasprintf("%s The loader resolves a binary's imports when it maps it: on Windows %s (%s) kernel32.dll "
			"lacks a function the release imports, and `import torch` fails with OSError: [WinError 127] "
			"The specified procedure could not be found.",
			row->min_windows_why ? row->min_windows_why : "", p->windows ? p->windows : "?", p->build.text);
	fix = xasprintf("run torch %s on %s or newer (PyTorch's Windows wheels are built and tested on "
			"Windows 10 and Server); a machine that cannot be upgraded needs a torch whose row's "
			"min_windows it meets",
			version ? version : "", need);
	finding_add(out, RULE_WINDOWS_TOO_OLD, SEV_DEFAULT,
		    &(struct finding_spec){ .winerror = 127, .title = title, .message = msg, .fix = fix,
					    .leaf = "kernel32.dll" });
	free(title);
	free(msg);
	free(fix);
	free(need);
}

enum gate_state gate_state_of(const struct findings *out, size_t first)
{
	enum gate_state s = GATE_PASS;
	size_t i;
	for (i = first; i < out->n; i++) {
		if (out->v[i].severity == SEV_ERROR)
			return GATE_FAIL;
		if (out->v[i].severity == SEV_WARNING && out->v[i].rule != RULE_PIN_CHANGED)
			s = GATE_WARN;
	}
	return s;
}

/* The same cause: rule, WinError, DLL and known issue (gate.c's test for one finding of two rows). */
static int same_cause(const struct finding *a, const struct finding *b)
{
	return a->rule == b->rule && a->winerror == b->winerror &&
	       ((!a->leaf && !b->leaf) || (a->leaf && b->leaf && !str_icmp(a->leaf, b->leaf))) &&
	       ((!a->issue && !b->issue) || (a->issue && b->issue && !strcmp(a->issue, b->issue)));
}

/* `s` with every "this runner" said of the profile's machine instead. Caller frees. */
static char *on_that_machine(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	const char *at;
	if (!s)
		return xstrdup("");
	while ((at = strstr(s, "this runner"))) {
		strbuf_add(&sb, s, (size_t)(at - s));
		strbuf_adds(&sb, "that machine");
		s = at + strlen("this runner");
	}
	strbuf_adds(&sb, s);
	return strbuf_detach(&sb);
}

/* One cause that fails on some profiles and not on the runner. */
struct cause {
	struct finding f;          /* the first profile's finding (moved into `held`: this is a shallow copy) */
	struct strbuf names;       /* "a (title), b (title)" */
	struct strlist profiles;   /* their names */
	size_t n;
	int vs_only;               /* the runner has the DLL from Visual Studio alone (a non-redistributable OpenMP) */
};

/* Whether a row the pin selects says `dll` is an OpenMP runtime the redistributable does not install. */
static int vs_only_dll(const struct matrix_row *row, const char *dll)
{
	size_t i;
	for (i = 0; dll && i < row->nopenmp; i++)
		if (!str_icmp(row->openmp[i].dll, dll) && !row->openmp[i].redistributable)
			return 1;
	return 0;
}

/* Why the runner passes where the profile fails: "…only because …". Caller frees. */
static char *why_runner_passes(const struct cause *c, const struct gate_runner *r, struct gate_copies *cache)
{
	struct gate_copy rc;
	char *s;
	if (!c->f.leaf || !gate_runner_find(cache, r, c->f.leaf, &rc))
		return xstrdup("passes on this runner");
	if (c->vs_only)
		s = xasprintf("loads on this runner only because Visual Studio is installed here (its C++ workload put %s "
			      "at %s)",
			      c->f.leaf, rc.path);
	else if (c->f.winerror == 126 || c->f.rule == RULE_REDIST_MISSING || c->f.rule == RULE_MISSING_DLL ||
		 c->f.rule == RULE_CUDA_NO_DRIVER)
		s = xasprintf("loads on this runner only because this runner has %s (%s)", c->f.leaf, rc.path);
	else
		s = xasprintf("loads on this runner only because this runner's %s is %s (%s)", c->f.leaf,
			      rc.ver_text ? rc.ver_text : "of unknown version", rc.path);
	gate_copy_release(&rc);
	return s;
}

/* The profile-fails finding of one cause, anchored on the pin. */
static void emit_cause(struct findings *out, struct cause *c, const struct torch_target *t, const char *version,
		       const struct gate_runner *r, struct gate_copies *cache)
{
	char *why = why_runner_passes(c, r, cache), *inner = on_that_machine(c->f.title),
	     *msg0 = on_that_machine(c->f.message);
	char *title, *msg;
	struct strbuf what = STRBUF_INIT;
	struct finding *f;
	size_t k;
	if (c->f.winerror && c->f.leaf)
		strbuf_addf(&what, " (WinError %d, %s)", c->f.winerror, c->f.leaf);
	else if (c->f.leaf)
		strbuf_addf(&what, " (%s)", c->f.leaf);
	if (c->f.leaf)
		title = xasprintf("torch %s %s; fails on %s%s", version, why, c->names.buf, what.buf);
	else /* no DLL to say it by (the redistributable's version): the profile's own words */
		title = xasprintf("torch %s %s; fails on %s: %s", version, why, c->names.buf, inner);
	msg = xasprintf("A runner is not a user's machine: %s was judged on the machine profile%s %s too "
			"(docs/profiles.md). There: %s. %s",
			t->pin->raw, c->n > 1 ? "s" : "", c->names.buf, inner, msg0);
	f = finding_add(out, RULE_PROFILE_FAILS, SEV_ERROR,
			&(struct finding_spec){ .winerror = c->f.winerror, .title = title, .message = msg,
						.fix = c->f.fix, .leaf = c->f.leaf, .issue = c->f.issue });
	if (c->f.matrix.row) {
		finding_set(&f->matrix.row, c->f.matrix.row);
		finding_set(&f->matrix.file, c->f.matrix.file);
		f->matrix.line = c->f.matrix.line;
	}
	finding_anchor(f, t->pin->file, t->pin->line, t->pin->col);
	for (k = 0; k < c->profiles.n; k++)
		strlist_push(&f->profiles, c->profiles.v[k]);
	free(why);
	free(inner);
	free(msg0);
	free(title);
	free(msg);
	strbuf_release(&what);
}

/* The rows a profile judges: an exact pin's, or a range's newest (what pip installs). */
static void judge_profile(struct gate_verdict *rv, size_t *nrv, const struct pin_probes *pr,
			  const struct torch_target *t, const struct gate_runner *pr_runner, struct gate_copies *cache,
			  const char *searched, const struct matrix *m)
{
	size_t i, from = 0;
	*nrv = 0;
	if (!t->version && pr->n)
		from = pr->n - 1;
	for (i = from; i < pr->n; i++) {
		if (!pr->v[i].row)
			continue;
		memset(&rv[*nrv], 0, sizeof(rv[*nrv]));
		gate_row_judge(&rv[*nrv], t, pr->v[i].row, pins_shown_version(pr->v[i].version, t), pr_runner, cache,
			       searched, m);
		(*nrv)++;
	}
}

void gate_profiles_target(struct findings *out, size_t first, struct gate_profile_verdict *v,
			  const struct torch_target *t, const struct matrix *m, const struct gate_runner *r,
			  struct gate_copies *cache)
{
	struct pin_probes pr = { NULL, 0, 0 };
	struct cause *causes = NULL;
	struct findings held = FINDINGS_INIT; /* the causes' findings, owned */
	struct findings runner_cuda = FINDINGS_INIT;
	size_t ncauses = 0, acauses = 0, k, i, end = out->n;
	struct err e;
	char *version = NULL;
	err_clear(&e);
	for (k = 0; k < r->nprofiles; k++)
		memset(&v[k], 0, sizeof(v[k]));
	if (t->on_windows == 0 || pins_target_probes(m, t, r->arch, &pr, &e) < 0) {
		for (k = 0; k < r->nprofiles; k++)
			v[k].state = GATE_NOT_JUDGED;
		pin_probes_release(&pr);
		return;
	}
	/* the runner's CUDA findings on this pin: gate.c adds them after this; a profile that shares one shares it */
	if (r->inv && r->inv->gpu_read)
		cuda_judge_pin(&runner_cuda, m, &r->inv->gpu, t->version, t->variant);
	for (k = 0; k < r->nprofiles; k++) {
		const struct matrix_profile *p = r->profiles[k];
		struct gate_runner pr_runner = *r;
		struct gate_copies pcache = { NULL, 0, 0 };
		struct inventory inv;
		struct gate_verdict *rv = xcalloc(pr.n ? pr.n : 1, sizeof(*rv));
		size_t nrv, a, b;
		char *searched = xasprintf("System32 of the machine profile %s (%s)", p->name, p->title);
		gate_profile_inventory(&inv, p);
		pr_runner.inv = &inv;
		pr_runner.python = NULL;
		pr_runner.profile = p;
		pr_runner.profiles = NULL;
		pr_runner.nprofiles = 0;
		judge_profile(rv, &nrv, &pr, t, &pr_runner, &pcache, searched, m);
		for (a = 0; a < nrv; a++) /* the profile's Windows against each row's min_windows */
			gate_profile_windows(&rv[a].j.out, rv[a].j.row, rv[a].j.version, p);
		if (nrv) /* the profile's NVIDIA driver (or none) on a CUDA pin, with the last row's findings */
			cuda_judge_pin(&rv[nrv - 1].j.out, m, &inv.gpu, t->version, t->variant);
		v[k].state = nrv ? GATE_PASS : GATE_NOT_JUDGED;
		for (a = 0; a < nrv; a++) {
			enum gate_state s = gate_state_of(&rv[a].j.out, 0);
			if (s > v[k].state)
				v[k].state = s;
			for (b = 0; b < rv[a].j.out.n; b++) {
				struct finding *f = &rv[a].j.out.v[b];
				size_t c, x;
				int shared = 0;
				if (f->severity != SEV_ERROR)
					continue;
				if (!v[k].first) {
					v[k].first = on_that_machine(f->title);
					v[k].winerror = f->winerror;
					v[k].leaf = f->leaf ? xstrdup(f->leaf) : NULL;
				}
				/* the runner's own failure: already reported for this pin; it holds on this profile too */
				for (x = first; x < end && !shared; x++)
					if (out->v[x].severity == SEV_ERROR && same_cause(&out->v[x], f)) {
						shared = 1;
						if (!strlist_has(&out->v[x].profiles, p->name))
							strlist_push(&out->v[x].profiles, p->name);
					}
				for (x = 0; x < runner_cuda.n && !shared; x++)
					shared = runner_cuda.v[x].severity == SEV_ERROR && same_cause(&runner_cuda.v[x], f);
				if (shared)
					continue;
				for (c = 0; c < ncauses; c++)
					if (same_cause(&causes[c].f, f))
						break;
				if (c == ncauses) {
					ALLOC_GROW(causes, ncauses + 1, acauses);
					memset(&causes[c], 0, sizeof(causes[c]));
					ALLOC_GROW(held.v, held.n + 1, held.alloc);
					held.v[held.n++] = *f;
					causes[c].f = *f;
					memset(f, 0, sizeof(*f)); /* moved into held */
					strbuf_init(&causes[c].names);
					strlist_init(&causes[c].profiles);
					causes[c].vs_only = vs_only_dll(rv[a].j.row, causes[c].f.leaf);
					if (!version)
						version = xstrdup(rv[a].j.version);
					ncauses++;
				} else if (causes[c].n && strstr(causes[c].names.buf, p->name)) {
					continue; /* two rows of one profile, one cause */
				}
				strbuf_addf(&causes[c].names, "%s%s (%s)", causes[c].n ? ", " : "", p->title, p->name);
				strlist_push(&causes[c].profiles, p->name);
				causes[c].n++;
			}
		}
		for (a = 0; a < nrv; a++) {
			findings_release(&rv[a].j.out);
			free((char *)rv[a].j.version);
		}
		free(rv);
		free(searched);
		gate_copies_release(&pcache);
		inventory_release(&inv);
	}
	for (i = 0; i < ncauses; i++) {
		emit_cause(out, &causes[i], t, version ? version : t->pin->raw, r, cache);
		strbuf_release(&causes[i].names);
		strlist_release(&causes[i].profiles);
	}
	findings_release(&held);
	findings_release(&runner_cuda);
	free(causes);
	free(version);
	pin_probes_release(&pr);
}
