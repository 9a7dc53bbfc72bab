/*
 * registry_lines: a text registry file as a stream of checked lines, private
 * to the registry module (registry.h). Only the current line is decoded
 * (UTF-16LE → UTF-8 into `line`; UTF-8 is checked in place: valid, no NUL),
 * and the pages of a mapped file already read are given back to the OS as
 * the parser moves on, so memory does not grow with the file, only with what
 * is kept. registry_text.c parses the lines; `struct parser` is its state,
 * and errors name the file and the line (reg_perr).
 */
#ifndef TDC_REGISTRY_LINES_H
#define TDC_REGISTRY_LINES_H

#include <stddef.h>

#include "machine/registry_table.h"
#include "util/err.h"
#include "util/strbuf.h"

enum reg_dialect { DIALECT_REGFILE, DIALECT_WINE };
enum reg_encoding { ENC_UTF8, ENC_UTF16LE };

/*
 * The file is read as a stream of lines: only the current line is decoded
 * (UTF-16LE → UTF-8 into `line`; UTF-8 is checked in place), and the pages of
 * a mapped file already read are given back to the OS as the parser moves on,
 * so memory does not grow with the file, only with what is kept.
 */
struct parser {
	struct registry *reg;
	const char *name;       /* for messages */
	const unsigned char *raw; /* the file's bytes */
	size_t len, pos;        /* pos: the start of the next line in raw */
	enum reg_encoding enc;
	struct strbuf line;     /* the current line in UTF-8 (UTF-16 input) */
	struct strbuf what;     /* their names, for messages */
	char *skip_prefix;      /* a key path outside every kept subtree, and so is all under it */
	size_t skip_len;
	int mapped;             /* raw is a mapping whose read pages may be dropped */
	size_t dropped;         /* raw[0, dropped) already given back */
	unsigned long line_no;  /* number of the line last read (1-based) */
	enum reg_dialect dialect;
	int ansi;               /* REGEDIT4 */
	struct reg_key *key;    /* the current [key], NULL before the first */
	int other_root;         /* the current key is not kept: check, do not store */
	struct err *err;
};

#define REG_MAX_DATA ((size_t)16 << 20) /* bytes in one value */
#define REG_MAX_LINE ((size_t)64 << 20)  /* bytes in one line (a value of 16 MiB in hex fits) */
#define REG_MAX_NAME 16383               /* characters in a value name, as Windows */
#define REG_MAX_PATH REG_MAX_PATH_BYTES
#define REG_MAX_KEYS REG_MAX_KEYS_ALL
#define REG_MAX_DELETES 10000            /* [-KEY] lines, each one walks every key */
#define REG_MAX_DELETE_WORK 100000000ull /* keys visited by all [-KEY] lines together */
#define REG_DROP_CHUNK ((size_t)1 << 20) /* pages given back in steps of this many bytes */

/* Sets "name:line: message" in ps->err and returns -1. */
int reg_perr(struct parser *ps, const char *fmt, ...) ERR_PRINTF(2, 3);

/*
 * The next physical line, decoded and checked, without its CR LF: 1; 0 at the
 * end of the text; -1 (error set, naming the line) for a bad one.
 */
int reg_next_line(struct parser *ps, const char **line, size_t *n);

/* The encoding from the first bytes: where the text starts, or -1 (error set). */
int reg_detect_encoding(struct parser *ps, const unsigned char *p, size_t len);

#endif
