/*
 * peek: a PE image's imported DLL names from a few positioned reads (see
 * peek.h). The header and section checks are pe.c's (parse_coff,
 * parse_optional, parse_sections): keep the two in step. The RVA mapping is
 * not a copy: both go through sections.h's pe_layout_map.
 */
#include "pe/peek.h"

#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"
#include "pe/sections.h"
#include "util/os.h"
#include "util/strbuf.h"

#define BLK 4096u
#define NBLK 4
#define DIR_IMPORT 1
#define DIR_DELAY_IMPORT 13

struct blk {
	uint64_t off;
	size_t len;
	int valid;
	unsigned char d[BLK];
};

struct peek {
	const struct pe_peek_src *src;
	struct blk b[NBLK];
	unsigned next; /* the block to reuse next */
	int pe32plus;
	uint64_t image_base;
	uint32_t dir_rva[PE_NUM_DIRS];
	struct pe_section s[PEEK_MAX_SECTIONS];
	struct pe_layout lay; /* over s[] */
};

/* The n bytes at off, all of them inside the file: 0, else -1. */
static int rd(struct peek *pk, uint64_t off, void *out, size_t n)
{
	unsigned char *o = out;
	if (off > pk->src->size || n > pk->src->size - off)
		return -1;
	while (n) {
		uint64_t base = off / BLK * BLK;
		size_t at = (size_t)(off - base), k, take;
		struct blk *b = NULL;
		for (k = 0; k < NBLK; k++)
			if (pk->b[k].valid && pk->b[k].off == base) {
				b = &pk->b[k];
				break;
			}
		if (!b) {
			b = &pk->b[pk->next];
			pk->next = (pk->next + 1) % NBLK;
			b->valid = 0;
			if (pk->src->read(pk->src->ctx, base, b->d, BLK, &b->len))
				return -1;
			b->off = base;
			b->valid = 1;
		}
		if (at >= b->len)
			return -1;
		take = b->len - at < n ? b->len - at : n;
		memcpy(o, b->d + at, take);
		o += take;
		off += take;
		n -= take;
	}
	return 0;
}

static int u16(struct peek *pk, uint64_t off, uint16_t *v)
{
	unsigned char b[2];
	if (rd(pk, off, b, 2))
		return -1;
	*v = (uint16_t)(b[0] | b[1] << 8);
	return 0;
}

static int u32(struct peek *pk, uint64_t off, uint32_t *v)
{
	unsigned char b[4];
	if (rd(pk, off, b, 4))
		return -1;
	*v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* pe.c's parse_headers: the same checks; -1 where pe_open would refuse, or where peek does not go (sections). */
static int headers(struct peek *pk)
{
	uint64_t flen = pk->src->size, raw_end = 0;
	uint32_t lfanew, sig, ndirs, i;
	uint16_t mz, nsec, opt_size, magic;
	uint64_t coff, opt, dd, tab;
	unsigned char e[40];
	if (!flen || u16(pk, 0, &mz) || mz != 0x5a4d || u32(pk, 0x3c, &lfanew) || u32(pk, lfanew, &sig) ||
	    sig != 0x00004550)
		return -1;
	coff = (uint64_t)lfanew + 4;
	if (rd(pk, coff, e, 20))
		return -1;
	nsec = (uint16_t)(e[2] | e[3] << 8);
	opt_size = (uint16_t)(e[16] | e[17] << 8);
	if (nsec > PEEK_MAX_SECTIONS)
		return -1;
	opt = coff + 20;
	if (u16(pk, opt, &magic))
		return -1;
	if (magic == 0x20b)
		pk->pe32plus = 1;
	else if (magic != 0x10b)
		return -1;
	dd = opt + (pk->pe32plus ? 112 : 96);
	if (opt_size < dd - opt)
		return -1;
	{
		unsigned char h[112];
		if (rd(pk, opt, h, (size_t)(dd - opt)))
			return -1;
		if (pk->pe32plus)
			pk->image_base = (uint64_t)le32(h + 24) | (uint64_t)le32(h + 28) << 32;
		else
			pk->image_base = le32(h + 28);
		pk->lay.sect_align = le32(h + 32);
		pk->lay.file_align = le32(h + 36);
		pk->lay.size_of_headers = le32(h + 60);
		ndirs = le32(h + (dd - opt) - 4);
	}
	if (!is_pow2(pk->lay.sect_align) || !is_pow2(pk->lay.file_align))
		return -1;
	ndirs = pe_dir_count(ndirs, opt_size, (uint32_t)(dd - opt));
	for (i = 0; i < ndirs; i++) {
		uint32_t size;
		if (u32(pk, dd + 8 * i, &pk->dir_rva[i]) || u32(pk, dd + 8 * i + 4, &size))
			return -1;
	}
	tab = opt + opt_size;
	if (tab > flen || (uint64_t)nsec * 40 > flen - tab)
		return -1;
	for (i = 0; i < nsec; i++) {
		struct pe_section *s = &pk->s[i];
		if (rd(pk, tab + 40 * (uint64_t)i, e, 40))
			return -1;
		s->vsize = le32(e + 8);
		s->vaddr = le32(e + 12);
		s->raw_size = le32(e + 16);
		s->raw_off = le32(e + 20);
		if ((uint64_t)s->vaddr + pe_section_vspan(s, pk->lay.sect_align) > 0xffffffffull)
			return -1;
		if (s->raw_size) {
			uint64_t end = (uint64_t)s->raw_off + s->raw_size;
			if (end > flen)
				return -1;
			if (end > raw_end)
				raw_end = end;
		}
	}
	pk->lay.sections = pk->s;
	pk->lay.nsections = nsec;
	pk->lay.file_len = flen;
	pk->lay.sorted = pe_layout_sorted(&pk->lay);
	return 0;
}

/* The file offset of an RVA and the bytes to the end of its section's file data (pe.c's rule, sections.h). */
static int rva_map(const struct peek *pk, uint32_t rva, uint64_t *off, uint64_t *avail)
{
	return pe_layout_map(&pk->lay, rva, off, avail, NULL) ? -1 : 0;
}

/* The NUL-terminated name at an RVA, inside its section, at most PEEK_MAX_NAME bytes. */
static int name_at(struct peek *pk, uint32_t rva, char out[PEEK_MAX_NAME + 1])
{
	uint64_t off, avail;
	size_t n, i;
	if (rva_map(pk, rva, &off, &avail))
		return -1;
	n = avail < PEEK_MAX_NAME + 1 ? (size_t)avail : PEEK_MAX_NAME + 1;
	for (i = 0; i < n; i++) {
		if (rd(pk, off + i, out + i, 1))
			return -1;
		if (!out[i])
			return 0;
	}
	return -1;
}

static int imports(struct peek *pk, pe_peek_fn fn, void *ctx)
{
	uint32_t rva = pk->dir_rva[DIR_IMPORT];
	uint64_t off, avail, i;
	char name[PEEK_MAX_NAME + 1];
	if (!rva)
		return 0;
	if (rva_map(pk, rva, &off, &avail) || avail < 20)
		return -1;
	for (i = 0;; i++) {
		unsigned char d[20];
		uint32_t name_rva, ft;
		if ((i + 1) * 20 > avail || rd(pk, off + i * 20, d, 20))
			return -1;
		name_rva = le32(d + 12);
		ft = le32(d + 16);
		if (!name_rva || !ft)
			return 0;
		if (i >= PE_MAX_IMPORT_DLLS || name_at(pk, name_rva, name))
			return -1;
		if (fn(ctx, name, 0))
			return 1;
	}
}

static int delay_imports(struct peek *pk, pe_peek_fn fn, void *ctx)
{
	uint32_t rva = pk->dir_rva[DIR_DELAY_IMPORT];
	uint64_t off, avail, i;
	char name[PEEK_MAX_NAME + 1];
	if (!rva)
		return 0;
	if (rva_map(pk, rva, &off, &avail) || avail < 32)
		return -1;
	for (i = 0;; i++) {
		unsigned char d[32];
		uint32_t attrs, name_ref, int_ref, name_rva;
		if ((i + 1) * 32 > avail || rd(pk, off + i * 32, d, 32))
			return -1;
		attrs = le32(d);
		name_ref = le32(d + 4);
		int_ref = le32(d + 16);
		if (!name_ref)
			return 0;
		if (i >= PE_MAX_IMPORT_DLLS)
			return -1;
		name_rva = name_ref;
		if (!(attrs & 1)) {
			/* VC6 format: 32-bit virtual addresses */
			if (name_ref < pk->image_base || (int_ref && int_ref < pk->image_base))
				return -1;
			name_rva = (uint32_t)(name_ref - pk->image_base);
			int_ref = int_ref ? (uint32_t)(int_ref - pk->image_base) : 0;
		}
		if (!int_ref || name_at(pk, name_rva, name))
			return -1;
		if (fn(ctx, name, 1))
			return 1;
	}
}

int pe_peek_imports_src(const struct pe_peek_src *src, unsigned what, pe_peek_fn fn, void *ctx)
{
	/* not calloc: zeroing the 16 KiB of block buffers cost more than the reads (a peek per binary) */
	struct peek *pk = xmalloc(sizeof(*pk));
	unsigned k;
	int r;
	for (k = 0; k < NBLK; k++)
		pk->b[k].valid = 0;
	pk->next = 0;
	pk->pe32plus = 0;
	pk->image_base = 0;
	memset(pk->dir_rva, 0, sizeof(pk->dir_rva));
	memset(&pk->lay, 0, sizeof(pk->lay));
	pk->src = src;
	r = headers(pk);
	if (!r && (what & PE_IMPORTS))
		r = imports(pk, fn, ctx);
	if (!r && (what & PE_DELAY_IMPORTS))
		r = delay_imports(pk, fn, ctx);
	free(pk);
	return r;
}

static int file_read(void *ctx, uint64_t off, void *buf, size_t n, size_t *got)
{
	return os_pread(ctx, buf, n, off, got, NULL);
}

int pe_peek_imports(const char *path, unsigned what, pe_peek_fn fn, void *ctx)
{
	struct os_file f;
	struct pe_peek_src src;
	int r;
	if (os_open_read(&f, path, NULL))
		return -1;
	src.read = file_read;
	src.ctx = &f;
	src.size = f.size;
	r = pe_peek_imports_src(&src, what, fn, ctx);
	os_close_file(&f);
	return r;
}

struct mem {
	const unsigned char *p;
	size_t len;
};

static int mem_read(void *ctx, uint64_t off, void *buf, size_t n, size_t *got)
{
	const struct mem *m = ctx;
	size_t k = off >= m->len ? 0 : (m->len - (size_t)off < n ? m->len - (size_t)off : n);
	if (k)
		memcpy(buf, m->p + off, k);
	*got = k;
	return 0;
}

int pe_peek_imports_mem(const void *data, size_t len, unsigned what, pe_peek_fn fn, void *ctx)
{
	struct mem m;
	struct pe_peek_src src;
	m.p = data;
	m.len = len;
	src.read = mem_read;
	src.ctx = &m;
	src.size = len;
	return pe_peek_imports_src(&src, what, fn, ctx);
}
