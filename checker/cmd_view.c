/*
 * cmd_view: the view and path handling shared by the commands that inspect
 * a machine (deps, check): --root DIR, and paths given either as Windows
 * paths inside the tree or as host paths under it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "os.h"
#include "view.h"

struct view *cmd_open_view(const char *root)
{
	struct view *v = NULL;
	struct err e;
	err_clear(&e);
	if (root) {
		if (view_open_root(&v, root, &e)) {
			cmd_usage_error("%s", e.msg);
			return NULL;
		}
		return v;
	}
	if (os_is_windows()) {
		if (view_open_live(&v, &e)) {
			cmd_usage_error("%s", e.msg);
			return NULL;
		}
		return v;
	}
	/* no tree given on a non-Windows host: the host's / stands for C:\ */
	if (view_open_root(&v, "/", &e)) {
		cmd_usage_error("%s", e.msg);
		return NULL;
	}
	return v;
}

static int looks_windows(const char *p)
{
	return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
	       (p[2] == '\\' || p[2] == '/');
}

char *cmd_winpath(struct view *v, const char *arg)
{
	char *abs, *res;
	if (looks_windows(arg) || view_is_live(v))
		return winpath_normalize(arg);
	abs = os_abspath(arg);
	if (!abs) {
		cmd_usage_error("%s: cannot make the path absolute", arg);
		return NULL;
	}
	res = view_win_path(v, abs);
	if (!res) {
		char *rroot = os_abspath(view_root(v));
		/* the root itself may be given through a symlink or relative path */
		if (rroot) {
			size_t n = strlen(rroot);
			if (!strncmp(abs, rroot, n) && (abs[n] == '/' || !abs[n] || !strcmp(rroot, "/"))) {
				char *rel = xasprintf("%s%s", view_root(v), abs + n);
				res = view_win_path(v, rel);
				free(rel);
			}
			free(rroot);
		}
	}
	if (!res)
		cmd_usage_error("%s is outside the tree at %s (--root)", arg, view_root(v));
	free(abs);
	return res;
}
