/*
 * matrix_proc: the top-level `torch_load` table (matrix.h, schema.def's PROC
 * rows): each torch release's own _load_dll_libraries as data. Read and
 * linted with the matrix reader's helpers (matrix_lint.h): entries of one
 * file must not overlap, `status: measured` needs `evidence`, `lines` holds
 * only releases the entry covers. A later layer's entry replaces the
 * earlier layers' entries whose `torch` it overlaps. matrix_torch_load
 * turns the entry covering a release into the loader's value
 * (loader/torchproc.h).
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "util/text.h"

enum { MAX_SAMPLES = 2 * 9 * PEP440_MAX_CLAUSES }; /* lint_spec_samples adds at most 9 per clause */

static const char *const anchor_names[] = { "__file__", "torch._C", NULL };
static const char *const line_names[] = { "dll_paths", "userbase", "prefix_bin", "add",   "probe",
					  "glob",      "load",     "path",       "retry", NULL };

void matrix_proc_release(struct matrix_proc *p)
{
	free(p->torch_text);
	pep440_spec_release(&p->torch);
	free(p->add);
	free(p->fallback);
	free(p->note);
	strlist_release(&p->line_releases);
	strlist_release(&p->line_texts);
	strlist_release(&p->evidence);
	strlist_release(&p->sources);
}

/* a <=> b on the release numbers only (a procedure is a release's: local labels, pre- and post-releases aside). */
static int release_cmp(const struct pep440 *a, const struct pep440 *b)
{
	size_t i, n = a->nrelease > b->nrelease ? a->nrelease : b->nrelease;
	for (i = 0; i < n; i++) {
		uint64_t x = i < a->nrelease ? a->release[i] : 0, y = i < b->nrelease ? b->release[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

/* The release numbers of v alone. */
static struct pep440 release_of(const struct pep440 *v)
{
	struct pep440 r;
	memset(&r, 0, sizeof(r));
	r.epoch = v->epoch;
	r.nrelease = v->nrelease;
	memcpy(r.release, v->release, sizeof(r.release));
	return r;
}

/*
 * Whether `spec` holds v by PEP 440's ordering of versions (dev < pre <
 * release < post: 2.5.1.dev0 < 2.5.1rc1 < 2.5.1 < 2.5.1.post1), without the
 * specifier rule that `<2.5.1` leaves out 2.5.1's own pre-releases: a
 * torch_load range is a span of the ordering (`>=2.5.1.dev0,<2.5.1` is
 * 2.5.1's pre-releases), and two spans that share a version overlap.
 */
static int order_contains(const struct pep440_spec *spec, const struct pep440 *v)
{
	size_t i;
	struct pep440 pub;
	pep440_public(&pub, v);
	for (i = 0; i < spec->n; i++) {
		const struct pep440_clause *c = &spec->v[i];
		int r;
		switch (c->op) {
		case PEP440_OP_LT:
			r = pep440_cmp(&pub, &c->v) < 0;
			break;
		case PEP440_OP_LE:
			r = pep440_cmp(&pub, &c->v) <= 0;
			break;
		case PEP440_OP_GT:
			r = pep440_cmp(&pub, &c->v) > 0;
			break;
		case PEP440_OP_GE:
			r = pep440_cmp(&pub, &c->v) >= 0;
			break;
		default:
			r = pep440_clause_contains(c, v, NULL);
		}
		if (!r)
			return 0;
	}
	return 1;
}

/* Whether a clause of `spec` names a pre-, dev- or post-release (the entry is about those). */
static int names_prerelease(const struct pep440_spec *spec)
{
	size_t i;
	for (i = 0; i < spec->n; i++)
		if (spec->v[i].op != PEP440_OP_ARBITRARY && (pep440_is_prerelease(&spec->v[i].v) || spec->v[i].v.has_post))
			return 1;
	return 0;
}

/*
 * A procedure is a release's (a nightly 2.6.0.dev2024 follows 2.6's), unless
 * the entry's range names pre- or post-releases: then the version itself,
 * by PEP 440's ordering (2.5.1rc1 is in `>=2.5.1.dev0,<2.5.1`).
 */
static int covers(const struct matrix_proc *p, const struct pep440 *v)
{
	struct pep440 r = release_of(v);
	if (names_prerelease(&p->torch))
		return order_contains(&p->torch, v);
	return pep440_spec_contains(&p->torch, &r, NULL);
}

/*
 * Whether a's `>=`/`>` floor lies above b's `<`/`<=` ceiling: then no
 * version is in both, and the samples need not be tried. The other clauses
 * only narrow a range, so leaving them out keeps the answer sound. Every
 * pair of a layer's entries is compared: 256 entries of 32 clauses took
 * 5-10 s with the samples alone.
 */
static int floor_above_ceiling(const struct pep440_spec *a, const struct pep440_spec *b)
{
	const struct pep440 *lo = NULL, *hi = NULL;
	size_t i;
	for (i = 0; i < a->n; i++)
		if ((a->v[i].op == PEP440_OP_GE || a->v[i].op == PEP440_OP_GT) && (!lo || pep440_cmp(&a->v[i].v, lo) > 0))
			lo = &a->v[i].v;
	for (i = 0; lo && i < b->n; i++)
		if ((b->v[i].op == PEP440_OP_LT || b->v[i].op == PEP440_OP_LE) && (!hi || pep440_cmp(&b->v[i].v, hi) < 0))
			hi = &b->v[i].v;
	return lo && hi && pep440_cmp(lo, hi) > 0;
}

/* The simplest version both specifiers contain (PEP 440's ordering), into *low; 0 if none (they do not overlap). */
static int overlap_at(const struct pep440_spec *a, const struct pep440_spec *b, struct pep440 *low)
{
	struct pep440 *samples;
	size_t n = 0, k;
	int found = 0;
	if (floor_above_ceiling(a, b) || floor_above_ceiling(b, a))
		return 0;
	samples = xmalloc(sizeof(*samples) * MAX_SAMPLES);
	lint_spec_samples(a, samples, &n, MAX_SAMPLES);
	lint_spec_samples(b, samples, &n, MAX_SAMPLES);
	for (k = 0; k < n; k++)
		if (order_contains(a, &samples[k]) && order_contains(b, &samples[k]) &&
		    (!found || lint_simpler(&samples[k], low))) {
			*low = samples[k];
			found = 1;
		}
	free(samples);
	return found;
}

/* "dll_paths:83,userbase:72,...": 0 and the dll_paths line into *line, or -1 with a message in why. */
static int parse_lines_text(const char *s, unsigned *line, char *why, size_t nwhy)
{
	const char *p = s;
	int seen_dll = 0;
	*line = 0;
	while (*p) {
		const char *colon = strchr(p, ':'), *end = strchr(p, ',');
		size_t k, nlen, vlen;
		int known = 0;
		if (!end)
			end = p + strlen(p);
		if (!colon || colon > end) {
			snprintf(why, nwhy, "`%.*s` is not NAME:LINE", (int)(end - p > 40 ? 40 : end - p), p);
			return -1;
		}
		nlen = (size_t)(colon - p);
		for (k = 0; line_names[k]; k++)
			known |= strlen(line_names[k]) == nlen && !strncmp(line_names[k], p, nlen);
		if (!known) {
			snprintf(why, nwhy, "`%.*s` is not a statement name", (int)(nlen > 40 ? 40 : nlen), p);
			return -1;
		}
		vlen = (size_t)(end - colon - 1);
		if (!(vlen == 1 && colon[1] == '?') && (!vlen || vlen > 6 || strspn(colon + 1, "0123456789") < vlen)) {
			snprintf(why, nwhy, "the line of `%.*s` must be a number or ?", (int)nlen, p);
			return -1;
		}
		if (nlen == 9 && !strncmp(p, "dll_paths", 9) && colon[1] != '?') {
			*line = (unsigned)strtoul(colon + 1, NULL, 10);
			seen_dll = 1;
		}
		p = *end ? end + 1 : end;
	}
	if (!seen_dll) {
		snprintf(why, nwhy, "it has no dll_paths:LINE");
		return -1;
	}
	return 0;
}

/* `lines`: a mapping of release → "NAME:LINE,...", each release one the entry covers, listed once. */
static void read_lines(struct lint *L, const struct ynode *m, const struct matrix_field *f, struct matrix_proc *p)
{
	const struct ynode *v = lint_map_get(m, f->key);
	size_t i, j;
	char buf[128], why[160];
	if (!v)
		return;
	if (v->kind != Y_MAP) {
		const struct ynode *k = lint_is_null(v) ? lint_map_key(m, f->key) : v;
		lint_error(L, k->line, k->col, "`%s` must be %s, not %s", f->key, f->hint, lint_kind_name(v));
		return;
	}
	for (i = 0; i + 1 < v->n; i += 2) {
		const struct ynode *key = v->kid[i], *val = v->kid[i + 1];
		struct pep440 rel;
		unsigned line;
		if (key->kind != Y_SCALAR || pep440_parse(&rel, key->s, NULL) < 0) {
			lint_error(L, key->line, key->col, "`%s`: `%s` is not a release", f->key, lint_shown(key, buf, sizeof(buf)));
			continue;
		}
		if (p->torch_text && p->torch.n && !covers(p, &rel))
			lint_error(L, key->line, key->col, "`%s`: torch %s is not one this entry's torch \"%s\" covers",
				   f->key, lint_shown(key, buf, sizeof(buf)), p->torch_text);
		for (j = 0; j < p->line_releases.n; j++) {
			struct pep440 o;
			if (!pep440_parse(&o, p->line_releases.v[j], NULL) && !release_cmp(&o, &rel))
				lint_error(L, key->line, key->col, "`%s`: torch %s is listed twice", f->key,
					   lint_shown(key, buf, sizeof(buf)));
		}
		if (val->kind != Y_SCALAR || lint_is_null(val)) {
			lint_error(L, val->line, val->col, "`%s`: the value of %s must be %s, not %s", f->key,
				   lint_shown(key, buf, sizeof(buf)), f->hint, lint_kind_name(val));
			continue;
		}
		if (parse_lines_text(val->s, &line, why, sizeof(why)) < 0) {
			lint_error(L, val->line, val->col, "`%s` of torch %s: %s", f->key, lint_shown(key, buf, sizeof(buf)), why);
			continue;
		}
		strlist_push(&p->line_releases, key->s);
		strlist_push(&p->line_texts, val->s);
		if (!p->first.nrelease || release_cmp(&rel, &p->first) < 0)
			p->first = release_of(&rel);
	}
}

/* `folders`: known words, each once, at least one. */
static void read_folders(struct lint *L, const struct ynode *m, const struct matrix_field *f, const char *what,
			 struct matrix_proc *p)
{
	struct strlist l = STRLIST_INIT;
	const struct ynode *node = lint_get_list(L, m, f->key, f->hint, 0, &l);
	size_t i, k;
	char buf[128];
	if (!lint_map_get(m, f->key))
		lint_error(L, m->line, m->col, "%s is missing `%s` (%s)", what, f->key, f->hint);
	else if (node && !l.n)
		lint_error(L, node->line, node->col, "`%s` must name at least one folder", f->key);
	for (i = 0; i < l.n; i++) {
		const struct ynode *it = lint_list_item(node, i);
		int found = -1;
		for (k = 0; torch_folder_names[k]; k++)
			if (!strcmp(torch_folder_names[k], l.v[i]))
				found = (int)k;
		if (found < 0) {
			const char *near = str_nearest(l.v[i], torch_folder_names);
			lint_error(L, it->line, it->col, "`%s`: `%s` is not a folder; %s%s%s", f->key,
				   lint_shown(it, buf, sizeof(buf)),
				   near ? "did you mean `" : "expected lib, prefix, base_prefix, userbase or prefix_bin",
				   near ? near : "", near ? "`?" : "");
			continue;
		}
		if (torch_proc_has(&p->proc, (enum torch_folder)found)) {
			lint_error(L, it->line, it->col, "`%s`: `%s` is listed twice", f->key, l.v[i]);
			continue;
		}
		if (p->proc.nfolders < TORCH_FOLDER_COUNT)
			p->proc.folders[p->proc.nfolders++] = (unsigned char)found;
	}
	strlist_release(&l);
}

static void proc_field(struct lint *L, const struct ynode *m, enum matrix_proc_field k, struct matrix_proc *p,
		       const char *what)
{
	const struct matrix_field *f = &matrix_proc_fields[k];
	const struct ynode *v = lint_map_get(m, f->key);
	int e;
	switch (k) {
	case MF_PROC_TORCH:
		p->torch_text = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		if (p->torch_text) {
			struct err se;
			err_clear(&se);
			lint_set_pos(&p->torch_pos, L->file, v);
			if (pep440_spec_parse(&p->torch, p->torch_text, &se) < 0) {
				lint_error(L, v->line, lint_scalar_col(v, se.code > 0 ? (size_t)se.code - 1 : 0), "torch: %s", se.msg);
				pep440_spec_release(&p->torch);
				p->torch.n = 0;
			} else if (!p->torch.n) {
				lint_error(L, v->line, v->col, "`torch` must name the releases it covers (\">=2.3.1,<2.6\")");
			}
		}
		break;
	case MF_PROC_FOLDERS:
		read_folders(L, m, f, what, p);
		break;
	case MF_PROC_NVTX:
		e = lint_get_bool(L, m, f->key);
		if (e == -1)
			lint_error(L, m->line, m->col, "%s is missing `%s` (%s)", what, f->key, f->hint);
		p->proc.nvtx = e == 1;
		break;
	case MF_PROC_VCRUNTIME140_1:
		e = lint_get_enum(L, m, f->key, what, torch_vc1_names, lint_required(f, 0));
		p->proc.vc1 = e >= 0 ? (enum torch_vc1)e : TORCH_VC1_ALWAYS;
		break;
	case MF_PROC_ANCHOR:
		e = lint_get_enum(L, m, f->key, what, anchor_names, lint_required(f, 0));
		p->proc.anchor_c = e == 1;
		break;
	case MF_PROC_ADD:
		p->add = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		break;
	case MF_PROC_FALLBACK:
		p->fallback = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		break;
	case MF_PROC_NOTE:
		p->note = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		break;
	case MF_PROC_LINES:
		read_lines(L, m, f, p);
		break;
	case MF_PROC_STATUS:
		e = lint_get_enum(L, m, f->key, what, matrix_status_names, lint_required(f, 0));
		p->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_PROC_EVIDENCE: {
		struct pep440 newest;
		memset(&newest, 0, sizeof(newest));
		lint_get_evidence(L, m, f, &p->evidence, &newest);
		if (p->status == MATRIX_MEASURED && !p->evidence.n)
			lint_error(L, m->line, m->col, "%s is `status: measured` but has no `evidence` (the wheels read)", what);
		break;
	}
	case MF_PROC_SOURCES:
		lint_get_sources(L, m, f, &p->sources);
		if (p->status == MATRIX_SOURCED && !p->sources.n)
			lint_error(L, m->line, m->col, "%s is `status: sourced` but has no `sources`", what);
		break;
	case MF_PROC_COUNT:
		break;
	}
}

/* The oldest version the entry covers when `lines` names none: its simplest boundary sample inside it. */
static void first_of_spec(struct matrix_proc *p)
{
	struct pep440 *samples;
	size_t n = 0, k;
	if (p->first.nrelease)
		return;
	samples = xmalloc(sizeof(*samples) * MAX_SAMPLES);
	lint_spec_samples(&p->torch, samples, &n, MAX_SAMPLES);
	for (k = 0; k < n; k++)
		if (pep440_spec_contains(&p->torch, &samples[k], NULL) &&
		    (!p->first.nrelease || pep440_cmp(&samples[k], &p->first) < 0))
			p->first = release_of(&samples[k]);
	free(samples);
}

void matrix_proc_read_table(struct lint *L, const struct ynode *root, struct matrix_proc **out, size_t *nout)
{
	const struct matrix_field *tf = &matrix_top_fields[MF_TOP_TORCH_LOAD];
	const struct ynode *list = lint_get_map_list(L, root, tf->key, tf->hint);
	size_t i, j;
	int k;
	*out = NULL;
	*nout = 0;
	if (!list)
		return;
	if (list->n > MATRIX_MAX_ROWS) {
		lint_error(L, list->kid[MATRIX_MAX_ROWS]->line, list->kid[MATRIX_MAX_ROWS]->col,
			   "more than %d `%s` entries in one file", MATRIX_MAX_ROWS, tf->key);
		return;
	}
	*out = xcalloc(list->n ? list->n : 1, sizeof(**out));
	for (i = 0; i < list->n; i++) {
		const struct ynode *m = lint_list_map(L, list, i, tf->key);
		size_t nerr = L->nerr;
		unsigned present;
		struct matrix_proc p;
		char what[64];
		struct pep440 low;
		if (!m)
			continue;
		memset(&p, 0, sizeof(p));
		strlist_init(&p.line_releases);
		strlist_init(&p.line_texts);
		strlist_init(&p.evidence);
		strlist_init(&p.sources);
		lint_set_pos(&p.pos, L->file, m);
		lint_map_check(L, m, matrix_schema(MATRIX_MAP_PROC)->name, matrix_schema(MATRIX_MAP_PROC)->keys, &present);
		snprintf(what, sizeof(what), "torch_load entry at line %u", m->line);
		for (k = 0; k < MF_PROC_COUNT; k++)
			proc_field(L, m, (enum matrix_proc_field)k, &p, what);
		for (j = 0; p.torch.n && j < *nout; j++)
			if (overlap_at(&(*out)[j].torch, &p.torch, &low)) {
				struct strbuf ver = STRBUF_INIT;
				pep440_format(&low, &ver);
				lint_error(L, p.torch_pos.line, p.torch_pos.col,
					   "torch_load entries at lines %u and %u both cover torch %s; their `torch` ranges must not overlap",
					   (*out)[j].pos.line, m->line, strbuf_str(&ver));
				strbuf_release(&ver);
			}
		if (L->nerr != nerr || !p.torch.n) {
			matrix_proc_release(&p);
			continue;
		}
		first_of_spec(&p);
		(*out)[(*nout)++] = p;
	}
}

void matrix_proc_apply(struct matrix *m, struct matrix_proc *procs, size_t n, const char *name)
{
	size_t i, j;
	struct pep440 low;
	for (i = 0; i < n; i++) {
		procs[i].pos.file = name;
		procs[i].torch_pos.file = name;
		for (j = 0; j < m->nprocs;) { /* the earlier layers' entries this one overlaps give way */
			if (overlap_at(&m->procs[j].torch, &procs[i].torch, &low)) {
				matrix_proc_release(&m->procs[j]);
				memmove(&m->procs[j], &m->procs[j + 1], (m->nprocs - j - 1) * sizeof(m->procs[0]));
				m->nprocs--;
			} else {
				j++;
			}
		}
	}
	for (i = 0; i < n; i++) {
		ALLOC_GROW(m->procs, m->nprocs + 1, m->aprocs);
		m->procs[m->nprocs++] = procs[i];
	}
}

/* The entry as the loader's value, for release `v` (NULL: unknown). */
static void fill(const struct matrix_proc *p, const struct pep440 *v, int exact, struct torch_proc *out)
{
	size_t j;
	*out = p->proc;
	snprintf(out->torch, sizeof(out->torch), "%s", p->torch_text);
	snprintf(out->entry, sizeof(out->entry), "%s:%u", p->pos.file ? p->pos.file : "?", p->pos.line);
	snprintf(out->status, sizeof(out->status), "%s", matrix_status_name(p->status));
	out->exact = exact;
	out->lines[0] = 0;
	out->line = 0;
	out->note[0] = 0;
	for (j = 0; v && j < p->line_releases.n; j++) {
		struct pep440 r;
		char why[160];
		if (pep440_parse(&r, p->line_releases.v[j], NULL) || release_cmp(&r, v))
			continue;
		snprintf(out->lines, sizeof(out->lines), "%s", p->line_texts.v[j]);
		if (parse_lines_text(p->line_texts.v[j], &out->line, why, sizeof(why)))
			out->line = 0;
	}
}

int matrix_torch_load(const struct matrix *m, const char *version, struct torch_proc *out)
{
	struct pep440 v;
	size_t i, oldest = 0, newest = 0;
	const struct matrix_proc *pick;
	int known;
	if (!m || !m->nprocs)
		return -1;
	known = version && pep440_parse(&v, version, NULL) == 0;
	for (i = 0; known && i < m->nprocs; i++)
		if (covers(&m->procs[i], &v)) {
			fill(&m->procs[i], &v, 1, out);
			return 0;
		}
	for (i = 1; i < m->nprocs; i++) {
		if (pep440_cmp(&m->procs[i].first, &m->procs[oldest].first) < 0)
			oldest = i;
		if (pep440_cmp(&m->procs[i].first, &m->procs[newest].first) > 0)
			newest = i;
	}
	pick = known ? &m->procs[oldest] : &m->procs[newest];
	for (i = 0; known && i < m->nprocs; i++) /* the latest entry that starts at or before the release */
		if (release_cmp(&m->procs[i].first, &v) <= 0 && pep440_cmp(&m->procs[i].first, &pick->first) > 0)
			pick = &m->procs[i];
	fill(pick, known ? &v : NULL, 0, out);
	if (known) {
		char vb[64];
		snprintf(out->note, sizeof(out->note),
			 "no torch_load entry covers torch %s: followed the nearest, torch \"%s\" (%s:%u)",
			 text_excerpt(version, strlen(version), 40, vb, sizeof(vb)), pick->torch_text, pick->pos.file,
			 pick->pos.line);
	} else {
		snprintf(out->note, sizeof(out->note),
			 "torch's version is unknown: followed the newest torch_load entry, torch \"%s\" (%s:%u)",
			 pick->torch_text, pick->pos.file, pick->pos.line);
	}
	return 0;
}

cJSON *matrix_proc_json(const struct matrix_proc *p)
{
	cJSON *o = cJSON_CreateObject(), *a, *l;
	size_t i;
	cJSON_AddStringToObject(o, "torch", p->torch_text);
	a = cJSON_AddArrayToObject(o, "folders");
	for (i = 0; i < p->proc.nfolders; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(torch_folder_names[p->proc.folders[i]]));
	cJSON_AddBoolToObject(o, "nvtx", p->proc.nvtx);
	cJSON_AddStringToObject(o, "vcruntime140_1", torch_vc1_names[p->proc.vc1]);
	cJSON_AddStringToObject(o, "anchor", anchor_names[p->proc.anchor_c ? 1 : 0]);
	if (p->add)
		cJSON_AddStringToObject(o, "add", p->add);
	if (p->fallback)
		cJSON_AddStringToObject(o, "fallback", p->fallback);
	l = cJSON_AddObjectToObject(o, "lines");
	for (i = 0; i < p->line_releases.n; i++)
		cJSON_AddStringToObject(l, p->line_releases.v[i], p->line_texts.v[i]);
	cJSON_AddStringToObject(o, "status", matrix_status_name(p->status));
	a = cJSON_AddArrayToObject(o, "evidence");
	for (i = 0; i < p->evidence.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->evidence.v[i]));
	a = cJSON_AddArrayToObject(o, "sources");
	for (i = 0; i < p->sources.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->sources.v[i]));
	if (p->note)
		cJSON_AddStringToObject(o, "note", p->note);
	cJSON_AddStringToObject(o, "file", p->pos.file ? p->pos.file : "");
	cJSON_AddNumberToObject(o, "line", p->pos.line);
	return o;
}
