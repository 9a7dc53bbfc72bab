/*
 * fuzz_hive: the glue between libhivex and the registry (checker/machine/hive.c)
 * must turn any bytes that start like a hive into either a registry or a
 * clean error that names the file, never a crash, a hang or a leak. libhivex
 * reads files only, so each input is written to a file named SOFTWARE and
 * one named SYSTEM in a private temporary directory; SOFTWARE is read whole,
 * SYSTEM with the subtrees a check keeps (and CurrentControlSet mapped), and
 * what was read is queried in both views. Under the time and memory
 * oracles (oracle.h): a hive whose cells loop or are shared must cost its
 * size, not its size times the depth limit.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/regfile.h"
#include "machine/registry.h"
#include "machine/view.h"

#include "oracle.h"

static char dir[64];
static char paths[2][96];

static void cleanup(void)
{
	unlink(paths[0]);
	unlink(paths[1]);
	rmdir(dir);
}

static int setup(void)
{
	const char *t = getenv("TMPDIR");
	if (dir[0])
		return 0;
	snprintf(dir, sizeof(dir), "%s/tdc-fuzz-hive.XXXXXX", t && strlen(t) < 32 ? t : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	snprintf(paths[0], sizeof(paths[0]), "%s/SOFTWARE", dir);
	snprintf(paths[1], sizeof(paths[1]), "%s/SYSTEM", dir);
	atexit(cleanup);
	return 0;
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int ok;
	if (!f)
		return -1;
	ok = fwrite(data, 1, size, f) == size;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void query(const struct registry *reg)
{
	static const char *const keys[] = {
		"SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64",
		"SOFTWARE\\Python\\PythonCore", "SOFTWARE",
		"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs",
		"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment", "",
	};
	size_t k, v;
	int view;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		for (view = 32; view <= 64; view += 32) {
			struct strlist names = STRLIST_INIT, subs = STRLIST_INIT;
			struct err err;
			registry_values(reg, keys[k], view, &names, &err);
			for (v = 0; v < names.n; v++) {
				struct strbuf sb = STRBUF_INIT;
				registry_get(reg, keys[k], names.v[v], view, &sb, &err);
				strbuf_release(&sb);
			}
			registry_subkeys(reg, keys[k], view, &subs, &err);
			strlist_release(&names);
			strlist_release(&subs);
		}
	}
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	int i;
	if (setup())
		return 0;
	for (i = 0; i < 2; i++) {
		struct registry *reg = registry_new();
		struct err err;
		err_clear(&err);
		if (write_file(paths[i], data, size)) {
			registry_free(reg);
			return 0;
		}
		if (i == 1)
			view_registry_scope(reg);
		if (regfile_load_more(reg, paths[i], &err)) {
			/* a clean error names the file it is about */
			if (strncmp(err.msg, paths[i], strlen(paths[i])) || strlen(err.msg) <= strlen(paths[i]) + 2) {
				fprintf(stderr, "fuzz_hive: unclear error \"%s\"\n", err.msg);
				abort();
			}
		} else {
			query(reg);
		}
		registry_free(reg);
	}
	return 0;
}
