/*
 * hive: regf hive files read through libhivex into a registry (see hive.h).
 *
 * The base block (the first 4096 bytes) is checked here, before libhivex
 * sees the file, because a "dirty" hive is not an error to libhivex but is
 * one to us: Windows flushes changes to the transaction logs (SOFTWARE.LOG1,
 * .LOG2) first and writes them back into the primary file later, marking the
 * primary dirty in between; it replays the logs at the next boot. A hive is
 * dirty when its base block's checksum is wrong or its primary and secondary
 * sequence numbers differ; a clean hive's logs are ignored, as Windows
 * ignores them. Reference: "Windows registry file format specification"
 * (github.com/msuhanov/regf), sections "Base block", "Format of transaction
 * log files" (a new-format log entry "HvLE": size at 4, sequence number at
 * 12) and "Dirty state of a hive".
 *
 * Which hive a file is: by its name (SOFTWARE, SYSTEM, as in
 * Windows\System32\config, any case and extension), else by its top-level
 * keys (Select / ControlSetNNN: SYSTEM; Microsoft: SOFTWARE). In SYSTEM,
 * CurrentControlSet does not exist on disk: the kernel links it at boot to
 * ControlSetNNN with NNN = Select\Current; the copy below does the same.
 *
 * libhivex walks untrusted cells; a hive with a loop in its key tree would
 * make a naive walk endless, so the walk is bounded in depth (512, as
 * Windows) and in keys visited. Only the keys on the way to a kept subtree
 * are listed (never, say, SOFTWARE\Classes, which may have more subkeys
 * than libhivex accepts under one key). libhivex maps the file and checks
 * every hive bin when it opens it, so a hive's pages are all touched once:
 * unlike a text file, a hive costs its size in (clean, file-backed) memory.
 */
#include "machine/hive.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/os.h"
#include "machine/registry.h"
#include "util/span.h"
#include "util/strbuf.h"

#ifdef TDC_HIVEX
#include <hivex.h>
#endif

#define HIVE_BASE_BLOCK 4096
#define HIVE_MAX_DEPTH 512
#define HIVE_MAX_VISITS 4000000

int hive_supported(void)
{
#ifdef TDC_HIVEX
	return 1;
#else
	return 0;
#endif
}

static uint32_t le32_at(const unsigned char *p, size_t len, size_t off)
{
	uint32_t v = 0;
	span_u32(span_make(p, len), off, &v);
	return v;
}

/* The XOR of the base block's first 127 dwords, with 0 and ~0 remapped as Windows does. */
static uint32_t base_checksum(const unsigned char *p)
{
	uint32_t x = 0;
	size_t i;
	for (i = 0; i < 508; i += 4)
		x ^= le32_at(p, HIVE_BASE_BLOCK, i);
	if (x == 0xffffffffu)
		x = 0xfffffffeu;
	else if (x == 0)
		x = 1;
	return x;
}

/* One transaction log next to the hive, described for the dirty-hive message. */
static void describe_log(struct strbuf *out, const char *path, const char *suffix, uint32_t seq)
{
	struct os_map m;
	struct err e;
	char *p = xasprintf("%s%s", path, suffix);
	const char *base = strrchr(p, '/');
	struct os_stat st;
	base = base ? base + 1 : p;
	os_stat(p, &st);
	if (st.type != OS_FILE) {
		free(p);
		return;
	}
	strbuf_addf(out, "%s%s", out->len ? ", " : "", base);
	err_clear(&e);
	if (os_map_file(&m, p, &e)) {
		strbuf_adds(out, " (unreadable)");
		free(p);
		return;
	}
	if (m.size < 1024 || memcmp(m.data, "regf", 4)) {
		strbuf_adds(out, m.size ? " (no log header)" : " (empty)");
	} else if (le32_at(m.data, m.size, 28) == 6) {
		/* new format: "HvLE" entries from offset 512, each at a multiple of 512 */
		size_t off = 512, pending = 0;
		while (off <= m.size - 40 && !memcmp(m.data + off, "HvLE", 4)) {
			uint32_t size = le32_at(m.data, m.size, off + 4);
			if (le32_at(m.data, m.size, off + 12) >= seq)
				pending++;
			if (size < 40 || size % 512 || size > m.size - off)
				break;
			off += size;
		}
		strbuf_addf(out, " (%zu pending log entr%s)", pending, pending == 1 ? "y" : "ies");
	} else {
		strbuf_adds(out, memcmp(m.data + 512, "DIRT", 4) ? " (old format, no dirty pages)"
								  : " (old format, with dirty pages)");
	}
	os_unmap(&m);
	free(p);
}

int hive_check_base(const unsigned char *data, size_t len, const char *path, struct err *err)
{
	const char *name = path ? path : "hive";
	uint32_t seq1, seq2, major, minor, type, bins, sum;
	struct strbuf logs = STRBUF_INIT, why = STRBUF_INIT;
	if (len < 4 || memcmp(data, "regf", 4))
		return err_set(err, "%s: not a regf hive (it does not start with \"regf\")", name);
	if (len < HIVE_BASE_BLOCK)
		return err_set(err, "%s: truncated regf hive: %zu bytes, its base block alone takes %d", name, len,
			       HIVE_BASE_BLOCK);
	seq1 = le32_at(data, len, 4);
	seq2 = le32_at(data, len, 8);
	major = le32_at(data, len, 20);
	minor = le32_at(data, len, 24);
	type = le32_at(data, len, 28);
	bins = le32_at(data, len, 40);
	sum = le32_at(data, len, 508);
	if (major != 1)
		return err_set(err, "%s: regf version %u.%u: only version 1.x hives are read", name, major, minor);
	if (type != 0)
		return err_set(err, "%s: a regf file of type %u (a transaction log or backup), not a primary hive: "
				    "give the hive itself (SOFTWARE, not SOFTWARE.LOG1)", name, type);
	if (base_checksum(data) != sum)
		strbuf_addf(&why, "its base block checksum is 0x%08x, expected 0x%08x", sum, base_checksum(data));
	else if (seq1 != seq2)
		strbuf_addf(&why, "its sequence numbers %u and %u differ", seq1, seq2);
	if (why.len) {
		if (path) {
			describe_log(&logs, path, ".LOG1", seq1);
			describe_log(&logs, path, ".LOG2", seq1);
			describe_log(&logs, path, ".LOG", seq1);
			describe_log(&logs, path, ".log1", seq1);
			describe_log(&logs, path, ".log2", seq1);
		}
		err_set(err,
			"%s: dirty hive (%s): Windows had not written its last changes back into the file when "
			"the image was taken; %s%s. Reading the file alone would give a half-written registry: boot "
			"the image once and shut it down cleanly, then check again",
			name, why.buf, logs.len ? "they wait in the transaction logs, replayed at the next boot: "
						: "no transaction log (.LOG1, .LOG2) lies next to it, so they are lost",
			strbuf_str(&logs));
		strbuf_release(&logs);
		strbuf_release(&why);
		return -1;
	}
	strbuf_release(&why);
	if (bins % 4096 || bins > len - HIVE_BASE_BLOCK)
		return err_set(err, "%s: truncated or corrupt regf hive: the base block says %u bytes of hive bins, "
				    "the file has %zu after the base block", name, bins, len - HIVE_BASE_BLOCK);
	return 0;
}

/* SOFTWARE or SYSTEM from the file name ("SOFTWARE", "system.hiv"), else NULL. */
static const char *mount_by_name(const char *path)
{
	const char *b = path, *p;
	size_t n;
	for (p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	n = strcspn(b, ".");
	if (n == 8 && !str_nicmp(b, "SOFTWARE", 8))
		return "SOFTWARE";
	if (n == 6 && !str_nicmp(b, "SYSTEM", 6))
		return "SYSTEM";
	return NULL;
}

#ifdef TDC_HIVEX

/*
 * The cells a walk has reached (key or value offsets): an open-addressed
 * set, so that a hive whose subkey lists loop, or whose keys share value
 * lists or value cells, is refused the second time a cell is reached.
 * Windows never shares these cells (each key owns its subkey list, value
 * list and values; only security cells are shared, and they are not
 * walked), and without this a loop was walked to the depth limit, copying
 * every value at every level: an 32 KiB hive reached 800 MB.
 */
struct cellset {
	size_t *v; /* offset + 1; 0 is empty */
	size_t n, cap;
};

static size_t cell_hash(size_t off)
{
	uint64_t x = (uint64_t)off * 0x9E3779B97F4A7C15ull;
	return (size_t)(x >> 17);
}

/* Adds off; 1 if it was there already. */
static int cellset_add(struct cellset *s, size_t off)
{
	size_t i;
	if (2 * (s->n + 1) > s->cap) {
		struct cellset bigger = { NULL, 0, s->cap ? 2 * s->cap : 1024 };
		bigger.v = xcalloc(bigger.cap, sizeof(*bigger.v));
		for (i = 0; i < s->cap; i++)
			if (s->v[i])
				cellset_add(&bigger, s->v[i] - 1);
		free(s->v);
		*s = bigger;
	}
	for (i = cell_hash(off) & (s->cap - 1); s->v[i]; i = (i + 1) & (s->cap - 1))
		if (s->v[i] == off + 1)
			return 1;
	s->v[i] = off + 1;
	s->n++;
	return 0;
}

static void cellset_release(struct cellset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

struct walk {
	hive_h *h;
	struct registry *reg;
	const char *name;
	size_t visits;
	struct cellset keys, values; /* reached in this walk */
	uint64_t data, data_max;     /* value bytes copied; at most the hive's size */
	struct err *err;
};

/* libhivex refused a read: a corrupt hive, or one past libhivex's own limits (values of 1 MB, ...) */
static int hive_fail(struct walk *w, const char *key, const char *what)
{
	int e = errno;
	return err_set(w->err, "%s: corrupt hive, or past libhivex's limits: at %s: %s%s%s", w->name,
		       key[0] ? key : "its root key", what, e ? ": " : "", e ? strerror(e) : "");
}

static int copy_values(struct walk *w, hive_node_h node, const char *path)
{
	hive_value_h *vals;
	size_t i;
	int r = 0;
	errno = 0;
	vals = hivex_node_values(w->h, node);
	if (!vals)
		return hive_fail(w, path, "cannot list its values");
	for (i = 0; vals[i] && !r; i++) {
		hive_type t;
		size_t len;
		char *name, *data;
		if (cellset_add(&w->values, vals[i])) {
			r = err_set(w->err, "%s: corrupt hive: a value of %s is also another key's (value cells shared)",
				    w->name, path);
			break;
		}
		errno = 0;
		name = hivex_value_key(w->h, vals[i]);
		if (!name) {
			r = hive_fail(w, path, "cannot read a value name");
			break;
		}
		errno = 0;
		data = hivex_value_value(w->h, vals[i], &t, &len);
		if (!data) {
			struct strbuf what = STRBUF_INIT;
			strbuf_addf(&what, "cannot read value \"%s\"", name);
			r = hive_fail(w, path, what.buf);
			strbuf_release(&what);
		} else if ((w->data += len) > w->data_max) {
			/* distinct values cannot hold more than the file: data cells are shared */
			r = err_set(w->err, "%s: corrupt hive: its values hold more bytes than the file (%llu), at %s "
					    "(data cells shared)", w->name, (unsigned long long)w->data_max, path);
		} else {
			r = registry_put(w->reg, path, name, (unsigned)t, data, len, w->err);
		}
		free(name);
		free(data);
	}
	free(vals);
	return r;
}

/* The subtree of node at `path` (relative to HKLM), as far as the registry keeps it. */
static int walk_node(struct walk *w, hive_node_h node, const char *path, int depth)
{
	hive_node_h *kids;
	size_t i;
	int scope = registry_scope(w->reg, path), r = 0;
	if (scope == REGISTRY_SKIP)
		return 0;
	if (depth > HIVE_MAX_DEPTH)
		return err_set(w->err, "%s: corrupt hive: keys nested deeper than %d at %s (a loop?)", w->name,
			       HIVE_MAX_DEPTH, path);
	if (++w->visits > HIVE_MAX_VISITS)
		return err_set(w->err, "%s: corrupt hive: more than %d keys (a loop?)", w->name, HIVE_MAX_VISITS);
	if (cellset_add(&w->keys, node))
		return err_set(w->err, "%s: corrupt hive: key %s is reached twice (its subkey lists loop or share "
				       "cells)", w->name, path);
	if (scope == REGISTRY_KEEP) {
		if (registry_put(w->reg, path, NULL, 0, NULL, 0, w->err) || copy_values(w, node, path))
			return -1;
	}
	errno = 0;
	kids = hivex_node_children(w->h, node);
	if (!kids)
		return hive_fail(w, path, "cannot list its subkeys");
	for (i = 0; kids[i] && !r; i++) {
		char *name, *sub;
		errno = 0;
		name = hivex_node_name(w->h, kids[i]);
		if (!name) {
			r = hive_fail(w, path, "cannot read a subkey name");
			break;
		}
		if (!name[0] || strchr(name, '\\')) {
			errno = 0;
			r = hive_fail(w, path, name[0] ? "a subkey name with a backslash" : "an empty subkey name");
			free(name);
			break;
		}
		sub = xasprintf("%s\\%s", path, name);
		r = walk_node(w, kids[i], sub, depth + 1);
		free(sub);
		free(name);
	}
	free(kids);
	return r;
}

/* SYSTEM: Select\Current names the control set that boots as CurrentControlSet (1 if absent). */
static unsigned current_control_set(hive_h *h, hive_node_h root)
{
	hive_node_h sel = hivex_node_get_child(h, root, "Select");
	hive_value_h v;
	hive_type t;
	size_t len;
	if (!sel)
		return 1;
	v = hivex_node_get_value(h, sel, "Current");
	if (!v || hivex_value_type(h, v, &t, &len) || t != hive_t_REG_DWORD || len != 4)
		return 1;
	return (unsigned)hivex_value_dword(h, v);
}

static int copy_hive(struct walk *w, const char *mount)
{
	hive_node_h root = hivex_root(w->h), ccs;
	char name[32];
	int r;
	if (!root)
		return hive_fail(w, "", "no root key");
	if (!mount) {
		if (hivex_node_get_child(w->h, root, "Select") || hivex_node_get_child(w->h, root, "ControlSet001"))
			mount = "SYSTEM";
		else if (hivex_node_get_child(w->h, root, "Microsoft"))
			mount = "SOFTWARE";
		else
			return err_set(w->err, "%s: cannot tell which HKLM hive this is (no Microsoft, Select or "
					       "ControlSet001 key at its top): name the file SOFTWARE or SYSTEM, as in "
					       "Windows\\System32\\config", w->name);
	}
	r = walk_node(w, root, mount, 0);
	if (r || strcmp(mount, "SYSTEM"))
		return r;
	/* CurrentControlSet is ControlSetNNN walked again under its boot name: a walk of its own */
	cellset_release(&w->keys);
	cellset_release(&w->values);
	w->data = 0;
	snprintf(name, sizeof(name), "ControlSet%03u", current_control_set(w->h, root) % 1000);
	ccs = hivex_node_get_child(w->h, root, name);
	return ccs ? walk_node(w, ccs, "SYSTEM\\CurrentControlSet", 1) : 0;
}

int hive_load(struct registry *reg, const char *path, const struct os_map *m, struct err *err)
{
	struct walk w;
	const char *mount = mount_by_name(path);
	char *desc;
	int r;
	if (hive_check_base(m->data, m->size, path, err))
		return -1;
	memset(&w, 0, sizeof(w));
	w.reg = reg;
	w.name = path;
	w.err = err;
	w.data_max = m->size;
	errno = 0;
	w.h = hivex_open(path, 0);
	if (!w.h)
		return err_set(err, "%s: libhivex cannot read this hive: %s", path,
			       errno ? strerror(errno) : "unknown error");
	r = copy_hive(&w, mount);
	cellset_release(&w.keys);
	cellset_release(&w.values);
	hivex_close(w.h);
	if (r)
		return -1;
	desc = xasprintf("regf hive %s", path);
	registry_describe_add(reg, desc);
	free(desc);
	return 0;
}

#else /* built without libhivex: the Windows builds, the Linux release programs, any build whose pkg-config found no hivex */

int hive_load(struct registry *reg, const char *path, const struct os_map *m, struct err *err)
{
	(void)reg;
	(void)mount_by_name;
	if (hive_check_base(m->data, m->size, path, err))
		return -1;
	return err_set(err, "%s: a regf hive: this build of torch-dll-check was made without libhivex and reads no "
			    "hives; builds that have it read them (on Linux: install libhivex-dev and build from "
			    "source, or the action's `version: source`); or give a `reg export` of the keys instead",
		       path);
}

#endif
