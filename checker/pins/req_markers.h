/*
 * req_markers: PEP 508 environment markers evaluated for the runner the gate
 * judges (Windows, x64 CPython).
 */
#ifndef TDC_REQ_MARKERS_H
#define TDC_REQ_MARKERS_H

/*
 * Evaluates PEP 508 markers for a Windows x64 CPython runner: 1 true, 0
 * false, -1 unknown (depends on something else, e.g. python_version),
 * -2 syntax error. NULL or empty markers are true.
 */
int req_markers_on_windows(const char *markers);

#endif
