/*
 * test_peek: pe/peek.h against pe/pe.h. The peek is a filter in front of
 * pe_open (a binary whose peek finds none of torch's DLLs is not opened), so
 * on every real PE file of Wine's builtins it must list exactly pe_open's
 * import and delay-import names, in order; and on every truncation and on
 * byte flips of real files, a peek that completes must list every name
 * pe_parse gives (never fewer: that would hide an extension).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pe/pe.h"
#include "pe/peek.h"
#include "util/os.h"
#include "util/strbuf.h"

static const char *wine_dirs[] = { "/usr/lib/x86_64-linux-gnu/wine/x86_64-windows",
				   "/usr/lib/x86_64-linux-gnu/wine/i386-windows" };

static int keep(void *ctx, const char *dll, int delay)
{
	struct strlist *l = ctx;
	strlist_pushf(l, "%s%s", delay ? "delay:" : "", dll);
	return 0;
}

static int stop_at(void *ctx, const char *dll, int delay)
{
	(void)delay;
	return !strcmp(dll, (const char *)ctx);
}

static void pe_names(const struct pe_image *img, struct strlist *l)
{
	size_t i;
	for (i = 0; i < img->nimports; i++)
		strlist_push(l, img->imports[i].dll);
	for (i = 0; i < img->ndelay_imports; i++)
		strlist_pushf(l, "delay:%s", img->delay_imports[i].dll);
}

static int has(const struct strlist *l, const char *s)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return 1;
	return 0;
}

/* The property the filter relies on, on bytes in memory. */
static void superset(const unsigned char *p, size_t n, size_t *complete)
{
	struct strlist a = STRLIST_INIT, b = STRLIST_INIT;
	struct pe_image *img;
	struct err e;
	size_t i;
	if (pe_peek_imports_mem(p, n, PE_IMPORTS | PE_DELAY_IMPORTS, keep, &a) == 0 &&
	    !pe_parse(&img, p, n, "m.dll", PE_IMPORTS | PE_DELAY_IMPORTS | PE_LENIENT, &e)) {
		(*complete)++;
		pe_names(img, &b);
		for (i = 0; i < b.n; i++)
			if (!has(&a, b.v[i])) {
				printf("# pe_parse names %s, the peek of %zu bytes does not\n", b.v[i], n);
				CHECK(0);
			}
		pe_close(img);
	}
	strlist_release(&a);
	strlist_release(&b);
}

static void test_wine_builtins(void)
{
	size_t d, files = 0, same = 0, with_imports = 0;
	for (d = 0; d < sizeof(wine_dirs) / sizeof(wine_dirs[0]); d++) {
		DIR *dir = opendir(wine_dirs[d]);
		struct dirent *de;
		if (!dir)
			continue;
		while ((de = readdir(dir)) != NULL) {
			char path[4096];
			struct strlist a = STRLIST_INIT, b = STRLIST_INIT;
			struct pe_image *img;
			struct err e;
			int r;
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", wine_dirs[d], de->d_name);
			if (pe_open(&img, path, PE_IMPORTS | PE_DELAY_IMPORTS | PE_LENIENT, &e))
				continue;
			files++;
			pe_names(img, &b);
			r = pe_peek_imports(path, PE_IMPORTS | PE_DELAY_IMPORTS, keep, &a);
			if (r == 0 && a.n == b.n) {
				size_t i;
				for (i = 0; i < a.n && !strcmp(a.v[i], b.v[i]); i++)
					;
				same += i == a.n;
			}
			if (r != 0 || a.n != b.n)
				printf("# %s: peek %d with %zu names, pe_open %zu\n", path, r, a.n, b.n);
			if (b.n) {
				with_imports++;
				/* a callback that stops: 1, at the name it stopped on */
				CHECK_INT(pe_peek_imports(path, PE_IMPORTS | PE_DELAY_IMPORTS, stop_at,
							  (void *)(b.v[0] + (strncmp(b.v[0], "delay:", 6) ? 0 : 6))),
					  1);
			}
			pe_close(img);
			strlist_release(&a);
			strlist_release(&b);
		}
		closedir(dir);
	}
	if (!files) {
		SKIP("no Wine PE builtins in %s", wine_dirs[0]);
		return;
	}
	printf("# %zu Wine PE files, %zu with imports: the peek lists pe_open's names in %zu\n", files, with_imports,
	       same);
	CHECK(with_imports > 100);
	CHECK_INT(same, files);
}

static int load(const char *path, struct strbuf *sb)
{
	return os_read_file(path, 64u << 20, sb, NULL);
}

static void test_mutations(void)
{
	static const char *names[] = { "version.dll", "lz32.dll", "msvcrt.dll", "kernelbase.dll" };
	size_t k, complete = 0, tried = 0;
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct strbuf sb = STRBUF_INIT;
		char path[4096];
		unsigned char *m;
		size_t n, i, lim;
		snprintf(path, sizeof(path), "%s/%s", wine_dirs[0], names[k]);
		if (load(path, &sb)) {
			strbuf_release(&sb);
			SKIP("no %s", path);
			return;
		}
		n = sb.len;
		m = (unsigned char *)sb.buf;
		/* every truncation (in steps through the body, byte by byte over the headers) */
		for (i = 0; i < n; i += i < 1024 ? 1 : 61) {
			superset(m, i, &complete);
			tried++;
		}
		/* every byte of the headers and section table flipped, a few ways */
		lim = n < 2048 ? n : 2048;
		for (i = 0; i < lim; i++) {
			static const unsigned char x[] = { 0xff, 0x01, 0x80, 0x10 };
			size_t j;
			for (j = 0; j < sizeof(x); j++) {
				m[i] ^= x[j];
				superset(m, n, &complete);
				m[i] ^= x[j];
				tried++;
			}
		}
		strbuf_release(&sb);
	}
	printf("# %zu mutated images, %zu read to the end by both\n", tried, complete);
	CHECK(complete > 1000);
}

int main(void)
{
	RUN(test_wine_builtins);
	RUN(test_mutations);
	return HARNESS_EXIT();
}
