/*
 * view_opt: the view and path handling shared by the commands that inspect
 * a machine (deps, check, inventory): --root DIR, --registry FILE,
 * --env NAME=VALUE, and paths given either as Windows paths inside the tree
 * or as host paths under it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "util/os.h"
#include "machine/regfile.h"
#include "machine/registry.h"
#include "machine/view.h"

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

void view_opts_init(struct view_opts *o)
{
	memset(o, 0, sizeof(*o));
	strlist_init(&o->registries);
	strlist_init(&o->envs);
}

void view_opts_release(struct view_opts *o)
{
	strlist_release(&o->registries);
	strlist_release(&o->envs);
}

const struct cli_opt view_cli_opts[] = {
	CLI_OPT("--root", "DIR", "a host directory standing for C:\\ (default: the live machine on Windows,\n"
		"/ elsewhere); a Wine prefix's drive_c brings its ../system.reg along, a\n"
		"mounted Windows disk its hives Windows\\System32\\config\\SOFTWARE and SYSTEM",
		cli_set_str, struct view_opts, root),
	CLI_OPT("--registry", "FILE", "the machine's HKLM: a `reg export` file (UTF-16LE or UTF-8), a Wine\n"
		"system.reg or a regf hive (SOFTWARE, SYSTEM); repeat to merge (e.g. a\n"
		"WOW6432Node export); replaces the registry --root finds",
		cli_push, struct view_opts, registries),
	CLI_OPT("--env", "NAME=VALUE", "an environment variable of the checked machine (PATH, APPDATA,\n"
		"CUDA_PATH_V12_1, ...; repeatable)",
		cli_push, struct view_opts, envs),
	CLI_END,
};

int cmd_set_scan_depth(void *dst, const char *val, struct strbuf *why)
{
	char *end;
	long d = strtol(val, &end, 10);
	if (!*val || *end || d < 1 || d > 64) {
		strbuf_adds(why, "expected a number from 1 to 64");
		return -1;
	}
	*(int *)dst = (int)d;
	return 0;
}

int view_opts_registry(const struct view_opts *o, const char *cmd, struct registry **reg)
{
	struct err e;
	size_t k;
	err_clear(&e);
	if (!o->registries.n)
		return 0;
	/* only what a check reads is kept (and the key --query asks for) */
	*reg = registry_new();
	view_registry_scope(*reg);
	if (o->also_keep)
		registry_keep(*reg, o->also_keep);
	for (k = 0; k < o->registries.n; k++) {
		if (regfile_load_more(*reg, o->registries.v[k], &e)) {
			registry_free(*reg);
			*reg = NULL;
			cmd_usage_error("%s: %s", cmd, e.msg);
			return -1;
		}
	}
	return 0;
}

int view_opts_open(const struct view_opts *o, const char *cmd, struct registry **reg, struct view **v)
{
	size_t k;
	*v = cmd_open_view(o->root);
	if (!*v)
		return -1;
	if (!*reg && view_opts_registry(o, cmd, reg))
		return -1;
	if (*reg) {
		view_attach_registry(*v, *reg);
		*reg = NULL;
	} else if (!o->unreadable_registry_ok && !strncmp(view_registry_source(*v), "none (", 6)) {
		/* the Wine prefix's system.reg is there but unreadable: an input error, not "no registry" */
		const char *msg = view_registry_source(*v) + 6; /* "none (<error>)" */
		cmd_usage_error("%s: %.*s", cmd, (int)(strlen(msg) ? strlen(msg) - 1 : 0), msg);
		return -1;
	}
	for (k = 0; k < o->envs.n; k++) {
		if (view_setenv_assignment(*v, o->envs.v[k])) {
			cmd_usage_error("%s: --env %s is not NAME=VALUE", cmd, o->envs.v[k]);
			return -1;
		}
	}
	return 0;
}

static int looks_windows(const char *p)
{
	return ((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
	       (p[2] == '\\' || p[2] == '/');
}

const char *cmd_root_hint(const struct view_opts *o, struct view *v, const char *arg)
{
	if (o->root || view_is_live(v) || !looks_windows(arg))
		return "";
	return " (without --root, C:\\ is this machine's / folder: give --root DIR, the folder that stands "
	       "for C:\\ of the Windows tree)";
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
