/*
 * fuzz_torchmeta: torch\version.py and dist-info METADATA parsers. The
 * first byte picks the parser (even: version.py, odd: METADATA); the rest
 * is the file. Any input must give a version or a clean error.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "machine/inventory.h"

#include "oracle.h"


static int fuzz_one(const uint8_t *data, size_t size)
{
	char *ver = NULL, *cuda = NULL;
	struct err err;
	if (!size)
		return 0;
	if (data[0] % 2 == 0)
		inventory_parse_version_py((const char *)data + 1, size - 1, "version.py", &ver, &cuda, &err);
	else
		inventory_parse_metadata((const char *)data + 1, size - 1, "METADATA", &ver, &err);
	free(ver);
	free(cuda);
	return 0;
}
