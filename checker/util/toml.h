/*
 * toml: a careful, bounded reader for the subset of TOML that Python
 * projects pin their dependencies in (pyproject.toml, Pipfile, uv.lock,
 * poetry.lock, pdm.lock).
 *
 * It builds a small tree in which every value keeps the line and column where
 * it starts (for strings: the first character inside the quotes), so a pin
 * can be annotated in the pull request. Supported: comments, bare/quoted and
 * dotted keys, [tables], [[arrays of tables]], basic and literal strings
 * (also the multi-line forms), arrays, inline tables, and the scalars
 * (integers, floats, booleans, offset date-times) kept as raw text. What it
 * does not understand it refuses with "line:col: message" instead of
 * guessing: local date-times with a space, redefined tables and keys, keys
 * after the document ends a value on the same line.
 *
 * Bounds: input size (caller caps it), nesting depth TOML_MAX_DEPTH, values
 * TOML_MAX_NODES, keys per table TOML_MAX_KEYS. Spec: https://toml.io/en/v1.0.0
 */
#ifndef TDC_TOML_H
#define TDC_TOML_H

#include <stddef.h>

#include "util/err.h"
#include "util/strmap.h"

#define TOML_MAX_DEPTH 64
#define TOML_MAX_NODES 1000000
#define TOML_MAX_KEYS 4096

enum toml_type { TOML_TABLE, TOML_ARRAY, TOML_STRING, TOML_SCALAR };

struct toml_kv;

struct toml {
	enum toml_type type;
	unsigned line, col;
	char *str;              /* TOML_STRING: the value; TOML_SCALAR: raw text */
	struct toml_kv *kv;     /* TOML_TABLE members, in document order */
	size_t n_kv, alloc_kv;
	struct strmap index;    /* TOML_TABLE of more than a few keys: key → kv position; empty before */
	struct toml **items;    /* TOML_ARRAY elements */
	size_t n_items, alloc_items;
	unsigned char header;   /* table: defined by a [header] */
	unsigned char closed;   /* inline table or array: cannot be extended */
	unsigned char aot;      /* array created by [[header]] */
	unsigned char dotted;   /* table created by a dotted key */
};

struct toml_kv {
	char *key;
	struct toml *val;
};

/* The document's state while parsing; opaque to callers. */
struct toml_doc {
	struct toml *root;
	size_t nodes;
};

/*
 * Parses buf[0..len) into doc->root (a table). On error returns -1 with
 * "LINE:COL: message" in err (the caller prefixes the file name) and leaves
 * nothing allocated. The input need not be NUL-terminated.
 */
int toml_parse(struct toml_doc *doc, const char *buf, size_t len, struct err *err);
void toml_doc_release(struct toml_doc *doc);

/* Member `key` of a table, or NULL (also when t is NULL or not a table). */
const struct toml *toml_get(const struct toml *t, const char *key);

/* Follows a dotted path of bare keys ("tool.poetry.dependencies"). */
const struct toml *toml_path(const struct toml *t, const char *path);

/* The string value, or NULL when t is not a string. */
const char *toml_str(const struct toml *t);

const char *toml_type_name(enum toml_type t);

#endif
