/*
 * fuzz_requirements: every pin-file parser on arbitrary bytes. The first
 * byte picks the format (so one corpus exercises pip lines, TOML, conda YAML
 * and setup.cfg); the rest is the file. Any crash, leak or sanitizer report
 * is a bug; a clean error is the expected outcome for garbage.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "pins/requirements.h"
#include "pins/req_markers.h"

#include "oracle.h"


static int fuzz_one(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {
		"requirements.txt", "constraints.txt", "pyproject.toml", "environment.yml",
		"setup.cfg",        "Pipfile",         "uv.lock",        "poetry.lock",
		"pdm.lock",
	};
	struct req_file f = { 0 };
	struct err e;
	size_t i;
	if (size < 1)
		return 0;
	if (req_file_parse(&f, paths[data[0] % (sizeof(paths) / sizeof(paths[0]))], REQ_NONE,
			   (const char *)data + 1, size - 1, &e) == 0) {
		/* Everything a caller reads must be a valid string. */
		for (i = 0; i < f.n_pins; i++) {
			const struct pin *p = &f.pins[i];
			if (!p->name || !p->file || p->line == 0 || p->col == 0)
				abort();
			req_markers_on_windows(p->markers);
		}
	}
	req_file_release(&f);
	return 0;
}
