/*
 * test_hive: the base-block verdicts of checker/machine/hive.c (no libhivex needed),
 * each corrupt or dirty header against its exact message. Reading whole
 * hives is tested on real ones in tests/inventory/test_hives.sh.
 */
#include <stdint.h>
#include <stdlib.h>

#include "harness.h"
#include "machine/hive.h"

static void put32(unsigned char *p, size_t off, uint32_t v)
{
	p[off] = (unsigned char)v;
	p[off + 1] = (unsigned char)(v >> 8);
	p[off + 2] = (unsigned char)(v >> 16);
	p[off + 3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p, size_t off)
{
	return (uint32_t)p[off] | (uint32_t)p[off + 1] << 8 | (uint32_t)p[off + 2] << 16 |
	       (uint32_t)p[off + 3] << 24;
}

/* A clean base block for `bins` bytes of hive bins, followed by them (zeros). */
static unsigned char *hive(uint32_t seq1, uint32_t seq2, uint32_t type, uint32_t bins, size_t *len)
{
	unsigned char *p = calloc(1, 4096 + bins);
	uint32_t x = 0;
	size_t i;
	memcpy(p, "regf", 4);
	put32(p, 4, seq1);
	put32(p, 8, seq2);
	put32(p, 20, 1);
	put32(p, 24, 5);
	put32(p, 28, type);
	put32(p, 32, 1);
	put32(p, 36, 32);
	put32(p, 40, bins);
	for (i = 0; i < 508; i += 4)
		x ^= get32(p, i);
	put32(p, 508, x == 0 ? 1 : x == 0xffffffffu ? 0xfffffffeu : x);
	*len = 4096 + bins;
	return p;
}

static void test_clean_and_truncated(void)
{
	struct err err;
	size_t len;
	unsigned char *p = hive(7, 7, 0, 4096, &len);
	err_clear(&err);
	CHECK_INT(hive_check_base(p, len, NULL, &err), 0);
	CHECK_STR(err.msg, "");
	CHECK_INT(hive_check_base(p, 4095, "h", &err), -1);
	CHECK_STR(err.msg, "h: truncated regf hive: 4095 bytes, its base block alone takes 4096");
	CHECK_INT(hive_check_base(p, 6000, "h", &err), -1);
	CHECK_STR(err.msg, "h: truncated or corrupt regf hive: the base block says 4096 bytes of hive bins, "
			   "the file has 1904 after the base block");
	CHECK_INT(hive_check_base(p, 3, "h", &err), -1);
	CHECK_STR(err.msg, "h: not a regf hive (it does not start with \"regf\")");
	free(p);
}

static void test_dirty(void)
{
	struct err err;
	size_t len;
	unsigned char *p = hive(8, 7, 0, 4096, &len);
	CHECK_INT(hive_check_base(p, len, "/nonexistent/SOFTWARE", &err), -1);
	CHECK_STR(err.msg, "/nonexistent/SOFTWARE: dirty hive (its sequence numbers 8 and 7 differ): Windows had not "
			   "written its last changes back into the file when the image was taken; no transaction log "
			   "(.LOG1, .LOG2) lies next to it, so they are lost. Reading the file alone would give a "
			   "half-written registry: boot the image once and shut it down cleanly, then check again");
	free(p);
	p = hive(7, 7, 0, 4096, &len);
	p[100] ^= 1; /* inside the checksummed 508 bytes */
	CHECK_INT(hive_check_base(p, len, "h", &err), -1);
	CHECK(strstr(err.msg, "h: dirty hive (its base block checksum is 0x") == err.msg);
	free(p);
}

static void test_not_a_primary_hive(void)
{
	struct err err;
	size_t len;
	unsigned char *p = hive(7, 7, 6, 4096, &len);
	CHECK_INT(hive_check_base(p, len, "SOFTWARE.LOG1", &err), -1);
	CHECK_STR(err.msg, "SOFTWARE.LOG1: a regf file of type 6 (a transaction log or backup), not a primary "
			   "hive: give the hive itself (SOFTWARE, not SOFTWARE.LOG1)");
	free(p);
	p = hive(7, 7, 0, 4096, &len);
	put32(p, 20, 2);
	CHECK_INT(hive_check_base(p, len, "h", &err), -1);
	CHECK_STR(err.msg, "h: regf version 2.5: only version 1.x hives are read");
	free(p);
}

int main(void)
{
	RUN(test_clean_and_truncated);
	RUN(test_dirty);
	RUN(test_not_a_primary_hive);
	return HARNESS_EXIT();
}
