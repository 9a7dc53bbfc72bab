/*
 * gpu_driver: nvcuda.dll in System32 and the display adapters' driver keys
 * (design in gpu_driver.h).
 */
#include "machine/gpu_driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pe/pe.h"
#include "util/jsonout.h"
#include "machine/view.h"
#include "util/version.h"

/* Caps: a machine has a handful of display adapters; a registry with more keys is cut (noted). */
#define GPU_MAX_ADAPTERS 64
/*
 * The bytes of an adapter's value kept (ProviderName, DriverDesc,
 * DriverVersion are a few dozen): a longer one is cut there, and said. They
 * were kept whole: a 48 MB export made 366 MB of RSS and 64 MB of JSON.
 */
#define GPU_MAX_VALUE 256
/* Other vendors' runtime files read from System32: a machine has a few; a hostile one is bounded. */
#define GPU_MAX_RUNTIMES 16

/* Vendors by the start of an adapter's ProviderName, and the runtime files their drivers install (docs/gpu.md). */
static const struct {
	const char *provider, *vendor;
} vendors[] = { { "NVIDIA", "nvidia" }, { "Advanced Micro Devices", "amd" }, { "AMD", "amd" },
		{ "Intel", "intel" } };
static const struct {
	const char *name; /* a file name, or a prefix ending in '*' */
	const char *vendor;
} runtime_files[] = { { "amdhip64*", "amd" }, { "ze_loader.dll", "intel" }, { "igdrcl64.dll", "intel" } };

void gpu_driver_init(struct gpu_driver *g)
{
	memset(g, 0, sizeof(*g));
	strlist_init(&g->notes);
}

void gpu_driver_release(struct gpu_driver *g)
{
	size_t i;
	free(g->nvcuda_path);
	free(g->nvcuda_error);
	free(g->nvcuda_version_string);
	free(g->nvcuda_company);
	free(g->version_problem);
	free(g->registry_source);
	for (i = 0; i < g->nadapters; i++) {
		free(g->adapters[i].key);
		free(g->adapters[i].provider);
		free(g->adapters[i].description);
		free(g->adapters[i].driver_version);
	}
	free(g->adapters);
	for (i = 0; i < g->nruntimes; i++) {
		free(g->runtimes[i].path);
		free(g->runtimes[i].file_version);
		free(g->runtimes[i].company);
		free(g->runtimes[i].error);
	}
	free(g->runtimes);
	strlist_release(&g->notes);
	gpu_driver_init(g);
}

int nv_driver_from_file_version(const uint16_t ver[4], struct nv_driver_version *out, char **why)
{
	unsigned merged;
	*why = NULL;
	/* A.BB.CC.DDDD (Microsoft's display-driver form); NVIDIA's CC starts at 10 */
	if (ver[0] < 6) {
		*why = xasprintf("%u.%u.%u.%u is not a display-driver version (A.BB.CC.DDDD with A >= 6)", ver[0],
				 ver[1], ver[2], ver[3]);
		return -1;
	}
	if (ver[2] < 10 || ver[2] > 99 || ver[3] > 9999) {
		*why = xasprintf("%u.%u.%u.%u is not of NVIDIA's form (the third field 10 to 99, the fourth "
				 "at most 9999: 31.0.15.5161 is driver 551.61)",
				 ver[0], ver[1], ver[2], ver[3]);
		return -1;
	}
	merged = (unsigned)(ver[2] - 10) * 10000u + ver[3];
	out->major = merged / 100;
	out->minor = merged % 100;
	return 0;
}

/* Four dot-separated decimal fields, each < 65536; -1 otherwise. */
static int parse4(const char *s, uint16_t v[4])
{
	int i;
	for (i = 0; i < 4; i++) {
		unsigned long n = 0;
		int digits = 0;
		while (*s >= '0' && *s <= '9' && digits < 6) {
			n = n * 10 + (unsigned long)(*s++ - '0');
			digits++;
		}
		if (!digits || n > 65535)
			return -1;
		v[i] = (uint16_t)n;
		if (i < 3 && *s++ != '.')
			return -1;
	}
	/* a FileVersion string may go on after the number ("31.0.15.5161 (r550_00-...)") */
	return *s == '\0' || *s == ' ' ? 0 : -1;
}

int nv_driver_from_string(const char *s, struct nv_driver_version *out, char **why)
{
	uint16_t v[4];
	*why = NULL;
	if (!s || parse4(s, v)) {
		*why = xasprintf("\"%s\" is not a file version (four numbers A.B.C.D)", s ? s : "");
		return -1;
	}
	return nv_driver_from_file_version(v, out, why);
}

int nv_driver_parse(const char *s, struct nv_driver_version *out)
{
	unsigned long a = 0, b = 0;
	int da = 0, db = 0;
	while (*s >= '0' && *s <= '9' && da < 4) {
		a = a * 10 + (unsigned long)(*s++ - '0');
		da++;
	}
	if (!da || *s++ != '.')
		return -1;
	while (*s >= '0' && *s <= '9' && db < 3) {
		b = b * 10 + (unsigned long)(*s++ - '0');
		db++;
	}
	/* Windows driver versions have two digits after the dot (551.61); Linux ones may go on (570.124.06) */
	if (db != 2 || *s)
		return -1;
	out->major = (unsigned)a;
	out->minor = (unsigned)b;
	return 0;
}

int nv_driver_cmp(const struct nv_driver_version *a, const struct nv_driver_version *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	return 0;
}

char *nv_driver_str(const struct nv_driver_version *v)
{
	return xasprintf("%u.%02u", v->major, v->minor);
}

const struct gpu_adapter *gpu_driver_nvidia_adapter(const struct gpu_driver *g)
{
	size_t i;
	for (i = 0; i < g->nadapters; i++)
		if (g->adapters[i].nvidia && g->adapters[i].has_nv)
			return &g->adapters[i];
	return NULL;
}

/* The version resource of System32\nvcuda.dll. */
static void read_nvcuda(struct gpu_driver *g, struct view *v)
{
	char *wp = NULL, *host;
	struct pe_image *img = NULL;
	struct err e;
	if (view_find_file(v, view_system32(v), "nvcuda.dll", &wp) != 1) {
		free(wp);
		return;
	}
	g->nvcuda_path = wp;
	host = view_host_path(v, wp);
	if (!host) {
		g->nvcuda_error = xstrdup("outside the view");
		return;
	}
	err_clear(&e);
	if (pe_open(&img, host, PE_VERSION | PE_LENIENT, &e)) {
		g->nvcuda_error = xstrdup(e.msg);
		free(host);
		return;
	}
	free(host);
	g->nvcuda_machine = img->machine;
	if (img->version.present && img->version.has_fixed) {
		g->nvcuda_has_version = 1;
		memcpy(g->nvcuda_ver, img->version.file, sizeof(g->nvcuda_ver));
	}
	if (img->version.file_version_str)
		g->nvcuda_version_string = xstrdup(img->version.file_version_str);
	if (img->version.company_name)
		g->nvcuda_company = xstrdup(img->version.company_name);
	pe_close(img);

	if (!g->nvcuda_has_version) {
		g->version_problem = xstrdup("nvcuda.dll has no version resource (VS_FIXEDFILEINFO)");
		return;
	}
	if (nv_driver_from_file_version(g->nvcuda_ver, &g->driver, &g->version_problem))
		return;
	if (g->nvcuda_version_string) {
		uint16_t sv[4];
		if (parse4(g->nvcuda_version_string, sv) || memcmp(sv, g->nvcuda_ver, sizeof(sv))) {
			/* a resource that says two things: believe neither */
			g->version_problem = xasprintf("the fixed file version %u.%u.%u.%u and the FileVersion string "
						       "\"%s\" disagree",
						       g->nvcuda_ver[0], g->nvcuda_ver[1], g->nvcuda_ver[2],
						       g->nvcuda_ver[3], g->nvcuda_version_string);
			return;
		}
	}
	g->has_driver = 1;
	if (g->nvcuda_company && !strstr(g->nvcuda_company, "NVIDIA"))
		strlist_pushf(&g->notes, "System32\\nvcuda.dll names \"%s\" as its company, not NVIDIA", g->nvcuda_company);
}

static const char *vendor_of_provider(const char *provider)
{
	size_t i;
	for (i = 0; provider && i < sizeof(vendors) / sizeof(vendors[0]); i++)
		if (!strncmp(provider, vendors[i].provider, strlen(vendors[i].provider)))
			return vendors[i].vendor;
	return NULL;
}

static const char *runtime_vendor(const char *name)
{
	size_t i, n;
	if (!str_iendswith(name, ".dll"))
		return NULL;
	for (i = 0; i < sizeof(runtime_files) / sizeof(runtime_files[0]); i++) {
		n = strlen(runtime_files[i].name);
		if (runtime_files[i].name[n - 1] == '*' ? !str_nicmp(name, runtime_files[i].name, n - 1)
							: !str_icmp(name, runtime_files[i].name))
			return runtime_files[i].vendor;
	}
	return NULL;
}

/* One runtime file's version resource (fixed file version, CompanyName). */
static void read_runtime(struct gpu_driver *g, struct view *v, const char *name, const char *vendor)
{
	struct gpu_runtime *r;
	struct pe_image *img = NULL;
	struct err e;
	char *host;
	ALLOC_GROW(g->runtimes, g->nruntimes + 1, g->aruntimes);
	r = &g->runtimes[g->nruntimes++];
	memset(r, 0, sizeof(*r));
	r->path = winpath_join(view_system32(v), name);
	r->vendor = vendor;
	host = view_host_path(v, r->path);
	err_clear(&e);
	if (!host) {
		r->error = xstrdup("outside the view");
	} else if (pe_open(&img, host, PE_VERSION | PE_LENIENT, &e)) {
		r->error = xstrdup(e.msg);
	} else {
		if (img->version.present && img->version.has_fixed) {
			char buf[WINVER_DOTTED_MAX];
			r->file_version = xstrdup(winver_dotted(buf, img->version.file));
		}
		if (img->version.company_name) {
			/* bounded like a registry value, never inside a UTF-8 sequence (xstrndup copies n bytes) */
			const char *c = img->version.company_name;
			size_t n = strlen(c);
			if (n > GPU_MAX_VALUE)
				for (n = GPU_MAX_VALUE; n && ((unsigned char)c[n] & 0xC0) == 0x80; n--)
					;
			r->company = xstrndup(c, n);
		}
		pe_close(img);
	}
	free(host);
}

/* System32's amdhip64*.dll, ze_loader.dll, igdrcl64.dll, in listing order, at most GPU_MAX_RUNTIMES. */
static void read_runtimes(struct gpu_driver *g, struct view *v)
{
	struct strlist names = STRLIST_INIT;
	struct err e;
	size_t i, over = 0;
	err_clear(&e);
	if (view_list_dir(v, view_system32(v), &names, &e)) {
		strlist_release(&names);
		return;
	}
	for (i = 0; i < names.n; i++) {
		const char *vendor = runtime_vendor(names.v[i]);
		if (!vendor)
			continue;
		if (g->nruntimes == GPU_MAX_RUNTIMES) {
			over++;
			continue;
		}
		read_runtime(g, v, names.v[i], vendor);
	}
	if (over)
		strlist_pushf(&g->notes, "System32 has %zu more GPU runtime files than the %d read", over, GPU_MAX_RUNTIMES);
	strlist_release(&names);
}

static char *reg_str(struct gpu_driver *g, struct view *v, const char *key, const char *value, struct err *e)
{
	struct strbuf sb;
	char *out = NULL;
	strbuf_init(&sb);
	if (view_reg_get(v, key, value, 64, &sb, e) == 0) {
		if (sb.len > GPU_MAX_VALUE) {
			size_t n = GPU_MAX_VALUE;
			while (n && ((unsigned char)sb.buf[n] & 0xC0) == 0x80)
				n--; /* not inside a UTF-8 sequence */
			strlist_pushf(&g->notes, "HKLM\\%s: %s is %zu bytes long: only its first %zu were read", key, value,
				      sb.len, n);
			out = xstrndup(sb.buf, n);
		} else {
			out = strbuf_detach(&sb);
		}
	}
	strbuf_release(&sb);
	return out;
}

static int read_adapters(struct gpu_driver *g, struct view *v, struct err *err)
{
	struct strlist subs = STRLIST_INIT;
	size_t i;
	int r;
	if (!view_has_registry(v))
		return 0;
	g->registry_read = 1;
	g->registry_source = xstrdup(view_registry_source(v));
	r = view_reg_subkeys(v, GPU_DISPLAY_CLASS_KEY, 64, &subs, err);
	if (r < 0)
		return -1;
	for (i = 0; r == 0 && i < subs.n; i++) {
		/* adapter instances are four digits (0000, 0001); "Properties" and others are not adapters */
		const char *s = subs.v[i];
		char *key;
		struct gpu_adapter *a;
		struct err e;
		if (strlen(s) != 4 || strspn(s, "0123456789") != 4)
			continue;
		if (g->nadapters == GPU_MAX_ADAPTERS) {
			strlist_pushf(&g->notes, "more than %d display adapter keys: the rest were not read",
				      GPU_MAX_ADAPTERS);
			break;
		}
		key = xasprintf("%s\\%s", GPU_DISPLAY_CLASS_KEY, s);
		ALLOC_GROW(g->adapters, g->nadapters + 1, g->aadapters);
		a = &g->adapters[g->nadapters++];
		memset(a, 0, sizeof(*a));
		a->key = xasprintf("HKLM\\%s", key);
		err_clear(&e);
		a->provider = reg_str(g, v, key, "ProviderName", &e);
		a->description = reg_str(g, v, key, "DriverDesc", &e);
		a->driver_version = reg_str(g, v, key, "DriverVersion", &e);
		a->nvidia = a->provider && !strncmp(a->provider, "NVIDIA", 6);
		a->vendor = vendor_of_provider(a->provider);
		if (a->nvidia && a->driver_version) {
			char *why = NULL;
			if (nv_driver_from_string(a->driver_version, &a->nv, &why) == 0)
				a->has_nv = 1;
			else
				strlist_pushf(&g->notes, "%s: DriverVersion %s", a->key, why);
			free(why);
		} else if (a->nvidia) {
			strlist_pushf(&g->notes, "%s: an NVIDIA adapter without DriverVersion", a->key);
		}
		free(key);
	}
	strlist_release(&subs);
	return 0;
}

int gpu_driver_collect(struct gpu_driver *g, struct view *v, struct err *err)
{
	const struct gpu_adapter *a;
	read_nvcuda(g, v);
	read_runtimes(g, v);
	if (read_adapters(g, v, err))
		return -1;
	a = gpu_driver_nvidia_adapter(g);
	if (a && g->has_driver && nv_driver_cmp(&a->nv, &g->driver)) {
		char *x = nv_driver_str(&a->nv), *y = nv_driver_str(&g->driver);
		strlist_pushf(&g->notes,
			      "the NVIDIA adapter's driver is %s (%s) but System32\\nvcuda.dll is from driver %s: a leftover of "
			      "another driver install",
			      x, a->key, y);
		free(x);
		free(y);
	}
	if (g->registry_read && !a && g->has_driver)
		strlist_push(&g->notes, "System32\\nvcuda.dll is present but no display adapter has an NVIDIA driver");
	return 0;
}

static cJSON *ver_json(int has, const struct nv_driver_version *v)
{
	char *s;
	cJSON *j;
	if (!has)
		return cJSON_CreateNull();
	s = nv_driver_str(v);
	j = cJSON_CreateString(s);
	free(s);
	return j;
}

struct cJSON *gpu_driver_to_json(const struct gpu_driver *g)
{
	cJSON *o = cJSON_CreateObject(), *nv = cJSON_CreateObject(), *ad = cJSON_CreateArray();
	size_t i;
	json_add_str_or_null(nv, "path", g->nvcuda_path);
	cJSON_AddBoolToObject(nv, "present", g->nvcuda_path != NULL);
	json_add_str_or_null(nv, "error", g->nvcuda_error);
	if (g->nvcuda_has_version) {
		char buf[WINVER_DOTTED_MAX];
		cJSON_AddStringToObject(nv, "file_version", winver_dotted(buf, g->nvcuda_ver));
	} else {
		cJSON_AddNullToObject(nv, "file_version");
	}
	json_add_str_or_null(nv, "file_version_string", g->nvcuda_version_string);
	json_add_str_or_null(nv, "company", g->nvcuda_company);
	cJSON_AddItemToObject(nv, "driver_version", ver_json(g->has_driver, &g->driver));
	json_add_str_or_null(nv, "version_problem", g->version_problem);
	cJSON_AddItemToObject(o, "nvcuda", nv);
	cJSON_AddBoolToObject(o, "registry_read", g->registry_read);
	for (i = 0; i < g->nadapters; i++) {
		const struct gpu_adapter *a = &g->adapters[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "key", a->key);
		json_add_str_or_null(j, "provider", a->provider);
		json_add_str_or_null(j, "description", a->description);
		json_add_str_or_null(j, "driver_version_raw", a->driver_version);
		json_add_str_or_null(j, "vendor", a->vendor);
		cJSON_AddItemToObject(j, "nvidia_driver", ver_json(a->has_nv, &a->nv));
		cJSON_AddItemToArray(ad, j);
	}
	cJSON_AddItemToObject(o, "adapters", ad);
	ad = cJSON_AddArrayToObject(o, "runtimes");
	for (i = 0; i < g->nruntimes; i++) {
		const struct gpu_runtime *r = &g->runtimes[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "path", r->path);
		cJSON_AddStringToObject(j, "vendor", r->vendor);
		json_add_str_or_null(j, "file_version", r->file_version);
		json_add_str_or_null(j, "company", r->company);
		json_add_str_or_null(j, "error", r->error);
		cJSON_AddItemToArray(ad, j);
	}
	json_add_strlist(o, "notes", &g->notes);
	return o;
}
