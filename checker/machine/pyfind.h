/*
 * pyfind: which python.exe a person means on the checked machine, when they
 * do not name one (docs/python.md):
 *   - `python` typed in a console: the first python.exe on PATH, the Store's
 *     execution alias (%LOCALAPPDATA%\Microsoft\WindowsApps\python.exe)
 *     resolved to the installed Store package, or passed over when it is the
 *     stub that opens the Store;
 *   - `py` (the launcher): an active venv (VIRTUAL_ENV), else PY_PYTHON, else
 *     [defaults] python= of py.ini (%LOCALAPPDATA%\py.ini, then beside
 *     py.exe), else the newest; among the PEP 514 registrations under
 *     SOFTWARE\Python\PythonCore\<tag>\InstallPath of the machine's registry
 *     (the view's: HKLM; per-user installs under HKCU are not read, said).
 * Everything comes from the view: its environment (--env offline) and its
 * registry. Nothing here prints or exits.
 */
#ifndef TDC_PYFIND_H
#define TDC_PYFIND_H

#include "util/err.h"
#include "util/strbuf.h"

struct view;

struct pyfind {
	char *python;         /* the python.exe chosen (Windows path), or NULL */
	char *why;            /* one phrase: "the first python.exe on PATH", "py -3.11: PEP 514 ..." */
	struct strlist notes; /* candidates passed over and what was not read, one sentence each */
};

void pyfind_init(struct pyfind *f);
void pyfind_release(struct pyfind *f);

/* `python` on PATH, else the py launcher's default. 0 found; -1 with err saying where it looked. */
int pyfind_default(struct pyfind *f, struct view *v, struct err *err);

/*
 * What `py` (spec NULL or "") or `py -SPEC` (spec "3.11", "3", "3.11-32")
 * would run. 0 found; -1 with err (no registration matches, bad spec).
 */
int pyfind_launcher(struct pyfind *f, struct view *v, const char *spec, struct err *err);

#endif
