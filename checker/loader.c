/*
 * loader: what the Windows loader does with LoadLibraryExW, emulated over a
 * view of the machine, statically (nothing is executed).
 *
 * WHAT IS EMULATED (sources: learn.microsoft.com "Dynamic-link library
 * search order", "LoadLibraryExW", "AddDllDirectory", "API set loader
 * operation", "/DEPENDENTLOADFLAG", the PE format; FACTS.md §4)
 *
 * For each DLL name, before any file search, in this order:
 *   1. API sets: "api-*" / "ext-*" names go through the schema of
 *      System32\apisetschema.dll (apiset.c; a built-in table when the tree
 *      has none, reported as such). The host, not the contract, is then
 *      resolved by the steps below. A contract the schema does not know is
 *      searched for as a file (old UCRT installs put api-ms-win-crt-*.dll
 *      files in System32, and Windows finds them this way). A contract with
 *      no host: an "ext-" one imported by a module in System32 is an optional
 *      system component (ignored); anything else is missing (126).
 *   2. The loaded-module list: a module with the same base name (compared
 *      case-insensitively) loaded earlier by the process, wherever it came
 *      from, satisfies the import. Modules mapped earlier in the same load
 *      count too (that is how import cycles terminate).
 *   3. KnownDLLs: from the view's registry (HKLM\SYSTEM\CurrentControlSet\
 *      Control\Session Manager\KnownDLLs) when present, else a built-in list
 *      of Windows 10/11's; always taken from System32 (SysWOW64 for x86).
 *   4. The search path. With any LOAD_LIBRARY_SEARCH_* flag: DLL_LOAD_DIR
 *      (0x100), APPLICATION_DIR (0x200), USER_DIRS (0x400, AddDllDirectory
 *      in the order added — Windows leaves the order unspecified), SYSTEM32
 *      (0x800); DEFAULT_DIRS (0x1000) = 0x200|0x400|0x800. Without: the
 *      standard order with SafeDllSearchMode: application dir, System32,
 *      16-bit system dir, Windows dir, current dir (when known), PATH.
 *      System32 means SysWOW64 for an x86 process (file system redirection).
 * Side-by-side manifests and DLL redirection (.local) are NOT modelled:
 * torch's DLLs and python.exe carry no dependency manifests for them; a
 * machine that uses them is outside what a static check can see.
 *
 * Dependencies. A DLL's static imports are resolved with the flags of the
 * LoadLibraryExW call that loaded it (Windows applies the same search flags
 * to the whole load), unless the importing module's load config carries
 * DependentLoadFlags, which then replace them for that module's imports
 * [I: how they combine with explicit LoadLibraryExW search flags is not
 * documented; Wine 8 ignores them (oracle W5), so no test can settle it].
 * Which directory DLL_LOAD_DIR stands for below the first level is not
 * documented [I]; the load context Windows builds per LoadLibraryExW call
 * (and Wine's single load path per call) point to the top DLL's directory:
 * that is LDR_DLD_TOP, the default; LDR_DLD_IMPORTER is the other choice,
 * one switch (loader_set_dll_load_dir_mode, `deps --dll-load-dir`). The
 * oracle's pyd_dll_load_dir_deeper scenario agrees with LDR_DLD_TOP.
 * Standard order with LOAD_WITH_ALTERED_SEARCH_PATH (0x8): the DLL's folder
 * takes the application dir's place. A name without an extension gets ".dll".
 *
 * Two phases, as Windows 10's loader: first every static dependency is
 * found and mapped (a missing one anywhere → 126, ERROR_MOD_NOT_FOUND),
 * then imports are snapped: by name (hint first, then binary search of the
 * name table, pe.c) → 127 ERROR_PROC_NOT_FOUND when absent; by ordinal
 * (index = ordinal − Base) → 182 ERROR_INVALID_ORDINAL. So a missing DLL
 * beats a missing symbol wherever they are in the tree. Forwarded exports
 * ("DLL.Func", "DLL.#N") load their DLL through this same pipeline (API sets
 * included; the forwarding module is the importer) and are followed
 * recursively, 16 levels at most; a loop (the same module and symbol again)
 * is reported as 127 [I: what Windows does with a loop is undocumented]. A
 * forwarder to a missing DLL fails the load with 126 [I: Windows' status
 * from LdrpLoadDependentModule (torch then tries its PATH fallback); Wine
 * binds a stub and carries on (oracle W4, which accepts 126 or 127)]. A
 * missing symbol fails the load on Windows; Wine binds a stub (oracle W2).
 *
 * Which failure is reported: the first in depth-first import order (each
 * module's import descriptors in file order), the same module Wine's
 * "Library X (which is needed by Y) not found" lines name.
 *
 * Machines and bad files. The DLL passed to LoadLibraryExW: another machine
 * or not a PE (empty, no MZ/PE signature, corrupt) → 193
 * ERROR_BAD_EXE_FORMAT (Windows maps STATUS_INVALID_IMAGE_FORMAT and
 * friends to it; Wine 8 gives 193 for a 32-bit DLL and for an empty one by
 * full path). A dependency candidate of another machine is skipped and the
 * search goes on [I: undocumented for Windows when a later candidate fits;
 * Wine 8's search_dll_file does skip, and the oracle's x86_shadows_x64
 * scenario shows it]. When only wrong-machine candidates exist the load
 * fails with 193: the dependency's STATUS_INVALID_IMAGE_FORMAT (c000007b)
 * propagates, which is the well-known 0xc000007b start-up error (MS
 * "Diagnosing STATUS_INVALID_IMAGE_FORMAT (C000007B) Errors"); torch then
 * raises at the 0x1100 attempt. Wine 8 differs: it flattens every dependency
 * failure to 126 (tests/scenarios/README.md, W1). An
 * unreadable/empty/non-PE dependency stops the search: 193, "unreadable".
 *
 * Delay-load imports are resolved the way the delay-load helper will at
 * first call (LoadLibraryExA(name, NULL, 0): the standard search order in
 * the process as it is then) and reported as warnings, never as failures,
 * and they do not join the loaded-module list.
 *
 * Process state. A successful load appends every module it mapped to the
 * loaded-module list; a failed one appends nothing (Windows unloads what it
 * mapped for a failed load). DllMain is not run: WinError 1114 is outside a
 * static check (torchload.c flags the runtime versions that cause it).
 *
 * Views without System32 (a bare torch tree checked without --root): the
 * Windows system DLLs (KnownDLLs, API set hosts, a short list of other OS
 * DLLs) are assumed present and their symbols are not checked; the nodes say
 * "assumed". The VC++ runtimes are never assumed.
 *
 * Performance: each file is mapped once and parsed once per loader (cache
 * keyed by host path); export lookups are lazy binary searches in pe.c;
 * directory listings are cached by the view.
 */
#include "loader.h"

#include <stdlib.h>
#include <string.h>

#include "os.h"

#define LDR_MAX_DEPTH 64
#define LDR_MAX_FORWARD 16

struct ldr_image {
	char *win;  /* Windows path (the cache key, compared case-insensitively) */
	char *host;
	struct pe_image *img; /* NULL when it could not be parsed */
	int err_code;         /* PE_ERR_* */
	char *err_msg;
	char *version;
	int hot; /* touched since the last loader_trim */
};

struct ldr_module {
	char *base; /* base name as it exists */
	char *path; /* Windows path */
};

/*
 * A small map from case-insensitive names (Windows compares file names
 * that way) to a value: the loaded-module list, the modules one load
 * mapped and the forwarder targets are looked up through these, so that no
 * lookup walks a list (a list walk per import made long runs quadratic).
 * The first value put for a key stays, as the first match of a walk would.
 */
struct imap_ent {
	char *key; /* NULL: empty slot */
	uintptr_t val;
};

struct imap {
	struct imap_ent *v;
	size_t n, cap;
};

static size_t ikey_hash(const char *k);

static struct imap_ent *imap_slot(const struct imap *m, const char *key)
{
	size_t mask = m->cap - 1, h;
	for (h = ikey_hash(key) & mask; m->v[h].key; h = (h + 1) & mask)
		if (!str_icmp(m->v[h].key, key))
			break;
	return &m->v[h];
}

/* The value for key, or 0 with *found = 0. */
static uintptr_t imap_get(const struct imap *m, const char *key, int *found)
{
	struct imap_ent *e = m->cap ? imap_slot(m, key) : NULL;
	*found = e && e->key;
	return *found ? e->val : 0;
}

static void imap_put(struct imap *m, const char *key, uintptr_t val)
{
	struct imap_ent *e;
	if ((m->n + 1) * 2 > m->cap) {
		struct imap old = *m;
		size_t i;
		m->cap = m->cap ? m->cap * 2 : 64;
		m->v = xcalloc(m->cap, sizeof(*m->v));
		for (i = 0; i < old.cap; i++)
			if (old.v[i].key)
				*imap_slot(m, old.v[i].key) = old.v[i];
		free(old.v);
	}
	e = imap_slot(m, key);
	if (e->key)
		return;
	e->key = xstrdup(key);
	e->val = val;
	m->n++;
}

static void imap_release(struct imap *m)
{
	size_t i;
	for (i = 0; i < m->cap; i++)
		free(m->v[i].key);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

struct loader {
	struct view *view;
	struct apiset *apiset;
	char *apiset_source;
	struct strlist known;
	const char *known_source;
	uint16_t machine;
	char *app_dir;
	char *cur_dir;
	struct strlist user_dirs;
	enum ldr_dll_load_dir_mode dld_mode;
	int no_system;
	struct ldr_module *mods;
	size_t nmods, amods;
	struct imap mods_by_base, mods_by_path; /* index + 1 into mods[] */
	struct ldr_image **images;
	size_t nimages, aimages;
	size_t *image_index; /* open addressing over images[]: index + 1, 0 = empty */
	size_t image_index_cap;
	struct ldr_image **hot; /* images touched since the last loader_trim */
	size_t nhot, ahot;
	char *host_error; /* the first file the host would not let us read */
};

/* Windows 10/11 x64 HKLM\...\Session Manager\KnownDLLs values (plus ntdll, always known). */
static const char *const builtin_known[] = {
	"advapi32.dll", "clbcatq.dll", "combase.dll", "comdlg32.dll", "coml2.dll", "difxapi.dll",
	"gdi32.dll", "gdiplus.dll", "imagehlp.dll", "imm32.dll", "kernel32.dll", "msctf.dll",
	"msvcrt.dll", "normaliz.dll", "nsi.dll", "ole32.dll", "oleaut32.dll", "psapi.dll",
	"rpcrt4.dll", "sechost.dll", "setupapi.dll", "shcore.dll", "shell32.dll", "shlwapi.dll",
	"user32.dll", "wldap32.dll", "wow64.dll", "wow64win.dll", "ws2_32.dll", "ntdll.dll",
	"kernelbase.dll",
};

/* Other OS DLLs assumed present when the view has no System32 (never the VC++ runtimes). */
static const char *const builtin_system[] = {
	"ucrtbase.dll", "bcrypt.dll", "crypt32.dll", "dbghelp.dll", "version.dll", "winmm.dll",
	"iphlpapi.dll", "secur32.dll", "userenv.dll", "ncrypt.dll", "dxgi.dll", "d3d11.d3d12.dll",
	"d3d12.dll", "d3d11.dll", "wintrust.dll", "powrprof.dll", "dwmapi.dll", "uxtheme.dll",
	"cfgmgr32.dll", "bcryptprimitives.dll", "ntmarta.dll", "mswsock.dll", "dnsapi.dll",
	"winhttp.dll", "wininet.dll", "comctl32.dll", "opengl32.dll", "glu32.dll", "netapi32.dll",
};

const char *ldr_outcome_name(enum ldr_outcome o)
{
	switch (o) {
	case LDR_LOADS: return "loads";
	case LDR_MISSING_DLL: return "missing-dll";
	case LDR_MISSING_ENTRY: return "missing-entry-point";
	case LDR_MISSING_ORDINAL: return "missing-ordinal";
	case LDR_BAD_ARCH: return "bad-arch";
	case LDR_UNREADABLE: return "unreadable";
	case LDR_BAD_PARAM: return "invalid-parameter";
	}
	return "?";
}

static int in_list(const char *const *list, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!str_icmp(list[i], name))
			return 1;
	return 0;
}

static int strlist_has_icase(const struct strlist *l, const char *s)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (!str_icmp(l->v[i], s))
			return 1;
	return 0;
}

/* ---- set-up ------------------------------------------------------------------ */

static const char *sysdir(const struct loader *ld)
{
	return ld->machine == PE_MACHINE_I386 ? view_syswow64(ld->view) : view_system32(ld->view);
}

static void load_known_dlls(struct loader *ld)
{
	static const char key[] = "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs";
	size_t i;
	if (view_has_registry(ld->view)) {
		struct strbuf sb = STRBUF_INIT;
		struct strlist names = STRLIST_INIT;
		int any = 0;
		if (view_reg_values(ld->view, key, 64, &names, NULL) == 0) {
			/* every value except DllDirectory* names a KnownDLL file */
			for (i = 0; i < names.n; i++) {
				if (str_istartswith(names.v[i], "DllDirectory"))
					continue;
				strbuf_reset(&sb);
				if (view_reg_get(ld->view, key, names.v[i], 64, &sb, NULL) == 0 && sb.len) {
					strlist_push(&ld->known, strbuf_str(&sb));
					any = 1;
				}
			}
		} else {
			/* a registry that cannot list values: ask about each name Windows ships */
			for (i = 0; i < sizeof(builtin_known) / sizeof(builtin_known[0]); i++) {
				char *valname = xstrdup(builtin_known[i]);
				char *dot = strrchr(valname, '.');
				if (dot)
					*dot = '\0';
				strbuf_reset(&sb);
				if (view_reg_get(ld->view, key, valname, 64, &sb, NULL) == 0 && sb.len) {
					strlist_push(&ld->known, strbuf_str(&sb));
					any = 1;
				}
				free(valname);
			}
		}
		strbuf_release(&sb);
		strlist_release(&names);
		if (any) {
			/* ntdll is always known (it is mapped before the list is read) */
			strlist_push(&ld->known, "ntdll.dll");
			ld->known_source = "registry";
			return;
		}
	}
	for (i = 0; i < sizeof(builtin_known) / sizeof(builtin_known[0]); i++)
		strlist_push(&ld->known, builtin_known[i]);
	ld->known_source = "built-in list";
}

int loader_open(struct loader **out, struct view *view, const char *app_dir, uint16_t machine, struct err *err)
{
	struct loader *ld = xcalloc(1, sizeof(*ld));
	char *schema, *host;
	ld->view = view;
	ld->machine = machine ? machine : PE_MACHINE_AMD64;
	ld->app_dir = app_dir ? winpath_normalize(app_dir) : NULL;
	ld->dld_mode = LDR_DLD_TOP;
	ld->no_system = !view_is_dir(view, sysdir(ld));

	/* The schema is read from the native System32 (the loader's own), whatever the process. */
	schema = winpath_join(view_system32(view), "apisetschema.dll");
	host = view_host_path(view, schema);
	if (host && view_is_file(view, schema)) {
		struct err e;
		err_clear(&e);
		if (apiset_load(&ld->apiset, host, &e) == 0) {
			ld->apiset_source = xstrdup(schema);
		} else {
			ld->apiset = apiset_fallback();
			ld->apiset_source = xasprintf("built-in fallback (%s)", e.msg);
		}
	} else {
		ld->apiset = apiset_fallback();
		ld->apiset_source = xstrdup("built-in fallback");
	}
	free(host);
	free(schema);
	load_known_dlls(ld);
	(void)err;
	*out = ld;
	return 0;
}

void loader_free(struct loader *ld)
{
	size_t i;
	if (!ld)
		return;
	apiset_free(ld->apiset);
	free(ld->apiset_source);
	strlist_release(&ld->known);
	free(ld->app_dir);
	free(ld->cur_dir);
	strlist_release(&ld->user_dirs);
	for (i = 0; i < ld->nmods; i++) {
		free(ld->mods[i].base);
		free(ld->mods[i].path);
	}
	free(ld->mods);
	for (i = 0; i < ld->nimages; i++) {
		struct ldr_image *im = ld->images[i];
		if (im->img)
			pe_close(im->img);
		free(im->win);
		free(im->host);
		free(im->err_msg);
		free(im->version);
		free(im);
	}
	free(ld->images);
	free(ld->image_index);
	free(ld->hot);
	free(ld->host_error);
	imap_release(&ld->mods_by_base);
	imap_release(&ld->mods_by_path);
	free(ld);
}

void loader_add_dll_directory(struct loader *ld, const char *win_dir)
{
	strlist_push_owned(&ld->user_dirs, winpath_normalize(win_dir));
}

void loader_set_current_dir(struct loader *ld, const char *win_dir)
{
	free(ld->cur_dir);
	ld->cur_dir = win_dir ? winpath_normalize(win_dir) : NULL;
}

void loader_set_dll_load_dir_mode(struct loader *ld, enum ldr_dll_load_dir_mode mode)
{
	ld->dld_mode = mode;
}

const char *loader_apiset_source(const struct loader *ld)
{
	return ld->apiset_source;
}

const char *loader_known_dlls_source(const struct loader *ld)
{
	return ld->known_source;
}

int loader_apiset_is_fallback(const struct loader *ld)
{
	return apiset_is_fallback(ld->apiset);
}

uint16_t loader_machine(const struct loader *ld)
{
	return ld->machine;
}

const char *loader_app_dir(const struct loader *ld)
{
	return ld->app_dir;
}

/* ---- image cache ------------------------------------------------------------- */

static size_t ikey_hash(const char *k)
{
	size_t h = (size_t)1469598103934665603ULL;
	for (; *k; k++) {
		unsigned char c = (unsigned char)*k;
		h = (h ^ (c >= 'a' && c <= 'z' ? c - 32 : c)) * (size_t)1099511628211ULL;
	}
	return h;
}

static void image_index_put(struct loader *ld, size_t i)
{
	size_t m = ld->image_index_cap - 1, h = ikey_hash(ld->images[i]->win) & m;
	while (ld->image_index[h])
		h = (h + 1) & m;
	ld->image_index[h] = i + 1;
}

/* Remembers that im's pages may be resident again (for loader_trim). */
static struct ldr_image *image_touch(struct loader *ld, struct ldr_image *im)
{
	if (!im->hot) {
		im->hot = 1;
		ALLOC_GROW(ld->hot, ld->nhot + 1, ld->ahot);
		ld->hot[ld->nhot++] = im;
	}
	return im;
}

/* The parsed image of a Windows path, opened once per loader (cached even when it fails). */
static struct ldr_image *image_get(struct loader *ld, const char *win_path)
{
	struct ldr_image *im;
	struct err e;
	size_t i;
	if (ld->image_index_cap) {
		size_t m = ld->image_index_cap - 1, h;
		for (h = ikey_hash(win_path) & m; ld->image_index[h]; h = (h + 1) & m)
			if (!str_icmp(ld->images[ld->image_index[h] - 1]->win, win_path))
				return image_touch(ld, ld->images[ld->image_index[h] - 1]);
	}
	im = xcalloc(1, sizeof(*im));
	im->win = xstrdup(win_path);
	im->host = view_host_path(ld->view, win_path);
	if (!im->host)
		im->host = xstrdup(win_path);
	err_clear(&e);
	/*
	 * PE_LENIENT: Windows reads neither the version resource nor the
	 * delay-import table when it maps a DLL, so damage there must not turn a
	 * loadable DLL into an "unreadable" one (those parts are left empty).
	 */
	if (pe_open(&im->img, im->host,
		    PE_IMPORTS | PE_DELAY_IMPORTS | PE_EXPORTS | PE_LOAD_CONFIG | PE_VERSION | PE_LENIENT,
		    &e)) {
		im->img = NULL;
		im->err_code = e.code ? e.code : PE_ERR_CORRUPT;
		im->err_msg = xstrdup(e.msg);
		/* the host's error (EACCES, EIO), not a Windows verdict on the file */
		if (im->err_code == PE_ERR_IO && !ld->host_error)
			ld->host_error = xstrdup(e.msg);
	} else if (im->img->version.present && im->img->version.has_fixed) {
		const uint16_t *f = im->img->version.file;
		im->version = xasprintf("%u.%u.%u.%u", f[0], f[1], f[2], f[3]);
	}
	ALLOC_GROW(ld->images, ld->nimages + 1, ld->aimages);
	ld->images[ld->nimages++] = im;
	if (ld->nimages * 2 >= ld->image_index_cap) {
		free(ld->image_index);
		ld->image_index_cap = ld->image_index_cap ? ld->image_index_cap * 2 : 128;
		ld->image_index = xcalloc(ld->image_index_cap, sizeof(*ld->image_index));
		for (i = 0; i < ld->nimages; i++)
			image_index_put(ld, i);
	} else {
		image_index_put(ld, ld->nimages - 1);
	}
	return image_touch(ld, im);
}

const char *loader_file_version(struct loader *ld, const char *win_path)
{
	return image_get(ld, win_path)->version;
}

/* ---- nodes ---------------------------------------------------------------------- */

static struct ldr_node *node_new(const char *name, struct ldr_node *parent)
{
	struct ldr_node *n = xcalloc(1, sizeof(*n));
	n->name = xstrdup(name);
	n->parent = parent;
	if (parent) {
		ALLOC_GROW(parent->kids, parent->nkids + 1, parent->akids);
		parent->kids[parent->nkids++] = n;
	}
	return n;
}

static void node_free(struct ldr_node *n)
{
	size_t i;
	if (!n)
		return;
	for (i = 0; i < n->nkids; i++)
		node_free(n->kids[i]);
	free(n->kids);
	for (i = 0; i < n->nprobes; i++) {
		free(n->probes[i].path);
		free(n->probes[i].result);
	}
	free(n->probes);
	strlist_release(&n->missing);
	strlist_release(&n->shadowed);
	free(n->name);
	free(n->path);
	free(n->apiset_host);
	free(n->detail);
	free(n->version);
	free(n);
}

static void probe_add(struct ldr_node *n, const char *path, const char *step, const char *fmt, ...)
	ERR_PRINTF(4, 5);

static void probe_add(struct ldr_node *n, const char *path, const char *step, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	ALLOC_GROW(n->probes, n->nprobes + 1, n->aprobes);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	n->probes[n->nprobes].path = xstrdup(path);
	n->probes[n->nprobes].step = step;
	n->probes[n->nprobes].result = strbuf_detach(&sb);
	n->nprobes++;
}

void ldr_result_release(struct ldr_result *res)
{
	size_t i;
	node_free(res->root);
	free(res->symbol);
	for (i = 0; i < res->nwarnings; i++)
		free(res->warnings[i].symbol);
	free(res->warnings);
	memset(res, 0, sizeof(*res));
}

void ldr_node_chain(const struct ldr_node *node, struct strlist *out)
{
	const struct ldr_node *p;
	size_t n = 0, i;
	const struct ldr_node *stack[LDR_MAX_DEPTH * 2 + LDR_MAX_FORWARD + 4];
	for (p = node; p && n < sizeof(stack) / sizeof(stack[0]); p = p->parent)
		stack[n++] = p;
	for (i = n; i-- > 0;) {
		const struct ldr_node *q = stack[i];
		strlist_push(out, q->parent ? q->name : winpath_basename(q->name));
	}
}

/* ---- one load --------------------------------------------------------------- */

struct load_ctx {
	struct loader *ld;
	struct ldr_result *res;
	const char *top_dir;        /* directory of the DLL given to LoadLibraryExW */
	struct ldr_module *newmods; /* mapped by this load, in order */
	size_t nnew, anew;
	struct imap new_by_base;    /* index + 1 into newmods[] */
	struct imap delay_seen;     /* delay-loaded module paths already expanded */
	struct imap forwarders;     /* "<module node>|<target DLL>" -> the forwarder's node */
	char *fwd_keys[LDR_MAX_FORWARD + 1]; /* "path|symbol" per forwarding level: loop guard */
};

static const char *find_loaded(const struct loader *ld, const struct load_ctx *c, const char *base)
{
	int found;
	uintptr_t i = imap_get(&ld->mods_by_base, base, &found);
	if (found)
		return ld->mods[i - 1].path;
	if (c && (i = imap_get(&c->new_by_base, base, &found), found))
		return c->newmods[i - 1].path;
	return NULL;
}

const char *loader_host_error(const struct loader *ld)
{
	return ld->host_error;
}

void loader_trim(struct loader *ld)
{
	/* only what was touched since the last trim: the rest is dropped already (a walk of every image per load was quadratic) */
	size_t i;
	for (i = 0; i < ld->nhot; i++) {
		if (ld->hot[i]->img)
			os_drop_pages(ld->hot[i]->img->file.p, ld->hot[i]->img->file.len);
		ld->hot[i]->hot = 0;
	}
	ld->nhot = 0;
}

int loader_is_loaded(const struct loader *ld, const char *base)
{
	return find_loaded(ld, NULL, base) != NULL;
}

static int loaded_before(const struct loader *ld, const char *base)
{
	int found;
	imap_get(&ld->mods_by_base, base, &found);
	return found;
}

/* The search directories for `flags`, in order, with the step name of each. */
struct search_dir {
	char *dir;
	const char *step;
};

static void add_dir(struct search_dir **v, size_t *n, size_t *alloc, const char *dir, const char *step)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[*n].dir = winpath_normalize(dir);
	(*v)[*n].step = step;
	(*n)++;
}

static size_t search_dirs(struct loader *ld, unsigned flags, const char *dll_dir, struct search_dir **out)
{
	struct search_dir *v = NULL;
	size_t n = 0, alloc = 0, i;
	if (flags & LDR_SEARCH_MASK) {
		if (flags & LDR_SEARCH_DEFAULT_DIRS)
			flags |= LDR_SEARCH_APPLICATION_DIR | LDR_SEARCH_USER_DIRS | LDR_SEARCH_SYSTEM32;
		if ((flags & LDR_SEARCH_DLL_LOAD_DIR) && dll_dir)
			add_dir(&v, &n, &alloc, dll_dir, "DLL_LOAD_DIR");
		if ((flags & LDR_SEARCH_APPLICATION_DIR) && ld->app_dir)
			add_dir(&v, &n, &alloc, ld->app_dir, "APPLICATION_DIR");
		if (flags & LDR_SEARCH_USER_DIRS)
			for (i = 0; i < ld->user_dirs.n; i++)
				add_dir(&v, &n, &alloc, ld->user_dirs.v[i], "USER_DIRS");
		if (flags & LDR_SEARCH_SYSTEM32)
			add_dir(&v, &n, &alloc, sysdir(ld), "SYSTEM32");
	} else {
		const char *path = view_getenv(ld->view, "PATH");
		/* LOAD_WITH_ALTERED_SEARCH_PATH: the DLL's folder takes the application dir's place */
		if ((flags & LDR_WITH_ALTERED_SEARCH_PATH) && dll_dir)
			add_dir(&v, &n, &alloc, dll_dir, "altered search path");
		else if (ld->app_dir)
			add_dir(&v, &n, &alloc, ld->app_dir, "application dir");
		add_dir(&v, &n, &alloc, sysdir(ld), "System32");
		add_dir(&v, &n, &alloc, "C:\\Windows\\System", "16-bit system dir");
		add_dir(&v, &n, &alloc, view_windows_dir(ld->view), "Windows dir");
		if (ld->cur_dir)
			add_dir(&v, &n, &alloc, ld->cur_dir, "current dir");
		while (path && *path) {
			const char *semi = strchr(path, ';');
			size_t len = semi ? (size_t)(semi - path) : strlen(path);
			char *entry = xstrndup(path, len);
			char *e = entry;
			size_t el = strlen(e);
			if (el >= 2 && e[0] == '"' && e[el - 1] == '"') {
				e[el - 1] = '\0';
				e++;
			}
			if (*e && winpath_is_absolute(e))
				add_dir(&v, &n, &alloc, e, "PATH");
			free(entry);
			path = semi ? semi + 1 : NULL;
		}
	}
	*out = v;
	return n;
}

static void free_dirs(struct search_dir *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(v[i].dir);
	free(v);
}

static void set_fail(struct load_ctx *c, struct ldr_node *node, enum ldr_outcome o, int winerror,
		     const char *symbol)
{
	node->outcome = o;
	if (node->delay) {
		struct ldr_result *r = c->res;
		ALLOC_GROW(r->warnings, r->nwarnings + 1, r->awarnings);
		r->warnings[r->nwarnings].node = node;
		r->warnings[r->nwarnings].symbol = symbol ? xstrdup(symbol) : NULL;
		r->nwarnings++;
		return;
	}
	if (c->res->winerror)
		return; /* the first failure is the one reported */
	c->res->winerror = winerror;
	c->res->outcome = o;
	c->res->leaf = node;
	c->res->symbol = symbol ? xstrdup(symbol) : NULL;
}

static int is_system_path(const struct loader *ld, const char *path)
{
	char *dir;
	int r;
	if (!path)
		return 0;
	dir = winpath_dirname(path);
	r = !str_icmp(dir, view_system32(ld->view)) || !str_icmp(dir, view_syswow64(ld->view));
	free(dir);
	return r;
}

/* Checks a found candidate; 1 usable, 0 skip (wrong machine), -1 unusable file (stop). */
static int candidate_ok(struct load_ctx *c, struct ldr_node *node, const char *path, const char *step,
			int top, int *saw_wrong_arch)
{
	struct ldr_image *im = image_get(c->ld, path);
	if (!im->img) {
		probe_add(node, path, step, "unreadable: %s", im->err_msg);
		node->detail = xstrdup(im->err_msg);
		return -1;
	}
	if (!pe_machine_compatible(c->ld->machine, im->img->machine)) {
		if (top) {
			probe_add(node, path, step, "wrong machine %s", pe_machine_name(im->img->machine));
			return -2;
		}
		probe_add(node, path, step, "wrong machine %s, skipped", pe_machine_name(im->img->machine));
		*saw_wrong_arch = 1;
		if (!node->detail)
			node->detail = xasprintf("%s is %s, the process is %s", path,
						 pe_machine_name(im->img->machine),
						 pe_machine_name(c->ld->machine));
		return 0;
	}
	probe_add(node, path, step, "found");
	return 1;
}

static void expand(struct load_ctx *c, struct ldr_node *node, unsigned flags, int depth);

static void map_found(struct load_ctx *c, struct ldr_node *node, const char *path, unsigned flags, int depth)
{
	struct ldr_image *im = image_get(c->ld, path);
	node->path = xstrdup(path);
	node->machine = im->img ? im->img->machine : 0;
	if (im->version)
		node->version = xstrdup(im->version);
	if (node->delay) {
		int found;
		imap_get(&c->delay_seen, path, &found);
		if (found) {
			node->dup = 1;
			return;
		}
		imap_put(&c->delay_seen, path, 1);
	} else {
		ALLOC_GROW(c->newmods, c->nnew + 1, c->anew);
		c->newmods[c->nnew].base = xstrdup(winpath_basename(path));
		c->newmods[c->nnew].path = xstrdup(path);
		c->nnew++;
		imap_put(&c->new_by_base, c->newmods[c->nnew - 1].base, c->nnew);
	}
	expand(c, node, flags, depth);
}

/*
 * Resolves `node->name` (a bare DLL name) imported by `importer` and, when
 * found, maps it and its static imports (depth-first).
 */
static void resolve(struct load_ctx *c, struct ldr_node *node, const char *importer_path, unsigned flags,
		    const char *dll_dir, int depth)
{
	struct loader *ld = c->ld;
	const char *name = node->name;
	const char *loaded;
	struct search_dir *dirs;
	size_t ndirs, i;
	int saw_wrong_arch = 0;
	char *found = NULL;

	/* a name without an extension gets ".dll", as LdrLoadDll does */
	if (!strchr(winpath_basename(name), '.')) {
		char *withext = xasprintf("%s.dll", name);
		free(node->name);
		node->name = withext;
		name = node->name;
	}
	if (depth > LDR_MAX_DEPTH) {
		node->detail = xstrdup("import chain deeper than 64 levels");
		set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
		return;
	}

	/* 1. API sets */
	if (apiset_is_contract(name)) {
		const char *host = NULL;
		const char *importer_base = importer_path ? winpath_basename(importer_path) : NULL;
		int r = apiset_resolve(ld->apiset, name, importer_base, &host);
		if (r == 1) {
			probe_add(node, name, "API set", "-> %s", host);
			node->apiset_host = xstrdup(host);
			name = node->apiset_host;
		} else if (r == 0) {
			probe_add(node, name, "API set", "contract without a host");
			if (str_istartswith(name, "ext-") && is_system_path(ld, importer_path)) {
				node->via = "API set";
				node->assumed = 1;
				node->detail = xstrdup("optional extension contract without a host (ignored)");
				return;
			}
			node->detail = xstrdup("API set contract has no host on this machine");
			set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
			return;
		} else {
			probe_add(node, name, "API set", "not in the schema, searched as a file");
		}
	}

	/* 2. loaded-module list (earlier loads, then this one: how cycles end) */
	loaded = find_loaded(ld, c, name);
	if (loaded) {
		probe_add(node, loaded, "loaded-module list", "found");
		node->via = "loaded-module list";
		node->path = xstrdup(loaded);
		node->preloaded = loaded_before(ld, name);
		node->dup = 1;
		{
			struct ldr_image *im = image_get(ld, loaded);
			node->machine = im->img ? im->img->machine : 0;
			if (im->version)
				node->version = xstrdup(im->version);
		}
		return;
	}

	/* 3. KnownDLLs */
	if (strlist_has_icase(&ld->known, name)) {
		char *p = NULL;
		node->via = "KnownDLLs";
		if (view_find_file(ld->view, sysdir(ld), name, &p)) {
			probe_add(node, p, "KnownDLLs", "found");
			map_found(c, node, p, flags, depth);
			free(p);
			return;
		}
		p = winpath_join(sysdir(ld), name);
		if (ld->no_system) {
			probe_add(node, p, "KnownDLLs", "assumed (no System32 in this tree)");
			node->assumed = 1;
			node->path = p;
			return;
		}
		probe_add(node, p, "KnownDLLs", "not found");
		free(p);
		node->detail = xstrdup("a KnownDLL missing from System32");
		set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
		return;
	}

	/* 4. the search path */
	ndirs = search_dirs(ld, flags, dll_dir, &dirs);
	for (i = 0; i < ndirs; i++) {
		char *p = NULL;
		if (!view_find_file(ld->view, dirs[i].dir, name, &p)) {
			char *tried = winpath_join(dirs[i].dir, name);
			if (!found)
				probe_add(node, tried, dirs[i].step, "not found");
			free(tried);
			continue;
		}
		if (found) {
			/* a later copy the winner shadows */
			if (str_icmp(found, p))
				strlist_push(&node->shadowed, p);
			free(p);
			continue;
		}
		{
			int ok = candidate_ok(c, node, p, dirs[i].step, 0, &saw_wrong_arch);
			if (ok == 1) {
				found = p;
				node->via = dirs[i].step;
				continue;
			}
			if (ok < 0) {
				node->path = p;
				free_dirs(dirs, ndirs);
				set_fail(c, node, LDR_UNREADABLE, WINERR_BAD_EXE_FORMAT, NULL);
				return;
			}
		}
		free(p);
	}
	free_dirs(dirs, ndirs);
	if (found) {
		map_found(c, node, found, flags, depth);
		free(found);
		return;
	}
	if (ld->no_system && (node->apiset_host || in_list(builtin_system, sizeof(builtin_system) /
									  sizeof(builtin_system[0]), name))) {
		node->assumed = 1;
		node->via = "assumed";
		node->detail = xstrdup("a Windows system DLL, assumed present (no System32 in this tree)");
		return;
	}
	if (saw_wrong_arch) {
		/* the remembered STATUS_INVALID_IMAGE_FORMAT (c000007b) is the load's status */
		set_fail(c, node, LDR_BAD_ARCH, WINERR_BAD_EXE_FORMAT, NULL);
		return;
	}
	set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
}

/* Maps the static (and delay) imports of a found module. */
static void expand(struct load_ctx *c, struct ldr_node *node, unsigned flags, int depth)
{
	struct ldr_image *im = image_get(c->ld, node->path);
	const struct pe_image *img = im->img;
	unsigned dep_flags = flags;
	char *dir, *dll_dir;
	size_t i;
	if (!img)
		return;
	if (img->has_dependent_load_flags && img->dependent_load_flags)
		dep_flags = img->dependent_load_flags;
	dir = winpath_dirname(node->path);
	dll_dir = (c->ld->dld_mode == LDR_DLD_IMPORTER || dep_flags != flags) ? dir : (char *)c->top_dir;
	for (i = 0; i < img->nimports; i++) {
		struct ldr_node *kid = node_new(img->imports[i].dll, node);
		kid->delay = node->delay;
		kid->forwarder = 0;
		resolve(c, kid, node->path, dep_flags, dll_dir, depth + 1);
	}
	for (i = 0; i < img->ndelay_imports; i++) {
		struct ldr_node *kid = node_new(img->delay_imports[i].dll, node);
		kid->delay = 1;
		/* the delay-load helper calls LoadLibraryExA(name, NULL, 0) */
		resolve(c, kid, node->path, 0, NULL, depth + 1);
	}
	free(dir);
}

/* ---- snapping --------------------------------------------------------------------- */

static void snap_node(struct load_ctx *c, struct ldr_node *node);

/* Finds `func` in the module of `exp_node`, following forwarders; 1 found, 0 missing (reported). */
static int find_export(struct load_ctx *c, struct ldr_node *exp_node, const struct pe_import_func *f,
		       const char *fname, uint32_t ordinal, int by_ordinal, int hint, int level)
{
	struct ldr_image *im;
	struct pe_export ex;
	struct err e;
	int r;
	if (exp_node->assumed || !exp_node->path)
		return 1;
	im = image_get(c->ld, exp_node->path);
	if (!im->img)
		return 1; /* reported as unreadable already */
	err_clear(&e);
	if (by_ordinal)
		r = pe_export_by_ordinal(im->img, ordinal, &ex, &e);
	else
		r = pe_export_by_name(im->img, fname, hint, &ex, &e);
	(void)f;
	if (r <= 0) {
		char *sym = by_ordinal ? xasprintf("#%u", ordinal) : xstrdup(fname);
		strlist_push(&exp_node->missing, sym);
		if (r < 0 && !exp_node->detail)
			exp_node->detail = xstrdup(e.msg);
		set_fail(c, exp_node, by_ordinal ? LDR_MISSING_ORDINAL : LDR_MISSING_ENTRY,
			 by_ordinal ? WINERR_INVALID_ORDINAL : WINERR_PROC_NOT_FOUND, sym);
		free(sym);
		return 0;
	}
	if (ex.forwarder) {
		const char *dot = strrchr(ex.forwarder, '.');
		char *dll, *target, *key, *fkey;
		struct ldr_node *fw;
		int loop = level >= LDR_MAX_FORWARD, lv, ret, found;
		key = xasprintf("%s|%s", exp_node->path, by_ordinal ? "#" : fname);
		if (by_ordinal) {
			free(key);
			key = xasprintf("%s|#%u", exp_node->path, ordinal);
		}
		for (lv = 0; lv < level && !loop; lv++)
			loop = c->fwd_keys[lv] && !str_icmp(c->fwd_keys[lv], key);
		if (!dot || loop) {
			char *sym = by_ordinal ? xasprintf("#%u", ordinal) : xstrdup(fname);
			strlist_push(&exp_node->missing, sym);
			exp_node->detail = xasprintf("forwarder %s %s", ex.forwarder,
						     dot ? "forms a loop" : "is malformed");
			set_fail(c, exp_node, LDR_MISSING_ENTRY, WINERR_PROC_NOT_FOUND, sym);
			free(sym);
			free(key);
			return 0;
		}
		c->fwd_keys[level] = key;
		dll = xstrndup(ex.forwarder, (size_t)(dot - ex.forwarder));
		target = str_iendswith(dll, ".dll") ? xstrdup(dll) : xasprintf("%s.dll", dll);
		free(dll);
		/* reuse a forwarder node for the same DLL under this module */
		fkey = xasprintf("%p|%s", (void *)exp_node, target);
		fw = (struct ldr_node *)imap_get(&c->forwarders, fkey, &found);
		if (!fw) {
			char *dir = winpath_dirname(exp_node->path);
			fw = node_new(target, exp_node);
			imap_put(&c->forwarders, fkey, (uintptr_t)fw);
			fw->forwarder = 1;
			fw->delay = exp_node->delay;
			resolve(c, fw, exp_node->path, c->res->flags, c->ld->dld_mode == LDR_DLD_TOP ?
				c->top_dir : dir, 0);
			free(dir);
			/* a module this forwarder brought in needs its own imports snapped */
			if (fw->path && !fw->dup && fw->outcome == LDR_LOADS)
				snap_node(c, fw);
		}
		free(target);
		free(fkey);
		if (!fw->path || fw->outcome != LDR_LOADS) {
			ret = 0; /* reported by resolve */
		} else {
			const char *fsym = dot + 1;
			if (fsym[0] == '#') {
				unsigned long o = strtoul(fsym + 1, NULL, 10);
				ret = find_export(c, fw, NULL, NULL, (uint32_t)o, 1, -1, level + 1);
			} else {
				ret = find_export(c, fw, NULL, fsym, 0, 0, -1, level + 1);
			}
		}
		c->fwd_keys[level] = NULL;
		free(key);
		return ret;
	}
	return 1;
}

/* Snaps the imports of `node`'s module against its kids, then recurses. */
static void snap_node(struct load_ctx *c, struct ldr_node *node)
{
	struct ldr_image *im;
	const struct pe_image *img;
	size_t i, k, nstatic;
	if (!node->path || node->dup || node->assumed)
		return;
	im = image_get(c->ld, node->path);
	img = im->img;
	if (!img)
		return;
	/* kids[0..nimports) are the static imports, then the delay ones, in directory order */
	nstatic = img->nimports;
	for (i = 0; i < node->nkids && i < img->nimports + img->ndelay_imports; i++) {
		struct ldr_node *kid = node->kids[i];
		const struct pe_import_dll *d = i < nstatic ? &img->imports[i] : &img->delay_imports[i - nstatic];
		if (kid->forwarder || !kid->path || kid->outcome != LDR_LOADS)
			continue;
		for (k = 0; k < d->nfuncs; k++) {
			const struct pe_import_func *f = &d->funcs[k];
			find_export(c, kid, f, f->name, f->ordinal, f->by_ordinal, f->by_ordinal ? -1 : f->hint, 0);
		}
	}
	for (i = 0; i < node->nkids; i++)
		if (!node->kids[i]->forwarder)
			snap_node(c, node->kids[i]);
}

static int tree_has_failure(const struct ldr_result *res)
{
	return res->winerror != 0;
}

int loader_load(struct loader *ld, const char *name, unsigned flags, struct ldr_result *res, struct err *err)
{
	struct load_ctx c;
	struct ldr_node *root;
	char *norm = winpath_normalize(name);
	size_t i;

	(void)err;
	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	c.ld = ld;
	c.res = res;
	res->flags = flags;
	root = res->root = node_new(norm, NULL);

	if (!winpath_is_absolute(norm)) {
		if (flags & LDR_SEARCH_DLL_LOAD_DIR) {
			/* LoadLibraryExW rejects DLL_LOAD_DIR with a relative name */
			root->outcome = LDR_BAD_PARAM;
			root->detail = xstrdup("LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR needs a full path");
			res->winerror = WINERR_INVALID_PARAMETER;
			res->outcome = LDR_BAD_PARAM;
			res->leaf = root;
			free(norm);
			return 0;
		}
		resolve(&c, root, NULL, flags, NULL, 0);
	} else {
		char *dir = winpath_dirname(norm);
		const char *base = winpath_basename(norm);
		char *p = NULL;
		int wrong = 0, seen;
		c.top_dir = dir;
		/* the same full path loaded before: the loader hands back that module */
		i = (size_t)imap_get(&ld->mods_by_path, norm, &seen);
		if (seen) {
			probe_add(root, norm, "loaded-module list", "found");
			root->path = xstrdup(ld->mods[i - 1].path);
			root->via = "loaded-module list";
			root->preloaded = 1;
			root->dup = 1;
			free(dir);
			free(norm);
			return 0;
		}
		if (!view_find_file(ld->view, dir, base, &p)) {
			probe_add(root, norm, "full path", "not found");
			set_fail(&c, root, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
		} else {
			int ok = candidate_ok(&c, root, p, "full path", 1, &wrong);
			root->via = "full path";
			if (ok == 1) {
				map_found(&c, root, p, flags, 0);
			} else {
				root->path = xstrdup(p);
				if (ok == -2) {
					struct ldr_image *im = image_get(ld, p);
					root->machine = im->img->machine;
					root->detail = xasprintf("%s is %s, the process is %s", p,
								 pe_machine_name(im->img->machine),
								 pe_machine_name(ld->machine));
					set_fail(&c, root, LDR_BAD_ARCH, WINERR_BAD_EXE_FORMAT, NULL);
				} else {
					set_fail(&c, root, LDR_UNREADABLE, WINERR_BAD_EXE_FORMAT, NULL);
				}
			}
			free(p);
		}
		if (!tree_has_failure(res))
			snap_node(&c, root);
		c.top_dir = NULL;
		free(dir);
	}
	if (!winpath_is_absolute(norm) && !tree_has_failure(res))
		snap_node(&c, root);

	/* commit or discard what this load mapped */
	for (i = 0; i < c.nnew; i++) {
		if (!res->winerror) {
			ALLOC_GROW(ld->mods, ld->nmods + 1, ld->amods);
			ld->mods[ld->nmods++] = c.newmods[i];
			imap_put(&ld->mods_by_base, c.newmods[i].base, ld->nmods);
			imap_put(&ld->mods_by_path, c.newmods[i].path, ld->nmods);
		} else {
			free(c.newmods[i].base);
			free(c.newmods[i].path);
		}
	}
	free(c.newmods);
	imap_release(&c.new_by_base);
	imap_release(&c.delay_seen);
	imap_release(&c.forwarders);
	free(norm);
	return 0;
}
