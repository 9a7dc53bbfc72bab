/*
 * sections: RVA → file offset through the section table (see sections.h).
 */
#include "pe/sections.h"

static uint64_t align_up(uint64_t v, uint32_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

uint64_t pe_section_vspan(const struct pe_section *s, uint32_t sect_align)
{
	return align_up(s->vsize ? s->vsize : s->raw_size, sect_align);
}

int pe_layout_sorted(const struct pe_layout *l)
{
	size_t i;
	for (i = 1; i < l->nsections; i++) {
		const struct pe_section *a = &l->sections[i - 1], *b = &l->sections[i];
		if ((uint64_t)a->vaddr + pe_section_vspan(a, l->sect_align) > b->vaddr)
			return 0;
	}
	return 1;
}

uint32_t pe_dir_count(uint32_t declared, uint32_t opt_size, uint32_t fixed)
{
	uint32_t room = (opt_size - fixed) / 8;
	if (declared > PE_NUM_DIRS)
		declared = PE_NUM_DIRS;
	return declared < room ? declared : room;
}

int pe_layout_map(const struct pe_layout *l, uint32_t rva, uint64_t *off, uint64_t *avail, size_t *sec)
{
	size_t i = 0, n = l->nsections;
	uint64_t flen = l->file_len;

	if (l->sorted && n) {
		/* The last section starting at or below rva is the only candidate. */
		size_t lo = 0, hi = n;
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (l->sections[mid].vaddr <= rva)
				lo = mid;
			else
				hi = mid;
		}
		i = lo;
		n = lo + 1;
	}
	for (; i < n; i++) {
		const struct pe_section *s = &l->sections[i];
		uint64_t vspan = pe_section_vspan(s, l->sect_align);
		uint64_t delta, raw_start, raw_len, o, end;

		if (rva < s->vaddr || (uint64_t)rva - s->vaddr >= vspan)
			continue;
		delta = (uint64_t)rva - s->vaddr;
		raw_start = s->raw_off;
		if (l->file_align >= 512)
			raw_start &= ~(uint64_t)511;
		raw_len = s->raw_size < vspan ? s->raw_size : vspan;
		if (delta >= raw_len) {
			if (sec)
				*sec = i;
			return -2;
		}
		o = raw_start + delta;
		end = raw_start + raw_len;
		if (end > flen)
			end = flen;
		if (o >= end)
			return -1;
		*off = o;
		*avail = end - o;
		if (sec)
			*sec = i;
		return 0;
	}
	if (rva < l->size_of_headers && rva < flen) {
		uint64_t end = l->size_of_headers < flen ? l->size_of_headers : flen;
		*off = rva;
		*avail = end - rva;
		if (sec)
			*sec = (size_t)-1;
		return 0;
	}
	return -1;
}
