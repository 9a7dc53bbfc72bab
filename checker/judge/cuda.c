/*
 * cuda: a CUDA build of torch against the NVIDIA driver (design in cuda.h).
 */
#include "judge/cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pins/pins.h"
#include "util/strbuf.h"
#include "util/version.h"

/* ---- what kind of build ---- */

struct build {
	int cuda;              /* a CUDA build */
	int has_release;       /* major.minor known */
	unsigned major, minor;
	char variant[32];      /* "cu124", or "" */
	char *version;         /* as installed or pinned: "2.5.1+cu124" (owned) */
	char *public_version;  /* "2.5.1" (owned), or NULL */
};

static void build_release(struct build *b)
{
	free(b->version);
	free(b->public_version);
}

static char *public_of(const char *version)
{
	struct pep440 v, pub;
	struct strbuf sb;
	struct err e;
	if (!version || pep440_parse(&v, version, &e))
		return NULL;
	pep440_public(&pub, &v);
	strbuf_init(&sb);
	pep440_format(&pub, &sb);
	return strbuf_detach(&sb);
}

/* From a local label or variant name ("cu124"); 0 when it is not a CUDA one. */
static int from_variant(struct build *b, const char *name)
{
	struct torch_variant tv;
	struct err e;
	if (!name || !*name || torch_variant_parse(&tv, name, &e) || tv.kind != VARIANT_CUDA)
		return 0;
	b->cuda = b->has_release = 1;
	b->major = tv.major;
	b->minor = tv.minor;
	snprintf(b->variant, sizeof(b->variant), "%s", tv.name);
	return 1;
}

/* torch.version.cuda: "12.4" */
static int from_cuda_string(struct build *b, const char *s)
{
	unsigned maj, min;
	char tail;
	if (!s || sscanf(s, "%u.%u%c", &maj, &min, &tail) != 2)
		return 0;
	b->cuda = b->has_release = 1;
	b->major = maj;
	b->minor = min;
	return 1;
}

static void build_of_install(struct build *b, const struct inv_install *in, const struct torch_run *run)
{
	memset(b, 0, sizeof(*b));
	if (!in)
		return;
	b->version = in->version ? xstrdup(in->version) : in->metadata_version ? xstrdup(in->metadata_version) : NULL;
	b->public_version = public_of(b->version);
	if (from_variant(b, in->variant))
		return;
	if (from_cuda_string(b, in->cuda) || (run && from_cuda_string(b, run->cuda_version)))
		return;
	if (in->variant && !strcmp(in->variant, "cuda"))
		b->cuda = 1; /* CUDA DLLs in torch\lib, release unknown */
}

/* ---- words ---- */

static char *release_text(const struct build *b)
{
	if (!b->has_release)
		return xstrdup("a CUDA build");
	return xasprintf("a CUDA %u.%u build", b->major, b->minor);
}

/* "install the NVIDIA display driver >= 551.61 (NVIDIA's minimum for CUDA 12.4 on Windows)" */
static char *driver_fix(const struct build *b, const struct cuda_need *need, int has_need, const char *verb)
{
	char *d, *s;
	if (!has_need)
		return xasprintf("%s the NVIDIA display driver (https://www.nvidia.com/Download/index.aspx)", verb);
	d = nv_driver_str(&need->driver);
	s = xasprintf("%s the NVIDIA display driver >= %s (NVIDIA's minimum for CUDA %u.%u on Windows; "
		      "https://www.nvidia.com/Download/index.aspx)",
		      verb, d, b->major, b->minor);
	free(d);
	return s;
}

/* "install the CPU build of torch 2.5.1: pip install torch==2.5.1 --index-url ..." */
static char *cpu_fix(const struct build *b)
{
	if (!b->public_version)
		return xstrdup("install the CPU build of torch (pip install torch --index-url "
			       "https://download.pytorch.org/whl/cpu)");
	return xasprintf("install the CPU build of torch %s: pip install torch==%s --index-url "
			 "https://download.pytorch.org/whl/cpu (PyPI's Windows wheels are CPU builds too)",
			 b->public_version, b->public_version);
}

/* What the machine has instead of an NVIDIA driver, from the display adapters' keys. */
static void adapters_text(struct strbuf *sb, const struct gpu_driver *g)
{
	size_t i, n = 0;
	if (!g->registry_read) {
		strbuf_adds(sb, " (no registry was given, so the display adapters are not known)");
		return;
	}
	for (i = 0; i < g->nadapters; i++) {
		const struct gpu_adapter *a = &g->adapters[i];
		strbuf_adds(sb, n++ ? "; " : " The display adapters' drivers: ");
		strbuf_addf(sb, "%s (%s, driver %s)", a->description ? a->description : "an adapter",
			    a->provider ? a->provider : "no provider", a->driver_version ? a->driver_version : "?");
	}
	if (!n)
		strbuf_adds(sb, " No display adapter has a driver key in the registry.");
	else
		strbuf_adds(sb, ".");
}

/* ---- the matrix's table ---- */

int cuda_need_find(const struct matrix *m, unsigned major, unsigned minor, struct cuda_need *out)
{
	const struct matrix_cuda *c;
	if (!m || !m->ncuda)
		return -1;
	if (!(c = matrix_cuda_find(m, major, minor)))
		return 0;
	memset(out, 0, sizeof(*out));
	out->major = major;
	out->minor = minor;
	out->driver.major = c->driver[0];
	out->driver.minor = c->driver[1];
	if (c->floor_text) {
		out->has_floor = 1;
		out->floor.major = c->floor[0];
		out->floor.minor = c->floor[1];
	}
	out->file = c->pos.file;
	out->line = c->pos.line;
	out->source = c->sources.n ? c->sources.v[0] : NULL;
	return 1;
}

/* ---- the loader's view of nvcuda.dll ---- */

struct nvcuda_use {
	const char *binary;        /* the torch binary that imports it (basename), or NULL */
	int delay;                 /* through a delay-load import */
	const char *found_at;      /* where the search found an nvcuda.dll (not System32's), or NULL */
	const struct ldr_node *node; /* the node that maps it, its imports as kids, or NULL */
};

static void walk_nvcuda(const struct ldr_node *n, const char *bin, struct nvcuda_use *u, int depth)
{
	size_t i;
	if (!n || depth > 64)
		return;
	if (n->name && !str_icmp(winpath_basename(n->name), "nvcuda.dll")) {
		if (!u->binary || (u->delay && !n->delay)) {
			u->binary = bin;
			u->delay = n->delay;
		}
		if (n->path && !u->found_at)
			u->found_at = n->path;
		if (n->path && !n->dup && !u->node)
			u->node = n;
	}
	for (i = 0; i < n->nkids; i++)
		walk_nvcuda(n->kids[i], bin, u, depth + 1);
}

static void nvcuda_use_of(const struct torch_run *run, struct nvcuda_use *u)
{
	size_t i;
	memset(u, 0, sizeof(*u));
	for (i = 0; run && i < run->nbins; i++)
		walk_nvcuda(run->bins[i].res.root, winpath_basename(run->bins[i].path), u, 0);
}

/* ---- the findings ---- */

/*
 * A translation layer (rules.def, cuda-translated): the nvcuda.dll the search
 * maps imports a DLL the matrix's vendor_dlls gives to what another vendor's
 * driver or SDK installs (ZLUDA's nvcuda.dll links amdhip64: vosen/ZLUDA
 * hip_runtime-sys/build.rs). That entry, and the import's node in *imp.
 */
static const struct matrix_vendor *translated(const struct matrix *m, const struct nvcuda_use *u,
					      const struct ldr_node **imp)
{
	size_t i;
	*imp = NULL;
	for (i = 0; u->node && i < u->node->nkids; i++) {
		const struct ldr_node *k = u->node->kids[i];
		const struct matrix_vendor *x = k->name ? matrix_vendor_of(m, winpath_basename(k->name)) : NULL;
		if (x && x->driver) {
			*imp = k;
			return x;
		}
	}
	return NULL;
}

/* The layer said as what it is; an error with the vendor's fix when what it imports is missing. */
static void translated_finding(struct findings *out, const struct build *b, const struct nvcuda_use *u,
			       const struct matrix_vendor *x, const struct ldr_node *imp, const char *install)
{
	char *rel = release_text(b), *title, *msg;
	const char *name = winpath_basename(imp->name);
	if (imp->path) {
		title = xasprintf("%s of torch runs on a translation layer: %s is not NVIDIA's nvcuda.dll (it imports %s)",
				  rel, u->node->path, name);
		msg = xasprintf("The nvcuda.dll the search finds, %s (version resource: %s), imports %s, found at %s: a "
				"layer such as ZLUDA that runs CUDA calls on the %s stack (%s comes with %s), not "
				"NVIDIA's driver, which never imports it. The NVIDIA driver is neither needed nor "
				"checked; what the layer imports was judged by the loader.",
				u->node->path, u->node->version ? u->node->version : "none", name, imp->path, x->stack,
				name, x->driver);
		finding_add(out, RULE_CUDA_TRANSLATED, SEV_NOTE,
			    &(struct finding_spec){ .title = title, .message = msg, .install = install,
						    .leaf = "nvcuda.dll", .path = u->node->path });
	} else {
		title = xasprintf("%s of torch on a translation layer (%s) without %s", rel, u->node->path, name);
		msg = xasprintf("The nvcuda.dll the search finds, %s (version resource: %s), is not NVIDIA's: it imports "
				"%s, which comes with %s (%s stack) and is found nowhere on the search path: %s. "
				"`import torch` loads (caffe2_nvrtc.dll delay-loads nvcuda.dll), but CUDA fails to "
				"start: torch.cuda.is_available() is False.",
				u->node->path, u->node->version ? u->node->version : "none", name, x->driver, x->stack,
				x->why);
		finding_add(out, RULE_CUDA_TRANSLATED, SEV_ERROR,
			    &(struct finding_spec){ .winerror = 126, .title = title, .message = msg, .fix = x->fix,
						    .install = install, .leaf = name, .path = u->node->path,
						    .probes = imp });
	}
	free(title);
	free(msg);
	free(rel);
}

/* Whether the build is a torch older than 1.6 (its version known). */
static int torch_before_1_6(const struct build *b)
{
	struct pep440 v, first_delay;
	return b->public_version && pep440_parse(&v, b->public_version, NULL) == 0 &&
	       pep440_parse(&first_delay, "1.6", NULL) == 0 && pep440_cmp(&v, &first_delay) < 0;
}

static void no_driver(struct findings *out, const struct build *b, const struct cuda_need *need, int has_need,
		      const struct gpu_driver *g, const struct nvcuda_use *u, const char *install)
{
	struct strbuf msg, fix;
	char *rel = release_text(b), *dfix = driver_fix(b, need, has_need, "install"), *cfix = cpu_fix(b);
	char *title;
	strbuf_init(&msg);
	strbuf_init(&fix);
	strbuf_addf(&msg, "This is %s of torch%s%s; ", rel, b->version ? " " : "", b->version ? b->version : "");
	if (u->binary)
		strbuf_addf(&msg, "%s needs nvcuda.dll, ", u->binary);
	else
		strbuf_adds(&msg, "its CUDA runtime (cudart64_*.dll) loads nvcuda.dll when CUDA starts, ");
	if (g->nvcuda_path) {
		strbuf_addf(&msg, "which only the NVIDIA display driver installs, and %s is not usable: %s. ", g->nvcuda_path,
			    g->nvcuda_error ? g->nvcuda_error : "unreadable");
		title = xasprintf("%s of torch and %s is not a usable NVIDIA driver file", rel, g->nvcuda_path);
	} else {
		strbuf_adds(&msg, "which only the NVIDIA display driver installs (System32), and this machine has none. ");
		title = xasprintf("%s of torch on a machine without the NVIDIA driver (no nvcuda.dll)", rel);
	}
	if (u->binary && !u->delay)
		/* "torch 1.5 and older" only where it is that torch (caffe2_nvrtc's static import; pytorch#37811) */
		strbuf_addf(&msg, "%s imports it statically%s: `import torch` fails with [WinError 126] naming %s.",
			    u->binary,
			    !str_icmp(u->binary, "caffe2_nvrtc.dll") && torch_before_1_6(b) ? " (torch 1.5 and older)"
				    : " (through its imports, not a delay-load)",
			    u->binary);
	else
		strbuf_adds(&msg, "`import torch` loads (caffe2_nvrtc.dll delay-loads nvcuda.dll since torch 1.6), "
				  "but torch.cuda.is_available() is False and every CUDA call fails.");
	if (u->found_at && (!g->nvcuda_path || str_icmp(u->found_at, g->nvcuda_path)))
		strbuf_addf(&msg, " The nvcuda.dll the search finds at %s is not the NVIDIA driver's (it installs "
				  "into System32): a copied file or another project's stand-in (ZLUDA's).",
			    u->found_at);
	adapters_text(&msg, g);
	strbuf_addf(&fix, "%s, or %s", dfix, cfix);
	finding_add(out, RULE_CUDA_NO_DRIVER, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg.buf, .fix = fix.buf, .install = install,
					    .leaf = "nvcuda.dll", .path = g->nvcuda_path });
	free(title);
	free(rel);
	free(dfix);
	free(cfix);
	strbuf_release(&msg);
	strbuf_release(&fix);
}

/* Adds the driver findings of a build (no driver, too old, unverified); returns how many. */
static size_t driver_findings(struct findings *out, const struct matrix *m, const struct gpu_driver *g,
			      const struct build *b, const struct nvcuda_use *u, const char *install)
{
	struct cuda_need need;
	int has_need = 0, table = 0;
	size_t before = out->n;
	memset(&need, 0, sizeof(need));
	if (b->has_release) {
		int r = cuda_need_find(m, b->major, b->minor, &need);
		table = r >= 0;
		has_need = r == 1;
	}
	if (!g->nvcuda_path || g->nvcuda_error) {
		no_driver(out, b, &need, has_need, g, u, install);
		return out->n - before;
	}
	if (b->has_release && table && !has_need) {
		char *title = xasprintf("torch %s: CUDA %u.%u is not in the matrix's table of NVIDIA driver minimums",
					b->version ? b->version : "", b->major, b->minor);
		char *msg = xasprintf("The variant %s names CUDA %u.%u, which the matrix does not know (PyTorch's "
				      "Windows builds are cu118, cu121, cu124, cu126, cu128, ...): the NVIDIA driver it "
				      "needs cannot be checked.",
				      b->variant[0] ? b->variant : "of this build", b->major, b->minor);
		finding_add(out, RULE_CUDA_DRIVER_UNVERIFIED, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg,
						    .fix = "check the torch pin's variant, or add the CUDA release to "
							   "the matrix (matrix/README.md, `cuda`)",
						    .install = install });
		free(title);
		free(msg);
	}
	if (!g->has_driver) {
		char *title = xasprintf("the NVIDIA driver's version cannot be told: %s", g->version_problem
											    ? g->version_problem
											    : "no version resource");
		char *msg = xasprintf("%s is present, but its version resource does not give an NVIDIA driver version "
				      "(%s), so whether it is new enough for %s cannot be checked.",
				      g->nvcuda_path, g->version_problem ? g->version_problem : "none",
				      b->has_release ? "this CUDA release" : "this build");
		char *fix = driver_fix(b, &need, has_need, "reinstall");
		finding_add(out, RULE_CUDA_DRIVER_UNVERIFIED, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = install,
						    .leaf = "nvcuda.dll", .path = g->nvcuda_path });
		free(title);
		free(msg);
		free(fix);
		return out->n - before;
	}
	if (has_need && nv_driver_cmp(&g->driver, &need.driver) < 0) {
		int below_floor = need.has_floor && nv_driver_cmp(&g->driver, &need.floor) < 0;
		char *have = nv_driver_str(&g->driver), *want = nv_driver_str(&need.driver);
		char *floor = need.has_floor ? nv_driver_str(&need.floor) : NULL;
		char *title = xasprintf("NVIDIA driver %s is older than CUDA %u.%u needs (>= %s)", have, b->major,
					b->minor, want);
		char *msg, *fix = driver_fix(b, &need, has_need, "update to");
		if (below_floor)
			msg = xasprintf("System32\\nvcuda.dll is from NVIDIA driver %s; CUDA %u.%u needs >= %s (NVIDIA's "
					"toolkit driver), and CUDA %u.x runs on no driver older than %s (minor version "
					"compatibility): `import torch` loads, torch.cuda.is_available() is False.",
					have, b->major, b->minor, want, b->major, floor);
		else
			msg = xasprintf("System32\\nvcuda.dll is from NVIDIA driver %s; CUDA %u.%u's toolkit driver is %s. "
					"CUDA %u.x runs on drivers from %s through minor version compatibility, with a "
					"limited feature set (no JIT of PTX newer than the driver).",
					have, b->major, b->minor, want, b->major, floor ? floor : "its first release");
		finding_add(out, RULE_CUDA_DRIVER_TOO_OLD, below_floor ? SEV_WARNING : SEV_NOTE,
			    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = install,
						    .leaf = "nvcuda.dll", .path = g->nvcuda_path });
		free(have);
		free(want);
		free(floor);
		free(title);
		free(msg);
		free(fix);
	}
	return out->n - before;
}

/* ---- builds PyTorch published (the `published` specifiers) ---- */

/* Whether entry c says torch v was published for its CUDA release. */
static int entry_publishes(const struct matrix_cuda *c, const struct pep440 *v, const char *raw)
{
	return c->published_text && !c->published_none && pep440_spec_contains(&c->published, v, raw);
}

/*
 * A CUDA build of a torch release the table covers that no entry publishes for its CUDA release:
 * cuda-variant-unpublished, an error on a pin (pip finds no such wheel), a warning on an install.
 */
static size_t unpublished_finding(struct findings *out, const struct matrix *m, const struct build *b,
				  const char *install, int pin)
{
	struct pep440 v;
	struct strbuf names, msg;
	const struct matrix_cuda *own = NULL;
	char var[32], *title, *fix;
	size_t i, covered = 0;
	if (!m || !b->has_release || !b->public_version || pep440_parse(&v, b->public_version, NULL))
		return 0;
	strbuf_init(&names);
	for (i = 0; i < m->ncuda; i++) {
		const struct matrix_cuda *c = &m->cuda[i];
		if (c->major == b->major && c->minor == b->minor)
			own = c;
		if (entry_publishes(c, &v, b->public_version))
			strbuf_addf(&names, "%scu%u%u", covered++ ? ", " : "", c->major, c->minor);
	}
	/* an entry without `published` says nothing (a --matrix layer's entry may omit it) */
	if (!covered || (own && (!own->published_text || entry_publishes(own, &v, b->public_version)))) {
		strbuf_release(&names);
		return 0;
	}
	if (b->variant[0])
		snprintf(var, sizeof(var), "%s", b->variant);
	else
		snprintf(var, sizeof(var), "cu%u%u", b->major, b->minor);
	strbuf_init(&msg);
	title = xasprintf("torch %s+%s: PyTorch published no Windows build of torch %s for CUDA %u.%u",
			  b->public_version, var, b->public_version, b->major, b->minor);
	strbuf_addf(&msg, "PyTorch's Windows builds of torch %s are %s (the matrix's `cuda` table, `published`); ",
		    b->public_version, names.buf);
	if (own && !own->published_none)
		strbuf_addf(&msg, "its CUDA %u.%u builds are of torch %s (%s:%u). ", b->major, b->minor,
			    own->published_text, own->pos.file ? own->pos.file : "?", own->pos.line);
	else if (own)
		strbuf_addf(&msg, "PyTorch published no Windows build for CUDA %u.%u (%s:%u). ", b->major, b->minor,
			    own->pos.file ? own->pos.file : "?", own->pos.line);
	else
		strbuf_addf(&msg, "CUDA %u.%u is no release the table knows. ", b->major, b->minor);
	if (pin)
		strbuf_adds(&msg, "pip finds no matching distribution for this pin on download.pytorch.org.");
	else
		strbuf_adds(&msg, "This install is not a build PyTorch published (a local build, another "
				  "distributor's, or a relabelled one): what the matrix says of PyTorch's builds may "
				  "not hold for it.");
	fix = xasprintf("use a build PyTorch published: torch==%s with one of %s (pip install torch==%s "
			"--index-url https://download.pytorch.org/whl/<variant>)%s%s",
			b->public_version, names.buf, b->public_version,
			own && !own->published_none ? ", or a torch release with a CUDA build of this release: " : "",
			own && !own->published_none ? own->published_text : "");
	finding_add(out, RULE_CUDA_VARIANT_UNPUBLISHED, pin ? SEV_ERROR : SEV_WARNING,
		    &(struct finding_spec){ .title = title, .message = msg.buf, .fix = fix, .install = install });
	free(title);
	free(fix);
	strbuf_release(&msg);
	strbuf_release(&names);
	return 1;
}

/* The loader's own words about a missing nvcuda.dll: replaced (delay-load) or given the driver fix (static). */
static void fold_loader_findings(struct findings *out, size_t from, const char *install, const struct build *b)
{
	size_t i = 0;
	char *fix = NULL;
	while (i < out->n) {
		struct finding *f = &out->v[i];
		if (i >= from || !f->leaf || str_icmp(f->leaf, "nvcuda.dll") || !f->install ||
		    str_icmp(f->install, install)) {
			i++;
			continue;
		}
		if (f->rule == RULE_DELAY_LOAD_MISSING && !f->symbol) {
			findings_remove(out, i);
			from--;
			continue;
		}
		if (f->rule == RULE_MISSING_DLL) {
			if (!fix)
				fix = xasprintf("install the NVIDIA display driver (nvcuda.dll comes only with it), or the "
						"CPU build of torch%s%s",
						b->public_version ? " " : "", b->public_version ? b->public_version : "");
			finding_set(&f->fix, fix);
		}
		i++;
	}
	free(fix);
}

/* ---- CUDA libraries from outside torch\lib ---- */

/*
 * The CUDA libraries of this build, from the matrix: the `dlls` list of its CUDA release, or, when
 * that release has none (or is unknown), every release's lists. A name is a CUDA library only if a
 * list names it: cudart64_12_shim.dll is not cudart64_12.dll.
 */
static void cuda_dll_names(const struct matrix *m, const struct build *b, struct strlist *names)
{
	const struct matrix_cuda *own = b->has_release && m ? matrix_cuda_find(m, b->major, b->minor) : NULL;
	size_t i, k;
	if (own && own->dlls.n) {
		for (k = 0; k < own->dlls.n; k++)
			strlist_push(names, own->dlls.v[k]);
		return;
	}
	for (i = 0; m && i < m->ncuda; i++)
		for (k = 0; k < m->cuda[i].dlls.n; k++)
			if (!strlist_has_icase(names, m->cuda[i].dlls.v[k]))
				strlist_push(names, m->cuda[i].dlls.v[k]);
}

static void walk_outside(struct findings *out, const struct torch_run *run, const char *lib, const char *bin,
			 const struct ldr_node *n, struct strlist *seen, const struct strlist *names, int depth)
{
	size_t i;
	if (!n || depth > 64)
		return;
	if (depth > 0 && n->path && !n->dup && strlist_has_icase(names, winpath_basename(n->path))) {
		char *dir = winpath_dirname(n->path);
		if (str_icmp(dir, lib) && !strlist_has_icase(seen, n->path)) {
			char *own = winpath_join(lib, winpath_basename(n->name)), *title, *msg, *fix;
			int has_own = 0;
			size_t k;
			for (k = 0; k < run->nbins; k++)
				if (!str_icmp(run->bins[k].path, own))
					has_own = 1;
			strlist_push(seen, n->path);
			title = xasprintf("%s would load %s from %s, not from torch\\lib", bin, winpath_basename(n->path),
					  dir);
			msg = xasprintf("%s imports %s; the copy it binds to is %s (%s%s%s). torch's CUDA libraries "
					"come from one CUDA build: %s.",
					bin, n->name, n->path,
					n->preloaded ? "already loaded by the process" : "found by the search step ",
					n->preloaded ? "" : n->via ? n->via : "?", n->version ? "" : "",
					has_own ? "torch\\lib has its own copy, which this one shadows"
						: "torch\\lib has no copy of it (a partial or damaged install)");
			fix = has_own ? xasprintf("remove %s from the search path, or take it off PATH", dir)
				      : xasprintf("reinstall torch so that torch\\lib has its own %s", winpath_basename(n->name));
			finding_add(out, RULE_CUDA_DLL_OUTSIDE_TORCH, SEV_DEFAULT,
				    &(struct finding_spec){ .title = title, .message = msg, .fix = fix,
							    .install = run->torch_dir, .binary = bin,
							    .leaf = winpath_basename(n->path), .path = n->path, .chain = n,
							    .probes = n });
			free(title);
			free(msg);
			free(fix);
			free(own);
		}
		free(dir);
	}
	for (i = 0; i < n->nkids; i++)
		walk_outside(out, run, lib, bin, n->kids[i], seen, names, depth + 1);
}

static void outside_findings(struct findings *out, const struct matrix *m, const struct build *b,
			     const struct torch_run *run)
{
	struct strlist seen = STRLIST_INIT, names = STRLIST_INIT;
	char *lib = winpath_join(run->torch_dir, "lib");
	size_t i;
	cuda_dll_names(m, b, &names);
	for (i = 0; names.n && i < run->nbins; i++)
		walk_outside(out, run, lib, winpath_basename(run->bins[i].path), run->bins[i].res.root, &seen, &names,
			     0);
	free(lib);
	strlist_release(&seen);
	strlist_release(&names);
}

/* ---- entry points ---- */

int cuda_judge_install(struct findings *out, const struct matrix *m, const struct gpu_driver *gpu,
		       const struct inv_install *install, const struct torch_run *run, struct err *err)
{
	struct build b;
	struct nvcuda_use u;
	size_t before = out->n;
	(void)err;
	build_of_install(&b, install, run);
	nvcuda_use_of(run, &u);
	if (b.cuda) {
		const struct ldr_node *imp;
		const struct matrix_vendor *x = translated(m, &u, &imp);
		unpublished_finding(out, m, &b, run->torch_dir, 0);
		if (x) {
			/* ZLUDA's nvcuda.dll: judged by what it imports, never "install the NVIDIA driver" */
			translated_finding(out, &b, &u, x, imp, run->torch_dir);
		} else {
			driver_findings(out, m, gpu, &b, &u, run->torch_dir);
			if (!gpu->nvcuda_path || gpu->nvcuda_error)
				fold_loader_findings(out, before, run->torch_dir, &b);
		}
		outside_findings(out, m, &b, run);
	}
	build_release(&b);
	return 0;
}

size_t cuda_judge_pin(struct findings *out, const struct matrix *m, const struct gpu_driver *gpu,
		      const char *version, const char *variant)
{
	struct build b;
	struct nvcuda_use u;
	size_t n = 0;
	memset(&b, 0, sizeof(b));
	memset(&u, 0, sizeof(u));
	b.version = version ? xstrdup(version) : NULL;
	b.public_version = public_of(version);
	if (!from_variant(&b, variant) && version) {
		const char *plus = strchr(version, '+');
		if (plus)
			from_variant(&b, plus + 1);
	}
	if (b.cuda) {
		struct pep440 v, first_delay;
		u.binary = "caffe2_nvrtc.dll";
		/* the static import of torch 1.5 and older (pytorch#37811 came with 1.6) */
		u.delay = !(b.public_version && pep440_parse(&v, b.public_version, NULL) == 0 &&
			    pep440_parse(&first_delay, "1.6", NULL) == 0 && pep440_cmp(&v, &first_delay) < 0);
		n = unpublished_finding(out, m, &b, NULL, 1);
		n += driver_findings(out, m, gpu, &b, &u, NULL);
	}
	build_release(&b);
	return n;
}

void cuda_gate_target(struct findings *out, const struct torch_target *t, const struct matrix *m,
		      const struct gpu_driver *gpu)
{
	const char *version = t->version ? t->version : t->pin ? t->pin->raw : NULL;
	size_t before = out->n, i;
	cuda_judge_pin(out, m, gpu, t->version, t->variant);
	for (i = before; i < out->n; i++) {
		char *msg;
		if (t->pin)
			finding_anchor(&out->v[i], t->pin->file, t->pin->line, t->pin->col);
		msg = xasprintf("%s The pin: %s (%s:%u), judged before torch is installed.", out->v[i].message,
				version ? version : "torch", t->pin ? t->pin->file : t->file, t->pin ? t->pin->line : 0);
		finding_set(&out->v[i].message, msg);
		free(msg);
	}
}
