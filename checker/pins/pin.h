/*
 * pin: what the pin-file parsers produce — a pin (name, specifier, markers,
 * variant, where it was written: file:line:col) and a parsed file of pins
 * with its includes and indexes — and the small names of its enums. Every
 * parser (req_*.h) fills these; requirements.h is the front door that picks
 * the parser.
 */
#ifndef TDC_PIN_H
#define TDC_PIN_H

#include <stddef.h>

#include "util/err.h"
#include "util/strbuf.h"

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
	REQ_KIND_COUNT /* the formats: requirements.c's table has one entry each */
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

const char *pin_source_name(enum pin_source s);
const char *pin_form_name(enum pin_form f);

void req_file_release(struct req_file *f);


/* Whether a pin installs torch: "torch", or conda's "pytorch". */
int pin_is_torch(const struct pin *p);

#endif
