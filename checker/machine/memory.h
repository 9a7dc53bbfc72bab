/*
 * memory: the machine's memory facts that bound the commit charge
 * (docs/commit.md): physical memory and the paging files. One struct, filled
 * from --memory, the registry's PagingFiles value and, live on Windows, the
 * OS (util/os.h); a machine profile can fill the same struct. Nothing here
 * judges: judge/commit.h compares a charge with memory_limits().
 *
 * PagingFiles (REG_MULTI_SZ under MEM_KEY) has one string per paging file:
 * "C:\pagefile.sys 0 0" (system-managed), "C:\pagefile.sys MIN MAX" (MB),
 * "?:\pagefile.sys" (every drive managed automatically). Hostile values are
 * bounded and said in `notes`, never a crash: at most MEM_MAX_PAGING_FILES
 * entries (Windows' own maximum), sizes clamped to MEM_MAX_PAGING_BYTES,
 * entries whose sizes are not two decimal numbers taken as system-managed
 * (the larger reading), quoted at most MEM_MAX_QUOTE bytes.
 */
#ifndef TDC_MEMORY_H
#define TDC_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "machine/view.h"
#include "util/err.h"
#include "util/strbuf.h"

#define MEM_KEY "SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management"
#define MEM_MAX_PAGING_FILES 16
#define MEM_MAX_PAGING_BYTES ((uint64_t)16 << 40) /* 16 TiB: x64's largest paging file */
#define MEM_MAX_QUOTE 80
#define MEM_GIB ((uint64_t)1 << 30)

enum paging_kind {
	PAGING_SYSTEM_MANAGED, /* "C:\pagefile.sys 0 0", or sizes not understood */
	PAGING_FIXED,          /* "C:\pagefile.sys MIN MAX" */
	PAGING_AUTOMATIC,      /* "?:\pagefile.sys": every drive, automatically */
};

struct paging_file {
	char *path;      /* as written (bounded) */
	enum paging_kind kind;
	uint64_t min, max; /* PAGING_FIXED: bytes */
};

struct machine_memory {
	uint64_t physical;      /* bytes of RAM; 0: unknown */
	char *physical_source;  /* "--memory", "the OS (GlobalMemoryStatusEx)", a profile's name, or NULL */
	int paging_known;       /* PagingFiles was read from a registry (empty: no paging file) */
	char *paging_source;    /* where (the view's registry description) */
	struct paging_file *files;
	size_t nfiles;
	size_t ndropped;        /* entries past MEM_MAX_PAGING_FILES */
	struct strlist notes;   /* what was bounded, dropped or not understood */
	uint64_t os_commit_limit, os_commit_total; /* live: the OS's own figures; 0 unknown */
};

void machine_memory_init(struct machine_memory *m);
void machine_memory_release(struct machine_memory *m);

/* Parses a PagingFiles value, its strings one per line, into m (replacing m's files). */
void memory_parse_paging(struct machine_memory *m, const char *text, size_t len);

/*
 * Reads PagingFiles through the view's registry (none, or a registry
 * without the value: paging unknown, Windows' default taken, a note) and,
 * for a live view, the OS's figures (physical memory unless m already has
 * it). 0, or -1 with err on a registry read error.
 */
int memory_read(struct machine_memory *m, struct view *v, struct err *err);

/*
 * A size as a user writes it: "16GiB", "16GB", "16G", "512MiB", "512MB",
 * "17179869184" (bytes); GB and GiB are both 2^30, as Windows counts. 0, or
 * -1 with err (not a size, 0, or more than 1 PiB).
 */
int memory_parse_size(const char *s, uint64_t *out, struct err *err);

/*
 * The commit limit (docs/commit.md, "The machine's limit"): `start`, RAM plus
 * each paging file's minimum, and `reach`, RAM plus each paging file's
 * maximum (system-managed: max(3 x RAM, 4 GiB); its initial size RAM / 8,
 * at most 32 GiB). 0, or -1 when physical memory is unknown.
 */
int memory_limits(const struct machine_memory *m, uint64_t *start, uint64_t *reach);

/* "16 GiB", "1.5 GiB", "512 MiB", "12 KiB": n bytes for a person (into out, size >= 32). */
void memory_format(char *out, size_t size, uint64_t n);

#endif
