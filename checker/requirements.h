/*
 * requirements: the files people pin torch in, parsed from memory, with the
 * line and column of every pin (so a pull-request annotation can point at it).
 *
 * Formats (one parser each, all bounded and refusing what they do not
 * understand with "FILE:LINE:COL: message" instead of guessing):
 *   requirements*.txt, constraints*.txt, *.in   pip's requirements file format
 *       https://pip.pypa.io/en/stable/reference/requirements-file-format/
 *       (comments, `\` continuations, -r/-c includes, -i/--extra-index-url,
 *       per-requirement --hash, PEP 508 lines, direct URLs and wheel files)
 *   pyproject.toml   PEP 621 [project] dependencies / optional-dependencies,
 *       PEP 735 [dependency-groups], [build-system] requires, Poetry
 *       [tool.poetry.*dependencies], uv's [tool.uv] dependency lists,
 *       [[tool.uv.index]] and [tool.uv.sources] (for the CUDA variant)
 *   environment.yml  conda: channels, match specs, the `- pip:` sub-list
 *   setup.cfg        [options] install_requires, [options.extras_require]
 *   Pipfile          [packages], [dev-packages], [[source]]
 *   uv.lock, poetry.lock, pdm.lock   the locked name/version pairs
 *
 * Where we depart from the tools: nothing is resolved or installed; an
 * include is reported with where it points (pins_*.c follows it inside the
 * same tree); environment variables (${VAR}) are kept verbatim; a CUDA
 * variant is inferred from the local version label (+cu121), the wheel file
 * name, the index URL (download.pytorch.org/whl/cu121) or conda's
 * pytorch-cuda/cpuonly packages and build strings, in that order.
 */
#ifndef TDC_REQUIREMENTS_H
#define TDC_REQUIREMENTS_H

#include <stddef.h>

#include "err.h"
#include "strbuf.h"

#define REQ_MAX_FILE_SIZE (16u << 20) /* larger pin files are refused (big uv.lock files reach a few MiB) */
#define REQ_MAX_PINS 100000
#define REQ_MAX_LINE 65536           /* a logical requirements line (joined) */
#define REQ_MAX_INCLUDES 256

enum req_kind {
	REQ_NONE = 0,
	REQ_REQUIREMENTS,
	REQ_CONSTRAINTS,
	REQ_PYPROJECT,
	REQ_CONDA,
	REQ_SETUP_CFG,
	REQ_PIPFILE,
	REQ_UV_LOCK,
	REQ_POETRY_LOCK,
	REQ_PDM_LOCK,
};

/* Where in its file a pin was declared. */
enum pin_source {
	PIN_SRC_REQUIREMENTS,    /* a requirements file line */
	PIN_SRC_CONSTRAINTS,     /* a constraints file line (-c) */
	PIN_SRC_PROJECT,         /* [project] dependencies */
	PIN_SRC_OPTIONAL,        /* [project.optional-dependencies].GROUP */
	PIN_SRC_GROUP,           /* [dependency-groups].GROUP */
	PIN_SRC_BUILD,           /* [build-system] requires */
	PIN_SRC_POETRY,          /* [tool.poetry.dependencies] and groups */
	PIN_SRC_UV,              /* [tool.uv] dev/constraint/override-dependencies */
	PIN_SRC_PIPFILE,         /* Pipfile [packages] / [dev-packages] */
	PIN_SRC_CONDA,           /* environment.yml dependencies */
	PIN_SRC_CONDA_PIP,       /* environment.yml `- pip:` list */
	PIN_SRC_SETUP_CFG,       /* setup.cfg install_requires / extras_require */
	PIN_SRC_LOCK,            /* a lock file's package entry */
};

/* How the pin names what to install. */
enum pin_form {
	PIN_FORM_NAME,    /* a bare name: any version */
	PIN_FORM_SPEC,    /* name + version specifier */
	PIN_FORM_URL,     /* name @ URL (not a wheel), a VCS or sdist URL, a local path */
	PIN_FORM_WHEEL,   /* a wheel file, by URL or path: its name says everything */
	PIN_FORM_LOCKED,  /* a lock file's exact version */
};

struct pin {
	char *file;        /* path as given to req_file_parse (repository-relative) */
	unsigned line, col; /* 1-based position of the package name (or URL, or locked version) */
	char *raw;         /* the requirement as written (continuations joined, comment removed) */
	char *name;        /* PEP 503-normalised: lower case, runs of -_. as '-' */
	char *extras;      /* "opt,cuda" or NULL */
	char *spec;        /* the specifier as written in the file's dialect, whitespace removed; NULL if none */
	char *pep440;      /* the same as a PEP 440 specifier (poetry ^/~, conda =X translated); NULL if none or untranslatable */
	char *version;     /* the exact version when the pin fixes one (==X, wheel, lock) */
	char *variant;     /* "cu121", "cpu", "rocm6.1", "xpu" or NULL */
	char *variant_from; /* "version", "wheel", "url", "index", "conda" */
	char *markers;     /* PEP 508 environment markers or NULL */
	char *url;         /* direct reference or NULL */
	char *index_url;   /* the index the variant came from, or the pin's declared index/source */
	char *python_tag, *abi_tag, *platform_tag; /* wheel tags or NULL */
	char *group;       /* optional-dependencies / dependency-groups / poetry group / Pipfile section */
	char *channel;     /* conda channel (pytorch::pytorch) or NULL */
	size_t n_hashes;   /* --hash options */
	enum pin_source source;
	enum pin_form form;
};

struct req_include {
	unsigned line, col;
	char *target;      /* as written */
	char *resolved;    /* relative to the including file's folder, normalised; NULL if not followable (URL, absolute, outside the tree) */
	int constraint;    /* -c rather than -r */
	int missing;       /* set by pinset_load: resolved, but no such file in the tree */
};

struct req_file {
	char *path;
	enum req_kind kind;
	struct pin *pins;
	size_t n_pins, alloc_pins;
	struct req_include *inc;
	size_t n_inc, alloc_inc;
	struct strlist indexes; /* index URLs / conda channels, in file order */
	char *included_by;      /* set by the caller when parsed only because of an include */
};

/* Which parser a path needs, from its name; REQ_NONE if it is not a pin file. */
enum req_kind req_kind_of_path(const char *path);
const char *req_kind_name(enum req_kind k);
const char *pin_source_name(enum pin_source s);
const char *pin_form_name(enum pin_form f);

/*
 * Parses buf[0..len) (need not be NUL-terminated) as `kind` (REQ_NONE: from
 * the path). `f` must be zeroed or fresh; on error returns -1 with
 * "PATH:LINE:COL: message" in err, and f holds what was parsed before the
 * error (release it either way).
 */
int req_file_parse(struct req_file *f, const char *path, enum req_kind kind, const char *buf, size_t len,
		   struct err *err);
void req_file_release(struct req_file *f);

/* Whether a pin installs torch: "torch", or conda's "pytorch". */
int pin_is_torch(const struct pin *p);

/*
 * Evaluates PEP 508 markers for a Windows x64 CPython runner: 1 true, 0
 * false, -1 unknown (depends on something else, e.g. python_version),
 * -2 syntax error. NULL or empty markers are true.
 */
int req_markers_on_windows(const char *markers);

/* Parsed wheel file name: {name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl (PEP 427). */
struct wheel_name {
	char *name, *version, *build, *python_tag, *abi_tag, *platform_tag;
};
/* Accepts a bare file name, a path or a URL (query/fragment ignored, %XX decoded). */
int wheel_name_parse(struct wheel_name *w, const char *s, struct err *err);
void wheel_name_release(struct wheel_name *w);

/* The variant label in a local version ("2.4.0+cu121" -> "cu121"), or NULL. Caller frees. */
char *req_variant_of_version(const char *version);
/* The variant an index URL serves (".../whl/cu121", ".../whl/nightly/cpu"), or NULL. Caller frees. */
char *req_variant_of_url(const char *url);

/* PEP 503 normalisation of a project name into out (reset first). */
void req_normalize_name(const char *name, size_t len, struct strbuf *out);

/* Poetry caret, tilde, bare and wildcard constraints as PEP 440 ("^2.4" -> ">=2.4,<3.0"); NULL if untranslatable. */
char *req_poetry_to_pep440(const char *spec);

#endif
