/*
 * fuzz_pe: libFuzzer target for the PE reader. Parses the input with every
 * directory (PE_ALL; if that fails, again with PE_LENIENT as the loader
 * does), then drives every lookup the loader will make: the
 * full export list (and the streaming iterator, which must list the same
 * slots and refuse the same tables), by-name lookups of the image's own imported names (with
 * and without their hints), by-ordinal lookups of its ordinal imports and of
 * the ordinals around the export base, and the RVA mapper on the RVAs seen.
 * Built by tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined) and
 * replayed over the saved corpus by `make test` (tests/fuzz/replay.c).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"
#include "pe/peek.h"
#include "pe/pe_state.h"

#include "oracle.h"


static void lookups(struct pe_image *img, const struct pe_import_dll *dlls, size_t n)
{
	size_t i, j;
	struct pe_export e;
	struct err err;

	for (i = 0; i < n; i++) {
		for (j = 0; j < dlls[i].nfuncs && j < 256; j++) {
			const struct pe_import_func *f = &dlls[i].funcs[j];
			if (f->by_ordinal) {
				pe_export_by_ordinal(img, f->ordinal, &e, &err);
			} else {
				pe_export_by_name(img, f->name, f->hint, &e, &err);
				pe_export_by_name(img, f->name, -1, &e, &err);
			}
		}
	}
}

/* The names a peek (pe/peek.h) lists, up to 64. */
struct peeked {
	char v[64][PEEK_MAX_NAME + 1];
	size_t n;
};

static int peek_keep(void *ctx, const char *dll, int delay)
{
	struct peeked *p = ctx;
	(void)delay;
	if (p->n >= 64)
		return 1;
	memcpy(p->v[p->n++], dll, strlen(dll) + 1);
	return 0;
}

static int peeked_has(const struct peeked *p, const char *dll)
{
	size_t i;
	for (i = 0; i < p->n; i++)
		if (!strcmp(p->v[i], dll))
			return 1;
	return 0;
}

/*
 * The peek is a filter in front of pe_open (extload_imports_any_host): when
 * it reads both import directories to the end, every DLL name pe_parse
 * (lenient, as the scan opens binaries) gives must be among its names.
 */
static void peek_oracle(const uint8_t *data, size_t size)
{
	static struct peeked p;
	struct pe_image *img;
	struct err err;
	size_t i;
	p.n = 0;
	if (pe_peek_imports_mem(data, size, PE_IMPORTS | PE_DELAY_IMPORTS, peek_keep, &p) != 0)
		return;
	if (pe_parse(&img, data, size, "fuzz.dll", PE_IMPORTS | PE_DELAY_IMPORTS | PE_LENIENT, &err))
		return;
	for (i = 0; i < img->nimports; i++)
		if (!peeked_has(&p, img->imports[i].dll))
			abort();
	for (i = 0; i < img->ndelay_imports; i++)
		if (!peeked_has(&p, img->delay_imports[i].dll))
			abort();
	pe_close(img);
}

/* The export search's memo of a section (pe_rva_cstr_memo) gives what pe_rva_cstr gives, one memo over all these RVAs. */
static void memo_oracle(const struct pe_image *img)
{
	struct pe_rva_memo m = { 0, 0, 0, 0 };
	size_t i, k;
	for (i = 0; i < img->nsections && i < 16; i++) {
		const struct pe_section *s = &img->sections[i];
		uint32_t sz = s->vsize ? s->vsize : s->raw_size;
		uint32_t probe[6] = { s->vaddr, s->vaddr + 1, s->vaddr + sz / 2, s->vaddr + sz - 1, s->vaddr + sz,
				      s->vaddr + s->raw_size };
		for (k = 0; k < 6; k++) {
			const char *a = NULL, *b = NULL;
			int r1 = pe_rva_cstr(img, probe[k], &a), r2 = pe_rva_cstr_memo(img, probe[k], &m, &b);
			if (r1 != r2 || (!r1 && a != b))
				abort();
		}
	}
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct pe_image *img;
	struct err err;
	const struct pe_export *ex;
	struct pe_export e;
	struct pe_export_iter it;
	size_t n, i, off;
	uint32_t o;

	peek_oracle(data, size);
	/* Strict first; when that fails, the loader's lenient view of the same bytes. */
	if (pe_parse(&img, data, size, "fuzz.dll", PE_ALL, &err) &&
	    pe_parse(&img, data, size, "fuzz.dll", PE_ALL | PE_LENIENT, &err))
		return 0;
	lookups(img, img->imports, img->nimports);
	lookups(img, img->delay_imports, img->ndelay_imports);
	if (!pe_exports(img, &ex, &n, &err)) {
		for (i = 0; i < n && i < 64; i++) {
			if (ex[i].name)
				pe_export_by_name(img, ex[i].name, (int)i, &e, &err);
			pe_rva_to_off(img, ex[i].rva, &off);
		}
		/* the streaming iterator (pe --json) lists exactly the same slots */
		if (pe_export_iter_init(&it, img, &err))
			abort();
		for (i = 0; pe_export_iter_next(&it, &e); i++)
			if (i >= n || e.ordinal != ex[i].ordinal || e.rva != ex[i].rva || e.name != ex[i].name ||
			    e.forwarder != ex[i].forwarder)
				abort();
		if (i != n)
			abort();
		pe_export_iter_release(&it);
	} else if (!pe_export_iter_init(&it, img, &err)) {
		abort(); /* a table pe_exports refuses, the iterator must refuse too */
	}
	for (o = 0; o < 8; o++)
		pe_export_by_ordinal(img, img->export_base + o - 2, &e, &err);
	pe_export_by_name(img, "", 0, &e, &err);
	pe_export_by_name(img, "\xff\xff", 1 << 20, &e, &err);
	memo_oracle(img);
	for (i = 0; i < img->nsections; i++) {
		pe_rva_to_off(img, img->sections[i].vaddr, &off);
		pe_rva_to_off(img, img->sections[i].vaddr + img->sections[i].vsize, &off);
	}
	pe_rva_to_off(img, img->entry_rva, &off);
	{
		/* the commit charge: never more than the image maps, whatever the table claims */
		struct pe_commit c;
		pe_commit(img, &c);
		if (c.bytes > ((uint64_t)img->size_of_image + 4095) / 4096 * 4096 || (c.nwritable && c.largest >= img->nsections) ||
		    (c.bounded && c.claimed <= c.bytes))
			abort();
	}
	pe_machine_name(img->machine);
	pe_machine_compatible(PE_MACHINE_AMD64, img->machine);
	pe_close(img);
	return 0;
}
