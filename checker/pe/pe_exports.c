/*
 * pe_exports: the export directory (pe.c's design comment, "Exports"): its
 * header and the address, name pointer and ordinal tables checked at open
 * (pe_parse_exports), then lazy lookups by name (the hint first, then a
 * binary search with strcmp, as the loader assumes the table sorted) and
 * by ordinal, the whole table once on demand (pe_exports), and a streamed
 * walk that hands its pages back as it goes (pe_export_iter_*). An RVA
 * inside the directory's [RVA, RVA + Size) is a forwarder string.
 */
#include "pe/pe.h"
#include "pe/pe_state.h"

#include <stdlib.h>
#include <string.h>

/* ---- exports ---- */

static int export_table(struct pe_image *img, uint32_t rva, uint32_t n, size_t esz, const char *what,
			struct span *out, struct err *err)
{
	char why[96];
	if (!n) {
		*out = span_make(NULL, 0);
		return 0;
	}
	if (pe_rva_span(img, rva, (size_t)n * esz, out))
		return pe_fail(err, PE_ERR_CORRUPT, "export %s (%u entries at RVA 0x%x) %s", what, n, rva,
			       pe_rva_why(img, rva, why, sizeof(why)));
	out->len = (size_t)n * esz;
	return 0;
}

int pe_parse_exports(struct pe_image *img, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t rva = pv->dir_rva[DIR_EXPORT], name_rva, nfuncs, nnames, afuncs, anames, aords;
	struct span d;
	char why[96];

	if (!rva)
		return 0;
	if (pe_rva_span(img, rva, 40, &d))
		return pe_fail(err, PE_ERR_CORRUPT, "export directory RVA 0x%x %s", rva, pe_rva_why(img, rva, why, sizeof(why)));
	pv->exp_rva = rva;
	pv->exp_size = pv->dir_size[DIR_EXPORT];
	name_rva = rd32(d, 12);
	img->export_base = rd32(d, 16);
	nfuncs = rd32(d, 20);
	nnames = rd32(d, 24);
	afuncs = rd32(d, 28);
	anames = rd32(d, 32);
	aords = rd32(d, 36);
	if (nfuncs > PE_MAX_EXPORTS)
		return pe_fail(err, PE_ERR_CORRUPT, "export address table has %u entries (cap %d)", nfuncs, PE_MAX_EXPORTS);
	if (nnames > PE_MAX_EXPORTS)
		return pe_fail(err, PE_ERR_CORRUPT, "export name table has %u entries (cap %d)", nnames, PE_MAX_EXPORTS);
	if (export_table(img, afuncs, nfuncs, 4, "address table", &pv->exp_addr, err) ||
	    export_table(img, anames, nnames, 4, "name pointer table", &pv->exp_names, err) ||
	    export_table(img, aords, nnames, 2, "ordinal table", &pv->exp_ords, err))
		return -1;
	if (name_rva) {
		int r = pe_rva_cstr(img, name_rva, &img->export_dll_name);
		if (r)
			return pe_cstr_fail(img, err, r, name_rva, "export directory: DLL name");
	}
	img->export_count = nfuncs;
	img->export_name_count = nnames;
	img->has_exports = 1;
	return 0;
}

/* Fills rva and forwarder for address-table index idx (< export_count). */
static int export_slot(const struct pe_image *img, uint32_t idx, struct pe_export *out, struct err *err)
{
	const struct pe_priv *pv = priv(img);
	uint32_t rva;
	rva = rd32(pv->exp_addr, (size_t)idx * 4);
	out->ordinal = img->export_base + idx;
	out->rva = rva;
	out->forwarder = NULL;
	if (rva && rva >= pv->exp_rva && rva - pv->exp_rva < pv->exp_size) {
		char what[64];
		int r = pe_rva_cstr(img, rva, &out->forwarder);
		if (r) {
			snprintf(what, sizeof(what), "export ordinal %u: forwarder", out->ordinal);
			return pe_cstr_fail(img, err, r, rva, what);
		}
	}
	return 0;
}

/* Name j of the name pointer table; m: a search's memo of the names' section (pe_state.h), or NULL. */
static int export_name_in(const struct pe_image *img, uint32_t j, struct pe_rva_memo *m, const char **name,
			  struct err *err)
{
	uint32_t nrva;
	char what[64];
	int r;
	nrva = rd32(priv(img)->exp_names, (size_t)j * 4);
	r = m ? pe_rva_cstr_memo(img, nrva, m, name) : pe_rva_cstr(img, nrva, name);
	if (r) {
		snprintf(what, sizeof(what), "export name %u", j);
		return pe_cstr_fail(img, err, r, nrva, what);
	}
	return 0;
}

static int export_name(const struct pe_image *img, uint32_t j, const char **name, struct err *err)
{
	return export_name_in(img, j, NULL, name, err);
}

static int export_name_index(const struct pe_image *img, uint32_t j, const char *name, uint32_t *idx,
			     struct err *err)
{
	uint16_t o;
	o = rd16(priv(img)->exp_ords, (size_t)j * 2);
	if (o >= img->export_count)
		return pe_fail(err, PE_ERR_CORRUPT, "export name %u (%s): ordinal index %u beyond the address table (%u entries)",
			       j, name, o, img->export_count);
	*idx = o;
	return 0;
}

static int with_path(const struct pe_image *img, struct err *err)
{
	return err_prefix(err, "%s: ", img->path);
}

int pe_export_by_name(const struct pe_image *img, const char *name, int hint, struct pe_export *out,
		      struct err *err)
{
	uint32_t lo = 0, hi, idx = 0, j = 0;
	const char *cand;
	int found = 0;
	struct pe_rva_memo m = { 0, 0, 0, 0 }; /* the names lie in one section: it is looked up once */

	if (!img->has_exports || !img->export_name_count)
		return 0;
	hi = img->export_name_count;
	if (hint >= 0 && (uint32_t)hint < hi) {
		if (export_name_in(img, (uint32_t)hint, &m, &cand, err))
			return with_path(img, err);
		if (!strcmp(cand, name)) {
			j = (uint32_t)hint;
			found = 1;
		}
	}
	while (!found && lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c;
		if (export_name_in(img, mid, &m, &cand, err))
			return with_path(img, err);
		c = strcmp(name, cand);
		if (!c) {
			j = mid;
			found = 1;
		} else if (c < 0) {
			hi = mid;
		} else {
			lo = mid + 1;
		}
	}
	if (!found)
		return 0;
	if (export_name_index(img, j, cand, &idx, err) || export_slot(img, idx, out, err))
		return with_path(img, err);
	out->name = cand;
	return out->rva ? 1 : 0;
}

int pe_export_by_ordinal(const struct pe_image *img, uint32_t ordinal, struct pe_export *out, struct err *err)
{
	uint32_t idx;
	if (!img->has_exports || ordinal < img->export_base)
		return 0;
	idx = ordinal - img->export_base;
	if (idx >= img->export_count)
		return 0;
	if (export_slot(img, idx, out, err))
		return with_path(img, err);
	out->name = NULL; /* not looked up: the loader binds by ordinal without it */
	return out->rva ? 1 : 0;
}

int pe_exports(struct pe_image *img, const struct pe_export **out, size_t *n, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t i;

	*out = NULL;
	*n = 0;
	if (!img->has_exports)
		return 0;
	if (!pv->exports_done) {
		struct pe_export *e = xcalloc(img->export_count ? img->export_count : 1, sizeof(*e));
		for (i = 0; i < img->export_count; i++) {
			if (export_slot(img, i, &e[i], err)) {
				free(e);
				return with_path(img, err);
			}
		}
		/* The first name in table order names an ordinal, as llvm-readobj shows it. */
		for (i = 0; i < img->export_name_count; i++) {
			const char *name;
			uint32_t idx = 0;
			if (export_name(img, i, &name, err) || export_name_index(img, i, name, &idx, err)) {
				free(e);
				return with_path(img, err);
			}
			if (!e[idx].name)
				e[idx].name = name;
		}
		pv->exports = e;
		pv->exports_done = 1;
	}
	*out = pv->exports;
	*n = img->export_count;
	return 0;
}

/*
 * Streaming the export table (pe --json on 4,000,000 slots held ~85 bytes
 * per slot). The ordinal table holds 16-bit indexes, so names can only name
 * the first 65,536 slots: the map from a slot to its first name is at most
 * 65,536 entries (256 KiB) whatever the table's size. The mapping's pages are
 * handed back every PE_ITER_DROP_EVERY entries, so resident memory does not
 * grow with the table either (dropped pages come back from the page cache).
 */
#define PE_ITER_DROP_EVERY 65536u

/* Only a file mapping's pages can be handed back: a caller's buffer (pe_parse) would be zeroed. */
static void iter_drop_pages(const struct pe_image *img)
{
	if (priv(img)->mapped)
		os_drop_pages(img->file.p, img->file.len);
}

int pe_export_iter_init(struct pe_export_iter *it, const struct pe_image *img, struct err *err)
{
	uint32_t i;
	struct pe_export e;
	memset(it, 0, sizeof(*it));
	it->img = img;
	if (!img->has_exports)
		return 0;
	/* every slot and name checked first: a corrupt table fails before anything is listed */
	for (i = 0; i < img->export_count; i++) {
		if (export_slot(img, i, &e, err))
			goto fail;
		if ((i + 1) % PE_ITER_DROP_EVERY == 0)
			iter_drop_pages(img);
	}
	it->nfirst = img->export_count < 65536u ? img->export_count : 65536u;
	if (img->export_name_count && it->nfirst)
		it->first_name = xcalloc(it->nfirst, sizeof(*it->first_name));
	for (i = 0; i < img->export_name_count; i++) {
		const char *name;
		uint32_t idx = 0;
		if (export_name(img, i, &name, err) || export_name_index(img, i, name, &idx, err))
			goto fail;
		if (!it->first_name[idx])
			it->first_name[idx] = i + 1; /* the first name in table order, as pe_exports */
		if ((i + 1) % PE_ITER_DROP_EVERY == 0)
			iter_drop_pages(img);
	}
	return 0;
fail:
	pe_export_iter_release(it);
	return with_path(img, err);
}

int pe_export_iter_next(struct pe_export_iter *it, struct pe_export *out)
{
	const struct pe_image *img = it->img;
	struct err ignored;
	uint32_t i = it->next;
	if (!img || !img->has_exports || i >= img->export_count)
		return 0;
	it->next++;
	/* checked by pe_export_iter_init: these reads cannot fail now */
	if (export_slot(img, i, out, &ignored))
		out->forwarder = NULL;
	out->name = NULL;
	if (i < it->nfirst && it->first_name && it->first_name[i] &&
	    export_name(img, it->first_name[i] - 1, &out->name, &ignored))
		out->name = NULL;
	if (it->next % PE_ITER_DROP_EVERY == 0)
		iter_drop_pages(img);
	return 1;
}

void pe_export_iter_release(struct pe_export_iter *it)
{
	free(it->first_name);
	it->first_name = NULL;
	it->img = NULL;
}
