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

#include "util/err.h"
#include "pins/pin.h"

/* Which parser a path needs, from its name; REQ_NONE if it is not a pin file. */
enum req_kind req_kind_of_path(const char *path);

/* The format's name in reports: "requirements", "pyproject", "uv.lock", ...; "none"; "?" out of range. */
const char *req_kind_name(enum req_kind k);

/*
 * Parses buf[0..len) (need not be NUL-terminated) as `kind` (REQ_NONE: from
 * the path). `f` must be zeroed or fresh; on error returns -1 with
 * "PATH:LINE:COL: message" in err, and f holds what was parsed before the
 * error (release it either way).
 */
int req_file_parse(struct req_file *f, const char *path, enum req_kind kind, const char *buf, size_t len,
		   struct err *err);

#endif
