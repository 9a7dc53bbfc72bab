/*
 * sections: a PE image's section table and the one rule that maps an RVA to
 * a file offset through it, shared by pe.c (a mapped file) and peek.c (a few
 * positioned reads), so that the two can never disagree on where a byte is.
 *
 * Model (Microsoft "PE Format", learn.microsoft.com/windows/win32/debug/pe-format):
 *
 * - A section covers [VirtualAddress, VirtualAddress + align_up(VirtualSize
 *   or, when that is 0, SizeOfRawData, SectionAlignment)) in memory, as the
 *   loader maps whole pages. Of that range only the first SizeOfRawData
 *   bytes come from the file; the rest is zero-filled by the loader and has
 *   no file offset here (-2: no loader-relevant structure lives in zero fill
 *   in real images).
 * - PointerToRawData is rounded down to 512 when FileAlignment >= 512, as the
 *   Windows loader does ([I]: from pefile's adjust_FileAlignment and
 *   corkami's PE notes, not Microsoft's docs); SizeOfRawData is NOT rounded
 *   up to FileAlignment (the raw bytes the header claims are what we trust).
 * - RVAs below SizeOfHeaders that no section covers map 1:1 to the headers.
 * - The first section in table order wins on overlap. When the table is in
 *   ascending, non-overlapping order (as linkers write it), the section is
 *   found by binary search; otherwise by a linear scan, whose length the
 *   readers cap (pe.h: PE_MAX_UNSORTED_SECTIONS; peek.h: PEEK_MAX_SECTIONS).
 *
 * Nothing here reads the file or allocates: the readers parse and check the
 * table their own way and describe it in a struct pe_layout. One header rule
 * the two must also read alike lives here: how many data directories exist.
 */
#ifndef TDC_PE_SECTIONS_H
#define TDC_PE_SECTIONS_H

#include <stddef.h>
#include <stdint.h>

struct pe_section {
	char name[9];
	uint32_t vaddr, vsize;
	uint32_t raw_off, raw_size;
	uint32_t characteristics;
};

/* What the mapping needs to know of an image (borrowed: the table stays the reader's). */
struct pe_layout {
	const struct pe_section *sections;
	size_t nsections;
	uint32_t sect_align, file_align; /* from the optional header (checked powers of two) */
	uint32_t size_of_headers;
	uint64_t file_len;
	int sorted; /* pe_layout_sorted(): ascending, no overlap; binary search */
};

/* The bytes section s covers in memory: VirtualSize (or SizeOfRawData when 0) rounded up to sect_align. */
uint64_t pe_section_vspan(const struct pe_section *s, uint32_t sect_align);

/* Whether the table ascends by address without overlap (the value for `sorted`). */
int pe_layout_sorted(const struct pe_layout *l);

/*
 * Maps an RVA: 0 with *off, the file offset, and *avail, the file bytes from
 * there to the end of its section's file data (or of the headers), so that
 * tables and strings cannot run into the next section; -1 when no section or
 * header covers it (or its file data ends before it); -2 when a section
 * covers it only with zero fill, with *sec (may be NULL) set to that
 * section's index. *off and *avail are written only on success, and then
 * *sec too: the section's index, or (size_t)-1 for the headers.
 */
int pe_layout_map(const struct pe_layout *l, uint32_t rva, uint64_t *off, uint64_t *avail, size_t *sec);

/*
 * The data directories an image has: NumberOfRvaAndSizes (`declared`), at
 * most PE_NUM_DIRS, and no more than the optional header of opt_size bytes
 * has room for after its `fixed` bytes (96 in PE32, 112 in PE32+; the caller
 * has checked opt_size >= fixed). Directories past either are absent.
 */
#define PE_NUM_DIRS 16
uint32_t pe_dir_count(uint32_t declared, uint32_t opt_size, uint32_t fixed);

#endif
