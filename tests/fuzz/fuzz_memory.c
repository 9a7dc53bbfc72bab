/*
 * fuzz_memory: the memory facts' two parsers (machine/memory.h): the
 * registry's PagingFiles value (one entry a line, as view_reg_get gives a
 * REG_MULTI_SZ) and --memory's SIZE. The first byte picks the parser, the
 * rest is the text. Besides never crashing: at most MEM_MAX_PAGING_FILES
 * entries kept, the rest counted; a fixed file's sizes within
 * MEM_MAX_PAGING_BYTES with min <= max; each entry's path and each note
 * bounded (quoted at most MEM_MAX_QUOTE bytes); at most two notes an entry
 * plus one for the dropped; memory_limits() ordered (start <= reach) for any
 * physical memory; a SIZE either refused with a message or in [1, 1 PiB];
 * both deterministic.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/memory.h"

#include "oracle.h"

static void paging(const char *s, size_t n)
{
	struct machine_memory m, m2;
	uint64_t start, reach;
	size_t i;
	machine_memory_init(&m);
	machine_memory_init(&m2);
	memory_parse_paging(&m, s, n);
	memory_parse_paging(&m2, s, n);
	if (m.nfiles > MEM_MAX_PAGING_FILES || m.nfiles != m2.nfiles || m.ndropped != m2.ndropped ||
	    m.notes.n != m2.notes.n || m.notes.n > 2 * m.nfiles + 1)
		abort();
	for (i = 0; i < m.nfiles; i++) {
		const struct paging_file *f = &m.files[i];
		if (!f->path || strlen(f->path) > 4 * MEM_MAX_QUOTE + 3 || strcmp(f->path, m2.files[i].path) ||
		    f->kind != m2.files[i].kind)
			abort();
		if (f->kind == PAGING_FIXED && (f->min > f->max || f->max > MEM_MAX_PAGING_BYTES))
			abort();
	}
	for (i = 0; i < m.notes.n; i++)
		if (strlen(m.notes.v[i]) > 4 * MEM_MAX_QUOTE + 256 || strcmp(m.notes.v[i], m2.notes.v[i]))
			abort();
	m.paging_known = 1;
	for (i = 0; i < 4; i++) {
		static const uint64_t ram[] = { 1, (uint64_t)1 << 30, (uint64_t)1 << 50, UINT64_MAX };
		m.physical = ram[i];
		if (memory_limits(&m, &start, &reach) || start > reach || start < m.physical)
			abort();
	}
	machine_memory_release(&m);
	machine_memory_release(&m2);
}

static void size(const char *s, size_t n)
{
	char *z = malloc(n + 1);
	uint64_t v = 0, v2 = 0;
	struct err e, e2;
	int r, r2;
	memcpy(z, s, n);
	z[n] = '\0';
	err_clear(&e);
	err_clear(&e2);
	r = memory_parse_size(z, &v, &e);
	r2 = memory_parse_size(z, &v2, &e2);
	if (r != r2 || (r == 0 && (v != v2 || v == 0 || v > ((uint64_t)1 << 50))) || (r != 0 && !e.msg[0]))
		abort();
	free(z);
}

static int fuzz_one(const uint8_t *data, size_t n)
{
	if (!n)
		return 0;
	if (data[0] & 1)
		size((const char *)data + 1, n - 1);
	else
		paging((const char *)data + 1, n - 1);
	return 0;
}
