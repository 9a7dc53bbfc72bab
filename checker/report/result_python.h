/*
 * result_python: which python.exe a check is about and what `import torch`
 * picks on its sys.path, in the report document (docs/report-json.md,
 * `interpreter`): the interpreter and why it was chosen (machine/pyfind.h),
 * sys.path as CPython builds it (machine/pypath.h), every torch package on
 * it in order (the first is imported, the others are shadowed by it), and
 * the notes of what was not followed. Written from the C structs; renderers
 * read the JSON.
 */
#ifndef TDC_RESULT_PYTHON_H
#define TDC_RESULT_PYTHON_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct pypath;
struct pypath_hit;
struct strlist;

/* One torch package found on sys.path, with the version its dist-info says (or NULL). */
struct result_python_pkg {
	const struct pypath_hit *hit;
	const char *version;
};

struct result_python {
	const char *chosen_by;         /* "--python", "the first python.exe on PATH", ... */
	const struct strlist *find_notes; /* candidates passed over (pyfind), or NULL */
	const struct pypath *pp;
	const struct result_python_pkg *torch; /* in sys.path order */
	size_t ntorch;
};

/* The `interpreter` object (caller owns it). */
cJSON *result_python_json(const struct result_python *rp);

#endif
