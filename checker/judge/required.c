/*
 * required: see required.h. Which wheel or driver ships which DLL is the
 * matrix's `vendor_dlls` table (matrix/torch.yml, measured from the
 * win_amd64 wheels' RECORDs: mkl, intel-openmp and tbb in
 * matrix/evidence/required-dists.txt, the oneAPI runtime wheels of torch's
 * +xpu builds in the entries' evidence).
 */
#include "judge/required.h"

#include <stdlib.h>
#include <string.h>

#include "machine/dist.h"
#include "pins/req_markers.h"
#include "util/strbuf.h"

/* The characters of a PEP 440 version specifier ("==2021.4.0", ">=2.0,<3", "~=1.2.*") */
#define SPEC_CHARS "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz<>=!~.*+,_-"

const char *required_dist_of(const struct matrix *m, const char *name)
{
	const struct matrix_vendor *x = matrix_vendor_of(m, name);
	return x ? x->wheel : NULL;
}

int required_marker_on_windows(const char *marker)
{
	int r;
	if (!marker || !*marker)
		return 1;
	if (strstr(marker, "extra"))
		return 0; /* an optional feature's requirement: not installed by `pip install torch` */
	r = req_markers_on_windows(marker);
	return r == 1 || r == -1; /* -1: holds on Windows for some Python (python_version): still a requirement */
}

static int ours(const struct torch_run *run, const struct finding *f)
{
	return f->install && !str_icmp(f->install, run->torch_dir);
}

/* A DLL the vendor's display driver installs: the entry's fix and why, said as that driver's. */
static void driver_fix(struct finding *f, const struct matrix_vendor *x)
{
	char *why = xasprintf("%s comes with %s, not with a wheel or torch: %s (matrix vendor_dlls entry %s, %s:%u).",
			      winpath_basename(f->leaf), x->driver, x->why, x->id, x->pos.file ? x->pos.file : "",
			      x->pos.line);
	finding_set(&f->fix, x->fix);
	if (!f->explanation) {
		finding_set(&f->explanation, why);
	} else {
		char *w = xasprintf("%s %s", why, f->explanation);
		free(f->explanation);
		f->explanation = w;
	}
	free(why);
}

void required_judge(struct findings *out, const struct matrix *m, const struct torch_run *run, struct view *v,
		    const struct inv_install *install)
{
	struct dist_metadata md;
	struct err e;
	size_t i, k;
	if (!install || !install->dist_info)
		return;
	memset(&md, 0, sizeof(md));
	err_clear(&e);
	if (dist_read_metadata(v, install->dist_info, &md, &e))
		return; /* an unreadable METADATA is inventory's to say; no requirement is then known */
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		const char *dist;
		const struct matrix_vendor *x;
		const struct dist_require *req = NULL;
		char *userdir = NULL, *inuser = NULL, *fix, *why;
		const char *spec;
		if (f->rule != RULE_MISSING_DLL || !ours(run, f) || !(x = matrix_vendor_of(m, f->leaf)))
			continue;
		if (x->driver) {
			driver_fix(f, x);
			continue;
		}
		dist = x->wheel;
		for (k = 0; k < md.nrequires && !req; k++)
			if (dist_name_eq(md.requires[k].name, dist) && required_marker_on_windows(md.requires[k].marker))
				req = &md.requires[k];
		if (!req) {
			if (x->fix)
				finding_set(&f->fix, x->fix);
			continue;
		}
		if (run->userbase && !torch_proc_has(run->proc, TORCH_FOLDER_USERBASE)) {
			userdir = xasprintf("%s\\Library\\bin", run->userbase);
			inuser = winpath_join(userdir, winpath_basename(f->leaf));
			if (!view_is_file(v, inuser)) {
				free(inuser);
				inuser = NULL;
			}
		}
		/* only a version specifier reaches the command: a direct reference (`@ URL`) may hold any text */
		spec = req->spec && req->spec[strspn(req->spec, SPEC_CHARS)] == '\0' ? req->spec : "";
		if (inuser)
			fix = xasprintf("pip install \"%s%s\" into this environment (not with --user): torch %s does not "
					"search the user base's Library\\bin, where %s is; or upgrade to torch >= 2.3.1, "
					"which does (pytorch/pytorch#125109)",
					req->name, spec, run->torch_version ? run->torch_version : "", inuser);
		else
			fix = xasprintf("pip install \"%s%s\"", req->name, spec);
		why = xasprintf("%s is shipped by the %s wheel (%s stack), which torch requires on "
				"Windows: Requires-Dist %s%s%s%s (%s\\METADATA:%zu).",
				f->leaf, dist, x->stack, req->name, req->spec ? req->spec : "", req->marker ? "; " : "",
				req->marker ? req->marker : "", install->dist_info, req->line);
		finding_set(&f->fix, fix);
		if (!f->explanation) {
			finding_set(&f->explanation, why);
		} else {
			char *w = xasprintf("%s %s", why, f->explanation);
			free(f->explanation);
			f->explanation = w;
		}
		free(fix);
		free(why);
		free(userdir);
		free(inuser);
	}
	dist_metadata_release(&md);
}
