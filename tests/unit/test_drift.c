/*
 * test_drift: every kind of drift between two audit snapshots, its severity
 * and order, snapshots of another schema, and the fleet table built from
 * the same documents.
 */
#include "harness.h"
#include "audit/drift.h"
#include "audit/fleet.h"
#include "report/report_audit.h"

#include <stdlib.h>

/* A report of one runner: torch 2.4.0 at C:\P\...\torch, one binary, System32 runtimes. */
static const char *const base_report =
	"{\"schema\":\"torch-dll-check/report/v1\",\"status\":\"pass\","
	"\"inventory\":{\"registry\":\"reg export r.reg\","
	" \"redistributables\":[{\"arch\":\"x64\",\"found\":true,\"installed\":true,\"version\":\"14.40.33810.0\",\"view\":64},"
	"                      {\"arch\":\"x86\",\"found\":false,\"installed\":false,\"version\":null,\"view\":null}],"
	" \"runtime_dlls\":[{\"name\":\"msvcp140.dll\",\"path\":\"C:\\\\Windows\\\\System32\\\\msvcp140.dll\",\"where\":\"System32\",\"file_version\":\"14.40.33810.0\",\"error\":null},"
	"                  {\"name\":\"libiomp5md.dll\",\"path\":\"C:\\\\P\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\libiomp5md.dll\",\"where\":\"torch\\\\lib\",\"file_version\":\"5.0.2024.1\",\"error\":null}],"
	" \"installs\":[{\"torch_dir\":\"C:\\\\P\\\\Lib\\\\site-packages\\\\torch\",\"version\":\"2.4.0+cpu\",\"arch\":\"x64\",\"prefix\":\"C:\\\\P\"}]},"
	"\"installs\":[{\"torch_dir\":\"C:\\\\P\\\\Lib\\\\site-packages\\\\torch\",\"status\":\"pass\","
	"  \"binaries\":[{\"path\":\"C:\\\\P\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\fbgemm.dll\",\"outcome\":\"loads\",\"winerror\":0,\"leaf\":null}]}],"
	"\"findings\":[]}";

static cJSON *base(void)
{
	return cJSON_Parse(base_report);
}

static cJSON *at(cJSON *doc, const char *path)
{
	/* "inventory.runtime_dlls.0" style paths */
	char buf[200], *save = NULL, *tok;
	cJSON *cur = doc;
	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && cur; tok = strtok_r(NULL, ".", &save))
		cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(tok)) : cJSON_GetObjectItemCaseSensitive(cur, tok);
	return cur;
}

static void set_str(cJSON *doc, const char *path, const char *key, const char *v)
{
	cJSON *o = at(doc, path);
	if (v)
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateString(v));
	else
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, cJSON_CreateNull());
}

/* "severity kind key" lines of the drift from a to b, or "ERR msg". */
static char *diff(const cJSON *a, const cJSON *b)
{
	struct drift_list l = DRIFT_LIST_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	err_clear(&e);
	if (drift_compare(a, b, &l, &e) < 0) {
		strbuf_addf(&sb, "ERR %s", e.msg);
	} else {
		for (size_t i = 0; i < l.n; i++)
			strbuf_addf(&sb, "%s%s %s %s", i ? "\n" : "", drift_severity_name(l.v[i].severity),
				    drift_kind_name(l.v[i].kind), l.v[i].key);
	}
	drift_list_release(&l);
	return strbuf_detach(&sb);
}

static void check_diff(cJSON *a, cJSON *b, const char *want, int line)
{
	char *got = diff(a, b);
	if (strcmp(got, want)) {
		printf("# line %d: drift is\n#   %s\n# expected\n#   %s\n", line, got, want);
		harness_failed_checks++;
	}
	free(got);
	cJSON_Delete(a);
	cJSON_Delete(b);
}
#define DIFF(a, b, want) check_diff((a), (b), (want), __LINE__)

static void test_no_change(void)
{
	DIFF(base(), base(), "");
}

static void test_redistributable(void)
{
	cJSON *b = base();
	set_str(b, "inventory.redistributables.0", "version", "14.44.35211.0");
	DIFF(base(), b, "note redistributable x64");

	b = base();
	cJSON_ReplaceItemInObjectCaseSensitive(at(b, "inventory.redistributables.0"), "installed", cJSON_CreateFalse());
	DIFF(base(), b, "note redistributable x64");
	b = base();
	cJSON_ReplaceItemInObjectCaseSensitive(at(b, "inventory.redistributables.0"), "view", cJSON_CreateNumber(32));
	DIFF(base(), b, "note redistributable x64");

	/* installed in the x86 view: one note; a registry that was not read: one note, nothing else */
	b = base();
	cJSON_ReplaceItemInObjectCaseSensitive(at(b, "inventory.redistributables.1"), "found", cJSON_CreateTrue());
	cJSON_ReplaceItemInObjectCaseSensitive(at(b, "inventory.redistributables.1"), "installed", cJSON_CreateTrue());
	set_str(b, "inventory.redistributables.1", "version", "14.29.30133.0");
	DIFF(base(), b, "note redistributable x86");
	b = base();
	set_str(b, "inventory", "registry", NULL);
	cJSON_ReplaceItemInObjectCaseSensitive(at(b, "inventory"), "redistributables", cJSON_CreateArray());
	DIFF(base(), b, "note redistributable registry");
}

static void test_runtime_dlls(void)
{
	cJSON *b = base();
	set_str(b, "inventory.runtime_dlls.0", "file_version", "14.38.33130.0");
	DIFF(base(), b, "note runtime-dll C:\\Windows\\System32\\msvcp140.dll");

	/* same path in another case: no drift (Windows paths are case-insensitive) */
	b = base();
	set_str(b, "inventory.runtime_dlls.0", "path", "C:\\WINDOWS\\system32\\MSVCP140.dll");
	DIFF(base(), b, "");

	b = base();
	cJSON_DeleteItemFromArray(at(b, "inventory.runtime_dlls"), 0);
	DIFF(base(), b, "note runtime-dll C:\\Windows\\System32\\msvcp140.dll");

	b = base();
	set_str(b, "inventory.runtime_dlls.0", "file_version", NULL);
	DIFF(base(), b, "note runtime-dll C:\\Windows\\System32\\msvcp140.dll");
}

static cJSON *with_libomp(cJSON *doc)
{
	cJSON *d = cJSON_Parse("{\"name\":\"libomp140.x86_64.dll\",\"path\":\"C:\\\\Windows\\\\System32\\\\libomp140.x86_64.dll\","
			       "\"where\":\"System32\",\"file_version\":\"14.40.33810.0\",\"error\":null}");
	cJSON_AddItemToArray(at(doc, "inventory.runtime_dlls"), d);
	return doc;
}

static void test_libomp140(void)
{
	/* appearing hides a failure: a warning; disappearing: a note (the verdicts say the rest) */
	DIFF(base(), with_libomp(base()), "warning openmp C:\\Windows\\System32\\libomp140.x86_64.dll");
	DIFF(with_libomp(base()), base(), "note openmp C:\\Windows\\System32\\libomp140.x86_64.dll");
}

static void fail_binary(cJSON *doc)
{
	cJSON *bin = at(doc, "installs.0.binaries.0");
	set_str(doc, "installs.0.binaries.0", "outcome", "missing-dll");
	cJSON_ReplaceItemInObjectCaseSensitive(bin, "winerror", cJSON_CreateNumber(126));
	set_str(doc, "installs.0.binaries.0", "leaf", "libomp140.x86_64.dll");
	set_str(doc, "installs.0", "status", "fail");
	set_str(doc, "", "status", "fail");
}

static void test_verdicts_and_status(void)
{
	cJSON *b = base();
	fail_binary(b);
	/* errors first: the binary, then the status */
	DIFF(base(), b,
	     "error verdict C:\\P\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\n"
	     "error status status");
	b = base();
	fail_binary(b);
	DIFF(b, base(),
	     "note verdict C:\\P\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\n"
	     "note status status");
	/* A failure that hides behind a libomp140 that appeared: warning + notes, no error */
	b = base();
	fail_binary(b);
	DIFF(b, with_libomp(base()),
	     "warning openmp C:\\Windows\\System32\\libomp140.x86_64.dll\n"
	     "note verdict C:\\P\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\n"
	     "note status status");
}

static void test_installs(void)
{
	cJSON *b = base();
	set_str(b, "inventory.installs.0", "version", "2.5.1+cpu");
	DIFF(base(), b, "note install C:\\P\\Lib\\site-packages\\torch");

	b = base();
	cJSON_DeleteItemFromArray(at(b, "inventory.installs"), 0);
	cJSON_DeleteItemFromArray(at(b, "installs"), 0);
	DIFF(base(), b, "note install C:\\P\\Lib\\site-packages\\torch");

	/* a new install that fails: an error */
	{
		cJSON *a = base();
		cJSON_DeleteItemFromArray(at(a, "inventory.installs"), 0);
		cJSON_DeleteItemFromArray(at(a, "installs"), 0);
		b = base();
		fail_binary(b);
		DIFF(a, b, "error install C:\\P\\Lib\\site-packages\\torch\nerror status status");
	}
}

static void test_inventory_snapshots(void)
{
	/* an inventory-only snapshot (no torch checked) compares with a report */
	cJSON *inv = base();
	cJSON_DeleteItemFromObjectCaseSensitive(inv, "installs");
	cJSON_DeleteItemFromObjectCaseSensitive(inv, "status");
	cJSON_ReplaceItemInObjectCaseSensitive(inv, "schema", cJSON_CreateString("torch-dll-check/inventory/v1"));
	DIFF(inv, base(), "note status status");
}

static void test_foreign_schema(void)
{
	cJSON *b = base(), *good = base();
	char *got;
	cJSON_ReplaceItemInObjectCaseSensitive(b, "schema", cJSON_CreateString("torch-dll-check/pins/v1"));
	got = diff(b, good);
	CHECK_HAS(got, "ERR previous snapshot: schema torch-dll-check/pins/v1");
	free(got);
	got = diff(good, b);
	CHECK_HAS(got, "ERR new snapshot: schema torch-dll-check/pins/v1");
	free(got);
	cJSON_Delete(b);
	cJSON_Delete(good);
	b = cJSON_CreateArray();
	got = diff(b, b);
	CHECK_HAS(got, "not a JSON object");
	free(got);
	cJSON_Delete(b);
}

static void test_json(void)
{
	cJSON *a = base(), *b = with_libomp(base()), *j;
	struct drift_list l = DRIFT_LIST_INIT;
	struct err e;
	char *s;
	CHECK_INT(drift_compare(a, b, &l, &e), 0);
	j = drift_to_json(&l);
	s = cJSON_PrintUnformatted(j);
	CHECK_HAS(s, "\"errors\":0,\"warnings\":1,\"notes\":0");
	CHECK_HAS(s, "\"kind\":\"openmp\",\"severity\":\"warning\"");
	CHECK_HAS(s, "\"old\":null,\"new\":\"14.40.33810.0\"");
	free(s);
	cJSON_Delete(j);
	drift_list_release(&l);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void test_fleet(void)
{
	struct fleet f = FLEET_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct err e;
	cJSON *good = with_libomp(base()), *bad = base(), *drift = cJSON_Parse("{\"errors\":1,\"warnings\":0,\"notes\":2}");
	cJSON *f1 = cJSON_Parse("{\"rule\":\"missing-dll\",\"severity\":\"error\",\"title\":\"fbgemm.dll cannot load: libomp140.x86_64.dll is missing\","
				"\"install\":\"C:\\\\P\\\\Lib\\\\site-packages\\\\torch\"}");
	cJSON *j;
	char *s;
	fail_binary(bad);
	cJSON_AddItemToArray(at(bad, "findings"), f1);
	CHECK_INT(fleet_add(&f, "gpu-1", 1764547200, good, NULL, &e), 0);
	CHECK_INT(fleet_add(&f, "gpu|2 `x` <b>", 1764547200, bad, drift, &e), 0);
	fleet_sort(&f);
	CHECK_INT(f.n, 2);
	CHECK_STR(f.rows[0].runner, "gpu|2 `x` <b>"); /* failing first */
	CHECK_STR(f.rows[0].first_error, "fbgemm.dll cannot load: libomp140.x86_64.dll is missing");
	CHECK_STR(f.rows[0].drift, "1 error(s), 0 warning(s), 2 note(s)");
	CHECK_STR(f.rows[1].openmp, "libiomp5md (torch\\lib), libomp140.x86_64 (System32)");
	CHECK_STR(f.rows[1].redist, "14.40.33810.0");
	CHECK_STR(f.rows[1].when, "2025-12-01 00:00");
	CHECK_STR(f.rows[1].drift, "unknown");
	j = fleet_json(&f);
	s = cJSON_PrintUnformatted(j);
	CHECK_HAS(s, "\"schema\":\"torch-dll-check/fleet/v1\"");
	free(s);
	/* rendered from that document, as `fleet` does */
	report_fleet_markdown(&sb, j, 0);
	CHECK_HAS(sb.buf, "| gpu\\|2 \\`x\\` \\<b\\> |");
	CHECK_HAS(sb.buf, "| **fail** |");
	/* the name's own <b> is never a tag: escaped in the table, and as HTML in its folded details */
	CHECK(!strstr(sb.buf, "`x` <b>"));
	CHECK_HAS(sb.buf, "<details><summary><b>gpu|2 `x` &lt;b&gt;</b>, torch 2.4.0+cpu: fail");
	strbuf_reset(&sb);
	report_fleet_markdown(&sb, j, 600);
	CHECK_HAS(sb.buf, "left out");
	CHECK(sb.len <= 600);
	strbuf_reset(&sb);
	report_fleet_text(&sb, j);
	CHECK_HAS(sb.buf, "2 runner(s), 2 row(s)");
	cJSON_Delete(j);
	/* a snapshot of another schema is refused */
	cJSON_ReplaceItemInObjectCaseSensitive(good, "schema", cJSON_CreateString("x"));
	CHECK_INT(fleet_add(&f, "r", 0, good, NULL, &e), -1);
	CHECK_HAS(e.msg, "runner r: schema x");
	fleet_release(&f);
	strbuf_release(&sb);
	cJSON_Delete(good);
	cJSON_Delete(bad);
	cJSON_Delete(drift);
}

int main(void)
{
	RUN(test_no_change);
	RUN(test_redistributable);
	RUN(test_runtime_dlls);
	RUN(test_libomp140);
	RUN(test_verdicts_and_status);
	RUN(test_installs);
	RUN(test_inventory_snapshots);
	RUN(test_foreign_schema);
	RUN(test_json);
	RUN(test_fleet);
	return HARNESS_EXIT();
}
