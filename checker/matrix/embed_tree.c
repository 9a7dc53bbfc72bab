/*
 * embed_tree FILE NAME: a build-time tool, not part of the program. Reads
 * the default matrix FILE the way matrix.c reads any matrix file (the bytes
 * checked by ytree_check_bytes, then ytree_parse with MATRIX_YTREE_OPTS:
 * libyaml is the parser) and prints a C file that defines NAME, a struct
 * ytree_blob of the tree (yamltree.h), so the program builds the default
 * layer's tree without parsing YAML on every run. A file these steps refuse
 * fails the build, at its line and column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrix/matrix.h"
#include "util/strbuf.h"
#include "util/yamltree.h"

static const struct ytree_opts opts = MATRIX_YTREE_OPTS;

struct flat {
	const struct ynode **v; /* pre-order: the root first */
	size_t n, alloc;
};

static void number(struct flat *f, const struct ynode *y)
{
	size_t i;
	ALLOC_GROW(f->v, f->n + 1, f->alloc);
	f->v[f->n++] = y;
	for (i = 0; i < y->n; i++)
		number(f, y->kid[i]);
}

/* Nodes in y's subtree: in pre-order, item j + 1 follows item j's subtree. */
static size_t subtree(const struct ynode *y)
{
	size_t i, n = 1;
	for (i = 0; i < y->n; i++)
		n += subtree(y->kid[i]);
	return n;
}

int main(int argc, char **argv)
{
	struct strbuf sb = STRBUF_INIT, text = STRBUF_INIT;
	struct ytree_error ye;
	struct flat f = { NULL, 0, 0 };
	struct ynode *root;
	FILE *in;
	char buf[65536];
	size_t got, i, j, k, nkids = 0;
	long start;
	int empty = 0;
	if (argc != 3) {
		fprintf(stderr, "usage: embed_tree FILE NAME\n");
		return 2;
	}
	if (!(in = fopen(argv[1], "rb"))) {
		perror(argv[1]);
		return 1;
	}
	while ((got = fread(buf, 1, sizeof(buf), in)) > 0)
		strbuf_add(&sb, buf, got);
	fclose(in);
	if (sb.len > MATRIX_MAX_BYTES) {
		fprintf(stderr, "%s: larger than %d bytes\n", argv[1], MATRIX_MAX_BYTES);
		return 1;
	}
	if ((start = ytree_check_bytes((const unsigned char *)sb.buf, sb.len, &ye)) < 0 ||
	    !(root = ytree_parse((const unsigned char *)sb.buf + start, sb.len - (size_t)start, &opts, &empty, &ye))) {
		fprintf(stderr, "%s:%u:%u: %s\n", argv[1], ye.line, ye.col, empty ? "empty file" : ye.msg);
		return 1;
	}
	number(&f, root);
	printf("/* generated from %s by checker/matrix/embed_tree.c; do not edit */\n", argv[1]);
	printf("#include \"util/yamltree.h\"\n\n");
	printf("static const struct ytree_blob_node nodes[] = {\n");
	for (i = 0; i < f.n; i++) {
		const struct ynode *y = f.v[i];
		size_t off;
		if (y->kind == Y_SCALAR) {
			off = text.len;
			strbuf_add(&text, y->s, y->len);
			strbuf_add(&text, "", 1);
		} else {
			off = nkids;
			nkids += y->n;
		}
		printf("\t{ %d, %d, %u, %u, %zu, %zu },\n", (int)y->kind, y->quoted, y->line, y->col, off,
		       y->kind == Y_SCALAR ? y->len : y->n);
	}
	printf("};\n\nstatic const unsigned kids[] = {\n");
	for (i = 0; i < f.n; i++)
		for (j = 0, k = i + 1; j < f.v[i]->n; k += subtree(f.v[i]->kid[j]), j++)
			printf("\t%zu,\n", k);
	printf("\t0 /* never read: no array is empty */\n};\n\nstatic const char text[] = {\n");
	for (i = 0; i < text.len; i++)
		printf("%s0x%02x,", i % 16 ? " " : "\t", (unsigned char)text.buf[i]);
	printf("\n\t0x00\n};\n\n");
	printf("const struct ytree_blob %s = { nodes, %zu, kids, %zu, text };\n", argv[2], f.n, nkids);
	free(f.v);
	ynode_free(root);
	strbuf_release(&sb);
	strbuf_release(&text);
	return 0;
}
