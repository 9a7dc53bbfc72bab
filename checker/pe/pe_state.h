/*
 * pe_state: the private half of the pe module (pe.h), shared by its four
 * files and by no one else: what an open image keeps besides struct
 * pe_image (struct pe_priv: the mapping, the section layout, the data
 * directories, the export tables checked at open), the bounded reads, and
 * the functions one file of the module offers the others.
 *
 * pe_read.c maps RVAs and reads strings and says why one cannot be read;
 * pe_exports.c and pe_version.c read their parts with it; pe.c opens an
 * image (headers, imports, load config) and calls both. Nothing here calls
 * back up that order. A .c file includes pe/pe.h first and this file after
 * it.
 */
#ifndef TDC_PE_STATE_H
#define TDC_PE_STATE_H

/* after pe/pe.h (struct pe_image, struct span, sections.h), which this file does not include: pe.h's module is this one's user */
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/os.h"
#include "util/strbuf.h"

#define DIR_EXPORT 0
#define DIR_IMPORT 1
#define DIR_RESOURCE 2
#define DIR_LOAD_CONFIG 10
#define DIR_DELAY_IMPORT 13

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
static inline uint8_t rd8(struct span s, size_t off)
{
	uint8_t v = 0;
	return span_u8(s, off, &v) ? 0 : v;
}

static inline uint16_t rd16(struct span s, size_t off)
{
	uint16_t v = 0;
	return span_u16(s, off, &v) ? 0 : v;
}

static inline uint32_t rd32(struct span s, size_t off)
{
	uint32_t v = 0;
	return span_u32(s, off, &v) ? 0 : v;
}

static inline uint64_t rd64(struct span s, size_t off)
{
	uint64_t v = 0;
	return span_u64(s, off, &v) ? 0 : v;
}

static inline struct pe_priv *priv(const struct pe_image *img)
{
	return (struct pe_priv *)img->priv;
}

/* pe_read.c: sets err (code and printf-formatted message; err may be NULL) and returns -1. */
int pe_fail(struct err *err, int code, const char *fmt, ...) ERR_PRINTF(3, 4);
/* Hands s (malloc'd) to the image, which frees it at pe_close; returns s. */
const char *pe_own(struct pe_image *img, char *s);
/* The section's bytes in memory (sections.h). */
uint64_t pe_sect_vspan(const struct pe_image *img, const struct pe_section *s);
/* Why an RVA cannot be read, for messages (into buf). */
const char *pe_rva_why(const struct pe_image *img, uint32_t rva, char *buf, size_t n);
/* The file bytes at an RVA, at least `need` of them, up to the end of the section. */
int pe_rva_span(const struct pe_image *img, uint32_t rva, size_t need, struct span *out);
/* A NUL-terminated string at an RVA inside one section: 0, -1 (unmapped) or -2 (no NUL). */
int pe_rva_cstr(const struct pe_image *img, uint32_t rva, const char **str);
/*
 * pe_rva_cstr for a run of RVAs that mostly fall in one section (an export
 * search's names): *m (zeroed before the first call) remembers the last
 * section's mapped range, so the section table is searched only when an RVA
 * falls outside it. The same results as pe_rva_cstr: the range is used only
 * when the sections ascend without overlap, where it is the section any
 * search would find.
 */
struct pe_rva_memo {
	uint32_t rva0, lim; /* RVAs rva0 .. rva0 + lim - 1 map to off0 + (rva - rva0); lim 0: nothing yet */
	size_t off0, end;   /* end: the end of the section's file data (pe_layout_map's avail) */
};
int pe_rva_cstr_memo(const struct pe_image *img, uint32_t rva, struct pe_rva_memo *m, const char **str);
/* The message for a failed pe_rva_cstr (r its result); returns -1. */
int pe_cstr_fail(const struct pe_image *img, struct err *err, int r, uint32_t rva, const char *what);

/* pe_exports.c: checks the export directory's header and tables at open (lookups are lazy). */
int pe_parse_exports(struct pe_image *img, struct err *err);
/* pe_version.c: reads RT_VERSION's VS_VERSIONINFO into img->version. */
int pe_parse_version(struct pe_image *img, struct err *err);

#endif
