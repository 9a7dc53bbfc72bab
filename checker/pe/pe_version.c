/*
 * pe_version: VS_VERSIONINFO from the resource tree (pe.c's design
 * comment, "Resources"): RT_VERSION / first name / first language, the
 * VS_FIXEDFILEINFO numbers and the first string table's strings (UTF-16
 * converted to UTF-8, owned by the image). Children whose wLength overruns
 * their parent are clamped to it; the root's key, the fixed info's
 * signature and the resource directories themselves are checked.
 */
#include "pe/pe.h"
#include "pe/pe_state.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/utf.h"

#define RT_VERSION 16
#define VS_FFI_SIGNATURE 0xfeef04bdu
#define MAX_VERSION_BLOCKS 4096
#define MAX_VERSION_STRING 4096

/* ---- version resource ---- */

/* One resource directory: its entry count, checked to fit. */
static int res_dir(struct span rs, uint32_t off, uint32_t *n, struct err *err)
{
	uint16_t named, ids;
	if (span_u16(rs, (size_t)off + 12, &named) || span_u16(rs, (size_t)off + 14, &ids))
		return pe_fail(err, PE_ERR_CORRUPT, "resource directory at offset 0x%x outside the resource section", off);
	*n = (uint32_t)named + ids;
	if (!span_has(rs, (size_t)off + 16, (size_t)*n * 8))
		return pe_fail(err, PE_ERR_CORRUPT, "resource directory at offset 0x%x: %u entries run past the resource section",
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
			*slots[i] = pe_own(img, strbuf_detach(&sb));
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
		return pe_fail(err, PE_ERR_CORRUPT, "version resource: no VS_VERSION_INFO block");
	img->version.present = 1;
	if (root.vlen) {
		if (span_u32(s, root.val_off, &sigv) || root.val_off + 52 > root.end)
			return pe_fail(err, PE_ERR_CORRUPT, "version resource: truncated VS_FIXEDFILEINFO");
		if (sigv != VS_FFI_SIGNATURE)
			return pe_fail(err, PE_ERR_CORRUPT, "version resource: VS_FIXEDFILEINFO signature 0x%08x (expected 0x%08x)",
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

int pe_parse_version(struct pe_image *img, struct err *err)
{
	struct pe_priv *pv = priv(img);
	uint32_t rva = pv->dir_rva[DIR_RESOURCE];
	uint32_t path[3], n = 0, i, off = 0, data_rva, data_size, ent;
	struct span rs, data;
	char why[96];
	int depth;

	if (!rva)
		return 0;
	if (pe_rva_span(img, rva, 16, &rs))
		return pe_fail(err, PE_ERR_CORRUPT, "resource directory RVA 0x%x %s", rva, pe_rva_why(img, rva, why, sizeof(why)));
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
			return pe_fail(err, PE_ERR_CORRUPT, "resource directory at offset 0x%x (RT_VERSION level %d) is empty",
				       off, depth + 1);
		}
		target = rd32(rs, (size_t)off + 16 + 8 * (size_t)ent + 4);
		if (depth < 2) {
			if (!(target & 0x80000000u))
				return pe_fail(err, PE_ERR_CORRUPT,
					       "resource entry at level %d for RT_VERSION is data (expected a directory)", depth + 1);
			off = target & 0x7fffffffu;
			for (d = 0; d <= depth; d++)
				if (path[d] == off)
					return pe_fail(err, PE_ERR_CORRUPT, "resource directory cycle at offset 0x%x", off);
		} else {
			if (target & 0x80000000u)
				return pe_fail(err, PE_ERR_CORRUPT,
					       "resource entry at level 3 for RT_VERSION is a directory (too deep)");
			off = target;
		}
	}
	if (span_u32(rs, off, &data_rva) || span_u32(rs, (size_t)off + 4, &data_size))
		return pe_fail(err, PE_ERR_CORRUPT, "resource data entry at offset 0x%x outside the resource section", off);
	if (pe_rva_span(img, data_rva, data_size, &data))
		return pe_fail(err, PE_ERR_CORRUPT, "version resource data (RVA 0x%x, %u bytes) %s", data_rva, data_size,
			       pe_rva_why(img, data_rva, why, sizeof(why)));
	data.len = data_size;
	return parse_version_info(img, data, err);
}
