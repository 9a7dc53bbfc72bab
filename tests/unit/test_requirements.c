/*
 * test_requirements: every pin syntax the requirements module reads, with
 * positions, and the exact error text for malformed input.
 */
#include "harness.h"
#include "pins/requirements.h"
#include "pins/req_markers.h"
#include "pins/req_pep508.h"
#include "pins/poetry_spec.h"

#include <stdlib.h>

static struct req_file F;
static struct err E;

static int parse(const char *path, const char *text)
{
	req_file_release(&F);
	err_clear(&E);
	return req_file_parse(&F, path, REQ_NONE, text, strlen(text), &E);
}

/* The n-th pin named `name` (0-based), or NULL. */
static const struct pin *pin(const char *name, int n)
{
	size_t i;
	for (i = 0; i < F.n_pins; i++)
		if (!strcmp(F.pins[i].name, name) && n-- == 0)
			return &F.pins[i];
	return NULL;
}

#define S(x) ((x) ? (x) : "(null)")

static void test_kind_of_path(void)
{
	CHECK_INT(req_kind_of_path("requirements.txt"), REQ_REQUIREMENTS);
	CHECK_INT(req_kind_of_path("ci/requirements-windows.txt"), REQ_REQUIREMENTS);
	CHECK_INT(req_kind_of_path("dev-requirements.in"), REQ_REQUIREMENTS);
	CHECK_INT(req_kind_of_path("requirements/base.txt"), REQ_REQUIREMENTS);
	CHECK_INT(req_kind_of_path("constraints.txt"), REQ_CONSTRAINTS);
	CHECK_INT(req_kind_of_path("pkg/pyproject.toml"), REQ_PYPROJECT);
	CHECK_INT(req_kind_of_path("environment.yml"), REQ_CONDA);
	CHECK_INT(req_kind_of_path("environment-win.yaml"), REQ_CONDA);
	CHECK_INT(req_kind_of_path("setup.cfg"), REQ_SETUP_CFG);
	CHECK_INT(req_kind_of_path("Pipfile"), REQ_PIPFILE);
	CHECK_INT(req_kind_of_path("uv.lock"), REQ_UV_LOCK);
	CHECK_INT(req_kind_of_path("poetry.lock"), REQ_POETRY_LOCK);
	CHECK_INT(req_kind_of_path("pdm.lock"), REQ_PDM_LOCK);
	CHECK_INT(req_kind_of_path("README.txt"), REQ_NONE);
	CHECK_INT(req_kind_of_path("notes/requirements.md"), REQ_NONE);
	CHECK_INT(req_kind_of_path("Pipfile.lock"), REQ_NONE);
}

/*
 * The formats table (requirements.c): every kind has its own name and a
 * parser that reads an empty file of that kind; none has neither (no switch
 * falls through to another format's parser); out of range says "?".
 */
static void test_every_kind_has_a_format(void)
{
	int k, j;
	CHECK_STR(req_kind_name(REQ_NONE), "none");
	CHECK_STR(req_kind_name(REQ_KIND_COUNT), "?");
	for (k = REQ_NONE + 1; k < REQ_KIND_COUNT; k++) {
		struct req_file f;
		struct err e;
		const char *name = req_kind_name((enum req_kind)k);
		CHECK(strcmp(name, "?") && strcmp(name, "none"));
		for (j = REQ_NONE; j < k; j++)
			CHECK(strcmp(name, req_kind_name((enum req_kind)j)));
		memset(&f, 0, sizeof(f));
		err_clear(&e);
		if (req_file_parse(&f, "x", (enum req_kind)k, "", 0, &e))
			printf("# %s: %s\n", name, e.msg);
		CHECK_INT(f.kind, k);
		CHECK(!strstr(e.msg, "not a file torch is pinned in"));
		req_file_release(&f);
	}
	{
		struct req_file f;
		struct err e;
		memset(&f, 0, sizeof(f));
		CHECK_INT(req_file_parse(&f, "notes.md", REQ_NONE, "", 0, &e), -1);
		CHECK_HAS(e.msg, "notes.md: not a file torch is pinned in");
		req_file_release(&f);
		memset(&f, 0, sizeof(f));
		CHECK_INT(req_file_parse(&f, "x", REQ_KIND_COUNT, "", 0, &e), -1);
		CHECK_HAS(e.msg, "x: not a file torch is pinned in");
		req_file_release(&f);
	}
}

static void test_requirements_basic_positions(void)
{
	const struct pin *p;
	CHECK_INT(parse("requirements.txt", "# torch for CI\n"
					      "numpy>=1.26\n"
					      "\n"
					      "  Torch == 2.4.0+cu121   # pinned for CUDA\n"
					      "torch_vision\n"),
		  0);
	CHECK_INT(F.n_pins, 3);
	p = pin("torch", 0);
	CHECK(p != NULL);
	if (!p)
		return;
	CHECK_STR(p->file, "requirements.txt");
	CHECK_INT(p->line, 4);
	CHECK_INT(p->col, 3);
	CHECK_STR(p->spec, "==2.4.0+cu121");
	CHECK_STR(p->pep440, "==2.4.0+cu121");
	CHECK_STR(p->version, "2.4.0+cu121");
	CHECK_STR(p->variant, "cu121");
	CHECK_STR(p->variant_from, "version");
	CHECK_STR(p->raw, "Torch == 2.4.0+cu121");
	CHECK_INT(p->form, PIN_FORM_SPEC);
	CHECK_INT(p->source, PIN_SRC_REQUIREMENTS);
	CHECK(pin_is_torch(p));
	p = pin("torch-vision", 0);
	CHECK(p && p->form == PIN_FORM_NAME && !p->spec && p->line == 5);
	p = pin("numpy", 0);
	CHECK(p && !p->version && p->spec && !strcmp(p->spec, ">=1.26"));
}

static void test_requirements_continuation_and_comments(void)
{
	const struct pin *p;
	CHECK_INT(parse("requirements.txt", "torch==2.5.1 \\\n"
					      "    --hash=sha256:aaaa \\\n"
					      "    --hash=sha256:bbbb\n"
					      "# a comment ending in a backslash \\\n"
					      "numpy\n"
					      "url-lib#not-a-comment\n"),
		  -1);
	/* '#' not after whitespace is not a comment: pip then fails on the name too. */
	CHECK_STR(E.msg, "requirements.txt:6:8: invalid version specifier '#not-a-comment' (expected e.g. ==2.4.0 or >=2.4,<2.6)");
	CHECK_INT(parse("requirements.txt", "torch==2.5.1 \\\n"
					      "    --hash=sha256:aaaa \\\n"
					      "    --hash=sha256:bbbb\n"
					      "# a comment ending in a backslash \\\n"
					      "numpy\n"),
		  0);
	p = pin("torch", 0);
	CHECK(p && p->n_hashes == 2 && p->line == 1 && p->col == 1);
	p = pin("numpy", 0);
	CHECK(p && p->line == 5);
	/* a continuation that puts the name on the second physical line */
	CHECK_INT(parse("requirements.txt", "\\\n  torch>=2.4,\\\n<2.6 ; sys_platform == \"win32\"\n"), 0);
	p = pin("torch", 0);
	CHECK(p && p->line == 2 && p->col == 3);
	if (p) {
		CHECK_STR(p->spec, ">=2.4,<2.6");
		CHECK_STR(p->markers, "sys_platform == \"win32\"");
		CHECK(!p->version);
	}
	/* CRLF and a final line without newline, ending in a backslash */
	CHECK_INT(parse("requirements.txt", "numpy\r\ntorch==2.3.1\\"), 0);
	p = pin("torch", 0);
	CHECK(p && p->line == 2 && !strcmp(S(p->version), "2.3.1"));
}

static void test_requirements_includes_and_indexes(void)
{
	const struct pin *p;
	CHECK_INT(parse("ci/requirements.txt", "-r base.txt\n"
						 "--requirement=../common/reqs.txt\n"
						 "-c constraints.txt -i https://download.pytorch.org/whl/cu118\n"
						 "-r https://example.com/r.txt\n"
						 "--extra-index-url https://pypi.org/simple --pre\n"
						 "torch==2.4.1\n"
						 "torchaudio==2.4.1+cpu\n"),
		  0);
	CHECK_INT(F.n_inc, 4);
	if (F.n_inc == 4) {
		CHECK_STR(F.inc[0].target, "base.txt");
		CHECK_STR(F.inc[0].resolved, "ci/base.txt");
		CHECK_INT(F.inc[0].line, 1);
		CHECK_INT(F.inc[0].col, 4);
		CHECK_STR(F.inc[1].resolved, "common/reqs.txt");
		CHECK_INT(F.inc[1].col, 15);
		CHECK(F.inc[2].constraint);
		CHECK_STR(F.inc[2].resolved, "ci/constraints.txt");
		CHECK(F.inc[3].resolved == NULL);
	}
	CHECK_INT(F.indexes.n, 2);
	p = pin("torch", 0);
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->variant, "cu118");
		CHECK_STR(p->variant_from, "index");
		CHECK_STR(p->index_url, "https://download.pytorch.org/whl/cu118");
	}
	p = pin("torchaudio", 0);
	CHECK(p && !strcmp(S(p->variant), "cpu") && !strcmp(S(p->variant_from), "version"));
	/* find-links pages per variant name it too */
	CHECK_INT(parse("requirements.txt", "-f https://download.pytorch.org/whl/cu118/torch_stable.html\ntorch==2.0.1\n"), 0);
	p = pin("torch", 0);
	CHECK(p && !strcmp(S(p->variant), "cu118") && !strcmp(S(p->variant_from), "index"));
	CHECK_INT(parse("requirements.txt", "--find-links https://download.pytorch.org/whl/torch_stable.html\ntorch==2.0.1\n"), 0);
	p = pin("torch", 0);
	CHECK(p && p->variant == NULL && p->index_url == NULL);
	/* an include that climbs out of the tree is reported but not followable */
	CHECK_INT(parse("requirements.txt", "-r ../outside.txt\n"), 0);
	CHECK(F.n_inc == 1 && F.inc[0].resolved == NULL);
}

static void test_requirements_urls_and_wheels(void)
{
	const struct pin *p;
	CHECK_INT(parse("requirements.txt",
			"https://download.pytorch.org/whl/cu121/torch-2.4.0%2Bcu121-cp311-cp311-win_amd64.whl ; sys_platform == 'win32'\n"
			"./wheels/torchvision-0.19.0-1-cp311-cp311-linux_x86_64.whl\n"
			"mylib @ git+https://github.com/me/mylib.git@v1\n"
			"torchaudio[opt] @ https://download.pytorch.org/whl/cpu/torchaudio-2.4.0%2Bcpu-cp312-cp312-win_amd64.whl\n"
			"git+https://github.com/x/y.git#egg=Some_Pkg\n"),
		  0);
	p = pin("torch", 0);
	CHECK(p != NULL);
	if (p) {
		CHECK_INT(p->form, PIN_FORM_WHEEL);
		CHECK_STR(p->version, "2.4.0+cu121");
		CHECK_STR(p->pep440, "==2.4.0+cu121");
		CHECK_STR(p->variant, "cu121");
		CHECK_STR(p->variant_from, "wheel");
		CHECK_STR(p->python_tag, "cp311");
		CHECK_STR(p->abi_tag, "cp311");
		CHECK_STR(p->platform_tag, "win_amd64");
		CHECK_STR(p->markers, "sys_platform == 'win32'");
		CHECK_INT(p->col, 1);
	}
	p = pin("torchvision", 0);
	CHECK(p && p->form == PIN_FORM_WHEEL && !strcmp(S(p->platform_tag), "linux_x86_64") && !p->variant);
	p = pin("mylib", 0);
	CHECK(p && p->form == PIN_FORM_URL && p->url && !p->version);
	p = pin("torchaudio", 0);
	CHECK(p && !strcmp(S(p->extras), "opt") && !strcmp(S(p->variant), "cpu") && !strcmp(S(p->python_tag), "cp312"));
	p = pin("some-pkg", 0);
	CHECK(p && p->form == PIN_FORM_URL);
}

static void test_requirements_errors(void)
{
	CHECK_INT(parse("requirements.txt", "numpy\ntorch 2.4.0\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:2:7: invalid version specifier '2.4.0' (an operator such as == or >= must come first)");
	CHECK_INT(parse("requirements.txt", "torch==2.4 ; sys_platform = 'win32'\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:14: invalid environment marker 'sys_platform = 'win32''");
	CHECK_INT(parse("requirements.txt", "torch==2.4 ;\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:13: empty environment marker after ';'");
	CHECK_INT(parse("requirements.txt", "torch[cuda\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:6: unterminated extras (missing ']')");
	CHECK_INT(parse("requirements.txt", "--frobnicate x\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:1: unknown option '--frobnicate' in a requirements file");
	CHECK_INT(parse("requirements.txt", "torch==2.4 --hash=sha256\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:19: --hash needs the form ALGORITHM:HEXDIGEST");
	CHECK_INT(parse("requirements.txt", "torch==2.4 --no-deps\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:12: unknown per-requirement option '--no-deps' (pip allows --hash, --config-settings, --global-option)");
	CHECK_INT(parse("requirements.txt", "-r\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:1: option -r needs a file name");
	CHECK_INT(parse("requirements.txt", "https://x/torch-2.4.0-cp311.whl\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:1: 'torch-2.4.0-cp311.whl' is not a wheel file name (NAME-VERSION-PYTHON-ABI-PLATFORM.whl)");
	CHECK_INT(parse("requirements.txt", "torch\n-\xff\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:2:1: unknown option '-\\xff' in a requirements file");
	/* quoted text is escaped by the one escaper (text.h): controls visibly, UTF-8 kept */
	CHECK_INT(parse("requirements.txt", "-\x1b[2J\xc3\xa9\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:1: unknown option '-\\x1b[2J\xc3\xa9' in a requirements file");
	CHECK_INT(parse("requirements.txt", "torch\n\0"), 0); /* strlen stops at the NUL */
	req_file_release(&F);
	CHECK_INT(req_file_parse(&F, "requirements.txt", REQ_NONE, "torch\nx\0y", 9, &E), -1);
	CHECK_STR(E.msg, "requirements.txt:2:2: NUL byte: not a text file");
	CHECK_INT(parse("requirements.txt", "-torch\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:1: unknown option '-torch' in a requirements file");
	CHECK_INT(parse("requirements.txt", "torch@\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:7: expected a URL after '@'");
}

/* Specifiers that look right but are not PEP 440 (checked by the version module). */
static void test_pep440_validation(void)
{
	CHECK_INT(parse("requirements.txt", "numpy\ntorch == 2.4.x\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:2:14: invalid version specifier '==2.4.x': unexpected \"x\"");
	CHECK_INT(parse("requirements.txt", "torch ~= 2 ; os_name == 'nt'\n"), -1);
	CHECK_STR(E.msg, "requirements.txt:1:10: invalid version specifier '~=2': ~= needs at least two release numbers (~=2.5 or ~=2.5.0)");
	CHECK_INT(parse("Pipfile", "[packages]\ntorch = \"==2.4.*+cpu\"\n"), -1);
	CHECK_STR(E.msg, "Pipfile:2:10: invalid version constraint '==2.4.*+cpu' for \"torch\": nothing may follow the wildcard \".*\"");
	/* conda and lock versions that are not PEP 440: kept, but with no PEP 440 equivalent */
	CHECK_INT(parse("uv.lock", "[[package]]\nname = \"torch\"\nversion = \"2.4.0.x\"\n"), 0);
	CHECK(pin("torch", 0) && pin("torch", 0)->pep440 == NULL && !strcmp(S(pin("torch", 0)->version), "2.4.0.x"));
	CHECK_INT(parse("environment.yml", "dependencies: [pytorch=2.4.0a_b]\n"), 0);
	CHECK(pin("pytorch", 0) && pin("pytorch", 0)->pep440 == NULL);
}

static void test_markers_on_windows(void)
{
	CHECK_INT(req_markers_on_windows(NULL), 1);
	CHECK_INT(req_markers_on_windows("sys_platform == \"win32\""), 1);
	CHECK_INT(req_markers_on_windows("sys_platform != 'win32'"), 0);
	CHECK_INT(req_markers_on_windows("platform_system == 'Linux'"), 0);
	CHECK_INT(req_markers_on_windows("'win' in sys_platform"), 1);
	CHECK_INT(req_markers_on_windows("python_version >= '3.9'"), -1);
	CHECK_INT(req_markers_on_windows("python_version >= '3.9' and os_name == 'posix'"), 0);
	CHECK_INT(req_markers_on_windows("python_version >= '3.9' or os_name == 'nt'"), 1);
	CHECK_INT(req_markers_on_windows("(platform_machine == 'AMD64' or platform_machine == 'x86_64') and sys_platform == 'win32'"), 1);
	CHECK_INT(req_markers_on_windows("platform_system not in 'Linux Darwin'"), 1);
	CHECK_INT(req_markers_on_windows("extra == 'cuda'"), -1);
	CHECK_INT(req_markers_on_windows("sys_platform =="), -2);
	CHECK_INT(req_markers_on_windows("bogus_var == 'x'"), -2);
	CHECK_INT(req_markers_on_windows("(sys_platform == 'win32'"), -2);
	CHECK_INT(req_markers_on_windows("sys_platform == 'win32' garbage"), -2);
}

static void test_wheel_and_variants(void)
{
	struct wheel_name w;
	char *v;
	CHECK_INT(wheel_name_parse(&w, "torch-2.4.0+cpu-cp39-cp39-win_amd64.whl", &E), 0);
	CHECK_STR(w.name, "torch");
	CHECK_STR(w.version, "2.4.0+cpu");
	CHECK(w.build == NULL);
	CHECK_STR(w.platform_tag, "win_amd64");
	wheel_name_release(&w);
	CHECK_INT(wheel_name_parse(&w, "C:\\wheels\\torch-2.4.0-2-cp39-none-any.whl?x=1#frag", &E), 0);
	CHECK_STR(w.build, "2");
	CHECK_STR(w.abi_tag, "none");
	wheel_name_release(&w);
	CHECK_INT(wheel_name_parse(&w, "torch--cp39-cp39-any.whl", &E), -1);
	CHECK_INT(wheel_name_parse(&w, "torch-1-2-3-4-5-6.whl", &E), -1);
	CHECK_STR(E.msg, "'torch-1-2-3-4-5-6.whl' is not a wheel file name (NAME-VERSION-PYTHON-ABI-PLATFORM.whl)");
	v = req_variant_of_url("https://download.pytorch.org/whl/nightly/cu124");
	CHECK_STR(v, "cu124");
	free(v);
	v = req_variant_of_url("https://download.pytorch.org/whl/rocm6.1/");
	CHECK_STR(v, "rocm6.1");
	free(v);
	v = req_variant_of_url("https://download.pytorch.org/whl/torch_stable.html");
	CHECK(v == NULL);
	free(v);
	v = req_variant_of_url("https://cu121.example.com/simple");
	CHECK(v == NULL);
	free(v);
	v = req_variant_of_version("2.1.0+cpu.cxx11.abi");
	CHECK_STR(v, "cpu");
	free(v);
	v = req_variant_of_version("2.4.0+git1234");
	CHECK(v == NULL);
	free(v);
}

static void test_poetry_to_pep440(void)
{
	static const char *const cases[][2] = {
		{ "^2.4", ">=2.4,<3.0" },       { "^2.4.1", ">=2.4.1,<3.0.0" },
		{ "^0.2.3", ">=0.2.3,<0.3.0" }, { "^0.0.3", ">=0.0.3,<0.0.4" },
		{ "~2.4", ">=2.4,<2.5" },       { "~2.4.1", ">=2.4.1,<2.5.0" },
		{ "~2", ">=2,<3.0" },           { "2.4.0", "==2.4.0" },
		{ ">=2.4, <2.6", ">=2.4,<2.6" }, { ">= 2.4 < 2.6", ">=2.4,<2.6" },
		{ "~=2.4.0", "~=2.4.0" },        { "2.4.*", "==2.4.*" },
	};
	size_t i;
	char *s;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = req_poetry_to_pep440(cases[i][0]);
		CHECK_STR(s, cases[i][1]);
		free(s);
	}
	CHECK(req_poetry_to_pep440("*") == NULL);
	CHECK(req_poetry_to_pep440("^2.4 || ^3.0") == NULL);
	CHECK(req_poetry_to_pep440("^2.4rc1") == NULL);
}

static const char pyproject[] =
	"[build-system]\n"
	"requires = [\"setuptools>=61\", \"torch>=2.0\"]\n"
	"\n"
	"[project]\n"
	"name = \"demo\"\n"
	"dependencies = [\n"
	"  \"numpy\",\n"
	"  'torch==2.4.0; sys_platform == \"win32\"',  # literal string\n"
	"]\n"
	"[project.optional-dependencies]\n"
	"cuda = [\"torch[opt]==2.4.0+cu121\"]\n"
	"[dependency-groups]\n"
	"dev = [\"pytest\", {include-group = \"lint\"}]\n"
	"lint = [\"ruff\"]\n"
	"[tool.uv]\n"
	"constraint-dependencies = [\"torch<2.6\"]\n"
	"[[tool.uv.index]]\n"
	"name = \"pytorch-cu124\"\n"
	"url = \"https://download.pytorch.org/whl/cu124\"\n"
	"explicit = true\n"
	"[tool.uv.sources]\n"
	"torch = [{ index = \"pytorch-cu124\", marker = \"sys_platform == 'win32'\" }]\n";

static void test_pyproject_pep621_and_uv(void)
{
	const struct pin *p;
	CHECK_INT(parse("pyproject.toml", pyproject), 0);
	if (E.msg[0])
		printf("# %s\n", E.msg);
	p = pin("torch", 2);
	CHECK(p && p->source == PIN_SRC_BUILD && p->line == 2 && p->col == 32);
	p = pin("torch", 0);
	CHECK(p != NULL);
	if (p) {
		CHECK_INT(p->source, PIN_SRC_PROJECT);
		CHECK_INT(p->line, 8);
		CHECK_INT(p->col, 4);
		CHECK_STR(p->markers, "sys_platform == \"win32\"");
		CHECK_STR(p->version, "2.4.0");
		CHECK_STR(p->variant, "cu124");
		CHECK_STR(p->variant_from, "index");
	}
	p = pin("torch", 1);
	CHECK(p && p->source == PIN_SRC_OPTIONAL && !strcmp(S(p->group), "cuda") &&
	      !strcmp(S(p->variant), "cu121") && !strcmp(S(p->extras), "opt"));
	p = pin("torch", 3);
	CHECK(p && p->source == PIN_SRC_UV && !strcmp(S(p->spec), "<2.6"));
	CHECK(pin("pytest", 0) && pin("ruff", 0));
	CHECK_INT(F.indexes.n, 1);
}

static void test_pyproject_dynamic_files(void)
{
	CHECK_INT(parse("src/pyproject.toml", "[project]\nname = \"x\"\ndynamic = [\"dependencies\"]\n"
					       "[tool.setuptools.dynamic]\n"
					       "dependencies = { file = [\"requirements.txt\", \"../ci/torch.txt\"] }\n"
					       "optional-dependencies.gpu = { file = \"gpu.txt\" }\n"),
		  0);
	CHECK_INT(F.n_inc, 3);
	CHECK(F.n_inc == 3 && F.inc[0].line == 5 && F.inc[0].col == 27 && !strcmp(S(F.inc[0].resolved), "src/requirements.txt"));
	CHECK(F.n_inc == 3 && !strcmp(S(F.inc[1].resolved), "ci/torch.txt") && !strcmp(S(F.inc[2].resolved), "src/gpu.txt"));
}

static void test_pyproject_poetry(void)
{
	const struct pin *p;
	CHECK_INT(parse("pyproject.toml", "[tool.poetry.dependencies]\n"
					    "python = \"^3.10\"\n"
					    "torch = { version = \"^2.4\", source = \"pytorch\", platform = \"win32\" }\n"
					    "numpy = \"1.26.4\"\n"
					    "[tool.poetry.group.gpu.dependencies]\n"
					    "torch = [\n"
					    "  { version = \"2.4.0+cu121\", markers = \"sys_platform == 'win32'\" },\n"
					    "  { version = \"2.4.0\", markers = \"sys_platform == 'linux'\" },\n"
					    "]\n"
					    "[[tool.poetry.source]]\n"
					    "name = \"pytorch\"\n"
					    "url = \"https://download.pytorch.org/whl/cpu\"\n"
					    "priority = \"explicit\"\n"),
		  0);
	if (E.msg[0])
		printf("# %s\n", E.msg);
	CHECK(pin("python", 0) == NULL);
	p = pin("torch", 0);
	CHECK(p != NULL);
	if (p) {
		CHECK_INT(p->source, PIN_SRC_POETRY);
		CHECK_INT(p->line, 3);
		CHECK_INT(p->col, 22);
		CHECK_STR(p->spec, "^2.4");
		CHECK_STR(p->pep440, ">=2.4,<3.0");
		CHECK_STR(p->markers, "sys_platform == \"win32\"");
		CHECK_STR(p->variant, "cpu");
		CHECK_STR(p->index_url, "https://download.pytorch.org/whl/cpu");
	}
	p = pin("numpy", 0);
	CHECK(p && !strcmp(S(p->pep440), "==1.26.4") && !strcmp(S(p->version), "1.26.4"));
	p = pin("torch", 1);
	CHECK(p && p->line == 7 && !strcmp(S(p->group), "gpu") && !strcmp(S(p->variant), "cu121"));
	p = pin("torch", 2);
	CHECK(p && req_markers_on_windows(p->markers) == 0);
}

static void test_toml_errors(void)
{
	CHECK_INT(parse("pyproject.toml", "[project]\ndependencies = \"torch\"\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:2:17: [project] dependencies must be an array, not a string");
	CHECK_INT(parse("pyproject.toml", "[project]\ndependencies = [1]\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:2:17: [project] dependencies must hold requirement strings, not a number, boolean or date");
	CHECK_INT(parse("pyproject.toml", "[project]\ndependencies = [\"torch>>2\"]\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:2:23: invalid version specifier '>>2' (expected e.g. ==2.4.0 or >=2.4,<2.6)");
	CHECK_INT(parse("pyproject.toml", "[project]\nname = \"a\"\n[project]\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:3:1: table [project] is defined twice");
	CHECK_INT(parse("pyproject.toml", "a = 1\na = 2\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:2:1: duplicate key \"a\"");
	CHECK_INT(parse("pyproject.toml", "a = \"x\nb = 1\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:1:5: unterminated string (newline before the closing quote)");
	CHECK_INT(parse("pyproject.toml", "a = [1, 2\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:1:5: unterminated array (missing ']')");
	CHECK_INT(parse("pyproject.toml", "a = 1 b = 2\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:1:7: expected the end of the line after a value, found 'b'");
	CHECK_INT(parse("pyproject.toml", "d = 1979-05-27 07:32:00\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:1:5: date-times with a space are not supported (use 'T')");
	CHECK_INT(parse("pyproject.toml", "a = \"\\q\"\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:1:6: unknown escape sequence in a string");
	CHECK_INT(parse("pyproject.toml", "a.b = 1\n[a]\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:2:1: table [a] is defined twice");
	CHECK_INT(parse("pyproject.toml", "a = {x = 1}\n[a.y]\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:2:1: key \"a\" is already defined as a table");
	CHECK_INT(parse("pyproject.toml", "x = wat\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:1:5: expected a value (string, number, boolean, array or table)");
	CHECK_INT(parse("pyproject.toml", "[tool.poetry.dependencies]\ntorch = 2\n"), -1);
	CHECK_STR(E.msg, "pyproject.toml:2:9: dependency \"torch\" must be a version string or a table, not a number, boolean or date");
}

static void test_conda_environment(void)
{
	const struct pin *p;
	CHECK_INT(parse("environment.yml", "name: ml\n"
					     "channels:\n"
					     "  - pytorch\n"
					     "  - nvidia\n"
					     "dependencies:\n"
					     "  - python=3.11\n"
					     "  - pytorch::pytorch=2.4.0=py3.11_cuda12.1_cudnn9_0\n"
					     "  - pytorch-cuda=12.1\n"
					     "  - 'torchvision 0.19.*'\n"
					     "  - numpy>=1.26,<2\n"
					     "  - pip\n"
					     "  - pip:\n"
					     "      - --extra-index-url https://download.pytorch.org/whl/cu121\n"
					     "      - torchaudio==2.4.0\n"
					     "      - -r requirements-extra.txt\n"),
		  0);
	if (E.msg[0])
		printf("# %s\n", E.msg);
	p = pin("pytorch", 0);
	CHECK(p != NULL);
	if (p) {
		CHECK(pin_is_torch(p));
		CHECK_INT(p->line, 7);
		CHECK_INT(p->col, 5);
		CHECK_STR(p->channel, "pytorch");
		CHECK_STR(p->spec, "=2.4.0=py3.11_cuda12.1_cudnn9_0");
		CHECK_STR(p->pep440, "==2.4.0.*");
		CHECK_STR(p->variant, "cu121");
		CHECK_STR(p->variant_from, "conda");
		CHECK_INT(p->source, PIN_SRC_CONDA);
	}
	p = pin("torchvision", 0);
	CHECK(p && p->col == 6 && !strcmp(S(p->pep440), "==0.19.*"));
	p = pin("numpy", 0);
	CHECK(p && !strcmp(S(p->pep440), ">=1.26,<2"));
	p = pin("torchaudio", 0);
	CHECK(p && p->source == PIN_SRC_CONDA_PIP && p->line == 14 && p->col == 9 &&
	      !strcmp(S(p->variant), "cu121") && !strcmp(S(p->variant_from), "index"));
	CHECK_INT(F.n_inc, 1);
	CHECK(F.n_inc == 1 && F.inc[0].line == 15 && !strcmp(S(F.inc[0].resolved), "requirements-extra.txt"));
	CHECK_INT(F.indexes.n, 3);
	/* cpuonly selects the CPU build */
	CHECK_INT(parse("environment.yml", "dependencies: [pytorch==2.3.1, cpuonly]\n"), 0);
	p = pin("pytorch", 0);
	CHECK(p && !strcmp(S(p->variant), "cpu") && !strcmp(S(p->version), "2.3.1"));
}

static void test_conda_errors(void)
{
	CHECK_INT(parse("environment.yml", "dependencies:\n  - &a pytorch\n  - *a\n"), -1);
	CHECK_STR(E.msg, "environment.yml:3:5: aliases (*a) are not allowed in a pin file; write the value out");
	CHECK_INT(parse("environment.yml", "dependencies:\n  - \"pytorch\\0=2.4\"\n"), -1);
	CHECK_STR(E.msg, "environment.yml:2:5: NUL characters (\\0) are not allowed in a pin file");
	CHECK_INT(parse("environment.yml", "dependencies:\n  - pytorch\xff\n"), -1);
	CHECK_HAS(E.msg, "environment.yml:2:12: ");
	CHECK_INT(parse("environment.yml", "dependencies: pytorch\n"), -1);
	CHECK_STR(E.msg, "environment.yml:1:15: dependencies must be a list");
	CHECK_INT(parse("environment.yml", "dependencies:\n  - conda: [x]\n"), -1);
	CHECK_STR(E.msg, "environment.yml:2:5: a dependencies entry must be a package spec or '- pip: [...]'");
	CHECK_INT(parse("environment.yml", "dependencies:\n  - pytorch[version='>=2']\n"), -1);
	CHECK_STR(E.msg, "environment.yml:2:5: conda bracket specs are not supported: 'pytorch[version='>=2']'");
	CHECK_INT(parse("environment.yml", "dependencies:\n  - pip:\n    - torch===\n"), -1);
	CHECK_STR(E.msg, "environment.yml:3:12: invalid version specifier '===' (expected e.g. ==2.4.0 or >=2.4,<2.6)");
	CHECK_INT(parse("environment.yml", "dependencies: [a\n"), -1);
	CHECK_STR(E.msg, "environment.yml:2:1: invalid YAML: did not find expected ',' or ']' (while parsing a flow "
			 "sequence at line 1)");
	CHECK_INT(parse("environment.yml", "- just a list\n"), -1);
	CHECK_STR(E.msg, "environment.yml:1:1: an environment file must be a mapping (name, channels, dependencies)");
	CHECK_INT(parse("environment.yml", ""), 0);
	CHECK_INT(F.n_pins, 0);
}

static void test_setup_cfg(void)
{
	const struct pin *p;
	CHECK_INT(parse("setup.cfg", "[metadata]\n"
				       "name = demo\n"
				       "[options]\n"
				       "python_requires = >=3.9\n"
				       "install_requires =\n"
				       "    numpy\n"
				       "    # a comment\n"
				       "    torch>=2.4,<2.6; sys_platform == \"win32\"\n"
				       "\n"
				       "[options.extras_require]\n"
				       "gpu = torch==2.4.0+cu121; triton\n"),
		  0);
	if (E.msg[0])
		printf("# %s\n", E.msg);
	p = pin("torch", 0);
	CHECK(p && p->line == 8 && p->col == 5 && !strcmp(S(p->markers), "sys_platform == \"win32\"") &&
	      p->source == PIN_SRC_SETUP_CFG);
	p = pin("torch", 1);
	CHECK(p && p->line == 11 && p->col == 7 && !strcmp(S(p->group), "gpu") && !strcmp(S(p->variant), "cu121"));
	p = pin("triton", 0);
	CHECK(p && p->line == 11 && p->col == 27);
	CHECK(pin("python-requires", 0) == NULL);
	/* install_requires = file: ... reads requirements files: includes */
	CHECK_INT(parse("pkg/setup.cfg", "[options]\ninstall_requires = file: requirements.txt, ../base.txt\n"), 0);
	CHECK_INT(F.n_inc, 2);
	CHECK(F.n_inc == 2 && F.inc[0].line == 2 && F.inc[0].col == 26 && !strcmp(S(F.inc[0].resolved), "pkg/requirements.txt"));
	CHECK(F.n_inc == 2 && F.inc[1].col == 44 && !strcmp(S(F.inc[1].resolved), "base.txt"));
	CHECK_INT(F.n_pins, 0);
	CHECK_INT(parse("setup.cfg", "[options]\ninstall_requires = torch=2\n"), -1);
	CHECK_STR(E.msg, "setup.cfg:2:25: invalid version specifier '=2' (expected e.g. ==2.4.0 or >=2.4,<2.6)");
}

static void test_pipfile(void)
{
	const struct pin *p;
	CHECK_INT(parse("Pipfile", "[[source]]\n"
				     "name = \"pypi\"\n"
				     "url = \"https://pypi.org/simple\"\n"
				     "[[source]]\n"
				     "name = \"pytorch\"\n"
				     "url = \"https://download.pytorch.org/whl/cu118\"\n"
				     "[packages]\n"
				     "torch = {version = \"==2.2.2\", index = \"pytorch\"}\n"
				     "numpy = \"*\"\n"
				     "[dev-packages]\n"
				     "pytest = \">=8\"\n"
				     "[requires]\n"
				     "python_version = \"3.11\"\n"),
		  0);
	p = pin("torch", 0);
	CHECK(p && p->line == 8 && p->col == 21 && !strcmp(S(p->version), "2.2.2") &&
	      !strcmp(S(p->variant), "cu118") && !strcmp(S(p->group), "packages"));
	p = pin("numpy", 0);
	CHECK(p && p->form == PIN_FORM_NAME);
	CHECK(pin("python-version", 0) == NULL);
	CHECK(pin("pytest", 0) != NULL);
}

static void test_lock_files(void)
{
	const struct pin *p;
	CHECK_INT(parse("uv.lock", "version = 1\n"
				     "[[package]]\n"
				     "name = \"torch\"\n"
				     "version = \"2.4.0\"\n"
				     "source = { registry = \"https://pypi.org/simple\" }\n"
				     "resolution-markers = [\"sys_platform != 'win32'\"]\n"
				     "[[package]]\n"
				     "name = \"torch\"\n"
				     "version = \"2.4.0+cu121\"\n"
				     "source = { registry = \"https://download.pytorch.org/whl/cu121\" }\n"
				     "resolution-markers = [\"sys_platform == 'win32'\"]\n"
				     "wheels = [{ url = \"https://download.pytorch.org/whl/cu121/torch-2.4.0%2Bcu121-cp311-cp311-win_amd64.whl\" }]\n"),
		  0);
	CHECK_INT(F.n_pins, 2);
	p = pin("torch", 0);
	CHECK(p && p->line == 4 && p->col == 12 && p->form == PIN_FORM_LOCKED && !p->variant &&
	      req_markers_on_windows(p->markers) == 0);
	p = pin("torch", 1);
	CHECK(p && p->line == 9 && !strcmp(S(p->variant), "cu121") && !strcmp(S(p->pep440), "==2.4.0+cu121") &&
	      req_markers_on_windows(p->markers) == 1);
	CHECK_INT(parse("poetry.lock", "[[package]]\nname = \"Torch\"\nversion = \"2.3.1\"\n"
					 "[package.source]\ntype = \"legacy\"\nurl = \"https://download.pytorch.org/whl/cpu\"\n"
					 "reference = \"pytorch\"\n[metadata]\nlock-version = \"2.0\"\n"),
		  0);
	p = pin("torch", 0);
	CHECK(p && !strcmp(S(p->variant), "cpu") && !strcmp(S(p->version), "2.3.1") && p->line == 3);
	CHECK_INT(parse("pdm.lock", "[[package]]\nname = \"torch\"\nversion = \"2.5.1\"\n"), 0);
	CHECK(pin("torch", 0) && !strcmp(S(pin("torch", 0)->version), "2.5.1"));
	CHECK_INT(parse("pdm.lock", "package = 3\n"), -1);
	CHECK_STR(E.msg, "pdm.lock:1:11: package must be an array, not a number, boolean or date");
	CHECK_INT(parse("uv.lock", "[[package]]\nversion = \"1\"\n"), -1);
	CHECK_STR(E.msg, "uv.lock:1:1: [[package]] entry without a name string");
}

static void test_size_cap(void)
{
	size_t n = (size_t)REQ_MAX_FILE_SIZE + 1;
	char *big = malloc(n);
	memset(big, '\n', n);
	req_file_release(&F);
	CHECK_INT(req_file_parse(&F, "requirements.txt", REQ_NONE, big, n, &E), -1);
	CHECK_STR(E.msg, "requirements.txt: larger than 16777216 bytes; refusing to parse it");
	free(big);
}

int main(void)
{
	RUN(test_kind_of_path);
	RUN(test_every_kind_has_a_format);
	RUN(test_requirements_basic_positions);
	RUN(test_requirements_continuation_and_comments);
	RUN(test_requirements_includes_and_indexes);
	RUN(test_requirements_urls_and_wheels);
	RUN(test_requirements_errors);
	RUN(test_pep440_validation);
	RUN(test_markers_on_windows);
	RUN(test_wheel_and_variants);
	RUN(test_poetry_to_pep440);
	RUN(test_pyproject_pep621_and_uv);
	RUN(test_pyproject_dynamic_files);
	RUN(test_pyproject_poetry);
	RUN(test_toml_errors);
	RUN(test_conda_environment);
	RUN(test_conda_errors);
	RUN(test_setup_cfg);
	RUN(test_pipfile);
	RUN(test_lock_files);
	RUN(test_size_cap);
	req_file_release(&F);
	return HARNESS_EXIT();
}
