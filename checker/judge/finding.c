/*
 * finding: the findings list and its root-cause ids (see finding.h).
 */
#include "judge/finding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct finding *finding_add(struct findings *l, enum rule_id rule, int severity, const struct finding_spec *spec)
{
	struct finding *f;
	size_t i;
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	f = &l->v[l->n++];
	memset(f, 0, sizeof(*f));
	f->rule = rule;
	f->severity = severity == SEV_DEFAULT ? rule_get(rule)->severity : (enum report_severity)severity;
	f->winerror = spec->winerror;
	f->title = dup_or_null(spec->title);
	f->message = dup_or_null(spec->message);
	f->fix = dup_or_null(spec->fix);
	f->install = dup_or_null(spec->install);
	f->binary = dup_or_null(spec->binary);
	f->leaf = dup_or_null(spec->leaf);
	f->symbol = dup_or_null(spec->symbol);
	f->path = dup_or_null(spec->path);
	f->issue = dup_or_null(spec->issue);
	strlist_init(&f->chain);
	if (spec->chain)
		ldr_node_chain(spec->chain, &f->chain);
	if (spec->probes && spec->probes->nprobes) {
		f->probes = xcalloc(spec->probes->nprobes, sizeof(*f->probes));
		for (i = 0; i < spec->probes->nprobes; i++) {
			f->probes[i].path = dup_or_null(spec->probes->probes[i].path);
			f->probes[i].step = dup_or_null(spec->probes->probes[i].step);
			f->probes[i].why = dup_or_null(spec->probes->probes[i].why);
			f->probes[i].minor = spec->probes->probes[i].minor;
			f->probes[i].result = dup_or_null(spec->probes->probes[i].result);
		}
		f->nprobes = spec->probes->nprobes;
	}
	f->predicted_winerror = f->real_winerror = -1;
	return f;
}

void finding_set(char **field, const char *s)
{
	char *c = dup_or_null(s);
	free(*field);
	*field = c;
}

void finding_anchor(struct finding *f, const char *file, unsigned line, unsigned col)
{
	finding_set(&f->anchor.file, file);
	f->anchor.line = line;
	f->anchor.col = line ? col : 0;
}

static void finding_release(struct finding *f)
{
	size_t i;
	free(f->anchor.file);
	free(f->title);
	free(f->message);
	free(f->fix);
	free(f->install);
	free(f->binary);
	free(f->leaf);
	free(f->symbol);
	free(f->path);
	free(f->issue);
	free(f->explanation);
	free(f->matrix.row);
	free(f->matrix.file);
	strlist_release(&f->chain);
	strlist_release(&f->profiles);
	for (i = 0; i < f->nprobes; i++) {
		free(f->probes[i].path);
		free(f->probes[i].step);
		free(f->probes[i].why);
		free(f->probes[i].result);
	}
	free(f->probes);
}

void findings_remove(struct findings *l, size_t i)
{
	if (i >= l->n)
		return;
	finding_release(&l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
}

/*
 * FNV-1a 64 (Fowler, Noll, Vo; the offset basis and prime of the published
 * algorithm) over each field, a field separator after each, so that
 * ("ab", "c") and ("a", "bc") differ. `fold`: ASCII letters lowercased
 * first, as Windows compares file names (non-ASCII names compare exactly).
 */
#define FNV64_BASIS 0xcbf29ce484222325ull
#define FNV64_PRIME 0x100000001b3ull

static void fnv_field(unsigned long long *h, const char *s, int fold)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	if (!s) /* null differs from "" */
		*h = (*h ^ 0xffu) * FNV64_PRIME;
	for (; *p; p++) {
		unsigned c = *p;
		if (fold && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		*h = (*h ^ c) * FNV64_PRIME;
	}
	*h = (*h ^ 0x1fu) * FNV64_PRIME;
}

void finding_cause_hash(const struct finding_cause *c, char out[FINDING_CAUSE_ID_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned long long h = FNV64_BASIS;
	char num[32];
	int i;
	snprintf(num, sizeof(num), "%.0f", c->winerror == c->winerror ? c->winerror : 0.0);
	fnv_field(&h, c->rule, 0);
	fnv_field(&h, num, 0);
	fnv_field(&h, c->install, 1);
	if (c->leaf) {
		fnv_field(&h, c->leaf, 1);
		fnv_field(&h, c->symbol, 0);
	} else { /* no leaf: the finding is its own cause */
		fnv_field(&h, c->binary, 1);
		fnv_field(&h, c->issue, 0);
		fnv_field(&h, c->title, 0);
	}
	for (i = FINDING_CAUSE_ID_LEN - 1; i >= 0; i--, h >>= 4)
		out[i] = hex[h & 15];
	out[FINDING_CAUSE_ID_LEN] = '\0';
}

void finding_cause_id(const struct finding *f, char out[FINDING_CAUSE_ID_LEN + 1])
{
	struct finding_cause c = {
		.rule = rule_get(f->rule)->id, .winerror = f->winerror, .install = f->install,
		.leaf = f->leaf, .symbol = f->symbol, .binary = f->binary, .issue = f->issue, .title = f->title,
	};
	finding_cause_hash(&c, out);
}

int finding_same_cause(const struct finding *a, const struct finding *b)
{
	char ia[FINDING_CAUSE_ID_LEN + 1], ib[FINDING_CAUSE_ID_LEN + 1];
	finding_cause_id(a, ia);
	finding_cause_id(b, ib);
	return !strcmp(ia, ib);
}

void findings_release(struct findings *l)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		finding_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
