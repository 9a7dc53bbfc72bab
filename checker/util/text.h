/*
 * text: untrusted text made safe for one line of a terminal or a GitHub
 * Actions log, and ASCII character classes.
 *
 * Everything torch-dll-check prints may quote the machine checked or the
 * repository: DLL names from import tables, paths, registry values, YAML
 * keys, requirement lines. text_esc is the one function that turns such
 * bytes into a line a human can read and nothing can act on:
 *
 *   - C0 controls and DEL become \n, \r, \t or \xNN (no clear-screen, no
 *     window title, no line break that could forge a line);
 *   - C1 controls (U+0080..U+009F, e.g. c2 9b, a CSI on some terminals)
 *     become \u009b;
 *   - characters that reorder or hide text — the bidi embeddings,
 *     overrides and isolates, LRM/RLM/ALM, zero-width spaces and joiners,
 *     the BOM, the line and paragraph separators — become \u202e and so on;
 *   - bytes that are not valid UTF-8 become \xNN;
 *   - with TEXT_ESC_WORKFLOW, the two GitHub workflow-command triggers
 *     (actions/runner ActionCommand.cs) are broken visibly. The runner
 *     trims a line's leading white space (Unicode's: U+00A0, U+3000 too)
 *     and then wants "::", so a ':' that comes first in the text (after
 *     white space) becomes \x3a — the text may be
 *     printed at a line start, and its LF and CR are escaped, so that is the
 *     only place a line of it can start; "::" further on is harmless and
 *     kept ("pytorch::pytorch"). The legacy "##[" counts anywhere in a
 *     line: "##[" → "#\x23[", and a leading "#[" (which a '#' before the
 *     text could complete) → "\x23[".
 *
 * The escapes are plain visible ASCII, so what a log shows is what the
 * file holds, spelled out; nothing invisible is inserted (a path copied from
 * the log differs from the file exactly where the log shows a backslash
 * escape). A backslash in the input is kept as is (Windows paths are full
 * of them), so the escaping is for reading, not a reversible encoding.
 */
#ifndef TDC_TEXT_H
#define TDC_TEXT_H

#include <stdarg.h>
#include <stddef.h>

#include "util/strbuf.h"

enum text_esc_flags {
	TEXT_ESC_WORKFLOW = 1, /* also break "::" and "##[" (GitHub workflow commands) */
	TEXT_ESC_KEEP_NL = 2,  /* keep LF (multi-line blocks): each line then starts as the text does */
	TEXT_ESC_MIDLINE = 4,  /* the text continues a line that has visible text already: a ':' first in it cannot start a command */
};

/* Appends s[0..n) escaped as above. */
void text_esc(struct strbuf *out, const char *s, size_t n, unsigned flags);

/*
 * The usual form: a NUL-terminated string (NULL prints nothing), with
 * TEXT_ESC_WORKFLOW — the same bytes in a terminal and in a log — and
 * TEXT_ESC_MIDLINE when `out` already holds visible ASCII text since its last
 * line break (text_addf's %s arguments likewise): only a ':' that can come
 * first on a line is escaped, so "imports (2 DLLs):" keeps its colon. The
 * start of `out` counts as the start of a line.
 */
void text_esc_line(struct strbuf *out, const char *s);

/*
 * A short quotation of s for an error message: escaped like text_esc_line,
 * at most `max` input bytes, then "...". Returns out->buf.
 */
const char *text_quote(struct strbuf *out, const char *s, size_t max);

/*
 * strbuf_addf with every %s argument passed through text_esc (with
 * TEXT_ESC_WORKFLOW): the format is trusted, the strings are not. Width and
 * precision apply as in printf (precision counts input bytes, so "%.*s"
 * prints a slice; width pads the escaped text). Other conversions are
 * printf's; %n is not supported.
 */
void text_addf(struct strbuf *out, const char *fmt, ...) ERR_PRINTF(2, 3);
void text_vaddf(struct strbuf *out, const char *fmt, va_list ap) ERR_PRINTF(2, 0);

/*
 * Whether code point cp is one text_esc shows as \uXXXX: C1 controls, bidi
 * marks, embeddings, overrides and isolates, zero-width characters, the
 * line and paragraph separators, the BOM.
 */
int text_is_invisible(long cp);

/*
 * One non-ASCII character at s[*i] (s has n bytes), for escapers that write
 * their own syntax: appends it unchanged when it is valid, visible UTF-8, or
 * \uXXXX when it is invisible (text_is_invisible), and advances *i past it;
 * returns -1, appending nothing and leaving *i alone, when s[*i] does not
 * start valid UTF-8 (the caller writes its own mark for the byte).
 */
int text_put_char(struct strbuf *out, const unsigned char *s, size_t n, size_t *i);

/* Whether cp is Unicode white space (.NET Char.IsWhiteSpace: what the runner's TrimStart trims). */
int text_is_space(long cp);

/*
 * The same for messages built in fixed arrays: s[0..len) escaped, at most
 * `max` input bytes, into buf (size bytes, always NUL-terminated), "..."
 * when anything was left out. Returns buf.
 */
const char *text_excerpt(const char *s, size_t len, size_t max, char *buf, size_t size);

/* Whether text_esc would change s[0..n) (with TEXT_ESC_WORKFLOW). */
int text_needs_esc(const char *s, size_t n);

/*
 * ASCII character classes. Unlike <ctype.h> they ignore the locale and take
 * any char value, including negative ones (no cast needed, no UB).
 */
static inline int ascii_isdigit(int c) { return c >= '0' && c <= '9'; }
static inline int ascii_isupper(int c) { return c >= 'A' && c <= 'Z'; }
static inline int ascii_islower(int c) { return c >= 'a' && c <= 'z'; }
static inline int ascii_isalpha(int c) { return ascii_isupper(c) || ascii_islower(c); }
static inline int ascii_isalnum(int c) { return ascii_isalpha(c) || ascii_isdigit(c); }
static inline int ascii_isxdigit(int c)
{
	return ascii_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
/* Space, tab, LF, VT, FF, CR — C's isspace in the "C" locale. */
static inline int ascii_isspace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
/* A C0 control or DEL. */
static inline int ascii_iscntrl(int c) { return (c >= 0 && c < 0x20) || c == 0x7f; }
/* Printable ASCII, space included. */
static inline int ascii_isprint(int c) { return c >= 0x20 && c < 0x7f; }
static inline int ascii_tolower(int c) { return ascii_isupper(c) ? c + ('a' - 'A') : c; }
static inline int ascii_toupper(int c) { return ascii_islower(c) ? c - ('a' - 'A') : c; }

#endif
