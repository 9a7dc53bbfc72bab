/*
 * gate_runner: the runner the pre-merge gate (gate.h) judges pins against,
 * and which copy of a runtime DLL the search on it finds.
 *
 * Which copy of a runtime DLL "wins": the search of a process started from
 * python.exe with torch's dll_paths — python.exe's folder first (a
 * python.org install's own vcruntime140.dll, a conda env root's
 * msvcp140.dll), then the env's Library\bin (a dll_paths folder, added with
 * AddDllDirectory before System32 is searched), then System32
 * (docs/loader.md). Without --python only System32 is known, and the
 * findings say so. torch\lib does not exist yet (nothing is installed), so
 * what the row says torch bundles is not looked for.
 *
 * Each DLL name is looked up and its version resource read once per run
 * (struct gate_copies); nothing here judges, prints or knows a pin.
 */
#ifndef TDC_GATE_RUNNER_H
#define TDC_GATE_RUNNER_H

#include <stddef.h>

#include "machine/inventory.h"
#include "machine/view.h"
#include "matrix/matrix.h"
#include "util/version.h"

/* The runner the pins are judged against. */
struct gate_runner {
	struct view *v;
	const struct inventory *inv; /* its redistributables (redist_read 0: no registry) */
	const char *python;          /* python.exe (Windows path), or NULL: the one gate_judge finds, if any */
	const char *arch;            /* "x64", "x86", "arm64" */
	/*
	 * Machine profiles (gate_profile.h). `profile` set: this is not the
	 * runner but that profile's machine, whose System32 holds exactly the
	 * profile's DLLs (the view is not searched). `profiles`: the user
	 * machines the gate judges each pin on besides the runner.
	 */
	const struct matrix_profile *profile;
	const struct matrix_profile *const *profiles;
	size_t nprofiles;
};

/* The copy of one DLL the search finds. */
struct gate_copy {
	char *path;        /* Windows path, NULL: not found */
	const char *where; /* "python.exe's folder", "Library\\bin", "System32" */
	int has_ver;
	struct winver ver;
	char *ver_text;    /* "14.40.33810.0" or NULL */
	char *error;       /* unreadable: why */
};

void gate_copy_release(struct gate_copy *c);

/* What the search found per DLL name, so each is looked up and read once per run. */
struct gate_copies {
	struct gate_cached {
		char *dll;
		int found;
		struct gate_copy c;
	} *v;
	size_t n, alloc;
};

void gate_copies_release(struct gate_copies *cc);

/*
 * The first copy of `dll` the search finds, through the cache: 1 found
 * (*c filled: the caller's copy, gate_copy_release it), 0 nowhere.
 */
int gate_runner_find(struct gate_copies *cc, const struct gate_runner *r, const char *dll, struct gate_copy *c);

/* Where the search looks, for messages; `from` is how python.exe was found (caller frees). */
char *gate_searched_text(const struct gate_runner *r, const char *from);

/*
 * The Python `pip install` would use here (see gate.h's gate_judge); *from
 * says where it was found. NULL: none. Caller frees.
 */
char *gate_find_python(struct view *v, const char **from);

#endif
