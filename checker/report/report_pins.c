/*
 * report_pins: the pins report as text, JSON and notices (see report_pins.h).
 */
#include "report/report_pins.h"

#include <stdlib.h>
#include <string.h>

#include "pins/req_markers.h"
#include "report/report.h"
#include "util/jsonout.h"
#include "util/tdc.h"
#include "util/text.h"

/* "FILE:LINE:COL" of a pin. */
static void put_at(struct strbuf *out, const struct pin *p)
{
	text_addf(out, "%s", p->file);
	text_addf(out, ":%u:%u", p->line, p->col);
}

static void put_pin_line(struct strbuf *out, const struct pin *p)
{
	text_addf(out, "  ");
	put_at(out, p);
	text_addf(out, "  %s", p->raw);
	text_addf(out, "\n      %s", pin_source_name(p->source));
	if (p->group)
		text_addf(out, " [%s]", p->group);
	if (p->version)
		text_addf(out, ", version %s", p->version);
	else if (p->pep440)
		text_addf(out, ", allows %s", p->pep440);
	else if (p->form == PIN_FORM_NAME)
		text_addf(out, ", any version");
	if (p->variant)
		text_addf(out, ", variant %s (from %s)", p->variant, p->variant_from);
	if (p->platform_tag)
		text_addf(out, ", wheel %s-%s", p->python_tag, p->platform_tag);
	if (p->markers) {
		int w = req_markers_on_windows(p->markers);
		text_addf(out, ", %s on Windows", w == 1 ? "applies" : w == 0 ? "does not apply" : "may apply");
	}
	text_addf(out, "\n");
}

static void put_side(struct strbuf *out, const char *label, const struct pins_side *s, int all)
{
	size_t i, j, shown = 0, ntorch = pinset_count_torch(&s->ps);
	text_addf(out, "%s %.12s", label, s->sha);
	if (s->subject.len)
		text_addf(out, " (%s)", s->subject.buf);
	text_addf(out, ": %zu pin file%s, %zu torch pin%s\n", s->ps.n, s->ps.n == 1 ? "" : "s", ntorch,
		  ntorch == 1 ? "" : "s");
	for (i = 0; i < s->ps.n; i++) {
		const struct req_file *f = &s->ps.files[i];
		for (j = 0; j < f->n_pins; j++) {
			if (!all && !pin_is_torch(&f->pins[j]))
				continue;
			put_pin_line(out, &f->pins[j]);
			shown++;
		}
		for (j = 0; j < f->n_inc; j++) {
			const struct req_include *inc = &f->inc[j];
			if (inc->resolved && !inc->missing)
				continue;
			text_addf(out, "  %s", f->path);
			text_addf(out, ":%u:%u  note: %s ", inc->line, inc->col, inc->constraint ? "-c" : "-r");
			text_addf(out, "%s", inc->target);
			text_addf(out, " %s\n", inc->resolved ? "is not in this commit" : "is outside the repository (not read)");
		}
	}
	if (!shown)
		text_addf(out, "  (no %spins)\n", all ? "" : "torch ");
}

static void put_changes(struct strbuf *out, const struct pin_changes *c)
{
	size_t i;
	if (!c->n) {
		text_addf(out, "torch pins: no change\n");
		return;
	}
	text_addf(out, "torch pins changed:\n");
	for (i = 0; i < c->n; i++) {
		const struct pin_change *ch = &c->v[i];
		const struct pin *at = ch->head ? ch->head : ch->base;
		text_addf(out, "  %-8s ", pin_change_name(ch->kind));
		put_at(out, at);
		text_addf(out, "%s  ", ch->head ? "" : " (base)");
		if (ch->kind == PIN_CHANGED)
			text_addf(out, "%s  ->  ", ch->base->raw);
		text_addf(out, "%s\n", at->raw);
	}
}

/* One target's matrix rows, one line each ("2.4.0 -> torch-2.4.0, known issues: ..."). */
static void put_target_rows(struct strbuf *out, const struct matrix *m, const struct torch_target *t)
{
	struct pin_probes pr = { NULL, 0, 0 };
	struct err e;
	size_t j;
	if (pins_target_probes(m, t, "x64", &pr, &e) < 0)
		text_addf(out, "      matrix: %s\n", e.msg);
	for (j = 0; j < pr.n; j++) {
		text_addf(out, "      %s -> ", pr.v[j].version);
		if (pr.v[j].row) {
			struct strbuf ids = STRBUF_INIT;
			text_addf(out, "%s", pr.v[j].row->id);
			if (pins_row_issues(pr.v[j].row, t->variant, "x64", &ids))
				text_addf(out, ", known issues: %s", ids.buf);
			strbuf_release(&ids);
		} else {
			text_addf(out, "no matrix row covers it");
		}
		text_addf(out, "\n");
	}
	pin_probes_release(&pr);
}

static void put_targets(struct strbuf *out, const struct pinset *ps, const struct matrix *m)
{
	struct torch_target *t;
	size_t n = pinset_torch_targets(ps, &t), i;
	if (!n)
		return;
	text_addf(out, "for the Windows runners (one decision per file; matrix rows to satisfy):\n");
	for (i = 0; i < n; i++) {
		text_addf(out, "  %s", t[i].file);
		text_addf(out, ":%u  torch ", t[i].pin->line);
		if (t[i].version)
			text_addf(out, "%s", t[i].version);
		else if (t[i].specifier)
			text_addf(out, "%s", t[i].specifier);
		else
			text_addf(out, "(any version)");
		text_addf(out, ", %s", t[i].variant ? t[i].variant : "default build");
		text_addf(out, ", %s\n", t[i].on_windows == 1 ? "installs on Windows" :
				 t[i].on_windows == 0 ? "not for Windows" : "on Windows depends on markers");
		if (t[i].on_windows != 0 && m)
			put_target_rows(out, m, &t[i]);
	}
	free(t);
}

void report_pins_text(struct strbuf *out, const struct pins_report *r)
{
	put_side(out, "head", r->head, r->all);
	if (r->base) {
		put_side(out, "base", r->base, r->all);
		put_changes(out, r->changes);
	}
	put_targets(out, &r->head->ps, r->matrix);
}

void report_pins_github(struct strbuf *out, const struct pins_report *r)
{
	const struct pin_changes *c = r->changes;
	struct report_annot_budget b;
	size_t wanted[3] = { 0, 0, 0 }, i;
	if (!c)
		return;
	wanted[SEV_NOTE] = c->n;
	report_annot_budget_init(&b, wanted);
	for (i = 0; i < c->n; i++) {
		const struct pin_change *ch = &c->v[i];
		const struct pin *p = ch->head ? ch->head : ch->base;
		struct strbuf msg = STRBUF_INIT, title = STRBUF_INIT;
		if (!report_annot_take(&b, SEV_NOTE))
			continue;
		strbuf_addf(&title, "torch pin %s", pin_change_name(ch->kind));
		if (ch->kind == PIN_CHANGED)
			strbuf_addf(&msg, "%s -> %s", ch->base->raw, ch->head->raw);
		else
			strbuf_addf(&msg, "%s%s", p->raw, ch->head ? "" : " (removed; it was at this line in the base)");
		if (ch->head && r->matrix)
			pins_held_to(&msg, r->matrix, p, "x64", "\n");
		report_annotation(out, SEV_NOTE, ch->head ? p->file : NULL, ch->head ? (long)p->line : 0,
				  ch->head ? (long)p->col : 0, title.buf, msg.buf);
		strbuf_release(&msg);
		strbuf_release(&title);
	}
	if (report_annot_left(&b)) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addf(&msg, "%zu more torch pin changes: see the job log or --json", report_annot_left(&b));
		report_annotation(out, SEV_NOTE, NULL, 0, 0, "torch pins", msg.buf);
		strbuf_release(&msg);
	}
}

/* ---- JSON ---- */

static cJSON *pin_json(const struct pin *p)
{
	cJSON *o = cJSON_CreateObject();
	int w = req_markers_on_windows(p->markers);
	if (p->platform_tag && !pin_platform_on_windows(p->platform_tag))
		w = 0;
	json_add_str_or_null(o, "file", p->file);
	cJSON_AddNumberToObject(o, "line", p->line);
	cJSON_AddNumberToObject(o, "col", p->col);
	json_add_str_or_null(o, "raw", p->raw);
	json_add_str_or_null(o, "name", p->name);
	cJSON_AddBoolToObject(o, "torch", pin_is_torch(p));
	json_add_str_or_null(o, "source", pin_source_name(p->source));
	json_add_str_or_null(o, "form", pin_form_name(p->form));
	json_add_str_or_null(o, "group", p->group);
	json_add_str_or_null(o, "extras", p->extras);
	json_add_str_or_null(o, "spec", p->spec);
	json_add_str_or_null(o, "pep440", p->pep440);
	json_add_str_or_null(o, "version", p->version);
	json_add_str_or_null(o, "variant", p->variant);
	json_add_str_or_null(o, "variant_from", p->variant_from);
	json_add_str_or_null(o, "markers", p->markers);
	if (w == 1 || w == 0)
		cJSON_AddBoolToObject(o, "on_windows", w);
	else
		cJSON_AddNullToObject(o, "on_windows");
	json_add_str_or_null(o, "url", p->url);
	json_add_str_or_null(o, "index_url", p->index_url);
	json_add_str_or_null(o, "python_tag", p->python_tag);
	json_add_str_or_null(o, "abi_tag", p->abi_tag);
	json_add_str_or_null(o, "platform_tag", p->platform_tag);
	json_add_str_or_null(o, "channel", p->channel);
	cJSON_AddNumberToObject(o, "hashes", (double)p->n_hashes);
	return o;
}

static cJSON *side_json(const struct pins_side *s, int all)
{
	cJSON *o = cJSON_CreateObject(), *files = cJSON_CreateArray();
	size_t i, j;
	json_add_str_or_null(o, "rev", s->rev);
	json_add_str_or_null(o, "commit", s->sha);
	json_add_str_or_null(o, "subject", strbuf_str(&s->subject));
	for (i = 0; i < s->ps.n; i++) {
		const struct req_file *f = &s->ps.files[i];
		cJSON *fo = cJSON_CreateObject(), *pins = cJSON_CreateArray(), *inc = cJSON_CreateArray();
		cJSON *idx = cJSON_CreateArray();
		json_add_str_or_null(fo, "path", f->path);
		json_add_str_or_null(fo, "kind", req_kind_name(f->kind));
		json_add_str_or_null(fo, "included_by", f->included_by);
		for (j = 0; j < f->indexes.n; j++)
			{
				cJSON *tmp = cJSON_CreateObject();
				json_add_str_or_null(tmp, "u", f->indexes.v[j]);
				cJSON_AddItemToArray(idx, cJSON_DetachItemFromObject(tmp, "u"));
				cJSON_Delete(tmp);
			}
		cJSON_AddItemToObject(fo, "indexes", idx);
		for (j = 0; j < f->n_inc; j++) {
			cJSON *io = cJSON_CreateObject();
			cJSON_AddNumberToObject(io, "line", f->inc[j].line);
			cJSON_AddNumberToObject(io, "col", f->inc[j].col);
			json_add_str_or_null(io, "target", f->inc[j].target);
			json_add_str_or_null(io, "resolved", f->inc[j].resolved);
			cJSON_AddBoolToObject(io, "constraint", f->inc[j].constraint);
			cJSON_AddBoolToObject(io, "found", f->inc[j].resolved && !f->inc[j].missing);
			cJSON_AddItemToArray(inc, io);
		}
		cJSON_AddItemToObject(fo, "includes", inc);
		for (j = 0; j < f->n_pins; j++)
			if (all || pin_is_torch(&f->pins[j]))
				cJSON_AddItemToArray(pins, pin_json(&f->pins[j]));
		cJSON_AddItemToObject(fo, "pins", pins);
		cJSON_AddItemToArray(files, fo);
	}
	cJSON_AddItemToObject(o, "files", files);
	return o;
}

cJSON *report_pins_json(const struct pins_report *r)
{
	const struct pins_side *head = r->head, *base = r->base;
	const struct pin_changes *ch = r->base ? r->changes : NULL;
	const struct matrix *m = r->matrix;
	int all = r->all;
	cJSON *root = cJSON_CreateObject(), *tool = cJSON_CreateObject(), *changes, *targets;
	struct torch_target *t;
	size_t i, n;
	cJSON_AddStringToObject(root, "schema", PINS_SCHEMA);
	cJSON_AddStringToObject(tool, "name", "torch-dll-check");
	cJSON_AddStringToObject(tool, "version", TDC_VERSION);
	cJSON_AddItemToObject(root, "tool", tool);
	json_add_str_or_null(root, "repository", r->repository);
	cJSON_AddItemToObject(root, "head", side_json(head, all));
	if (base)
		cJSON_AddItemToObject(root, "base", side_json(base, all));
	else
		cJSON_AddNullToObject(root, "base");
	if (ch) {
		changes = cJSON_CreateArray();
		for (i = 0; i < ch->n; i++) {
			const struct pin_change *c = &ch->v[i];
			const struct pin *at = c->head ? c->head : c->base;
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "change", pin_change_name(c->kind));
			json_add_str_or_null(o, "file", at->file);
			cJSON_AddNumberToObject(o, "line", at->line);
			cJSON_AddNumberToObject(o, "col", at->col);
			cJSON_AddStringToObject(o, "anchor", c->head ? "head" : "base");
			cJSON_AddItemToObject(o, "base", c->base ? pin_json(c->base) : cJSON_CreateNull());
			cJSON_AddItemToObject(o, "head", c->head ? pin_json(c->head) : cJSON_CreateNull());
			cJSON_AddItemToArray(changes, o);
		}
		cJSON_AddItemToObject(root, "changes", changes);
	} else {
		cJSON_AddNullToObject(root, "changes");
	}
	targets = cJSON_CreateArray();
	n = pinset_torch_targets(&head->ps, &t);
	for (i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		json_add_str_or_null(o, "file", t[i].file);
		cJSON_AddNumberToObject(o, "line", t[i].pin->line);
		cJSON_AddNumberToObject(o, "col", t[i].pin->col);
		json_add_str_or_null(o, "version", t[i].version);
		json_add_str_or_null(o, "specifier", t[i].specifier);
		json_add_str_or_null(o, "variant", t[i].variant);
		if (t[i].on_windows == -1)
			cJSON_AddNullToObject(o, "on_windows");
		else
			cJSON_AddBoolToObject(o, "on_windows", t[i].on_windows);
		cJSON_AddNumberToObject(o, "strength", t[i].strength);
		if (m && t[i].on_windows != 0) {
			struct pin_probes pr = { NULL, 0, 0 };
			struct err e;
			cJSON *rows = cJSON_CreateArray();
			size_t j;
			if (pins_target_probes(m, &t[i], "x64", &pr, &e) < 0)
				json_add_str_or_null(o, "matrix_error", e.msg);
			for (j = 0; j < pr.n; j++) {
				cJSON *ro = cJSON_CreateObject();
				cJSON_AddStringToObject(ro, "version", pr.v[j].version);
				json_add_str_or_null(ro, "row", pr.v[j].row ? pr.v[j].row->id : NULL);
				json_add_str_or_null(ro, "uncovered", pr.v[j].uncovered);
				{
					cJSON *ki = cJSON_AddArrayToObject(ro, "known_issues");
					size_t k;
					for (k = 0; pr.v[j].row && k < pr.v[j].row->nissues; k++) {
						struct strbuf one = STRBUF_INIT;
						struct matrix_row single = *pr.v[j].row;
						single.issues = &pr.v[j].row->issues[k];
						single.nissues = 1;
						if (pins_row_issues(&single, t[i].variant, "x64", &one))
							cJSON_AddItemToArray(ki, cJSON_CreateString(one.buf));
						strbuf_release(&one);
					}
				}
				cJSON_AddItemToArray(rows, ro);
			}
			cJSON_AddItemToObject(o, "matrix_rows", rows);
			pin_probes_release(&pr);
		}
		cJSON_AddItemToArray(targets, o);
	}
	free(t);
	cJSON_AddItemToObject(root, "targets", targets);
	return root;
}
