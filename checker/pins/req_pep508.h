/*
 * req_pep508: the core the pin-file parsers share (requirements.h is the
 * public interface; this header is for the req_*.c format parsers only).
 *
 * It holds the one PEP 508 requirement parser every format hands its
 * requirement strings to (req_parse_pep508, with pip's bare URL and path
 * forms), the position map that turns an offset in a joined line or a
 * string back into the file's line and column, and the small pieces every
 * format needs: pins appended to a req_file, includes, index URLs, version
 * specifier checks, and "PATH:LINE:COL: message" errors.
 *
 * Ownership: every `char *` a pin holds is the pin's (req_file_release frees
 * it); req_set_str copies, req_add_pin returns a pin owned by the file.
 */
#ifndef TDC_REQ_PEP508_H
#define TDC_REQ_PEP508_H

#include <stddef.h>

#include "util/err.h"
#include "pins/pin.h"
#include "util/strbuf.h"
#include "util/text.h" /* ASCII classes, text_excerpt for error messages */

/* Parsed wheel file name: {name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl (PEP 427). */
struct wheel_name {
	char *name, *version, *build, *python_tag, *abi_tag, *platform_tag;
};
/* Accepts a bare file name, a path or a URL (query/fragment ignored, %XX decoded). */
int wheel_name_parse(struct wheel_name *w, const char *s, struct err *err);
void wheel_name_release(struct wheel_name *w);

/* The variant label in a local version ("2.4.0+cu121" -> "cu121"), or NULL. Caller frees. */
char *req_variant_of_version(const char *version);
/* The variant an index URL serves (".../whl/cu121", ".../whl/nightly/cpu"), or NULL. Caller frees. */
char *req_variant_of_url(const char *url);

/* PEP 503 normalisation of a project name into out (reset first). */
void req_normalize_name(const char *name, size_t len, struct strbuf *out);

/* A copy of s[0..n) without leading and trailing whitespace. Caller frees. */
char *req_trim_dup(const char *s, size_t n);
/* The part of path after its last '/' or '\\' (borrowed from path). */
const char *req_basename(const char *path);
/* Sets err to "PATH:LINE:COL: message" for file f; returns -1. */
int req_ferr(const struct req_file *f, struct err *err, unsigned line, unsigned col, const char *fmt, ...)
	ERR_PRINTF(5, 6);

/* Appends an empty pin at (line, col); NULL with err set past REQ_MAX_PINS. */
struct pin *req_add_pin(struct req_file *f, unsigned line, unsigned col, enum pin_source src,
			struct err *err);
/* Replaces *dst with a copy of s (NULL: frees it). */
void req_set_str(char **dst, const char *s);
/* Records url as the pin's index, and the variant it serves if the pin has none yet. */
void req_set_index(struct pin *p, const char *url);

/* Positions inside joined lines and strings: segment k of the text starts at
 * offset v[k].off, which is (line, col) in the file. */
struct posmap_seg {
	size_t off;
	unsigned line, col;
};

struct posmap {
	struct posmap_seg *v;
	size_t n, alloc;
};

void posmap_add(struct posmap *m, size_t off, unsigned line, unsigned col);
/* The file position of offset off (1:1 for an empty map). */
void posmap_at(const struct posmap *m, size_t off, unsigned *line, unsigned *col);

/* Where a requirement string is parsed: its file, how its pins are labelled,
 * and where its text sits in the file. */
struct req_ctx {
	struct req_file *f;
	struct err *err;
	enum pin_source source;
	const char *group;
	const struct posmap *map;
	size_t base;            /* offset of the string within the posmap's text */
	int pip;                /* pip forms allowed: bare URLs and paths */
};

/* Sets err to "PATH:LINE:COL: message" for offset off of the string r parses; returns -1. */
int req_ctx_err(const struct req_ctx *r, size_t off, const char *fmt, ...) ERR_PRINTF(3, 4);

/*
 * Parses one requirement s[0..n) (already free of pip options and comments)
 * and appends it as a pin (*out, if out is not NULL). Offset 0 of s is at
 * r->base in r->map. Returns 0, or -1 with the error set.
 */
int req_parse_pep508(const struct req_ctx *r, const char *s, size_t n, struct pin **out);
/* One requirement in a TOML or YAML string whose first character is at (line, col). */
int req_parse_string(struct req_file *f, const char *s, unsigned line, unsigned col, enum pin_source src,
		     const char *group, struct pin **out, struct err *err);

/* Fills a pin's URL, form and (for wheels) name, version, tags and variant. */
int req_apply_url(const struct req_ctx *r, struct pin *p, const char *url, size_t url_off);
/* Checks a specifier list ("==2.4.0", ">=2.4,<2.6", "~=2.5.0", "==2.4.*"); returns the
 * offset of the bad clause or (size_t)-1 if all are good. */
size_t req_check_specifier(const char *s, size_t n);
/* A copy of s[0..n) without any whitespace. Caller frees. */
char *req_strip_spaces(const char *s, size_t n);
/*
 * Validates a PEP 440 specifier with the version module: 0 if valid; -1 with
 * the reason (without its "at column N" part) in msg and the 0-based offset of
 * the offending character within spec in *col.
 */
int req_pep440_check(const char *spec, char *msg, size_t msglen, size_t *col);
/* Sets version (exact pins) and the variant (local version label) from p->pep440. */
void req_derive_from_spec(struct pin *p);

/* Records an include (-r/-c, setup.cfg `file:`, setuptools dynamic) at offset off of r's string. */
int req_add_include(struct req_file *f, const struct req_ctx *r, size_t off, const char *target, int constraint);

#endif
