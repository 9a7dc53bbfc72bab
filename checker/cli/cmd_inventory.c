/*
 * cmd_inventory: `torch-dll-check inventory` prints what the machine has —
 * VC++ redistributables, runtime DLLs with versions, torch installs — as
 * compact tables or as the report's `inventory` object (--json).
 *
 * Without --root on Linux and with only --registry, no tree is looked at:
 * the registry file alone answers the redistributable part. With --root at
 * a Wine prefix's drive_c, the view finds ../system.reg by itself. --root
 * without an install option scans the whole tree (C:\, --depth deep) for
 * torch installs: that is what someone pointing the command at a tree asks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cmd.h"
#include "cli/profile_opt.h"
#include "cli/out.h"
#include "machine/inventory.h"
#include "util/os.h"
#include "pe/pe.h"
#include "machine/registry.h"
#include "machine/view.h"
#include "util/version.h"

static const char *type_name(unsigned t)
{
	static const char *const names[] = { "REG_NONE", "REG_SZ", "REG_EXPAND_SZ", "REG_BINARY", "REG_DWORD",
					     "REG_DWORD_BIG_ENDIAN", "REG_LINK", "REG_MULTI_SZ", "REG_RESOURCE_LIST",
					     "REG_FULL_RESOURCE_DESCRIPTOR", "REG_RESOURCE_REQUIREMENTS_LIST",
					     "REG_QWORD" };
	return t < sizeof(names) / sizeof(names[0]) ? names[t] : "REG_0x?";
}

/* --query: every value of one key, one line each; newlines in text shown as \n. */
static int query_key(const struct registry *reg, const char *key, int regview)
{
	struct strlist names = STRLIST_INIT;
	struct err e;
	size_t i;
	int r = registry_values(reg, key, regview, &names, &e);
	if (r < 0)
		return cmd_usage_error("inventory: %s", e.msg);
	if (r == 1) {
		cmd_errorf("torch-dll-check: inventory: %s: no such key in the %d-bit view of %s", key, regview,
			   registry_describe(reg));
		return EXIT_FINDINGS;
	}
	for (i = 0; i < names.n; i++) {
		struct strbuf sb = STRBUF_INIT;
		const unsigned char *data;
		unsigned type;
		size_t len;
		if (registry_get_raw(reg, key, names.v[i], regview, &type, &data, &len, &e))
			continue;
		registry_format(&sb, type, data, len);
		/* a REG_MULTI_SZ's strings are joined with LF: shown as \n, like every control (out.h) */
		out_printf("%s %s %s\n", names.v[i][0] ? names.v[i] : "@", type < 12 ? type_name(type) : "REG_?",
			   sb.buf);
		strbuf_release(&sb);
	}
	strlist_release(&names);
	return EXIT_PASS;
}

static const char *yesno(int b)
{
	return b ? "yes" : "no";
}

static void print_notes(const struct strlist *l, const char *indent)
{
	size_t i;
	for (i = 0; i < l->n; i++)
		out_printf("%snote: %s\n", indent, l->v[i]);
}

/* The NVIDIA driver (docs/cuda.md): System32\nvcuda.dll and the display adapters' driver keys. */
static void print_gpu(const struct gpu_driver *g)
{
	size_t i;
	char *drv = g->has_driver ? nv_driver_str(&g->driver) : NULL;
	out_printf("\nNVIDIA driver\n");
	if (!g->nvcuda_path)
		out_printf("  nvcuda.dll  no (System32 has none: no NVIDIA display driver)\n");
	else if (g->nvcuda_error)
		out_printf("  nvcuda.dll  %s: not usable: %s\n", g->nvcuda_path, g->nvcuda_error);
	else {
		out_printf("  nvcuda.dll  %s\n", g->nvcuda_path);
		if (g->nvcuda_has_version)
			out_printf("    file version %u.%u.%u.%u", g->nvcuda_ver[0], g->nvcuda_ver[1], g->nvcuda_ver[2],
				   g->nvcuda_ver[3]);
		else
			out_printf("    no file version");
		if (g->nvcuda_version_string)
			out_printf(" (FileVersion string %s)", g->nvcuda_version_string);
		if (g->nvcuda_company)
			out_printf(", %s", g->nvcuda_company);
		out_printf("\n    driver  %s\n", drv ? drv : "? (the version resource gives none)");
		if (g->version_problem)
			out_printf("    why     %s\n", g->version_problem);
	}
	if (!g->registry_read) {
		out_printf("  display adapters: no registry to read (give --registry FILE, or --root a Wine drive_c or Windows disk)\n");
	} else if (!g->nadapters) {
		out_printf("  display adapters: none with a driver key in the registry\n");
	} else {
		out_printf("  display adapters (registry: %s)\n", g->registry_source ? g->registry_source : "?");
		out_printf("    %-28s %-32s %-15s %-8s %s\n", "provider", "description", "driver version", "NVIDIA",
			   "key");
		for (i = 0; i < g->nadapters; i++) {
			const struct gpu_adapter *a = &g->adapters[i];
			char *nv = a->has_nv ? nv_driver_str(&a->nv) : NULL;
			out_printf("    %-28s %-32s %-15s %-8s %s\n", a->provider ? a->provider : "-",
				   a->description ? a->description : "-", a->driver_version ? a->driver_version : "-",
				   nv ? nv : "-", a->key);
			free(nv);
		}
	}
	print_notes(&g->notes, "  ");
	free(drv);
}

/*
 * `looked`: some install option was given (else none were looked for: say
 * how to); `scanned_root`: the tree was scanned from C:\ by default, `depth` deep.
 */
static void print_text(const struct inventory *inv, int have_tree, int looked, int scanned_root, int depth)
{
	size_t i, j;
	if (inv->redist_read) {
		out_printf("VC++ 2015-2022 redistributable (registry: %s)\n", inv->redist_source);
		out_printf("  %-6s %-9s %-15s %-17s %-4s %s\n", "arch", "installed", "version", "as stored", "view", "key");
		for (i = 0; i < 3; i++) {
			const struct inv_redist *r = &inv->redist[i];
			if (!r->found) {
				out_printf("  %-6s %-9s %s\n", r->arch, "no", "-");
				continue;
			}
			out_printf("  %-6s %-9s %-15s %-17s %-4d %s\n", r->arch, yesno(r->installed),
			       r->version ? r->version : "?", r->version_raw ? r->version_raw : "-", r->view, r->key);
			print_notes(&r->notes, "         ");
		}
	} else {
		out_printf("VC++ 2015-2022 redistributable: no registry to read (give --registry FILE, or --root a Wine drive_c or Windows disk)\n");
	}
	if (have_tree) {
		out_printf("\nRuntime DLLs\n");
		if (!inv->ndlls)
			out_printf("  none found\n");
		else
			out_printf("  %-26s %-12s %-7s %-19s %s\n", "name", "where", "machine", "file version", "path");
		for (i = 0; i < inv->ndlls; i++) {
			const struct inv_dll *d = &inv->dlls[i];
			char vbuf[WINVER_DOTTED_MAX];
			const char *ver = d->has_version ? winver_dotted(vbuf, d->ver) : NULL;
			out_printf("  %-26s %-12s %-7s %-19s %s\n", d->name, d->where,
			       d->machine ? pe_machine_name(d->machine) : "?",
			       ver ? ver : d->error ? "unreadable" : "no version resource", d->path);
			if (d->error)
				out_printf("      error: %s\n", d->error);
		}
	}
	if (inv->gpu_read)
		print_gpu(&inv->gpu);
	if (inv->ninstalls || have_tree) {
		out_printf("\ntorch installs (%zu)\n", inv->ninstalls);
		if (scanned_root)
			out_printf("  looked for in all of C:\\, %d folders deep (--scan DIR or --depth N: elsewhere or deeper)\n",
				   depth);
		else if (!inv->ninstalls && !looked)
			out_printf("  none looked for: give --scan DIR (e.g. --scan 'C:\\'), --python PATH,\n"
				   "  --site-packages DIR or --torch DIR\n");
		for (i = 0; i < inv->ninstalls; i++) {
			const struct inv_install *in = &inv->installs[i];
			out_printf("  %s\n", in->torch_dir);
			out_printf("    torch   %s", in->version ? in->version : "? (no version.py)");
			if (in->metadata_version && (!in->version || strcmp(in->metadata_version, in->version)))
				out_printf(" (METADATA: %s)", in->metadata_version);
			out_printf(", variant %s", in->variant);
			if (in->cuda)
				out_printf(", CUDA %s", in->cuda);
			out_printf(", %s, %s\n", in->arch ? in->arch : "arch ?", in->pyd_tag ? in->pyd_tag : "no _C.pyd");
			out_printf("    python  %s (%s%s%s)\n", in->python ? in->python : "not found",
			       in->python_version ? in->python_version : "version ?", ", ", in->kind);
			if (in->base_python_dir)
				out_printf("    base    %s\n", in->base_python_dir);
			if (in->cuda_dlls.n) {
				out_printf("    CUDA    ");
				for (j = 0; j < in->cuda_dlls.n; j++)
					out_printf("%s%s", j ? ", " : "", in->cuda_dlls.v[j]);
				out_printf("\n");
			}
			print_notes(&in->notes, "    ");
		}
	}
	if (inv->notes.n)
		out_printf("\n");
	print_notes(&inv->notes, "");
}

struct inventory_opts {
	struct strlist pythons, sitepks, torches, scans;
	int depth, regview, json;
	const char *query;
	struct view_opts vo;
	const char *write_profile, *profile_name; /* --write-profile FILE, --profile-name NAME */
};

static int set_regview(void *dst, const char *val, struct strbuf *why)
{
	if (strcmp(val, "32") && strcmp(val, "64")) {
		strbuf_adds(why, "expected 32 or 64");
		return -1;
	}
	*(int *)dst = atoi(val);
	return 0;
}

static const struct cli_opt inventory_opts_table[] = {
	CLI_GROUP(view_cli_opts, struct inventory_opts, vo),
	CLI_OPT("--python", "PATH", "python.exe (or its folder): its site-packages, venv base, user site\n"
		"(repeatable)", cli_push, struct inventory_opts, pythons),
	CLI_OPT("--site-packages", "DIR", "a site-packages folder holding torch (repeatable)",
		cli_push, struct inventory_opts, sitepks),
	CLI_OPT("--torch", "DIR", "a torch package folder (repeatable)", cli_push, struct inventory_opts, torches),
	CLI_OPT("--scan", "DIR", "every torch install under DIR (repeatable)", cli_push, struct inventory_opts, scans),
	CLI_OPT("--depth", "N", "how many folders deep --scan looks (1 to 64, default 8)",
		cmd_set_scan_depth, struct inventory_opts, depth),
	CLI_OPT("--json", NULL, "the report's `inventory` object (docs/report-json.md)",
		cli_set_flag, struct inventory_opts, json),
	CLI_OPT("--query", "KEY", "print the values of one HKLM key of the --registry files as the checker\n"
		"reads them (type, then text), and nothing else",
		cli_set_str, struct inventory_opts, query),
	CLI_OPT("--view", "32|64", "the registry view --query reads (default 64)",
		set_regview, struct inventory_opts, regview),
	CLI_OPT("--write-profile", "FILE", "also write the machine read as a machine profile file (docs/profiles.md),\n"
		"for check --profile FILE", cli_set_str, struct inventory_opts, write_profile),
	CLI_OPT("--profile-name", "NAME", "the name --write-profile gives it (default this-machine)",
		cli_set_str, struct inventory_opts, profile_name),
	CLI_END,
};

const struct cli_cmd inventory_cli = {
	.name = "inventory",
	.summary = "redistributables, runtime DLLs and torch installs found",
	.opts = inventory_opts_table,
	.notes = "Torch installs are looked for where an install option says (--scan, --python,\n"
		 "--site-packages, --torch). With --root and none of them, every install in the tree is\n"
		 "listed (as --scan 'C:\\'): pointing the command at a tree asks what is in it. On the live\n"
		 "machine none are looked for unless asked (a whole disk is not scanned by surprise).\n"
		 "Without --root on Linux and with only --registry, no tree is looked at: the registry\n"
		 "file alone answers the redistributable part.",
	.exit_status = "0 listed, 1 --query: no such key, 2 usage or input error.",
	.max_operands = 0,
};

/* The redistributables: from the tree's (or live) registry, else from the --registry files alone. */
static int read_redist(struct inventory *inv, struct view *v, struct registry *reg)
{
	struct err e;
	int r = 0;
	err_clear(&e);
	if (v && view_has_registry(v))
		r = inventory_redist_view(inv, v, &e);
	else if (reg)
		r = inventory_redist_registry(inv, reg, &e);
	if (r)
		cmd_usage_error("inventory: %s", e.msg);
	return r ? -1 : 0;
}

/* Each install option's installs (and, with --root and none, every install in the tree); then the runtime DLLs. */
static int collect(struct inventory *inv, struct view *v, const struct inventory_opts *o, int looked,
		   int *scanned_root)
{
	struct err e;
	size_t k;
	err_clear(&e);
#define EACH(list, call)                                                                               \
	for (k = 0; k < (list).n; k++) {                                                               \
		char *w = cmd_winpath(v, (list).v[k]);                                                 \
		int r_;                                                                                \
		if (!w)                                                                                \
			return -1;                                                                     \
		r_ = call;                                                                             \
		free(w);                                                                               \
		if (r_)                                                                                \
			goto fail;                                                                     \
	}
	EACH(o->pythons, inventory_from_python(inv, v, w, &e))
	EACH(o->sitepks, inventory_from_site_packages(inv, v, w, &e))
	EACH(o->torches, inventory_from_torch(inv, v, w, &e))
	EACH(o->scans, inventory_scan(inv, v, w, o->depth, &e))
#undef EACH
	/* a tree and no install option: every install in it, as `check --scan 'C:\'` would find */
	if (!looked && v && o->vo.root) {
		if (inventory_scan(inv, v, "C:\\", o->depth, &e))
			goto fail;
		*scanned_root = 1;
	}
	if (v && inventory_runtime_dlls(inv, v, &e))
		goto fail;
	/* --root is a boundary (view.h): what was not followed is said, not left to look absent */
	for (k = 0; v && k < view_outside_links(v, 0, NULL, NULL); k++) {
		const char *lw, *lt;
		view_outside_links(v, k, &lw, &lt);
		strlist_pushf(&inv->notes, "%s is a link to %s, outside --root: not followed (taken as absent)", lw, lt);
	}
	return 0;
fail:
	cmd_usage_error("inventory: %s", e.msg);
	return -1;
}

static void print_json(const struct inventory *inv, struct view *v)
{
	cJSON *doc = cJSON_CreateObject(), *tool, *m;
	cJSON_AddStringToObject(doc, "schema", "torch-dll-check/inventory/v1");
	tool = cJSON_AddObjectToObject(doc, "tool");
	cJSON_AddStringToObject(tool, "name", "torch-dll-check");
	cJSON_AddStringToObject(tool, "version", TDC_VERSION);
	m = cJSON_AddObjectToObject(doc, "machine");
	cJSON_AddStringToObject(m, "source", !v ? "registry-only" : view_is_live(v) ? "live" : "offline");
	if (v && view_root(v))
		cJSON_AddStringToObject(m, "root", view_root(v));
	else
		cJSON_AddNullToObject(m, "root");
	cJSON_AddItemToObject(doc, "inventory", inventory_to_json(inv, v));
	out_json(doc);
	cJSON_Delete(doc);
}

int cmd_inventory(int argc, char **argv)
{
	struct inventory_opts o;
	struct cli_args args;
	struct inventory inv;
	struct registry *reg = NULL;
	struct view *v = NULL;
	int rc = EXIT_USAGE, r, looked, scanned_root = 0;

	inventory_init(&inv);
	memset(&o, 0, sizeof(o));
	o.depth = 8;
	o.regview = 64;
	view_opts_init(&o.vo);
	r = cli_parse(&inventory_cli, argc, argv, &o, &args);
	cli_args_release(&args);
	if (r) {
		rc = r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
		goto out;
	}
	looked = o.pythons.n || o.sitepks.n || o.torches.n || o.scans.n;

	/* the registry files, merged in order */
	o.vo.also_keep = o.query;
	if (view_opts_registry(&o.vo, "inventory", &reg))
		goto out;

	if (o.query) {
		if (!reg) {
			cli_error(&inventory_cli, "--query needs --registry FILE");
			goto out;
		}
		rc = query_key(reg, o.query, o.regview);
		goto out;
	}

	/* a tree (or the live machine) unless only a registry file was given on a non-Windows host */
	if ((o.vo.root || os_is_windows() || looked || !reg) && view_opts_open(&o.vo, "inventory", &reg, &v))
		goto out;
	if (read_redist(&inv, v, reg) || collect(&inv, v, &o, looked, &scanned_root))
		goto out;
	if (o.write_profile) {
		struct err e;
		err_clear(&e);
		if (cli_write_profile(&inv, v, o.profile_name ? o.profile_name : "this-machine", o.write_profile, &e)) {
			cmd_usage_error("inventory: --write-profile %s: %s", o.write_profile, e.msg);
			goto out;
		}
	}
	if (o.json)
		print_json(&inv, v);
	else
		print_text(&inv, v != NULL, looked, scanned_root, o.depth);
	rc = EXIT_PASS;
out:
	inventory_release(&inv);
	registry_free(reg);
	view_free(v);
	view_opts_release(&o.vo);
	strlist_release(&o.pythons);
	strlist_release(&o.sitepks);
	strlist_release(&o.torches);
	strlist_release(&o.scans);
	return rc;
}
