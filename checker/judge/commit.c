/*
 * commit: the commit charge of the images torch's load maps, against the
 * machine's limit (commit.h, docs/commit.md).
 */
#include "judge/commit.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "machine/winpath.h"
#include "pe/pe.h"
#include "util/strbuf.h"

static int by_charge(const void *a, const void *b)
{
	const struct commit_image *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return strcmp(x->path, y->path);
}

static void measure(struct commit_summary *sum, const struct loader *ld)
{
	size_t i, n = loader_nmodules(ld);
	for (i = 0; i < n; i++) {
		const struct pe_image *img;
		const char *path = loader_module(ld, i, &img);
		struct pe_commit c;
		struct commit_image *ci;
		sum->nmapped++;
		if (!img) {
			sum->nunparsed++;
			continue;
		}
		pe_commit(img, &c);
		sum->per_process += c.bytes; /* each <= 4 GiB: no overflow in any real list */
		if (!c.bytes)
			continue;
		sum->images = xrealloc(sum->images, (sum->nimages + 1) * sizeof(*sum->images));
		ci = &sum->images[sum->nimages++];
		ci->path = xstrdup(path);
		ci->bytes = c.bytes;
		ci->section = c.nwritable ? xstrdup(img->sections[c.largest].name) : NULL;
		ci->bounded = c.bounded;
	}
	if (sum->nimages > 1)
		qsort(sum->images, sum->nimages, sizeof(*sum->images), by_charge);
}

static uint64_t sat_mul(uint64_t a, unsigned n)
{
	return n && a > UINT64_MAX / n ? UINT64_MAX : a * n;
}

static void size_text(struct strbuf *sb, uint64_t n)
{
	char b[32];
	memory_format(b, sizeof(b), n);
	strbuf_adds(sb, b);
}

/* "cufft64_11.dll 122.5 MiB (.data), cublasLt64_12.dll 68.3 MiB (.data), ..." */
static void top_text(struct strbuf *sb, const struct commit_summary *sum)
{
	size_t i;
	for (i = 0; i < sum->nimages && i < COMMIT_TOP; i++) {
		const struct commit_image *ci = &sum->images[i];
		if (i)
			strbuf_adds(sb, ", ");
		strbuf_addf(sb, "%s ", winpath_basename(ci->path));
		size_text(sb, ci->bytes);
		if (ci->section)
			strbuf_addf(sb, " (%s%s)", ci->section, ci->bounded ? "; its table claims more than the image's size" : "");
	}
	if (sum->nimages > COMMIT_TOP)
		strbuf_addf(sb, " and %zu more", sum->nimages - COMMIT_TOP);
}

/* What the machine's limit is made of, for the message. */
static void limit_text(struct strbuf *sb, const struct machine_memory *mem)
{
	size_t i;
	strbuf_adds(sb, "RAM ");
	size_text(sb, mem->physical);
	strbuf_addf(sb, " (%s)", mem->physical_source ? mem->physical_source : "given");
	if (!mem->paging_known) {
		strbuf_adds(sb, " and, PagingFiles not read, Windows' default paging file (system-managed)");
		return;
	}
	if (!mem->nfiles) {
		strbuf_adds(sb, " and no paging file (PagingFiles is empty)");
		return;
	}
	for (i = 0; i < mem->nfiles; i++) {
		const struct paging_file *f = &mem->files[i];
		strbuf_addf(sb, " + %s ", f->path);
		if (f->kind == PAGING_FIXED) {
			size_text(sb, f->min);
			strbuf_adds(sb, " to ");
			size_text(sb, f->max);
		} else {
			strbuf_adds(sb, f->kind == PAGING_AUTOMATIC ? "(every drive managed automatically)"
								   : "(system-managed)");
		}
	}
	if (mem->notes.n)
		strbuf_addf(sb, "; %s", mem->notes.v[0]);
}

static char *cpu_build(const struct torch_run *run)
{
	if (!run->cuda_version)
		return NULL;
	if (run->torch_version) {
		const char *plus = strchr(run->torch_version, '+');
		int n = plus ? (int)(plus - run->torch_version) : (int)strlen(run->torch_version);
		return xasprintf("the CPU build of torch %.*s, which maps none of the CUDA libraries: pip install torch==%.*s "
				 "--index-url https://download.pytorch.org/whl/cpu",
				 n, run->torch_version, n, run->torch_version);
	}
	return xstrdup("the CPU build of torch, which maps none of the CUDA libraries (pip install torch --index-url "
		       "https://download.pytorch.org/whl/cpu)");
}

static void judge(struct findings *out, const struct commit_summary *sum, const struct torch_run *run,
		  const struct machine_memory *mem)
{
	struct strbuf title, msg, fix;
	uint64_t total = sat_mul(sum->per_process, sum->processes);
	const char *leaf = sum->nimages ? winpath_basename(sum->images[0].path) : NULL;
	const char *lpath = sum->nimages ? sum->images[0].path : NULL;
	unsigned n = sum->processes;
	strbuf_init(&title);
	strbuf_init(&msg);
	strbuf_init(&fix);
	strbuf_addf(&msg, "Mapping an image charges the commit limit for its writable (copy-on-write) sections, in every "
			  "process that maps it (docs/commit.md). `import torch` here maps %zu images that charge ",
		    sum->nmapped);
	size_text(&msg, sum->per_process);
	strbuf_adds(&msg, " per process");
	if (sum->nimages) {
		strbuf_adds(&msg, ": ");
		top_text(&msg, sum);
	}
	strbuf_adds(&msg, ".");
	if (sum->nunparsed)
		strbuf_addf(&msg, " %zu mapped modules could not be read and count as nothing.", sum->nunparsed);
	if (!sum->limit_known) {
		if (!sum->asked && sum->per_process < COMMIT_NOTE_ALWAYS)
			goto done; /* not asked about, and not large: nothing to say */
		strbuf_addf(&title, "the commit %u process%s loading torch charge is not judged: the machine's memory is "
				    "unknown", n, n == 1 ? "" : "es");
		strbuf_adds(&msg, " Whether the machine's commit limit (RAM + paging files) holds that is not judged: its "
				  "physical memory is unknown offline.");
		finding_add(out, RULE_COMMIT_LIMIT_UNKNOWN, SEV_DEFAULT,
			    &(struct finding_spec){ .title = title.buf, .message = msg.buf,
						    .fix = "give the machine's memory (--memory 16GiB) to judge the charge",
						    .install = run->torch_dir });
		goto done;
	}
	if (total > sum->limit_reach) {
		uint64_t need = total > mem->physical ? total - mem->physical : 0;
		uint64_t gb = (need + MEM_GIB - 1) / MEM_GIB;
		uint64_t fit = sum->per_process ? sum->limit_reach / sum->per_process : 0;
		char *cpu = cpu_build(run);
		strbuf_addf(&title, "%u process%s loading torch charge ", n, n == 1 ? "" : "es");
		size_text(&title, total);
		strbuf_adds(&title, " of commit, more than this machine's limit can reach (");
		size_text(&title, sum->limit_reach);
		strbuf_adds(&title, "): WinError 1455");
		strbuf_addf(&msg, " %u such process%s (--processes: a DataLoader's workers + 1) charge ", n,
			    n == 1 ? "" : "es");
		size_text(&msg, total);
		strbuf_adds(&msg, "; the machine's commit limit is at most ");
		size_text(&msg, sum->limit_reach);
		strbuf_adds(&msg, ", from ");
		limit_text(&msg, mem);
		strbuf_addf(&msg, ". The process that reaches it fails `import torch` with OSError: [WinError 1455] The "
				  "paging file is too small for this operation to complete. Error loading \"...\" or one of "
				  "its dependencies, naming the DLL it was mapping then: often the largest, %s.",
			    lpath ? lpath : "unknown");
		strbuf_addf(&fix, "1. a paging file of at least %" PRIu64 " GB (System Properties > Advanced > Performance "
				  "> Virtual memory: a custom size, or room on the volume for the system-managed one); ",
			    gb);
		if (fit)
			strbuf_addf(&fix, "2. fewer worker processes: at most %" PRIu64 " processes fit (DataLoader "
					  "num_workers=%" PRIu64 "), before anything else the machine runs",
				    fit, fit - 1);
		else
			strbuf_adds(&fix, "2. not even one process fits: fewer worker processes cannot help");
		if (cpu)
			strbuf_addf(&fix, "; 3. %s", cpu);
		free(cpu);
		finding_add(out, RULE_COMMIT_LIMIT, SEV_DEFAULT,
			    &(struct finding_spec){ .winerror = 1455, .title = title.buf, .message = msg.buf,
						    .fix = fix.buf, .install = run->torch_dir, .leaf = leaf, .path = lpath });
		goto done;
	}
	if (total > sum->limit_start || total > sum->limit_reach / 100 * (100 - COMMIT_MARGIN_PCT)) {
		int grow = total > sum->limit_start;
		strbuf_addf(&title, "%u process%s loading torch charge ", n, n == 1 ? "" : "es");
		size_text(&title, total);
		strbuf_adds(&title, " of commit: ");
		if (grow) {
			strbuf_adds(&title, "more than the limit at the paging files' starting size (");
			size_text(&title, sum->limit_start);
			strbuf_adds(&title, ")");
		} else {
			strbuf_addf(&title, "within %d%% of this machine's limit (", COMMIT_MARGIN_PCT);
			size_text(&title, sum->limit_reach);
			strbuf_adds(&title, ")");
		}
		strbuf_addf(&msg, " %u such process%s charge ", n, n == 1 ? "" : "es");
		size_text(&msg, total);
		strbuf_adds(&msg, "; the machine's commit limit is ");
		size_text(&msg, sum->limit_start);
		strbuf_adds(&msg, " at the paging files' starting size and at most ");
		size_text(&msg, sum->limit_reach);
		strbuf_adds(&msg, ", from ");
		limit_text(&msg, mem);
		strbuf_adds(&msg, grow ? ". It fits only once the paging file has grown, which needs free space on its volume; "
					 "the rest of what the processes allocate is charged too."
				       : ". The rest of what the processes allocate (heaps, the CUDA context) is charged too, "
					 "and is not in the files.");
		finding_add(out, RULE_COMMIT_HEADROOM, SEV_DEFAULT,
			    &(struct finding_spec){ .winerror = 0, .title = title.buf, .message = msg.buf,
						    .fix = "a larger paging file (or a fixed one at least that large), or fewer "
							   "DataLoader worker processes",
						    .install = run->torch_dir, .leaf = leaf, .path = lpath });
	}
done:
	strbuf_release(&title);
	strbuf_release(&msg);
	strbuf_release(&fix);
}

void commit_judge(struct findings *out, struct commit_summary *sum, const struct torch_run *run,
		  const struct machine_memory *mem, unsigned processes)
{
	memset(sum, 0, sizeof(*sum));
	sum->measured = 1;
	sum->processes = processes ? processes : 1;
	sum->asked = processes != 0;
	if (run->ld)
		measure(sum, run->ld);
	if (mem && memory_limits(mem, &sum->limit_start, &sum->limit_reach) == 0)
		sum->limit_known = 1;
	if (mem) {
		sum->os_limit = mem->os_commit_limit;
		sum->os_total = mem->os_commit_total;
	}
	if (run->import_error_index >= 0)
		return; /* `import torch` fails before: that is the finding to fix */
	judge(out, sum, run, mem);
}

void commit_summary_release(struct commit_summary *sum)
{
	size_t i;
	for (i = 0; i < sum->nimages; i++) {
		free(sum->images[i].path);
		free(sum->images[i].section);
	}
	free(sum->images);
	memset(sum, 0, sizeof(*sum));
}
