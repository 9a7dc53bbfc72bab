/*
 * test_pairs_gate: `check --pins` on the pairs a repository pins
 * (judge/pairs_gate.c), on pin files held in memory: an extension pinned to
 * a release built for another torch is an `extension-pair` error anchored on
 * the extension's pin, with the release that fits in its fix; a fitting pair,
 * a local version label, a pin that does not apply on Windows, a range and a
 * repository without a torch pin give nothing; a file without its own torch
 * pin is held to the repository's first. The releases and what they require
 * are the measured evidence (matrix/evidence/extensions-win_amd64.txt:
 * torchvision 0.19.0 requires torch==2.4.0, 0.19.1 torch==2.4.1).
 */
#include "harness.h"
#include "judge/pairs_gate.h"

#include <stdlib.h>

struct mem_file {
	const char *path, *text;
};

static int mem_read(void *ctx, const char *path, struct strbuf *out, struct err *err)
{
	const struct mem_file *f;
	(void)err;
	for (f = ctx; f->path; f++) {
		if (!strcmp(f->path, path)) {
			strbuf_adds(out, f->text);
			return 0;
		}
	}
	return 1;
}

/* The extension-pair findings of the pin files (NULL-terminated), as "file:line:col title | fix" lines. */
static char *judge(const struct mem_file *files, size_t *n)
{
	struct pinset ps;
	struct strlist cands = STRLIST_INIT;
	struct findings fs = FINDINGS_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct err e = { "", 0 };
	size_t i;
	for (i = 0; files[i].path; i++)
		strlist_push(&cands, files[i].path);
	memset(&ps, 0, sizeof(ps));
	if (pinset_load(&ps, &cands, mem_read, (void *)files, &e)) {
		printf("# pinset_load: %s\n", e.msg);
		harness_failed_checks++;
	}
	*n = gate_extension_pairs(&fs, &ps);
	CHECK_INT(*n, fs.n);
	for (i = 0; i < fs.n; i++) {
		const struct finding *f = &fs.v[i];
		CHECK_INT(f->rule, RULE_EXTENSION_PAIR);
		CHECK_INT(f->severity, SEV_ERROR);
		strbuf_addf(&sb, "%s:%u:%u %s | %s\n", f->anchor.file ? f->anchor.file : "(none)", f->anchor.line,
			    f->anchor.col, f->title, f->fix);
	}
	findings_release(&fs);
	pinset_release(&ps);
	strlist_release(&cands);
	return strbuf_detach(&sb);
}

static void test_mismatched_pair(void)
{
	static const struct mem_file files[] = {
		{ "requirements.txt", "numpy\ntorch==2.4.1\ntorchvision==0.19.0\n" },
		{ NULL, NULL },
	};
	size_t n;
	char *out = judge(files, &n);
	CHECK_INT(n, 1);
	CHECK_STR(out, "requirements.txt:3:1 torchvision 0.19.0 requires torch==2.4.0; the pins say torch 2.4.1 | "
		       "pin torchvision==0.19.1 (built for torch 2.4.1), or torch==2.4.0\n");
	free(out);
}

static void test_fitting_pairs_give_nothing(void)
{
	static const struct mem_file fits[] = {
		{ "requirements.txt", "torch==2.4.1\ntorchvision==0.19.1\n" },
		{ NULL, NULL },
	};
	/* the local label is not part of the release: 0.19.0+cu121 fits 2.4.0+cu121 */
	static const struct mem_file local[] = {
		{ "requirements.txt", "torch==2.4.0+cu121\ntorchvision==0.19.0+cu121\n" },
		{ NULL, NULL },
	};
	/* a range fixes no release; a package without measured pairs is not judged */
	static const struct mem_file loose[] = {
		{ "requirements.txt", "torch==2.4.1\ntorchvision>=0.19\nnumpy==1.26.4\n" },
		{ NULL, NULL },
	};
	/* a pin for Linux only does not apply on Windows */
	static const struct mem_file linux_only[] = {
		{ "requirements.txt", "torch==2.4.1\ntorchvision==0.19.0; sys_platform == \"linux\"\n" },
		{ NULL, NULL },
	};
	/* no torch pin: nothing to hold the extension to */
	static const struct mem_file no_torch[] = {
		{ "requirements.txt", "torchvision==0.19.0\n" },
		{ NULL, NULL },
	};
	const struct mem_file *cases[] = { fits, local, loose, linux_only, no_torch };
	size_t i, n;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = judge(cases[i], &n);
		if (n) {
			printf("# case %zu: %s", i, out);
			harness_failed_checks++;
		}
		free(out);
	}
}

static void test_file_without_torch_uses_the_first(void)
{
	static const struct mem_file files[] = {
		{ "requirements.txt", "torch==2.4.1\n" },
		{ "requirements-dev.txt", "pytest\ntorchvision==0.19.0\n" },
		{ NULL, NULL },
	};
	/* a file with its own torch pin is held to that one, not the first */
	static const struct mem_file own[] = {
		{ "requirements.txt", "torch==2.4.1\ntorchvision==0.19.1\n" },
		{ "requirements-old.txt", "torch==2.4.0\ntorchvision==0.19.0\n" },
		{ NULL, NULL },
	};
	size_t n;
	char *out = judge(files, &n);
	CHECK_INT(n, 1);
	CHECK_STR(out, "requirements-dev.txt:2:1 torchvision 0.19.0 requires torch==2.4.0; the pins say torch 2.4.1 | "
		       "pin torchvision==0.19.1 (built for torch 2.4.1), or torch==2.4.0\n");
	free(out);
	out = judge(own, &n);
	CHECK_INT(n, 0);
	CHECK_STR(out, "");
	free(out);
}

int main(void)
{
	RUN(test_mismatched_pair);
	RUN(test_fitting_pairs_give_nothing);
	RUN(test_file_without_torch_uses_the_first);
	return HARNESS_EXIT();
}
