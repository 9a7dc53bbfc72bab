/*
 * rows_yaml.h: a matrix loaded from YAML text a unit test writes (the
 * rows it judges with), for the tests of the judges that read one row.
 * Included by test_*.c only (static, one copy per test program).
 */
#ifndef TDC_TEST_ROWS_YAML_H
#define TDC_TEST_ROWS_YAML_H

#include <stdio.h>
#include <string.h>

#include "matrix/matrix.h"

/* `m` initialised and `yaml` loaded as "rows.yml"; -1 with the error printed as a TAP comment. */
static int rows_yaml_load(struct matrix *m, const char *yaml)
{
	struct err e = { "", 0 };
	matrix_init(m);
	if (matrix_load_buffer(m, "rows.yml", yaml, strlen(yaml), NULL, &e)) {
		printf("# rows.yml: %s\n", e.msg);
		return -1;
	}
	return 0;
}

#endif
