/*
 * test_toml: the bounded TOML reader (checker/util/toml.c) on its own: every value
 * form it accepts with the line and column it records, the spec's string
 * rules (escapes, multi-line trimming, quotes at the end), tables and arrays
 * of tables, and the exact "LINE:COL: message" for what it refuses.
 * Expectations follow https://toml.io/en/v1.0.0, not the reader's output.
 */
#include "harness.h"
#include "util/strbuf.h"
#include "util/toml.h"

#include <stdlib.h>

static struct toml_doc D;
static struct err E;

/* Parses text (NUL-terminated for convenience; the reader gets its length). */
static int parse(const char *text)
{
	toml_doc_release(&D);
	err_clear(&E);
	return toml_parse(&D, text, strlen(text), &E);
}

/* toml_parse on text that must be refused with exactly msg. */
#define REFUSES(text_, want_)                         \
	do {                                          \
		CHECK_INT(parse(text_), -1);          \
		CHECK_STR(E.msg, want_);              \
		CHECK(D.root == NULL);                \
	} while (0)

static const char *str_at(const char *path)
{
	return toml_str(toml_path(D.root, path));
}

static void test_strings_and_escapes(void)
{
	CHECK_INT(parse("a = \"x\\b\\t\\n\\f\\r\\\"\\\\y\"\n"
			"b = \"\\u00e9\\U0001F600\"\n"
			"c = 'C:\\Users\\no\\escapes'\n"
			"d = \"\"\n"
			"e = ''\n"),
		  0);
	CHECK_STR(str_at("a"), "x\b\t\n\f\r\"\\y");
	CHECK_STR(str_at("b"), "\xc3\xa9\xf0\x9f\x98\x80");
	CHECK_STR(str_at("c"), "C:\\Users\\no\\escapes");
	CHECK_STR(str_at("d"), "");
	CHECK_STR(str_at("e"), "");
	/* a string's position is its first character, inside the quotes */
	CHECK_INT(toml_get(D.root, "b")->line, 2);
	CHECK_INT(toml_get(D.root, "b")->col, 6);
	CHECK_INT(toml_get(D.root, "c")->col, 6);
}

static void test_multiline_strings(void)
{
	CHECK_INT(parse("a = \"\"\"\nline one\nline two\"\"\"\n"
			"b = \"\"\"one \\\n      two \\\r\n   three\"\"\"\n"
			"c = '''\n\\n stays\n'''\n"
			"d = \"\"\"quote at the end\"\"\"\"\n"
			"e = \"\"\"two \"\" quotes\"\"\"\"\"\n"
			"f = \"\"\"crlf\r\nkept as lf\"\"\"\n"),
		  0);
	CHECK_STR(str_at("a"), "line one\nline two");
	CHECK_STR(str_at("b"), "one two three");
	CHECK_STR(str_at("c"), "\\n stays\n");
	CHECK_STR(str_at("d"), "quote at the end\"");
	CHECK_STR(str_at("e"), "two \"\" quotes\"\"");
	CHECK_STR(str_at("f"), "crlf\nkept as lf");
	/* the newline after the opening delimiter is trimmed: the value starts on the next line */
	CHECK_INT(toml_get(D.root, "a")->line, 2);
	CHECK_INT(toml_get(D.root, "a")->col, 1);
}

static void test_string_errors(void)
{
	REFUSES("a = \"x\n", "1:5: unterminated string (newline before the closing quote)");
	REFUSES("a = \"x", "1:5: unterminated string");
	REFUSES("a = '''never closed\n", "1:5: unterminated string");
	REFUSES("a = \"\\q\"\n", "1:6: unknown escape sequence in a string");
	REFUSES("a = \"\\u12\"\n", "1:6: \\u needs 4 hex digits");
	REFUSES("a = \"\\UFFFFFFFF\"\n", "1:6: escape is not a Unicode scalar value");
	REFUSES("a = \"\\uD800\"\n", "1:6: escape is not a Unicode scalar value");
	REFUSES("a = \"\\u0000\"\n", "1:5: NUL character in a string");
	REFUSES("a = \"tab\tok, bell\a no\"\n", "1:18: control character 0x07 in a string");
	REFUSES("a = \"\"\"x\ry\"\"\"\n", "1:9: bare carriage return in a string");
	REFUSES("\"\"\"k\"\"\" = 1\n", "1:1: multi-line strings cannot be keys");
}

static void test_scalars_are_raw_text(void)
{
	static const char *const ok[][2] = {
		{ "i = 42", "42" },       { "i = +17", "+17" },         { "i = -0", "-0" },
		{ "i = 1_000", "1_000" }, { "f = 6.626e-34", "6.626e-34" }, { "f = -inf", "-inf" },
		{ "f = nan", "nan" },     { "b = true", "true" },       { "b = false", "false" },
		{ "t = 1979-05-27T07:32:00-08:00", "1979-05-27T07:32:00-08:00" },
		{ "t = 07:32:00", "07:32:00" },
	};
	size_t i;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		const struct toml *v;
		CHECK_INT(parse(ok[i][0]), 0);
		v = D.root && D.root->n_kv == 1 ? D.root->kv[0].val : NULL;
		CHECK(v != NULL && v->type == TOML_SCALAR);
		if (v)
			CHECK_STR(v->str, ok[i][1]);
	}
	REFUSES("b = yes\n", "1:5: expected a value (string, number, boolean, array or table)");
	REFUSES("b = truth\n", "1:5: expected a value (string, number, boolean, array or table)");
	REFUSES("n = +\n", "1:5: expected a number after '+'");
	REFUSES("n =\n", "1:4: expected a value after '='");
	REFUSES("n = # nothing\n", "1:5: expected a value after '='");
	REFUSES("d = 1979-05-27 07:32:00\n", "1:5: date-times with a space are not supported (use 'T')");
}

static void test_keys(void)
{
	const struct toml *t;
	CHECK_INT(parse("bare_key-1 = 1\n"
			"\"quoted.key\" = 2\n"
			"'literal key' = 3\n"
			"\"\" = 4\n"
			"a . b . c = 5\n"
			"a.\"d.e\" = 6\n"
			"1234 = 7\n"),
		  0);
	CHECK(toml_get(D.root, "bare_key-1") != NULL);
	CHECK(toml_get(D.root, "quoted.key") != NULL);
	CHECK(toml_get(D.root, "literal key") != NULL);
	CHECK(toml_get(D.root, "") != NULL);
	CHECK(toml_get(D.root, "1234") != NULL);
	t = toml_path(D.root, "a.b.c");
	CHECK(t != NULL && t->type == TOML_SCALAR);
	t = toml_get(toml_get(D.root, "a"), "d.e");
	CHECK(t != NULL && !strcmp(t->str, "6"));
	/* dotted keys create tables, in document order */
	t = toml_get(D.root, "a");
	CHECK(t != NULL && t->type == TOML_TABLE && t->n_kv == 2);
	if (t && t->n_kv == 2) {
		CHECK_STR(t->kv[0].key, "b");
		CHECK_STR(t->kv[1].key, "d.e");
	}
	REFUSES("= 1\n", "1:1: expected a key");
	REFUSES("a b = 1\n", "1:3: expected '=' after a key");
	REFUSES("a = 1\na = 2\n", "2:1: duplicate key \"a\"");
	REFUSES("a.b = 1\na.b = 2\n", "2:1: duplicate key \"a.b\"");
	REFUSES("a = 1\na.b = 2\n", "2:1: key \"a\" is already defined as a number, boolean or date");
	REFUSES("a = 1 b = 2\n", "1:7: expected the end of the line after a value, found 'b'");
	REFUSES("a = 1 # ok\x01\n", "1:11: control character 0x01 in a comment");
}

static void test_tables_and_arrays_of_tables(void)
{
	const struct toml *t;
	CHECK_INT(parse("top = 1\n"
			"[tool.poetry]\n"
			"name = \"x\"\n"
			"  [tool.poetry.dependencies]  # indented, with a comment\n"
			"  torch = \"^2.4\"\n"
			"[[package]]\n"
			"name = \"a\"\n"
			"[[package]]\n"
			"name = \"b\"\n"
			"[package.source]\n"
			"url = \"u\"\n"
			"[ \"quoted\" . 'keys' ]\n"
			"v = 1\n"),
		  0);
	CHECK_STR(str_at("tool.poetry.dependencies.torch"), "^2.4");
	t = toml_path(D.root, "tool.poetry.dependencies");
	CHECK(t != NULL);
	if (t) {
		CHECK_INT(t->line, 4); /* a table's position is its header's '[' */
		CHECK_INT(t->col, 3);
	}
	t = toml_get(D.root, "package");
	CHECK(t != NULL && t->type == TOML_ARRAY && t->n_items == 2);
	if (t && t->n_items == 2) {
		CHECK_STR(toml_str(toml_get(t->items[0], "name")), "a");
		CHECK(toml_get(t->items[0], "source") == NULL);
		CHECK_STR(toml_str(toml_path(t->items[1], "source.url")), "u");
		CHECK_INT(t->items[1]->line, 8);
	}
	CHECK(toml_path(D.root, "quoted.keys.v") != NULL);
	/* a super-table may be defined after its sub-table, once */
	CHECK_INT(parse("[a.b]\nx = 1\n[a]\ny = 2\n"), 0);
	CHECK(toml_path(D.root, "a.b.x") && toml_path(D.root, "a.y"));
	REFUSES("[a]\n[a]\n", "2:1: table [a] is defined twice");
	REFUSES("[a.b]\n[a]\n[a]\n", "3:1: table [a] is defined twice");
	REFUSES("a.b = 1\n[a]\n", "2:1: table [a] is defined twice");
	REFUSES("a = 1\n[a]\n", "2:1: [a] redefines a key that is a number, boolean or date");
	REFUSES("a = [1]\n[[a]]\n", "2:1: [[a]] redefines a key that is an array");
	REFUSES("[a]\n[[a]]\n", "2:1: [[a]] redefines a key that is a table");
	REFUSES("a = {x = 1}\n[a.y]\n", "2:1: key \"a\" is already defined as a table");
	REFUSES("a = {x = 1}\n[a]\n", "2:1: [a] redefines a key that is a table");
	REFUSES("[a\n", "1:3: expected ']' to close the table header");
	REFUSES("[[a]\n", "1:4: expected ']]' to close the table header");
	REFUSES("[a] x = 1\n", "1:5: expected the end of the line after a table header, found 'x'");
}

static void test_arrays_and_inline_tables(void)
{
	const struct toml *t;
	CHECK_INT(parse("a = [\n  \"x\", # comment\n  [1, 2],\n  { k = 'v' },\n]\n"
			"e = []\n"
			"it = { name = \"torch\", v.w = 1, nested = { deep = true } }\n"
			"ie = {}\n"),
		  0);
	t = toml_get(D.root, "a");
	CHECK(t != NULL && t->type == TOML_ARRAY && t->n_items == 3);
	if (t && t->n_items == 3) {
		CHECK_STR(toml_str(t->items[0]), "x");
		CHECK_INT(t->items[0]->line, 2);
		CHECK_INT(t->items[0]->col, 4);
		CHECK_INT(t->items[1]->type, TOML_ARRAY);
		CHECK_INT(t->items[1]->n_items, 2);
		CHECK_STR(toml_str(toml_get(t->items[2], "k")), "v");
	}
	CHECK_INT(toml_get(D.root, "e")->n_items, 0);
	CHECK_STR(str_at("it.name"), "torch");
	CHECK(toml_path(D.root, "it.v.w") != NULL);
	CHECK(toml_path(D.root, "it.nested.deep") != NULL);
	CHECK_INT(toml_get(D.root, "ie")->type, TOML_TABLE);
	CHECK_INT(toml_get(D.root, "ie")->n_kv, 0);
	REFUSES("a = [1 2]\n", "1:8: expected ',' or ']' in an array");
	REFUSES("a = [1,\n", "1:5: unterminated array (missing ']')");
	REFUSES("a = [", "1:5: unterminated array (missing ']')");
	REFUSES("a = {x = 1,", "1:5: unterminated inline table (missing '}')");
	REFUSES("a = {x = 1 y = 2}\n", "1:12: expected ',' or '}' in an inline table");
	REFUSES("a = {x = 1, x = 2}\n", "1:13: duplicate key \"x\"");
	REFUSES("a = {x = 1}\na.y = 2\n", "2:1: key \"a\" is already defined as a table");
}

static void test_document_form(void)
{
	/* a UTF-8 byte order mark, CRLF line ends, no final newline */
	CHECK_INT(parse("\xef\xbb\xbf[t]\r\na = \"x\"\r\nb = 2"), 0);
	CHECK_STR(str_at("t.a"), "x");
	CHECK_INT(toml_path(D.root, "t.a")->line, 2);
	CHECK_INT(toml_path(D.root, "t.b")->line, 3);
	CHECK_INT(parse(""), 0);
	CHECK(D.root != NULL && D.root->type == TOML_TABLE && D.root->n_kv == 0);
	CHECK_INT(parse("# only a comment"), 0);
	/* the reader never reads past len: a value cut by the length is unterminated */
	toml_doc_release(&D);
	CHECK_INT(toml_parse(&D, "a = \"abc\"", 7, &E), -1);
	CHECK_STR(E.msg, "1:5: unterminated string");
	toml_doc_release(&D);
	CHECK_INT(toml_parse(&D, "a = 1\0b = 2", 11, &E), -1);
	CHECK_STR(E.msg, "1:6: expected the end of the line after a value, found '?'");
}

static void test_accessors(void)
{
	CHECK_INT(parse("[a]\ns = \"x\"\nn = 1\n"), 0);
	CHECK(toml_get(NULL, "a") == NULL);
	CHECK(toml_get(toml_path(D.root, "a.s"), "x") == NULL); /* not a table */
	CHECK(toml_path(D.root, "a.missing") == NULL);
	CHECK(toml_path(D.root, "a.s.deeper") == NULL);
	CHECK(toml_str(toml_path(D.root, "a.n")) == NULL);      /* not a string */
	CHECK(toml_str(NULL) == NULL);
	CHECK(toml_path(D.root, "") == D.root);
	CHECK_STR(toml_type_name(TOML_TABLE), "a table");
	CHECK_STR(toml_type_name(TOML_ARRAY), "an array");
	CHECK_STR(toml_type_name(TOML_STRING), "a string");
	CHECK_STR(toml_type_name(TOML_SCALAR), "a number, boolean or date");
}

static void test_values_keep_document_order(void)
{
	static const char doc[] = "\xef\xbb\xbf# c\n"
				  "s1 = \"a\\u00e9\\t\"\n"
				  "s2 = '''\nraw\\n'''\n"
				  "s3 = \"\"\"\n  one \\\n   two\"\"\"\n"
				  "\"quoted key\".x = true\n"
				  "[[pkg]]\nname = \"a\"\n[[pkg]]\nname = \"b\"\n[pkg.sub]\nv = -1.5e3\n"
				  "[t]\ndt = 1979-05-27T07:32:00Z\ninl = { a = [1, [2, 3]], b.c = 'x' }\n";
	const struct toml *t;
	CHECK_INT(parse(doc), 0);
	CHECK_STR(str_at("s1"), "a\xc3\xa9\t");
	CHECK_STR(str_at("s2"), "raw\\n");
	CHECK_STR(str_at("s3"), "  one two");
	t = toml_path(D.root, "quoted key.x");
	CHECK(t && t->type == TOML_SCALAR && !strcmp(t->str, "true"));
	t = toml_get(D.root, "pkg");
	CHECK(t && t->type == TOML_ARRAY && t->n_items == 2);
	if (t && t->n_items == 2) {
		CHECK_STR(toml_str(toml_get(t->items[1], "name")), "b");
		CHECK(toml_path(t->items[1], "sub.v") != NULL);
		CHECK_INT(t->items[1]->line, 11);
	}
	CHECK_STR(str_at("t.inl.b.c"), "x");
	CHECK(D.root->n_kv == 6);
	if (D.root->n_kv == 6) {
		CHECK_STR(D.root->kv[0].key, "s1");
		CHECK_STR(D.root->kv[3].key, "quoted key");
		CHECK_STR(D.root->kv[4].key, "pkg");
		CHECK_STR(D.root->kv[5].key, "t");
	}
}

static void test_bounds(void)
{
	struct strbuf sb = STRBUF_INIT;
	int i;
	/* nesting: 64 levels of arrays are read, the 65th is refused where it starts */
	strbuf_adds(&sb, "a = ");
	for (i = 0; i < 64; i++)
		strbuf_addch(&sb, '[');
	for (i = 0; i < 64; i++)
		strbuf_addch(&sb, ']');
	CHECK_INT(parse(sb.buf), 0);
	strbuf_reset(&sb);
	strbuf_adds(&sb, "a = ");
	for (i = 0; i < 100; i++)
		strbuf_adds(&sb, "{b=");
	CHECK_INT(parse(sb.buf), -1);
	CHECK_STR(E.msg, "1:197: values nested deeper than 64");
	/* keys per table */
	strbuf_reset(&sb);
	for (i = 0; i <= TOML_MAX_KEYS; i++)
		strbuf_addf(&sb, "k%d = 1\n", i);
	CHECK_INT(parse(sb.buf), -1);
	CHECK_STR(E.msg, "4097:1: more than 4096 keys in one table");
	/* dotted key parts */
	strbuf_reset(&sb);
	for (i = 0; i < 33; i++)
		strbuf_addf(&sb, "%sk", i ? "." : "");
	strbuf_adds(&sb, " = 1\n");
	CHECK_INT(parse(sb.buf), -1);
	CHECK_STR(E.msg, "1:66: a dotted key with more than 32 parts");
	strbuf_release(&sb);
}

/* Tables past a few keys are found through a hash: every key found, a duplicate still refused, in any table kind. */
static void test_many_keys(void)
{
	struct strbuf sb = STRBUF_INIT;
	const struct toml *t;
	char key[32];
	int i, found = 0;
	for (i = 0; i < TOML_MAX_KEYS; i++)
		strbuf_addf(&sb, "k%d = \"v%d\"\n", i, i);
	CHECK_INT(parse(sb.buf), 0);
	for (i = 0; i < TOML_MAX_KEYS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		t = toml_get(D.root, key);
		if (t && t->type == TOML_STRING && atoi(t->str + 1) == i)
			found++;
	}
	CHECK_INT(found, TOML_MAX_KEYS);
	CHECK(toml_get(D.root, "k4096") == NULL);
	CHECK(toml_get(D.root, "") == NULL);
	strbuf_adds(&sb, "k2047 = 1\n");
	REFUSES(sb.buf, "4097:1: duplicate key \"k2047\"");
	/* the same in a [table], a dotted table and an inline table */
	strbuf_reset(&sb);
	strbuf_adds(&sb, "[t]\n");
	for (i = 0; i < 100; i++)
		strbuf_addf(&sb, "k%d.x = %d\n", i, i);
	strbuf_adds(&sb, "k63.x = 0\n");
	REFUSES(sb.buf, "102:1: duplicate key \"k63.x\"");
	strbuf_reset(&sb);
	strbuf_adds(&sb, "a = {");
	for (i = 0; i < 100; i++)
		strbuf_addf(&sb, "k%d = %d, ", i, i);
	strbuf_adds(&sb, "k9 = 0}\n");
	CHECK_INT(parse(sb.buf), -1);
	CHECK(strstr(E.msg, "duplicate key \"k9\"") != NULL);
	strbuf_release(&sb);
}

int main(void)
{
	RUN(test_strings_and_escapes);
	RUN(test_multiline_strings);
	RUN(test_string_errors);
	RUN(test_scalars_are_raw_text);
	RUN(test_keys);
	RUN(test_tables_and_arrays_of_tables);
	RUN(test_arrays_and_inline_tables);
	RUN(test_document_form);
	RUN(test_accessors);
	RUN(test_values_keep_document_order);
	RUN(test_bounds);
	RUN(test_many_keys);
	toml_doc_release(&D);
	return HARNESS_EXIT();
}
