/*
 * input.h: splitting a fuzz input into the texts a target feeds its
 * readers, for the targets that take several (one per line). Included by
 * tests/fuzz/fuzz_*.c beside oracle.h.
 */
#ifndef TDC_FUZZ_INPUT_H
#define TDC_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

/* Line n (0-based) of the input, without its newline, NUL-terminated ("" past the end; caller frees). */
static inline char *line_of(const uint8_t *data, size_t size, int n)
{
	size_t i = 0, start;
	while (n-- > 0) {
		while (i < size && data[i] != '\n')
			i++;
		if (i < size)
			i++;
	}
	start = i;
	while (i < size && data[i] != '\n')
		i++;
	return xstrndup((const char *)data + start, i - start);
}

#endif
