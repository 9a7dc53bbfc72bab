/*
 * test_pins: a tree's pin files together (includes followed in the tree,
 * cycles, missing files), base/head differences, and the targets `check`
 * picks, on an in-memory tree.
 */
#include "harness.h"
#include "pins/pins.h"

#include <stdlib.h>

struct mem_file {
	const char *path, *text;
};

struct mem_tree {
	const struct mem_file *files;
	int reads;
};

static int mem_read(void *ctx, const char *path, struct strbuf *out, struct err *err)
{
	struct mem_tree *t = ctx;
	size_t i;
	for (i = 0; t->files[i].path; i++) {
		if (!strcmp(t->files[i].path, path)) {
			if (!strcmp(t->files[i].text, "<unreadable>"))
				return err_set(err, "%s: cannot read", path);
			t->reads++;
			strbuf_adds(out, t->files[i].text);
			return 0;
		}
	}
	return 1;
}

static int load(struct pinset *ps, const struct mem_file *files, struct err *e)
{
	struct strlist cands = STRLIST_INIT;
	struct mem_tree t = { files, 0 };
	size_t i;
	int rc;
	for (i = 0; files[i].path; i++)
		if (req_kind_of_path(files[i].path) != REQ_NONE)
			strlist_push(&cands, files[i].path);
	memset(ps, 0, sizeof(*ps));
	rc = pinset_load(ps, &cands, mem_read, &t, e);
	strlist_release(&cands);
	return rc;
}

static const struct mem_file base_tree[] = {
	{ "requirements.txt", "-r ci/base.in\n-c constraints.txt\n-r missing.txt\ntorch==2.3.1\n" },
	{ "ci/base.in", "numpy\n-r ../requirements.txt\n-r more.txt\n" },
	{ "ci/more.txt", "-r base.in\ntorchvision\n" },
	{ "constraints.txt", "torch<2.5\n" },
	{ "environment.yml", "dependencies:\n  - pytorch=2.3.1\n" },
	{ NULL, NULL },
};

static void test_load_follows_includes_once(void)
{
	struct pinset ps;
	struct err e;
	CHECK_INT(load(&ps, base_tree, &e), 0);
	CHECK_INT(ps.n, 5);
	if (ps.n == 5) {
		CHECK_STR(ps.files[3].path, "ci/base.in");
		CHECK_STR(ps.files[3].included_by, "requirements.txt");
		CHECK_STR(ps.files[4].path, "ci/more.txt");
		CHECK_STR(ps.files[4].included_by, "ci/base.in");
		CHECK_STR(ps.files[0].path, "requirements.txt");
		CHECK_INT(ps.files[0].n_inc, 3);
		CHECK_INT(ps.files[0].inc[2].missing, 1);
		CHECK_INT(ps.files[0].inc[0].missing, 0);
		CHECK_STR(ps.files[1].path, "constraints.txt");
		CHECK(ps.files[1].n_pins == 1 && ps.files[1].pins[0].source == PIN_SRC_CONSTRAINTS);
	}
	CHECK_INT(pinset_count_torch(&ps), 3);
	pinset_release(&ps);
}

static void test_load_error_names_the_include(void)
{
	static const struct mem_file tree[] = {
		{ "requirements.txt", "\n-r sub/x.txt\n" },
		{ "sub/x.txt", "torch=2\n" },
		{ NULL, NULL },
	};
	static const struct mem_file unreadable[] = {
		{ "requirements.txt", "torch\n" },
		{ "pyproject.toml", "<unreadable>" },
		{ NULL, NULL },
	};
	struct pinset ps;
	struct err e;
	CHECK_INT(load(&ps, tree, &e), -1);
	CHECK_STR(e.msg, "requirements.txt:2:4: included file: sub/x.txt:1:6: invalid version specifier '=2' (expected e.g. ==2.4.0 or >=2.4,<2.6)");
	pinset_release(&ps);
	CHECK_INT(load(&ps, unreadable, &e), -1);
	CHECK_STR(e.msg, "pyproject.toml: cannot read");
	pinset_release(&ps);
}

static void test_diff(void)
{
	static const struct mem_file head_tree[] = {
		{ "requirements.txt", "# moved down\n-r ci/base.in\n-c constraints.txt\ntorch==2.4.0 ; sys_platform == 'win32'\n" },
		{ "ci/base.in", "numpy\n" },
		{ "constraints.txt", "\n\ntorch<2.5\n" },
		{ "uv.lock", "[[package]]\nname = \"torch\"\nversion = \"2.4.0\"\n" },
		{ NULL, NULL },
	};
	struct pinset b, h;
	struct pin_changes c = { NULL, 0, 0 };
	struct err e;
	CHECK_INT(load(&b, base_tree, &e), 0);
	CHECK_INT(load(&h, head_tree, &e), 0);
	pinset_diff(&b, &h, 1, &c);
	CHECK_INT(c.n, 3);
	if (c.n == 3) {
		CHECK_INT(c.v[0].kind, PIN_CHANGED);
		CHECK_STR(c.v[0].head->file, "requirements.txt");
		CHECK_INT(c.v[0].head->line, 4);
		CHECK_STR(c.v[0].base->spec, "==2.3.1");
		CHECK_INT(c.v[1].kind, PIN_ADDED);
		CHECK_STR(c.v[1].head->file, "uv.lock");
		CHECK_INT(c.v[2].kind, PIN_REMOVED);
		CHECK_STR(c.v[2].base->file, "environment.yml");
		CHECK(c.v[2].head == NULL);
	}
	pin_changes_release(&c);
	/* all packages: numpy unchanged, torchvision gone with ci/more.txt */
	pinset_diff(&b, &h, 0, &c);
	CHECK_INT(c.n, 4);
	pin_changes_release(&c);
	/* a tree against itself has no changes */
	pinset_diff(&h, &h, 0, &c);
	CHECK_INT(c.n, 0);
	pin_changes_release(&c);
	pinset_release(&b);
	pinset_release(&h);
}

/*
 * Pairing, as a scan of the base in order would pair: same markers first,
 * then the same place; duplicates pair in order. pinset_diff finds the
 * pairs through a sorted index (O(n log n)); this pins its answers.
 */
static void test_diff_pairing(void)
{
	static const struct mem_file pair_base[] = {
		{ "requirements.txt", "torch==2.3 ; sys_platform == 'win32'\ntorch==2.3 ; sys_platform == 'linux'\n"
				      "torch==1.0\ntorch==1.1\ntorch==1.2\n" },
		{ NULL, NULL },
	};
	static const struct mem_file pair_head[] = {
		{ "requirements.txt", "torch==2.4 ; sys_platform == 'linux'\ntorch==2.3 ; sys_platform == 'darwin'\n"
				      "torch==1.0\ntorch==1.5\n" },
		{ NULL, NULL },
	};
	struct pinset b, h;
	struct pin_changes c = { NULL, 0, 0 };
	struct err e;
	CHECK_INT(load(&b, pair_base, &e), 0);
	CHECK_INT(load(&h, pair_head, &e), 0);
	pinset_diff(&b, &h, 1, &c);
	CHECK_INT(c.n, 4);
	if (c.n == 4) {
		/* pass 0: linux with linux (changed); 1.0 with the first unmarked base pin (unchanged); 1.5 with 1.1 */
		CHECK_INT(c.v[0].kind, PIN_CHANGED);
		CHECK_INT(c.v[0].base->line, 2);
		CHECK_INT(c.v[0].head->line, 1);
		CHECK_INT(c.v[1].kind, PIN_CHANGED);
		CHECK_INT(c.v[1].base->line, 4);
		CHECK_INT(c.v[1].head->line, 4);
		/* pass 1: darwin takes the place of win32 */
		CHECK_INT(c.v[2].kind, PIN_CHANGED);
		CHECK_INT(c.v[2].base->line, 1);
		CHECK_INT(c.v[2].head->line, 2);
		/* 1.2 is left over */
		CHECK_INT(c.v[3].kind, PIN_REMOVED);
		CHECK_INT(c.v[3].base->line, 5);
	}
	pin_changes_release(&c);
	pinset_release(&b);
	pinset_release(&h);
}

static void test_torch_targets(void)
{
	static const struct mem_file tree[] = {
		{ "requirements.txt",
		  "torch==2.4.0+cpu ; sys_platform == 'linux'\n"
		  "torch>=2.4 ; python_version >= '3.9'\n"
		  "https://download.pytorch.org/whl/cu121/torch-2.4.1%2Bcu121-cp311-cp311-linux_x86_64.whl\n"
		  "torch==2.4.1 ; sys_platform == 'win32'\n" },
		{ "pyproject.toml", "[project]\ndependencies = [\"numpy\"]\n" },
		{ "uv.lock", "[[package]]\nname = \"torch\"\nversion = \"2.5.1+cu124\"\n" },
		{ "environment.yml", "dependencies: [pytorch]\n" },
		{ NULL, NULL },
	};
	struct pinset ps;
	struct torch_target *t;
	struct err e;
	size_t n;
	CHECK_INT(load(&ps, tree, &e), 0);
	n = pinset_torch_targets(&ps, &t);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(t[0].file, "requirements.txt");
		CHECK_INT(t[0].pin->line, 4);
		CHECK_STR(t[0].version, "2.4.1");
		CHECK_INT(t[0].on_windows, 1);
		CHECK_INT(t[0].strength, 2);
		CHECK_STR(t[1].file, "uv.lock");
		CHECK_STR(t[1].version, "2.5.1+cu124");
		CHECK_STR(t[1].variant, "cu124");
		CHECK_INT(t[1].strength, 4);
		CHECK_STR(t[2].file, "environment.yml");
		CHECK(t[2].version == NULL && t[2].specifier == NULL && t[2].strength == 0);
	}
	free(t);
	CHECK(pin_platform_on_windows("win_amd64"));
	CHECK(pin_platform_on_windows("any"));
	CHECK(pin_platform_on_windows("manylinux1_x86_64.win_amd64"));
	CHECK(!pin_platform_on_windows("win32"));
	CHECK(!pin_platform_on_windows("linux_x86_64"));
	pinset_release(&ps);
}

/* The seam for check, against the real default matrix (matrix/torch.yml). */
static void test_target_probes(void)
{
	static const struct mem_file tree[] = {
		{ "requirements.txt", "torch==2.4.0+cu121\n" },
		{ "constraints.txt", "torch>=2.4,<2.7\n" },
		{ "pyproject.toml", "[project]\ndependencies = [\"torch~=2.8.0\"]\n" },
		{ "environment.yml", "dependencies: [pytorch=2.4]\n" },
		{ "uv.lock", "[[package]]\nname = \"torch\"\nversion = \"2.4.x\"\n" },
		{ NULL, NULL },
	};
	struct matrix m;
	struct pinset ps;
	struct torch_target *t;
	struct pin_probes pr = { NULL, 0, 0 };
	struct err e;
	size_t n, i;
	matrix_init(&m);
	CHECK_INT(matrix_load_default(&m, NULL, &e), 0);
	CHECK_INT(load(&ps, tree, &e), 0);
	n = pinset_torch_targets(&ps, &t);
	CHECK_INT(n, 5);
	if (n != 5)
		goto out;
	/* exact: one row, the 2.4.0 libomp140 trap */
	CHECK_INT(pins_target_probes(&m, &t[0], "x64", &pr, &e), 0);
	CHECK(pr.n == 1 && pr.v[0].row && !strcmp(pr.v[0].row->id, "torch-2.4.0"));
	CHECK(pr.n == 1 && !strcmp(pr.v[0].version, "2.4.0+cu121"));
	pin_probes_release(&pr);
	/* a range: every row it can land on */
	CHECK_INT(pins_target_probes(&m, &t[1], "x64", &pr, &e), 0);
	CHECK_INT(pr.n, 2);
	if (pr.n == 2) {
		CHECK_STR(pr.v[0].row ? pr.v[0].row->id : NULL, "torch-2.4.0");
		CHECK_STR(pr.v[1].row ? pr.v[1].row->id : NULL, "torch-2.4.1-to-2.6");
		CHECK_STR(pr.v[1].version, "2.4.1");
	}
	pin_probes_release(&pr);
	CHECK_INT(pins_target_probes(&m, &t[2], "x64", &pr, &e), 0);
	CHECK(pr.n == 1 && pr.v[0].row && !strcmp(pr.v[0].row->id, "torch-2.8"));
	pin_probes_release(&pr);
	/* conda's fuzzy =2.4 is ==2.4.*: both 2.4 rows */
	CHECK_INT(pins_target_probes(&m, &t[3], "x64", &pr, &e), 0);
	CHECK_INT(pr.n, 2);
	pin_probes_release(&pr);
	/* a locked version that is not PEP 440 */
	CHECK_INT(pins_target_probes(&m, &t[4], "x64", &pr, &e), -1);
	CHECK_STR(e.msg, "uv.lock:3:12: bad version \"2.4.x\" at column 5: unexpected \"x\"");
	pin_probes_release(&pr);
	/* an unknown architecture is an error, not a silent miss */
	CHECK_INT(pins_target_probes(&m, &t[0], "sparc", &pr, &e), -1);
	pin_probes_release(&pr);
	for (i = 0; i < n; i++)
		CHECK(t[i].pin != NULL);
out:
	free(t);
	pinset_release(&ps);
	matrix_release(&m);
}

int main(void)
{
	RUN(test_load_follows_includes_once);
	RUN(test_load_error_names_the_include);
	RUN(test_diff);
	RUN(test_diff_pairing);
	RUN(test_torch_targets);
	RUN(test_target_probes);
	return HARNESS_EXIT();
}
