/*
 * python_dll: the Python DLL itself as the cause of a 127.
 *
 * torch_python.dll and torch's .pyd files import pythonXY.dll by name. A
 * pythonXY.dll that lacks one of those names is not "an older DLL to remove
 * or update": it is the interpreter, and the fix is another Python. Its
 * version resource says which Python it is: CPython writes the fixed file
 * version as MAJOR.MINOR.FIELD3.API with FIELD3 = micro * 1000 + level * 10
 * + serial, level 10 alpha, 11 beta, 12 release candidate, 15 final
 * (PCbuild/python.props `Field3Value`, PC/python_ver_rc.h `PYVERSION64`;
 * 9000 more for a build with the test marker), and its FileVersion string
 * is PY_VERSION ("3.11.0b3"). So 3.11.113 is 3.11.0b3 and 3.11.1150 is
 * 3.11.1.
 *
 * Each missing-entry-point or missing-ordinal finding on pythonXY.dll
 * (python3.dll too) is then said as that Python: a pre-release names the
 * release level (guoyww/AnimateDiff#374: 3.11.0b3) and the fix "install a
 * released Python 3.X"; a final release lacking the name, "install a newer
 * Python 3.X release than 3.X.Y".
 */
#ifndef TDC_PYTHON_DLL_H
#define TDC_PYTHON_DLL_H

#include <stdint.h>

#include "judge/finding.h"
#include "loader/torchload.h"

/* CPython's release of a pythonXY.dll fixed file version: "3.11.0b3", "3.11.1"; NULL when not CPython's scheme. */
char *python_dll_release(const uint16_t ver[4], int *prerelease);

/* Rewrites the cause and fix of this run's 127/182 findings on the Python DLL, from its version resource. */
void python_dll_judge(struct findings *out, const struct torch_run *run);

#endif
