/*
 * record: RECORD against the disk (see record.h).
 */
#include "judge/record.h"

#include <stdlib.h>
#include <string.h>

#include "judge/record_twins.h"
#include "machine/dist.h"
#include "util/os.h"
#include "util/sha256.h"
#include "util/strbuf.h"

struct rec {
	struct findings *out;
	struct view *v;
	const char *dist_info;     /* the distribution's .dist-info folder (Windows path) */
	const char *site;          /* the site-packages RECORD paths are relative to */
	const char *prefix;        /* the environment no path may leave (NULL: site) */
	const char *name;          /* "torch", "torchvision" */
	const char *version;       /* its version, or NULL */
	const char *install;       /* the torch install findings belong to (torch_dir) */
	char *reinstall;           /* "with `pip install --force-reinstall --no-deps NAME==X`", or "by hand (...)" */
	struct strlist listed;     /* the .dll/.pyd paths RECORD lists, upper-cased, sorted */
	size_t rows, checked, deleted, changed, refused, hashed;
	unsigned long long hashed_bytes;
	size_t nbin_deleted, nbin_changed;
	struct strlist other_deleted, other_changed, refused_rows; /* the first few, for the counting findings */
	struct strlist changed_bins; /* every .dll/.pyd RECORD says changed (Windows paths): for the load failures' fixes */
	struct hashed *hs;           /* the files hashed, by upper-cased path: each hashed once (same_hash) */
	size_t hs_cap, hs_n;
};

static int is_binary(const char *p)
{
	return str_iendswith(p, ".dll") || str_iendswith(p, ".pyd");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *upper(const char *s)
{
	char *u = xstrdup(s), *p;
	for (p = u; *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
	return u;
}

static int listed(const struct rec *r, const char *winpath)
{
	char *u = upper(winpath);
	int hit = r->listed.n && bsearch(&u, r->listed.v, r->listed.n, sizeof(char *), cmp_str) != NULL;
	free(u);
	return hit;
}

/* A file hashed for --verify-hashes: rows naming it again reuse the digest (100 rows of a 20 MB file hashed 2 GB). */
struct hashed {
	char *key; /* upper-cased Windows path; NULL: empty slot */
	unsigned char sha[32];
	int unreadable;
};

static struct hashed *hashed_slot(struct rec *r, const char *key)
{
	size_t h = 5381, i;
	const char *p;
	if (r->hs_n * 2 >= r->hs_cap) { /* grow first: the table stays at most half full */
		struct hashed *old = r->hs;
		size_t oc = r->hs_cap;
		r->hs_cap = oc ? oc * 2 : 64;
		r->hs = xcalloc(r->hs_cap, sizeof(*r->hs));
		for (i = 0; i < oc; i++)
			if (old[i].key)
				*hashed_slot(r, old[i].key) = old[i];
		free(old);
	}
	for (p = key; *p; p++)
		h = h * 33 + (unsigned char)*p;
	for (i = h & (r->hs_cap - 1); r->hs[i].key && strcmp(r->hs[i].key, key); i = (i + 1) & (r->hs_cap - 1))
		;
	return &r->hs[i];
}

/* sha256 of a host file (mapped, pages dropped as it goes; once per file) against RECORD's digest: 1 same, 0 differs, -1 unreadable. */
static int same_hash(struct rec *r, const char *host, const char *win, const char *digest)
{
	unsigned char want[64], got[32];
	size_t wn = 0, off;
	struct os_map m;
	struct sha256 s;
	struct err e;
	struct hashed *hd;
	char *key;
	if (dist_digest_decode(digest, want, sizeof(want), &wn, &e) || wn != 32)
		return 0;
	key = upper(win);
	hd = hashed_slot(r, key);
	if (hd->key) {
		free(key);
		return hd->unreadable ? -1 : !memcmp(want, hd->sha, 32);
	}
	hd->key = key;
	r->hs_n++;
	if (os_map_file(&m, host, &e)) {
		hd->unreadable = 1;
		return -1;
	}
	sha256_init(&s);
	for (off = 0; off < m.size; off += 1u << 24) {
		size_t n = m.size - off < (1u << 24) ? m.size - off : 1u << 24;
		sha256_update(&s, m.data + off, n);
		os_drop_pages(m.data + off, n);
	}
	sha256_final(&s, got);
	memcpy(hd->sha, got, 32);
	r->hashed++;
	r->hashed_bytes += m.size;
	os_unmap(&m);
	return !memcmp(want, got, 32);
}

static void deleted_binary(struct rec *r, const char *winpath, size_t line)
{
	const char *base = winpath_basename(winpath);
	char *title = xasprintf("%s was deleted after install", base);
	char *msg = xasprintf("%s\\RECORD:%zu lists %s, which pip installed, and it is gone. Antivirus quarantine is "
			      "the usual cause; an interrupted upgrade or a second installer are others.",
			      r->dist_info, line, winpath);
	char *fix = xasprintf("restore %s from the antivirus quarantine, or reinstall %s", base, r->reinstall);
	finding_add(r->out, RULE_DELETED_AFTER_INSTALL, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->install,
					    .binary = winpath, .leaf = base, .path = winpath });
	free(title);
	free(msg);
	free(fix);
}

static void changed_binary(struct rec *r, const char *winpath, size_t line, const char *how)
{
	const char *base = winpath_basename(winpath);
	char *title = xasprintf("%s was changed after install (%s)", base, how);
	char *msg = xasprintf("%s\\RECORD:%zu says what pip installed as %s; the file on the disk differs: %s.",
			      r->dist_info, line, winpath, how);
	char *fix = xasprintf("reinstall %s", r->reinstall);
	finding_add(r->out, RULE_CHANGED_AFTER_INSTALL, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->install,
					    .binary = winpath, .leaf = base, .path = winpath });
	free(title);
	free(msg);
	free(fix);
}

static void row(struct rec *r, const struct dist_record_row *w, int hashes)
{
	char *win = NULL, *host;
	struct os_stat st;
	struct err e;
	const char *site = r->site;
	r->rows++;
	err_clear(&e);
	if (dist_record_resolve(site, r->prefix, w->path, &win, &e)) {
		r->refused++;
		if (r->refused_rows.n < 3)
			strlist_pushf(&r->refused_rows, "line %zu: %s", w->line, e.msg);
		return;
	}
	if (is_binary(win)) /* what leftovers and deleted leaves are looked up in */
		strlist_push_owned(&r->listed, upper(win));
	/* pip's RECORD row of RECORD itself, and byte code Python writes again, are not worth a stat */
	if ((!w->algo && w->size < 0) || strstr(w->path, "__pycache__")) {
		free(win);
		return;
	}
	r->checked++;
	host = view_host_path(r->v, win);
	if (host)
		os_stat(host, &st);
	else
		st.type = OS_NONE;
	if (st.type == OS_NONE) {
		r->deleted++;
		if (is_binary(win) && r->nbin_deleted++ < RECORD_MAX_EACH)
			deleted_binary(r, win, w->line);
		else if (r->other_deleted.n < 5)
			strlist_push(&r->other_deleted, win);
	} else if (st.type == OS_FILE) {
		char how[160] = "";
		if (w->size >= 0 && st.size != (uint64_t)w->size)
			snprintf(how, sizeof(how), "%llu bytes, RECORD says %lld", (unsigned long long)st.size,
				 (long long)w->size);
		else if (hashes && w->algo && !strcmp(w->algo, "sha256") && w->digest) {
			int s = same_hash(r, host, win, w->digest);
			if (!s)
				snprintf(how, sizeof(how), "its sha256 is not RECORD's");
		}
		if (*how) {
			r->changed++;
			if (is_binary(win))
				strlist_push(&r->changed_bins, win);
			if (is_binary(win) && r->nbin_changed++ < RECORD_MAX_EACH)
				changed_binary(r, win, w->line, how);
			else if (r->other_changed.n < 5)
				strlist_push(&r->other_changed, win);
		}
	}
	free(host);
	free(win);
}

/* One finding counting what the per-file findings left out (other files, or binaries past the cap). */
static void counted(struct rec *r, enum rule_id rule, size_t n, const struct strlist *first, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	char *title, *msg, *fix;
	size_t i;
	if (!n)
		return;
	for (i = 0; i < first->n; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : "", first->v[i]);
	title = xasprintf("%zu more files of %s %s after install", n, r->name, what);
	msg = xasprintf("%s\\RECORD lists them (among %zu rows); for example %s.", r->dist_info, r->rows,
			sb.len ? sb.buf : "(none named)");
	fix = xasprintf("reinstall %s", r->reinstall);
	finding_add(r->out, rule, SEV_WARNING,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->install });
	free(title);
	free(msg);
	free(fix);
	strbuf_release(&sb);
}

static void unreadable(struct rec *r, const char *why)
{
	char *title = xasprintf("%s's RECORD %s", r->name, why);
	char *msg = xasprintf("%s: without what pip wrote down, files deleted or changed after install (antivirus "
			      "quarantine) and DLLs left over from another install cannot be told apart from torch's "
			      "own.",
			      r->dist_info);
	char *fix = xasprintf("reinstall %s", r->reinstall);
	finding_add(r->out, RULE_RECORD_UNREADABLE, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->install });
	free(title);
	free(msg);
	free(fix);
}

/*
 * A path list indexed for lookups: upper-cased copies with their index in
 * the list, sorted. refix() and record_extension() looked every finding's
 * paths up by walking lists as long as the extension's binaries: an
 * extension with 4,000 failing binaries in separate folders took 8-19 s.
 */
struct pidx {
	char *u;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	const struct pidx *x = a, *y = b;
	int c = strcmp(x->u, y->u);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static struct pidx *pidx_build(const struct strlist *l)
{
	struct pidx *x = xcalloc(l && l->n ? l->n : 1, sizeof(*x));
	size_t i;
	for (i = 0; l && i < l->n; i++) {
		x[i].u = upper(l->v[i]);
		x[i].i = i;
	}
	if (l && l->n > 1)
		qsort(x, l->n, sizeof(*x), cmp_pidx);
	return x;
}

static void pidx_free(struct pidx *x, const struct strlist *l)
{
	size_t i;
	for (i = 0; l && i < l->n; i++)
		free(x[i].u);
	free(x);
}

/* The position in x (n entries) of the first entry >= u. */
static size_t pidx_lower(const struct pidx *x, size_t n, const char *u)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(x[mid].u, u) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first index in the list of `s` (case-insensitively), or (size_t)-1. */
static size_t pidx_find(const struct pidx *x, const struct strlist *l, const char *s)
{
	size_t at, r = (size_t)-1;
	char *u;
	if (!s || !l || !l->n)
		return r;
	u = upper(s);
	at = pidx_lower(x, l->n, u);
	if (at < l->n && !strcmp(x[at].u, u))
		r = x[at].i;
	free(u);
	return r;
}

/* Drops the later copies of a path (case-insensitively), keeping the list's order. */
static void dedupe_paths(struct strlist *l)
{
	struct pidx *x = pidx_build(l);
	char *drop = xcalloc(l->n ? l->n : 1, 1);
	size_t i, n = 0;
	for (i = 1; i < l->n; i++)
		drop[x[i].i] = !strcmp(x[i].u, x[i - 1].u);
	pidx_free(x, l);
	for (i = 0; i < l->n; i++) {
		if (drop[i])
			free(l->v[i]);
		else
			l->v[n++] = l->v[i];
	}
	l->n = n;
	free(drop);
}

static int loader_rule(enum rule_id rule)
{
	return rule == RULE_MISSING_DLL || rule == RULE_MISSING_ENTRY_POINT || rule == RULE_MISSING_ORDINAL ||
	       rule == RULE_EXTENSION_LOAD_FAILURE || rule == RULE_EXTENSION_MISMATCH;
}

static void restore_fix(struct rec *r, struct finding *f, const char *path)
{
	char *fix = xasprintf("restore %s from the antivirus quarantine, or reinstall %s "
			      "(%s installed it and it was deleted after install)",
			      path, r->reinstall, r->name);
	finding_set(&f->fix, fix);
	free(fix);
}

static void reinstall_fix(struct rec *r, struct finding *f, const char *path)
{
	char *fix = xasprintf("%s was changed after install: reinstall %s", path, r->reinstall);
	finding_set(&f->fix, fix);
	free(fix);
}

/*
 * The loader's failures that involve a leftover or a deleted file get that
 * fix; an extension's (`owned`) that involve a file RECORD says changed (the
 * failing binary, or the DLL it binds to: a 127's leaf) get the reinstall. `owned` (NULL: every failure of the install) limits it to the
 * failures of these binaries (an extension's); `leaf_dirs` are the folders
 * where a missing leaf that RECORD lists is one deleted after install.
 */
static void refix(struct rec *r, const struct strlist *leftovers, const struct strlist *owned,
		  const struct strlist *leaf_dirs)
{
	size_t i, k, d;
	struct strlist bases = STRLIST_INIT; /* the base names of r->listed, in its order */
	struct pidx *lx = pidx_build(leftovers), *ox = pidx_build(owned), *dx = pidx_build(leaf_dirs),
		    *cx = pidx_build(&r->changed_bins), *bx;
	for (i = 0; i < r->listed.n; i++)
		strlist_push(&bases, winpath_basename(r->listed.v[i]));
	bx = pidx_build(&bases);
	for (i = 0; i < r->out->n; i++) {
		struct finding *f = &r->out->v[i];
		int done = 0;
		if (!f->install || str_icmp(f->install, r->install) || !loader_rule(f->rule))
			continue;
		if (owned ? pidx_find(ox, owned, f->binary) == (size_t)-1 && pidx_find(lx, leftovers, f->path) == (size_t)-1
			  : f->rule == RULE_EXTENSION_LOAD_FAILURE || f->rule == RULE_EXTENSION_MISMATCH)
			continue;
		/* the first leftover that is the binary or the file its failure is on */
		k = pidx_find(lx, leftovers, f->binary);
		d = pidx_find(lx, leftovers, f->path);
		if (d < k)
			k = d;
		if (k != (size_t)-1) {
			char *fix = xasprintf("remove %s: %s %s did not install it (its RECORD does not list it), "
					      "a leftover of another install",
					      leftovers->v[k], r->name, r->version ? r->version : "");
			finding_set(&f->fix, fix);
			free(fix);
			done = 1;
		}
		/* the failing binary itself was deleted (an extension's .pyd RECORD lists) */
		if (!done && f->binary && listed(r, f->binary) && !view_is_file(r->v, f->binary)) {
			restore_fix(r, f, f->binary);
			done = 1;
		}
		/* a missing leaf RECORD lists in the distribution's folders: deleted after install, not a DLL to
		   install; the first such folder of leaf_dirs, found from the rows of that name */
		if (!done && f->leaf && (f->rule == RULE_MISSING_DLL || f->winerror == 126) && leaf_dirs && bases.n) {
			char *ub = upper(winpath_basename(f->leaf)), *lib;
			size_t at, best = (size_t)-1;
			for (at = pidx_lower(bx, bases.n, ub); at < bases.n && !strcmp(bx[at].u, ub); at++) {
				char *dir = winpath_dirname(r->listed.v[bx[at].i]);
				d = pidx_find(dx, leaf_dirs, dir);
				free(dir);
				if (d >= best)
					continue;
				lib = winpath_join(leaf_dirs->v[d], winpath_basename(f->leaf));
				if (!view_is_file(r->v, lib))
					best = d;
				free(lib);
			}
			free(ub);
			if (best != (size_t)-1) {
				lib = winpath_join(leaf_dirs->v[best], winpath_basename(f->leaf));
				restore_fix(r, f, lib);
				free(lib);
				done = 1;
			}
		}
		/* an extension's binary, or the file its failure is on, changed after install */
		if (!done && owned && (f->winerror == 126 || f->winerror == 127 || f->winerror == 193)) {
			if (pidx_find(cx, &r->changed_bins, f->binary) != (size_t)-1)
				reinstall_fix(r, f, f->binary);
			else if (pidx_find(cx, &r->changed_bins, f->path) != (size_t)-1)
				reinstall_fix(r, f, f->path);
		}
	}
	pidx_free(lx, leftovers);
	pidx_free(ox, owned);
	pidx_free(dx, leaf_dirs);
	pidx_free(cx, &r->changed_bins);
	pidx_free(bx, &bases);
	strlist_release(&bases);
}

/*
 * RECORD's rows against the disk (deleted, changed, refused) and the
 * `record` members; 0 when RECORD was read (r->listed then holds its
 * binaries, sorted), -1 when it is missing or unreadable (said).
 */
static int compare(struct rec *r, struct dist_record *rec, struct record_summary *sum, int hashes)
{
	struct err e;
	size_t i;
	err_clear(&e);
	{
		char *rp = winpath_join(r->dist_info, "RECORD");
		int present = view_is_file(r->v, rp);
		free(rp);
		if (!present) {
			unreadable(r, "is missing");
			sum->error = xstrdup("missing");
			return -1;
		}
	}
	if (dist_read_record(r->v, r->dist_info, rec, &e)) {
		char *why = xasprintf("is unreadable: %s", e.msg);
		unreadable(r, why);
		sum->error = xstrdup(e.msg);
		free(why);
		return -1;
	}
	for (i = 0; i < rec->n; i++)
		row(r, &rec->v[i], hashes);
	if (r->listed.n)
		qsort(r->listed.v, r->listed.n, sizeof(char *), cmp_str);
	counted(r, RULE_DELETED_AFTER_INSTALL,
		r->deleted - (r->nbin_deleted < RECORD_MAX_EACH ? r->nbin_deleted : RECORD_MAX_EACH), &r->other_deleted,
		"deleted");
	counted(r, RULE_CHANGED_AFTER_INSTALL,
		r->changed - (r->nbin_changed < RECORD_MAX_EACH ? r->nbin_changed : RECORD_MAX_EACH), &r->other_changed,
		"changed");
	if (r->refused) {
		struct strbuf sb = STRBUF_INIT;
		char *why;
		for (i = 0; i < r->refused_rows.n; i++)
			strbuf_addf(&sb, "%s%s", i ? "; " : "", r->refused_rows.v[i]);
		why = xasprintf("has %zu rows naming files outside the environment, not checked (%s)", r->refused, sb.buf);
		unreadable(r, why);
		free(why);
		strbuf_release(&sb);
	}
	return 0;
}

static void leftover(struct rec *r, const char *p, const char *how)
{
	char *title = xasprintf("%s is not part of this %s install (a leftover)", winpath_basename(p), r->name);
	char *msg = xasprintf("%s %s, but %s\\RECORD does not list it: pip did not install it with %s %s. "
			      "A DLL left over from another install (a CUDA build's DLL beside a CPU build, an older "
			      "release's) is loaded with %s's own.",
			      how, p, r->dist_info, r->name, r->version ? r->version : "", r->name);
	char *fix = xasprintf("remove %s (or reinstall %s after removing its folder)", p, r->reinstall);
	finding_add(r->out, RULE_LEFTOVER_BINARY, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->install,
					    .binary = p, .leaf = winpath_basename(p), .path = p });
	free(title);
	free(msg);
	free(fix);
}

/* The leftovers past RECORD_MAX_EACH, in one finding that counts them. */
static void leftovers_counted(struct rec *r, const struct strlist *leftovers)
{
	char *title, *msg, *fix;
	if (leftovers->n <= RECORD_MAX_EACH)
		return;
	title = xasprintf("%zu more binaries that are not part of this %s install (leftovers)",
			  leftovers->n - RECORD_MAX_EACH, r->name);
	msg = xasprintf("%s\\RECORD does not list them; for example %s.", r->dist_info, leftovers->v[RECORD_MAX_EACH]);
	fix = xasprintf("remove them (or reinstall %s after removing its folder)", r->reinstall);
	finding_add(r->out, RULE_LEFTOVER_BINARY, SEV_WARNING,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->install });
	free(title);
	free(msg);
	free(fix);
}

static void summarize(struct record_summary *sum, const struct rec *r, size_t nleft, int hashes)
{
	sum->rows = r->rows;
	sum->checked = r->checked;
	sum->deleted = r->deleted;
	sum->changed = r->changed;
	sum->leftover = nleft;
	sum->refused = r->refused;
	sum->hashes = hashes;
	sum->hashed = r->hashed;
	sum->hashed_bytes = r->hashed_bytes;
}

void record_summary_release(struct record_summary *s)
{
	free(s->name);
	free(s->version);
	free(s->dist_info);
	free(s->error);
	memset(s, 0, sizeof(*s));
}

void record_summaries_release(struct record_summaries *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		record_summary_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static void rec_release(struct rec *r, struct dist_record *rec)
{
	strlist_release(&r->listed);
	strlist_release(&r->other_deleted);
	strlist_release(&r->other_changed);
	strlist_release(&r->refused_rows);
	strlist_release(&r->changed_bins);
	for (size_t i = 0; i < r->hs_cap; i++)
		free(r->hs[i].key);
	free(r->hs);
	dist_record_release(rec);
	free(r->reinstall);
}

static void rec_init(struct rec *r, struct dist_record *rec, struct findings *out, struct view *v,
		     const char *dist_info, const char *site, const char *prefix, const char *name, const char *version,
		     const char *install)
{
	memset(r, 0, sizeof(*r));
	memset(rec, 0, sizeof(*rec));
	r->out = out;
	r->v = v;
	r->dist_info = dist_info;
	r->site = site;
	r->prefix = prefix;
	r->name = name;
	r->version = version;
	r->install = install;
	if (dist_name_valid(name) && (!version || dist_version_valid(version)))
		r->reinstall = xasprintf("with `pip install --force-reinstall --no-deps %s==%s`", name,
					 version ? version : "<version>");
	else /* package data that is not a name never reaches a command */
		r->reinstall = xasprintf("by hand (%s is not a valid distribution: its name or version is not one "
					 "PEP 508 allows, so no command is given)",
					 dist_info);
	strlist_init(&r->listed);
	strlist_init(&r->other_deleted);
	strlist_init(&r->other_changed);
	strlist_init(&r->refused_rows);
	strlist_init(&r->changed_bins);
}

void record_judge(struct findings *out, struct record_summary *sum, const struct torch_run *run, struct view *v,
		  const struct inv_install *install, int hashes)
{
	struct rec r;
	struct dist_record rec;
	struct strlist leftovers = STRLIST_INIT, lib_dirs = STRLIST_INIT, theirs = STRLIST_INIT;
	struct record_twins tw;
	size_t i;
	memset(sum, 0, sizeof(*sum));
	if (!install || !install->dist_info || !install->site_packages)
		return; /* no dist-info: inventory says so; nothing pip wrote down to compare */
	record_twins_init(&tw);
	record_twins_read(&tw, v, install); /* another torch dist-info in the folder: its files are not leftovers */
	rec_init(&r, &rec, out, v, install->dist_info, install->site_packages, install->prefix, "torch",
		 install->metadata_version ? install->metadata_version : install->version, run->torch_dir);
	sum->dist_info = xstrdup(install->dist_info);
	if (compare(&r, &rec, sum, hashes) == 0) {
		/* what torch loads that pip did not install */
		for (i = 0; i < run->nbins; i++) {
			const char *p = run->bins[i].path;
			if (listed(&r, p))
				continue;
			if (record_twins_lists(&tw, p)) { /* the other torch install's: said once, by its cause */
				strlist_push(&theirs, p);
				continue;
			}
			strlist_push(&leftovers, p);
			if (leftovers.n <= RECORD_MAX_EACH)
				leftover(&r, p, "torch loads");
		}
		leftovers_counted(&r, &leftovers);
		strlist_pushf(&lib_dirs, "%s\\lib", run->torch_dir);
		refix(&r, &leftovers, NULL, &lib_dirs);
	}
	record_twins_judge(out, &tw, install, run->torch_dir, &theirs);
	summarize(sum, &r, leftovers.n, hashes);
	strlist_release(&leftovers);
	strlist_release(&lib_dirs);
	strlist_release(&theirs);
	record_twins_release(&tw);
	rec_release(&r, &rec);
}

/* The .dll/.pyd files under `dir` RECORD does not list, into `out` (bounded: depth and entries). */
static void scan_leftovers(struct rec *r, const char *dir, int depth, size_t *budget, struct strlist *out)
{
	struct strlist names = STRLIST_INIT;
	size_t i;
	if (depth > RECORD_SCAN_DEPTH || view_list_dir(r->v, dir, &names, NULL))
		return;
	for (i = 0; i < names.n && *budget; i++, (*budget)--) {
		char *p;
		if (!strcmp(names.v[i], ".") || !strcmp(names.v[i], "..") || !strcmp(names.v[i], "__pycache__"))
			continue;
		p = winpath_join(dir, names.v[i]);
		if (is_binary(p) && view_is_file(r->v, p)) {
			if (!listed(r, p))
				strlist_push(out, p);
		} else if (view_is_dir(r->v, p) && !view_is_link(r->v, p)) {
			/* a folder link is not followed: it may lead out of the package (to torch\lib) or to itself */
			scan_leftovers(r, p, depth + 1, budget, out);
		}
		free(p);
	}
	strlist_release(&names);
}

/* One extension's RECORD: its rows, the binaries left in its package folders, its failures' fixes. */
/*
 * The binaries every distribution's RECORD lists (upper case, sorted): a file in
 * a shared folder (PyQt5\ holds PyQt5's and PyQt5-Qt5's files) is a leftover
 * only when no installed distribution claims it.
 */
static void claimed_init(struct strlist *claimed, const struct dist_set *s)
{
	size_t i, k;
	for (i = 0; i < s->n; i++)
		for (k = 0; s->v[i].has_record && k < s->v[i].binaries.n; k++)
			strlist_push_owned(claimed, upper(s->v[i].binaries.v[k]));
	if (claimed->n)
		qsort(claimed->v, claimed->n, sizeof(char *), cmp_str);
}

/* Drops from `l` the paths `claimed` holds. */
static void unclaimed(struct strlist *l, const struct strlist *claimed)
{
	size_t i, k = 0;
	for (i = 0; i < l->n; i++) {
		char *u = upper(l->v[i]);
		int hit = claimed->n && bsearch(&u, claimed->v, claimed->n, sizeof(char *), cmp_str) != NULL;
		free(u);
		if (hit)
			free(l->v[i]);
		else
			l->v[k++] = l->v[i];
	}
	l->n = k;
}

static void record_extension(struct findings *out, struct record_summaries *sums, const struct ext_check *xc,
			     const struct ext_run *x, const char *torch_dir, struct view *v, int hashes,
			     const struct strlist *claimed)
{
	struct rec r;
	struct dist_record rec;
	struct strlist leftovers = STRLIST_INIT, dirs = STRLIST_INIT, owned = STRLIST_INIT;
	const struct dist *d = dist_set_find(&xc->dists, x->name);
	struct record_summary *sum;
	size_t i, budget = RECORD_SCAN_ENTRIES;
	rec_init(&r, &rec, out, v, x->dist_info, xc->dists.site_packages, xc->dists.env_root, x->name, x->version,
		 torch_dir);
	ALLOC_GROW(sums->v, sums->n + 1, sums->alloc);
	sum = &sums->v[sums->n++];
	memset(sum, 0, sizeof(*sum));
	sum->name = xstrdup(x->name);
	sum->version = x->version ? xstrdup(x->version) : NULL;
	sum->dist_info = xstrdup(x->dist_info);
	if (compare(&r, &rec, sum, hashes) == 0) {
		/* its package folders: the top-level names it installs, and the folders of its binaries */
		for (i = 0; d && i < d->tops.n; i++) {
			char *p = winpath_join(xc->dists.site_packages, d->tops.v[i]);
			if (view_is_dir(v, p) && !view_is_link(v, p) && !strlist_has_icase(&dirs, p))
				strlist_push(&dirs, p);
			free(p);
		}
		if (x->package_dir && !strlist_has_icase(&dirs, x->package_dir) && view_is_dir(v, x->package_dir) &&
		    !view_is_link(v, x->package_dir))
			strlist_push(&dirs, x->package_dir);
		for (i = 0; i < dirs.n; i++)
			scan_leftovers(&r, dirs.v[i], 0, &budget, &leftovers);
		unclaimed(&leftovers, claimed);
		for (i = 0; i < leftovers.n && i < RECORD_MAX_EACH; i++)
			leftover(&r, leftovers.v[i], "its package folder holds");
		leftovers_counted(&r, &leftovers);
		for (i = 0; i < x->nbins; i++) {
			strlist_push(&owned, x->bins[i].path);
			strlist_push_owned(&dirs, winpath_dirname(x->bins[i].path));
		}
		dedupe_paths(&dirs); /* each folder once, first seen first */
		refix(&r, &leftovers, &owned, &dirs);
	}
	summarize(sum, &r, leftovers.n, hashes);
	sum->scan_capped = !budget;
	strlist_release(&leftovers);
	strlist_release(&dirs);
	strlist_release(&owned);
	rec_release(&r, &rec);
}

void record_judge_extensions(struct findings *out, struct record_summaries *sums, const struct torch_run *run,
			     struct view *v, const struct ext_check *xc, int hashes)
{
	struct strlist claimed = STRLIST_INIT;
	size_t i;
	memset(sums, 0, sizeof(*sums));
	if (!xc->nexts && !xc->nfirst)
		return;
	sums->judged = 1;
	claimed_init(&claimed, &xc->dists);
	for (i = 0; i < xc->nfirst + xc->nexts; i++) {
		const struct ext_run *x = i < xc->nfirst ? xc->first[i] : xc->exts[i - xc->nfirst];
		const struct dist *d = x->name ? dist_set_find(&xc->dists, x->name) : NULL;
		if (!x->dist_info || !xc->dists.site_packages || !x->name || !str_icmp(x->name, "torch") || (d && d->bare))
			continue; /* a package pip did not install has no RECORD to compare (its notes say so) */
		record_extension(out, sums, xc, x, run->torch_dir, v, hashes, &claimed);
	}
	strlist_release(&claimed);
}
