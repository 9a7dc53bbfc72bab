/*
 * cmd_pe: `torch-dll-check pe [--json] [--no-exports] FILE...` — what the PE
 * reader sees in each file: headers, sections, imports, delay imports,
 * exports (with forwarders), DependentLoadFlags, version resource, overlay.
 *
 * --json prints the shape documented in docs/pe-json.md (schema
 * "torch-dll-check/pe/v1"). The short parts are ordinary cJSON (integers as
 * raw number text, because cJSON prints every number through "%1.15g" plus a
 * re-parse check); the two long lists (export entries, each DLL's imported
 * functions) are rendered as JSON text (json_quote, jsonout.h) as they are
 * read and handed to stdout every 64 KiB, so memory does not grow with them:
 * a node per field cost 73 MB for 150k exports, and one buffer for the list
 * 343 MB for 4,000,000 export slots.
 *
 * Strings from the file are bytes, not necessarily UTF-8: every JSON text
 * passes through jsonout.h, so invalid bytes become U+FFFD, controls and
 * bidi marks \uXXXX escapes, and no line can be a workflow command.
 *
 * Output is streamed file by file (byte-identical to printing one cJSON tree).
 *
 * Exit status: 0 when every file parsed, 2 when any failed (each failure
 * also goes to stderr as "torch-dll-check: FILE: message") or on bad usage.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli/cmd.h"
#include "util/jsonout.h"
#include "cli/out.h"
#include "pe/pe.h"
#include "util/strbuf.h"
#include "util/version.h"

struct pe_opts {
	int json, no_exports;
};

static const struct cli_opt pe_opts_table[] = {
	CLI_OPT("--json", NULL, "print JSON (schema torch-dll-check/pe/v1, docs/pe-json.md)",
		cli_set_flag, struct pe_opts, json),
	CLI_OPT("--no-exports", NULL, "skip the export table (faster on DLLs with 100k+ exports)",
		cli_set_flag, struct pe_opts, no_exports),
	CLI_END,
};

const struct cli_cmd pe_cli = {
	.name = "pe",
	.summary = "headers, imports, exports and version of PE files",
	.operands = "FILE...",
	.min_operands = 1,
	.max_operands = -1,
	.opts = pe_opts_table,
	.notes = "FILE is a host path. A file that cannot be read or parsed is reported on stderr as\n"
		 "\"torch-dll-check: FILE: reason\" (and as its \"error\" in JSON); the others are still shown.",
	.exit_status = "0 all files parsed, 2 a file could not be parsed or bad usage.",
};

/* ---- JSON helpers ---- */

static void jnum(cJSON *o, const char *key, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof(b), "%" PRIu64, v);
	cJSON_AddRawToObject(o, key, b);
}

/* `"key":N` without printf: the export list calls this 300k times. */
static void json_keynum(struct strbuf *sb, const char *key_colon, uint32_t v)
{
	char b[12];
	size_t i = sizeof(b);
	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	strbuf_adds(sb, key_colon);
	strbuf_add(sb, b + i, sizeof(b) - i);
}

/* Hands what is buffered to stdout once it is large: the document never sits whole in memory. */
static void spill(struct strbuf *out, int force)
{
	if (out->len && (force || out->len >= 65536)) {
		fwrite(out->buf, 1, out->len, stdout);
		strbuf_reset(out);
	}
}

/* Appends a cJSON object printed unformatted (and made safe, jsonout.h) without its closing brace. */
static void object_open(struct strbuf *out, cJSON *o)
{
	json_print(out, o, 0);
	out->len--; /* the '}' */
	out->buf[out->len] = '\0';
	cJSON_Delete(o);
}

/* Appends the members of a cJSON object (its text without the opening brace), after a ','. */
static void object_close(struct strbuf *out, cJSON *o)
{
	struct strbuf t = STRBUF_INIT;
	json_print(&t, o, 0);
	strbuf_addch(out, ',');
	strbuf_add(out, t.buf + 1, t.len - 1);
	strbuf_release(&t);
	cJSON_Delete(o);
}

static void json_imports(struct strbuf *out, const char *key_colon, const struct pe_import_dll *dlls, size_t n)
{
	size_t i, j;
	strbuf_adds(out, key_colon);
	strbuf_addch(out, '[');
	for (i = 0; i < n; i++) {
		strbuf_adds(out, i ? ",{\"dll\":" : "{\"dll\":");
		json_quote(out, dlls[i].dll);
		strbuf_adds(out, ",\"functions\":[");
		for (j = 0; j < dlls[i].nfuncs; j++) {
			const struct pe_import_func *f = &dlls[i].funcs[j];
			if (j)
				strbuf_addch(out, ',');
			if (f->by_ordinal) {
				json_keynum(out, "{\"ordinal\":", f->ordinal);
				strbuf_addch(out, '}');
			} else {
				strbuf_adds(out, "{\"name\":");
				json_quote(out, f->name);
				json_keynum(out, ",\"hint\":", f->hint);
				strbuf_addch(out, '}');
			}
			spill(out, 0);
		}
		strbuf_adds(out, "]}");
	}
	strbuf_addch(out, ']');
}

/* Export entries, streamed from the iterator (unused slots skipped). */
static void json_exports(struct strbuf *out, struct pe_image *img, struct pe_export_iter *it)
{
	struct pe_export ex;
	int first = 1;
	strbuf_adds(out, ",\"exports\":{\"dll_name\":");
	json_quote(out, img->export_dll_name);
	json_keynum(out, ",\"ordinal_base\":", img->export_base);
	strbuf_adds(out, ",\"entries\":[");
	while (pe_export_iter_next(it, &ex)) {
		if (!ex.rva && !ex.name)
			continue; /* unused slot */
		if (!first)
			strbuf_addch(out, ',');
		first = 0;
		json_keynum(out, "{\"ordinal\":", ex.ordinal);
		if (ex.name) {
			strbuf_adds(out, ",\"name\":");
			json_quote(out, ex.name);
		}
		if (ex.forwarder) {
			strbuf_adds(out, ",\"forwarder\":");
			json_quote(out, ex.forwarder);
		} else {
			json_keynum(out, ",\"rva\":", ex.rva);
		}
		strbuf_addch(out, '}');
		spill(out, 0);
	}
	strbuf_adds(out, "]}");
}

/*
 * One file's object, written to `out` (and spilled to stdout as it grows):
 * the byte-for-byte text cJSON would print for the whole object, with the
 * long lists (imports, export entries) rendered as they are read instead of
 * as cJSON nodes or one buffer (pe --json on 4,000,000 export slots held
 * 343 MB). A corrupt export table fails before anything of the file is
 * written (pe_export_iter_init checks it first): -1, nothing appended.
 */
static int json_image(struct strbuf *out, struct pe_image *img, int want_exports, struct err *err)
{
	cJSON *o, *arr;
	char buf[64];
	size_t i;
	struct pe_export_iter it;

	memset(&it, 0, sizeof(it));
	if (want_exports && img->has_exports && pe_export_iter_init(&it, img, err))
		return -1;
	o = cJSON_CreateObject();
	json_add_str_or_null(o, "path", img->path);
	cJSON_AddNullToObject(o, "error");
	cJSON_AddStringToObject(o, "machine", pe_machine_name(img->machine));
	jnum(o, "machine_code", img->machine);
	cJSON_AddStringToObject(o, "format", img->pe32plus ? "PE32+" : "PE32");
	cJSON_AddBoolToObject(o, "dll", (img->characteristics & 0x2000) != 0);
	jnum(o, "characteristics", img->characteristics);
	jnum(o, "dll_characteristics", img->dll_characteristics);
	jnum(o, "subsystem", img->subsystem);
	snprintf(buf, sizeof(buf), "%u.%02u", img->linker_major, img->linker_minor);
	cJSON_AddStringToObject(o, "linker", buf);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, img->image_base);
	cJSON_AddStringToObject(o, "image_base", buf);
	arr = cJSON_AddArrayToObject(o, "sections");
	for (i = 0; i < img->nsections; i++) {
		const struct pe_section *s = &img->sections[i];
		cJSON *so = cJSON_CreateObject();
		json_add_str_or_null(so, "name", s->name);
		jnum(so, "vaddr", s->vaddr);
		jnum(so, "vsize", s->vsize);
		jnum(so, "raw_off", s->raw_off);
		jnum(so, "raw_size", s->raw_size);
		jnum(so, "characteristics", s->characteristics);
		cJSON_AddItemToArray(arr, so);
	}
	{
		struct pe_commit c;
		cJSON *co = cJSON_AddObjectToObject(o, "commit");
		pe_commit(img, &c);
		jnum(co, "bytes", c.bytes);
		jnum(co, "writable_sections", c.nwritable);
		cJSON_AddBoolToObject(co, "bounded", c.bounded);
	}
	object_open(out, o);
	json_imports(out, ",\"imports\":", img->imports, img->nimports);
	json_imports(out, ",\"delay_imports\":", img->delay_imports, img->ndelay_imports);
	if (want_exports) {
		if (!img->has_exports)
			strbuf_adds(out, ",\"exports\":null");
		else
			json_exports(out, img, &it);
	}
	pe_export_iter_release(&it);

	o = cJSON_CreateObject();
	if (img->has_dependent_load_flags)
		jnum(o, "dependent_load_flags", img->dependent_load_flags);
	else
		cJSON_AddNullToObject(o, "dependent_load_flags");
	if (img->version.present) {
		const struct pe_version *v = &img->version;
		cJSON *vo = cJSON_AddObjectToObject(o, "version"), *so;
		if (v->has_fixed) {
			cJSON_AddStringToObject(vo, "file_version", winver_dotted(buf, v->file));
			cJSON_AddStringToObject(vo, "product_version", winver_dotted(buf, v->product));
		} else {
			cJSON_AddNullToObject(vo, "file_version");
			cJSON_AddNullToObject(vo, "product_version");
		}
		so = cJSON_AddObjectToObject(vo, "strings");
		json_add_str_or_null(so, "FileVersion", v->file_version_str);
		json_add_str_or_null(so, "ProductVersion", v->product_version_str);
		json_add_str_or_null(so, "ProductName", v->product_name);
		json_add_str_or_null(so, "CompanyName", v->company_name);
		json_add_str_or_null(so, "OriginalFilename", v->original_filename);
		json_add_str_or_null(so, "FileDescription", v->file_description);
		json_add_str_or_null(so, "Comments", v->comments);
	} else {
		cJSON_AddNullToObject(o, "version");
	}
	jnum(o, "overlay_size", img->overlay_size);
	object_close(out, o);
	return 0;
}

/* The message without the "PATH: " prefix the reader puts first (the path is its own field). */
static const char *strip_path(const char *msg, const char *path)
{
	size_t n = strlen(path);
	if (!strncmp(msg, path, n) && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

/* "torch-dll-check: FILE: reason", naming FILE once even when the reason does ("cannot open FILE: ..."). */
static void say_failure(const char *path, const char *msg)
{
	const char *reason = strip_path(msg, path);
	if (strstr(reason, path))
		cmd_errorf("torch-dll-check: %s", reason);
	else
		cmd_errorf("torch-dll-check: %s: %s", path, reason);
}

/* ---- text ---- */

static const char *subsystem_name(uint16_t s)
{
	switch (s) {
	case 1: return "native";
	case 2: return "Windows GUI";
	case 3: return "Windows console";
	case 9: return "Windows CE GUI";
	case 10: return "EFI application";
	case 16: return "Windows boot application";
	default: return "other";
	}
}

static void text_imports(const char *title, const struct pe_import_dll *dlls, size_t n)
{
	size_t i, j;
	out_printf("  %s (%zu DLL%s)%s\n", title, n, n == 1 ? "" : "s", n ? ":" : "");
	for (i = 0; i < n; i++) {
		out_printf("    %s (%zu function%s)\n", dlls[i].dll, dlls[i].nfuncs, dlls[i].nfuncs == 1 ? "" : "s");
		for (j = 0; j < dlls[i].nfuncs; j++) {
			const struct pe_import_func *f = &dlls[i].funcs[j];
			if (f->by_ordinal)
				out_printf("      #%u\n", f->ordinal);
			else
				out_printf("      %s (hint %u)\n", f->name, f->hint);
		}
	}
}

static int text_image(struct pe_image *img, int want_exports, struct err *err)
{
	size_t i;
	char buf[64];

	out_printf("%s\n", img->path);
	out_printf("  machine:     %s (0x%04x), %s%s\n", pe_machine_name(img->machine), img->machine,
	       img->pe32plus ? "PE32+" : "PE32", img->characteristics & 0x2000 ? ", DLL" : "");
	out_printf("  linker:      %u.%02u\n", img->linker_major, img->linker_minor);
	out_printf("  subsystem:   %u (%s)\n", img->subsystem, subsystem_name(img->subsystem));
	out_printf("  image base:  0x%" PRIx64 "\n", img->image_base);
	out_printf("  flags:       characteristics 0x%04x, DLL characteristics 0x%04x\n", img->characteristics,
	       img->dll_characteristics);
	out_printf("  sections (%zu):\n", img->nsections);
	for (i = 0; i < img->nsections; i++) {
		const struct pe_section *s = &img->sections[i];
		out_printf("    %-8s vaddr 0x%08x vsize 0x%08x raw 0x%08x+0x%08x\n", s->name, s->vaddr, s->vsize, s->raw_off,
		       s->raw_size);
	}
	{
		struct pe_commit c;
		pe_commit(img, &c);
		out_printf("  commit:      %" PRIu64 " bytes per process (%zu writable section%s%s)\n", c.bytes, c.nwritable,
			   c.nwritable == 1 ? "" : "s", c.bounded ? "; the table claims more than SizeOfImage" : "");
	}
	text_imports("imports", img->imports, img->nimports);
	text_imports("delay imports", img->delay_imports, img->ndelay_imports);
	if (want_exports) {
		struct pe_export_iter it;
		struct pe_export ex;
		size_t used = 0;
		if (!img->has_exports) {
			out_printf("  exports:     none\n");
		} else {
			/* two passes over the table (count, then list) instead of holding it */
			if (pe_export_iter_init(&it, img, err))
				return -1;
			while (pe_export_iter_next(&it, &ex))
				used += ex.rva || ex.name;
			out_printf("  exports (%s, ordinal base %u, %zu used of %u slots):\n",
			       img->export_dll_name ? img->export_dll_name : "no DLL name", img->export_base, used,
			       img->export_count);
			it.next = 0;
			while (pe_export_iter_next(&it, &ex)) {
				if (!ex.rva && !ex.name)
					continue;
				out_printf("    %6u %s", ex.ordinal, ex.name ? ex.name : "(ordinal only)");
				if (ex.forwarder)
					out_printf(" -> %s\n", ex.forwarder);
				else
					out_printf(" at 0x%x\n", ex.rva);
			}
			pe_export_iter_release(&it);
		}
	}
	if (img->has_dependent_load_flags)
		out_printf("  dependent load flags: 0x%04x\n", img->dependent_load_flags);
	else
		out_printf("  dependent load flags: none (load config absent or too old)\n");
	if (img->version.present) {
		const struct pe_version *v = &img->version;
		if (v->has_fixed) {
			out_printf("  version:     file %s", winver_dotted(buf, v->file));
			out_printf(", product %s\n", winver_dotted(buf, v->product));
		} else {
			out_printf("  version:     (no fixed file info)\n");
		}
		if (v->file_version_str)
			out_printf("    FileVersion:      %s\n", v->file_version_str);
		if (v->product_version_str)
			out_printf("    ProductVersion:   %s\n", v->product_version_str);
		if (v->product_name)
			out_printf("    ProductName:      %s\n", v->product_name);
		if (v->company_name)
			out_printf("    CompanyName:      %s\n", v->company_name);
		if (v->original_filename)
			out_printf("    OriginalFilename: %s\n", v->original_filename);
		if (v->file_description)
			out_printf("    FileDescription:  %s\n", v->file_description);
		if (v->comments)
			out_printf("    Comments:         %s\n", v->comments);
	} else {
		out_printf("  version:     none\n");
	}
	out_printf("  overlay:     %" PRIu64 " bytes\n", img->overlay_size);
	return 0;
}

int cmd_pe(int argc, char **argv)
{
	struct pe_opts o;
	struct cli_args args;
	int i, failed = 0, first_out = 1, r;
	unsigned what = PE_ALL;

	memset(&o, 0, sizeof(o));
	r = cli_parse(&pe_cli, argc, argv, &o, &args);
	if (r) {
		cli_args_release(&args);
		return r == CLI_HELP_SHOWN ? EXIT_PASS : EXIT_USAGE;
	}
	if (o.no_exports)
		what &= ~(unsigned)PE_EXPORTS;
	/*
	 * The document is streamed one file object at a time: the same bytes
	 * cJSON_PrintUnformatted gives for the whole tree, without holding
	 * every file's tree until the end (739 DLLs: 39 MB -> a few MB).
	 */
	if (o.json)
		fputs("{\"schema\":\"torch-dll-check/pe/v1\",\"files\":[", stdout);

	for (i = 0; i < args.n; i++) {
		const char *path = args.v[i];
		struct pe_image *img = NULL;
		struct err err;
		struct strbuf text = STRBUF_INIT;
		int bad;

		err_clear(&err);
		bad = pe_open(&img, path, what, &err);
		if (o.json && !first_out)
			strbuf_addch(&text, ',');
		first_out = 0;
		if (!bad) {
			if (o.json) {
				bad = json_image(&text, img, !o.no_exports, &err) != 0;
			} else if (text_image(img, !o.no_exports, &err)) {
				bad = 1;
				out_printf("  error:       %s\n", strip_path(err.msg, path));
			}
		}
		if (bad) {
			failed = 1;
			say_failure(path, err.msg);
			if (o.json) {
				cJSON *fo = cJSON_CreateObject();
				json_add_str_or_null(fo, "path", path);
				json_add_str_or_null(fo, "error", strip_path(err.msg, path));
				json_print(&text, fo, 0); /* escaped: jsonout.h */
				cJSON_Delete(fo);
			}
		}
		pe_close(img);
		if (o.json) {
			spill(&text, 1);
			strbuf_release(&text);
		} else if (i + 1 < args.n) {
			out_printf("\n");
		}
	}
	cli_args_release(&args);
	if (o.json)
		fputs("]}\n", stdout);
	if (fflush(stdout) || ferror(stdout))
		return cmd_usage_error("pe: cannot write output");
	return failed ? EXIT_USAGE : EXIT_PASS;
}
