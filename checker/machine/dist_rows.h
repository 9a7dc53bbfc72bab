/*
 * dist_rows: one pass over RECORD's rows, private to the dist module
 * (dist.h). dist_record.c scans and checks the rows; dist_record_parse and
 * dist.c's reading of a distribution's binaries each take them as they
 * pass, without a list of every row in between.
 */
#ifndef TDC_DIST_ROWS_H
#define TDC_DIST_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* One field of a RECORD row: NUL-terminated, valid until the next row. */
struct rec_field {
	const char *buf;
	size_t len;
};

/*
 * Every row of RECORD text checked, and handed to `row` (its three fields,
 * NUL-terminated, and its line) without keeping it: the one pass both the
 * row list and the binaries scan use. `row` returns 0, or -1 to stop with
 * err set. -1 on the first bad row, with "NAME:LINE: ...".
 */
typedef int (*record_row_fn)(void *ctx, const struct rec_field f[3], const char *eq, int64_t size, size_t line,
			     struct err *err);

int dist_record_scan(const char *text, size_t len, const char *name, record_row_fn row, void *ctx,
		     struct err *err);

/* A record_row_fn keeping each row in the struct dist_record (dist.h) ctx points to. */
int dist_record_keep_row(void *ctx, const struct rec_field f[3], const char *eq, int64_t size, size_t line,
			 struct err *err);

#endif
