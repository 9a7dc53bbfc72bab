/*
 * view: the Windows machine being checked (see view.h for the contract).
 *
 * Offline backend. A host directory stands for C:\. Windows resolves names
 * case-insensitively (NTFS compares names after upcasing them with the
 * volume's $UpCase table); Linux does not, so every path component is looked
 * up in a cached listing of its directory. Each directory is listed once and
 * kept sorted in NTFS order, which serves two purposes: binary search for
 * lookups, and the enumeration order FindFirstFileW returns on NTFS (B-tree
 * index order of the upcased names) that torch's glob() sees.
 *
 * Upcasing and the NTFS order are winpath.h's (ASCII, Latin-1, Greek and
 * Cyrillic letters folded), as are the Windows path helpers.
 *
 * Environment: offline views start empty (nothing is inherited from the
 * host); names compare case-insensitively as on Windows.
 *
 * Registry: an offline view reads what view_attach_registry gave it, or, when
 * the root is a Wine prefix's drive_c, the prefix's system.reg (found as
 * <root>/../system.reg). The live view asks os.h.
 *
 * Live backend: Windows paths are host paths; listings come from the OS in
 * the order it returns them (on NTFS that already is NTFS order).
 */
#include "machine/view.h"

#include <stdlib.h>
#include <string.h>

#include "util/os.h"
#include "util/strmap.h"
#include "util/text.h"
#include "machine/regfile.h"
#include "machine/registry.h"

struct dirent_cache {
	char *key;            /* upcased Windows path of the directory */
	char *win;            /* the Windows path as first asked (normalised) */
	char *host;           /* host path as it exists (no link in it below the root), or NULL when absent */
	struct strlist names; /* NTFS order */
	unsigned char *isdir; /* per name: 0 not yet known, else enum os_ftype + 1, or ENTRY_OUTSIDE + 1; | ENTRY_RECORDED */
	char **real;          /* per name: where a symbolic link leads, resolved (lazily allocated) */
	size_t *vid;          /* a mounted folder's (view_mount): per name, the file's index, or SIZE_MAX */
	char **vhost;         /* ... and its host path once made (lazily allocated) */
};

/* entry_type of a symbolic link (or junction) that leads outside --root: never followed */
#define ENTRY_OUTSIDE 0x40
/* isdir[] flag: that link was recorded as not followed (view_outside_link) */
#define ENTRY_RECORDED 0x80

struct env_var {
	char *name;
	char *value;
};

struct view {
	int live;
	char *root; /* host path standing for C:\ (offline) */
	char *real_root; /* the same with every link resolved: what "inside the root" is measured against */
	struct strlist outside_win, outside_target; /* links met that lead outside the root (view_outside_link) */
	struct dirent_cache *dirs;
	size_t ndirs, adirs;
	struct strmap dir_index; /* key → index into dirs[] */
	struct env_var *env;
	size_t nenv, aenv;
	struct registry *reg;
	char *reg_source;
	char *host_error; /* view_host_error */
	int reg_tried;
	char *(*vopen)(void *ctx, size_t i, struct err *err); /* view_mount */
	void *vctx;
	struct strlist hidden; /* view_hide_system32: the names System32 lacks on the machine judged (a profile) */
};

/* ---- construction ------------------------------------------------------ */

static void view_autoload_registry(struct view *v);

int view_open_root(struct view **out, const char *root_dir, struct err *err)
{
	struct os_stat st;
	struct view *v;
	size_t n;
	os_stat(root_dir, &st);
	if (st.type != OS_DIR)
		return err_set(err, "--root %s: not a directory", root_dir);
	v = xcalloc(1, sizeof(*v));
	/* resolved once, here: a relative --root drive_c must find drive_c/../system.reg, not /system.reg */
	v->root = os_absolute(root_dir);
	if (!v->root)
		v->root = xstrdup(root_dir);
	n = strlen(v->root);
	while (n > 1 && v->root[n - 1] == '/')
		v->root[--n] = '\0';
	/* the root may itself be a link (a Wine prefix's dosdevices\c:): what it leads to is the boundary */
	v->real_root = os_realpath(v->root);
	if (!v->real_root)
		v->real_root = xstrdup(v->root);
	*out = v; /* the registry under the root is looked for when first asked (view_autoload_registry) */
	return 0;
}

int view_open_live(struct view **out, struct err *err)
{
	struct view *v;
	if (!os_is_windows())
		return err_set(err, "this build cannot inspect the machine it runs on; "
				    "give --root DIR (a directory standing for C:\\)");
	v = xcalloc(1, sizeof(*v));
	v->live = 1;
	v->reg_source = xstrdup("live registry");
	*out = v;
	return 0;
}

void view_free(struct view *v)
{
	size_t i;
	if (!v)
		return;
	strlist_release(&v->hidden);
	for (i = 0; i < v->ndirs; i++) {
		size_t k;
		if (v->dirs[i].real)
			for (k = 0; k < v->dirs[i].names.n; k++)
				free(v->dirs[i].real[k]);
		free(v->dirs[i].real);
		if (v->dirs[i].vhost)
			for (k = 0; k < v->dirs[i].names.n; k++)
				free(v->dirs[i].vhost[k]);
		free(v->dirs[i].vhost);
		free(v->dirs[i].vid);
		free(v->dirs[i].key);
		free(v->dirs[i].win);
		free(v->dirs[i].host);
		strlist_release(&v->dirs[i].names);
		free(v->dirs[i].isdir);
	}
	strlist_release(&v->outside_win);
	strlist_release(&v->outside_target);
	free(v->real_root);
	free(v->dirs);
	strmap_release(&v->dir_index);
	for (i = 0; i < v->nenv; i++) {
		free(v->env[i].name);
		free(v->env[i].value);
	}
	free(v->env);
	if (v->reg)
		registry_free(v->reg);
	free(v->reg_source);
	free(v->root);
	free(v->host_error);
	free(v);
}

int view_is_live(const struct view *v)
{
	return v->live;
}

const char *view_host_error(const struct view *v)
{
	return v->host_error;
}

const char *view_root(const struct view *v)
{
	return v->live ? NULL : v->root;
}

/* ---- offline directory cache -------------------------------------------- */

static char *host_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/')
		return xasprintf("%s%s", dir, name);
	return xasprintf("%s/%s", dir, name);
}

/* Binary search of a sorted listing; the index of a case-insensitive match or -1. */
static long listing_find(const struct strlist *names, const char *name)
{
	size_t lo = 0, hi = names->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = winpath_ntfs_cmp(names->v[mid], name);
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Whether path is dir or below it (host paths, by text). */
static int path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (n && (dir[n - 1] == '/' || dir[n - 1] == '\\'))
		return !strncmp(path, dir, n); /* dir is the host's "/" (or "X:\\") */
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/' || path[n] == '\\');
}

/* resolve_link: the host cannot read links (os_readlink): resolve with os_realpath instead */
#define RESOLVE_BY_HOST (-2)
/* hops through links before giving up, as ELOOP does */
#define RESOLVE_MAX_HOPS 40

/* The first component of the path `rest`, removed from it with its '/'. */
static char *pop_component(struct strbuf *rest)
{
	size_t c = strcspn(rest->buf, "/"), skip = c + (rest->buf[c] == '/');
	char *comp = xstrndup(rest->buf, c);
	memmove(rest->buf, rest->buf + skip, rest->len - skip + 1);
	rest->len -= skip;
	return comp;
}

/* ".." by text: the folder `res` loses its last component ("/" stays "/"). */
static void drop_last(struct strbuf *res)
{
	char *slash = strrchr(res->buf, '/');
	res->len = slash && slash != res->buf ? (size_t)(slash - res->buf) : 1;
	res->buf[res->len] = '\0';
}

/*
 * The link at host path `link`, inside the root, read and spliced into the
 * walk: its target is put before what is `rest` to walk, and an absolute
 * target starts `res` again at "/". 0 when spliced, -2 when only the host
 * can resolve it (os_readlink's -2), -1 when it names nothing (unreadable
 * or an empty target).
 */
static int splice_link(const char *link, struct strbuf *res, struct strbuf *rest)
{
	struct strbuf target = STRBUF_INIT;
	int r = os_readlink(link, &target);
	if (!r && !target.len)
		r = -1; /* an empty target names nothing */
	if (r) {
		strbuf_release(&target);
		return r;
	}
	if (target.buf[0] == '/') {
		strbuf_reset(res);
		strbuf_addch(res, '/');
	}
	if (rest->len) {
		strbuf_addch(&target, '/');
		strbuf_add(&target, rest->buf, rest->len);
	}
	strbuf_reset(rest);
	strbuf_add(rest, target.buf, target.len);
	strbuf_release(&target);
	return 0;
}

/*
 * Where the link `name` in the folder `dir_host` (a host path of the tree,
 * with no link in it below the root) leads, resolved inside the root only:
 * component by component, a link's target read with os_readlink and spliced
 * in, ".." by text. Nothing outside the root is ever looked at (no stat, no
 * readlink): the first component that steps out of it ends the walk, and
 * the path it would have gone on with is where the link leads (*real). The
 * root's ancestors, which an absolute target passes through, are taken as
 * text; the root's own path as given (--root may be a link) stands for the
 * root. Returns OS_FILE/OS_DIR/OS_OTHER with *real the resolved host path,
 * ENTRY_OUTSIDE with *real the textual path outside, OS_NONE (dangling,
 * a loop, an unreadable link) with *real NULL, or RESOLVE_BY_HOST.
 */
static int resolve_link(struct view *v, const char *dir_host, const char *name, char **real)
{
	struct strbuf res = STRBUF_INIT, rest = STRBUF_INIT;
	struct os_stat st;
	int hops = 0, t = OS_NONE;
	size_t n = strlen(v->root);
	*real = NULL;
	/* the folder as a real path: the root's part of it spelt as the root really is */
	if (path_under(dir_host, v->root) && strcmp(v->root, v->real_root))
		strbuf_addf(&res, "%s%s", v->real_root, dir_host + (v->root[n - 1] == '/' ? n - 1 : n));
	else
		strbuf_adds(&res, dir_host);
	strbuf_adds(&rest, name);
	st.type = OS_DIR;
	while (rest.len) {
		char *comp = pop_component(&rest), *next;
		if (!*comp || !strcmp(comp, ".")) {
			free(comp);
			continue;
		}
		if (st.type != OS_DIR) { /* a name below a file */
			free(comp);
			goto none;
		}
		if (!strcmp(comp, "..")) {
			drop_last(&res);
			free(comp);
			continue;
		}
		next = host_join(res.buf, comp);
		free(comp);
		if (path_under(next, v->root) && !path_under(next, v->real_root)) {
			/* the root as --root spells it: the real root */
			char *r = xasprintf("%s%s", v->real_root, next + n);
			free(next);
			next = r;
		}
		if (path_under(next, v->real_root)) {
			if (os_lstat(next, &st)) {
				int r = ++hops > RESOLVE_MAX_HOPS ? -1 : splice_link(next, &res, &rest);
				free(next);
				if (r == -2) {
					t = RESOLVE_BY_HOST;
					goto out;
				}
				if (r)
					goto none;
				st.type = OS_DIR;
				continue;
			}
			if (st.type == OS_NONE) {
				free(next);
				goto none;
			}
		} else if (path_under(v->real_root, next) || path_under(v->root, next)) {
			st.type = OS_DIR; /* an ancestor of the root, on the way down to it: taken as text */
		} else {
			/* out of the root (and not on the way down to it): nothing there is looked at */
			if (rest.len) {
				char *w = host_join(next, rest.buf);
				free(next);
				next = w;
			}
			*real = next;
			t = ENTRY_OUTSIDE;
			goto out;
		}
		strbuf_reset(&res);
		strbuf_adds(&res, next);
		free(next);
	}
	if (!path_under(res.buf, v->real_root)) {
		*real = strbuf_detach(&res); /* ends on an ancestor of the root */
		t = ENTRY_OUTSIDE;
		goto out;
	}
	*real = strbuf_detach(&res);
	t = (int)st.type;
	goto out;
none:
	t = OS_NONE;
out:
	strbuf_release(&res);
	strbuf_release(&rest);
	return t;
}

/*
 * The type of listing entry k (looked at once, then cached): OS_FILE,
 * OS_DIR, ..., or ENTRY_OUTSIDE. --root is a boundary: a symbolic link (or
 * junction) is resolved here, once, and followed only when where it leads is
 * inside the root ("..", absolute targets and chains of links all end up as
 * one real path); its resolved path is kept (dc->real) and is what the host
 * opens later, so no link is traversed again after this check. A link that
 * leads out is neither file nor folder; where it leads is kept (dc->real)
 * for the record (entry_followed).
 */
static int entry_type(struct view *v, struct dirent_cache *dc, size_t k)
{
	if (!dc->isdir[k]) {
		char *h = host_join(dc->host, dc->names.v[k]);
		struct os_stat st;
		if (os_lstat(h, &st)) { /* one call for what is not a link (most entries) */
			char *real = NULL;
			int t = resolve_link(v, dc->host, dc->names.v[k], &real);
			if (t == RESOLVE_BY_HOST) {
				/* a host without readlink (Windows): the host resolves, then the prefix is checked */
				real = os_realpath(h);
				t = !real ? OS_NONE : path_under(real, v->real_root) ? -1 : ENTRY_OUTSIDE;
				if (t < 0) {
					os_stat(real, &st);
					t = (int)st.type;
				}
			}
			st.type = (enum os_ftype)t;
			if (real) {
				if (!dc->real)
					dc->real = xcalloc(dc->names.n, sizeof(*dc->real));
				dc->real[k] = real;
			}
		}
		free(h);
		dc->isdir[k] = (unsigned char)(st.type + 1);
	}
	return (dc->isdir[k] & ~ENTRY_RECORDED) - 1;
}

/*
 * entry_type for a lookup that would follow the entry: a link leading out of
 * the root is recorded (once) as one that was not followed. Walks that skip
 * links anyway (view_is_link first) do not record it.
 */
/* Whether `name` in Windows folder `dir` (either form) is hidden: System32 of a machine profile lacks it. */
static int hidden_in(const struct view *v, const char *dir, const char *name)
{
	static const char sys[] = "C:\\Windows\\System32";
	size_t i, n = sizeof(sys) - 1;
	if (!v->hidden.n || !dir || strlen(dir) < n || (dir[n] && (dir[n] != '\\' || dir[n + 1])))
		return 0;
	for (i = 0; i < n; i++)
		if (ascii_tolower(dir[i]) != ascii_tolower(sys[i]) && !(dir[i] == '/' && sys[i] == '\\'))
			return 0;
	return strlist_has_icase(&v->hidden, name);
}

static int entry_followed(struct view *v, struct dirent_cache *dc, size_t k)
{
	int t;
	if (hidden_in(v, dc->win, dc->names.v[k]))
		return OS_NONE;
	t = entry_type(v, dc, k);
	if (t == ENTRY_OUTSIDE && !(dc->isdir[k] & ENTRY_RECORDED)) {
		dc->isdir[k] |= ENTRY_RECORDED;
		strlist_push_owned(&v->outside_win, winpath_join(dc->win, dc->names.v[k]));
		strlist_push(&v->outside_target, dc->real[k]);
	}
	return t;
}

/* A mounted file's host path, made on first use (view_mount); NULL when it cannot be, said once. */
static char *mounted_host(struct view *v, struct dirent_cache *dc, size_t k)
{
	if (!dc->vhost)
		dc->vhost = xcalloc(dc->names.n, sizeof(*dc->vhost));
	if (!dc->vhost[k]) {
		struct err e;
		err_clear(&e);
		dc->vhost[k] = v->vopen(v->vctx, dc->vid[k], &e);
		if (!dc->vhost[k]) {
			if (!v->host_error)
				v->host_error = xasprintf("%s\\%s: %s", dc->win, dc->names.v[k], e.msg);
			return NULL;
		}
	}
	return xstrdup(dc->vhost[k]);
}

/* The host path of listing entry k: its resolved path when it is a link inside the root. */
static char *entry_host(struct view *v, struct dirent_cache *dc, size_t k)
{
	if (dc->vid)
		return dc->vid[k] == SIZE_MAX ? host_join(dc->host, dc->names.v[k]) : mounted_host(v, dc, k);
	if (entry_followed(v, dc, k) == ENTRY_OUTSIDE)
		return NULL;
	if (dc->real && dc->real[k])
		return xstrdup(dc->real[k]);
	return host_join(dc->host, dc->names.v[k]);
}

/* Whether a normalised Windows path is on C:, the drive an offline root stands for ("C:\" itself too). */
static int on_drive_c(const char *norm)
{
	return norm[0] == 'C' && norm[1] == ':' && norm[2] == '\\';
}

struct typed_name {
	char *name;
	unsigned char type;
};

static int typed_name_cmp(const void *a, const void *b)
{
	return winpath_ntfs_cmp(((const struct typed_name *)a)->name, ((const struct typed_name *)b)->name);
}

/*
 * A listing sorted in NTFS order, and its isdir[] bytes: what the listing
 * said of each name (a file or a folder, never a link) is known without an
 * lstat (entry_type); the rest are looked at when asked, as before.
 */
static unsigned char *sorted_types(struct strlist *names, const struct strbuf *types)
{
	size_t n = names->n, k;
	struct typed_name *t = xcalloc(n ? n : 1, sizeof(*t));
	unsigned char *isdir = xcalloc(n ? n : 1, 1);
	for (k = 0; k < n; k++) {
		t[k].name = names->v[k];
		t[k].type = k < types->len ? (unsigned char)types->buf[k] : (unsigned char)OS_NONE;
	}
	if (n > 1)
		qsort(t, n, sizeof(*t), typed_name_cmp);
	for (k = 0; k < n; k++) {
		names->v[k] = t[k].name;
		if (t[k].type == OS_FILE || t[k].type == OS_DIR)
			isdir[k] = (unsigned char)(t[k].type + 1);
	}
	free(t);
	return isdir;
}

/*
 * The cached listing of an offline Windows directory ("C:\\A\\B"), resolved
 * component by component. Returns NULL when the directory does not exist.
 */
static struct dirent_cache *dir_lookup(struct view *v, const char *windir)
{
	char *norm = winpath_normalize(windir);
	char *key = winpath_upcase(norm);
	struct dirent_cache *dc = NULL;
	size_t at;
	if (strmap_get(&v->dir_index, key, &at))
		dc = &v->dirs[at];
	if (!dc) {
		char *host = NULL;
		/* "C:\" is the root; otherwise resolve the parent, then find this name in it */
		if (on_drive_c(norm) && norm[3] == '\0') {
			host = xstrdup(v->root);
		} else if (on_drive_c(norm)) {
			char *parent = winpath_dirname(norm);
			struct dirent_cache *pc = dir_lookup(v, parent);
			free(parent);
			if (pc && pc->host) {
				long k = listing_find(&pc->names, winpath_basename(norm));
				if (k >= 0 && entry_followed(v, pc, (size_t)k) == OS_DIR)
					host = entry_host(v, pc, (size_t)k);
			}
		}
		ALLOC_GROW(v->dirs, v->ndirs + 1, v->adirs);
		dc = &v->dirs[v->ndirs++];
		memset(dc, 0, sizeof(*dc));
		dc->key = key;
		dc->win = xstrdup(norm);
		key = NULL;
		dc->host = host;
		if (host) {
			struct err e;
			struct strbuf types = STRBUF_INIT;
			err_clear(&e);
			if (os_list_dir_types(host, &dc->names, &types, &e) == 0)
				dc->isdir = sorted_types(&dc->names, &types);
			else if (e.msg[0] && !v->host_error)
				v->host_error = xstrdup(e.msg); /* an unreadable folder is not an empty one */
			if (!dc->isdir)
				dc->isdir = xcalloc(dc->names.n ? dc->names.n : 1, 1);
			strbuf_release(&types);
		}
		strmap_add(&v->dir_index, dc->key, (size_t)(dc - v->dirs));
	}
	free(key);
	free(norm);
	return dc->host ? dc : NULL;
}

char *view_host_path(struct view *v, const char *winpath)
{
	char *norm, *dir, *res;
	const char *base;
	struct dirent_cache *dc;
	if (v->live)
		return xstrdup(winpath);
	norm = winpath_normalize(winpath);
	if (!on_drive_c(norm)) {
		free(norm);
		return NULL;
	}
	if (!norm[3]) {
		free(norm);
		return xstrdup(v->root);
	}
	dc = dir_lookup(v, norm);
	if (dc) {
		res = xstrdup(dc->host);
		free(norm);
		return res;
	}
	dir = winpath_dirname(norm);
	base = winpath_basename(norm);
	dc = dir_lookup(v, dir);
	if (dc) {
		long k = listing_find(&dc->names, base);
		/* an entry that exists is opened where it really is; a link leading out of the root is not there */
		res = k >= 0 ? entry_host(v, dc, (size_t)k) : host_join(dc->host, base);
	} else {
		/* the parent does not exist either: resolve what does, append the rest */
		char *hdir = view_host_path(v, dir);
		res = hdir ? host_join(hdir, base) : NULL;
		free(hdir);
	}
	free(dir);
	free(norm);
	return res;
}

/* The length of the root prefix of hostpath (as given, or resolved: view_host_path returns both), or 0. */
static size_t root_prefix(const char *root, const char *hostpath)
{
	size_t n = strlen(root);
	if (strncmp(hostpath, root, n) || (hostpath[n] && hostpath[n] != '/' && root[n - 1] != '/'))
		return 0;
	return n;
}

char *view_win_path(struct view *v, const char *hostpath)
{
	size_t n;
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	char *res;
	if (v->live)
		return winpath_normalize(hostpath);
	n = root_prefix(v->root, hostpath);
	if (!n)
		n = root_prefix(v->real_root, hostpath);
	if (!n)
		return NULL;
	strbuf_adds(&sb, "C:\\");
	for (p = hostpath + n; *p; p++)
		strbuf_addch(&sb, *p == '/' ? '\\' : *p);
	res = winpath_normalize(strbuf_str(&sb));
	strbuf_release(&sb);
	return res;
}

char *view_win_case(struct view *v, const char *winpath)
{
	char *norm = winpath_normalize(winpath);
	struct strbuf sb = STRBUF_INIT;
	const char *p;
	if (v->live || !on_drive_c(norm))
		return norm;
	/* component by component through the cached listings: links are names here, never followed */
	strbuf_adds(&sb, "C:\\");
	for (p = norm + 3; *p;) {
		size_t n = strcspn(p, "\\");
		char *name = xstrndup(p, n);
		struct dirent_cache *dc = dir_lookup(v, strbuf_str(&sb));
		long k = dc ? listing_find(&dc->names, name) : -1;
		if (sb.len > 3)
			strbuf_addch(&sb, '\\');
		strbuf_adds(&sb, k >= 0 ? dc->names.v[k] : name);
		free(name);
		p += n;
		if (*p)
			p++;
	}
	free(norm);
	return strbuf_detach(&sb);
}

int view_find_file(struct view *v, const char *win_dir, const char *name, char **win_out)
{
	struct os_stat st;
	if (v->live && hidden_in(v, win_dir, name))
		return 0;
	if (v->live) {
		char *p = winpath_join(win_dir, name);
		os_stat(p, &st);
		if (st.type == OS_FILE) {
			*win_out = p;
			return 1;
		}
		free(p);
		return 0;
	} else {
		struct dirent_cache *dc = dir_lookup(v, win_dir);
		long k;
		if (!dc || strchr(name, '\\') || strchr(name, '/'))
			return 0;
		k = listing_find(&dc->names, name);
		if (k < 0 || entry_followed(v, dc, (size_t)k) != OS_FILE)
			return 0;
		{
			char *norm = winpath_normalize(win_dir);
			/* report the directory as given (normalised) and the name as it exists */
			*win_out = winpath_join(norm, dc->names.v[k]);
			free(norm);
		}
		return 1;
	}
}

int view_has_dir_entry(struct view *v, const char *win_dir, const char *name)
{
	if (v->live) {
		struct os_stat st;
		char *p = winpath_join(win_dir, name);
		os_stat(p, &st);
		free(p);
		return st.type == OS_DIR;
	} else {
		struct dirent_cache *dc = dir_lookup(v, win_dir);
		long k;
		if (!dc || strchr(name, '\\') || strchr(name, '/'))
			return 0;
		k = listing_find(&dc->names, name);
		return k >= 0 && entry_followed(v, dc, (size_t)k) == OS_DIR;
	}
}

static int view_type(struct view *v, const char *winpath)
{
	struct os_stat st;
	char *norm, *dir;
	struct dirent_cache *dc;
	long k;
	int t;
	if (v->live) {
		char *d = winpath_dirname(winpath);
		int hid = hidden_in(v, d, winpath_basename(winpath));
		free(d);
		if (hid)
			return OS_NONE;
		os_stat(winpath, &st);
		return (int)st.type;
	}
	/* offline: the cached listing of the folder, so links are judged (entry_type) like everywhere else */
	norm = winpath_normalize(winpath);
	if (!on_drive_c(norm)) {
		free(norm);
		return OS_NONE;
	}
	if (!norm[3]) {
		free(norm);
		return OS_DIR;
	}
	if (v->vopen) { /* a mounted folder's top has no listing above it */
		char *key = winpath_upcase(norm);
		size_t at;
		int top = strmap_get(&v->dir_index, key, &at) && v->dirs[at].vid;
		free(key);
		if (top) {
			free(norm);
			return OS_DIR;
		}
	}
	dir = winpath_dirname(norm);
	dc = dir_lookup(v, dir);
	k = dc ? listing_find(&dc->names, winpath_basename(norm)) : -1;
	t = k >= 0 ? entry_followed(v, dc, (size_t)k) : OS_NONE;
	free(dir);
	free(norm);
	if (t == ENTRY_OUTSIDE)
		return OS_NONE;
	return t;
}

int view_is_dir(struct view *v, const char *winpath)
{
	return view_type(v, winpath) == OS_DIR;
}

int view_is_file(struct view *v, const char *winpath)
{
	return view_type(v, winpath) == OS_FILE;
}

int view_read_small(struct view *v, const char *winpath, size_t max, struct strbuf *out)
{
	char *host = view_host_path(v, winpath);
	int r;
	if (!host || !view_is_file(v, winpath)) {
		free(host);
		return -1;
	}
	r = os_read_file(host, max, out, NULL);
	free(host);
	return r;
}

int view_list_dir(struct view *v, const char *win_dir, struct strlist *names, struct err *err)
{
	size_t i, n0 = names->n;
	if (v->live) {
		if (os_list_dir(win_dir, names, err) < 0)
			return -1;
	} else {
		struct dirent_cache *dc = dir_lookup(v, win_dir);
		if (!dc)
			return err_set(err, "%s: no such directory in the tree at %s", win_dir, v->root);
		strlist_copy(names, &dc->names);
	}
	if (v->hidden.n) { /* a profile's System32 lacks them */
		size_t k = n0;
		for (i = n0; i < names->n; i++) {
			if (hidden_in(v, win_dir, names->v[i]))
				free(names->v[i]);
			else
				names->v[k++] = names->v[i];
		}
		names->n = k;
	}
	return 0;
}

int view_is_link(struct view *v, const char *winpath)
{
	char *norm, *dir;
	struct dirent_cache *dc;
	long k = -1;
	int r = 0;
	if (v->live) {
		return os_is_link(winpath);
	}
	norm = winpath_normalize(winpath);
	if (on_drive_c(norm) && norm[3]) {
		dir = winpath_dirname(norm);
		dc = dir_lookup(v, dir);
		k = dc ? listing_find(&dc->names, winpath_basename(norm)) : -1;
		/* classified without being followed: a link out of the root is not recorded here */
		if (k >= 0) {
			entry_type(v, dc, (size_t)k);
			r = dc->real && dc->real[k];
		}
		free(dir);
	}
	free(norm);
	return r;
}

int view_outside_link(struct view *v, const char *win_dir, const char *name, const char **target)
{
	struct dirent_cache *dc;
	long k;
	if (v->live || strchr(name, '\\') || strchr(name, '/') || !(dc = dir_lookup(v, win_dir)))
		return 0;
	k = listing_find(&dc->names, name);
	if (k < 0 || entry_followed(v, dc, (size_t)k) != ENTRY_OUTSIDE)
		return 0;
	if (target)
		*target = dc->real[k];
	return 1;
}

size_t view_outside_links(const struct view *v, size_t i, const char **win, const char **target)
{
	if (win && i < v->outside_win.n) {
		*win = v->outside_win.v[i];
		*target = v->outside_target.v[i];
	}
	return v->outside_win.n;
}

/* ---- environment ---------------------------------------------------------- */

const char *view_getenv(struct view *v, const char *name)
{
	size_t i;
	for (i = 0; i < v->nenv; i++)
		if (!str_icmp(v->env[i].name, name))
			return v->env[i].value;
	if (v->live)
		return os_getenv(name);
	return NULL;
}

void view_setenv(struct view *v, const char *name, const char *value)
{
	size_t i;
	for (i = 0; i < v->nenv; i++) {
		if (!str_icmp(v->env[i].name, name)) {
			free(v->env[i].value);
			v->env[i].value = xstrdup(value);
			return;
		}
	}
	ALLOC_GROW(v->env, v->nenv + 1, v->aenv);
	v->env[v->nenv].name = xstrdup(name);
	v->env[v->nenv].value = xstrdup(value);
	v->nenv++;
}

int view_setenv_assignment(struct view *v, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	char *name;
	if (!eq || eq == assignment)
		return -1;
	name = xstrndup(assignment, (size_t)(eq - assignment));
	view_setenv(v, name, eq + 1);
	free(name);
	return 0;
}

/* ---- well-known directories ----------------------------------------------- */

/*
 * Offline trees always stand for a default Windows install on C:. A live view
 * would read %SystemRoot%; C:\Windows is what every hosted runner uses.
 */
const char *view_windows_dir(const struct view *v)
{
	(void)v;
	return "C:\\Windows";
}

void view_hide_system32(struct view *v, const struct strlist *names)
{
	strlist_release(&v->hidden);
	if (names)
		strlist_copy(&v->hidden, names);
}

const char *view_system32(const struct view *v)
{
	(void)v;
	return "C:\\Windows\\System32";
}

const char *view_syswow64(const struct view *v)
{
	(void)v;
	return "C:\\Windows\\SysWOW64";
}

/* ---- registry -------------------------------------------------------------- */

/*
 * The registry subtrees a check reads, and the only ones kept from a registry
 * file (registry_keep): the VC++ runtimes (inventory.c, INV_REDIST_KEY), PEP
 * 514 Python installs, CUDA toolkits, and Session Manager (loader_setup.c's
 * KnownDLLs, the machine's environment, API set extensions). SOFTWARE keys
 * come in both views. A reader of another key must add it here.
 */
static const char *const checked_subtrees[] = {
	"SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes",
	"SOFTWARE\\Python",
	"SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit",
	"SYSTEM\\CurrentControlSet\\Control\\Session Manager",
	/* the display adapters' drivers: GPU_DISPLAY_CLASS_KEY of gpu_driver.h (which includes view.h) */
	"SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}",
};

/*
 * Keys kept without their subkeys: Windows' version (machine/osver.h). Its
 * key's subtree (Fonts, Perflib, AppCompatFlags, ...) holds thousands of
 * values no check reads.
 */
static const char *const checked_keys[] = {
	"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion",
};

void view_registry_scope(struct registry *reg)
{
	size_t i;
	for (i = 0; i < sizeof(checked_subtrees) / sizeof(checked_subtrees[0]); i++)
		registry_keep(reg, checked_subtrees[i]);
	for (i = 0; i < sizeof(checked_keys) / sizeof(checked_keys[0]); i++)
		registry_keep_key(reg, checked_keys[i]);
}

/* Loads one registry file into *reg (created with the checked scope); 0, or -1 with source set. */
static int autoload_file(struct view *v, struct registry **reg, const char *path)
{
	struct err e;
	err_clear(&e);
	if (!*reg) {
		*reg = registry_new();
		view_registry_scope(*reg);
	}
	if (regfile_load_more(*reg, path, &e) == 0)
		return 0;
	registry_free(*reg);
	*reg = NULL;
	free(v->reg_source);
	v->reg_source = xasprintf("none (%s)", e.msg);
	return -1;
}

/*
 * An offline root's own registry, looked for once, when first asked: a Wine
 * prefix's <root>/../system.reg, else the hives of a Windows disk,
 * <root>\Windows\System32\config\SOFTWARE and SYSTEM. Not looked for at all
 * when a registry was attached first (--registry replaces it).
 */
static void view_autoload_registry(struct view *v)
{
	/* the parent by text, not "..": a drive_c that is a symbolic link still finds its prefix */
	char *slash = strrchr(v->root, '/');
	char *parent = slash && slash != v->root ? xstrndup(v->root, (size_t)(slash - v->root)) : xstrdup("/");
	char *p = host_join(parent, "system.reg");
	struct registry *reg = NULL;
	struct os_stat st;
	static const char *const hives[] = { "SOFTWARE", "SYSTEM" };
	size_t i;
	v->reg_tried = 1;
	free(parent);
	os_stat(p, &st);
	if (st.type == OS_FILE) {
		if (autoload_file(v, &reg, p) == 0) {
			v->reg = reg;
			v->reg_source = xasprintf("wine system.reg at %s", p);
		}
		free(p);
		return;
	}
	free(p);
	for (i = 0; i < 2; i++) {
		char *win;
		if (!view_find_file(v, "C:\\Windows\\System32\\config", hives[i], &win))
			continue;
		p = view_host_path(v, win);
		free(win);
		if (!p)
			continue;
		if (autoload_file(v, &reg, p)) {
			free(p);
			return;
		}
		free(p);
	}
	if (reg) {
		v->reg = reg;
		free(v->reg_source);
		v->reg_source = xasprintf("%s under --root", registry_describe(reg));
	}
}

/* The lazily found registry of an offline view (logically const: found once). */
static struct registry *view_registry(const struct view *cv)
{
	struct view *v = (struct view *)cv;
	if (!v->live && !v->reg && !v->reg_tried)
		view_autoload_registry(v);
	return v->reg;
}

void view_attach_registry(struct view *v, struct registry *reg)
{
	if (v->reg)
		registry_free(v->reg);
	v->reg = reg;
	v->reg_tried = 1;
	free(v->reg_source);
	v->reg_source = xstrdup(reg ? registry_describe(reg) : "none");
}

int view_reg_get(struct view *v, const char *subkey, const char *value, int regview, struct strbuf *out,
		 struct err *err)
{
	if (v->live)
		return os_reg_get(subkey, value, regview, out, err);
	if (!view_registry(v))
		return 1;
	return registry_get(v->reg, subkey, value, regview, out, err);
}

int view_reg_subkeys(struct view *v, const char *subkey, int regview, struct strlist *out, struct err *err)
{
	if (v->live)
		return os_reg_subkeys(subkey, regview, out, err);
	if (!view_registry(v))
		return 1;
	return registry_subkeys(v->reg, subkey, regview, out, err);
}

int view_reg_get_raw(struct view *v, const char *subkey, const char *value, int regview, unsigned *type,
		     const unsigned char **data, size_t *len, struct err *err)
{
	if (v->live)
		return err_set(err, "raw registry values are not read from the live registry");
	if (!view_registry(v))
		return 1;
	return registry_get_raw(v->reg, subkey, value, regview, type, data, len, err);
}

int view_reg_values(struct view *v, const char *subkey, int regview, struct strlist *out, struct err *err)
{
	if (v->live)
		return err_set(err, "listing registry values is not supported on the live registry");
	if (!view_registry(v))
		return 1;
	return registry_values(v->reg, subkey, regview, out, err);
}

const char *view_registry_source(const struct view *v)
{
	view_registry(v);
	return v->reg_source ? v->reg_source : "none";
}

int view_has_registry(const struct view *v)
{
	return v->live || view_registry(v) != NULL;
}

/* ---- a mounted folder (view_mount) ---- */

struct mount_entry {
	char *name;
	size_t id; /* SIZE_MAX: a folder */
};

struct mount_dir {
	char *win; /* normalised */
	char *key; /* its key in the builder's index (borrowed there) */
	struct mount_entry *e;
	size_t n, alloc;
};

static int mount_entry_cmp(const void *a, const void *b)
{
	const struct mount_entry *x = a, *y = b;
	return winpath_ntfs_cmp(x->name, y->name);
}

/* The builder's folder `win` (created), its index in *dirs. */
static size_t mount_dir_get(struct mount_dir **dirs, size_t *n, size_t *alloc, struct strmap *index, const char *win)
{
	char *key = winpath_upcase(win);
	size_t at;
	if (strmap_get(index, key, &at)) {
		free(key);
		return at;
	}
	ALLOC_GROW(*dirs, *n + 1, *alloc);
	memset(&(*dirs)[*n], 0, sizeof(**dirs));
	(*dirs)[*n].win = xstrdup(win);
	(*dirs)[*n].key = key;
	strmap_add(index, key, *n);
	return (*n)++;
}

static void mount_add(struct mount_dir *d, const char *name, size_t id)
{
	ALLOC_GROW(d->e, d->n + 1, d->alloc);
	d->e[d->n].name = xstrdup(name);
	d->e[d->n].id = id;
	d->n++;
}

int view_mount(struct view *v, const char *win_dir, const char *const *names, size_t n,
	       char *(*open)(void *ctx, size_t i, struct err *err), void *ctx, struct err *err)
{
	struct mount_dir *dirs = NULL;
	size_t ndirs = 0, adirs = 0, i, k;
	struct strmap index, seen;
	struct strlist seen_keys = STRLIST_INIT; /* seen's keys (borrowed there) */
	char *top;
	int r = 0;
	if (v->live || v->vopen)
		return err_set(err, "%s: cannot mount a folder on this view", win_dir);
	top = winpath_normalize(win_dir);
	if (!on_drive_c(top) || !top[3] || view_type(v, top) != OS_NONE) {
		err_set(err, "%s: not a free folder on C: to mount", top);
		free(top);
		return -1;
	}
	strmap_init(&index, STRMAP_ICASE);
	strmap_init(&seen, STRMAP_ICASE);
	mount_dir_get(&dirs, &ndirs, &adirs, &index, top);
	for (i = 0; i < n && !r; i++) {
		char *rel = winpath_normalize(names[i]), *p, *key;
		size_t parent = 0;
		struct strbuf at = STRBUF_INIT;
		strbuf_adds(&at, top);
		for (p = rel; *p && !r;) {
			size_t len = strcspn(p, "\\");
			char *comp = xstrndup(p, len);
			int last = !p[len];
			strbuf_addch(&at, '\\');
			strbuf_adds(&at, comp);
			key = winpath_upcase(strbuf_str(&at));
			if (!strmap_get(&seen, key, &k)) {
				strlist_push_owned(&seen_keys, key);
				strmap_add(&seen, key, last ? i : SIZE_MAX);
				key = NULL;
				mount_add(&dirs[parent], comp, last ? i : SIZE_MAX);
				k = last ? i : SIZE_MAX;
			} else if (last || k != SIZE_MAX) {
				r = err_set(err, "%s: named twice, or both a file and a folder", strbuf_str(&at));
			}
			free(key);
			if (!last && !r)
				parent = mount_dir_get(&dirs, &ndirs, &adirs, &index, strbuf_str(&at));
			free(comp);
			p += len + (p[len] ? 1 : 0);
		}
		strbuf_release(&at);
		free(rel);
	}
	for (i = 0; i < ndirs; i++) {
		struct mount_dir *d = &dirs[i];
		if (!r) {
			struct dirent_cache *dc;
			qsort(d->e, d->n, sizeof(*d->e), mount_entry_cmp);
			ALLOC_GROW(v->dirs, v->ndirs + 1, v->adirs);
			dc = &v->dirs[v->ndirs++];
			memset(dc, 0, sizeof(*dc));
			dc->key = winpath_upcase(d->win);
			dc->win = xstrdup(d->win);
			dc->host = xstrdup("/proc/self/fd/tdc-mounted-folder"); /* never a real folder */
			dc->isdir = xcalloc(d->n ? d->n : 1, 1);
			dc->vid = xcalloc(d->n ? d->n : 1, sizeof(*dc->vid));
			for (k = 0; k < d->n; k++) {
				strlist_push(&dc->names, d->e[k].name);
				dc->vid[k] = d->e[k].id;
				dc->isdir[k] = (unsigned char)((d->e[k].id == SIZE_MAX ? OS_DIR : OS_FILE) + 1);
			}
			strmap_add(&v->dir_index, dc->key, (size_t)(dc - v->dirs));
		}
		for (k = 0; k < d->n; k++)
			free(d->e[k].name);
		free(d->e);
		free(d->win);
	}
	strmap_release(&index);
	for (i = 0; i < ndirs; i++)
		free(dirs[i].key);
	free(dirs);
	strmap_release(&seen);
	strlist_release(&seen_keys);
	free(top);
	if (!r) {
		v->vopen = open;
		v->vctx = ctx;
	}
	return r;
}
