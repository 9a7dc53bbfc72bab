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
 *
 * Files: this one opens and closes an image and reads its headers, imports,
 * delay imports and load config; pe_exports.c the exports, pe_version.c
 * the version resource, pe_read.c the RVA reads all of them share, and
 * pe_state.h what the four share (struct pe_priv).
 */
#include "pe/pe.h"
#include "pe/pe_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

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
		return pe_fail(err, PE_ERR_EMPTY, "empty file (0 bytes)");
	if (span_u16(f, 0, &mz) || mz != 0x5a4d)
		return pe_fail(err, PE_ERR_NOT_PE, "not a PE file (no MZ signature)");
	if (span_u32(f, 0x3c, &lfanew))
		return pe_fail(err, PE_ERR_CORRUPT, "truncated DOS header (%zu bytes, need 64)", f.len);
	if (span_u32(f, lfanew, &sig))
		return pe_fail(err, PE_ERR_NOT_PE, "e_lfanew 0x%x points outside the file (%zu bytes)", lfanew, f.len);
	if (sig != 0x00004550)
		return pe_fail(err, PE_ERR_NOT_PE, "not a PE file (no PE signature at e_lfanew 0x%x)", lfanew);
	coff = (size_t)lfanew + 4;
	if (!span_has(f, coff, 20))
		return pe_fail(err, PE_ERR_CORRUPT, "truncated COFF header at 0x%zx", coff);
	img->machine = rd16(f, coff);
	nsec = rd16(f, coff + 2);
	opt_size = rd16(f, coff + 16);
	img->characteristics = rd16(f, coff + 18);
	if (nsec > PE_MAX_SECTIONS)
		return pe_fail(err, PE_ERR_CORRUPT, "section count %u exceeds the cap of %d", nsec, PE_MAX_SECTIONS);
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
		return pe_fail(err, PE_ERR_CORRUPT, "truncated optional header at 0x%zx", opt);
	if (magic == 0x20b)
		img->pe32plus = 1;
	else if (magic != 0x10b)
		return pe_fail(err, PE_ERR_CORRUPT, "unknown optional header magic 0x%04x", magic);
	dd = opt + (img->pe32plus ? 112 : 96);
	if (opt_size < dd - opt)
		return pe_fail(err, PE_ERR_CORRUPT, "optional header size %u is too small for %s (need %zu)",
			       opt_size, img->pe32plus ? "PE32+" : "PE32", dd - opt);
	if (!span_has(f, opt, dd - opt))
		return pe_fail(err, PE_ERR_CORRUPT, "truncated optional header at 0x%zx", opt);
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
		return pe_fail(err, PE_ERR_CORRUPT, "section alignment 0x%x is not a power of two", pv->lay.sect_align);
	if (!is_pow2(pv->lay.file_align))
		return pe_fail(err, PE_ERR_CORRUPT, "file alignment 0x%x is not a power of two", pv->lay.file_align);

	/* Directories past NumberOfRvaAndSizes or past the optional header are absent. */
	ndirs = pe_dir_count(ndirs, opt_size, (uint32_t)(dd - opt));
	for (i = 0; i < ndirs; i++) {
		if (span_u32(f, dd + 8 * i, &pv->dir_rva[i]) || span_u32(f, dd + 8 * i + 4, &pv->dir_size[i]))
			return pe_fail(err, PE_ERR_CORRUPT, "truncated data directory %u at 0x%zx", i, dd + 8 * i);
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
		return pe_fail(err, PE_ERR_CORRUPT, "section table (%u entries at 0x%zx) extends past the end of the file (%zu bytes)",
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
		vext = pe_sect_vspan(img, s);
		if ((uint64_t)s->vaddr + vext > 0xffffffffull)
			return pe_fail(err, PE_ERR_CORRUPT, "section %u (%s): virtual range 0x%x+0x%x overflows 32 bits",
				       i, s->name, s->vaddr, s->vsize);
		if (s->raw_size) {
			uint64_t end = (uint64_t)s->raw_off + s->raw_size;
			if (end > f.len)
				return pe_fail(err, PE_ERR_CORRUPT,
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
		return pe_fail(err, PE_ERR_CORRUPT,
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

	if (pe_rva_span(img, rva, tsz, &t))
		return pe_fail(err, PE_ERR_CORRUPT, "%s: thunk table RVA 0x%x %s", what, rva,
			       pe_rva_why(img, rva, why, sizeof(why)));
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
			return pe_fail(err, PE_ERR_CORRUPT, "%s: more than %d imported functions", what,
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
					return pe_fail(err, PE_ERR_CORRUPT, "%s: function %zu: name VA 0x%llx outside the image",
						       what, i, (unsigned long long)v);
				v -= img->image_base;
			}
			nrva = (uint32_t)v; /* the loader keeps the low 32 bits */
			if (pe_rva_span(img, nrva, 2, &h))
				return pe_fail(err, PE_ERR_CORRUPT, "%s: function %zu: name RVA 0x%x %s", what, i, nrva,
					       pe_rva_why(img, nrva, why, sizeof(why)));
			fn->hint = rd16(h, 0);
			if (span_cstr(h, 2, PE_MAX_NAME, &name, &len))
				return pe_fail(err, PE_ERR_CORRUPT,
					       "%s: function %zu: name at RVA 0x%x is not NUL-terminated within %d bytes",
					       what, i, nrva, PE_MAX_NAME);
			fn->name = name;
		}
	}
	return pe_fail(err, PE_ERR_CORRUPT, "%s: thunk table at RVA 0x%x runs past the end of its section", what, rva);
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
	if (pe_rva_span(img, rva, 20, &t))
		return pe_fail(err, PE_ERR_CORRUPT, "import directory RVA 0x%x %s", rva, pe_rva_why(img, rva, why, sizeof(why)));
	for (i = 0;; i++) {
		uint32_t oft, name_rva, ft;
		struct pe_import_dll *d;
		const char *name;
		int r;
		if (!span_has(t, i * 20, 20))
			return pe_fail(err, PE_ERR_CORRUPT,
				       "import directory at RVA 0x%x runs past the end of its section without a terminator", rva);
		oft = rd32(t, i * 20);
		name_rva = rd32(t, i * 20 + 12);
		ft = rd32(t, i * 20 + 16);
		if (!name_rva || !ft)
			return 0;
		if (i >= PE_MAX_IMPORT_DLLS)
			return pe_fail(err, PE_ERR_CORRUPT, "more than %d import descriptors", PE_MAX_IMPORT_DLLS);
		snprintf(what, sizeof(what), "import descriptor %zu", i);
		r = pe_rva_cstr(img, name_rva, &name);
		if (r)
			return pe_cstr_fail(img, err, r, name_rva, strcat(what, ": name"));
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
	if (pe_rva_span(img, rva, 32, &t))
		return pe_fail(err, PE_ERR_CORRUPT, "delay import directory RVA 0x%x %s", rva,
			       pe_rva_why(img, rva, why, sizeof(why)));
	for (i = 0;; i++) {
		uint32_t attrs, name_ref, int_ref;
		uint32_t name_rva, int_rva;
		int va_based;
		struct pe_import_dll *d;
		const char *name;
		int r;
		if (!span_has(t, i * 32, 32))
			return pe_fail(err, PE_ERR_CORRUPT,
				       "delay import directory at RVA 0x%x runs past the end of its section without a terminator",
				       rva);
		attrs = rd32(t, i * 32);
		name_ref = rd32(t, i * 32 + 4);
		int_ref = rd32(t, i * 32 + 16);
		if (!name_ref)
			return 0;
		if (i >= PE_MAX_IMPORT_DLLS)
			return pe_fail(err, PE_ERR_CORRUPT, "more than %d delay import descriptors", PE_MAX_IMPORT_DLLS);
		va_based = !(attrs & 1);
		name_rva = name_ref;
		int_rva = int_ref;
		if (va_based) {
			/* VC6 format: 32-bit virtual addresses. */
			if (name_ref < img->image_base || (int_ref && int_ref < img->image_base))
				return pe_fail(err, PE_ERR_CORRUPT,
					       "delay import descriptor %zu: old-format (VA) fields below the image base 0x%llx",
					       i, (unsigned long long)img->image_base);
			name_rva = (uint32_t)(name_ref - img->image_base);
			int_rva = int_ref ? (uint32_t)(int_ref - img->image_base) : 0;
		}
		snprintf(what, sizeof(what), "delay import descriptor %zu", i);
		r = pe_rva_cstr(img, name_rva, &name);
		if (r)
			return pe_cstr_fail(img, err, r, name_rva, strcat(what, ": name"));
		if (!int_rva)
			return pe_fail(err, PE_ERR_CORRUPT, "delay import descriptor %zu (%s): no import name table", i, name);
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
	if (pe_rva_span(img, rva, 4, &s))
		return pe_fail(err, PE_ERR_CORRUPT, "load config directory RVA 0x%x %s", rva,
			       pe_rva_why(img, rva, why, sizeof(why)));
	size = rd32(s, 0);
	if (size < field + 2)
		return 0; /* built before DependentLoadFlags existed */
	if (span_u16(s, field, &img->dependent_load_flags))
		return pe_fail(err, PE_ERR_CORRUPT, "load config at RVA 0x%x: size %u runs past the end of its section",
			       rva, size);
	img->has_dependent_load_flags = 1;
	return 0;
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
		img->soft_error = pe_own(img, xasprintf("%s: %s", img->path, local.msg));
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
	img->path = pe_own(img, xstrdup(name ? name : "(memory)"));
	img->file = span_make(data, len);
	if (parse_headers(img, err) ||
	    ((what & PE_IMPORTS) && parse_imports(img, err)) ||
	    ((what & PE_DELAY_IMPORTS) && parse_soft(img, what, parse_delay_imports, err)) ||
	    ((what & PE_EXPORTS) && pe_parse_exports(img, err)) ||
	    ((what & PE_LOAD_CONFIG) && parse_load_config(img, err)) ||
	    ((what & PE_VERSION) && parse_soft(img, what, pe_parse_version, err))) {
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
