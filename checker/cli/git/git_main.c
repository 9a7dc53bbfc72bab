/*
 * git_main: torch-dll-check-git, the part of torch-dll-check that reads git
 * repositories (libgit2). `torch-dll-check pins` runs it (cmd_pins.c), as
 * do `check --pins` (cmd_check.c hands the whole command over; git_gate.c)
 * and the audit commands, so users see one tool; it follows the same command conventions (cmd.h):
 * exit 0 done, 2 usage or input error (not a repository, bad revision,
 * unparsable pin file with FILE:LINE:COL).
 *
 *   torch-dll-check-git pins [--repo DIR] [--rev REV | --base REV [--head REV]
 *                            | --github-event FILE] [--matrix FILE]... [--all] [--json]
 *
 * Without a revision option, a pull request job (GITHUB_EVENT_NAME
 * pull_request or pull_request_target) compares the PR's base and head from
 * $GITHUB_EVENT_PATH; anything else reads HEAD. JSON: docs/pins-json.md.
 *
 * Everything printed from the repository (paths, requirement text) is
 * untrusted: it goes through text.h's escaper, and under GitHub Actions the
 * text output is inside the stop-commands guard (out.h; --json is
 * escaped by jsonout.h instead). After the guard, a PR's torch pin changes
 * become ::notice annotations at their head file:line:col.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/cmd_audit.h"
#include "git/git_repo.h"
#include "pins/github_event.h"
#include "matrix/matrix.h"
#include "util/os.h"
#include "pins/pins.h"
#include "pins/req_markers.h"
#include "util/jsonout.h"
#include "report/report.h"
#include "util/text.h"
#include "cli/out.h"

#define PINS_SCHEMA "torch-dll-check/pins/v1"

struct side {
	const char *rev;   /* as asked */
	char sha[41];
	struct strbuf subject;
	struct pinset ps;
	int loaded;
};

/* "FILE:LINE:COL" of a pin, safely. */
static void put_at(const struct pin *p)
{
	out_printf("%s", p->file);
	out_printf(":%u:%u", p->line, p->col);
}

/* Errors carry repository text too (paths, excerpts): cmd_usage_error escapes them (report.h). */
static int fail(const struct err *err)
{
	return cmd_usage_error("%s", err->msg);
}

static void put_pin_line(const struct pin *p)
{
	out_printf("  ");
	put_at(p);
	out_printf("  ");
	out_printf("%s", p->raw);
	out_printf("\n      %s", pin_source_name(p->source));
	if (p->group) {
		out_printf(" [");
		out_printf("%s", p->group);
		out_printf("]");
	}
	if (p->version) {
		out_printf(", version ");
		out_printf("%s", p->version);
	} else if (p->pep440) {
		out_printf(", allows ");
		out_printf("%s", p->pep440);
	} else if (p->form == PIN_FORM_NAME) {
		out_printf(", any version");
	}
	if (p->variant) {
		out_printf(", variant ");
		out_printf("%s", p->variant);
		out_printf(" (from %s)", p->variant_from);
	}
	if (p->platform_tag) {
		out_printf(", wheel ");
		out_printf("%s", p->python_tag);
		out_printf("-");
		out_printf("%s", p->platform_tag);
	}
	if (p->markers) {
		int w = req_markers_on_windows(p->markers);
		out_printf(", %s on Windows", w == 1 ? "applies" : w == 0 ? "does not apply" : "may apply");
	}
	out_printf("\n");
}

static void print_side(const char *label, const struct side *s, int all)
{
	size_t i, j, shown = 0;
	out_printf("%s %.12s", label, s->sha);
	if (s->subject.len) {
		out_printf(" (");
		out_printf("%s", s->subject.buf);
		out_printf(")");
	}
	out_printf(": %zu pin file%s, %zu torch pin%s\n", s->ps.n, s->ps.n == 1 ? "" : "s", pinset_count_torch(&s->ps),
	       pinset_count_torch(&s->ps) == 1 ? "" : "s");
	for (i = 0; i < s->ps.n; i++) {
		const struct req_file *f = &s->ps.files[i];
		for (j = 0; j < f->n_pins; j++) {
			if (!all && !pin_is_torch(&f->pins[j]))
				continue;
			put_pin_line(&f->pins[j]);
			shown++;
		}
		for (j = 0; j < f->n_inc; j++) {
			const struct req_include *inc = &f->inc[j];
			if (inc->resolved && !inc->missing)
				continue;
			out_printf("  ");
			out_printf("%s", f->path);
			out_printf(":%u:%u  note: %s ", inc->line, inc->col, inc->constraint ? "-c" : "-r");
			out_printf("%s", inc->target);
			out_printf(" %s\n", inc->resolved ? "is not in this commit" : "is outside the repository (not read)");
		}
	}
	if (!shown)
		out_printf("  (no %spins)\n", all ? "" : "torch ");
}

static void print_changes(const struct pin_changes *c)
{
	size_t i;
	if (!c->n) {
		out_printf("torch pins: no change\n");
		return;
	}
	out_printf("torch pins changed:\n");
	for (i = 0; i < c->n; i++) {
		const struct pin_change *ch = &c->v[i];
		const struct pin *at = ch->head ? ch->head : ch->base;
		out_printf("  %-8s ", pin_change_name(ch->kind));
		put_at(at);
		out_printf("%s  ", ch->head ? "" : " (base)");
		if (ch->kind == PIN_CHANGED) {
			out_printf("%s", ch->base->raw);
			out_printf("  ->  ");
		}
		out_printf("%s", at->raw);
		out_printf("\n");
	}
}

/* The matrix for the "can the runners take it?" lines: the built-in one plus --matrix layers. */
static struct matrix the_matrix;
static int matrix_state; /* 0 not loaded, 1 loaded, -1 the built-in one failed (rows not shown) */

static const struct matrix *default_matrix(void)
{
	return matrix_state == 1 ? &the_matrix : NULL;
}

static int matrix_setup(const struct strlist *layers, struct err *err)
{
	size_t i;
	struct err e;
	matrix_init(&the_matrix);
	matrix_state = matrix_load_default(&the_matrix, NULL, &e) ? -1 : 1;
	for (i = 0; matrix_state == 1 && i < layers->n; i++)
		if (matrix_load_file(&the_matrix, layers->v[i], NULL, err) < 0)
			return -1;
	return 0;
}

static void default_matrix_release(void)
{
	if (matrix_state)
		matrix_release(&the_matrix);
	matrix_state = 0;
}

static void print_targets(const struct pinset *ps)
{
	struct torch_target *t;
	size_t n = pinset_torch_targets(ps, &t), i, j;
	if (!n)
		return;
	out_printf("for the Windows runners (one decision per file; matrix rows to satisfy):\n");
	for (i = 0; i < n; i++) {
		struct pin_probes pr = { NULL, 0, 0 };
		struct err e;
		out_printf("  ");
		out_printf("%s", t[i].file);
		out_printf(":%u  torch ", t[i].pin->line);
		if (t[i].version)
			out_printf("%s", t[i].version);
		else if (t[i].specifier)
			out_printf("%s", t[i].specifier);
		else
			out_printf("(any version)");
		out_printf(", ");
		out_printf("%s", t[i].variant ? t[i].variant : "default build");
		out_printf(", %s\n", t[i].on_windows == 1 ? "installs on Windows" :
				 t[i].on_windows == 0 ? "not for Windows" : "on Windows depends on markers");
		if (t[i].on_windows == 0 || !default_matrix())
			continue;
		if (pins_target_probes(default_matrix(), &t[i], "x64", &pr, &e) < 0) {
			out_printf("      matrix: ");
			out_printf("%s", e.msg);
			out_printf("\n");
		}
		for (j = 0; j < pr.n; j++) {
			out_printf("      ");
			out_printf("%s", pr.v[j].version);
			out_printf(" -> ");
			if (pr.v[j].row) {
				struct strbuf ids = STRBUF_INIT;
				out_printf("%s", pr.v[j].row->id);
				if (pins_row_issues(pr.v[j].row, t[i].variant, "x64", &ids)) {
					out_printf(", known issues: ");
					out_printf("%s", ids.buf);
				}
				strbuf_release(&ids);
			} else {
				out_printf("no matrix row covers it");
			}
			out_printf("\n");
		}
		pin_probes_release(&pr);
	}
	free(t);
}

/*
 * GitHub annotations for what a pull request changed, anchored at the pin's
 * line in the head commit (issue 5: "a requirements pin"), printed after the
 * stop-commands block. At most REPORT_ANNOTATIONS_PER_KIND notices (GitHub
 * shows no more per step), then one that counts the rest. Escaping as the
 * Actions toolkit does (report.h).
 */
static void print_annotations(const struct pin_changes *c)
{
	size_t i, shown = 0;
	for (i = 0; i < c->n; i++) {
		const struct pin_change *ch = &c->v[i];
		const struct pin *p = ch->head ? ch->head : ch->base;
		struct strbuf line = STRBUF_INIT, msg = STRBUF_INIT, title = STRBUF_INIT;
		struct torch_target t;
		if (shown == REPORT_ANNOTATIONS_PER_KIND - 1 && c->n - i > 1) {
			struct strbuf more = STRBUF_INIT;
			strbuf_addf(&more, "::notice title=torch pins::%zu more torch pin changes: see the job log or --json\n",
				    c->n - i);
			out_commands(more.buf, more.len);
			strbuf_release(&more);
			break;
		}
		strbuf_addf(&title, "torch pin %s", pin_change_name(ch->kind));
		if (ch->kind == PIN_CHANGED)
			strbuf_addf(&msg, "%s -> %s", ch->base->raw, ch->head->raw);
		else
			strbuf_addf(&msg, "%s%s", p->raw, ch->head ? "" : " (removed; it was at this line in the base)");
		if (ch->head && default_matrix()) {
			struct pin_probes pr = { NULL, 0, 0 };
			struct err e;
			size_t j;
			memset(&t, 0, sizeof(t));
			t.pin = p;
			t.file = p->file;
			t.version = p->version;
			t.specifier = p->pep440;
			t.variant = p->variant;
			if (pins_target_probes(default_matrix(), &t, "x64", &pr, &e) == 0 && pr.n) {
				strbuf_adds(&msg, "\nWindows runners must satisfy matrix rows:");
				for (j = 0; j < pr.n; j++) {
					struct strbuf ids = STRBUF_INIT;
					pins_row_issues(pr.v[j].row, t.variant, "x64", &ids);
					strbuf_addf(&msg, " %s (%s%s%s)", pr.v[j].row ? pr.v[j].row->id : "none",
						    pr.v[j].version, ids.len ? "; known issues: " : "", strbuf_str(&ids));
					strbuf_release(&ids);
				}
			}
			pin_probes_release(&pr);
		}
		strbuf_adds(&line, "::notice ");
		if (ch->head) {
			strbuf_adds(&line, "file=");
			report_esc_gh_prop(&line, p->file);
			strbuf_addf(&line, ",line=%u,col=%u,", p->line, p->col);
		}
		strbuf_adds(&line, "title=");
		report_esc_gh_prop(&line, title.buf);
		strbuf_adds(&line, "::");
		report_esc_gh_data(&line, msg.buf);
		strbuf_addch(&line, '\n');
		out_commands(line.buf, line.len);
		strbuf_release(&line);
		strbuf_release(&msg);
		strbuf_release(&title);
		shown++;
	}
}

/* ---------- JSON ---------- */

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

static cJSON *side_json(const struct side *s, int all)
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

static int print_json(const char *repo, const struct side *head, const struct side *base,
		      const struct pin_changes *ch, int all)
{
	cJSON *root = cJSON_CreateObject(), *tool = cJSON_CreateObject(), *changes, *targets;
	struct torch_target *t;
	size_t i, n;
	struct strbuf text = STRBUF_INIT;

	cJSON_AddStringToObject(root, "schema", PINS_SCHEMA);
	cJSON_AddStringToObject(tool, "name", "torch-dll-check");
	cJSON_AddStringToObject(tool, "version", TDC_VERSION);
	cJSON_AddItemToObject(root, "tool", tool);
	json_add_str_or_null(root, "repository", repo);
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
		if (default_matrix() && t[i].on_windows != 0) {
			struct pin_probes pr = { NULL, 0, 0 };
			struct err e;
			cJSON *rows = cJSON_CreateArray();
			size_t j;
			if (pins_target_probes(default_matrix(), &t[i], "x64", &pr, &e) < 0)
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
	json_print(&text, root, 1);
	cJSON_Delete(root);
	if (!text.len)
		return cmd_usage_error("cannot build the JSON output");
	strbuf_addch(&text, '\n');
	fputs(text.buf, stdout);
	strbuf_release(&text);
	return EXIT_PASS;
}

/* ---------- the command ---------- */

static int load_side(struct git_repo *repo, struct side *s, const char *label, struct err *err)
{
	if (s->sha[0] == '\0' && git_repo_resolve(repo, s->rev, s->sha, err) < 0)
		return -1;
	git_repo_subject(repo, s->sha, &s->subject);
	s->loaded = 1;
	if (git_repo_pins(repo, s->sha, &s->ps, err) < 0)
		return err_prefix(err, "at %s %.12s: ", label, s->sha);
	return 0;
}

static int cmd_git_pins(int argc, char **argv)
{
	struct pin_revs revs;
	int json, all, i, rc = EXIT_PASS, diff;
	struct side head, base;
	struct git_repo *repo = NULL;
	struct pin_changes changes = { NULL, 0, 0 };
	struct err err;
	struct pins_opts o;
	struct cli_args args;
	struct strlist layers = STRLIST_INIT;

	/* the options: pins_cli in cmd_pins.c */
	memset(&o, 0, sizeof(o));
	i = cli_parse(&pins_cli, argc, argv, &o, &args);
	cli_args_release(&args);
	layers = o.matrices;
	if (i) {
		strlist_release(&layers);
		return i == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	json = o.json;
	all = o.all;
	if (pins_where_check(&pins_cli, &o.src) < 0) {
		strlist_release(&layers);
		return EXIT_USAGE;
	}
	err_clear(&err);
	i = matrix_setup(&layers, &err);
	strlist_release(&layers);
	if (i < 0) {
		default_matrix_release();
		return fail(&err);
	}
	if (github_event_pin_revs(&o.src, &revs, &err) < 0) {
		default_matrix_release();
		return fail(&err);
	}

	memset(&head, 0, sizeof(head));
	memset(&base, 0, sizeof(base));
	strbuf_init(&head.subject);
	strbuf_init(&base.subject);
	diff = revs.base_rev != NULL;
	head.rev = revs.head_rev;
	base.rev = revs.base_rev;
	memcpy(head.sha, revs.head_sha, sizeof(head.sha));
	memcpy(base.sha, revs.base_sha, sizeof(base.sha));
	if (git_repo_open(&repo, o.src.repo ? o.src.repo : ".", &err) < 0) {
		default_matrix_release();
		return fail(&err);
	}
	if (load_side(repo, &head, "head", &err) < 0 || (diff && load_side(repo, &base, "base", &err) < 0)) {
		rc = fail(&err);
		goto out;
	}
	if (diff)
		pinset_diff(&base.ps, &head.ps, !all, &changes);
	if (json) {
		rc = print_json(git_repo_path(repo), &head, diff ? &base : NULL, diff ? &changes : NULL, all);
		goto out;
	}
	/* Repository text must not become workflow commands in an Actions log (out.h). */
	if (out_guard_begin(&err)) {
		rc = EXIT_USAGE; /* main says why (out_finish) */
		goto out;
	}
	print_side("head", &head, all);
	if (diff) {
		print_side("base", &base, all);
		print_changes(&changes);
	}
	print_targets(&head.ps);
	out_guard_end();
	if (diff && out_in_actions())
		print_annotations(&changes);
out:
	pin_changes_release(&changes);
	pinset_release(&head.ps);
	pinset_release(&base.ps);
	strbuf_release(&head.subject);
	strbuf_release(&base.subject);
	git_repo_close(repo);
	default_matrix_release();
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: torch-dll-check-git pins|check|audit|history|fleet [options]   (also run as 'torch-dll-check <command>')\n"
			"Try 'torch-dll-check <command> --help'.\n");
		return argc < 2 ? EXIT_USAGE : EXIT_PASS;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("torch-dll-check-git %s\n", TDC_VERSION);
		return EXIT_PASS;
	}
	{
		static const struct {
			const char *name;
			int (*fn)(int, char **);
		} cmds[] = { { "pins", cmd_git_pins },
			     { "check", cmd_git_check },
			     { "audit", cmd_git_audit },
			     { "history", cmd_git_history },
			     { "fleet", cmd_git_fleet } };
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[1], cmds[i].name)) {
				struct err e;
				int rc = cmds[i].fn(argc - 1, argv + 1);
				err_clear(&e);
				if (out_finish(&e))
					return cmd_usage_error("%s", e.msg);
				return rc;
			}
	}
	return cmd_usage_error("unknown command '%s' for torch-dll-check-git (pins, check, audit, history, fleet)",
			       argv[1]);
}
