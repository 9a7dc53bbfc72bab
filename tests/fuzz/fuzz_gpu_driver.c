/*
 * fuzz_gpu_driver: NVIDIA driver versions read from untrusted text and files.
 * The first line of the input goes to nv_driver_from_string (a registry's
 * DriverVersion, a FileVersion string), the second to nv_driver_parse (a
 * matrix `driver`), the whole input to pe_parse with PE_VERSION as an
 * nvcuda.dll would be read, its fixed file version to
 * nv_driver_from_file_version. Besides never crashing: a version read back
 * from its printed form is the same version, and the mapping is the
 * documented one ((CC - 10) * 10000 + DDDD as NNN.NN).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/gpu_driver.h"
#include "pe/pe.h"

#include "input.h"
#include "oracle.h"

/* Printed and parsed back, the same version. */
static void round_trip(const struct nv_driver_version *v)
{
	struct nv_driver_version w;
	char *s = nv_driver_str(v);
	if (v->minor > 99 || nv_driver_parse(s, &w) || nv_driver_cmp(v, &w))
		abort();
	free(s);
}

static void check_file_version(const uint16_t ver[4])
{
	struct nv_driver_version nv;
	char *why = NULL;
	if (nv_driver_from_file_version(ver, &nv, &why) == 0) {
		unsigned merged = (unsigned)(ver[2] - 10) * 10000u + ver[3];
		if (why || nv.major != merged / 100 || nv.minor != merged % 100)
			abort();
		round_trip(&nv);
	} else if (!why || !*why) {
		abort(); /* a refusal always says why */
	}
	free(why);
}

static int fuzz_one(const uint8_t *data, size_t size)
{
	char *l0 = line_of(data, size, 0), *l1 = line_of(data, size, 1), *why = NULL;
	struct nv_driver_version nv;
	struct pe_image *img = NULL;
	struct err e;
	if (nv_driver_from_string(l0, &nv, &why) == 0)
		round_trip(&nv);
	free(why);
	if (nv_driver_parse(l1, &nv) == 0)
		round_trip(&nv);
	if (pe_parse(&img, data, size, "nvcuda.dll", PE_VERSION | PE_LENIENT, &e) == 0) {
		if (img->version.present && img->version.has_fixed)
			check_file_version(img->version.file);
		pe_close(img);
	}
	free(l0);
	free(l1);
	return 0;
}
