/*
 * pe: a PE/COFF reader that reads what the Windows loader reads, the way it
 * reads it, from a file it does not trust.
 *
 * Model (Microsoft "PE Format", learn.microsoft.com/windows/win32/debug/pe-format;
 * Wine's loader, dlls/ntdll/loader.c, for behaviour the spec leaves open):
 *
 * - The file is mapped (os_map_file) and only the pages that hold the
 *   headers, the section table and the directories asked for are touched.
 *   Bounds checks compare sizes and never touch pages. Strings handed out
 *   point into the mapping after a NUL was found inside their section, or
 *   into memory owned by the image (UTF-16 version strings converted to
 *   UTF-8); both live until pe_close().
 *
 * - RVA -> file offset happens in one function, pe_layout_map() (sections.h,
 *   the rule peek.c uses too): a section covers its VirtualSize rounded up to
 *   SectionAlignment, of which only the first SizeOfRawData bytes come from
 *   the file; the rest is zero fill and has no file offset here ("beyond the
 *   file data of section X"). PointerToRawData is rounded down to 512 when
 *   FileAlignment >= 512, as the Windows loader does; SizeOfRawData is NOT
 *   rounded up to FileAlignment (a linker that wrote an unrounded size still
 *   keeps its data inside it). RVAs below SizeOfHeaders that no section
 *   covers map 1:1 to the headers; the first section in table order wins on
 *   overlap. Linkers write the table in ascending, non-overlapping order;
 *   then the section is found by binary search (4096 sections allowed,
 *   Vista+ takes 65535); otherwise by a linear scan, and then only 96
 *   sections are allowed (XP's limit), so a crafted table cannot make every
 *   lookup slow.
 *
 * - A section whose raw data runs past the end of the file is an error (a
 *   truncated download). [I] NtCreateSection(SEC_IMAGE) is believed to
 *   refuse such an image as well (193 to the caller); the Wine oracle should
 *   confirm it.
 *
 * - Imports: descriptors are read until one has Name == 0 or FirstThunk == 0
 *   (Wine's dlls/ntdll/loader.c fixup_imports counts them that way); names
 *   come from OriginalFirstThunk,
 *   or from FirstThunk when OriginalFirstThunk is 0 (old Borland/bound
 *   images), as the loader does. The data-directory Size is ignored, as the
 *   loader ignores it: only RVA 0 means "no imports".
 *
 * - Delay imports: ImgDelayDescr, read until DllNameRVA == 0. Attributes bit 0
 *   set means the fields are RVAs; clear means the old (VC6) format with
 *   virtual addresses, converted by subtracting ImageBase. Names come from
 *   the import name table, as __delayLoadHelper2 reads them.
 *
 * - Exports: the header and table bounds are checked at open; lookups are
 *   lazy. By name: the hint first, then a binary search with strcmp over the
 *   name pointer table, which the loader assumes sorted (an unsorted table
 *   makes lookups fail on Windows too). An RVA inside the export directory's
 *   [RVA, RVA + Size) is a forwarder string.
 *
 * - Resources: RT_VERSION (16) / first name / first language, and the first
 *   string table inside it. GetFileVersionInfo picks the language by a
 *   fallback list instead; for the usual single-language resource that is
 *   the same one, for multi-language ones (Wine's builtins list Arabic
 *   first) the numbers agree and only the strings may be another language's.
 *   Children of VS_VERSIONINFO blocks
 *   whose wLength overruns their parent are clamped to the parent (real
 *   resource compilers get these lengths slightly wrong); the root's key,
 *   the VS_FIXEDFILEINFO signature and the resource tree itself are checked.
 */
#include "pe/pe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/utf.h"

#define DIR_EXPORT 0
#define DIR_IMPORT 1
#define DIR_RESOURCE 2
#define DIR_LOAD_CONFIG 10
#define DIR_DELAY_IMPORT 13

#define RT_VERSION 16
#define VS_FFI_SIGNATURE 0xfeef04bdu
#define MAX_VERSION_BLOCKS 4096
#define MAX_VERSION_STRING 4096

struct pe_priv {
	struct os_map map;
	int mapped;
	struct strlist owned; /* strings the image owns (path, converted text) */
	struct pe_layout lay; /* the section table and what mapping an RVA needs (sections.h) */
	uint32_t dir_rva[PE_NUM_DIRS], dir_size[PE_NUM_DIRS];

	/* export directory, validated at open */
	uint32_t exp_rva, exp_size;
	struct span exp_addr, exp_names, exp_ords;
	struct pe_export *exports;
	int exports_done;
};

/*
 * Reads after the caller has checked the span (span_has / a sized
 * rva_span): a value, 0 if the check was wrong rather than undefined bytes.
 */
static uint8_t rd8(struct span s, size_t off)
{
	uint8_t v = 0;
	return span_u8(s, off, &v) ? 0 : v;
}

static uint16_t rd16(struct span s, size_t off)
{
	uint16_t v = 0;
	return span_u16(s, off, &v) ? 0 : v;
}

static uint32_t rd32(struct span s, size_t off)
{
	uint32_t v = 0;
	return span_u32(s, off, &v) ? 0 : v;
}

static uint64_t rd64(struct span s, size_t off)
{
	uint64_t v = 0;
	return span_u64(s, off, &v) ? 0 : v;
}

static struct pe_priv *priv(const struct pe_image *img)
{
	return (struct pe_priv *)img->priv;
}

static int fail(struct err *err, int code, const char *fmt, ...) ERR_PRINTF(3, 4);

static int fail(struct err *err, int code, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->code = code;
	return -1;
}

static const char *own(struct pe_image *img, char *s)
{
	strlist_push_owned(&priv(img)->owned, s);
	return s;
}

static void sect_name(const struct pe_section *s, char *out, size_t n)
{
	snprintf(out, n, "%s", s->name);
}

/* The section's bytes in memory (sections.h). */
static uint64_t sect_vspan(const struct pe_image *img, const struct pe_section *s)
{
	return pe_section_vspan(s, priv(img)->lay.sect_align);
}

/* pe_layout_map (sections.h) in this file's size_t offsets: they lie inside the mapped file. */
static int rva_map(const struct pe_image *img, uint32_t rva, size_t *off, size_t *avail, size_t *sec)
{
	uint64_t o, a;
	int r = pe_layout_map(&priv(img)->lay, rva, &o, &a, sec);
	if (r == 0) {
		*off = (size_t)o;
		*avail = (size_t)a;
	}
	return r;
}

int pe_rva_to_off(const struct pe_image *img, uint32_t rva, size_t *off)
{
	size_t avail;
	return rva_map(img, rva, off, &avail, NULL) ? -1 : 0;
}

/* Why an RVA cannot be read, for messages. */
static const char *rva_why(const struct pe_image *img, uint32_t rva, char *buf, size_t n)
{
	size_t off, avail, sec = 0;
	int r = rva_map(img, rva, &off, &avail, &sec);
	if (r == -2) {
		char nm[16];
		sect_name(&img->sections[sec], nm, sizeof(nm));
		snprintf(buf, n, "beyond the file data of section %s", nm);
	} else if (r == 0) {
		snprintf(buf, n, "runs past the end of its section");
	} else {
		snprintf(buf, n, "outside any section");
	}
	return buf;
}

/* The file bytes at an RVA, at least `need` of them, up to the end of the section. */
static int rva_span(const struct pe_image *img, uint32_t rva, size_t need, struct span *out)
{
	size_t off, avail;
	if (rva_map(img, rva, &off, &avail, NULL) || avail < need)
		return -1;
	*out = span_make(img->file.p + off, avail);
	return 0;
}

/*
 * A NUL-terminated string at an RVA, inside one section. Returns 0, or -1
 * (unmapped) / -2 (no NUL within max bytes or before the section ends).
 */
static int rva_cstr(const struct pe_image *img, uint32_t rva, const char **str)
{
	struct span s;
	size_t len;
	if (rva_span(img, rva, 1, &s))
		return -1;
	if (span_cstr(s, 0, PE_MAX_NAME, str, &len))
		return -2;
	return 0;
}

/* The message for a failed rva_cstr. */
static int cstr_fail(const struct pe_image *img, struct err *err, int r, uint32_t rva, const char *what)
{
	char why[96];
	if (r == -2)
		return fail(err, PE_ERR_CORRUPT, "%s at RVA 0x%x is not NUL-terminated within %d bytes",
			    what, rva, PE_MAX_NAME);
	return fail(err, PE_ERR_CORRUPT, "%s RVA 0x%x %s", what, rva, rva_why(img, rva, why, sizeof(why)));
}

/* ---- headers ---- */

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The DOS stub's pointer, the PE signature and the COFF file header. */
static int parse_coff(struct pe_image *img, struct err *err, size_t *coff_out, uint16_t *nsec_out,
		      uint16_t *opt_size_out)
{
	struct span f = img->file;
	uint32_t lfanew, sig;
	uint16_t mz, nsec, opt_size;
	size_t coff;

	if (f.len == 0)
		return fail(err, PE_ERR_EMPTY, "empty file (0 bytes)");
	if (span_u16(f, 0, &mz) || mz != 0x5a4d)
		return fail(err, PE_ERR_NOT_PE, "not a PE file (no MZ signature)");
	if (span_u32(f, 0x3c, &lfanew))
		return fail(err, PE_ERR_CORRUPT, "truncated DOS header (%zu bytes, need 64)", f.len);
	if (span_u32(f, lfanew, &sig))
		return fail(err, PE_ERR_NOT_PE, "e_lfanew 0x%x points outside the file (%zu bytes)", lfanew, f.len);
	if (sig != 0x00004550)
		return fail(err, PE_ERR_NOT_PE, "not a PE file (no PE signature at e_lfanew 0x%x)", lfanew);
	coff = (size_t)lfanew + 4;
	if (!span_has(f, coff, 20))
		return fail(err, PE_ERR_CORRUPT, "truncated COFF header at 0x%zx", coff);
	img->machine = rd16(f, coff);
	nsec = rd16(f, coff + 2);
	opt_size = rd16(f, coff + 16);
	img->characteristics = rd16(f, coff + 18);
	if (nsec > PE_MAX_SECTIONS)
		return fail(err, PE_ERR_CORRUPT, "section count %u exceeds the cap of %d", nsec, PE_MAX_SECTIONS);
	*coff_out = coff;
	*nsec_out = nsec;
	*opt_size_out = opt_size;
	return 0;
}

/* The optional header at `opt` (`opt_size` bytes as the COFF header says) and its data directories. */
static int parse_optional(struct pe_image *img, struct err *err, size_t opt, uint16_t opt_size)
{
	struct pe_priv *pv = priv(img);
	struct span f = img->file;
	uint32_t ndirs, i;
	uint16_t magic;
	size_t dd;

	if (span_u16(f, opt, &magic))
		return fail(err, PE_ERR_CORRUPT, "truncated optional header at 0x%zx", opt);
	if (magic == 0x20b)
		img->pe32plus = 1;
	else if (magic != 0x10b)
		return fail(err, PE_ERR_CORRUPT, "unknown optional header magic 0x%04x", magic);
	dd = opt + (img->pe32plus ? 112 : 96);
	if (opt_size < dd - opt)
		return fail(err, PE_ERR_CORRUPT, "optional header size %u is too small for %s (need %zu)",
			    opt_size, img->pe32plus ? "PE32+" : "PE32", dd - opt);
	if (!span_has(f, opt, dd - opt))
		return fail(err, PE_ERR_CORRUPT, "truncated optional header at 0x%zx", opt);
	img->linker_major = rd8(f, opt + 2);
	img->linker_minor = rd8(f, opt + 3);
	img->entry_rva = rd32(f, opt + 16);
	if (img->pe32plus) {
		img->image_base = rd64(f, opt + 24);
	} else {
		uint32_t b;
		b = rd32(f, opt + 28);
		img->image_base = b;
	}
	pv->lay.sect_align = rd32(f, opt + 32);
	pv->lay.file_align = rd32(f, opt + 36);
	img->size_of_image = rd32(f, opt + 56);
	img->size_of_headers = rd32(f, opt + 60);
	img->subsystem = rd16(f, opt + 68);
	img->dll_characteristics = rd16(f, opt + 70);
	ndirs = rd32(f, dd - 4);
	if (!is_pow2(pv->lay.sect_align))
		return fail(err, PE_ERR_CORRUPT, "section alignment 0x%x is not a power of two", pv->lay.sect_align);
	if (!is_pow2(pv->lay.file_align))
		return fail(err, PE_ERR_CORRUPT, "file alignment 0x%x is not a power of two", pv->lay.file_align);

	/* Directories past NumberOfRvaAndSizes or past the optional header are absent. */
	ndirs = pe_dir_count(ndirs, opt_size, (uint32_t)(dd - opt));
	for (i = 0; i < ndirs; i++) {
		if (span_u32(f, dd + 8 * i, &pv->dir_rva[i]) || span_u32(f, dd + 8 * i + 4, &pv->dir_size[i]))
			return fail(err, PE_ERR_CORRUPT, "truncated data directory %u at 0x%zx", i, dd + 8 * i);
	}
	return 0;
}

/* The section table at `sect_tab`, then the overlay past the last section's raw data. */
static int parse_sections(struct pe_image *img, struct err *err, size_t sect_tab, uint16_t nsec)
{
	struct pe_priv *pv = priv(img);
	struct span f = img->file;
	uint32_t i;
	uint64_t raw_end = 0;

	if (!span_has(f, sect_tab, (size_t)nsec * 40))
		return fail(err, PE_ERR_CORRUPT, "section table (%u entries at 0x%zx) extends past the end of the file (%zu bytes)",
			    nsec, sect_tab, f.len);
	img->sections = xcalloc(nsec ? nsec : 1, sizeof(*img->sections));
	img->nsections = nsec;
	for (i = 0; i < nsec; i++) {
		struct pe_section *s = &img->sections[i];
		size_t o = sect_tab + 40 * (size_t)i;
		uint64_t vext;
		memcpy(s->name, f.p + o, 8);
		s->name[8] = '\0';
		s->vsize = rd32(f, o + 8);
		s->vaddr = rd32(f, o + 12);
		s->raw_size = rd32(f, o + 16);
		s->raw_off = rd32(f, o + 20);
		s->characteristics = rd32(f, o + 36);
		vext = sect_vspan(img, s);
		if ((uint64_t)s->vaddr + vext > 0xffffffffull)
			return fail(err, PE_ERR_CORRUPT, "section %u (%s): virtual range 0x%x+0x%x overflows 32 bits",
				    i, s->name, s->vaddr, s->vsize);
		if (s->raw_size) {
			uint64_t end = (uint64_t)s->raw_off + s->raw_size;
			if (end > f.len)
				return fail(err, PE_ERR_CORRUPT,
					    "section %u (%s): raw data 0x%x+0x%x extends past the end of the file (%zu bytes)",
					    i, s->name, s->raw_off, s->raw_size, f.len);
			if (end > raw_end)
				raw_end = end;
		}
	}
	pv->lay.sections = img->sections;
	pv->lay.nsections = nsec;
	pv->lay.size_of_headers = img->size_of_headers;
	pv->lay.file_len = f.len;
	pv->lay.sorted = pe_layout_sorted(&pv->lay);
	if (!pv->lay.sorted && nsec > PE_MAX_UNSORTED_SECTIONS)
		return fail(err, PE_ERR_CORRUPT,
			    "section table: %u sections not in ascending, non-overlapping address order (at most %d allowed)",
			    nsec, PE_MAX_UNSORTED_SECTIONS);
	if (img->size_of_headers > raw_end)
		raw_end = img->size_of_headers < f.len ? img->size_of_headers : f.len;
	img->overlay_size = f.len > raw_end ? f.len - raw_end : 0;
	return 0;
}

static int parse_headers(struct pe_image *img, struct err *err)
{
	size_t coff = 0, opt;
	uint16_t nsec = 0, opt_size = 0;
	if (parse_coff(img, err, &coff, &nsec, &opt_size) < 0)
		return -1;
	opt = coff + 20;
	if (parse_optional(img, err, opt, opt_size) < 0)
		return -1;
	return parse_sections(img, err, opt + opt_size, nsec);
}

/* ---- imports ---- */

/* Appends one DLL's functions read from a thunk table at `rva`. */
static int read_thunks(struct pe_image *img, struct pe_import_dll *d, const char *what, uint32_t rva,
		       int va_based, size_t *total, struct err *err)
{
	size_t tsz = img->pe32plus ? 8 : 4, alloc = 0, i;
	struct span t;
	char why[96];

	if (rva_span(img, rva, tsz, &t))
		return fail(err, PE_ERR_CORRUPT, "%s: thunk table RVA 0x%x %s", what, rva,
			    rva_why(img, rva, why, sizeof(why)));
	for (i = 0;; i++) {
		uint64_t v;
		int ord;
		struct pe_import_func *fn;
		if (img->pe32plus) {
			if (span_u64(t, i * 8, &v))
				break;
			ord = (int)(v >> 63);
		} else {
			uint32_t v32;
			if (span_u32(t, i * 4, &v32))
				break;
			v = v32;
			ord = (int)(v32 >> 31);
		}
		if (!v)
			return 0;
		if (*total >= PE_MAX_IMPORT_FUNCS)
			return fail(err, PE_ERR_CORRUPT, "%s: more than %d imported functions", what,
				    PE_MAX_IMPORT_FUNCS);
		(*total)++;
		ALLOC_GROW(d->funcs, d->nfuncs + 1, alloc);
		fn = &d->funcs[d->nfuncs++];
		memset(fn, 0, sizeof(*fn));
		if (ord) {
			fn->by_ordinal = 1;
			fn->ordinal = (uint16_t)(v & 0xffff);
		} else {
			uint32_t nrva;
			struct span h;
			const char *name;
			size_t len;
			if (va_based) {
				if (v < img->image_base || v - img->image_base > 0xffffffffull)
					return fail(err, PE_ERR_CORRUPT, "%s: function %zu: name VA 0x%llx outside the image",
						    what, i, (unsigned long long)v);
				v -= img->image_base;
			}
			nrva = (uint32_t)v; /* the loader keeps the low 32 bits */
			if (rva_span(img, nrva, 2, &h))
				return fail(err, PE_ERR_CORRUPT, "%s: function %zu: name RVA 0x%x %s", what, i, nrva,
					    rva_why(img, nrva, why, sizeof(why)));
			fn->hint = rd16(h, 0);
			if (span_cstr(h, 2, PE_MAX_NAME, &name, &len))
				return fail(err, PE_ERR_CORRUPT,
					    "%s: function %zu: name at RVA 0x%x is not NUL-terminated within %d bytes",
					    what, i, nrva, PE_MAX_NAME);
			fn->name = name;
		}
	}
	return fail(err, PE_ERR_CORRUPT, "%s: thunk table at RVA 0x%x runs past the end of its section", what, rva);
}

static int parse_imports(struct pe_image *img, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t rva = pv->dir_rva[DIR_IMPORT];
	size_t alloc = 0, total = 0, i;
	struct span t;
	char why[96], what[PE_MAX_NAME + 64];

	if (!rva)
		return 0;
	if (rva_span(img, rva, 20, &t))
		return fail(err, PE_ERR_CORRUPT, "import directory RVA 0x%x %s", rva, rva_why(img, rva, why, sizeof(why)));
	for (i = 0;; i++) {
		uint32_t oft, name_rva, ft;
		struct pe_import_dll *d;
		const char *name;
		int r;
		if (!span_has(t, i * 20, 20))
			return fail(err, PE_ERR_CORRUPT,
				    "import directory at RVA 0x%x runs past the end of its section without a terminator", rva);
		oft = rd32(t, i * 20);
		name_rva = rd32(t, i * 20 + 12);
		ft = rd32(t, i * 20 + 16);
		if (!name_rva || !ft)
			return 0;
		if (i >= PE_MAX_IMPORT_DLLS)
			return fail(err, PE_ERR_CORRUPT, "more than %d import descriptors", PE_MAX_IMPORT_DLLS);
		snprintf(what, sizeof(what), "import descriptor %zu", i);
		r = rva_cstr(img, name_rva, &name);
		if (r)
			return cstr_fail(img, err, r, name_rva, strcat(what, ": name"));
		ALLOC_GROW(img->imports, img->nimports + 1, alloc);
		d = &img->imports[img->nimports++];
		memset(d, 0, sizeof(*d));
		d->dll = name;
		d->index = (uint32_t)i;
		snprintf(what, sizeof(what), "import descriptor %zu (%s)", i, name);
		if (read_thunks(img, d, what, oft ? oft : ft, 0, &total, err))
			return -1;
	}
}

static int parse_delay_imports(struct pe_image *img, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t rva = pv->dir_rva[DIR_DELAY_IMPORT];
	size_t alloc = 0, total = 0, i;
	struct span t;
	char why[96], what[PE_MAX_NAME + 64];

	if (!rva)
		return 0;
	if (rva_span(img, rva, 32, &t))
		return fail(err, PE_ERR_CORRUPT, "delay import directory RVA 0x%x %s", rva,
			    rva_why(img, rva, why, sizeof(why)));
	for (i = 0;; i++) {
		uint32_t attrs, name_ref, int_ref;
		uint32_t name_rva, int_rva;
		int va_based;
		struct pe_import_dll *d;
		const char *name;
		int r;
		if (!span_has(t, i * 32, 32))
			return fail(err, PE_ERR_CORRUPT,
				    "delay import directory at RVA 0x%x runs past the end of its section without a terminator",
				    rva);
		attrs = rd32(t, i * 32);
		name_ref = rd32(t, i * 32 + 4);
		int_ref = rd32(t, i * 32 + 16);
		if (!name_ref)
			return 0;
		if (i >= PE_MAX_IMPORT_DLLS)
			return fail(err, PE_ERR_CORRUPT, "more than %d delay import descriptors", PE_MAX_IMPORT_DLLS);
		va_based = !(attrs & 1);
		name_rva = name_ref;
		int_rva = int_ref;
		if (va_based) {
			/* VC6 format: 32-bit virtual addresses. */
			if (name_ref < img->image_base || (int_ref && int_ref < img->image_base))
				return fail(err, PE_ERR_CORRUPT,
					    "delay import descriptor %zu: old-format (VA) fields below the image base 0x%llx",
					    i, (unsigned long long)img->image_base);
			name_rva = (uint32_t)(name_ref - img->image_base);
			int_rva = int_ref ? (uint32_t)(int_ref - img->image_base) : 0;
		}
		snprintf(what, sizeof(what), "delay import descriptor %zu", i);
		r = rva_cstr(img, name_rva, &name);
		if (r)
			return cstr_fail(img, err, r, name_rva, strcat(what, ": name"));
		if (!int_rva)
			return fail(err, PE_ERR_CORRUPT, "delay import descriptor %zu (%s): no import name table", i, name);
		ALLOC_GROW(img->delay_imports, img->ndelay_imports + 1, alloc);
		d = &img->delay_imports[img->ndelay_imports++];
		memset(d, 0, sizeof(*d));
		d->dll = name;
		d->delay = 1;
		d->index = (uint32_t)i;
		snprintf(what, sizeof(what), "delay import descriptor %zu (%s)", i, name);
		if (read_thunks(img, d, what, int_rva, va_based, &total, err))
			return -1;
	}
}

/* ---- exports ---- */

static int export_table(struct pe_image *img, uint32_t rva, uint32_t n, size_t esz, const char *what,
			struct span *out, struct err *err)
{
	char why[96];
	if (!n) {
		*out = span_make(NULL, 0);
		return 0;
	}
	if (rva_span(img, rva, (size_t)n * esz, out))
		return fail(err, PE_ERR_CORRUPT, "export %s (%u entries at RVA 0x%x) %s", what, n, rva,
			    rva_why(img, rva, why, sizeof(why)));
	out->len = (size_t)n * esz;
	return 0;
}

static int parse_exports(struct pe_image *img, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t rva = pv->dir_rva[DIR_EXPORT], name_rva, nfuncs, nnames, afuncs, anames, aords;
	struct span d;
	char why[96];

	if (!rva)
		return 0;
	if (rva_span(img, rva, 40, &d))
		return fail(err, PE_ERR_CORRUPT, "export directory RVA 0x%x %s", rva, rva_why(img, rva, why, sizeof(why)));
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
		return fail(err, PE_ERR_CORRUPT, "export address table has %u entries (cap %d)", nfuncs, PE_MAX_EXPORTS);
	if (nnames > PE_MAX_EXPORTS)
		return fail(err, PE_ERR_CORRUPT, "export name table has %u entries (cap %d)", nnames, PE_MAX_EXPORTS);
	if (export_table(img, afuncs, nfuncs, 4, "address table", &pv->exp_addr, err) ||
	    export_table(img, anames, nnames, 4, "name pointer table", &pv->exp_names, err) ||
	    export_table(img, aords, nnames, 2, "ordinal table", &pv->exp_ords, err))
		return -1;
	if (name_rva) {
		int r = rva_cstr(img, name_rva, &img->export_dll_name);
		if (r)
			return cstr_fail(img, err, r, name_rva, "export directory: DLL name");
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
		int r = rva_cstr(img, rva, &out->forwarder);
		if (r) {
			snprintf(what, sizeof(what), "export ordinal %u: forwarder", out->ordinal);
			return cstr_fail(img, err, r, rva, what);
		}
	}
	return 0;
}

/* Name j of the name pointer table. */
static int export_name(const struct pe_image *img, uint32_t j, const char **name, struct err *err)
{
	uint32_t nrva;
	char what[64];
	int r;
	nrva = rd32(priv(img)->exp_names, (size_t)j * 4);
	r = rva_cstr(img, nrva, name);
	if (r) {
		snprintf(what, sizeof(what), "export name %u", j);
		return cstr_fail(img, err, r, nrva, what);
	}
	return 0;
}

static int export_name_index(const struct pe_image *img, uint32_t j, const char *name, uint32_t *idx,
			     struct err *err)
{
	uint16_t o;
	o = rd16(priv(img)->exp_ords, (size_t)j * 2);
	if (o >= img->export_count)
		return fail(err, PE_ERR_CORRUPT, "export name %u (%s): ordinal index %u beyond the address table (%u entries)",
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

	if (!img->has_exports || !img->export_name_count)
		return 0;
	hi = img->export_name_count;
	if (hint >= 0 && (uint32_t)hint < hi) {
		if (export_name(img, (uint32_t)hint, &cand, err))
			return with_path(img, err);
		if (!strcmp(cand, name)) {
			j = (uint32_t)hint;
			found = 1;
		}
	}
	while (!found && lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c;
		if (export_name(img, mid, &cand, err))
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

/* ---- load config ---- */

static int parse_load_config(struct pe_image *img, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t rva = pv->dir_rva[DIR_LOAD_CONFIG], size;
	size_t field = img->pe32plus ? 0x4e : 0x36;
	struct span s;
	char why[96];

	if (!rva)
		return 0;
	if (rva_span(img, rva, 4, &s))
		return fail(err, PE_ERR_CORRUPT, "load config directory RVA 0x%x %s", rva,
			    rva_why(img, rva, why, sizeof(why)));
	size = rd32(s, 0);
	if (size < field + 2)
		return 0; /* built before DependentLoadFlags existed */
	if (span_u16(s, field, &img->dependent_load_flags))
		return fail(err, PE_ERR_CORRUPT, "load config at RVA 0x%x: size %u runs past the end of its section",
			    rva, size);
	img->has_dependent_load_flags = 1;
	return 0;
}

/* ---- version resource ---- */

/* One resource directory: its entry count, checked to fit. */
static int res_dir(struct span rs, uint32_t off, uint32_t *n, struct err *err)
{
	uint16_t named, ids;
	if (span_u16(rs, (size_t)off + 12, &named) || span_u16(rs, (size_t)off + 14, &ids))
		return fail(err, PE_ERR_CORRUPT, "resource directory at offset 0x%x outside the resource section", off);
	*n = (uint32_t)named + ids;
	if (!span_has(rs, (size_t)off + 16, (size_t)*n * 8))
		return fail(err, PE_ERR_CORRUPT, "resource directory at offset 0x%x: %u entries run past the resource section",
			    off, *n);
	return 0;
}

/* Appends UTF-8 for UTF-16LE text at off until NUL or end (bytes), at most MAX_VERSION_STRING units. */
static void utf16_to_utf8(struct span s, size_t off, size_t end, struct strbuf *out)
{
	size_t n;
	if (end > s.len)
		end = s.len;
	if (off >= end)
		return;
	n = end - off;
	if (n > 2 * (size_t)MAX_VERSION_STRING)
		n = 2 * (size_t)MAX_VERSION_STRING;
	utf16le_to_utf8(out, s.p + off, n, UTF16_STOP_AT_NUL, NULL);
}

/* A VS_VERSIONINFO-style block: wLength, wValueLength, wType, szKey, padding, Value, padding, Children. */
struct vblock {
	size_t end;       /* one past the block, clamped to the parent */
	uint16_t vlen, type;
	size_t key_off;   /* UTF-16 key */
	size_t val_off;   /* start of Value (4-aligned) */
	size_t child_off; /* start of Children (4-aligned) */
};

static size_t align4(size_t v)
{
	return (v + 3) & ~(size_t)3;
}

/* 0 ok, 1 no block here (wLength 0: trailing padding), -1 malformed. */
static int vblock_read(struct span s, size_t off, size_t limit, struct vblock *b)
{
	uint16_t len, c = 1;
	size_t k, vbytes;
	if (span_u16(s, off, &len))
		return -1;
	if (len == 0)
		return 1;
	if (len < 6)
		return -1;
	b->end = len > limit - off ? limit : off + len;
	if (span_u16(s, off + 2, &b->vlen) || span_u16(s, off + 4, &b->type))
		return -1;
	b->key_off = off + 6;
	for (k = b->key_off; k + 2 <= b->end; k += 2) {
		c = rd16(s, k);
		if (!c)
			break;
	}
	if (c)
		return -1; /* key not terminated inside the block */
	b->val_off = align4(k + 2);
	if (b->val_off > b->end)
		b->val_off = b->end;
	vbytes = b->type == 1 ? (size_t)b->vlen * 2 : b->vlen;
	b->child_off = vbytes > b->end - b->val_off ? b->end : align4(b->val_off + vbytes);
	if (b->child_off > b->end)
		b->child_off = b->end;
	return 0;
}

static int vkey_is(struct span s, const struct vblock *b, const char *key)
{
	size_t i;
	for (i = 0;; i++) {
		uint16_t c;
		if (span_u16(s, b->key_off + 2 * i, &c))
			return 0;
		if (c != (unsigned char)key[i])
			return 0;
		if (!c)
			return 1;
	}
}

static void version_string(struct pe_image *img, struct span s, const struct vblock *str)
{
	static const char *const keys[] = { "FileVersion", "ProductVersion", "ProductName", "CompanyName",
					    "OriginalFilename", "FileDescription", "Comments" };
	const char **slots[7];
	size_t i;
	slots[0] = &img->version.file_version_str;
	slots[1] = &img->version.product_version_str;
	slots[2] = &img->version.product_name;
	slots[3] = &img->version.company_name;
	slots[4] = &img->version.original_filename;
	slots[5] = &img->version.file_description;
	slots[6] = &img->version.comments;
	for (i = 0; i < 7; i++) {
		if (!*slots[i] && vkey_is(s, str, keys[i])) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_init(&sb);
			utf16_to_utf8(s, str->val_off, str->end, &sb);
			*slots[i] = own(img, strbuf_detach(&sb));
		}
	}
}

static int parse_version_info(struct pe_image *img, struct span s, struct err *err)
{
	struct vblock root, sfi, tab, str;
	size_t off, off2, off3;
	unsigned nblocks = 0;
	uint32_t sigv, v[4];

	if (vblock_read(s, 0, s.len, &root) || !vkey_is(s, &root, "VS_VERSION_INFO"))
		return fail(err, PE_ERR_CORRUPT, "version resource: no VS_VERSION_INFO block");
	img->version.present = 1;
	if (root.vlen) {
		if (span_u32(s, root.val_off, &sigv) || root.val_off + 52 > root.end)
			return fail(err, PE_ERR_CORRUPT, "version resource: truncated VS_FIXEDFILEINFO");
		if (sigv != VS_FFI_SIGNATURE)
			return fail(err, PE_ERR_CORRUPT, "version resource: VS_FIXEDFILEINFO signature 0x%08x (expected 0x%08x)",
				    sigv, VS_FFI_SIGNATURE);
		v[0] = rd32(s, root.val_off + 8);
		v[1] = rd32(s, root.val_off + 12);
		v[2] = rd32(s, root.val_off + 16);
		v[3] = rd32(s, root.val_off + 20);
		img->version.file[0] = (uint16_t)(v[0] >> 16);
		img->version.file[1] = (uint16_t)v[0];
		img->version.file[2] = (uint16_t)(v[1] >> 16);
		img->version.file[3] = (uint16_t)v[1];
		img->version.product[0] = (uint16_t)(v[2] >> 16);
		img->version.product[1] = (uint16_t)v[2];
		img->version.product[2] = (uint16_t)(v[3] >> 16);
		img->version.product[3] = (uint16_t)v[3];
		img->version.has_fixed = 1;
	}
	/* StringFileInfo -> first StringTable -> String entries. Each step advances >= 8 bytes. */
	for (off = root.child_off; off + 6 <= root.end; off = align4(sfi.end)) {
		int r = vblock_read(s, off, root.end, &sfi);
		if (r || ++nblocks > MAX_VERSION_BLOCKS)
			break;
		if (!vkey_is(s, &sfi, "StringFileInfo"))
			continue;
		for (off2 = sfi.child_off; off2 + 6 <= sfi.end; off2 = align4(tab.end)) {
			if (vblock_read(s, off2, sfi.end, &tab) || ++nblocks > MAX_VERSION_BLOCKS)
				break;
			for (off3 = tab.child_off; off3 + 6 <= tab.end; off3 = align4(str.end)) {
				if (vblock_read(s, off3, tab.end, &str) || ++nblocks > MAX_VERSION_BLOCKS)
					break;
				version_string(img, s, &str);
			}
			return 0; /* the first string table only */
		}
	}
	return 0;
}

static int parse_version(struct pe_image *img, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t rva = pv->dir_rva[DIR_RESOURCE];
	uint32_t path[3], n = 0, i, off = 0, data_rva, data_size, ent;
	struct span rs, data;
	char why[96];
	int depth;

	if (!rva)
		return 0;
	if (rva_span(img, rva, 16, &rs))
		return fail(err, PE_ERR_CORRUPT, "resource directory RVA 0x%x %s", rva, rva_why(img, rva, why, sizeof(why)));
	/* Level 1: type RT_VERSION by ID; levels 2 and 3: the first name, the first language. */
	for (depth = 0; depth < 3; depth++) {
		uint32_t id, target;
		int d;
		path[depth] = off;
		if (res_dir(rs, off, &n, err))
			return -1;
		ent = 0;
		if (depth == 0) {
			for (i = 0; i < n; i++) {
				id = rd32(rs, (size_t)off + 16 + 8 * (size_t)i);
				if (!(id & 0x80000000u) && id == RT_VERSION)
					break;
			}
			if (i == n)
				return 0; /* no version resource */
			ent = i;
		} else if (!n) {
			return fail(err, PE_ERR_CORRUPT, "resource directory at offset 0x%x (RT_VERSION level %d) is empty",
				    off, depth + 1);
		}
		target = rd32(rs, (size_t)off + 16 + 8 * (size_t)ent + 4);
		if (depth < 2) {
			if (!(target & 0x80000000u))
				return fail(err, PE_ERR_CORRUPT,
					    "resource entry at level %d for RT_VERSION is data (expected a directory)", depth + 1);
			off = target & 0x7fffffffu;
			for (d = 0; d <= depth; d++)
				if (path[d] == off)
					return fail(err, PE_ERR_CORRUPT, "resource directory cycle at offset 0x%x", off);
		} else {
			if (target & 0x80000000u)
				return fail(err, PE_ERR_CORRUPT,
					    "resource entry at level 3 for RT_VERSION is a directory (too deep)");
			off = target;
		}
	}
	if (span_u32(rs, off, &data_rva) || span_u32(rs, (size_t)off + 4, &data_size))
		return fail(err, PE_ERR_CORRUPT, "resource data entry at offset 0x%x outside the resource section", off);
	if (rva_span(img, data_rva, data_size, &data))
		return fail(err, PE_ERR_CORRUPT, "version resource data (RVA 0x%x, %u bytes) %s", data_rva, data_size,
			    rva_why(img, data_rva, why, sizeof(why)));
	data.len = data_size;
	return parse_version_info(img, data, err);
}

/* ---- open / close ---- */

static void free_dlls(struct pe_import_dll *d, size_t n);

/*
 * Parses a part the loader does not read at load time. With PE_LENIENT a
 * failure empties that part, keeps its message in soft_error and lets
 * parsing go on; without it the failure stands.
 */
static int parse_soft(struct pe_image *img, unsigned what, int (*parse)(struct pe_image *, struct err *),
		      struct err *err)
{
	struct err local;
	if (!(what & PE_LENIENT))
		return parse(img, err);
	err_clear(&local);
	if (!parse(img, &local))
		return 0;
	if (!img->soft_error)
		img->soft_error = own(img, xasprintf("%s: %s", img->path, local.msg));
	if (parse == parse_delay_imports) {
		free_dlls(img->delay_imports, img->ndelay_imports);
		img->delay_imports = NULL;
		img->ndelay_imports = 0;
	} else {
		memset(&img->version, 0, sizeof(img->version));
	}
	return 0;
}

int pe_parse(struct pe_image **out, const void *data, size_t len, const char *name, unsigned what,
	     struct err *err)
{
	struct pe_image *img = xcalloc(1, sizeof(*img));
	struct pe_priv *pv = xcalloc(1, sizeof(*pv));

	*out = NULL;
	img->priv = pv;
	strlist_init(&pv->owned);
	img->path = own(img, xstrdup(name ? name : "(memory)"));
	img->file = span_make(data, len);
	if (parse_headers(img, err) ||
	    ((what & PE_IMPORTS) && parse_imports(img, err)) ||
	    ((what & PE_DELAY_IMPORTS) && parse_soft(img, what, parse_delay_imports, err)) ||
	    ((what & PE_EXPORTS) && parse_exports(img, err)) ||
	    ((what & PE_LOAD_CONFIG) && parse_load_config(img, err)) ||
	    ((what & PE_VERSION) && parse_soft(img, what, parse_version, err))) {
		if (err)
			err_prefix(err, "%s: ", img->path);
		pe_close(img);
		return -1;
	}
	*out = img;
	return 0;
}

int pe_open(struct pe_image **out, const char *path, unsigned what, struct err *err)
{
	struct os_map m;
	struct pe_priv *pv;

	*out = NULL;
	if (os_map_file(&m, path, err)) {
		if (err) {
			err_prefix(err, "%s: ", path);
			err->code = PE_ERR_IO;
		}
		return -1;
	}
	if (pe_parse(out, m.data, m.size, path, what, err)) {
		os_unmap(&m);
		return -1;
	}
	pv = priv(*out);
	pv->map = m;
	pv->mapped = 1;
	return 0;
}

static void free_dlls(struct pe_import_dll *d, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(d[i].funcs);
	free(d);
}

void pe_close(struct pe_image *img)
{
	struct pe_priv *pv;
	if (!img)
		return;
	pv = priv(img);
	free_dlls(img->imports, img->nimports);
	free_dlls(img->delay_imports, img->ndelay_imports);
	free(img->sections);
	if (pv) {
		free(pv->exports);
		strlist_release(&pv->owned);
		if (pv->mapped)
			os_unmap(&pv->map);
		free(pv);
	}
	free(img);
}

const char *pe_machine_name(uint16_t machine)
{
	static char buf[8][8];
	static unsigned next;
	char *b;
	switch (machine) {
	case PE_MACHINE_I386: return "x86";
	case PE_MACHINE_AMD64: return "x64";
	case PE_MACHINE_ARM64: return "arm64";
	case PE_MACHINE_ARM64EC: return "arm64ec";
	case PE_MACHINE_ARM64X: return "arm64x";
	case PE_MACHINE_ARMNT: return "arm";
	default: break;
	}
	/* A few rotating buffers keep the signature simple for callers that print two machines. */
	b = buf[next++ % 8];
	snprintf(b, sizeof(buf[0]), "0x%04x", machine);
	return b;
}

/*
 * [I] Which module machines a process can load: the same machine; on ARM64
 * hosts, ARM64X images serve both ARM64 and x64/ARM64EC processes and an
 * ARM64EC process also takes x64 modules (learn.microsoft.com "ARM64EC",
 * "ARM64X PE files"). ARM64EC images carry AMD64 in their header.
 */
int pe_machine_compatible(uint16_t proc, uint16_t dep)
{
	if (proc == dep)
		return 1;
	if (dep == PE_MACHINE_ARM64X)
		return proc == PE_MACHINE_ARM64 || proc == PE_MACHINE_AMD64 || proc == PE_MACHINE_ARM64EC;
	if (proc == PE_MACHINE_ARM64EC)
		return dep == PE_MACHINE_AMD64;
	return 0;
}
