/*
 * git_main: torch-dll-check-git, the part of torch-dll-check that reads git
 * repositories (libgit2). `torch-dll-check pins` runs it (cmd_pins.c), so
 * users see one tool; it follows the same command conventions (cmd.h):
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
 * untrusted: control characters are replaced, and under GitHub Actions the
 * text output is wrapped in ::stop-commands:: so it cannot issue workflow
 * commands (GitHub's "Workflow commands": stop-commands). After that block, a PR's torch pin changes become
 * ::notice annotations at their head file:line:col.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "git_repo.h"
#include "github_event.h"
#include "matrix.h"
#include "os.h"
#include "pins.h"
#include "report.h"

#define PINS_SCHEMA "torch-dll-check/pins/v1"

struct side {
	const char *rev;   /* as asked */
	char sha[41];
	struct strbuf subject;
	struct pinset ps;
	int loaded;
};

/*
 * Untrusted text for a terminal or a CI log: control characters become '?'
 * (a path may hold a newline), and the legacy "##[" workflow-command form,
 * which the Actions runner honours anywhere in a line, is broken up.
 */
static void put_safe(FILE *f, const char *s)
{
	size_t hashes = 0;
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '[' && hashes >= 2)
			fputc('\\', f);
		hashes = c == '#' ? hashes + 1 : 0;
		fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

/* "FILE:LINE:COL" of a pin, safely. */
static void put_at(const struct pin *p)
{
	put_safe(stdout, p->file);
	printf(":%u:%u", p->line, p->col);
}

/* Errors carry repository text too (paths, excerpts): cmd_usage_error escapes them (report.h). */
static int fail(const struct err *err)
{
	return cmd_usage_error("%s", err->msg);
}

static void put_pin_line(const struct pin *p)
{
	printf("  ");
	put_at(p);
	printf("  ");
	put_safe(stdout, p->raw);
	printf("\n      %s", pin_source_name(p->source));
	if (p->group) {
		printf(" [");
		put_safe(stdout, p->group);
		printf("]");
	}
	if (p->version) {
		printf(", version ");
		put_safe(stdout, p->version);
	} else if (p->pep440) {
		printf(", allows ");
		put_safe(stdout, p->pep440);
	} else if (p->form == PIN_FORM_NAME) {
		printf(", any version");
	}
	if (p->variant) {
		printf(", variant ");
		put_safe(stdout, p->variant);
		printf(" (from %s)", p->variant_from);
	}
	if (p->platform_tag) {
		printf(", wheel ");
		put_safe(stdout, p->python_tag);
		printf("-");
		put_safe(stdout, p->platform_tag);
	}
	if (p->markers) {
		int w = req_markers_on_windows(p->markers);
		printf(", %s on Windows", w == 1 ? "applies" : w == 0 ? "does not apply" : "may apply");
	}
	printf("\n");
}

static void print_side(const char *label, const struct side *s, int all)
{
	size_t i, j, shown = 0;
	printf("%s %.12s", label, s->sha);
	if (s->subject.len) {
		printf(" (");
		put_safe(stdout, s->subject.buf);
		printf(")");
	}
	printf(": %zu pin file%s, %zu torch pin%s\n", s->ps.n, s->ps.n == 1 ? "" : "s", pinset_count_torch(&s->ps),
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
			printf("  ");
			put_safe(stdout, f->path);
			printf(":%u:%u  note: %s ", inc->line, inc->col, inc->constraint ? "-c" : "-r");
			put_safe(stdout, inc->target);
			printf(" %s\n", inc->resolved ? "is not in this commit" : "is outside the repository (not read)");
		}
	}
	if (!shown)
		printf("  (no %spins)\n", all ? "" : "torch ");
}

static void print_changes(const struct pin_changes *c)
{
	size_t i;
	if (!c->n) {
		printf("torch pins: no change\n");
		return;
	}
	printf("torch pins changed:\n");
	for (i = 0; i < c->n; i++) {
		const struct pin_change *ch = &c->v[i];
		const struct pin *at = ch->head ? ch->head : ch->base;
		printf("  %-8s ", pin_change_name(ch->kind));
		put_at(at);
		printf("%s  ", ch->head ? "" : " (base)");
		if (ch->kind == PIN_CHANGED) {
			put_safe(stdout, ch->base->raw);
			printf("  ->  ");
		}
		put_safe(stdout, at->raw);
		printf("\n");
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
	printf("for the Windows runners (one decision per file; matrix rows to satisfy):\n");
	for (i = 0; i < n; i++) {
		struct pin_probes pr = { NULL, 0, 0 };
		struct err e;
		printf("  ");
		put_safe(stdout, t[i].file);
		printf(":%u  torch ", t[i].pin->line);
		if (t[i].version)
			put_safe(stdout, t[i].version);
		else if (t[i].specifier)
			put_safe(stdout, t[i].specifier);
		else
			printf("(any version)");
		printf(", %s", t[i].variant ? t[i].variant : "default build");
		printf(", %s\n", t[i].on_windows == 1 ? "installs on Windows" :
				 t[i].on_windows == 0 ? "not for Windows" : "on Windows depends on markers");
		if (t[i].on_windows == 0 || !default_matrix())
			continue;
		if (pins_target_probes(default_matrix(), &t[i], "x64", &pr, &e) < 0) {
			printf("      matrix: ");
			put_safe(stdout, e.msg);
			printf("\n");
		}
		for (j = 0; j < pr.n; j++) {
			printf("      %s -> ", pr.v[j].version);
			if (pr.v[j].row)
				put_safe(stdout, pr.v[j].row->id);
			else
				printf("no matrix row covers it");
			printf("\n");
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
			printf("::notice title=torch pins::%zu more torch pin changes: see the job log or --json\n",
			       c->n - i);
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
				for (j = 0; j < pr.n; j++)
					strbuf_addf(&msg, " %s (%s)", pr.v[j].row ? pr.v[j].row->id : "none", pr.v[j].version);
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
		puts(line.buf);
		strbuf_release(&line);
		strbuf_release(&msg);
		strbuf_release(&title);
		shown++;
	}
}

/* ---------- JSON ---------- */

/* Length of the valid UTF-8 sequence at s (1-4), or 0 if s does not start one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* JSON must be UTF-8: repository bytes that are not become U+FFFD. */
static void add_str(cJSON *o, const char *k, const char *v)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)v;
	if (!v) {
		cJSON_AddNullToObject(o, k);
		return;
	}
	while (*p) {
		size_t n = utf8_len(p);
		if (n) {
			strbuf_add(&sb, p, n);
			p += n;
		} else {
			strbuf_adds(&sb, "\xef\xbf\xbd");
			p++;
		}
	}
	cJSON_AddStringToObject(o, k, strbuf_str(&sb));
	strbuf_release(&sb);
}

static cJSON *pin_json(const struct pin *p)
{
	cJSON *o = cJSON_CreateObject();
	int w = req_markers_on_windows(p->markers);
	if (p->platform_tag && !pin_platform_on_windows(p->platform_tag))
		w = 0;
	add_str(o, "file", p->file);
	cJSON_AddNumberToObject(o, "line", p->line);
	cJSON_AddNumberToObject(o, "col", p->col);
	add_str(o, "raw", p->raw);
	add_str(o, "name", p->name);
	cJSON_AddBoolToObject(o, "torch", pin_is_torch(p));
	add_str(o, "source", pin_source_name(p->source));
	add_str(o, "form", pin_form_name(p->form));
	add_str(o, "group", p->group);
	add_str(o, "extras", p->extras);
	add_str(o, "spec", p->spec);
	add_str(o, "pep440", p->pep440);
	add_str(o, "version", p->version);
	add_str(o, "variant", p->variant);
	add_str(o, "variant_from", p->variant_from);
	add_str(o, "markers", p->markers);
	if (w == 1 || w == 0)
		cJSON_AddBoolToObject(o, "on_windows", w);
	else
		cJSON_AddNullToObject(o, "on_windows");
	add_str(o, "url", p->url);
	add_str(o, "index_url", p->index_url);
	add_str(o, "python_tag", p->python_tag);
	add_str(o, "abi_tag", p->abi_tag);
	add_str(o, "platform_tag", p->platform_tag);
	add_str(o, "channel", p->channel);
	cJSON_AddNumberToObject(o, "hashes", (double)p->n_hashes);
	return o;
}

static cJSON *side_json(const struct side *s, int all)
{
	cJSON *o = cJSON_CreateObject(), *files = cJSON_CreateArray();
	size_t i, j;
	add_str(o, "rev", s->rev);
	add_str(o, "commit", s->sha);
	add_str(o, "subject", strbuf_str(&s->subject));
	for (i = 0; i < s->ps.n; i++) {
		const struct req_file *f = &s->ps.files[i];
		cJSON *fo = cJSON_CreateObject(), *pins = cJSON_CreateArray(), *inc = cJSON_CreateArray();
		cJSON *idx = cJSON_CreateArray();
		add_str(fo, "path", f->path);
		add_str(fo, "kind", req_kind_name(f->kind));
		add_str(fo, "included_by", f->included_by);
		for (j = 0; j < f->indexes.n; j++)
			{
				cJSON *tmp = cJSON_CreateObject();
				add_str(tmp, "u", f->indexes.v[j]);
				cJSON_AddItemToArray(idx, cJSON_DetachItemFromObject(tmp, "u"));
				cJSON_Delete(tmp);
			}
		cJSON_AddItemToObject(fo, "indexes", idx);
		for (j = 0; j < f->n_inc; j++) {
			cJSON *io = cJSON_CreateObject();
			cJSON_AddNumberToObject(io, "line", f->inc[j].line);
			cJSON_AddNumberToObject(io, "col", f->inc[j].col);
			add_str(io, "target", f->inc[j].target);
			add_str(io, "resolved", f->inc[j].resolved);
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
	char *text;

	cJSON_AddStringToObject(root, "schema", PINS_SCHEMA);
	cJSON_AddStringToObject(tool, "name", "torch-dll-check");
	cJSON_AddStringToObject(tool, "version", TDC_VERSION);
	cJSON_AddItemToObject(root, "tool", tool);
	add_str(root, "repository", repo);
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
			add_str(o, "file", at->file);
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
		add_str(o, "file", t[i].file);
		cJSON_AddNumberToObject(o, "line", t[i].pin->line);
		cJSON_AddNumberToObject(o, "col", t[i].pin->col);
		add_str(o, "version", t[i].version);
		add_str(o, "specifier", t[i].specifier);
		add_str(o, "variant", t[i].variant);
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
				add_str(o, "matrix_error", e.msg);
			for (j = 0; j < pr.n; j++) {
				cJSON *ro = cJSON_CreateObject();
				cJSON_AddStringToObject(ro, "version", pr.v[j].version);
				add_str(ro, "row", pr.v[j].row ? pr.v[j].row->id : NULL);
				add_str(ro, "uncovered", pr.v[j].uncovered);
				cJSON_AddItemToArray(rows, ro);
			}
			cJSON_AddItemToObject(o, "matrix_rows", rows);
			pin_probes_release(&pr);
		}
		cJSON_AddItemToArray(targets, o);
	}
	free(t);
	cJSON_AddItemToObject(root, "targets", targets);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text)
		return cmd_usage_error("cannot build the JSON output");
	fputs(text, stdout);
	fputc('\n', stdout);
	free(text);
	return EXIT_PASS;
}

/* ---------- the command ---------- */

static void pins_usage(FILE *f)
{
	fprintf(f, "usage: torch-dll-check pins [--repo DIR] [--rev REV | --base REV [--head REV] | --github-event FILE]\n"
		   "                            [--matrix FILE]... [--all] [--json]\n\n"
		   "Which torch a repository revision pins (requirements*.txt, constraints*.txt, pyproject.toml,\n"
		   "environment.yml, setup.cfg, Pipfile, uv.lock, poetry.lock, pdm.lock), read from git objects.\n"
		   "With a base, also what changed: torch pins added, changed or removed, at their head line.\n"
		   "A pull request job (GITHUB_EVENT_NAME=pull_request*) compares the PR's base and head by default.\n"
		   "  --repo DIR           repository (default: the current folder or a parent)\n"
		   "  --rev REV            one revision (default HEAD)\n"
		   "  --base REV --head REV  compare two revisions (--head defaults to HEAD)\n"
		   "  --github-event FILE  base/head from a pull request event payload ($GITHUB_EVENT_PATH)\n"
		   "  --matrix FILE        a matrix layer over the built-in one (repeatable), for the runner rows\n"
		   "  --all                every package, not only torch\n"
		   "  --json               JSON (schema " PINS_SCHEMA ", docs/pins-json.md)\n");
}

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
	const char *repo_dir = ".", *rev = NULL, *base_rev = NULL, *head_rev = NULL, *event = NULL;
	int json = 0, all = 0, i, rc = EXIT_PASS, diff;
	struct side head, base;
	struct git_repo *repo = NULL;
	struct pin_changes changes = { NULL, 0, 0 };
	struct err err;
	char stop_token[33] = "";
	struct strlist layers = STRLIST_INIT;

	for (i = 1; i < argc; i++) {
		const char *v;
		int m;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			pins_usage(stdout);
			strlist_release(&layers);
			return EXIT_PASS;
		}
		if (!strcmp(argv[i], "--json")) {
			json = 1;
			continue;
		}
		if (!strcmp(argv[i], "--all")) {
			all = 1;
			continue;
		}
		if ((m = arg_value(argc, argv, &i, "--repo", &v)) != 0) {
			if (m < 0)
				goto usage;
			repo_dir = v;
		} else if ((m = arg_value(argc, argv, &i, "--rev", &v)) != 0) {
			if (m < 0)
				goto usage;
			rev = v;
		} else if ((m = arg_value(argc, argv, &i, "--base", &v)) != 0) {
			if (m < 0)
				goto usage;
			base_rev = v;
		} else if ((m = arg_value(argc, argv, &i, "--head", &v)) != 0) {
			if (m < 0)
				goto usage;
			head_rev = v;
		} else if ((m = arg_value(argc, argv, &i, "--github-event", &v)) != 0) {
			if (m < 0)
				goto usage;
			event = v;
		} else if ((m = arg_value(argc, argv, &i, "--matrix", &v)) != 0) {
			if (m < 0)
				goto usage;
			strlist_push(&layers, v);
		} else {
			cmd_usage_error("pins: unknown option '%s'", argv[i]);
			pins_usage(stderr);
			goto usage;
		}
	}
	if ((rev && (base_rev || head_rev || event)) || (event && (base_rev || head_rev))) {
		strlist_release(&layers);
		return cmd_usage_error("pins: use one of --rev, --base/--head, --github-event");
	}
	if (head_rev && !base_rev) {
		strlist_release(&layers);
		return cmd_usage_error("pins: --head needs --base");
	}
	err_clear(&err);
	i = matrix_setup(&layers, &err);
	strlist_release(&layers);
	if (i < 0) {
		default_matrix_release();
		return fail(&err);
	}
	if (!rev && !base_rev && !event) {
		const char *name = os_getenv("GITHUB_EVENT_NAME");
		if (name && !strncmp(name, "pull_request", 12) && os_getenv("GITHUB_EVENT_PATH"))
			event = os_getenv("GITHUB_EVENT_PATH");
	}

	memset(&head, 0, sizeof(head));
	memset(&base, 0, sizeof(base));
	strbuf_init(&head.subject);
	strbuf_init(&base.subject);
	diff = base_rev || event;
	head.rev = rev ? rev : head_rev ? head_rev : "HEAD";
	base.rev = base_rev;
	if (event) {
		char *ev = xstrdup(event); /* os_getenv's pointer is not stable */
		if (github_event_pr_shas(ev, base.sha, head.sha, &err) < 0) {
			free(ev);
			default_matrix_release();
			return fail(&err);
		}
		free(ev);
		head.rev = "pull_request.head.sha";
		base.rev = "pull_request.base.sha";
	}
	if (git_repo_open(&repo, repo_dir, &err) < 0) {
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
	/* Repository text must not become workflow commands in an Actions log. */
	if (os_getenv("GITHUB_ACTIONS") && !strcmp(os_getenv("GITHUB_ACTIONS"), "true")) {
		unsigned char rnd[16];
		if (os_random(rnd, sizeof(rnd), &err) == 0) {
			for (i = 0; i < 16; i++)
				snprintf(stop_token + 2 * i, 3, "%02x", rnd[i]);
			printf("::stop-commands::%s\n", stop_token);
		}
	}
	print_side("head", &head, all);
	if (diff) {
		print_side("base", &base, all);
		print_changes(&changes);
	}
	print_targets(&head.ps);
	if (stop_token[0]) {
		printf("::%s::\n", stop_token);
		if (diff)
			print_annotations(&changes);
	}
out:
	pin_changes_release(&changes);
	pinset_release(&head.ps);
	pinset_release(&base.ps);
	strbuf_release(&head.subject);
	strbuf_release(&base.subject);
	git_repo_close(repo);
	default_matrix_release();
	return rc;
usage:
	strlist_release(&layers);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fprintf(argc < 2 ? stderr : stdout,
			"usage: torch-dll-check-git pins [options]   (also run as 'torch-dll-check pins')\n");
		return argc < 2 ? EXIT_USAGE : EXIT_PASS;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("torch-dll-check-git %s\n", TDC_VERSION);
		return EXIT_PASS;
	}
	if (!strcmp(argv[1], "pins"))
		return cmd_git_pins(argc - 1, argv + 1);
	fprintf(stderr, "torch-dll-check-git: unknown command '%s' (only 'pins')\n", argv[1]);
	return EXIT_USAGE;
}
