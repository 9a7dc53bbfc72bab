/*
 * test_pe: the PE reader on images built here, byte by byte, so that each
 * structure and each error message can be checked exactly.
 *
 * The builder makes a DLL with the headers at 0, e_lfanew 0x80, one section
 * ".rdata" at RVA 0x1000 (file offset 0x400, 0x2000 bytes) and writes
 * directories into that section by RVA. Tests then break one field at a
 * time and assert the full error text and class.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "pe/pe.h"

#define IMG_MAX 0x1c000
#define SEC_RVA 0x1000
#define SEC_OFF 0x400
#define SEC_SIZE 0x2000

struct img {
	unsigned char b[IMG_MAX];
	size_t len;
	int plus;
	size_t opt, sect_tab;
};

static void p16(struct img *m, size_t off, uint16_t v)
{
	m->b[off] = (unsigned char)v;
	m->b[off + 1] = (unsigned char)(v >> 8);
}

static void p32(struct img *m, size_t off, uint32_t v)
{
	p16(m, off, (uint16_t)v);
	p16(m, off + 2, (uint16_t)(v >> 16));
}

static void p64(struct img *m, size_t off, uint64_t v)
{
	p32(m, off, (uint32_t)v);
	p32(m, off + 4, (uint32_t)(v >> 32));
}

/* File offset of an RVA inside the builder's section. */
static size_t at(uint32_t rva)
{
	return SEC_OFF + (rva - SEC_RVA);
}

static void pstr(struct img *m, uint32_t rva, const char *s)
{
	memcpy(m->b + at(rva), s, strlen(s) + 1);
}

static void set_dir(struct img *m, int i, uint32_t rva, uint32_t size)
{
	size_t dd = m->opt + (m->plus ? 112 : 96);
	p32(m, dd + 8 * (size_t)i, rva);
	p32(m, dd + 8 * (size_t)i + 4, size);
}

static void set_section(struct img *m, int i, const char *name, uint32_t vaddr, uint32_t vsize, uint32_t raw_off,
			uint32_t raw_size)
{
	size_t o = m->sect_tab + 40 * (size_t)i;
	memset(m->b + o, 0, 40);
	memcpy(m->b + o, name, strlen(name));
	p32(m, o + 8, vsize);
	p32(m, o + 12, vaddr);
	p32(m, o + 16, raw_size);
	p32(m, o + 20, raw_off);
	p32(m, o + 36, 0x40000040);
}

static void build(struct img *m, int plus)
{
	size_t coff = 0x84;
	memset(m, 0, sizeof(*m));
	m->plus = plus;
	m->b[0] = 'M';
	m->b[1] = 'Z';
	p32(m, 0x3c, 0x80);
	memcpy(m->b + 0x80, "PE\0\0", 4);
	p16(m, coff, plus ? PE_MACHINE_AMD64 : PE_MACHINE_I386);
	p16(m, coff + 2, 1);
	p16(m, coff + 16, plus ? 240 : 224);
	p16(m, coff + 18, 0x2022);
	m->opt = coff + 20;
	p16(m, m->opt, plus ? 0x20b : 0x10b);
	m->b[m->opt + 2] = 14;
	m->b[m->opt + 3] = 38;
	p32(m, m->opt + 16, 0x1000);
	if (plus)
		p64(m, m->opt + 24, 0x180000000ull);
	else
		p32(m, m->opt + 28, 0x10000000u);
	p32(m, m->opt + 32, 0x1000);
	p32(m, m->opt + 36, 0x200);
	p32(m, m->opt + 56, 0x3000);
	p32(m, m->opt + 60, 0x400);
	p16(m, m->opt + 68, 2);
	p16(m, m->opt + 70, 0x160);
	p32(m, m->opt + (plus ? 108 : 92), 16);
	m->sect_tab = m->opt + (plus ? 240 : 224);
	set_section(m, 0, ".rdata", SEC_RVA, SEC_SIZE, SEC_OFF, SEC_SIZE);
	m->len = SEC_OFF + SEC_SIZE;
}

static struct pe_image *parse_ok(struct img *m, unsigned what)
{
	struct pe_image *img = NULL;
	struct err err;
	err_clear(&err);
	if (pe_parse(&img, m->b, m->len, "t.dll", what, &err)) {
		printf("# unexpected error: %s\n", err.msg);
		harness_failed_checks++;
		return NULL;
	}
	return img;
}

/* Parses, expecting failure with exactly `msg` and class `code`. */
static void parse_fails(struct img *m, unsigned what, const char *msg, int code, int line)
{
	struct pe_image *img = NULL;
	struct err err;
	err_clear(&err);
	if (!pe_parse(&img, m->b, m->len, "t.dll", what, &err)) {
		printf("# line %d: parsed, expected \"%s\"\n", line, msg);
		harness_failed_checks++;
		pe_close(img);
		return;
	}
	if (strcmp(err.msg, msg) || err.code != code) {
		printf("# line %d: error \"%s\" (code %d), expected \"%s\" (code %d)\n", line, err.msg, err.code, msg,
		       code);
		harness_failed_checks++;
	}
	CHECK(img == NULL);
}

#define FAILS(m, what, msg, code) parse_fails(m, what, msg, code, __LINE__)

/* ---- headers ---- */

static void test_headers_pe32plus(void)
{
	struct img m;
	struct pe_image *img;
	size_t off;
	build(&m, 1);
	m.len += 100; /* an overlay */
	img = parse_ok(&m, PE_ALL);
	if (!img)
		return;
	CHECK_INT(img->machine, PE_MACHINE_AMD64);
	CHECK_INT(img->pe32plus, 1);
	CHECK_INT(img->characteristics, 0x2022);
	CHECK_INT(img->dll_characteristics, 0x160);
	CHECK_INT(img->subsystem, 2);
	CHECK_INT(img->linker_major, 14);
	CHECK_INT(img->linker_minor, 38);
	CHECK(img->image_base == 0x180000000ull);
	CHECK_INT(img->size_of_headers, 0x400);
	CHECK_INT(img->nsections, 1);
	CHECK_STR(img->sections[0].name, ".rdata");
	CHECK_INT(img->sections[0].vaddr, SEC_RVA);
	CHECK_INT(img->overlay_size, 100);
	CHECK_INT(img->nimports, 0);
	CHECK_INT(img->has_exports, 0);
	CHECK_INT(img->has_dependent_load_flags, 0);
	CHECK_INT(img->version.present, 0);
	CHECK_INT(pe_rva_to_off(img, 0x1234, &off), 0);
	CHECK_INT(off, 0x634);
	CHECK_INT(pe_rva_to_off(img, 0x80, &off), 0); /* the headers map 1:1 */
	CHECK_INT(off, 0x80);
	CHECK_INT(pe_rva_to_off(img, 0x500, &off), -1); /* past SizeOfHeaders, before the section */
	CHECK_INT(pe_rva_to_off(img, 0x3000, &off), -1);
	pe_close(img);
}

static void test_headers_pe32(void)
{
	struct img m;
	struct pe_image *img;
	build(&m, 0);
	img = parse_ok(&m, PE_ALL);
	if (!img)
		return;
	CHECK_INT(img->machine, PE_MACHINE_I386);
	CHECK_INT(img->pe32plus, 0);
	CHECK(img->image_base == 0x10000000u);
	CHECK_INT(img->overlay_size, 0);
	pe_close(img);
}

static void test_header_errors(void)
{
	struct img m;
	build(&m, 1);
	m.len = 0;
	FAILS(&m, PE_ALL, "t.dll: empty file (0 bytes)", PE_ERR_EMPTY);

	build(&m, 1);
	m.b[0] = 'Z';
	FAILS(&m, PE_ALL, "t.dll: not a PE file (no MZ signature)", PE_ERR_NOT_PE);

	build(&m, 1);
	m.len = 12;
	FAILS(&m, PE_ALL, "t.dll: truncated DOS header (12 bytes, need 64)", PE_ERR_CORRUPT);

	build(&m, 1);
	p32(&m, 0x3c, 0x10000);
	FAILS(&m, PE_ALL, "t.dll: e_lfanew 0x10000 points outside the file (9216 bytes)", PE_ERR_NOT_PE);

	build(&m, 1);
	p32(&m, 0x3c, 0xfffffffe); /* offset + 4 must not wrap */
	FAILS(&m, PE_ALL, "t.dll: e_lfanew 0xfffffffe points outside the file (9216 bytes)", PE_ERR_NOT_PE);

	build(&m, 1);
	m.b[0x81] = 'X';
	FAILS(&m, PE_ALL, "t.dll: not a PE file (no PE signature at e_lfanew 0x80)", PE_ERR_NOT_PE);

	build(&m, 1);
	m.len = 0x90;
	FAILS(&m, PE_ALL, "t.dll: truncated COFF header at 0x84", PE_ERR_CORRUPT);

	build(&m, 1);
	m.len = 0x100;
	FAILS(&m, PE_ALL, "t.dll: truncated optional header at 0x98", PE_ERR_CORRUPT);

	build(&m, 1);
	p16(&m, 0x86, 4097);
	FAILS(&m, PE_ALL, "t.dll: section count 4097 exceeds the cap of 4096", PE_ERR_CORRUPT);

	build(&m, 1);
	p16(&m, m.opt, 0x107);
	FAILS(&m, PE_ALL, "t.dll: unknown optional header magic 0x0107", PE_ERR_CORRUPT);

	build(&m, 1);
	p16(&m, 0x84 + 16, 100);
	FAILS(&m, PE_ALL, "t.dll: optional header size 100 is too small for PE32+ (need 112)", PE_ERR_CORRUPT);

	build(&m, 1);
	p32(&m, m.opt + 32, 0x1001);
	FAILS(&m, PE_ALL, "t.dll: section alignment 0x1001 is not a power of two", PE_ERR_CORRUPT);

	build(&m, 1);
	p16(&m, 0x86, 90);
	m.len = 0x300;
	FAILS(&m, PE_ALL, "t.dll: section table (90 entries at 0x188) extends past the end of the file (768 bytes)",
	      PE_ERR_CORRUPT);

	build(&m, 1);
	m.len = 0x2000; /* the section's raw data is cut */
	FAILS(&m, PE_ALL,
	      "t.dll: section 0 (.rdata): raw data 0x400+0x2000 extends past the end of the file (8192 bytes)",
	      PE_ERR_CORRUPT);

	build(&m, 1);
	set_section(&m, 0, ".big", 0xfffff000, 0x2000, SEC_OFF, SEC_SIZE);
	FAILS(&m, PE_ALL, "t.dll: section 0 (.big): virtual range 0xfffff000+0x2000 overflows 32 bits", PE_ERR_CORRUPT);
}

/* Many sections: binary search when sorted; unsorted tables are capped at 96. */
static void test_many_sections(void)
{
	static struct img m;
	struct pe_image *img;
	size_t off;
	int i, n = 200;

	build(&m, 1);
	/* 200 one-page sections at 0x1000, 0x2000, ..., each with 0x200 bytes of file data. */
	p16(&m, 0x86, (uint16_t)n);
	p32(&m, m.opt + 60, 0x2400); /* the section table fits in the headers */
	for (i = 0; i < n; i++)
		set_section(&m, i, ".s", 0x1000 * (uint32_t)(i + 1), 0x200, 0x2400 + 0x200 * (uint32_t)i, 0x200);
	m.len = 0x2400 + 0x200 * (size_t)n;
	CHECK(m.len <= sizeof(m.b));
	img = parse_ok(&m, PE_ALL);
	if (img) {
		CHECK_INT(pe_rva_to_off(img, 0x1010, &off), 0);
		CHECK_INT(off, 0x2410);
		CHECK_INT(pe_rva_to_off(img, 0x1000 * 150 + 0x1ff, &off), 0);
		CHECK_INT(off, 0x2400 + 0x200 * 149 + 0x1ff);
		CHECK_INT(pe_rva_to_off(img, 0x1000 * 150 + 0x200, &off), -1); /* zero fill */
		CHECK_INT(pe_rva_to_off(img, 0x1000 * 201, &off), -1);
		CHECK_INT(pe_rva_to_off(img, 0x100, &off), 0); /* headers */
		pe_close(img);
	}
	/* Swap two: no longer ascending. */
	set_section(&m, 0, ".s", 0x2000, 0x200, 0x2400, 0x200);
	set_section(&m, 1, ".s", 0x1000, 0x200, 0x2600, 0x200);
	FAILS(&m, PE_ALL,
	      "t.dll: section table: 200 sections not in ascending, non-overlapping address order (at most 96 allowed)",
	      PE_ERR_CORRUPT);
	/* With few sections an unsorted table is fine, and the first match wins. */
	p16(&m, 0x86, 2);
	m.len = 0x2800;
	img = parse_ok(&m, PE_ALL);
	if (img) {
		CHECK_INT(pe_rva_to_off(img, 0x1010, &off), 0);
		CHECK_INT(off, 0x2610);
		pe_close(img);
	}
}

/* NumberOfRvaAndSizes and SizeOfOptionalHeader bound the directories. */
static void test_directory_count(void)
{
	struct img m;
	struct pe_image *img;
	build(&m, 1);
	set_dir(&m, 1, 0x9000, 40); /* would fail if read */
	p32(&m, m.opt + 108, 1);    /* only the export directory exists */
	img = parse_ok(&m, PE_ALL);
	pe_close(img);
}

/* ---- RVA mapping ---- */

static void test_rva_mapping(void)
{
	struct img m;
	struct pe_image *img;
	size_t off;
	char msg[128];
	struct err err;

	build(&m, 1);
	p16(&m, 0x86, 2);
	/* PointerToRawData 0x410 is read from 0x400 (rounded down to 512). */
	set_section(&m, 0, ".rdata", SEC_RVA, 0x1000, 0x410, 0x1000);
	/* .bss: 0x800 bytes of virtual size, 0x200 from the file. */
	set_section(&m, 1, ".bss", 0x2000, 0x800, 0x1400, 0x200);
	m.len = 0x1600;
	img = parse_ok(&m, PE_ALL);
	if (!img)
		return;
	CHECK_INT(pe_rva_to_off(img, 0x1000, &off), 0);
	CHECK_INT(off, 0x400);
	CHECK_INT(pe_rva_to_off(img, 0x2010, &off), 0);
	CHECK_INT(off, 0x1410);
	CHECK_INT(pe_rva_to_off(img, 0x2300, &off), -1); /* zero fill */
	pe_close(img);

	/* The message names the zero-filled section. */
	p32(&m, m.opt + 108, 16);
	set_dir(&m, 1, 0x2300, 40);
	snprintf(msg, sizeof(msg), "t.dll: import directory RVA 0x2300 beyond the file data of section .bss");
	FAILS(&m, PE_IMPORTS, msg, PE_ERR_CORRUPT);

	/* VirtualSize 0: the loader uses SizeOfRawData. */
	build(&m, 1);
	set_section(&m, 0, ".rdata", SEC_RVA, 0, SEC_OFF, SEC_SIZE);
	img = parse_ok(&m, PE_ALL);
	if (img) {
		CHECK_INT(pe_rva_to_off(img, 0x2fff, &off), 0);
		CHECK_INT(off, 0x23ff);
		pe_close(img);
	}
	(void)err;
}

/* ---- imports ---- */

/* Writes a descriptor at the import directory (0x1000 + 20 * i). */
static void import_desc(struct img *m, int i, uint32_t oft, uint32_t name, uint32_t ft)
{
	size_t o = at(0x1000 + 20 * (uint32_t)i);
	p32(m, o, oft);
	p32(m, o + 12, name);
	p32(m, o + 16, ft);
}

static void thunk(struct img *m, uint32_t rva, int i, uint64_t v)
{
	if (m->plus)
		p64(m, at(rva) + 8 * (size_t)i, v);
	else
		p32(m, at(rva) + 4 * (size_t)i, (uint32_t)v);
}

static void import_fixture(struct img *m, int plus)
{
	build(m, plus);
	set_dir(m, 1, 0x1000, 60);
	import_desc(m, 0, 0x1200, 0x1100, 0x1300);
	pstr(m, 0x1100, "KERNEL32.dll");
	p16(m, at(0x1400), 123);
	pstr(m, 0x1402, "GetProcAddress");
	thunk(m, 0x1200, 0, 0x1400);
	thunk(m, 0x1200, 1, plus ? 0x8000000000000005ull : 0x80000005u);
	/* Second DLL: OriginalFirstThunk 0, names from FirstThunk. */
	import_desc(m, 1, 0, 0x1110, 0x1500);
	pstr(m, 0x1110, "dep.dll");
	p16(m, at(0x1420), 7);
	pstr(m, 0x1422, "dep_a");
	thunk(m, 0x1500, 0, 0x1420);
}

static void test_imports(void)
{
	int plus;
	for (plus = 0; plus <= 1; plus++) {
		struct img m;
		struct pe_image *img;
		import_fixture(&m, plus);
		img = parse_ok(&m, PE_IMPORTS);
		if (!img)
			return;
		CHECK_INT(img->nimports, 2);
		CHECK_STR(img->imports[0].dll, "KERNEL32.dll");
		CHECK_INT(img->imports[0].nfuncs, 2);
		CHECK_STR(img->imports[0].funcs[0].name, "GetProcAddress");
		CHECK_INT(img->imports[0].funcs[0].hint, 123);
		CHECK_INT(img->imports[0].funcs[0].by_ordinal, 0);
		CHECK_INT(img->imports[0].funcs[1].by_ordinal, 1);
		CHECK_INT(img->imports[0].funcs[1].ordinal, 5);
		CHECK(img->imports[0].funcs[1].name == NULL);
		CHECK_STR(img->imports[1].dll, "dep.dll");
		CHECK_INT(img->imports[1].nfuncs, 1);
		CHECK_STR(img->imports[1].funcs[0].name, "dep_a");
		CHECK_INT(img->imports[1].index, 1);
		pe_close(img);
	}
}

/* Wine stops at a descriptor with Name 0 or FirstThunk 0, even if others follow. */
static void test_import_terminator(void)
{
	struct img m;
	struct pe_image *img;
	import_fixture(&m, 1);
	import_desc(&m, 1, 0x1200, 0x1110, 0);
	import_desc(&m, 2, 0x1200, 0x9999, 0x1300);
	img = parse_ok(&m, PE_IMPORTS);
	if (img) {
		CHECK_INT(img->nimports, 1);
		pe_close(img);
	}
}

static void test_import_errors(void)
{
	struct img m;
	int i;

	import_fixture(&m, 1);
	for (i = 0; i < 3; i++)
		import_desc(&m, i, 0x1200, 0x1100, 0x1300);
	import_desc(&m, 3, 0x1200, 0x9234, 0x1300);
	FAILS(&m, PE_IMPORTS, "t.dll: import descriptor 3: name RVA 0x9234 outside any section", PE_ERR_CORRUPT);

	import_fixture(&m, 1);
	set_dir(&m, 1, 0x7000, 40);
	FAILS(&m, PE_IMPORTS, "t.dll: import directory RVA 0x7000 outside any section", PE_ERR_CORRUPT);

	import_fixture(&m, 1);
	thunk(&m, 0x1200, 0, 0x9000);
	FAILS(&m, PE_IMPORTS, "t.dll: import descriptor 0 (KERNEL32.dll): function 0: name RVA 0x9000 outside any section",
	      PE_ERR_CORRUPT);

	import_fixture(&m, 1);
	import_desc(&m, 0, 0x4000, 0x1100, 0x1300);
	FAILS(&m, PE_IMPORTS, "t.dll: import descriptor 0 (KERNEL32.dll): thunk table RVA 0x4000 outside any section",
	      PE_ERR_CORRUPT);

	/* A DLL name that runs to the end of the section without a NUL. */
	import_fixture(&m, 1);
	import_desc(&m, 0, 0x1200, 0x2ffc, 0x1300);
	memcpy(m.b + at(0x2ffc), "ABCD", 4);
	FAILS(&m, PE_IMPORTS, "t.dll: import descriptor 0: name at RVA 0x2ffc is not NUL-terminated within 4096 bytes",
	      PE_ERR_CORRUPT);

	/* A thunk table with no terminator before the section ends. */
	import_fixture(&m, 1);
	import_desc(&m, 0, 0x2ff0, 0x1100, 0x1300);
	thunk(&m, 0x2ff0, 0, 0x8000000000000001ull);
	thunk(&m, 0x2ff0, 1, 0x8000000000000002ull);
	FAILS(&m, PE_IMPORTS, "t.dll: import descriptor 0 (KERNEL32.dll): thunk table at RVA 0x2ff0 runs past the end of its section",
	      PE_ERR_CORRUPT);

	/* A descriptor array with no terminator before the section ends. */
	import_fixture(&m, 1);
	set_dir(&m, 1, 0x2fe0, 20);
	p32(&m, at(0x2fe0), 0x1200);
	p32(&m, at(0x2fe0) + 12, 0x1100);
	p32(&m, at(0x2fe0) + 16, 0x1300);
	FAILS(&m, PE_IMPORTS, "t.dll: import directory at RVA 0x2fe0 runs past the end of its section without a terminator",
	      PE_ERR_CORRUPT);
}

/* ---- delay imports ---- */

static void delay_desc(struct img *m, int i, uint32_t attrs, uint32_t name, uint32_t iat, uint32_t intab)
{
	size_t o = at(0x1800 + 32 * (uint32_t)i);
	p32(m, o, attrs);
	p32(m, o + 4, name);
	p32(m, o + 12, iat);
	p32(m, o + 16, intab);
}

static void test_delay_imports(void)
{
	struct img m;
	struct pe_image *img;

	/* RVA-based (attributes bit 0), PE32+. */
	build(&m, 1);
	set_dir(&m, 13, 0x1800, 64);
	delay_desc(&m, 0, 1, 0x1900, 0x1a00, 0x1b00);
	pstr(&m, 0x1900, "DirectML.dll");
	p16(&m, at(0x1c00), 3);
	pstr(&m, 0x1c02, "DMLCreateDevice");
	thunk(&m, 0x1b00, 0, 0x1c00);
	thunk(&m, 0x1b00, 1, 0x8000000000000009ull);
	img = parse_ok(&m, PE_DELAY_IMPORTS);
	if (img) {
		CHECK_INT(img->ndelay_imports, 1);
		CHECK_STR(img->delay_imports[0].dll, "DirectML.dll");
		CHECK_INT(img->delay_imports[0].delay, 1);
		CHECK_INT(img->delay_imports[0].nfuncs, 2);
		CHECK_STR(img->delay_imports[0].funcs[0].name, "DMLCreateDevice");
		CHECK_INT(img->delay_imports[0].funcs[1].ordinal, 9);
		pe_close(img);
	}

	/* The old VC6 format: virtual addresses, PE32 with base 0x10000000. */
	build(&m, 0);
	set_dir(&m, 13, 0x1800, 64);
	delay_desc(&m, 0, 0, 0x10001900, 0x10001a00, 0x10001b00);
	pstr(&m, 0x1900, "old.dll");
	p16(&m, at(0x1c00), 0);
	pstr(&m, 0x1c02, "OldFunc");
	thunk(&m, 0x1b00, 0, 0x10001c00);
	img = parse_ok(&m, PE_DELAY_IMPORTS);
	if (img) {
		CHECK_INT(img->ndelay_imports, 1);
		CHECK_STR(img->delay_imports[0].dll, "old.dll");
		CHECK_INT(img->delay_imports[0].nfuncs, 1);
		CHECK_STR(img->delay_imports[0].funcs[0].name, "OldFunc");
		pe_close(img);
	}

	/* Old format, a name VA below the image base. */
	thunk(&m, 0x1b00, 0, 0x1c00);
	FAILS(&m, PE_DELAY_IMPORTS,
	      "t.dll: delay import descriptor 0 (old.dll): function 0: name VA 0x1c00 outside the image", PE_ERR_CORRUPT);

	delay_desc(&m, 0, 0, 0x1900, 0x10001a00, 0x10001b00);
	FAILS(&m, PE_DELAY_IMPORTS,
	      "t.dll: delay import descriptor 0: old-format (VA) fields below the image base 0x10000000", PE_ERR_CORRUPT);

	build(&m, 1);
	set_dir(&m, 13, 0x1800, 64);
	delay_desc(&m, 0, 1, 0x1900, 0x1a00, 0);
	pstr(&m, 0x1900, "x.dll");
	FAILS(&m, PE_DELAY_IMPORTS, "t.dll: delay import descriptor 0 (x.dll): no import name table", PE_ERR_CORRUPT);

	delay_desc(&m, 0, 1, 0x8000, 0x1a00, 0x1b00);
	FAILS(&m, PE_DELAY_IMPORTS, "t.dll: delay import descriptor 0: name RVA 0x8000 outside any section",
	      PE_ERR_CORRUPT);
}

/* ---- exports ---- */

/*
 * Export directory at 0x2000 (size 0x100, so 0x2000..0x20ff holds
 * forwarders): base 1; ordinal 1 foo -> 0x1100; ordinal 2 bar -> forwarder
 * "NTDLL.RtlFoo"; ordinal 3 no name -> 0x1180; ordinal 4 unused.
 */
static void export_fixture(struct img *m)
{
	size_t d = at(0x2000);
	build(m, 1);
	set_dir(m, 0, 0x2000, 0x100);
	p32(m, d + 12, 0x2040);
	p32(m, d + 16, 1);
	p32(m, d + 20, 4);
	p32(m, d + 24, 2);
	p32(m, d + 28, 0x2200);
	p32(m, d + 32, 0x2300);
	p32(m, d + 36, 0x2400);
	pstr(m, 0x2040, "x.dll");
	pstr(m, 0x2080, "NTDLL.RtlFoo");
	p32(m, at(0x2200), 0x1100);
	p32(m, at(0x2204), 0x2080);
	p32(m, at(0x2208), 0x1180);
	p32(m, at(0x220c), 0);
	/* Sorted names: bar, foo. */
	p32(m, at(0x2300), 0x2500);
	p32(m, at(0x2304), 0x2510);
	p16(m, at(0x2400), 1);
	p16(m, at(0x2402), 0);
	pstr(m, 0x2500, "bar");
	pstr(m, 0x2510, "foo");
}

static void test_exports(void)
{
	struct img m;
	struct pe_image *img;
	const struct pe_export *ex;
	struct pe_export e;
	struct err err;
	size_t n;

	export_fixture(&m);
	img = parse_ok(&m, PE_EXPORTS);
	if (!img)
		return;
	CHECK_INT(img->has_exports, 1);
	CHECK_STR(img->export_dll_name, "x.dll");
	CHECK_INT(img->export_base, 1);
	CHECK_INT(img->export_count, 4);
	CHECK_INT(img->export_name_count, 2);

	CHECK_INT(pe_export_by_name(img, "foo", -1, &e, &err), 1);
	CHECK_INT(e.ordinal, 1);
	CHECK_INT(e.rva, 0x1100);
	CHECK(e.forwarder == NULL);
	CHECK_INT(pe_export_by_name(img, "foo", 1, &e, &err), 1); /* right hint */
	CHECK_INT(pe_export_by_name(img, "foo", 0, &e, &err), 1); /* wrong hint: search */
	CHECK_INT(pe_export_by_name(img, "foo", 99, &e, &err), 1); /* hint out of range */
	CHECK_INT(pe_export_by_name(img, "bar", -1, &e, &err), 1);
	CHECK_STR(e.forwarder, "NTDLL.RtlFoo");
	CHECK_INT(e.ordinal, 2);
	CHECK_INT(pe_export_by_name(img, "baz", -1, &e, &err), 0);
	CHECK_INT(pe_export_by_name(img, "Foo", -1, &e, &err), 0); /* case-sensitive, as the loader */
	CHECK_INT(pe_export_by_name(img, "", -1, &e, &err), 0);

	CHECK_INT(pe_export_by_ordinal(img, 3, &e, &err), 1);
	CHECK_INT(e.rva, 0x1180);
	CHECK_INT(pe_export_by_ordinal(img, 2, &e, &err), 1);
	CHECK_STR(e.forwarder, "NTDLL.RtlFoo");
	CHECK_INT(pe_export_by_ordinal(img, 0, &e, &err), 0); /* below the base */
	CHECK_INT(pe_export_by_ordinal(img, 4, &e, &err), 0); /* unused slot */
	CHECK_INT(pe_export_by_ordinal(img, 5, &e, &err), 0); /* past the table */

	CHECK_INT(pe_exports(img, &ex, &n, &err), 0);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_STR(ex[0].name, "foo");
		CHECK_INT(ex[0].ordinal, 1);
		CHECK_STR(ex[1].name, "bar");
		CHECK_STR(ex[1].forwarder, "NTDLL.RtlFoo");
		CHECK(ex[2].name == NULL);
		CHECK_INT(ex[2].rva, 0x1180);
		CHECK_INT(ex[3].rva, 0);
	}
	pe_close(img);
}

static void test_export_errors(void)
{
	struct img m;
	struct pe_image *img;
	const struct pe_export *ex;
	struct pe_export e;
	struct err err;
	size_t n;

	export_fixture(&m);
	p32(&m, at(0x2000) + 28, 0x2f00);
	p32(&m, at(0x2000) + 20, 0x1000);
	FAILS(&m, PE_EXPORTS, "t.dll: export address table (4096 entries at RVA 0x2f00) runs past the end of its section",
	      PE_ERR_CORRUPT);

	export_fixture(&m);
	p32(&m, at(0x2000) + 32, 0x8000);
	FAILS(&m, PE_EXPORTS, "t.dll: export name pointer table (2 entries at RVA 0x8000) outside any section",
	      PE_ERR_CORRUPT);

	export_fixture(&m);
	p32(&m, at(0x2000) + 20, 4000001);
	FAILS(&m, PE_EXPORTS, "t.dll: export address table has 4000001 entries (cap 4000000)", PE_ERR_CORRUPT);

	export_fixture(&m);
	set_dir(&m, 0, 0x2ff0, 0x100);
	FAILS(&m, PE_EXPORTS, "t.dll: export directory RVA 0x2ff0 runs past the end of its section", PE_ERR_CORRUPT);

	export_fixture(&m);
	p32(&m, at(0x2000) + 12, 0x7000);
	FAILS(&m, PE_EXPORTS, "t.dll: export directory: DLL name RVA 0x7000 outside any section", PE_ERR_CORRUPT);

	/* Lazy errors: the header is fine, an entry is not. */
	export_fixture(&m);
	p16(&m, at(0x2400), 9);
	img = parse_ok(&m, PE_EXPORTS);
	if (img) {
		err_clear(&err);
		CHECK_INT(pe_exports(img, &ex, &n, &err), -1);
		CHECK_STR(err.msg, "t.dll: export name 0 (bar): ordinal index 9 beyond the address table (4 entries)");
		CHECK_INT(err.code, PE_ERR_CORRUPT);
		err_clear(&err);
		CHECK_INT(pe_export_by_name(img, "bar", -1, &e, &err), -1);
		CHECK_STR(err.msg, "t.dll: export name 0 (bar): ordinal index 9 beyond the address table (4 entries)");
		pe_close(img);
	}

	export_fixture(&m);
	p32(&m, at(0x2304), 0x9000);
	img = parse_ok(&m, PE_EXPORTS);
	if (img) {
		err_clear(&err);
		CHECK_INT(pe_export_by_name(img, "foo", -1, &e, &err), -1);
		CHECK_STR(err.msg, "t.dll: export name 1 RVA 0x9000 outside any section");
		pe_close(img);
	}

	/* A forwarder string without a NUL before the section ends. */
	export_fixture(&m);
	set_dir(&m, 0, 0x2000, 0x1000);
	p32(&m, at(0x2204), 0x2ffd);
	memcpy(m.b + at(0x2ffd), "A.B", 3);
	img = parse_ok(&m, PE_EXPORTS);
	if (img) {
		err_clear(&err);
		CHECK_INT(pe_export_by_ordinal(img, 2, &e, &err), -1);
		CHECK_STR(err.msg, "t.dll: export ordinal 2: forwarder at RVA 0x2ffd is not NUL-terminated within 4096 bytes");
		pe_close(img);
	}
}

/* ---- load config ---- */

static void test_load_config(void)
{
	struct img m;
	struct pe_image *img;

	build(&m, 1);
	set_dir(&m, 10, 0x1600, 0x100);
	p32(&m, at(0x1600), 0x100);
	p16(&m, at(0x1600) + 0x4e, 0x800);
	img = parse_ok(&m, PE_LOAD_CONFIG);
	if (img) {
		CHECK_INT(img->has_dependent_load_flags, 1);
		CHECK_INT(img->dependent_load_flags, 0x800);
		pe_close(img);
	}

	/* A structure too old to have the field: not read. */
	p32(&m, at(0x1600), 0x4e);
	img = parse_ok(&m, PE_LOAD_CONFIG);
	if (img) {
		CHECK_INT(img->has_dependent_load_flags, 0);
		pe_close(img);
	}

	/* PE32: the field is at 0x36. */
	build(&m, 0);
	set_dir(&m, 10, 0x1600, 0x48);
	p32(&m, at(0x1600), 0x48);
	p16(&m, at(0x1600) + 0x36, 0x200);
	p16(&m, at(0x1600) + 0x4e, 0x800);
	img = parse_ok(&m, PE_LOAD_CONFIG);
	if (img) {
		CHECK_INT(img->has_dependent_load_flags, 1);
		CHECK_INT(img->dependent_load_flags, 0x200);
		pe_close(img);
	}

	build(&m, 1);
	set_dir(&m, 10, 0x2ff8, 0x100);
	p32(&m, at(0x2ff8), 0x100);
	FAILS(&m, PE_LOAD_CONFIG, "t.dll: load config at RVA 0x2ff8: size 256 runs past the end of its section",
	      PE_ERR_CORRUPT);

	set_dir(&m, 10, 0x5000, 0x100);
	FAILS(&m, PE_LOAD_CONFIG, "t.dll: load config directory RVA 0x5000 outside any section", PE_ERR_CORRUPT);
}

/* ---- version resource ---- */

struct vb {
	unsigned char *p;
	size_t len;
};

static void vb16(struct vb *v, uint16_t x)
{
	v->p[v->len++] = (unsigned char)x;
	v->p[v->len++] = (unsigned char)(x >> 8);
}

static void vb_align(struct vb *v)
{
	while (v->len % 4)
		v->p[v->len++] = 0;
}

static void vb_wstr(struct vb *v, const char *s)
{
	for (; *s; s++)
		vb16(v, (unsigned char)*s);
	vb16(v, 0);
}

static size_t vb_begin(struct vb *v, const char *key, uint16_t vlen, uint16_t type)
{
	size_t start = v->len;
	vb16(v, 0);
	vb16(v, vlen);
	vb16(v, type);
	vb_wstr(v, key);
	vb_align(v);
	return start;
}

static void vb_end(struct vb *v, size_t start)
{
	uint16_t n = (uint16_t)(v->len - start);
	v->p[start] = (unsigned char)n;
	v->p[start + 1] = (unsigned char)(n >> 8);
}

static void vb_string(struct vb *v, const char *key, const char *val)
{
	size_t s = vb_begin(v, key, (uint16_t)(strlen(val) + 1), 1);
	vb_wstr(v, val);
	vb_end(v, s);
	vb_align(v);
}

/* Resource tree at 0x2000: RT_VERSION / 1 / 0x409 -> data at 0x2060. Returns the blob's file offset. */
static size_t version_fixture(struct img *m, int with_fixed)
{
	size_t r = at(0x2000), root, sfi, tab;
	struct vb v;
	build(m, 1);
	set_dir(m, 2, 0x2000, 0x800);
	p16(m, r + 14, 1);
	p32(m, r + 16, 16);
	p32(m, r + 20, 0x80000000u | 0x18);
	p16(m, r + 0x18 + 14, 1);
	p32(m, r + 0x18 + 16, 1);
	p32(m, r + 0x18 + 20, 0x80000000u | 0x30);
	p16(m, r + 0x30 + 14, 1);
	p32(m, r + 0x30 + 16, 0x409);
	p32(m, r + 0x30 + 20, 0x48);
	p32(m, r + 0x48, 0x2060);

	v.p = m->b + at(0x2060);
	v.len = 0;
	root = vb_begin(&v, "VS_VERSION_INFO", with_fixed ? 52 : 0, 0);
	if (with_fixed) {
		size_t f = v.len;
		memset(v.p + f, 0, 52);
		v.len += 52;
		p32(m, at(0x2060) + f, 0xfeef04bd);
		p32(m, at(0x2060) + f + 8, (14u << 16) | 40);
		p32(m, at(0x2060) + f + 12, (33810u << 16) | 0);
		p32(m, at(0x2060) + f + 16, (14u << 16) | 40);
		p32(m, at(0x2060) + f + 20, (33810u << 16) | 7);
		vb_align(&v);
	}
	sfi = vb_begin(&v, "StringFileInfo", 0, 1);
	tab = vb_begin(&v, "040904b0", 0, 1);
	vb_string(&v, "CompanyName", "Microsoft Corporation");
	vb_string(&v, "FileVersion", "14.40.33810.0 built by: vcwrkspc");
	vb_string(&v, "ProductName", "Microsoft\xae Visual Studio");
	vb_string(&v, "ProductVersion", "14.40.33810.0");
	vb_string(&v, "OriginalFilename", "msvcp140.dll");
	vb_end(&v, tab);
	vb_end(&v, sfi);
	vb_end(&v, root);
	p32(m, r + 0x4c, (uint32_t)v.len);
	return at(0x2060);
}

static void test_version(void)
{
	struct img m;
	struct pe_image *img;

	version_fixture(&m, 1);
	img = parse_ok(&m, PE_VERSION);
	if (!img)
		return;
	CHECK_INT(img->version.present, 1);
	CHECK_INT(img->version.has_fixed, 1);
	CHECK_INT(img->version.file[0], 14);
	CHECK_INT(img->version.file[1], 40);
	CHECK_INT(img->version.file[2], 33810);
	CHECK_INT(img->version.file[3], 0);
	CHECK_INT(img->version.product[3], 7);
	CHECK_STR(img->version.company_name, "Microsoft Corporation");
	CHECK_STR(img->version.file_version_str, "14.40.33810.0 built by: vcwrkspc");
	CHECK_STR(img->version.product_name, "Microsoft\xc2\xae Visual Studio"); /* U+00AE in UTF-8 */
	CHECK_STR(img->version.product_version_str, "14.40.33810.0");
	CHECK_STR(img->version.original_filename, "msvcp140.dll");
	pe_close(img);

	version_fixture(&m, 0);
	img = parse_ok(&m, PE_VERSION);
	if (img) {
		CHECK_INT(img->version.present, 1);
		CHECK_INT(img->version.has_fixed, 0);
		CHECK_STR(img->version.original_filename, "msvcp140.dll");
		pe_close(img);
	}

	/* No RT_VERSION entry: absent, not an error. */
	version_fixture(&m, 1);
	p32(&m, at(0x2000) + 16, 24);
	img = parse_ok(&m, PE_VERSION);
	if (img) {
		CHECK_INT(img->version.present, 0);
		pe_close(img);
	}
}

static void test_version_errors(void)
{
	struct img m;
	size_t blob;

	blob = version_fixture(&m, 1);
	p32(&m, blob + 40, 0x12345678); /* the signature after "VS_VERSION_INFO\0" + padding */
	FAILS(&m, PE_VERSION, "t.dll: version resource: VS_FIXEDFILEINFO signature 0x12345678 (expected 0xfeef04bd)",
	      PE_ERR_CORRUPT);

	blob = version_fixture(&m, 1);
	p16(&m, blob + 6, 'X');
	FAILS(&m, PE_VERSION, "t.dll: version resource: no VS_VERSION_INFO block", PE_ERR_CORRUPT);

	/* Level 2 points back at the root: a cycle. */
	version_fixture(&m, 1);
	p32(&m, at(0x2000) + 0x18 + 20, 0x80000000u | 0);
	FAILS(&m, PE_VERSION, "t.dll: resource directory cycle at offset 0x0", PE_ERR_CORRUPT);

	/* Level 1 points at itself. */
	version_fixture(&m, 1);
	p32(&m, at(0x2000) + 20, 0x80000000u | 0);
	FAILS(&m, PE_VERSION, "t.dll: resource directory cycle at offset 0x0", PE_ERR_CORRUPT);

	/* The language level holds a directory: deeper than the format allows. */
	version_fixture(&m, 1);
	p32(&m, at(0x2000) + 0x30 + 20, 0x80000000u | 0x60);
	FAILS(&m, PE_VERSION, "t.dll: resource entry at level 3 for RT_VERSION is a directory (too deep)",
	      PE_ERR_CORRUPT);

	version_fixture(&m, 1);
	p32(&m, at(0x2000) + 20, 0x80000000u | 0x7fff0000u);
	FAILS(&m, PE_VERSION, "t.dll: resource directory at offset 0x7fff0000 outside the resource section",
	      PE_ERR_CORRUPT);

	version_fixture(&m, 1);
	p16(&m, at(0x2000) + 14, 0xffff);
	FAILS(&m, PE_VERSION, "t.dll: resource directory at offset 0x0: 65535 entries run past the resource section",
	      PE_ERR_CORRUPT);

	version_fixture(&m, 1);
	p32(&m, at(0x2000) + 0x48, 0x8000);
	FAILS(&m, PE_VERSION, "t.dll: version resource data (RVA 0x8000, 544 bytes) outside any section",
	      PE_ERR_CORRUPT);
}

/* The remaining messages, one structure each. */
static void test_more_errors(void)
{
	static struct img m;
	size_t r;
	int i;

	build(&m, 1);
	m.len = 0x99;
	FAILS(&m, PE_ALL, "t.dll: truncated optional header at 0x98", PE_ERR_CORRUPT);

	build(&m, 1);
	m.len = 0x11c;
	FAILS(&m, PE_ALL, "t.dll: truncated data directory 2 at 0x118", PE_ERR_CORRUPT);

	build(&m, 1);
	p32(&m, m.opt + 36, 0x300);
	FAILS(&m, PE_ALL, "t.dll: file alignment 0x300 is not a power of two", PE_ERR_CORRUPT);

	/* 4097 descriptors in one big section. */
	build(&m, 1);
	set_section(&m, 0, ".rdata", SEC_RVA, 0x18000, SEC_OFF, 0x18000);
	m.len = SEC_OFF + 0x18000;
	pstr(&m, 0x1100, "a.dll");
	thunk(&m, 0x1200, 0, 0x8000000000000001ull);
	set_dir(&m, 1, 0x2000, 20);
	for (i = 0; i < 4097; i++) {
		size_t o = at(0x2000 + 20 * (uint32_t)i);
		p32(&m, o + 12, 0x1100);
		p32(&m, o + 16, 0x1200);
	}
	FAILS(&m, PE_IMPORTS, "t.dll: more than 4096 import descriptors", PE_ERR_CORRUPT);

	build(&m, 1);
	set_dir(&m, 13, 0x7000, 32);
	FAILS(&m, PE_DELAY_IMPORTS, "t.dll: delay import directory RVA 0x7000 outside any section", PE_ERR_CORRUPT);

	build(&m, 1);
	set_dir(&m, 13, 0x2fe0, 32);
	p32(&m, at(0x2fe0), 1);
	p32(&m, at(0x2fe0) + 4, 0x1100);
	p32(&m, at(0x2fe0) + 16, 0x1200);
	pstr(&m, 0x1100, "d.dll");
	FAILS(&m, PE_DELAY_IMPORTS,
	      "t.dll: delay import directory at RVA 0x2fe0 runs past the end of its section without a terminator",
	      PE_ERR_CORRUPT);

	export_fixture(&m);
	p32(&m, at(0x2000) + 24, 4000001);
	FAILS(&m, PE_EXPORTS, "t.dll: export name table has 4000001 entries (cap 4000000)", PE_ERR_CORRUPT);

	version_fixture(&m, 1);
	set_dir(&m, 2, 0x7000, 0x100);
	FAILS(&m, PE_VERSION, "t.dll: resource directory RVA 0x7000 outside any section", PE_ERR_CORRUPT);

	version_fixture(&m, 1);
	r = at(0x2000);
	p32(&m, r + 20, 0x18);
	FAILS(&m, PE_VERSION, "t.dll: resource entry at level 1 for RT_VERSION is data (expected a directory)",
	      PE_ERR_CORRUPT);

	version_fixture(&m, 1);
	p16(&m, r + 0x18 + 14, 0);
	FAILS(&m, PE_VERSION, "t.dll: resource directory at offset 0x18 (RT_VERSION level 2) is empty", PE_ERR_CORRUPT);

	version_fixture(&m, 1);
	p32(&m, r + 0x30 + 20, 0x7ff0);
	FAILS(&m, PE_VERSION, "t.dll: resource data entry at offset 0x7ff0 outside the resource section",
	      PE_ERR_CORRUPT);

	/* The data entry claims 60 bytes: the root is clamped, VS_FIXEDFILEINFO does not fit. */
	version_fixture(&m, 1);
	p32(&m, r + 0x4c, 60);
	FAILS(&m, PE_VERSION, "t.dll: version resource: truncated VS_FIXEDFILEINFO", PE_ERR_CORRUPT);
}

/* PE_LENIENT: what the loader does not read cannot make a DLL unloadable. */
static void test_lenient(void)
{
	static struct img m;
	struct pe_image *img;
	size_t blob;

	blob = version_fixture(&m, 1);
	p32(&m, blob + 40, 0x12345678);
	FAILS(&m, PE_ALL, "t.dll: version resource: VS_FIXEDFILEINFO signature 0x12345678 (expected 0xfeef04bd)",
	      PE_ERR_CORRUPT);
	img = parse_ok(&m, PE_ALL | PE_LENIENT);
	if (img) {
		CHECK_STR(img->soft_error,
			  "t.dll: version resource: VS_FIXEDFILEINFO signature 0x12345678 (expected 0xfeef04bd)");
		CHECK_INT(img->version.present, 0);
		CHECK(img->version.company_name == NULL);
		pe_close(img);
	}

	/* A broken delay-import directory next to good imports. */
	import_fixture(&m, 1);
	set_dir(&m, 13, 0x1800, 64);
	p32(&m, at(0x1800), 1);
	p32(&m, at(0x1800) + 4, 0x8000);
	p32(&m, at(0x1800) + 16, 0x1b00);
	img = parse_ok(&m, PE_ALL | PE_LENIENT);
	if (img) {
		CHECK_STR(img->soft_error, "t.dll: delay import descriptor 0: name RVA 0x8000 outside any section");
		CHECK_INT(img->ndelay_imports, 0);
		CHECK_INT(img->nimports, 2);
		pe_close(img);
	}

	/* Imports are read at load time: still fatal. */
	import_fixture(&m, 1);
	thunk(&m, 0x1200, 0, 0x9000);
	FAILS(&m, PE_ALL | PE_LENIENT,
	      "t.dll: import descriptor 0 (KERNEL32.dll): function 0: name RVA 0x9000 outside any section", PE_ERR_CORRUPT);

	/* Clean files: no soft error. */
	import_fixture(&m, 1);
	img = parse_ok(&m, PE_ALL | PE_LENIENT);
	if (img) {
		CHECK(img->soft_error == NULL);
		pe_close(img);
	}
}

/* ---- files and helpers ---- */

static void test_open_file(void)
{
	struct img m;
	struct pe_image *img = NULL;
	struct err err;
	char path[] = "/tmp/test_pe_XXXXXX";
	int fd;

	import_fixture(&m, 1);
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, m.b, m.len) == (ssize_t)m.len);
	close(fd);
	err_clear(&err);
	CHECK_INT(pe_open(&img, path, PE_ALL, &err), 0);
	if (img) {
		CHECK_INT(img->nimports, 2);
		CHECK_STR(img->path, path);
		pe_close(img);
	}
	unlink(path);
	err_clear(&err);
	CHECK_INT(pe_open(&img, path, PE_ALL, &err), -1);
	CHECK_INT(err.code, PE_ERR_IO);
	CHECK_HAS(err.msg, "cannot open");
	CHECK(img == NULL);
}

/* The commit an image charges: its writable sections' pages, at most SizeOfImage (docs/commit.md). */
static void test_commit(void)
{
	static struct img m;
	struct pe_image *img;
	struct pe_commit c;
	size_t o;

	build(&m, 1);
	img = parse_ok(&m, PE_ALL);
	if (img) { /* one read-only section: nothing */
		pe_commit(img, &c);
		CHECK_INT(c.bytes, 0);
		CHECK_INT(c.nwritable, 0);
		pe_close(img);
	}
	/* .data, writable, 0x1801 bytes at 0x4000: two pages; SizeOfImage 0x6000 */
	p16(&m, 0x86, 2);
	p32(&m, m.opt + 56, 0x6000);
	set_section(&m, 1, ".data", 0x4000, 0x1801, 0, 0);
	o = m.sect_tab + 40;
	p32(&m, o + 36, 0xC0000040);
	img = parse_ok(&m, PE_ALL);
	if (img) {
		pe_commit(img, &c);
		CHECK_INT(c.bytes, 0x2000);
		CHECK_INT(c.claimed, 0x2000);
		CHECK_INT(c.nwritable, 1);
		CHECK_INT(c.largest, 1);
		CHECK_INT(c.bounded, 0);
		pe_close(img);
	}
	/* the same section claiming almost 4 GiB: bounded by SizeOfImage, and said */
	p32(&m, o + 8, 0xFFFF0000u);
	img = parse_ok(&m, PE_ALL);
	if (img) {
		pe_commit(img, &c);
		CHECK_INT(c.claimed, 0xFFFF0000u);
		CHECK_INT(c.bytes, 0x6000);
		CHECK_INT(c.bounded, 1);
		pe_close(img);
	}
	/* 96 writable sections of almost 4 GiB each, overlapping (unsorted: the most the reader takes) */
	{
		int i, n = 96;
		build(&m, 1);
		p16(&m, 0x86, (uint16_t)n);
		p32(&m, m.opt + 60, 0x1000);
		for (i = 0; i < n; i++) {
			set_section(&m, i, ".nv_fatb", SEC_RVA, 0xFFFF0000u, SEC_OFF, SEC_SIZE);
			p32(&m, m.sect_tab + 40 * (size_t)i + 36, 0xC0000040);
		}
		img = parse_ok(&m, PE_ALL);
		if (img) {
			pe_commit(img, &c);
			CHECK_INT(c.claimed, 96ull * 0xFFFF0000u); /* 384 GiB claimed */
			CHECK_INT(c.bytes, 0x3000);
			CHECK_INT(c.bounded, 1);
			CHECK_INT(c.nwritable, 96);
			pe_close(img);
		}
	}
	/* section alignment below the page size: the whole image is one copy-on-write region */
	build(&m, 1);
	p32(&m, m.opt + 32, 0x200);
	set_section(&m, 0, ".rdata", 0x400, SEC_SIZE, SEC_OFF, SEC_SIZE);
	img = parse_ok(&m, 0);
	if (img) {
		pe_commit(img, &c);
		CHECK_INT(c.whole_image, 1);
		CHECK_INT(c.bytes, 0x3000);
		pe_close(img);
	}
}

static void test_machines(void)
{
	CHECK_STR(pe_machine_name(PE_MACHINE_AMD64), "x64");
	CHECK_STR(pe_machine_name(PE_MACHINE_I386), "x86");
	CHECK_STR(pe_machine_name(PE_MACHINE_ARM64), "arm64");
	CHECK_STR(pe_machine_name(PE_MACHINE_ARM64EC), "arm64ec");
	CHECK_STR(pe_machine_name(PE_MACHINE_ARM64X), "arm64x");
	CHECK_STR(pe_machine_name(PE_MACHINE_ARMNT), "arm");
	CHECK_STR(pe_machine_name(0x1234), "0x1234");
	CHECK(pe_machine_compatible(PE_MACHINE_AMD64, PE_MACHINE_AMD64));
	CHECK(!pe_machine_compatible(PE_MACHINE_AMD64, PE_MACHINE_I386));
	CHECK(!pe_machine_compatible(PE_MACHINE_I386, PE_MACHINE_AMD64));
	CHECK(pe_machine_compatible(PE_MACHINE_ARM64, PE_MACHINE_ARM64X));
	CHECK(pe_machine_compatible(PE_MACHINE_ARM64EC, PE_MACHINE_AMD64));
}

int main(void)
{
	RUN(test_headers_pe32plus);
	RUN(test_headers_pe32);
	RUN(test_header_errors);
	RUN(test_many_sections);
	RUN(test_directory_count);
	RUN(test_rva_mapping);
	RUN(test_imports);
	RUN(test_import_terminator);
	RUN(test_import_errors);
	RUN(test_delay_imports);
	RUN(test_exports);
	RUN(test_export_errors);
	RUN(test_load_config);
	RUN(test_version);
	RUN(test_version_errors);
	RUN(test_more_errors);
	RUN(test_lenient);
	RUN(test_open_file);
	RUN(test_machines);
	RUN(test_commit);
	return HARNESS_EXIT();
}
