/*
 * pe_read: the reads every part of the pe module makes through an RVA (the
 * module's bottom file; pe.h is its interface, pe_state.h what its files
 * share): an RVA mapped to file bytes by pe_layout_map (sections.h), a
 * NUL-terminated string inside one section, and the message saying why an
 * RVA cannot be read ("beyond the file data of section X", "outside any
 * section"); pe_fail fills a struct err. It reads no directory itself.
 */
#include "pe/pe.h"
#include "pe/pe_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pe_fail(struct err *err, int code, const char *fmt, ...)
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

const char *pe_own(struct pe_image *img, char *s)
{
	strlist_push_owned(&priv(img)->owned, s);
	return s;
}

static void sect_name(const struct pe_section *s, char *out, size_t n)
{
	snprintf(out, n, "%s", s->name);
}

/* The section's bytes in memory (sections.h). */
uint64_t pe_sect_vspan(const struct pe_image *img, const struct pe_section *s)
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
const char *pe_rva_why(const struct pe_image *img, uint32_t rva, char *buf, size_t n)
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
int pe_rva_span(const struct pe_image *img, uint32_t rva, size_t need, struct span *out)
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
int pe_rva_cstr(const struct pe_image *img, uint32_t rva, const char **str)
{
	struct span s;
	size_t len;
	if (pe_rva_span(img, rva, 1, &s))
		return -1;
	if (span_cstr(s, 0, PE_MAX_NAME, str, &len))
		return -2;
	return 0;
}

int pe_rva_cstr_memo(const struct pe_image *img, uint32_t rva, struct pe_rva_memo *m, const char **str)
{
	size_t off, avail, sec, len;
	if (m->lim && rva - m->rva0 < m->lim) {
		off = m->off0 + (rva - m->rva0);
		avail = m->end - off;
	} else {
		if (rva_map(img, rva, &off, &avail, &sec))
			return -1;
		if (priv(img)->lay.sorted && sec != (size_t)-1) {
			/* in a table that ascends without overlap, every RVA of this section's file data maps here */
			uint32_t delta = rva - img->sections[sec].vaddr;
			m->rva0 = img->sections[sec].vaddr;
			m->off0 = off - delta;
			m->end = off + avail;
			m->lim = (uint32_t)(m->end - m->off0);
		}
	}
	if (span_cstr(span_make(img->file.p + off, avail), 0, PE_MAX_NAME, str, &len))
		return -2;
	return 0;
}

/* The message for a failed rva_cstr. */
int pe_cstr_fail(const struct pe_image *img, struct err *err, int r, uint32_t rva, const char *what)
{
	char why[96];
	if (r == -2)
		return pe_fail(err, PE_ERR_CORRUPT, "%s at RVA 0x%x is not NUL-terminated within %d bytes",
			       what, rva, PE_MAX_NAME);
	return pe_fail(err, PE_ERR_CORRUPT, "%s RVA 0x%x %s", what, rva, pe_rva_why(img, rva, why, sizeof(why)));
}
