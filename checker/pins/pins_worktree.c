/*
 * pins_worktree: pin files from a folder on disk (see pins_worktree.h).
 */
#include "pins/pins_worktree.h"

#include <stdlib.h>
#include <string.h>

#include "util/os.h"

int pins_skip_dir(const char *name)
{
	static const char *const skip[] = { "node_modules", ".venv", "venv", ".tox", ".nox", "site-packages",
					    "__pycache__", ".git", ".mypy_cache", ".pytest_cache",
					    /* test data: deliberately odd pin files (fuzz corpora, parser fixtures) */
					    "corpus", "fixtures", "testdata", "test_data" };
	size_t i;
	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (!strcmp(name, skip[i]))
			return 1;
	return 0;
}

struct wt {
	const char *top;
	struct strlist found; /* relative paths */
	int too_many;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One folder (`rel` relative to the top, "" for the top), depth-first in name order. */
static int walk(struct wt *w, const char *rel, int depth, struct err *err)
{
	struct strlist names = STRLIST_INIT;
	char *dir = *rel ? xasprintf("%s/%s", w->top, rel) : xstrdup(w->top);
	int rc = 0;
	if (os_list_dir(dir, &names, err) < 0) {
		free(dir);
		return -1;
	}
	if (names.n > 1)
		qsort(names.v, names.n, sizeof(*names.v), cmp_str); /* a commit's tree order, not the disk's */
	for (size_t i = 0; !rc && i < names.n; i++) {
		char *path = xasprintf("%s/%s", dir, names.v[i]);
		char *sub = *rel ? xasprintf("%s/%s", rel, names.v[i]) : xstrdup(names.v[i]);
		struct os_stat st;
		if (os_lstat(path, &st) == 0) { /* 1: a link, not followed */
			if (st.type == OS_DIR && !pins_skip_dir(names.v[i]) && depth + 1 < PINS_WORKTREE_MAX_DEPTH)
				rc = walk(w, sub, depth + 1, err);
			else if (st.type == OS_FILE && req_kind_of_path(sub) != REQ_NONE) {
				if (w->found.n >= PINS_MAX_FILES) {
					w->too_many = 1;
					rc = err_set(err, "more than %d pin files in %s; refusing to read them all",
						     PINS_MAX_FILES, w->top);
				} else {
					strlist_push_owned(&w->found, sub);
					sub = NULL;
				}
			}
		}
		free(sub);
		free(path);
	}
	strlist_release(&names);
	free(dir);
	return rc;
}

/* pins_read_fn over the folder: regular files only, REQ_MAX_FILE_SIZE at most. */
static int read_file(void *ctx, const char *path, struct strbuf *out, struct err *err)
{
	const struct wt *w = ctx;
	char *full;
	struct os_stat st;
	int rc;
	if (path[0] == '/' || !strcmp(path, "..") || !strncmp(path, "../", 3) || strstr(path, "/../"))
		return 1; /* outside the tree: includes are followed inside it only */
	full = xasprintf("%s/%s", w->top, path);
	if (os_lstat(full, &st) != 0 || st.type != OS_FILE) {
		free(full);
		return 1;
	}
	rc = os_read_file(full, REQ_MAX_FILE_SIZE, out, err) < 0 ? -1 : 0;
	free(full);
	return rc;
}

int pinset_load_worktree(struct pinset *ps, const char *dir, struct err *err)
{
	struct wt w;
	int rc;
	memset(&w, 0, sizeof(w));
	w.top = dir;
	strlist_init(&w.found);
	rc = walk(&w, "", 0, err);
	if (!rc)
		rc = pinset_load(ps, &w.found, read_file, &w, err);
	strlist_release(&w.found);
	return rc;
}
