/*
 * git_history: audit snapshots kept in a git repository (libgit2).
 *
 * Each runner has one ref, refs/torch-dll-check/<runner>, pointing at a chain
 * of commits, one per audit. A snapshot commit's tree holds two files:
 *
 *   report.json   the JSON report (or inventory) of that audit, as written
 *   drift.json    what changed since the parent snapshot (drift.h), plus the
 *                 report's status and counts, so a timeline needs only this
 *
 * Objects are written straight into the object database: no worktree, no
 * index, no `git` program. The ref is moved with compare-and-swap (libgit2's
 * git_reference_create_matching): when another writer — a second job on
 * the same runner name, or a `git fetch` that moved the ref — got there
 * first, the snapshot is rebuilt on top of the new tip, its drift computed
 * against that tip, and the swap tried again, so no snapshot is lost and
 * none is written twice.
 *
 * Runner names are free text (self-hosted runners may be called "GPU box
 * 2"); in the ref name every byte outside [A-Za-z0-9._-] (and a leading dot)
 * is written %XX, and decoded again for display.
 */
#ifndef TDC_GIT_HISTORY_H
#define TDC_GIT_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/strbuf.h"

#define HISTORY_REF_PREFIX "refs/torch-dll-check/"

struct history;

/* Opens the repository at dir (a bare one or a working tree, or any folder inside one). */
int history_open(struct history **out, const char *dir, struct err *err);
void history_close(struct history *h);
const char *history_path(const struct history *h);

/* The ref for a runner name; -1 when the name is empty or too long (256 bytes). */
int history_ref_name(const char *runner, struct strbuf *ref, struct err *err);

/*
 * What a new snapshot's drift is computed from: the previous snapshot's
 * report text, or NULL with prev_problem saying why there is none readable
 * ("" for a runner's first snapshot). Fills drift_json (a JSON object).
 */
typedef int (*history_drift_fn)(void *ctx, const char *prev_report, size_t prev_len, const char *prev_problem,
				struct strbuf *drift_json, struct err *err);

struct history_written {
	char sha[41];        /* the new snapshot commit */
	char parent[41];     /* the previous snapshot, "" for the first */
	unsigned attempts;   /* compare-and-swap attempts it took */
	char problem[512];   /* non-empty: the previous snapshot was unreadable (the new one was still written) */
};

/*
 * Writes report as the runner's next snapshot at time `when` (seconds since
 * the epoch, UTC). -1 with err set when nothing could be written: the
 * repository is not writable, the ref is not a snapshot chain (it points at
 * something other than a commit, or is symbolic: it is left alone), or the
 * swap kept losing.
 */
int history_append(struct history *h, const char *runner, const char *report, size_t report_len, int64_t when,
		   history_drift_fn drift_fn, void *ctx, struct history_written *out, struct err *err);

struct history_entry {
	char sha[41];
	int64_t when;
	const char *drift_json; /* drift.json's text, or NULL (unreadable: problem says why) */
	size_t drift_len;
	const char *report_json; /* only when asked for */
	size_t report_len;
	const char *problem;
	/*
	 * Why the walk ends at this entry, when it ends early: unreadable, the
	 * snapshot itself cannot be read (a damaged or missing commit: problem
	 * says why, sha is what the chain names); not_fetched, its parent is
	 * not in the repository (refs fetched with --depth N: the older
	 * snapshots were not fetched). Neither is an error of the walk: the
	 * caller shows what there is and says the rest is missing.
	 */
	int unreadable, not_fetched;
};

typedef int (*history_entry_fn)(void *ctx, const char *runner, const struct history_entry *e);

/*
 * Calls fn for the runner's snapshots, newest first, following first
 * parents, at most limit of them (0: all). with_report also reads report.json.
 * fn returning non-zero stops the walk. A snapshot that cannot be read,
 * or whose parent was not fetched, is given to fn as the last entry
 * (unreadable, not_fetched). -1: no such runner, or a ref that is not a
 * snapshot chain (symbolic, or naming something other than a commit).
 */
int history_walk(struct history *h, const char *runner, size_t limit, int with_report, history_entry_fn fn,
		 void *ctx, struct err *err);

/* The runners that have snapshots (decoded names), sorted. */
int history_runners(struct history *h, struct strlist *runners, struct err *err);

#endif
