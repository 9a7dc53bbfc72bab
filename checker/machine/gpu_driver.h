/*
 * gpu_driver: the NVIDIA display driver of the machine checked, as far as a
 * CUDA build of torch cares about it.
 *
 * Two witnesses, read independently and compared:
 *   - the file the NVIDIA display driver installs into System32 for CUDA,
 *     nvcuda.dll (the CUDA driver API: cudart64_*.dll loads it when CUDA
 *     starts, torch's caffe2_nvrtc.dll imports it): present or not, a PE
 *     file or not, and its VS_VERSIONINFO file version;
 *   - the display adapters' driver keys in the registry,
 *     HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}\NNNN
 *     (the Display device setup class), values ProviderName, DriverDesc and
 *     DriverVersion, from a reg export, a SYSTEM hive or the live registry
 *     (all through the view).
 *
 * Display driver file versions have the form A.BB.CC.DDDD (Microsoft,
 * "File Version Formatting for Display Driver DLLs"); NVIDIA's driver
 * version is the last five digits of CC and DDDD: 31.0.15.5161 is driver
 * 551.61, 27.21.14.5239 is 452.39 ((CC - 10) * 10000 + DDDD, read as
 * NNN.NN). NVIDIA does not document the mapping; docs/inventory.md says
 * which public code reads it the same way. A version that does not fit the
 * form (CC below 10, DDDD above 9999, a fixed file version that disagrees
 * with the FileVersion string) is reported as not giving a driver version,
 * never guessed at.
 *
 * Other vendors' drivers are read the same way (docs/gpu.md): each adapter's
 * vendor from its ProviderName (AMD's "Advanced Micro Devices, Inc.",
 * Intel's "Intel Corporation"), and the runtime files their drivers put in
 * System32 for compute (AMD's HIP runtime amdhip64*.dll; Intel's Level Zero
 * loader ze_loader.dll and OpenCL driver igdrcl64.dll) with their file
 * versions and CompanyName. At most GPU_MAX_RUNTIMES files are read.
 *
 * Nothing here decides anything: judge/cuda.c compares these facts with
 * what a CUDA build needs.
 */
#ifndef TDC_GPU_DRIVER_H
#define TDC_GPU_DRIVER_H

#include <stdint.h>

#include "util/err.h"
#include "util/strbuf.h"

struct view;
struct cJSON;

/* The Display class key (relative to HKLM); view.c keeps this subtree of offline registries. */
#define GPU_DISPLAY_CLASS_KEY "SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}"

/* An NVIDIA driver version: 551.61 is {551, 61}. */
struct nv_driver_version {
	unsigned major, minor;
};

/* One display adapter's driver key. */
struct gpu_adapter {
	char *key;            /* "HKLM\\SYSTEM\\...\\{4d36e968-...}\\0000" */
	char *provider;       /* ProviderName ("NVIDIA", "Advanced Micro Devices, Inc.", "Microsoft"), or NULL */
	char *description;    /* DriverDesc ("NVIDIA GeForce RTX 4090"), or NULL */
	char *driver_version; /* DriverVersion as stored ("31.0.15.5161"), or NULL */
	int nvidia;           /* the provider is NVIDIA */
	const char *vendor;   /* "nvidia", "amd", "intel" from the provider, or NULL (static) */
	int has_nv;           /* nv is the NVIDIA driver version DriverVersion means */
	struct nv_driver_version nv;
};

struct gpu_driver {
	/* System32\nvcuda.dll */
	char *nvcuda_path;        /* its Windows path when present, else NULL */
	char *nvcuda_error;       /* present but unreadable or not a PE file: why; else NULL */
	uint16_t nvcuda_machine;  /* its COFF machine, 0 when unreadable */
	int nvcuda_has_version;   /* a VS_FIXEDFILEINFO was found */
	uint16_t nvcuda_ver[4];   /* its file version */
	char *nvcuda_version_string; /* the StringFileInfo FileVersion, or NULL */
	char *nvcuda_company;     /* CompanyName, or NULL */
	int has_driver;           /* driver holds the NVIDIA driver version nvcuda.dll's version means */
	struct nv_driver_version driver;
	char *version_problem;    /* why nvcuda.dll's version resource gives no driver version, or NULL */

	/* other vendors' compute runtimes in System32 (amdhip64*.dll, ze_loader.dll, igdrcl64.dll) */
	struct gpu_runtime {
		char *path;           /* Windows path */
		const char *vendor;   /* "amd", "intel" (static) */
		char *file_version;   /* "31.0.24033.1003", or NULL (no version resource, or unreadable) */
		char *company;        /* CompanyName, or NULL */
		char *error;          /* not a readable PE file: why, or NULL */
	} *runtimes;
	size_t nruntimes, aruntimes;

	/* the registry */
	int registry_read;        /* a registry answered (offline file, hive or live) */
	char *registry_source;    /* where it came from (borrowed text copied) */
	struct gpu_adapter *adapters;
	size_t nadapters, aadapters;

	struct strlist notes;     /* inconsistencies, one sentence each */
};

void gpu_driver_init(struct gpu_driver *g);
void gpu_driver_release(struct gpu_driver *g);

/*
 * Reads both witnesses from the view. Problems with the machine (an
 * nvcuda.dll that is not PE, a key without DriverVersion) are facts recorded
 * in g, not errors; -1 only when the registry itself cannot be read.
 */
int gpu_driver_collect(struct gpu_driver *g, struct view *v, struct err *err);

/*
 * The NVIDIA driver version a display-driver file version means: 0 and *out
 * set, or -1 with a sentence in *why (caller frees) when it is not of the form.
 */
int nv_driver_from_file_version(const uint16_t ver[4], struct nv_driver_version *out, char **why);

/* The same from a dotted string ("31.0.15.5161"); -1 with *why when it is not four numbers of the form. */
int nv_driver_from_string(const char *s, struct nv_driver_version *out, char **why);

/* "551.61" from text; 0, or -1 when s is not NNN.NN (a matrix minimum). */
int nv_driver_parse(const char *s, struct nv_driver_version *out);

/* <0, 0, >0 */
int nv_driver_cmp(const struct nv_driver_version *a, const struct nv_driver_version *b);

/* "551.61" (caller frees) */
char *nv_driver_str(const struct nv_driver_version *v);

/* The adapter whose provider is NVIDIA and that carries a version, or NULL. */
const struct gpu_adapter *gpu_driver_nvidia_adapter(const struct gpu_driver *g);

/* The inventory's `gpu_driver` object (docs/inventory.md). Caller owns it. */
struct cJSON *gpu_driver_to_json(const struct gpu_driver *g);

#endif
