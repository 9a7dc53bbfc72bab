/*
 * report: the shared part of the renderers — reading and ranking the JSON
 * report document, the rule table, and one escaping function per output
 * syntax (see report.h for why each exists).
 *
 * The document is trusted for its shape only after report_view_init; its
 * strings are never trusted. Renderers read optional fields with
 * report_str/report_int, which return "absent" for a wrong type, so a
 * hand-edited or newer v1 document degrades to less detail, never to a crash.
 */
#include "report.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* docs/report-json.md's rule table, in order of importance (it ranks findings). */
const struct report_rule report_rules[] = {
	{ "missing-dll", "MissingDll", "error",
	  "A DLL in the static import chain is found nowhere on the search path (WinError 126).",
	  "Windows cannot find a DLL that a torch binary imports, directly or through another DLL. "
	  "`import torch` fails with OSError [WinError 126] naming the torch DLL, never the missing leaf.",
	  "Install or copy the missing DLL where torch's loader looks for it (torch\\lib, the Python "
	  "environment's Library\\bin, or System32 for system components). The finding names the leaf, "
	  "the chain to it and every place searched; its fix says which package provides it." },
	{ "missing-entry-point", "MissingEntryPoint", "error",
	  "A DLL was found but lacks an imported function (WinError 127).",
	  "The DLL that the loader picks does not export a name that the importer needs: usually a stale "
	  "or mixed set of DLLs (an older copy earlier on the search path).",
	  "Remove or update the older DLL named in the finding, or reinstall the package that ships it "
	  "so that all its DLLs come from one build." },
	{ "missing-ordinal", "MissingOrdinal", "error",
	  "A DLL was found but lacks an imported ordinal (WinError 182).",
	  "The importer binds to an export by number and the DLL found does not have it. Seen with "
	  "mismatched intel-openmp (libiomp5md.dll) builds.",
	  "Use the DLL build the importer was linked against: reinstall intel-openmp/mkl to the versions "
	  "torch expects, or remove the other copy found first." },
	{ "bad-arch", "BadArchitecture", "error",
	  "A binary, or the DLL that would be loaded, is for another architecture (WinError 193).",
	  "A 32-bit DLL in a 64-bit process (or the reverse), or a file that is not a PE image where a "
	  "DLL is expected.",
	  "Install the x64 (or matching) build of the package, and remove the foreign-architecture copy "
	  "from the search path." },
	{ "unreadable", "UnreadableBinary", "error",
	  "A file exists but is empty, not a PE file, corrupt or unreadable.",
	  "The checker quarantined a file it could not parse: Windows would refuse it too (often an "
	  "interrupted download or a 0-byte placeholder).",
	  "Reinstall the package that owns the file." },
	{ "redist-missing", "RedistMissing", "error",
	  "No Visual C++ 2015-2022 redistributable is installed for the architecture.",
	  "torch's DLLs need the Microsoft Visual C++ runtime (vcruntime140, msvcp140, ...).",
	  "Install the latest Microsoft Visual C++ 2015-2022 Redistributable (x64): "
	  "https://learn.microsoft.com/cpp/windows/latest-supported-vc-redist" },
	{ "redist-too-old", "RedistTooOld", "error",
	  "The installed Visual C++ redistributable is older than the torch version needs.",
	  "The redistributable must be at least as new as the toolset torch was built with (the matrix "
	  "row's minimum).",
	  "Install the latest Microsoft Visual C++ 2015-2022 Redistributable for the architecture." },
	{ "runtime-too-old", "RuntimeTooOld", "error",
	  "The VC runtime DLL that will be loaded is older than the torch version needs.",
	  "An old msvcp140.dll (or similar) wins the search, e.g. an app-local copy next to python.exe. "
	  "torch 2.9+ with msvcp140 older than 14.40 fails with WinError 1114.",
	  "Update the redistributable, and remove or update the old app-local copy named in the finding." },
	{ "openmp-not-redistributable", "OpenMpNotRedistributable", "error",
	  "libomp140 is needed but only present through Visual Studio / Build Tools.",
	  "MSVC's LLVM OpenMP runtime (libomp140.x86_64.dll) is not part of the VC++ redistributable; "
	  "machines without Visual Studio do not have it (pytorch/pytorch#131662).",
	  "Use a torch build that does not import libomp140 (2.4.1 or later), or ship libomp140.x86_64.dll "
	  "with the application." },
	{ "torch-uncovered", "TorchUncovered", "error",
	  "No matrix row covers this torch version.",
	  "The runtime requirements of this torch version are unknown to the matrix in use.",
	  "Add a row for this version to your matrix file (see matrix/torch.yml)." },
	{ "known-issue", "KnownIssue", "warning",
	  "A known issue of the matrix row applies.",
	  "The matrix records a symptom, cause and fix for this torch version, with sources.",
	  "Apply the fix given in the finding; the matrix row links the sources." },
	{ "unverified", "Unverified", "note",
	  "A requirement of the matrix row could not be checked on this machine.",
	  "No registry was available to read the VC++ redistributable's version (unknown is not missing), "
	  "or the runtime DLL that will be loaded has no version resource.",
	  "Give --registry FILE (a reg export or a Wine system.reg) so the redistributable can be checked." },
	{ "loads-via-path", "LoadsViaPath", "warning",
	  "The DLL loads only through torch's PATH fallback: it depends on PATH.",
	  "The first LoadLibraryExW (add_dll_directory directories only) fails and torch's retry with "
	  "PATH succeeds: a different PATH (a service, another shell) breaks import torch.",
	  "Put the DLL in torch\\lib or the environment's Library\\bin instead of relying on PATH." },
	{ "delay-load-missing", "DelayLoadMissing", "warning",
	  "A delay-loaded DLL or function is missing: it fails on first call, not at import.",
	  "Delay imports are resolved when first used; the feature that uses them will crash with "
	  "exception 0xC06D007E/0xC06D007F.",
	  "Install the DLL if the feature is used; otherwise this can be accepted." },
	{ "shadowed-dll", "ShadowedDll", "warning",
	  "The same DLL exists at several places on the search path and an older one wins.",
	  "Search order picks the first copy found; a newer copy later on the path is ignored.",
	  "Remove or update the older copy named in the finding." },
	{ "vc-runtime-probe", "VcRuntimeProbe", "warning",
	  "torch's own probe for vcruntime140/msvcp140/vcruntime140_1 would print its warning.",
	  "torch checks these DLLs with ctypes and prints 'Microsoft Visual C++ Redistributable is not "
	  "installed' when one is missing.",
	  "Install the latest Microsoft Visual C++ 2015-2022 Redistributable." },
	{ "prediction-mismatch", "PredictionMismatch", "warning",
	  "The real loader on this machine disagrees with the checker's prediction (check --confirm).",
	  "torch-dll-check --confirm loaded the binary for real in a child process (or ran python -c "
	  "\"import torch\") and got another result than its static emulation predicted.",
	  "Trust the live result for this machine, and report the disagreement with the JSON report so "
	  "that the checker's model can be fixed." },
};
const size_t report_rules_n = sizeof(report_rules) / sizeof(report_rules[0]);

int report_rule_index(const char *id)
{
	size_t i;
	if (!id)
		return -1;
	for (i = 0; i < report_rules_n; i++)
		if (!strcmp(report_rules[i].id, id))
			return (int)i;
	return -1;
}

void report_opts_init(struct report_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = REPORT_FMT_AUTO;
	o->fail_on = FAIL_ON_ERROR;
	o->color = -1;
}

int report_format_parse(const char *s, enum report_format *out)
{
	static const struct { const char *w; enum report_format f; } t[] = {
		{ "auto", REPORT_FMT_AUTO }, { "text", REPORT_FMT_TEXT }, { "json", REPORT_FMT_JSON },
		{ "github", REPORT_FMT_GITHUB }, { "sarif", REPORT_FMT_SARIF },
	};
	size_t i;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].w)) {
			*out = t[i].f;
			return 0;
		}
	return -1;
}

int report_fail_on_parse(const char *s, enum report_fail_on *out)
{
	if (!strcmp(s, "error"))
		*out = FAIL_ON_ERROR;
	else if (!strcmp(s, "warning"))
		*out = FAIL_ON_WARNING;
	else if (!strcmp(s, "never"))
		*out = FAIL_ON_NEVER;
	else
		return -1;
	return 0;
}

const char *report_str(const cJSON *obj, const char *key)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

long report_int(const cJSON *obj, const char *key, long def)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	if (!cJSON_IsNumber(v) || v->valuedouble != v->valuedouble)
		return def;
	if (v->valuedouble > (double)LONG_MAX / 2 || v->valuedouble < -(double)LONG_MAX / 2)
		return def;
	return (long)v->valuedouble;
}

static int severity_parse(const char *s, enum report_severity *out)
{
	if (!s)
		return -1;
	if (!strcmp(s, "error"))
		*out = SEV_ERROR;
	else if (!strcmp(s, "warning"))
		*out = SEV_WARNING;
	else if (!strcmp(s, "note"))
		*out = SEV_NOTE;
	else
		return -1;
	return 0;
}

/*
 * The torch binaries of every install, sorted by path (case-insensitively, as
 * Windows compares; ties in document order), so that each finding finds its
 * binary by binary search: one pass over the document, not one per finding.
 */
struct bin_ref {
	const char *path;
	const cJSON *b;
	size_t pos;
};

static int bin_ref_cmp(const void *pa, const void *pb)
{
	const struct bin_ref *a = pa, *b = pb;
	int c = str_icmp(a->path, b->path);
	return c ? c : a->pos < b->pos ? -1 : a->pos > b->pos;
}

static struct bin_ref *binary_index(const cJSON *doc, size_t *n)
{
	const cJSON *inst, *b;
	struct bin_ref *v = NULL;
	size_t alloc = 0;
	*n = 0;
	cJSON_ArrayForEach(inst, cJSON_GetObjectItemCaseSensitive(doc, "installs"))
	{
		cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(inst, "binaries"))
		{
			const char *p = report_str(b, "path");
			if (!p)
				continue;
			ALLOC_GROW(v, *n + 1, alloc);
			v[*n].path = p;
			v[*n].b = b;
			v[*n].pos = *n;
			(*n)++;
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), bin_ref_cmp);
	return v;
}

/* The first torch binary named `path` in document order, or NULL. */
static const cJSON *find_binary(const struct bin_ref *idx, size_t n, const char *path)
{
	size_t lo = 0, hi = n;
	if (!path)
		return NULL;
	while (lo < hi) { /* the first entry not below path */
		size_t mid = lo + (hi - lo) / 2;
		if (str_icmp(idx[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !str_icmp(idx[lo].path, path) ? idx[lo].b : NULL;
}

static int item_cmp(const void *pa, const void *pb)
{
	const struct report_item *a = pa, *b = pb;
	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->failing_binary != b->failing_binary)
		return a->failing_binary ? -1 : 1;
	if (a->failing_binary && a->binary_order != b->binary_order)
		return a->binary_order < b->binary_order ? -1 : 1;
	if (a->rule_rank != b->rule_rank)
		return a->rule_rank < b->rule_rank ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/*
 * A cap far above any real report (a tree of 100,000 unreadable DLLs gives
 * 100,001 findings): every step below is O(n log n), and the input is
 * capped at REPORT_INPUT_MAX bytes anyway.
 */
#define REPORT_FINDINGS_MAX 1000000

int report_view_init(struct report_view *v, const cJSON *doc, struct err *err)
{
	const cJSON *findings, *f, *installs;
	const char *schema;
	size_t alloc = 0, nbin = 0;
	struct bin_ref *bins = NULL;
	memset(v, 0, sizeof(*v));
	if (!cJSON_IsObject(doc))
		return err_set(err, "the report is not a JSON object");
	schema = report_str(doc, "schema");
	if (!schema)
		return err_set(err, "the report has no \"schema\" (expected \"%s\")", REPORT_SCHEMA);
	if (strcmp(schema, REPORT_SCHEMA))
		return err_set(err, "unsupported report schema (expected \"%s\")", REPORT_SCHEMA);
	findings = cJSON_GetObjectItemCaseSensitive(doc, "findings");
	if (!cJSON_IsArray(findings))
		return err_set(err, "the report's \"findings\" is missing or not an array");
	installs = cJSON_GetObjectItemCaseSensitive(doc, "installs");
	if (installs && !cJSON_IsArray(installs) && !cJSON_IsNull(installs))
		return err_set(err, "the report's \"installs\" is not an array");
	if (cJSON_GetArraySize(findings) > REPORT_FINDINGS_MAX)
		return err_set(err, "the report has more than %d findings", REPORT_FINDINGS_MAX);
	v->doc = doc;
	bins = binary_index(doc, &nbin);
	cJSON_ArrayForEach(f, findings)
	{
		struct report_item it;
		const cJSON *b;
		const char *rule = report_str(f, "rule");
		if (!cJSON_IsObject(f)) {
			free(bins);
			report_view_release(v);
			return err_set(err, "finding %zu is not an object", v->n);
		}
		if (!rule || !*rule) {
			free(bins);
			report_view_release(v);
			return err_set(err, "finding %zu has no \"rule\"", v->n);
		}
		memset(&it, 0, sizeof(it));
		if (severity_parse(report_str(f, "severity"), &it.sev)) {
			free(bins);
			report_view_release(v);
			return err_set(err, "finding %zu: \"severity\" must be \"error\", \"warning\" or \"note\"", v->n);
		}
		it.f = f;
		it.index = v->n;
		it.rule_rank = report_rule_index(rule);
		if (it.rule_rank < 0)
			it.rule_rank = INT_MAX;
		it.binary_order = INT_MAX;
		b = find_binary(bins, nbin, report_str(f, "binary"));
		if (b && report_int(b, "winerror", 0) != 0) {
			it.failing_binary = 1;
			it.binary_order = (int)report_int(b, "order", INT_MAX);
		}
		ALLOC_GROW(v->items, v->n + 1, alloc);
		v->items[v->n++] = it;
		v->count[it.sev]++;
	}
	free(bins);
	if (v->n)
		qsort(v->items, v->n, sizeof(*v->items), item_cmp);
	return 0;
}

void report_view_release(struct report_view *v)
{
	free(v->items);
	memset(v, 0, sizeof(*v));
}

const char *report_status(const struct report_view *v)
{
	if (v->count[SEV_ERROR])
		return "fail";
	if (v->count[SEV_WARNING])
		return "warn";
	return "pass";
}

int report_exit_status(const struct report_view *v, enum report_fail_on fail_on)
{
	switch (fail_on) {
	case FAIL_ON_NEVER:
		return 0;
	case FAIL_ON_WARNING:
		return (v->count[SEV_ERROR] || v->count[SEV_WARNING]) ? 1 : 0;
	case FAIL_ON_ERROR:
	default:
		return v->count[SEV_ERROR] ? 1 : 0;
	}
}

int report_anchor_in_repo(const char *file)
{
	const char *p;
	if (!file || !*file || strlen(file) > 4096)
		return 0;
	if (file[0] == '/' || file[0] == '\\' || file[0] == '<' || file[0] == '~')
		return 0;
	if (strchr(file, ':')) /* C:\..., file://, <embedded>: never a repository path */
		return 0;
	if (strstr(file, "##[")) /* would carry the legacy command form onto the annotation line */
		return 0;
	for (p = file; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	/* no ".." component, whichever separator */
	p = file;
	while (*p) {
		size_t n = strcspn(p, "/\\");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p += n;
		if (*p)
			p++;
	}
	return 1;
}

/* ---- escaping ---- */

static const char zwsp[] = "\xe2\x80\x8b"; /* U+200B ZERO WIDTH SPACE */

/* Control characters (C0, DEL; C1 as UTF-8 C2 80..9F) as visible escapes; returns bytes consumed, 0 if none. */
static size_t put_control(struct strbuf *out, const unsigned char *s)
{
	if (*s < 0x20 || *s == 0x7f) {
		switch (*s) {
		case '\n': strbuf_adds(out, "\\n"); break;
		case '\r': strbuf_adds(out, "\\r"); break;
		case '\t': strbuf_adds(out, "\\t"); break;
		default: strbuf_addf(out, "\\x%02x", *s); break;
		}
		return 1;
	}
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f) {
		strbuf_addf(out, "\\u%04x", s[1]);
		return 2;
	}
	return 0;
}

void report_esc_line(struct strbuf *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	while (*s) {
		size_t n = put_control(out, s);
		if (n) {
			s += n;
			continue;
		}
		strbuf_addch(out, *s);
		if (s[0] == ':' && s[1] == ':')
			strbuf_adds(out, zwsp);
		else if (s[0] == '#' && s[1] == '#' && s[2] == '[')
			strbuf_adds(out, zwsp);
		s++;
	}
}

void report_esc_gh_data(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '%': strbuf_adds(out, "%25"); break;
		case '\r': strbuf_adds(out, "%0D"); break;
		case '\n': strbuf_adds(out, "%0A"); break;
		default: strbuf_addch(out, *s); break;
		}
	}
}

void report_esc_gh_prop(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '%': strbuf_adds(out, "%25"); break;
		case '\r': strbuf_adds(out, "%0D"); break;
		case '\n': strbuf_adds(out, "%0A"); break;
		case ':': strbuf_adds(out, "%3A"); break;
		case ',': strbuf_adds(out, "%2C"); break;
		default: strbuf_addch(out, *s); break;
		}
	}
}

void report_esc_md(struct strbuf *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	while (*s) {
		size_t n;
		if (*s == '\n' || *s == '\r') {
			strbuf_addch(out, ' ');
			s++;
			continue;
		}
		n = put_control(out, s);
		if (n) {
			s += n;
			continue;
		}
		if (*s < 0x80 && strchr("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", *s))
			strbuf_addch(out, '\\');
		strbuf_addch(out, *s);
		s++;
	}
}

void report_esc_html(struct strbuf *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	while (*s) {
		size_t n = put_control(out, s);
		if (n) {
			s += n;
			continue;
		}
		switch (*s) {
		case '&': strbuf_adds(out, "&amp;"); break;
		case '<': strbuf_adds(out, "&lt;"); break;
		case '>': strbuf_adds(out, "&gt;"); break;
		case '"': strbuf_adds(out, "&quot;"); break;
		case '\'': strbuf_adds(out, "&#39;"); break;
		default: strbuf_addch(out, *s); break;
		}
		s++;
	}
}

void report_esc_uri(struct strbuf *out, const char *path)
{
	const unsigned char *s = (const unsigned char *)(path ? path : "");
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_addch(out, '/');
		else if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
			 strchr("-._~/", *s))
			strbuf_addch(out, *s);
		else
			strbuf_addf(out, "%%%02X", *s);
	}
}
