/*
 * version: the version numbers torch-dll-check compares.
 *
 *  1. PEP 440 versions and specifiers (https://peps.python.org/pep-0440/),
 *     the subset people write for torch: "2.4.0", "2.4.0+cu121",
 *     "2.5.0.dev20240801+cpu", "1!2.0rc1.post2", and specifier sets such as
 *     "==2.4.0", "==2.4.*", ">=2.4.1,<2.7", "~=2.5.0", "!=2.4.0", "===foo".
 *     Parsing accepts the spellings PEP 440 normalises (leading "v", "-"/"_"
 *     separators, "alpha"/"pre"/"preview"/"c", implicit numbers "1.0a",
 *     "1.0-1" as a post-release); comparison follows the PEP's total order
 *     (the one the `packaging` library implements).
 *     One departure, on purpose: pre-releases are NOT excluded from
 *     specifiers. PEP 440 excludes them only when choosing what to install;
 *     we classify a torch that is already installed, for which the PEP says
 *     pre-releases are accepted ("already present on the system").
 *  2. Windows file versions ("14.40.33810.0"), four 16-bit parts, as in
 *     VS_FIXEDFILEINFO; also "v14.40.33810.00" as the VC++ redistributable's
 *     registry value writes it, and short forms "14.40" / "14.40.33810".
 *  3. The torch build variant from the local label: cpu, cuXYZ, rocmX.Y, xpu.
 *
 * Errors carry the 1-based column (in bytes) inside the parsed text both in
 * the message ("at column 5") and in err->code, so a caller that knows where the
 * text sits in a file (the matrix linter) can point at the exact character.
 */
#ifndef TDC_VERSION_H
#define TDC_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"
#include "util/strbuf.h"

#define PEP440_MAX_RELEASE 20 /* "2024.8.1" needs 3; nobody needs 20 */
#define PEP440_MAX_LOCAL 64   /* "+cu121", "+rocm6.2.4", "+cpu.cxx11.abi" */
#define PEP440_MAX_TEXT 256   /* longer text is refused before parsing */

/* Pre-release kinds, in their PEP 440 order. */
enum pep440_pre { PEP440_PRE_NONE = 0, PEP440_PRE_A, PEP440_PRE_B, PEP440_PRE_RC };

struct pep440 {
	uint64_t epoch;
	uint64_t release[PEP440_MAX_RELEASE];
	size_t nrelease;               /* >= 1 */
	enum pep440_pre pre;
	uint64_t pre_n;
	int has_post;
	uint64_t post;
	int has_dev;
	uint64_t dev;
	char local[PEP440_MAX_LOCAL]; /* normalised: lower case, '.' separators; "" if none */
};

/*
 * Parses a version (surrounding whitespace allowed). 0 on success; -1 with
 * "bad version \"2.4.x\" at column 5: ..." and err->code = 5.
 */
int pep440_parse(struct pep440 *out, const char *s, struct err *err);
int pep440_parsen(struct pep440 *out, const char *s, size_t len, struct err *err);

/* PEP 440 total order: <0, 0, >0. "2.4" == "2.4.0"; "2.4.0" < "2.4.0+cpu". */
int pep440_cmp(const struct pep440 *a, const struct pep440 *b);

/* The canonical form ("2.4.0+cu121", "1!1.0rc1.post2.dev3"), appended to sb. */
void pep440_format(const struct pep440 *v, struct strbuf *sb);

/* The version without its local label (v.public in `packaging`). */
void pep440_public(struct pep440 *out, const struct pep440 *v);

int pep440_is_prerelease(const struct pep440 *v); /* has pre or dev */

/* One specifier clause. */
enum pep440_op {
	PEP440_OP_COMPATIBLE, /* ~= */
	PEP440_OP_EQ,         /* == (also ==V.*) */
	PEP440_OP_NE,         /* != (also !=V.*) */
	PEP440_OP_LE,         /* <= */
	PEP440_OP_GE,         /* >= */
	PEP440_OP_LT,         /* <  */
	PEP440_OP_GT,         /* >  */
	PEP440_OP_ARBITRARY,  /* === (string equality, case-insensitive) */
};

struct pep440_clause {
	enum pep440_op op;
	struct pep440 v;      /* unused for === */
	int wildcard;         /* ==V.* / !=V.* */
	char *arbitrary;      /* the === operand (owned), else NULL */
	size_t col;           /* 1-based column of the operator in the text */
};

/* A comma-separated set of clauses, all of which must hold. */
struct pep440_spec {
	struct pep440_clause *v;
	size_t n, alloc;
};

#define PEP440_SPEC_INIT { NULL, 0, 0 }
#define PEP440_MAX_CLAUSES 32

/*
 * Parses "==2.4.*", ">=2.4.1, <2.7", "~=2.5.0" ... An empty text is an
 * error (say ">=0" to match everything). On error, err->code is the 1-based
 * column in s. `out` must be initialised; it is left empty on error.
 */
int pep440_spec_parse(struct pep440_spec *out, const char *s, struct err *err);
void pep440_spec_release(struct pep440_spec *spec);

/*
 * Whether version v satisfies every clause. `raw` is the text v was parsed
 * from, or NULL: === matches the canonical form (as `packaging` does) or,
 * when given, that text (case-insensitively).
 */
int pep440_spec_contains(const struct pep440_spec *spec, const struct pep440 *v, const char *raw);
int pep440_clause_contains(const struct pep440_clause *c, const struct pep440 *v, const char *raw);

/* The canonical text of a specifier set (">=2.4.1,<2.7"), appended to sb. */
void pep440_spec_format(const struct pep440_spec *spec, struct strbuf *sb);

/* Windows file version: four 16-bit parts. */
struct winver {
	uint16_t part[4];
	unsigned nparts; /* how many were written (2..4); missing parts are 0 */
};

/*
 * Parses "14.40.33810.0", "v14.40.33810.00", "14.40" (2 to 4 parts, each
 * 0..65535; surrounding whitespace allowed). Errors as pep440_parse.
 */
int winver_parse(struct winver *out, const char *s, struct err *err);

/* Builds a version from VS_FIXEDFILEINFO's dwFileVersionMS/LS. */
void winver_from_ms_ls(struct winver *out, uint32_t ms, uint32_t ls);

/* Full comparison; missing parts count as 0. */
int winver_cmp(const struct winver *a, const struct winver *b);

/* winver_cmp of two dotted versions as text ("14.40.33810.0"); NULL or unparsable counts as 0.0.0.0. */
int winver_text_cmp(const char *a, const char *b);

/*
 * Prefix-minimum: whether `have` is at least `min`, comparing only the parts
 * `min` writes ("14.40" accepts any 14.40.x.y and later). For a minimum this
 * is the same as winver_cmp(have, min) >= 0 with zeros filled in; it is
 * spelled out so callers say what they mean.
 */
int winver_at_least(const struct winver *have, const struct winver *min);

/* "14.40.33810.0" (all four parts) or as written ("14.40") with all = 0. */
void winver_format(const struct winver *v, int all, struct strbuf *sb);

/* The four parts of a file version (a VS_FIXEDFILEINFO's, a registry value's) as "14.40.33810.0"; caller frees. */
char *winver_parts_str(const uint16_t part[4]);

/* torch build variants, from the local version label. */
enum torch_variant_kind {
	VARIANT_UNKNOWN = 0, /* no local label: the variant must come from elsewhere */
	VARIANT_CPU,
	VARIANT_CUDA,
	VARIANT_ROCM,
	VARIANT_XPU,
	VARIANT_OTHER,       /* a label we do not know ("+git1234"): name is kept */
};

struct torch_variant {
	enum torch_variant_kind kind;
	unsigned major, minor; /* CUDA 12.1 for cu121, ROCm 6.2 for rocm6.2.4 */
	unsigned patch;        /* ROCm's third part, if any */
	char name[32];         /* "cpu", "cu121", "rocm6.2.4", "xpu", or the first label part */
};

/*
 * The variant of a local label ("cu121", "cpu", "rocm6.1", "xpu",
 * "cpu.cxx11.abi": the first part decides). "" gives VARIANT_UNKNOWN.
 * -1 only for labels that claim a family but are malformed ("cu1", "rocm").
 */
int torch_variant_parse(struct torch_variant *out, const char *local, struct err *err);

/* "CPU", "CUDA 12.1", "ROCm 6.2", "XPU", the name for OTHER, "unknown". */
void torch_variant_describe(const struct torch_variant *v, struct strbuf *sb);

#endif
