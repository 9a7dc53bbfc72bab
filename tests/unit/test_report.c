/*
 * test_report: the renderers on report documents built here (report v1,
 * docs/report-json.md): escaping per output syntax, ranking, the annotation
 * limits and the overflow notice, the summary size cap, the GITHUB_OUTPUT
 * delimiter refusal, SARIF anchoring.
 */
#include "harness.h"
#include "judge/finding.h"
#include "report/report.h"

#include <stdlib.h>

static size_t count_lines_starting(const char *s, const char *prefix)
{
	size_t n = 0, pl = strlen(prefix);
	while (s && *s) {
		if (!strncmp(s, prefix, pl))
			n++;
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return n;
}

static cJSON *parse(const char *json)
{
	cJSON *d = cJSON_Parse(json);
	if (!d)
		printf("# bad test JSON near: %.40s\n", cJSON_GetErrorPtr());
	return d;
}

static void test_escape_gh_data_and_property_exactly_as_toolkit(void)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	report_esc_gh_data(&a, "100% a\r\nb:c,d");
	CHECK_STR(a.buf, "100%25 a%0D%0Ab:c,d");
	report_esc_gh_prop(&b, "100% a\r\nb:c,d");
	CHECK_STR(b.buf, "100%25 a%0D%0Ab%3Ac%2Cd");
	strbuf_reset(&a);
	report_esc_gh_data(&a, "%0A"); /* already-escaped input is escaped again, not passed through */
	CHECK_STR(a.buf, "%250A");
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_escape_markdown_html_uri(void)
{
	struct strbuf a = STRBUF_INIT;
	report_esc_md(&a, "a|b<c>`d\\e\nf");
	CHECK_STR(a.buf, "a\\|b\\<c\\>\\`d\\\\e f");
	strbuf_reset(&a);
	report_esc_html(&a, "<script>&\"'</pre>");
	CHECK_STR(a.buf, "&lt;script&gt;&amp;&quot;&#39;&lt;/pre&gt;");
	strbuf_reset(&a);
	report_esc_uri(&a, "ci\\my reqs/requirements+cpu.txt");
	CHECK_STR(a.buf, "ci/my%20reqs/requirements%2Bcpu.txt");
	strbuf_release(&a);
}

static void test_anchor_in_repo(void)
{
	CHECK(report_anchor_in_repo("requirements.txt"));
	CHECK(report_anchor_in_repo(".github/workflows/ci.yml"));
	CHECK(report_anchor_in_repo("matrix\\org.yml"));
	CHECK(!report_anchor_in_repo("<embedded>/matrix/torch.yml"));
	CHECK(!report_anchor_in_repo("C:\\repo\\requirements.txt"));
	CHECK(!report_anchor_in_repo("/home/runner/work/x/requirements.txt"));
	CHECK(!report_anchor_in_repo("../outside.txt"));
	CHECK(!report_anchor_in_repo("a/../../b"));
	CHECK(!report_anchor_in_repo("a\nb"));
	CHECK(!report_anchor_in_repo(""));
	CHECK(!report_anchor_in_repo(NULL));
}

static void test_view_refuses_bad_documents(void)
{
	static const char *const bad[] = {
		"[]",
		"{\"findings\":[]}",
		"{\"schema\":\"torch-dll-check/report/v2\",\"findings\":[]}",
		"{\"schema\":\"torch-dll-check/report/v1\"}",
		"{\"schema\":\"torch-dll-check/report/v1\",\"findings\":{}}",
		"{\"schema\":\"torch-dll-check/report/v1\",\"findings\":[{\"rule\":\"x\",\"severity\":\"fatal\"}]}",
		"{\"schema\":\"torch-dll-check/report/v1\",\"findings\":[{\"severity\":\"error\"}]}",
		"{\"schema\":\"torch-dll-check/report/v1\",\"findings\":[7]}",
		"{\"schema\":\"torch-dll-check/report/v1\",\"findings\":[],\"installs\":3}",
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct report_view v;
		struct err e;
		cJSON *d = parse(bad[i]);
		err_clear(&e);
		CHECK(d != NULL);
		CHECK_INT(report_view_init(&v, d, &e), -1);
		CHECK(e.msg[0] != '\0');
		cJSON_Delete(d);
	}
}

#define HEAD "{\"schema\":\"torch-dll-check/report/v1\","
#define INST                                                                                           \
	"\"installs\":[{\"torch_dir\":\"C:\\\\t\",\"binaries\":["                                      \
	"{\"path\":\"C:\\\\t\\\\lib\\\\a.dll\",\"order\":2,\"winerror\":126},"                         \
	"{\"path\":\"C:\\\\t\\\\lib\\\\b.dll\",\"order\":5,\"winerror\":127},"                         \
	"{\"path\":\"C:\\\\t\\\\lib\\\\ok.dll\",\"order\":1,\"winerror\":0}]}],"

static void test_ranking(void)
{
	cJSON *d = parse(HEAD INST "\"findings\":["
				   "{\"rule\":\"known-issue\",\"severity\":\"note\",\"title\":\"N\"},"
				   "{\"rule\":\"shadowed-dll\",\"severity\":\"warning\",\"title\":\"W\"},"
				   "{\"rule\":\"torch-uncovered\",\"severity\":\"error\",\"title\":\"E-uncovered\"},"
				   "{\"rule\":\"missing-entry-point\",\"severity\":\"error\",\"title\":\"E-b\","
				   "\"binary\":\"C:\\\\T\\\\LIB\\\\B.DLL\"},"
				   "{\"rule\":\"redist-missing\",\"severity\":\"error\",\"title\":\"E-redist\"},"
				   "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"title\":\"E-a\","
				   "\"binary\":\"C:\\\\t\\\\lib\\\\a.dll\"},"
				   "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"title\":\"E-ok\","
				   "\"binary\":\"C:\\\\t\\\\lib\\\\ok.dll\"}]}");
	struct report_view v;
	struct err e;
	static const char *const want[] = { "E-a", "E-b", "E-ok", "E-redist", "E-uncovered", "W", "N" };
	size_t i;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	CHECK_INT(v.n, 7);
	for (i = 0; i < v.n && i < 7; i++)
		CHECK_STR(report_str(v.items[i].f, "title"), want[i]);
	CHECK_STR(report_status(&v), "fail");
	CHECK_INT(report_exit_status(&v, FAIL_ON_ERROR), 1);
	CHECK_INT(report_exit_status(&v, FAIL_ON_NEVER), 0);
	report_view_release(&v);
	cJSON_Delete(d);
}

/* A document with `ne` errors, `nw` warnings and `nn` notes. */
static cJSON *doc_with(int ne, int nw, int nn)
{
	cJSON *d = parse(HEAD "\"findings\":[]}");
	cJSON *fs = cJSON_GetObjectItem(d, "findings");
	int i;
	for (i = 0; i < ne + nw + nn; i++) {
		cJSON *f = cJSON_CreateObject();
		char t[64];
		const char *sev = i < ne ? "error" : i < ne + nw ? "warning" : "note";
		snprintf(t, sizeof(t), "%s %d", sev, i);
		cJSON_AddStringToObject(f, "rule", i < ne ? "missing-dll" : i < ne + nw ? "shadowed-dll" : "known-issue");
		cJSON_AddStringToObject(f, "severity", sev);
		cJSON_AddStringToObject(f, "title", t);
		cJSON_AddStringToObject(f, "message", "m");
		cJSON_AddItemToArray(fs, f);
	}
	return d;
}

static void check_limits(int ne, int nw, int nn, size_t want_e, size_t want_w, size_t want_n, size_t want_omitted)
{
	cJSON *d = doc_with(ne, nw, nn);
	struct report_view v;
	struct report_github_stats st;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_github(&out, &v, &st);
	CHECK_INT(count_lines_starting(out.buf, "::error "), want_e);
	CHECK_INT(count_lines_starting(out.buf, "::warning "), want_w);
	CHECK_INT(count_lines_starting(out.buf, "::notice "), want_n + (want_omitted ? 1 : 0));
	CHECK(count_lines_starting(out.buf, "::notice ") <= 10);
	CHECK_INT(st.omitted, want_omitted);
	if (want_omitted) {
		char s[64];
		snprintf(s, sizeof(s), "title=%zu more problems not annotated::", want_omitted);
		CHECK_HAS(out.buf, s);
	} else {
		CHECK(!strstr(out.buf, "not annotated"));
	}
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_annotation_limits_and_overflow_notice(void)
{
	check_limits(14, 13, 12, 10, 10, 9, 4 + 3 + 3);
	check_limits(3, 1, 0, 3, 1, 0, 0);
	check_limits(0, 0, 10, 0, 0, 10, 0);  /* exactly 10 notes: all fit, no overflow notice */
	check_limits(0, 0, 11, 0, 0, 9, 2);   /* the overflow notice takes the 10th slot */
	check_limits(11, 0, 10, 10, 0, 9, 2); /* one error and one note left out */
	check_limits(10, 10, 0, 10, 10, 0, 0);
}

/* The budget counts problems: 30 failing binaries of 2 causes are 2 annotations, nothing left out. */
static void test_annotation_budget_counts_causes(void)
{
	cJSON *d = parse(HEAD "\"findings\":[]}");
	cJSON *fs = cJSON_GetObjectItem(d, "findings");
	struct report_view v;
	struct report_github_stats st;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	int i;
	for (i = 0; i < 30; i++) {
		cJSON *f = cJSON_CreateObject();
		char b[64];
		snprintf(b, sizeof(b), "C:\\t\\lib\\b%02d.dll", i);
		cJSON_AddStringToObject(f, "rule", "missing-dll");
		cJSON_AddStringToObject(f, "severity", "error");
		cJSON_AddStringToObject(f, "title", b);
		cJSON_AddStringToObject(f, "install", "C:\\t");
		cJSON_AddStringToObject(f, "leaf", i % 2 ? "a.dll" : "b.dll");
		cJSON_AddStringToObject(f, "binary", b);
		cJSON_AddItemToArray(fs, f);
	}
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_github(&out, &v, &st);
	CHECK_INT(count_lines_starting(out.buf, "::error "), 2);
	CHECK_INT(st.omitted, 0);
	CHECK_HAS(out.buf, "Affects 15 torch binaries: b00.dll, b02.dll, b04.dll, b06.dll, b08.dll and 10 more\n");
	CHECK(!strstr(out.buf, "not annotated"));
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_annotation_file_only_for_repo_anchors(void)
{
	cJSON *d = parse(HEAD "\"findings\":["
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"title\":\"t1: x, y\","
			      "\"anchor\":{\"file\":\"requirements.txt\",\"line\":3,\"col\":1},"
			      "\"binary\":\"C:\\\\t\\\\lib\\\\fbgemm.dll\"},"
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"title\":\"t2\","
			      "\"anchor\":{\"file\":\"C:\\\\Python311\\\\x.txt\",\"line\":3}},"
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"title\":\"t3\","
			      "\"anchor\":{\"file\":\"<embedded>/matrix/torch.yml\",\"line\":40}}]}");
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_github(&out, &v, NULL);
	CHECK_HAS(out.buf, "::error file=requirements.txt,line=3,col=1,title=t1%3A x%2C y::");
	CHECK_HAS(out.buf, "%0ABinary: C:\\t\\lib\\fbgemm.dll");
	CHECK_HAS(out.buf, "::error title=t2::");
	CHECK_HAS(out.buf, "::error title=t3::");
	CHECK_INT(count_lines_starting(out.buf, "::error file="), 1);
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_outputs_form_and_delimiter_refusal(void)
{
	cJSON *d = doc_with(2, 1, 0);
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	const char *delim = "ghadelimiter_00112233445566778899aabbccddeeff";
	CHECK_INT(report_view_init(&v, d, &e), 0);
	CHECK_INT(report_outputs(&out, &v, "out/report.json", delim, &e), 0);
	CHECK_STR(out.buf, "status<<ghadelimiter_00112233445566778899aabbccddeeff\nfail\n"
			   "ghadelimiter_00112233445566778899aabbccddeeff\n"
			   "failures<<ghadelimiter_00112233445566778899aabbccddeeff\n2\n"
			   "ghadelimiter_00112233445566778899aabbccddeeff\n"
			   "warnings<<ghadelimiter_00112233445566778899aabbccddeeff\n1\n"
			   "ghadelimiter_00112233445566778899aabbccddeeff\n"
			   "problems<<ghadelimiter_00112233445566778899aabbccddeeff\n3\n"
			   "ghadelimiter_00112233445566778899aabbccddeeff\n"
			   "findings<<ghadelimiter_00112233445566778899aabbccddeeff\n3\n"
			   "ghadelimiter_00112233445566778899aabbccddeeff\n"
			   "report<<ghadelimiter_00112233445566778899aabbccddeeff\nout/report.json\n"
			   "ghadelimiter_00112233445566778899aabbccddeeff\n");
	strbuf_reset(&out);
	/* CVE-2022-35954: a value that holds the delimiter could define outputs of its own. */
	CHECK_INT(report_outputs(&out, &v,
				 "x\nghadelimiter_00112233445566778899aabbccddeeff\nstatus<<EOF\npass\nEOF", delim, &e),
		  -1);
	CHECK_INT(out.len, 0);
	CHECK_HAS(e.msg, "delimiter");
	CHECK_INT(report_outputs(&out, &v, "r.json", "short", &e), -1);
	CHECK_INT(report_outputs(&out, &v, "r.json", "ghadelimiter_\nxxxxxxxx", &e), -1);
	CHECK_INT(out.len, 0);
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_summary_cap_and_truncation_note(void)
{
	cJSON *d = doc_with(400, 50, 0);
	cJSON *f;
	struct report_view v;
	struct strbuf out = STRBUF_INIT, big = STRBUF_INIT;
	struct err e;
	int i;
	for (i = 0; i < 2000; i++)
		strbuf_adds(&big, "C:\\a\\very\\long\\path|<x>");
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(d, "findings"))
		cJSON_AddStringToObject(f, "binary", big.buf);
	CHECK_INT(report_view_init(&v, d, &e), 0);
	strbuf_adds(&out, "previous step's text\n");
	report_summary(&out, &v, 200000);
	CHECK(out.len <= 200000 + strlen("previous step's text\n"));
	CHECK(out.len > 100000);
	CHECK(strstr(out.buf, "**Summary truncated**") != NULL); /* not CHECK_HAS: it would print 200 kB */
	CHECK(strstr(out.buf, "left out: 447 problems and the section warnings.") != NULL);
	CHECK(!strstr(out.buf, "<x>")); /* untrusted HTML never raw */
	strbuf_reset(&out);
	report_summary(&out, &v, REPORT_SUMMARY_MAX);
	CHECK(out.len <= REPORT_SUMMARY_MAX);
	CHECK(strstr(out.buf, "**Summary truncated**") != NULL);
	strbuf_release(&out);
	strbuf_release(&big);
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_summary_small_report_complete(void)
{
	cJSON *d = doc_with(1, 1, 1);
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_summary(&out, &v, REPORT_SUMMARY_MAX);
	CHECK_HAS(out.buf, "### ❌ torch-dll-check: torch fails the check");
	CHECK_HAS(out.buf, "#### Errors (1)");
	CHECK_HAS(out.buf, "#### Warnings (1)");
	CHECK_HAS(out.buf, "#### Notes (1)");
	CHECK(!strstr(out.buf, "truncated"));
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_summary_tables_escape_cells(void)
{
	cJSON *d = parse(HEAD "\"installs\":[{\"torch_dir\":\"C:\\\\t\",\"version\":\"2.4.0\","
			      "\"matrix_row\":{\"id\":\"torch-2.4.0\",\"file\":\"m.yml\",\"line\":4,"
			      "\"sources\":[\"https://github.com/pytorch/pytorch/issues/131662\",\"javascript:alert(1)\"]},"
			      "\"binaries\":[{\"path\":\"C:\\\\t\\\\lib\\\\a|b<i>.dll\",\"order\":0,"
			      "\"winerror\":126,\"outcome\":\"missing-dll\",\"leaf\":\"x|y.dll\"}]}],"
			      "\"findings\":[]}");
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_summary(&out, &v, REPORT_SUMMARY_MAX);
	CHECK_HAS(out.buf, "| 0 | a\\|b\\<i\\>\\.dll | – | ❌ missing\\-dll | 126 | x\\|y\\.dll |\n");
	CHECK_HAS(out.buf, "[https\\:\\/\\/github\\.com\\/pytorch\\/pytorch\\/issues\\/131662]"
			   "(https://github.com/pytorch/pytorch/issues/131662)");
	CHECK_HAS(out.buf, " javascript\\:alert\\(1\\)\n"); /* not a link */
	CHECK_HAS(out.buf, "### ✅ torch-dll-check: torch loads");
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_text_verdict_and_colour(void)
{
	cJSON *d = doc_with(2, 1, 0);
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_text(&out, &v, 0, 0);
	CHECK(!strncmp(out.buf, "FAIL no torch install: error 0 (3 problems: 2 errors, 1 warning, 0 notes; 3 findings)\n",
		       strlen("FAIL no torch install: error 0 (3 problems: 2 errors, 1 warning, 0 notes; 3 findings)\n")));
	CHECK(!strchr(out.buf, '\033'));
	CHECK(strstr(out.buf, "Errors (2):") < strstr(out.buf, "Warnings (1):"));
	strbuf_reset(&out);
	report_text(&out, &v, 1, 0);
	CHECK_HAS(out.buf, "\033[1;31mFAIL\033[0m");
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
	d = doc_with(0, 0, 0);
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_text(&out, &v, 0, 0);
	CHECK_STR(out.buf, "PASS no torch install loads (0 problems: 0 errors, 0 warnings, 0 notes; 0 findings)\n");
	CHECK_INT(report_exit_status(&v, FAIL_ON_WARNING), 0);
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

/* The text report: headline, fix best first, evidence; minor probes only with --trace; one entry per cause. */
static void test_text_fix_evidence_and_trace(void)
{
	cJSON *d = parse(HEAD "\"installs\":[{\"torch_dir\":\"C:\\\\t\",\"status\":\"fail\",\"binaries\":["
			      "{\"path\":\"C:\\\\t\\\\lib\\\\a.dll\",\"order\":0,\"winerror\":126},"
			      "{\"path\":\"C:\\\\t\\\\lib\\\\b.dll\",\"order\":1,\"winerror\":126}]}],"
			      "\"findings\":["
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"winerror\":126,\"title\":\"a.dll cannot load\","
			      "\"message\":\"WinError 126: m.dll (chain a.dll -> m.dll) is found nowhere\","
			      "\"explanation\":\"m.dll is not redistributable\",\"fix\":\"upgrade; or install X; or copy m.dll\","
			      "\"install\":\"C:\\\\t\",\"binary\":\"C:\\\\t\\\\lib\\\\a.dll\",\"leaf\":\"m.dll\","
			      "\"chain\":[\"a.dll\",\"m.dll\"],\"probes\":["
			      "{\"path\":\"C:\\\\W\\\\System32\\\\m.dll\",\"step\":\"System32\",\"why\":\"System32\",\"minor\":false,\"result\":\"not found\"},"
			      "{\"path\":\"C:\\\\W\\\\System\\\\m.dll\",\"step\":\"16-bit system dir\",\"why\":\"the 16-bit system folder\",\"minor\":true,\"result\":\"not found\"},"
			      "{\"path\":\"C:\\\\t\\\\lib\\\\m.dll\",\"step\":\"PATH\",\"why\":\"added to PATH by torch's fallback\",\"minor\":false,\"result\":\"not found\"}]},"
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"winerror\":126,\"title\":\"b.dll cannot load\","
			      "\"fix\":\"upgrade; or install X; or copy m.dll\",\"install\":\"C:\\\\t\",\"binary\":\"C:\\\\t\\\\lib\\\\b.dll\","
			      "\"leaf\":\"m.dll\",\"chain\":[\"b.dll\",\"a.dll\",\"m.dll\"]}]}");
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_text(&out, &v, 0, 0);
	CHECK(!strncmp(out.buf, "FAIL torch will not load: a.dll cannot load (1 problem: 1 error, 0 warnings, 0 notes; 2 findings)\n",
		       strlen("FAIL torch will not load: a.dll cannot load (1 problem: 1 error, 0 warnings, 0 notes; 2 findings)\n")));
	CHECK_HAS(out.buf, "Errors (1):\n  1. a.dll cannot load  [missing-dll, WinError 126]\n"
			   "      fix:      upgrade\n"
			   "      or:       install X\n"
			   "      or:       copy m.dll\n"
			   "      why:      m.dll is not redistributable\n"
			   "      chain:    a.dll -> m.dll\n"
			   "      searched: C:\\W\\System32  (System32: not found)\n"
			   "                C:\\t\\lib  (added to PATH by torch's fallback: not found)\n"
			   "                (1 more place with --trace)\n"
			   "      affects:  2 torch binaries: a.dll, b.dll\n");
	CHECK(!strstr(out.buf, "WinError 126: m.dll")); /* the message repeats the evidence: not shown */
	CHECK(!strstr(out.buf, "b.dll cannot load"));  /* one entry per cause */
	strbuf_reset(&out);
	report_text(&out, &v, 0, 1);
	CHECK_HAS(out.buf, "                C:\\W\\System  (the 16-bit system folder: not found)\n");
	CHECK(!strstr(out.buf, "with --trace"));
	report_view_release(&v);
	cJSON_Delete(d);
	/* a message that says more than the chain (where the DLL is, its version) is the why */
	d = parse(HEAD "\"findings\":[{\"rule\":\"missing-entry-point\",\"severity\":\"error\",\"winerror\":127,"
		  "\"title\":\"a.dll cannot load: m.dll lacks f\",\"message\":\"WinError 127: m.dll at C:\\\\x\\\\m.dll (file "
		  "version 1.0) has no export f\",\"explanation\":\"matrix words\",\"fix\":\"reinstall\",\"leaf\":\"m.dll\","
		  "\"chain\":[\"a.dll\",\"m.dll\"]}]}");
	CHECK_INT(report_view_init(&v, d, &e), 0);
	strbuf_reset(&out);
	report_text(&out, &v, 0, 0);
	CHECK_HAS(out.buf, "      why:      WinError 127: m.dll at C:\\x\\m.dll (file version 1.0) has no export f\n");
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

static int json_has(const cJSON *j, const char *needle)
{
	char *s = cJSON_PrintUnformatted(j);
	int r = s && strstr(s, needle) != NULL;
	cJSON_free(s);
	return r;
}

static void test_sarif_rules_and_anchoring(void)
{
	cJSON *d = parse(HEAD "\"tool\":{\"version\":\"9.9\"},"
			      "\"installs\":[{\"torch_dir\":\"C:\\\\t\",\"matrix_row\":{\"file\":\"ci/org.yml\",\"line\":7}},"
			      "{\"torch_dir\":\"C:\\\\u\",\"matrix_row\":{\"file\":\"<embedded>/matrix/torch.yml\",\"line\":7}}],"
			      "\"findings\":["
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"title\":\"a\","
			      "\"anchor\":{\"file\":\"requirements.txt\",\"line\":3,\"col\":1},\"install\":\"C:\\\\t\"},"
			      "{\"rule\":\"shadowed-dll\",\"severity\":\"warning\",\"title\":\"b\",\"install\":\"c:\\\\T\"},"
			      "{\"rule\":\"known-issue\",\"severity\":\"note\",\"title\":\"c\",\"install\":\"C:\\\\u\"},"
			      "{\"rule\":\"future-rule\",\"severity\":\"note\",\"title\":\"d\"}]}");
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	size_t unanchored = 99;
	cJSON *s, *run, *res, *rules;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_sarif(&out, &v, NULL, &unanchored);
	CHECK_INT(unanchored, 2);
	s = cJSON_Parse(out.buf);
	CHECK(s != NULL);
	CHECK_STR(report_str(s, "version"), "2.1.0");
	run = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "runs"), 0);
	rules = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(run, "tool"), "driver"), "rules");
	CHECK_INT(cJSON_GetArraySize(rules), (int)RULE_COUNT + 1);
	CHECK_STR(report_str(cJSON_GetArrayItem(rules, (int)RULE_COUNT), "id"), "future-rule");
	res = cJSON_GetObjectItem(run, "results");
	CHECK_INT(cJSON_GetArraySize(res), 4);
	CHECK(json_has(cJSON_GetArrayItem(res, 0), "\"uri\":\"requirements.txt\""));
	CHECK(json_has(cJSON_GetArrayItem(res, 1), "\"uri\":\"ci/org.yml\""));
	CHECK(!cJSON_GetObjectItem(cJSON_GetArrayItem(res, 2), "locations"));
	cJSON_Delete(s);
	strbuf_reset(&out);
	report_sarif(&out, &v, ".github/workflows/gate.yml", &unanchored);
	CHECK_INT(unanchored, 0);
	CHECK_HAS(out.buf, "\".github/workflows/gate.yml\"");
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(d);
}

/*
 * Grouping by root cause: two causes (libomp140 missing, an entry point
 * missing from c10.dll) hitting overlapping binaries (torch_cpu.dll fails
 * both ways), one cause split by anchor, a leaf-less finding its own cause,
 * and a document without `cause` ids grouped exactly as one with them.
 */
#define GROUP_FINDINGS                                                                                 \
	"{\"rule\":\"missing-dll\",\"severity\":\"error\",\"winerror\":126,\"title\":\"fbgemm\","       \
	"\"install\":\"C:\\\\t\",\"leaf\":\"libomp140.x86_64.dll\",\"binary\":\"C:\\\\t\\\\lib\\\\fbgemm.dll\"}," \
	"{\"rule\":\"missing-entry-point\",\"severity\":\"error\",\"winerror\":127,\"title\":\"c10a\","  \
	"\"install\":\"C:\\\\t\",\"leaf\":\"c10.dll\",\"symbol\":\"f\",\"binary\":\"C:\\\\t\\\\lib\\\\torch_cpu.dll\"}," \
	"{\"rule\":\"missing-dll\",\"severity\":\"error\",\"winerror\":126,\"title\":\"cpu\","          \
	"\"install\":\"C:\\\\T\",\"leaf\":\"LIBOMP140.x86_64.dll\",\"binary\":\"C:\\\\t\\\\lib\\\\torch_cpu.dll\"}," \
	"{\"rule\":\"missing-entry-point\",\"severity\":\"error\",\"winerror\":127,\"title\":\"c10b\","  \
	"\"install\":\"C:\\\\t\",\"leaf\":\"c10.dll\",\"symbol\":\"f\",\"binary\":\"C:\\\\t\\\\_C.pyd\"}," \
	"{\"rule\":\"missing-dll\",\"severity\":\"error\",\"winerror\":126,\"title\":\"pinned\","       \
	"\"install\":\"C:\\\\t\",\"leaf\":\"libomp140.x86_64.dll\",\"binary\":\"C:\\\\t\\\\lib\\\\torch.dll\"," \
	"\"anchor\":{\"file\":\"requirements.txt\",\"line\":3,\"col\":1}},"                             \
	"{\"rule\":\"missing-entry-point\",\"severity\":\"error\",\"winerror\":127,\"title\":\"c10c\","  \
	"\"install\":\"C:\\\\t\",\"leaf\":\"c10.dll\",\"symbol\":\"g\",\"binary\":\"C:\\\\t\\\\_C.pyd\"}," \
	"{\"rule\":\"path-entry\",\"severity\":\"warning\",\"title\":\"p1\",\"install\":\"C:\\\\t\"},"  \
	"{\"rule\":\"path-entry\",\"severity\":\"warning\",\"title\":\"p2\",\"install\":\"C:\\\\t\"}"

#define GROUP_INST                                                                                     \
	"\"installs\":[{\"torch_dir\":\"C:\\\\t\",\"binaries\":["                                      \
	"{\"path\":\"C:\\\\t\\\\lib\\\\fbgemm.dll\",\"order\":2,\"winerror\":126},"                    \
	"{\"path\":\"C:\\\\t\\\\lib\\\\torch.dll\",\"order\":4,\"winerror\":126},"                     \
	"{\"path\":\"C:\\\\t\\\\lib\\\\torch_cpu.dll\",\"order\":5,\"winerror\":126},"                 \
	"{\"path\":\"C:\\\\t\\\\_C.pyd\",\"order\":9,\"winerror\":127}]}],"

static void check_groups(const struct report_view *v)
{
	struct strbuf sb = STRBUF_INIT;
	/* ranked by load order: fbgemm, pinned (torch.dll), cpu, c10a (torch_cpu), c10b, c10c (_C), p1, p2 */
	CHECK_INT(v->ncauses, 6);
	CHECK_INT(v->ncause[SEV_ERROR], 4);
	CHECK_INT(v->ncause[SEV_WARNING], 2);
	if (v->ncauses != 6)
		return;
	CHECK_STR(report_str(report_cause_finding(v, &v->causes[0]), "title"), "fbgemm");
	CHECK_INT(v->causes[0].n, 2); /* fbgemm, torch_cpu: names compared without case */
	CHECK_STR(report_str(v->items[v->causes[0].members[1]].f, "title"), "cpu");
	report_cause_binaries(&sb, v, &v->causes[0], 5, text_esc_line);
	CHECK_STR(sb.buf, "2 torch binaries: fbgemm.dll, torch_cpu.dll");
	/* the same cause anchored to a pin stays a result of its own */
	CHECK_STR(report_str(report_cause_finding(v, &v->causes[1]), "title"), "pinned");
	CHECK_INT(v->causes[1].n, 1);
	CHECK_STR(v->causes[0].id, v->causes[1].id);
	/* torch_cpu.dll fails two ways: it is in two causes */
	CHECK_STR(report_str(report_cause_finding(v, &v->causes[2]), "title"), "c10a");
	CHECK_INT(v->causes[2].n, 2);
	strbuf_reset(&sb);
	report_cause_binaries(&sb, v, &v->causes[2], 1, text_esc_line);
	CHECK_STR(sb.buf, "2 torch binaries: torch_cpu.dll and 1 more");
	CHECK_STR(report_str(report_cause_finding(v, &v->causes[3]), "title"), "c10c"); /* another symbol */
	CHECK_INT(v->causes[3].nbinaries, 1);
	CHECK_STR(report_str(report_cause_finding(v, &v->causes[4]), "title"), "p1");
	CHECK_STR(report_str(report_cause_finding(v, &v->causes[5]), "title"), "p2");
	CHECK_INT(v->causes[4].nbinaries, 0);
	strbuf_reset(&sb);
	report_cause_binaries(&sb, v, &v->causes[4], 5, text_esc_line);
	CHECK_STR(sb.buf, "");
	strbuf_release(&sb);
}

/* Many causes: each keeps its own id (the causes array grows while grouping). */
static void test_grouping_many_causes(void)
{
	cJSON *d = doc_with(300, 0, 0);
	struct report_view v;
	struct err e;
	size_t i;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	CHECK_INT(v.ncauses, 300);
	for (i = 0; i < v.ncauses; i++) {
		CHECK_INT(strlen(v.causes[i].id), FINDING_CAUSE_ID_LEN);
		CHECK_INT(v.causes[i].members[0], i);
	}
	report_view_release(&v);
	cJSON_Delete(d);
}

static void test_grouping_by_cause(void)
{
	static const char *const bad[] = { "7", "\"\"", "\"A1\"", "\"a b\"", "\"%0A\"",
		"\"0123456789012345678901234567890123456789012345678901234567890123x\"" };
	cJSON *d = parse(HEAD GROUP_INST "\"findings\":[" GROUP_FINDINGS "]}"), *f;
	struct report_view v, w;
	struct err e;
	size_t i;
	CHECK_INT(report_view_init(&v, d, &e), 0);
	check_groups(&v);
	CHECK_INT(strlen(v.causes[0].id), 16);
	/* the ids result_finish writes (finding_cause_id) group the same way */
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(d, "findings"))
	{
		char id[FINDING_CAUSE_ID_LEN + 1];
		report_cause_id(f, id);
		cJSON_AddStringToObject(f, "cause", id);
	}
	CHECK_INT(report_view_init(&w, d, &e), 0);
	check_groups(&w);
	for (i = 0; i < v.ncauses && i < w.ncauses; i++)
		CHECK_STR(v.causes[i].id, w.causes[i].id);
	report_view_release(&w);
	report_view_release(&v);
	/* every renderer says a cause once */
	CHECK_INT(report_view_init(&v, d, &e), 0);
	{
		struct strbuf out = STRBUF_INIT;
		struct report_github_stats st;
		cJSON *sarif, *res;
		size_t un = 0;
		report_github(&out, &v, &st);
		CHECK_INT(count_lines_starting(out.buf, "::error "), 4);
		CHECK_INT(count_lines_starting(out.buf, "::warning "), 2);
		CHECK_HAS(out.buf, "::error title=fbgemm (and 1 more torch binary)::");
		CHECK_HAS(out.buf, "%0AAffects 2 torch binaries: fbgemm.dll, torch_cpu.dll%0A");
		CHECK_HAS(out.buf, "::error file=requirements.txt,line=3,col=1,title=pinned::");
		strbuf_reset(&out);
		CHECK_INT(report_outputs(&out, &v, NULL, "DELIM_0123456789", &e), 0);
		CHECK_HAS(out.buf, "failures<<DELIM_0123456789\n4\n");
		CHECK_HAS(out.buf, "warnings<<DELIM_0123456789\n2\n");
		strbuf_reset(&out);
		report_summary(&out, &v, REPORT_SUMMARY_MAX);
		CHECK_HAS(out.buf, "#### Errors (4)");
		CHECK_HAS(out.buf, "**Affects** 2 torch binaries: fbgemm\\.dll, torch\\_cpu\\.dll");
		strbuf_reset(&out);
		report_sarif(&out, &v, "ci.yml", &un);
		sarif = cJSON_Parse(out.buf);
		res = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(sarif, "runs"), 0), "results");
		CHECK_INT(cJSON_GetArraySize(res), 6);
		CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(res, 0), "relatedLocations")), 2);
		CHECK(!cJSON_GetObjectItem(cJSON_GetArrayItem(res, 4), "relatedLocations")); /* no binary */
		CHECK(strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(
				     cJSON_GetObjectItem(cJSON_GetArrayItem(res, 0), "partialFingerprints"),
				     "torchDllCheckCause/v1")),
			     cJSON_GetStringValue(cJSON_GetObjectItem(
				     cJSON_GetObjectItem(cJSON_GetArrayItem(res, 1), "partialFingerprints"),
				     "torchDllCheckCause/v1"))) != 0); /* one cause, two pins: two alerts */
		cJSON_Delete(sarif);
		strbuf_release(&out);
	}
	report_view_release(&v);
	/* ids that are not ids are refused, naming the finding */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *c = cJSON_Parse(bad[i]);
		f = cJSON_GetArrayItem(cJSON_GetObjectItem(d, "findings"), 2);
		cJSON_ReplaceItemInObject(f, "cause", c);
		err_clear(&e);
		CHECK_INT(report_view_init(&v, d, &e), -1);
		CHECK_HAS(e.msg, "finding 2: \"cause\"");
	}
	cJSON_Delete(d);
}


/* The one --format parser: the choices are the option's argument; the error lists them. */
static void test_format_choose(void)
{
	struct strbuf why = STRBUF_INIT;
	enum report_format f = REPORT_FMT_TEXT;
	CHECK_INT(report_format_choose("sarif", REPORT_FORMATS_CHECK, &f, &why), 0);
	CHECK_INT(f, REPORT_FMT_SARIF);
	CHECK_INT(report_format_choose("markdown", REPORT_FORMATS_FLEET, &f, &why), 0);
	CHECK_INT(f, REPORT_FMT_MARKDOWN);
	CHECK_INT(report_format_choose("auto", REPORT_FORMATS_AUDIT, &f, &why), 0);
	CHECK_INT(f, REPORT_FMT_AUTO);
	/* check and report take markdown too (the job summary on stdout); audit does not */
	CHECK_INT(report_format_choose("markdown", REPORT_FORMATS_CHECK, &f, &why), 0);
	CHECK_INT(f, REPORT_FMT_MARKDOWN);
	CHECK_INT(report_format_choose("markdown", REPORT_FORMATS_AUDIT, &f, &why), -1);
	CHECK_STR(why.buf, "expected text or github");
	strbuf_reset(&why);
	CHECK_INT(report_format_choose("json", REPORT_FORMATS_AUDIT, &f, &why), -1);
	CHECK_STR(why.buf, "expected text or github");
	strbuf_reset(&why);
	CHECK_INT(report_format_choose("tex", REPORT_FORMATS_FLEET, &f, &why), -1);
	CHECK_STR(why.buf, "expected text, markdown or json (did you mean 'text'?)");
	strbuf_reset(&why);
	CHECK_INT(report_format_choose("", REPORT_FORMATS_FLEET, &f, &why), -1);
	strbuf_release(&why);
	{
		/* the table of names: each format its own word, the one report_format_choose takes back */
		int k, j;
		for (k = 0; k < REPORT_FMT_COUNT; k++) {
			const char *name = report_format_name((enum report_format)k);
			CHECK(strcmp(name, "?"));
			for (j = 0; j < k; j++)
				CHECK(strcmp(name, report_format_name((enum report_format)j)));
			CHECK_INT(report_format_choose(name, "text|json|github|sarif|markdown", &f, &why), 0);
			CHECK_INT(f, k);
		}
		CHECK_STR(report_format_name(REPORT_FMT_COUNT), "?");
	}
}

/* The one budget: 10 a kind; one notice slot kept when anything is left out; the writer's escaping. */
static void test_annotation_budget_and_writer(void)
{
	struct report_annot_budget b;
	struct strbuf out = STRBUF_INIT;
	size_t want[3] = { 12, 0, 3 }, i, ok = 0;
	report_annot_budget_init(&b, want);
	for (i = 0; i < 12; i++)
		ok += (size_t)report_annot_take(&b, SEV_NOTE);
	CHECK_INT(ok, 9);
	for (i = 0, ok = 0; i < 3; i++)
		ok += (size_t)report_annot_take(&b, SEV_ERROR);
	CHECK_INT(ok, 3);
	CHECK_INT(report_annot_left(&b), 3);
	report_annotation(&out, SEV_WARNING, "a,b:c.txt", 3, 0, "t: x, y", "50%\nnext\r");
	CHECK_STR(out.buf, "::warning file=a%2Cb%3Ac.txt,line=3,title=t%3A x%2C y::50%25%0Anext%0D\n");
	strbuf_reset(&out);
	report_annotation(&out, SEV_ERROR, NULL, 0, 0, "t", "a\nb");
	CHECK_STR(out.buf, "::error title=t::a%0Ab\n");
	strbuf_release(&out);
}

/* One count, named: one missing leaf failing two binaries is 1 problem of 2 findings, in JSON as in text. */
static void test_counts_named(void)
{
	cJSON *d = parse(HEAD "\"findings\":["
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"winerror\":126,\"title\":\"a.dll cannot load\","
			      "\"install\":\"C:\\\\t\",\"binary\":\"C:\\\\t\\\\a.dll\",\"leaf\":\"m.dll\"},"
			      "{\"rule\":\"missing-dll\",\"severity\":\"error\",\"winerror\":126,\"title\":\"b.dll cannot load\","
			      "\"install\":\"C:\\\\t\",\"binary\":\"C:\\\\t\\\\b.dll\",\"leaf\":\"m.dll\"},"
			      "{\"rule\":\"redist-too-old\",\"severity\":\"warning\",\"title\":\"old\"}]}");
	cJSON *counts = cJSON_CreateObject();
	struct report_view v;
	struct strbuf out = STRBUF_INIT;
	struct err e;
	report_counts_json(counts, d);
	CHECK_INT(report_int(cJSON_GetObjectItem(counts, "problems"), "errors", -1), 1);
	CHECK_INT(report_int(cJSON_GetObjectItem(counts, "problems"), "warnings", -1), 1);
	CHECK_INT(report_int(cJSON_GetObjectItem(counts, "problems"), "total", -1), 2);
	CHECK_INT(report_int(cJSON_GetObjectItem(counts, "findings"), "errors", -1), 2);
	CHECK_INT(report_int(cJSON_GetObjectItem(counts, "findings"), "total", -1), 3);
	CHECK_INT(report_view_init(&v, d, &e), 0);
	report_count_phrase(&out, &v);
	CHECK_STR(out.buf, "2 problems: 1 error, 1 warning, 0 notes; 3 findings");
	strbuf_release(&out);
	report_view_release(&v);
	cJSON_Delete(counts);
	cJSON_Delete(d);
}

/* Wrapping never puts a ':' where the runner looks for "::": after a line's (Unicode) white space. */
static void test_wrap_keeps_continuations_inert(void)
{
	struct strbuf out = STRBUF_INIT;
	const char *p;
	report_text_wrap(&out, "      why:      aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk \xe3\x80\x80::error::x "
				"llll ::warning::y\n", 40);
	for (p = out.buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, "\xe3\x80\x80", 3))
			p += 3;
		CHECK(strncmp(p, "::", 2) != 0);
	}
	CHECK_HAS(out.buf, "\n                ");
	CHECK_HAS(out.buf, "\\x3a:error::x");
	strbuf_release(&out);
}

int main(void)
{
	RUN(test_wrap_keeps_continuations_inert);
	RUN(test_counts_named);
	RUN(test_format_choose);
	RUN(test_annotation_budget_and_writer);
	RUN(test_escape_gh_data_and_property_exactly_as_toolkit);
	RUN(test_escape_markdown_html_uri);
	RUN(test_anchor_in_repo);
	RUN(test_view_refuses_bad_documents);
	RUN(test_ranking);
	RUN(test_grouping_by_cause);
	RUN(test_grouping_many_causes);
	RUN(test_annotation_limits_and_overflow_notice);
	RUN(test_annotation_budget_counts_causes);
	RUN(test_annotation_file_only_for_repo_anchors);
	RUN(test_outputs_form_and_delimiter_refusal);
	RUN(test_summary_cap_and_truncation_note);
	RUN(test_summary_small_report_complete);
	RUN(test_summary_tables_escape_cells);
	RUN(test_text_verdict_and_colour);
	RUN(test_text_fix_evidence_and_trace);
	RUN(test_sarif_rules_and_anchoring);
	return HARNESS_EXIT();
}
