/*
 * check: the passes that judge one install, in order (see check.h).
 */
#include "judge/check.h"

#include <stdlib.h>
#include <string.h>

#include "judge/app.h"
#include "judge/cuda.h"
#include "judge/dllmain.h"
#include "judge/loader_rules.h"
#include "judge/min_windows.h"
#include "judge/pairs_gate.h"
#include "judge/conda_owner.h"
#include "judge/pip_target.h"
#include "judge/preload.h"
#include "judge/python_dll.h"
#include "judge/required.h"

static int pass_load(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)out;
	ci->in.before_torch = ext_check_before_torch;
	ci->in.before_ctx = &ci->xc;
	if (torch_run(&ci->run, env->v, &ci->in, e))
		return -1;
	ext_check_after_torch(&ci->xc, ci->run, env->v);
	if (ci->xc.first_error)
		return err_set(e, "%s", ci->xc.first_error);
	return 0;
}

static int pass_readable(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	const char *why = loader_host_error(ci->run->ld) ? loader_host_error(ci->run->ld) : view_host_error(env->v);
	(void)out;
	return why ? err_set(e, "cannot read the tree: %s", why) : 0;
}

static int pass_dllmain(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)e;
	dllmain_judge(out, ci->run, env->v, env->m, ci->install);
	return 0;
}

static int pass_loader(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)env;
	(void)e;
	loader_rules(out, ci->run);
	return 0;
}

static int pass_policy(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	struct policy_input pin;
	memset(&pin, 0, sizeof(pin));
	pin.matrix = env->m;
	pin.inv = env->inv;
	pin.install = ci->install;
	pin.run = ci->run;
	return policy_evaluate(out, &ci->verdict, env->v, &pin, e);
}

static int pass_app(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)e;
	app_judge(out, ci->run, env->v);
	return 0;
}

static int pass_required(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)e;
	required_judge(out, env->m, ci->run, env->v, ci->install);
	pip_target_judge(out, ci->run, env->v, ci->install); /* a --target folder's Library\bin: not `pip install` */
	conda_owner_judge(out, ci->run, env->v, ci->install); /* a DLL another conda package installed: named */
	python_dll_judge(out, ci->run); /* a 127 on pythonXY.dll: another Python, not another DLL */
	preload_judge(out, env->m, ci->run); /* TheRock's torch\_rocm_init.py: its failure, and amdhip64 from wheels */
	return 0;
}

static int pass_cuda(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	return cuda_judge_install(out, env->m, &env->inv->gpu, ci->install, ci->run, e);
}

static int pass_windows(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)e;
	min_windows_judge(out, ci->verdict.row, ci->verdict.version, env->windows, ci->in.torch_dir);
	return 0;
}

static int pass_record(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)e;
	record_judge(out, &ci->record, ci->run, env->v, ci->install, env->verify_hashes);
	return 0;
}

static int pass_extensions(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)env;
	(void)e;
	ext_check_findings(&ci->xc, out, ci->run, ci->verdict.version, ci->verdict.row);
	return 0;
}

static int pass_ext_record(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)e;
	record_judge_extensions(out, &ci->ext_records, ci->run, env->v, &ci->xc, env->verify_hashes);
	return 0;
}

static int pass_commit(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e)
{
	(void)e;
	commit_judge(out, &ci->commit, ci->run, env->memory, env->processes);
	return 0;
}

/* The passes, in the order they run; what each reads and adds: check.h. */
static const struct check_pass {
	const char *name;
	int (*run)(struct check_install *ci, struct findings *out, const struct check_env *env, struct err *e);
	int needs_verdict; /* skipped once a pass failed */
} check_passes[] = {
	{ "load", pass_load, 0 },
	{ "readable", pass_readable, 0 },
	{ "dllmain", pass_dllmain, 0 },
	{ "loader", pass_loader, 0 },
	{ "policy", pass_policy, 0 },
	{ "required", pass_required, 1 },
	{ "cuda", pass_cuda, 1 },
	{ "windows", pass_windows, 1 },
	{ "record", pass_record, 1 },
	{ "app", pass_app, 0 },
	{ "extensions", pass_extensions, 0 },
	{ "ext-record", pass_ext_record, 1 },
	{ "commit", pass_commit, 0 },
};

#define NPASSES (sizeof(check_passes) / sizeof(check_passes[0]))

const char *check_pass_name(size_t i)
{
	return i < NPASSES ? check_passes[i].name : NULL;
}

int check_install_run(struct check_install *ci, struct findings *out, const struct check_env *env,
		      const struct inv_install *install, const struct torch_inputs *in, struct err *err)
{
	size_t i;
	int failed = 0;
	memset(ci, 0, sizeof(*ci));
	ci->install = install;
	ci->in = *in;
	ext_check_init(&ci->xc, env->import_first, env->m);
	ci->xc.sys_path = env->sys_path;
	for (i = 0; i < NPASSES; i++) {
		if (failed && check_passes[i].needs_verdict)
			continue;
		if (check_passes[i].run(ci, out, env, err)) {
			if (i < 2) { /* load, readable: no facts to judge */
				ext_check_restore_path(&ci->xc, env->v);
				return -1;
			}
			failed = 1;
		}
	}
	ci->judged = !failed;
	ext_check_restore_path(&ci->xc, env->v);
	return failed ? -1 : 0;
}

/* Whether Windows path `p` is `dir` or below it (case-insensitively). */
static int win_under(const char *p, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	return n && !str_nicmp(p, dir, n) && (!p[n] || p[n] == '\\' || dir[n - 1] == '\\');
}

/*
 * The install a link belongs to: the one whose torch folder, python folder or
 * application folder holds it, else the only install; NULL when neither.
 */
static const char *link_install(struct check_install *const *installs, size_t ninstalls, const char *win)
{
	size_t i;
	for (i = 0; i < ninstalls; i++) {
		const struct torch_run *in = installs[i]->run;
		char *pydir = in->python_exe ? winpath_dirname(in->python_exe) : NULL;
		int hit = pydir && win_under(win, pydir);
		free(pydir);
		if (hit || win_under(win, in->torch_dir) || win_under(win, in->app_dir))
			return in->torch_dir;
	}
	return ninstalls == 1 ? installs[0]->run->torch_dir : NULL;
}

void check_outside_links(struct findings *out, struct view *v, struct check_install *const *installs, size_t ninstalls)
{
	size_t i, n = view_outside_links(v, 0, NULL, NULL);
	for (i = 0; i < n; i++) {
		const char *win, *target;
		char *title, *msg;
		const char *base;
		int binary;
		view_outside_links(v, i, &win, &target);
		base = winpath_basename(win);
		binary = str_iendswith(base, ".dll") || str_iendswith(base, ".pyd");
		title = xasprintf("%s is a link outside --root: not followed", win);
		msg = xasprintf("%s is a symbolic link (or junction) to %s, outside the tree checked (--root). "
				"Nothing outside --root is read: the check treats %s as absent, so the verdicts "
				"that need it are those of a machine without it.",
				win, target, base);
		finding_add(out, RULE_LINK_OUTSIDE_ROOT, SEV_DEFAULT,
			    &(struct finding_spec){
				    .title = title, .message = msg,
				    .fix = "put the real file or folder in the tree (copy it, or hard-link it) instead "
					   "of a link that leaves --root, or give a --root that contains both",
				    .install = link_install(installs, ninstalls, win), .binary = binary ? win : NULL,
				    .leaf = win, .path = win });
		free(title);
		free(msg);
	}
}

int check_gate(struct findings *out, struct gate_report *gr, const struct gate_pins *g, const struct matrix *m,
	       const struct gate_runner *r, int force, struct err *err)
{
	size_t i;
	const struct inventory *inv = r->inv;
	if (gate_judge(out, gr, g, m, r, force, err) < 0)
		return -1;
	for (i = 0; inv && i < inv->ninstalls; i++)
		gate_installed(out, g, inv->installs[i].torch_dir,
			       inv->installs[i].version ? inv->installs[i].version : inv->installs[i].metadata_version);
	/* the torch/extension pairs the head pins, when the gate judged the head at all */
	if (gr->judged)
		gate_extension_pairs(out, &g->head);
	return 0;
}

int check_confirm(struct check_install *ci, struct findings *out, const struct confirm_opts *o, struct err *err)
{
	struct confirm_prediction p;
	int r;
	confirm_predict(&p, ci->run);
	r = confirm_run(out, &p, &ci->confirm, o, err);
	confirm_prediction_release(&p);
	return r;
}

void check_install_release(struct check_install *ci)
{
	ext_check_release(&ci->xc, NULL); /* its PATH was restored after the last pass */
	torch_run_free(ci->run);
	ci->run = NULL;
	record_summary_release(&ci->record);
	record_summaries_release(&ci->ext_records);
	confirm_result_release(&ci->confirm);
	commit_summary_release(&ci->commit);
}
