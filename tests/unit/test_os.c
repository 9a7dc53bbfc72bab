/*
 * test_os: the process half of the OS layer on POSIX (os_spawn: exit codes,
 * signals, timeouts that kill the child and what it started, both pipes
 * drained together, the output cap), the Windows-only loader calls failing
 * cleanly here, and confirm.c's comparison of a prediction with a helper's
 * output (the part of --confirm that is plain C and runs anywhere).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "judge/confirm.h"
#include "report/result.h"
#include "harness.h"
#include "util/os.h"

static long long ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int sh(const char *script, unsigned timeout_ms, struct strbuf *out, struct strbuf *errb, long long *code,
	      struct err *e)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	return os_spawn(argv, NULL, timeout_ms, out, errb, code, e);
}

static void test_spawn_exit_codes(void)
{
	struct strbuf out = STRBUF_INIT, errb = STRBUF_INIT;
	long long code = 99;
	struct err e;
	err_clear(&e);
	CHECK_INT(sh("echo hello; echo oops >&2; exit 3", 5000, &out, &errb, &code, &e), 0);
	CHECK_INT(code, 3);
	CHECK_STR(out.buf, "hello\n");
	CHECK_STR(errb.buf, "oops\n");
	strbuf_reset(&out);
	CHECK_INT(sh("exit 0", 0, &out, NULL, &code, &e), 0);
	CHECK_INT(code, 0);
	CHECK_INT(out.len, 0);
	/* killed by a signal: 128 + N, as shells report it */
	CHECK_INT(sh("kill -9 $$", 5000, NULL, NULL, &code, &e), 0);
	CHECK_INT(code, 128 + 9);
	strbuf_release(&out);
	strbuf_release(&errb);
}

static void test_spawn_not_found(void)
{
	const char *argv[] = { "/nonexistent/tdc-no-such-program", "x", NULL };
	long long code = 5;
	struct err e;
	err_clear(&e);
	CHECK_INT(os_spawn(argv, NULL, 1000, NULL, NULL, &code, &e), -1);
	CHECK_HAS(e.msg, "cannot run /nonexistent/tdc-no-such-program");
	CHECK_HAS(e.msg, "No such file");
	CHECK_INT(code, -1);
	{
		const char *a2[] = { "/bin/true", NULL };
		err_clear(&e);
		CHECK_INT(os_spawn(a2, "/nonexistent-dir-tdc", 1000, NULL, NULL, &code, &e), -1);
		CHECK_HAS(e.msg, "in /nonexistent-dir-tdc");
	}
}

static void test_spawn_cwd_and_args(void)
{
	const char *argv[] = { "/bin/sh", "-c", "pwd; printf '[%s]' \"$@\"", "sh", "a b", "\"q\"", "", NULL };
	struct strbuf out = STRBUF_INIT;
	long long code = -1;
	struct err e;
	err_clear(&e);
	CHECK_INT(os_spawn(argv, "/", 5000, &out, NULL, &code, &e), 0);
	CHECK_INT(code, 0);
	CHECK_STR(out.buf, "/\n[a b][\"q\"][]");
	strbuf_release(&out);
}

static void test_spawn_timeout_kills(void)
{
	struct strbuf out = STRBUF_INIT;
	long long code = 7, t0 = ms_now();
	struct err e;
	err_clear(&e);
	/* the grandchild keeps stdout open: only killing the group ends the wait */
	CHECK_INT(sh("echo started; sleep 30 & sleep 30", 300, &out, NULL, &code, &e), 1);
	CHECK(ms_now() - t0 < 5000);
	CHECK_INT(code, -1);
	CHECK_STR(out.buf, "started\n");
	strbuf_release(&out);
}

static void test_spawn_both_streams_large(void)
{
	struct strbuf out = STRBUF_INIT, errb = STRBUF_INIT;
	long long code = -1;
	size_t i;
	int all = 1;
	struct err e;
	err_clear(&e);
	/* 3 MB on each stream at once, far beyond a pipe buffer: deadlocks unless both are drained */
	CHECK_INT(sh("head -c 3000000 /dev/zero | tr '\\0' a & head -c 3000000 /dev/zero | tr '\\0' b >&2; wait",
		     20000, &out, &errb, &code, &e),
		  0);
	CHECK_INT(code, 0);
	CHECK_INT(out.len, 3000000);
	CHECK_INT(errb.len, 3000000);
	for (i = 0; i < out.len && i < errb.len; i++)
		all &= out.buf[i] == 'a' && errb.buf[i] == 'b';
	CHECK(all);
	strbuf_release(&out);
	strbuf_release(&errb);
}

static void test_spawn_output_cap_keeps_tail(void)
{
	struct strbuf errb = STRBUF_INIT;
	long long code = -1;
	struct err e;
	err_clear(&e);
	CHECK_INT(sh("head -c 20000000 /dev/zero | tr '\\0' x >&2; echo 'OSError: [WinError 126] last' >&2; exit 1",
		     20000, NULL, &errb, &code, &e),
		  0);
	CHECK_INT(code, 1);
	CHECK(errb.len <= OS_SPAWN_MAX_OUTPUT);
	CHECK(errb.len >= OS_SPAWN_MAX_OUTPUT / 2);
	CHECK_HAS(errb.buf + errb.len - 40, "OSError: [WinError 126] last\n");
	strbuf_release(&errb);
}

static void test_self_path_and_setenv(void)
{
	struct err e;
	char *self;
	err_clear(&e);
	self = os_self_path(&e);
	CHECK(self && self[0] == '/');
	CHECK_HAS(self, "test_os");
	free(self);
	CHECK_INT(os_setenv("TDC_TEST_OS_VAR", "v1", &e), 0);
	CHECK_STR(os_getenv("TDC_TEST_OS_VAR"), "v1");
}

static void test_live_loading_needs_windows(void)
{
	struct err e;
	unsigned long we = 5;
	struct confirm_helper_args a;
	err_clear(&e);
	CHECK_INT(os_load_library_ex("C:\\x.dll", 0x1100, &we, &e), -1);
	CHECK_HAS(e.msg, "live loading needs Windows");
	CHECK_INT(we, 0);
	err_clear(&e);
	CHECK_INT(os_add_dll_directory("C:\\x", &e), -1);
	CHECK_HAS(e.msg, "live loading needs Windows");
	memset(&a, 0, sizeof(a));
	a.torch_dir = "C:\\t";
	err_clear(&e);
	CHECK_INT(confirm_helper_run(&a, NULL, NULL, &e), -1);
	CHECK_HAS(e.msg, "needs Windows");
}

/* ---- confirm.c's comparison ------------------------------------------------ */

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

static const char report_json[] =
	"{\"installs\":[{\"torch_dir\":\"C:\\\\t\",\"python\":\"C:\\\\py\\\\python.exe\","
	"\"import_error\":{\"winerror\":127,\"text\":\"x\"},"
	"\"vc_runtime_probe\":[{\"name\":\"vcruntime140.dll\",\"winerror\":0}],"
	"\"binaries\":["
	"{\"path\":\"C:\\\\t\\\\lib\\\\a.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"winerror\":0,\"outcome\":\"loads\"},"
	"{\"path\":\"C:\\\\t\\\\lib\\\\b.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"winerror\":127,\"outcome\":\"missing-entry-point\"},"
	"{\"path\":\"C:\\\\t\\\\lib\\\\c.dll\",\"kind\":\"dll\",\"stage\":\"path_fallback\",\"winerror\":126,\"outcome\":\"missing-dll\"},"
	"{\"path\":\"C:\\\\t\\\\lib\\\\d.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"winerror\":0,\"outcome\":\"loads\"},"
	"{\"path\":\"C:\\\\t\\\\_C.pyd\",\"kind\":\"pyd\",\"stage\":\"cpython\",\"winerror\":0,\"outcome\":\"loads\"}"
	"]}],\"findings\":[]}";

static cJSON *binary(cJSON *inst, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(inst, "binaries"), i);
}

static const char *cstr(cJSON *o, const char *a, const char *b)
{
	return cJSON_GetStringValue(cJSON_GetObjectItem(b ? cJSON_GetObjectItem(o, a) : o, b ? b : a));
}

static int count_rule(const struct findings *fs, enum rule_id rule)
{
	size_t i;
	int n = 0;
	for (i = 0; i < fs->n; i++)
		n += fs->v[i].rule == rule;
	return n;
}

static void test_confirm_compare(void)
{
	cJSON *r = cJSON_Parse(report_json), *inst = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "installs"), 0), *f;
	struct findings fs = FINDINGS_INIT;
	/* a: agrees; b: Wine-style stub (0 where 127 predicted); c: agrees with first_error;
	 * d: the helper crashed while loading it; _C.pyd: not reached; also DllMain noise */
	const char *out =
		"{\"event\":\"begin\",\"path\":\"vcruntime140.dll\"}\n"
		"{\"path\":\"vcruntime140.dll\",\"kind\":\"vc_probe\",\"stage\":\"vc_probe\",\"error\":0}\n"
		"{\"event\":\"begin\",\"path\":\"C:\\\\t\\\\lib\\\\A.DLL\"}\n"
		"{\"path\":\"C:\\\\t\\\\lib\\\\A.DLL\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"error\":0}\r\n"
		"hello from DllMain\n"
		"{\"path\":\"C:\\\\t\\\\lib\\\\b.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"error\":0}\n"
		"{\"path\":\"C:\\\\t\\\\lib\\\\c.dll\",\"kind\":\"dll\",\"stage\":\"path_fallback\",\"error\":126,\"first_error\":126}\n"
		"{\"event\":\"begin\",\"path\":\"C:\\\\t\\\\lib\\\\d.dll\"}\n";
	apply_helper(&fs, inst, out, 0xC0000005LL, 0, 120000);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(binary(inst, 0), "confirmed"), "agrees")));
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(binary(inst, 1), "confirmed"), "agrees")));
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(binary(inst, 1), "confirmed"), "error")), 0);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(binary(inst, 2), "confirmed"), "agrees")));
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(binary(inst, 2), "confirmed"), "first_error")),
		  126);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(binary(inst, 3), "confirmed"), "agrees")));
	CHECK_HAS(cstr(binary(inst, 3), "confirmed", "note"), "ended with status 0xC0000005 while loading");
	CHECK(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(binary(inst, 4), "confirmed"), "agrees")));
	CHECK_HAS(cstr(binary(inst, 4), "confirmed", "note"), "not reached");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(inst, "vc_runtime_probe"), 0), "confirmed"),
		"agrees")));
	CHECK_INT(count_rule(&fs, RULE_PREDICTION_MISMATCH), 2);
	f = result_finding_json(&fs.v[0]); /* the report's form of it */
	CHECK_STR(cstr(f, "severity", NULL), "warning");
	CHECK_HAS(cstr(f, "title", NULL), "b.dll: predicted WinError 127 (add_dll_directory), the real loader gave 0");
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "predicted_winerror")), 127);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(f, "real_winerror")), 0);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(inst, "confirmation"), "mismatches")), 2);
	cJSON_Delete(f);
	findings_release(&fs);
	cJSON_Delete(r);
}

static void test_confirm_extra_and_missing(void)
{
	cJSON *r = cJSON_Parse(report_json), *inst = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "installs"), 0);
	struct findings fs = FINDINGS_INIT;
	/* the helper finished (status 1) without d.dll and _C.pyd, and loaded an unlisted e.dll */
	const char *out =
		"{\"path\":\"C:\\\\t\\\\lib\\\\a.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"error\":0}\n"
		"{\"path\":\"C:\\\\t\\\\lib\\\\b.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"error\":127}\n"
		"{\"path\":\"C:\\\\t\\\\lib\\\\c.dll\",\"kind\":\"dll\",\"stage\":\"path_fallback\",\"error\":126}\n"
		"{\"path\":\"C:\\\\t\\\\lib\\\\e.dll\",\"kind\":\"dll\",\"stage\":\"add_dll_directory\",\"error\":0}\n";
	apply_helper(&fs, inst, out, 1, 0, 120000);
	CHECK_HAS(cstr(binary(inst, 3), "confirmed", "note"), "did not load this binary");
	/* d.dll and _C.pyd never loaded, e.dll unlisted */
	CHECK_INT(count_rule(&fs, RULE_PREDICTION_MISMATCH), 3);
	findings_release(&fs);
	cJSON_Delete(r);
}

static void test_confirm_timeout(void)
{
	cJSON *r = cJSON_Parse(report_json), *inst = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "installs"), 0);
	struct findings fs = FINDINGS_INIT;
	apply_helper(&fs, inst, "{\"event\":\"begin\",\"path\":\"C:\\\\t\\\\lib\\\\a.dll\"}\n", -1, 1,
				    2000);
	CHECK_HAS(cstr(binary(inst, 0), "confirmed", "note"), "killed after 2 s while loading");
	CHECK_HAS(cstr(binary(inst, 1), "confirmed", "note"), "not reached");
	CHECK_INT(count_rule(&fs, RULE_PREDICTION_MISMATCH), 1);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(inst, "confirmation"), "timed_out")));
	findings_release(&fs);
	cJSON_Delete(r);
}

static void test_confirm_import(void)
{
	cJSON *r = cJSON_Parse(report_json), *inst = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "installs"), 0), *ic, *f;
	struct findings fs = FINDINGS_INIT;
	/* predicted 127; the real interpreter says 127 too: agreement */
	apply_import(&fs, inst, "C:\\py\\python.exe",
				    "Traceback (most recent call last):\n  File ...\nOSError: [WinError 127] The "
				    "specified procedure could not be found. Error loading \"b.dll\" or one of its "
				    "dependencies.\r\n",
				    1, 0, 120000);
	ic = cJSON_GetObjectItem(inst, "import_check");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(ic, "agrees")));
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(ic, "winerror")), 127);
	CHECK_INT(cJSON_GetNumberValue(cJSON_GetObjectItem(ic, "exit_code")), 1);
	CHECK_HAS(cstr(ic, "stderr_last_line", NULL), "OSError: [WinError 127]");
	CHECK_INT(count_rule(&fs, RULE_PREDICTION_MISMATCH), 0);
	/* the real import succeeds: a mismatch naming both */
	cJSON_DeleteItemFromObject(inst, "import_check");
	apply_import(&fs, inst, "C:\\py\\python.exe", "", 0, 0, 120000);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(inst, "import_check"), "agrees")));
	CHECK_INT(count_rule(&fs, RULE_PREDICTION_MISMATCH), 1);
	f = result_finding_json(&fs.v[0]);
	CHECK_HAS(cstr(f, "message", NULL), "Predicted: import torch fails with WinError 127");
	cJSON_Delete(f);
	findings_release(&fs);
	cJSON_Delete(r);
}

/* os_read_small_file: a regular file read whole; a link, a folder, a FIFO, nothing: 1; too large: 2 */
static void test_read_small_file(void)
{
	char dir[] = "/tmp/tdc-test-os-XXXXXX", p[256], q[256], big[256], fifo[256];
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	FILE *f;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/RECORD", dir);
	snprintf(q, sizeof(q), "%s/link", dir);
	snprintf(big, sizeof(big), "%s/big", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	f = fopen(p, "w");
	CHECK(f != NULL);
	fputs("a.py,,\n", f);
	fclose(f);
	f = fopen(big, "w");
	CHECK(f != NULL);
	fputs("0123456789", f);
	fclose(f);
	CHECK_INT(symlink(p, q), 0);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	strbuf_adds(&sb, "x");
	CHECK_INT(os_read_small_file(p, 100, &sb, &e), 0);
	CHECK_STR(sb.buf, "xa.py,,\n");
	strbuf_reset(&sb);
	CHECK_INT(os_read_small_file(q, 100, &sb, &e), 1);
	CHECK_INT(os_read_small_file(dir, 100, &sb, &e), 1);
	CHECK_INT(os_read_small_file(fifo, 100, &sb, &e), 1);
	CHECK_INT(os_read_small_file("/nonexistent/tdc", 100, &sb, &e), 1);
	CHECK_INT(os_read_small_file(big, 9, &sb, &e), 2);
	CHECK_INT(os_read_small_file(big, 10, &sb, &e), 0);
	CHECK_STR(sb.buf, "0123456789");
	CHECK_INT((int)sb.len, 10);
	unlink(p);
	unlink(q);
	unlink(big);
	unlink(fifo);
	rmdir(dir);
	strbuf_release(&sb);
}

int main(void)
{
	RUN(test_read_small_file);
	RUN(test_spawn_exit_codes);
	RUN(test_spawn_not_found);
	RUN(test_spawn_cwd_and_args);
	RUN(test_spawn_timeout_kills);
	RUN(test_spawn_both_streams_large);
	RUN(test_spawn_output_cap_keeps_tail);
	RUN(test_self_path_and_setenv);
	RUN(test_live_loading_needs_windows);
	RUN(test_confirm_compare);
	RUN(test_confirm_extra_and_missing);
	RUN(test_confirm_timeout);
	RUN(test_confirm_import);
	return HARNESS_EXIT();
}
