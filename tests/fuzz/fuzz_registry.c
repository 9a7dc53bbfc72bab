/*
 * fuzz_registry: the offline registry reader must turn any bytes into either
 * a registry or a clean error, never a crash, a hang or a leak. Every parsed
 * registry is also queried (both views, a value of each kind, subkeys) so the
 * lookup paths run over whatever the parser accepted.
 *
 * Differential: lines of keys that are not kept take fast paths that check
 * without decoding (registry_text.c: skip_value_line, skip_hex_list,
 * wine_key_fast); the same bytes read keeping everything and keeping
 * nothing must give the same verdict and the same message.
 */
#include <stddef.h>
#include <stdint.h>

#include <stdlib.h>
#include <string.h>

#include "machine/regfile.h"
#include "machine/registry.h"

#include "oracle.h"

static void same_verdict(const uint8_t *data, size_t size)
{
	struct registry *all = registry_new(), *none = registry_new();
	struct err e1, e2;
	int r1, r2;
	err_clear(&e1);
	err_clear(&e2);
	registry_keep(none, "SOFTWARE\\NothingHere\\AtAll");
	r1 = regfile_parse_more(all, data, size, "fuzz.reg", &e1);
	r2 = regfile_parse_more(none, data, size, "fuzz.reg", &e2);
	if (r1 != r2 || (r1 && strcmp(e1.msg, e2.msg))) {
		fprintf(stderr, "kept: %d %s\nskipped: %d %s\n", r1, e1.msg, r2, e2.msg);
		abort();
	}
	registry_free(all);
	registry_free(none);
}


static int fuzz_one(const uint8_t *data, size_t size)
{
	static const char *const keys[] = {
		"SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64",
		"SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x86",
		"SOFTWARE\\A", "", "SOFTWARE",
	};
	static const char *const values[] = { "Version", "Major", "Installed", "", "v", "Bin" };
	struct registry *reg = NULL;
	struct err err;
	size_t k, v;
	int view;
	same_verdict(data, size);
	if (regfile_parse(&reg, data, size, "fuzz.reg", &err))
		return 0;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (view = 32; view <= 64; view += 32) {
			struct strlist l = STRLIST_INIT;
			for (v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
				struct strbuf sb = STRBUF_INIT;
				registry_get(reg, keys[k], values[v], view, &sb, &err);
				strbuf_release(&sb);
			}
			registry_subkeys(reg, keys[k], view, &l, &err);
			strlist_release(&l);
		}
	}
	/* a second file on top exercises merging and deletions */
	regfile_parse_more(reg, data, size, "again.reg", &err);
	registry_free(reg);
	return 0;
}
