/*
 * record: RECORD against the disk (see record.h).
 */
#include "judge/record.h"

#include <stdlib.h>
#include <string.h>

#include "machine/dist.h"
#include "util/os.h"
#include "util/sha256.h"
#include "util/strbuf.h"

struct rec {
	struct findings *out;
	const struct torch_run *run;
	struct view *v;
	const struct inv_install *inst;
	char *reinstall;           /* pip install --force-reinstall --no-deps torch==X */
	struct strlist listed;     /* the .dll/.pyd paths RECORD lists, upper-cased, sorted */
	size_t rows, checked, deleted, changed, refused, hashed;
	unsigned long long hashed_bytes;
	size_t nbin_deleted, nbin_changed;
	struct strlist other_deleted, other_changed, refused_rows; /* the first few, for the counting findings */
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

/* sha256 of a host file (mapped, pages dropped as it goes) against RECORD's digest: 1 same, 0 differs, -1 unreadable. */
static int same_hash(struct rec *r, const char *host, const char *digest)
{
	unsigned char want[64], got[32];
	size_t wn = 0, off;
	struct os_map m;
	struct sha256 s;
	struct err e;
	if (dist_digest_decode(digest, want, sizeof(want), &wn, &e) || wn != 32)
		return 0;
	if (os_map_file(&m, host, &e))
		return -1;
	sha256_init(&s);
	for (off = 0; off < m.size; off += 1u << 24) {
		size_t n = m.size - off < (1u << 24) ? m.size - off : 1u << 24;
		sha256_update(&s, m.data + off, n);
		os_drop_pages(m.data + off, n);
	}
	sha256_final(&s, got);
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
			      r->inst->dist_info, line, winpath);
	char *fix = xasprintf("restore %s from the antivirus quarantine, or reinstall with `%s`", base, r->reinstall);
	finding_add(r->out, RULE_DELETED_AFTER_INSTALL, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->run->torch_dir,
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
			      r->inst->dist_info, line, winpath, how);
	char *fix = xasprintf("reinstall with `%s`", r->reinstall);
	finding_add(r->out, RULE_CHANGED_AFTER_INSTALL, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->run->torch_dir,
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
	const char *site = r->inst->site_packages;
	r->rows++;
	err_clear(&e);
	if (dist_record_resolve(site, r->inst->prefix, w->path, &win, &e)) {
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
			int s = same_hash(r, host, w->digest);
			if (!s)
				snprintf(how, sizeof(how), "its sha256 is not RECORD's");
		}
		if (*how) {
			r->changed++;
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
	title = xasprintf("%zu more files of torch %s after install", n, what);
	msg = xasprintf("%s\\RECORD lists them (among %zu rows); for example %s.", r->inst->dist_info, r->rows,
			sb.len ? sb.buf : "(none named)");
	fix = xasprintf("reinstall with `%s`", r->reinstall);
	finding_add(r->out, rule, SEV_WARNING,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->run->torch_dir });
	free(title);
	free(msg);
	free(fix);
	strbuf_release(&sb);
}

static void unreadable(struct rec *r, const char *why)
{
	char *title = xasprintf("torch's RECORD %s", why);
	char *msg = xasprintf("%s: without what pip wrote down, files deleted or changed after install (antivirus "
			      "quarantine) and DLLs left over from another install cannot be told apart from torch's "
			      "own.",
			      r->inst->dist_info);
	char *fix = xasprintf("reinstall with `%s`", r->reinstall);
	finding_add(r->out, RULE_RECORD_UNREADABLE, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = r->run->torch_dir });
	free(title);
	free(msg);
	free(fix);
}

/* The loader's failures that involve a leftover or a deleted file get that fix. */
static void refix(struct rec *r, const struct strlist *leftovers)
{
	size_t i, k;
	for (i = 0; i < r->out->n; i++) {
		struct finding *f = &r->out->v[i];
		if (!f->install || str_icmp(f->install, r->run->torch_dir))
			continue;
		if (f->rule != RULE_MISSING_DLL && f->rule != RULE_MISSING_ENTRY_POINT && f->rule != RULE_MISSING_ORDINAL)
			continue;
		for (k = 0; k < leftovers->n; k++) {
			const char *lo = leftovers->v[k];
			if ((f->binary && !str_icmp(f->binary, lo)) || (f->path && !str_icmp(f->path, lo))) {
				char *fix = xasprintf("remove %s: torch %s did not install it (its RECORD does not list it), "
						      "a leftover of another install",
						      lo, r->inst->metadata_version ? r->inst->metadata_version : "");
				finding_set(&f->fix, fix);
				free(fix);
				break;
			}
		}
		/* a missing leaf RECORD lists in torch's folders: deleted after install, not a DLL to install */
		if (f->rule == RULE_MISSING_DLL && f->leaf && k == leftovers->n) {
			char *lib = xasprintf("%s\\lib\\%s", r->run->torch_dir, winpath_basename(f->leaf));
			if (listed(r, lib)) {
				char *fix = xasprintf("restore %s from the antivirus quarantine, or reinstall with `%s` "
						      "(it was deleted after install)",
						      lib, r->reinstall);
				finding_set(&f->fix, fix);
				free(fix);
			}
			free(lib);
		}
	}
}

void record_judge(struct findings *out, cJSON *install_json, const struct torch_run *run, struct view *v,
		  const struct inv_install *install, int hashes)
{
	struct rec r;
	struct dist_record rec;
	struct strlist leftovers = STRLIST_INIT;
	struct err e;
	cJSON *rj = NULL;
	size_t i;
	const char *ver;
	if (!install || !install->dist_info || !install->site_packages)
		return; /* no dist-info: inventory says so; nothing pip wrote down to compare */
	memset(&r, 0, sizeof(r));
	memset(&rec, 0, sizeof(rec));
	r.out = out;
	r.run = run;
	r.v = v;
	r.inst = install;
	ver = install->metadata_version ? install->metadata_version : install->version;
	r.reinstall = xasprintf("pip install --force-reinstall --no-deps torch==%s", ver ? ver : "<version>");
	if (install_json) {
		rj = cJSON_AddObjectToObject(install_json, "record");
		cJSON_AddStringToObject(rj, "dist_info", install->dist_info);
	}
	err_clear(&e);
	{
		char *rp = winpath_join(install->dist_info, "RECORD");
		int present = view_is_file(v, rp);
		free(rp);
		if (!present) {
			unreadable(&r, "is missing");
			if (rj)
				cJSON_AddStringToObject(rj, "error", "missing");
			goto done;
		}
	}
	if (dist_read_record(v, install->dist_info, &rec, &e)) {
		char *why = xasprintf("is unreadable: %s", e.msg);
		unreadable(&r, why);
		if (rj)
			cJSON_AddStringToObject(rj, "error", e.msg);
		free(why);
		goto done;
	}
	for (i = 0; i < rec.n; i++)
		row(&r, &rec.v[i], hashes);
	if (r.listed.n)
		qsort(r.listed.v, r.listed.n, sizeof(char *), cmp_str);
	counted(&r, RULE_DELETED_AFTER_INSTALL, r.deleted - (r.nbin_deleted < RECORD_MAX_EACH ? r.nbin_deleted : RECORD_MAX_EACH),
		&r.other_deleted, "deleted");
	counted(&r, RULE_CHANGED_AFTER_INSTALL, r.changed - (r.nbin_changed < RECORD_MAX_EACH ? r.nbin_changed : RECORD_MAX_EACH),
		&r.other_changed, "changed");
	if (r.refused) {
		struct strbuf sb = STRBUF_INIT;
		char *why;
		for (i = 0; i < r.refused_rows.n; i++)
			strbuf_addf(&sb, "%s%s", i ? "; " : "", r.refused_rows.v[i]);
		why = xasprintf("has %zu rows naming files outside the environment, not checked (%s)", r.refused, sb.buf);
		unreadable(&r, why);
		free(why);
		strbuf_release(&sb);
	}
	/* what torch loads that pip did not install */
	for (i = 0; i < run->nbins; i++) {
		const char *p = run->bins[i].path;
		char *title, *msg, *fix;
		if (listed(&r, p))
			continue;
		strlist_push(&leftovers, p);
		if (leftovers.n > RECORD_MAX_EACH)
			continue;
		title = xasprintf("%s is not part of this torch install (a leftover)", winpath_basename(p));
		msg = xasprintf("torch loads %s, but %s\\RECORD does not list it: pip did not install it with torch %s. "
				"A DLL left over from another install (a CUDA build's DLL beside a CPU build, an older "
				"release's) is loaded with torch's own.",
				p, install->dist_info, ver ? ver : "");
		fix = xasprintf("remove %s (or reinstall with `%s` after removing torch's folder)", p, r.reinstall);
		finding_add(out, RULE_LEFTOVER_BINARY, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = msg, .fix = fix, .install = run->torch_dir,
						    .binary = p, .leaf = winpath_basename(p), .path = p });
		free(title);
		free(msg);
		free(fix);
	}
	refix(&r, &leftovers);
done:
	if (rj) {
		cJSON_AddNumberToObject(rj, "rows", (double)r.rows);
		cJSON_AddNumberToObject(rj, "checked", (double)r.checked);
		cJSON_AddNumberToObject(rj, "deleted", (double)r.deleted);
		cJSON_AddNumberToObject(rj, "changed", (double)r.changed);
		cJSON_AddNumberToObject(rj, "leftover", (double)leftovers.n);
		cJSON_AddNumberToObject(rj, "refused", (double)r.refused);
		cJSON_AddBoolToObject(rj, "hashes", hashes);
		cJSON_AddNumberToObject(rj, "hashed", (double)r.hashed);
		cJSON_AddNumberToObject(rj, "hashed_bytes", (double)r.hashed_bytes);
	}
	strlist_release(&leftovers);
	strlist_release(&r.listed);
	strlist_release(&r.other_deleted);
	strlist_release(&r.other_changed);
	strlist_release(&r.refused_rows);
	dist_record_release(&rec);
	free(r.reinstall);
}
