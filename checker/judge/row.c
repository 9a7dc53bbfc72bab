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
