/*
 * confirm_line: the protocol between `check --confirm` and its helper
 * child (confirm.h): one flat JSON object per line, written by the helper
 * and read back by the parent, exactly as cJSON wrote and read them before
 * the judge side stopped using it (the fields, white space, escapes and
 * numbers cJSON's parser accepts; checked line by line against it on the
 * fuzz corpus). A line that is not such an object with a "path" string (a
 * DLL printing in DllMain) is refused, never half read.
 */
#ifndef TDC_CONFIRM_LINE_H
#define TDC_CONFIRM_LINE_H

#include "util/strbuf.h"

/*
 * One line: {"event":"begin","path":P} or {"path":P,"kind":K,"stage":S,"flags":F,"error":N[,"first_error":N]},
 * or, after the loads, {"path":TORCH,"kind":"commit"[,"private_before":B,"private_after":A]}: the helper's
 * private commit in bytes before and after them (GetProcessMemoryInfo; absent: the OS did not say).
 */
struct confirm_line {
	char *path, *kind, *stage; /* NULL: absent or not a string */
	int event;                 /* an "event" string: the helper announces a load */
	int has_error, has_first;
	double error, first_error; /* within int's range (a DllMain may print any number) */
	int has_before, has_after;   /* a byte count in [0, CONFIRM_LINE_MAX_BYTES]; anything else is absent */
	double private_before, private_after;
};

/* The largest byte count a line carries: 2^50 (1 PiB; x64 Windows' whole commit limit is far below). */
#define CONFIRM_LINE_MAX_BYTES 1125899906842624.0

/* Appends s as a JSON string literal, escaped as cJSON escapes one (the printed line is made safe by jsonout.h). */
void confirm_line_quote(struct strbuf *sb, const char *s);

/* Reads a line (a flat JSON object with a "path" string) into *l: 0, or -1 with *l empty. */
int confirm_line_parse(const char *line, struct confirm_line *l);

void confirm_line_release(struct confirm_line *l);

#endif
