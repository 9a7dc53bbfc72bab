/*
 * inventory_redist: the Visual C++ 2015-2022 redistributable keys of the
 * machine being checked (HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\
 * Runtimes\{x64,x86,arm64}), part of the inventory (inventory.h).
 *
 * The keys are read in both registry views for every architecture:
 * vc_redist.{x64,x86,arm64}.exe are 32-bit bundles, so on a 64-bit Windows
 * they write under WOW6432Node, but tools and images differ. When both views
 * hold a key the newer version is reported and the other one noted.
 * `Installed` is commonly present (our reading, undocumented); when absent,
 * a key with a Version counts as installed. Everything goes through one
 * lookup function (inv_reg_get_fn), so the reader runs on a view, on an
 * offline registry without a tree, or on a test's table.
 */
#include "machine/inventory.h"

#include <stdlib.h>
#include <string.h>

#include "machine/registry.h"
#include "util/text.h"
#include "util/version.h"
#include "machine/view.h"

int inventory_parse_redist_version(const char *s, uint16_t ver[4])
{
	size_t k = 0;
	if (*s == 'v' || *s == 'V')
		s++;
	memset(ver, 0, 4 * sizeof(ver[0]));
	for (;;) {
		unsigned long v = 0;
		int digits = 0;
		while (ascii_isdigit(*s)) {
			v = v * 10 + (unsigned long)(*s++ - '0');
			if (v > 65535)
				return -1;
			digits++;
		}
		if (!digits || k >= 4)
			return -1;
		ver[k++] = (uint16_t)v;
		if (*s == '\0')
			break;
		if (*s++ != '.')
			return -1;
	}
	return k >= 2 ? 0 : -1;
}

/* Through winver_cmp, the one comparison of Windows file versions (version.h). */
static int ver_cmp(const uint16_t a[4], const uint16_t b[4])
{
	struct winver x, y;
	memcpy(x.part, a, sizeof(x.part));
	memcpy(y.part, b, sizeof(y.part));
	x.nparts = y.nparts = 4;
	return winver_cmp(&x, &y);
}

/* What one registry view holds for one architecture. */
struct redist_view {
	int found;
	char *version_raw;
	long dw[5];             /* Major, Minor, Bld, Rbld, Installed; -1 absent, -2 not a number */
	char *dw_raw[5];
};

static const char *const redist_dwords[5] = { "Major", "Minor", "Bld", "Rbld", "Installed" };

static int read_view(struct redist_view *rv, inv_reg_get_fn get, void *ctx, const char *key, int regview,
		     struct err *err)
{
	struct strbuf sb = STRBUF_INIT;
	int i, r;
	memset(rv, 0, sizeof(*rv));
	r = get(ctx, key, "Version", regview, &sb, err);
	if (r < 0)
		goto fail;
	if (r == 0) {
		rv->found = 1;
		rv->version_raw = strbuf_detach(&sb);
	}
	for (i = 0; i < 5; i++) {
		char *end;
		strbuf_reset(&sb);
		rv->dw[i] = -1;
		r = get(ctx, key, redist_dwords[i], regview, &sb, err);
		if (r < 0)
			goto fail;
		if (r)
			continue;
		rv->found = 1;
		rv->dw_raw[i] = xstrdup(strbuf_str(&sb));
		rv->dw[i] = strtol(strbuf_str(&sb), &end, 10);
		if (!sb.len || *end || rv->dw[i] < 0)
			rv->dw[i] = -2;
	}
	strbuf_release(&sb);
	return 0;
fail:
	strbuf_release(&sb);
	return -1;
}

static void view_release_rv(struct redist_view *rv)
{
	int i;
	free(rv->version_raw);
	for (i = 0; i < 5; i++)
		free(rv->dw_raw[i]);
}

/* The version a view states: from Version, else Major/Minor/Bld/Rbld. */
static int rv_version(const struct redist_view *rv, uint16_t ver[4])
{
	if (rv->version_raw && !inventory_parse_redist_version(rv->version_raw, ver))
		return 0;
	if (rv->dw[0] >= 0 && rv->dw[1] >= 0 && rv->dw[2] >= 0 && rv->dw[0] < 65536 && rv->dw[1] < 65536 &&
	    rv->dw[2] < 65536 && rv->dw[3] < 65536) {
		ver[0] = (uint16_t)rv->dw[0];
		ver[1] = (uint16_t)rv->dw[1];
		ver[2] = (uint16_t)rv->dw[2];
		ver[3] = rv->dw[3] >= 0 ? (uint16_t)rv->dw[3] : 0;
		return 0;
	}
	return -1;
}

static void redist_fill(struct inv_redist *r, const struct redist_view *rv, int regview, const char *subkey)
{
	uint16_t v[4];
	int i;
	r->found = 1;
	r->view = regview;
	r->key = regview == 32 ? xasprintf("HKLM\\SOFTWARE\\WOW6432Node\\%s", subkey + strlen("SOFTWARE\\"))
			       : xasprintf("HKLM\\%s", subkey);
	r->version_raw = rv->version_raw ? xstrdup(rv->version_raw) : NULL;
	if (rv->version_raw && inventory_parse_redist_version(rv->version_raw, v))
		strlist_pushf(&r->notes, "Version \"%s\" is not a version number", rv->version_raw);
	if (!rv->version_raw)
		strlist_pushf(&r->notes, "no Version value in %s", r->key);
	if (!rv_version(rv, r->ver)) {
		r->has_ver = 1;
		r->version = winver_parts_str(r->ver);
	}
	for (i = 0; i < 5; i++)
		if (rv->dw[i] == -2)
			strlist_pushf(&r->notes, "%s is \"%s\", expected a DWORD", redist_dwords[i], rv->dw_raw[i]);
	/* Version against Major/Minor/Bld(/Rbld): the installer writes both; a mismatch means
	 * a hand-edited key or a half-finished upgrade. */
	if (rv->version_raw && !inventory_parse_redist_version(rv->version_raw, v) && rv->dw[0] >= 0 &&
	    rv->dw[1] >= 0 && rv->dw[2] >= 0 &&
	    (v[0] != rv->dw[0] || v[1] != rv->dw[1] || v[2] != rv->dw[2] || (rv->dw[3] >= 0 && v[3] != rv->dw[3]))) {
		if (rv->dw[3] >= 0)
			strlist_pushf(&r->notes, "Version %s disagrees with Major/Minor/Bld/Rbld %ld.%ld.%ld.%ld",
				      rv->version_raw, rv->dw[0], rv->dw[1], rv->dw[2], rv->dw[3]);
		else
			strlist_pushf(&r->notes, "Version %s disagrees with Major/Minor/Bld %ld.%ld.%ld",
				      rv->version_raw, rv->dw[0], rv->dw[1], rv->dw[2]);
	}
	r->installed_value = rv->dw[4] >= 0 ? rv->dw[4] : -1;
	r->installed = rv->dw[4] != 0 && (rv->version_raw || r->has_ver);
	if (rv->dw[4] == 0)
		strlist_pushf(&r->notes, "Installed = 0: the key is there but the runtime is marked not installed");
}

int inventory_redist(struct inventory *inv, inv_reg_get_fn get, void *ctx, const char *source,
		     struct err *err)
{
	size_t a;
	free(inv->redist_source);
	inv->redist_source = xstrdup(source ? source : "registry");
	inv->redist_read = 1;
	for (a = 0; a < 3; a++) {
		struct inv_redist *r = &inv->redist[a];
		struct redist_view v64, v32;
		char *key = xasprintf("%s\\%s", INV_REDIST_KEY, r->arch);
		uint16_t a64[4], a32[4];
		int h64, h32;
		if (read_view(&v64, get, ctx, key, 64, err) || read_view(&v32, get, ctx, key, 32, err)) {
			free(key);
			return err_prefix(err, "VC++ redistributable %s: ", r->arch);
		}
		h64 = v64.found && !rv_version(&v64, a64);
		h32 = v32.found && !rv_version(&v32, a32);
		if (v64.found && v32.found) {
			/* both views: report the newer, note the other */
			int use32 = h32 && (!h64 || ver_cmp(a32, a64) > 0);
			redist_fill(r, use32 ? &v32 : &v64, use32 ? 32 : 64, key);
			if (h64 && h32 && ver_cmp(a32, a64))
				strlist_pushf(&r->notes, "the %d-bit registry view also has %s",
					      use32 ? 64 : 32, (use32 ? v64 : v32).version_raw
								   ? (use32 ? v64 : v32).version_raw : "another version");
		} else if (v64.found) {
			redist_fill(r, &v64, 64, key);
		} else if (v32.found) {
			redist_fill(r, &v32, 32, key);
		}
		view_release_rv(&v64);
		view_release_rv(&v32);
		free(key);
	}
	return 0;
}

static int get_view(void *ctx, const char *key, const char *value, int regview, struct strbuf *out,
		    struct err *err)
{
	return view_reg_get(ctx, key, value, regview, out, err);
}

static int get_registry(void *ctx, const char *key, const char *value, int regview, struct strbuf *out,
			struct err *err)
{
	return registry_get(ctx, key, value, regview, out, err);
}

int inventory_redist_view(struct inventory *inv, struct view *v, struct err *err)
{
	return inventory_redist(inv, get_view, v, view_registry_source(v), err);
}

int inventory_redist_registry(struct inventory *inv, const struct registry *reg, struct err *err)
{
	return inventory_redist(inv, get_registry, (void *)reg, registry_describe(reg), err);
}
