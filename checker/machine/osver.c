/*
 * osver: the machine's Windows version (see osver.h).
 */
#include "machine/osver.h"

#include <stdlib.h>
#include <string.h>

#include "machine/registry.h"
#include "pe/pe.h"
#include "util/os.h"
#include "util/text.h"

/* Bounds of what any Windows NT says: majors 3 (NT 3.1) to 10 and a margin; builds fit 16 bits
 * (26100 in 2024: winver's parts are 16-bit). Outside them a value is not read. */
#define OSVER_MAX_MAJOR 99
#define OSVER_MAX_MINOR 99
#define OSVER_MAX_BUILD 65535u

void osver_init(struct osver *o)
{
	memset(o, 0, sizeof(*o));
	strlist_init(&o->notes);
}

void osver_release(struct osver *o)
{
	free(o->text);
	free(o->source);
	strlist_release(&o->notes);
	osver_init(o);
}

static int plausible(unsigned major, unsigned minor)
{
	return major >= 3 && major <= OSVER_MAX_MAJOR && minor <= OSVER_MAX_MINOR;
}

static void set(struct osver *o, unsigned major, unsigned minor, unsigned build, char *source)
{
	o->known = 1;
	o->major = major;
	o->minor = minor;
	o->build = build;
	o->text = build ? xasprintf("%u.%u.%u", major, minor, build) : xasprintf("%u.%u", major, minor);
	free(o->source);
	o->source = source;
}

/* A REG_DWORD value of OSVER_KEY: 0 read, 1 absent, -1 present but not a REG_DWORD (noted). */
static int reg_dword(struct osver *o, struct view *v, const char *name, unsigned *out)
{
	unsigned type = 0;
	const unsigned char *d = NULL;
	size_t len = 0;
	struct err e;
	int r;
	err_clear(&e);
	r = view_reg_get_raw(v, OSVER_KEY, name, 64, &type, &d, &len, &e);
	if (r == 1)
		return 1;
	if (r < 0 || type != 4 /* REG_DWORD */ || len != 4) {
		strlist_pushf(&o->notes, "%s is not a REG_DWORD (type %u, %zu bytes): not read", name, type, len);
		return -1;
	}
	*out = (unsigned)d[0] | (unsigned)d[1] << 8 | (unsigned)d[2] << 16 | (unsigned)d[3] << 24;
	return 0;
}

/* A short string value of OSVER_KEY into sb: 0 read, 1 absent or not a string (noted). */
static int reg_string(struct osver *o, struct view *v, const char *name, struct strbuf *sb)
{
	unsigned type = 0;
	const unsigned char *d = NULL;
	size_t len = 0;
	struct err e;
	err_clear(&e);
	strbuf_reset(sb);
	if (view_reg_get_raw(v, OSVER_KEY, name, 64, &type, &d, &len, &e))
		return 1;
	if (type != 1 /* REG_SZ */ || len > 64) {
		strlist_pushf(&o->notes, "%s is not a short REG_SZ (type %u, %zu bytes): not read", name, type, len);
		return 1;
	}
	registry_format(sb, type, d, len);
	return 0;
}

/* A build number as Windows writes it ("19045"), or 0 with a note. */
static unsigned parse_build(struct osver *o, const char *name, const char *s)
{
	size_t n = strspn(s, "0123456789");
	unsigned long b;
	if (!n || s[n] || n > 5 || (b = strtoul(s, NULL, 10)) == 0 || b > OSVER_MAX_BUILD) {
		struct strbuf q = STRBUF_INIT;
		strlist_pushf(&o->notes, "%s is \"%s\", not a build number: build not read", name, text_quote(&q, s, 24));
		strbuf_release(&q);
		return 0;
	}
	return (unsigned)b;
}

/* The registry's answer: 0 read, 1 not. */
static int from_registry(struct osver *o, struct view *v)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned major = 0, minor = 0, build = 0;
	int rmaj, rmin;
	const char *src = view_registry_source(v);
	rmaj = reg_dword(o, v, "CurrentMajorVersionNumber", &major);
	rmin = reg_dword(o, v, "CurrentMinorVersionNumber", &minor);
	if (rmaj == 0 && rmin == 0 && !plausible(major, minor)) {
		strlist_pushf(&o->notes, "CurrentMajorVersionNumber %u and CurrentMinorVersionNumber %u are no "
					 "Windows version: not read", major, minor);
		rmaj = -1;
	}
	if (rmaj == 0 && rmin != 0) {
		strlist_push(&o->notes, "CurrentMajorVersionNumber without a CurrentMinorVersionNumber REG_DWORD: not read");
		rmaj = -1;
	}
	if (rmaj == 1 && rmin == 1) {
		/* before Windows 10: CurrentVersion is the version (from 8.1 on it stays "6.3") */
		unsigned long a, b;
		char *end;
		if (reg_string(o, v, "CurrentVersion", &sb)) {
			strbuf_release(&sb);
			return 1;
		}
		a = strtoul(sb.buf, &end, 10);
		if (end == sb.buf || *end != '.' || !(end[1] >= '0' && end[1] <= '9') ||
		    (b = strtoul(end + 1, &end, 10), *end) || a > OSVER_MAX_MAJOR || !plausible((unsigned)a, b > 99 ? 100u : (unsigned)b)) {
			struct strbuf q = STRBUF_INIT;
			strlist_pushf(&o->notes, "CurrentVersion is \"%s\", not a Windows version: not read",
				      text_quote(&q, sb.buf, 24));
			strbuf_release(&q);
			strbuf_release(&sb);
			return 1;
		}
		major = (unsigned)a;
		minor = (unsigned)b;
	} else if (rmaj != 0) {
		strbuf_release(&sb);
		return 1; /* the DWORDs are there but unusable: CurrentVersion would say "6.3" on Windows 10 */
	}
	if (!reg_string(o, v, "CurrentBuildNumber", &sb))
		build = parse_build(o, "CurrentBuildNumber", sb.buf);
	else if (!reg_string(o, v, "CurrentBuild", &sb))
		build = parse_build(o, "CurrentBuild", sb.buf);
	strbuf_release(&sb);
	o->wine = strstr(src, "wine system.reg") != NULL;
	set(o, major, minor, build, xasprintf("the registry (%s), HKLM\\%s", src, OSVER_KEY));
	return 0;
}

/* kernel32.dll's version resource in the tree's System32: 0 read, 1 not. */
static int from_kernel32(struct osver *o, struct view *v)
{
	char *wp = NULL, *host;
	struct pe_image *img = NULL;
	struct err e;
	int r = 1;
	if (view_find_file(v, view_system32(v), "kernel32.dll", &wp) != 1) {
		free(wp);
		strlist_push(&o->notes, "no kernel32.dll in System32");
		return 1;
	}
	host = view_host_path(v, wp);
	err_clear(&e);
	if (!host || pe_open(&img, host, PE_VERSION | PE_LENIENT, &e)) {
		strlist_pushf(&o->notes, "%s is not read: %s", wp, host ? e.msg : "outside the view");
	} else if (!img->version.present || !img->version.has_fixed) {
		strlist_pushf(&o->notes, "%s has no version resource", wp);
	} else if (!plausible(img->version.file[0], img->version.file[1])) {
		strlist_pushf(&o->notes, "%s's version %u.%u is no Windows version: not read", wp,
			      img->version.file[0], img->version.file[1]);
	} else {
		set(o, img->version.file[0], img->version.file[1], img->version.file[2],
		    xasprintf("the version resource of %s", wp));
		r = 0;
	}
	if (img)
		pe_close(img);
	free(host);
	free(wp);
	return r;
}

void osver_read(struct osver *o, struct view *v)
{
	unsigned major, minor, build;
	osver_init(o);
	if (view_is_live(v)) {
		if (os_windows_version(&major, &minor, &build, &o->wine) == 0 && plausible(major, minor)) {
			set(o, major, minor, build <= OSVER_MAX_BUILD ? build : 0,
			    xstrdup(o->wine ? "Wine's RtlGetVersion (winecfg's Windows version)" : "this Windows (RtlGetVersion)"));
			return;
		}
		strlist_push(&o->notes, "RtlGetVersion gave no version");
		return;
	}
	if (!view_has_registry(v))
		strlist_push(&o->notes, "no registry (--registry, a Wine prefix's system.reg or the tree's hives)");
	else if (!from_registry(o, v))
		return;
	else
		strlist_pushf(&o->notes, "the registry (%s) has no usable version under HKLM\\%s",
			      view_registry_source(v), OSVER_KEY);
	from_kernel32(o, v);
}

char *osver_name(const struct osver *o)
{
	static const struct {
		unsigned major, minor;
		const char *name;
	} names[] = { { 6, 0, "Windows Vista" }, { 6, 1, "Windows 7" }, { 6, 2, "Windows 8" }, { 6, 3, "Windows 8.1" } };
	const char *name = NULL;
	size_t i;
	if (!o->known)
		return xstrdup("an unknown Windows");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (o->major == names[i].major && o->minor == names[i].minor)
			name = names[i].name;
	if (o->major == 10 && o->minor == 0) /* Windows 11 says 10.0 too: its builds start at 22000 */
		name = !o->build ? "Windows 10 or 11" : o->build >= 22000 ? "Windows 11" : "Windows 10";
	return name ? xasprintf("%s (NT %s)", name, o->text) : xasprintf("Windows NT %s", o->text);
}
