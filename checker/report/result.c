/*
 * result: builds the JSON report document from torch runs (see result.h).
 *
 * Every finding carries its evidence (the chain from the torch binary to
 * the leaf, every probe, versions) and one concrete fix, so the renderers
 * never need to look anything up again.
 */
#include "report/result.h"
#include "report/result_preload.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/loader_rules.h"
#include "report/report.h"
#include "report/result_commit.h"
#include "report/result_ext.h"
#include "util/tdc.h"
#include "util/strbuf.h"
#include "util/version.h"
#include "util/jsonout.h"

cJSON *result_machine_json(struct view *v, const struct loader *ld)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "source", view_is_live(v) ? "live" : "offline");
	cJSON_AddItemToObject(m, "root", json_str_or_null(view_root(v)));
	cJSON_AddStringToObject(m, "arch", pe_machine_name(ld ? loader_machine(ld) : PE_MACHINE_AMD64));
	cJSON_AddItemToObject(m, "api_set_schema", json_str_or_null(ld ? loader_apiset_source(ld) : NULL));
	cJSON_AddItemToObject(m, "known_dlls", json_str_or_null(ld ? loader_known_dlls_source(ld) : NULL));
	cJSON_AddStringToObject(m, "registry", view_registry_source(v));
	return m;
}

void result_init(struct result *res, struct view *v, const struct loader *ld)
{
	cJSON *r = cJSON_CreateObject(), *tool;
	cJSON_AddStringToObject(r, "schema", "torch-dll-check/report/v1");
	tool = cJSON_AddObjectToObject(r, "tool");
	cJSON_AddStringToObject(tool, "name", "torch-dll-check");
	cJSON_AddStringToObject(tool, "version", TDC_VERSION);
	cJSON_AddStringToObject(r, "status", "pass");
	cJSON_AddObjectToObject(r, "counts");
	cJSON_AddItemToObject(r, "machine", result_machine_json(v, ld));
	cJSON_AddArrayToObject(r, "installs");
	cJSON_AddArrayToObject(r, "findings");
	res->doc = r;
	res->v = v;
	res->findings = (struct findings)FINDINGS_INIT;
	res->installs = NULL;
	res->ninstalls = res->alloc = 0;
	res->pins = NULL;
	memset(&res->gate, 0, sizeof(res->gate));
	res->inventory = NULL;
	osver_init(&res->windows);
}

void result_release(struct result *r)
{
	size_t i;
	cJSON_Delete(r->doc);
	r->doc = NULL;
	findings_release(&r->findings);
	for (i = 0; i < r->ninstalls; i++) {
		check_install_release(r->installs[i]);
		free(r->installs[i]);
	}
	free(r->installs);
	r->installs = NULL;
	r->ninstalls = r->alloc = 0;
	gate_report_release(&r->gate);
	r->pins = NULL;
	cJSON_Delete(r->inventory);
	r->inventory = NULL;
	osver_release(&r->windows);
}

cJSON *result_probes_json(const struct ldr_node *node)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; node && i < node->nprobes; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "path", node->probes[i].path);
		cJSON_AddStringToObject(p, "step", node->probes[i].step);
		cJSON_AddItemToObject(p, "why", json_str_or_null(node->probes[i].why));
		cJSON_AddBoolToObject(p, "minor", node->probes[i].minor);
		cJSON_AddStringToObject(p, "result", node->probes[i].result);
		cJSON_AddItemToArray(a, p);
	}
	return a;
}

static cJSON *chain_json(const struct ldr_node *node)
{
	struct strlist l = STRLIST_INIT;
	cJSON *a = cJSON_CreateArray();
	size_t i;
	if (node)
		ldr_node_chain(node, &l);
	for (i = 0; i < l.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l.v[i]));
	strlist_release(&l);
	return a;
}

/* The members of an install's entry before its `status`: what the install is. */
static cJSON *install_facts(struct view *v, const struct torch_run *run, const struct policy_verdict *pv)
{
	cJSON *inst = cJSON_CreateObject(), *arr;
	char *host = view_host_path(v, run->torch_dir);
	size_t i;
	cJSON_AddStringToObject(inst, "torch_dir", run->torch_dir);
	cJSON_AddItemToObject(inst, "host_path", json_str_or_null(view_is_live(v) ? NULL : host));
	free(host);
	cJSON_AddItemToObject(inst, "version", json_str_or_null(pv ? pv->version : NULL));
	if (pv && pv->variant)
		cJSON_AddStringToObject(inst, "variant", pv->variant);
	else
		cJSON_AddItemToObject(inst, "variant", json_str_or_null(run->cuda_version ? "cuda" : NULL));
	cJSON_AddStringToObject(inst, "arch", pe_machine_name(loader_machine(run->ld)));
	cJSON_AddItemToObject(inst, "python", json_str_or_null(run->python_exe));
	cJSON_AddItemToObject(inst, "application_dir", json_str_or_null(run->app_dir));
	if (run->launched) { /* a frozen app's launcher started the process (docs/report-json.md) */
		cJSON *l = cJSON_AddObjectToObject(inst, "launcher");
		cJSON_AddItemToObject(l, "what", json_str_or_null(run->launcher_what));
		cJSON_AddItemToObject(l, "exe", json_str_or_null(run->python_exe));
		cJSON_AddItemToObject(l, "dll_directory", json_str_or_null(run->dll_directory));
		cJSON_AddItemToObject(l, "prefix", json_str_or_null(run->exec_prefix));
	}
	cJSON_AddItemToObject(inst, "cuda_version", json_str_or_null(run->cuda_version));
	cJSON_AddItemToObject(inst, "python_tag", json_str_or_null(run->python_tag));
	arr = cJSON_AddArrayToObject(inst, "extension_suffixes");
	for (i = 0; i < run->ext_suffixes.n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(run->ext_suffixes.v[i]));
	return inst;
}

/* A binary's or probe's `confirmed` (judge/confirm.h), or NULL when it was not confirmed. */
static cJSON *confirmed_json(const struct confirm_mark *m)
{
	cJSON *c;
	if (!m || !m->set)
		return NULL;
	c = cJSON_CreateObject();
	if (m->has_error)
		cJSON_AddNumberToObject(c, "error", m->error);
	else
		cJSON_AddNullToObject(c, "error");
	json_add_str_or_null(c, "stage", m->stage);
	if (m->has_first)
		cJSON_AddNumberToObject(c, "first_error", m->first_error);
	if (m->agrees < 0)
		cJSON_AddNullToObject(c, "agrees");
	else
		cJSON_AddBoolToObject(c, "agrees", m->agrees);
	if (m->note)
		cJSON_AddStringToObject(c, "note", m->note);
	return c;
}

/* Adds (or replaces) `confirmed` of o. */
static void add_confirmed(cJSON *o, const struct confirm_mark *m)
{
	cJSON *c = confirmed_json(m);
	if (!c)
		return;
	if (cJSON_GetObjectItemCaseSensitive(o, "confirmed"))
		cJSON_ReplaceItemInObjectCaseSensitive(o, "confirmed", c);
	else
		cJSON_AddItemToObject(o, "confirmed", c);
}

/* The mark of item i of a confirmed list, or NULL. */
static const struct confirm_mark *mark_of(const struct confirm_mark *v, size_t n, size_t i)
{
	return v && i < n ? &v[i] : NULL;
}

static cJSON *vc_probe_json(const struct torch_run *run, const struct confirm_result *cr)
{
	cJSON *vc = cJSON_CreateArray();
	size_t i, k = 0;
	for (i = 0; i < 3; i++) {
		const struct ldr_node *root = run->vc[i].res.root;
		cJSON *o;
		if (!run->vc[i].attempted)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", run->vc[i].name);
		cJSON_AddNumberToObject(o, "winerror", run->vc[i].res.winerror);
		cJSON_AddItemToObject(o, "path", json_str_or_null(root ? root->path : NULL));
		cJSON_AddItemToObject(o, "file_version", json_str_or_null(root ? root->version : NULL));
		add_confirmed(o, mark_of(cr->vc, cr->nvc, k++));
		cJSON_AddItemToArray(vc, o);
	}
	return vc;
}

/* A binary that loads through torch's PATH fallback: the 0x1100 attempt torch made first. */
static void first_attempt_json(cJSON *o, const struct torch_binary *b)
{
	const struct ldr_node *fl = b->first.leaf;
	cJSON *fa = cJSON_AddObjectToObject(o, "first_attempt");
	cJSON_AddStringToObject(fa, "flags", "0x1100");
	cJSON_AddNumberToObject(fa, "winerror", b->first.winerror);
	cJSON_AddStringToObject(fa, "outcome", ldr_outcome_name(b->first.outcome));
	cJSON_AddItemToObject(fa, "leaf", json_str_or_null(fl ? loader_leaf_label(fl) : NULL));
	cJSON_AddItemToObject(fa, "chain", fl ? chain_json(fl) : cJSON_CreateArray());
	cJSON_AddItemToObject(fa, "probes", result_probes_json(fl));
}

static void order_dependent_json(cJSON *o, const struct torch_binary *b)
{
	const struct ldr_node *an = b->res.ambiguous_node;
	cJSON *od = cJSON_AddObjectToObject(o, "order_dependent");
	cJSON *cands = cJSON_AddArrayToObject(od, "candidates");
	size_t k;
	cJSON_AddStringToObject(od, "dll", loader_ambiguous_dll(an));
	for (k = 0; an && k < an->order_candidates.n; k++)
		cJSON_AddItemToArray(cands, cJSON_CreateString(an->order_candidates.v[k]));
	cJSON_AddBoolToObject(od, "verdict_differs", b->res.order_dependent);
	cJSON_AddNumberToObject(od, "winerror_other_order", b->res.order_dependent ? b->res.alt_winerror : b->winerror);
}

static cJSON *binary_json(const struct torch_binary *b, const struct confirm_mark *confirmed)
{
	/* init-failed: the node that leads to the module whose DllMain fails (judge/dllmain.c says why) */
	const struct ldr_node *leaf = b->init_failed ? b->init_failed : b->res.leaf;
	cJSON *o = cJSON_CreateObject();
	char flags[16];
	snprintf(flags, sizeof(flags), "0x%x", b->flags);
	cJSON_AddStringToObject(o, "path", b->path);
	cJSON_AddStringToObject(o, "kind", b->is_pyd ? "pyd" : "dll");
	cJSON_AddNumberToObject(o, "order", b->order);
	cJSON_AddStringToObject(o, "flags", flags);
	cJSON_AddStringToObject(o, "stage", torch_stage_name(b->stage));
	cJSON_AddNumberToObject(o, "winerror", b->winerror);
	cJSON_AddStringToObject(o, "outcome", b->outcome);
	if (b->init_module) {
		cJSON_AddStringToObject(o, "leaf", winpath_basename(b->init_module));
		cJSON_AddStringToObject(o, "leaf_path", b->init_module);
	} else {
		cJSON_AddItemToObject(o, "leaf", json_str_or_null(leaf ? loader_leaf_label(leaf) : NULL));
		cJSON_AddItemToObject(o, "leaf_path", json_str_or_null(leaf ? leaf->path : NULL));
	}
	cJSON_AddItemToObject(o, "symbol", json_str_or_null(b->res.symbol));
	cJSON_AddItemToObject(o, "chain", leaf ? chain_json(leaf) : cJSON_CreateArray());
	cJSON_AddItemToObject(o, "probes", result_probes_json(leaf));
	cJSON_AddItemToObject(o, "file_version", json_str_or_null(b->res.root ? b->res.root->version : NULL));
	if (b->stage == TORCH_STAGE_PATH_FALLBACK)
		first_attempt_json(o, b);
	if (b->res.order_ambiguous)
		order_dependent_json(o, b);
	add_confirmed(o, confirmed);
	return o;
}

/* The members after `status`: the row that judged it and what the loader did. */
static void install_verdicts(cJSON *o, const struct torch_run *run, const struct policy_verdict *pv,
			     const struct confirm_result *cr)
{
	cJSON *arr;
	size_t i;
	cJSON_AddItemToObject(o, "matrix_row", pv && pv->row ? matrix_row_json(pv->row, 0) : cJSON_CreateNull());
	{
		/* the release's own _load_dll_libraries that was followed (loader/torchproc.h, the matrix's torch_load) */
		const struct torch_proc *p = run->proc;
		cJSON *pr = cJSON_AddObjectToObject(o, "procedure");
		cJSON_AddStringToObject(pr, "torch", p->torch);
		if (*p->entry)
			cJSON_AddStringToObject(pr, "entry", p->entry);
		else
			cJSON_AddNullToObject(pr, "entry");
		if (p->line) {
			char *src = xasprintf("torch/__init__.py:%u of torch %s", p->line,
					      run->torch_version ? run->torch_version : "?");
			cJSON_AddStringToObject(pr, "source", src);
			free(src);
		} else {
			cJSON_AddNullToObject(pr, "source");
		}
		if (*p->lines)
			cJSON_AddStringToObject(pr, "lines", p->lines);
		cJSON_AddBoolToObject(pr, "measured", p->line != 0);
		if (*p->note)
			cJSON_AddStringToObject(pr, "note", p->note);
	}
	arr = cJSON_AddArrayToObject(o, "dll_paths");
	for (i = 0; i < run->dll_paths.n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(run->dll_paths.v[i]));
	if (run->preload_ran)
		cJSON_AddItemToObject(o, "package_preload", result_preload_json(&run->preload));
	cJSON_AddBoolToObject(o, "path_fallback_used", run->path_patched);
	if (run->import_error_index >= 0) {
		cJSON *ie = cJSON_AddObjectToObject(o, "import_error");
		cJSON_AddNumberToObject(ie, "winerror", run->import_error_winerror);
		cJSON_AddStringToObject(ie, "text", run->import_error_text);
		cJSON_AddStringToObject(ie, "binary", run->bins[run->import_error_index].path);
	} else {
		cJSON_AddNullToObject(o, "import_error");
	}
	cJSON_AddItemToObject(o, "vc_runtime_probe", vc_probe_json(run, cr));
	arr = cJSON_AddArrayToObject(o, "binaries");
	for (i = 0; i < run->nbins; i++)
		cJSON_AddItemToArray(arr, binary_json(&run->bins[i], mark_of(cr->bins, cr->nbins, i)));
}

/* A record_summary as the report's `record` object. */
static cJSON *record_json(const struct record_summary *s)
{
	cJSON *o = cJSON_CreateObject();
	if (s->name)
		cJSON_AddStringToObject(o, "name", s->name);
	if (s->name && s->version)
		cJSON_AddStringToObject(o, "version", s->version);
	cJSON_AddStringToObject(o, "dist_info", s->dist_info);
	if (s->error)
		cJSON_AddStringToObject(o, "error", s->error);
	cJSON_AddNumberToObject(o, "rows", (double)s->rows);
	cJSON_AddNumberToObject(o, "checked", (double)s->checked);
	cJSON_AddNumberToObject(o, "deleted", (double)s->deleted);
	cJSON_AddNumberToObject(o, "changed", (double)s->changed);
	cJSON_AddNumberToObject(o, "leftover", (double)s->leftover);
	cJSON_AddNumberToObject(o, "refused", (double)s->refused);
	cJSON_AddBoolToObject(o, "hashes", s->hashes);
	cJSON_AddNumberToObject(o, "hashed", (double)s->hashed);
	cJSON_AddNumberToObject(o, "hashed_bytes", (double)s->hashed_bytes);
	if (s->scan_capped)
		cJSON_AddBoolToObject(o, "scan_capped", 1);
	return o;
}

void result_add_install(struct result *res, struct check_install *ci)
{
	ALLOC_GROW(res->installs, res->ninstalls + 1, res->alloc);
	res->installs[res->ninstalls++] = ci;
}

/* `confirmation` and `import_check`: what live confirmation did with the install. */
static void confirmation_json(cJSON *inst, const struct confirm_result *c)
{
	if (c->helper) {
		cJSON *summary = cJSON_CreateObject();
		cJSON_AddStringToObject(summary, "method", "helper");
		if (c->timed_out)
			cJSON_AddNullToObject(summary, "exit_code");
		else
			cJSON_AddNumberToObject(summary, "exit_code", (double)c->exit_code);
		cJSON_AddBoolToObject(summary, "timed_out", c->timed_out);
		cJSON_AddNumberToObject(summary, "binaries_confirmed", c->nconf);
		cJSON_AddNumberToObject(summary, "mismatches", c->nmis);
		cJSON_AddItemToObject(inst, "confirmation", summary);
	}
	if (c->import) {
		cJSON *ic = cJSON_CreateObject();
		if (!c->ic.python) {
			cJSON_AddNullToObject(ic, "python");
			cJSON_AddStringToObject(ic, "skipped", c->ic.skipped ? c->ic.skipped : "");
		} else {
			cJSON_AddStringToObject(ic, "python", c->ic.python);
			cJSON_AddStringToObject(ic, "command", "import torch");
			if (c->ic.timed_out)
				cJSON_AddNullToObject(ic, "exit_code");
			else
				cJSON_AddNumberToObject(ic, "exit_code", (double)c->ic.exit_code);
			cJSON_AddBoolToObject(ic, "timed_out", c->ic.timed_out);
			json_add_str_or_null(ic, "stderr_last_line", c->ic.last_line);
			if (c->ic.winerror)
				cJSON_AddNumberToObject(ic, "winerror", c->ic.winerror);
			else
				cJSON_AddNullToObject(ic, "winerror");
			cJSON_AddBoolToObject(ic, "agrees", c->ic.agrees);
		}
		cJSON_AddItemToObject(inst, "import_check", ic);
	}
}

void result_confirm_json(cJSON *install, const struct confirm_result *c)
{
	cJSON *b;
	size_t i = 0;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(install, "binaries"))
		add_confirmed(b, mark_of(c->bins, c->nbins, i++));
	i = 0;
	cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(install, "vc_runtime_probe"))
		add_confirmed(b, mark_of(c->vc, c->nvc, i++));
	confirmation_json(install, c);
	result_add_commit_measured(install, c);
}

static const char *jstr(const cJSON *o, const char *k)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* A number member as an int (0: absent), kept in int's range. */
static int jint(const cJSON *o, const char *k)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, k);
	double v = cJSON_IsNumber(n) ? n->valuedouble : 0;
	if (!(v >= INT_MIN))
		return INT_MIN;
	return v > INT_MAX ? INT_MAX : (int)v;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void result_confirm_prediction(const cJSON *install, struct confirm_prediction *p)
{
	const cJSON *x, *ie = cJSON_GetObjectItemCaseSensitive(install, "import_error");
	size_t n;
	memset(p, 0, sizeof(*p));
	p->torch_dir = dup_or_null(jstr(install, "torch_dir"));
	p->python = dup_or_null(jstr(install, "python"));
	p->app_dir = dup_or_null(jstr(install, "application_dir"));
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(install, "dll_paths"))
		if (cJSON_GetStringValue(x))
			strlist_push(&p->dll_paths, cJSON_GetStringValue(x));
	n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(install, "binaries"));
	p->bins = xcalloc(n + 1, sizeof(*p->bins));
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(install, "binaries"))
	{
		struct confirm_bin *b = &p->bins[p->nbins++];
		const char *k = jstr(x, "kind");
		b->path = dup_or_null(jstr(x, "path"));
		b->pyd = k && !strcmp(k, "pyd");
		b->winerror = jint(x, "winerror");
		b->stage = dup_or_null(jstr(x, "stage"));
		b->outcome = dup_or_null(jstr(x, "outcome"));
	}
	n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(install, "vc_runtime_probe"));
	p->vc = xcalloc(n + 1, sizeof(*p->vc));
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(install, "vc_runtime_probe"))
	{
		struct confirm_bin *b = &p->vc[p->nvc++];
		b->path = dup_or_null(jstr(x, "name"));
		b->winerror = jint(x, "winerror");
	}
	p->import_fails = cJSON_IsObject(ie);
	p->import_winerror = p->import_fails ? jint(ie, "winerror") : 0;
}

static cJSON *winerror_or_null(int w)
{
	return w >= 0 ? cJSON_CreateNumber(w) : cJSON_CreateNull();
}

/* The finding as the report's JSON object, with its `cause` id (docs/report-json.md). */
cJSON *result_finding_json(const struct finding *f)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	cJSON_AddStringToObject(o, "rule", rule_get(f->rule)->id);
	cJSON_AddStringToObject(o, "severity", severity_name(f->severity));
	cJSON_AddItemToObject(o, "winerror", f->winerror ? cJSON_CreateNumber(f->winerror) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "title", json_str_or_null(f->title));
	cJSON_AddItemToObject(o, "message", json_str_or_null(f->message));
	cJSON_AddItemToObject(o, "fix", json_str_or_null(f->fix));
	cJSON_AddItemToObject(o, "install", json_str_or_null(f->install));
	cJSON_AddItemToObject(o, "binary", json_str_or_null(f->binary));
	cJSON_AddItemToObject(o, "leaf", json_str_or_null(f->leaf));
	if (f->leaf && f->symbol) /* the export `leaf` lacks: part of the root cause */
		cJSON_AddStringToObject(o, "symbol", f->symbol);
	a = cJSON_AddArrayToObject(o, "chain");
	for (i = 0; i < f->chain.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(f->chain.v[i]));
	a = cJSON_AddArrayToObject(o, "probes");
	for (i = 0; i < f->nprobes; i++) {
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "path", f->probes[i].path);
		cJSON_AddStringToObject(p, "step", f->probes[i].step);
		cJSON_AddItemToObject(p, "why", json_str_or_null(f->probes[i].why));
		cJSON_AddBoolToObject(p, "minor", f->probes[i].minor);
		cJSON_AddStringToObject(p, "result", f->probes[i].result);
		cJSON_AddItemToArray(a, p);
	}
	if (f->anchor.file) {
		cJSON *an = cJSON_AddObjectToObject(o, "anchor");
		cJSON_AddItemToObject(an, "file", json_str_or_null(f->anchor.file));
		if (f->anchor.line) {
			cJSON_AddNumberToObject(an, "line", f->anchor.line);
			cJSON_AddNumberToObject(an, "col", f->anchor.col);
		} else {
			cJSON_AddNullToObject(an, "line");
			cJSON_AddNullToObject(an, "col");
		}
	} else {
		cJSON_AddNullToObject(o, "anchor");
	}
	if (f->matrix.row) {
		cJSON *m = cJSON_AddObjectToObject(o, "matrix");
		cJSON_AddStringToObject(m, "row", f->matrix.row);
		cJSON_AddStringToObject(m, "file", f->matrix.file ? f->matrix.file : "");
		cJSON_AddNumberToObject(m, "line", f->matrix.line);
	}
	if (f->issue)
		cJSON_AddStringToObject(o, "issue", f->issue);
	if (f->explanation)
		cJSON_AddStringToObject(o, "explanation", f->explanation);
	if (f->profiles.n) /* check --pins: the machine profiles it holds on (docs/profiles.md) */
		json_add_strlist(o, "profiles", &f->profiles);
	if (f->rule == RULE_PREDICTION_MISMATCH) {
		cJSON_AddItemToObject(o, "predicted_winerror", winerror_or_null(f->predicted_winerror));
		cJSON_AddItemToObject(o, "real_winerror", winerror_or_null(f->real_winerror));
	}
	{
		char id[FINDING_CAUSE_ID_LEN + 1];
		finding_cause_id(f, id);
		cJSON_AddStringToObject(o, "cause", id);
	}
	return o;
}

static cJSON *side_json(const char *rev, const char *sha, const struct strbuf *subject)
{
	cJSON *o = cJSON_CreateObject();
	json_add_str_or_null(o, "rev", rev);
	json_add_str_or_null(o, "commit", sha);
	json_add_str_or_null(o, "subject", strbuf_str(subject));
	return o;
}

static const char *gate_state_name(enum gate_state s)
{
	return s == GATE_FAIL ? "fail" : s == GATE_WARN ? "warn" : s == GATE_PASS ? "pass" : "not-judged";
}

/* A pin's verdict on the runner and on each machine profile (docs/profiles.md). */
static cJSON *verdicts_json(const struct gate_target *t, const struct gate_report *gr)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t k;
	cJSON_AddStringToObject(o, "runner", gate_state_name(t->runner));
	a = cJSON_AddArrayToObject(o, "profiles");
	for (k = 0; k < gr->nprofiles; k++) {
		const struct gate_profile_verdict *v = t->profiles ? &t->profiles[k] : NULL;
		cJSON *p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "name", gr->profiles[k]);
		cJSON_AddStringToObject(p, "verdict", gate_state_name(v ? v->state : GATE_NOT_JUDGED));
		if (v && v->winerror)
			cJSON_AddNumberToObject(p, "winerror", v->winerror);
		else
			cJSON_AddNullToObject(p, "winerror");
		json_add_str_or_null(p, "leaf", v ? v->leaf : NULL);
		json_add_str_or_null(p, "first_error", v ? v->first : NULL);
		cJSON_AddItemToArray(a, p);
	}
	return o;
}

static cJSON *target_json(const struct gate_target *t, const struct gate_report *gr)
{
	cJSON *o = cJSON_CreateObject(), *rows;
	size_t i;
	json_add_str_or_null(o, "file", t->file);
	cJSON_AddNumberToObject(o, "line", t->line);
	cJSON_AddNumberToObject(o, "col", t->col);
	json_add_str_or_null(o, "raw", t->raw);
	json_add_str_or_null(o, "version", t->version);
	json_add_str_or_null(o, "specifier", t->specifier);
	json_add_str_or_null(o, "variant", t->variant);
	if (t->on_windows == -1)
		cJSON_AddNullToObject(o, "on_windows");
	else
		cJSON_AddBoolToObject(o, "on_windows", t->on_windows);
	rows = cJSON_AddArrayToObject(o, "rows");
	for (i = 0; i < t->nrows; i++) {
		cJSON *ro = cJSON_CreateObject();
		cJSON_AddStringToObject(ro, "version", t->rows[i].version);
		json_add_str_or_null(ro, "row", t->rows[i].row);
		cJSON_AddItemToArray(rows, ro);
	}
	if (gr->judged)
		cJSON_AddItemToObject(o, "verdicts", verdicts_json(t, gr));
	return o;
}

void result_add_pins(struct result *res, const struct gate_pins *g, struct gate_report *gr)
{
	gate_report_release(&res->gate);
	res->pins = g;
	res->gate = *gr;
	memset(gr, 0, sizeof(*gr));
}

static cJSON *pins_json(const struct gate_pins *g, const struct gate_report *gr)
{
	cJSON *pj = cJSON_CreateObject(), *targets;
	size_t i;
	json_add_str_or_null(pj, "repository", g->repo);
	cJSON_AddItemToObject(pj, "head", side_json(g->head_rev, g->head_sha, &g->head_subject));
	if (g->has_base) {
		cJSON *ch = cJSON_CreateObject();
		cJSON_AddItemToObject(pj, "base", side_json(g->base_rev, g->base_sha, &g->base_subject));
		cJSON_AddBoolToObject(ch, "pins", g->pins_touched);
		cJSON_AddBoolToObject(ch, "matrix", g->matrix_touched);
		cJSON_AddItemToObject(pj, "changed", ch);
	} else {
		cJSON_AddNullToObject(pj, "base");
		cJSON_AddNullToObject(pj, "changed");
	}
	cJSON_AddBoolToObject(pj, "judged", gr->judged);
	if (gr->python) {
		cJSON *po = cJSON_AddObjectToObject(pj, "python");
		json_add_str_or_null(po, "path", gr->python);
		cJSON_AddStringToObject(po, "from", gr->python_from);
	} else {
		cJSON_AddNullToObject(pj, "python");
	}
	targets = cJSON_AddArrayToObject(pj, "profiles");
	for (i = 0; i < gr->nprofiles; i++) {
		cJSON *po = cJSON_CreateObject();
		cJSON_AddStringToObject(po, "name", gr->profiles[i]);
		cJSON_AddStringToObject(po, "title", gr->profile_titles[i]);
		cJSON_AddItemToArray(targets, po);
	}
	targets = cJSON_AddArrayToObject(pj, "targets");
	for (i = 0; i < gr->ntargets; i++)
		cJSON_AddItemToArray(targets, target_json(&gr->targets[i], gr));
	return pj;
}

void result_add_profile_check(struct result *res, const char *profile, const char *title, const char *torch_dir,
			      enum gate_state state, int winerror, const char *leaf, const char *first, const char *note)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(res->doc, "profile_checks"), *o = cJSON_CreateObject();
	if (!a)
		a = cJSON_AddArrayToObject(res->doc, "profile_checks");
	cJSON_AddStringToObject(o, "profile", profile);
	cJSON_AddStringToObject(o, "title", title);
	json_add_str_or_null(o, "torch_dir", torch_dir);
	cJSON_AddStringToObject(o, "verdict", gate_state_name(state));
	if (winerror)
		cJSON_AddNumberToObject(o, "winerror", winerror);
	else
		cJSON_AddNullToObject(o, "winerror");
	json_add_str_or_null(o, "leaf", leaf);
	json_add_str_or_null(o, "first_error", first);
	json_add_str_or_null(o, "note", note);
	cJSON_AddItemToArray(a, o);
}

void result_add_inventory(struct result *res, cJSON *inventory)
{
	cJSON_Delete(res->inventory);
	res->inventory = inventory;
}

/* The inventory with every install's runtime copies; the document takes it. */
static void write_inventory(struct result *res)
{
	cJSON *all = cJSON_AddArrayToObject(res->inventory, "runtime_copies");
	size_t i;
	for (i = 0; i < res->ninstalls; i++)
		result_ext_copies(all, &res->installs[i]->xc, res->installs[i]->run->torch_dir);
	cJSON_AddItemToObject(res->doc, "inventory", res->inventory);
	res->inventory = NULL;
}

/* An install's status is its worst finding (loader and matrix alike). */
static const char *install_status(const struct result *res, const char *dir)
{
	size_t i;
	int worst = 0;
	for (i = 0; i < res->findings.n; i++) {
		const struct finding *f = &res->findings.v[i];
		if (dir && f->install && !str_icmp(dir, f->install) && (int)f->severity > worst)
			worst = (int)f->severity;
	}
	return worst == 2 ? "fail" : worst ? "warn" : "pass";
}

/* One install's entry: what it is, its status, what the loader did, then what the later passes added. */
static cJSON *install_json(const struct result *res, const struct check_install *ci)
{
	cJSON *o = install_facts(res->v, ci->run, &ci->verdict);
	size_t i;
	cJSON_AddStringToObject(o, "status", install_status(res, ci->run->torch_dir));
	install_verdicts(o, ci->run, &ci->verdict, &ci->confirm);
	if (ci->record.dist_info)
		cJSON_AddItemToObject(o, "record", record_json(&ci->record));
	result_add_extensions(o, &ci->xc);
	if (ci->ext_records.judged) {
		cJSON *a = cJSON_AddArrayToObject(o, "extension_records");
		for (i = 0; i < ci->ext_records.n; i++)
			cJSON_AddItemToArray(a, record_json(&ci->ext_records.v[i]));
	}
	confirmation_json(o, &ci->confirm);
	result_add_commit(o, &ci->commit);
	result_add_commit_measured(o, &ci->confirm);
	return o;
}

/* The document's `machine`: the first install's loader whose API set schema is known (none: without one). */
static cJSON *machine_json(const struct result *res)
{
	cJSON *m = result_machine_json(res->v, NULL);
	size_t i;
	for (i = 0; i < res->ninstalls; i++) {
		if (!cJSON_IsNull(cJSON_GetObjectItem(m, "api_set_schema")))
			break;
		cJSON_Delete(m);
		m = result_machine_json(res->v, res->installs[i]->run->ld);
	}
	if (res->windows.source || res->windows.notes.n) { /* check read it */
		const struct osver *w = &res->windows;
		cJSON *o = cJSON_AddObjectToObject(m, "windows"), *notes;
		char *name = w->known ? osver_name(w) : NULL;
		size_t k;
		cJSON_AddItemToObject(o, "version", json_str_or_null(w->known ? w->text : NULL));
		cJSON_AddItemToObject(o, "name", json_str_or_null(name));
		cJSON_AddItemToObject(o, "source", json_str_or_null(w->source));
		cJSON_AddBoolToObject(o, "wine", w->wine);
		notes = cJSON_AddArrayToObject(o, "notes");
		for (k = 0; k < w->notes.n; k++)
			cJSON_AddItemToArray(notes, cJSON_CreateString(w->notes.v[k]));
		free(name);
	}
	return m;
}

void result_finish(struct result *res)
{
	cJSON *report = res->doc, *counts = cJSON_CreateObject();
	cJSON *fs = cJSON_GetObjectItem(report, "findings");
	int errors = 0, warnings = 0, notes = 0;
	size_t i, nbin = 0, nfail = 0;
	for (i = 0; i < res->findings.n; i++) {
		enum report_severity sev = res->findings.v[i].severity;
		errors += sev == SEV_ERROR;
		warnings += sev == SEV_WARNING;
		notes += sev == SEV_NOTE;
		cJSON_AddItemToArray(fs, result_finding_json(&res->findings.v[i]));
	}
	for (i = 0; i < res->ninstalls; i++) {
		const struct torch_run *run = res->installs[i]->run;
		size_t k;
		nbin += run->nbins;
		for (k = 0; k < run->nbins; k++)
			nfail += run->bins[k].winerror != 0;
		cJSON_AddItemToArray(cJSON_GetObjectItem(report, "installs"), install_json(res, res->installs[i]));
	}
	cJSON_ReplaceItemInObject(report, "machine", machine_json(res));
	if (res->pins)
		cJSON_AddItemToObject(report, "pins", pins_json(res->pins, &res->gate));
	if (res->inventory)
		write_inventory(res);
	cJSON_AddNumberToObject(counts, "errors", errors);
	cJSON_AddNumberToObject(counts, "warnings", warnings);
	cJSON_AddNumberToObject(counts, "notes", notes);
	cJSON_AddNumberToObject(counts, "installs", (double)res->ninstalls);
	cJSON_AddNumberToObject(counts, "binaries", (double)nbin);
	cJSON_AddNumberToObject(counts, "binaries_failing", (double)nfail);
	report_counts_json(counts, report);
	cJSON_ReplaceItemInObject(report, "counts", counts);
	cJSON_ReplaceItemInObject(report, "status",
				  cJSON_CreateString(errors ? "fail" : warnings ? "warn" : "pass"));
}
