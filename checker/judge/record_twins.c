/*
 * record_twins: the other torch dist-infos of a site folder (see record_twins.h).
 */
#include "judge/record_twins.h"

#include <stdlib.h>
#include <string.h>

#include "machine/dist.h"
#include "machine/winpath.h"

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

void record_twins_init(struct record_twins *t)
{
	memset(t, 0, sizeof(*t));
	strlist_init(&t->dist_infos);
	strlist_init(&t->versions);
	strlist_init(&t->notes);
	strlist_init(&t->listed);
}

void record_twins_release(struct record_twins *t)
{
	strlist_release(&t->dist_infos);
	strlist_release(&t->versions);
	strlist_release(&t->notes);
	strlist_release(&t->listed);
	free(t->fix);
	memset(t, 0, sizeof(*t));
}

/* "torch-<digit>...dist-info": the folder names pip gives torch's record (inventory reads the same). */
static int torch_dist_info_name(const char *nm)
{
	return !str_nicmp(nm, "torch-", 6) && nm[6] >= '0' && nm[6] <= '9' && str_iendswith(nm, ".dist-info");
}

/* One other dist-info: its version and its RECORD's binaries. */
static void read_other(struct record_twins *t, struct view *v, const struct inv_install *in, const char *dir)
{
	struct dist_metadata md;
	struct dist_record rec;
	struct err e;
	size_t i;
	memset(&md, 0, sizeof(md));
	memset(&rec, 0, sizeof(rec));
	err_clear(&e);
	if (dist_read_metadata(v, dir, &md, &e) == 0 && md.version && dist_version_valid(md.version)) {
		strlist_push(&t->versions, md.version);
	} else {
		strlist_push(&t->versions, "");
		if (e.msg[0]) /* names the file */
			strlist_pushf(&t->notes, "%s", e.msg);
		else
			strlist_pushf(&t->notes, "%s\\METADATA: no valid Version", dir);
	}
	dist_metadata_release(&md);
	err_clear(&e);
	if (dist_read_record(v, dir, &rec, &e)) {
		strlist_pushf(&t->notes, "%s", e.msg); /* names the file */
		return;
	}
	for (i = 0; i < rec.n; i++) {
		char *win = NULL;
		struct err re;
		err_clear(&re);
		if (dist_record_resolve(in->site_packages, in->prefix, rec.v[i].path, &win, &re))
			continue; /* refused rows: record.c says them for the RECORD it uses */
		if (str_iendswith(win, ".dll") || str_iendswith(win, ".pyd"))
			strlist_push_owned(&t->listed, upper(win));
		free(win);
	}
	dist_record_release(&rec);
}

/* A version for a command: METADATA's when it is version text, else a placeholder. */
static const char *cmd_version(const char *v)
{
	return v && *v ? v : "<version>";
}

#define TWINS_NAMED 4 /* dist-infos named one by one in a title or a fix; past it, counted */

static void make_fix(struct record_twins *t, const struct inv_install *in)
{
	struct strbuf del = STRBUF_INIT, ver = STRBUF_INIT;
	size_t i, n = t->dist_infos.n;
	strbuf_addf(&del, "%s\\torch", in->site_packages);
	if (n + t->over > TWINS_NAMED)
		strbuf_addf(&del, " and every torch-*.dist-info in %s", in->site_packages);
	for (i = 0; i < n && n + t->over <= TWINS_NAMED; i++)
		strbuf_addf(&del, "%s%s", i + 1 < n ? ", " : " and ", t->dist_infos.v[i]);
	for (i = 0; i < n && i < TWINS_NAMED; i++)
		strbuf_addf(&ver, "%s`torch==%s`", !i ? "" : i + 1 < n && i + 1 < TWINS_NAMED ? ", " : " or ",
			    cmd_version(t->versions.v[i]));
	t->fix = xasprintf("uninstall every one of them, then install one: run `pip uninstall -y torch` %zu times (once "
			   "per dist-info, until pip says torch is not installed), or, for a folder pip does not manage "
			   "(`pip install --target`), delete %s; then install the one release you want (%s)",
			   n + t->over, del.buf, ver.buf);
	strbuf_release(&del);
	strbuf_release(&ver);
}

size_t record_twins_read(struct record_twins *t, struct view *v, const struct inv_install *in)
{
	struct strlist names = STRLIST_INIT;
	struct err e;
	size_t i, others = 0;
	if (!in || !in->dist_info || !in->site_packages)
		return 0;
	err_clear(&e);
	if (view_list_dir(v, in->site_packages, &names, &e))
		return 0; /* inventory said it could not list the folder */
	strlist_push(&t->dist_infos, in->dist_info);
	strlist_push(&t->versions, in->metadata_version && dist_version_valid(in->metadata_version)
					   ? in->metadata_version
					   : "");
	for (i = 0; i < names.n; i++) {
		char *dir;
		if (!torch_dist_info_name(names.v[i]))
			continue;
		dir = winpath_join(in->site_packages, names.v[i]);
		if (str_icmp(dir, in->dist_info) && view_is_dir(v, dir)) {
			others++;
			if (others > RECORD_TWINS_MAX) {
				t->over++;
			} else {
				strlist_push(&t->dist_infos, dir);
				read_other(t, v, in, dir);
			}
		}
		free(dir);
	}
	strlist_release(&names);
	if (t->listed.n)
		qsort(t->listed.v, t->listed.n, sizeof(char *), cmp_str);
	if (others)
		make_fix(t, in);
	return others;
}

int record_twins_lists(const struct record_twins *t, const char *winpath)
{
	char *u;
	int hit;
	if (!t->listed.n || !winpath)
		return 0;
	u = upper(winpath);
	hit = bsearch(&u, t->listed.v, t->listed.n, sizeof(char *), cmp_str) != NULL;
	free(u);
	return hit;
}

static int loader_rule(enum rule_id rule)
{
	return rule == RULE_MISSING_DLL || rule == RULE_MISSING_ENTRY_POINT || rule == RULE_MISSING_ORDINAL ||
	       rule == RULE_BAD_ARCH;
}

void record_twins_judge(struct findings *out, const struct record_twins *t, const struct inv_install *in,
			const char *install_dir, const struct strlist *theirs)
{
	struct strbuf names = STRBUF_INIT, msg = STRBUF_INIT;
	size_t i, refixed = 0, n = t->dist_infos.n;
	char *title;
	if (!t->fix)
		return;
	for (i = 0; theirs->n && i < out->n; i++) {
		struct finding *f = &out->v[i];
		const char *file = strlist_find_icase(theirs, f->binary);
		if (!file)
			file = strlist_find_icase(theirs, f->path);
		if (!file || !f->install || str_icmp(f->install, install_dir) || !loader_rule(f->rule))
			continue;
		{
			char *fix = xasprintf("%s is a file of the other torch install in this folder: %s",
					      winpath_basename(file), t->fix);
			finding_set(&f->fix, fix);
			free(fix);
			refixed++;
		}
	}
	for (i = 0; i < n && i < TWINS_NAMED; i++)
		strbuf_addf(&names, "%s%s %s (%s)", !i ? "" : i + 1 < n || n + t->over > TWINS_NAMED ? ", " : " and ",
			    "torch", t->versions.v[i][0] ? t->versions.v[i] : "version unknown",
			    winpath_basename(t->dist_infos.v[i]));
	if (n + t->over > TWINS_NAMED)
		strbuf_addf(&names, " and %zu more", n + t->over - TWINS_NAMED);
	title = xasprintf("%zu torch installs in one folder: %s", n + t->over, names.buf);
	strbuf_addf(&msg,
		    "%s holds %zu torch dist-info folders: torch was installed there again without uninstalling the "
		    "first (`pip install --target` run twice, or an upgrade over an environment whose uninstall did not "
		    "finish). torch\\version.py says %s, so %s is the record checked; ",
		    in->site_packages, n + t->over, in->version ? in->version : "nothing", winpath_basename(in->dist_info));
	if (theirs->n)
		strbuf_addf(&msg,
			    "%zu of the binaries torch loads are listed only by another's RECORD (%s%s): files of "
			    "the other install, mixed into this one.",
			    theirs->n, theirs->v[0], theirs->n > 1 ? ", ..." : "");
	else
		strbuf_adds(&msg, "the others' files are not among the binaries torch loads, but pip's own view of "
				  "the folder (uninstall, upgrade, `pip list`) is of several installs.");
	if (t->over)
		strbuf_addf(&msg, " %zu more torch dist-infos were not read (at most %d are).", t->over,
			    RECORD_TWINS_MAX);
	for (i = 0; i < t->notes.n && i < 3; i++)
		strbuf_addf(&msg, " %s.", t->notes.v[i]);
	finding_add(out, RULE_TORCH_INSTALLED_TWICE, refixed || theirs->n ? SEV_ERROR : SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg.buf, .fix = t->fix, .install = install_dir,
					    .path = t->dist_infos.v[n > 1 ? 1 : 0] });
	free(title);
	strbuf_release(&names);
	strbuf_release(&msg);
}
