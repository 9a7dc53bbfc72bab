/*
 * check_python: which python and which torch (check_python.h). Errors are
 * said here, with cmd_usage_error, as the rest of the command's inputs are.
 */
#include "cli/check_python.h"

#include <stdlib.h>
#include <string.h>

#include "cli/usage.h"
#include "machine/inventory.h"
#include "machine/view.h"
#include "machine/winpath.h"
#include "report/result_python.h"

void check_python_init(struct check_python *cp)
{
	memset(cp, 0, sizeof(*cp));
	pyfind_init(&cp->find);
	pypath_init(&cp->path);
}

void check_python_release(struct check_python *cp)
{
	size_t i;
	for (i = 0; i < cp->nhits; i++)
		free(cp->versions ? cp->versions[i] : NULL);
	free(cp->versions);
	pypath_hits_free(cp->hits, cp->nhits);
	pyfind_release(&cp->find);
	pypath_release(&cp->path);
	free(cp->chosen_by);
	check_python_init(cp);
}

int check_python_is_spec(const char *arg)
{
	return !strcmp(arg, "py") || !strncmp(arg, "py:", 3);
}

int check_python_choose(struct check_python *cp, struct view *v, const char *arg, char **python)
{
	struct err e;
	int r;
	err_clear(&e);
	if (arg)
		r = pyfind_launcher(&cp->find, v, arg[2] == ':' ? arg + 3 : NULL, &e);
	else
		r = pyfind_default(&cp->find, v, &e);
	if (r) {
		if (arg)
			cmd_usage_error("check: --python %s: %s", arg, e.msg);
		else
			cmd_usage_error("check: no python found (give --python PATH or py:3.X, --torch DIR, "
					"--site-packages DIR, --scan DIR or --pins): %s",
					e.msg);
		return -1;
	}
	if (!view_is_file(v, cp->find.python)) {
		cmd_usage_error("check: %s chose %s, which is not in this tree", cp->find.why, cp->find.python);
		return -1;
	}
	*python = xstrdup(cp->find.python);
	cp->chosen_by = xstrdup(cp->find.why);
	return 0;
}

/* The version a torch folder's dist-info says, or NULL. */
static char *torch_version(struct view *v, const char *torch_dir)
{
	struct inventory inv;
	struct err e;
	char *ver = NULL;
	inventory_init(&inv);
	err_clear(&e);
	if (inventory_from_torch(&inv, v, torch_dir, &e) == 0 && inv.ninstalls && inv.installs[0].version)
		ver = xstrdup(inv.installs[0].version);
	inventory_release(&inv);
	return ver;
}

const char *check_python_torch(struct check_python *cp, struct view *v, const char *python, int no_user_site)
{
	struct pypath_opts po;
	struct err e;
	size_t i;
	memset(&po, 0, sizeof(po));
	po.no_user_site = no_user_site;
	err_clear(&e);
	if (!cp->chosen_by)
		cp->chosen_by = xstrdup("--python");
	if (pypath_build(&cp->path, v, python, &po, &e))
		return NULL;
	cp->built = 1;
	cp->nhits = pypath_find_package(&cp->path, v, "torch", 0, &cp->hits);
	if (!cp->nhits) { /* no torch\__init__.py anywhere: the first folder torch is what is left to check */
		cp->nhits = pypath_find_package(&cp->path, v, "torch", 1, &cp->hits);
		if (cp->nhits)
			strlist_pushf(&cp->path.notes, "no torch folder on sys.path has an __init__.py: %s, the first "
						       "folder torch, is checked",
				      cp->hits[0].dir);
	}
	cp->versions = cp->nhits ? xcalloc(cp->nhits, sizeof(*cp->versions)) : NULL;
	for (i = 0; i < cp->nhits; i++)
		cp->versions[i] = torch_version(v, cp->hits[i].dir);
	return cp->nhits ? cp->hits[0].dir : NULL;
}

void check_python_sys_path(const struct check_python *cp, struct strlist *out)
{
	size_t i;
	for (i = 0; cp->built && i < cp->path.n; i++)
		strlist_push(out, cp->path.e[i].path);
}

cJSON *check_python_json(const struct check_python *cp)
{
	struct result_python rp;
	struct result_python_pkg *pk;
	cJSON *o;
	size_t i;
	if (!cp->built)
		return NULL;
	pk = cp->nhits ? xcalloc(cp->nhits, sizeof(*pk)) : NULL;
	for (i = 0; i < cp->nhits; i++) {
		pk[i].hit = &cp->hits[i];
		pk[i].version = cp->versions[i];
	}
	memset(&rp, 0, sizeof(rp));
	rp.chosen_by = cp->chosen_by;
	rp.find_notes = &cp->find.notes;
	rp.pp = &cp->path;
	rp.torch = pk;
	rp.ntorch = cp->nhits;
	o = result_python_json(&rp);
	free(pk);
	return o;
}

void check_scan_init(struct check_scan *s)
{
	memset(s, 0, sizeof(*s));
	strlist_init(&s->pythons);
	strlist_init(&s->dirs);
	strlist_init(&s->userbases);
}

void check_scan_release(struct check_scan *s)
{
	free(s->pairs);
	strlist_release(&s->pythons);
	strlist_release(&s->dirs);
	strlist_release(&s->userbases);
	check_scan_init(s);
}

void check_python_scan(struct check_scan *s, struct view *v, const struct inventory *inv)
{
	size_t i, j, alloc = 0;
	struct pyfind pf;
	struct err fe;
	for (i = 0; i < inv->ninstalls; i++)
		if (inv->installs[i].python && !strlist_has_icase(&s->pythons, inv->installs[i].python))
			strlist_push(&s->pythons, inv->installs[i].python);
	/* and the python a person means (PATH, the py launcher): a Store Python owns no install folder */
	pyfind_init(&pf);
	err_clear(&fe);
	if (pyfind_default(&pf, v, &fe) == 0 && view_is_file(v, pf.python) && !strlist_has_icase(&s->pythons, pf.python))
		strlist_push(&s->pythons, pf.python);
	pyfind_release(&pf);
	for (i = 0; i < s->pythons.n; i++) {
		struct pypath pp;
		struct pypath_hit *hits = NULL;
		struct err e;
		size_t nh = 0;
		pypath_init(&pp);
		err_clear(&e);
		if (pypath_build(&pp, v, s->pythons.v[i], NULL, &e) == 0) {
			nh = pypath_find_package(&pp, v, "torch", 0, &hits);
			if (!nh)
				nh = pypath_find_package(&pp, v, "torch", 1, &hits);
		}
		for (j = 0; j < nh; j++) {
			ALLOC_GROW(s->pairs, s->n + 1, alloc);
			strlist_push(&s->dirs, hits[j].dir); /* the string stays put while the list grows */
			s->pairs[s->n].python = s->pythons.v[i];
			s->pairs[s->n].torch_dir = s->dirs.v[s->dirs.n - 1];
			strlist_push(&s->dirs, pp.e[hits[j].entry].from);
			s->pairs[s->n].from = s->dirs.v[s->dirs.n - 1];
			s->pairs[s->n].imported = j == 0;
			s->n++;
		}
		strlist_push(&s->userbases, pp.store_family && pp.user_base ? pp.user_base : "");
		pypath_hits_free(hits, nh);
		pypath_release(&pp);
	}
}

const char *check_scan_userbase(const struct check_scan *s, const char *python)
{
	size_t i;
	for (i = 0; python && i < s->pythons.n && i < s->userbases.n; i++)
		if (!str_icmp(s->pythons.v[i], python))
			return *s->userbases.v[i] ? s->userbases.v[i] : NULL;
	return NULL;
}

const char *check_scan_importer(const struct check_scan *s, const char *torch_dir)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if (s->pairs[i].imported && !str_icmp(s->pairs[i].torch_dir, torch_dir))
			return s->pairs[i].python;
	return NULL;
}

void check_scan_json(const struct check_scan *s, cJSON *doc)
{
	result_python_pairs(doc, s->pairs, s->n);
}
