/*
 * python_dll: a 127 on the Python DLL said as the Python it is (see python_dll.h).
 */
#include "judge/python_dll.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/winpath.h"
#include "util/strbuf.h"

char *python_dll_release(const uint16_t ver[4], int *prerelease)
{
	unsigned f3 = ver[2], micro, level, serial;
	const char *tag;
	if (ver[0] != 3 && ver[0] != 2)
		return NULL;
	if (f3 >= 9000) /* the test marker's offset */
		f3 -= 9000;
	micro = f3 / 1000;
	level = (f3 % 1000) / 10;
	serial = f3 % 10;
	switch (level) {
	case 10: tag = "a"; break;
	case 11: tag = "b"; break;
	case 12: tag = "rc"; break;
	case 15: tag = ""; break;
	default: return NULL; /* not CPython's FIELD3 */
	}
	*prerelease = level != 15;
	if (level == 15)
		return xasprintf("%u.%u.%u", ver[0], ver[1], micro);
	return xasprintf("%u.%u.%u%s%u", ver[0], ver[1], micro, tag, serial);
}

/* python311.dll, python311_d.dll, python3.dll, python313t.dll */
static int python_dll_name(const char *base)
{
	const char *p = base + 6;
	if (str_nicmp(base, "python", 6) || *p != '3')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (*p == 't')
		p++;
	if (!str_nicmp(p, "_d", 2))
		p += 2;
	return !str_icmp(p, ".dll");
}

static int parse4(const char *s, uint16_t v[4])
{
	unsigned a, b, c, d;
	if (!s || sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d) != 4 || a > 65535 || b > 65535 || c > 65535 || d > 65535)
		return -1;
	v[0] = (uint16_t)a;
	v[1] = (uint16_t)b;
	v[2] = (uint16_t)c;
	v[3] = (uint16_t)d;
	return 0;
}

void python_dll_judge(struct findings *out, const struct torch_run *run)
{
	size_t i;
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		const char *fv;
		uint16_t ver[4];
		char *rel, *fix, *why;
		int pre = 0;
		if ((f->rule != RULE_MISSING_ENTRY_POINT && f->rule != RULE_MISSING_ORDINAL) || !f->leaf || !f->path ||
		    !f->install || str_icmp(f->install, run->torch_dir) || !python_dll_name(winpath_basename(f->leaf)))
			continue;
		fv = loader_file_version(run->ld, f->path);
		if (parse4(fv, ver) || !(rel = python_dll_release(ver, &pre)))
			continue; /* no version resource, or not CPython's: the generic words stand */
		if (pre) {
			fix = xasprintf("install a released Python %u.%u (%u.%u.0 or newer, the latest %u.%u.x from "
					"python.org) and recreate the environment with it: %s is Python %s, a pre-release",
					ver[0], ver[1], ver[0], ver[1], ver[0], ver[1], winpath_basename(f->path), rel);
			why = xasprintf("%s is Python %s (its version resource: %s), a pre-release: the names a torch "
					"wheel built for the released Python %u.%u imports from it may be missing. ",
					f->path, rel, fv, ver[0], ver[1]);
		} else {
			fix = xasprintf("install a Python %u.%u release newer than %s (the latest %u.%u.x from python.org) "
					"and recreate the environment with it: %s is Python %s, older than the one torch's "
					"binaries were built against",
					ver[0], ver[1], rel, ver[0], ver[1], winpath_basename(f->path), rel);
			why = xasprintf("%s is Python %s (its version resource: %s): it lacks a name the torch wheel "
					"imports, which a later %u.%u release exports. ",
					f->path, rel, fv, ver[0], ver[1]);
		}
		finding_set(&f->fix, fix);
		if (f->explanation) {
			char *x = xasprintf("%s%s", why, f->explanation);
			free(f->explanation);
			f->explanation = x;
		} else {
			why[strlen(why) - 1] = '\0';
			finding_set(&f->explanation, why);
		}
		free(rel);
		free(fix);
		free(why);
	}
}
