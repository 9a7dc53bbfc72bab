/*
 * fuzz_conda_meta: any bytes as one conda-meta record
 * (`<prefix>\conda-meta\<name>-<version>-<build>.json`). Besides never
 * crashing or leaking: a record taken has a non-empty name and version, a
 * refusal says why, and every binary path it maps is found again under the
 * prefix and no mapped path climbs out of it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/conda_meta.h"

#include "oracle.h"

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct conda_meta cm;
	struct err e;
	size_t i;
	conda_meta_init(&cm);
	cm.prefix = xstrdup("C:\\env");
	e.msg[0] = '\0';
	if (conda_meta_add_record(&cm, (const char *)data, size, "x-1-0.json", &e) == 0) {
		if (cm.n != 1 || !*cm.pkgs[0].name || !*cm.pkgs[0].version || !cm.pkgs[0].channel)
			abort();
		for (i = 0; i < cm.keys.n; i++) {
			char *p = xasprintf("C:\\env\\%s", cm.keys.v[i]);
			if (strstr(cm.keys.v[i], "..\\") || conda_meta_owner(&cm, p) != &cm.pkgs[0])
				abort();
			free(p);
		}
	} else if (!e.msg[0] || cm.n) {
		abort();
	}
	conda_meta_release(&cm);
	return 0;
}
