/*
 * pins: a tree's pin files together, their differences, and the targets
 * `check` looks up in the matrix (see pins.h).
 */
#include "pins/pins.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_markers.h"

static struct req_file *find_file(const struct pinset *ps, const char *path)
{
	size_t i;
	for (i = 0; i < ps->n; i++)
		if (!strcmp(ps->files[i].path, path))
			return &ps->files[i];
	return NULL;
}

static int load_one(struct pinset *ps, const char *path, enum req_kind kind, const char *included_by,
		    pins_read_fn read, void *ctx, struct err *err)
{
	struct strbuf buf = STRBUF_INIT;
	struct req_file *f;
	int r;
	if (ps->n >= PINS_MAX_FILES)
		return err_set(err, "more than %d pin files in one tree", PINS_MAX_FILES);
	r = read(ctx, path, &buf, err);
	if (r) {
		strbuf_release(&buf);
		return r;
	}
	if (buf.len > PINS_MAX_BYTES - ps->bytes) {
		strbuf_release(&buf);
		return err_set(err, "%s: the pin files of this revision pass %u MiB together; refusing to read more",
			       path, PINS_MAX_BYTES >> 20);
	}
	ps->bytes += buf.len;
	ALLOC_GROW(ps->files, ps->n + 1, ps->alloc);
	f = &ps->files[ps->n++];
	memset(f, 0, sizeof(*f));
	r = req_file_parse(f, path, kind, buf.buf, buf.len, err);
	if (included_by)
		f->included_by = xstrdup(included_by);
	strbuf_release(&buf);
	return r;
}

int pinset_load(struct pinset *ps, const struct strlist *candidates, pins_read_fn read, void *ctx,
		struct err *err)
{
	size_t i, j;
	for (i = 0; i < candidates->n; i++) {
		if (find_file(ps, candidates->v[i]))
			continue;
		if (load_one(ps, candidates->v[i], REQ_NONE, NULL, read, ctx, err) < 0)
			return -1;
	}
	/* Breadth-first over includes; files already loaded are not read again (cycles end here). */
	for (i = 0; i < ps->n; i++) {
		for (j = 0; j < ps->files[i].n_inc; j++) {
			struct req_include *inc = &ps->files[i].inc[j];
			const char *from = ps->files[i].path;
			int r;
			if (!inc->resolved || find_file(ps, inc->resolved))
				continue;
			r = load_one(ps, inc->resolved, inc->constraint ? REQ_CONSTRAINTS : REQ_REQUIREMENTS, from,
				     read, ctx, err);
			/* ps->files may have moved: re-fetch inc before writing to it */
			inc = &ps->files[i].inc[j];
			if (r < 0)
				return err_prefix(err, "%s:%u:%u: included file: ", from, inc->line, inc->col);
			if (r == 1)
				inc->missing = 1;
		}
	}
	return 0;
}

void pinset_release(struct pinset *ps)
{
	size_t i;
	for (i = 0; i < ps->n; i++)
		req_file_release(&ps->files[i]);
	free(ps->files);
	memset(ps, 0, sizeof(*ps));
}

size_t pinset_count_torch(const struct pinset *ps)
{
	size_t i, j, n = 0;
	for (i = 0; i < ps->n; i++)
		for (j = 0; j < ps->files[i].n_pins; j++)
			n += pin_is_torch(&ps->files[i].pins[j]);
	return n;
}

const char *pin_change_name(enum pin_change_kind k)
{
	switch (k) {
	case PIN_ADDED: return "added";
	case PIN_REMOVED: return "removed";
	case PIN_CHANGED: return "changed";
	}
	return "?";
}

static int same(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return !strcmp(a, b);
}

static int same_pin(const struct pin *a, const struct pin *b)
{
	return same(a->spec, b->spec) && same(a->url, b->url) && same(a->version, b->version) &&
	       same(a->markers, b->markers) &&
	       same(a->variant, b->variant) && same(a->extras, b->extras) && same(a->index_url, b->index_url) &&
	       a->form == b->form;
}

static void add_change(struct pin_changes *out, enum pin_change_kind k, const struct pin *b, const struct pin *h)
{
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	out->v[out->n].kind = k;
	out->v[out->n].base = b;
	out->v[out->n].head = h;
	out->n++;
}

struct pinref {
	const struct pin *p;
	int matched;
};

static void collect(const struct pinset *ps, int torch_only, struct pinref **v, size_t *n)
{
	size_t i, j, alloc = 0;
	*v = NULL;
	*n = 0;
	for (i = 0; i < ps->n; i++) {
		for (j = 0; j < ps->files[i].n_pins; j++) {
			const struct pin *p = &ps->files[i].pins[j];
			if (torch_only && !pin_is_torch(p))
				continue;
			ALLOC_GROW(*v, *n + 1, alloc);
			(*v)[*n].p = p;
			(*v)[*n].matched = 0;
			(*n)++;
		}
	}
}

/* NULL first, then strcmp: a total order agreeing with same(). */
static int cmp_opt(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

/* Same place in the same file (the pair a change is reported for) as an order. */
static int cmp_slot(const struct pin *a, const struct pin *b)
{
	int c;
	if ((c = cmp_opt(a->file, b->file)) || (c = cmp_opt(a->name, b->name)) || (c = cmp_opt(a->group, b->group)))
		return c;
	return (a->source > b->source) - (a->source < b->source);
}

struct diff_entry {
	const struct pin *p;
	size_t at; /* its place in the base */
};

struct diff_index {
	struct pinref *v;        /* the base's pins */
	struct diff_entry *ord;  /* sorted by group (slot, and markers by_key), then by place */
	size_t *next;            /* per position in ord: where the next unmatched pin of its group may be */
	size_t n;
	int by_key;
};

static int cmp_group(const struct pin *a, const struct pin *b, int by_key)
{
	int c = cmp_slot(a, b);
	return c || !by_key ? c : cmp_opt(a->markers, b->markers);
}

static int cmp_entry(const struct diff_entry *x, const struct diff_entry *y, int by_key)
{
	int c = cmp_group(x->p, y->p, by_key);
	return c ? c : (x->at > y->at) - (x->at < y->at);
}

static int cmp_by_key(const void *x, const void *y)
{
	return cmp_entry(x, y, 1);
}

static int cmp_by_slot(const void *x, const void *y)
{
	return cmp_entry(x, y, 0);
}

static void index_build(struct diff_index *ix, struct pinref *v, size_t n, int by_key)
{
	size_t i;
	ix->v = v;
	ix->n = n;
	ix->by_key = by_key;
	ix->ord = xcalloc(n ? n : 1, sizeof(*ix->ord));
	ix->next = xcalloc(n ? n : 1, sizeof(*ix->next));
	for (i = 0; i < n; i++) {
		ix->ord[i].p = v[i].p;
		ix->ord[i].at = i;
		ix->next[i] = i;
	}
	qsort(ix->ord, n, sizeof(*ix->ord), by_key ? cmp_by_key : cmp_by_slot);
}

static void index_release(struct diff_index *ix)
{
	free(ix->ord);
	free(ix->next);
}

/*
 * The first unmatched base pin (in base order) of h's group, or NULL: a
 * binary search for the group's first position, whose cursor then moves
 * past matched pins. Each pin is passed over once per pass: O(log n)
 * amortised per lookup.
 */
static struct pinref *index_take(struct diff_index *ix, const struct pin *h)
{
	size_t lo = 0, hi = ix->n, k;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_group(ix->ord[mid].p, h, ix->by_key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->n || cmp_group(ix->ord[lo].p, h, ix->by_key))
		return NULL;
	for (k = ix->next[lo]; k < ix->n && !cmp_group(ix->ord[k].p, h, ix->by_key); k++)
		if (!ix->v[ix->ord[k].at].matched)
			break;
	ix->next[lo] = k;
	if (k == ix->n || cmp_group(ix->ord[k].p, h, ix->by_key))
		return NULL;
	return &ix->v[ix->ord[k].at];
}

void pinset_diff(const struct pinset *base, const struct pinset *head, int torch_only, struct pin_changes *out)
{
	struct pinref *b, *h;
	size_t nb, nh, i, j;
	int pass;
	collect(base, torch_only, &b, &nb);
	collect(head, torch_only, &h, &nh);
	/*
	 * Pass 0 pairs pins with the same markers (one file may pin torch once per
	 * platform); pass 1 pairs what is left by place alone, so a pin that only
	 * gained or changed its markers is "changed", not removed and added. Each
	 * head pin takes the first unmatched base pin of its group in base order
	 * (as a scan of the base would), found through a sorted index: a PR that
	 * changes every one of 20,000 pins costs O(n log n), not n^2.
	 */
	for (pass = 0; pass < 2; pass++) {
		struct diff_index ix;
		index_build(&ix, b, nb, !pass);
		for (i = 0; i < nh; i++) {
			struct pinref *m;
			if (h[i].matched || !(m = index_take(&ix, h[i].p)))
				continue;
			m->matched = h[i].matched = 1;
			if (!same_pin(m->p, h[i].p))
				add_change(out, PIN_CHANGED, m->p, h[i].p);
		}
		index_release(&ix);
	}
	for (i = 0; i < nh; i++)
		if (!h[i].matched)
			add_change(out, PIN_ADDED, NULL, h[i].p);
	for (j = 0; j < nb; j++)
		if (!b[j].matched)
			add_change(out, PIN_REMOVED, b[j].p, NULL);
	free(b);
	free(h);
}

void pin_changes_release(struct pin_changes *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int pin_platform_on_windows(const char *tag)
{
	const char *p = tag;
	if (!tag)
		return 1;
	/* Compressed tag sets: "win_amd64.manylinux1_x86_64" */
	while (*p) {
		size_t n = strcspn(p, ".");
		if ((n == 9 && !strncmp(p, "win_amd64", 9)) || (n == 3 && !strncmp(p, "any", 3)))
			return 1;
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

static int strength_of(const struct pin *p)
{
	switch (p->form) {
	case PIN_FORM_LOCKED: return 4;
	case PIN_FORM_WHEEL:
	case PIN_FORM_URL: return 3;
	case PIN_FORM_SPEC: return p->version ? 2 : 1;
	case PIN_FORM_NAME: return 0;
	}
	return 0;
}

static int windows_rank(int on)
{
	return on == 1 ? 2 : on == -1 ? 1 : 0;
}

/* The target a torch pin makes, before which pin of its file decides is known. */
static void target_of(const struct pin *p, struct torch_target *t)
{
	memset(t, 0, sizeof(*t));
	t->pin = p;
	t->file = p->file;
	t->version = p->version;
	t->specifier = p->pep440;
	t->variant = p->variant;
}

size_t pinset_torch_targets(const struct pinset *ps, struct torch_target **out)
{
	size_t i, j, n = 0;
	*out = NULL;
	if (!ps->n)
		return 0;
	*out = xcalloc(ps->n, sizeof(**out));
	for (i = 0; i < ps->n; i++) {
		const struct req_file *f = &ps->files[i];
		struct torch_target best;
		int have = 0;
		memset(&best, 0, sizeof(best));
		for (j = 0; j < f->n_pins; j++) {
			const struct pin *p = &f->pins[j];
			struct torch_target t;
			if (!pin_is_torch(p))
				continue;
			target_of(p, &t);
			t.on_windows = req_markers_on_windows(p->markers);
			if (t.on_windows == -2)
				t.on_windows = -1;
			if (p->platform_tag && !pin_platform_on_windows(p->platform_tag))
				t.on_windows = 0;
			t.strength = strength_of(p);
			if (!have || windows_rank(t.on_windows) > windows_rank(best.on_windows) ||
			    (windows_rank(t.on_windows) == windows_rank(best.on_windows) && t.strength > best.strength)) {
				best = t;
				have = 1;
			}
		}
		if (have)
			(*out)[n++] = best;
	}
	if (!n) {
		free(*out);
		*out = NULL;
	}
	return n;
}

/* ---------- the seam for check: pins -> matrix rows ---------- */

void pin_probes_release(struct pin_probes *p)
{
	size_t i;
	for (i = 0; i < p->n; i++) {
		free(p->v[i].version);
		free(p->v[i].uncovered);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* Probes version v: adds its row unless that row (or, uncovered, that version) is there already. */
static int probe(const struct matrix *m, const struct pep440 *v, const char *raw, const char *variant,
		 const char *arch, struct pin_probes *out, struct err *err)
{
	const struct matrix_row *row = NULL;
	struct strbuf text = STRBUF_INIT;
	struct err e;
	size_t i;
	int r;

	err_clear(&e);
	r = matrix_select(m, v, raw, variant, arch, &row, &e);
	if (r < 0)
		return err_set(err, "%s", e.msg);
	pep440_format(v, &text);
	for (i = 0; i < out->n; i++) {
		if ((r == 0 && out->v[i].row == row) ||
		    (r == 1 && !out->v[i].row && !strcmp(out->v[i].version, text.buf))) {
			strbuf_release(&text);
			return 0;
		}
	}
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	out->v[out->n].version = strbuf_detach(&text);
	out->v[out->n].row = r == 0 ? row : NULL;
	out->v[out->n].uncovered = r == 0 ? NULL : xstrdup(e.msg);
	out->n++;
	return 0;
}

static int cmp_pep440_ptr(const void *a, const void *b)
{
	return pep440_cmp(*(const struct pep440 *const *)a, *(const struct pep440 *const *)b);
}

int pins_target_probes(const struct matrix *m, const struct torch_target *t, const char *arch,
		       struct pin_probes *out, struct err *err)
{
	struct pep440_spec spec = PEP440_SPEC_INIT;
	const struct pep440 **cands = NULL;
	size_t ncands = 0, alloc = 0, i, j;
	struct err e;
	int rc = 0;

	err_clear(&e);
	if (t->version) {
		struct pep440 v;
		if (pep440_parse(&v, t->version, &e))
			return err_set(err, "%s:%u:%u: %s", t->file, t->pin->line, t->pin->col, e.msg);
		return probe(m, &v, t->version, t->variant, arch, out, err);
	}
	if (t->specifier && pep440_spec_parse(&spec, t->specifier, &e))
		return err_set(err, "%s:%u:%u: %s", t->file, t->pin->line, t->pin->col, e.msg);
	/* boundary versions named by the pin and by every row */
	for (i = 0; i < spec.n; i++) {
		if (spec.v[i].op == PEP440_OP_ARBITRARY)
			continue;
		ALLOC_GROW(cands, ncands + 1, alloc);
		cands[ncands++] = &spec.v[i].v;
	}
	for (i = 0; i < m->nrows; i++) {
		for (j = 0; j < m->rows[i]->torch.n; j++) {
			if (m->rows[i]->torch.v[j].op == PEP440_OP_ARBITRARY)
				continue;
			ALLOC_GROW(cands, ncands + 1, alloc);
			cands[ncands++] = &m->rows[i]->torch.v[j].v;
		}
	}
	if (ncands)
		qsort(cands, ncands, sizeof(*cands), cmp_pep440_ptr);
	for (i = 0; i < ncands && !rc; i++) {
		if (i && !pep440_cmp(cands[i - 1], cands[i]))
			continue;
		if (spec.n && !pep440_spec_contains(&spec, cands[i], NULL))
			continue;
		rc = probe(m, cands[i], NULL, t->variant, arch, out, err);
	}
	free(cands);
	pep440_spec_release(&spec);
	return rc;
}

static int may_hold(const char *dll, void *ctx)
{
	(void)dll;
	(void)ctx;
	return 1;
}

char *pins_shown_version(const char *probe, const struct torch_target *t)
{
	struct pep440 v;
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	if (t->version || pep440_parse(&v, probe, &e) || !pep440_is_prerelease(&v) ||
	    (t->specifier && strpbrk(t->specifier, "abcdefghijklmnopqrstuvwxyz")))
		return xstrdup(probe);
	for (i = 0; i < v.nrelease; i++)
		strbuf_addf(&sb, "%s%llu", i ? "." : "", (unsigned long long)v.release[i]);
	return strbuf_detach(&sb);
}

/* " ID (VERSION; known issues: a, b)" of one probe. */
static void held_row(struct strbuf *out, const struct pin_probe *pr, const struct torch_target *t, const char *arch)
{
	struct strbuf ids = STRBUF_INIT;
	char *v = pins_shown_version(pr->version, t);
	pins_row_issues(pr->row, t->variant, arch, &ids);
	strbuf_addf(out, " %s (%s%s%s)", pr->row ? pr->row->id : "none", v, ids.len ? "; known issues: " : "",
		    strbuf_str(&ids));
	strbuf_release(&ids);
	free(v);
}

void pins_held_to(struct strbuf *out, const struct matrix *m, const struct pin *p, const char *arch,
		  const char *lead)
{
	struct pin_probes pr = { NULL, 0, 0 };
	struct torch_target t;
	struct err e;
	size_t j;
	target_of(p, &t);
	if (pins_target_probes(m, &t, arch, &pr, &e) == 0 && pr.n) {
		strbuf_adds(out, lead);
		if (t.version) {
			strbuf_adds(out, "Windows runners must satisfy matrix row");
			held_row(out, &pr.v[0], &t, arch);
		} else {
			strbuf_adds(out, "Windows runners are judged on matrix row");
			held_row(out, &pr.v[pr.n - 1], &t, arch);
			strbuf_adds(out, ", the newest release the range allows");
			for (j = 0; j + 1 < pr.n; j++) {
				strbuf_adds(out, j ? "," : "; it also allows");
				held_row(out, &pr.v[j], &t, arch);
			}
		}
		strbuf_addch(out, '.');
	}
	pin_probes_release(&pr);
}

size_t pins_row_issues(const struct matrix_row *row, const char *variant, const char *arch, struct strbuf *ids)
{
	size_t i, n = 0;
	for (i = 0; row && i < row->nissues; i++) {
		if (!matrix_issue_applies(&row->issues[i], variant, matrix_arch_parse(arch), may_hold, may_hold, NULL))
			continue;
		strbuf_addf(ids, "%s%s", n ? ", " : "", row->issues[i].id);
		n++;
	}
	return n;
}
