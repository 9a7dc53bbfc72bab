/*
 * fuzz_pyiarchive: PyInstaller's appended archive (machine/pyiarchive.c)
 * read from untrusted bytes: the whole input is the executable. Besides
 * never crashing and the time and memory oracles (oracle.h: cost linear in
 * the input, a TOC of many entries included), what a parse that succeeds
 * promises: every entry's data lies in the archive before its cookie, no
 * file name is absolute or has a "." or ".." component, the count is
 * capped; an entry's data, inflated with a cap of 64 bytes per input byte,
 * is exactly its declared length or an error that says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/pyiarchive.h"

#include "input.h"
#include "oracle.h"

static int bad_component(const char *n)
{
	const char *p = n;
	if (!*n || n[0] == '/' || n[0] == '\\' || (n[0] && n[1] == ':'))
		return 1;
	while (*p) {
		size_t len = strcspn(p, "/\\");
		if (!len || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
		p += len + (p[len] ? 1 : 0);
	}
	return 0;
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct pyi_archive a;
	struct err e;
	size_t i;
	err_clear(&e);
	if (pyi_archive_parse(&a, span_make(data, size), &e) == 0) {
		uint64_t data_end = a.cookie_pos - a.pkg_offset;
		if (a.n > PYI_MAX_ENTRIES || a.pkg_offset + a.pkg_length != a.cookie_pos + PYI_COOKIE_LEN)
			abort();
		for (i = 0; i < a.n; i++) {
			const struct pyi_entry *en = &a.entries[i];
			unsigned char *out = NULL;
			size_t len = 0;
			struct err de;
			if ((uint64_t)en->offset + en->length > data_end)
				abort();
			if (en->typecode != 'o' && bad_component(en->name))
				abort();
			if (i >= 64)
				continue;
			err_clear(&de);
			if (pyi_archive_data(&a, span_make(data, size), en, 64 * size + 4096, &out, &len, &de) == 0) {
				if (len != en->ulength)
					abort();
				free(out);
			} else if (!de.msg[0] || out) {
				abort(); /* a refusal says why and hands nothing back */
			}
		}
	} else if (!e.msg[0]) {
		abort();
	}
	pyi_archive_release(&a);
	return 0;
}
