/*
 * yamltree: one YAML document as a small tree with a 1-based line and
 * column on every node — the one YAML reader of the matrix (matrix.c) and
 * of conda environment files (requirements).
 *
 * Built from libyaml's event API, not its document loader: the loader
 * expands nothing but checks nothing either. Reading can only refuse, never
 * crash, and every refusal has a place:
 *
 *   - ytree_check_bytes: UTF-32 and UTF-16 (by their BOM), NUL bytes and
 *     invalid UTF-8 are refused at the line and column of the first bad
 *     byte (libyaml would guess an encoding or fail without a useful place);
 *     a UTF-8 BOM is skipped;
 *   - ytree_parse: nesting deeper than max_depth, more than max_nodes
 *     nodes, a scalar longer than max_scalar bytes, more than max_kids items
 *     in one list (or keys + values in one mapping: callers that check keys
 *     pairwise stay bounded) are refused at their position, and so are
 *     aliases (there is nothing to expand: no alias bombs), and with the
 *     flags anchors, tags other than !!str, a second document and "\0"
 *     escapes in scalars.
 *
 * Messages name the document kind the caller gives ("a matrix", "a pin
 * file"), so users read one vocabulary.
 */
#ifndef TDC_YAMLTREE_H
#define TDC_YAMLTREE_H

#include <stddef.h>

#include "util/err.h"

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	unsigned line, col;  /* 1-based, of the node's first character (a quoted scalar: its quote) */
	int quoted;          /* 0 plain, 1 '...' or "...", 2 block (| or >) */
	char *s;             /* scalar text, NUL-terminated (cut at a "\0" escape) */
	size_t len;
	struct ynode **kid;  /* sequence items; mapping: key, value, key, value, ... */
	size_t n, alloc;
};

enum ytree_flags {
	YT_REFUSE_ANCHORS = 1,  /* &name is an error (else ignored; aliases are always refused) */
	YT_REFUSE_TAGS = 2,     /* a tag other than !!str is an error (else ignored) */
	YT_ONE_DOCUMENT = 4,    /* a second document is an error (else it ends the tree, unread) */
	YT_REFUSE_NUL = 8,      /* a "\0" escape in a scalar is an error (else the text is cut there) */
};

struct ytree_opts {
	unsigned max_depth;     /* at most 64 */
	size_t max_nodes, max_scalar, max_kids;
	const char *in;         /* "a matrix": "anchors (&a) are not allowed in a matrix; ..." */
	const char *file;       /* "a matrix file": "... holds one YAML document; ..." */
	const char *quote_key;  /* "torch": hints spell `(torch: ">=2.9")`; NULL: `(">=2.9")` */
	unsigned flags;
};

/* Where and why reading refused. */
struct ytree_error {
	unsigned line, col;
	char msg[ERR_MSG_MAX];
};

/*
 * Checks the encoding of p[0..len). Returns the offset where YAML starts
 * (after a UTF-8 BOM) or -1 with *e set.
 */
long ytree_check_bytes(const unsigned char *p, size_t len, struct ytree_error *e);

/*
 * The tree of the first document in data[0..len), or NULL with *e set.
 * *empty is set (and NULL returned, *e untouched) for a stream with no node.
 * The caller frees the tree with ynode_free.
 */
struct ynode *ytree_parse(const unsigned char *data, size_t len, const struct ytree_opts *o, int *empty,
			  struct ytree_error *e);

void ynode_free(struct ynode *y);

/*
 * A tree flattened at build time (checker/matrix/embed_tree.c writes one from
 * ytree_parse's result, so the program does not parse its own built-in YAML
 * on every run): nodes in pre-order, the root first; a scalar's text is
 * text[off..off+n) (NUL-terminated), a list's or mapping's items are the
 * nodes kid[off..off+n), and the root's items come first in kid.
 */
struct ytree_blob_node {
	unsigned char kind, quoted;
	unsigned line, col, off, n;
};
struct ytree_blob {
	const struct ytree_blob_node *node;
	size_t nnodes;
	const unsigned *kid;
	size_t nkids;
	const char *text;
};

/*
 * The tree of a blob in two allocations (the nodes, the item pointers), its
 * scalars pointing into b->text; NULL for a blob with no node. Free it with
 * ytree_blob_free, not ynode_free.
 */
struct ynode *ytree_from_blob(const struct ytree_blob *b);
void ytree_blob_free(struct ynode *root);

/* The value of `key` in a mapping (scalar keys compared bytewise), or NULL. */
const struct ynode *ynode_get(const struct ynode *map, const char *key);

#endif
