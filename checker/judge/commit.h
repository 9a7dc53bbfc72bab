/*
 * commit: what loading torch charges against the machine's commit limit,
 * and whether N processes that load it fit (docs/commit.md). WinError 1455,
 * "The paging file is too small for this operation to complete", is the
 * loader refusing to map a DLL because the commit it would charge is not
 * there: typically in a DataLoader's worker processes, each of which maps
 * torch's CUDA DLLs again.
 *
 * The charge of one process is summed over the images the emulated load
 * mapped (the loader's loaded-module list after torch's procedure, the
 * packages imported first and the extensions: loader.h), each image's from
 * its section table (pe.h, pe_commit). The limit comes from the machine's
 * memory facts (machine/memory.h: --memory, PagingFiles, the OS live, or a
 * profile), never guessed: without physical memory the finding is a note
 * that says so.
 *
 *   commit-limit          error, WinError 1455: N x charge above the limit
 *                         the paging files can reach
 *   commit-headroom       warning: above the limit at the paging files'
 *                         starting sizes, or within COMMIT_MARGIN_PCT% of
 *                         the reachable one (the process's heaps and the CUDA
 *                         context are charged too, and are not in the files)
 *   commit-limit-unknown  note: no physical memory known, when --processes
 *                         was given or one process charges COMMIT_NOTE_ALWAYS
 *                         or more (else an unknown limit is not worth a line
 *                         in every report: the install's `commit` says it)
 *
 * Only an install whose `import torch` succeeds is judged (a load that
 * fails has another root cause to fix first); its summary is kept either way.
 */
#ifndef TDC_COMMIT_H
#define TDC_COMMIT_H

#include <stddef.h>
#include <stdint.h>

#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/memory.h"

#define COMMIT_MARGIN_PCT 25
#define COMMIT_MAX_PROCESSES 4096 /* --processes */
#define COMMIT_TOP 5              /* the DLLs a finding names */
#define COMMIT_NOTE_ALWAYS ((uint64_t)4 << 30)

struct commit_image {
	char *path;        /* Windows path */
	uint64_t bytes;    /* its charge (pe_commit) */
	char *section;     /* the writable section that charges most, or NULL */
	int bounded;       /* its table claimed more than SizeOfImage */
};

struct commit_summary {
	int measured;                 /* the pass ran */
	unsigned processes;           /* N */
	int asked;                    /* --processes was given */
	uint64_t per_process;         /* the sum over every mapped image */
	size_t nmapped;               /* images mapped */
	size_t nunparsed;             /* mapped modules without a parsed image (charge unknown: counted as 0) */
	struct commit_image *images;  /* the ones that charge, largest first */
	size_t nimages;
	int limit_known;
	uint64_t limit_start, limit_reach;
	uint64_t os_limit, os_total;  /* live: the OS's own commit limit and charge now (0: unknown) */
};

/*
 * Measures the charge of run's process into `sum`, and judges `processes`
 * of them (0: not given, 1 judged) against `mem` (NULL: nothing known)
 * into `out`.
 */
void commit_judge(struct findings *out, struct commit_summary *sum, const struct torch_run *run,
		  const struct machine_memory *mem, unsigned processes);

void commit_summary_release(struct commit_summary *sum);

#endif
