/*
 * dist: the distributions of one site-packages folder, read through the
 * view (see dist.h for the design and the sources): METADATA and RECORD
 * read small or mapped, within a budget; each distribution's name, version,
 * Requires-Dist and native binaries, from RECORD's rows (dist_rows.h) or,
 * without a RECORD, from a bounded walk of its top-level packages. The
 * parsers are dist_metadata.c and dist_record.c.
 */
#include "machine/dist.h"

#include <stdlib.h>
#include <string.h>

#include "machine/dist_rows.h"
#include "machine/view.h"
#include "util/os.h"
#include "util/strmap.h"
#include "util/text.h"

/* ---- files of the view ----------------------------------------------------------- */

static int map_view_file(struct view *v, const char *winpath, struct os_map *m, struct err *err)
{
	char *host = view_host_path(v, winpath);
	int r;
	memset(m, 0, sizeof(*m));
	if (!host || !view_is_file(v, winpath)) {
		free(host);
		return err_set(err, "%s: not found", winpath);
	}
	r = os_map_file(m, host, err);
	free(host);
	return r;
}

/*
 * A small file is read (one read, no mapping to fault in and tear down: the
 * cost of 300 distributions is mostly that); a larger one is mapped.
 */
#define DIST_READ_SMALL (256u << 10)


/*
 * `fast_dir`: the dist-info's name below `at` (the site-packages held open)
 * when dist_set_read found it in the listing as it is named (a folder, not a
 * link), else NULL.
 */
static int read_small(struct view *v, const struct os_dir *at, const char *fast_dir, const char *winpath,
		      struct strbuf *out, int *too_big, struct err *err)
{
	char *host;
	struct os_stat st;
	int r;
	*too_big = 0;
	if (fast_dir) {
		/* the dist-info folder came from the listing, as it is named: its files by name, no links */
		host = xasprintf("%s/%s", fast_dir, winpath_basename(winpath));
		r = os_read_small_file_at(at, host, DIST_READ_SMALL, out, err);
		free(host);
		if (r == 0 || r == -1)
			return r;
		if (r == 2) {
			*too_big = 1;
			return -1;
		}
	}
	/* a link, another letter case, a live view: the view knows */
	if (!(host = view_host_path(v, winpath)) || !view_is_file(v, winpath)) {
		free(host);
		return err_set(err, "%s: not found", winpath);
	}
	os_stat(host, &st);
	if (st.size > DIST_READ_SMALL) {
		free(host);
		*too_big = 1;
		return -1;
	}
	r = os_read_file(host, DIST_READ_SMALL, out, err);
	free(host);
	return r;
}

/*
 * RECORD of `dist_info` read (small) or mapped (large), every row through
 * `row` (dist_record_scan). `used` (NULL: no budget) counts the RECORD bytes of
 * a site-packages read so far: a RECORD that would take it past
 * DIST_SET_RECORD_BYTES is not read (one 62 MB RECORD hard-linked into 20
 * dist-info folders cost 17x one copy).
 */
static int over_budget(size_t *used, size_t len, const char *path, struct err *err)
{
	if (!used)
		return 0;
	if (len > DIST_SET_RECORD_BYTES - *used)
		return err_set(err, "%s: %zu bytes, past what this site-packages' RECORDs may take together "
				    "(%u MiB, %zu read): not read",
			       path, len, DIST_SET_RECORD_BYTES >> 20, *used);
	*used += len;
	return 0;
}

static int scan_record_file(struct view *v, const struct os_dir *at, const char *fast_dir, const char *dist_info,
			    record_row_fn row, void *ctx, size_t *used, struct err *err)
{
	char *path = winpath_join(dist_info, "RECORD");
	struct strbuf sb = STRBUF_INIT;
	struct os_map m;
	int r, big;
	if (read_small(v, at, fast_dir, path, &sb, &big, err) == 0) {
		r = over_budget(used, sb.len, path, err) ? -1 : dist_record_scan(sb.buf, sb.len, path, row, ctx, err);
		strbuf_release(&sb);
		free(path);
		return r;
	}
	strbuf_release(&sb);
	if (!big || map_view_file(v, path, &m, err)) {
		free(path);
		return -1;
	}
	if (m.size > DIST_RECORD_MAX_BYTES)
		r = err_set(err, "%s: %zu bytes, more than a RECORD may have (%u)", path, m.size, DIST_RECORD_MAX_BYTES);
	else if (over_budget(used, m.size, path, err))
		r = -1;
	else
		r = dist_record_scan((const char *)m.data, m.size, path, row, ctx, err);
	os_unmap(&m);
	free(path);
	return r;
}

static int read_metadata(struct view *v, const struct os_dir *at, const char *fast_dir, const char *dist_info,
			 struct dist_metadata *out, struct err *err)
{
	char *path = winpath_join(dist_info, "METADATA");
	struct strbuf sb = STRBUF_INIT;
	struct os_map m;
	size_t len;
	int r, big;
	memset(out, 0, sizeof(*out));
	if (read_small(v, at, fast_dir, path, &sb, &big, err) == 0) {
		r = dist_metadata_parse(out, sb.buf, sb.len, path, err);
		strbuf_release(&sb);
		free(path);
		return r;
	}
	strbuf_release(&sb);
	if (!big || map_view_file(v, path, &m, err)) {
		free(path);
		return -1;
	}
	/* only the header block is parsed: the pages of the description are never touched */
	len = m.size;
	if (len > DIST_METADATA_MAX_HEADER + 4096)
		len = DIST_METADATA_MAX_HEADER + 4096;
	r = dist_metadata_parse(out, (const char *)m.data, len, path, err);
	os_unmap(&m);
	free(path);
	return r;
}

int dist_read_record(struct view *v, const char *dist_info, struct dist_record *out, struct err *err)
{
	memset(out, 0, sizeof(*out));
	if (scan_record_file(v, NULL, NULL, dist_info, dist_record_keep_row, out, NULL, err)) {
		dist_record_release(out);
		return -1;
	}
	return 0;
}

int dist_read_metadata(struct view *v, const char *dist_info, struct dist_metadata *out, struct err *err)
{
	return read_metadata(v, NULL, NULL, dist_info, out, err);
}

/* ---- one site-packages ------------------------------------------------------------ */

static void dist_release(struct dist *d)
{
	free(d->name);
	free(d->version);
	free(d->dist_info);
	dist_metadata_release(&d->meta);
	strlist_release(&d->binaries);
	strlist_release(&d->binaries_host);
	strlist_release(&d->tops);
	free(d->scan_note);
	strlist_release(&d->notes);
}

void dist_set_release(struct dist_set *s)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		dist_release(&s->v[i]);
	free(s->v);
	free(s->site_packages);
	free(s->sp_host);
	os_dir_close(&s->sp_dir);
	free(s->env_root);
	strlist_release(&s->notes);
	memset(s, 0, sizeof(*s));
}

static int is_binary_name(const char *p)
{
	size_t n = strlen(p);
	/* most RECORD rows end in .py or .pyc: the last letter rules them out without two suffix compares */
	if (n < 4 || ((p[n - 1] | 0x20) != 'd' && (p[n - 1] | 0x20) != 'l'))
		return 0;
	return !str_icmp(p + n - 4, ".pyd") || !str_icmp(p + n - 4, ".dll");
}

/* The top-level import name of a RECORD path: "torchvision" of "torchvision/_C.pyd", "six" of "six.py". */
static void record_top(struct dist *d, const char *p)
{
	const char *slash = strpbrk(p, "/\\");
	size_t n = slash ? (size_t)(slash - p) : strlen(p);
	char *top;
	if (!slash) {
		/* a top-level module file: its name up to the first dot (x.cp311-win_amd64.pyd) */
		const char *dot = memchr(p, '.', n);
		if (!dot || !(str_iendswith(p, ".py") || str_iendswith(p, ".pyd")))
			return;
		n = (size_t)(dot - p);
	}
	if (!n || memchr(p, ':', n))
		return;
	/* RECORD lists a package's files together: most rows repeat the last name */
	if (d->tops.n) {
		const char *last = d->tops.v[d->tops.n - 1];
		/* the same bytes first (strncmp, vectorised), the case-insensitive compare only when they differ */
		if (!strncmp(last, p, n) ? !last[n] : (strlen(last) == n && !str_nicmp(last, p, n)))
			return;
	}
	if (d->tops.n >= 64)
		return;
	top = xstrndup(p, n);
	if (str_iendswith(top, ".dist-info") || str_iendswith(top, ".data") || str_iendswith(top, ".egg-info") ||
	    !strcmp(top, "..") || !strcmp(top, ".") || !strcmp(top, "__pycache__") || strlist_has_icase(&d->tops, top))
		free(top);
	else
		strlist_push_owned(&d->tops, top);
}

/*
 * The host path of a RECORD file inside the site-packages, found without the
 * view's folder listings: every component below the site-packages taken
 * exactly as RECORD writes it and checked with lstat (a folder, never a
 * link; the file a regular file), so no link can lead out of the tree.
 * NULL when that does not find it (letter case differs, a link, outside the
 * site-packages, a live view): the caller asks the view, which knows.
 * `ok_dir` caches the last folder found good.
 */
static char *fast_host(const struct dist_set *s, const char *rec_path, struct strbuf *ok_dir)
{
	struct strbuf h = STRBUF_INIT;
	struct os_stat st;
	const char *p = rec_path, *slash;
	size_t rel;
	if (!s->sp_host || rec_path[0] == '.' || strstr(rec_path, "..") || strchr(rec_path, ':'))
		return NULL;
	strbuf_adds(&h, s->sp_host);
	rel = h.len + 1; /* each component is looked up from the site-packages held open (os_lstat_at) */
	while ((slash = strpbrk(p, "/\\")) != NULL) {
		if (slash == p) {
			strbuf_release(&h);
			return NULL;
		}
		strbuf_addch(&h, '/');
		strbuf_add(&h, p, (size_t)(slash - p));
		if (!(ok_dir->len == h.len && !memcmp(ok_dir->buf, h.buf, h.len))) {
			if (os_lstat_at(&s->sp_dir, h.buf + rel, &st) || st.type != OS_DIR) {
				strbuf_release(&h);
				return NULL;
			}
		}
		p = slash + 1;
	}
	strbuf_reset(ok_dir);
	strbuf_add(ok_dir, h.buf, h.len);
	strbuf_addch(&h, '/');
	strbuf_adds(&h, p);
	if (!*p || os_lstat_at(&s->sp_dir, h.buf + rel, &st) || st.type != OS_FILE) {
		strbuf_release(&h);
		return NULL;
	}
	return strbuf_detach(&h);
}

/* The binaries RECORD lists, each resolved inside the environment (or refused, and said): one row at a time. */
struct bins {
	struct dist *d;
	struct view *v;
	const struct dist_set *s;
	size_t rows, refused, over, missing;
	char *first_refused, *first_missing;
	struct strbuf ok_dir;
};

static int bin_row(void *ctx, const struct rec_field f[3], const char *eq, int64_t size, size_t line, struct err *err)
{
	struct bins *b = ctx;
	struct dist *d = b->d;
	const char *p = f[0].buf;
	struct err e;
	char *w, *host = NULL;
	(void)eq;
	(void)size;
	(void)err;
	b->rows++;
	record_top(d, p);
	if (!is_binary_name(p))
		return 0;
	if (dist_record_resolve(b->s->site_packages, b->s->env_root, p, &w, &e)) {
		if (!b->refused++)
			b->first_refused = xasprintf("RECORD line %zu: %s", line, e.msg);
		return 0;
	}
	if (d->binaries.n >= DIST_MAX_BINARIES) {
		b->over++;
	} else if (!(host = fast_host(b->s, p, &b->ok_dir)) && !view_is_file(b->v, w)) {
		/* listed but gone: removed after install (antivirus quarantine is one cause) */
		if (!b->missing++)
			b->first_missing = xstrdup(w);
	} else {
		strlist_push(&d->binaries, w);
		strlist_push(&d->binaries_host, host ? host : "");
	}
	free(host);
	free(w);
	return 0;
}

static void bins_notes(struct bins *b)
{
	struct dist *d = b->d;
	if (b->refused)
		strlist_pushf(&d->notes, "%zu RECORD path%s refused, not checked: %s", b->refused,
			      b->refused == 1 ? "" : "s", b->first_refused);
	if (b->missing)
		strlist_pushf(&d->notes, "%zu binar%s listed in RECORD but not on disk (removed after install?): %s%s",
			      b->missing, b->missing == 1 ? "y" : "ies", b->first_missing, b->missing > 1 ? ", ..." : "");
	if (b->over)
		strlist_pushf(&d->notes, "%zu binaries beyond the %d checked per distribution were not checked", b->over,
			      DIST_MAX_BINARIES);
}

static void bins_release(struct bins *b)
{
	free(b->first_refused);
	free(b->first_missing);
	strbuf_release(&b->ok_dir);
}

struct walk {
	struct view *v;
	struct dist *d;
	size_t entries, over;
	int capped;
};

/* A bounded walk for .pyd/.dll files; links are not followed, so it cannot loop. */
static void walk_binaries(struct walk *w, const char *dir, int depth)
{
	struct strlist names = STRLIST_INIT;
	size_t i;
	if (depth > DIST_SCAN_MAX_DEPTH) {
		w->capped = 1;
		return;
	}
	if (view_list_dir(w->v, dir, &names, NULL))
		return;
	for (i = 0; i < names.n; i++) {
		char *p;
		if (++w->entries > DIST_SCAN_MAX_ENTRIES) {
			w->capped = 1;
			break;
		}
		p = winpath_join(dir, names.v[i]);
		if (view_is_link(w->v, p)) {
			/* not followed */
		} else if (view_is_dir(w->v, p)) {
			walk_binaries(w, p, depth + 1);
		} else if (is_binary_name(names.v[i])) {
			if (w->d->binaries.n >= DIST_MAX_BINARIES)
				w->over++;
			else {
				strlist_push(&w->d->binaries, p);
				strlist_push(&w->d->binaries_host, "");
			}
		}
		free(p);
	}
	strlist_release(&names);
}

/* Without RECORD: top_level.txt names, else the distribution's own name, looked up as folders and modules. */
static void binaries_by_scan(struct dist *d, struct view *v, const struct dist_set *s, const char *why)
{
	struct walk w = { v, d, 0, 0, 0 };
	struct strlist names = STRLIST_INIT, listing = STRLIST_INIT;
	struct strbuf how = STRBUF_INIT, text = STRBUF_INIT;
	char *tl = winpath_join(d->dist_info, "top_level.txt");
	const char *from = "top_level.txt";
	size_t i, k;
	if (!view_read_small(v, tl, 1 << 16, &text)) {
		const char *p = text.buf, *e = text.buf + text.len;
		while (p < e && names.n < 64) {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			const char *le = nl ? nl : e, *q;
			while (le > p && (le[-1] == '\r' || le[-1] == ' '))
				le--;
			for (q = p; q < le && (ascii_isalnum((unsigned char)*q) || *q == '_'); q++)
				;
			if (q == le && le > p)
				strlist_push_owned(&names, xstrndup(p, (size_t)(le - p)));
			p = nl ? nl + 1 : e;
		}
	}
	if (!names.n) {
		char *n = xstrdup(d->name);
		for (i = 0; n[i]; i++)
			if (n[i] == '-' || n[i] == '.')
				n[i] = '_';
		strlist_push_owned(&names, n);
		from = "the distribution's name";
	}
	view_list_dir(v, s->site_packages, &listing, NULL);
	for (i = 0; i < names.n; i++) {
		if (!strlist_has_icase(&d->tops, names.v[i]))
			strlist_push(&d->tops, names.v[i]);
		for (k = 0; k < listing.n; k++) {
			const char *e = listing.v[k];
			size_t nl = strlen(names.v[i]);
			char *p;
			if (str_nicmp(e, names.v[i], nl) || (e[nl] && e[nl] != '.'))
				continue;
			p = winpath_join(s->site_packages, e);
			if (!e[nl] && view_is_dir(v, p) && !view_is_link(v, p))
				walk_binaries(&w, p, 0);
			else if (e[nl] == '.' && str_iendswith(e, ".pyd") && view_is_file(v, p)) {
				strlist_push(&d->binaries, p);
				strlist_push(&d->binaries_host, "");
			}
			free(p);
		}
		strbuf_addf(&how, "%s%s", i ? ", " : "", names.v[i]);
	}
	d->scan_note = xasprintf("%s: its binaries were found by walking %s\\{%s} (the names from %s) for .pyd and "
				 ".dll files%s",
				 why, s->site_packages, how.buf, from, w.capped ? "; the walk stopped at its limit" : "");
	if (w.capped)
		strlist_pushf(&d->notes, "the walk for binaries stopped after %d entries or %d levels", DIST_SCAN_MAX_ENTRIES,
			      DIST_SCAN_MAX_DEPTH);
	if (w.over)
		strlist_pushf(&d->notes, "%zu binaries beyond the %d checked per distribution were not checked", w.over,
			      DIST_MAX_BINARIES);
	strbuf_release(&how);
	strbuf_release(&text);
	strlist_release(&names);
	strlist_release(&listing);
	free(tl);
}

/* "torchvision-0.21.0.dist-info" → name "torchvision", version "0.21.0" (the version may be absent). */
static void name_from_folder(const char *folder, char **name, char **version)
{
	size_t n = strlen(folder) - strlen(".dist-info");
	const char *dash = memchr(folder, '-', n);
	if (dash) {
		*name = xstrndup(folder, (size_t)(dash - folder));
		*version = xstrndup(dash + 1, n - (size_t)(dash + 1 - folder));
	} else {
		*name = xstrndup(folder, n);
		*version = NULL;
	}
}

static void read_one(struct dist_set *s, struct view *v, const char *folder)
{
	const char *fast;
	struct dist *d;
	struct bins b;
	struct err e;
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	d = &s->v[s->n++];
	memset(d, 0, sizeof(*d));
	d->dist_info = winpath_join(s->site_packages, folder);
	memset(&b, 0, sizeof(b));
	b.d = d;
	b.v = v;
	b.s = s;
	strbuf_init(&b.ok_dir);
	/* dist_set_read found the folder in the site-packages' listing, a folder and not a link: by its name */
	fast = s->sp_host ? folder : NULL;
	if (!read_metadata(v, &s->sp_dir, fast, d->dist_info, &d->meta, &e)) {
		d->has_metadata = 1;
		d->name = xstrdup(d->meta.name);
		d->version = xstrdup(d->meta.version);
	} else {
		name_from_folder(folder, &d->name, &d->version);
		strlist_pushf(&d->notes, "METADATA unreadable (%s): name and version taken from the folder name", e.msg);
	}
	if (!dist_name_valid(d->name) || (d->version && !dist_version_valid(d->version)))
		strlist_pushf(&d->notes, "not a valid distribution: its name \"%s\" or version is not one PEP 508 allows; "
					 "no command names it",
			      text_excerpt(d->name, strlen(d->name), 60, (char[128]){ 0 }, 128));
	if (!scan_record_file(v, &s->sp_dir, fast, d->dist_info, bin_row, &b, &s->record_bytes, &e)) {
		d->has_record = 1;
		d->nfiles = b.rows;
		bins_notes(&b);
		bins_release(&b);
	} else {
		/* what the rows before the bad one gave is not trusted */
		bins_release(&b);
		strlist_release(&d->binaries);
		strlist_release(&d->binaries_host);
		strlist_release(&d->tops);
		char *rp = winpath_join(d->dist_info, "RECORD");
		int absent = !view_is_file(v, rp);
		char *why = absent ? xstrdup("no RECORD") : xasprintf("RECORD unreadable (%s)", e.msg);
		binaries_by_scan(d, v, s, why);
		free(why);
		free(rp);
	}
}

/*
 * The names the distributions read claim, for read_bare: each one's top-level
 * names (compared as str_icmp does) and its normalised name. Looked up once
 * per folder of the listing, where a walk of every distribution for every
 * folder grew with the product (300 distributions: 180,000 comparisons).
 */
struct claims {
	struct strmap tops;      /* ICASE; keys borrowed from the dists' tops */
	struct strmap names;     /* exact; keys in `normal` */
	struct strlist normal;   /* dist_name_normalize of each name */
};

static void claims_add(struct claims *c, const struct dist *d)
{
	size_t k;
	for (k = 0; k < d->tops.n; k++)
		strmap_add(&c->tops, d->tops.v[k], 0);
	if (d->name) {
		strlist_push_owned(&c->normal, dist_name_normalize(d->name));
		strmap_add(&c->names, c->normal.v[c->normal.n - 1], 0);
	}
}

/* Whether a distribution read names `folder` as a top-level package. */
static int claimed_top(const struct claims *c, const char *folder)
{
	char *n;
	int r;
	if (strmap_get(&c->tops, folder, NULL))
		return 1;
	n = dist_name_normalize(folder);
	r = strmap_get(&c->names, n, NULL);
	free(n);
	return r;
}

/* The package folders of the listing no distribution names, with native binaries: bare dists. */
static void read_bare(struct dist_set *s, struct view *v, const struct strlist *names)
{
	size_t i, walked = 0, over = 0;
	struct claims c;
	strmap_init(&c.tops, STRMAP_ICASE);
	strmap_init(&c.names, 0);
	strlist_init(&c.normal);
	for (i = 0; i < s->n; i++)
		claims_add(&c, &s->v[i]);
	for (i = 0; i < names->n; i++) {
		const char *nm = names->v[i];
		char *p, *init;
		struct dist *d;
		struct walk w;
		if (nm[0] == '.' || !strcmp(nm, "__pycache__") || strchr(nm, '.') || !str_icmp(nm, "torch") || claimed_top(&c, nm))
			continue; /* dist-info, egg-info, __pycache__, torch itself (checked as torch) */
		p = winpath_join(s->site_packages, nm);
		init = winpath_join(p, "__init__.py");
		if (!view_is_dir(v, p) || view_is_link(v, p) || !view_is_file(v, init)) {
			free(p);
			free(init);
			continue;
		}
		free(init);
		if (walked >= DIST_BARE_MAX) {
			over++;
			free(p);
			continue;
		}
		walked++;
		ALLOC_GROW(s->v, s->n + 1, s->alloc);
		d = &s->v[s->n++];
		memset(d, 0, sizeof(*d));
		memset(&w, 0, sizeof(w));
		w.v = v;
		w.d = d;
		walk_binaries(&w, p, 0);
		if (!d->binaries.n) { /* pure Python: nothing for the loader */
			s->n--;
			strlist_release(&d->binaries);
			strlist_release(&d->binaries_host);
			free(p);
			continue;
		}
		d->bare = 1;
		d->name = xstrdup(nm);
		d->dist_info = p;
		strlist_push(&d->tops, nm);
		claims_add(&c, d);
		d->scan_note = xasprintf("not installed by pip: no RECORD (no .dist-info names %s); its binaries were found "
					 "by walking it for .pyd and .dll files%s",
					 p, w.capped ? "; the walk stopped at its limit" : "");
		if (!dist_name_valid(nm))
			strlist_pushf(&d->notes, "its folder name is not a distribution name PEP 508 allows; no command "
						 "names it");
		if (w.capped)
			strlist_pushf(&d->notes, "the walk for binaries stopped after %d entries or %d levels",
				      DIST_SCAN_MAX_ENTRIES, DIST_SCAN_MAX_DEPTH);
		if (w.over)
			strlist_pushf(&d->notes, "%zu binaries beyond the %d checked per distribution were not checked",
				      w.over, DIST_MAX_BINARIES);
	}
	strmap_release(&c.tops);
	strmap_release(&c.names);
	strlist_release(&c.normal);
	s->bare_over = over;
	if (over)
		strlist_pushf(&s->notes, "more than %d package folders without a .dist-info in %s: %zu more were not read",
			      DIST_BARE_MAX, s->site_packages, over);
}

static char *infer_env_root(const char *sp)
{
	char *parent = winpath_dirname(sp);
	if (str_iendswith(sp, "\\Lib\\site-packages")) {
		char *root = winpath_dirname(parent);
		free(parent);
		return root;
	}
	return parent;
}

int dist_set_read(struct dist_set *out, struct view *v, const char *site_packages, const char *env_root,
		  struct err *err)
{
	struct strlist names = STRLIST_INIT;
	size_t i, nd = 0;
	memset(out, 0, sizeof(*out));
	out->site_packages = winpath_normalize(site_packages);
	if (view_list_dir(v, out->site_packages, &names, err)) {
		strlist_release(&names);
		dist_set_release(out);
		return -1;
	}
	out->env_root = env_root ? winpath_normalize(env_root) : infer_env_root(out->site_packages);
	if (!view_is_live(v) && !view_is_link(v, out->site_packages))
		out->sp_host = view_host_path(v, out->site_packages);
	if (out->sp_host && os_dir_open(&out->sp_dir, out->sp_host)) {
		/* not a host folder (a mounted one): the view answers every lookup */
		free(out->sp_host);
		out->sp_host = NULL;
	}
	for (i = 0; i < names.n; i++) {
		char *p;
		if (!str_iendswith(names.v[i], ".dist-info") || strlen(names.v[i]) == strlen(".dist-info"))
			continue;
		if (nd >= DIST_SET_MAX) {
			out->over++; /* counted by name: what is not read is not looked at either */
			continue;
		}
		p = winpath_join(out->site_packages, names.v[i]);
		if (view_is_dir(v, p) && !view_is_link(v, p)) {
			nd++;
			read_one(out, v, names.v[i]);
		}
		free(p);
	}
	if (out->over)
		strlist_pushf(&out->notes, "more than %d .dist-info folders in %s: %zu more were not read", DIST_SET_MAX,
			      out->site_packages, out->over);
	read_bare(out, v, &names);
	strlist_release(&names);
	return 0;
}

const struct dist *dist_set_find(const struct dist_set *s, const char *name)
{
	size_t i, k;
	for (i = 0; i < s->n; i++)
		if (dist_name_eq(s->v[i].name, name))
			return &s->v[i];
	for (i = 0; i < s->n; i++)
		for (k = 0; k < s->v[i].tops.n; k++)
			if (!strcmp(s->v[i].tops.v[k], name))
				return &s->v[i];
	return NULL;
}
