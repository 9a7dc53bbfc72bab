/*
 * inventory: the torch installs on the machine being checked, and the
 * inventory's lifecycle (see inventory.h for what each part reports). The
 * other parts have files of their own: inventory_redist.c (the
 * redistributable keys), inventory_dlls.c (the runtime DLLs),
 * inventory_parse.c (version.py, METADATA and pyvenv.cfg as text) and
 * inventory_json.c (the report's `inventory` object).
 *
 * Design notes, and where this departs from what Windows or pip do:
 *   - A venv's python.exe (Scripts\python.exe) is a launcher that starts the
 *     base interpreter: the application directory the loader searches is the
 *     base install's (pyvenv.cfg `home`), so that is the "python" folder for
 *     runtime DLLs. https://docs.python.org/3/library/venv.html
 *   - torch's version: torch\version.py (`__version__`) is what `import
 *     torch` reports; the dist-info METADATA is what pip believes. They
 *     disagree when files of two installs are mixed, which is exactly the
 *     state that produces WinError 127 — a note, not a guess at which wins.
 *   - The variant comes from the local version label (+cpu, +cu121,
 *     +rocm6.1), else version.py's `cuda`, else CUDA DLLs in torch\lib.
 */
#include "machine/inventory.h"

#include <stdlib.h>
#include <string.h>

#include "util/os.h"
#include "pe/pe.h"
#include "machine/view.h"
#include "util/text.h"
#include "util/version.h"


static const char *const redist_archs[3] = { "x64", "x86", "arm64" };

void inventory_init(struct inventory *inv)
{
	size_t i;
	memset(inv, 0, sizeof(*inv));
	for (i = 0; i < 3; i++) {
		inv->redist[i].arch = redist_archs[i];
		inv->redist[i].installed_value = -1;
		strlist_init(&inv->redist[i].notes);
	}
	strlist_init(&inv->notes);
	gpu_driver_init(&inv->gpu);
}

static void redist_release(struct inv_redist *r)
{
	free(r->version);
	free(r->version_raw);
	free(r->key);
	strlist_release(&r->notes);
}

static void install_release(struct inv_install *in)
{
	free(in->torch_dir);
	free(in->site_packages);
	free(in->kind);
	free(in->prefix);
	free(in->python);
	free(in->base_python_dir);
	free(in->python_version);
	free(in->pyd_tag);
	free(in->arch);
	free(in->version);
	free(in->metadata_version);
	free(in->dist_info);
	free(in->cuda);
	free(in->variant);
	strlist_release(&in->cuda_dlls);
	strlist_release(&in->dll_dirs);
	strlist_release(&in->notes);
}

void inventory_release(struct inventory *inv)
{
	size_t i;
	for (i = 0; i < 3; i++)
		redist_release(&inv->redist[i]);
	for (i = 0; i < inv->ndlls; i++) {
		free(inv->dlls[i].name);
		free(inv->dlls[i].path);
		free(inv->dlls[i].where);
		free(inv->dlls[i].error);
	}
	free(inv->dlls);
	for (i = 0; i < inv->ninstalls; i++)
		install_release(&inv->installs[i]);
	free(inv->installs);
	strlist_release(&inv->notes);
	free(inv->redist_source);
	gpu_driver_release(&inv->gpu);
	memset(inv, 0, sizeof(*inv));
}

/* ---------- small view helpers ---------- */

/* Reads a small text file at a Windows path. 1 absent, 0 read, -1 error. */
static int read_text(struct view *v, const char *winpath, struct strbuf *out, struct err *err)
{
	char *host;
	int r;
	if (!view_is_file(v, winpath))
		return 1;
	host = view_host_path(v, winpath);
	if (!host)
		return 1;
	r = os_read_file(host, INV_MAX_TEXT, out, err);
	free(host);
	return r;
}

static int is_dir_at(struct view *v, const char *dir, const char *name)
{
	char *p = winpath_join(dir, name);
	int r = view_is_dir(v, p);
	free(p);
	return r;
}

static int is_file_at(struct view *v, const char *dir, const char *name)
{
	char *p = winpath_join(dir, name);
	int r = view_is_file(v, p);
	free(p);
	return r;
}

/* Whether the folder at a Windows path is a link or junction on the host. */
/* Asked before view_is_dir: a walk that skips links never follows one, in the root or out of it. */
static int is_link(struct view *v, const char *winpath)
{
	return view_is_link(v, winpath);
}

/* "python311.dll" → "3.11"; NULL for anything else (python3.dll is the stable ABI shim). */
static char *pydll_version(const char *name)
{
	size_t n = strlen(name), i;
	if (n < 13 || str_nicmp(name, "python3", 7) || !str_iendswith(name, ".dll"))
		return NULL;
	for (i = 7; i < n - 4; i++)
		if (name[i] < '0' || name[i] > '9')
			return NULL;
	return xasprintf("3.%.*s", (int)(n - 4 - 7), name + 7);
}

/* The Python version from a python3XY.dll in dir, or NULL. */
static char *python_version_in(struct view *v, const char *dir)
{
	struct strlist names = STRLIST_INIT;
	struct err err;
	char *ver = NULL;
	size_t i;
	if (view_list_dir(v, dir, &names, &err) == 0)
		for (i = 0; i < names.n && !ver; i++)
			ver = pydll_version(names.v[i]);
	strlist_release(&names);
	return ver;
}

static const char *machine_arch(uint16_t m)
{
	switch (m) {
	case PE_MACHINE_AMD64:
		return "x64";
	case PE_MACHINE_I386:
		return "x86";
	case PE_MACHINE_ARM64:
		return "arm64";
	default:
		return NULL;
	}
}

/* ---------- torch installs ---------- */

/* One value of a venv's pyvenv.cfg (inventory_pyvenv_value), or NULL; a file that cannot be read is a note. */
static char *pyvenv_value(struct view *v, const char *prefix, const char *key, struct strlist *notes)
{
	struct strbuf sb = STRBUF_INIT;
	struct err err;
	char *cfg = winpath_join(prefix, "pyvenv.cfg"), *out = NULL;
	int r = read_text(v, cfg, &sb, &err);
	if (r < 0 && notes)
		strlist_pushf(notes, "cannot read %s: %s", cfg, err.msg);
	if (r == 0)
		out = inventory_pyvenv_value(sb.buf, sb.len, key);
	strbuf_release(&sb);
	free(cfg);
	return out;
}

static void read_pyvenv(struct view *v, const char *prefix, struct inv_install *in)
{
	char *home = pyvenv_value(v, prefix, "home", &in->notes), *ver;
	if (home) {
		free(in->base_python_dir);
		in->base_python_dir = winpath_normalize(home);
		free(home);
	}
	ver = pyvenv_value(v, prefix, "version", NULL);
	if (!ver)
		ver = pyvenv_value(v, prefix, "version_info", NULL);
	if (ver && !in->python_version) {
		/* "3.11.4" or "3.11.4.final.0" → "3.11" */
		char *d1 = strchr(ver, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
		if (d2)
			*d2 = '\0';
		in->python_version = ver;
		ver = NULL;
	}
	free(ver);
}

static void add_dll_dir(struct inv_install *in, const char *label, const char *dir)
{
	size_t i;
	for (i = 0; i < in->dll_dirs.n; i++)
		if (!str_icmp(strchr(in->dll_dirs.v[i], '\t') + 1, dir))
			return;
	strlist_pushf(&in->dll_dirs, "%s\t%s", label, dir);
}

/* Where the environment of a site-packages folder is, and its python.exe. */
static void describe_env(struct view *v, struct inv_install *in)
{
	char *parent = winpath_dirname(in->site_packages);
	const char *pbase = parent ? winpath_basename(parent) : "";
	if (parent && !str_icmp(pbase, "Lib")) {
		char *prefix = winpath_dirname(parent);
		in->prefix = prefix;
		if (prefix && is_file_at(v, prefix, "pyvenv.cfg")) {
			char *scripts = winpath_join(prefix, "Scripts");
			in->kind = xstrdup("venv");
			if (is_file_at(v, scripts, "python.exe"))
				in->python = winpath_join(scripts, "python.exe");
			free(scripts);
			read_pyvenv(v, prefix, in);
		} else if (prefix && is_file_at(v, prefix, "python.exe")) {
			in->python = winpath_join(prefix, "python.exe");
			in->kind = xstrdup(is_dir_at(v, prefix, "conda-meta") ? "conda" : "system");
		} else {
			in->kind = xstrdup("unknown");
		}
	} else if (parent && !str_nicmp(pbase, "Python3", 7) && strlen(pbase) > 7) {
		/* %APPDATA%\Python\Python311\site-packages (pip install --user) */
		in->kind = xstrdup("user-site");
		in->python_version = xasprintf("3.%s", pbase + 7);
	} else {
		in->kind = xstrdup("unknown");
	}
	free(parent);

	if (in->python) {
		char *pydir = winpath_dirname(in->python);
		if (!in->python_version)
			in->python_version = python_version_in(v, in->base_python_dir ? in->base_python_dir : pydir);
		/* a venv launcher runs the base python.exe: that is the application directory */
		add_dll_dir(in, "python", in->base_python_dir ? in->base_python_dir : pydir);
		free(pydir);
	}
	{
		char *lib = winpath_join(in->torch_dir, "lib");
		add_dll_dir(in, "torch\\lib", lib);
		free(lib);
	}
	if (in->prefix && is_dir_at(v, in->prefix, "Library\\bin")) {
		char *lb = winpath_join(in->prefix, "Library\\bin");
		add_dll_dir(in, "Library\\bin", lb);
		free(lb);
	}
	if (in->base_python_dir && is_dir_at(v, in->base_python_dir, "Library\\bin")) {
		char *lb = winpath_join(in->base_python_dir, "Library\\bin");
		add_dll_dir(in, "Library\\bin", lb);
		free(lb);
	}
}

/* torch\_C.cp311-win_amd64.pyd → tag cp311, arch x64. */
static void read_pyd_tags(struct view *v, struct inv_install *in, const struct strlist *names)
{
	size_t i;
	for (i = 0; i < names->n; i++) {
		const char *nm = names->v[i], *dash, *dot;
		char *tag, *plat;
		const char *arch = NULL;
		if (str_nicmp(nm, "_C.cp", 5) || !str_iendswith(nm, ".pyd"))
			continue;
		dash = strchr(nm + 3, '-');
		if (!dash)
			continue;
		dot = strrchr(nm, '.');
		tag = xstrndup(nm + 3, (size_t)(dash - nm - 3));
		plat = xstrndup(dash + 1, (size_t)(dot - dash - 1));
		if (!str_icmp(plat, "win_amd64"))
			arch = "x64";
		else if (!str_icmp(plat, "win32"))
			arch = "x86";
		else if (!str_icmp(plat, "win_arm64"))
			arch = "arm64";
		if (in->pyd_tag && str_icmp(in->pyd_tag, tag)) {
			strlist_pushf(&in->notes, "torch has _C extensions for two Pythons: %s and %s", in->pyd_tag, tag);
		} else if (!in->pyd_tag) {
			in->pyd_tag = tag;
			tag = NULL;
			if (arch)
				in->arch = xstrdup(arch);
		}
		free(tag);
		free(plat);
	}
	if (!in->pyd_tag)
		strlist_pushf(&in->notes, "no torch\\_C.*.pyd: this torch cannot be imported");
	(void)v;
}

static int is_cuda_dll(const char *n)
{
	static const char *const pre[] = { "cudart64_", "cublas64_", "cublasLt64_", "cudnn", "cufft64_",
					   "curand64_", "cusparse64_", "cusolver64_", "nvrtc64_", "amdhip64" };
	size_t i;
	if (!str_iendswith(n, ".dll"))
		return 0;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (str_istartswith(n, pre[i]))
			return 1;
	return 0;
}

/*
 * Whether torch\version.py's version and the dist-info's belong to two
 * installs. torch's own wheels write the build's local label into
 * version.py ("2.5.1+cpu") but PyPI's wheels are named without it, so their
 * dist-info says "2.5.1" (measured on PyPI's win_amd64 wheels 1.7.1 to
 * 2.15.0); the CPU and CUDA indexes name theirs with the label
 * ("2.5.1+cpu", "2.5.1+cu121"), so both agree. A mix is: other public
 * versions, or two different local labels.
 */
static int versions_mixed(const char *version_py, const char *dist_info)
{
	const char *pl = strchr(version_py, '+'), *dl = strchr(dist_info, '+');
	size_t pn = pl ? (size_t)(pl - version_py) : strlen(version_py);
	size_t dn = dl ? (size_t)(dl - dist_info) : strlen(dist_info);
	if (pn != dn || strncmp(version_py, dist_info, pn))
		return 1;
	return pl && dl && strcmp(pl, dl);
}

/* The dist-info folders of torch in site-packages: "torch-2.4.0.dist-info". */
static void read_dist_info(struct view *v, struct inv_install *in)
{
	struct strlist names = STRLIST_INIT, found = STRLIST_INIT;
	struct err err;
	size_t i;
	int best = 0;
	if (view_list_dir(v, in->site_packages, &names, &err)) {
		strlist_pushf(&in->notes, "cannot list %s: %s", in->site_packages, err.msg);
		return;
	}
	for (i = 0; i < names.n; i++) {
		const char *nm = names.v[i];
		if (!str_nicmp(nm, "torch-", 6) && nm[6] >= '0' && nm[6] <= '9' && str_iendswith(nm, ".dist-info"))
			strlist_push(&found, nm);
	}
	if (found.n > 1) {
		struct strbuf sb = STRBUF_INIT;
		for (i = 0; i < found.n; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", found.v[i]);
		strlist_pushf(&in->notes, "%zu torch dist-info folders (%s): an upgrade left one behind, pip may be confused",
			      found.n, sb.buf);
		strbuf_release(&sb);
	}
	for (i = 0; i < found.n; i++) {
		struct strbuf text = STRBUF_INIT;
		char *dir = winpath_join(in->site_packages, found.v[i]);
		char *meta = winpath_join(dir, "METADATA");
		char *ver = NULL;
		int r = read_text(v, meta, &text, &err), score;
		if (r == 1)
			strlist_pushf(&in->notes, "%s has no METADATA", dir);
		else if (r < 0 || inventory_parse_metadata(text.buf, text.len, meta, &ver, &err))
			strlist_pushf(&in->notes, "%s", err.msg);
		/*
		 * Which record belongs to this torch: the folder pip named after
		 * version.py's version, else a METADATA agreeing with version.py,
		 * else the first readable one.
		 */
		score = !ver ? 0 : 1;
		if (ver && in->version && (!strcmp(ver, in->version) || !versions_mixed(in->version, ver)))
			score = 2; /* PyPI's "2.9.1" is version.py's "2.9.1+cpu" (versions_mixed) */
		if (ver && in->version && strlen(found.v[i]) == 6 + strlen(in->version) + 10 &&
		    !strncmp(found.v[i] + 6, in->version, strlen(in->version)))
			score = 3;
		if (score > best) {
			best = score;
			free(in->metadata_version);
			free(in->dist_info);
			in->metadata_version = ver;
			in->dist_info = dir;
			dir = NULL;
			ver = NULL;
		}
		free(ver);
		free(dir);
		free(meta);
		strbuf_release(&text);
	}
	if (!found.n)
		strlist_pushf(&in->notes, "no torch-*.dist-info in %s: not installed by pip (copied, or a development build)",
			      in->site_packages);
	strlist_release(&found);
	strlist_release(&names);
}

static void decide_variant(struct inv_install *in)
{
	const char *plus = in->version ? strchr(in->version, '+') : NULL;
	if (!plus && in->metadata_version)
		plus = strchr(in->metadata_version, '+');
	if (plus && plus[1]) {
		const char *label = plus + 1;
		if (!str_icmp(label, "cpu") || !str_nicmp(label, "cu", 2) || !str_nicmp(label, "rocm", 4) ||
		    !str_nicmp(label, "xpu", 3))
			in->variant = xstrdup(label);
	}
	if (!in->variant && in->cuda) {
		struct strbuf sb = STRBUF_INIT;
		const char *p;
		strbuf_adds(&sb, "cu");
		for (p = in->cuda; *p; p++)
			if (*p != '.')
				strbuf_addch(&sb, *p);
		in->variant = strbuf_detach(&sb);
	}
	if (!in->variant)
		in->variant = xstrdup(in->cuda_dlls.n ? "cuda" : "cpu");
	if (!str_nicmp(in->variant, "cu", 2) && !in->cuda_dlls.n)
		strlist_pushf(&in->notes, "a CUDA build (%s) without CUDA DLLs in torch\\lib: they must come from CUDA_PATH",
			      in->variant);
	if (!str_icmp(in->variant, "cpu") && in->cuda_dlls.n)
		strlist_pushf(&in->notes, "a CPU build with CUDA DLLs in torch\\lib (%s, ...): files of two builds are mixed",
			      in->cuda_dlls.v[0]);
}

static int install_known(const struct inventory *inv, const char *torch_dir)
{
	size_t i;
	for (i = 0; i < inv->ninstalls; i++)
		if (!str_icmp(inv->installs[i].torch_dir, torch_dir))
			return 1;
	return 0;
}

int inventory_from_torch(struct inventory *inv, struct view *v, const char *torch_dir_in, struct err *err)
{
	struct inv_install *in;
	struct strbuf text = STRBUF_INIT;
	struct strlist names = STRLIST_INIT;
	char *torch_dir = winpath_normalize(torch_dir_in);
	char *vpy, *lib;
	int r;
	size_t i;

	if (!view_is_dir(v, torch_dir)) {
		err_set(err, "%s: no such folder", torch_dir);
		free(torch_dir);
		return -1;
	}
	if (!is_file_at(v, torch_dir, "__init__.py") && !is_file_at(v, torch_dir, "version.py")) {
		err_set(err, "%s: not a torch folder (no __init__.py or version.py)", torch_dir);
		free(torch_dir);
		return -1;
	}
	{
		/* the letter case as it exists, so reports show the real folder names */
		char *real = view_win_case(v, torch_dir);
		free(torch_dir);
		torch_dir = real;
	}
	if (install_known(inv, torch_dir)) {
		free(torch_dir);
		return 0;
	}
	ALLOC_GROW(inv->installs, inv->ninstalls + 1, inv->ainstalls);
	in = &inv->installs[inv->ninstalls++];
	memset(in, 0, sizeof(*in));
	strlist_init(&in->cuda_dlls);
	strlist_init(&in->dll_dirs);
	strlist_init(&in->notes);
	in->torch_dir = torch_dir;
	in->site_packages = winpath_dirname(torch_dir);
	if (!in->site_packages)
		in->site_packages = xstrdup(torch_dir);

	/* version.py: what `import torch` will say */
	vpy = winpath_join(torch_dir, "version.py");
	r = read_text(v, vpy, &text, err);
	if (r == 1)
		strlist_pushf(&in->notes, "no torch\\version.py: the install is incomplete");
	else if (r < 0 || inventory_parse_version_py(text.buf, text.len, vpy, &in->version, &in->cuda, err))
		strlist_pushf(&in->notes, "%s", err->msg);
	free(vpy);
	strbuf_release(&text);

	describe_env(v, in);
	read_dist_info(v, in);
	if (in->version && in->metadata_version && versions_mixed(in->version, in->metadata_version))
		strlist_pushf(&in->notes,
			      "torch\\version.py says %s but %s\\METADATA says %s: files of two torch installs are mixed",
			      in->version, in->dist_info, in->metadata_version);

	if (view_list_dir(v, torch_dir, &names, err) == 0)
		read_pyd_tags(v, in, &names);
	strlist_release(&names);
	lib = winpath_join(torch_dir, "lib");
	if (view_is_dir(v, lib) && view_list_dir(v, lib, &names, err) == 0) {
		for (i = 0; i < names.n; i++)
			if (is_cuda_dll(names.v[i]))
				strlist_push(&in->cuda_dlls, names.v[i]);
	} else {
		strlist_pushf(&in->notes, "no torch\\lib folder");
	}
	strlist_release(&names);
	free(lib);
	decide_variant(in);

	/* the Python the .pyd files were built for against the one found */
	if (in->pyd_tag && in->python_version) {
		char *want = xasprintf("cp%.*s%s", 1, in->python_version, strchr(in->python_version, '.')
									     ? strchr(in->python_version, '.') + 1
									     : "");
		if (str_icmp(want, in->pyd_tag))
			strlist_pushf(&in->notes, "torch was built for %s but the Python here is %s", in->pyd_tag,
				      in->python_version);
		free(want);
	}
	if (!in->arch && in->python) {
		char *host = view_host_path(v, in->python);
		struct pe_image *img = NULL;
		struct err perr;
		if (host && pe_open(&img, host, 0, &perr) == 0) {
			const char *a = machine_arch(img->machine);
			if (a)
				in->arch = xstrdup(a);
		}
		pe_close(img);
		free(host);
	}
	err_clear(err);
	return 0;
}

int inventory_from_site_packages(struct inventory *inv, struct view *v, const char *dir, struct err *err)
{
	char *torch;
	int r;
	if (!view_is_dir(v, dir))
		return err_set(err, "%s: no such folder", dir);
	torch = winpath_join(dir, "torch");
	if (!view_is_dir(v, torch)) {
		err_set(err, "%s: no torch folder in this site-packages", dir);
		free(torch);
		return -1;
	}
	r = inventory_from_torch(inv, v, torch, err);
	free(torch);
	return r;
}

/* The install runs under python (a Windows path): its folder is an application directory. */
static void attach_python(struct inv_install *in, const char *python)
{
	size_t j;
	int has_py = 0;
	char *dir;
	if (!in->python || str_icmp(in->python, python)) {
		free(in->python);
		in->python = xstrdup(python);
	}
	/* a user site or a venv's base site found through this python.exe: its folder is searched */
	for (j = 0; j < in->dll_dirs.n; j++)
		has_py |= !strncmp(in->dll_dirs.v[j], "python\t", 7);
	dir = winpath_dirname(python);
	if (!has_py && dir)
		add_dll_dir(in, "python", dir);
	free(dir);
}

int inventory_from_python(struct inventory *inv, struct view *v, const char *python_in, struct err *err)
{
	char *python = winpath_normalize(python_in), *dir, *prefix, *sp, *base_sp = NULL;
	size_t before = inv->ninstalls;
	int venv = 0, r = 0;

	if (view_is_dir(v, python)) {
		char *exe = winpath_join(python, "python.exe");
		free(python);
		python = exe;
	}
	if (!view_is_file(v, python)) {
		err_set(err, "%s: no such file (expected the path of python.exe)", python);
		free(python);
		return -1;
	}
	dir = winpath_dirname(python);
	prefix = xstrdup(dir);
	if (!is_file_at(v, dir, "pyvenv.cfg") && !str_icmp(winpath_basename(dir), "Scripts")) {
		char *up = winpath_dirname(dir);
		if (up && is_file_at(v, up, "pyvenv.cfg")) {
			free(prefix);
			prefix = up;
			up = NULL;
		}
		free(up);
	}
	venv = is_file_at(v, prefix, "pyvenv.cfg");
	sp = winpath_join(prefix, "Lib\\site-packages");
	if (!view_is_dir(v, sp)) {
		err_set(err, "%s: no Lib\\site-packages under %s (an embeddable Python, or not a Python install?)",
			python, prefix);
		r = -1;
		goto out;
	}
	if (is_dir_at(v, sp, "torch"))
		r = inventory_from_site_packages(inv, v, sp, err);
	if (r == 0 && venv) {
		/* include-system-site-packages = true: the base install's torch is importable too */
		char *inc = pyvenv_value(v, prefix, "include-system-site-packages", NULL);
		char *home = pyvenv_value(v, prefix, "home", NULL);
		if (inc && !str_icmp(inc, "true") && home) {
			char *h = winpath_normalize(home);
			base_sp = winpath_join(h, "Lib\\site-packages");
			free(h);
			if (is_dir_at(v, base_sp, "torch"))
				r = inventory_from_site_packages(inv, v, base_sp, err);
		}
		free(inc);
		free(home);
	}
	if (r == 0 && !venv) {
		/* pip install --user: %APPDATA%\Python\Python3XY\site-packages */
		const char *appdata = view_getenv(v, "APPDATA");
		char *ver = python_version_in(v, dir);
		if (appdata && ver && strchr(ver, '.')) {
			char *user = xasprintf("%s\\Python\\Python3%s\\site-packages", appdata, strchr(ver, '.') + 1);
			if (is_dir_at(v, user, "torch"))
				r = inventory_from_site_packages(inv, v, user, err);
			free(user);
		}
		free(ver);
	}
	if (r == 0 && inv->ninstalls == before)
		strlist_pushf(&inv->notes, "no torch install for %s (looked in %s%s)", python, sp,
			      venv ? "" : " and the user site");
	/* every install found from this python.exe belongs to it */
	while (r == 0 && before < inv->ninstalls)
		attach_python(&inv->installs[before++], python);
out:
	free(base_sp);
	free(sp);
	free(prefix);
	free(dir);
	free(python);
	return r;
}

int inventory_collect(struct inventory *inv, struct view *v, const char *torch_dir, const char *python,
		      struct err *err)
{
	size_t before = inv->ninstalls, i;
	if (view_has_registry(v) && inventory_redist_view(inv, v, err))
		return -1;
	if (torch_dir) {
		if (inventory_from_torch(inv, v, torch_dir, err))
			return -1;
		for (i = before; python && i < inv->ninstalls; i++)
			attach_python(&inv->installs[i], python);
	} else if (python && inventory_from_python(inv, v, python, err)) {
		return -1;
	}
	return inventory_runtime_dlls(inv, v, err);
}

/* ---------- scanning a tree ---------- */

struct scan {
	struct inventory *inv;
	struct view *v;
	size_t ndirs;
	int capped;
	int max_depth;
};

static int skip_dir_name(const char *n)
{
	static const char *const skip[] = { "$Recycle.Bin", "System Volume Information", "WinSxS", ".git",
					    "__pycache__", "node_modules" };
	size_t i;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!str_icmp(n, skip[i]))
			return 1;
	return 0;
}

static int scan_dir(struct scan *s, const char *dir, int depth, struct err *err)
{
	struct strlist names = STRLIST_INIT;
	size_t i;
	int is_sp = !str_icmp(winpath_basename(dir), "site-packages");
	if (s->ndirs >= INV_SCAN_MAX_DIRS) {
		s->capped = 1;
		return 0;
	}
	s->ndirs++;
	if (is_sp) {
		/* a site-packages: only its torch matters, never descend into packages */
		char *torch = winpath_join(dir, "torch");
		if (!is_link(s->v, torch) && view_is_dir(s->v, torch) && is_dir_at(s->v, torch, "lib")) {
			struct err e2;
			if (inventory_from_torch(s->inv, s->v, torch, &e2))
				strlist_pushf(&s->inv->notes, "%s", e2.msg);
		}
		free(torch);
		return 0;
	}
	if (depth >= s->max_depth)
		return 0;
	if (view_list_dir(s->v, dir, &names, err)) {
		/* an unreadable folder is noted, the scan goes on */
		strlist_pushf(&s->inv->notes, "scan: %s", err->msg);
		err_clear(err);
		return 0;
	}
	for (i = 0; i < names.n; i++) {
		char *sub;
		if (skip_dir_name(names.v[i]))
			continue;
		sub = winpath_join(dir, names.v[i]);
		if (!is_link(s->v, sub) && view_is_dir(s->v, sub))
			scan_dir(s, sub, depth + 1, err);
		free(sub);
	}
	strlist_release(&names);
	return 0;
}

int inventory_scan(struct inventory *inv, struct view *v, const char *root, int max_depth, struct err *err)
{
	struct scan s;
	char *r = winpath_normalize(root);
	memset(&s, 0, sizeof(s));
	s.inv = inv;
	s.v = v;
	s.max_depth = max_depth > 0 ? max_depth : 8;
	if (!view_is_dir(v, r)) {
		err_set(err, "%s: no such folder to scan", r);
		free(r);
		return -1;
	}
	scan_dir(&s, r, 0, err);
	if (s.capped)
		strlist_pushf(&inv->notes, "scan of %s stopped after %d folders: some installs may be missing", r,
			      INV_SCAN_MAX_DIRS);
	free(r);
	return 0;
}
