/*
 * profile_opt: --profile NAME|FILE resolved against the matrix (see
 * profile_opt.h).
 */
#include "cli/profile_opt.h"

#include <stdlib.h>
#include <string.h>

#include "cli/usage.h"
#include "judge/gate_profile.h"
#include "judge/gate_row.h"
#include "machine/osver.h"
#include "util/err.h"
#include "util/os.h"
#include "util/strbuf.h"

static int is_file_arg(const char *s)
{
	struct os_stat st;
	os_stat(s, &st);
	return strchr(s, '/') || strchr(s, '\\') || str_iendswith(s, ".yml") || str_iendswith(s, ".yaml") ||
	       st.type == OS_FILE;
}

static void push(const struct matrix_profile ***out, size_t *n, size_t *alloc, const struct matrix_profile *p)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if ((*out)[i] == p)
			return;
	ALLOC_GROW(*out, *n + 1, *alloc);
	(*out)[(*n)++] = p;
}

/* "unknown profile 'x' (did you mean 'y'?); the profiles: a, b, c" */
static int unknown(const struct matrix *m, const char *name, const char *cmd)
{
	const char **names = xcalloc(m->nprofiles + 1, sizeof(*names));
	struct strbuf known = STRBUF_INIT;
	const char *near;
	size_t i;
	for (i = 0; i < m->nprofiles; i++) {
		names[i] = m->profiles[i].name;
		strbuf_addf(&known, "%s%s", i ? ", " : "", m->profiles[i].name);
	}
	near = str_nearest(name, names);
	cmd_usage_error("%s: unknown profile '%s'%s%s%s; the profiles are: %s (or give a profile FILE; docs/profiles.md)",
			cmd, name, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
			known.len ? known.buf : "none");
	strbuf_release(&known);
	free(names);
	return -1;
}

int cli_profiles_resolve(struct matrix *m, const struct strlist *names, const char *dflt, const char *cmd,
			 const struct matrix_profile ***out, size_t *n)
{
	size_t i, k, alloc = 0;
	struct err e;
	*out = NULL;
	*n = 0;
	err_clear(&e);
	/* files first: a name may refer to a profile a file defines */
	for (i = 0; i < names->n; i++)
		if (is_file_arg(names->v[i]) && matrix_load_file(m, names->v[i], NULL, &e)) {
			cmd_usage_error("%s: --profile %s (run `torch-dll-check matrix lint %s` for every error)", cmd, e.msg,
					names->v[i]);
			return -1;
		}
	for (i = 0; i < names->n; i++) {
		const char *a = names->v[i];
		const struct matrix_profile *p;
		if (!strcmp(a, "none"))
			continue; /* the runner alone */
		if (is_file_arg(a)) {
			size_t before = *n;
			for (k = 0; k < m->nprofiles; k++)
				if (m->profiles[k].pos.file && !strcmp(m->profiles[k].pos.file, a))
					push(out, n, &alloc, &m->profiles[k]);
			if (*n == before) {
				cmd_usage_error("%s: --profile %s: the file defines no profile (a `profiles` table)", cmd, a);
				free(*out);
				*out = NULL;
				*n = 0;
				return -1;
			}
			continue;
		}
		if (!(p = matrix_profile_find(m, a))) {
			free(*out);
			*out = NULL;
			*n = 0;
			return unknown(m, a, cmd);
		}
		push(out, n, &alloc, p);
	}
	if (!names->n && dflt) {
		const struct matrix_profile *p = matrix_profile_find(m, dflt);
		if (p)
			push(out, n, &alloc, p);
	}
	return 0;
}

/* The System32 names the profiles speak about: what a profile lacks of them is hidden on its machine. */
static void governed_names(const struct matrix *m, struct strlist *out)
{
	size_t i, k;
	for (i = 0; i < m->nprofiles; i++)
		for (k = 0; k < m->profiles[i].ndlls; k++)
			if (!strlist_has_icase(out, m->profiles[i].dlls[k].name))
				strlist_push(out, m->profiles[i].dlls[k].name);
}

/* The runner's verdict on one install: the worst of its findings (ignoring notes). */
static enum gate_state runner_state(const struct findings *f, const char *torch_dir)
{
	enum gate_state s = GATE_PASS;
	size_t i;
	for (i = 0; i < f->n; i++) {
		if (!f->v[i].install || str_icmp(f->v[i].install, torch_dir) || f->v[i].rule == RULE_PROFILE_FAILS)
			continue; /* another profile's failure is not the runner's */
		if (f->v[i].severity == SEV_ERROR)
			return GATE_FAIL;
		if (f->v[i].severity == SEV_WARNING)
			s = GATE_WARN;
	}
	return s;
}

/* Why the runner loads it: the leaf in the runner's System32 (Visual Studio's when the row says so). */
static char *runner_reason(struct view *v, const struct check_install *ci, const char *leaf)
{
	char *path = NULL, *s;
	size_t i;
	int vs = 0;
	if (!leaf || view_find_file(v, view_system32(v), leaf, &path) != 1) {
		free(path);
		return xstrdup("passes on this runner");
	}
	for (i = 0; ci->verdict.row && i < ci->verdict.row->nopenmp; i++)
		vs |= !str_icmp(ci->verdict.row->openmp[i].dll, leaf) && !ci->verdict.row->openmp[i].redistributable;
	s = vs ? xasprintf("loads on this runner only because Visual Studio is installed here (%s)", path)
	       : xasprintf("loads on this runner only because this runner has %s", path);
	free(path);
	return s;
}

/*
 * The profile's DLL versions, which the loader cannot see (it reads this
 * runner's copies): the install's matrix row judged on the profile's machine
 * by the gate's row judge (judge/gate_row.h), its errors into *out.
 */
static void row_on_profile(struct findings *out, struct view *v, const struct check_install *ci,
			   const struct matrix_profile *p, const struct inventory *pinv, const struct matrix *m)
{
	const char *ver = ci->verdict.version;
	struct gate_runner pr;
	struct gate_copies cache = { NULL, 0, 0 };
	struct gate_verdict rv;
	struct torch_target t;
	struct pin pn;
	char *searched;
	size_t i;
	if (!ci->verdict.row || !ver)
		return;
	memset(&pr, 0, sizeof(pr));
	memset(&t, 0, sizeof(t));
	memset(&pn, 0, sizeof(pn));
	memset(&rv, 0, sizeof(rv));
	pr.v = v;
	pr.inv = pinv;
	pr.arch = "x64";
	pr.profile = p;
	pn.file = (char *)ci->in.torch_dir;
	pn.raw = xasprintf("torch %s", ver);
	t.pin = &pn;
	t.file = ci->in.torch_dir;
	t.version = ver;
	t.variant = ci->verdict.variant;
	t.on_windows = 1;
	searched = xasprintf("System32 of the machine profile %s (%s)", p->name, p->title);
	gate_row_judge(&rv, &t, ci->verdict.row, xstrdup(ver), &pr, &cache, searched, m);
	gate_profile_windows(&rv.j.out, ci->verdict.row, ver, p); /* the profile's Windows: the row's min_windows */
	for (i = 0; i < rv.j.out.n; i++)
		if (rv.j.out.v[i].severity == SEV_ERROR) {
			ALLOC_GROW(out->v, out->n + 1, out->alloc);
			out->v[out->n++] = rv.j.out.v[i];
			memset(&rv.j.out.v[i], 0, sizeof(rv.j.out.v[i]));
		}
	findings_release(&rv.j.out);
	free((char *)rv.j.version);
	free(searched);
	free(pn.raw);
	gate_copies_release(&cache);
}

/* The profile-fails finding already made for this install and cause (another profile's), or NULL. */
static struct finding *same_profile_cause(struct findings *l, const char *dir, const struct finding *f)
{
	size_t i;
	for (i = 0; i < l->n; i++) {
		struct finding *x = &l->v[i];
		if (x->rule == RULE_PROFILE_FAILS && x->install && !str_icmp(x->install, dir) &&
		    x->winerror == f->winerror && ((!x->leaf && !f->leaf) || (x->leaf && f->leaf && !str_icmp(x->leaf, f->leaf))))
			return x;
	}
	return NULL;
}

/*
 * How the reports name profile p for the failure f: its title and name, and
 * for the commit limit its memory and the processes judged ("... (NAME; 16
 * GB, system-managed paging file) at 8 processes"). Caller frees.
 */
static char *profile_label(const struct matrix_profile *p, const struct finding *f, unsigned processes)
{
	char *mem, *s;
	if (f->rule != RULE_COMMIT_LIMIT)
		return xasprintf("%s (%s)", p->title, p->name);
	mem = gate_profile_memory_text(p);
	s = xasprintf("%s (%s; %s) at %u process%s", p->title, p->name, mem, processes, processes == 1 ? "" : "es");
	free(mem);
	return s;
}

/* The runner's side of a commit failure on a profile: judged and fits, or not judged. Caller frees. */
static char *runner_commit_reason(const struct check_install *ci)
{
	unsigned n = ci->commit.processes;
	if (ci->commit.limit_known)
		return xasprintf("fits this runner's commit limit at %u process%s", n, n == 1 ? "" : "es");
	return xstrdup("is not judged against this runner's commit limit (its memory is unknown: --memory)");
}

/*
 * The profile's memory is not said (memory_gb): the commit charge the
 * runner's judge would weigh is not judged there. One note per install
 * naming every such profile, never a silent pass.
 */
static void commit_unknown_note(struct result *report, const struct finding *f, const struct matrix_profile *p,
				const char *dir)
{
	size_t i;
	char *title, *msg;
	struct finding *n;
	for (i = 0; i < report->findings.n; i++) {
		struct finding *x = &report->findings.v[i];
		if (x->rule == RULE_COMMIT_LIMIT_UNKNOWN && x->profiles.n && x->install && !str_icmp(x->install, dir)) {
			char *t2 = xasprintf("%s, %s", x->title, p->name);
			free(x->title);
			x->title = t2;
			strlist_push(&x->profiles, p->name);
			return;
		}
	}
	title = xasprintf("the commit charge of torch at %s is not judged on machine profiles that do not say their "
			  "memory (memory_gb): %s",
			  dir, p->name);
	msg = xasprintf("%s The machine profile %s (%s) has no `memory_gb` (docs/profiles.md), so its commit limit "
			"(RAM + paging files) is unknown.",
			f->message ? f->message : "", p->name, p->title);
	n = finding_add(&report->findings, RULE_COMMIT_LIMIT_UNKNOWN, SEV_NOTE,
			&(struct finding_spec){ .title = title, .message = msg,
						.fix = "give the profile its memory_gb (and paging_file) to judge the charge",
						.install = dir });
	strlist_push(&n->profiles, p->name);
	free(title);
	free(msg);
}

int cli_profiles_check(struct result *report, struct view *v, const struct check_env *env, const struct matrix *m,
		       const struct matrix_profile *const *prof, size_t nprof)
{
	struct strlist governed = { NULL, 0, 0 };
	size_t k, i, j, ninst = report->ninstalls;
	governed_names(m, &governed);
	for (k = 0; k < nprof; k++) {
		const struct matrix_profile *p = prof[k];
		struct strlist hidden = { NULL, 0, 0 };
		struct check_env penv = *env;
		struct inventory pinv;
		struct machine_memory pmem;
		for (j = 0; j < governed.n; j++)
			if (!matrix_profile_dll(p, governed.v[j]) &&
			    !(p->driver_text && !str_icmp(governed.v[j], "nvcuda.dll"))) /* the driver brings it */
				strlist_push(&hidden, governed.v[j]);
		gate_profile_inventory(&pinv, p);
		gate_profile_memory(&pmem, p);
		penv.inv = &pinv;     /* the profile's redistributable and NVIDIA driver */
		penv.memory = &pmem;  /* its memory and paging file: the commit limit there */
		penv.windows = NULL;  /* its Windows: gate_profile_windows (its `build`), not this machine's */
		for (i = 0; i < ninst; i++) {
			struct check_install *ci = report->installs[i], *pci = xcalloc(1, sizeof(*pci));
			struct findings pf = FINDINGS_INIT;
			const char *dir = ci->in.torch_dir;
			enum gate_state st, rs = runner_state(&report->findings, dir);
			const struct finding *first = NULL, *unknown_commit = NULL;
			struct finding *same;
			char *label;
			struct err e;
			size_t x;
			err_clear(&e);
			view_hide_system32(v, &hidden);
			if (check_install_run(pci, &pf, &penv, ci->install, &ci->in, &e) < 0) {
				st = GATE_NOT_JUDGED;
			} else {
				st = gate_state_of(&pf, 0);
				for (x = 0; x < pf.n && !first; x++)
					if (pf.v[x].severity == SEV_ERROR)
						first = &pf.v[x];
			}
			if (st != GATE_NOT_JUDGED) {
				row_on_profile(&pf, v, ci, p, &pinv, m);
				st = gate_state_of(&pf, 0) > st ? gate_state_of(&pf, 0) : st;
				/* pf may have moved: the first error again, one that import torch raises (a WinError) first */
				first = NULL;
				for (x = 0; x < pf.n && !first; x++)
					if (pf.v[x].severity == SEV_ERROR && pf.v[x].winerror)
						first = &pf.v[x];
				for (x = 0; x < pf.n && !first; x++)
					if (pf.v[x].severity == SEV_ERROR)
						first = &pf.v[x];
			}
			view_hide_system32(v, NULL);
			for (x = 0; x < pf.n && !unknown_commit; x++)
				if (pf.v[x].rule == RULE_COMMIT_LIMIT_UNKNOWN && !p->memory_gb)
					unknown_commit = &pf.v[x];
			if (unknown_commit)
				commit_unknown_note(report, unknown_commit, p, dir);
			if (rs == GATE_FAIL && st != GATE_NOT_JUDGED)
				st = GATE_FAIL; /* a profile never passes what the runner fails */
			label = first ? profile_label(p, first, ci->commit.processes) : NULL;
			if (first && rs != GATE_FAIL && (same = same_profile_cause(&report->findings, dir, first))) {
				/* another profile's finding of this cause: it names this profile too */
				char *t2 = xasprintf("%s; and on %s", same->title, label);
				free(same->title);
				same->title = t2;
				strlist_push(&same->profiles, p->name);
			} else if (first && rs != GATE_FAIL) {
				char *why = first->rule == RULE_COMMIT_LIMIT ? runner_commit_reason(ci)
									      : runner_reason(v, ci, first->leaf);
				char *title = first->leaf && first->winerror
						      ? xasprintf("torch at %s %s; fails on %s (WinError %d, %s)", dir, why,
								  label, first->winerror, first->leaf)
						      : xasprintf("torch at %s %s; fails on %s: %s", dir, why, label,
								  first->title ? first->title : "an error");
				char *msg = xasprintf("The install was also judged on the machine profile %s (docs/profiles.md): "
						      "its files, and System32 as the profile has it (what it lacks hidden; the "
						      "DLLs it has are this runner's copies), with the profile's redistributable. "
						      "There: %s. %s",
						      p->name, first->title ? first->title : "", first->message ? first->message : "");
				struct finding *f = finding_add(&report->findings, RULE_PROFILE_FAILS, SEV_ERROR,
								&(struct finding_spec){ .winerror = first->winerror,
											.title = title, .message = msg,
											.fix = first->fix, .install = dir,
											.binary = first->binary, .leaf = first->leaf,
											.issue = first->issue });
				strlist_push(&f->profiles, p->name);
				free(why);
				free(title);
				free(msg);
			}
			result_add_profile_check(report, p->name, p->title, dir, st, first ? first->winerror : 0,
						 first ? first->leaf : NULL, first ? first->title : e.msg[0] ? e.msg : NULL,
						 unknown_commit
							 ? "the DLLs the profile lists are judged as this runner's copies (their "
							   "versions are this runner's); the redistributable's version and the NVIDIA "
							   "driver are the profile's; the commit charge is not judged: the profile "
							   "does not say its memory (memory_gb)"
							 : "the DLLs the profile lists are judged as this runner's copies (their "
							   "versions are this runner's); the redistributable's version, the NVIDIA "
							   "driver and the memory are the profile's");
			free(label);
			findings_release(&pf);
			check_install_release(pci);
			free(pci);
		}
		inventory_release(&pinv);
		machine_memory_release(&pmem);
		strlist_release(&hidden);
	}
	strlist_release(&governed);
	return 0;
}

/* A YAML double-quoted scalar of s (profiles are data: nothing of the machine may become YAML syntax). */
static void yq(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addch(sb, (char)c);
	}
	strbuf_addch(sb, '"');
}

int cli_write_profile(const struct inventory *inv, struct view *v, const char *name, const char *path,
		      struct err *err)
{
	struct strbuf sb = STRBUF_INIT, cv = STRBUF_INIT;
	struct osver os;
	const char *where = v ? (view_root(v) ? view_root(v) : "the live machine") : "a registry file";
	size_t i;
	int a, vs = 0, any = 0, r;
	char ver[WINVER_DOTTED_MAX];
	for (i = 0; i < inv->ndlls; i++)
		vs |= !str_icmp(inv->dlls[i].where, "System32") && !str_icmp(inv->dlls[i].name, "libomp140.x86_64.dll");
	osver_init(&os);
	strbuf_adds(&sb, "# written by torch-dll-check inventory --write-profile (docs/profiles.md)\nschema: 1\nprofiles:\n");
	strbuf_adds(&sb, "  - name: ");
	yq(&sb, name);
	strbuf_adds(&sb, "\n    title: ");
	{
		char *t = xasprintf("the machine read at %s", where);
		yq(&sb, t);
		free(t);
	}
	/* what the registry says of Windows, when a registry is read */
	strbuf_adds(&sb, "\n    windows: ");
	if (v && !view_reg_get(v, "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", "DisplayVersion", 64, &cv, err) &&
	    cv.len)
		yq(&sb, cv.buf);
	else
		yq(&sb, "unknown");
	strbuf_reset(&cv);
	strbuf_adds(&sb, "\n    build: ");
	if (v)
		osver_read(&os, v); /* the version as check reads it: a Windows 7 registry is no 10.0.7601 */
	if (os.known && os.build) {
		char *b = xasprintf("%u.%u.%u", os.major, os.minor, os.build);
		yq(&sb, b);
		free(b);
	} else if (v && !view_reg_get(v, "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", "CurrentBuildNumber", 64, &cv, err) &&
	    cv.len && strspn(cv.buf, "0123456789") == cv.len && cv.len <= 5) {
		char *b = xasprintf("10.0.%s", cv.buf);
		yq(&sb, b);
		free(b);
	} else {
		yq(&sb, "10.0");
	}
	err_clear(err);
	osver_release(&os);
	strbuf_adds(&sb, "\n");
	for (a = 0; a < 3; a++)
		if (inv->redist[a].installed && inv->redist[a].has_ver) {
			strbuf_addf(&sb, "%s%s: ", any ? ", " : "    vc_redist: {", inv->redist[a].arch);
			yq(&sb, winver_dotted(ver, inv->redist[a].ver));
			any = 1;
		}
	if (any)
		strbuf_adds(&sb, "}\n");
	strbuf_addf(&sb, "    visual_studio: %s\n    system32:%s\n", vs ? "true" : "false", "");
	any = 0;
	for (i = 0; i < inv->ndlls; i++) {
		const struct inv_dll *d = &inv->dlls[i];
		if (str_icmp(d->where, "System32"))
			continue;
		strbuf_adds(&sb, "      - {name: ");
		yq(&sb, d->name);
		if (d->has_version) {
			strbuf_adds(&sb, ", version: ");
			yq(&sb, winver_dotted(ver, d->ver));
		}
		strbuf_adds(&sb, "}\n");
		any = 1;
	}
	if (inv->gpu_read && inv->gpu.nvcuda_path) {
		strbuf_adds(&sb, "      - {name: nvcuda.dll");
		if (inv->gpu.nvcuda_has_version) {
			strbuf_adds(&sb, ", version: ");
			yq(&sb, winver_dotted(ver, inv->gpu.nvcuda_ver));
		}
		strbuf_adds(&sb, "}\n");
		any = 1;
	}
	if (!any) { /* an empty System32 of runtime DLLs: still a list */
		sb.len--;
		sb.buf[sb.len] = '\0';
		strbuf_adds(&sb, " []\n");
	}
	if (inv->gpu_read && inv->gpu.has_driver)
		strbuf_addf(&sb, "    nvidia_driver: \"%u.%02u\"\n", inv->gpu.driver.major, inv->gpu.driver.minor);
	else
		strbuf_adds(&sb, "    nvidia_driver: none\n");
	strbuf_adds(&sb, "    status: measured\n    evidence: [");
	{
		char *t = xasprintf("torch-dll-check inventory of %s", where);
		yq(&sb, t);
		free(t);
	}
	strbuf_adds(&sb, "]\n    note: the redistributable from the registry, System32's runtime DLLs and their file versions "
			 "as read; visual_studio is true when System32 has libomp140.x86_64.dll\n");
	r = os_write_file_atomic(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	strbuf_release(&cv);
	return r;
}
