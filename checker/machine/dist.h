/*
 * dist: installed Python distributions, read from their .dist-info folders.
 *
 * pip records what it installed in `<name>-<version>.dist-info`: METADATA
 * (the core metadata: an RFC 822 header block, then the long description)
 * and RECORD (a CSV file, one row per installed file: `path,algo=digest,size`,
 * where digest is urlsafe base64 without padding and the row of RECORD
 * itself has an empty hash and size). Sources: the Python Packaging User
 * Guide, "Recording installed projects" (PEP 376, PEP 627) and "Core
 * metadata specifications" (Requires-Dist is a PEP 508 requirement; old
 * tools wrote the specifier in parentheses, `torch (==2.6.0)`).
 *
 * This module is the one reader of both for the checker and for the install
 * helper. It never trusts a file: every RECORD row is checked (three CSV
 * fields, a path of at most DIST_PATH_MAX bytes with no NUL or control
 * character, an `algo=digest` hash of urlsafe base64, a decimal size), a
 * RECORD is at most DIST_RECORD_MAX_BYTES and DIST_RECORD_MAX_ROWS rows,
 * and METADATA's header block at most DIST_METADATA_MAX_HEADER bytes. A
 * malformed file is an error naming `FILE:LINE`, never a partial answer.
 * A file of at most 256 KiB is read with one open, fstat and read
 * (os_read_small_file; a link or another letter case is asked of the view);
 * a larger one is mapped (os_map_file), and of METADATA only the header
 * pages are touched.
 *
 * A RECORD path is relative to the folder holding the .dist-info (the
 * site-packages); `..` may climb to the environment's root (`../../Scripts`),
 * never above it: a path that resolves outside the environment, or an
 * absolute one, is refused and said (dist_record_resolve).
 *
 * dist_set_read() lists the distributions of one site-packages folder: for
 * each .dist-info its name and version (METADATA, else the folder name, with
 * a note), its Requires-Dist, and its native binaries (.pyd, .dll) from
 * RECORD — or, when there is no RECORD (or it is unreadable), from a bounded
 * walk of its top-level packages (top_level.txt, else the normalised name),
 * with a note saying so and how.
 */
#ifndef TDC_DIST_H
#define TDC_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/os.h"
#include "util/strbuf.h"

struct view;

#define DIST_RECORD_MAX_BYTES (64u << 20)  /* torch 2.9.1's RECORD is 1.2 MB, 11553 rows */
#define DIST_RECORD_MAX_ROWS 1000000
#define DIST_METADATA_MAX_HEADER (1u << 20)
#define DIST_PATH_MAX 4096
#define DIST_MAX_REQUIRES 10000
#define DIST_MAX_BINARIES 20000           /* per distribution; more is said, never silently cut */
#define DIST_SCAN_MAX_ENTRIES 50000       /* the walk without RECORD */
#define DIST_SCAN_MAX_DEPTH 12
#define DIST_NAME_MAX 200                 /* bytes of a distribution name */
#define DIST_SET_MAX 20000                /* .dist-info folders in one site-packages */
/* RECORD bytes read for one site-packages: past it a distribution's binaries are found by the walk (said) */
#define DIST_SET_RECORD_BYTES (128u << 20)

/* One RECORD row. */
struct dist_record_row {
	char *path;      /* as written ('/' separators, usually) */
	char *algo;      /* "sha256", or NULL when the hash field is empty */
	char *digest;    /* urlsafe base64 without padding, or NULL */
	int64_t size;    /* -1 when the size field is empty */
	size_t line;     /* 1-based line of the row in RECORD */
};

struct dist_record {
	struct dist_record_row *v;
	size_t n, alloc;
};

/*
 * Parses RECORD text (Python's csv dialect: ',' separated, '"' quoted with
 * '""' for a quote, CRLF or LF rows; blank rows skipped). `name` prefixes
 * messages ("torch-2.9.1.dist-info/RECORD:12: ..."). On error *out is empty.
 */
int dist_record_parse(struct dist_record *out, const char *text, size_t len, const char *name, struct err *err);
void dist_record_release(struct dist_record *r);

/*
 * Decodes a RECORD digest (urlsafe base64 without padding; '=' padding is
 * accepted) into at most `cap` bytes. -1 on a character outside the
 * alphabet, a bad length or more than `cap` bytes.
 */
int dist_digest_decode(const char *digest, unsigned char *out, size_t cap, size_t *outlen, struct err *err);

/*
 * The Windows path a RECORD path names: `rec_path` ('/' or '\\') joined to
 * `site_packages` and normalised as Windows does (the last component loses
 * its trailing dots and spaces: "c10.dll." is c10.dll; see docs/loader.md).
 * A UTF-8 byte-order mark before a RECORD or METADATA is skipped. -1 when
 * it is absolute or a drive path,
 * or resolves outside `env_root` (the environment: the Windows folder that
 * must contain every installed file; site_packages itself when NULL).
 */
int dist_record_resolve(const char *site_packages, const char *env_root, const char *rec_path, char **out,
			struct err *err);

/* One Requires-Dist. */
struct dist_require {
	char *name;      /* as written: "torch" */
	char *extras;    /* "[a,b]" contents, or NULL */
	char *spec;      /* "==2.6.0", ">=2.0,<3" (parentheses and spaces dropped), "" when none */
	char *marker;    /* after ';', trimmed, or NULL */
	size_t line;     /* METADATA line */
};

struct dist_metadata {
	char *name;
	char *version;
	struct dist_require *requires;
	size_t nrequires, arequires;
};

/*
 * Parses METADATA's header block (it ends at the first empty line; folded
 * lines continue a header). Name and Version are required. -1 with
 * "NAME:LINE: ..." on a malformed header, a NUL byte, a block longer than
 * DIST_METADATA_MAX_HEADER, a Requires-Dist that is not a requirement.
 */
int dist_metadata_parse(struct dist_metadata *out, const char *text, size_t len, const char *name, struct err *err);
void dist_metadata_release(struct dist_metadata *m);

/* The exact version a Requires-Dist pins ("2.6.0" of "==2.6.0" or "===2.6.0"), or NULL. Caller frees. */
char *dist_require_exact(const struct dist_require *r);

/*
 * Whether `s` is a distribution name as PEP 508 defines it
 * (^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$, at most DIST_NAME_MAX bytes):
 * only such a name is ever put into a command (`pip install NAME==X`).
 */
int dist_name_valid(const char *s);
/* Whether `s` is version text (letters, digits, ".+-_!", starting with a letter or digit). */
int dist_version_valid(const char *s);

/* PEP 503 normalised name: lower case, runs of '-', '_', '.' as one '-'. Caller frees. */
char *dist_name_normalize(const char *name);
int dist_name_eq(const char *a, const char *b);

/* One installed distribution. */
struct dist {
	char *name;              /* METADATA Name, else from the folder name */
	char *version;           /* METADATA Version, else from the folder name, or NULL */
	char *dist_info;         /* Windows path of the .dist-info folder */
	struct dist_metadata meta; /* empty when METADATA is missing or unreadable */
	int has_metadata;
	int has_record;          /* RECORD was read and used */
	size_t nfiles;           /* RECORD rows (0 without RECORD) */
	struct strlist binaries; /* Windows paths of its .pyd and .dll files, RECORD order */
	struct strlist binaries_host; /* their host paths, parallel; "" where only the view knows it */
	struct strlist tops;     /* its top-level import names (top_level.txt, RECORD, else the name) */
	char *scan_note;         /* how the binaries were found without RECORD, or NULL */
	int bare;                /* a package folder no .dist-info names (a source build, a copy): not installed by
				    pip, no RECORD; dist_info is then the package folder itself, name its folder name */
	struct strlist notes;    /* problems: refused paths, unreadable METADATA, caps hit, ... */
};

struct dist_set {
	char *site_packages;     /* Windows path */
	char *sp_host;           /* its host path (offline trees), or NULL */
	struct os_dir sp_dir;    /* sp_host held open: its dist-info files and RECORD paths looked up from it */
	char *env_root;          /* the environment every RECORD path must stay inside */
	struct dist *v;
	size_t n, alloc;
	struct strlist notes;    /* set-wide: cap hit, unreadable folder */
	size_t record_bytes;     /* RECORD bytes read so far (DIST_SET_RECORD_BYTES) */
	size_t over;             /* .dist-info folders beyond DIST_SET_MAX, not read */
	size_t bare_over;        /* package folders without a .dist-info beyond DIST_BARE_MAX, not read */
};

#define DIST_BARE_MAX 64 /* package folders without a .dist-info walked in one site-packages */

/*
 * Reads every *.dist-info of `site_packages` (a Windows path of the view) in
 * listing order. `env_root` NULL: the environment's root is inferred
 * (`X\Lib\site-packages` → X, else the folder's parent). -1 only when the
 * folder cannot be listed; problems of one distribution are its notes.
 * Then the package folders no distribution names (a folder with __init__.py
 * and .pyd/.dll files under it, not `torch`): each one a `bare` dist, its
 * binaries found by the bounded walk, at most DIST_BARE_MAX (the rest said
 * in notes).
 */
int dist_set_read(struct dist_set *out, struct view *v, const char *site_packages, const char *env_root,
		  struct err *err);
void dist_set_release(struct dist_set *s);

/* The distribution named `name` (PEP 503 comparison), or one whose top-level name it is; NULL if none. */
const struct dist *dist_set_find(const struct dist_set *s, const char *name);

/* Reads and parses `<dist_info>\RECORD` of the view (mapped, bounded). */
int dist_read_record(struct view *v, const char *dist_info, struct dist_record *out, struct err *err);
/* Reads and parses `<dist_info>\METADATA` of the view (only the header pages touched). */
int dist_read_metadata(struct view *v, const char *dist_info, struct dist_metadata *out, struct err *err);

#endif
