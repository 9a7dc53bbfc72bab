/*
 * fuzz_hive_cells: regf hives whose key and value cells the input wires
 * together, so that subkey lists loop back to their ancestors and keys share
 * value lists, value cells and data cells far more often than random bytes
 * would manage (fuzz_hive starts from bytes; libhivex refuses most of them
 * before any list is followed). The hive is the one tests/inventory/
 * hostile_hive.py writes (regf 1.5, one hive bin; format: "Windows registry
 * file format specification", github.com/msuhanov/regf): ROOT\Python\Loop
 * with up to 32 keys. Input bytes, in turn: the number of keys; per key, the
 * size of its value; then per key, the key whose subkey list it takes (a
 * loop) or none, the key whose value cell its value list names (or its own)
 * and how many times the list names it; each read with a default when the
 * input ends. Every hive must be read or refused as corrupt, in CPU and heap
 * bounded by its size (oracle.h); a refusal must name the file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/regfile.h"
#include "machine/registry.h"
#include "machine/view.h"
#include "util/strbuf.h"

#include "oracle.h"

#define MAXK 32
#define BASE 0x20u

struct gen {
	struct strbuf cells; /* the hive bin's cells after its 32-byte header */
	const uint8_t *in;
	size_t n, at;
};

static unsigned next(struct gen *g, unsigned dflt)
{
	return g->at < g->n ? g->in[g->at++] : dflt;
}

static uint32_t alloc(struct gen *g, const void *payload, size_t len)
{
	size_t size = (4 + len + 7) / 8 * 8;
	uint32_t off = BASE + (uint32_t)g->cells.len;
	int32_t neg = -(int32_t)size;
	strbuf_add(&g->cells, &neg, 4);
	strbuf_add(&g->cells, payload, len);
	while (g->cells.len < off - BASE + size)
		strbuf_addch(&g->cells, 0);
	return off;
}

static void put32(struct gen *g, uint32_t cell, size_t at, uint32_t v)
{
	memcpy(g->cells.buf + (cell - BASE) + 4 + at, &v, 4);
}

static uint32_t nk(struct gen *g, const char *name, uint32_t parent, uint16_t flags)
{
	unsigned char b[0x4c + 16];
	size_t len = strlen(name);
	memset(b, 0, sizeof(b));
	memcpy(b, "nk", 2);
	memcpy(b + 2, &flags, 2);
	memcpy(b + 0x10, &parent, 4);
	memset(b + 0x1c, 0xff, 8);  /* no subkey lists */
	memset(b + 0x28, 0xff, 12); /* no values, security or class yet */
	b[0x48] = (unsigned char)len;
	memcpy(b + 0x4c, name, len);
	return alloc(g, b, 0x4c + len);
}

static uint32_t li(struct gen *g, const uint32_t *offs, unsigned n)
{
	unsigned char b[4 + 4 * MAXK];
	uint16_t c = (uint16_t)n;
	memcpy(b, "li", 2);
	memcpy(b + 2, &c, 2);
	memcpy(b + 4, offs, 4 * n);
	return alloc(g, b, 4 + 4 * n);
}

static uint32_t vk(struct gen *g, uint32_t data, uint32_t len)
{
	unsigned char b[20 + 1];
	uint16_t nl = 1, fl = 1;
	uint32_t type = 3;
	memcpy(b, "vk", 2);
	memcpy(b + 2, &nl, 2);
	memcpy(b + 4, &len, 4);
	memcpy(b + 8, &data, 4);
	memcpy(b + 12, &type, 4);
	memcpy(b + 16, &fl, 2);
	memset(b + 18, 0, 2);
	b[20] = 'V';
	return alloc(g, b, sizeof(b));
}

static void build(struct gen *g, struct strbuf *file)
{
	static const unsigned char sd[20] = { 1, 0, 0, 0x80 };
	uint32_t root, py, loop, sk, kids[MAXK], lists[MAXK], vks[MAXK], kl, total, sum = 0;
	unsigned nkeys = next(g, 4) % MAXK + 1, i;
	unsigned char base[4096], sk_payload[20 + sizeof(sd)];
	char name[8];
	root = nk(g, "ROOT", 0xffffffffu, 0x2c);
	memset(sk_payload, 0, sizeof(sk_payload));
	memcpy(sk_payload, "sk", 2);
	memcpy(sk_payload + 20, sd, sizeof(sd));
	sk_payload[16] = sizeof(sd);
	sk = alloc(g, sk_payload, sizeof(sk_payload));
	put32(g, sk, 4, sk);
	put32(g, sk, 8, sk);
	put32(g, sk, 12, nkeys + 3);
	py = nk(g, "Python", root, 0x20);
	loop = nk(g, "Loop", py, 0x20);
	for (i = 0; i < nkeys; i++) {
		snprintf(name, sizeof(name), "K%u", i);
		kids[i] = nk(g, name, loop, 0x20);
	}
	kl = li(g, kids, nkeys);
	put32(g, root, 0x14, 1);
	put32(g, root, 0x1c, li(g, &py, 1));
	put32(g, py, 0x14, 1);
	put32(g, py, 0x1c, li(g, &loop, 1));
	put32(g, loop, 0x14, nkeys);
	put32(g, loop, 0x1c, kl);
	for (i = 0; i < nkeys; i++) {
		unsigned len = next(g, 8) * 64u; /* up to 16 KiB of data */
		struct strbuf data = STRBUF_INIT;
		uint32_t d;
		strbuf_grow(&data, len);
		memset(data.buf, 'A' + (int)(i % 26), len);
		d = alloc(g, data.buf, len);
		strbuf_release(&data);
		vks[i] = vk(g, d, len);
		lists[i] = kl;
	}
	for (i = 0; i < nkeys; i++) {
		unsigned s = next(g, 255), v = next(g, 255), cnt = next(g, 0) % MAXK + 1, j;
		uint32_t refs[MAXK];
		put32(g, kids[i], 0x2c, sk);
		put32(g, root, 0x2c, sk);
		put32(g, py, 0x2c, sk);
		put32(g, loop, 0x2c, sk);
		if (s < nkeys) { /* its subkeys: Loop's own list (a loop) */
			put32(g, kids[i], 0x14, nkeys);
			put32(g, kids[i], 0x1c, lists[s]);
		}
		/* its value list: cnt references to its own value cell, or to another key's */
		for (j = 0; j < cnt; j++)
			refs[j] = vks[v < nkeys ? v : i];
		put32(g, kids[i], 0x24, cnt);
		put32(g, kids[i], 0x28, alloc(g, refs, 4 * cnt));
	}
	total = (uint32_t)((BASE + g->cells.len + 8 + 4095) / 4096 * 4096);
	memset(base, 0, sizeof(base));
	memcpy(base, "regf", 4);
	{
		uint32_t hdr[] = { 1, 1 };
		uint32_t rest[] = { 1, 5, 0, 1, root, total, 1 };
		memcpy(base + 4, hdr, 8);
		memcpy(base + 20, rest, sizeof(rest));
	}
	for (i = 0; i < 508; i += 4) {
		uint32_t w;
		memcpy(&w, base + i, 4);
		sum ^= w;
	}
	sum = sum == 0 ? 1 : sum == 0xffffffffu ? 0xfffffffeu : sum;
	memcpy(base + 508, &sum, 4);
	strbuf_add(file, base, sizeof(base));
	{
		unsigned char h[32];
		uint32_t free_size = (uint32_t)(total - BASE - g->cells.len);
		memset(h, 0, sizeof(h));
		memcpy(h, "hbin", 4);
		memcpy(h + 8, &total, 4);
		strbuf_add(file, h, sizeof(h));
		strbuf_add(file, g->cells.buf, g->cells.len);
		strbuf_add(file, &free_size, 4);
		while (file->len < 4096 + total)
			strbuf_addch(file, 0);
	}
}

static char dir[64], path[96];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct gen g = { STRBUF_INIT, data, size, 0 };
	struct strbuf file = STRBUF_INIT;
	struct registry *reg;
	struct err err;
	FILE *f;
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/tdc-fuzz-cells.XXXXXX", t && strlen(t) < 32 ? t : "/tmp");
		if (!mkdtemp(dir))
			return 0;
		snprintf(path, sizeof(path), "%s/SOFTWARE", dir);
		atexit(cleanup);
	}
	build(&g, &file);
	f = fopen(path, "wb");
	if (f) {
		fwrite(file.buf, 1, file.len, f);
		fclose(f);
		reg = registry_new();
		err_clear(&err);
		if (regfile_load_more(reg, path, &err) && strncmp(err.msg, path, strlen(path))) {
			fprintf(stderr, "fuzz_hive_cells: unclear error \"%s\"\n", err.msg);
			abort();
		}
		if (getenv("TDC_FUZZ_VERBOSE")) /* what became of it, to check the generator */
			fprintf(stderr, "fuzz_hive_cells: %zu bytes: %s\n", file.len, err.msg[0] ? err.msg : "read");
		registry_free(reg);
	}
	strbuf_release(&g.cells);
	strbuf_release(&file);
	return 0;
}
