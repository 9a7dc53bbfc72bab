/*
 * registry_text: reading the text registry files into the registry module's
 * key table (registry.h, registry_table.h; the table and the lookups are
 * registry.c).
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
 * and text is produced only when asked for (registry_get). The file is read
 * line by line through registry_lines.h.
 *
 * Where this departs from Windows, and why (the lookups' own: registry.c):
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

#include "machine/registry_lines.h"
#include "machine/registry_table.h"
#include "util/os.h"
#include "util/span.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/utf.h"

/* Called for every character of every string read: written in place, no call per unit. */
static void put_u16(struct strbuf *sb, uint16_t u)
{
	if (sb->len + 2 >= sb->alloc)
		strbuf_grow(sb, 64);
	sb->buf[sb->len++] = (char)(u & 0xff);
	sb->buf[sb->len++] = (char)(u >> 8);
	sb->buf[sb->len] = '\0';
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
			return reg_perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
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
					return reg_perr(ps, "%s: unknown escape \\%c (expected \\\\, \\\", \\n or \\0)",
						    what, e >= 0x20 && e < 0x7f ? e : '?');
				continue;
			}
			/* Wine: the escapes server/unicode.c dump_strW writes. */
			if (e == 'x') {
				uint32_t v;
				if (read_hex(c, 4, &v))
					return reg_perr(ps, "%s: expected 1 to 4 hex digits after \\x", what);
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
				return reg_perr(ps, "%s: invalid UTF-8", what); /* validated before: defensive */
			c->i = i;
			utf16le_put(u16, (uint32_t)cp);
		}
	}
	return reg_perr(ps, "%s: expected a closing '%c' before the end of the line", what, term);
}

/* UTF-16 code units of a name → UTF-8 (a name with an unpaired surrogate is refused). */
static int u16_name(struct parser *ps, struct strbuf *u16, struct strbuf *out, const char *what)
{
	size_t k;
	for (k = 0; k + 1 < u16->len; k += 2)
		if (!u16->buf[k] && !u16->buf[k + 1])
			return reg_perr(ps, "%s: contains a NUL character", what);
	if (reg_utf16_to_utf8(out, (const unsigned char *)u16->buf, u16->len, 0))
		return reg_perr(ps, "%s: contains an unpaired UTF-16 surrogate", what);
	return 0;
}

/* ---------- keys ---------- */
/* Refuses empty components ("A\\\\B", a leading or trailing backslash). */
static int check_components(struct parser *ps, const char *path)
{
	size_t n = strlen(path), i;
	if (n > REG_MAX_PATH)
		return reg_perr(ps, "key path longer than %d bytes", REG_MAX_PATH);
	if (!n)
		return 0;
	if (path[0] == '\\' || path[n - 1] == '\\')
		return reg_perr(ps, "key \"%s\": empty key name (leading or trailing backslash)", path);
	for (i = 0; i + 1 < n; i++) {
		const char *bs = memchr(path + i, '\\', n - 1 - i); /* a separator, then look at the next byte */
		if (!bs)
			break;
		i = (size_t)(bs - path);
		if (path[i + 1] == '\\')
			return reg_perr(ps, "key \"%s\": empty key name between two backslashes", path);
	}
	return 0;
}

static int set_key(struct parser *ps, const char *path, int del)
{
	if (check_components(ps, path))
		return -1;
	if (del) {
		if (++ps->reg->ndeletes > REG_MAX_DELETES)
			return reg_perr(ps, "more than %d deleted keys", REG_MAX_DELETES);
		/* each [-KEY] walks every key: bound the total, so no file can make this quadratic */
		ps->reg->delete_work += ps->reg->nkeys;
		if (ps->reg->delete_work > REG_MAX_DELETE_WORK)
			return reg_perr(ps, "too many deleted keys for a registry of %zu keys", ps->reg->nkeys);
		reg_key_delete_tree(ps->reg, path);
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
	if (ps->reg->nkeys >= REG_MAX_KEYS && !reg_key_find(ps->reg, path))
		return reg_perr(ps, "more than %d keys", REG_MAX_KEYS);
	ps->key = reg_key_get(ps->reg, path);
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
		return reg_perr(ps, "key line: expected ']' at the end of the line");
	c->i++; /* '[' */
	if (c->i < end && c->s[c->i] == '-') {
		del = 1;
		c->i++;
	}
	strbuf_add(&path, c->s + c->i, end - 1 - c->i);
	root = reg_split_root(strbuf_str(&path), &rest);
	if (root == 0) {
		r = reg_perr(ps, "key \"%s\": expected a path starting with HKEY_LOCAL_MACHINE\\ (or another HKEY_* root)",
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
		reg_perr(ps, "key line: expected a modification time after ']', found \"%s\"",
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
		return reg_perr(ps, "%s: expected the end of the line after '\\', found \"%s\"", what,
			    excerpt(c, buf, sizeof(buf)));
	more = reg_next_line(ps, &line, &n);
	if (more < 0)
		return -1;
	if (!more)
		return reg_perr(ps, "%s: expected a continuation line after '\\', found the end of the file", what);
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
		return reg_perr(ps, "%s: hex data: expected ',' after a byte at column %zu, found \"%s\"", what, c->i + 1,
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
			return reg_perr(ps, "%s: hex data: expected a hex byte at column %zu, found \"%s\"", what,
				    c->i + 1, excerpt(c, buf, sizeof(buf)));
		if (out->len >= REG_MAX_DATA)
			return reg_perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
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
		reg_perr(ps, "value name longer than %d characters", REG_MAX_NAME);
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
		return reg_perr(ps, "%s: expected 1 to 8 hex digits after \"dword:\", found \"%s\"", what,
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
			return reg_perr(ps, "%s: expected hex(N): with N a hex type number", what);
		c->i++;
	}
	if (c->i >= c->n || c->s[c->i] != ':')
		return reg_perr(ps, "%s: expected ':' after \"hex\" or \"hex(N)\"", what);
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
			return reg_perr(ps, "%s: expected str(N):\"...\" with N a hex type number", what);
		return string_data(ps, c, what, data);
	}
	return reg_perr(ps, "%s: expected %s, found \"%s\"", what,
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
		reg_perr(ps, "%s outside any key: expected a [key] line before it", what.buf);
		goto out;
	}
	skip_ws(c);
	if (c->i >= c->n || c->s[c->i] != '=') {
		reg_perr(ps, "%s: expected '=' after the name", what.buf);
		goto out;
	}
	c->i++;
	skip_ws(c);
	if (value_data(ps, c, what.buf, &type, &del, &data))
		goto out;
	if (!at_end(c)) {
		reg_perr(ps, "%s: unexpected text after the data: \"%s\"", what.buf, excerpt(c, buf, sizeof(buf)));
		goto out;
	}
	if (ps->key) {
		size_t len = data.len;
		int why = reg_key_add_value(ps->reg, ps->key, strbuf_str(&name), del ? REG_TYPE_DELETED : type,
					    (unsigned char *)strbuf_detach(&data), len);
		if (why) {
			reg_perr(ps, "%s", reg_budget_error(-why));
			goto out;
		}
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
					return reg_perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
				bytes++;
				c->i += 3;
			} while (c->n - c->i >= 3 && c->s[c->i + 2] == ',' && hex_digit((unsigned char)c->s[c->i]) >= 0 &&
				 hex_digit((unsigned char)c->s[c->i + 1]) >= 0);
			continue;
		}
		if (hex_digit((unsigned char)c->s[c->i]) < 0)
			return reg_perr(ps, "%s: hex data: expected a hex byte at column %zu, found \"%s\"", what,
				    c->i + 1, excerpt(c, buf, sizeof(buf)));
		c->i++;
		if (c->i < c->n && hex_digit((unsigned char)c->s[c->i]) >= 0)
			c->i++;
		if (bytes >= REG_MAX_DATA)
			return reg_perr(ps, "%s: longer than %zu bytes", what, REG_MAX_DATA);
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
			return reg_perr(ps, "%s: unexpected text after the data: \"%s\"", ps->what.buf,
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
	while ((more = reg_next_line(ps, &line, &n)) > 0) {
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
			return reg_perr(ps, "expected %s, found \"%s\"",
				    ps->dialect == DIALECT_WINE ? "[key] 123, \"name\"=value, @=value, #option or ;comment"
								: "[key], \"name\"=value, @=value or a ; comment",
				    excerpt(&c, buf, sizeof(buf)));
		}
	}
	return more;
}

/* The first line names the format; a Wine file must be HKLM's (system.reg). */
static int read_header(struct parser *ps)
{
	struct registry *reg = ps->reg;
	const char *first;
	size_t n, start = ps->pos;
	int r = reg_next_line(ps, &first, &n);
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
		r = reg_next_line(ps, &l2, &n2);
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
		reg_next_line(ps, &first, &n);
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
	r = reg_detect_encoding(&ps, ps.raw, len);
	if (!r)
		r = read_header(&ps);
	if (!r)
		r = parse_lines(&ps);
	strbuf_release(&ps.line);
	strbuf_release(&ps.what);
	free(ps.skip_prefix);
	return r < 0 ? -1 : 0;
}
