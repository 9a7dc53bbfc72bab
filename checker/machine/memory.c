/*
 * memory: physical memory and the paging files (memory.h, docs/commit.md).
 */
#include "machine/memory.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/os.h"
#include "util/text.h"

void machine_memory_init(struct machine_memory *m)
{
	memset(m, 0, sizeof(*m));
	strlist_init(&m->notes);
}

static void clear_files(struct machine_memory *m)
{
	size_t i;
	for (i = 0; i < m->nfiles; i++)
		free(m->files[i].path);
	free(m->files);
	m->files = NULL;
	m->nfiles = 0;
	m->ndropped = 0;
}

void machine_memory_release(struct machine_memory *m)
{
	clear_files(m);
	free(m->physical_source);
	free(m->paging_source);
	strlist_release(&m->notes);
	machine_memory_init(m);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The entry as a note may quote it: at most MEM_MAX_QUOTE bytes, escaped. */
static char *quote(const char *s, size_t n)
{
	struct strbuf sb;
	strbuf_init(&sb);
	text_esc(&sb, s, n < MEM_MAX_QUOTE ? n : MEM_MAX_QUOTE, 0);
	if (n > MEM_MAX_QUOTE)
		strbuf_adds(&sb, "...");
	return strbuf_detach(&sb);
}

/* A decimal number of MB of at most 20 digits: 1 with *out, 0 not a number. */
static int parse_mb(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;
	if (!n || n > 20)
		return 0;
	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		if (v > (UINT64_MAX - 9) / 10)
			v = UINT64_MAX;
		else
			v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 1;
}

/* MB to bytes, at most MEM_MAX_PAGING_BYTES (*clamped set when it was more). */
static uint64_t mb_bytes(uint64_t mb, int *clamped)
{
	if (mb > (MEM_MAX_PAGING_BYTES >> 20)) {
		*clamped = 1;
		return MEM_MAX_PAGING_BYTES;
	}
	return mb << 20;
}

/* The last whitespace-separated token of s[0..*n): its start; *n becomes the length before it. */
static const char *last_token(const char *s, size_t *n, size_t *tlen)
{
	size_t e = *n, b;
	while (e && isspace((unsigned char)s[e - 1]))
		e--;
	b = e;
	while (b && !isspace((unsigned char)s[b - 1]))
		b--;
	*tlen = e - b;
	*n = b;
	return s + b;
}

static void parse_entry(struct machine_memory *m, const char *s, size_t n)
{
	struct paging_file *f;
	size_t rest = n, l1, l2, plen;
	const char *t2 = last_token(s, &rest, &l2), *t1;
	uint64_t a = 0, b = 0;
	int sized = 0, clamped = 0;
	char *q;
	t1 = last_token(s, &rest, &l1);
	if (l1 && l2 && parse_mb(t1, l1, &a) && parse_mb(t2, l2, &b)) {
		sized = 1;
		plen = rest;
	} else {
		plen = n;
	}
	while (plen && isspace((unsigned char)s[plen - 1]))
		plen--;
	if (m->nfiles == MEM_MAX_PAGING_FILES) {
		m->ndropped++;
		return;
	}
	m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof(*m->files));
	f = &m->files[m->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = quote(s, plen);
	if (plen >= 2 && s[0] == '?' && s[1] == ':') {
		f->kind = PAGING_AUTOMATIC;
		return;
	}
	f->kind = PAGING_SYSTEM_MANAGED;
	if (!sized) {
		/* a path alone is system-managed; anything else after it is not understood */
		if (memchr(s, ' ', plen) || memchr(s, '\t', plen)) {
			q = quote(s, n);
			strlist_pushf(&m->notes, "PagingFiles entry \"%s\": its sizes are not two numbers of MB; taken as "
				      "system-managed", q);
			free(q);
		}
		return;
	}
	if (!a && !b)
		return;
	f->kind = PAGING_FIXED;
	f->min = mb_bytes(a, &clamped);
	f->max = mb_bytes(b, &clamped);
	q = quote(s, n);
	if (clamped)
		strlist_pushf(&m->notes, "PagingFiles entry \"%s\": a size above 16 TiB (x64's largest paging file) taken "
			      "as 16 TiB", q);
	if (f->max < f->min) {
		strlist_pushf(&m->notes, "PagingFiles entry \"%s\": its maximum is below its minimum; the minimum taken as "
			      "both", q);
		f->max = f->min;
	}
	free(q);
}

void memory_parse_paging(struct machine_memory *m, const char *text, size_t len)
{
	size_t i = 0;
	clear_files(m);
	while (i < len) {
		size_t e = i, b;
		while (e < len && text[e] != '\n')
			e++;
		b = i;
		while (b < e && isspace((unsigned char)text[b]))
			b++;
		if (b < e && text[b] != '\0')
			parse_entry(m, text + b, e - b);
		i = e + 1;
	}
	if (m->ndropped)
		strlist_pushf(&m->notes, "PagingFiles lists %zu entries more than Windows' %d: only the first %d were read",
			      m->ndropped, MEM_MAX_PAGING_FILES, MEM_MAX_PAGING_FILES);
}

int memory_read(struct machine_memory *m, struct view *v, struct err *err)
{
	struct strbuf sb;
	int r;
	if (view_is_live(v)) {
		struct os_memory om;
		if (os_memory_status(&om) == 0) {
			if (!m->physical && om.physical) {
				m->physical = om.physical;
				free(m->physical_source);
				m->physical_source = xstrdup("the OS (GlobalMemoryStatusEx)");
			}
			m->os_commit_limit = om.commit_limit;
			m->os_commit_total = om.commit_total;
		}
	}
	if (!view_has_registry(v))
		return 0;
	strbuf_init(&sb);
	r = view_reg_get(v, MEM_KEY, "PagingFiles", 64, &sb, err);
	if (r < 0) {
		strbuf_release(&sb);
		return -1;
	}
	if (r == 1) {
		/* Windows writes the value (empty for no paging file): a registry without it is partial */
		strlist_pushf(&m->notes, "PagingFiles is not in the registry (%s): Windows' default, one system-managed "
			      "paging file, taken", view_registry_source(v));
		strbuf_release(&sb);
		return 0;
	}
	m->paging_known = 1;
	free(m->paging_source);
	m->paging_source = xstrdup(view_registry_source(v));
	memory_parse_paging(m, sb.buf, sb.len);
	strbuf_release(&sb);
	return 0;
}

int memory_parse_size(const char *s, uint64_t *out, struct err *err)
{
	uint64_t v = 0, unit = 1;
	const char *p = s;
	if (!isdigit((unsigned char)*p))
		return err_set(err, "\"%s\" is not a size: give a number and a unit, such as 16GiB or 512MiB", s);
	while (isdigit((unsigned char)*p)) {
		if (v > (UINT64_MAX - 9) / 10)
			return err_set(err, "\"%s\": too large (at most 1 PiB)", s);
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	if (!strcmp(p, "") || !strcmp(p, "B"))
		unit = 1;
	else if (!strcmp(p, "K") || !strcmp(p, "KB") || !strcmp(p, "KiB"))
		unit = (uint64_t)1 << 10;
	else if (!strcmp(p, "M") || !strcmp(p, "MB") || !strcmp(p, "MiB"))
		unit = (uint64_t)1 << 20;
	else if (!strcmp(p, "G") || !strcmp(p, "GB") || !strcmp(p, "GiB"))
		unit = (uint64_t)1 << 30;
	else if (!strcmp(p, "T") || !strcmp(p, "TB") || !strcmp(p, "TiB"))
		unit = (uint64_t)1 << 40;
	else
		return err_set(err, "\"%s\": unknown unit \"%s\" (B, KiB, MiB, GiB, TiB; KB, MB, GB, TB count the same)", s, p);
	if (!v)
		return err_set(err, "\"%s\": a machine has more memory than none", s);
	if (v > ((uint64_t)1 << 50) / unit)
		return err_set(err, "\"%s\": too large (at most 1 PiB)", s);
	*out = v * unit;
	return 0;
}

int memory_limits(const struct machine_memory *m, uint64_t *start, uint64_t *reach)
{
	uint64_t ram = m->physical, smin, smax;
	size_t i;
	if (!ram)
		return -1;
	smin = ram / 8 < 32 * MEM_GIB ? ram / 8 : 32 * MEM_GIB;
	smax = 3 * (ram < MEM_MAX_PAGING_BYTES ? ram : MEM_MAX_PAGING_BYTES);
	if (smax < 4 * MEM_GIB)
		smax = 4 * MEM_GIB;
	if (smax > MEM_MAX_PAGING_BYTES)
		smax = MEM_MAX_PAGING_BYTES;
	*start = *reach = ram;
	if (!m->paging_known) { /* Windows' default: one system-managed paging file */
		*start = sat_add(ram, smin);
		*reach = sat_add(ram, smax);
		return 0;
	}
	for (i = 0; i < m->nfiles; i++) {
		const struct paging_file *f = &m->files[i];
		*start = sat_add(*start, f->kind == PAGING_FIXED ? f->min : smin);
		*reach = sat_add(*reach, f->kind == PAGING_FIXED ? f->max : smax);
	}
	return 0;
}

void memory_format(char *out, size_t size, uint64_t n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)n;
	int u = -1;
	if (n < 1024) {
		snprintf(out, size, "%" PRIu64 " bytes", n);
		return;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		snprintf(out, size, "%.0f %s", v, units[u]);
	else
		snprintf(out, size, "%.1f %s", v, units[u]);
}
