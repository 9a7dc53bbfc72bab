/*
 * test_version: PEP 440 parsing, ordering and specifiers (the cases follow
 * PEP 440's examples and what `packaging` 24 answers), Windows file versions
 * and torch variants.
 */
#include "harness.h"
#include "util/version.h"

#include <stdlib.h>

/* The canonical form of a parsed version, or the error message. */
static const char *norm(const char *s)
{
	static char out[1200];
	struct pep440 v;
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	err_clear(&e);
	if (pep440_parse(&v, s, &e) < 0) {
		snprintf(out, sizeof(out), "ERR %s", e.msg);
		return out;
	}
	pep440_format(&v, &sb);
	snprintf(out, sizeof(out), "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

static int cmp(const char *a, const char *b)
{
	struct pep440 x, y;
	if (pep440_parse(&x, a, NULL) || pep440_parse(&y, b, NULL))
		return 99;
	return pep440_cmp(&x, &y);
}

/* 1 if version v satisfies spec, 0 if not, -1 if either does not parse. */
static int sat(const char *spec, const char *v)
{
	struct pep440_spec s = PEP440_SPEC_INIT;
	struct pep440 ver;
	int r;
	if (pep440_spec_parse(&s, spec, NULL) < 0)
		return -1;
	if (pep440_parse(&ver, v, NULL) < 0) {
		pep440_spec_release(&s);
		return -1;
	}
	r = pep440_spec_contains(&s, &ver, v);
	pep440_spec_release(&s);
	return r;
}

/* The error message of a bad specifier ("" if it parsed), and its column. */
static const char *spec_err(const char *spec, int *col)
{
	static char out[1200];
	struct pep440_spec s = PEP440_SPEC_INIT;
	struct err e;
	err_clear(&e);
	out[0] = '\0';
	*col = 0;
	if (pep440_spec_parse(&s, spec, &e) < 0) {
		snprintf(out, sizeof(out), "%s", e.msg);
		*col = e.code;
	}
	pep440_spec_release(&s);
	return out;
}

static void test_parse_normalises(void)
{
	CHECK_STR(norm("2.4.0"), "2.4.0");
	CHECK_STR(norm(" v2.4.0 "), "2.4.0");
	CHECK_STR(norm("2.4.0+cu121"), "2.4.0+cu121");
	CHECK_STR(norm("2.4.0+CU121"), "2.4.0+cu121");
	CHECK_STR(norm("2.5.0.dev20240801+cpu"), "2.5.0.dev20240801+cpu");
	CHECK_STR(norm("1.0-alpha1"), "1.0a1");
	CHECK_STR(norm("1.0.beta.2"), "1.0b2");
	CHECK_STR(norm("1.0c1"), "1.0rc1");
	CHECK_STR(norm("1.0preview3"), "1.0rc3");
	CHECK_STR(norm("1.0pre"), "1.0rc0");
	CHECK_STR(norm("1.0a"), "1.0a0");
	CHECK_STR(norm("1.0-1"), "1.0.post1");
	CHECK_STR(norm("1.0-rev2"), "1.0.post2");
	CHECK_STR(norm("1.0r"), "1.0.post0");
	CHECK_STR(norm("1.0.post"), "1.0.post0");
	CHECK_STR(norm("1.0-dev"), "1.0.dev0");
	CHECK_STR(norm("1.0_dev_3"), "1.0.dev3");
	CHECK_STR(norm("1!2.0rc1.post2.dev3+local.7"), "1!2.0rc1.post2.dev3+local.7");
	CHECK_STR(norm("1.0+ubuntu-1_x"), "1.0+ubuntu.1.x");
	CHECK_STR(norm("2.6.0+rocm6.2.4"), "2.6.0+rocm6.2.4");
	CHECK_STR(norm("2024.08.01"), "2024.8.1");
}

static void test_parse_errors_have_columns(void)
{
	CHECK_STR(norm("2.4.x"), "ERR bad version \"2.4.x\" at column 5: unexpected \"x\"");
	CHECK_STR(norm(""), "ERR bad version \"\" at column 1: empty version");
	CHECK_STR(norm("x2"), "ERR bad version \"x2\" at column 1: expected a number");
	CHECK_STR(norm("2.4."), "ERR bad version \"2.4.\" at column 4: unexpected separator at the end");
	CHECK_STR(norm("2.4.*"),
		  "ERR bad version \"2.4.*\" at column 4: a wildcard \".*\" is only allowed with == and !=");
	CHECK_STR(norm("2.4+"), "ERR bad version \"2.4+\" at column 5: expected a letter or digit after \"+\"");
	CHECK_STR(norm("2.4+a..b"),
		  "ERR bad version \"2.4+a..b\" at column 7: unexpected \".\"");
	CHECK_STR(norm("1!"), "ERR bad version \"1!\" at column 3: expected a number after the epoch \"!\"");
	CHECK_STR(norm("99999999999999999999"), "ERR bad version \"99999999999999999999\" at column 1: number too large");
	CHECK_STR(norm("1.0 2"), "ERR bad version \"1.0 2\" at column 5: unexpected \"2\"");
	CHECK_STR(norm("1.0\x01"), "ERR bad version \"1.0\\x01\" at column 4: unexpected byte 0x01");
	CHECK_STR(norm("1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18.19.20.21"),
		  "ERR bad version \"1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.16.17.18.19.20.21\" at column 52: more than 20 release numbers");
	{
		struct pep440 v;
		struct err e;
		CHECK_INT(pep440_parse(&v, "2.4.x", &e), -1);
		CHECK_INT(e.code, 5);
	}
}

static void test_order(void)
{
	/* PEP 440's ordering example, in increasing order. */
	static const char *const seq[] = {
		"1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
		"1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5",
		"1.0+abc.7", "1.0+5", "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1",
	};
	size_t i, j, n = sizeof(seq) / sizeof(seq[0]);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			int want = i < j ? -1 : i > j;
			if (cmp(seq[i], seq[j]) != want) {
				printf("# cmp(%s, %s) = %d, expected %d\n", seq[i], seq[j], cmp(seq[i], seq[j]), want);
				harness_failed_checks++;
			}
		}
	CHECK_INT(cmp("2.4", "2.4.0"), 0);
	CHECK_INT(cmp("2.4.0", "2.4.0+cpu"), -1);
	CHECK_INT(cmp("2.4.0+cu121", "2.4.0+cu118"), 1);
	CHECK_INT(cmp("1!0.1", "2.0"), 1);
	CHECK_INT(cmp("2.10.0", "2.9.1"), 1);
	CHECK_INT(cmp("1.0+1.a", "1.0+1.1"), -1);   /* numbers sort after letters */
	CHECK_INT(cmp("1.0+007", "1.0+7"), 0);      /* by value */
	CHECK_INT(cmp("1.0+1", "1.0+1.0"), -1);     /* shorter first */
}

static void test_specifiers(void)
{
	/* == and local labels */
	CHECK_INT(sat("==2.4.0", "2.4.0"), 1);
	CHECK_INT(sat("==2.4.0", "2.4.0+cu121"), 1); /* no local in the spec: any local matches */
	CHECK_INT(sat("==2.4", "2.4.0"), 1);
	CHECK_INT(sat("==2.4.0+cu121", "2.4.0+cu121"), 1);
	CHECK_INT(sat("==2.4.0+cu121", "2.4.0+cu118"), 0);
	CHECK_INT(sat("==2.4.0+cu121", "2.4.0"), 0);
	CHECK_INT(sat("==2.4.0", "2.4.1"), 0);
	CHECK_INT(sat("!=2.4.0", "2.4.0+cpu"), 0);
	CHECK_INT(sat("!=2.4.0", "2.4.1"), 1);
	/* wildcards */
	CHECK_INT(sat("==2.4.*", "2.4.0"), 1);
	CHECK_INT(sat("==2.4.*", "2.4.1+cu121"), 1);
	CHECK_INT(sat("==2.4.*", "2.4"), 1);
	CHECK_INT(sat("==2.4.*", "2.4.0rc1"), 1);
	CHECK_INT(sat("==2.4.*", "2.5.0"), 0);
	CHECK_INT(sat("==2.4.*", "2.40.0"), 0);
	CHECK_INT(sat("==2.4.0.*", "2.4"), 1);
	CHECK_INT(sat("!=2.4.*", "2.4.1"), 0);
	CHECK_INT(sat("!=2.4.*", "2.3.1"), 1);
	CHECK_INT(sat("==1!2.*", "2.0"), 0);
	/* ranges */
	CHECK_INT(sat(">=2.4.1,<2.7", "2.4.1"), 1);
	CHECK_INT(sat(">=2.4.1,<2.7", "2.6.0+cu124"), 1);
	CHECK_INT(sat(">=2.4.1,<2.7", "2.7.0"), 0);
	CHECK_INT(sat(">=2.4.1,<2.7", "2.4.0"), 0);
	CHECK_INT(sat(">=2.4.1, <2.7", "2.5"), 1);
	CHECK_INT(sat("<2.7", "2.7.0rc1"), 0);   /* not a pre-release of the bound itself */
	CHECK_INT(sat("<2.7", "2.6.9rc1"), 1);
	CHECK_INT(sat("<2.7rc2", "2.7rc1"), 1);
	CHECK_INT(sat("<2.7", "2.7.0.dev20250101"), 0);
	CHECK_INT(sat(">=2.9", "2.9.0.dev20250101"), 0);
	CHECK_INT(sat(">=2.9", "2.10.0.dev20250101+cpu"), 1); /* pre-releases are included */
	CHECK_INT(sat(">2.4", "2.4.post1"), 0);
	CHECK_INT(sat(">2.4", "2.4.0+cpu"), 0);
	CHECK_INT(sat(">2.4", "2.4.1"), 1);
	CHECK_INT(sat(">2.4.post1", "2.4.post2"), 1);
	CHECK_INT(sat("<=2.4", "2.4.0+cu121"), 1);
	CHECK_INT(sat(">=2.4", "2.4.0+cpu"), 1);
	CHECK_INT(sat("<1.5", "1.4.0"), 1);
	CHECK_INT(sat("<1.5", "1.5.0"), 0);
	/* compatible release */
	CHECK_INT(sat("~=2.5.0", "2.5.0"), 1);
	CHECK_INT(sat("~=2.5.0", "2.5.9+cu121"), 1);
	CHECK_INT(sat("~=2.5.0", "2.6.0"), 0);
	CHECK_INT(sat("~=2.5", "2.9.1"), 1);
	CHECK_INT(sat("~=2.5", "3.0"), 0);
	CHECK_INT(sat("~=2.5", "2.4.9"), 0);
	CHECK_INT(sat("~=2.2.post3", "2.2.post4"), 1);
	CHECK_INT(sat("~=2.2.post3", "2.3"), 1);
	CHECK_INT(sat("~=2.2.post3", "2.2.0"), 0);
	CHECK_INT(sat("~=1.4.5a4", "1.4.5"), 1);
	CHECK_INT(sat("~=1.4.5a4", "1.5"), 0);
	/* arbitrary equality */
	CHECK_INT(sat("===2.4.0", "2.4.0"), 1);
	CHECK_INT(sat("===2.4.0", "2.4"), 0);
	CHECK_INT(sat("===2.4.0", "2.4.0+cpu"), 0);
	CHECK_INT(sat("===2.4.0", "v2.4.0"), 1);      /* canonical form */
	CHECK_INT(sat("===V2.4.0", " V2.4.0 "), 1);   /* or the text as found */
	CHECK_INT(sat("===2.4.0RC1", "2.4.0rc1"), 1); /* case-insensitive */
	/* several clauses, empty clauses ignored as `packaging` does */
	CHECK_INT(sat(">=2.0,!=2.4.0,<3", "2.4.0"), 0);
	CHECK_INT(sat(">=2.0,!=2.4.0,<3", "2.4.1"), 1);
	CHECK_INT(sat(">=2.0,,", "2.4.1"), 1);
}

static void test_specifier_errors(void)
{
	int col;
	CHECK_STR(spec_err(">=2.4.x", &col), "bad specifier \">=2.4.x\" at column 7: unexpected \"x\"");
	CHECK_INT(col, 7);
	CHECK_STR(spec_err(">=2.4.1,<2.7x", &col), "bad specifier \">=2.4.1,<2.7x\" at column 13: unexpected \"x\"");
	CHECK_INT(col, 13);
	CHECK_STR(spec_err("2.4.0", &col),
		  "bad specifier \"2.4.0\" at column 1: expected an operator (==, !=, <=, >=, <, >, ~=, ===) before the version");
	CHECK_STR(spec_err("=2.4.0", &col), "bad specifier \"=2.4.0\" at column 1: \"=\" is not an operator; did you mean \"==\"?");
	CHECK_STR(spec_err(">=2.4.*", &col),
		  "bad specifier \">=2.4.*\" at column 6: a wildcard \".*\" is only allowed with == and !=");
	CHECK_STR(spec_err("==2.4a1.*", &col),
		  "bad specifier \"==2.4a1.*\" at column 8: a wildcard \".*\" must follow the release numbers only (==2.4.*)");
	CHECK_STR(spec_err("==2.4.*.1", &col), "bad specifier \"==2.4.*.1\" at column 8: nothing may follow the wildcard \".*\"");
	CHECK_STR(spec_err("~=2", &col),
		  "bad specifier \"~=2\" at column 3: ~= needs at least two release numbers (~=2.5 or ~=2.5.0)");
	CHECK_STR(spec_err(">=2.4+cu121", &col),
		  "bad specifier \">=2.4+cu121\" at column 3: a local label (+cu121) is only allowed with == and !=");
	CHECK_STR(spec_err("~=2.4.0+cpu", &col),
		  "bad specifier \"~=2.4.0+cpu\" at column 3: a local label (+cu121) is only allowed with == and !=");
	CHECK_STR(spec_err(">=", &col), "bad specifier \">=\" at column 3: expected a version after the operator");
	CHECK_STR(spec_err("  ", &col),
		  "bad specifier \"  \" at column 3: empty; write a clause such as \"==2.4.0\" (\">=0\" matches every version)");
	CHECK_STR(spec_err(">=2.4 <2.7", &col), "bad specifier \">=2.4 <2.7\" at column 6: expected \",\" between clauses");
	CHECK_STR(spec_err("=== a b", &col), "bad specifier \"=== a b\" at column 6: === takes one word (no spaces)");
	CHECK_STR(spec_err("== 2.4.0", &col), "");
	CHECK_STR(spec_err(">=2.4.1,<2.7", &col), "");
}

static void test_spec_format(void)
{
	struct pep440_spec s = PEP440_SPEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	CHECK_INT(pep440_spec_parse(&s, " >= v2.4.1 , <2.7, ==2.*, ===x ", NULL), 0);
	CHECK_INT(s.n, 4);
	CHECK_INT(s.v[1].col, 14);
	pep440_spec_format(&s, &sb);
	CHECK_STR(strbuf_str(&sb), ">=2.4.1,<2.7,==2.*,===x");
	strbuf_release(&sb);
	pep440_spec_release(&s);
}

static const char *wv(const char *s)
{
	static char out[1200];
	struct winver v;
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	if (winver_parse(&v, s, &e) < 0) {
		snprintf(out, sizeof(out), "ERR %s", e.msg);
		return out;
	}
	winver_format(&v, 1, &sb);
	snprintf(out, sizeof(out), "%s/%u", strbuf_str(&sb), v.nparts);
	strbuf_release(&sb);
	return out;
}

static void test_winver(void)
{
	struct winver a, b;
	CHECK_STR(wv("14.40.33810.0"), "14.40.33810.0/4");
	CHECK_STR(wv("v14.40.33810.00"), "14.40.33810.0/4");
	CHECK_STR(wv("14.40"), "14.40.0.0/2");
	CHECK_STR(wv("14.29.30139"), "14.29.30139.0/3");
	CHECK_STR(wv("14"), "ERR bad file version \"14\" at column 3: expected at least two parts (\"14.40\")");
	CHECK_STR(wv("14.65536"), "ERR bad file version \"14.65536\" at column 4: each part must be at most 65535");
	CHECK_STR(wv("1.2.3.4.5"), "ERR bad file version \"1.2.3.4.5\" at column 9: more than four parts");
	CHECK_STR(wv("14.40a"), "ERR bad file version \"14.40a\" at column 6: unexpected \"a\"");
	CHECK_STR(wv("14."), "ERR bad file version \"14.\" at column 4: expected a number after \".\"");
	CHECK_STR(wv(""), "ERR bad file version \"\" at column 1: expected a number");

	winver_parse(&a, "14.40.33810.0", NULL);
	winver_parse(&b, "14.40", NULL);
	CHECK(winver_at_least(&a, &b));
	CHECK(winver_cmp(&a, &b) > 0);
	winver_parse(&a, "14.38.33135.0", NULL);
	CHECK(!winver_at_least(&a, &b));
	winver_parse(&a, "14.40.0.0", NULL);
	CHECK(winver_at_least(&a, &b));
	winver_parse(&a, "14.5", NULL);
	CHECK(!winver_at_least(&a, &b)); /* 5 < 40: parts are numbers, not decimals */
	winver_parse(&a, "15.0", NULL);
	CHECK(winver_at_least(&a, &b));
	winver_from_ms_ls(&a, (14u << 16) | 40u, (33810u << 16) | 0u);
	winver_parse(&b, "14.40.33810.0", NULL);
	CHECK_INT(winver_cmp(&a, &b), 0);
}

static const char *var(const char *local)
{
	static char out[1200];
	struct torch_variant v;
	struct err e;
	struct strbuf sb = STRBUF_INIT;
	if (torch_variant_parse(&v, local, &e) < 0) {
		snprintf(out, sizeof(out), "ERR %s", e.msg);
		return out;
	}
	torch_variant_describe(&v, &sb);
	snprintf(out, sizeof(out), "%s/%s", v.name, strbuf_str(&sb));
	strbuf_release(&sb);
	return out;
}

static void test_variants(void)
{
	CHECK_STR(var(""), "/unknown");
	CHECK_STR(var("cpu"), "cpu/CPU");
	CHECK_STR(var("cpu.cxx11.abi"), "cpu/CPU");
	CHECK_STR(var("cu121"), "cu121/CUDA 12.1");
	CHECK_STR(var("cu118"), "cu118/CUDA 11.8");
	CHECK_STR(var("cu92"), "cu92/CUDA 9.2");
	CHECK_STR(var("cu130"), "cu130/CUDA 13.0");
	CHECK_STR(var("rocm6.1"), "rocm6.1/ROCm 6.1");
	CHECK_STR(var("rocm6.2.4"), "rocm6.2.4/ROCm 6.2");
	CHECK_STR(var("xpu"), "xpu/XPU");
	CHECK_STR(var("git1234"), "git1234/git1234");
	CHECK_STR(var("cuda"), "cuda/cuda");
	CHECK_STR(var("cu1"), "ERR bad CUDA variant \"cu1\": expected cu and 2-4 digits (cu121 = CUDA 12.1)");
	CHECK_STR(var("cu"), "ERR bad CUDA variant \"cu\": expected cu and 2-4 digits (cu121 = CUDA 12.1)");
	CHECK_STR(var("rocm"), "ERR bad ROCm variant \"rocm\": expected rocmX.Y (rocm6.1)");
	CHECK_STR(var("rocm6"), "ERR bad ROCm variant \"rocm6\": expected rocmX.Y (rocm6.1)");
}

/* The report's and the inventory's comparisons are winver_cmp's: one order for file versions. */
static void test_file_versions_compare_in_one_place(void)
{
	struct winver a, b;
	CHECK_INT(winver_text_cmp("14.40.33810.0", "14.40.33810.0"), 0);
	CHECK(winver_text_cmp("14.40.33810.0", "14.38.33135.0") > 0);
	CHECK(winver_text_cmp("14.9.1.0", "14.10.0.0") < 0); /* numeric, not textual */
	CHECK_INT(winver_text_cmp("14.40", "14.40.0.0"), 0);  /* missing parts are 0 */
	CHECK(winver_text_cmp(NULL, "0.0.0.1") < 0);
	CHECK_INT(winver_text_cmp("garbage", NULL), 0);
	CHECK_INT(winver_parse(&a, "14.40.33810.0", NULL), 0);
	CHECK_INT(winver_parse(&b, "14.40.33811.0", NULL), 0);
	CHECK_INT(winver_cmp(&a, &b), winver_text_cmp("14.40.33810.0", "14.40.33811.0"));
}

/* The public-version rules the judges share. */
static void test_same_public_and_drop_local(void)
{
	char *s;
	CHECK(pep440_same_public("2.9.1", "2.9.1+cpu"));
	CHECK(pep440_same_public("2.4+cu121", "2.4.0"));
	CHECK(!pep440_same_public("2.9.1", "2.9.0+cpu"));
	CHECK(!pep440_same_public("2.9.1rc1", "2.9.1"));
	CHECK(!pep440_same_public("2.9.x", "2.9.x"));
	CHECK(!pep440_same_public(NULL, "2.9.1"));
	CHECK(!pep440_same_public("2.9.1", NULL));
	s = pep440_drop_local("2.9.1+cu128");
	CHECK_STR(s, "2.9.1");
	free(s);
	s = pep440_drop_local("v2.9"); /* as written, not normalised */
	CHECK_STR(s, "v2.9");
	free(s);
	CHECK(pep440_drop_local(NULL) == NULL);
}

/* The one text of a four-part Windows file version. */
static void test_winver_dotted(void)
{
	char buf[WINVER_DOTTED_MAX];
	const uint16_t v[4] = { 14, 40, 33810, 0 }, max[4] = { 65535, 65535, 65535, 65535 };
	CHECK(winver_dotted(buf, v) == buf);
	CHECK_STR(buf, "14.40.33810.0");
	CHECK_STR(winver_dotted(buf, max), "65535.65535.65535.65535");
	CHECK_INT(strlen(buf) + 1, WINVER_DOTTED_MAX);
}

int main(void)
{
	RUN(test_file_versions_compare_in_one_place);
	RUN(test_same_public_and_drop_local);
	RUN(test_winver_dotted);
	RUN(test_parse_normalises);
	RUN(test_parse_errors_have_columns);
	RUN(test_order);
	RUN(test_specifiers);
	RUN(test_specifier_errors);
	RUN(test_spec_format);
	RUN(test_winver);
	RUN(test_variants);
	return HARNESS_EXIT();
}
