/*
 * test_confirm: the parent half of `check --confirm` on Linux: how the
 * helper's JSON lines and the import check's stderr are compared with the
 * prediction (confirm_apply_helper_output, confirm_apply_import_output), and
 * how confirm_run starts its children (argv, working folder, timeout, a
 * helper that refuses), with shell scripts standing in for the helper and
 * python.exe. The helper itself (real LoadLibraryExW) runs only on Windows:
 * tests/confirm/test_confirm.sh runs it under Wine.
 */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/confirm.h"
#include "judge/finding.h"
#include "report/report.h"
#include "report/result.h"

#define TORCH "C:\\Python311\\Lib\\site-packages\\torch"

/* confirm.h's comparison on the prediction `inst` holds, its verdict written back into `inst` as the report does. */
static void apply_helper(struct findings *f, cJSON *inst, const char *out, long long code, int timed_out, unsigned ms)
{
	struct confirm_prediction p;
	struct confirm_result r;
	memset(&r, 0, sizeof(r));
	result_confirm_prediction(inst, &p);
	confirm_apply_helper_output(f, &p, &r, out, code, timed_out, ms);
	result_confirm_json(inst, &r);
	confirm_result_release(&r);
	confirm_prediction_release(&p);
}

static void apply_import(struct findings *f, cJSON *inst, const char *python, const char *errout, long long code,
			 int timed_out, unsigned ms)
{
	struct confirm_prediction p;
	struct confirm_result r;
	memset(&r, 0, sizeof(r));
	result_confirm_prediction(inst, &p);
	confirm_apply_import_output(f, &p, &r, python, errout, code, timed_out, ms);
	result_confirm_json(inst, &r);
	confirm_result_release(&r);
	confirm_prediction_release(&p);
}

static int run_confirm(struct findings *f, cJSON *inst, const struct confirm_opts *o, struct err *e)
{
	struct confirm_prediction p;
	struct confirm_result r;
	int rc;
	result_confirm_prediction(inst, &p);
	rc = confirm_run(f, &p, &r, o, e);
	result_confirm_json(inst, &r);
	confirm_result_release(&r);
	confirm_prediction_release(&p);
	return rc;
}

static cJSON *report, *install;
static struct findings found = FINDINGS_INIT;
static cJSON *found_json[16]; /* finding_json of found.v[i], made on demand */
static size_t found_json_n;   /* found.n when found_json was made */

static void forget_findings_json(void)
{
	size_t i;
	for (i = 0; i < 16; i++) {
		cJSON_Delete(found_json[i]);
		found_json[i] = NULL;
	}
}

/* A report with one install whose binaries are given as JSON text; no findings yet. */
static void setup(const char *binaries, const char *vc_probe)
{
	forget_findings_json();
	findings_release(&found);
	cJSON_Delete(report);
	report = cJSON_Parse("{\"installs\": []}");
	install = cJSON_CreateObject();
	cJSON_AddStringToObject(install, "torch_dir", TORCH);
	cJSON_AddItemToObject(install, "binaries", cJSON_Parse(binaries));
	cJSON_AddItemToObject(install, "vc_runtime_probe", cJSON_Parse(vc_probe ? vc_probe : "[]"));
	cJSON_AddItemToArray(cJSON_GetObjectItem(report, "installs"), install);
}

/* The binary whose path ends in `name`. */
static cJSON *bin(const char *name)
{
	cJSON *b;
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(install, "binaries"))
	{
		const char *p = cJSON_GetStringValue(cJSON_GetObjectItem(b, "path"));
		size_t n = strlen(name);
		if (p && strlen(p) >= n && !strcmp(p + strlen(p) - n, name))
			return b;
	}
	return NULL;
}

/* The compact JSON of member `path` ("confirmed", "confirmation", ...) of o, or "(none)". Static buffer. */
static const char *json(const cJSON *o, const char *member)
{
	static char buf[4096];
	const cJSON *m = o ? cJSON_GetObjectItem(o, member) : NULL;
	char *s = m ? cJSON_PrintUnformatted(m) : NULL;
	snprintf(buf, sizeof(buf), "%s", s ? s : "(none)");
	free(s);
	return buf;
}

static int n_findings(void)
{
	return (int)found.n;
}

/* Finding i as the report will hold it (finding_json), or NULL. */
static cJSON *finding(int i)
{
	if (found_json_n != found.n) {
		forget_findings_json();
		found_json_n = found.n;
	}
	if (i < 0 || (size_t)i >= found.n || i >= 16)
		return NULL;
	if (!found_json[i])
		found_json[i] = result_finding_json(&found.v[i]);
	return found_json[i];
}

static const char *fstr(int i, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(finding(i), k));
}

#define A_DLL TORCH "\\lib\\a.dll"
#define B_DLL TORCH "\\lib\\b.dll"
#define C_PYD TORCH "\\_C.cp311-win_amd64.pyd"

static const char three[] =
	"[{\"path\": \"" "C:\\\\Python311\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\a.dll" "\", \"kind\": \"dll\","
	" \"winerror\": 0, \"stage\": \"add_dll_directory\", \"outcome\": \"loads\"},"
	" {\"path\": \"" "C:\\\\Python311\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\b.dll" "\", \"kind\": \"dll\","
	" \"winerror\": 126, \"stage\": \"path_fallback\", \"outcome\": \"missing-dll\"},"
	" {\"path\": \"" "C:\\\\Python311\\\\Lib\\\\site-packages\\\\torch\\\\_C.cp311-win_amd64.pyd" "\", \"kind\": \"pyd\","
	" \"winerror\": 0, \"stage\": \"pyd\", \"outcome\": \"loads\"}]";

/* One helper line: a result for path (JSON-escaped here). */
static void line(struct strbuf *sb, const char *path, const char *kind, const char *stage, int error, int first)
{
	cJSON *o = cJSON_CreateObject();
	char *s;
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddStringToObject(o, "stage", stage);
	cJSON_AddStringToObject(o, "flags", "0x1100");
	cJSON_AddNumberToObject(o, "error", error);
	if (first)
		cJSON_AddNumberToObject(o, "first_error", first);
	s = cJSON_PrintUnformatted(o);
	strbuf_addf(sb, "%s\n", s);
	free(s);
	cJSON_Delete(o);
}

/* The begin line alone (the helper died while loading path). */
static void begin(struct strbuf *sb, const char *path)
{
	cJSON *s = cJSON_CreateString(path);
	char *t = cJSON_PrintUnformatted(s);
	strbuf_addf(sb, "{\"event\":\"begin\",\"path\":%s}\n", t);
	free(t);
	cJSON_Delete(s);
}

static void test_everything_agrees(void)
{
	struct strbuf out = STRBUF_INIT;
	setup(three, NULL);
	begin(&out, A_DLL);
	line(&out, A_DLL, "dll", "add_dll_directory", 0, 0);
	strbuf_adds(&out, "a DllMain that prints\r\n{not json\n[1]\n{\"no\":\"path\"}\n");
	begin(&out, B_DLL);
	line(&out, "c:\\python311\\LIB\\site-packages\\torch\\lib\\B.DLL", "dll", "path_fallback", 126, 126);
	begin(&out, C_PYD);
	line(&out, C_PYD, "pyd", "pyd", 0, 0);
	apply_helper(&found, install, out.buf, 1, 0, 120000);
	CHECK_STR(json(bin("a.dll"), "confirmed"), "{\"error\":0,\"stage\":\"add_dll_directory\",\"agrees\":true}");
	/* paths compare case-insensitively, as Windows does; first_error is kept */
	CHECK_STR(json(bin("b.dll"), "confirmed"),
		  "{\"error\":126,\"stage\":\"path_fallback\",\"first_error\":126,\"agrees\":true}");
	CHECK_STR(json(bin(".pyd"), "confirmed"), "{\"error\":0,\"stage\":\"pyd\",\"agrees\":true}");
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":1,\"timed_out\":false,\"binaries_confirmed\":3,\"mismatches\":0}");
	CHECK_INT(n_findings(), 0);
	strbuf_release(&out);
}

static void test_disagreements_are_findings(void)
{
	struct strbuf out = STRBUF_INIT;
	setup(three, NULL);
	line(&out, A_DLL, "dll", "add_dll_directory", 127, 0);   /* other error */
	line(&out, B_DLL, "dll", "add_dll_directory", 126, 0);   /* same error, other stage */
	line(&out, C_PYD, "pyd", "pyd", 0, 0);
	apply_helper(&found, install, out.buf, 1, 0, 120000);
	CHECK_STR(json(bin("a.dll"), "confirmed"), "{\"error\":127,\"stage\":\"add_dll_directory\",\"agrees\":false}");
	CHECK_STR(json(bin("b.dll"), "confirmed"), "{\"error\":126,\"stage\":\"add_dll_directory\",\"agrees\":false}");
	CHECK_INT(n_findings(), 2);
	if (n_findings() == 2) {
		CHECK_STR(fstr(0, "rule"), "prediction-mismatch");
		CHECK_STR(fstr(0, "severity"), "warning");
		CHECK_STR(json(finding(0), "winerror"), "127");
		CHECK_STR(json(finding(0), "predicted_winerror"), "0");
		CHECK_STR(json(finding(0), "real_winerror"), "127");
		CHECK_STR(fstr(0, "title"), "a.dll: predicted WinError 0 (add_dll_directory), the real loader gave 127 "
					    "(add_dll_directory)");
		CHECK_STR(fstr(0, "message"), "The checker's emulation predicted loads (WinError 0, stage add_dll_directory) for "
					      A_DLL "; LoadLibraryExW in a helper process on this machine returned 127 "
					      "(stage add_dll_directory).");
		CHECK_STR(fstr(0, "install"), TORCH);
		CHECK_STR(fstr(0, "binary"), A_DLL);
		CHECK_STR(fstr(1, "title"), "b.dll: predicted WinError 126 (path_fallback), the real loader gave 126 "
					    "(add_dll_directory)");
	}
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":1,\"timed_out\":false,\"binaries_confirmed\":3,\"mismatches\":2}");
	strbuf_release(&out);
}

static void test_a_crash_names_the_binary_being_loaded(void)
{
	struct strbuf out = STRBUF_INIT;
	setup(three, NULL);
	line(&out, A_DLL, "dll", "add_dll_directory", 0, 0);
	begin(&out, B_DLL); /* and nothing after it: the process ended */
	apply_helper(&found, install, out.buf, 0xC0000005LL, 0, 120000);
	CHECK_STR(json(bin("a.dll"), "confirmed"), "{\"error\":0,\"stage\":\"add_dll_directory\",\"agrees\":true}");
	CHECK_STR(json(bin("b.dll"), "confirmed"),
		  "{\"error\":null,\"stage\":null,\"agrees\":false,\"note\":\"the helper process ended with status "
		  "0xC0000005 while loading this binary (a crash in DllMain?)\"}");
	CHECK_STR(json(bin(".pyd"), "confirmed"),
		  "{\"error\":null,\"stage\":null,\"agrees\":null,\"note\":\"not reached: the helper stopped before this "
		  "binary\"}");
	CHECK_INT(n_findings(), 1);
	CHECK_STR(fstr(0, "title"), "b.dll: predicted WinError 126, the real load crashed the process");
	CHECK_STR(json(finding(0), "predicted_winerror"), "126");
	CHECK_STR(json(finding(0), "real_winerror"), "null");
	CHECK_STR(json(finding(0), "winerror"), "null");
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":3221225477,\"timed_out\":false,\"binaries_confirmed\":1,"
		  "\"mismatches\":1}");
	strbuf_release(&out);
}

static void test_a_timeout_names_the_binary_being_loaded(void)
{
	struct strbuf out = STRBUF_INIT;
	setup(three, NULL);
	begin(&out, A_DLL);
	apply_helper(&found, install, out.buf, -1, 1, 3000);
	CHECK_STR(json(bin("a.dll"), "confirmed"),
		  "{\"error\":null,\"stage\":null,\"agrees\":false,\"note\":\"the helper was killed after 3 s while "
		  "loading this binary (a hang in DllMain?)\"}");
	CHECK_STR(fstr(0, "title"), "a.dll: predicted WinError 0, the real load did not finish");
	CHECK_STR(json(bin("b.dll"), "confirmed"),
		  "{\"error\":null,\"stage\":null,\"agrees\":null,\"note\":\"not reached: the helper stopped before this "
		  "binary\"}");
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":null,\"timed_out\":true,\"binaries_confirmed\":0,\"mismatches\":1}");
	strbuf_release(&out);
}

static void test_listings_that_differ(void)
{
	struct strbuf out = STRBUF_INIT;
	setup(three, NULL);
	/* the helper finished (status 1) without b.dll, and loaded a DLL the prediction lacks */
	line(&out, A_DLL, "dll", "add_dll_directory", 0, 0);
	line(&out, TORCH "\\lib\\extra.dll", "dll", "add_dll_directory", 0, 0);
	line(&out, C_PYD, "pyd", "pyd", 0, 0);
	apply_helper(&found, install, out.buf, 1, 0, 120000);
	CHECK_STR(json(bin("b.dll"), "confirmed"),
		  "{\"error\":null,\"stage\":null,\"agrees\":false,\"note\":\"the real procedure did not load this "
		  "binary\"}");
	CHECK_INT(n_findings(), 2);
	CHECK_STR(fstr(0, "title"), "b.dll: predicted WinError 126, but the real procedure never loads it");
	CHECK_STR(fstr(1, "title"), "extra.dll: loaded by the real procedure (error 0) but missing from the prediction");
	CHECK_STR(fstr(1, "binary"), TORCH "\\lib\\extra.dll");
	CHECK_STR(json(finding(1), "predicted_winerror"), "null");
	CHECK_STR(json(finding(1), "real_winerror"), "0");
	strbuf_release(&out);
}

static void test_vc_runtime_probe(void)
{
	struct strbuf out = STRBUF_INIT;
	setup("[]", "[{\"name\": \"vcruntime140.dll\", \"winerror\": 0}, {\"name\": \"msvcp140.dll\", \"winerror\": 0},"
		    " {\"name\": \"vcruntime140_1.dll\", \"winerror\": 0}]");
	line(&out, "VCRUNTIME140.dll", "vc_probe", "vc_probe", 0, 0);
	line(&out, "msvcp140.dll", "vc_probe", "vc_probe", 126, 0);
	apply_helper(&found, install, out.buf, 1, 0, 120000);
	{
		cJSON *p = cJSON_GetObjectItem(install, "vc_runtime_probe");
		CHECK_STR(json(cJSON_GetArrayItem(p, 0), "confirmed"), "{\"error\":0,\"stage\":\"vc_probe\",\"agrees\":true}");
		CHECK_STR(json(cJSON_GetArrayItem(p, 1), "confirmed"),
			  "{\"error\":126,\"stage\":\"vc_probe\",\"agrees\":false}");
		/* the probe stops at the first failure: the third is not confirmed either way */
		CHECK_STR(json(cJSON_GetArrayItem(p, 2), "confirmed"), "(none)");
	}
	CHECK_INT(n_findings(), 1);
	CHECK_STR(fstr(0, "title"), "torch's runtime probe of msvcp140.dll: predicted WinError 0, the real loader gave 126");
	CHECK_STR(json(finding(0), "binary"), "null");
	/* probe results are not "missing from the prediction" binaries */
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":1,\"timed_out\":false,\"binaries_confirmed\":0,\"mismatches\":1}");
	strbuf_release(&out);
}

static void import_check(const char *import_error, const char *errout, long long code, int timed_out)
{
	setup("[]", NULL);
	cJSON_AddItemToObject(install, "import_error", cJSON_Parse(import_error));
	apply_import(&found, install, "C:\\Python311\\python.exe", errout, code, timed_out, 120000);
}

static void test_import_check(void)
{
	static const char tb126[] = "Traceback (most recent call last):\r\n  File \"<string>\", line 1\r\n"
				    "OSError: [WinError 126] The specified module could not be found. Error loading "
				    "\"C:\\x\\fbgemm.dll\" or one of its dependencies.\r\n\r\n";
	import_check("null", "", 0, 0);
	CHECK_STR(json(install, "import_check"),
		  "{\"python\":\"C:\\\\Python311\\\\python.exe\",\"command\":\"import torch\",\"exit_code\":0,"
		  "\"timed_out\":false,\"stderr_last_line\":null,\"winerror\":null,\"agrees\":true}");
	CHECK_INT(n_findings(), 0);

	import_check("{\"winerror\": 126}", tb126, 1, 0);
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "stderr_last_line"),
		  "\"OSError: [WinError 126] The specified module could not be found. Error loading "
		  "\\\"C:\\\\x\\\\fbgemm.dll\\\" or one of its dependencies.\"");
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "winerror"), "126");
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "agrees"), "true");
	CHECK_INT(n_findings(), 0);

	/* a failure without a WinError (an ImportError) agrees with a predicted failure */
	import_check("{\"winerror\": 126}", "ImportError: DLL load failed\n", 1, 0);
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "agrees"), "true");

	import_check("{\"winerror\": 126}", "OSError: [WinError 127] The specified procedure could not be found.\n", 1, 0);
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "agrees"), "false");
	CHECK_INT(n_findings(), 1);
	CHECK_STR(fstr(0, "title"), "import torch: the checker predicted a failure, the real interpreter failed");
	CHECK_STR(fstr(0, "message"), "Predicted: import torch fails with WinError 126. `C:\\Python311\\python.exe -c "
				      "\"import torch\"` exited with status 1: OSError: [WinError 127] The specified "
				      "procedure could not be found..");
	CHECK_STR(json(finding(0), "predicted_winerror"), "126");
	CHECK_STR(json(finding(0), "real_winerror"), "127");

	import_check("null", tb126, 1, 0);
	CHECK_STR(fstr(0, "title"), "import torch: the checker predicted success, the real interpreter failed");
	CHECK_STR(json(finding(0), "predicted_winerror"), "0");
	CHECK_STR(json(finding(0), "real_winerror"), "126");

	import_check("{\"winerror\": 126}", "", 0, 0);
	CHECK_STR(fstr(0, "title"), "import torch: the checker predicted a failure, the real interpreter succeeded");
	CHECK_STR(json(finding(0), "real_winerror"), "0");

	/* a failure with no WinError where success was predicted: the real value is unknown */
	import_check("null", "Segmentation fault\n", 139, 0);
	CHECK_STR(json(finding(0), "real_winerror"), "null");

	/* a hang never agrees, whatever was predicted */
	import_check("null", "", -1, 1);
	CHECK_STR(json(install, "import_check"),
		  "{\"python\":\"C:\\\\Python311\\\\python.exe\",\"command\":\"import torch\",\"exit_code\":null,"
		  "\"timed_out\":true,\"stderr_last_line\":null,\"winerror\":null,\"agrees\":false}");
	CHECK_STR(fstr(0, "title"), "import torch: the checker predicted success, the real interpreter hung");
	CHECK_STR(fstr(0, "message"), "Predicted: import torch succeeds. `C:\\Python311\\python.exe -c \"import torch\"` "
				      "did not finish within 120 s.");
}

/* ---- confirm_run: real child processes, shell scripts as the helper and python.exe ---- */

static char dir[64];

static char *script(const char *name, const char *body)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "#!/bin/sh\n%s", body);
		fclose(f);
	}
	chmod(p, 0755);
	return p;
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");
	if (!f)
		return xstrdup("(missing)");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb);
}

static void run_setup(const char *torch_dir)
{
	setup("[{\"path\": \"/t/lib/a.dll\", \"kind\": \"dll\", \"winerror\": 0, \"stage\": \"add_dll_directory\"},"
	      " {\"path\": \"/t/_C.pyd\", \"kind\": \"pyd\", \"winerror\": 0, \"stage\": \"pyd\"},"
	      " {\"path\": \"/t/x.pyd\", \"kind\": \"pyd\", \"winerror\": 0, \"stage\": \"pyd\"}]",
	      NULL);
	cJSON_ReplaceItemInObject(install, "torch_dir", cJSON_CreateString(torch_dir));
	cJSON_AddItemToObject(install, "dll_paths", cJSON_Parse("[\"/t/lib\", \"C:\\\\Program Files\\\\x y\"]"));
	cJSON_AddStringToObject(install, "application_dir", "C:\\Python311");
}

static void test_run_passes_the_procedure_to_the_helper(void)
{
	struct confirm_opts o;
	struct err e;
	char *helper, *args, *log = xasprintf("%s/args", dir);
	char *body = xasprintf("for a in \"$@\"; do printf '%%s\\n' \"$a\"; done >'%s'\n"
			       "echo '{\"event\":\"begin\",\"path\":\"/t/lib/a.dll\"}'\n"
			       "echo '{\"path\":\"/t/lib/a.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"error\":0}'\n"
			       "echo '{\"path\":\"/t/_C.pyd\",\"kind\":\"pyd\",\"stage\":\"pyd\",\"error\":0}'\n"
			       "echo '{\"path\":\"/t/x.pyd\",\"kind\":\"pyd\",\"stage\":\"pyd\",\"error\":0}'\n"
			       "exit 0\n",
			       log);
	helper = script("helper", body);
	run_setup("/t");
	confirm_opts_init(&o);
	CHECK_INT(o.timeout_ms, CONFIRM_DEFAULT_TIMEOUT_MS);
	CHECK_INT(o.helper, 0);
	o.helper = 1;
	o.self = helper;
	err_clear(&e);
	CHECK_INT(run_confirm(&found, install, &o, &e), 0);
	CHECK_STR(e.msg, "");
	args = slurp(log);
	CHECK_STR(args, "confirm-helper\n--torch\n/t\n--dll-path\n/t/lib\n--dll-path\nC:\\Program Files\\x y\n"
			"--pyd\n/t/_C.pyd\n--pyd\n/t/x.pyd\n--app-dir\nC:\\Python311\n");
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":0,\"timed_out\":false,\"binaries_confirmed\":3,\"mismatches\":0}");
	CHECK(cJSON_GetObjectItem(install, "import_check") == NULL);
	free(args);
	free(body);
	free(helper);
	free(log);
}

static void test_run_helper_refusal_and_timeout(void)
{
	struct confirm_opts o;
	struct err e;
	char *refuses = script("refuses", "echo 'usage stuff' >&2\necho 'confirm-helper: needs Windows' >&2\nexit 2\n");
	char *hangs = script("hangs", "echo '{\"event\":\"begin\",\"path\":\"/t/lib/a.dll\"}'\nexec sleep 30\n");
	run_setup("/t");
	confirm_opts_init(&o);
	o.helper = 1;
	o.self = refuses;
	err_clear(&e);
	CHECK_INT(run_confirm(&found, install, &o, &e), -1);
	CHECK_STR(e.msg, "--confirm: the helper failed: confirm-helper: needs Windows");
	CHECK(cJSON_GetObjectItem(install, "confirmation") == NULL);

	o.self = hangs;
	o.timeout_ms = 300;
	err_clear(&e);
	CHECK_INT(run_confirm(&found, install, &o, &e), 0);
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":null,\"timed_out\":true,\"binaries_confirmed\":0,\"mismatches\":1}");
	CHECK_HAS(json(bin("a.dll"), "confirmed"), "killed after 0 s while loading");

	o.self = "/nonexistent/torch-dll-check";
	err_clear(&e);
	CHECK_INT(run_confirm(&found, install, &o, &e), -1);
	CHECK_HAS(e.msg, "--confirm: cannot run /nonexistent/torch-dll-check");
	free(refuses);
	free(hangs);
}

static void test_run_import_check(void)
{
	struct confirm_opts o;
	struct err e;
	char *torch_dir = xasprintf("%s/site-packages/torch", dir), *sp = xasprintf("%s/site-packages", dir);
	char *python;
	mkdir(sp, 0755);
	mkdir(torch_dir, 0755);
	/* fails unless started as `python -c "import torch"` in the folder holding torch */
	python = script("python", "[ \"$1\" = -c ] && [ \"$2\" = 'import torch' ] && [ -d torch ] || exit 3\n"
				  "echo 'Traceback (most recent call last):' >&2\n"
				  "echo 'OSError: [WinError 126] The specified module could not be found.' >&2\n"
				  "exit 1\n");
	run_setup(torch_dir);
	confirm_opts_init(&o);
	o.import_check = 1;
	err_clear(&e);
	CHECK_INT(run_confirm(&found, install, &o, &e), 0);
	CHECK_STR(json(install, "import_check"),
		  "{\"python\":null,\"skipped\":\"no python.exe is known for this install (give --python)\"}");
	cJSON_DeleteItemFromObject(install, "import_check");
	cJSON_AddStringToObject(install, "python", python);
	cJSON_AddItemToObject(install, "import_error", cJSON_Parse("{\"winerror\": 126}"));
	CHECK_INT(run_confirm(&found, install, &o, &e), 0);
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "exit_code"), "1");
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "winerror"), "126");
	CHECK_STR(json(cJSON_GetObjectItem(install, "import_check"), "agrees"), "true");
	CHECK_INT(n_findings(), 0);
	CHECK(cJSON_GetObjectItem(install, "confirmation") == NULL); /* no --confirm: no helper */

	cJSON_DeleteItemFromObject(install, "torch_dir");
	err_clear(&e);
	CHECK_INT(run_confirm(&found, install, &o, &e), -1);
	CHECK_STR(e.msg, "the report's install has no torch_dir");
	rmdir(torch_dir);
	rmdir(sp);
	free(python);
	free(torch_dir);
	free(sp);
}

static void test_helper_needs_windows(void)
{
#ifndef _WIN32
	struct confirm_helper_args a;
	struct err e;
	memset(&a, 0, sizeof(a));
	a.torch_dir = TORCH;
	err_clear(&e);
	CHECK_INT(confirm_helper_run(&a, NULL, NULL, &e), -1);
	CHECK_HAS(e.msg, "Windows");
#endif
}

/* --confirm's commit line: the helper's private commit before and after the loads, beside the prediction. */
static void commit_case(const char *commit_line, long long code, int timed_out)
{
	struct strbuf out = STRBUF_INIT;
	setup(three, NULL);
	cJSON_AddItemToObject(install, "commit", cJSON_Parse("{\"per_process\":12582912,\"processes\":1}"));
	begin(&out, A_DLL);
	line(&out, A_DLL, "dll", "add_dll_directory", 0, 0);
	begin(&out, B_DLL);
	line(&out, B_DLL, "dll", "path_fallback", 126, 126);
	begin(&out, C_PYD);
	line(&out, C_PYD, "pyd", "pyd", 0, 0);
	if (commit_line)
		strbuf_addf(&out, "%s\n", commit_line);
	apply_helper(&found, install, out.buf, code, timed_out, 120000);
	strbuf_release(&out);
}

/* commit.measured's member k, compact JSON. */
static const char *measured(const char *k)
{
	return json(cJSON_GetObjectItem(cJSON_GetObjectItem(install, "commit"), "measured"), k);
}

static void test_commit_measured(void)
{
	struct strbuf p = STRBUF_INIT;
	commit_case("{\"path\":\"" "C:\\\\Python311\\\\Lib\\\\site-packages\\\\torch" "\",\"kind\":\"commit\","
		    "\"private_before\":2097152,\"private_after\":48234496}",
		    1, 0);
	CHECK_STR(measured("predicted"), "12582912");
	CHECK_STR(measured("private_before"), "2097152");
	CHECK_STR(measured("private_after"), "48234496");
	CHECK_STR(measured("charged"), "46137344");
	CHECK_STR(measured("note"), "null");
	/* the commit line is no binary: nothing unpredicted, nothing mismatched */
	CHECK_INT(n_findings(), 0);
	CHECK_STR(json(install, "confirmation"),
		  "{\"method\":\"helper\",\"exit_code\":1,\"timed_out\":false,\"binaries_confirmed\":3,\"mismatches\":0}");
	/* the text and the summary say both figures */
	CHECK_INT(report_confirm_phrase(&p, install, strbuf_adds), 1);
	CHECK_HAS(p.buf, "commit charge: predicted 12 MiB per process (the images' writable sections), measured "
			 "44 MiB (the helper's private commit grew from 2 MiB to 46 MiB)");
	strbuf_release(&p);

	/* the helper died before the end: said, never a figure */
	commit_case(NULL, 0xC0000005LL, 0);
	CHECK_STR(measured("charged"), "null");
	CHECK_STR(measured("note"), "\"not measured: the helper did not finish torch's loads\"");
	CHECK_INT(report_confirm_phrase(&p, install, strbuf_adds), 1);
	CHECK_HAS(p.buf, "commit charge: predicted 12 MiB per process (the images' writable sections), not measured: "
			 "the helper did not finish torch's loads");
	strbuf_release(&p);

	/* the OS gave nothing (the line without figures), and hostile figures (a DllMain may print anything) */
	commit_case("{\"path\":\"t\",\"kind\":\"commit\"}", 0, 0);
	CHECK_STR(measured("note"), "\"not measured: the OS did not give the helper's private commit\"");
	commit_case("{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":-4096,\"private_after\":4096}", 0, 0);
	CHECK_STR(measured("charged"), "null");
	commit_case("{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":1,\"private_after\":1e300}", 0, 0);
	CHECK_STR(measured("charged"), "null");
	commit_case("{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":1.5,\"private_after\":4096}", 0, 0);
	CHECK_STR(measured("charged"), "null");
	commit_case("{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":\"4096\",\"private_after\":8192}", 0, 0);
	CHECK_STR(measured("charged"), "null");
	/* at the bound (2^50) it is a figure; one byte-count past it is not */
	commit_case("{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":0,\"private_after\":1125899906842624}", 0, 0);
	CHECK_STR(measured("charged"), "1125899906842624");
	commit_case("{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":0,\"private_after\":1125899906842625}", 0, 0);
	CHECK_STR(measured("charged"), "null");
	/* a real WinError 1455 (the commit limit reached while mapping) says so, with the measured figure */
	{
		struct strbuf out = STRBUF_INIT;
		setup(three, NULL);
		cJSON_AddItemToObject(install, "commit", cJSON_Parse("{\"per_process\":12582912,\"processes\":1}"));
		line(&out, A_DLL, "dll", "add_dll_directory", 1455, 0);
		line(&out, B_DLL, "dll", "path_fallback", 126, 126);
		line(&out, C_PYD, "pyd", "pyd", 0, 0);
		strbuf_adds(&out, "{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":2097152,\"private_after\":4194304}\n");
		apply_helper(&found, install, out.buf, 1, 0, 120000);
		CHECK_INT(n_findings(), 1);
		if (n_findings() == 1) {
			CHECK_STR(json(finding(0), "real_winerror"), "1455");
			CHECK_HAS(fstr(0, "message"), "returned 1455 (stage add_dll_directory). WinError 1455 is the "
						      "paging file: this machine's commit limit was reached while the DLL was "
						      "mapped; the helper's private commit after its loads was 4 MiB "
						      "(docs/commit.md).");
		}
		strbuf_release(&out);
	}
	/* after below before (the heap gave memory back): a growth of 0, never a wrapped number */
	commit_case("{\"path\":\"t\",\"kind\":\"commit\",\"private_before\":8192,\"private_after\":4096}", 0, 0);
	CHECK_STR(measured("charged"), "0");
	CHECK_INT(n_findings(), 0);
}

int main(void)
{
	char *cmd;
	snprintf(dir, sizeof(dir), "/tmp/tdc-test-confirm-%ld", (long)getpid());
	mkdir(dir, 0755);
	RUN(test_everything_agrees);
	RUN(test_disagreements_are_findings);
	RUN(test_a_crash_names_the_binary_being_loaded);
	RUN(test_a_timeout_names_the_binary_being_loaded);
	RUN(test_listings_that_differ);
	RUN(test_vc_runtime_probe);
	RUN(test_import_check);
	RUN(test_run_passes_the_procedure_to_the_helper);
	RUN(test_run_helper_refusal_and_timeout);
	RUN(test_run_import_check);
	RUN(test_helper_needs_windows);
	RUN(test_commit_measured);
	forget_findings_json();
	findings_release(&found);
	cJSON_Delete(report);
	cmd = xasprintf("rm -rf %s", dir);
	if (system(cmd)) {
	}
	free(cmd);
	return HARNESS_EXIT();
}
