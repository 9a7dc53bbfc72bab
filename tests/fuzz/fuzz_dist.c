/*
 * fuzz_dist: the .dist-info readers must turn any bytes into either a parsed
 * RECORD / METADATA or a clean error. The same input goes through both
 * parsers; every accepted RECORD row is resolved against a site-packages
 * (never outside the environment: checked here, so a resolver bug is a
 * crash) and every digest decoded; every accepted Requires-Dist is asked
 * for its exact pin.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/dist.h"

#include "oracle.h"

static int fuzz_one(const uint8_t *data, size_t size)
{
	static const char sp[] = "C:\\Py\\Lib\\site-packages", env[] = "C:\\Py";
	struct dist_record rec;
	struct dist_metadata md;
	struct err err;
	size_t i;
	if (!dist_record_parse(&rec, (const char *)data, size, "RECORD", &err)) {
		for (i = 0; i < rec.n; i++) {
			char *w = NULL;
			unsigned char dig[128];
			size_t n;
			if (!dist_record_resolve(sp, env, rec.v[i].path, &w, &err)) {
				if (strncmp(w, env, strlen(env)) || (w[strlen(env)] != '\\'))
					abort(); /* a resolved path outside the environment */
				if (strstr(w, "\\..\\") || strstr(w, "\\.\\"))
					abort();
			}
			free(w);
			if (rec.v[i].digest)
				dist_digest_decode(rec.v[i].digest, dig, sizeof(dig), &n, &err);
		}
		dist_record_release(&rec);
	}
	if (!dist_metadata_parse(&md, (const char *)data, size, "METADATA", &err)) {
		for (i = 0; i < md.nrequires; i++)
			free(dist_require_exact(&md.requires[i]));
		dist_metadata_release(&md);
	}
	return 0;
}
