/*
 * loader_search: the search orders of LoadLibraryExW (docs/loader.md §5:
 * the standard order, LOAD_WITH_ALTERED_SEARCH_PATH, the
 * LOAD_LIBRARY_SEARCH_* flags, SetDefaultDllDirectories), each folder with
 * its step name and the reason it is searched.
 *
 * It reads the process's settings and its folders as Windows normalises
 * them (loader_setup.c) and is read by one load (loader.c); it looks at no
 * file.
 */
#include "loader/loader.h"
#include "loader/loader_state.h"

#include <stdlib.h>
#include <string.h>

static void add_dir(struct search_dir **v, size_t *n, size_t *alloc, const char *dir, const char *step,
		    const char *why)
{
	ALLOC_GROW(*v, *n + 1, *alloc);
	(*v)[*n].dir = winpath_normalize(dir);
	(*v)[*n].step = step;
	(*v)[*n].why = xstrdup(why);
	(*v)[*n].minor = 0;
	(*v)[*n].skip = NULL;
	(*v)[*n].note = NULL;
	(*n)++;
}

/* The last probe of `node` was of search folder `d`: its label. */
void ldr_probe_label(struct ldr_node *node, const struct search_dir *d)
{
	struct ldr_probe *p = &node->probes[node->nprobes - 1];
	free(p->why);
	p->why = xstrdup(d->why);
	p->minor = d->minor;
}

/*
 * One PATH entry as the loader takes it: literally. An empty entry is
 * ignored; quotes are part of the folder name (cmd.exe strips them, the
 * loader does not, so a quoted entry names no folder); a relative entry
 * is resolved against the current directory, which a static check does
 * not know: recorded, not searched.
 */
static void add_path_entry(struct search_dir **v, size_t *n, size_t *alloc, const char *e, const char *why)
{
	char *w;
	if (!*e)
		return;
	/* the entry and the name are joined, then normalised whole (ldr_path_entry_folder):
	   `C:\Tools\omp.` is `C:\Tools\omp`, `C:\x\sdir ` keeps its space */
	w = winpath_is_absolute(e) && !strchr(e, '"') ? ldr_path_entry_folder(e) : xstrdup(e);
	add_dir(v, n, alloc, w, "PATH", why);
	free(w);
	if (strchr(e, '"'))
		(*v)[*n - 1].note = "the PATH entry is quoted: the loader takes the quotes as part of the folder name";
	else if (!winpath_is_absolute(e))
		(*v)[*n - 1].skip = "not searched: a relative PATH entry depends on the current directory";
}

/* The index of the i-th AddDllDirectory folder in `order` (see load_ctx.user_dirs_order). */
static size_t user_dir_index(const struct loader *ld, size_t i, int order)
{
	size_t n = ld->user_dirs.n;
	if (order < 0)
		return n - 1 - i;
	return (i + (size_t)order) % n;
}

static const char *user_dir(const struct loader *ld, size_t i, int order)
{
	return ld->user_dirs.v[user_dir_index(ld, i, order)];
}

/* Why that folder is searched: the label its adder gave, else the plain fact. */
static const char *user_dir_why(const struct loader *ld, size_t i, int order)
{
	const char *w = ld->user_whys.v[user_dir_index(ld, i, order)];
	return w[0] ? w : "added with AddDllDirectory";
}

size_t ldr_search_dirs(struct loader *ld, unsigned flags, const char *dll_dir, int user_dirs_order,
		       struct search_dir **out)
{
	struct search_dir *v = NULL;
	size_t n = 0, alloc = 0, i;
	if (flags & LDR_DELAY_OWN_FOLDER) {
		/* the importer's delay-load hook: its own folder by full path, then the helper's plain load */
		if (dll_dir)
			add_dir(&v, &n, &alloc, dll_dir, "importer's folder",
				"the folder of the DLL that delay-loads it (its delay-load hook looks there first)");
		flags &= ~LDR_DELAY_OWN_FOLDER;
		dll_dir = NULL;
	}
	/* SetDefaultDllDirectories: a load that names no folder searches the process's default ones */
	if (!(flags & (LDR_SEARCH_MASK | LDR_WITH_ALTERED_SEARCH_PATH)))
		flags |= ld->default_dirs;
	if (flags & LDR_SEARCH_MASK) {
		if (flags & LDR_SEARCH_DEFAULT_DIRS)
			flags |= LDR_SEARCH_APPLICATION_DIR | LDR_SEARCH_USER_DIRS | LDR_SEARCH_SYSTEM32;
		if ((flags & LDR_SEARCH_DLL_LOAD_DIR) && dll_dir)
			add_dir(&v, &n, &alloc, dll_dir, "DLL_LOAD_DIR", "the folder of the DLL being loaded");
		if ((flags & LDR_SEARCH_APPLICATION_DIR) && ld->app_dir)
			add_dir(&v, &n, &alloc, ld->app_dir, "APPLICATION_DIR", "the application folder");
		if (flags & LDR_SEARCH_USER_DIRS)
			for (i = 0; i < ld->user_dirs.n; i++)
				add_dir(&v, &n, &alloc, user_dir(ld, i, user_dirs_order), "USER_DIRS",
					user_dir_why(ld, i, user_dirs_order));
		if (flags & LDR_SEARCH_SYSTEM32)
			add_dir(&v, &n, &alloc, ldr_sysdir(ld), "SYSTEM32", ldr_sysdir_why(ld));
	} else {
		const char *path = view_getenv(ld->view, "PATH");
		size_t k = 0;
		/* LOAD_WITH_ALTERED_SEARCH_PATH: the DLL's folder takes the application dir's place */
		if ((flags & LDR_WITH_ALTERED_SEARCH_PATH) && dll_dir)
			add_dir(&v, &n, &alloc, dll_dir, "altered search path", "the folder of the DLL being loaded");
		else if (ld->app_dir)
			add_dir(&v, &n, &alloc, ld->app_dir, "application dir", "the application folder");
		/* SetDllDirectoryW: its folder next, and the current folder is no longer searched */
		if (ld->dll_directory)
			add_dir(&v, &n, &alloc, ld->dll_directory, "DLL directory", ld->dll_directory_why);
		add_dir(&v, &n, &alloc, ldr_sysdir(ld), "System32", ldr_sysdir_why(ld));
		/* searched, but only 16-bit programs ever installed DLLs there */
		add_dir(&v, &n, &alloc, "C:\\Windows\\System", "16-bit system dir", "the 16-bit system folder");
		v[n - 1].minor = ld->machine != PE_MACHINE_I386;
		add_dir(&v, &n, &alloc, view_windows_dir(ld->view), "Windows dir", "the Windows folder");
		if (ld->dll_directory) {
			/* not searched while a DLL directory is set */
		} else if (ld->cur_dir) {
			add_dir(&v, &n, &alloc, ld->cur_dir, "current dir", "the current folder");
		} else {
			add_dir(&v, &n, &alloc, ".", "current dir", "the current folder");
			v[n - 1].skip = "not searched: the process's current directory is not known";
			v[n - 1].minor = 1;
		}
		while (path && *path) {
			const char *semi = strchr(path, ';');
			size_t len = semi ? (size_t)(semi - path) : strlen(path);
			char *entry = xstrndup(path, len), *why;
			/* numbered as the machine's PATH has them: the caller's prefix apart */
			why = k < ld->path_prefix_n ? xstrdup(ld->path_prefix_why)
						    : xasprintf("PATH entry %zu", k + 1 - ld->path_prefix_n);
			add_path_entry(&v, &n, &alloc, entry, why);
			free(why);
			free(entry);
			k++;
			path = semi ? semi + 1 : NULL;
		}
	}
	*out = v;
	return n;
}

void ldr_free_dirs(struct search_dir *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		free(v[i].dir);
		free(v[i].why);
	}
	free(v);
}
