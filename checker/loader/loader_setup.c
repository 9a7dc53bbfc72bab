/*
 * loader_setup: one emulated process before and between its loads (the
 * loader module's set-up half; loader.h is its interface, loader_state.h
 * what its files share): loader_open/loader_free, KnownDLLs (the registry
 * of the view, or the list Windows ships), the AddDllDirectory folders and
 * the process's other settings, the Win32 normalisation of a folder as
 * Windows applies it to AddDllDirectory arguments and PATH entries
 * (ldr_win32_folder, ldr_path_entry_folder), the image cache (each file mapped and
 * parsed once per loader, or once per store for the loaders that share one,
 * cached even when it fails, its pages counted for loader_trim), and the trace
 * tree's nodes and probes
 * (docs/loader.md §5 says what a probe records).
 *
 * Nothing here resolves or maps a name: loader_search.c and loader.c build
 * on this file, which calls neither.
 */
#include "loader/loader.h"
#include "loader/loader_state.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/version.h"

/* Windows 10/11 x64 HKLM\...\Session Manager\KnownDLLs values (plus ntdll, always known). */
static const char *const builtin_known[] = {
	"advapi32.dll", "clbcatq.dll", "combase.dll", "comdlg32.dll", "coml2.dll", "difxapi.dll",
	"gdi32.dll", "gdiplus.dll", "imagehlp.dll", "imm32.dll", "kernel32.dll", "msctf.dll",
	"msvcrt.dll", "normaliz.dll", "nsi.dll", "ole32.dll", "oleaut32.dll", "psapi.dll",
	"rpcrt4.dll", "sechost.dll", "setupapi.dll", "shcore.dll", "shell32.dll", "shlwapi.dll",
	"user32.dll", "wldap32.dll", "wow64.dll", "wow64win.dll", "ws2_32.dll", "ntdll.dll",
	"kernelbase.dll",
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
	case LDR_NOT_A_FILE: return "not-a-file";
	}
	return "?";
}

/* ---- folder names ------------------------------------------------------------ */

/*
 * Win32 normalisation of `dir` ("File path formats on Windows systems":
 * Normalize separators, Trim characters): a segment ending in a single
 * period loses it; the last segment of the whole path loses its trailing
 * periods and spaces. `in_path`: `dir` is a folder a file name will be
 * appended to before normalisation (a PATH entry), so its last segment is
 * not the path's last and keeps its spaces.
 */
static char *win32_folder(const char *dir, int in_path)
{
	char *n = winpath_normalize(dir), *out, *o;
	const char *p;
	if (!strncmp(n, "\\\\?\\", 4))
		return n;
	out = o = xmalloc(strlen(n) + 1);
	for (p = n; *p;) {
		const char *e = strchr(p, '\\');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!e && !in_path)
			while (len && (p[len - 1] == '.' || p[len - 1] == ' '))
				len--; /* the last segment: trailing periods and spaces */
		else if (len >= 2 && p[len - 1] == '.' && p[len - 2] != '.')
			len--; /* a segment ending in a single period */
		memcpy(o, p, len);
		o += len;
		if (!e)
			break;
		*o++ = '\\';
		p = e + 1;
	}
	*o = '\0';
	free(n);
	return out;
}

char *ldr_win32_folder(const char *dir)
{
	return win32_folder(dir, 0);
}

char *ldr_path_entry_folder(const char *entry)
{
	return win32_folder(entry, 1);
}

/* ---- set-up ------------------------------------------------------------------ */

const char *ldr_sysdir(const struct loader *ld)
{
	return ld->machine == PE_MACHINE_I386 ? view_syswow64(ld->view) : view_system32(ld->view);
}

const char *ldr_sysdir_why(const struct loader *ld)
{
	return ld->machine == PE_MACHINE_I386 ? "the system folder of a 32-bit process (SysWOW64)" : "System32";
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

/* The API set schema of the native System32 (the loader's own, whatever the process), or the fallback. */
static void load_apiset(struct loader *ld)
{
	char *schema = winpath_join(view_system32(ld->view), "apisetschema.dll");
	char *host = view_host_path(ld->view, schema);
	struct ldr_images *s = ld->shared;
	if (host && view_is_file(ld->view, schema)) {
		struct err e;
		err_clear(&e);
		if (s && s->apiset_host && !strcmp(s->apiset_host, host)) {
			ld->apiset = s->apiset; /* parsed by an earlier loader of the store */
			ld->apiset_source = s->apiset_err ? xasprintf("built-in fallback (%s)", s->apiset_err) : xstrdup(schema);
			ld->apiset_borrowed = 1;
		} else if (apiset_load(&ld->apiset, host, &e) == 0) {
			ld->apiset_source = xstrdup(schema);
		} else {
			ld->apiset = apiset_fallback();
			ld->apiset_source = xasprintf("built-in fallback (%s)", e.msg);
		}
		if (s && !ld->apiset_borrowed && !s->apiset_host) { /* the store keeps the first schema */
			s->apiset_host = xstrdup(host);
			s->apiset = ld->apiset;
			s->apiset_err = e.msg[0] ? xstrdup(e.msg) : NULL;
			ld->apiset_borrowed = 1;
		}
	} else {
		ld->apiset = apiset_fallback();
		ld->apiset_source = xstrdup("built-in fallback");
	}
	free(host);
	free(schema);
}

int loader_open(struct loader **out, struct view *view, const char *app_dir, uint16_t machine, struct err *err)
{
	return loader_open_shared(out, view, app_dir, machine, NULL, err);
}

int loader_open_shared(struct loader **out, struct view *view, const char *app_dir, uint16_t machine,
		       struct ldr_images *shared, struct err *err)
{
	struct loader *ld = xcalloc(1, sizeof(*ld));
	ld->view = view;
	ld->machine = machine ? machine : PE_MACHINE_AMD64;
	ld->app_dir = app_dir ? winpath_normalize(app_dir) : NULL;
	ld->dld_mode = LDR_DLD_TOP;
	ld->shared = shared;
	ld->serial = shared ? ++shared->serial + 1 : 1; /* 1 is every unshared loader's */
	strmap_init(&ld->mods_by_base, STRMAP_ICASE);
	strmap_init(&ld->mods_by_path, STRMAP_ICASE);
	strmap_init(&ld->image_index, STRMAP_ICASE);
	ld->no_system = !view_is_dir(view, ldr_sysdir(ld));
	load_apiset(ld);
	load_known_dlls(ld);
	(void)err;
	*out = ld;
	return 0;
}

static void image_free(struct ldr_image *im)
{
	size_t i;
	for (i = 0; im->bound && i < im->img->nimports + im->img->ndelay_imports; i++)
		free(im->bound[i].redo); /* bound is made for parsed images only */
	free(im->bound);
	strmap_release(&im->found);
	free(im->found_v);
	if (im->img)
		pe_close(im->img);
	free(im->win);
	free(im->host);
	free(im->err_msg);
	free(im->version);
	free(im);
}

void loader_free(struct loader *ld)
{
	size_t i;
	if (!ld)
		return;
	if (!ld->apiset_borrowed)
		apiset_free(ld->apiset);
	free(ld->apiset_source);
	strlist_release(&ld->known);
	free(ld->app_dir);
	free(ld->cur_dir);
	strlist_release(&ld->user_dirs);
	strlist_release(&ld->user_whys);
	free(ld->dll_directory);
	free(ld->dll_directory_why);
	for (i = 0; i < ld->nmods; i++) {
		free(ld->mods[i].base);
		free(ld->mods[i].path);
		strlist_release(&ld->mods[i].order_candidates);
		free(ld->mods[i].order_dll);
	}
	free(ld->mods);
	strmap_release(&ld->mods_by_base);
	strmap_release(&ld->mods_by_path);
	for (i = 0; !ld->shared && i < ld->nimages; i++)
		image_free(ld->images[i]);
	free(ld->images);
	strmap_release(&ld->image_index);
	free(ld->hot);
	free(ld->host_error);
	free(ld->limit_error);
	free(ld);
}

void loader_add_dll_directory(struct loader *ld, const char *win_dir)
{
	strlist_push_owned(&ld->user_dirs, ldr_win32_folder(win_dir)); /* AddDllDirectory normalises the folder */
	strlist_push(&ld->user_whys, "");
}

void loader_label_user_dirs(struct loader *ld, const char *why)
{
	size_t i;
	for (i = 0; i < ld->user_whys.n; i++)
		if (!ld->user_whys.v[i][0]) {
			free(ld->user_whys.v[i]);
			ld->user_whys.v[i] = xstrdup(why);
		}
}

void loader_set_dll_directory(struct loader *ld, const char *win_dir, const char *why)
{
	free(ld->dll_directory);
	free(ld->dll_directory_why);
	ld->dll_directory = ldr_win32_folder(win_dir);
	ld->dll_directory_why = xstrdup(why);
	/* LOAD_LIBRARY_SEARCH_USER_DIRS searches it with the AddDllDirectory folders */
	loader_add_dll_directory(ld, win_dir);
	loader_label_user_dirs(ld, why);
}

void loader_set_default_dll_directories(struct loader *ld, unsigned flags)
{
	ld->default_dirs = flags & LDR_SEARCH_MASK;
}

void loader_label_path_prefix(struct loader *ld, size_t n, const char *why)
{
	ld->path_prefix_n = why ? n : 0;
	ld->path_prefix_why = why;
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

void loader_set_delay_own_folder(struct loader *ld, int (*own_folder)(void *ctx, const char *name), void *ctx)
{
	ld->delay_own_folder = own_folder;
	ld->delay_own_ctx = ctx;
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

/* Remembers that im's pages may be resident again (for loader_trim). */
struct ldr_image *ldr_image_touch(struct loader *ld, struct ldr_image *im)
{
	if (im->hot != ld->serial) {
		im->hot = ld->serial;
		ALLOC_GROW(ld->hot, ld->nhot + 1, ld->ahot);
		ld->hot[ld->nhot++] = im;
	}
	return im;
}

/* The image of a Windows path mapped and parsed (kept even when it fails). */
static struct ldr_image *image_open(struct loader *ld, const char *win_path)
{
	struct ldr_image *im = xcalloc(1, sizeof(*im));
	struct err e;
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
	} else if (im->img->version.present && im->img->version.has_fixed) {
		char buf[WINVER_DOTTED_MAX];
		im->version = xstrdup(winver_dotted(buf, im->img->version.file));
	}
	return im;
}

/*
 * The parsed image of a Windows path, opened once per loader (cached even
 * when it fails), or once per store for loaders that share one.
 */
struct ldr_image *ldr_image_get(struct loader *ld, const char *win_path)
{
	struct ldr_images *s = ld->shared;
	struct ldr_image *im;
	size_t i;
	if (strmap_get(&ld->image_index, win_path, &i))
		return ldr_image_touch(ld, ld->images[i]);
	if (s && strmap_get(&s->index, win_path, &i)) {
		im = s->v[i];
	} else {
		im = image_open(ld, win_path);
		if (s) {
			ALLOC_GROW(s->v, s->n + 1, s->alloc);
			strmap_add(&s->index, im->win, s->n);
			s->v[s->n++] = im;
		}
	}
	/* the host's error (EACCES, EIO), not a Windows verdict on the file: each loader's own */
	if (!im->img && im->err_code == PE_ERR_IO && !ld->host_error)
		ld->host_error = xstrdup(im->err_msg);
	ld->touched += LDR_OPEN_PAGES;
	ALLOC_GROW(ld->images, ld->nimages + 1, ld->aimages);
	strmap_add(&ld->image_index, im->win, ld->nimages);
	ld->images[ld->nimages++] = im;
	return ldr_image_touch(ld, im);
}

struct ldr_images *loader_images_new(void)
{
	struct ldr_images *s = xcalloc(1, sizeof(*s));
	strmap_init(&s->index, STRMAP_ICASE);
	return s;
}

void loader_images_free(struct ldr_images *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		image_free(s->v[i]);
	free(s->v);
	strmap_release(&s->index);
	if (s->apiset_host)
		apiset_free(s->apiset);
	free(s->apiset_host);
	free(s->apiset_err);
	free(s);
}


const char *loader_file_version(struct loader *ld, const char *win_path)
{
	return ldr_image_get(ld, win_path)->version;
}

/* ---- nodes ---------------------------------------------------------------------- */

struct ldr_node *ldr_node_new(const char *name, struct ldr_node *parent)
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
		free(n->probes[i].why);
		free(n->probes[i].result);
	}
	free(n->probes);
	strlist_release(&n->missing);
	strlist_release(&n->shadowed);
	strlist_release(&n->order_candidates);
	free(n->name);
	free(n->path);
	free(n->apiset_host);
	free(n->detail);
	free(n->version);
	free(n);
}

/* Why a place of a fixed step is searched; the search folders carry their own (struct search_dir). */
static const char *step_why(const char *step)
{
	static const struct { const char *step, *why; } t[] = {
		{ "full path", "the path given" },
		{ "API set", "an API set contract, resolved by the schema" },
		{ "loaded-module list", "already loaded in the process" },
		{ "KnownDLLs", "a KnownDLL: always System32's copy" },
	};
	size_t i;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(step, t[i].step))
			return t[i].why;
	return step;
}

void ldr_probe_add(struct ldr_node *n, const char *path, const char *step, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	ALLOC_GROW(n->probes, n->nprobes + 1, n->aprobes);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	n->probes[n->nprobes].path = xstrdup(path);
	n->probes[n->nprobes].step = step;
	n->probes[n->nprobes].why = xstrdup(step_why(step));
	n->probes[n->nprobes].minor = 0;
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
	size_t n = 0, i, first = out->n;
	for (p = node; p; p = p->parent, n++)
		strlist_push(out, p->parent ? p->name : winpath_basename(p->name));
	/* pushed leaf first: reverse into root-first order */
	for (i = 0; i < n / 2; i++) {
		char *t = out->v[first + i];
		out->v[first + i] = out->v[first + n - 1 - i];
		out->v[first + n - 1 - i] = t;
	}
}
