/*
 * pip_target: a --target folder's Library\bin (see pip_target.h).
 */
#include "judge/pip_target.h"

#include <stdlib.h>
#include <string.h>

#include "loader/torchproc.h"
#include "machine/winpath.h"
#include "util/strbuf.h"

int pip_target_layout(const struct inv_install *in)
{
	return in && in->site_packages && !in->python && (!in->kind || !strcmp(in->kind, "unknown"));
}

/* The folders this release's torch adds, as its __init__.py names them, in order. */
static void release_folders(struct strbuf *sb, const struct torch_proc *p)
{
	static const char *const said[TORCH_FOLDER_COUNT] = {
		[TORCH_FOLDER_LIB] = "torch\\lib",
		[TORCH_FOLDER_PREFIX] = "sys.exec_prefix\\Library\\bin",
		[TORCH_FOLDER_BASE_PREFIX] = "a venv's sys.base_exec_prefix\\Library\\bin",
		[TORCH_FOLDER_USERBASE] = "the user base's Library\\bin",
		[TORCH_FOLDER_PREFIX_BIN] = "sys.exec_prefix\\bin",
	};
	size_t i;
	for (i = 0; p && i < p->nfolders; i++)
		if (p->folders[i] < TORCH_FOLDER_COUNT)
			strbuf_addf(sb, "%s%s", i ? ", " : "", said[p->folders[i]]);
}

void pip_target_judge(struct findings *out, const struct torch_run *run, struct view *v,
		      const struct inv_install *in)
{
	char *lb;
	size_t i;
	if (!pip_target_layout(in))
		return;
	lb = winpath_join(in->site_packages, "Library\\bin");
	if (!view_is_dir(v, lb)) {
		free(lb);
		return;
	}
	for (i = 0; i < out->n; i++) {
		struct finding *f = &out->v[i];
		struct strbuf why = STRBUF_INIT, folders = STRBUF_INIT;
		char *there, *fix;
		if (f->rule != RULE_MISSING_DLL || !f->leaf || !f->install || str_icmp(f->install, run->torch_dir))
			continue;
		there = winpath_join(lb, winpath_basename(f->leaf));
		if (!view_is_file(v, there)) {
			free(there);
			continue;
		}
		release_folders(&folders, run->proc);
		fix = xasprintf("add %s to the DLL search before `import torch`: `import os; os.add_dll_directory(r\"%s\")` "
				"(the DLL is already installed there, in a folder torch does not search)",
				lb, lb);
		strbuf_addf(&why,
			    "%s is in %s: %s is not an environment's site-packages (no python.exe or pyvenv.cfg "
			    "above it), a `pip install --target` folder, where pip puts the wheels' data files "
			    "(mkl's DLLs) in Library\\bin. torch %s adds %s (%s), the interpreter's folders, never a "
			    "--target folder's.",
			    winpath_basename(f->leaf), lb, in->site_packages,
			    run->torch_version ? run->torch_version : "", folders.len ? folders.buf : "torch\\lib",
			    run->proc && run->proc->entry[0] ? run->proc->entry : "its torch/__init__.py");
		finding_set(&f->fix, fix);
		if (f->explanation) {
			strbuf_addf(&why, " %s", f->explanation);
			free(f->explanation);
			f->explanation = NULL;
		}
		finding_set(&f->explanation, why.buf);
		strbuf_release(&why);
		strbuf_release(&folders);
		free(fix);
		free(there);
	}
	free(lb);
}
