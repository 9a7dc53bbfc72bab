/*
 * cmd_matrix: `torch-dll-check matrix lint|show|select`.
 *
 *   matrix lint [FILE...]      lint each FILE as a layer over the embedded default
 *                              (in order, as --matrix would apply them); with no
 *                              FILE, the embedded default. Errors as
 *                              "file:line:col: message" on stdout; exit 2 on any.
 *   matrix show [--json]       the effective matrix (default + --matrix layers)
 *   matrix select VERSION [--variant V] [--arch A] [--json]
 *                              the row `check` would use; exit 1 if none covers it
 *   matrix derive [--json] DIR...
 *                              measure a row's facts from a torch install or an
 *                              unpacked wheel (derive.h): toolset, runtime DLLs,
 *                              OpenMP runtimes and who imports them
 * `show` and `select` take `--matrix FILE` (repeatable) and `--no-default`.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "derive.h"
#include "out.h"
#include "matrix.h"
#include "pe.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: torch-dll-check matrix lint [FILE...]\n"
		   "       torch-dll-check matrix show [--json] [--matrix FILE]... [--no-default]\n"
		   "       torch-dll-check matrix select VERSION [--variant V] [--arch x64|x86|arm64] [--json]\n"
		   "                                     [--matrix FILE]... [--no-default]\n"
		   "       torch-dll-check matrix derive [--json] DIR...\n"
		   "\n"
		   "lint    check matrix files (each layered over the built-in default, in order);\n"
		   "        errors as file:line:col: message; exit 2 on errors\n"
		   "show    print the effective matrix (built-in default, then each --matrix FILE)\n"
		   "select  print the row used for a torch version (e.g. 2.4.0+cu121); exit 1 if none\n"
		   "derive  measure what a row needs from a torch install or unpacked wheel (DIR holds\n"
		   "        torch\\lib, or is torch's folder): toolset, runtime DLLs, OpenMP; exit 2 if unreadable\n");
}

static void print_diags(const struct matrix_diags *d)
{
	size_t i;
	for (i = 0; i < d->n; i++)
		out_printf("%s:%u:%u: %s\n", d->v[i].file, d->v[i].line, d->v[i].col, d->v[i].msg);
	if (d->dropped)
		out_printf("(%zu more errors not shown)\n", d->dropped);
}

static int cmd_lint(int argc, char **argv)
{
	struct matrix m;
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	int i, bad = 0, files = 0;
	size_t nerr;

	matrix_init(&m);
	err_clear(&e);
	if (matrix_load_default(&m, &d, &e) < 0)
		bad = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			matrix_release(&m);
			matrix_diags_release(&d);
			return EXIT_PASS;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			matrix_release(&m);
			matrix_diags_release(&d);
			return cmd_usage_error("matrix lint: unknown option %s", argv[i]);
		}
		files++;
		if (matrix_load_file(&m, argv[i], &d, &e) < 0)
			bad = 1;
	}
	print_diags(&d);
	nerr = d.n + d.dropped;
	if (bad)
		fprintf(stderr, "matrix lint: %zu error%s\n", nerr, nerr == 1 ? "" : "s");
	else
		fprintf(stderr, "matrix lint: %d file%s OK (%zu rows in effect)\n", files ? files : 1,
			(files ? files : 1) == 1 ? "" : "s", m.nrows);
	matrix_release(&m);
	matrix_diags_release(&d);
	return bad ? EXIT_USAGE : EXIT_PASS;
}

/* Options shared by show and select. */
struct opts {
	int json, no_default;
	const char *variant, *arch, *version;
	const char **files;
	int nfiles;
};

static int parse_opts(int argc, char **argv, struct opts *o, int want_version)
{
	int i;
	memset(o, 0, sizeof(*o));
	o->files = calloc((size_t)argc + 1, sizeof(*o->files));
	if (!o->files)
		return -1;
	for (i = 1; i < argc; i++) {
		const char *val;
		int r;
		if (!strcmp(argv[i], "--json")) {
			o->json = 1;
			continue;
		}
		if (!strcmp(argv[i], "--no-default")) {
			o->no_default = 1;
			continue;
		}
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 1;
		}
		if ((r = arg_value(argc, argv, &i, "--matrix", &val))) {
			if (r < 0)
				return -1;
			o->files[o->nfiles++] = val;
			continue;
		}
		if (want_version && (r = arg_value(argc, argv, &i, "--variant", &val))) {
			if (r < 0)
				return -1;
			o->variant = val;
			continue;
		}
		if (want_version && (r = arg_value(argc, argv, &i, "--arch", &val))) {
			if (r < 0)
				return -1;
			o->arch = val;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			cmd_usage_error("matrix %s: unknown option %s", argv[0], argv[i]);
			return -1;
		}
		if (want_version && !o->version) {
			o->version = argv[i];
			continue;
		}
		cmd_usage_error("matrix %s: unexpected argument %s", argv[0], argv[i]);
		return -1;
	}
	if (want_version && !o->version) {
		cmd_usage_error("matrix select: which torch version? (e.g. 2.4.0+cu121)");
		return -1;
	}
	return 0;
}

/* Loads the default (unless --no-default) and each --matrix file; prints errors. */
static int load_layers(struct matrix *m, const struct opts *o)
{
	struct matrix_diags d = MATRIX_DIAGS_INIT;
	struct err e;
	int i, bad = 0;
	err_clear(&e);
	if (!o->no_default && matrix_load_default(m, &d, &e) < 0)
		bad = 1;
	for (i = 0; i < o->nfiles; i++)
		if (matrix_load_file(m, o->files[i], &d, &e) < 0)
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
	out_json(o);
	cJSON_Delete(o);
}

static void print_list(const char *label, const struct strlist *l)
{
	size_t i;
	if (!l->n)
		return;
	out_printf("  %s:", label);
	for (i = 0; i < l->n; i++)
		out_printf(" %s", l->v[i]);
	out_printf("\n");
}

static void print_row(const struct matrix_row *r)
{
	size_t i;
	int k;
	out_printf("%s  torch %s", r->id, r->torch_text ? r->torch_text : "");
	if (r->variants.n) {
		out_printf("  variant");
		for (i = 0; i < r->variants.n; i++)
			out_printf("%s%s", i ? "," : " ", r->variants.v[i]);
	}
	if (r->arch_mask) {
		out_printf("  arch");
		for (k = 0, i = 0; k < MATRIX_NARCH; k++)
			if (r->arch_mask & (1u << k))
				out_printf("%s%s", i++ ? "," : " ", matrix_arch_name(k));
	}
	out_printf("  [%s]  %s:%u:%u\n", matrix_status_name(r->status), r->pos.file, r->pos.line, r->pos.col);
	if (r->note)
		out_printf("  note: %s\n", r->note);
	for (k = 0; k < MATRIX_NARCH; k++)
		if (r->vc_redist[k].set)
			out_printf("  vc_redist %s >= %s\n", matrix_arch_name(k), r->vc_redist[k].text);
	for (i = 0; i < r->ndlls; i++) {
		const struct matrix_dll *d = &r->dlls[i];
		out_printf("  dll %s", d->name);
		if (d->min.set)
			out_printf(" >= %s", d->min.text);
		out_printf(" (%s", matrix_where_name(d->where));
		for (k = 0; k < MATRIX_NARCH; k++)
			if (d->arch_mask & (1u << k))
				out_printf(", %s", matrix_arch_name(k));
		out_printf(", %s): %s\n", matrix_status_name(d->status), d->why);
	}
	for (i = 0; i < r->nopenmp; i++) {
		const struct matrix_openmp *d = &r->openmp[i];
		out_printf("  openmp %s (%s, %s, %s)%s%s\n", d->dll, matrix_where_name(d->where),
		       d->redistributable ? "in the VC++ redistributable" : "not in the VC++ redistributable",
		       matrix_status_name(d->status), d->provider ? ": " : "", d->provider ? d->provider : "");
	}
	for (i = 0; i < r->nissues; i++) {
		const struct matrix_issue *d = &r->issues[i];
		out_printf("  issue %s [%s]: %s\n    cause: %s\n    fix: %s\n", d->id, matrix_status_name(d->status),
		       d->symptom, d->cause, d->fix);
		print_list("  sources", &d->sources);
	}
	print_list("sources", &r->sources);
}

static int cmd_show(int argc, char **argv)
{
	struct opts o;
	struct matrix m;
	int r = parse_opts(argc, argv, &o, 0);
	size_t i;
	if (r) {
		free(o.files);
		return r > 0 ? EXIT_PASS : EXIT_USAGE;
	}
	matrix_init(&m);
	if (load_layers(&m, &o) < 0) {
		matrix_release(&m);
		free(o.files);
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
		out_printf("matrix: %zu rows from", m.nrows);
		for (i = 0; i < m.files.n; i++)
			out_printf("%s %s", i ? "," : "", m.files.v[i]);
		out_printf("\n\n");
		for (i = 0; i < m.nrows; i++) {
			print_row(m.rows[i]);
			out_printf("\n");
		}
	}
	matrix_release(&m);
	free(o.files);
	return EXIT_PASS;
}

static int cmd_select(int argc, char **argv)
{
	struct opts o;
	struct matrix m;
	struct pep440 v;
	struct err e;
	const struct matrix_row *row = NULL;
	int r = parse_opts(argc, argv, &o, 1), status = EXIT_PASS;
	if (r) {
		free(o.files);
		return r > 0 ? EXIT_PASS : EXIT_USAGE;
	}
	err_clear(&e);
	if (pep440_parse(&v, o.version, &e) < 0) {
		free(o.files);
		return cmd_usage_error("%s", e.msg);
	}
	matrix_init(&m);
	if (load_layers(&m, &o) < 0) {
		matrix_release(&m);
		free(o.files);
		return EXIT_USAGE;
	}
	r = matrix_select(&m, &v, o.version, o.variant, o.arch, &row, &e);
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
	free(o.files);
	return status;
}

static void print_derive(const struct derive *d)
{
	size_t i, k;
	out_printf("torch %s  (%s)\n", d->version ? d->version : "(no version.py)", d->torch_dir);
	if (d->toolset_from)
		out_printf("  toolset %u.%u (newest linker, %s): VC++ redistributable >= %u.%u\n", d->toolset_major,
		       d->toolset_minor, d->toolset_from, d->toolset_major, d->toolset_minor);
	else
		out_printf("  toolset: no binary imports the VC++ runtime\n");
	out_printf("  vcruntime140_1.dll: %s\n", d->vcruntime140_1 ? "imported" : "not imported");
	out_printf("  runtime DLLs:");
	for (i = 0; i < d->runtime.n; i++)
		out_printf(" %s", d->runtime.v[i]);
	out_printf("%s\n", d->runtime.n ? "" : " none");
	for (i = 0; i < d->nopenmp; i++) {
		out_printf("  openmp %s (%s) imported by", d->openmp[i].dll,
		       d->openmp[i].bundled ? "bundled in torch\\lib" : "not in torch\\lib");
		for (k = 0; k < d->openmp[i].importers.n; k++)
			out_printf(" %s", d->openmp[i].importers.v[k]);
		out_printf("\n");
	}
	if (!d->nopenmp)
		out_printf("  openmp: none imported\n");
	for (i = 0; i < d->nbins; i++) {
		const struct derive_binary *b = &d->bins[i];
		out_printf("  %-40s %-6s linker %u.%u", b->name, pe_machine_name(b->machine), b->linker_major,
		       b->linker_minor);
		for (k = 0; k < b->runtime.n; k++)
			out_printf(" %s", b->runtime.v[k]);
		for (k = 0; k < b->openmp.n; k++)
			out_printf(" %s", b->openmp.v[k]);
		out_printf("\n");
	}
}

static int cmd_derive(int argc, char **argv)
{
	int i, json = 0, ndirs = 0, status = EXIT_PASS;
	cJSON *all = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return EXIT_PASS;
		} else if (argv[i][0] == '-' && argv[i][1])
			return cmd_usage_error("matrix derive: unknown option %s", argv[i]);
		else
			ndirs++;
	}
	if (!ndirs)
		return cmd_usage_error("matrix derive: which torch install? (a folder holding torch\\lib)");
	if (json)
		all = cJSON_CreateArray();
	for (i = 1; i < argc; i++) {
		struct derive d;
		struct err e;
		if (argv[i][0] == '-' && argv[i][1])
			continue;
		derive_init(&d);
		err_clear(&e);
		if (derive_dir(&d, argv[i], &e) < 0) {
			cmd_errorf("torch-dll-check: %s", e.msg);
			status = EXIT_USAGE;
		} else if (json) {
			cJSON_AddItemToArray(all, derive_to_json(&d));
		} else {
			print_derive(&d);
		}
		derive_release(&d);
	}
	if (json)
		print_json(all);
	return status;
}

int cmd_matrix(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_PASS;
	}
	if (!strcmp(argv[1], "lint"))
		return cmd_lint(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show"))
		return cmd_show(argc - 1, argv + 1);
	if (!strcmp(argv[1], "select"))
		return cmd_select(argc - 1, argv + 1);
	if (!strcmp(argv[1], "derive"))
		return cmd_derive(argc - 1, argv + 1);
	return cmd_usage_error("matrix: unknown subcommand '%s' (lint, show, select, derive)", argv[1]);
}
