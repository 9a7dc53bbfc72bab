/*
 * matrix_cuda: the top-level `cuda` table (matrix.h, schema.def's CUDA
 * rows): what each CUDA release needs of the Windows NVIDIA driver
 * (docs/cuda.md). Read and linted with matrix_lint.h: a release is
 * MAJOR.MINOR, a driver NNN.NN, a release listed twice in one file is an
 * error. A later layer's entry replaces the earlier one of its release.
 */
#include "matrix/matrix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void matrix_cuda_release(struct matrix_cuda *c)
{
	free(c->release);
	free(c->driver_text);
	free(c->floor_text);
	strlist_release(&c->dlls);
	strlist_release(&c->sources);
	free(c->published_text);
	pep440_spec_release(&c->published);
	free(c->cudnn);
}

/* "12.4": 0 and the numbers, or -1. */
static int parse_release(const char *s, unsigned *maj, unsigned *min)
{
	size_t a = strspn(s, "0123456789"), b;
	if (!a || a > 2 || s[a] != '.')
		return -1;
	b = strspn(s + a + 1, "0123456789");
	if (!b || b > 2 || s[a + 1 + b])
		return -1;
	*maj = (unsigned)atoi(s);
	*min = (unsigned)atoi(s + a + 1);
	return 0;
}

/* "551.61": 0 and {551, 61}, or -1 (Windows driver versions have two digits after the dot). */
static int parse_nv_driver(const char *s, unsigned out[2])
{
	size_t a = strspn(s, "0123456789");
	if (!a || a > 4 || s[a] != '.' || strspn(s + a + 1, "0123456789") != 2 || s[a + 3])
		return -1;
	out[0] = (unsigned)atoi(s);
	out[1] = (unsigned)atoi(s + a + 1);
	return 0;
}

static void cuda_field(struct lint *L, const struct ynode *m, enum matrix_cuda_field k, struct matrix_cuda *c,
		       const char *what)
{
	const struct matrix_field *f = &matrix_cuda_fields[k];
	const struct ynode *v = lint_map_get(m, f->key);
	char buf[128];
	int e;
	switch (k) {
	case MF_CUDA_RELEASE:
		c->release = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		if (c->release && parse_release(c->release, &c->major, &c->minor))
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, f->hint, lint_shown(v, buf, sizeof(buf)));
		break;
	case MF_CUDA_DRIVER:
	case MF_CUDA_FLOOR: {
		char *t = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		unsigned *dst = k == MF_CUDA_DRIVER ? c->driver : c->floor;
		if (t && parse_nv_driver(t, dst))
			lint_error(L, v->line, v->col, "`%s` must be %s, not `%s`", f->key, f->hint, lint_shown(v, buf, sizeof(buf)));
		if (k == MF_CUDA_DRIVER)
			c->driver_text = t;
		else
			c->floor_text = t;
		break;
	}
	case MF_CUDA_DLLS:
		lint_get_dll_list(L, m, f, &c->dlls);
		break;
	case MF_CUDA_STATUS:
		e = lint_get_enum(L, m, f->key, what, matrix_status_names, lint_required(f, 0));
		c->status = e >= 0 ? (enum matrix_status)e : MATRIX_INFERRED;
		break;
	case MF_CUDA_SOURCES:
		lint_get_sources(L, m, f, &c->sources);
		if (c->status == MATRIX_SOURCED && !c->sources.n)
			lint_error(L, m->line, m->col, "%s is `status: sourced` but has no `sources`", what);
		break;
	case MF_CUDA_PUBLISHED:
		c->published_text = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		if (c->published_text && !strcmp(c->published_text, "none")) {
			c->published_none = 1;
		} else if (c->published_text) {
			struct err se;
			err_clear(&se);
			if (pep440_spec_parse(&c->published, c->published_text, &se) < 0)
				lint_error(L, v->line, lint_scalar_col(v, se.code > 0 ? (size_t)se.code - 1 : 0), "%s: %s",
					   f->key, se.msg);
		}
		break;
	case MF_CUDA_CUDNN:
		c->cudnn = lint_get_str(L, m, f->key, what, f->hint, lint_required(f, 0));
		break;
	case MF_CUDA_COUNT:
		break;
	}
}

/* `cuda`: each entry read; a release listed twice in one file is an error. */
void matrix_cuda_read_table(struct lint *L, const struct ynode *root, struct matrix_cuda **out, size_t *nout)
{
	const struct matrix_field *tf = &matrix_top_fields[MF_TOP_CUDA];
	const struct ynode *list = lint_get_map_list(L, root, tf->key, tf->hint);
	size_t i, j;
	int k;
	*out = NULL;
	*nout = 0;
	if (!list)
		return;
	*out = xcalloc(list->n ? list->n : 1, sizeof(**out));
	for (i = 0; i < list->n; i++) {
		const struct ynode *m = lint_list_map(L, list, i, tf->key);
		unsigned nerr = L->nerr, present;
		struct matrix_cuda c;
		char what[64];
		if (!m)
			continue;
		memset(&c, 0, sizeof(c));
		strlist_init(&c.dlls);
		strlist_init(&c.sources);
		lint_set_pos(&c.pos, L->file, m);
		lint_map_check(L, m, matrix_schema(MATRIX_MAP_CUDA)->name, matrix_schema(MATRIX_MAP_CUDA)->keys, &present);
		snprintf(what, sizeof(what), "cuda entry at line %u", m->line);
		for (k = 0; k < MF_CUDA_COUNT; k++)
			cuda_field(L, m, (enum matrix_cuda_field)k, &c, what);
		for (j = 0; c.release && j < *nout; j++)
			if ((*out)[j].major == c.major && (*out)[j].minor == c.minor)
				lint_error(L, m->line, m->col, "CUDA %u.%u is listed twice in `cuda` (first at line %u)",
					   c.major, c.minor, (*out)[j].pos.line);
		if (L->nerr != nerr || !c.release) {
			matrix_cuda_release(&c);
			continue;
		}
		(*out)[(*nout)++] = c;
	}
}

const struct matrix_cuda *matrix_cuda_find(const struct matrix *m, unsigned major, unsigned minor)
{
	size_t i;
	for (i = 0; i < m->ncuda; i++)
		if (m->cuda[i].major == major && m->cuda[i].minor == minor)
			return &m->cuda[i];
	return NULL;
}


/* Each entry replaces the earlier layers' entry of its release, or is added. */
void matrix_cuda_apply(struct matrix *m, struct matrix_cuda *cuda, size_t n, const char *name)
{
	size_t i;
	for (i = 0; i < n; i++) {
		struct matrix_cuda *c = &cuda[i];
		size_t j;
		c->pos.file = name;
		for (j = 0; j < m->ncuda; j++)
			if (m->cuda[j].major == c->major && m->cuda[j].minor == c->minor)
				break;
		if (j < m->ncuda) {
			matrix_cuda_release(&m->cuda[j]);
		} else {
			ALLOC_GROW(m->cuda, m->ncuda + 1, m->acuda);
			j = m->ncuda++;
		}
		m->cuda[j] = *c;
	}
}
