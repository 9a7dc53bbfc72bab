/*
 * row: one matrix row judged against a Windows machine (see row.h): the
 * decision trees and words policy.c (check) and gate_row.c (check --pins) share.
 */
#include "judge/row.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

const char *row_redist_url(const char *arch)
{
	if (arch && !strcmp(arch, "x86"))
		return "https://aka.ms/vs/17/release/vc_redist.x86.exe";
	if (arch && !strcmp(arch, "arm64"))
		return "https://aka.ms/vs/17/release/vc_redist.arm64.exe";
	return "https://aka.ms/vs/17/release/vc_redist.x64.exe";
}

enum report_severity row_severity(enum matrix_status s)
{
	return s == MATRIX_INFERRED ? SEV_WARNING : SEV_ERROR;
}

int row_arch_ok(unsigned mask, int aidx)
{
	return !mask || (aidx >= 0 && aidx < MATRIX_NARCH && (mask & (1u << aidx)));
}

/* The row's redistributable minimum for architecture index aidx, or NULL. */
static const struct matrix_min *redist_min(const struct matrix_row *row, int aidx)
{
	const struct matrix_min *m = row && aidx >= 0 && aidx < MATRIX_NARCH ? &row->vc_redist[aidx] : NULL;
	return m && m->set ? m : NULL;
}

char *row_redist_min(const struct matrix_row *row, int aidx)
{
	const struct matrix_min *m = redist_min(row, aidx);
	return m ? xasprintf(" >= %s", m->text) : xstrdup("");
}

char *row_redist_fix(const char *arch, const struct matrix_row *row, int aidx)
{
	char *min = row_redist_min(row, aidx);
	char *fix = xasprintf("install the VC++ 2015-2022 %s redistributable%s (%s)", arch, min, row_redist_url(arch));
	free(min);
	return fix;
}

void row_redist(struct row_redist *out, const struct inventory *inv, const struct matrix_row *row, const char *arch,
		int aidx)
{
	size_t i;
	memset(out, 0, sizeof(*out));
	out->min = redist_min(row, aidx);
	for (i = 0; arch && i < 3; i++)
		if (inv->redist[i].arch && !strcmp(inv->redist[i].arch, arch))
			out->rd = &inv->redist[i];
	if (out->rd && out->rd->has_ver) {
		memcpy(out->have.part, out->rd->ver, sizeof(out->have.part));
		out->have.nparts = 4;
	}
	if (!inv->redist_read)
		out->state = ROW_REDIST_NO_REGISTRY;
	else if (!out->rd)
		out->state = ROW_REDIST_NO_ENTRY;
	else if (!out->rd->installed)
		out->state = ROW_REDIST_NOT_INSTALLED;
	else if (!out->min)
		out->state = ROW_REDIST_NO_MINIMUM;
	else if (!out->rd->has_ver)
		out->state = ROW_REDIST_VERSION_UNKNOWN;
	else if (!winver_at_least(&out->have, &out->min->v))
		out->state = ROW_REDIST_TOO_OLD;
	else
		out->state = ROW_REDIST_OK;
}

enum row_dll_state row_dll_min(const struct matrix_dll *d, int aidx, const struct winver *have)
{
	if (!d->min.set || !row_arch_ok(d->arch_mask, aidx))
		return ROW_DLL_NOT_JUDGED;
	if (!have)
		return ROW_DLL_VERSION_UNKNOWN;
	return winver_at_least(have, &d->min.v) ? ROW_DLL_OK : ROW_DLL_TOO_OLD;
}

int row_dll_older(const struct matrix_row *row, const char *dll, int aidx, const struct winver *have)
{
	size_t k;
	for (k = 0; row && have && k < row->ndlls; k++)
		if (!str_icmp(row->dlls[k].name, dll) && row_dll_min(&row->dlls[k], aidx, have) == ROW_DLL_TOO_OLD)
			return 1;
	return 0;
}

char *row_dll_unknown_title(const struct matrix_dll *d, const char *torch_version)
{
	return xasprintf("%s: version unknown, torch %s needs >= %s", d->name, torch_version, d->min.text);
}

char *row_dll_too_old_title(const struct matrix_dll *d, const char *have, const char *where, const char *torch_version)
{
	/* the row's `winerror`: what import torch raises with this copy (1114: its DllMain fails) */
	if (d->winerror)
		return xasprintf("%s %s will be the one loaded (%s); torch %s needs >= %s (WinError %d%s)", d->name, have,
				 where, torch_version, d->min.text, d->winerror, d->winerror == 1114 ? " in DllMain" : "");
	return xasprintf("%s %s will be the one loaded (%s); torch %s needs >= %s", d->name, have, where, torch_version,
			 d->min.text);
}

char *row_dll_too_old_fix(const struct matrix_dll *d, const char *path, const char *have, int in_system32,
			  const char *arch)
{
	if (in_system32)
		return xasprintf("install the VC++ 2015-2022 %s redistributable >= %s (%s)", arch, d->min.text,
				 row_redist_url(arch));
	return xasprintf("remove or update the %s at %s (file version %s), and install the VC++ 2015-2022 %s "
			 "redistributable >= %s (%s)",
			 d->name, path, have, arch, d->min.text, row_redist_url(arch));
}

struct finding *row_finding_add(struct findings *out, const struct matrix_row *row, enum rule_id rule, int severity,
				const struct finding_spec *spec)
{
	struct finding *f = finding_add(out, rule, severity, spec);
	if (row) {
		f->matrix.row = xstrdup(row->id);
		f->matrix.file = xstrdup(matrix_row_file(row));
		f->matrix.line = row->pos.line;
	}
	return f;
}

char *row_older_torch_offer(const struct matrix *m, const struct matrix_row *row, const char *version,
			    const char *variant, int aidx, const char *dll, const struct winver *have,
			    const char *have_text)
{
	const struct pep440 *best = NULL;
	const struct matrix_row *which = NULL;
	struct pep440 cur, pub;
	struct strbuf sb = STRBUF_INIT;
	size_t i, k, nr;
	if (!m || !version || pep440_parse(&cur, version, NULL))
		return NULL;
	pep440_public(&pub, &cur);
	for (i = 0; i < m->nrows; i++) {
		const struct matrix_row *r = m->rows[i];
		const struct pep440 *upper = NULL;
		int ok = 1;
		if (r == row || !row_arch_ok(r->arch_mask, aidx) ||
		    (r->variants.n && !matrix_row_variant_ok(r, variant ? variant : "cpu")))
			continue;
		for (k = 0; k < r->torch.n; k++)
			if (r->torch.v[k].op == PEP440_OP_LT)
				upper = &r->torch.v[k].v;
		if (!upper || pep440_cmp(upper, &pub) > 0)
			continue;
		for (k = 0; k < r->ndlls; k++)
			if (!str_icmp(r->dlls[k].name, dll) && row_dll_min(&r->dlls[k], aidx, have) == ROW_DLL_TOO_OLD)
				ok = 0;
		if (ok && (!best || pep440_cmp(upper, best) > 0)) {
			best = upper;
			which = r;
		}
	}
	if (!best)
		return NULL;
	strbuf_adds(&sb, "; or: torch < ");
	/* the release numbers alone, trailing zeros dropped: "2.9" of 2.9.0.dev0 */
	nr = best->nrelease;
	while (nr > 2 && !best->release[nr - 1])
		nr--;
	for (k = 0; k < nr; k++)
		strbuf_addf(&sb, "%s%llu", k ? "." : "", (unsigned long long)best->release[k]);
	strbuf_addf(&sb, " (matrix row %s asks no more of %s than this copy's %s)", which->id, dll, have_text);
	return strbuf_detach(&sb);
}
