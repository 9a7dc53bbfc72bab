/*
 * req_lock: uv.lock, poetry.lock and pdm.lock, the locked name/version pairs
 * of their [[package]] entries, with the registry a package came from (uv's
 * source = { registry = URL }, Poetry's [package.source] url) and its markers
 * (uv's resolution-markers say on which platforms a forked entry is used).
 */
#include "pins/req_lock.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_pep508.h"
#include "pins/req_toml.h"
#include "util/version.h"

/* version = "2.4.0+cu121": the exact version, its specifier (when PEP 440) and variant. */
static void lock_version(struct pin *p, const char *name, const char *version)
{
	struct pep440 v;
	struct err ve;
	p->version = xstrdup(version);
	p->spec = xasprintf("==%s", version);
	/* a locked version that is not PEP 440 has no specifier to offer */
	p->pep440 = pep440_parse(&v, version, &ve) ? NULL : xstrdup(p->spec);
	p->raw = xasprintf("%s %s", name, version);
	p->variant = req_variant_of_version(version);
	if (p->variant)
		p->variant_from = xstrdup("version");
}

/* uv: source = { registry = URL } ; poetry: [package.source] url = URL */
static void lock_index(struct pin *p, const struct toml *pk)
{
	const struct toml *src = toml_get(pk, "source");
	if (src && src->type == TOML_TABLE) {
		const char *u = toml_str(toml_get(src, "registry"));
		if (!u)
			u = toml_str(toml_get(src, "url"));
		req_set_index(p, u);
	}
}

/* markers / marker, else uv's resolution-markers (the platforms a forked entry is used on), or'ed. */
static void lock_markers(struct pin *p, const struct toml *pk)
{
	const char *m = toml_str(toml_get(pk, "markers"));
	const struct toml *rm = toml_get(pk, "resolution-markers");
	struct strbuf mb = STRBUF_INIT;
	size_t j;
	if (!m)
		m = toml_str(toml_get(pk, "marker"));
	if (m) {
		p->markers = xstrdup(m);
		return;
	}
	if (!rm || rm->type != TOML_ARRAY || !rm->n_items)
		return;
	for (j = 0; j < rm->n_items; j++) {
		if (rm->items[j]->type != TOML_STRING)
			continue;
		if (mb.len)
			strbuf_adds(&mb, " or ");
		strbuf_addf(&mb, "(%s)", rm->items[j]->str);
	}
	if (mb.len)
		p->markers = strbuf_detach(&mb);
	strbuf_release(&mb);
}

/* One [[package]] entry as a PIN_FORM_LOCKED pin. */
static int lock_package(struct req_file *f, const struct toml *pk, struct err *err)
{
	const struct toml *name, *ver;
	struct strbuf nb = STRBUF_INIT;
	struct pin *p;
	if (req_toml_want(f, pk, TOML_TABLE, "a [[package]] entry", err))
		return -1;
	name = toml_get(pk, "name");
	ver = toml_get(pk, "version");
	if (!name || name->type != TOML_STRING)
		return req_ferr(f, err, pk->line, pk->col, "[[package]] entry without a name string");
	if (ver && ver->type != TOML_STRING)
		return req_ferr(f, err, ver->line, ver->col, "version of \"%s\" must be a string", name->str);
	p = req_add_pin(f, ver ? ver->line : name->line, ver ? ver->col : name->col, PIN_SRC_LOCK, err);
	if (!p)
		return -1;
	req_normalize_name(name->str, strlen(name->str), &nb);
	p->name = strbuf_detach(&nb);
	p->form = PIN_FORM_LOCKED;
	if (ver)
		lock_version(p, name->str, ver->str);
	else
		p->raw = xstrdup(name->str);
	lock_index(p, pk);
	lock_markers(p, pk);
	return 0;
}

int req_parse_lock(struct req_file *f, const struct toml *root, struct err *err)
{
	const struct toml *pkgs = toml_get(root, "package");
	size_t i;
	if (!pkgs)
		return 0;
	if (req_toml_want(f, pkgs, TOML_ARRAY, "package", err))
		return -1;
	for (i = 0; i < pkgs->n_items; i++)
		if (lock_package(f, pkgs->items[i], err))
			return -1;
	return 0;
}
