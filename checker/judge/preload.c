/*
 * preload: a package's preload as findings (see preload.h).
 */
#include "judge/preload.h"

#include <stdlib.h>
#include <string.h>

#include "machine/winpath.h"
#include "util/strbuf.h"

/* Why the preload stopped, in words beyond Python's. */
static char *explain(const struct pkg_preload_run *r)
{
	const char *lib = r->library ? r->library : "?";
	switch (r->outcome) {
	case PKG_PRELOAD_NO_MODULE:
		return xasprintf("torch\\%s imports %s, which is not installed (%s is not there): the rocm meta "
				 "package is missing", r->spec.when_file, r->spec.module, r->missing ? r->missing : "?");
	case PKG_PRELOAD_UNKNOWN_LIB:
		return xasprintf("%s does not know the library '%s' that torch\\%s preloads: rocm_sdk is another "
				 "release than torch was built against", r->spec.module, lib, r->spec.when_file);
	case PKG_PRELOAD_NO_PACKAGE:
		return xasprintf("%s's module %s is not installed, so rocm_sdk's find_libraries cannot find '%s' "
				 "(it means ModuleNotFoundError; version %s, GPU family %s from %s)",
				 r->package ? r->package : "?", r->missing ? winpath_basename(r->missing) : "?", lib,
				 r->version ? r->version : "unknown", r->family ? r->family : "unknown",
				 r->family_from ? r->family_from : "nowhere");
	case PKG_PRELOAD_NO_FILE:
		return xasprintf("the library '%s' is not in its package's folder (%s): a file of the wheel was "
				 "removed after install", lib, r->missing ? r->missing : "?");
	case PKG_PRELOAD_OK:
	case PKG_PRELOAD_LOAD_FAILED:
		break;
	}
	return NULL;
}

void preload_judge(struct findings *out, const struct matrix *m, const struct torch_run *run)
{
	const struct pkg_preload_run *r = &run->preload;
	char *why, *title, *msg, *when;
	size_t i;
	if (!run->preload_ran)
		return;
	/* a leaf that AMD's driver would provide elsewhere comes from the wheels here */
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		const struct matrix_vendor *x;
		if (f->rule != RULE_MISSING_DLL || !f->leaf || !(x = matrix_vendor_of(m, winpath_basename(f->leaf))) ||
		    !x->driver || !x->stack || strcmp(x->stack, "amd") || !r->fix)
			continue;
		finding_set(&f->fix, r->fix);
		why = xasprintf("This torch is TheRock's ROCm build (torch\\%s): %s comes from the rocm-sdk-core "
				"wheel's %s, which the preload loads by full path, not from the AMD display driver.",
				r->spec.when_file, winpath_basename(f->leaf), r->spec.folder);
		finding_set(&f->explanation, why);
		free(why);
	}
	/* a DLL of the preload that does not load: its wheels are broken, not torch\lib */
	for (i = 0; r->fix && i < out->n; i++) {
		struct finding *f = &out->v[i];
		if ((f->rule != RULE_MISSING_DLL && f->rule != RULE_MISSING_ENTRY_POINT && f->rule != RULE_MISSING_ORDINAL) ||
		    !f->binary || !strlist_has_icase(&r->loaded, f->binary))
			continue;
		finding_set(&f->fix, r->fix);
		why = xasprintf("%s is a DLL of the ROCm wheels that torch\\%s loads by full path before torch's own "
				"(%s): what it needs belongs to those wheels, not to torch\\lib.",
				winpath_basename(f->binary), r->spec.when_file, r->spec.id);
		finding_set(&f->explanation, why);
		free(why);
	}
	if (r->outcome == PKG_PRELOAD_OK || r->outcome == PKG_PRELOAD_LOAD_FAILED)
		return;
	when = winpath_join(run->torch_dir, r->spec.when_file);
	why = explain(r);
	title = xasprintf("import torch fails in torch\\%s before any torch DLL loads: %s", r->spec.when_file,
			  r->error_text ? r->error_text : "?");
	msg = xasprintf("%s. %s (the matrix's package_preload entry %s, %s; the list from %s).",
			r->error_text ? r->error_text : "?", why ? why : "", r->spec.id, r->spec.entry,
			r->list_from ? r->list_from : "?");
	finding_add(out, RULE_PACKAGE_PRELOAD_FAILED, SEV_DEFAULT,
		    &(struct finding_spec){ .title = title, .message = msg, .fix = r->fix, .install = run->torch_dir,
					    .binary = when, .leaf = r->missing });
	free(when);
	free(why);
	free(title);
	free(msg);
}
