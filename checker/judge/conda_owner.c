/*
 * conda_owner: findings' DLLs traced to conda packages (see conda_owner.h).
 */
#include "judge/conda_owner.h"

#include <stdlib.h>
#include <string.h>

#include "machine/conda_meta.h"
#include "machine/winpath.h"
#include "util/strbuf.h"

/* Whether s may stand in a command: conda's package and channel names. */
static int plain(const char *s, const char *extra)
{
	const char *p;
	if (!s || !*s || strlen(s) > 128)
		return 0;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("_.-", *p) || strchr(extra, *p)))
			return 0;
	return 1;
}

/* The file the finding's DLL is: its path, a probe that found it, else the first copy in torch's folders or the application folder. */
static char *fault_file(const struct finding *f, const struct torch_run *run, struct view *v)
{
	size_t i;
	const char *base;
	if (f->path)
		return xstrdup(f->path);
	if (!f->leaf)
		return NULL;
	base = winpath_basename(f->leaf);
	for (i = 0; i < f->nprobes; i++)
		if (f->probes[i].path && f->probes[i].result && !strncmp(f->probes[i].result, "found", 5) &&
		    !str_icmp(winpath_basename(f->probes[i].path), base))
			return xstrdup(f->probes[i].path);
	for (i = 0; i <= run->dll_paths.n; i++) {
		const char *dir = i < run->dll_paths.n ? run->dll_paths.v[i] : run->app_dir;
		char *p;
		if (!dir)
			continue;
		p = winpath_join(dir, base);
		if (view_is_file(v, p))
			return p;
		free(p);
	}
	return NULL;
}

static void trace(struct finding *f, const struct conda_pkg *pk, const char *file, const char *prefix)
{
	char *said, *fix;
	said = xasprintf("%s comes from conda package %s %s%s%s (%s\\conda-meta\\%s).", file, pk->name, pk->version,
			 *pk->channel ? ", channel " : "", pk->channel, prefix, pk->record);
	if (f->explanation) {
		char *x = xasprintf("%s %s", said, f->explanation);
		free(f->explanation);
		f->explanation = x;
	} else {
		finding_set(&f->explanation, said);
	}
	if (plain(pk->name, "") && (!*pk->channel || plain(pk->channel, "/")))
		fix = xasprintf("%s%s%s is conda package %s %s's: change it with conda (`conda update %s%s%s%s`; when two "
				"packages bring the same DLL, keep one), not by copying a DLL",
				f->fix ? f->fix : "", f->fix ? "; " : "", winpath_basename(file), pk->name, pk->version,
				*pk->channel ? "-c " : "", pk->channel, *pk->channel ? " " : "", pk->name);
	else
		fix = xasprintf("%s%s%s is a conda package's (%s): change it with conda, not by copying a DLL",
				f->fix ? f->fix : "", f->fix ? "; " : "", winpath_basename(file), pk->record);
	finding_set(&f->fix, fix);
	free(fix);
	free(said);
}

void conda_owner_judge(struct findings *out, const struct torch_run *run, struct view *v,
		       const struct inv_install *in)
{
	struct conda_meta cm;
	struct err e;
	size_t i, nfound = out->n;
	if (!in || !in->prefix)
		return;
	conda_meta_init(&cm);
	err_clear(&e);
	if (conda_meta_read(&cm, v, in->prefix, &e)) {
		conda_meta_release(&cm);
		return; /* not a conda environment (or conda-meta not listable: inventory's to say) */
	}
	for (i = 0; i < nfound; i++) {
		struct finding *f = &out->v[i];
		const struct conda_pkg *pk;
		char *file;
		if (!f->install || str_icmp(f->install, run->torch_dir))
			continue;
		file = fault_file(f, run, v);
		pk = file ? conda_meta_owner(&cm, file) : NULL;
		if (pk && str_nicmp(file, run->torch_dir, strlen(run->torch_dir))) /* torch's own files are torch's */
			trace(f, pk, file, cm.prefix);
		free(file);
	}
	if (cm.notes.n) {
		struct strbuf sb = STRBUF_INIT;
		char *title = xasprintf("conda-meta records not read: %s", cm.prefix);
		for (i = 0; i < cm.notes.n && i < 5; i++)
			strbuf_addf(&sb, "%s%s", i ? "; " : "", cm.notes.v[i]);
		if (cm.notes.n > 5)
			strbuf_addf(&sb, "; and %zu more", cm.notes.n - 5);
		finding_add(out, RULE_CONDA_META_UNREADABLE, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title, .message = sb.buf,
						    .fix = "let conda rewrite its records (`conda install --force-reinstall "
							   "PACKAGE` for the package named), or remove the stray file",
						    .install = run->torch_dir });
		free(title);
		strbuf_release(&sb);
	}
	conda_meta_release(&cm);
}
