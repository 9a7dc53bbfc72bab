/*
 * pins: the pin files of one source tree (a git revision or a folder) taken
 * together, what changed between two trees (a pull request's base and head),
 * and the seam the `check` command uses to pick the matrix row for the torch
 * a branch pins ("can the runners take it?").
 *
 * The tree is reached through a read callback, so this module knows neither
 * git nor the file system: git_repo.c reads blobs from the object database,
 * tests pass memory. Includes (-r/-c) are followed inside the same tree only,
 * each file parsed once (that is also the cycle guard), to PINS_MAX_FILES.
 */
#ifndef TDC_PINS_H
#define TDC_PINS_H

#include <stddef.h>

#include "util/err.h"
#include "matrix/matrix.h"
#include "pins/requirements.h"
#include "util/strbuf.h"

#define PINS_MAX_FILES 1000
/*
 * The bytes of pin files one revision may hold together (includes too): one
 * file is capped at REQ_MAX_FILE_SIZE, but the same 16 MiB blob at every one
 * of PINS_MAX_FILES paths would otherwise ask for 16 GiB of parsing.
 */
#define PINS_MAX_BYTES (64u << 20)

/* Where pins are read: the revisions `pins` and `check --pins` are given (the command line: pins_where_cli_opts). */
struct pins_where {
	const char *repo;              /* NULL: the current folder or a parent */
	const char *rev, *base, *head; /* one revision, or a base [and head] to compare */
	const char *event;             /* a pull request event payload naming base and head */
};

/* Reads `path` (repository-relative, '/'-separated) into out: 0 ok, 1 no such file, -1 error. */
typedef int (*pins_read_fn)(void *ctx, const char *path, struct strbuf *out, struct err *err);

struct pinset {
	struct req_file *files; /* candidates in the order given, then included files */
	size_t n, alloc;
	size_t bytes;           /* read so far, at most PINS_MAX_BYTES */
};

/*
 * Parses every path in `candidates` (found by name with req_kind_of_path)
 * and, transitively, the files their -r/-c lines include. Returns -1 on the
 * first unreadable or unparsable file (err holds "FILE:LINE:COL: message");
 * the set is then partial and must still be released.
 */
int pinset_load(struct pinset *ps, const struct strlist *candidates, pins_read_fn read, void *ctx,
		struct err *err);
void pinset_release(struct pinset *ps);

/* Number of torch pins over all files. */
size_t pinset_count_torch(const struct pinset *ps);

enum pin_change_kind { PIN_ADDED, PIN_REMOVED, PIN_CHANGED };

struct pin_change {
	enum pin_change_kind kind;
	const struct pin *base; /* NULL when added */
	const struct pin *head; /* NULL when removed; for added/changed it is the annotation anchor */
};

struct pin_changes {
	struct pin_change *v;
	size_t n, alloc;
};

const char *pin_change_name(enum pin_change_kind k);

/*
 * What changed from base to head. Pins are paired by file, name, source,
 * group and markers, then what is left by file, name, source and group (so
 * moving a line is not a change, and adding markers is one); a pair is
 * "changed" when the specifier, URL, version, variant, extras, index or
 * markers differ. Order: changed and added in head order, then removed. With torch_only, only torch pins are compared. Pointers borrow
 * from the two sets.
 */
void pinset_diff(const struct pinset *base, const struct pinset *head, int torch_only, struct pin_changes *out);
void pin_changes_release(struct pin_changes *c);

/*
 * The seam for `check`: per pin file, the one torch pin that decides what a
 * Windows runner would install, with what to look up in the matrix.
 */
struct torch_target {
	const struct pin *pin;  /* borrowed from the pinset */
	const char *file;
	const char *version;    /* exact version when pinned (lock, wheel, ==X), else NULL */
	const char *specifier;  /* PEP 440 specifier, NULL when any version goes (or untranslatable) */
	const char *variant;    /* cu121, cpu, ...; NULL: not said (PyPI's default build) */
	int on_windows;         /* 1 applies on a Windows x64 runner, 0 excluded (markers, wheel tag), -1 depends */
	int strength;           /* 4 locked, 3 wheel/URL, 2 exact ==, 1 specifier, 0 bare name */
};

/*
 * Fills *out (caller frees the array, not the strings) with one target per
 * file that pins torch: among the file's torch pins the one that applies on
 * Windows (1 before -1 before 0), then the strongest. Returns the count.
 */
size_t pinset_torch_targets(const struct pinset *ps, struct torch_target **out);

/* One torch version `check` should verify a runner against, and its matrix row. */
struct pin_probe {
	char *version;                /* canonical PEP 440 text ("2.4.0", "2.4.0+cu121") */
	const struct matrix_row *row; /* borrowed; NULL when no row covers the version */
	char *uncovered;              /* when row is NULL: matrix_select's message (which row to add) */
};

struct pin_probes {
	struct pin_probe *v;
	size_t n, alloc;
};

/*
 * The seam for `check` ("can the runners take it?"): the matrix rows what a
 * target pins can land on.
 *   - An exact version (lock, wheel, ==X) gives its one row (matrix_select
 *     with the target's variant and `arch`).
 *   - A specifier, or no specifier, can land on any version it allows. So
 *     every boundary version that either the pin or a matrix row names
 *     (">=2.4,<2.6" -> 2.4; a row "==2.4.0" -> 2.4.0; ">=2.4.1,<2.7" -> 2.4.1)
 *     and that the pin allows is probed, and each row reached once is
 *     returned. pip installs the newest release a range allows, so the last
 *     probe is the verdict and the older ones only what else can land
 *     (judge/gate.c, docs/check.md).
 * Probes are in boundary order, rows deduplicated; versions no row covers
 * are returned with row NULL and the reason. -1 (err names the pin's
 * FILE:LINE:COL) when the pinned version or specifier is not PEP 440
 * (conda and Poetry specs are translated in pin->pep440 first) or arch is bad.
 */
int pins_target_probes(const struct matrix *m, const struct torch_target *t, const char *arch,
		       struct pin_probes *out, struct err *err);
void pin_probes_release(struct pin_probes *p);

/*
 * The ids of the row's known issues that can apply to a pin of `variant` on
 * `arch` (their variant and arch conditions hold; what torch's binaries
 * import or fail to resolve is not known from a pin, so those conditions
 * count as met), appended to `ids` as "a, b". Returns how many.
 */
size_t pins_row_issues(const struct matrix_row *row, const char *variant, const char *arch, struct strbuf *ids);

/*
 * The probe version as a person reads it: a row's lower bound such as
 * ">=2.9.0.dev0" (nightlies included) is probed as 2.9.0.dev0, but pip
 * installs no pre-release unless the pin asks for one, so a range's
 * pre-release probe is shown as its release ("2.9.0"). Caller frees.
 */
char *pins_shown_version(const char *probe, const struct torch_target *t);

/*
 * What a Windows runner is held to for torch pin p on `arch`, as the
 * sentence notes and annotations end with, appended to out after `lead`
 * (nothing at all when the pin's versions are not PEP 440 or reach no row). An exact pin:
 * "Windows runners must satisfy matrix row ID (VERSION; known issues: ...)."
 * A range, as pip resolves it: "Windows runners are judged on matrix row ID
 * (VERSION), the newest release the range allows; it also allows ID
 * (VERSION), ...". A version no row covers is named with row "none".
 */
void pins_held_to(struct strbuf *out, const struct matrix *m, const struct pin *p, const char *arch,
		  const char *lead);

/* Whether a wheel platform tag can install on Windows x64 (win_amd64, any). */
int pin_platform_on_windows(const char *platform_tag);

#endif
