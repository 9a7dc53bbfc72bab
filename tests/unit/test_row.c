/*
 * test_row: one matrix row judged against a machine (judge/row.c), on a
 * matrix written here and inventories filled by hand: which entries apply to
 * an architecture, the redistributable against the row's minimum (every
 * state, on the exact boundary too), a runtime DLL's copy against its
 * min_version, the words and fixes both `check` and `check --pins` say, and
 * the finding that names the row.
 */
#include "harness.h"
#include "rows_yaml.h"
#include "judge/row.h"

#include <stdlib.h>

static const char yaml[] = "schema: 1\n"
			   "rows:\n"
			   "  - id: t-1.0\n"
			   "    torch: \"==1.0\"\n"
			   "    status: sourced\n"
			   "    sources: [\"https://example.com/t-1.0\"]\n"
			   "    vc_redist: {x64: \"14.40\", x86: \"14.38\"}\n"
			   "    runtime_dlls:\n"
			   "      - {name: msvcp140.dll, where: either, min_version: \"14.40\", winerror: 1114, why: w}\n"
			   "      - {name: vcruntime140_1.dll, where: either, arch: [x64], min_version: \"14.30\", why: w}\n"
			   "      - {name: vcruntime140.dll, where: either, why: w}\n"
			   "  - id: t-2.0\n"
			   "    torch: \"==2.0\"\n"
			   "    status: inferred\n";

static int load(struct matrix *m, const struct matrix_row **r1, const struct matrix_row **r2)
{
	size_t i;
	if (rows_yaml_load(m, yaml))
		return -1;
	*r1 = *r2 = NULL;
	for (i = 0; i < m->nrows; i++) {
		if (!strcmp(m->rows[i]->id, "t-1.0"))
			*r1 = m->rows[i];
		if (!strcmp(m->rows[i]->id, "t-2.0"))
			*r2 = m->rows[i];
	}
	return *r1 && *r2 ? 0 : -1;
}

static const struct matrix_dll *dll_of(const struct matrix_row *r, const char *name)
{
	size_t k;
	for (k = 0; k < r->ndlls; k++)
		if (!strcmp(r->dlls[k].name, name))
			return &r->dlls[k];
	return NULL;
}

static struct winver wv(unsigned a, unsigned b, unsigned c, unsigned d)
{
	struct winver v = { { (uint16_t)a, (uint16_t)b, (uint16_t)c, (uint16_t)d }, 4 };
	return v;
}

static void test_words_and_arch(void)
{
	CHECK_STR(row_redist_url("x64"), "https://aka.ms/vs/17/release/vc_redist.x64.exe");
	CHECK_STR(row_redist_url("x86"), "https://aka.ms/vs/17/release/vc_redist.x86.exe");
	CHECK_STR(row_redist_url("arm64"), "https://aka.ms/vs/17/release/vc_redist.arm64.exe");
	CHECK_STR(row_redist_url(NULL), "https://aka.ms/vs/17/release/vc_redist.x64.exe");
	CHECK_INT(row_severity(MATRIX_INFERRED), SEV_WARNING);
	CHECK_INT(row_severity(MATRIX_MEASURED), SEV_ERROR);
	CHECK_INT(row_severity(MATRIX_SOURCED), SEV_ERROR);
	/* no mask: every architecture, even an unknown one */
	CHECK_INT(row_arch_ok(0, -1), 1);
	CHECK_INT(row_arch_ok(0, MATRIX_ARM64), 1);
	CHECK_INT(row_arch_ok(1u << MATRIX_X64, MATRIX_X64), 1);
	CHECK_INT(row_arch_ok(1u << MATRIX_X64, MATRIX_X86), 0);
	CHECK_INT(row_arch_ok(1u << MATRIX_X64, -1), 0);
	CHECK_INT(row_arch_ok(1u << MATRIX_X64, MATRIX_NARCH), 0);
}

static void test_redist_minimum_and_fix(void)
{
	struct matrix m;
	const struct matrix_row *r1, *r2;
	char *s;
	if (load(&m, &r1, &r2)) {
		CHECK(!"the matrix loads");
		matrix_release(&m);
		return;
	}
	s = row_redist_min(r1, MATRIX_X64);
	CHECK_STR(s, " >= 14.40");
	free(s);
	s = row_redist_min(r1, MATRIX_ARM64); /* no arm64 minimum */
	CHECK_STR(s, "");
	free(s);
	s = row_redist_min(NULL, MATRIX_X64);
	CHECK_STR(s, "");
	free(s);
	s = row_redist_fix("x86", r1, MATRIX_X86);
	CHECK_STR(s, "install the VC++ 2015-2022 x86 redistributable >= 14.38 "
		     "(https://aka.ms/vs/17/release/vc_redist.x86.exe)");
	free(s);
	s = row_redist_fix("x64", r2, MATRIX_X64);
	CHECK_STR(s, "install the VC++ 2015-2022 x64 redistributable (https://aka.ms/vs/17/release/vc_redist.x64.exe)");
	free(s);
	matrix_release(&m);
}

/* An inventory whose registry was read, with an x64 entry as given. */
static void inv_x64(struct inventory *inv, int installed, int has_ver, unsigned minor, unsigned build)
{
	inventory_init(inv);
	inv->redist_read = 1;
	inv->redist[0].arch = "x64";
	inv->redist[0].found = 1;
	inv->redist[0].installed = installed;
	inv->redist[0].has_ver = has_ver;
	inv->redist[0].ver[0] = 14;
	inv->redist[0].ver[1] = (uint16_t)minor;
	inv->redist[0].ver[2] = (uint16_t)build;
}

static void test_redist_states(void)
{
	struct matrix m;
	const struct matrix_row *r1, *r2;
	struct inventory inv;
	struct row_redist rr;
	if (load(&m, &r1, &r2)) {
		CHECK(!"the matrix loads");
		matrix_release(&m);
		return;
	}
	inventory_init(&inv); /* no registry read: unknown, never "missing" */
	row_redist(&rr, &inv, r1, "x64", MATRIX_X64);
	CHECK_INT(rr.state, ROW_REDIST_NO_REGISTRY);
	CHECK(rr.min && !strcmp(rr.min->text, "14.40"));
	inventory_release(&inv);

	inv_x64(&inv, 1, 1, 40, 0);
	row_redist(&rr, &inv, r1, "x86", MATRIX_X86); /* no x86 key in the registry: absent is not installed */
	CHECK_INT(rr.state, ROW_REDIST_NOT_INSTALLED);
	CHECK(rr.rd == &inv.redist[1]);
	row_redist(&rr, &inv, r1, NULL, -1); /* an unknown architecture has no entry */
	CHECK_INT(rr.state, ROW_REDIST_NO_ENTRY);
	CHECK(rr.rd == NULL && rr.min == NULL);
	row_redist(&rr, &inv, r1, "x64", MATRIX_X64); /* 14.40.0.0 against >= 14.40: the boundary is enough */
	CHECK_INT(rr.state, ROW_REDIST_OK);
	CHECK(rr.rd == &inv.redist[0]);
	CHECK_INT(rr.have.nparts, 4);
	CHECK_INT(rr.have.part[1], 40);
	row_redist(&rr, &inv, r2, "x64", MATRIX_X64); /* a row without a minimum */
	CHECK_INT(rr.state, ROW_REDIST_NO_MINIMUM);
	row_redist(&rr, &inv, NULL, "x64", MATRIX_X64); /* no row at all */
	CHECK_INT(rr.state, ROW_REDIST_NO_MINIMUM);
	inventory_release(&inv);

	inv_x64(&inv, 1, 1, 39, 33523);
	row_redist(&rr, &inv, r1, "x64", MATRIX_X64);
	CHECK_INT(rr.state, ROW_REDIST_TOO_OLD);
	inventory_release(&inv);

	inv_x64(&inv, 0, 1, 44, 0); /* Installed = 0: not installed, whatever its version */
	row_redist(&rr, &inv, r1, "x64", MATRIX_X64);
	CHECK_INT(rr.state, ROW_REDIST_NOT_INSTALLED);
	inventory_release(&inv);

	inv_x64(&inv, 1, 0, 0, 0);
	row_redist(&rr, &inv, r1, "x64", MATRIX_X64);
	CHECK_INT(rr.state, ROW_REDIST_VERSION_UNKNOWN);
	inventory_release(&inv);
	matrix_release(&m);
}

static void test_dll_min_and_words(void)
{
	struct matrix m;
	const struct matrix_row *r1, *r2;
	const struct matrix_dll *msvcp, *vc1, *vc;
	struct winver old = wv(14, 29, 30133, 0), same = wv(14, 40, 0, 0), newer = wv(14, 42, 34433, 0);
	char *s;
	if (load(&m, &r1, &r2)) {
		CHECK(!"the matrix loads");
		matrix_release(&m);
		return;
	}
	msvcp = dll_of(r1, "msvcp140.dll");
	vc1 = dll_of(r1, "vcruntime140_1.dll");
	vc = dll_of(r1, "vcruntime140.dll");
	CHECK(msvcp && vc1 && vc);
	if (!msvcp || !vc1 || !vc) {
		matrix_release(&m);
		return;
	}
	CHECK_INT(row_dll_min(msvcp, MATRIX_X64, &old), ROW_DLL_TOO_OLD);
	CHECK_INT(row_dll_min(msvcp, MATRIX_X64, &same), ROW_DLL_OK);
	CHECK_INT(row_dll_min(msvcp, MATRIX_X64, &newer), ROW_DLL_OK);
	CHECK_INT(row_dll_min(msvcp, MATRIX_X64, NULL), ROW_DLL_VERSION_UNKNOWN);
	CHECK_INT(row_dll_min(vc1, MATRIX_X86, &old), ROW_DLL_NOT_JUDGED); /* an x64-only entry on x86 */
	CHECK_INT(row_dll_min(vc1, MATRIX_X64, &old), ROW_DLL_TOO_OLD);
	CHECK_INT(row_dll_min(vc, MATRIX_X64, &old), ROW_DLL_NOT_JUDGED); /* presence only */

	CHECK_INT(row_dll_older(r1, "MSVCP140.DLL", MATRIX_X64, &old), 1); /* names compare case-insensitively */
	CHECK_INT(row_dll_older(r1, "msvcp140.dll", MATRIX_X64, &same), 0);
	CHECK_INT(row_dll_older(r1, "msvcp140.dll", MATRIX_X64, NULL), 0); /* unknown is never older */
	CHECK_INT(row_dll_older(r1, "vcruntime140_1.dll", MATRIX_X86, &old), 0);
	CHECK_INT(row_dll_older(r1, "other.dll", MATRIX_X64, &old), 0);
	CHECK_INT(row_dll_older(NULL, "msvcp140.dll", MATRIX_X64, &old), 0);

	s = row_dll_unknown_title(msvcp, "1.0");
	CHECK_STR(s, "msvcp140.dll: version unknown, torch 1.0 needs >= 14.40");
	free(s);
	s = row_dll_too_old_title(msvcp, "14.29.30133.0", "System32", "1.0");
	CHECK_STR(s, "msvcp140.dll 14.29.30133.0 will be the one loaded (System32); torch 1.0 needs >= 14.40 "
		     "(WinError 1114 in DllMain)");
	free(s);
	s = row_dll_too_old_title(vc1, "14.29.30133.0", "python.exe's folder", "1.0");
	CHECK_STR(s, "vcruntime140_1.dll 14.29.30133.0 will be the one loaded (python.exe's folder); torch 1.0 needs "
		     ">= 14.30");
	free(s);
	s = row_dll_too_old_fix(msvcp, "C:\\Windows\\System32\\msvcp140.dll", "14.29.30133.0", 1, "x64");
	CHECK_STR(s, "install the VC++ 2015-2022 x64 redistributable >= 14.40 "
		     "(https://aka.ms/vs/17/release/vc_redist.x64.exe)");
	free(s);
	s = row_dll_too_old_fix(msvcp, "C:\\Python311\\msvcp140.dll", "14.29.30133.0", 0, "x64");
	CHECK_STR(s, "remove or update the msvcp140.dll at C:\\Python311\\msvcp140.dll (file version 14.29.30133.0), "
		     "and install the VC++ 2015-2022 x64 redistributable >= 14.40 "
		     "(https://aka.ms/vs/17/release/vc_redist.x64.exe)");
	free(s);
	matrix_release(&m);
}

static void test_finding_names_the_row(void)
{
	struct matrix m;
	const struct matrix_row *r1, *r2;
	struct findings fs = FINDINGS_INIT;
	struct finding *f;
	if (load(&m, &r1, &r2)) {
		CHECK(!"the matrix loads");
		matrix_release(&m);
		return;
	}
	f = row_finding_add(&fs, r1, RULE_RUNTIME_TOO_OLD, SEV_DEFAULT, &(struct finding_spec){ .title = "t" });
	CHECK_STR(f->matrix.row, "t-1.0");
	CHECK_STR(f->matrix.file, "rows.yml");
	CHECK_INT(f->matrix.line, 3);
	CHECK_STR(f->title, "t");
	f = row_finding_add(&fs, NULL, RULE_RUNTIME_TOO_OLD, SEV_DEFAULT, &(struct finding_spec){ .title = "u" });
	CHECK(f->matrix.row == NULL && f->matrix.file == NULL);
	CHECK_INT(fs.n, 2);
	findings_release(&fs);
	matrix_release(&m);
}

int main(void)
{
	RUN(test_words_and_arch);
	RUN(test_redist_minimum_and_fix);
	RUN(test_redist_states);
	RUN(test_dll_min_and_words);
	RUN(test_finding_names_the_row);
	return HARNESS_EXIT();
}
