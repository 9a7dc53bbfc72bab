/*
 * pe_commit: what mapping an image charges against the commit limit, from
 * its section table alone (pe.h, docs/commit.md).
 */
#include "pe/pe.h"

#include <string.h>

#include "pe/pe_state.h"

#define PE_PAGE 4096u

static uint64_t page_up(uint64_t v)
{
	return (v + PE_PAGE - 1) / PE_PAGE * PE_PAGE;
}

void pe_commit(const struct pe_image *img, struct pe_commit *out)
{
	const struct pe_priv *pv = img->priv;
	uint32_t align = pv ? pv->lay.sect_align : PE_PAGE;
	uint64_t image = page_up(img->size_of_image), best = 0;
	size_t i;
	memset(out, 0, sizeof(*out));
	if (align < PE_PAGE) {
		/* one region for the whole image, mapped copy-on-write ([I], docs/commit.md) */
		out->whole_image = 1;
		out->claimed = out->bytes = image;
	}
	for (i = 0; i < img->nsections; i++) {
		const struct pe_section *s = &img->sections[i];
		uint64_t span;
		if (!(s->characteristics & PE_SCN_MEM_WRITE))
			continue;
		span = page_up(pe_section_vspan(s, align));
		out->nwritable++;
		if (!out->whole_image)
			out->claimed += span; /* <= 65,535 x 4 GiB: no overflow */
		if (span > best) {
			best = span;
			out->largest = i;
		}
	}
	if (!out->whole_image) {
		out->bytes = out->claimed;
		if (out->bytes > image) {
			out->bytes = image;
			out->bounded = 1;
		}
	}
}
