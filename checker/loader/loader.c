/*
 * loader: what the Windows loader does with LoadLibraryExW, emulated over a
 * view of the machine, statically (nothing is executed).
 *
 * The procedure, its sources and every undocumented choice are written
 * once, in docs/loader.md (section 5: names, API sets, the loaded-module
 * list, KnownDLLs, the search orders, mapping then snapping, forwarders,
 * machines, delay loads, process state; section 5.3: what Windows leaves
 * open). This file follows that text; its comments only say how.
 *
 * How, in short: resolve() finds one name (API set, loaded-module list,
 * KnownDLLs, search folders) and map_found()/expand() map its static and
 * delay imports depth-first; snap_node()/find_export() then bind every
 * imported name and ordinal, following forwarders. No fixed limits: import
 * cycles end at the loaded-module list (modules mapped by this load
 * included), forwarder loops at the set of forwarders being followed.
 * loader_load() evaluates a load once more with the AddDllDirectory folders
 * in the opposite order when two of them held a needed name, and commits
 * the mapped modules to the loaded-module list only when the load succeeds.
 *
 * Performance: each file is mapped once and parsed once per loader (cache
 * keyed by Windows path, loader_setup.c); export lookups are lazy binary
 * searches in pe_exports.c; directory listings are cached by the view.
 *
 * This file is one load; the process it runs in (set-up, KnownDLLs, the
 * image cache, trace nodes and probes) is loader_setup.c, the search
 * orders loader_search.c, and what the three share loader_state.h.
 */
#include "loader/loader.h"
#include "loader/loader_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/os.h"

/* Other OS DLLs assumed present when the view has no System32 (never the VC++ runtimes). */
static const char *const builtin_system[] = {
	"ucrtbase.dll", "bcrypt.dll", "crypt32.dll", "dbghelp.dll", "version.dll", "winmm.dll",
	"iphlpapi.dll", "secur32.dll", "userenv.dll", "ncrypt.dll", "dxgi.dll", "d3d11.d3d12.dll",
	"d3d12.dll", "d3d11.dll", "wintrust.dll", "powrprof.dll", "dwmapi.dll", "uxtheme.dll",
	"cfgmgr32.dll", "bcryptprimitives.dll", "ntmarta.dll", "mswsock.dll", "dnsapi.dll",
	"winhttp.dll", "wininet.dll", "comctl32.dll", "opengl32.dll", "glu32.dll", "netapi32.dll",
};

static int in_list(const char *const *list, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (!str_icmp(list[i], name))
			return 1;
	return 0;
}

/* ---- one load --------------------------------------------------------------- */

/*
 * The forwarder nodes of one load by (module node, target DLL name), so that
 * 65,535 exports forwarding to distinct DLLs cost one lookup each, not a
 * walk of the module's kids each (which was quadratic: 35 s).
 */
struct fwd_ent {
	const struct ldr_node *parent; /* NULL: empty slot */
	struct ldr_node *fw;
};

struct fwd_map {
	struct fwd_ent *v;
	size_t n, cap;
};

static size_t fwd_hash(const struct ldr_node *parent, const char *name)
{
	return strmap_hash(name, STRMAP_ICASE) ^ ((size_t)(uintptr_t)parent * (size_t)0x9E3779B97F4A7C15ULL);
}

static struct fwd_ent *fwd_slot(const struct fwd_map *m, const struct ldr_node *parent, const char *name)
{
	size_t mask = m->cap - 1, h;
	for (h = fwd_hash(parent, name) & mask; m->v[h].parent; h = (h + 1) & mask)
		if (m->v[h].parent == parent && !str_icmp(m->v[h].fw->name, name))
			break;
	return &m->v[h];
}

static struct ldr_node *fwd_get(const struct fwd_map *m, const struct ldr_node *parent, const char *name)
{
	return m->cap ? fwd_slot(m, parent, name)->fw : NULL;
}

static void fwd_put(struct fwd_map *m, const struct ldr_node *parent, struct ldr_node *fw)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct fwd_map old = *m;
		size_t i;
		m->cap = m->cap ? m->cap * 2 : 64;
		m->v = xcalloc(m->cap, sizeof(*m->v));
		for (i = 0; i < old.cap; i++)
			if (old.v[i].parent)
				*fwd_slot(m, old.v[i].parent, old.v[i].fw->name) = old.v[i];
		free(old.v);
	}
	*fwd_slot(m, parent, fw->name) = (struct fwd_ent){ parent, fw };
	m->n++;
}

/* One forwarder being followed: its module's path and the symbol: its name, or (sym NULL) "#ordinal". */
struct fwd_frame {
	const char *path, *sym;
	char ord[16];
};

struct load_ctx {
	struct loader *ld;
	struct ldr_result *res;
	const char *top_dir;        /* directory of the DLL given to LoadLibraryExW */
	struct ldr_module *newmods; /* mapped by this load, in order */
	size_t nnew, anew;
	struct strmap new_by_base, new_by_path; /* name → index into newmods[] (STRMAP_ICASE) */
	struct strlist delay_seen;  /* delay-loaded module paths already expanded */
	struct fwd_frame *fwd_keys; /* the forwarders being followed (module, symbol): loop guard */
	size_t nfwd_keys, afwd_keys;
	struct fwd_map forwarders;  /* (module node, target DLL) -> the forwarder's node */
	int user_dirs_order;        /* AddDllDirectory folders: 0 as added, -1 last-added first, k rotated by k */
	int as_exe;                 /* LDR_AS_PROCESS_EXE: the root's imports are mapped even if it is no DLL */
	/* the images find_export looked up last: a node's imports are snapped one function after another,
	   and a forwarded one goes to its target and back */
	struct ldr_image *exp_im[2];
};

/* The first module of `mods` whose name (base or path, as the map `x` is keyed) is `key`; NULL if none. */
static struct ldr_module *mod_find(const struct strmap *x, struct ldr_module *mods, const char *key)
{
	size_t i;
	return strmap_get(x, key, &i) ? &mods[i] : NULL;
}

static const struct ldr_module *find_loaded_module(const struct loader *ld, const char *base)
{
	return mod_find(&ld->mods_by_base, ld->mods, base);
}

static const char *find_loaded(const struct loader *ld, const struct load_ctx *c, const char *base)
{
	const struct ldr_module *m = find_loaded_module(ld, base);
	if (m)
		return m->path;
	m = c ? mod_find(&c->new_by_base, c->newmods, base) : NULL;
	return m ? m->path : NULL;
}

const char *loader_host_error(const struct loader *ld)
{
	return ld->host_error ? ld->host_error : ld->limit_error;
}

/*
 * The budget of estimated touches is spent: drop the touched mappings'
 * pages if the process's file-backed resident memory is over
 * LDR_RESIDENT_MAX, and start counting again either way (the searches
 * shared their pages).
 */
static void loader_trim_if_large(struct loader *ld)
{
	size_t res = os_resident_file_bytes();
	if (res == (size_t)-1 || res > LDR_RESIDENT_MAX)
		loader_trim(ld);
	else
		ld->touched = 0;
}

void loader_trim(struct loader *ld)
{
	/* only what was touched since the last trim: the rest is dropped already (a walk of every image per load was quadratic) */
	size_t i;
	ld->touched = 0;
	for (i = 0; i < ld->nhot; i++) {
		if (ld->hot[i]->img)
			os_drop_pages(ld->hot[i]->img->file.p, ld->hot[i]->img->file.len);
		if (ld->hot[i]->hot == ld->serial) /* not another loader's since (a shared image) */
			ld->hot[i]->hot = 0;
	}
	ld->nhot = 0;
}

size_t loader_nmodules(const struct loader *ld)
{
	return ld->nmods;
}

const char *loader_module(const struct loader *ld, size_t i, const struct pe_image **img)
{
	size_t k;
	*img = NULL;
	if (i >= ld->nmods)
		return NULL;
	/* every module was mapped through the image cache: a lookup, no touch, no parse */
	if (strmap_get(&ld->image_index, ld->mods[i].path, &k))
		*img = ld->images[k]->img;
	return ld->mods[i].path;
}

int loader_is_loaded(const struct loader *ld, const char *base)
{
	return find_loaded(ld, NULL, base) != NULL;
}

static int loaded_before(const struct loader *ld, const char *base)
{
	return find_loaded_module(ld, base) != NULL;
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
	struct ldr_image *im = ldr_image_get(c->ld, path);
	if (!im->img) {
		ldr_probe_add(node, path, step, "unreadable: %s", im->err_msg);
		node->detail = xstrdup(im->err_msg);
		return -1;
	}
	if (!pe_machine_compatible(c->ld->machine, im->img->machine)) {
		if (top) {
			ldr_probe_add(node, path, step, "wrong machine %s", pe_machine_name(im->img->machine));
			return -2;
		}
		ldr_probe_add(node, path, step, "wrong machine %s, skipped", pe_machine_name(im->img->machine));
		*saw_wrong_arch = 1;
		if (!node->detail)
			node->detail = xasprintf("%s is %s, the process is %s", path,
						 pe_machine_name(im->img->machine),
						 pe_machine_name(c->ld->machine));
		return 0;
	}
	ldr_probe_add(node, path, step, "found");
	return 1;
}

static void expand(struct load_ctx *c, struct ldr_node *node, unsigned flags);

/* Whether the module at a Windows path is loaded (earlier, or by this load): 2 earlier, 1 this load, 0 no. */
static int loaded_path(const struct load_ctx *c, const char *path)
{
	if (mod_find(&c->ld->mods_by_path, c->ld->mods, path))
		return 2;
	return mod_find(&c->new_by_path, c->newmods, path) ? 1 : 0;
}

static void map_found(struct load_ctx *c, struct ldr_node *node, const char *path, unsigned flags)
{
	struct ldr_image *im = ldr_image_get(c->ld, path);
	int already = node->delay ? 0 : loaded_path(c, path);
	flags &= ~LDR_DELAY_OWN_FOLDER; /* the hook's own-folder try is for the delay-loaded DLL, not its imports */
	node->path = xstrdup(path);
	node->machine = im->img ? im->img->machine : 0;
	if (im->version)
		node->version = xstrdup(im->version);
	if (already) {
		/* a name with a path that leads to a module already mapped: that module */
		node->dup = 1;
		node->preloaded = already == 2;
		return;
	}
	if (node->delay) {
		if (strlist_has_icase(&c->delay_seen, path)) {
			node->dup = 1;
			return;
		}
		strlist_push(&c->delay_seen, path);
	} else {
		ALLOC_GROW(c->newmods, c->nnew + 1, c->anew);
		memset(&c->newmods[c->nnew], 0, sizeof(c->newmods[c->nnew]));
		c->newmods[c->nnew].base = xstrdup(winpath_basename(path));
		c->newmods[c->nnew].path = xstrdup(path);
		c->nnew++;
		strmap_add(&c->new_by_base, c->newmods[c->nnew - 1].base, c->nnew - 1);
		strmap_add(&c->new_by_path, c->newmods[c->nnew - 1].path, c->nnew - 1);
	}
	expand(c, node, flags);
}

/*
 * A name in a search folder. A relative path ("sub\\x.dll") is appended to
 * the folder whole, as LoadLibrary documents for every search-path entry.
 */
static int find_in_dir(struct view *v, const char *dir, const char *name, char **out)
{
	char *sub, *full;
	int r;
	if (!strchr(name, '\\'))
		return view_find_file(v, dir, name, out);
	full = winpath_join(dir, name);
	sub = winpath_dirname(full);
	r = view_find_file(v, sub, winpath_basename(full), out);
	free(sub);
	free(full);
	return r;
}

/*
 * The name a DLL is searched for (docs/loader.md, "Names"): LdrLoadDll
 * appends ".dll" when the last component has no '.' (a trailing '.' is how
 * a caller says "no extension"), then Win32 path normalisation turns '/'
 * into '\\' and drops trailing dots and spaces of the last component, so
 * "plaindep2." is the file "plaindep2" and "dep.dll " the file "dep.dll".
 * A "\\?\\" name skips Win32 normalisation: the prefix is dropped and
 * the rest is taken as it is.
 */
char *ldr_dll_name_normalize(const char *name)
{
	char *n, *base;
	size_t len;
	if (!strncmp(name, "\\\\?\\", 4))
		return xstrdup(name + 4);
	n = xstrdup(name);
	for (base = n; *base; base++)
		if (*base == '/')
			*base = '\\';
	base = (char *)winpath_basename(n);
	if (!strchr(base, '.')) {
		char *withext = xasprintf("%s.dll", n);
		free(n);
		return withext;
	}
	len = strlen(base);
	while (len && (base[len - 1] == '.' || base[len - 1] == ' '))
		base[--len] = '\0';
	return n;
}

/*
 * What a probe that found no file says: "not found", or, for a symbolic link
 * that leads outside --root (view.h), that it was not followed.
 */
static const char *not_found(struct view *v, const char *dir, const char *name)
{
	return view_outside_link(v, dir, name, NULL) ? LDR_PROBE_OUTSIDE_ROOT : "not found";
}

/* A dependency named by full path: loaded from there, no search. */
static void resolve_full_path(struct load_ctx *c, struct ldr_node *node, unsigned flags)
{
	const char *name = node->name;
	char *dir = winpath_dirname(name), *p = NULL;
	int saw_wrong_arch = 0;
	node->via = "full path";
	if (!view_find_file(c->ld->view, dir, winpath_basename(name), &p)) {
		ldr_probe_add(node, name, "full path", "%s", not_found(c->ld->view, dir, winpath_basename(name)));
		set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
	} else {
		int ok = candidate_ok(c, node, p, "full path", 0, &saw_wrong_arch);
		if (ok == 1) {
			map_found(c, node, p, flags);
		} else {
			node->path = xstrdup(p);
			set_fail(c, node, ok < 0 ? LDR_UNREADABLE : LDR_BAD_ARCH, WINERR_BAD_EXE_FORMAT, NULL);
		}
	}
	free(p);
	free(dir);
}

/*
 * 1. API sets: *name becomes the host (borrowed from the node). Returns 1
 * when the node is settled (no host: ignored or failed), 0 to go on.
 */
static int resolve_apiset(struct load_ctx *c, struct ldr_node *node, const char *importer_path, const char **name)
{
	const char *host = NULL;
	const char *importer_base = importer_path ? winpath_basename(importer_path) : NULL;
	int r;
	if (!apiset_is_contract(*name))
		return 0;
	r = apiset_resolve(c->ld->apiset, *name, importer_base, &host);
	if (r == 1) {
		ldr_probe_add(node, *name, "API set", "-> %s", host);
		node->apiset_host = xstrdup(host);
		*name = node->apiset_host;
		return 0;
	}
	if (r != 0) {
		ldr_probe_add(node, *name, "API set", "not in the schema, searched as a file");
		return 0;
	}
	ldr_probe_add(node, *name, "API set", "contract without a host");
	if (str_istartswith(*name, "ext-") && is_system_path(c->ld, importer_path)) {
		node->via = "API set";
		node->assumed = 1;
		node->detail = xstrdup("optional extension contract without a host (ignored)");
		return 1;
	}
	node->detail = xstrdup("API set contract has no host on this machine");
	set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
	return 1;
}

/* 2. The loaded-module list (earlier loads, then this one: how cycles end). Returns 1 when found. */
static int resolve_loaded(struct load_ctx *c, struct ldr_node *node, const char *name)
{
	struct loader *ld = c->ld;
	const char *loaded = find_loaded(ld, c, name);
	const struct ldr_module *m;
	struct ldr_image *im;
	if (!loaded)
		return 0;
	ldr_probe_add(node, loaded, "loaded-module list", "found");
	node->via = "loaded-module list";
	node->path = xstrdup(loaded);
	node->preloaded = loaded_before(ld, name);
	node->dup = 1;
	/* a module whose own load was order-dependent: so is every load that uses it */
	m = find_loaded_module(ld, name);
	if (m && m->order_dependent && !c->res->order_dependent) {
		c->res->order_ambiguous = c->res->order_dependent = 1;
		c->res->alt_winerror = m->alt_winerror;
		c->res->alt_outcome = m->alt_outcome;
		strlist_copy(&node->order_candidates, &m->order_candidates);
		free(node->detail);
		node->detail = xasprintf("loaded earlier by a load that depends on which copy of %s Windows takes",
					 m->order_dll);
		if (!c->res->ambiguous_node)
			c->res->ambiguous_node = node;
	}
	im = ldr_image_get(ld, loaded);
	node->machine = im->img ? im->img->machine : 0;
	if (im->version)
		node->version = xstrdup(im->version);
	return 1;
}

/* 3. KnownDLLs: always from System32, whatever another folder holds. Returns 1 when the name is one. */
static int resolve_known(struct load_ctx *c, struct ldr_node *node, const char *name, unsigned flags)
{
	struct loader *ld = c->ld;
	char *p = NULL;
	if (!strlist_has_icase(&ld->known, name))
		return 0;
	node->via = "KnownDLLs";
	if (view_find_file(ld->view, ldr_sysdir(ld), name, &p)) {
		ldr_probe_add(node, p, "KnownDLLs", "found");
		map_found(c, node, p, flags);
		free(p);
		return 1;
	}
	p = winpath_join(ldr_sysdir(ld), name);
	if (ld->no_system) {
		ldr_probe_add(node, p, "KnownDLLs", "assumed (no System32 in this tree)");
		node->assumed = 1;
		node->path = p;
		return 1;
	}
	ldr_probe_add(node, p, "KnownDLLs", "not found");
	free(p);
	node->detail = xstrdup("a KnownDLL missing from System32");
	set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
	return 1;
}

/* A later copy the winner shadows; two in AddDllDirectory folders make the order matter. */
static void note_later_copy(struct load_ctx *c, struct ldr_node *node, const char *found, const char *p,
			    const char *step)
{
	if (!str_icmp(found, p))
		return;
	strlist_push(&node->shadowed, p);
	if (!strcmp(step, "USER_DIRS") && node->via && !strcmp(node->via, "USER_DIRS")) {
		if (!node->order_candidates.n)
			strlist_push(&node->order_candidates, found);
		strlist_push(&node->order_candidates, p);
		c->res->order_ambiguous = 1;
		if (!c->res->ambiguous_node)
			c->res->ambiguous_node = node;
	}
}

/* 4. The search folders of `flags`, in order; the first usable file wins. */
static void resolve_search(struct load_ctx *c, struct ldr_node *node, const char *name, unsigned flags,
			   const char *dll_dir)
{
	struct loader *ld = c->ld;
	struct search_dir *dirs;
	size_t ndirs, i;
	int saw_wrong_arch = 0, ok;
	char *found = NULL;

	ndirs = ldr_search_dirs(ld, flags, dll_dir, c->user_dirs_order, &dirs);
	for (i = 0; i < ndirs; i++) {
		char *p = NULL;
		if (!found && !dirs[i].skip && !strchr(name, '\\') && view_has_dir_entry(ld->view, dirs[i].dir, name)) {
			/*
			 * A folder of that name: the search finds it (the loader tests for
			 * existence, not for a file) and opening it fails with
			 * STATUS_FILE_IS_A_DIRECTORY, WinError 5 [I: Wine stops the search
			 * there, scenario folder_on_search_path].
			 */
			char *tried = winpath_join(dirs[i].dir, name);
			ldr_probe_add(node, tried, dirs[i].step, "a folder, not a file");
			ldr_probe_label(node, &dirs[i]);
			node->path = tried;
			node->detail = xasprintf("%s is a folder", tried);
			ldr_free_dirs(dirs, ndirs);
			set_fail(c, node, LDR_NOT_A_FILE, WINERR_ACCESS_DENIED, NULL);
			return;
		}
		if (dirs[i].skip || !find_in_dir(ld->view, dirs[i].dir, name, &p)) {
			char *tried = winpath_join(dirs[i].dir, name);
			if (!found) {
				ldr_probe_add(node, tried, dirs[i].step, "%s%s%s%s",
					  dirs[i].skip ? dirs[i].skip : not_found(ld->view, dirs[i].dir, name),
					  dirs[i].note ? " (" : "",
					  dirs[i].note ? dirs[i].note : "", dirs[i].note ? ")" : "");
				ldr_probe_label(node, &dirs[i]);
			}
			free(tried);
			continue;
		}
		if (found) {
			note_later_copy(c, node, found, p, dirs[i].step);
			free(p);
			continue;
		}
		ok = candidate_ok(c, node, p, dirs[i].step, 0, &saw_wrong_arch);
		ldr_probe_label(node, &dirs[i]);
		if (ok == 1) {
			found = p;
			node->via = dirs[i].step;
			continue;
		}
		if (ok < 0) {
			node->path = p;
			ldr_free_dirs(dirs, ndirs);
			set_fail(c, node, LDR_UNREADABLE, WINERR_BAD_EXE_FORMAT, NULL);
			return;
		}
		free(p);
	}
	ldr_free_dirs(dirs, ndirs);
	if (found) {
		map_found(c, node, found, flags);
		free(found);
	} else if (ld->no_system &&
		   (node->apiset_host || in_list(builtin_system, sizeof(builtin_system) / sizeof(builtin_system[0]),
						 name))) {
		node->assumed = 1;
		node->via = "assumed";
		node->detail = xstrdup("a Windows system DLL, assumed present (no System32 in this tree)");
	} else if (saw_wrong_arch) {
		/* the remembered STATUS_INVALID_IMAGE_FORMAT (c000007b) is the load's status */
		set_fail(c, node, LDR_BAD_ARCH, WINERR_BAD_EXE_FORMAT, NULL);
	} else {
		set_fail(c, node, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
	}
}

/*
 * Resolves `node->name` (a DLL name, or a path) imported by `importer` and,
 * when found, maps it and its static imports (depth-first): the steps of
 * docs/loader.md §5.2, after the name is normalised (§5.1).
 */
static void resolve(struct load_ctx *c, struct ldr_node *node, const char *importer_path, unsigned flags,
		    const char *dll_dir)
{
	char *norm = ldr_dll_name_normalize(node->name);
	const char *name;
	const struct ldr_node *up;
	size_t depth = 0;
	free(node->name);
	node->name = norm;
	name = node->name;
	for (up = node->parent; up && depth <= LDR_MAX_DEPTH; up = up->parent)
		depth++;
	if (depth > LDR_MAX_DEPTH) {
		node->detail = xasprintf("an import chain more than %d imports deep (%s imports %s): "
					 "not followed (a limit of this tool, not of Windows)",
					 LDR_MAX_DEPTH, node->parent->path ? node->parent->path : node->parent->name, name);
		if (!c->ld->limit_error)
			c->ld->limit_error = xstrdup(node->detail);
		set_fail(c, node, LDR_UNREADABLE, WINERR_BAD_EXE_FORMAT, NULL);
		return;
	}
	if (winpath_is_absolute(name)) {
		resolve_full_path(c, node, flags);
		return;
	}
	if (resolve_apiset(c, node, importer_path, &name) || /* 1 */
	    resolve_loaded(c, node, name) ||                 /* 2 */
	    resolve_known(c, node, name, flags))             /* 3 */
		return;
	resolve_search(c, node, name, flags, dll_dir);       /* 4 */
}

/* Maps the static (and delay) imports of a found module. */
static void expand(struct load_ctx *c, struct ldr_node *node, unsigned flags)
{
	struct ldr_image *im = ldr_image_get(c->ld, node->path);
	const struct pe_image *img = im->img;
	unsigned dep_flags = flags;
	char *dir, *dll_dir;
	size_t i;
	if (!img)
		return;
	/* LoadLibraryExW of an executable image: "static imports are not loaded" */
	if (!node->parent && !c->as_exe && !(img->characteristics & PE_FILE_DLL))
		return;
	if (img->has_dependent_load_flags && img->dependent_load_flags)
		dep_flags = img->dependent_load_flags;
	dir = winpath_dirname(node->path);
	dll_dir = (c->ld->dld_mode == LDR_DLD_IMPORTER || dep_flags != flags) ? dir : (char *)c->top_dir;
	for (i = 0; i < img->nimports; i++) {
		struct ldr_node *kid = ldr_node_new(img->imports[i].dll, node);
		kid->delay = node->delay;
		kid->forwarder = 0;
		resolve(c, kid, node->path, dep_flags, dll_dir);
	}
	for (i = 0; i < img->ndelay_imports; i++) {
		struct ldr_node *kid = ldr_node_new(img->delay_imports[i].dll, node);
		kid->delay = 1;
		/* the delay-load helper calls LoadLibraryExA(name, NULL, 0); some DLLs' hook tries their folder first */
		if (c->ld->delay_own_folder && c->ld->delay_own_folder(c->ld->delay_own_ctx, winpath_basename(node->path)))
			resolve(c, kid, node->path, LDR_DELAY_OWN_FOLDER, dir);
		else
			resolve(c, kid, node->path, 0, NULL);
	}
	free(dir);
}

/* ---- snapping --------------------------------------------------------------------- */

static void snap_node(struct load_ctx *c, struct ldr_node *node);

/* The image of a module find_export looks in: one of the last two needs no hash of its path. */
static struct ldr_image *exp_image(struct load_ctx *c, const char *path)
{
	struct ldr_image *im = c->exp_im[0];
	if (im && !strcmp(im->win, path))
		return ldr_image_touch(c->ld, im);
	im = c->exp_im[1];
	if (!im || strcmp(im->win, path))
		im = ldr_image_get(c->ld, path);
	else
		ldr_image_touch(c->ld, im);
	c->exp_im[1] = c->exp_im[0];
	c->exp_im[0] = im;
	return im;
}

/* Whether the forwarder (path, sym) is being followed already (as "path|sym", case-insensitively). */
static int fwd_following(const struct load_ctx *c, const char *path, const char *sym)
{
	size_t i;
	for (i = 0; i < c->nfwd_keys; i++)
		if (!str_icmp(c->fwd_keys[i].path, path) &&
		    !str_icmp(c->fwd_keys[i].sym ? c->fwd_keys[i].sym : c->fwd_keys[i].ord, sym))
			return 1;
	return 0;
}

/*
 * A name a forwarder's target exports (looked up without a hint): kept by its
 * image, keyed by the export's own name (bytes of the image), so that the next
 * run that follows the forwarder (a machine profile's) finds it without the
 * binary search.
 */
static void remember_found(struct ldr_image *im, const struct pe_export *ex)
{
	if (!im->found.cap)
		strmap_init(&im->found, 0);
	ALLOC_GROW(im->found_v, im->nfound + 1, im->afound);
	if (!strmap_add(&im->found, ex->name, im->nfound))
		im->found_v[im->nfound++] = *ex;
}

/*
 * Finds `func` in the module of `exp_node`, following forwarders; 1 found, 0
 * missing (reported). `known_fwd`: the forwarder this very lookup found in
 * that module's image before (snap_node's binding), so not looked up again;
 * *fwd_out (fwd_out not NULL): the forwarder found there, if one was.
 */
static int find_export(struct load_ctx *c, struct ldr_node *exp_node, const char *known_fwd,
		       const char *fname, uint32_t ordinal, int by_ordinal, int hint, int level, const char **fwd_out)
{
	struct ldr_image *im;
	struct pe_export ex;
	struct err e;
	size_t i;
	int r, searched = 1;
	if (exp_node->assumed || !exp_node->path)
		return 1;
	im = exp_image(c, exp_node->path);
	if (!im->img)
		return 1; /* reported as unreadable already */
	err_clear(&e);
	if (known_fwd) {
		memset(&ex, 0, sizeof(ex));
		ex.forwarder = known_fwd;
		r = 1;
		searched = 0;
	} else if (by_ordinal) {
		r = pe_export_by_ordinal(im->img, ordinal, &ex, &e);
	} else if (hint < 0 && im->found.cap && strmap_get(&im->found, fname, &i)) {
		ex = im->found_v[i]; /* a forwarder's target looked up before */
		r = 1;
		searched = 0;
	} else {
		r = pe_export_by_name(im->img, fname, hint, &ex, &e);
		if (r == 1 && hint < 0 && ex.name && !strcmp(ex.name, fname))
			remember_found(im, &ex);
	}
	if (searched) { /* the pages its search may have touched */
		uint32_t names = im->img->export_name_count;
		size_t pages = 2;
		while (names) {
			pages++;
			names >>= 1;
		}
		c->ld->touched += pages;
		if (c->ld->touched > LDR_TRIM_PAGES)
			loader_trim_if_large(c->ld);
	}
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
		char *dll, *target;
		struct ldr_node *fw;
		struct fwd_frame *key;
		int loop, ret;
		if (fwd_out)
			*fwd_out = ex.forwarder;
		ALLOC_GROW(c->fwd_keys, c->nfwd_keys + 1, c->afwd_keys);
		key = &c->fwd_keys[c->nfwd_keys];
		key->path = exp_node->path;
		key->sym = by_ordinal ? NULL : fname;
		if (by_ordinal)
			snprintf(key->ord, sizeof(key->ord), "#%u", ordinal);
		/* a loop is the same module and symbol again while it is being followed: no depth limit */
		loop = fwd_following(c, key->path, key->sym ? key->sym : key->ord);
		if (!dot || loop) {
			char *sym = by_ordinal ? xasprintf("#%u", ordinal) : xstrdup(fname);
			strlist_push(&exp_node->missing, sym);
			exp_node->detail = xasprintf("forwarder %s %s", ex.forwarder,
						     dot ? "forms a loop" : "is malformed");
			set_fail(c, exp_node, LDR_MISSING_ENTRY, WINERR_PROC_NOT_FOUND, sym);
			free(sym);
			return 0;
		}
		c->nfwd_keys++;
		dll = xstrndup(ex.forwarder, (size_t)(dot - ex.forwarder));
		target = str_iendswith(dll, ".dll") ? xstrdup(dll) : xasprintf("%s.dll", dll);
		free(dll);
		/* reuse a forwarder node for the same DLL under this module */
		fw = fwd_get(&c->forwarders, exp_node, target);
		if (!fw) {
			char *dir = winpath_dirname(exp_node->path);
			fw = ldr_node_new(target, exp_node);
			fwd_put(&c->forwarders, exp_node, fw);
			fw->forwarder = 1;
			fw->delay = exp_node->delay;
			resolve(c, fw, exp_node->path, c->res->flags, c->ld->dld_mode == LDR_DLD_TOP ?
				c->top_dir : dir);
			free(dir);
			/* a module this forwarder brought in needs its own imports snapped */
			if (fw->path && !fw->dup && fw->outcome == LDR_LOADS)
				snap_node(c, fw);
		}
		free(target);
		if (!fw->path || fw->outcome != LDR_LOADS) {
			ret = 0; /* reported by resolve */
		} else {
			const char *fsym = dot + 1;
			if (fsym[0] == '#') {
				unsigned long o = strtoul(fsym + 1, NULL, 10);
				ret = find_export(c, fw, NULL, NULL, (uint32_t)o, 1, -1, level + 1, NULL);
			} else {
				ret = find_export(c, fw, NULL, fsym, 0, 0, -1, level + 1, NULL);
			}
		}
		/* pop this level's key (the list is a stack) */
		c->nfwd_keys--;
		return ret;
	}
	return 1;
}

/*
 * The binding of import descriptor i of `im` to the module of `kid`
 * (struct ldr_binding): NULL when none is kept (an assumed or unreadable
 * module); else its slot, whose ex is that module's image when the
 * descriptor was bound against it before, or NULL with *ex the image to
 * record once it is bound now.
 */
static struct ldr_binding *binding_of(struct load_ctx *c, struct ldr_image *im, size_t i, const struct ldr_node *kid,
				      const struct ldr_image **ex)
{
	struct ldr_binding *b;
	if (kid->assumed)
		return NULL;
	if (!im->bound)
		im->bound = xcalloc(im->img->nimports + im->img->ndelay_imports, sizeof(*im->bound));
	b = &im->bound[i];
	if (b->busy)
		return NULL; /* being bound further up (the same image twice in one chain): that binding records */
	if (b->ex && !strcmp(b->ex->win, kid->path))
		return b; /* the same path is the same image: no hash of it */
	*ex = ldr_image_get(c->ld, kid->path);
	if (!(*ex)->img)
		return NULL;
	if (b->ex != *ex) {
		b->ex = NULL;
		b->nredo = 0;
	}
	return b;
}

/* Snaps the imports of `node`'s module against its kids, then recurses. */
static void snap_node(struct load_ctx *c, struct ldr_node *node)
{
	struct ldr_image *im;
	const struct pe_image *img;
	size_t i, k, nstatic;
	if (!node->path || node->dup || node->assumed)
		return;
	im = ldr_image_get(c->ld, node->path);
	img = im->img;
	if (!img)
		return;
	/* kids[0..nimports) are the static imports, then the delay ones, in directory order */
	nstatic = img->nimports;
	for (i = 0; i < node->nkids && i < img->nimports + img->ndelay_imports; i++) {
		struct ldr_node *kid = node->kids[i];
		const struct pe_import_dll *d = i < nstatic ? &img->imports[i] : &img->delay_imports[i - nstatic];
		const struct ldr_image *ex = NULL;
		struct ldr_binding *b;
		if (kid->forwarder || !kid->path || kid->outcome != LDR_LOADS)
			continue;
		b = binding_of(c, im, i, kid, &ex);
		if (b && b->ex) {
			/* bound against this very image before: only what forwarded or was missing is bound again */
			for (k = 0; k < b->nredo; k++) {
				const struct pe_import_func *f = &d->funcs[b->redo[k].k];
				find_export(c, kid, b->redo[k].forwarder, f->name, f->ordinal, f->by_ordinal,
					    f->by_ordinal ? -1 : f->hint, 0, NULL);
			}
			continue;
		}
		if (b)
			b->busy = 1;
		for (k = 0; k < d->nfuncs; k++) {
			const struct pe_import_func *f = &d->funcs[k];
			const char *fwd = NULL;
			int found = find_export(c, kid, NULL, f->name, f->ordinal, f->by_ordinal,
						f->by_ordinal ? -1 : f->hint, 0, &fwd);
			if (b && (!found || fwd)) {
				ALLOC_GROW(b->redo, b->nredo + 1, b->aredo);
				b->redo[b->nredo].k = k;
				/* a forwarder found in the image itself: the next binding follows it without the lookup */
				b->redo[b->nredo++].forwarder = fwd;
			}
		}
		if (b) {
			b->ex = ex;
			b->busy = 0;
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

/* The path given to LoadLibraryExW as the loader opens it (see ldr_dll_name_normalize). */
static char *root_name_normalize(const char *name)
{
	char *n, *r;
	if (!strncmp(name, "\\\\?\\", 4))
		return xstrdup(name + 4);
	n = winpath_normalize(name);
	if (!winpath_is_absolute(n))
		return n;
	r = ldr_dll_name_normalize(n);
	free(n);
	return r;
}

/* What one load mapped, to be committed to the loaded-module list or dropped. */
struct ldr_pending {
	struct ldr_module *mods;
	size_t n;
};

static void pending_settle(struct loader *ld, struct ldr_pending *p, int commit)
{
	size_t i;
	for (i = 0; i < p->n; i++) {
		if (commit) {
			ALLOC_GROW(ld->mods, ld->nmods + 1, ld->amods);
			ld->mods[ld->nmods++] = p->mods[i];
			strmap_add(&ld->mods_by_base, ld->mods[ld->nmods - 1].base, ld->nmods - 1);
			strmap_add(&ld->mods_by_path, ld->mods[ld->nmods - 1].path, ld->nmods - 1);
		} else {
			free(p->mods[i].base);
			free(p->mods[i].path);
			strlist_release(&p->mods[i].order_candidates);
			free(p->mods[i].order_dll);
		}
	}
	free(p->mods);
	p->mods = NULL;
	p->n = 0;
}

/* The DLL given to LoadLibraryExW by full path: the module already loaded from there, or the file. */
static void load_by_path(struct load_ctx *c, struct ldr_node *root, const char *norm, unsigned flags)
{
	struct loader *ld = c->ld;
	char *dir = winpath_dirname(norm), *p = NULL;
	int wrong = 0, ok;
	const struct ldr_module *m = mod_find(&ld->mods_by_path, ld->mods, norm);
	if (m) {
		ldr_probe_add(root, norm, "loaded-module list", "found");
		root->path = xstrdup(m->path);
		root->via = "loaded-module list";
		root->preloaded = 1;
		root->dup = 1;
		free(dir);
		return;
	}
	if (!view_find_file(ld->view, dir, winpath_basename(norm), &p)) {
		if (view_is_dir(ld->view, norm)) {
			/* NtOpenFile on a folder: STATUS_FILE_IS_A_DIRECTORY, ERROR_ACCESS_DENIED */
			ldr_probe_add(root, norm, "full path", "a folder, not a file");
			root->detail = xasprintf("%s is a folder", norm);
			set_fail(c, root, LDR_NOT_A_FILE, WINERR_ACCESS_DENIED, NULL);
		} else {
			ldr_probe_add(root, norm, "full path", "not found");
			set_fail(c, root, LDR_MISSING_DLL, WINERR_MOD_NOT_FOUND, NULL);
		}
		free(dir);
		return;
	}
	ok = candidate_ok(c, root, p, "full path", 1, &wrong);
	root->via = "full path";
	if (ok == 1) {
		map_found(c, root, p, flags);
	} else {
		root->path = xstrdup(p);
		if (ok == -2) {
			struct ldr_image *im = ldr_image_get(ld, p);
			root->machine = im->img->machine;
			root->detail = xasprintf("%s is %s, the process is %s", p, pe_machine_name(im->img->machine),
						 pe_machine_name(ld->machine));
			set_fail(c, root, LDR_BAD_ARCH, WINERR_BAD_EXE_FORMAT, NULL);
		} else {
			set_fail(c, root, LDR_UNREADABLE, WINERR_BAD_EXE_FORMAT, NULL);
		}
	}
	free(p);
	free(dir);
}

/*
 * One LoadLibraryExW, without touching the loaded-module list: what it
 * mapped is handed back in *pend. `order`: how the AddDllDirectory folders
 * are searched last-added first.
 */
static void load_once(struct loader *ld, const char *name, unsigned flags, struct ldr_result *res, int order,
		      struct ldr_pending *pend)
{
	struct load_ctx c;
	struct ldr_node *root;
	char *norm = root_name_normalize(name), *dir = NULL;

	memset(res, 0, sizeof(*res));
	memset(&c, 0, sizeof(c));
	strmap_init(&c.new_by_base, STRMAP_ICASE);
	strmap_init(&c.new_by_path, STRMAP_ICASE);
	c.ld = ld;
	c.res = res;
	c.user_dirs_order = order;
	c.as_exe = (flags & LDR_AS_PROCESS_EXE) != 0;
	flags &= ~LDR_AS_PROCESS_EXE;
	res->flags = flags;
	root = res->root = ldr_node_new(norm, NULL);

	if (ld->limit_error) {
		/* the run has no verdict (loader_host_error): not evaluated */
		root->outcome = LDR_UNREADABLE;
		root->detail = xasprintf("not evaluated after %s", ld->limit_error);
		res->winerror = WINERR_BAD_EXE_FORMAT;
		res->outcome = LDR_UNREADABLE;
		res->leaf = root;
		free(norm);
		return;
	}
	if (!winpath_is_absolute(norm)) {
		if (flags & LDR_SEARCH_DLL_LOAD_DIR) {
			/* LoadLibraryExW rejects DLL_LOAD_DIR with a relative name */
			root->outcome = LDR_BAD_PARAM;
			root->detail = xstrdup("LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR needs a full path");
			res->winerror = WINERR_INVALID_PARAMETER;
			res->outcome = LDR_BAD_PARAM;
			res->leaf = root;
			free(norm);
			return;
		}
		resolve(&c, root, NULL, flags, NULL);
	} else {
		dir = winpath_dirname(norm);
		c.top_dir = dir; /* what DLL_LOAD_DIR stands for, at every depth */
		load_by_path(&c, root, norm, flags);
	}
	/* phase two: snap every import, once every module is mapped */
	if (!tree_has_failure(res))
		snap_node(&c, root);
	c.top_dir = NULL;
	free(dir);

	pend->mods = c.newmods;
	pend->n = c.nnew;
	strmap_release(&c.new_by_base);
	strmap_release(&c.new_by_path);
	strlist_release(&c.delay_seen);
	free(c.fwd_keys);
	free(c.forwarders.v);
	free(norm);
}

int loader_load(struct loader *ld, const char *name, unsigned flags, struct ldr_result *res, struct err *err)
{
	(void)err;
	/*
	 * Microsoft documents no order among AddDllDirectory folders: when two
	 * hold a DLL this load needs, evaluate it again in other orders — last
	 * added first (Wine's), then each folder first in turn (so every copy
	 * of a name wins once) — and say whether the verdict depends on it. The
	 * process state follows the order the folders were added in.
	 */
	struct ldr_pending pend = { NULL, 0 };
	int order;
	load_once(ld, name, flags, res, 0, &pend);
	for (order = -1; res->order_ambiguous && !res->order_dependent && order < (int)ld->user_dirs.n; order++) {
		struct ldr_pending alt_pend = { NULL, 0 };
		struct ldr_result alt;
		if (order == 0 || (order == 1 && ld->user_dirs.n == 2))
			continue; /* the first load's order; for two folders rotation 1 is the reverse */
		load_once(ld, name, flags, &alt, order, &alt_pend);
		pending_settle(ld, &alt_pend, 0);
		if (alt.winerror != res->winerror || (alt.winerror && alt.outcome != res->outcome)) {
			res->order_dependent = 1;
			res->alt_winerror = alt.winerror;
			res->alt_outcome = alt.outcome;
		}
		ldr_result_release(&alt);
	}
	if (res->order_dependent) {
		size_t i;
		const struct ldr_node *an = res->ambiguous_node;
		for (i = 0; i < pend.n; i++) {
			pend.mods[i].order_dependent = 1;
			pend.mods[i].alt_winerror = res->alt_winerror;
			pend.mods[i].alt_outcome = res->alt_outcome;
			if (an)
				strlist_copy(&pend.mods[i].order_candidates, &an->order_candidates);
			pend.mods[i].order_dll = xstrdup(an ? an->name : "a DLL");
		}
	}
	/* a failed load leaves nothing loaded */
	pending_settle(ld, &pend, !res->winerror);
	return 0;
}
