/*
 * test_strmap: the string → index map (util/strmap.h): exact and
 * case-insensitive keys, the first value of a key kept, growth past many
 * keys, and keys that collide on the table's mask.
 */
#include "harness.h"
#include "util/strbuf.h"
#include "util/strmap.h"

#include <stdlib.h>

static void test_exact_keys(void)
{
	struct strmap m = STRMAP_INIT;
	size_t v = 99;
	CHECK(!strmap_get(&m, "a", &v)); /* an empty map allocates nothing and finds nothing */
	CHECK_INT(v, 99);
	CHECK_INT(strmap_add(&m, "torch_cpu.dll", 3), 0);
	CHECK_INT(strmap_add(&m, "", 4), 0); /* the empty string is a key like any other */
	CHECK(strmap_get(&m, "torch_cpu.dll", &v));
	CHECK_INT(v, 3);
	CHECK(strmap_get(&m, "", &v));
	CHECK_INT(v, 4);
	CHECK(!strmap_get(&m, "TORCH_CPU.DLL", NULL));
	CHECK(strmap_get(&m, "torch_cpu.dll", NULL));
	CHECK_INT(m.n, 2);
	strmap_release(&m);
	CHECK_INT(m.n, 0);
	CHECK(!strmap_get(&m, "torch_cpu.dll", NULL));
}

static void test_icase_keys(void)
{
	struct strmap m;
	size_t v = 0;
	strmap_init(&m, STRMAP_ICASE);
	CHECK_INT(strmap_add(&m, "C:\\Windows\\System32\\KERNEL32.dll", 1), 0);
	CHECK(strmap_get(&m, "c:\\windows\\system32\\kernel32.DLL", &v));
	CHECK_INT(v, 1);
	CHECK(!strmap_get(&m, "c:\\windows\\system32\\kernel32.dl", NULL));
	/* only ASCII letters fold: '[' is not '{' */
	CHECK_INT(strmap_add(&m, "a[b", 2), 0);
	CHECK(!strmap_get(&m, "A{B", NULL));
	CHECK(strmap_get(&m, "A[B", NULL));
	CHECK(strmap_hash("Kernel32", STRMAP_ICASE) == strmap_hash("KERNEL32", STRMAP_ICASE));
	CHECK(strmap_hash("Kernel32", 0) != strmap_hash("KERNEL32", 0));
	strmap_release(&m);
	CHECK_INT(m.flags, STRMAP_ICASE); /* release keeps the map usable as it was set up */
}

/* A second add of a key changes nothing: the first module of a name stays the answer. */
static void test_first_value_stays(void)
{
	struct strmap m;
	size_t v = 0;
	strmap_init(&m, STRMAP_ICASE);
	CHECK_INT(strmap_add(&m, "c10.dll", 0), 0);
	CHECK_INT(strmap_add(&m, "C10.DLL", 7), 1);
	CHECK(strmap_get(&m, "c10.dll", &v));
	CHECK_INT(v, 0);
	CHECK_INT(m.n, 1);
	strmap_release(&m);
}

/* Thousands of keys through many growths, each found with its own value; absent ones are not. */
static void test_many_keys(void)
{
	struct strmap m = STRMAP_INIT;
	struct strlist keys = STRLIST_INIT;
	size_t i, v, bad = 0;
	for (i = 0; i < 5000; i++)
		strlist_pushf(&keys, "HKLM\\SOFTWARE\\Key%zu", i);
	for (i = 0; i < keys.n; i++)
		CHECK_INT(strmap_add(&m, keys.v[i], i), 0);
	CHECK_INT(m.n, 5000);
	CHECK(m.cap >= 2 * m.n && (m.cap & (m.cap - 1)) == 0);
	for (i = 0; i < keys.n; i++)
		if (!strmap_get(&m, keys.v[i], &v) || v != i)
			bad++;
	CHECK_INT(bad, 0);
	CHECK(!strmap_get(&m, "HKLM\\SOFTWARE\\Key5000", NULL));
	CHECK(!strmap_get(&m, "hklm\\software\\key1", NULL));
	strmap_release(&m);
	strlist_release(&keys);
}

int main(void)
{
	RUN(test_exact_keys);
	RUN(test_icase_keys);
	RUN(test_first_value_stays);
	RUN(test_many_keys);
	return HARNESS_EXIT();
}
