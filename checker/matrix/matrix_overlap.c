/*
 * matrix_overlap: rows of one file that contradict each other (matrix.h's
 * selection rules). Two rows of equal specificity that both match some
 * variant and architecture are tried on boundary versions of both `torch`
 * specifiers (lint_spec_samples); when a version is in both and the rows
 * require different things, that is an error naming the simplest such
 * version and the first difference. A budget of clause evaluations bounds
 * the work on hostile files.
 */
#include "matrix/matrix.h"

#include <stdlib.h>
#include <string.h>

#include "util/text.h"

#define OVERLAP_BUDGET 8000000 /* clause evaluations per file (256 two-clause rows need 5M) */

static const char *const variant_samples[] = { "cpu",     "cu92",    "cu101",     "cu118",  "cu121", "cu124",
					       "cu126",   "cu128",   "cu129",     "cu130",  "rocm5.7", "rocm6.1",
					       "rocm6.2", "rocm6.2.4", "rocm6.3", "rocm6.4", "xpu",   NULL };

/* A variant both rows accept ("" when neither restricts it); NULL if none. */
static const char *common_variant(const struct matrix_row *a, const struct matrix_row *b)
{
	size_t i;
	if (!a->variants.n && !b->variants.n)
		return "";
	for (i = 0; variant_samples[i]; i++)
		if (matrix_row_variant_ok(a, variant_samples[i]) && matrix_row_variant_ok(b, variant_samples[i]))
			return variant_samples[i];
	for (i = 0; i < a->variants.n; i++)
		if (!strpbrk(a->variants.v[i], "*?") && matrix_row_variant_ok(b, a->variants.v[i]))
			return a->variants.v[i];
	for (i = 0; i < b->variants.n; i++)
		if (!strpbrk(b->variants.v[i], "*?") && matrix_row_variant_ok(a, b->variants.v[i]))
			return b->variants.v[i];
	return NULL;
}

static void describe_min(struct strbuf *sb, const struct matrix_min *m)
{
	if (m->set)
		strbuf_addf(sb, "\"%s\"", m->text);
	else
		strbuf_adds(sb, "(none)");
}

/* 1 and a description of the first difference in what two rows require; 0 if they agree. */
static int row_diff(const struct matrix_row *a, const struct matrix_row *b, unsigned arch_mask, struct strbuf *why)
{
	size_t i, j;
	int k;
	for (k = 0; k < MATRIX_NARCH; k++) {
		const struct matrix_min *x = &a->vc_redist[k], *y = &b->vc_redist[k];
		if (arch_mask && !(arch_mask & (1u << k)))
			continue;
		if (x->set != y->set || (x->set && winver_cmp(&x->v, &y->v))) {
			strbuf_addf(why, "vc_redist.%s ", matrix_arch_names[k]);
			describe_min(why, x);
			strbuf_adds(why, " vs ");
			describe_min(why, y);
			return 1;
		}
	}
	for (i = 0; i < a->ndlls + b->ndlls; i++) {
		const struct matrix_dll *x = i < a->ndlls ? &a->dlls[i] : &b->dlls[i - a->ndlls];
		const struct matrix_row *other = i < a->ndlls ? b : a;
		const struct matrix_dll *y = NULL;
		for (j = 0; j < other->ndlls; j++)
			if (!str_icmp(other->dlls[j].name, x->name) && other->dlls[j].arch_mask == x->arch_mask)
				y = &other->dlls[j];
		if (!y) {
			strbuf_addf(why, "runtime_dlls: %s only in `%s`", x->name, i < a->ndlls ? a->id : b->id);
			return 1;
		}
		if (x->min.set != y->min.set || (x->min.set && winver_cmp(&x->min.v, &y->min.v)) || x->where != y->where) {
			const struct matrix_dll *p = i < a->ndlls ? x : y, *q = i < a->ndlls ? y : x;
			strbuf_addf(why, "runtime_dlls %s: min_version ", x->name);
			describe_min(why, &p->min);
			strbuf_addf(why, " where %s vs min_version ", matrix_where_names[p->where]);
			describe_min(why, &q->min);
			strbuf_addf(why, " where %s", matrix_where_names[q->where]);
			return 1;
		}
	}
	for (i = 0; i < a->nopenmp + b->nopenmp; i++) {
		const struct matrix_openmp *x = i < a->nopenmp ? &a->openmp[i] : &b->openmp[i - a->nopenmp];
		const struct matrix_row *other = i < a->nopenmp ? b : a;
		const struct matrix_openmp *y = NULL;
		for (j = 0; j < other->nopenmp; j++)
			if (!str_icmp(other->openmp[j].dll, x->dll))
				y = &other->openmp[j];
		if (!y) {
			strbuf_addf(why, "openmp: %s only in `%s`", x->dll, i < a->nopenmp ? a->id : b->id);
			return 1;
		}
		if (x->where != y->where || x->redistributable != y->redistributable) {
			strbuf_addf(why, "openmp %s: where/redistributable differ", x->dll);
			return 1;
		}
	}
	for (i = 0; i < a->nissues + b->nissues; i++) {
		const struct matrix_issue *x = i < a->nissues ? &a->issues[i] : &b->issues[i - a->nissues];
		const struct matrix_row *other = i < a->nissues ? b : a;
		int found = 0;
		for (j = 0; j < other->nissues; j++)
			found |= !strcmp(other->issues[j].id, x->id);
		if (!found) {
			strbuf_addf(why, "known issue %s only in `%s`", x->id, i < a->nissues ? a->id : b->id);
			return 1;
		}
	}
	return 0;
}

/*
 * Two rows of equal matrix_row_specificity that both match `variant` and the
 * architectures `amask`: an error when some sample version is in both
 * specifiers (the simplest one is named) and the rows require different things.
 */
static void overlap(struct lint *L, const struct matrix_row *a, const struct matrix_row *b, const char *variant,
		    unsigned amask, const struct pep440 *samples, size_t ns)
{
	const struct pep440 *low = NULL;
	struct strbuf why = STRBUF_INIT, ver = STRBUF_INIT;
	int one_arch = amask && (amask & (amask - 1)) == 0;
	size_t k;
	for (k = 0; k < ns; k++)
		if (pep440_spec_contains(&a->torch, &samples[k], NULL) && pep440_spec_contains(&b->torch, &samples[k], NULL) &&
		    (!low || lint_simpler(&samples[k], low)))
			low = &samples[k];
	if (low && row_diff(a, b, amask, &why)) {
		pep440_format(low, &ver);
		lint_error(L, b->torch_pos.line, b->torch_pos.col,
			   "rows `%s` (line %u) and `%s` both match torch %s%s%s%s%s with different requirements (%s); narrow one `torch` specifier or restrict one row by `variant`/`arch`",
			   a->id, a->pos.line, b->id, strbuf_str(&ver), *variant ? ", variant " : "", variant,
			   one_arch ? ", arch " : "", one_arch ? matrix_arch_names[amask == 1 ? 0 : amask == 2 ? 1 : 2] : "",
			   strbuf_str(&why));
	}
	strbuf_release(&why);
	strbuf_release(&ver);
}

void matrix_rows_check_overlaps(struct lint *L, struct matrix_row **rows, size_t n)
{
	size_t i, j, budget = OVERLAP_BUDGET;
	enum { MAX_SAMPLES = 2 * 9 * PEP440_MAX_CLAUSES }; /* lint_spec_samples adds at most 9 per clause */
	struct pep440 *samples;
	if (n < 2)
		return;
	samples = xmalloc(sizeof(*samples) * MAX_SAMPLES);
	for (j = 1; j < n; j++) {
		for (i = 0; i < j; i++) {
			const struct matrix_row *a = rows[i], *b = rows[j];
			const char *variant;
			unsigned amask;
			size_t ns = 0, cost;
			if (a->merge || b->merge || !a->torch.n || !b->torch.n)
				continue;
			if (matrix_row_specificity(a) != matrix_row_specificity(b))
				continue;
			if (a->arch_mask && b->arch_mask && !(a->arch_mask & b->arch_mask))
				continue;
			amask = a->arch_mask & b->arch_mask ? a->arch_mask & b->arch_mask : a->arch_mask | b->arch_mask;
			if (!(variant = common_variant(a, b)))
				continue;
			lint_spec_samples(&a->torch, samples, &ns, MAX_SAMPLES);
			lint_spec_samples(&b->torch, samples, &ns, MAX_SAMPLES);
			cost = ns * (a->torch.n + b->torch.n);
			if (budget < cost) {
				lint_error(L, b->pos.line, b->pos.col,
					   "too many rows and clauses to check for overlaps; split the file");
				free(samples);
				return;
			}
			budget -= cost;
			overlap(L, a, b, variant, amask, samples, ns);
		}
	}
	free(samples);
}

