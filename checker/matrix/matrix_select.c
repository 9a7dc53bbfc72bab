/*
 * matrix_select: which row covers an install (matrix.h's selection rules:
 * the latest layer, then the most specific row, then the later one in the
 * file) and what is asked of a row once chosen (its DLL requirements, its
 * known issues' conditions, the newest torch its evidence measured).
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <string.h>

#include "util/text.h"

/* Whether the torch specifier pins one version (== without wildcard, or ===). */
static int pins_one(const struct pep440_spec *s)
{
	size_t i;
	for (i = 0; i < s->n; i++)
		if ((s->v[i].op == PEP440_OP_EQ && !s->v[i].wildcard) || s->v[i].op == PEP440_OP_ARBITRARY)
			return 1;
	return 0;
}

/* Variant and arch restrictions count more than pinning one version: a cu92 row beats ==1.5.0. */
int matrix_row_specificity(const struct matrix_row *r)
{
	return 2 * ((r->variants.n > 0) + (r->arch_mask != 0)) + pins_one(&r->torch);
}

int matrix_row_variant_ok(const struct matrix_row *r, const char *name)
{
	size_t i;
	if (!r->variants.n)
		return 1;
	if (!name || !*name)
		return 0;
	for (i = 0; i < r->variants.n; i++)
		if (matrix_glob(r->variants.v[i], name))
			return 1;
	return 0;
}

int matrix_glob(const char *p, const char *s)
{
	const char *star = NULL, *retry = NULL;
	while (*s) {
		if (*p == '*') {
			star = ++p;
			retry = s;
		} else if (*p && (*p == '?' || ((*p | 32) == (*s | 32) && *p != '*'))) {
			p++;
			s++;
		} else if (star) {
			p = star;
			s = ++retry;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

void matrix_variant_of(const struct pep440 *torch, char *out, size_t outlen)
{
	struct torch_variant tv;
	out[0] = '\0';
	if (torch_variant_parse(&tv, torch->local, NULL) < 0 || tv.kind == VARIANT_UNKNOWN)
		return;
	snprintf(out, outlen, "%s", tv.name);
}

int matrix_row_matches(const struct matrix_row *r, const struct pep440 *torch, const char *raw, const char *variant,
		       int arch)
{
	if (r->arch_mask && (arch < 0 || arch >= MATRIX_NARCH || !(r->arch_mask & (1u << arch))))
		return 0;
	if (!matrix_row_variant_ok(r, variant))
		return 0;
	return pep440_spec_contains(&r->torch, torch, raw);
}

int matrix_select(const struct matrix *m, const struct pep440 *torch, const char *raw, const char *variant,
		  const char *arch, const struct matrix_row **out, struct err *err)
{
	char vbuf[32];
	int a = -1;
	size_t i;
	const struct matrix_row *best = NULL;
	*out = NULL;
	if (arch && *arch) {
		a = matrix_arch_parse(arch);
		if (a < 0)
			return err_set(err, "unknown architecture \"%.20s\": expected x64, x86 or arm64", arch);
	}
	if (!variant) {
		matrix_variant_of(torch, vbuf, sizeof(vbuf));
		variant = vbuf;
	}
	for (i = 0; i < m->nrows; i++) {
		const struct matrix_row *r = m->rows[i];
		if (!matrix_row_matches(r, torch, raw, variant, a))
			continue;
		/* Later layer, then more specific, then later in the file. */
		if (!best || r->layer > best->layer ||
		    (r->layer == best->layer && matrix_row_specificity(r) >= matrix_row_specificity(best)))
			best = r;
	}
	if (!best) {
		struct strbuf v = STRBUF_INIT, pub = STRBUF_INIT, id = STRBUF_INIT;
		struct pep440 p;
		const char *c;
		pep440_format(torch, &v);
		pep440_public(&p, torch);
		pep440_format(&p, &pub);
		for (c = strbuf_str(&pub); *c && id.len < 48; c++)
			strbuf_addch(&id, ascii_isdigit(*c) || ascii_islower(*c) || *c == '.' ? *c : '-');
		err_set(err,
			"no matrix row covers torch %s (variant %s, arch %s); add a row to a file passed with --matrix, e.g. "
			"`schema: 1` / `rows: [{id: my-torch-%s, torch: \"==%s\", status: inferred, vc_redist: {x64: \"14.40\"}}]` "
			"(schema in matrix/README.md)%s",
			strbuf_str(&v), *variant ? variant : "unknown", a >= 0 ? matrix_arch_names[a] : "unknown", strbuf_str(&id),
			strbuf_str(&pub),
			pep440_is_prerelease(torch) ? "; note: pre-releases sort before their release (PEP 440), "
						      "so \">=X.Y\" does not cover X.Y.0.devN or X.Y.0rcN: write \">=X.Y.0.dev0\""
						    : "");
		strbuf_release(&v);
		strbuf_release(&pub);
		strbuf_release(&id);
		return 1;
	}
	*out = best;
	return 0;
}

const struct matrix_dll *matrix_row_dll(const struct matrix_row *r, const char *name, int arch)
{
	size_t i;
	for (i = 0; i < r->ndlls; i++)
		if (!str_icmp(r->dlls[i].name, name) &&
		    (!r->dlls[i].arch_mask || (arch >= 0 && arch < MATRIX_NARCH && (r->dlls[i].arch_mask & (1u << arch)))))
			return &r->dlls[i];
	return NULL;
}

static int any_dll(const struct strlist *l, int (*fn)(const char *dll, void *ctx), void *ctx)
{
	size_t i;
	if (!l->n)
		return 1;
	if (!fn)
		return 0;
	for (i = 0; i < l->n; i++)
		if (fn(l->v[i], ctx))
			return 1;
	return 0;
}

int matrix_issue_applies(const struct matrix_issue *is, const char *variant, int arch,
			 int (*imports)(const char *dll, void *ctx), int (*unresolved)(const char *dll, void *ctx),
			 void *ctx)
{
	size_t i;
	int ok = !is->when.variant.n;
	for (i = 0; i < is->when.variant.n && variant && *variant; i++)
		ok |= matrix_glob(is->when.variant.v[i], variant);
	if (!ok)
		return 0;
	if (is->when.arch_mask && (arch < 0 || arch >= MATRIX_NARCH || !(is->when.arch_mask & (1u << arch))))
		return 0;
	return any_dll(&is->when.imports, imports, ctx) && any_dll(&is->when.unresolved, unresolved, ctx);
}

const char *matrix_row_file(const struct matrix_row *r)
{
	return r->pos.file;
}

int matrix_newest_measured(const struct matrix *m, struct pep440 *out)
{
	size_t i;
	int found = 0;
	for (i = 0; i < m->nrows; i++) {
		const struct matrix_row *r = m->rows[i];
		if (!r->evidence.n || !r->measured_max.nrelease)
			continue;
		if (!found || pep440_cmp(&r->measured_max, out) > 0)
			*out = r->measured_max;
		found = 1;
	}
	return found;
}
