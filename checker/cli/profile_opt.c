/*
 * profile_opt: --profile NAME|FILE resolved against the matrix (see
 * profile_opt.h).
 */
#include "cli/profile_opt.h"

#include <stdlib.h>
#include <string.h>

#include "cli/usage.h"
#include "util/err.h"
#include "util/os.h"
#include "util/strbuf.h"

static int is_file_arg(const char *s)
{
	struct os_stat st;
	os_stat(s, &st);
	return strchr(s, '/') || strchr(s, '\\') || str_iendswith(s, ".yml") || str_iendswith(s, ".yaml") ||
	       st.type == OS_FILE;
}

static void push(const struct matrix_profile ***out, size_t *n, size_t *alloc, const struct matrix_profile *p)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if ((*out)[i] == p)
			return;
	ALLOC_GROW(*out, *n + 1, *alloc);
	(*out)[(*n)++] = p;
}

/* "unknown profile 'x' (did you mean 'y'?); the profiles: a, b, c" */
static int unknown(const struct matrix *m, const char *name, const char *cmd)
{
	const char **names = xcalloc(m->nprofiles + 1, sizeof(*names));
	struct strbuf known = STRBUF_INIT;
	const char *near;
	size_t i;
	for (i = 0; i < m->nprofiles; i++) {
		names[i] = m->profiles[i].name;
		strbuf_addf(&known, "%s%s", i ? ", " : "", m->profiles[i].name);
	}
	near = str_nearest(name, names);
	cmd_usage_error("%s: unknown profile '%s'%s%s%s; the profiles are: %s (or give a profile FILE; docs/profiles.md)",
			cmd, name, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
			known.len ? known.buf : "none");
	strbuf_release(&known);
	free(names);
	return -1;
}

int cli_profiles_resolve(struct matrix *m, const struct strlist *names, const char *dflt, const char *cmd,
			 const struct matrix_profile ***out, size_t *n)
{
	size_t i, k, alloc = 0;
	struct err e;
	*out = NULL;
	*n = 0;
	err_clear(&e);
	/* files first: a name may refer to a profile a file defines */
	for (i = 0; i < names->n; i++)
		if (is_file_arg(names->v[i]) && matrix_load_file(m, names->v[i], NULL, &e)) {
			cmd_usage_error("%s: --profile %s (run `torch-dll-check matrix lint %s` for every error)", cmd, e.msg,
					names->v[i]);
			return -1;
		}
	for (i = 0; i < names->n; i++) {
		const char *a = names->v[i];
		const struct matrix_profile *p;
		if (!strcmp(a, "none"))
			continue; /* the runner alone */
		if (is_file_arg(a)) {
			size_t before = *n;
			for (k = 0; k < m->nprofiles; k++)
				if (m->profiles[k].pos.file && !strcmp(m->profiles[k].pos.file, a))
					push(out, n, &alloc, &m->profiles[k]);
			if (*n == before) {
				cmd_usage_error("%s: --profile %s: the file defines no profile (a `profiles` table)", cmd, a);
				free(*out);
				*out = NULL;
				*n = 0;
				return -1;
			}
			continue;
		}
		if (!(p = matrix_profile_find(m, a))) {
			free(*out);
			*out = NULL;
			*n = 0;
			return unknown(m, a, cmd);
		}
		push(out, n, &alloc, p);
	}
	if (!names->n && dflt) {
		const struct matrix_profile *p = matrix_profile_find(m, dflt);
		if (p)
			push(out, n, &alloc, p);
	}
	return 0;
}
