/*
 * registry: an offline copy of HKEY_LOCAL_MACHINE (see registry.h).
 *
 * Two text formats, both read up front as a stream of lines, with every line
 * checked; a line we do not understand is an error naming the file, the line
 * and what was expected there, never a silently skipped key. Only the keys
 * inside the subtrees asked for (registry_keep) are stored; the others are
 * checked and dropped, and a mapped file's pages are given back as the
 * reader moves on, so memory follows what is kept, not the file's size
 * (a full Wine prefix or a `reg export HKLM` of hundreds of MB):
 *
 *   - `reg export` / regedit files: "Windows Registry Editor Version 5.00"
 *     (reg.exe writes UTF-16LE with a BOM; UTF-8 is accepted too) or
 *     "REGEDIT4". Keys are full paths (`[HKEY_LOCAL_MACHINE\SOFTWARE\...]`),
 *     `[-KEY]` deletes a key with its subtree, `"Name"=-` deletes a value.
 *     Strings escape only `\\` and `\"` (Wine's reg.exe also writes `\n` and
 *     `\0`); other types are `dword:XXXXXXXX` and `hex(N):` byte lists that
 *     continue on the next line after a trailing `\`.
 *     https://support.microsoft.com/help/310516 (".reg file syntax")
 *   - Wine's `system.reg` ("WINE REGISTRY Version 2"): keys relative to
 *     HKLM written with doubled backslashes and a modification time
 *     (`[Software\\Microsoft] 1700000000`), option lines starting with `#`
 *     (`#time=`, `#arch=`, `#link`, `#class=`), strings escaped as Wine's
 *     server/unicode.c dump_strW writes them: `\\`, `\"`, C escapes
 *     (`\n`, `\t`, `\e`, ...), octal (`\0`, `\033`) and `\xNNNN` (1 to 4 hex
 *     digits, a UTF-16 code unit); `str(N):"..."` for REG_EXPAND_SZ /
 *     REG_MULTI_SZ, `dword:`, `hex:` and `hex(N):`.
 *
 * Values are stored as Windows stores them: a type and the raw bytes (strings
 * in UTF-16LE with their terminating NUL), so both formats end up identical
 * and text is produced only when asked for (registry_get).
 *
 * Where this departs from Windows, and why:
 *   - Key and value names compare ASCII-case-insensitively; Windows upcases
 *     all of Unicode. Every key we look up is ASCII.
 *   - The 32-bit view maps `SOFTWARE\X` to `SOFTWARE\WOW6432Node\X` for every
 *     X; Windows shares a few subkeys between the views ("Registry keys
 *     affected by WOW64" on learn.microsoft.com). The VC++ runtime keys are
 *     redirected, which is what we read. A Wine prefix marked `#arch=win32`
 *     has one view only, as a 32-bit Windows does.
 *   - `reg export /reg:32` writes the 32-bit keys WITHOUT `WOW6432Node` in
 *     their paths (seen with Wine 8's reg.exe): such a file cannot say which
 *     view it came from. Export `HKLM\SOFTWARE\WOW6432Node\...` from the
 *     64-bit view instead (registry_load_more merges several files).
 *   - Keys under other roots (HKEY_CURRENT_USER, ...) are checked but not
 *     kept: we model HKLM only.
 *
 * A third format, regf hives, is read by hive.c through libhivex and lands
 * in the same key table (registry_put).
 */
#include "machine/registry.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/os.h"
#include "util/span.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/utf.h"

#define REG_MAX_PATH_BYTES 32767 /* bytes in a key path */
#define REG_MAX_KEYS_ALL 4000000

struct reg_value {
	char *name;             /* UTF-8; "" for the default value (@) */
	char *fold;             /* ASCII-lowercased name */
	uint32_t type;          /* REG_* or REG_TYPE_DELETED (a later "Name"=- line) */
	unsigned char *data;
	size_t len;
};

#define REG_TYPE_DELETED 0xffffffffu

struct reg_key {
	char *path;             /* relative to HKLM, as first written */
	char *fold;
	int deleted;
	struct reg_value *values; /* in file order; the last one of a name wins */
	size_t nvalues, avalues;
};

struct registry {
	struct reg_key **keys;
	size_t nkeys, akeys;
	struct strmap table;    /* fold → index into keys */
	size_t ndeletes;
	unsigned long long delete_work;
	int arch32;             /* Wine prefix with #arch=win32: a single view */
	struct strlist keep;    /* folded subtrees kept (registry_keep); none: everything */
	struct strbuf desc;
};

/* ---------- the key table ---------- */

static int fold_ch(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static char *fold_dup(const char *s)
{
	char *f = xstrdup(s), *p;
	for (p = f; *p; p++)
		*p = (char)fold_ch((unsigned char)*p);
	return f;
}

static struct reg_key *key_find(const struct registry *reg, const char *fold)
{
	size_t i;
	return strmap_get(&reg->table, fold, &i) ? reg->keys[i] : NULL;
}

static struct reg_key *key_get(struct registry *reg, const char *path)
{
	char *fold = fold_dup(path);
	struct reg_key *k = key_find(reg, fold);
	if (k) {
		free(fold);
		k->deleted = 0;
		return k;
	}
	k = xcalloc(1, sizeof(*k));
	k->path = xstrdup(path);
	k->fold = fold;
	ALLOC_GROW(reg->keys, reg->nkeys + 1, reg->akeys);
	strmap_add(&reg->table, k->fold, reg->nkeys);
	reg->keys[reg->nkeys++] = k;
	return k;
}

static void value_release(struct reg_value *v)
{
	free(v->name);
	free(v->fold);
	free(v->data);
}

static void key_clear_values(struct reg_key *k)
{
	size_t i;
	for (i = 0; i < k->nvalues; i++)
		value_release(&k->values[i]);
	free(k->values);
	k->values = NULL;
	k->nvalues = k->avalues = 0;
}

/* [-KEY]: the key and everything under it. */
static void key_delete_tree(struct registry *reg, const char *path)
{
	char *fold = fold_dup(path);
	size_t n = strlen(fold), i;
	for (i = 0; i < reg->nkeys; i++) {
		struct reg_key *k = reg->keys[i];
		if (!strncmp(k->fold, fold, n) && (k->fold[n] == '\0' || k->fold[n] == '\\')) {
			k->deleted = 1;
			key_clear_values(k);
		}
	}
	free(fold);
}

static void key_add_value(struct reg_key *k, const char *name, uint32_t type, unsigned char *data,
			  size_t len)
{
	struct reg_value *v;
	ALLOC_GROW(k->values, k->nvalues + 1, k->avalues);
	v = &k->values[k->nvalues++];
	v->name = xstrdup(name);
	v->fold = fold_dup(name);
	v->type = type;
	v->data = data;
	v->len = len;
}

static const struct reg_value *key_value(const struct reg_key *k, const char *fold)
{
	size_t i = k->nvalues;
	while (i--) {
		if (!strcmp(k->values[i].fold, fold))
			return k->values[i].type == REG_TYPE_DELETED ? NULL : &k->values[i];
	}
	return NULL;
}

void registry_free(struct registry *reg)
{
	size_t i;
	if (!reg)
		return;
	for (i = 0; i < reg->nkeys; i++) {
		key_clear_values(reg->keys[i]);
		free(reg->keys[i]->path);
		free(reg->keys[i]->fold);
		free(reg->keys[i]);
	}
	free(reg->keys);
	strmap_release(&reg->table);
	strlist_release(&reg->keep);
	strbuf_release(&reg->desc);
	free(reg);
}

/* ---------- the subtrees kept ---------- */

static char *lookup_path(const struct registry *reg, const char *key, int regview);

void registry_keep(struct registry *reg, const char *subtree)
{
	char *f = lookup_path(reg, subtree, 64);
	/* a SOFTWARE key is read in both views: keep its WOW6432Node twin too */
	if (!strncmp(f, "software\\", 9) && strncmp(f, "software\\wow6432node", 20))
		strlist_push_owned(&reg->keep, xasprintf("software\\wow6432node%s", f + 8));
	strlist_push_owned(&reg->keep, f);
}

static int split_root(const char *path, const char **rest);

/*
 * The next character of the folded, normalised form lookup_path gives a key
 * path (leading and doubled backslashes dropped, a trailing one too), or 0
 * at its end: registry_scope compares it with the kept subtrees as it goes,
 * without building it (it runs for every key line of every file read).
 */
static int norm_next(const char **pp, int *started)
{
	const char *p = *pp;
	if (!*started) {
		while (*p == '\\')
			p++;
		*started = 1;
	}
	if (*p == '\\') {
		while (*p == '\\')
			p++;
		*pp = p;
		return *p ? '\\' : 0;
	}
	if (!*p) {
		*pp = p;
		return 0;
	}
	*pp = p + 1;
	return fold_ch((unsigned char)*p);
}

int registry_scope(const struct registry *reg, const char *path)
{
	const char *rest = path;
	size_t i;
	int r = reg->keep.n ? REGISTRY_SKIP : REGISTRY_KEEP;
	if (split_root(path, &rest) != 1)
		rest = path;
	for (i = 0; i < reg->keep.n && r != REGISTRY_KEEP; i++) {
		const char *k = reg->keep.v[i], *p = rest;
		size_t j = 0;
		int started = 0, ch;
		while ((ch = norm_next(&p, &started)) && k[j] && ch == k[j])
			j++;
		if (!k[0] || (!k[j] && (!ch || ch == '\\')))
			r = REGISTRY_KEEP; /* the path is a kept subtree or inside one */
		else if (!ch && (!j || k[j] == '\\'))
			r = REGISTRY_DESCEND; /* the path leads to one */
	}
	return r;
}

int registry_put(struct registry *reg, const char *key, const char *value, unsigned type,
		 const void *data, size_t len, struct err *err)
{
	struct reg_key *k;
	unsigned char *copy;
	if (strlen(key) > REG_MAX_PATH_BYTES)
		return err_set(err, "key path longer than %d bytes", REG_MAX_PATH_BYTES);
	if (reg->nkeys >= REG_MAX_KEYS_ALL && !key_find(reg, key))
		return err_set(err, "more than %d keys", REG_MAX_KEYS_ALL);
	k = key_get(reg, key);
	if (!value)
		return 0;
	copy = xmalloc(len ? len : 1);
	if (len)
		memcpy(copy, data, len);
	key_add_value(k, value, type, copy, len);
	return 0;
}

void registry_describe_add(struct registry *reg, const char *what)
{
	strbuf_addf(&reg->desc, "%s%s", reg->desc.len ? " + " : "", what);
}

/* UTF-8 and UTF-16: utf.h. */

/* UTF-16LE code units → UTF-8; returns the number of unpaired surrogates (each became U+FFFD). */
static size_t utf16_to_utf8(struct strbuf *out, const unsigned char *p, size_t len, int stop_at_nul)
{
	return utf16le_to_utf8(out, p, len, stop_at_nul ? UTF16_STOP_AT_NUL : 0, NULL);
}

/* Called for every character of every string read: written in place, no call per unit. */
static void put_u16(struct strbuf *sb, uint16_t u)
{
	if (sb->len + 2 >= sb->alloc)
		strbuf_grow(sb, 64);
	sb->buf[sb->len++] = (char)(u & 0xff);
	sb->buf[sb->len++] = (char)(u >> 8);
	sb->buf[sb->len] = '\0';
}

/* ---------- reading the file as lines ---------- */

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

static int perr(struct parser *ps, const char *fmt, ...) ERR_PRINTF(2, 3);
static int perr(struct parser *ps, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	err_set(ps->err, "%s:%lu: %s", ps->name, ps->line_no, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* Checks one line of UTF-8 text: valid, no NUL. */
static int check_utf8_line(struct parser *ps, const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		/* eight bytes at a time while they are all ASCII and none is NUL (the common case) */
		while (n - i >= 8) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if ((w & 0x8080808080808080ull) || ((w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull))
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if (s[i] && s[i] < 0x80) {
			i++;
			continue;
		}
		if (!s[i])
			return perr(ps, "NUL byte in a text file (a UTF-16 file without its BOM?)");
		if (utf8_next(s, n, &i) < 0)
			return perr(ps, "invalid UTF-8 (reg export files are UTF-16LE with a BOM or UTF-8)");
	}
	return 0;
}

/* One line of UTF-16LE code units → ps->line in UTF-8. */
static int decode_utf16_line(struct parser *ps, const unsigned char *p, size_t len)
{
	struct span s = span_make(p, len);
	size_t off;
	uint16_t u, u2;
	strbuf_reset(&ps->line);
	/* room for the whole line (a code unit is at most 3 UTF-8 bytes): ASCII is stored directly */
	strbuf_grow(&ps->line, len / 2 * 3);
	for (off = 0; span_u16(s, off, &u) == 0; off += 2) {
		if (u == 0)
			return perr(ps, "NUL character in the text");
		if (u < 0x80) {
			ps->line.buf[ps->line.len++] = (char)u;
		} else if (u >= 0xd800 && u <= 0xdbff) {
			if (span_u16(s, off + 2, &u2) || u2 < 0xdc00 || u2 > 0xdfff)
				return perr(ps, "unpaired UTF-16 surrogate 0x%04x", u);
			utf8_put(&ps->line, 0x10000 + (((uint32_t)u - 0xd800) << 10) + (u2 - 0xdc00));
			off += 2;
		} else if (u >= 0xdc00 && u <= 0xdfff) {
			return perr(ps, "unpaired UTF-16 surrogate 0x%04x", u);
		} else {
			utf8_put(&ps->line, u);
		}
	}
	ps->line.buf[ps->line.len] = '\0';
	return 0;
}

/* Gives the pages of a mapped file that lie wholly before `upto` back to the OS. */
static void drop_read_pages(struct parser *ps, size_t upto)
{
	size_t n;
	if (!ps->mapped || upto < ps->dropped || upto - ps->dropped < REG_DROP_CHUNK)
		return;
	n = (upto - ps->dropped) / REG_DROP_CHUNK * REG_DROP_CHUNK;
	os_drop_pages(ps->raw + ps->dropped, n);
	ps->dropped += n;
}

/*
 * The next physical line, decoded and checked, without its CR LF: 1; 0 at the
 * end of the text; -1 (error set, naming the line) for a bad one.
 */
static int next_line(struct parser *ps, const char **line, size_t *n)
{
	const unsigned char *p;
	size_t rest, len;
	if (ps->pos >= ps->len)
		return 0;
	p = ps->raw + ps->pos;
	rest = ps->len - ps->pos;
	ps->line_no++;
	if (ps->enc == ENC_UTF8) {
		const unsigned char *nl = memchr(p, '\n', rest);
		len = nl ? (size_t)(nl - p) : rest;
		ps->pos += nl ? len + 1 : len;
		if (len > REG_MAX_LINE)
			return perr(ps, "line longer than %zu bytes", REG_MAX_LINE);
		if (check_utf8_line(ps, p, len))
			return -1;
		*line = (const char *)p;
	} else {
		size_t k;
		for (k = 0; k + 1 < rest && !(p[k] == '\n' && p[k + 1] == 0); k += 2)
			;
		len = k < rest ? k : rest;
		ps->pos += k + 1 < rest ? len + 2 : rest;
		if (len > 2 * REG_MAX_LINE)
			return perr(ps, "line longer than %zu bytes", 2 * REG_MAX_LINE);
		if (decode_utf16_line(ps, p, len))
			return -1;
		*line = ps->line.buf;
		len = ps->line.len;
	}
	drop_read_pages(ps, ps->pos);
	if (len && (*line)[len - 1] == '\r')
		len--;
	*n = len;
	return 1;
}

/* A cursor over one line. */
struct cur {
	const char *s;
	size_t n, i;
};

static void skip_ws(struct cur *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t'))
		c->i++;
}

static int at_end(struct cur *c)
{
	skip_ws(c);
	return c->i >= c->n;
}

static int eat(struct cur *c, const char *lit)
{
	size_t k = strlen(lit);
	if (c->n - c->i >= k && !str_nicmp(c->s + c->i, lit, k)) {
		c->i += k;
		return 1;
	}
	return 0;
}

/* 1..max hex digits as a number. -1 if there is none. */
static int read_hex(struct cur *c, size_t max, uint32_t *out)
{
	size_t k = 0;
	uint32_t v = 0;
	while (k < max && c->i < c->n && hex_digit((unsigned char)c->s[c->i]) >= 0) {
		v = (v << 4) | (uint32_t)hex_digit((unsigned char)c->s[c->i]);
		c->i++;
		k++;
	}
	if (!k)
		return -1;
	*out = v;
	return 0;
}

/* A short, printable excerpt of the line from the cursor on, for messages (text.h). */
static const char *excerpt(struct cur *c, char *buf, size_t size)
{
	return text_excerpt(c->s + c->i, c->n - c->i, size, buf, size);
}

/*
 * An escaped string from the cursor up to the unescaped `term` (which is
 * consumed), as UTF-16LE code units appended to u16. The cursor starts just
 * after the opening delimiter.
 */
static int parse_escaped(struct parser *ps, struct cur *c, char term, const char *what,
			 struct strbuf *u16)
{
	while (c->i < c->n) {
		unsigned char ch = (unsigned char)c->s[c->i];
		if (ch == (unsigned char)term) {
			c->i++;
			return 0;
		}
		if (u16->len > 2 * REG_MAX_DATA)
			return perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
		if (ch == '\\') {
			unsigned char e;
			c->i++;
			if (c->i >= c->n)
				break;
			e = (unsigned char)c->s[c->i++];
			if (ps->dialect == DIALECT_REGFILE) {
				/* regedit writes \\ and \"; Wine's reg.exe also \n and \0. */
				if (e == '\\' || e == '"')
					put_u16(u16, e);
				else if (e == 'n')
					put_u16(u16, '\n');
				else if (e == '0')
					put_u16(u16, 0);
				else
					return perr(ps, "%s: unknown escape \\%c (expected \\\\, \\\", \\n or \\0)",
						    what, e >= 0x20 && e < 0x7f ? e : '?');
				continue;
			}
			/* Wine: the escapes server/unicode.c dump_strW writes. */
			if (e == 'x') {
				uint32_t v;
				if (read_hex(c, 4, &v))
					return perr(ps, "%s: expected 1 to 4 hex digits after \\x", what);
				put_u16(u16, (uint16_t)v);
			} else if (e >= '0' && e <= '7') {
				uint32_t v = (uint32_t)(e - '0');
				int k;
				for (k = 0; k < 2 && c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '7'; k++)
					v = v * 8 + (uint32_t)(c->s[c->i++] - '0');
				put_u16(u16, (uint16_t)v);
			} else {
				static const char esc[] = "a\ab\bt\tn\nv\vf\fr\re\033";
				const char *m = NULL;
				size_t k;
				for (k = 0; esc[k]; k += 2)
					if ((unsigned char)esc[k] == e)
						m = esc + k + 1;
				put_u16(u16, m ? (uint16_t)(unsigned char)*m : e);
			}
			continue;
		}
		if (ch < 0x80) {
			/* a run of plain ASCII (most of every file): widened in place, no call per character */
			size_t j = c->i;
			while (j < c->n && (unsigned char)c->s[j] < 0x80 && c->s[j] != term && c->s[j] != '\\')
				j++;
			strbuf_grow(u16, 2 * (j - c->i));
			for (; c->i < j; c->i++) {
				u16->buf[u16->len++] = c->s[c->i];
				u16->buf[u16->len++] = '\0';
			}
			u16->buf[u16->len] = '\0';
			continue;
		}
		{
			size_t i = c->i;
			long cp = utf8_next((const unsigned char *)c->s, c->n, &i);
			if (cp < 0)
				return perr(ps, "%s: invalid UTF-8", what); /* validated before: defensive */
			c->i = i;
			utf16le_put(u16, (uint32_t)cp);
		}
	}
	return perr(ps, "%s: expected a closing '%c' before the end of the line", what, term);
}

/* UTF-16 code units of a name → UTF-8 (a name with an unpaired surrogate is refused). */
static int u16_name(struct parser *ps, struct strbuf *u16, struct strbuf *out, const char *what)
{
	size_t k;
	for (k = 0; k + 1 < u16->len; k += 2)
		if (!u16->buf[k] && !u16->buf[k + 1])
			return perr(ps, "%s: contains a NUL character", what);
	if (utf16_to_utf8(out, (const unsigned char *)u16->buf, u16->len, 0))
		return perr(ps, "%s: contains an unpaired UTF-16 surrogate", what);
	return 0;
}

/* ---------- keys ---------- */

static const char *const hklm_roots[] = { "HKEY_LOCAL_MACHINE", "HKLM" };
static const char *const other_roots[] = { "HKEY_CURRENT_USER", "HKEY_USERS", "HKEY_CLASSES_ROOT",
					   "HKEY_CURRENT_CONFIG", "HKEY_PERFORMANCE_DATA",
					   "HKEY_DYN_DATA", "HKCU", "HKU", "HKCR", "HKCC" };

/*
 * Strips an HKLM root. Returns 1 for HKLM (*rest = path below it, "" for the
 * root itself), 2 for another root, 0 for no known root.
 */
static int split_root(const char *path, const char **rest)
{
	size_t i, n;
	for (i = 0; i < sizeof(hklm_roots) / sizeof(hklm_roots[0]); i++) {
		n = strlen(hklm_roots[i]);
		if (!str_nicmp(path, hklm_roots[i], n) && (path[n] == '\0' || path[n] == '\\')) {
			*rest = path[n] ? path + n + 1 : path + n;
			return 1;
		}
	}
	for (i = 0; i < sizeof(other_roots) / sizeof(other_roots[0]); i++) {
		n = strlen(other_roots[i]);
		if (!str_nicmp(path, other_roots[i], n) && (path[n] == '\0' || path[n] == '\\'))
			return 2;
	}
	return 0;
}

/* Refuses empty components ("A\\\\B", a leading or trailing backslash). */
static int check_components(struct parser *ps, const char *path)
{
	size_t n = strlen(path), i;
	if (n > REG_MAX_PATH)
		return perr(ps, "key path longer than %d bytes", REG_MAX_PATH);
	if (!n)
		return 0;
	if (path[0] == '\\' || path[n - 1] == '\\')
		return perr(ps, "key \"%s\": empty key name (leading or trailing backslash)", path);
	for (i = 0; i + 1 < n; i++) {
		const char *bs = memchr(path + i, '\\', n - 1 - i); /* a separator, then look at the next byte */
		if (!bs)
			break;
		i = (size_t)(bs - path);
		if (path[i + 1] == '\\')
			return perr(ps, "key \"%s\": empty key name between two backslashes", path);
	}
	return 0;
}

static int set_key(struct parser *ps, const char *path, int del)
{
	if (check_components(ps, path))
		return -1;
	if (del) {
		if (++ps->reg->ndeletes > REG_MAX_DELETES)
			return perr(ps, "more than %d deleted keys", REG_MAX_DELETES);
		/* each [-KEY] walks every key: bound the total, so no file can make this quadratic */
		ps->reg->delete_work += ps->reg->nkeys;
		if (ps->reg->delete_work > REG_MAX_DELETE_WORK)
			return perr(ps, "too many deleted keys for a registry of %zu keys", ps->reg->nkeys);
		key_delete_tree(ps->reg, path);
		ps->key = NULL; /* values after [-KEY] belong nowhere */
		ps->other_root = 1;
		return 0;
	}
	/*
	 * Files list a subtree's keys together, and most keys are outside every
	 * kept subtree (SOFTWARE\Classes alone is most of a Wine prefix): the
	 * shortest prefix of the last skipped key that is itself skipped is
	 * remembered, and a key under it is skipped at the cost of a compare.
	 */
	if (ps->skip_len && !strncmp(path, ps->skip_prefix, ps->skip_len) &&
	    (path[ps->skip_len] == '\\' || !path[ps->skip_len])) {
		ps->key = NULL;
		ps->other_root = 1;
		return 0;
	}
	if (registry_scope(ps->reg, path) != REGISTRY_KEEP) {
		/* outside the subtrees asked for: its lines are still checked, not stored */
		size_t k;
		for (k = 0;; k++) {
			if (path[k] == '\\' || !path[k]) {
				char *prefix = xstrndup(path, k);
				int sc = registry_scope(ps->reg, prefix);
				if (sc == REGISTRY_SKIP) {
					free(ps->skip_prefix);
					ps->skip_prefix = prefix;
					ps->skip_len = k;
					break;
				}
				free(prefix);
			}
			if (!path[k])
				break;
		}
		ps->key = NULL;
		ps->other_root = 1;
		return 0;
	}
	if (ps->reg->nkeys >= REG_MAX_KEYS && !key_find(ps->reg, path))
		return perr(ps, "more than %d keys", REG_MAX_KEYS);
	ps->key = key_get(ps->reg, path);
	ps->other_root = 0;
	return 0;
}

static int regfile_key_line(struct parser *ps, struct cur *c)
{
	struct strbuf path = STRBUF_INIT;
	const char *rest;
	size_t end = c->n;
	int del = 0, r, root;
	while (end > c->i && (c->s[end - 1] == ' ' || c->s[end - 1] == '\t'))
		end--;
	if (end == c->i || c->s[end - 1] != ']')
		return perr(ps, "key line: expected ']' at the end of the line");
	c->i++; /* '[' */
	if (c->i < end && c->s[c->i] == '-') {
		del = 1;
		c->i++;
	}
	strbuf_add(&path, c->s + c->i, end - 1 - c->i);
	root = split_root(strbuf_str(&path), &rest);
	if (root == 0) {
		r = perr(ps, "key \"%s\": expected a path starting with HKEY_LOCAL_MACHINE\\ (or another HKEY_* root)",
			 path.buf);
	} else if (root == 2) {
		ps->key = NULL;
		ps->other_root = 1;
		r = 0;
	} else {
		r = set_key(ps, rest, del);
	}
	strbuf_release(&path);
	return r;
}

/*
 * A Wine key name whose only escapes are "\\\\" (its separators) decoded
 * straight into UTF-8, as parse_escaped + u16_name would decode it (the line
 * is valid UTF-8 without NUL already): 0, the cursor after ']'. 1: another
 * escape, or no ']': the full decoder must judge it.
 */
static int wine_key_fast(struct cur *c, struct strbuf *path)
{
	const char *p = c->s + c->i, *end = memchr(p, ']', c->n - c->i);
	char *o;
	if (!end)
		return 1;
	strbuf_reset(path);
	strbuf_grow(path, (size_t)(end - p));
	o = path->buf;
	while (p < end) {
		const char *bs = memchr(p, '\\', (size_t)(end - p));
		size_t run = bs ? (size_t)(bs - p) : (size_t)(end - p);
		memcpy(o, p, run);
		o += run;
		if (!bs)
			break;
		if (bs + 1 >= end || bs[1] != '\\')
			return 1; /* another escape (or an escaped ']'): the full decoder */
		*o++ = '\\';
		p = bs + 2;
	}
	path->len = (size_t)(o - path->buf);
	path->buf[path->len] = '\0';
	c->i = (size_t)(end - c->s) + 1;
	return 0;
}

static int wine_key_line(struct parser *ps, struct cur *c)
{
	struct strbuf u16 = STRBUF_INIT, path = STRBUF_INIT;
	int r = -1;
	c->i++; /* '[' */
	if (wine_key_fast(c, &path) &&
	    (parse_escaped(ps, c, ']', "key name", &u16) || u16_name(ps, &u16, &path, "key name")))
		goto out;
	skip_ws(c);
	while (c->i < c->n && c->s[c->i] >= '0' && c->s[c->i] <= '9')
		c->i++; /* the modification time */
	if (!at_end(c)) {
		char buf[48];
		perr(ps, "key line: expected a modification time after ']', found \"%s\"",
		     excerpt(c, buf, sizeof(buf)));
		goto out;
	}
	r = set_key(ps, strbuf_str(&path), 0);
out:
	strbuf_release(&u16);
	strbuf_release(&path);
	return r;
}

/* ---------- values ---------- */

/*
 * A trailing backslash at the cursor: nothing may follow it on the line, and
 * the list goes on at the start of the next physical line, which becomes the
 * cursor's line. 0, or -1 with the error said.
 */
static int continue_line(struct parser *ps, struct cur *c, const char *what)
{
	char buf[48];
	const char *line;
	size_t n;
	int more;
	c->i++;
	if (!at_end(c))
		return perr(ps, "%s: expected the end of the line after '\\', found \"%s\"", what,
			    excerpt(c, buf, sizeof(buf)));
	more = next_line(ps, &line, &n);
	if (more < 0)
		return -1;
	if (!more)
		return perr(ps, "%s: expected a continuation line after '\\', found the end of the file", what);
	c->s = line;
	c->n = n;
	c->i = 0;
	return 0;
}

/* After a hex byte: a ',' (consumed), a '\\' or the end of the line; anything else is an error (-1). */
static int after_byte(struct parser *ps, struct cur *c, const char *what)
{
	char buf[48];
	skip_ws(c);
	if (c->i < c->n && c->s[c->i] == ',')
		c->i++;
	else if (c->i < c->n && c->s[c->i] != '\\')
		return perr(ps, "%s: hex data: expected ',' after a byte at column %zu, found \"%s\"", what, c->i + 1,
			    excerpt(c, buf, sizeof(buf)));
	return 0;
}

/*
 * hex bytes "01,02,ff" from the cursor, continuing on the next physical
 * lines after a trailing backslash.
 */
static int parse_hex_list(struct parser *ps, struct cur *c, const char *what, struct strbuf *out)
{
	char buf[48];
	for (;;) {
		uint32_t v;
		skip_ws(c);
		if (c->i >= c->n)
			return 0;
		if (c->s[c->i] == '\\') {
			if (continue_line(ps, c, what))
				return -1;
			continue;
		}
		if (read_hex(c, 2, &v))
			return perr(ps, "%s: hex data: expected a hex byte at column %zu, found \"%s\"", what,
				    c->i + 1, excerpt(c, buf, sizeof(buf)));
		if (out->len >= REG_MAX_DATA)
			return perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
		if (out->len + 1 >= out->alloc)
			strbuf_grow(out, 256);
		out->buf[out->len++] = (char)v; /* hex lists are most of an export: no call per byte */
		out->buf[out->len] = '\0';
		if (after_byte(ps, c, what))
			return -1;
	}
}

/* REGEDIT4 stores REG_EXPAND_SZ / REG_MULTI_SZ hex data in the ANSI code page: widen it. */
static void widen_ansi(struct strbuf *data)
{
	struct strbuf w = STRBUF_INIT;
	size_t i;
	for (i = 0; i < data->len; i++)
		put_u16(&w, (unsigned char)data->buf[i]);
	strbuf_release(data);
	*data = w;
}

/* The value's name ("name" or @) at the start of a value line, into *name; *what names it in messages. */
static int value_name(struct parser *ps, struct cur *c, struct strbuf *name, struct strbuf *what)
{
	struct strbuf u16 = STRBUF_INIT;
	int r = -1;
	if (c->s[c->i] == '@') {
		c->i++;
		strbuf_adds(what, "default value (@)");
		return 0;
	}
	c->i++;
	if (parse_escaped(ps, c, '"', "value name", &u16))
		goto out;
	if (u16.len / 2 > REG_MAX_NAME) {
		perr(ps, "value name longer than %d characters", REG_MAX_NAME);
		goto out;
	}
	if (u16_name(ps, &u16, name, "value name"))
		goto out;
	strbuf_addf(what, "value \"%s\"", strbuf_str(name));
	r = 0;
out:
	strbuf_release(&u16);
	return r;
}

/* A "string" (after its opening quote) or str(N) value's text, NUL-terminated UTF-16LE, into data. */
static int string_data(struct parser *ps, struct cur *c, const char *what, struct strbuf *data)
{
	struct strbuf u16 = STRBUF_INIT;
	if (parse_escaped(ps, c, '"', what, &u16)) {
		strbuf_release(&u16);
		return -1;
	}
	put_u16(&u16, 0);
	strbuf_add(data, u16.buf, u16.len);
	strbuf_release(&u16);
	return 0;
}

/* dword:XXXXXXXX, after "dword:". */
static int dword_data(struct parser *ps, struct cur *c, const char *what, struct strbuf *data)
{
	char buf[48];
	uint32_t v;
	size_t start = c->i;
	if (read_hex(c, 8, &v) || (c->i < c->n && hex_digit((unsigned char)c->s[c->i]) >= 0)) {
		c->i = start;
		return perr(ps, "%s: expected 1 to 8 hex digits after \"dword:\", found \"%s\"", what,
			    excerpt(c, buf, sizeof(buf)));
	}
	put_u16(data, (uint16_t)(v & 0xffff));
	put_u16(data, (uint16_t)(v >> 16));
	return 0;
}

/* hex:.. or hex(N):.., after "hex"; *type is REG_BINARY unless N says otherwise. */
static int hex_data(struct parser *ps, struct cur *c, const char *what, uint32_t *type, struct strbuf *data)
{
	*type = 3; /* REG_BINARY */
	if (c->i < c->n && c->s[c->i] == '(') {
		c->i++;
		if (read_hex(c, 8, type) || c->i >= c->n || c->s[c->i] != ')')
			return perr(ps, "%s: expected hex(N): with N a hex type number", what);
		c->i++;
	}
	if (c->i >= c->n || c->s[c->i] != ':')
		return perr(ps, "%s: expected ':' after \"hex\" or \"hex(N)\"", what);
	c->i++;
	if (parse_hex_list(ps, c, what, data))
		return -1;
	if (ps->ansi && (*type == 2 || *type == 7))
		widen_ansi(data);
	return 0;
}

/* The data after '=': its type into *type (or *del for a "-" deletion) and its bytes into data. */
static int value_data(struct parser *ps, struct cur *c, const char *what, uint32_t *type, int *del,
		      struct strbuf *data)
{
	char buf[48];
	if (c->i < c->n && c->s[c->i] == '"') {
		c->i++;
		*type = 1; /* REG_SZ */
		return string_data(ps, c, what, data);
	}
	if (ps->dialect == DIALECT_REGFILE && c->i < c->n && c->s[c->i] == '-') {
		c->i++;
		*del = 1;
		return 0;
	}
	if (eat(c, "dword:")) {
		if (dword_data(ps, c, what, data))
			return -1;
		*type = 4; /* REG_DWORD */
		return 0;
	}
	if (eat(c, "hex"))
		return hex_data(ps, c, what, type, data);
	if (ps->dialect == DIALECT_WINE && eat(c, "str(")) {
		if (read_hex(c, 8, type) || !eat(c, "):\""))
			return perr(ps, "%s: expected str(N):\"...\" with N a hex type number", what);
		return string_data(ps, c, what, data);
	}
	return perr(ps, "%s: expected %s, found \"%s\"", what,
		    ps->dialect == DIALECT_WINE ? "\"string\", str(N):\"string\", dword:XXXXXXXX, hex: or hex(N):"
						: "\"string\", dword:XXXXXXXX, hex:, hex(N): or - (delete)",
		    excerpt(c, buf, sizeof(buf)));
}

static int value_line(struct parser *ps, struct cur *c)
{
	struct strbuf name = STRBUF_INIT, data = STRBUF_INIT, what = STRBUF_INIT;
	uint32_t type = 0;
	char buf[48];
	int r = -1, del = 0;

	if (value_name(ps, c, &name, &what))
		goto out;
	if (!ps->key && !ps->other_root) {
		perr(ps, "%s outside any key: expected a [key] line before it", what.buf);
		goto out;
	}
	skip_ws(c);
	if (c->i >= c->n || c->s[c->i] != '=') {
		perr(ps, "%s: expected '=' after the name", what.buf);
		goto out;
	}
	c->i++;
	skip_ws(c);
	if (value_data(ps, c, what.buf, &type, &del, &data))
		goto out;
	if (!at_end(c)) {
		perr(ps, "%s: unexpected text after the data: \"%s\"", what.buf, excerpt(c, buf, sizeof(buf)));
		goto out;
	}
	if (ps->key) {
		size_t len = data.len;
		key_add_value(ps->key, strbuf_str(&name), del ? REG_TYPE_DELETED : type,
			      (unsigned char *)strbuf_detach(&data), len);
	}
	r = 0;
out:
	strbuf_release(&name);
	strbuf_release(&data);
	strbuf_release(&what);
	return r;
}

/*
 * A quoted string from just after its opening '"' to just after its closing
 * one, checked the way parse_escaped would check it but not decoded. 0 ok;
 * 1 when it holds what only parse_escaped can judge exactly (an escape it
 * may refuse, a NUL it may produce in a name): the caller parses the line
 * in full then, so every line is still checked with the same verdict and
 * message.
 */
static int skip_quoted(const struct parser *ps, struct cur *c, int is_name)
{
	while (c->i < c->n) {
		char ch = c->s[c->i];
		if (ch == '"') {
			c->i++;
			return 0;
		}
		if (ch != '\\') {
			c->i++;
			continue;
		}
		if (is_name || c->i + 1 >= c->n)
			return 1;
		ch = c->s[c->i + 1];
		if ((unsigned char)ch >= 0x80)
			return 1; /* parse_escaped escapes one byte of it: what that leaves, it judges */
		if (ps->dialect == DIALECT_REGFILE ? !(ch == '\\' || ch == '"' || ch == 'n' || ch == '0')
						   : (ch == 'x' && (c->i + 2 >= c->n ||
								     hex_digit((unsigned char)c->s[c->i + 2]) < 0)))
			return 1;
		c->i += 2; /* digits after \x or \0NN are ordinary characters to a checker */
	}
	return 1;
}

/*
 * parse_hex_list for data that is not kept: the same checks and messages,
 * continuation lines included, counting the bytes instead of storing them.
 */
static int skip_hex_list(struct parser *ps, struct cur *c, const char *what)
{
	char buf[48];
	size_t bytes = 0;
	for (;;) {
		skip_ws(c);
		if (c->i >= c->n)
			return 0;
		if (c->s[c->i] == '\\') {
			if (continue_line(ps, c, what))
				return -1;
			continue;
		}
		/* the common "xx," directly: two hex digits and a comma; anything else as parse_hex_list does */
		if (c->n - c->i >= 3 && c->s[c->i + 2] == ',' && hex_digit((unsigned char)c->s[c->i]) >= 0 &&
		    hex_digit((unsigned char)c->s[c->i + 1]) >= 0) {
			do {
				if (bytes >= REG_MAX_DATA)
					return perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
				bytes++;
				c->i += 3;
			} while (c->n - c->i >= 3 && c->s[c->i + 2] == ',' && hex_digit((unsigned char)c->s[c->i]) >= 0 &&
				 hex_digit((unsigned char)c->s[c->i + 1]) >= 0);
			continue;
		}
		if (hex_digit((unsigned char)c->s[c->i]) < 0)
			return perr(ps, "%s: hex data: expected a hex byte at column %zu, found \"%s\"", what,
				    c->i + 1, excerpt(c, buf, sizeof(buf)));
		c->i++;
		if (c->i < c->n && hex_digit((unsigned char)c->s[c->i]) >= 0)
			c->i++;
		if (bytes >= REG_MAX_DATA)
			return perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
		bytes++;
		if (after_byte(ps, c, what))
			return -1;
	}
}

/*
 * A value line of a key that is not kept (most of a Wine prefix's
 * system.reg, most of a full export): checked, nothing decoded or stored.
 * 0 done; -1 error; 1: parse it in full instead (value_line).
 */
static int skip_value_line(struct parser *ps, struct cur c)
{
	uint32_t type;
	size_t start = c.i + 1;
	strbuf_reset(&ps->what);
	if (c.s[c.i] == '"') {
		c.i++;
		if (skip_quoted(ps, &c, 1) || c.i - start - 1 > REG_MAX_NAME)
			return 1;
		/* no escapes in it (skip_quoted): the name is its bytes, as value_line would say it */
		strbuf_adds(&ps->what, "value \"");
		strbuf_add(&ps->what, c.s + start, c.i - start - 1);
		strbuf_addch(&ps->what, '"');
	} else {
		c.i++; /* '@' */
		strbuf_adds(&ps->what, "default value (@)");
	}
	skip_ws(&c);
	if (c.i >= c.n || c.s[c.i] != '=')
		return 1;
	c.i++;
	skip_ws(&c);
	if (c.i < c.n && c.s[c.i] == '"') {
		c.i++;
		if (skip_quoted(ps, &c, 0))
			return 1;
	} else if (ps->dialect == DIALECT_WINE && eat(&c, "str(")) {
		if (read_hex(&c, 8, &type) || !eat(&c, "):\"") || skip_quoted(ps, &c, 0))
			return 1;
	} else if (eat(&c, "dword:")) {
		if (read_hex(&c, 8, &type) || (c.i < c.n && hex_digit((unsigned char)c.s[c.i]) >= 0))
			return 1;
	} else if (eat(&c, "hex")) {
		char buf[48];
		if (c.i < c.n && c.s[c.i] == '(') {
			c.i++;
			if (read_hex(&c, 8, &type) || c.i >= c.n || c.s[c.i] != ')')
				return 1;
			c.i++;
		}
		if (c.i >= c.n || c.s[c.i] != ':')
			return 1;
		c.i++;
		/* continuation lines are consumed here: no way back to the full parse, so errors are final */
		if (skip_hex_list(ps, &c, ps->what.buf))
			return -1;
		if (!at_end(&c))
			return perr(ps, "%s: unexpected text after the data: \"%s\"", ps->what.buf,
				    excerpt(&c, buf, sizeof(buf)));
		return 0;
	} else {
		return 1; /* dword:, deletions, anything odd: the full parse says */
	}
	return at_end(&c) ? 0 : 1;
}

/* ---------- the file ---------- */

static int parse_lines(struct parser *ps)
{
	const char *line;
	size_t n;
	int more;
	while ((more = next_line(ps, &line, &n)) > 0) {
		struct cur c = { line, n, 0 };
		char buf[48];
		skip_ws(&c);
		if (c.i >= c.n || c.s[c.i] == ';')
			continue;
		if (c.s[c.i] == '[') {
			if ((ps->dialect == DIALECT_WINE ? wine_key_line(ps, &c) : regfile_key_line(ps, &c)))
				return -1;
		} else if (c.s[c.i] == '"' || c.s[c.i] == '@') {
			int r = !ps->key && ps->other_root ? skip_value_line(ps, c) : 1;
			if (r < 0 || (r > 0 && value_line(ps, &c)))
				return -1;
		} else if (ps->dialect == DIALECT_WINE && c.s[c.i] == '#') {
			/* #time=, #class=, #link, #dyn: per-key metadata; #arch= before the keys */
			if (!ps->key && c.n - c.i >= 11 && !memcmp(c.s + c.i, "#arch=win32", 11))
				ps->reg->arch32 = 1;
		} else {
			return perr(ps, "expected %s, found \"%s\"",
				    ps->dialect == DIALECT_WINE ? "[key] 123, \"name\"=value, @=value, #option or ;comment"
								: "[key], \"name\"=value, @=value or a ; comment",
				    excerpt(&c, buf, sizeof(buf)));
		}
	}
	return more;
}

/* The encoding from the first bytes: where the text starts, or -1 (error set). */
static int detect_encoding(struct parser *ps, const unsigned char *p, size_t len)
{
	if (len >= 2 && ((p[0] == 0xff && p[1] == 0xfe) || (p[0] && !p[1])) && len % 2)
		return err_set(ps->err, "%s: UTF-16 text with an odd number of bytes (%zu): truncated?", ps->name,
			       len);
	if (len >= 2 && p[0] == 0xff && p[1] == 0xfe) {
		ps->enc = ENC_UTF16LE;
		ps->pos = 2;
	} else if (len >= 2 && p[0] == 0xfe && p[1] == 0xff) {
		return err_set(ps->err, "%s: UTF-16 big-endian is not a reg export format (reg.exe writes UTF-16LE)",
			       ps->name);
	} else if (len >= 2 && p[0] && !p[1]) {
		ps->enc = ENC_UTF16LE; /* UTF-16LE without a BOM: "W\0i\0..." */
	} else if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf) {
		ps->pos = 3;
	}
	return 0;
}

/* The first line names the format; a Wine file must be HKLM's (system.reg). */
static int read_header(struct parser *ps)
{
	struct registry *reg = ps->reg;
	const char *first;
	size_t n, start = ps->pos;
	int r = next_line(ps, &first, &n);
	if (r < 0)
		return -1;
	if (!r)
		return err_set(ps->err, "%s: empty file: expected a registry file", ps->name);
	while (n && (first[n - 1] == ' ' || first[n - 1] == '\t'))
		n--;
	if (n == 36 && !memcmp(first, "Windows Registry Editor Version 5.00", 36)) {
		ps->dialect = DIALECT_REGFILE;
		strbuf_addf(&reg->desc, "%sreg export %s", reg->desc.len ? " + " : "", ps->name);
	} else if (n == 8 && !memcmp(first, "REGEDIT4", 8)) {
		ps->dialect = DIALECT_REGFILE;
		ps->ansi = 1;
		strbuf_addf(&reg->desc, "%sREGEDIT4 file %s", reg->desc.len ? " + " : "", ps->name);
	} else if (n == 23 && !memcmp(first, "WINE REGISTRY Version 2", 23)) {
		const char *l2;
		size_t n2;
		ps->dialect = DIALECT_WINE;
		/* user.reg says ";; All keys relative to REGISTRY\\User\\S-1-5-..." */
		r = next_line(ps, &l2, &n2);
		if (r < 0)
			return -1;
		if (r && n2 > 24 && !memcmp(l2, ";; All keys relative to ", 24) &&
		    strncmp(l2 + 24, "REGISTRY\\\\Machine", n2 - 24 < 17 ? n2 - 24 : 17))
			return err_set(ps->err,
				       "%s:2: keys relative to %.*s: not HKEY_LOCAL_MACHINE (use the prefix's system.reg)",
				       ps->name, (int)(n2 - 24 > 200 ? 200 : n2 - 24), l2 + 24);
		/* read line 2 again as an ordinary line */
		ps->pos = start;
		ps->line_no = 0;
		next_line(ps, &first, &n);
		strbuf_addf(&reg->desc, "%swine system.reg %s", reg->desc.len ? " + " : "", ps->name);
	} else {
		return err_set(ps->err,
			       "%s:1: not a registry file: expected \"Windows Registry Editor Version 5.00\", "
			       "\"REGEDIT4\" or \"WINE REGISTRY Version 2\"",
			       ps->name);
	}
	return 0;
}

int registry_parse_text(struct registry *reg, const void *data, size_t len, const char *name, int mapped,
			struct err *err)
{
	struct parser ps;
	int r;
	memset(&ps, 0, sizeof(ps));
	strbuf_init(&ps.line);
	strbuf_init(&ps.what);
	ps.reg = reg;
	ps.name = name;
	ps.raw = data;
	ps.len = len;
	ps.mapped = mapped;
	ps.err = err;
	r = detect_encoding(&ps, ps.raw, len);
	if (!r)
		r = read_header(&ps);
	if (!r)
		r = parse_lines(&ps);
	strbuf_release(&ps.line);
	strbuf_release(&ps.what);
	free(ps.skip_prefix);
	return r < 0 ? -1 : 0;
}

struct registry *registry_new(void)
{
	struct registry *reg = xcalloc(1, sizeof(*reg));
	strlist_init(&reg->keep);
	strbuf_init(&reg->desc);
	return reg;
}

/* ---------- lookups ---------- */

/*
 * A key as asked for → the folded path stored in the table: root stripped,
 * no empty components, the 32-bit view redirected.
 */
static char *lookup_path(const struct registry *reg, const char *key, int regview)
{
	struct strbuf sb = STRBUF_INIT;
	const char *rest = key, *p;
	char *f;
	if (split_root(key, &rest) != 1)
		rest = key;
	/* once per key line of every registry file read: written in place */
	strbuf_grow(&sb, strlen(rest));
	for (p = rest; *p; p++) {
		char ch = *p; /* '/' is an ordinary character in key names ("text/html") */
		if (ch == '\\' && (!sb.len || sb.buf[sb.len - 1] == '\\'))
			continue;
		sb.buf[sb.len++] = (char)fold_ch((unsigned char)ch);
	}
	sb.buf[sb.len] = '\0';
	if (sb.len && sb.buf[sb.len - 1] == '\\')
		sb.buf[--sb.len] = '\0';
	/* KEY_WOW64_32KEY: SOFTWARE\X → SOFTWARE\WOW6432Node\X, unless already spelled out */
	if (regview == 32 && !reg->arch32 && sb.len >= 8 && !strncmp(sb.buf, "software", 8) &&
	    (sb.buf[8] == '\0' || sb.buf[8] == '\\') &&
	    !(!strncmp(sb.buf, "software\\wow6432node", 20) && (sb.buf[20] == '\0' || sb.buf[20] == '\\'))) {
		struct strbuf r = STRBUF_INIT;
		strbuf_adds(&r, "software\\wow6432node");
		strbuf_adds(&r, sb.buf + 8);
		strbuf_release(&sb);
		sb = r;
	}
	f = strbuf_detach(&sb);
	return f;
}

static int check_view(int regview, struct err *err)
{
	if (regview != 32 && regview != 64)
		return err_set(err, "registry view %d: expected 32 or 64", regview);
	return 0;
}

/* The live (not deleted) key `key` as seen from `regview` in *k: 0; 1 if there is none; -1 for a bad view. */
static int key_lookup(const struct registry *reg, const char *key, int regview, const struct reg_key **k,
		      struct err *err)
{
	char *path;
	if (check_view(regview, err))
		return -1;
	path = lookup_path(reg, key, regview);
	*k = key_find(reg, path);
	free(path);
	return *k && !(*k)->deleted ? 0 : 1;
}

int registry_get_raw(const struct registry *reg, const char *key, const char *value, int regview,
		     unsigned *type, const unsigned char **data, size_t *len, struct err *err)
{
	char *vfold;
	const struct reg_key *k;
	const struct reg_value *v = NULL;
	int r = key_lookup(reg, key, regview, &k, err);
	if (r)
		return r;
	vfold = fold_dup(value ? value : "");
	v = key_value(k, vfold);
	free(vfold);
	if (!v)
		return 1;
	*type = v->type;
	*data = v->data;
	*len = v->len;
	return 0;
}

void registry_format(struct strbuf *out, unsigned type, const unsigned char *data, size_t len)
{
	struct span s = span_make(data, len);
	uint32_t d;
	uint64_t q;
	size_t i;
	switch (type) {
	case 1: /* REG_SZ */
	case 2: /* REG_EXPAND_SZ (not expanded: the offline machine's environment is not ours) */
		utf16_to_utf8(out, data, len, 1);
		return;
	case 7: { /* REG_MULTI_SZ: one string per line */
		size_t off = 0, start = 0;
		uint16_t u;
		int first = 1;
		for (off = 0; span_u16(s, off, &u) == 0; off += 2) {
			if (u)
				continue;
			if (off == start)
				break; /* the empty string that ends the list */
			if (!first)
				strbuf_addch(out, '\n');
			utf16_to_utf8(out, data + start, off - start, 0);
			first = 0;
			start = off + 2;
		}
		return;
	}
	case 4: /* REG_DWORD */
		if (len == 4 && span_u32(s, 0, &d) == 0) {
			strbuf_addf(out, "%lu", (unsigned long)d);
			return;
		}
		break;
	case 11: /* REG_QWORD */
		if (len == 8 && span_u64(s, 0, &q) == 0) {
			strbuf_addf(out, "%llu", (unsigned long long)q);
			return;
		}
		break;
	default:
		break;
	}
	for (i = 0; i < len; i++)
		strbuf_addf(out, "%s%02x", i ? "," : "", data[i]);
}

int registry_get(const struct registry *reg, const char *key, const char *value, int regview,
		 struct strbuf *out, struct err *err)
{
	unsigned type;
	const unsigned char *data;
	size_t len;
	int r = registry_get_raw(reg, key, value, regview, &type, &data, &len, err);
	if (r)
		return r;
	if (type == 4 && len != 4)
		return err_set(err, "%s: value \"%s\" is a REG_DWORD of %zu bytes, expected 4", key,
			       value ? value : "@", len);
	registry_format(out, type, data, len);
	return 0;
}

int registry_values(const struct registry *reg, const char *key, int regview, struct strlist *out,
		    struct err *err)
{
	const struct reg_key *k;
	size_t i, first = out->n;
	int r = key_lookup(reg, key, regview, &k, err);
	if (r)
		return r;
	/* file order of first appearance; a name whose last entry deleted it is left out */
	for (i = 0; i < k->nvalues; i++) {
		const struct reg_value *v = &k->values[i];
		size_t j;
		int seen = 0;
		for (j = first; j < out->n && !seen; j++)
			seen = !str_icmp(out->v[j], v->name);
		if (!seen && key_value(k, v->fold))
			strlist_push(out, v->name);
	}
	return 0;
}

/* A direct subkey name met while listing, with the index of the key it was met in. */
struct sub_name {
	const char *s;
	size_t len;
	size_t idx;
};

static int cmp_sub(const void *a, const void *b)
{
	const struct sub_name *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = str_nicmp(x->s, y->s, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx; /* the first written spelling first */
}

/*
 * One pass over the keys, then a sort: each direct subkey name once (the
 * spelling of the first key that has it), sorted case-insensitively. It was
 * a walk of the names kept so far for every key under `key`: quadratic,
 * 774 s for 400,000 keys under the display-adapter class key.
 */
int registry_subkeys(const struct registry *reg, const char *key, int regview, struct strlist *out,
		     struct err *err)
{
	char *path;
	size_t n, i, nsub = 0, asub = 0;
	struct sub_name *sub = NULL;
	const struct reg_key *self;
	int found;
	if (check_view(regview, err))
		return -1;
	path = lookup_path(reg, key, regview);
	n = strlen(path);
	self = key_find(reg, path);
	found = self && !self->deleted;
	for (i = 0; i < reg->nkeys; i++) {
		const struct reg_key *k = reg->keys[i];
		const char *rest, *end;
		if (k->deleted)
			continue;
		if (n) {
			if (strncmp(k->fold, path, n) || k->fold[n] != '\\')
				continue;
			rest = k->path + n + 1;
		} else {
			rest = k->path;
		}
		found = 1;
		end = strchr(rest, '\\');
		if (!end)
			end = rest + strlen(rest);
		ALLOC_GROW(sub, nsub + 1, asub);
		sub[nsub].s = rest;
		sub[nsub].len = (size_t)(end - rest);
		sub[nsub].idx = i;
		nsub++;
	}
	free(path);
	if (nsub)
		qsort(sub, nsub, sizeof(*sub), cmp_sub);
	for (i = 0; i < nsub; i++)
		if (!i || sub[i].len != sub[i - 1].len || str_nicmp(sub[i].s, sub[i - 1].s, sub[i].len))
			strlist_push_owned(out, xstrndup(sub[i].s, sub[i].len));
	free(sub);
	return found ? 0 : 1;
}

const char *registry_describe(const struct registry *reg)
{
	return strbuf_str(&reg->desc);
}
