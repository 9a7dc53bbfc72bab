/*
 * test_sections: RVA → file offset through a section table (pe/sections.h),
 * the one rule pe.c and peek.c share: zero fill, the 512 rounding of
 * PointerToRawData, the headers' 1:1 range, the end of the file, and the
 * first section winning on overlap whether the table is searched by
 * bisection (sorted) or walked.
 */
#include "harness.h"
#include "pe/sections.h"

static struct pe_section sec(uint32_t vaddr, uint32_t vsize, uint32_t raw_off, uint32_t raw_size)
{
	struct pe_section s = { "", vaddr, vsize, raw_off, raw_size, 0 };
	return s;
}

static struct pe_layout layout(const struct pe_section *s, size_t n, uint64_t file_len)
{
	struct pe_layout l = { s, n, 0x1000, 0x200, 0x400, file_len, 0 };
	l.sorted = pe_layout_sorted(&l);
	return l;
}

static void test_vspan_rounds_to_section_alignment(void)
{
	struct pe_section a = sec(0x1000, 0x10, 0x400, 0x200), b = sec(0x2000, 0, 0x600, 0x1001);
	CHECK_INT(pe_section_vspan(&a, 0x1000), 0x1000);
	CHECK_INT(pe_section_vspan(&b, 0x1000), 0x2000); /* VirtualSize 0: SizeOfRawData */
	CHECK_INT(pe_section_vspan(&a, 0), 0x10);
}

static void test_map_sections_headers_and_zero_fill(void)
{
	const struct pe_section s[2] = { sec(0x1000, 0x800, 0x400, 0x600), sec(0x3000, 0x100, 0xa00, 0x200) };
	struct pe_layout l = layout(s, 2, 0xc00);
	uint64_t off = 7, avail = 7;
	size_t which = 9;
	CHECK(l.sorted);
	CHECK_INT(pe_layout_map(&l, 0x1010, &off, &avail, NULL), 0);
	CHECK_INT(off, 0x410);
	CHECK_INT(avail, 0x5f0); /* to the end of the section's file data, not the next section */
	CHECK_INT(pe_layout_map(&l, 0x3000, &off, &avail, NULL), 0);
	CHECK_INT(off, 0xa00);
	CHECK_INT(avail, 0x200);
	/* inside the section in memory, past its file data: zero fill, which section said */
	off = avail = 7;
	CHECK_INT(pe_layout_map(&l, 0x1700, &off, &avail, &which), -2);
	CHECK_INT(which, 0);
	CHECK_INT(off, 7); /* untouched on failure */
	/* between sections, beyond them */
	CHECK_INT(pe_layout_map(&l, 0x2900, &off, &avail, NULL), -1);
	CHECK_INT(pe_layout_map(&l, 0xfffffff0u, &off, &avail, NULL), -1);
	/* below SizeOfHeaders no section covers: the headers, 1:1 */
	CHECK_INT(pe_layout_map(&l, 0x3c, &off, &avail, NULL), 0);
	CHECK_INT(off, 0x3c);
	CHECK_INT(avail, 0x400 - 0x3c);
}

static void test_raw_offset_rounded_and_clamped_to_the_file(void)
{
	const struct pe_section s[1] = { sec(0x1000, 0x1000, 0x410, 0x800) };
	struct pe_layout l = layout(s, 1, 0x700);
	uint64_t off = 0, avail = 0;
	/* FileAlignment >= 512: PointerToRawData 0x410 is read from 0x400 */
	CHECK_INT(pe_layout_map(&l, 0x1000, &off, &avail, NULL), 0);
	CHECK_INT(off, 0x400);
	CHECK_INT(avail, 0x300); /* the file ends at 0x700 */
	CHECK_INT(pe_layout_map(&l, 0x1300, &off, &avail, NULL), -1); /* the file has ended */
	l.file_align = 0x10; /* below 512: as written */
	CHECK_INT(pe_layout_map(&l, 0x1000, &off, &avail, NULL), 0);
	CHECK_INT(off, 0x410);
	/* headers larger than the file: only the file's bytes */
	l.size_of_headers = 0x1000;
	CHECK_INT(pe_layout_map(&l, 0x6ff, &off, &avail, NULL), 0);
	CHECK_INT(avail, 1);
	CHECK_INT(pe_layout_map(&l, 0x700, &off, &avail, NULL), -1);
}

/* Overlapping sections: not sorted, walked in table order, and the first one wins. */
static void test_overlap_first_section_wins(void)
{
	const struct pe_section s[3] = { sec(0x1000, 0x2000, 0x400, 0x2000), sec(0x2000, 0x1000, 0x2400, 0x1000),
					 sec(0x4000, 0x1000, 0x3400, 0x100) };
	struct pe_layout l = layout(s, 3, 0x4000);
	uint64_t off = 0, avail = 0;
	CHECK(!l.sorted);
	CHECK_INT(pe_layout_map(&l, 0x2010, &off, &avail, NULL), 0);
	CHECK_INT(off, 0x1410); /* the first section's bytes, not the second's 0x2410 */
	CHECK_INT(pe_layout_map(&l, 0x4010, &off, &avail, NULL), 0);
	CHECK_INT(off, 0x3410);
}

/* A sorted table of many sections finds each through bisection as a walk would. */
static void test_sorted_table_bisects(void)
{
	struct pe_section s[64];
	struct pe_layout l;
	uint64_t off = 0, avail = 0;
	size_t i, bad = 0;
	for (i = 0; i < 64; i++)
		s[i] = sec((uint32_t)(0x1000 * (i + 1)), 0x800, (uint32_t)(0x400 + 0x200 * i), 0x200);
	l = layout(s, 64, 0x400 + 0x200 * 64);
	CHECK(l.sorted);
	for (i = 0; i < 64; i++)
		if (pe_layout_map(&l, (uint32_t)(0x1000 * (i + 1) + 0x10), &off, &avail, NULL) ||
		    off != 0x400 + 0x200 * i + 0x10 || avail != 0x1f0)
			bad++;
	CHECK_INT(bad, 0);
	CHECK_INT(pe_layout_map(&l, 0x1000 * 3 + 0x300, &off, &avail, NULL), -2);
	CHECK_INT(pe_layout_map(&l, 0x1000 * 65 + 0x10, &off, &avail, NULL), -1); /* past the last */
}

int main(void)
{
	RUN(test_vspan_rounds_to_section_alignment);
	RUN(test_map_sections_headers_and_zero_fill);
	RUN(test_raw_offset_rounded_and_clamped_to_the_file);
	RUN(test_overlap_first_section_wins);
	RUN(test_sorted_table_bisects);
	return HARNESS_EXIT();
}
