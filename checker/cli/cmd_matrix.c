/*
 * cmd_matrix: `torch-dll-check matrix lint|show|select|derive`.
 *
 *   matrix lint [FILE...]      lint each FILE as a layer over the embedded default
 *                              (in order, as --matrix would apply them); with no
 *                              FILE, the embedded default. Errors as
 *                              "file:line:col: message", then the count, all
 *                              on stdout (the lint's output); exit 2 on any.
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

#include "cli/cmd.h"
#include "matrix/derive.h"
#include "cli/out.h"
#include "matrix/matrix.h"
#include "pe/pe.h"
#include "util/jsonout.h"

static void print_diags(const struct matrix_diags *d)
{
	size_t i;
	for (i = 0; i < d->n; i++)
		out_printf("%s:%u:%u: %s\n", d->v[i].file, d->v[i].line, d->v[i].col, d->v[i].msg);
	if (d->dropped)
		out_printf("(%zu more errors not shown)\n", d->dropped);
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
		out_printf("matrix lint: %zu error%s\n", nerr, nerr == 1 ? "" : "s");
	else
		out_printf("matrix lint: %d file%s OK (%zu rows in effect)\n", args.n ? args.n : 1,
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

static void print_dll(const struct matrix_dll *d)
{
	int k;
	out_printf("  dll %s", d->name);
	if (d->min.set)
		out_printf(" >= %s", d->min.text);
	out_printf(" (%s", matrix_where_name(d->where));
	for (k = 0; k < MATRIX_NARCH; k++)
		if (d->arch_mask & (1u << k))
			out_printf(", %s", matrix_arch_name(k));
	out_printf(", %s): %s\n", matrix_status_name(d->status), d->why);
}

/* One key of a row, where the schema says `matrix show` prints it (schema.def's `show`). */
static void print_field(const struct matrix_row *r, enum matrix_row_field f)
{
	size_t i;
	int k;
	switch (f) {
	case MF_ROW_ID:
		out_printf("%s", r->id);
		break;
	case MF_ROW_TORCH:
		out_printf("  torch %s", r->torch_text ? r->torch_text : "");
		break;
	case MF_ROW_VARIANT:
		if (r->variants.n) {
			out_printf("  variant");
			for (i = 0; i < r->variants.n; i++)
				out_printf("%s%s", i ? "," : " ", r->variants.v[i]);
		}
		break;
	case MF_ROW_ARCH:
		if (r->arch_mask) {
			out_printf("  arch");
			for (k = 0, i = 0; k < MATRIX_NARCH; k++)
				if (r->arch_mask & (1u << k))
					out_printf("%s%s", i++ ? "," : " ", matrix_arch_name(k));
		}
		break;
	case MF_ROW_STATUS:
		out_printf("  [%s]  %s:%u:%u\n", matrix_status_name(r->status), r->pos.file, r->pos.line, r->pos.col);
		break;
	case MF_ROW_NOTE:
		if (r->note)
			out_printf("  note: %s\n", r->note);
		break;
	case MF_ROW_VC_REDIST:
		for (k = 0; k < MATRIX_NARCH; k++)
			if (r->vc_redist[k].set)
				out_printf("  vc_redist %s >= %s\n", matrix_arch_name(k), r->vc_redist[k].text);
		break;
	case MF_ROW_MIN_WINDOWS:
		if (r->min_windows.set)
			out_printf("  min_windows %s\n", r->min_windows.text);
		break;
	case MF_ROW_MIN_WINDOWS_WHY:
		break;
	case MF_ROW_RUNTIME_DLLS:
		for (i = 0; i < r->ndlls; i++)
			print_dll(&r->dlls[i]);
		break;
	case MF_ROW_OPENMP:
		for (i = 0; i < r->nopenmp; i++) {
			const struct matrix_openmp *d = &r->openmp[i];
			out_printf("  openmp %s (%s, %s, %s)%s%s\n", d->dll, matrix_where_name(d->where),
				   d->redistributable ? "in the VC++ redistributable" : "not in the VC++ redistributable",
				   matrix_status_name(d->status), d->provider ? ": " : "", d->provider ? d->provider : "");
		}
		break;
	case MF_ROW_KNOWN_ISSUES:
		for (i = 0; i < r->nissues; i++) {
			const struct matrix_issue *d = &r->issues[i];
			out_printf("  issue %s [%s]: %s\n    cause: %s\n    fix: %s\n", d->id, matrix_status_name(d->status),
				   d->symptom, d->cause, d->fix);
			print_list("  sources", &d->sources);
		}
		break;
	case MF_ROW_SOURCES:
		print_list("sources", &r->sources);
		break;
	case MF_ROW_EVIDENCE:
	case MF_ROW_MERGE:
	case MF_ROW_COUNT:
		break;
	}
}

/* The vendor_dlls table: one line an entry, where its DLLs come from. */
static void print_vendors(const struct matrix *m)
{
	size_t i, j;
	if (!m->nvendors)
		return;
	out_printf("\nvendor_dlls: %zu entries (where a GPU or oneAPI stack's DLLs come from)\n", m->nvendors);
	for (i = 0; i < m->nvendors; i++) {
		const struct matrix_vendor *x = &m->vendors[i];
		out_printf("  %s (%s):", x->id, x->stack);
		for (j = 0; j < x->dlls.n; j++)
			out_printf(" %s", x->dlls.v[j]);
		if (x->wheel)
			out_printf(" from the %s wheel\n", x->wheel);
		else
			out_printf(" from %s\n", x->driver ? x->driver : "?");
	}
}

/* The extension_load table: one entry a paragraph, its folders and its loads in order. */
static void print_exts(const struct matrix *m)
{
	size_t i, j;
	if (!m->nexts) {
		out_printf("extension_load: no entries (every extension is imported by CPython alone)\n\n");
		return;
	}
	out_printf("extension_load: %zu entries (how each extension's import loads its binaries)\n\n", m->nexts);
	for (i = 0; i < m->nexts; i++) {
		const struct matrix_ext *x = &m->exts[i];
		const struct ext_proc *p = &x->proc;
		out_printf("%s %s  [%s]  %s:%u\n", p->package, x->version_text ? x->version_text : "(every release)",
			   matrix_status_name(x->status), x->pos.file, x->pos.line);
		for (j = 0; j < p->dll_dirs.n; j++)
			out_printf("  add_dll_directory: %s\n", p->dll_dirs.v[j]);
		if (p->find_by)
			out_printf("  find: %s, the folder holding %s (python.exe's, %s, PATH)\n", p->find_by,
				   p->find_file ? p->find_file : "?", p->find_in ? p->find_in : "?");
		if (p->path_by)
			out_printf("  path_folders: %s, on Python %s, when %s has the call\n", p->path_by,
				   p->path_python.n ? p->path_python.v[0] : "?", p->path_file ? p->path_file : "?");
		if (p->needs)
			out_printf("  needs: %s\n", p->needs);
		for (j = 0; j < p->nloads; j++)
			out_printf("  %-6s %s%s\n", ext_how_name(p->loads[j].how),
				   p->loads[j].module ? p->loads[j].module : p->loads[j].file,
				   p->loads[j].raises ? " (a failure raises)" : "");
		out_printf("  others: %s\n\n", p->import_others ? "imported" : "lazy");
	}
}

/* A row: its HEAD keys on the first line, then the BODY keys' lines, then the TAIL's (schema.def). */
/* The torch_load table: one entry a paragraph, each release's lines of torch/__init__.py. */
static void print_procs(const struct matrix *m)
{
	size_t i, j;
	if (!m->nprocs) {
		out_printf("torch_load: no entries (check follows its built-in procedure, and says so)\n");
		return;
	}
	out_printf("torch_load: %zu entries (each release's own _load_dll_libraries)\n\n", m->nprocs);
	for (i = 0; i < m->nprocs; i++) {
		const struct matrix_proc *p = &m->procs[i];
		out_printf("torch %s  [%s]  %s:%u\n", p->torch_text, matrix_status_name(p->status), p->pos.file,
			   p->pos.line);
		out_printf("  folders:  ");
		for (j = 0; j < p->proc.nfolders; j++)
			out_printf("%s%s", j ? ", " : "", torch_folder_names[p->proc.folders[j]]);
		out_printf("%s\n", p->proc.nvtx ? "; then NVTX, CUDA" : "; then CUDA (no NVTX)");
		out_printf("  probe:    vcruntime140_1.dll %s\n", torch_vc1_names[p->proc.vc1]);
		out_printf("  anchor:   %s\n", p->proc.anchor_c ? "torch._C" : "__file__");
		if (p->add)
			out_printf("  add:      %s\n", p->add);
		if (p->fallback)
			out_printf("  fallback: %s\n", p->fallback);
		for (j = 0; j < p->line_releases.n; j++)
			out_printf("  %-9s %s\n", p->line_releases.v[j], p->line_texts.v[j]);
		if (p->note)
			out_printf("  note:     %s\n", p->note);
		out_printf("\n");
	}
}

static void print_row(const struct matrix_row *r)
{
	static const enum matrix_show order[] = { MS_HEAD, MS_BODY, MS_TAIL };
	size_t p;
	int k;
	for (p = 0; p < sizeof(order) / sizeof(order[0]); p++)
		for (k = 0; k < MF_ROW_COUNT; k++)
			if (matrix_row_fields[k].show == order[p])
				print_field(r, (enum matrix_row_field)k);
}

/* The `cuda` table (docs/cuda.md): one line per CUDA release, then its DLLs, published builds and sources. */
static void print_cuda(const struct matrix *m)
{
	size_t i;
	if (!m->ncuda)
		return;
	out_printf("cuda: %zu CUDA releases (NVIDIA's minimum Windows driver, the minor-version-compatibility floor)\n",
		   m->ncuda);
	out_printf("  %-7s %-8s %-8s %-9s %s\n", "release", "driver", "floor", "status", "where");
	for (i = 0; i < m->ncuda; i++) {
		const struct matrix_cuda *c = &m->cuda[i];
		out_printf("  %-7s %-8s %-8s %-9s %s:%u:%u\n", c->release, c->driver_text, c->floor_text ? c->floor_text : "-",
			   matrix_status_name(c->status), c->pos.file ? c->pos.file : "?", c->pos.line, c->pos.col);
		if (c->published_text)
			out_printf("    published  torch %s%s%s\n", c->published_text, c->cudnn ? ", cuDNN " : "",
				   c->cudnn ? c->cudnn : "");
		if (c->dlls.n) {
			size_t k;
			out_printf("    dlls      ");
			for (k = 0; k < c->dlls.n; k++)
				out_printf(" %s", c->dlls.v[k]);
			out_printf("\n");
		}
		if (c->sources.n) {
			size_t k;
			out_printf("    sources   ");
			for (k = 0; k < c->sources.n; k++)
				out_printf(" %s", c->sources.v[k]);
			out_printf("\n");
		}
	}
	out_printf("\n");
}

/* `cuda` of matrix show --json: the table's entries with the keys schema.def gives them. */
static cJSON *cuda_json(const struct matrix *m)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < m->ncuda; i++) {
		const struct matrix_cuda *c = &m->cuda[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "cuda", c->release);
		cJSON_AddStringToObject(o, "driver", c->driver_text);
		if (c->floor_text)
			cJSON_AddStringToObject(o, "floor", c->floor_text);
		else
			cJSON_AddNullToObject(o, "floor");
		json_add_strlist(o, "dlls", &c->dlls);
		cJSON_AddStringToObject(o, "status", matrix_status_name(c->status));
		json_add_strlist(o, "sources", &c->sources);
		if (c->published_text)
			cJSON_AddStringToObject(o, "published", c->published_text);
		else
			cJSON_AddNullToObject(o, "published");
		if (c->cudnn)
			cJSON_AddStringToObject(o, "cudnn", c->cudnn);
		else
			cJSON_AddNullToObject(o, "cudnn");
		cJSON_AddStringToObject(o, "file", c->pos.file ? c->pos.file : "");
		cJSON_AddNumberToObject(o, "line", c->pos.line);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* The `profiles` table (docs/profiles.md): one line per machine profile, then what its System32 holds. */
static void print_profiles(const struct matrix *m)
{
	size_t i, k;
	if (!m->nprofiles)
		return;
	out_printf("profiles: %zu machine profiles (check --profile NAME; docs/profiles.md)\n", m->nprofiles);
	for (i = 0; i < m->nprofiles; i++) {
		const struct matrix_profile *p = &m->profiles[i];
		out_printf("  %s  %s  [%s; %s:%u:%u]\n", p->name, p->title, matrix_status_name(p->status),
			   p->pos.file ? p->pos.file : "?", p->pos.line, p->pos.col);
		out_printf("    Windows %s (%s); VC++ redistributable x64 %s; Visual Studio C++: %s; NVIDIA driver %s\n",
			   p->windows, p->build.text, p->vc_redist[MATRIX_X64].set ? p->vc_redist[MATRIX_X64].text : "none",
			   p->visual_studio ? "yes" : "no", p->driver_text ? p->driver_text : "none");
		out_printf("    system32");
		for (k = 0; k < p->ndlls; k++)
			out_printf(" %s %s", p->dlls[k].name, p->dlls[k].version.set ? p->dlls[k].version.text : "(version unknown)");
		out_printf("%s\n", p->ndlls ? "" : " (no runtime DLLs)");
	}
	out_printf("\n");
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
		cJSON *root = cJSON_CreateObject(), *rows;
		cJSON_AddNumberToObject(root, "schema", MATRIX_SCHEMA);
		json_add_strlist(root, "files", &m.files);
		rows = cJSON_AddArrayToObject(root, "rows");
		for (i = 0; i < m.nrows; i++)
			cJSON_AddItemToArray(rows, matrix_row_json(m.rows[i], 1));
		rows = cJSON_AddArrayToObject(root, "torch_load");
		for (i = 0; i < m.nprocs; i++)
			cJSON_AddItemToArray(rows, matrix_proc_json(&m.procs[i]));
		rows = cJSON_AddArrayToObject(root, "extension_load");
		for (i = 0; i < m.nexts; i++)
			cJSON_AddItemToArray(rows, matrix_ext_json(&m.exts[i]));
		cJSON_AddItemToObject(root, "cuda", cuda_json(&m));
		rows = cJSON_AddArrayToObject(root, "vendor_dlls");
		for (i = 0; i < m.nvendors; i++)
			cJSON_AddItemToArray(rows, matrix_vendor_json(&m.vendors[i]));
		rows = cJSON_AddArrayToObject(root, "profiles");
		for (i = 0; i < m.nprofiles; i++)
			cJSON_AddItemToArray(rows, matrix_profile_json(&m.profiles[i]));
		rows = cJSON_AddArrayToObject(root, "package_preload");
		for (i = 0; i < m.npreloads; i++)
			cJSON_AddItemToArray(rows, matrix_preload_json(&m.preloads[i]));
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
		print_procs(&m);
		print_exts(&m);
		print_cuda(&m);
		print_vendors(&m);
		print_profiles(&m);
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

struct derive_opts {
	int json;
};

static const struct cli_opt derive_opts[] = {
	CLI_OPT("--json", NULL, "print JSON: one object per DIR, in an array", cli_set_flag, struct derive_opts, json),
	CLI_END,
};

const struct cli_cmd matrix_derive_cli = {
	.name = "matrix derive",
	.summary = "measure what a matrix row needs from a torch install or an unpacked wheel",
	.operands = "DIR...",
	.min_operands = 1,
	.max_operands = -1,
	.opts = derive_opts,
	.notes = "DIR holds torch\\lib, or is torch's folder. Reports the toolset (the newest linker\n"
		 "among the binaries: the VC++ redistributable it needs), the runtime DLLs and the\n"
		 "OpenMP DLLs imported, binary by binary.",
	.exit_status = "0 measured, 2 a DIR could not be read (or bad usage).",
};

int cmd_matrix_derive(int argc, char **argv)
{
	struct derive_opts o;
	struct cli_args args;
	int i, r, status = EXIT_PASS;
	cJSON *all = NULL;
	memset(&o, 0, sizeof(o));
	r = cli_parse(&matrix_derive_cli, argc, argv, &o, &args);
	if (r) {
		cli_args_release(&args);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	if (o.json)
		all = cJSON_CreateArray();
	for (i = 0; i < args.n; i++) {
		struct derive d;
		struct err e;
		derive_init(&d);
		err_clear(&e);
		if (derive_dir(&d, args.v[i], &e) < 0) {
			cmd_errorf("torch-dll-check: %s", e.msg);
			status = EXIT_USAGE;
		} else if (o.json) {
			cJSON_AddItemToArray(all, derive_to_json(&d));
		} else {
			print_derive(&d);
		}
		derive_release(&d);
	}
	if (o.json)
		print_json(all);
	cli_args_release(&args);
	return status;
}
