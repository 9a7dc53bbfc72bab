/*
 * fuzz_confirm: any bytes as what the live-confirmation helper printed (its
 * stdout: JSON lines among whatever a DllMain wrote), or as the stderr of
 * `python -c "import torch"`, applied to a small predicted report. The first
 * byte picks which and the exit status. The install must stay a valid JSON
 * tree that prints, and the findings list well formed, whatever the child said.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "judge/confirm.h"
#include "report/result.h"
#include "judge/finding.h"
#include "util/strbuf.h"

#include "oracle.h"

static const char predicted[] =
	"{\"installs\":[{\"torch_dir\":\"C:\\\\p\\\\torch\",\"python\":\"C:\\\\p\\\\python.exe\","
	"\"import_error\":{\"winerror\":126},"
	"\"binaries\":["
	"{\"path\":\"C:\\\\p\\\\torch\\\\lib\\\\c10.dll\",\"stage\":\"load\",\"winerror\":0,\"outcome\":\"ok\"},"
	"{\"path\":\"C:\\\\p\\\\torch\\\\lib\\\\torch_cpu.dll\",\"stage\":\"deps\",\"winerror\":126,\"outcome\":\"missing\"},"
	"{\"path\":\"C:\\\\p\\\\torch\\\\lib\\\\x.dll\"}],"
	"\"vc_runtime_probe\":[{\"name\":\"vcruntime140.dll\",\"winerror\":0}]}],"
	"\"findings\":[]}";

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

static int fuzz_one(const uint8_t *data, size_t size)
{
	static const long long codes[] = { 0, 1, 2, 0xC0000005LL, 137, -1 };
	cJSON *report, *install;
	struct findings found = FINDINGS_INIT;
	char *text, *printed;
	unsigned sel;
	if (size < 1)
		return 0;
	sel = data[0];
	report = cJSON_Parse(predicted);
	if (!report)
		abort();
	install = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(report, "installs"), 0);
	text = xstrndup((const char *)data + 1, size - 1);
	if (sel & 1)
		apply_import(&found, install, "C:\\p\\python.exe", text, codes[(sel >> 1) % 6],
					    (sel >> 4) & 1, 30000);
	else
		apply_helper(&found, install, text, codes[(sel >> 1) % 6], (sel >> 4) & 1, 30000);
	printed = cJSON_PrintUnformatted(report);
	if (!printed)
		abort();
	cJSON_free(printed);
	findings_release(&found);
	free(text);
	cJSON_Delete(report);
	return 0;
}
