/*
 * registry: an offline copy of HKEY_LOCAL_MACHINE (see registry.h): the key
 * table, the subtrees kept (registry_keep, registry_scope) and the lookups.
 * The table (registry_table.h, private to this module) is filled by
 * registry_text.c from `reg export` files and Wine's system.reg, and by
 * hive.c from regf hives through registry_put.
 *
 * Values are stored as Windows stores them: a type and the raw bytes (strings
 * in UTF-16LE with their terminating NUL), so every format ends up identical
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
 *   - Keys under other roots (HKEY_CURRENT_USER, ...) are checked but not
 *     kept: we model HKLM only.
 */
#include "machine/registry.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "machine/registry_table.h"
#include "util/span.h"
#include "util/strmap.h"
#include "util/text.h"
#include "util/utf.h"

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

struct reg_key *reg_key_find(const struct registry *reg, const char *fold)
{
	size_t i;
	return strmap_get(&reg->table, fold, &i) ? reg->keys[i] : NULL;
}

struct reg_key *reg_key_get(struct registry *reg, const char *path)
{
	char *fold = fold_dup(path);
	struct reg_key *k = reg_key_find(reg, fold);
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
void reg_key_delete_tree(struct registry *reg, const char *path)
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

const char *reg_budget_error(int why)
{
	return why == 1 ? "more than 250000 values in the keys read (what a check reads holds a few thousand): a "
			  "hostile or damaged export?"
			: "more than 64 MiB of values in the keys read (what a check reads holds a few KiB): a hostile "
			  "or damaged registry?";
}

int reg_key_add_value(struct registry *reg, struct reg_key *k, const char *name, uint32_t type,
		      unsigned char *data, size_t len)
{
	struct reg_value *v;
	_Static_assert(REGISTRY_MAX_VALUES == 250000 && REGISTRY_MAX_VALUE_BYTES == ((size_t)64 << 20),
		       "reg_budget_error's words say the budget");
	if (reg->nvalues_all >= REGISTRY_MAX_VALUES || len > REGISTRY_MAX_VALUE_BYTES - reg->value_bytes_all) {
		free(data);
		return reg->nvalues_all >= REGISTRY_MAX_VALUES ? -1 : -2;
	}
	reg->nvalues_all++;
	reg->value_bytes_all += len;
	ALLOC_GROW(k->values, k->nvalues + 1, k->avalues);
	v = &k->values[k->nvalues++];
	v->name = xstrdup(name);
	v->fold = fold_dup(name);
	v->type = type;
	v->data = data;
	v->len = len;
	return 0;
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

/* Key-only entries of reg->keep start with \x01 (no key path read from a file or option starts so). */
void registry_keep_key(struct registry *reg, const char *key)
{
	char *f = lookup_path(reg, key, 64);
	strlist_push_owned(&reg->keep, xasprintf("\x01%s", f));
	free(f);
}

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
	if (reg_split_root(path, &rest) != 1)
		rest = path;
	for (i = 0; i < reg->keep.n && r != REGISTRY_KEEP; i++) {
		const char *k = reg->keep.v[i], *p = rest;
		size_t j = 0;
		int started = 0, ch, only = k[0] == '\x01';
		k += only;
		while ((ch = norm_next(&p, &started)) && k[j] && ch == k[j])
			j++;
		if (only && !k[j] && !ch)
			r = REGISTRY_KEEP; /* the key itself, not its subkeys */
		else if (only && !k[j])
			; /* below a key kept alone: not from this entry */
		else if (!k[0] || (!k[j] && (!ch || ch == '\\')))
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
	if (reg->nkeys >= REG_MAX_KEYS_ALL && !reg_key_find(reg, key))
		return err_set(err, "more than %d keys", REG_MAX_KEYS_ALL);
	k = reg_key_get(reg, key);
	if (!value)
		return 0;
	copy = xmalloc(len ? len : 1);
	if (len)
		memcpy(copy, data, len);
	if (reg_key_add_value(reg, k, value, type, copy, len))
		return err_set(err, "%s", reg_budget_error(reg->nvalues_all >= REGISTRY_MAX_VALUES ? 1 : 2));
	return 0;
}

void registry_describe_add(struct registry *reg, const char *what)
{
	strbuf_addf(&reg->desc, "%s%s", reg->desc.len ? " + " : "", what);
}

/* UTF-8 and UTF-16: utf.h. */

/* UTF-16LE code units → UTF-8; returns the number of unpaired surrogates (each became U+FFFD). */
size_t reg_utf16_to_utf8(struct strbuf *out, const unsigned char *p, size_t len, int stop_at_nul)
{
	return utf16le_to_utf8(out, p, len, stop_at_nul ? UTF16_STOP_AT_NUL : 0, NULL);
}

static const char *const hklm_roots[] = { "HKEY_LOCAL_MACHINE", "HKLM" };
static const char *const other_roots[] = { "HKEY_CURRENT_USER", "HKEY_USERS", "HKEY_CLASSES_ROOT",
					   "HKEY_CURRENT_CONFIG", "HKEY_PERFORMANCE_DATA",
					   "HKEY_DYN_DATA", "HKCU", "HKU", "HKCR", "HKCC" };

/*
 * Strips an HKLM root. Returns 1 for HKLM (*rest = path below it, "" for the
 * root itself), 2 for another root, 0 for no known root.
 */
int reg_split_root(const char *path, const char **rest)
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
	if (reg_split_root(key, &rest) != 1)
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
	*k = reg_key_find(reg, path);
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
		reg_utf16_to_utf8(out, data, len, 1);
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
			reg_utf16_to_utf8(out, data + start, off - start, 0);
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
	self = reg_key_find(reg, path);
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
