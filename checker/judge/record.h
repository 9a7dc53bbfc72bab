/*
 * record: the install as pip wrote it down, against the disk.
 *
 * pip records every file it installed in `torch-X.dist-info\RECORD` (path,
 * sha256, size; "Recording installed projects", PEP 376 / PEP 627; read by
 * machine/dist). What differs on the disk says what happened after pip:
 *   - a file RECORD lists that is gone: deleted after install — antivirus
 *     quarantine is the usual cause (a quarantined c10.dll is not "a DLL to
 *     install", it is torch's own file to restore): deleted-after-install,
 *     an error for a .dll/.pyd, with the reinstall command; the loader's
 *     missing-dll findings on that file get the same fix;
 *   - a size that differs (and with --verify-hashes a sha256 that differs):
 *     changed-after-install;
 *   - a .dll or .pyd torch loads that RECORD does not list: a leftover of
 *     another install (a c10_cuda.dll beside a CPU build, an old caffe2_*.dll):
 *     leftover-binary, and a load failure (126/127/182) whose failing binary
 *     or leaf is a leftover names it in its fix;
 *   - another torch dist-info in the same folder (torch installed there
 *     twice): one torch-installed-twice finding (judge/record_twins); the
 *     binaries only its RECORD lists are counted there, not as leftovers;
 *   - a missing or unreadable RECORD, or rows refused (absolute, drive, `..`
 *     out of the environment): record-unreadable, never silently ignored.
 * Bounded: RECORD is read by machine/dist (64 MiB, 10^6 rows, 4096-byte
 * paths); one stat per row; findings are per binary up to RECORD_MAX_EACH
 * and otherwise one finding counting the rest. Hashing reads each file once
 * through a mapping whose pages are dropped as it goes.
 */
#ifndef TDC_RECORD_H
#define TDC_RECORD_H

#include "judge/extensions.h"
#include "judge/finding.h"
#include "loader/torchload.h"
#include "machine/inventory.h"
#include "machine/view.h"

#define RECORD_MAX_EACH 50 /* per-file findings of one kind; the rest are counted in one */
#define RECORD_SCAN_DEPTH 16        /* an extension's package folders: how deep leftovers are looked for */
#define RECORD_SCAN_ENTRIES 100000  /* and how many entries at most, over all its folders */

/*
 * What one RECORD comparison found (the report's `record` object,
 * docs/report-json.md). dist_info NULL: nothing was compared.
 */
struct record_summary {
	char *name, *version;   /* an extension's distribution (NULL for torch's own); version NULL: none */
	char *dist_info;        /* the .dist-info folder */
	char *error;            /* "missing", why RECORD is unreadable, or NULL */
	size_t rows, checked, deleted, changed, leftover, refused, hashed;
	unsigned long long hashed_bytes;
	int hashes;             /* sha256 compared too */
	int scan_capped;        /* RECORD_SCAN_ENTRIES entries walked: the rest not looked at */
};

/* Every extension's (record_judge_extensions); judged 0: none was looked at. */
struct record_summaries {
	struct record_summary *v;
	size_t n, alloc;
	int judged;
};

void record_summary_release(struct record_summary *s);
void record_summaries_release(struct record_summaries *l);

/*
 * Compares install's RECORD with the view into `sum` (left zeroed when the
 * install has no dist-info). `hashes`: compare sha256 too. Findings go to
 * `out`.
 */
void record_judge(struct findings *out, struct record_summary *sum, const struct torch_run *run, struct view *v,
		  const struct inv_install *install, int hashes);

/*
 * The same for every extension (and package imported first) of the run
 * (judge/extensions.h), after ext_check_findings: each distribution's RECORD
 * against the disk, a .dll/.pyd in its package folders that its RECORD does
 * not list a leftover, each finding naming that distribution with its own
 * `pip install --force-reinstall --no-deps NAME==X`; its load failures that
 * involve a deleted or leftover file get that fix, and its 126/127/193 on a
 * changed one (the failing binary, or the DLL a 127 binds to) "X was changed
 * after install: reinstall with ...". `sums` gets one summary per
 * distribution, with its name and version (judged 1 when the run has any
 * extension or package imported first).
 */
void record_judge_extensions(struct findings *out, struct record_summaries *sums, const struct torch_run *run,
			     struct view *v, const struct ext_check *xc, int hashes);

#endif
