/*
 * test_yamltree: the one YAML tree reader (checker/util/yamltree.h) — its
 * positions, its limits and its refusals, with the options the matrix uses
 * and the laxer ones a conda environment file needs.
 */
#include "harness.h"
#include "util/yamltree.h"

static const struct ytree_opts strict = { 4, 100, 32, 6, "a matrix", "a matrix file", "torch",
					  YT_REFUSE_ANCHORS | YT_REFUSE_TAGS | YT_ONE_DOCUMENT };
static const struct ytree_opts lax = { 64, 1000, 1000, 1000, "a pin file", "a pin file", NULL, 0 };

static struct ynode *parse(const char *s, const struct ytree_opts *o, struct ytree_error *e, int *empty)
{
	return ytree_parse((const unsigned char *)s, strlen(s), o, empty, e);
}

static void test_tree_with_positions(void)
{
	struct ytree_error e;
	int empty;
	struct ynode *r = parse("a: 1\nlist:\n  - \"x\"\n  - |\n    block\n", &strict, &e, &empty);
	const struct ynode *l;
	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_INT(r->kind, Y_MAP);
	CHECK_INT(r->n, 4);
	CHECK_STR(ynode_get(r, "a")->s, "1");
	l = ynode_get(r, "list");
	CHECK(l && l->kind == Y_SEQ && l->n == 2);
	if (l && l->n == 2) {
		CHECK_INT(l->kid[0]->line, 3);
		CHECK_INT(l->kid[0]->col, 5);
		CHECK_INT(l->kid[0]->quoted, 1);
		CHECK_INT(l->kid[1]->quoted, 2);
		CHECK_STR(l->kid[1]->s, "block\n");
	}
	CHECK(ynode_get(r, "nope") == NULL);
	ynode_free(r);
	CHECK(parse("# only a comment\n", &strict, &e, &empty) == NULL);
	CHECK_INT(empty, 1);
}

static void test_refusals_have_places(void)
{
	struct ytree_error e;
	int empty;
	CHECK(parse("a: &x 1\nb: *x\n", &strict, &e, &empty) == NULL);
	CHECK_STR(e.msg, "anchors (&x) are not allowed in a matrix; write the value out");
	CHECK_INT(e.line, 1);
	CHECK(parse("a: &x 1\nb: *x\n", &lax, &e, &empty) == NULL); /* aliases: always refused */
	CHECK_STR(e.msg, "aliases (*x) are not allowed in a pin file; write the value out");
	CHECK_INT(e.line, 2);
	CHECK_INT(e.col, 4);
	CHECK(parse("a: !!int 1\n", &strict, &e, &empty) == NULL);
	CHECK_STR(e.msg, "YAML tags (tag:yaml.org,2002:int) are not allowed in a matrix");
	CHECK(parse("t: !=2.9\n", &strict, &e, &empty) == NULL);
	CHECK_STR(e.msg, "\"!\" starts a YAML tag here; quote the specifier (torch: \"!=2.9\")");
	CHECK(parse("a: 1\n---\nb: 2\n", &strict, &e, &empty) == NULL);
	CHECK_STR(e.msg, "a matrix file holds one YAML document; remove this \"---\" and what follows");
	CHECK(parse("[[[[[1]]]]]\n", &strict, &e, &empty) == NULL);
	CHECK_STR(e.msg, "nested deeper than 4 levels");
	CHECK(parse("[1, 2, 3, 4, 5, 6, 7]\n", &strict, &e, &empty) == NULL);
	CHECK_STR(e.msg, "more than 6 items in one list");
	CHECK_INT(e.col, 20);
	CHECK(parse("a: 0123456789012345678901234567890123456789\n", &strict, &e, &empty) == NULL);
	CHECK_STR(e.msg, "value longer than 32 bytes");
	{
		/* a "\0" escape: cut there, or refused with YT_REFUSE_NUL */
		static const struct ytree_opts nul = { 64, 1000, 1000, 1000, "a pin file", "a pin file", NULL,
						       YT_REFUSE_NUL };
		struct ynode *r = parse("- \"torch\\0==1\"\n", &lax, &e, &empty);
		CHECK(r && r->n == 1 && !strcmp(r->kid[0]->s, "torch") && r->kid[0]->len == 5);
		ynode_free(r);
		CHECK(parse("- a\n- \"torch\\0==1\"\n", &nul, &e, &empty) == NULL);
		CHECK_STR(e.msg, "NUL characters (\\0) are not allowed in a pin file");
		CHECK_INT(e.line, 2);
		CHECK_INT(e.col, 3);
	}
	CHECK(parse("a: >=2.9\n", &lax, &e, &empty) == NULL);
	CHECK_HAS(e.msg, "; quote values that start with > or | (\">=2.9\")");
	{
		/* the lax reader takes tags and anchors, and reads the first document only */
		struct ynode *r = parse("a: &x !!str 1\n---\nb: 2\n", &lax, &e, &empty);
		CHECK(r && r->n == 2 && !ynode_get(r, "b"));
		ynode_free(r);
	}
}

static void test_bytes(void)
{
	struct ytree_error e;
	CHECK_INT(ytree_check_bytes((const unsigned char *)"\xef\xbb\xbf" "a: 1\n", 8, &e), 3);
	CHECK_INT(ytree_check_bytes((const unsigned char *)"\xff\xfe" "a\0", 4, &e), -1);
	CHECK_STR(e.msg, "the file is UTF-16 (it starts with a byte order mark); save it as UTF-8");
	CHECK_INT(ytree_check_bytes((const unsigned char *)"a: 1\nb: caf\xe9\n", 13, &e), -1);
	CHECK_INT(e.line, 2);
	CHECK_INT(e.col, 7);
	CHECK_HAS(e.msg, "byte 0xe9 is not followed by a continuation byte");
	CHECK_INT(ytree_check_bytes((const unsigned char *)"a: \xed\xa0\x80\n", 7, &e), -1);
	CHECK_HAS(e.msg, "overlong or surrogate");
	CHECK_INT(ytree_check_bytes((const unsigned char *)"a\r\nb\rc: \x80", 9, &e), -1);
	CHECK_INT(e.line, 3);
	CHECK_STR(e.msg, "invalid UTF-8 (byte 0x80); save the file as UTF-8");
	CHECK_INT(ytree_check_bytes((const unsigned char *)"a: \0", 4, &e), -1);
	CHECK_STR(e.msg, "NUL byte: this is not a text file");
}

int main(void)
{
	RUN(test_tree_with_positions);
	RUN(test_refusals_have_places);
	RUN(test_bytes);
	return HARNESS_EXIT();
}
