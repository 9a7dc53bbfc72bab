/*
 * registry_stub: TEMPORARY stand-in for registry.c (branch `inventory`),
 * so the loader branch links before the real reader lands. It reads
 * nothing: every offline registry is "absent". DELETE THIS FILE when
 * merging `inventory` (its registry.c defines the same functions).
 */
#include "registry.h"

int registry_load(struct registry **out, const char *path, struct err *err)
{
	*out = NULL;
	return err_set(err, "%s: the offline registry reader is not built in yet", path);
}

int registry_parse(struct registry **out, const void *data, size_t len, const char *name, struct err *err)
{
	(void)data;
	(void)len;
	*out = NULL;
	return err_set(err, "%s: the offline registry reader is not built in yet", name);
}

void registry_free(struct registry *reg)
{
	(void)reg;
}

int registry_get(const struct registry *reg, const char *key, const char *value, int regview,
		 struct strbuf *out, struct err *err)
{
	return 1;
}

int registry_subkeys(const struct registry *reg, const char *key, int regview, struct strlist *out,
		     struct err *err)
{
	return 1;
}

const char *registry_describe(const struct registry *reg)
{
	return "none";
}
