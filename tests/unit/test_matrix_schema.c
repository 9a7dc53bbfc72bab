/*
 * test_matrix_schema: the schema table (checker/matrix/schema.def) against
 * what uses it. Every row is complete; the lint reads every key of every
 * mapping with the table's type (a value of the wrong shape is an error
 * naming the key, on its line) and its required-ness (leaving out a required
 * key is an error naming it, leaving out an optional one is not);
 * matrix/README.md's key tables are exactly what the table generates
 * (TDC_WRITE_DOCS=1 rewrites them) and its example file writes every key.
 */
#include "harness.h"
#include "matrix/matrix.h"
#include "util/os.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

static const char *repo(void)
{
	const char *r = getenv("TDC_REPO");
	return r && *r ? r : ".";
}

static void test_every_row_complete(void)
{
	int m;
	size_t i, j;
	for (m = 0; m < MATRIX_NMAPS; m++) {
		const struct matrix_map_schema *s = matrix_schema((enum matrix_map)m);
		CHECK(s && s->name && s->path && s->n > 0);
		for (i = 0; s && i < s->n; i++) {
			const struct matrix_field *f = &s->fields[i];
			CHECK(f->key && *f->key && f->hint && *f->hint && f->doc && *f->doc);
			CHECK(strspn(f->key, "abcdefghijklmnopqrstuvwxyz_0123456789") == strlen(f->key) && f->key[0] >= 'a');
			CHECK(m == MATRIX_MAP_ROW || f->show == MS_NONE);
			CHECK(strcmp(matrix_type_doc(f->type), "?") && strcmp(matrix_required_doc(f->required), "?"));
			for (j = 0; j < i; j++)
				CHECK(strcmp(s->fields[j].key, f->key));
		}
	}
	CHECK(matrix_schema(MATRIX_NMAPS) == NULL);
}

/* ---- a small valid file, one mapping of each kind, one key a line ---- */

struct pair {
	const char *key, *value; /* value NULL: a mapping of kind `sub` (a list of one, but for WHEN) */
	int sub;
};

static const struct pair *pairs_of(int map)
{
	static const struct pair top[] = { { "schema", "1", 0 },
					   { "rows", NULL, MATRIX_MAP_ROW },
					   { "cuda", NULL, MATRIX_MAP_CUDA },
					   { "torch_load", NULL, MATRIX_MAP_PROC },
					   { "extension_load", NULL, MATRIX_MAP_EXT },
					   { "vendor_dlls", NULL, MATRIX_MAP_VENDOR },
					   { "profiles", NULL, MATRIX_MAP_PROFILE },
					   { "package_preload", NULL, MATRIX_MAP_PRELOAD },
					   { NULL, NULL, 0 } };
	static const struct pair row[] = { { "id", "r1", 0 },
					   { "torch", "\">=1.0\"", 0 },
					   { "status", "inferred", 0 },
					   { "runtime_dlls", NULL, MATRIX_MAP_DLL },
					   { "openmp", NULL, MATRIX_MAP_OPENMP },
					   { "known_issues", NULL, MATRIX_MAP_ISSUE },
					   { NULL, NULL, 0 } };
	static const struct pair dll[] = { { "name", "a.dll", 0 }, { "why", "w", 0 }, { NULL, NULL, 0 } };
	static const struct pair omp[] = {
		{ "dll", "b.dll", 0 }, { "where", "system", 0 }, { "redistributable", "false", 0 }, { NULL, NULL, 0 }
	};
	static const struct pair issue[] = { { "id", "i1", 0 },   { "symptom", "s", 0 },
					     { "cause", "c", 0 }, { "fix", "f", 0 },
					     { "applies_when", NULL, MATRIX_MAP_WHEN }, { NULL, NULL, 0 } };
	static const struct pair when[] = { { "arch", "x64", 0 }, { NULL, NULL, 0 } };
	static const struct pair cuda[] = {
		{ "cuda", "\"12.4\"", 0 }, { "driver", "\"551.61\"", 0 }, { "status", "inferred", 0 }, { NULL, NULL, 0 }
	};
	static const struct pair proc[] = { { "torch", "\">=1.0\"", 0 }, { "folders", "[lib, userbase]", 0 },
					    { "nvtx", "true", 0 },        { "vcruntime140_1", "always", 0 },
					    { "status", "inferred", 0 },  { NULL, NULL, 0 } };
	static const struct pair ext[] = { { "package", "pkg", 0 },
					   { "find", NULL, MATRIX_MAP_EXTFIND },
					   { "path_folders", NULL, MATRIX_MAP_EXTPATH },
					   { "loads", NULL, MATRIX_MAP_EXTLOAD },
					   { "status", "inferred", 0 },
					   { NULL, NULL, 0 } };
	static const struct pair extpath[] = { { "by", "b", 0 },
					       { "python", "\"3.8\"", 0 },
					       { "file", "f.py", 0 },
					       { "has", "x", 0 },
					       { NULL, NULL, 0 } };
	static const struct pair extfind[] = { { "by", "b", 0 },
					       { "file", "q.dll", 0 },
					       { "in", "bin", 0 },
					       { NULL, NULL, 0 } };
	static const struct pair extload[] = { { "module", "_C", 0 },
					       { "how", "ctypes", 0 },
					       { "raises", "false", 0 },
					       { "fails", "f", 0 },
					       { NULL, NULL, 0 } };
	static const struct pair vendor[] = { { "id", "v1", 0 },	   { "stack", "s", 0 },
					      { "dlls", "a.dll", 0 },	   { "wheel", "w", 0 },
					      { "why", "y", 0 },	   { "status", "inferred", 0 },
					      { NULL, NULL, 0 } };
	static const struct pair profile[] = { { "name", "p1", 0 },
					       { "title", "t", 0 },
					       { "windows", "\"11 24H2\"", 0 },
					       { "build", "\"10.0.26100\"", 0 },
					       { "visual_studio", "false", 0 },
					       { "system32", NULL, MATRIX_MAP_PROFDLL },
					       { "nvidia_driver", "none", 0 },
					       { "status", "inferred", 0 },
					       { NULL, NULL, 0 } };
	static const struct pair profdll[] = { { "name", "c.dll", 0 }, { "version", "\"14.44.35211.0\"", 0 },
					       { NULL, NULL, 0 } };
	static const struct pair preload[] = { { "id", "p1", 0 },
					       { "when_file", "x.py", 0 },
					       { "module", "m", 0 },
					       { "dist_info", "d.py", 0 },
					       { "packages", "[\"core=c\"]", 0 },
					       { "folder", "bin", 0 },
					       { "libraries", "[\"a=core:a*.dll\"]", 0 },
					       { "preload", "[a]", 0 },
					       { "fix", "f", 0 },
					       { "status", "inferred", 0 },
					       { NULL, NULL, 0 } };
	static const struct pair *const all[MATRIX_NMAPS] = { top,     row,     dll,     omp,     issue,   when,
							      cuda,    proc,    ext,     extpath, extfind, extload,
							      vendor,  profile, profdll, preload };
	return all[map];
}

/* In mapping `map`: `key` left out, or (value set) written last; `status` replaces or adds the map's status. */
struct mutation {
	int map;
	const char *key, *value, *status;
	unsigned line; /* set: where `key: value` was written */
};

static void line_out(struct strbuf *sb, unsigned *lineno, int col, int dash, const char *key, const char *value)
{
	strbuf_addf(sb, "%*s%s%s:%s%s\n", dash ? col - 2 : col, "", dash ? "- " : "", key, value ? " " : "",
		    value ? value : "");
	(*lineno)++;
}

/* A mapping written as one (applies_when, path_folders), not a list of them. */
static int is_map(int map)
{
	return map == MATRIX_MAP_WHEN || map == MATRIX_MAP_EXTPATH || map == MATRIX_MAP_EXTFIND;
}

static void render(struct strbuf *sb, unsigned *lineno, int map, int col, int dash, struct mutation *mu)
{
	const struct pair *p = pairs_of(map);
	int first = 1, status_done = 0;
	for (; p->key; p++) {
		const char *value = p->value;
		if (map == mu->map && !strcmp(p->key, mu->key))
			continue;
		if (map == mu->map && mu->status && !strcmp(p->key, "status")) {
			value = mu->status;
			status_done = 1;
		}
		line_out(sb, lineno, col, dash && first, p->key, value);
		first = 0;
		if (!p->value)
			render(sb, lineno, p->sub, is_map(p->sub) ? col + 2 : col + 4, !is_map(p->sub), mu);
	}
	if (map == mu->map && mu->status && !status_done) {
		line_out(sb, lineno, col, dash && first, "status", mu->status);
		first = 0;
	}
	if (map == mu->map && mu->value) {
		mu->line = *lineno + 1;
		line_out(sb, lineno, col, dash && first, mu->key, mu->value);
	}
}

/* Lints the mutated file; returns how many errors, and whether one says `want` (on `line` if not 0). */
static size_t lint(struct mutation *mu, const char *want, unsigned line, int *said)
{
	struct strbuf sb = STRBUF_INIT;
	struct matrix m;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	unsigned lineno = 0;
	size_t i, n;
	render(&sb, &lineno, MATRIX_MAP_TOP, 0, 0, mu);
	if (mu->value)
		line = mu->line;
	matrix_init(&m);
	matrix_load_buffer(&m, "t.yml", sb.buf, sb.len, &d, &e);
	*said = 0;
	for (i = 0; i < d.n; i++)
		if (want && strstr(d.v[i].msg, want) && (!line || d.v[i].line == line))
			*said = 1;
	n = d.n;
	if ((want && !*said) || (!want && n)) {
		printf("# %s `%s` in %s:\n", mu->value ? "bad value of" : "without", mu->key,
		       matrix_schema((enum matrix_map)mu->map)->name);
		printf("%s", sb.buf);
		for (i = 0; i < d.n; i++)
			printf("#   %u:%u: %s\n", d.v[i].line, d.v[i].col, d.v[i].msg);
	}
	matrix_diags_release(&d);
	matrix_release(&m);
	strbuf_release(&sb);
	return n;
}

/* A value of the wrong shape for a type: a mapping where a list (or one string) goes, else a list. */
static const char *wrong_shape(enum matrix_type t)
{
	switch (t) {
	case MT_IDS:
	case MT_ROWS:
	case MT_VARIANTS:
	case MT_ARCHES:
	case MT_URLS:
	case MT_EVIDENCE:
	case MT_DLLS:
	case MT_OPENMPS:
	case MT_ISSUES:
	case MT_DLLS_NAMED:
	case MT_CUDAS:
	case MT_PROCS:
	case MT_FOLDERS:
	case MT_EXTS:
	case MT_EXT_LOADS:
	case MT_TEXTS:
	case MT_WHEELS:
	case MT_PROFILES:
	case MT_PROFILE_DLLS:
		return "{a: b}";
	default:
		return "[x]";
	}
}

static void test_the_base_file_is_clean(void)
{
	struct mutation mu = { MATRIX_MAP_TOP, "none", NULL, NULL, 0 };
	int said;
	CHECK_INT(lint(&mu, NULL, 0, &said), 0);
}

static void test_lint_checks_every_key_by_its_type(void)
{
	int m;
	size_t i;
	for (m = 0; m < MATRIX_NMAPS; m++) {
		const struct matrix_map_schema *s = matrix_schema((enum matrix_map)m);
		for (i = 0; i < s->n; i++) {
			struct mutation mu = { m, s->fields[i].key, wrong_shape(s->fields[i].type), NULL, 0 };
			char want[64];
			int said;
			snprintf(want, sizeof(want), "`%s`", s->fields[i].key);
			CHECK(lint(&mu, want, 0, &said) > 0 && said);
		}
	}
}

static void test_lint_requires_what_the_table_requires(void)
{
	int m;
	size_t i;
	for (m = 0; m < MATRIX_NMAPS; m++) {
		const struct matrix_map_schema *s = matrix_schema((enum matrix_map)m);
		for (i = 0; i < s->n; i++) {
			const struct matrix_field *f = &s->fields[i];
			struct mutation mu = { m, f->key, NULL, NULL, 0 };
			char want[64];
			int said;
			switch (f->required) {
			case MR_REQUIRED:
			case MR_UNLESS_MERGE:
			case MR_UNLESS_REMOVE:
				if (m == MATRIX_MAP_TOP && !strcmp(f->key, "rows")) {
					/* `rows` may be left out beside `profiles` (the base file has them): a profile file */
					CHECK_INT(lint(&mu, NULL, 0, &said), 0);
					break;
				}
				snprintf(want, sizeof(want), "missing `%s", f->key);
				CHECK(lint(&mu, want, 0, &said) > 0 && said);
				break;
			case MR_IF_SOURCED:
			case MR_IF_MEASURED:
				mu.status = f->required == MR_IF_SOURCED ? "sourced" : "measured";
				snprintf(want, sizeof(want), "has no `%s`", f->key);
				CHECK(lint(&mu, want, 0, &said) > 0 && said);
				break;
			case MR_OPTIONAL:
				/*
				 * leaving it out is fine, but for the one key of applies_when (it would be empty) and
				 * a loads entry's `module` (it must name a module or a file) and an extension_load
				 * entry's `loads` (it must load something) and a vendor_dlls entry's `wheel` (one
				 * of `wheel` and `driver`)
				 */
				if (m != MATRIX_MAP_WHEN && !(m == MATRIX_MAP_EXTLOAD && !strcmp(f->key, "module")) &&
				    !(m == MATRIX_MAP_EXT && !strcmp(f->key, "loads")) &&
				    !(m == MATRIX_MAP_VENDOR && !strcmp(f->key, "wheel"))) /* one of wheel and driver */
					CHECK_INT(lint(&mu, NULL, 0, &said), 0);
				break;
			}
		}
	}
	{
		/* a merge row needs only its id: torch and status are UNLESS_MERGE */
		struct matrix mx;
		struct err e;
		static const char base[] = "schema: 1\nrows:\n  - {id: r1, torch: \">=1\", status: inferred}\n";
		static const char merge[] = "schema: 1\nrows:\n  - {id: r1, merge: true, note: n}\n";
		matrix_init(&mx);
		CHECK_INT(matrix_load_buffer(&mx, "a.yml", base, strlen(base), NULL, &e), 0);
		CHECK_INT(matrix_load_buffer(&mx, "b.yml", merge, strlen(merge), NULL, &e), 0);
		CHECK(mx.nrows == 1 && mx.rows[0]->note && !strcmp(mx.rows[0]->note, "n"));
		matrix_release(&mx);
	}
	{
		/* without `profiles` (and `remove`), leaving out `rows` is an error */
		struct matrix mx;
		struct err e;
		static const char none[] = "schema: 1\n";
		matrix_init(&mx);
		CHECK_INT(matrix_load_buffer(&mx, "a.yml", none, strlen(none), NULL, &e), -1);
		CHECK(strstr(e.msg, "missing `rows`") != NULL);
		matrix_release(&mx);
	}
}

/* ---- matrix/README.md ---- */

#define BEGIN "<!-- The key tables below are generated from checker/matrix/schema.def by tests/unit/test_matrix_schema.c.\n" \
	      "     After changing the schema: TDC_WRITE_DOCS=1 build/asan/tests/unit/test_matrix_schema -->\n"
#define END "<!-- end of the generated key tables -->\n"

static void md_cell(struct strbuf *md, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			strbuf_addch(md, '\\');
		strbuf_addch(md, *s);
	}
}

static void key_tables(struct strbuf *md)
{
	int m;
	size_t i;
	strbuf_adds(md, BEGIN);
	for (m = 0; m < MATRIX_NMAPS; m++) {
		const struct matrix_map_schema *s = matrix_schema((enum matrix_map)m);
		strbuf_addf(md, "\n**%s%s%s%s**\n\n| key | type | required | what it says |\n|---|---|---|---|\n",
			    *s->path ? "`" : "", *s->path ? s->path : "The top level", *s->path ? "`: " : "",
			    *s->path ? s->name : "");
		for (i = 0; i < s->n; i++) {
			const struct matrix_field *f = &s->fields[i];
			strbuf_addf(md, "| `%s` | ", f->key);
			md_cell(md, matrix_type_doc(f->type));
			strbuf_addf(md, " | %s | ", matrix_required_doc(f->required));
			md_cell(md, f->doc);
			strbuf_adds(md, " |\n");
		}
	}
	strbuf_adds(md, "\n" END);
}

static void test_readme_key_tables_are_generated(void)
{
	struct strbuf have = STRBUF_INIT, want = STRBUF_INIT, tables = STRBUF_INIT;
	struct err e;
	char *path = xasprintf("%s/matrix/README.md", repo());
	const char *b, *x;
	CHECK_INT(os_read_file(path, 1 << 20, &have, &e), 0);
	b = strstr(strbuf_str(&have), "<!-- The key tables below are generated");
	x = b ? strstr(b, END) : NULL;
	CHECK(b && x);
	if (b && x) {
		key_tables(&tables);
		strbuf_add(&want, have.buf, (size_t)(b - have.buf));
		strbuf_add(&want, tables.buf, tables.len);
		strbuf_adds(&want, x + strlen(END));
		if (getenv("TDC_WRITE_DOCS")) {
			CHECK_INT(os_write_file_atomic(path, want.buf, want.len, &e), 0);
			printf("# wrote %s\n", path);
		} else if (want.len != have.len || memcmp(want.buf, have.buf, want.len)) {
			CHECK(0);
			printf("# %s differs from checker/matrix/schema.def: TDC_WRITE_DOCS=1 "
			       "build/asan/tests/unit/test_matrix_schema\n", path);
		}
	}
	free(path);
	strbuf_release(&have);
	strbuf_release(&want);
	strbuf_release(&tables);
}

/* The README's example file (its first ```yaml block) writes every key of the schema. */
static void test_readme_example_writes_every_key(void)
{
	struct strbuf have = STRBUF_INIT;
	struct err e;
	char *path = xasprintf("%s/matrix/README.md", repo());
	const char *b, *x;
	int m;
	size_t i;
	CHECK_INT(os_read_file(path, 1 << 20, &have, &e), 0);
	b = strstr(strbuf_str(&have), "```yaml\n");
	x = b ? strstr(b + 8, "```") : NULL;
	CHECK(b && x);
	for (m = 0; b && x && m < MATRIX_NMAPS; m++) {
		const struct matrix_map_schema *s = matrix_schema((enum matrix_map)m);
		for (i = 0; i < s->n; i++) {
			char *k = xasprintf(" %s:", s->fields[i].key), *k0 = xasprintf("\n%s:", s->fields[i].key);
			const char *at = strstr(b, k), *at0 = strstr(b, k0);
			int found = (at && at < x) || (at0 && at0 < x);
			CHECK(found);
			if (!found)
				printf("# the example in %s does not write `%s` (%s)\n", path, s->fields[i].key, s->name);
			free(k);
			free(k0);
		}
	}
	free(path);
	strbuf_release(&have);
}

int main(void)
{
	RUN(test_every_row_complete);
	RUN(test_the_base_file_is_clean);
	RUN(test_lint_checks_every_key_by_its_type);
	RUN(test_lint_requires_what_the_table_requires);
	RUN(test_readme_key_tables_are_generated);
	RUN(test_readme_example_writes_every_key);
	return HARNESS_EXIT();
}
