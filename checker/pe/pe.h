/*
 * pe: one PE/COFF image, read from an untrusted file without trusting it.
 *
 * The file is memory-mapped read-only and only the pages holding the
 * headers, the section table and the directories asked for are touched:
 * a 1 GiB torch_cuda.dll costs a few pages, not a gigabyte. Every read goes
 * through span.h; every RVA is mapped to a file offset through the section
 * table in one function (sections.h, shared with peek; pe_rva_to_off); every count is capped. A malformed
 * file yields a specific error ("import descriptor 3: name RVA 0x1234 outside
 * any section"), never a crash, a hang or a silently partial answer.
 *
 * Strings handed out (DLL names, function names, forwarders, version
 * strings) are NUL-terminated and valid until pe_close(): they point into
 * the mapping (after the NUL was found inside the string's own section) or,
 * for UTF-16 version strings converted to UTF-8, into memory the image owns.
 *
 * Exports are not materialised up front: torch_cpu.dll exports well over
 * 100,000 names. pe_export_by_name() binary-searches the name pointer table
 * (it is sorted, as the loader relies on), pe_export_by_ordinal() indexes the
 * address table; pe_exports() lists all of them only when asked (the `pe`
 * command).
 */
#ifndef TDC_PE_H
#define TDC_PE_H

#include <stddef.h>
#include <stdint.h>

#include "pe/sections.h"
#include "util/err.h"
#include "util/os.h"
#include "util/span.h"

/* IMAGE_FILE_MACHINE_* values we name; others are reported by number. */
#define PE_MACHINE_I386 0x014c
#define PE_MACHINE_AMD64 0x8664
#define PE_MACHINE_ARM64 0xaa64
#define PE_MACHINE_ARM64EC 0xa641
#define PE_MACHINE_ARM64X 0xa64e
#define PE_MACHINE_ARMNT 0x01c4

/* What pe_open should parse besides the headers (bit set). */
#define PE_IMPORTS 0x01       /* import directory */
#define PE_DELAY_IMPORTS 0x02 /* delay-load import directory */
#define PE_EXPORTS 0x04       /* export directory header (lookups are lazy) */
#define PE_LOAD_CONFIG 0x08   /* DependentLoadFlags */
#define PE_VERSION 0x10       /* VS_VERSIONINFO resource */
#define PE_ALL 0x1f

#define PE_FILE_DLL 0x2000 /* COFF characteristics: IMAGE_FILE_DLL (the image is a DLL, not an executable) */
/*
 * The loader's view: a malformed part that the Windows loader does not read
 * when it maps and binds a DLL (the version resource; the delay-import
 * directory, read only at first call) does not fail pe_open. That part is
 * left empty and its message ("PATH: version resource: ...") is kept in
 * img->soft_error, so the caller can warn instead of calling the DLL
 * unloadable.
 */
#define PE_LENIENT 0x100

/* Caps on counts read from the file (a larger count is an error, not a truncation). */
/*
 * Windows XP refused images with more than 96 sections; Vista and later take
 * up to 65535. We take up to 4096 (no real DLL comes near it) when the table
 * is in ascending, non-overlapping address order, as linkers write it (then
 * RVAs are found by binary search), and up to PE_MAX_UNSORTED_SECTIONS
 * otherwise (a linear scan per RVA).
 */
#define PE_MAX_SECTIONS 4096
#define PE_MAX_UNSORTED_SECTIONS 96
#define PE_MAX_IMPORT_DLLS 4096
#define PE_MAX_IMPORT_FUNCS 1000000
#define PE_MAX_EXPORTS 4000000
#define PE_MAX_NAME 4096

struct pe_import_func {
	const char *name;  /* NULL when imported by ordinal */
	uint16_t hint;     /* by name: the hint into the export name table */
	uint16_t ordinal;  /* by ordinal: the ordinal */
	int by_ordinal;
};

struct pe_import_dll {
	const char *dll;   /* as written in the file (letter case preserved) */
	struct pe_import_func *funcs;
	size_t nfuncs;
	int delay;         /* 1 for the delay-load directory */
	uint32_t index;    /* position in its directory, for messages */
};

struct pe_export {
	const char *name;      /* NULL for an ordinal-only export */
	uint32_t ordinal;      /* biased: Base + index */
	uint32_t rva;          /* 0 for an unused slot */
	const char *forwarder; /* "DLL.Func" or "DLL.#N" when the RVA points into the export directory */
};

struct pe_version {
	int present;           /* an RT_VERSION resource with a VS_VERSION_INFO block */
	int has_fixed;         /* it carries a VS_FIXEDFILEINFO (file[], product[] valid) */
	uint16_t file[4];      /* FileVersion: 14.40.33810.0 */
	uint16_t product[4];
	const char *file_version_str; /* string table FileVersion, or NULL */
	const char *product_version_str;
	const char *product_name;
	const char *company_name;
	const char *original_filename;
	const char *file_description; /* FileDescription: what Explorer's Details tab shows first */
	const char *comments;         /* Comments (torch-dll-check's own: its source commit) */
};

struct pe_image {
	const char *path;          /* as given to pe_open (copied) */
	struct span file;          /* the whole mapped file */
	uint16_t machine;
	int pe32plus;              /* 1 for PE32+ (64-bit optional header) */
	uint16_t characteristics;  /* COFF header (PE_FILE_DLL: IMAGE_FILE_DLL) */
	uint16_t dll_characteristics;
	uint16_t subsystem;
	uint8_t linker_major, linker_minor;
	uint64_t image_base;
	uint32_t size_of_image;
	uint32_t size_of_headers;
	uint32_t entry_rva;

	struct pe_section *sections;
	size_t nsections;

	struct pe_import_dll *imports;       /* with PE_IMPORTS */
	size_t nimports;
	struct pe_import_dll *delay_imports; /* with PE_DELAY_IMPORTS */
	size_t ndelay_imports;

	/* with PE_EXPORTS */
	int has_exports;
	const char *export_dll_name;  /* the name the DLL gives itself, or NULL */
	uint32_t export_base;         /* ordinal base */
	uint32_t export_count;        /* address table entries */
	uint32_t export_name_count;

	/* with PE_LOAD_CONFIG */
	int has_dependent_load_flags;
	uint16_t dependent_load_flags; /* valid when the load-config Size covers the field */

	/* with PE_VERSION */
	struct pe_version version;

	uint64_t overlay_size;     /* bytes after the end of the last section's raw data */

	const char *soft_error;    /* with PE_LENIENT: the first part left empty, why; else NULL */

	void *priv;                /* mapping, string arena, export directory state */
};

/*
 * Maps `path` and parses its headers plus the parts selected by `what`.
 * On failure returns -1 with a message naming the file and the exact
 * structure that is wrong; err->code is set to PE_ERR_* below.
 */
int pe_open(struct pe_image **out, const char *path, unsigned what, struct err *err);

/* The same over bytes already in memory (fuzzing, tests). `data` must outlive the image. */
int pe_parse(struct pe_image **out, const void *data, size_t len, const char *name, unsigned what,
	     struct err *err);

void pe_close(struct pe_image *img);

/* Error classes in err->code, so the loader can tell "empty" from "not PE" from "corrupt". */
#define PE_ERR_IO 1       /* cannot open or map */
#define PE_ERR_EMPTY 2    /* zero bytes (an antivirus quarantine leaves these) */
#define PE_ERR_NOT_PE 3   /* no MZ/PE signature */
#define PE_ERR_CORRUPT 4  /* a PE whose structures are out of bounds or inconsistent */

/* Maps an RVA to a file offset through the section table (or the headers). -1 if outside. */
int pe_rva_to_off(const struct pe_image *img, uint32_t rva, size_t *off);

/*
 * Export lookup by name: binary search of the name pointer table (the
 * `hint`, when given >= 0, is tried first, as the loader does). Returns 1 and
 * fills *out when found, 0 when absent, -1 on a corrupt table (err set).
 */
int pe_export_by_name(const struct pe_image *img, const char *name, int hint, struct pe_export *out,
		      struct err *err);

/*
 * Export lookup by (biased) ordinal. Returns 1 found, 0 absent or unused slot, -1 corrupt.
 * out->name is NULL: finding it would scan the whole name table, and the
 * loader binds ordinals without names.
 */
int pe_export_by_ordinal(const struct pe_image *img, uint32_t ordinal, struct pe_export *out,
			 struct err *err);

/*
 * All exports in ordinal order (one per address-table slot, *n ==
 * export_count), with names attached: the first name in name-table order
 * when several name one slot. Unused slots (rva 0, no name) are included;
 * callers skip them. Built on first call; the array and its strings belong
 * to the image. Returns -1 on a corrupt table.
 */
int pe_exports(struct pe_image *img, const struct pe_export **out, size_t *n, struct err *err);

/*
 * The same list one slot at a time, in constant memory (pe --json and pe on
 * tables of millions of slots). _init checks every slot and name first, so a
 * corrupt table is an error (-1, as pe_exports) before anything is listed;
 * _next then yields each slot in ordinal order, unused ones included (1),
 * until the end (0). The strings belong to the image.
 */
struct pe_export_iter {
	const struct pe_image *img;
	uint32_t next;        /* the next address-table index (0 again: list from the start) */
	uint32_t *first_name; /* per index below 65,536: 1 + its first name's table index, 0 none */
	uint32_t nfirst;
};
int pe_export_iter_init(struct pe_export_iter *it, const struct pe_image *img, struct err *err);
int pe_export_iter_next(struct pe_export_iter *it, struct pe_export *out);
void pe_export_iter_release(struct pe_export_iter *it);

/*
 * What mapping the image charges against the machine's commit limit, per
 * process (docs/commit.md): its writable sections are mapped copy-on-write,
 * and copy-on-write views are charged in full when they are created; read-only
 * and execute sections are backed by the file and charge nothing. `bytes` is
 * the sum of the writable sections' virtual sizes (VirtualSize, or
 * SizeOfRawData when 0, rounded up to the section alignment), at most
 * SizeOfImage: the loader maps no more, so a table that claims more (a
 * corrupt or hostile file: up to 65,535 sections of 4 GiB) is bounded and
 * said (`bounded`). An image whose section alignment is below the page size
 * is mapped as one copy-on-write region: its whole SizeOfImage.
 */
struct pe_commit {
	uint64_t bytes;      /* the charge */
	uint64_t claimed;    /* what the writable sections claim, before the SizeOfImage bound */
	size_t nwritable;    /* writable sections */
	size_t largest;      /* the writable section that charges most (an index of img->sections; valid when nwritable) */
	int bounded;         /* claimed > SizeOfImage: bytes is SizeOfImage */
	int whole_image;     /* section alignment below the page size: the whole image charges */
};
#define PE_SCN_MEM_WRITE 0x80000000u
void pe_commit(const struct pe_image *img, struct pe_commit *out);

/* "x64", "x86", "arm64", "arm64ec", "arm64x", "arm", or "0x%04x". */
const char *pe_machine_name(uint16_t machine);

/* Whether a module of machine `dep` can satisfy an import of a process of machine `proc`. */
int pe_machine_compatible(uint16_t proc, uint16_t dep);

#endif
