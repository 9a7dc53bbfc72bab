/*
 * derive: measure what a matrix row says from a torch install's binaries
 * (see derive.h). The list of runtime DLL names below is the VC++
 * redistributable's x64 file set (vcruntime140*, msvcp140*, concrt140,
 * vccorlib140) and the OpenMP runtimes a Windows torch has been seen to
 * import: Intel's libiomp5md.dll (bundled since 1.x), MSVC's vcomp140.dll
 * (/openmp, in the redistributable) and MSVC's LLVM runtime
 * libomp140.<arch>.dll (/openmp:llvm, shipped only with Visual Studio).
 */
#include "matrix/derive.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "machine/inventory.h"
#include "util/os.h"
#include "pe/pe.h"
#include "util/jsonout.h"

#define DERIVE_MAX_BINARIES 4096

void derive_init(struct derive *d)
{
	memset(d, 0, sizeof(*d));
	strlist_init(&d->runtime);
}

void derive_release(struct derive *d)
{
	size_t i;
	for (i = 0; i < d->nbins; i++) {
		free(d->bins[i].name);
		strlist_release(&d->bins[i].runtime);
		strlist_release(&d->bins[i].openmp);
	}
	for (i = 0; i < d->nopenmp; i++) {
		free(d->openmp[i].dll);
		strlist_release(&d->openmp[i].importers);
	}
	free(d->bins);
	free(d->openmp);
	free(d->torch_dir);
	free(d->version);
	free(d->variant);
	free(d->toolset_from);
	strlist_release(&d->runtime);
	derive_init(d);
}

int derive_classify(const char *dll)
{
	static const char *const runtime_prefixes[] = {"vcruntime140", "msvcp140", "concrt140", "vccorlib140"};
	static const char *const openmp[] = {"libiomp5md.dll", "vcomp140.dll", "libomp140.x86_64.dll",
					     "libomp140.aarch64.dll", "libgomp-1.dll"};
	size_t i;
	for (i = 0; i < sizeof(openmp) / sizeof(openmp[0]); i++)
		if (!str_icmp(dll, openmp[i]))
			return 2;
	for (i = 0; i < sizeof(runtime_prefixes) / sizeof(runtime_prefixes[0]); i++)
		if (str_istartswith(dll, runtime_prefixes[i]) && str_iendswith(dll, ".dll"))
			return 1;
	return 0;
}

static char *lower_dup(const char *s)
{
	char *r = xstrdup(s), *p;
	for (p = r; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_dir(const char *p)
{
	struct os_stat st;
	os_stat(p, &st);
	return st.type == OS_DIR;
}

/* dir/torch (an unpacked wheel or site-packages) or dir itself (torch's folder). */
static char *find_torch(const char *dir)
{
	char *t = xasprintf("%s%ctorch%clib", dir, os_sep(), os_sep());
	if (is_dir(t)) {
		free(t);
		return xasprintf("%s%ctorch", dir, os_sep());
	}
	free(t);
	t = xasprintf("%s%clib", dir, os_sep());
	if (is_dir(t)) {
		free(t);
		return xstrdup(dir);
	}
	free(t);
	return NULL;
}

static void add_openmp(struct derive *d, const char *dll, const char *importer)
{
	size_t i;
	for (i = 0; i < d->nopenmp; i++)
		if (!strcmp(d->openmp[i].dll, dll))
			break;
	if (i == d->nopenmp) {
		d->openmp = xrealloc(d->openmp, (d->nopenmp + 1) * sizeof(*d->openmp));
		memset(&d->openmp[i], 0, sizeof(d->openmp[i]));
		d->openmp[i].dll = xstrdup(dll);
		strlist_init(&d->openmp[i].importers);
		d->nopenmp++;
	}
	if (!strlist_has(&d->openmp[i].importers, importer))
		strlist_push(&d->openmp[i].importers, importer);
}

static void note_imports(struct derive *d, struct derive_binary *b, const struct pe_import_dll *imp, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		int kind = derive_classify(imp[i].dll);
		char *low;
		if (!kind)
			continue;
		low = lower_dup(imp[i].dll);
		if (kind == 1 && !strlist_has(&b->runtime, low))
			strlist_push(&b->runtime, low);
		if (kind == 2 && !strlist_has(&b->openmp, low)) {
			strlist_push(&b->openmp, low);
			add_openmp(d, low, b->name);
		}
		if (kind == 1 && !strlist_has(&d->runtime, low))
			strlist_push(&d->runtime, low);
		free(low);
	}
}

static int read_binary(struct derive *d, const char *folder, const char *name, int in_lib, struct err *err)
{
	struct pe_image *img;
	struct derive_binary *b;
	char *path = xasprintf("%s%c%s", folder, os_sep(), name);
	int r = pe_open(&img, path, PE_IMPORTS | PE_DELAY_IMPORTS | PE_LENIENT, err);
	free(path);
	if (r < 0)
		return -1;
	if (d->nbins >= DERIVE_MAX_BINARIES) {
		pe_close(img);
		return err_set(err, "%s: more than %d DLLs", folder, DERIVE_MAX_BINARIES);
	}
	d->bins = xrealloc(d->bins, (d->nbins + 1) * sizeof(*d->bins));
	b = &d->bins[d->nbins++];
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(name);
	b->in_lib = in_lib;
	b->machine = img->machine;
	b->linker_major = img->linker_major;
	b->linker_minor = img->linker_minor;
	strlist_init(&b->runtime);
	strlist_init(&b->openmp);
	note_imports(d, b, img->imports, img->nimports);
	note_imports(d, b, img->delay_imports, img->ndelay_imports);
	if (b->runtime.n && (b->linker_major > d->toolset_major ||
			     (b->linker_major == d->toolset_major && b->linker_minor > d->toolset_minor))) {
		d->toolset_major = b->linker_major;
		d->toolset_minor = b->linker_minor;
		free(d->toolset_from);
		d->toolset_from = xstrdup(name);
	}
	pe_close(img);
	return 0;
}

/* Reads the binaries of one folder whose names end with `ext`, in name order. */
static int read_folder(struct derive *d, const char *folder, const char *ext, int in_lib, struct err *err)
{
	struct strlist names;
	size_t i;
	int r = 0;
	strlist_init(&names);
	if (os_list_dir(folder, &names, err) < 0) {
		strlist_release(&names);
		return -1;
	}
	if (names.n) /* qsort's base may not be NULL, even for 0 items */
		qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (i = 0; i < names.n && r == 0; i++) {
		char *p;
		struct os_stat st;
		if (!str_iendswith(names.v[i], ext))
			continue;
		p = xasprintf("%s%c%s", folder, os_sep(), names.v[i]);
		os_stat(p, &st);
		free(p);
		if (st.type == OS_FILE)
			r = read_binary(d, folder, names.v[i], in_lib, err);
	}
	strlist_release(&names);
	return r;
}

static void read_version(struct derive *d)
{
	struct strbuf text;
	struct err e;
	char *vpy = xasprintf("%s%cversion.py", d->torch_dir, os_sep()), *cuda = NULL;
	const char *plus;
	strbuf_init(&text);
	if (os_read_file(vpy, 1 << 20, &text, &e) == 0 &&
	    inventory_parse_version_py(text.buf, text.len, vpy, &d->version, &cuda, &e) == 0 && d->version) {
		plus = strchr(d->version, '+');
		if (plus && plus[1])
			d->variant = xstrdup(plus + 1);
	}
	free(cuda);
	free(vpy);
	strbuf_release(&text);
}

int derive_dir(struct derive *d, const char *dir, struct err *err)
{
	char *lib;
	size_t i;
	d->torch_dir = find_torch(dir);
	if (!d->torch_dir)
		return err_set(err, "%s: no torch here (looked for torch%clib and lib)", dir, os_sep());
	read_version(d);
	lib = xasprintf("%s%clib", d->torch_dir, os_sep());
	if (read_folder(d, lib, ".dll", 1, err) < 0 || read_folder(d, d->torch_dir, ".pyd", 0, err) < 0) {
		free(lib);
		return -1;
	}
	if (!d->nbins) {
		free(lib);
		return err_set(err, "%s: no DLL in torch%clib", d->torch_dir, os_sep());
	}
	for (i = 0; i < d->nopenmp; i++) {
		char *p = xasprintf("%s%c%s", lib, os_sep(), d->openmp[i].dll);
		struct os_stat st;
		os_stat(p, &st);
		free(p);
		/* case-insensitive on Windows; wheels spell these in lower case */
		d->openmp[i].bundled = st.type == OS_FILE;
		if (!d->openmp[i].bundled) {
			size_t k;
			for (k = 0; k < d->nbins; k++)
				if (d->bins[k].in_lib && !str_icmp(d->bins[k].name, d->openmp[i].dll))
					d->openmp[i].bundled = 1;
		}
	}
	free(lib);
	if (d->runtime.n)
		qsort(d->runtime.v, d->runtime.n, sizeof(*d->runtime.v), cmp_str);
	d->vcruntime140_1 = strlist_has(&d->runtime, "vcruntime140_1.dll");
	return 0;
}

cJSON *derive_to_json(const struct derive *d)
{
	cJSON *o = cJSON_CreateObject(), *bins, *omp;
	char ts[32];
	size_t i;
	cJSON_AddStringToObject(o, "schema", "torch-dll-check/derive/v1");
	if (d->version)
		cJSON_AddStringToObject(o, "torch_version", d->version);
	else
		cJSON_AddNullToObject(o, "torch_version");
	if (d->variant)
		cJSON_AddStringToObject(o, "variant", d->variant);
	else
		cJSON_AddNullToObject(o, "variant");
	if (d->toolset_from) {
		snprintf(ts, sizeof(ts), "%u.%u", d->toolset_major, d->toolset_minor);
		cJSON_AddStringToObject(o, "toolset", ts);
		cJSON_AddStringToObject(o, "toolset_from", d->toolset_from);
	} else {
		cJSON_AddNullToObject(o, "toolset");
		cJSON_AddNullToObject(o, "toolset_from");
	}
	cJSON_AddBoolToObject(o, "vcruntime140_1", d->vcruntime140_1);
	json_add_strlist(o, "runtime_dlls", &d->runtime);
	omp = cJSON_AddArrayToObject(o, "openmp");
	for (i = 0; i < d->nopenmp; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "dll", d->openmp[i].dll);
		cJSON_AddBoolToObject(e, "bundled", d->openmp[i].bundled);
		json_add_strlist(e, "importers", &d->openmp[i].importers);
		cJSON_AddItemToArray(omp, e);
	}
	bins = cJSON_AddArrayToObject(o, "binaries");
	for (i = 0; i < d->nbins; i++) {
		const struct derive_binary *b = &d->bins[i];
		cJSON *e = cJSON_CreateObject();
		char lv[32];
		snprintf(lv, sizeof(lv), "%u.%u", b->linker_major, b->linker_minor);
		cJSON_AddStringToObject(e, "name", b->name);
		cJSON_AddStringToObject(e, "folder", b->in_lib ? "lib" : ".");
		cJSON_AddStringToObject(e, "machine", pe_machine_name(b->machine));
		cJSON_AddStringToObject(e, "linker", lv);
		json_add_strlist(e, "runtime_dlls", &b->runtime);
		json_add_strlist(e, "openmp", &b->openmp);
		cJSON_AddItemToArray(bins, e);
	}
	return o;
}
