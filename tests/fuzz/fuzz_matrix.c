/*
 * fuzz_matrix: any bytes as a matrix layer, over a small base layer (so
 * replace, merge and remove paths run), then selection for a few versions.
 * The reader must never crash, leak or read out of bounds; a file with
 * errors must leave the matrix exactly as it was. Every version gets a
 * torch_load procedure (the base has entries; a layer can only replace them).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"

#include "oracle.h"


static const char base[] = "schema: 1\nrows:\n"
			   "  - {id: a, torch: \">=2.4,<2.9\", status: inferred, vc_redist: {x64: \"14.29\"}}\n"
			   "  - {id: b, torch: \"~=2.9.0\", variant: [cpu, \"cu*\"], status: inferred,\n"
			   "     runtime_dlls: [{name: msvcp140.dll, min_version: \"14.40\", why: x}]}\n"
			   "torch_load:\n"
			   "  - {torch: \">=2.0,<2.3.1\", folders: [lib, prefix], nvtx: true, vcruntime140_1: always,\n"
			   "     status: inferred, lines: {\"2.3.0\": \"dll_paths:81,userbase:?\"}}\n"
			   "  - {torch: \">=2.3.1\", folders: [lib, userbase], nvtx: false, vcruntime140_1: not-arm64, status: inferred}\n";

static int fuzz_one(const uint8_t *data, size_t size)
{
	static const char *const versions[] = { "2.4.0", "2.9.1+cu121", "1.0", "3.0rc1", "2.5.0+cpu" };
	struct matrix m;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	size_t i, before, procs;
	int r;

	matrix_init(&m);
	if (matrix_load_buffer(&m, "base.yml", base, sizeof(base) - 1, NULL, &e) < 0)
		abort();
	before = m.nrows;
	procs = m.nprocs;
	r = matrix_load_buffer(&m, "fuzz.yml", data, size, &d, &e);
	if (r < 0 && (m.nrows != before || m.nprocs != procs || m.files.n != 1 || (!d.n && !d.dropped)))
		abort(); /* a failed layer must change nothing and say why */
	for (i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		struct pep440 v;
		const struct matrix_row *row;
		if (pep440_parse(&v, versions[i], NULL) < 0)
			abort();
		if (matrix_select(&m, &v, versions[i], NULL, i & 1 ? "x64" : NULL, &row, NULL) == 0 && !row)
			abort();
		{
			struct torch_proc p;
			if (matrix_torch_load(&m, versions[i], &p) != 0 || p.nfolders > TORCH_FOLDER_COUNT ||
			    !memchr(p.note, 0, sizeof(p.note)) || !memchr(p.lines, 0, sizeof(p.lines)))
				abort();
		}
	}
	{
		struct torch_proc p;
		if (matrix_torch_load(&m, NULL, &p) != 0)
			abort();
	}
	matrix_diags_release(&d);
	matrix_release(&m);
	return 0;
}
