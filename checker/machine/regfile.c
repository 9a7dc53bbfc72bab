/*
 * regfile: a registry file of any format handed to the reader it needs.
 * A file starting with "regf" is a hive (hive.h, libhivex); anything else is
 * a text registry (registry.h: reg export, Wine's system.reg). This module
 * sits above both, so that the text reader and the hive glue each know only
 * the registry they fill.
 */
#include <string.h>

#include "machine/regfile.h"
#include "machine/hive.h"
#include "machine/registry.h"
#include "util/os.h"

int regfile_is_hive(const void *data, size_t len)
{
	return len >= 4 && !memcmp(data, "regf", 4);
}

int regfile_parse_more(struct registry *reg, const void *data, size_t len, const char *name,
			struct err *err)
{
	if (regfile_is_hive(data, len)) {
		if (hive_check_base(data, len, NULL, err))
			return err_prefix(err, "%s: ", name);
		return err_set(err, "%s: a regf hive: hives are read from their file (regfile_load)", name);
	}
	return registry_parse_text(reg, data, len, name, 0, err);
}

int regfile_load_more(struct registry *reg, const char *path, struct err *err)
{
	struct os_map m;
	int r;
	if (os_map_file(&m, path, err))
		return -1;
	if (regfile_is_hive(m.data, m.size))
		r = hive_load(reg, path, &m, err);
	else
		r = registry_parse_text(reg, m.data, m.size, path, 1, err);
	os_unmap(&m);
	return r;
}

int regfile_parse(struct registry **out, const void *data, size_t len, const char *name,
		   struct err *err)
{
	struct registry *reg = registry_new();
	*out = NULL;
	if (regfile_parse_more(reg, data, len, name, err)) {
		registry_free(reg);
		return -1;
	}
	*out = reg;
	return 0;
}

int regfile_load(struct registry **out, const char *path, struct err *err)
{
	struct registry *reg = registry_new();
	*out = NULL;
	if (regfile_load_more(reg, path, err)) {
		registry_free(reg);
		return -1;
	}
	*out = reg;
	return 0;
}
