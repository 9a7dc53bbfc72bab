/*
 * matrix_profile: the top-level `profiles` table (matrix.h, schema.def's
 * PROFILE and PROFDLL rows): machine profiles, what a class of user machine
 * has that the loader and the judges read (docs/profiles.md). A runner is
 * one machine; the users of a repository have others (no Visual Studio, an
 * older redistributable, no NVIDIA GPU), and the gate judges a pin against
 * them too.
 *
 * Read and linted with matrix_lint.h: a name is an id, unique in a file; a
 * build and every DLL version a Windows file version; `system32` lists each
 * DLL once; a driver is NNN.NN or `none`. A later layer's profile of the
 * same name replaces the earlier one whole (a team's file corrects a
 * built-in or adds its own machines). Nothing here judges.
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/jsonout.h"
#include "util/text.h"

static void min_release(struct matrix_min *m)
{
	free(m->text);
	memset(m, 0, sizeof(*m));
}

void matrix_profile_release(struct matrix_profile *p)
{
	size_t i;
	int a;
	free(p->name);
	free(p->title);
	free(p->windows);
	min_release(&p->build);
	for (a = 0; a < MATRIX_NARCH; a++)
		min_release(&p->vc_redist[a]);
	for (i = 0; i < p->ndlls; i++) {
		free(p->dlls[i].name);
		min_release(&p->dlls[i].version);
		free(p->dlls[i].from);
	}
	free(p->dlls);
	free(p->driver_text);
	strlist_release(&p->sources);
	strlist_release(&p->evidence);
	free(p->note);
	memset(p, 0, sizeof(*p));
}

/* "551.61" (two digits after the dot): 0 and {551, 61}, or -1. */
static int parse_driver(const char *s, unsigned out[2])
{
	size_t a = strspn(s, "0123456789");
	if (!a || a > 4 || s[a] != '.' || strspn(s + a + 1, "0123456789") != 2 || s[a + 3])
		return -1;
	out[0] = (unsigned)atoi(s);
	out[1] = (unsigned)atoi(s + a + 1);
	return 0;
}

/* A whole number 0..max written plainly; -1 otherwise. */
static long parse_whole(const char *s, long max)
{
	size_t n = strspn(s, "0123456789");
	if (!n || n > 6 || s[n])
		return -1;
	return atol(s) <= max ? atol(s) : -1;
}

/* A file version value (`build`, a DLL's `version`) into *min, its errors naming `key`. */
static void get_version(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct matrix_min *min,
			const char *what)
{
	const struct ynode *v = lint_map_get(m, f->key);
	char w[96];
	if (!v) {
		if (f->required == MR_REQUIRED)
			lint_error(L, m->line, m->col, "missing `%s` (%s) in %s", f->key, f->hint, what);
		return;
	}
	snprintf(w, sizeof(w), "`%s`", f->key);
	lint_min_version(L, v, w, f->hint, min);
}

/* One system32 entry. */
static int read_dll(struct lint *L, const struct ynode *m, struct matrix_profile_dll *d)
{
	const struct matrix_map_schema *s = matrix_schema(MATRIX_MAP_PROFDLL);
	unsigned present, nerr = L->nerr;
	char what[64];
	int k;
	memset(d, 0, sizeof(*d));
	lint_set_pos(&d->pos, L->file, m);
	lint_map_check(L, m, s->name, s->keys, &present);
	snprintf(what, sizeof(what), "the system32 entry at line %u", m->line);
	for (k = 0; k < MF_PROFDLL_COUNT; k++) {
		const struct matrix_field *f = &matrix_profdll_fields[k];
		switch ((enum matrix_profdll_field)k) {
		case MF_PROFDLL_NAME:
			d->name = lint_get_str(L, m, f->key, what, f->hint, 1);
			if (d->name)
				lint_check_dll_name(L, m, f->key, d->name);
			break;
		case MF_PROFDLL_VERSION:
			get_version(L, m, f, &d->version, what);
			break;
		case MF_PROFDLL_FROM:
			d->from = lint_get_str(L, m, f->key, what, f->hint, 0);
			break;
		case MF_PROFDLL_COUNT:
			break;
		}
	}
	return L->nerr == nerr && d->name ? 0 : -1;
}

static void read_dlls(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct matrix_profile *p)
{
	const struct ynode *list = lint_get_map_list(L, m, f->key, f->hint);
	size_t i, j;
	if (!list)
		return;
	p->dlls = xcalloc(list->n ? list->n : 1, sizeof(*p->dlls));
	for (i = 0; i < list->n; i++) {
		const struct ynode *x = lint_list_map(L, list, i, f->key);
		struct matrix_profile_dll d;
		if (!x)
			continue;
		if (read_dll(L, x, &d) < 0) {
			free(d.name);
			min_release(&d.version);
			free(d.from);
			continue;
		}
		for (j = 0; j < p->ndlls; j++)
			if (!str_icmp(p->dlls[j].name, d.name))
				lint_error(L, x->line, x->col, "%s is listed twice in `system32` (first at line %u)", d.name,
					   p->dlls[j].pos.line);
		p->dlls[p->ndlls++] = d;
	}
}

static void profile_field(struct lint *L, const struct ynode *m, enum matrix_profile_field k, struct matrix_profile *p,
			  const char *what)
{
	const struct matrix_field *f = &matrix_profile_fields[k];
	const struct ynode *v = lint_map_get(m, f->key);
	char buf[128], *t;
	int e;
	long n;
	switch (k) {
	case MF_PROFILE_NAME:
		p->name = lint_get_str(L, m, f->key, what, f->hint, 1);
		if (p->name && !lint_id_ok(p->name))
			lint_error(L, v->line, v->col, "profile name `%s` may only use letters, digits, '.', '-' and '_' (at "
				   "most 64)", lint_shown(v, buf, sizeof(buf)));
		break;
	case MF_PROFILE_TITLE:
		p->title = lint_get_str(L, m, f->key, what, f->hint, 1);
		break;
	case MF_PROFILE_WINDOWS:
		p->windows = lint_get_str(L, m, f->key, what, f->hint, 1);
		break;
	case MF_PROFILE_BUILD:
		get_version(L, m, f, &p->build, what);
		break;
	case MF_PROFILE_VC_REDIST:
		lint_arch_versions(L, m, f, f->hint, p->vc_redist); /* installed, not a minimum */
		break;
	case MF_PROFILE_VISUAL_STUDIO:
		e = lint_get_bool(L, m, f->key);
		if (e == -1)
			lint_error(L, m->line, m->col, "missing `%s` (%s) in %s", f->key, f->hint, what);
		p->visual_studio = e == 1;
		break;
	case MF_PROFILE_SYSTEM32:
		if (!v)
			lint_error(L, m->line, m->col, "missing `%s` (%s) in %s", f->key, f->hint, what);
		read_dlls(L, m, f, p);
		break;
	case MF_PROFILE_NVIDIA_DRIVER:
		t = lint_get_str(L, m, f->key, what, f->hint, 1);
		if (t && strcmp(t, "none") && parse_driver(t, p->driver))
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, f->hint,
				   lint_shown(v, buf, sizeof(buf)));
		else if (t && strcmp(t, "none"))
			p->driver_text = xstrdup(t);
		free(t);
		break;
	case MF_PROFILE_MEMORY_GB:
		t = lint_get_str(L, m, f->key, what, f->hint, 0);
		if (t && ((n = parse_whole(t, 65536)) < 1))
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, f->hint,
				   lint_shown(v, buf, sizeof(buf)));
		else if (t)
			p->memory_gb = (unsigned)n;
		free(t);
		break;
	case MF_PROFILE_PAGING_FILE:
		p->paging_file_gb = -2;
		t = lint_get_str(L, m, f->key, what, f->hint, 0);
		if (t && !strcmp(t, "system-managed"))
			p->paging_file_gb = -1;
		else if (t && (n = parse_whole(t, 65536)) < 0)
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, f->hint,
				   lint_shown(v, buf, sizeof(buf)));
		else if (t)
			p->paging_file_gb = (int)n;
		free(t);
		break;
	case MF_PROFILE_STATUS:
		e = lint_get_enum(L, m, f->key, what, matrix_status_names, 1);
		p->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_PROFILE_SOURCES:
		lint_get_sources(L, m, f, &p->sources);
		if (p->status == MATRIX_SOURCED && !p->sources.n)
			lint_error(L, m->line, m->col, "%s is `status: sourced` but has no `sources`", what);
		break;
	case MF_PROFILE_EVIDENCE:
		lint_get_list(L, m, f->key, f->hint, 1, &p->evidence);
		if (p->status == MATRIX_MEASURED && !p->evidence.n)
			lint_error(L, m->line, m->col, "%s is `status: measured` but has no `evidence` (the files read)",
				   what);
		break;
	case MF_PROFILE_NOTE:
		p->note = lint_get_str(L, m, f->key, what, f->hint, 0);
		break;
	case MF_PROFILE_COUNT:
		break;
	}
}

/* `profiles`: each entry read; a name given twice in one file is an error. */
void matrix_profile_read_table(struct lint *L, const struct ynode *root, struct matrix_profile **out, size_t *nout)
{
	const struct matrix_field *tf = &matrix_top_fields[MF_TOP_PROFILES];
	const struct ynode *list = lint_get_map_list(L, root, tf->key, tf->hint);
	size_t i, j;
	int k;
	*out = NULL;
	*nout = 0;
	if (!list)
		return;
	*out = xcalloc(list->n ? list->n : 1, sizeof(**out));
	for (i = 0; i < list->n; i++) {
		const struct ynode *m = lint_list_map(L, list, i, tf->key);
		const struct matrix_map_schema *s = matrix_schema(MATRIX_MAP_PROFILE);
		unsigned nerr = L->nerr, present;
		struct matrix_profile p;
		char what[64];
		if (!m)
			continue;
		memset(&p, 0, sizeof(p));
		strlist_init(&p.sources);
		strlist_init(&p.evidence);
		lint_set_pos(&p.pos, L->file, m);
		lint_map_check(L, m, s->name, s->keys, &present);
		snprintf(what, sizeof(what), "the profile at line %u", m->line);
		for (k = 0; k < MF_PROFILE_COUNT; k++)
			profile_field(L, m, (enum matrix_profile_field)k, &p, what);
		for (j = 0; p.name && j < *nout; j++)
			if (!str_icmp((*out)[j].name, p.name))
				lint_error(L, m->line, m->col, "profile `%s` is given twice in `profiles` (first at line %u)",
					   p.name, (*out)[j].pos.line);
		if (L->nerr != nerr || !p.name) {
			matrix_profile_release(&p);
			continue;
		}
		(*out)[(*nout)++] = p;
	}
}

/* Each profile replaces the earlier layers' profile of its name, or is added. */
void matrix_profile_apply(struct matrix *m, struct matrix_profile *profiles, size_t n, const char *name)
{
	size_t i, j, k;
	for (i = 0; i < n; i++) {
		struct matrix_profile *p = &profiles[i];
		int a;
		p->pos.file = name;
		p->build.pos.file = name;
		for (a = 0; a < MATRIX_NARCH; a++)
			p->vc_redist[a].pos.file = name;
		for (k = 0; k < p->ndlls; k++)
			p->dlls[k].pos.file = p->dlls[k].version.pos.file = name;
		for (j = 0; j < m->nprofiles; j++)
			if (!str_icmp(m->profiles[j].name, p->name))
				break;
		if (j < m->nprofiles) {
			matrix_profile_release(&m->profiles[j]);
		} else {
			ALLOC_GROW(m->profiles, m->nprofiles + 1, m->aprofiles);
			j = m->nprofiles++;
		}
		m->profiles[j] = *p;
	}
}

const struct matrix_profile *matrix_profile_find(const struct matrix *m, const char *name)
{
	size_t i;
	for (i = 0; name && i < m->nprofiles; i++)
		if (!str_icmp(m->profiles[i].name, name))
			return &m->profiles[i];
	return NULL;
}

const struct matrix_profile_dll *matrix_profile_dll(const struct matrix_profile *p, const char *dll)
{
	size_t i;
	for (i = 0; dll && i < p->ndlls; i++)
		if (!str_icmp(p->dlls[i].name, dll))
			return &p->dlls[i];
	return NULL;
}

cJSON *matrix_profile_json(const struct matrix_profile *p)
{
	cJSON *o = cJSON_CreateObject(), *rd = cJSON_CreateObject(), *dl = cJSON_CreateArray();
	size_t i;
	int a;
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "title", p->title);
	cJSON_AddStringToObject(o, "windows", p->windows);
	cJSON_AddStringToObject(o, "build", p->build.text);
	for (a = 0; a < MATRIX_NARCH; a++)
		if (p->vc_redist[a].set)
			cJSON_AddStringToObject(rd, matrix_arch_name(a), p->vc_redist[a].text);
	cJSON_AddItemToObject(o, "vc_redist", rd);
	cJSON_AddBoolToObject(o, "visual_studio", p->visual_studio);
	for (i = 0; i < p->ndlls; i++) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "name", p->dlls[i].name);
		if (p->dlls[i].version.set)
			cJSON_AddStringToObject(d, "version", p->dlls[i].version.text);
		else
			cJSON_AddNullToObject(d, "version");
		if (p->dlls[i].from)
			cJSON_AddStringToObject(d, "from", p->dlls[i].from);
		cJSON_AddItemToArray(dl, d);
	}
	cJSON_AddItemToObject(o, "system32", dl);
	if (p->driver_text)
		cJSON_AddStringToObject(o, "nvidia_driver", p->driver_text);
	else
		cJSON_AddNullToObject(o, "nvidia_driver");
	if (p->memory_gb)
		cJSON_AddNumberToObject(o, "memory_gb", p->memory_gb);
	if (p->paging_file_gb == -1)
		cJSON_AddStringToObject(o, "paging_file", "system-managed");
	else if (p->paging_file_gb >= 0)
		cJSON_AddNumberToObject(o, "paging_file", p->paging_file_gb);
	cJSON_AddStringToObject(o, "status", matrix_status_name(p->status));
	json_add_strlist(o, "sources", &p->sources);
	json_add_strlist(o, "evidence", &p->evidence);
	if (p->note)
		cJSON_AddStringToObject(o, "note", p->note);
	cJSON_AddStringToObject(o, "file", p->pos.file ? p->pos.file : "");
	cJSON_AddNumberToObject(o, "line", p->pos.line);
	return o;
}
