/*
 * torchproc: the procedure as a value, and the built-in one (see torchproc.h).
 */
#include "loader/torchproc.h"

#include <stdio.h>
#include <string.h>

const char *const torch_folder_names[TORCH_FOLDER_COUNT + 1] = { "lib", "prefix", "base_prefix", "userbase",
								  "prefix_bin", NULL };
const char *const torch_vc1_names[4] = { "always", "not-arm64", "not-cuda-9.2-10.0", NULL };

int torch_proc_has(const struct torch_proc *p, enum torch_folder f)
{
	size_t i;
	for (i = 0; i < p->nfolders && i < TORCH_FOLDER_COUNT; i++)
		if (p->folders[i] == f)
			return 1;
	return 0;
}

void torch_proc_builtin(struct torch_proc *out, const char *note)
{
	size_t i;
	memset(out, 0, sizeof(*out));
	for (i = 0; i < TORCH_FOLDER_COUNT; i++)
		out->folders[i] = (unsigned char)i;
	out->nfolders = TORCH_FOLDER_COUNT;
	out->nvtx = 1;
	out->vc1 = TORCH_VC1_NOT_ARM64;
	out->anchor_c = 1;
	snprintf(out->torch, sizeof(out->torch), "built-in");
	snprintf(out->status, sizeof(out->status), "inferred");
	if (note)
		snprintf(out->note, sizeof(out->note), "%s", note);
}
