/*
 * cmd_inventory: `torch-dll-check inventory` prints what the machine has —
 * VC++ redistributables, runtime DLLs with versions, torch installs — as
 * compact tables or as the report's `inventory` object (--json).
 *
 * Without --root on Linux and with only --registry, no tree is looked at:
 * the registry file alone answers the redistributable part. With --root at
 * a Wine prefix's drive_c, the view finds ../system.reg by itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "out.h"
#include "inventory.h"
#include "os.h"
#include "pe.h"
#include "registry.h"
#include "view.h"

static const char inventory_usage[] =
	"usage: torch-dll-check inventory [--root DIR] [--registry FILE]... [--env NAME=VALUE]...\n"
	"                                 [--python PATH] [--site-packages DIR] [--torch DIR]\n"
	"                                 [--scan DIR [--depth N]] [--json]\n"
	"\n"
	"  --root DIR           a Windows tree (DIR stands for C:\\); a Wine prefix's drive_c\n"
	"                       brings its ../system.reg along\n"
	"  --registry FILE      an offline HKLM: `reg export` file (UTF-16LE or UTF-8) or Wine\n"
	"                       system.reg; repeat to merge (e.g. the WOW6432Node export)\n"
	"  --python PATH        python.exe (or its folder): its site-packages, venv base, user site\n"
	"  --site-packages DIR  --torch DIR   one install\n"
	"  --scan DIR           every torch install under DIR (at most --depth folders deep, 8)\n"
	"  --env NAME=VALUE     environment of the offline machine (APPDATA for the user site)\n"
	"  --json               the report's `inventory` object (docs/report-json.md)\n"
	"  --query KEY [--view 32|64]  print the values of one HKLM key of the --registry files\n"
	"                       as the checker reads them (type, then text), and nothing else\n";

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

static void print_text(const struct inventory *inv, int have_tree)
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
		out_printf("VC++ 2015-2022 redistributable: no registry to read (give --registry FILE, or --root a Wine drive_c)\n");
	}
	if (have_tree) {
		out_printf("\nRuntime DLLs\n");
		if (!inv->ndlls)
			out_printf("  none found\n");
		else
			out_printf("  %-26s %-12s %-7s %-19s %s\n", "name", "where", "machine", "file version", "path");
		for (i = 0; i < inv->ndlls; i++) {
			const struct inv_dll *d = &inv->dlls[i];
			char *ver = d->has_version ? inventory_version_str(d->ver) : NULL;
			out_printf("  %-26s %-12s %-7s %-19s %s\n", d->name, d->where,
			       d->machine ? pe_machine_name(d->machine) : "?",
			       ver ? ver : d->error ? "unreadable" : "no version resource", d->path);
			if (d->error)
				out_printf("      error: %s\n", d->error);
			free(ver);
		}
	}
	if (inv->ninstalls || have_tree) {
		out_printf("\ntorch installs (%zu)\n", inv->ninstalls);
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

int cmd_inventory(int argc, char **argv)
{
	const char *depth_s = NULL, *query = NULL, *view_s = NULL;
	struct strlist pythons = STRLIST_INIT, sitepks = STRLIST_INIT, torches = STRLIST_INIT, scans = STRLIST_INIT;
	struct view_opts vo;
	struct inventory inv;
	struct registry *reg = NULL;
	struct view *v = NULL;
	int json = 0, i, rc = EXIT_USAGE, depth = 8;
	struct err e;
	size_t k;

	inventory_init(&inv);
	err_clear(&e);
	view_opts_init(&vo);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		int r;
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(inventory_usage, stdout);
			rc = EXIT_PASS;
			goto out;
		}
		if (!strcmp(a, "--json")) {
			json = 1;
			continue;
		}
		/* --root, --registry, --env: cmd_view.c */
		if ((r = view_opts_parse(&vo, argc, argv, &i)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
		CMD_OPT("--python", strlist_push(&pythons, val))
		CMD_OPT("--site-packages", strlist_push(&sitepks, val))
		CMD_OPT("--torch", strlist_push(&torches, val))
		CMD_OPT("--scan", strlist_push(&scans, val))
		CMD_OPT("--depth", depth_s = val)
		CMD_OPT("--query", query = val)
		CMD_OPT("--view", view_s = val)
		fputs(inventory_usage, stderr);
		cmd_usage_error("inventory: unknown argument '%s'", a);
		goto out;
	}
	if (depth_s) {
		char *end;
		long d = strtol(depth_s, &end, 10);
		if (*end || d < 1 || d > 64) {
			cmd_usage_error("inventory: --depth %s: expected a number from 1 to 64", depth_s);
			goto out;
		}
		depth = (int)d;
	}

	/* the registry files, merged in order */
	if (view_opts_registry(&vo, "inventory", &reg))
		goto out;

	if (query) {
		int regview = 64;
		if (view_s && strcmp(view_s, "32") && strcmp(view_s, "64")) {
			cmd_usage_error("inventory: --view %s: expected 32 or 64", view_s);
			goto out;
		}
		if (view_s)
			regview = atoi(view_s);
		if (!reg) {
			cmd_usage_error("inventory: --query needs --registry FILE");
			goto out;
		}
		rc = query_key(reg, query, regview);
		goto out;
	}

	/* a tree (or the live machine) unless only a registry file was given on a non-Windows host */
	if (vo.root || os_is_windows() || pythons.n || sitepks.n || torches.n || scans.n || !reg) {
		if (view_opts_open(&vo, "inventory", &reg, &v))
			goto out;
	}

	if (v && view_has_registry(v)) {
		if (inventory_redist_view(&inv, v, &e)) {
			cmd_usage_error("inventory: %s", e.msg);
			goto out;
		}
	} else if (reg) {
		if (inventory_redist_registry(&inv, reg, &e)) {
			cmd_usage_error("inventory: %s", e.msg);
			goto out;
		}
	}

#define EACH(list, call)                                                                               \
	for (k = 0; k < (list).n; k++) {                                                               \
		char *w = cmd_winpath(v, (list).v[k]);                                                 \
		int r_;                                                                                \
		if (!w)                                                                                \
			goto out;                                                                      \
		r_ = call;                                                                             \
		free(w);                                                                               \
		if (r_) {                                                                              \
			cmd_usage_error("inventory: %s", e.msg);                                       \
			goto out;                                                                      \
		}                                                                                      \
	}
	EACH(pythons, inventory_from_python(&inv, v, w, &e))
	EACH(sitepks, inventory_from_site_packages(&inv, v, w, &e))
	EACH(torches, inventory_from_torch(&inv, v, w, &e))
	EACH(scans, inventory_scan(&inv, v, w, depth, &e))
#undef EACH

	if (v && inventory_runtime_dlls(&inv, v, &e)) {
		cmd_usage_error("inventory: %s", e.msg);
		goto out;
	}

	if (json) {
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
		cJSON_AddItemToObject(doc, "inventory", inventory_to_json(&inv, v));
		out_json(doc);
		cJSON_Delete(doc);
	} else {
		print_text(&inv, v != NULL);
	}
	rc = EXIT_PASS;
out:
	inventory_release(&inv);
	registry_free(reg);
	view_free(v);
	view_opts_release(&vo);
	strlist_release(&pythons);
	strlist_release(&sitepks);
	strlist_release(&torches);
	strlist_release(&scans);
	return rc;
}
