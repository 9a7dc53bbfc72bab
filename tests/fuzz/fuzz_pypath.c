/*
 * fuzz_pypath: the four small formats sys.path is made from (machine/pypath.h:
 * ._pth, .pth, pyvenv.cfg, py.ini). The first byte picks the kind, the rest
 * is the file. Besides never crashing: what is kept respects the bounds
 * (PYPATH_MAX_LINES lines, each at most PYPATH_MAX_LINE bytes, UTF-8, no NUL,
 * no line break), key lines are "key\tvalue" with a lowercase ASCII-folded
 * key, and parsing is deterministic.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/pypath.h"
#include "util/utf.h"

#include "oracle.h"

static int fuzz_one(const uint8_t *data, size_t size)
{
	struct pyfile f, g;
	enum pyfile_kind kind;
	size_t i;
	if (!size)
		return 0;
	kind = (enum pyfile_kind)(data[0] % 4);
	pyfile_init(&f);
	pyfile_init(&g);
	pyfile_parse(&f, kind, (const char *)data + 1, size - 1);
	pyfile_parse(&g, kind, (const char *)data + 1, size - 1);
	if (f.lines.n > PYPATH_MAX_LINES || f.lines.n != g.lines.n || f.import_site != g.import_site ||
	    f.imports != g.imports || f.notes.n != g.notes.n)
		abort();
	for (i = 0; i < f.lines.n; i++) {
		const char *l = f.lines.v[i];
		size_t n = strlen(l);
		if (strcmp(l, g.lines.v[i]) || n > PYPATH_MAX_LINE || !utf8_valid(l, n) || strchr(l, '\n'))
			abort();
		if (kind == PYFILE_PYVENV_CFG || kind == PYFILE_PY_INI) {
			const char *tab = strchr(l, '\t'), *k;
			if (!tab || tab == l)
				abort();
			for (k = l; k < tab; k++)
				if (*k >= 'A' && *k <= 'Z')
					abort();
		}
	}
	(void)pyfile_value(&f, "home");
	(void)pyfile_value(&f, "python");
	pyfile_release(&f);
	pyfile_release(&g);
	return 0;
}
