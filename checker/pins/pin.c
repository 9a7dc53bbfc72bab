/*
 * pin: the values every pin-file parser produces (pin.h): names of sources
 * and forms, releasing a parsed file (the formats' names and parsers are
 * requirements.c's table).
 */
#include "pins/pin.h"

#include <stdlib.h>
#include <string.h>

/* ---------- names ---------- */

const char *pin_source_name(enum pin_source s)
{
	switch (s) {
	case PIN_SRC_REQUIREMENTS: return "requirements";
	case PIN_SRC_CONSTRAINTS: return "constraints";
	case PIN_SRC_PROJECT: return "project";
	case PIN_SRC_OPTIONAL: return "optional-dependencies";
	case PIN_SRC_GROUP: return "dependency-groups";
	case PIN_SRC_BUILD: return "build-system";
	case PIN_SRC_POETRY: return "poetry";
	case PIN_SRC_UV: return "uv";
	case PIN_SRC_PIPFILE: return "pipfile";
	case PIN_SRC_CONDA: return "conda";
	case PIN_SRC_CONDA_PIP: return "conda-pip";
	case PIN_SRC_SETUP_CFG: return "setup.cfg";
	case PIN_SRC_LOCK: return "lock";
	}
	return "?";
}

const char *pin_form_name(enum pin_form f)
{
	switch (f) {
	case PIN_FORM_NAME: return "name";
	case PIN_FORM_SPEC: return "specifier";
	case PIN_FORM_URL: return "url";
	case PIN_FORM_WHEEL: return "wheel";
	case PIN_FORM_LOCKED: return "locked";
	}
	return "?";
}

/* ---------- releasing ---------- */

static void pin_release(struct pin *p)
{
	free(p->file);
	free(p->raw);
	free(p->name);
	free(p->extras);
	free(p->spec);
	free(p->pep440);
	free(p->version);
	free(p->variant);
	free(p->variant_from);
	free(p->markers);
	free(p->url);
	free(p->index_url);
	free(p->python_tag);
	free(p->abi_tag);
	free(p->platform_tag);
	free(p->group);
	free(p->channel);
}

void req_file_release(struct req_file *f)
{
	size_t i;
	for (i = 0; i < f->n_pins; i++)
		pin_release(&f->pins[i]);
	free(f->pins);
	for (i = 0; i < f->n_inc; i++) {
		free(f->inc[i].target);
		free(f->inc[i].resolved);
	}
	free(f->inc);
	strlist_release(&f->indexes);
	free(f->path);
	free(f->included_by);
	memset(f, 0, sizeof(*f));
}

int pin_is_torch(const struct pin *p)
{
	if (!p->name)
		return 0;
	if (!strcmp(p->name, "torch"))
		return 1;
	return !strcmp(p->name, "pytorch") && (p->source == PIN_SRC_CONDA);
}
