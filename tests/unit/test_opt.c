/*
 * test_opt: the option-table parser (checker/cli/opt.c) on a made-up
 * command: both value forms, switches, repeatable and optional values,
 * shared groups at their offsets, `--` and `-`, operand counts, each mistake
 * with its exact words, the help and Markdown generated from the table, and
 * the one --machine parser.
 */
#include "harness.h"
#include "cli/opt.h"
#include "pe/pe.h"

#include <stdlib.h>
#include <unistd.h>

struct inner {
	const char *where;
	struct strlist tags;
};

struct opts {
	const char *name;
	int verbose, hidden;
	const char *json_path;
	int json_stdout;
	uint16_t machine;
	struct inner in;
};

static int set_json(void *dst, const char *val, struct strbuf *why)
{
	struct opts *o = dst;
	if (val)
		o->json_path = val;
	else
		o->json_stdout = 1;
	return 0;
}

static int set_never(void *dst, const char *val, struct strbuf *why)
{
	strbuf_adds(why, "expected something else");
	return -1;
}

static const struct cli_opt inner_opts[] = {
	CLI_OPT("--where", "DIR", "where", cli_set_str, struct inner, where),
	CLI_OPT("--tag", "T", "a tag (repeatable)", cli_push, struct inner, tags),
	CLI_END,
};

static const struct cli_opt test_opts[] = {
	CLI_OPT("--name", "NAME", "the name\nsecond line", cli_set_str, struct opts, name),
	CLI_OPT("--verbose", NULL, "say more", cli_set_flag, struct opts, verbose),
	{ "--json", "FILE", "json", set_json, 0, CLI_MAYBE_VALUE, NULL },
	CLI_OPT("--machine", CLI_MACHINE_ARG, "the machine", cli_set_machine, struct opts, machine),
	CLI_OPT("--never", "X", "always refused", set_never, struct opts, name),
	CLI_OPT_HIDDEN("--secret", NULL, cli_set_flag, struct opts, hidden),
	CLI_GROUP(inner_opts, struct opts, in),
	CLI_END,
};

static const struct cli_cmd test_cli = {
	.name = "frob",
	.summary = "frobnicate FILEs",
	.operands = "FILE...",
	.min_operands = 1,
	.max_operands = 2,
	.opts = test_opts,
	.notes = "Paths are C:\\ paths.",
	.exit_status = "0 done, 2 usage.",
};

static char stderr_text[4096];

/* Parses argv (NULL-terminated) into *o; stderr's text lands in stderr_text. */
static int parse(struct opts *o, struct cli_args *args, const char **argv)
{
	FILE *tmp = tmpfile();
	int argc = 0, saved, r;
	size_t n;
	while (argv[argc])
		argc++;
	memset(o, 0, sizeof(*o));
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	r = cli_parse(&test_cli, argc, (char **)argv, o, args);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(stderr_text, 1, sizeof(stderr_text) - 1, tmp);
	stderr_text[n] = '\0';
	fclose(tmp);
	return r;
}

static void release(struct opts *o, struct cli_args *args)
{
	strlist_release(&o->in.tags);
	cli_args_release(args);
}

static void test_values_and_switches(void)
{
	struct opts o;
	struct cli_args a;
	const char *argv[] = { "frob", "--name", "a", "--name=b", "--verbose", "x.dll", "--tag", "t1", "--tag=t2",
			       "--where=C:\\w", NULL };
	CHECK_INT(parse(&o, &a, argv), 0);
	CHECK_STR(o.name, "b"); /* last wins */
	CHECK_INT(o.verbose, 1);
	CHECK_INT(a.n, 1);
	CHECK_STR(a.v[0], "x.dll");
	CHECK_INT(o.in.tags.n, 2);
	CHECK_STR(o.in.tags.v[1], "t2");
	CHECK_STR(o.in.where, "C:\\w"); /* a group's field, at its offset */
	CHECK_STR(stderr_text, "");
	release(&o, &a);
}

static void test_double_dash_and_dash(void)
{
	struct opts o;
	struct cli_args a;
	const char *argv[] = { "frob", "-", "--", "--verbose", NULL };
	CHECK_INT(parse(&o, &a, argv), 0);
	CHECK_INT(o.verbose, 0);
	CHECK_INT(a.n, 2);
	CHECK_STR(a.v[0], "-");
	CHECK_STR(a.v[1], "--verbose");
	release(&o, &a);
}

static void test_optional_value(void)
{
	struct opts o;
	struct cli_args a;
	const char *alone[] = { "frob", "x", "--json", NULL };
	const char *before_opt[] = { "frob", "--json", "--verbose", "x", NULL };
	const char *with_file[] = { "frob", "--json", "out.json", "x", NULL };
	CHECK_INT(parse(&o, &a, alone), 0);
	CHECK(o.json_stdout && !o.json_path);
	release(&o, &a);
	CHECK_INT(parse(&o, &a, before_opt), 0);
	CHECK(o.json_stdout && o.verbose && !o.json_path);
	release(&o, &a);
	CHECK_INT(parse(&o, &a, with_file), 0);
	CHECK_STR(o.json_path, "out.json");
	CHECK_INT(a.n, 1);
	release(&o, &a);
}

static void test_mistakes_have_fixed_words(void)
{
	static const struct {
		const char *argv[5];
		const char *err;
	} cases[] = {
		{ { "frob", "--nmae", "x", NULL }, "torch-dll-check: frob: unknown option '--nmae' (did you mean '--name'?)\n" },
		{ { "frob", "--zzzzzzzz", NULL }, "torch-dll-check: frob: unknown option '--zzzzzzzz'\n" },
		{ { "frob", "--verbos=1", NULL }, "torch-dll-check: frob: unknown option '--verbos' (did you mean '--verbose'?)\n" },
		{ { "frob", "-v", NULL }, "torch-dll-check: frob: unknown option '-v'\n" },
		{ { "frob", "x", "--name", NULL }, "torch-dll-check: frob: option '--name' needs a value (NAME)\n" },
		{ { "frob", "--verbose=yes", NULL }, "torch-dll-check: frob: option '--verbose' takes no value\n" },
		{ { "frob", "a", "b", "c", NULL }, "torch-dll-check: frob: unexpected argument 'c'\n" },
		{ { "frob", "--verbose", NULL }, "torch-dll-check: frob: missing FILE...\n" },
		{ { "frob", "--never", "v", NULL }, "torch-dll-check: frob: --never v: expected something else\n" },
		{ { "frob", "--machine", "amd65", NULL }, "torch-dll-check: frob: --machine amd65: expected x64, x86 or arm64\n" },
		/* the hidden option is parsed but never suggested */
		{ { "frob", "--secre", NULL }, "torch-dll-check: frob: unknown option '--secre'\n" },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct opts o;
		struct cli_args a;
		char want[512];
		CHECK_INT(parse(&o, &a, (const char **)cases[i].argv), -1);
		snprintf(want, sizeof(want), "%sTry 'torch-dll-check frob --help'.\n", cases[i].err);
		CHECK_STR(stderr_text, want);
		release(&o, &a);
	}
}

static void test_hidden_option_parses(void)
{
	struct opts o;
	struct cli_args a;
	const char *argv[] = { "frob", "--secret", "x", NULL };
	CHECK_INT(parse(&o, &a, argv), 0);
	CHECK_INT(o.hidden, 1);
	release(&o, &a);
}

static void test_help_from_the_table(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct strbuf md = STRBUF_INIT;
	cli_help(&test_cli, f);
	fclose(f);
	CHECK_HAS(buf, "usage: torch-dll-check frob [options] FILE...\n\nfrobnicate FILEs\n\n");
	CHECK_HAS(buf, "  --name NAME          the name\n                       second line\n");
	CHECK_HAS(buf, "  --json [FILE]        json\n");
	CHECK_HAS(buf, "  --machine x64|x86|arm64  the machine\n");
	CHECK_HAS(buf, "  --where DIR          where\n"); /* the group's options too */
	CHECK(!strstr(buf, "--secret"));
	{
		const char *tail = "\n\nExit status: 0 done, 2 usage.\n"; /* the last line */
		CHECK(len > strlen(tail) && !strcmp(buf + len - strlen(tail), tail));
	}
	cli_markdown(&test_cli, &md);
	CHECK_HAS(md.buf, "## `torch-dll-check frob`\n");
	CHECK_HAS(md.buf, "- `--name NAME`: the name second line\n");
	CHECK_HAS(md.buf, "Paths are C:\\\\ paths."); /* escaped for Markdown */
	CHECK(!strstr(md.buf, "--secret"));
	strbuf_release(&md);
	free(buf);
}

static void test_machine_names(void)
{
	static const struct {
		const char *s;
		uint16_t m;
	} ok[] = { { "x64", PE_MACHINE_AMD64 }, { "amd64", PE_MACHINE_AMD64 }, { "X64", PE_MACHINE_AMD64 },
		   { "x86", PE_MACHINE_I386 },  { "i386", PE_MACHINE_I386 },   { "arm64", PE_MACHINE_ARM64 } };
	struct strbuf why = STRBUF_INIT;
	uint16_t m = 0;
	size_t i;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CHECK_INT(cli_set_machine(&m, ok[i].s, &why), 0);
		CHECK_INT(m, ok[i].m);
	}
	CHECK_INT(cli_set_machine(&m, "arm", &why), -1);
	CHECK_STR(why.buf, "expected x64, x86 or arm64");
	strbuf_release(&why);
}

static void test_nearest(void)
{
	static const char *const names[] = { "--torch", "--trace", "--root", NULL };
	CHECK_STR(str_nearest("--torhc", names), "--torch");
	CHECK_STR(str_nearest("--rot", names), "--root");
	CHECK(str_nearest("--completely-else", names) == NULL);
}

int main(void)
{
	RUN(test_values_and_switches);
	RUN(test_double_dash_and_dash);
	RUN(test_optional_value);
	RUN(test_mistakes_have_fixed_words);
	RUN(test_hidden_option_parses);
	RUN(test_help_from_the_table);
	RUN(test_machine_names);
	RUN(test_nearest);
	return HARNESS_EXIT();
}
