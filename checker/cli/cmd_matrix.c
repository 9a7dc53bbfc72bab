/*
 * cmd_matrix: `torch-dll-check matrix lint|show|select`.
 *
 *   matrix lint [FILE...]      lint each FILE as a layer over the embedded default
 *                              (in order, as --matrix would apply them); with no
 *                              FILE, the embedded default. Errors as
 *                              "file:line:col: message", then the count, all
 *                              on stdout (the lint's output); exit 2 on any.
 *   matrix show [--json]       the effective matrix (default + --matrix layers)
 *   matrix select VERSION [--variant V] [--arch A] [--json]
 *                              the row `check` would use; exit 1 if none covers it
 * `show` and `select` take `--matrix FILE` (repeatable) and `--no-default`.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "matrix.h"

static void print_diags(const struct matrix_diags *d)
{
	size_t i;
	for (i = 0; i < d->n; i++)
		printf("%s:%u:%u: %s\n", d->v[i].file, d->v[i].line, d->v[i].col, d->v[i].msg);
	if (d->dropped)
		printf("(%zu more errors not shown)\n", d->dropped);
}

const struct cli_cmd matrix_lint_cli = {
	.name = "matrix lint",
	.summary = "check matrix files (each layered over the embedded default, in order)",
	.operands = "[FILE...]",
	.max_operands = -1,
	.notes = "Each FILE is layered over the embedded default in order, as --matrix would apply\n"
		 "them; with no FILE, the embedded default alone is checked. Errors as\n"
		 "FILE:LINE:COL: message, then their count, all on stdout.",
	.exit_status = "0 clean, 2 errors (or bad usage).",
};

int cmd_matrix_lint(int argc, char **argv)
{
	struct matrix m;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct cli_args args;
	struct err e;
	int i, bad = 0, r;
	size_t nerr;

	r = cli_parse(&matrix_lint_cli, argc, argv, NULL, &args);
	if (r) {
		cli_args_release(&args);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	matrix_init(&m);
	err_clear(&e);
	if (matrix_load_default(&m, &d, &e) < 0)
		bad = 1;
	for (i = 0; i < args.n; i++)
		if (matrix_load_file(&m, args.v[i], &d, &e) < 0)
			bad = 1;
	print_diags(&d);
	nerr = d.n + d.dropped;
	if (bad)
		printf("matrix lint: %zu error%s\n", nerr, nerr == 1 ? "" : "s");
	else
		printf("matrix lint: %d file%s OK (%zu rows in effect)\n", args.n ? args.n : 1,
		       (args.n ? args.n : 1) == 1 ? "" : "s", m.nrows);
	matrix_release(&m);
	matrix_diags_release(&d);
	cli_args_release(&args);
	return bad ? EXIT_USAGE : EXIT_PASS;
}

/* Options shared by show and select. */
struct opts {
	int json, no_default;
	const char *variant, *arch;
	struct strlist files;
};

#define LAYER_OPTS                                                                                     \
	CLI_OPT("--matrix", "FILE", "a matrix file layered over the default (repeatable, in order)",   \
		cli_push, struct opts, files),                                                         \
	CLI_OPT("--no-default", NULL, "leave the embedded default out: only the --matrix files",       \
		cli_set_flag, struct opts, no_default),                                                \
	CLI_OPT("--json", NULL, "print JSON", cli_set_flag, struct opts, json)

static const struct cli_opt show_opts[] = {
	LAYER_OPTS,
	CLI_END,
};

static const struct cli_opt select_opts[] = {
	CLI_OPT("--variant", "V", "the torch variant (cpu, cu121, ...; default: from VERSION's +local part)",
		cli_set_str, struct opts, variant),
	CLI_OPT("--arch", "x64|x86|arm64", "the architecture of the install (default: unknown, so only rows\n"
		"without `arch` match)",
		cli_set_str, struct opts, arch),
	LAYER_OPTS,
	CLI_END,
};

const struct cli_cmd matrix_show_cli = {
	.name = "matrix show",
	.summary = "print the effective matrix (the embedded default, then each --matrix FILE)",
	.opts = show_opts,
	.exit_status = "0 shown, 2 the matrix has errors (or bad usage).",
	.max_operands = 0,
};

const struct cli_cmd matrix_select_cli = {
	.name = "matrix select",
	.summary = "print the matrix row `check` would use for a torch version (e.g. 2.4.0+cu121)",
	.operands = "VERSION",
	.min_operands = 1,
	.max_operands = 1,
	.opts = select_opts,
	.exit_status = "0 a row covers VERSION, 1 none does, 2 bad VERSION, a matrix with errors or bad usage.",
};

/* Parses into *o; returns -1 to exit with *status (0 after --help), else 0. */
static int parse_opts(const struct cli_cmd *c, int argc, char **argv, struct opts *o, struct cli_args *args,
		      int *status)
{
	int r;
	memset(o, 0, sizeof(*o));
	r = cli_parse(c, argc, argv, o, args);
	if (!r)
		return 0;
	*status = r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	return -1;
}

static void release_opts(struct opts *o, struct cli_args *args)
{
	strlist_release(&o->files);
	cli_args_release(args);
}

/* Loads the default (unless --no-default) and each --matrix file; prints errors. */
static int load_layers(struct matrix *m, const struct opts *o)
{
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	size_t i;
	int bad = 0;
	err_clear(&e);
	if (!o->no_default && matrix_load_default(m, &d, &e) < 0)
		bad = 1;
	for (i = 0; i < o->files.n; i++)
		if (matrix_load_file(m, o->files.v[i], &d, &e) < 0)
			bad = 1;
	if (bad) {
		size_t k;
		for (k = 0; k < d.n; k++)
			cmd_errorf("%s:%u:%u: %s", d.v[k].file, d.v[k].line, d.v[k].col, d.v[k].msg);
		fprintf(stderr, "torch-dll-check: the matrix has errors (run 'torch-dll-check matrix lint FILE')\n");
	}
	matrix_diags_release(&d);
	return bad ? -1 : 0;
}

static void print_json(cJSON *o)
{
	char *s = cJSON_Print(o);
	if (s) {
		puts(s);
		free(s);
	}
	cJSON_Delete(o);
}

static void print_list(const char *label, const struct strlist *l)
{
	size_t i;
	if (!l->n)
		return;
	printf("  %s:", label);
	for (i = 0; i < l->n; i++)
		printf(" %s", l->v[i]);
	putchar('\n');
}

static void print_row(const struct matrix_row *r)
{
	size_t i;
	int k;
	printf("%s  torch %s", r->id, r->torch_text ? r->torch_text : "");
	if (r->variants.n) {
		printf("  variant");
		for (i = 0; i < r->variants.n; i++)
			printf("%s%s", i ? "," : " ", r->variants.v[i]);
	}
	if (r->arch_mask) {
		printf("  arch");
		for (k = 0, i = 0; k < MATRIX_NARCH; k++)
			if (r->arch_mask & (1u << k))
				printf("%s%s", i++ ? "," : " ", matrix_arch_name(k));
	}
	printf("  [%s]  %s:%u:%u\n", matrix_status_name(r->status), r->pos.file, r->pos.line, r->pos.col);
	if (r->note)
		printf("  note: %s\n", r->note);
	for (k = 0; k < MATRIX_NARCH; k++)
		if (r->vc_redist[k].set)
			printf("  vc_redist %s >= %s\n", matrix_arch_name(k), r->vc_redist[k].text);
	for (i = 0; i < r->ndlls; i++) {
		const struct matrix_dll *d = &r->dlls[i];
		printf("  dll %s", d->name);
		if (d->min.set)
			printf(" >= %s", d->min.text);
		printf(" (%s", matrix_where_name(d->where));
		for (k = 0; k < MATRIX_NARCH; k++)
			if (d->arch_mask & (1u << k))
				printf(", %s", matrix_arch_name(k));
		printf(", %s): %s\n", matrix_status_name(d->status), d->why);
	}
	for (i = 0; i < r->nopenmp; i++) {
		const struct matrix_openmp *d = &r->openmp[i];
		printf("  openmp %s (%s, %s, %s)%s%s\n", d->dll, matrix_where_name(d->where),
		       d->redistributable ? "in the VC++ redistributable" : "not in the VC++ redistributable",
		       matrix_status_name(d->status), d->provider ? ": " : "", d->provider ? d->provider : "");
	}
	for (i = 0; i < r->nissues; i++) {
		const struct matrix_issue *d = &r->issues[i];
		printf("  issue %s [%s]: %s\n    cause: %s\n    fix: %s\n", d->id, matrix_status_name(d->status),
		       d->symptom, d->cause, d->fix);
		print_list("  sources", &d->sources);
	}
	print_list("sources", &r->sources);
}

int cmd_matrix_show(int argc, char **argv)
{
	struct opts o;
	struct cli_args args;
	struct matrix m;
	int status;
	size_t i;
	if (parse_opts(&matrix_show_cli, argc, argv, &o, &args, &status)) {
		release_opts(&o, &args);
		return status;
	}
	matrix_init(&m);
	if (load_layers(&m, &o) < 0) {
		matrix_release(&m);
		release_opts(&o, &args);
		return EXIT_USAGE;
	}
	if (o.json) {
		cJSON *root = cJSON_CreateObject(), *rows, *files = cJSON_CreateArray();
		cJSON_AddNumberToObject(root, "schema", MATRIX_SCHEMA);
		cJSON_AddItemToObject(root, "files", files);
		for (i = 0; i < m.files.n; i++)
			cJSON_AddItemToArray(files, cJSON_CreateString(m.files.v[i]));
		rows = cJSON_AddArrayToObject(root, "rows");
		for (i = 0; i < m.nrows; i++)
			cJSON_AddItemToArray(rows, matrix_row_json(m.rows[i], 1));
		print_json(root);
	} else {
		printf("matrix: %zu rows from", m.nrows);
		for (i = 0; i < m.files.n; i++)
			printf("%s %s", i ? "," : "", m.files.v[i]);
		printf("\n\n");
		for (i = 0; i < m.nrows; i++) {
			print_row(m.rows[i]);
			putchar('\n');
		}
	}
	matrix_release(&m);
	release_opts(&o, &args);
	return EXIT_PASS;
}

int cmd_matrix_select(int argc, char **argv)
{
	struct opts o;
	struct cli_args args;
	struct matrix m;
	struct pep440 v;
	struct err e;
	const struct matrix_row *row = NULL;
	const char *version;
	int r, status = EXIT_PASS;
	if (parse_opts(&matrix_select_cli, argc, argv, &o, &args, &status)) {
		release_opts(&o, &args);
		return status;
	}
	version = args.v[0];
	err_clear(&e);
	if (pep440_parse(&v, version, &e) < 0) {
		release_opts(&o, &args);
		return cmd_usage_error("%s", e.msg);
	}
	matrix_init(&m);
	if (load_layers(&m, &o) < 0) {
		matrix_release(&m);
		release_opts(&o, &args);
		return EXIT_USAGE;
	}
	r = matrix_select(&m, &v, version, o.variant, o.arch, &row, &e);
	if (r < 0) {
		status = cmd_usage_error("%s", e.msg);
	} else if (r > 0) {
		cmd_errorf("torch-dll-check: %s", e.msg);
		if (o.json) {
			cJSON *root = cJSON_CreateObject();
			cJSON_AddNullToObject(root, "row");
			cJSON_AddStringToObject(root, "error", e.msg);
			print_json(root);
		}
		status = EXIT_FINDINGS;
	} else if (o.json) {
		cJSON *root = cJSON_CreateObject();
		cJSON_AddItemToObject(root, "row", matrix_row_json(row, 1));
		print_json(root);
	} else {
		print_row(row);
	}
	matrix_release(&m);
	release_opts(&o, &args);
	return status;
}
