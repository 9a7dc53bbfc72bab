/*
 * regdump: a test helper that prints everything the registry reader keeps
 * from one or more files (merged in order, nothing narrowed), so that two
 * formats of the same content can be compared key by key with diff:
 *
 *   regdump FILE...            one "[KEY]" line per key (sorted as
 *                              RegEnumKeyEx does), then one line per value:
 *                              name, type number, the text registry_get gives
 *   regdump --reg TOP FILE...  the subtree HKLM\TOP as a regedit file
 *                              (every value as hex(N): the raw bytes), which
 *                              hivexregedit --merge turns into a hive
 *
 * Built with the ASan library by `make unit-build`; used by
 * tests/inventory/test_hives.sh on a real Wine system.reg.
 */
#include <stdio.h>
#include <string.h>

#include "machine/regfile.h"
#include "machine/registry.h"

static void put_text(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		if (s[i] == '\n')
			fputs("\\n", stdout);
		else if (s[i] == '\r')
			fputs("\\r", stdout);
		else
			putchar(s[i]);
	}
}

/* A name as a regedit string: \\ and \" escaped. */
static void put_quoted(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static int dump(const struct registry *reg, const char *key, int as_reg)
{
	struct strlist subs = STRLIST_INIT, names = STRLIST_INIT;
	struct err e;
	size_t i;
	int r = 0;
	if (key[0]) {
		if (as_reg)
			printf("\r\n[HKEY_LOCAL_MACHINE\\%s]\r\n", key);
		else
			printf("[%s]\n", key);
		if (registry_values(reg, key, 64, &names, &e) < 0)
			return fprintf(stderr, "regdump: %s\n", e.msg), -1;
	}
	for (i = 0; i < names.n; i++) {
		const unsigned char *data;
		unsigned type;
		size_t len, j;
		if (registry_get_raw(reg, key, names.v[i], 64, &type, &data, &len, &e))
			continue;
		if (as_reg) {
			if (strchr(names.v[i], '\n') || strchr(names.v[i], '\r'))
				continue; /* not expressible in a .reg line */
			if (names.v[i][0])
				put_quoted(names.v[i]);
			else
				putchar('@');
			printf("=hex(%x):", type);
			for (j = 0; j < len; j++)
				printf("%02x%s", data[j], j + 1 < len ? (j % 24 == 23 ? ",\\\r\n  " : ",") : "");
			fputs("\r\n", stdout);
		} else {
			struct strbuf sb = STRBUF_INIT;
			registry_format(&sb, type, data, len);
			printf("  %s %u ", names.v[i][0] ? names.v[i] : "@", type);
			put_text(sb.buf ? sb.buf : "", sb.len);
			putchar('\n');
			strbuf_release(&sb);
		}
	}
	if (registry_subkeys(reg, key, 64, &subs, &e) < 0)
		return fprintf(stderr, "regdump: %s\n", e.msg), -1;
	for (i = 0; i < subs.n && !r; i++) {
		struct strbuf sub = STRBUF_INIT;
		strbuf_addf(&sub, "%s%s%s", key, key[0] ? "\\" : "", subs.v[i]);
		r = dump(reg, sub.buf, as_reg);
		strbuf_release(&sub);
	}
	strlist_release(&subs);
	strlist_release(&names);
	return r;
}

int main(int argc, char **argv)
{
	struct registry *reg = registry_new();
	const char *top = "";
	struct err e;
	int i = 1, as_reg = 0, r;
	if (argc > 2 && !strcmp(argv[1], "--reg")) {
		as_reg = 1;
		top = argv[2];
		i = 3;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: regdump [--reg TOP] FILE...\n");
		return 2;
	}
	for (; i < argc; i++) {
		if (regfile_load_more(reg, argv[i], &e)) {
			fprintf(stderr, "regdump: %s\n", e.msg);
			registry_free(reg);
			return 2;
		}
	}
	if (as_reg)
		fputs("Windows Registry Editor Version 5.00\r\n", stdout);
	r = dump(reg, top, as_reg);
	registry_free(reg);
	return r ? 1 : 0;
}
