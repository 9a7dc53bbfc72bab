/*
 * test_memory: the machine's memory facts (machine/memory.h): PagingFiles as
 * Windows writes it and as a hostile registry could (huge, negative, garbage,
 * thousands of entries), sizes as users write them, and the commit limits
 * (docs/commit.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "machine/memory.h"

#define GIB ((uint64_t)1 << 30)
#define MIB ((uint64_t)1 << 20)

static void parse(struct machine_memory *m, const char *text)
{
	uint64_t ram = m->physical;
	machine_memory_release(m);
	machine_memory_init(m);
	m->physical = ram;
	m->paging_known = 1;
	memory_parse_paging(m, text, strlen(text));
}

static void test_windows_values(void)
{
	struct machine_memory m;
	uint64_t start, reach;
	machine_memory_init(&m);
	CHECK_INT(memory_limits(&m, &start, &reach), -1); /* no physical memory: unknown */
	m.physical = 16 * GIB;

	parse(&m, "C:\\pagefile.sys 0 0");
	CHECK_INT(m.nfiles, 1);
	CHECK_STR(m.files[0].path, "C:\\pagefile.sys");
	CHECK_INT(m.files[0].kind, PAGING_SYSTEM_MANAGED);
	CHECK_INT(memory_limits(&m, &start, &reach), 0);
	CHECK_INT(start, 18 * GIB); /* + 16 / 8 */
	CHECK_INT(reach, 64 * GIB); /* + 3 x 16 */
	CHECK_INT(m.notes.n, 0);

	parse(&m, "C:\\pagefile.sys 4096 8192\nD:\\pagefile.sys 1024 1024\n");
	CHECK_INT(m.nfiles, 2);
	CHECK_INT(m.files[0].kind, PAGING_FIXED);
	CHECK_INT(m.files[0].min, 4 * GIB);
	CHECK_INT(m.files[0].max, 8 * GIB);
	memory_limits(&m, &start, &reach);
	CHECK_INT(start, 21 * GIB);
	CHECK_INT(reach, 25 * GIB);

	parse(&m, "?:\\pagefile.sys");
	CHECK_INT(m.files[0].kind, PAGING_AUTOMATIC);
	memory_limits(&m, &start, &reach);
	CHECK_INT(reach, 64 * GIB);

	parse(&m, ""); /* present and empty: no paging file */
	CHECK_INT(m.nfiles, 0);
	memory_limits(&m, &start, &reach);
	CHECK_INT(start, 16 * GIB);
	CHECK_INT(reach, 16 * GIB);

	m.physical = 1 * GIB; /* small machine: the system-managed maximum is at least 4 GiB */
	parse(&m, "C:\\pagefile.sys 0 0");
	memory_limits(&m, &start, &reach);
	CHECK_INT(reach, 5 * GIB);
	m.physical = 512 * GIB; /* large machine: the initial size is at most 32 GiB */
	memory_limits(&m, &start, &reach);
	CHECK_INT(start, 544 * GIB);

	/* not read from any registry: Windows' default, one system-managed file */
	machine_memory_release(&m);
	machine_memory_init(&m);
	m.physical = 16 * GIB;
	memory_limits(&m, &start, &reach);
	CHECK_INT(reach, 64 * GIB);
	machine_memory_release(&m);
}

static void test_hostile_values(void)
{
	struct machine_memory m;
	uint64_t start, reach;
	struct strbuf sb;
	size_t i;
	machine_memory_init(&m);
	m.physical = 16 * GIB;

	/* huge: clamped to 16 TiB, said */
	parse(&m, "C:\\pagefile.sys 99999999999999999999 99999999999999999999");
	CHECK_INT(m.files[0].kind, PAGING_FIXED);
	CHECK_INT(m.files[0].max, (uint64_t)16 << 40);
	CHECK_INT(m.notes.n, 1);
	CHECK(strstr(m.notes.v[0], "above 16 TiB") != NULL);
	memory_limits(&m, &start, &reach);
	CHECK_INT(reach, ((uint64_t)16 << 40) + 16 * GIB);

	/* 21 digits: not a number; negative; garbage: system-managed, quoted */
	parse(&m, "C:\\pagefile.sys 999999999999999999999 1\nC:\\p.sys -5 -1\nC:\\q.sys lots more\n");
	CHECK_INT(m.nfiles, 3);
	for (i = 0; i < m.nfiles; i++)
		CHECK_INT(m.files[i].kind, PAGING_SYSTEM_MANAGED);
	CHECK_INT(m.notes.n, 3);
	CHECK(strstr(m.notes.v[1], "\"C:\\p.sys -5 -1\"") != NULL);

	/* maximum below minimum */
	parse(&m, "C:\\pagefile.sys 8192 16");
	CHECK_INT(m.files[0].max, 8 * GIB);
	CHECK(m.notes.n == 1 && strstr(m.notes.v[0], "below its minimum"));

	/* thousands of entries: 16 read, the rest counted */
	strbuf_init(&sb);
	for (i = 0; i < 5000; i++)
		strbuf_addf(&sb, "C:\\p%zu.sys 1024 1024\n", i);
	parse(&m, sb.buf);
	strbuf_release(&sb);
	CHECK_INT(m.nfiles, MEM_MAX_PAGING_FILES);
	CHECK_INT(m.ndropped, 5000 - MEM_MAX_PAGING_FILES);
	CHECK(m.notes.n == 1 && strstr(m.notes.v[0], "4984 entries more than Windows' 16"));
	memory_limits(&m, &start, &reach);
	CHECK_INT(reach, 32 * GIB);

	/* a long line, control bytes and NULs: bounded quote, escaped */
	strbuf_init(&sb);
	strbuf_adds(&sb, "C:\\");
	for (i = 0; i < 100000; i++)
		strbuf_addch(&sb, 'x');
	strbuf_adds(&sb, "\x1b[31m junk\x01");
	parse(&m, sb.buf);
	strbuf_release(&sb);
	CHECK_INT(m.nfiles, 1);
	CHECK(strlen(m.files[0].path) < 4 * MEM_MAX_QUOTE);
	CHECK(m.notes.n == 1 && strlen(m.notes.v[0]) < 8 * MEM_MAX_QUOTE && !strchr(m.notes.v[0], '\x1b'));
	machine_memory_release(&m);
}

static void test_sizes(void)
{
	struct err e;
	uint64_t v = 0;
	err_clear(&e);
	CHECK_INT(memory_parse_size("16GiB", &v, &e), 0);
	CHECK_INT(v, 16 * GIB);
	CHECK_INT(memory_parse_size("16GB", &v, &e), 0);
	CHECK_INT(v, 16 * GIB);
	CHECK_INT(memory_parse_size("512MiB", &v, &e), 0);
	CHECK_INT(v, 512 * MIB);
	CHECK_INT(memory_parse_size("4096", &v, &e), 0);
	CHECK_INT(v, 4096);
	CHECK_INT(memory_parse_size("0GiB", &v, &e), -1);
	CHECK_INT(memory_parse_size("-1GiB", &v, &e), -1);
	CHECK_INT(memory_parse_size("16 GiB", &v, &e), -1);
	CHECK_INT(memory_parse_size("2000TiB", &v, &e), -1);
	CHECK_STR(e.msg, "\"2000TiB\": too large (at most 1 PiB)");
	CHECK_INT(memory_parse_size("99999999999999999999999GiB", &v, &e), -1);
	CHECK_INT(memory_parse_size("16XB", &v, &e), -1);
}

static void test_format(void)
{
	char b[32];
	memory_format(b, sizeof(b), 16 * GIB);
	CHECK_STR(b, "16 GiB");
	memory_format(b, sizeof(b), 128466944);
	CHECK_STR(b, "122.5 MiB");
	memory_format(b, sizeof(b), 12);
	CHECK_STR(b, "12 bytes");
	memory_format(b, sizeof(b), UINT64_MAX);
	CHECK_STR(b, "16 EiB");
}

int main(void)
{
	RUN(test_windows_values);
	RUN(test_hostile_values);
	RUN(test_sizes);
	RUN(test_format);
	return HARNESS_EXIT();
}
