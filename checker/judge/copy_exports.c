/*
 * copy_exports: torch's imports against another distribution's copy of the
 * DLL they name (copy_exports.h).
 */
#include "judge/copy_exports.h"

#include <stdlib.h>
#include <string.h>

#include "pe/pe.h"

void copy_gap_release(struct copy_gap *g)
{
	free(g->symbol);
	free(g->importer);
	free(g->error);
	strlist_release(&g->missing);
	g->symbol = g->importer = g->error = NULL;
	g->nmissing = g->nimported = 0;
}

static int by_order(const void *a, const void *b)
{
	const struct torch_binary *x = *(const struct torch_binary *const *)a, *y = *(const struct torch_binary *const *)b;
	return (x->order > y->order) - (x->order < y->order);
}

static struct pe_image *open_host(struct view *v, const char *win_path, const char *host, unsigned what,
				  struct err *e)
{
	struct pe_image *img = NULL;
	char *h = host && host[0] ? NULL : view_host_path(v, win_path);
	const char *p = host && host[0] ? host : h;
	if (!p) {
		err_set(e, "%s: not found in the checked tree", win_path);
		return NULL;
	}
	if (pe_open(&img, p, what, e))
		img = NULL;
	free(h);
	return img;
}

/* Whether `copy` exports what `f` asks for: 1 yes, 0 no, -1 its table is corrupt. */
static int exports(const struct pe_image *copy, const struct pe_import_func *f)
{
	struct pe_export x;
	return f->by_ordinal ? pe_export_by_ordinal(copy, f->ordinal, &x, NULL)
			     : pe_export_by_name(copy, f->name, f->hint, &x, NULL);
}

static void one_binary(const struct torch_binary *b, const struct pe_image *img, struct copy_gap *gaps,
		       struct pe_image **copies, size_t n)
{
	size_t i, k, c;
	for (i = 0; i < img->nimports; i++) {
		const struct pe_import_dll *d = &img->imports[i];
		for (c = 0; c < n; c++) {
			struct copy_gap *g = &gaps[c];
			if (!copies[c] || str_icmp(d->dll, g->name))
				continue;
			for (k = 0; k < d->nfuncs; k++) {
				const struct pe_import_func *f = &d->funcs[k];
				char *sym;
				g->nimported++;
				if (exports(copies[c], f) == 1)
					continue;
				sym = f->by_ordinal ? xasprintf("#%u", (unsigned)f->ordinal) : xstrdup(f->name);
				if (!g->nmissing++) {
					g->symbol = xstrdup(sym);
					g->importer = xstrdup(b->path);
				}
				if (g->missing.n < COPY_EXPORTS_MAX_LISTED)
					strlist_pushf(&g->missing, "%s: %s", winpath_basename(b->path), sym);
				free(sym);
			}
		}
	}
}

void copy_exports_check(struct view *v, const struct torch_run *run, struct copy_gap *gaps, size_t n)
{
	struct pe_image **copies;
	const struct torch_binary **order;
	size_t i, live = 0;
	if (!n)
		return;
	copies = xcalloc(n, sizeof(*copies));
	for (i = 0; i < n; i++) {
		struct err e;
		copies[i] = open_host(v, gaps[i].win_path, gaps[i].host, PE_EXPORTS, &e);
		/* a copy without an export directory lacks every import from it: the loop counts them */
		if (!copies[i])
			gaps[i].error = xstrdup(e.msg);
		else
			live++;
	}
	order = xcalloc(run->nbins ? run->nbins : 1, sizeof(*order));
	for (i = 0; i < run->nbins; i++)
		order[i] = &run->bins[i];
	qsort(order, run->nbins, sizeof(*order), by_order);
	for (i = 0; live && i < run->nbins; i++) {
		struct pe_image *img = open_host(v, order[i]->path, NULL, PE_IMPORTS | PE_LENIENT, NULL);
		if (!img)
			continue;
		one_binary(order[i], img, gaps, copies, n);
		pe_close(img);
	}
	for (i = 0; i < n; i++)
		pe_close(copies[i]);
	free(copies);
	free(order);
}
