/*
 * test_gpu_driver: NVIDIA driver versions from display-driver file versions
 * (pairs NVIDIA's own files carry: 31.0.15.5161 is 551.61), what is not of
 * that form, and the display adapters' keys read from an offline registry.
 */
#include "harness.h"
#include "machine/gpu_driver.h"
#include "machine/regfile.h"
#include "machine/registry.h"
#include "machine/view.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *from(uint16_t a, uint16_t b, uint16_t c, uint16_t d)
{
	static char out[256];
	uint16_t v[4] = { a, b, c, d };
	struct nv_driver_version nv;
	char *why = NULL, *s;
	if (nv_driver_from_file_version(v, &nv, &why)) {
		snprintf(out, sizeof(out), "ERR %s", why);
		free(why);
		return out;
	}
	s = nv_driver_str(&nv);
	snprintf(out, sizeof(out), "%s", s);
	free(s);
	return out;
}

static void test_file_versions(void)
{
	CHECK_STR(from(31, 0, 15, 5161), "551.61");
	CHECK_STR(from(31, 0, 15, 1694), "516.94");
	CHECK_STR(from(27, 21, 14, 5239), "452.39");
	CHECK_STR(from(32, 0, 15, 7216), "572.16");
	CHECK_STR(from(30, 0, 15, 1179), "511.79");
	CHECK_STR(from(9, 18, 13, 4788), "347.88");
	CHECK_STR(from(31, 0, 15, 5), "500.05"); /* DDDD is a number: 0005 */
	CHECK_HAS(from(1, 0, 0, 0), "not a display-driver version");
	CHECK_HAS(from(31, 0, 9, 5161), "not of NVIDIA's form");
	CHECK_HAS(from(31, 0, 15, 10000), "not of NVIDIA's form");
	CHECK_HAS(from(31, 0, 100, 1), "not of NVIDIA's form");
}

static void test_strings(void)
{
	struct nv_driver_version nv, a, b;
	char *why = NULL;
	CHECK_INT(nv_driver_from_string("31.0.15.5161", &nv, &why), 0);
	CHECK_INT(nv.major, 551);
	CHECK_INT(nv.minor, 61);
	CHECK_INT(nv_driver_from_string("31.0.15.5161 (r550_00-326)", &nv, &why), 0);
	CHECK_INT(nv_driver_from_string("31.0.15", &nv, &why), -1);
	CHECK_HAS(why, "not a file version");
	free(why);
	CHECK_INT(nv_driver_from_string("31.0.15.99999", &nv, &why), -1);
	free(why);
	CHECK_INT(nv_driver_from_string("", &nv, &why), -1);
	free(why);
	CHECK_INT(nv_driver_parse("551.61", &a), 0);
	CHECK_INT(nv_driver_parse("527.41", &b), 0);
	CHECK(nv_driver_cmp(&a, &b) > 0);
	CHECK(nv_driver_cmp(&b, &a) < 0);
	CHECK_INT(nv_driver_cmp(&a, &a), 0);
	CHECK_INT(nv_driver_parse("570.124.06", &a), -1); /* a Linux driver version */
	CHECK_INT(nv_driver_parse("551.6", &a), -1);
	CHECK_INT(nv_driver_parse("551", &a), -1);
	CHECK_INT(nv_driver_parse("x", &a), -1);
}

/* A root with an empty System32 and a reg export of two adapters: AMD and NVIDIA. */
static void test_registry_adapters(void)
{
	char root[] = "/tmp/tdc-gpu-XXXXXX", path[512];
	struct view *v = NULL;
	struct registry *reg = NULL;
	struct gpu_driver g;
	struct err err;
	FILE *f;
	static const char text[] =
		"Windows Registry Editor Version 5.00\r\n\r\n"
		"[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0000]\r\n"
		"\"ProviderName\"=\"Advanced Micro Devices, Inc.\"\r\n\"DriverDesc\"=\"AMD Radeon\"\r\n"
		"\"DriverVersion\"=\"31.0.24033.1003\"\r\n\r\n"
		"[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0001]\r\n"
		"\"ProviderName\"=\"NVIDIA\"\r\n\"DriverDesc\"=\"NVIDIA GeForce RTX 4090\"\r\n"
		"\"DriverVersion\"=\"31.0.15.5161\"\r\n\r\n"
		"[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\Properties]\r\n\r\n";
	CHECK(mkdtemp(root) != NULL);
	snprintf(path, sizeof(path), "%s/Windows", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/Windows/System32", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/reg.reg", root);
	f = fopen(path, "wb");
	CHECK(f != NULL);
	fwrite(text, 1, sizeof(text) - 1, f);
	/* an adapter whose description is 1 MB: kept to its first 256 bytes, and said (it was kept whole) */
	fputs("[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\"
	      "{4d36e968-e325-11ce-bfc1-08002be10318}\\0002]\r\n\"ProviderName\"=\"Big\"\r\n\"DriverDesc\"=\"",
	      f);
	for (int i = 0; i < 1 << 20; i++)
		fputc('d', f);
	fputs("\"\r\n\r\n", f);
	fclose(f);
	err_clear(&err);
	CHECK_INT(view_open_root(&v, root, &err), 0);
	reg = registry_new();
	view_registry_scope(reg);
	CHECK_INT(regfile_load_more(reg, path, &err), 0);
	view_attach_registry(v, reg);
	gpu_driver_init(&g);
	CHECK_INT(gpu_driver_collect(&g, v, &err), 0);
	CHECK(g.nvcuda_path == NULL);
	CHECK_INT(g.registry_read, 1);
	CHECK_INT(g.nadapters, 3); /* "Properties" is no adapter */
	CHECK_INT((long)strlen(g.adapters[2].description), 256);
	CHECK(g.notes.n >= 1 && strstr(g.notes.v[0], "DriverDesc is 1048576 bytes long: only its first 256 were read"));
	CHECK_STR(g.adapters[0].provider, "Advanced Micro Devices, Inc.");
	CHECK_INT(g.adapters[0].nvidia, 0);
	CHECK_INT(g.adapters[1].nvidia, 1);
	CHECK_INT(g.adapters[1].has_nv, 1);
	CHECK_INT(g.adapters[1].nv.major, 551);
	CHECK(gpu_driver_nvidia_adapter(&g) == &g.adapters[1]);
	gpu_driver_release(&g);
	view_free(v);
	unlink(path);
	snprintf(path, sizeof(path), "%s/Windows/System32", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/Windows", root);
	rmdir(path);
	rmdir(root);
}

int main(void)
{
	RUN(test_file_versions);
	RUN(test_strings);
	RUN(test_registry_adapters);
	return HARNESS_EXIT();
}
