/*
 * fuzz_registry: the offline registry reader must turn any bytes into either
 * a registry or a clean error, never a crash, a hang or a leak. Every parsed
 * registry is also queried (both views, a value of each kind, subkeys) so the
 * lookup paths run over whatever the parser accepted.
 */
#include <stddef.h>
#include <stdint.h>

#include "machine/regfile.h"
#include "machine/registry.h"

#include "oracle.h"


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
