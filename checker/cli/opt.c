/*
 * opt: the option tables' parser, help and Markdown (contracts and the
 * conventions in opt.h). One pass over argv, left to right, as getopt_long
 * does without permutation of meaning: options and operands may mix, `--`
 * ends the options, and the first mistake stops the parse.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opt.h"
#include "cli/usage.h"
#include "cli/out.h"
#include "pe/pe.h"

#define DEFAULT_PROGRAM "torch-dll-check"
#define HELP_COLUMN 23 /* where help lines start: "  --name ARG" padded */

void cli_try_help(const struct cli_cmd *c)
{
	fprintf(stderr, "Try '%s %s --help'.\n", DEFAULT_PROGRAM, c->name);
}

static int verror(const struct cli_cmd *c, const char *fmt, va_list ap) ERR_PRINTF(2, 0);

static int verror(const struct cli_cmd *c, const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT;
	strbuf_vaddf(&msg, fmt, ap);
	cmd_usage_error("%s: %s", c->name, msg.buf);
	strbuf_release(&msg);
	cli_try_help(c);
	return EXIT_USAGE;
}

int cli_error(const struct cli_cmd *c, const char *fmt, ...)
{
	va_list ap;
	int r;
	va_start(ap, fmt);
	r = verror(c, fmt, ap);
	va_end(ap);
	return r;
}

/* ---- the table ---- */

/* One option of a command, its group's offset added: where its value goes in the options struct. */
struct walk {
	const struct cli_opt *opt;
	size_t off;
};

/* Lists the table's options, groups flattened, into out[cap]; returns how many there are. */
static size_t flatten(const struct cli_opt *t, size_t base, struct walk *out, size_t n, size_t cap)
{
	for (; t->name || t->group; t++) {
		if (t->group) {
			n = flatten(t->group, base + t->off, out, n, cap);
			continue;
		}
		if (n < cap) {
			out[n].opt = t;
			out[n].off = base + t->off;
		}
		n++;
	}
	return n;
}

#define MAX_OPTS 64

static size_t all_opts(const struct cli_cmd *c, struct walk *w)
{
	size_t n = c->opts ? flatten(c->opts, 0, w, 0, MAX_OPTS) : 0;
	if (n > MAX_OPTS) {
		/* a table written wrong, not a user's mistake (tests/cli runs every command's --help) */
		fprintf(stderr, "BUG: %s has %zu options; opt.c takes %d\n", c->name, n, MAX_OPTS);
		abort();
	}
	return n;
}

static const struct walk *find(const struct walk *w, size_t n, const char *name, size_t len)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (strlen(w[i].opt->name) == len && !strncmp(w[i].opt->name, name, len))
			return &w[i];
	return NULL;
}

const struct cli_opt *cli_lookup(const struct cli_cmd *c, const char *arg)
{
	struct walk w[MAX_OPTS];
	size_t n = all_opts(c, w);
	const struct walk *o = find(w, n, arg, strcspn(arg, "="));
	return o ? o->opt : NULL;
}

static int unknown_option(const struct cli_cmd *c, const struct walk *w, size_t n, const char *a)
{
	const char *names[MAX_OPTS + 2];
	const char *near;
	size_t i, k = 0, len = strcspn(a, "=");
	char *bare = xstrndup(a, len);
	for (i = 0; i < n; i++)
		if (!(w[i].opt->flags & CLI_HIDDEN))
			names[k++] = w[i].opt->name;
	names[k++] = "--help";
	names[k] = NULL;
	near = str_nearest(bare, names);
	if (near)
		cli_error(c, "unknown option '%s' (did you mean '%s'?)", bare, near);
	else
		cli_error(c, "unknown option '%s'", bare);
	free(bare);
	return -1;
}

static int set_one(const struct cli_cmd *c, const struct walk *w, void *opts, const char *val)
{
	struct strbuf why = STRBUF_INIT;
	int r = w->opt->set((char *)opts + w->off, val, &why);
	if (r) {
		if (val)
			cli_error(c, "%s %s: %s", w->opt->name, val, why.buf);
		else
			cli_error(c, "%s: %s", w->opt->name, why.buf);
	}
	strbuf_release(&why);
	return r ? -1 : 0;
}

int cli_parse(const struct cli_cmd *c, int argc, char **argv, void *opts, struct cli_args *args)
{
	struct walk w[MAX_OPTS];
	size_t n = all_opts(c, w);
	int i, only_operands = 0;
	args->v = xmalloc((size_t)(argc > 0 ? argc : 1) * sizeof(*args->v));
	args->n = 0;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *val;
		const struct walk *o;
		if (only_operands || a[0] != '-' || !a[1]) {
			if (c->max_operands >= 0 && args->n >= c->max_operands) {
				cli_error(c, "unexpected argument '%s'", a);
				return -1;
			}
			args->v[args->n++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_operands = 1;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			cli_help(c, stdout);
			return CLI_HELP_SHOWN;
		}
		eq = strchr(a, '=');
		o = find(w, n, a, eq ? (size_t)(eq - a) : strlen(a)); /* a table may name a short alias ("-q") */
		if (!o)
			return unknown_option(c, w, n, a);
		if (!o->opt->arg) {
			if (eq) {
				cli_error(c, "option '%s' takes no value", o->opt->name);
				return -1;
			}
			val = NULL;
		} else if (eq) {
			val = eq + 1;
		} else if (o->opt->flags & CLI_MAYBE_VALUE) {
			/* the next word, unless it is another option ("-" is a value: stdout) */
			val = i + 1 < argc && (argv[i + 1][0] != '-' || !argv[i + 1][1]) ? argv[++i] : NULL;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			cli_error(c, "option '%s' needs a value (%s)", o->opt->name, o->opt->arg);
			return -1;
		}
		if (set_one(c, o, opts, val))
			return -1;
	}
	if (args->n < c->min_operands) {
		cli_error(c, "missing %s", c->operands ? c->operands : "operand");
		return -1;
	}
	return 0;
}

void cli_args_release(struct cli_args *args)
{
	free(args->v);
	args->v = NULL;
	args->n = 0;
}

/* ---- help ---- */

static void synopsis(const struct cli_cmd *c, struct strbuf *sb)
{
	strbuf_addf(sb, "%s %s ", DEFAULT_PROGRAM, c->name);
	if (c->synopsis)
		strbuf_adds(sb, c->synopsis);
	else if (c->operands)
		strbuf_addf(sb, "[options] %s", c->operands);
	else
		strbuf_adds(sb, "[options]");
}

static void help_opt(const struct cli_opt *o, struct strbuf *sb)
{
	size_t start = sb->len;
	const char *h = o->help;
	strbuf_addf(sb, "  %s", o->name);
	if (o->arg)
		strbuf_addf(sb, o->flags & CLI_MAYBE_VALUE ? " [%s]" : " %s", o->arg);
	if (sb->len - start + 2 > HELP_COLUMN)
		strbuf_adds(sb, "  ");
	else
		while (sb->len - start < HELP_COLUMN)
			strbuf_addch(sb, ' ');
	for (; *h; h++) {
		strbuf_addch(sb, *h);
		if (*h == '\n')
			strbuf_addf(sb, "%*s", HELP_COLUMN, "");
	}
	strbuf_addch(sb, '\n');
}

static void help_opts(const struct cli_opt *t, struct strbuf *sb)
{
	for (; t->name || t->group; t++) {
		if (t->group)
			help_opts(t->group, sb);
		else if (!(t->flags & CLI_HIDDEN))
			help_opt(t, sb);
	}
}

void cli_help(const struct cli_cmd *c, FILE *f)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_adds(&sb, "usage: ");
	synopsis(c, &sb);
	strbuf_addf(&sb, "\n\n%s\n", c->summary);
	if (c->opts && (c->opts->name || c->opts->group)) {
		strbuf_addch(&sb, '\n');
		help_opts(c->opts, &sb);
	}
	strbuf_adds(&sb, "  -h, --help           this help\n");
	if (c->notes)
		strbuf_addf(&sb, "\n%s\n", c->notes);
	strbuf_addf(&sb, "\nExit status: %s\n", c->exit_status);
	if (f == stdout)
		out_text(sb.buf, sb.len); /* under the workflow-command guard like all text (out.h) */
	else
		fputs(sb.buf, f);
	strbuf_release(&sb);
}

/* ---- Markdown ---- */

/*
 * Help text as Markdown: continuation lines joined with a space; outside
 * `code spans`, the characters Markdown would take as syntax (C:\ paths,
 * pull_request*, [FILE]) escaped, so that the page reads as the help does.
 */
static void md_text(struct strbuf *sb, const char *s)
{
	int code = 0;
	for (; *s; s++) {
		if (*s == '\n') {
			while (sb->len && sb->buf[sb->len - 1] == ' ')
				sb->len--;
			strbuf_addch(sb, ' ');
			while (s[1] == ' ')
				s++;
			continue;
		}
		if (*s == '`')
			code = !code;
		else if (!code && strchr("\\*_[]<>", *s))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *s);
	}
	sb->buf[sb->len] = '\0';
}

static void md_opts(const struct cli_opt *t, struct strbuf *sb)
{
	for (; t->name || t->group; t++) {
		if (t->group) {
			md_opts(t->group, sb);
			continue;
		}
		if (t->flags & CLI_HIDDEN)
			continue;
		strbuf_addf(sb, "- `%s", t->name);
		if (t->arg)
			strbuf_addf(sb, t->flags & CLI_MAYBE_VALUE ? " [%s]" : " %s", t->arg);
		strbuf_adds(sb, "`: ");
		md_text(sb, t->help);
		strbuf_addch(sb, '\n');
	}
}

void cli_markdown(const struct cli_cmd *c, struct strbuf *out)
{
	strbuf_addf(out, "## `%s %s`\n\n", DEFAULT_PROGRAM, c->name);
	md_text(out, c->summary);
	strbuf_adds(out, "\n\n```\n");
	synopsis(c, out);
	strbuf_adds(out, "\n```\n\n");
	if (c->opts && (c->opts->name || c->opts->group)) {
		md_opts(c->opts, out);
		strbuf_addch(out, '\n');
	}
	if (c->notes) {
		md_text(out, c->notes);
		strbuf_adds(out, "\n\n");
	}
	strbuf_addf(out, "Exit status: %s\n\n", c->exit_status);
}

/* ---- setters ---- */

int cli_set_str(void *dst, const char *val, struct strbuf *why)
{
	*(const char **)dst = val;
	return 0;
}

int cli_set_flag(void *dst, const char *val, struct strbuf *why)
{
	*(int *)dst = 1;
	return 0;
}

int cli_push(void *dst, const char *val, struct strbuf *why)
{
	strlist_push(dst, val);
	return 0;
}

int cli_set_machine(void *dst, const char *val, struct strbuf *why)
{
	static const struct {
		const char *name;
		uint16_t machine;
	} names[] = {
		{ "x64", PE_MACHINE_AMD64 },
		{ "amd64", PE_MACHINE_AMD64 },
		{ "x86", PE_MACHINE_I386 },
		{ "i386", PE_MACHINE_I386 },
		{ "arm64", PE_MACHINE_ARM64 },
	};
	size_t i;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!str_icmp(val, names[i].name)) {
			*(uint16_t *)dst = names[i].machine;
			return 0;
		}
	strbuf_adds(why, "expected x64, x86 or arm64");
	return -1;
}
