/*
 * torchproc: the measured procedures, one row each (see torchproc.h). The
 * rows follow matrix/evidence/torch-win_amd64-init.txt: change them only
 * with a new survey (tests/wheels/survey_init.py over the wheels).
 */
#include "loader/torchproc.h"

#include <stddef.h>
#include <stdint.h>

#include "util/version.h"

static const struct torch_proc procs[] = {
	{ "1.7.1", "torch/__init__.py:59 of torch 1.7.1", 0, 0, 1, 0, 1 },
	{ "1.10.0", "torch/__init__.py:67 of torch 1.10.0", 0, 0, 1, 0, 0 },
	{ "2.3.1", "torch/__init__.py:83 of torch 2.3.1 (user base: line 72)", 1, 0, 1, 0, 0 },
	{ "2.6.0", "torch/__init__.py:183 of torch 2.6.0 (ARM64: line 233)", 1, 0, 1, 1, 0 },
	{ "2.8.0", "torch/__init__.py:197 of torch 2.8.0 (exec_prefix\\bin: line 186; no NVTX)", 1, 1, 0, 1, 0 },
	{ "2.9.0", "torch/__init__.py:184 of torch 2.9.0 (NVTX again: line 223)", 1, 1, 1, 1, 0 },
};
#define NPROCS (sizeof(procs) / sizeof(procs[0]))

/* Each measured release's line of `dll_paths = ...` in its torch/__init__.py (the evidence file's `lines`). */
static const struct { const char *release; unsigned line; } measured_lines[] = {
	{ "1.7.1", 59 }, { "1.8.0", 65 }, { "1.8.1", 65 }, { "1.9.0", 66 }, { "1.9.1", 66 }, { "1.10.0", 67 },
	{ "1.10.1", 67 }, { "1.10.2", 67 }, { "1.11.0", 69 }, { "1.12.0", 72 }, { "1.12.1", 72 }, { "1.13.0", 71 },
	{ "1.13.1", 71 }, { "2.0.0", 73 }, { "2.0.1", 73 }, { "2.1.0", 79 }, { "2.1.1", 79 }, { "2.1.2", 79 },
	{ "2.2.0", 81 }, { "2.2.1", 81 }, { "2.2.2", 81 }, { "2.3.0", 81 }, { "2.3.1", 83 }, { "2.4.0", 88 },
	{ "2.4.1", 88 }, { "2.5.0", 172 }, { "2.5.1", 172 }, { "2.6.0", 183 }, { "2.7.0", 179 }, { "2.7.1", 179 },
	{ "2.8.0", 197 }, { "2.9.0", 184 }, { "2.9.1", 184 }, { "2.10.0", 183 }, { "2.11.0", 188 },
	{ "2.12.0", 190 }, { "2.12.1", 190 }, { "2.13.0", 191 }, { "2.14.0", 212 }, { "2.14.1", 212 },
	{ "2.15.0", 222 },
};

#define NEWEST_MEASURED "2.15.0"

const char *torch_proc_newest_measured(void)
{
	return NEWEST_MEASURED;
}

/* a <=> b on the release numbers only (local labels and pre-releases aside: a procedure is a release's). */
static int release_cmp(const struct pep440 *a, const struct pep440 *b)
{
	size_t i, n = a->nrelease > b->nrelease ? a->nrelease : b->nrelease;
	for (i = 0; i < n; i++) {
		uint64_t x = i < a->nrelease ? a->release[i] : 0, y = i < b->nrelease ? b->release[i] : 0;
		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

unsigned torch_proc_line(const char *version)
{
	struct pep440 v, r;
	struct err e;
	size_t i;
	if (!version || pep440_parse(&v, version, &e))
		return 0;
	for (i = 0; i < sizeof(measured_lines) / sizeof(measured_lines[0]); i++)
		if (!pep440_parse(&r, measured_lines[i].release, &e) && !release_cmp(&v, &r))
			return measured_lines[i].line;
	return 0;
}

const struct torch_proc *torch_proc_for(const char *version, int *exact)
{
	struct pep440 v, since, newest;
	struct err e;
	size_t i;
	*exact = 0;
	if (!version || pep440_parse(&v, version, &e) || pep440_parse(&newest, NEWEST_MEASURED, &e))
		return &procs[NPROCS - 1];
	for (i = NPROCS; i-- > 0;) {
		if (pep440_parse(&since, procs[i].since, &e))
			continue;
		if (release_cmp(&v, &since) >= 0) {
			*exact = release_cmp(&v, &newest) <= 0;
			return &procs[i];
		}
	}
	return &procs[0];
}
