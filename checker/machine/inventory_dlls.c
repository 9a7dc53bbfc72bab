/*
 * inventory_dlls: the C/C++ and OpenMP runtime DLLs of the machine being
 * checked, part of the inventory (inventory.h): which copies exist in
 * System32, SysWOW64 and every folder an install names (python's folder,
 * torch\lib, Library\bin), with their machine and file version.
 *
 * Versions come only from VS_VERSIONINFO (pe.h). A file without one (Wine's
 * builtin vcruntime140.dll, msvcp140.dll) is reported as such: no version is
 * inferred from names or sizes. A file that cannot be read is listed with
 * its error, not dropped.
 */
#include "machine/inventory.h"

#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"
#include "machine/view.h"

const char *const inv_runtime_dll_names[] = {
	"vcruntime140.dll", "vcruntime140_1.dll", "vcruntime140_threads.dll", "msvcp140.dll",
	"msvcp140_1.dll", "msvcp140_2.dll", "msvcp140_atomic_wait.dll", "msvcp140_codecvt_ids.dll",
	"concrt140.dll", "vccorlib140.dll",
	"vcomp140.dll", "ucrtbase.dll", "libomp140.x86_64.dll", "libiomp5md.dll", "libiompstubs5md.dll",
	NULL,
};

static void probe_dir(struct inventory *inv, struct view *v, const char *label, const char *dir)
{
	size_t i;
	for (i = 0; inv_runtime_dll_names[i]; i++) {
		char *wp = NULL, *host;
		struct inv_dll *d;
		struct pe_image *img = NULL;
		struct err err;
		if (view_find_file(v, dir, inv_runtime_dll_names[i], &wp) != 1) {
			free(wp);
			continue;
		}
		ALLOC_GROW(inv->dlls, inv->ndlls + 1, inv->adlls);
		d = &inv->dlls[inv->ndlls++];
		memset(d, 0, sizeof(*d));
		d->name = xstrdup(inv_runtime_dll_names[i]);
		d->path = wp;
		d->where = xstrdup(label);
		host = view_host_path(v, wp);
		if (!host) {
			d->error = xstrdup("outside the view");
		} else if (pe_open(&img, host, PE_VERSION, &err)) {
			d->error = xstrdup(err.msg);
		} else {
			d->machine = img->machine;
			if (img->version.present && img->version.has_fixed) {
				d->has_version = 1;
				memcpy(d->ver, img->version.file, sizeof(d->ver));
			}
		}
		pe_close(img);
		free(host);
	}
}

static int dir_probed(struct strlist *seen, const char *dir)
{
	if (strlist_has_icase(seen, dir))
		return 1;
	strlist_push(seen, dir);
	return 0;
}

int inventory_runtime_dlls(struct inventory *inv, struct view *v, struct err *err)
{
	struct strlist seen = STRLIST_INIT;
	size_t i, j;
	if (!dir_probed(&seen, view_system32(v)))
		probe_dir(inv, v, "System32", view_system32(v));
	if (view_is_dir(v, view_syswow64(v)) && !dir_probed(&seen, view_syswow64(v)))
		probe_dir(inv, v, "SysWOW64", view_syswow64(v));
	for (i = 0; i < inv->ninstalls; i++) {
		struct inv_install *in = &inv->installs[i];
		for (j = 0; j < in->dll_dirs.n; j++) {
			char *label = xstrdup(in->dll_dirs.v[j]);
			char *tab = strchr(label, '\t');
			*tab = '\0';
			if (view_is_dir(v, tab + 1) && !dir_probed(&seen, tab + 1))
				probe_dir(inv, v, label, tab + 1);
			free(label);
		}
	}
	strlist_release(&seen);
	if (!inv->gpu_read) {
		if (gpu_driver_collect(&inv->gpu, v, err))
			return -1;
		inv->gpu_read = 1;
	}
	return 0;
}
