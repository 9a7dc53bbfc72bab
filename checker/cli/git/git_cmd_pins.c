/*
 * cmd_pins (torch-dll-check-git): `pins`, the torch pins of a repository
 * revision read from git objects, and what a pull request changes. The
 * option table (pins_cli) is in cli/cmd_pins.c, so that the main program's
 * help and docs/cli.md show it; the renderers are report/report_pins.h.
 *
 *   torch-dll-check-git pins [--repo DIR] [--rev REV | --base REV [--head REV]
 *                            | --github-event FILE] [--matrix FILE]... [--all] [--json]
 *
 * Without a revision option, a pull request job (GITHUB_EVENT_NAME
 * pull_request or pull_request_target) compares the PR's base and head from
 * $GITHUB_EVENT_PATH; anything else reads HEAD. JSON: docs/pins-json.md.
 *
 * Under GitHub Actions the text goes inside the stop-commands guard (out.h;
 * --json is escaped by jsonout.h instead); after the guard, a PR's torch pin
 * changes become ::notice annotations at their head file:line:col.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd.h"
#include "cli/out.h"
#include "git/git_repo.h"
#include "matrix/matrix.h"
#include "pins/github_event.h"
#include "pins/pins.h"
#include "pins/pins_worktree.h"
#include "report/report_pins.h"
#include "util/jsonout.h"

/* Errors carry repository text too (paths, excerpts): cmd_usage_error escapes them. */
static int fail(const struct err *err)
{
	return cmd_usage_error("%s", err->msg);
}

/*
 * The matrix for the "can the runners take it?" lines: the built-in one plus
 * --matrix layers. *loaded 1 when it is there; 0 when the built-in one does
 * not load (the rows are then not shown); -1 with err when a layer fails.
 */
static int matrix_setup(struct matrix *m, const struct strlist *layers, int *loaded, struct err *err)
{
	size_t i;
	struct err e;
	matrix_init(m);
	*loaded = matrix_load_default(m, NULL, &e) ? 0 : 1;
	for (i = 0; *loaded && i < layers->n; i++)
		if (matrix_load_file(m, layers->v[i], NULL, err) < 0)
			return -1;
	return 0;
}

static int load_side(struct git_repo *repo, struct pins_side *s, const char *label, struct err *err)
{
	if (s->sha[0] == '\0' && git_repo_resolve(repo, s->rev, s->sha, err) < 0)
		return -1;
	git_repo_subject(repo, s->sha, &s->subject);
	s->loaded = 1;
	if (git_repo_pins(repo, s->sha, &s->ps, err) < 0)
		return err_prefix(err, "at %s %.12s: ", label, s->sha);
	return 0;
}

/* The head as the working tree (--worktree): its pin files on disk, uncommitted edits included. */
static int load_worktree(struct git_repo *repo, struct pins_side *s, struct err *err)
{
	snprintf(s->sha, sizeof(s->sha), "worktree");
	strbuf_reset(&s->subject);
	strbuf_adds(&s->subject, "the working tree, uncommitted edits included");
	s->loaded = 1;
	if (pinset_load_worktree(&s->ps, git_repo_path(repo), err) < 0)
		return err_prefix(err, "in the working tree: ");
	return 0;
}

/*
 * Without --worktree, a working tree whose torch pins differ from the commit
 * read would be ignored silently: say so (stderr), naming the first pin.
 */
static void note_dirty(struct git_repo *repo, const struct pins_side *head)
{
	struct pinset wt;
	struct pin_changes ch = { NULL, 0, 0 };
	struct err err;
	memset(&wt, 0, sizeof(wt));
	if (pinset_load_worktree(&wt, git_repo_path(repo), &err) == 0) {
		size_t i;
		pinset_diff(&head->ps, &wt, 1, &ch);
		/* an edited or added pin; pins only missing from the folder say nothing (a bare repository) */
		for (i = 0; i < ch.n && !ch.v[i].head; i++)
			;
		if (i < ch.n) {
			const struct pin *p = ch.v[i].head;
			cmd_errorf("note: the working tree's torch pins differ from %.12s (%s:%u: %s); these are the "
				   "commit's, `pins --worktree` reads the working tree's",
				   head->sha, p->file, p->line, p->raw);
		}
	}
	pin_changes_release(&ch);
	pinset_release(&wt);
}

/* Prints the report: JSON, or the text (guarded) and then the notices. */
static int print_report(const struct pins_report *r, int json)
{
	struct strbuf sb = STRBUF_INIT;
	struct err err;
	int rc = EXIT_PASS;
	if (json) {
		cJSON *doc = report_pins_json(r);
		json_print(&sb, doc, 1);
		cJSON_Delete(doc);
		if (!sb.len)
			return cmd_usage_error("cannot build the JSON output");
		strbuf_addch(&sb, '\n');
		fputs(sb.buf, stdout);
		strbuf_release(&sb);
		return EXIT_PASS;
	}
	/* Repository text must not become workflow commands in an Actions log (out.h). */
	err_clear(&err);
	if (out_guard_begin(&err))
		return EXIT_USAGE; /* main says why (out_finish) */
	report_pins_text(&sb, r);
	if (out_text(sb.buf, sb.len) < 0)
		rc = EXIT_USAGE;
	out_guard_end();
	strbuf_reset(&sb);
	if (rc == EXIT_PASS && r->base && out_in_actions()) {
		report_pins_github(&sb, r);
		out_commands(sb.buf, sb.len);
	}
	strbuf_release(&sb);
	return rc;
}

int cmd_git_pins(int argc, char **argv)
{
	struct pin_revs revs;
	int i, rc = EXIT_PASS, diff, have_matrix = 0;
	struct pins_side head, base;
	struct git_repo *repo = NULL;
	struct pin_changes changes = { NULL, 0, 0 };
	struct matrix m;
	struct pins_report r;
	struct err err;
	struct pins_opts o;
	struct cli_args args;

	/* the options: pins_cli in cli/cmd_pins.c */
	memset(&o, 0, sizeof(o));
	i = cli_parse(&pins_cli, argc, argv, &o, &args);
	cli_args_release(&args);
	if (i) {
		strlist_release(&o.matrices);
		return i == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	if (pins_where_check(&pins_cli, &o.src) < 0) {
		strlist_release(&o.matrices);
		return EXIT_USAGE;
	}
	if (o.worktree && (o.src.rev || o.src.head)) {
		strlist_release(&o.matrices);
		return cli_error(&pins_cli, "--worktree is the head: it does not go with --rev or --head");
	}
	err_clear(&err);
	i = matrix_setup(&m, &o.matrices, &have_matrix, &err);
	strlist_release(&o.matrices);
	if (i < 0) {
		matrix_release(&m);
		return fail(&err);
	}
	if (github_event_pin_revs(&o.src, &revs, &err) < 0) {
		matrix_release(&m);
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
		matrix_release(&m);
		return fail(&err);
	}
	if ((o.worktree ? load_worktree(repo, &head, &err) : load_side(repo, &head, "head", &err)) < 0 ||
	    (diff && load_side(repo, &base, "base", &err) < 0)) {
		rc = fail(&err);
		goto out;
	}
	if (!o.worktree && !o.src.rev && !o.src.head && !diff && !o.json) /* JSON readers get the document alone */
		note_dirty(repo, &head);
	if (diff)
		pinset_diff(&base.ps, &head.ps, !o.all, &changes);
	memset(&r, 0, sizeof(r));
	r.repository = git_repo_path(repo);
	r.head = &head;
	r.base = diff ? &base : NULL;
	r.changes = diff ? &changes : NULL;
	r.matrix = have_matrix ? &m : NULL;
	r.all = o.all;
	rc = print_report(&r, o.json);
out:
	pin_changes_release(&changes);
	pinset_release(&head.ps);
	pinset_release(&base.ps);
	strbuf_release(&head.subject);
	strbuf_release(&base.subject);
	git_repo_close(repo);
	matrix_release(&m);
	return rc;
}
