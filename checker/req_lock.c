/*
 * req_lock: uv.lock, poetry.lock and pdm.lock, the locked name/version pairs
 * of their [[package]] entries, with the registry a package came from (uv's
 * source = { registry = URL }, Poetry's [package.source] url) and its markers
 * (uv's resolution-markers say on which platforms a forked entry is used).
 */
#include "req_lock.h"

#include <stdlib.h>
#include <string.h>

#include "req_pep508.h"
#include "req_toml.h"
#include "version.h"

int req_parse_lock(struct req_file *f, const struct toml *root, struct err *err)
{
	const struct toml *pkgs = toml_get(root, "package");
	struct strbuf nb = STRBUF_INIT;
	size_t i;
	if (!pkgs)
		return 0;
	if (req_toml_want(f, pkgs, TOML_ARRAY, "package", err))
		return -1;
	for (i = 0; i < pkgs->n_items; i++) {
		const struct toml *pk = pkgs->items[i], *name, *ver, *src, *rm;
		struct pin *p;
		if (req_toml_want(f, pk, TOML_TABLE, "a [[package]] entry", err))
			goto fail;
		name = toml_get(pk, "name");
		ver = toml_get(pk, "version");
		if (!name || name->type != TOML_STRING) {
			req_ferr(f, err, pk->line, pk->col, "[[package]] entry without a name string");
			goto fail;
		}
		if (ver && ver->type != TOML_STRING) {
			req_ferr(f, err, ver->line, ver->col, "version of \"%s\" must be a string", name->str);
			goto fail;
		}
		p = req_add_pin(f, ver ? ver->line : name->line, ver ? ver->col : name->col, PIN_SRC_LOCK, err);
		if (!p)
			goto fail;
		req_normalize_name(name->str, strlen(name->str), &nb);
		p->name = strbuf_detach(&nb);
		p->form = PIN_FORM_LOCKED;
		if (ver) {
			p->version = xstrdup(ver->str);
			p->spec = xasprintf("==%s", ver->str);
			{
				struct pep440 v;
				struct err ve;
				/* a locked version that is not PEP 440 has no specifier to offer */
				p->pep440 = pep440_parse(&v, ver->str, &ve) ? NULL : xstrdup(p->spec);
			}
			p->raw = xasprintf("%s %s", name->str, ver->str);
			p->variant = req_variant_of_version(ver->str);
			if (p->variant)
				p->variant_from = xstrdup("version");
		} else {
			p->raw = xstrdup(name->str);
		}
		/* uv: source = { registry = URL } ; poetry: [package.source] url = URL */
		src = toml_get(pk, "source");
		if (src && src->type == TOML_TABLE) {
			const char *u = toml_str(toml_get(src, "registry"));
			if (!u)
				u = toml_str(toml_get(src, "url"));
			req_set_index(p, u);
		}
		{
			const char *m = toml_str(toml_get(pk, "markers"));
			if (!m)
				m = toml_str(toml_get(pk, "marker"));
			if (m)
				p->markers = xstrdup(m);
		}
		/* uv forks: resolution-markers say on which platforms this entry is used. */
		rm = toml_get(pk, "resolution-markers");
		if (!p->markers && rm && rm->type == TOML_ARRAY && rm->n_items) {
			struct strbuf mb = STRBUF_INIT;
			size_t j;
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
	}
	return 0;
fail:
	strbuf_release(&nb);
	return -1;
}
