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

/* --scan: one python.exe found with an install, and a torch on its sys.path. */
struct result_python_pair {
	const char *python;
	const char *torch_dir;
	const char *from; /* the sys.path entry's origin (pypath_entry.from: "user site", "site-packages", ...) */
	int imported;     /* the first torch on that python's sys.path; else shadowed by it */
};

/*
 * --scan: each install of the finished document gets `interpreters[]`, the
 * python.exe found by the scan whose sys.path holds it: `{python, status, from}`,
 * status "imported" or "shadowed" (docs/python.md §3).
 */
void result_python_pairs(cJSON *doc, const struct result_python_pair *pairs, size_t n);

#endif
