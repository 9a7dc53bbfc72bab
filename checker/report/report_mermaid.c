/*
 * report_mermaid: the failing chain of one root cause as a Mermaid
 * flowchart, for the job summary (GitHub renders ```mermaid blocks in job
 * summaries and Markdown files).
 *
 * The graph is the union of the chains of the cause's findings: each torch
 * binary that fails (the first name of a chain, marked "fails") through
 * the DLLs it imports to the missing or broken leaf (the last name, marked
 * "missing" / "broken": the one thing to fix). Names are compared
 * case-insensitively, as the loader compares module names, so torch.dll and
 * torch_cpu.dll both lead into the one torch_cpu.dll node.
 *
 * Every label is untrusted (names from import tables): it is first made a
 * visible single line (text_esc_line), then every character but ASCII
 * letters, digits, space, '.', '_' and '-' is written as a Mermaid entity
 * code (#92; for '\', decimal, as Mermaid's "Entity codes to escape
 * characters" documents), inside a double-quoted label: no quote, bracket,
 * pipe, backtick, '<', '&', '#' or line break of the name reaches Mermaid or
 * Markdown as syntax, so no name can end the label, add a node or an edge,
 * open HTML, or close the code fence. Node ids are ours (n0, n1, ...).
 * tests/report/test_summary_render.sh parses the graphs with Mermaid's own
 * parser and compares the labels it reads back with the names.
 */
#include "report/report.h"

#include <string.h>

#include "util/utf.h"

#define MERMAID_NODES 40 /* more names are cut, and the graph says so */

void report_esc_mermaid(struct strbuf *out, const char *s)
{
	struct strbuf line = STRBUF_INIT;
	const unsigned char *p;
	size_t i = 0, n;
	text_esc_line(&line, s ? s : "");
	p = (const unsigned char *)line.buf;
	n = line.len;
	while (i < n) {
		long cp;
		if (ascii_isalnum((char)p[i]) || strchr(" ._-", p[i])) {
			strbuf_addch(out, (char)p[i++]);
			continue;
		}
		cp = utf8_next(p, n, &i);
		if (cp < 0) { /* not after text_esc_line, but never loop */
			cp = UTF_REPLACEMENT;
			i++;
		}
		strbuf_addf(out, "#%ld;", cp);
	}
	strbuf_release(&line);
}

struct graph {
	const char *name[MERMAID_NODES];
	int fails[MERMAID_NODES];
	int leaf[MERMAID_NODES];
	size_t n;
	size_t edge[MERMAID_NODES * 2][2];
	size_t nedges;
	int cut;
};

/* The node of `name` (added when new); -1 when the graph is full. */
static int node(struct graph *g, const char *name)
{
	size_t i;
	for (i = 0; i < g->n; i++)
		if (!str_icmp(g->name[i], name))
			return (int)i;
	if (g->n == MERMAID_NODES) {
		g->cut = 1;
		return -1;
	}
	g->name[g->n] = name;
	g->fails[g->n] = g->leaf[g->n] = 0;
	return (int)g->n++;
}

static void edge(struct graph *g, int a, int b)
{
	size_t i;
	if (a < 0 || b < 0 || a == b)
		return;
	for (i = 0; i < g->nedges; i++)
		if (g->edge[i][0] == (size_t)a && g->edge[i][1] == (size_t)b)
			return;
	if (g->nedges == sizeof(g->edge) / sizeof(g->edge[0])) {
		g->cut = 1;
		return;
	}
	g->edge[g->nedges][0] = (size_t)a;
	g->edge[g->nedges][1] = (size_t)b;
	g->nedges++;
}

/* The chain of one finding into the graph: names, edges, its first (fails) and last (leaf) node. */
static void add_chain(struct graph *g, const cJSON *f)
{
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(f, "chain"), *e;
	int prev = -1, first = -1, id = -1;
	cJSON_ArrayForEach(e, ch) {
		if (!cJSON_IsString(e) || !*e->valuestring)
			continue;
		id = node(g, e->valuestring);
		if (first < 0)
			first = id;
		edge(g, prev, id);
		prev = id;
	}
	if (first >= 0)
		g->fails[first] = 1;
	if (id >= 0 && id != first)
		g->leaf[id] = 1;
}

int report_mermaid_chain(struct strbuf *out, const struct report_view *v, const struct report_cause *c)
{
	struct graph g;
	const cJSON *f = report_cause_finding(v, c);
	const char *sym = report_str(f, "symbol");
	size_t i;
	memset(&g, 0, sizeof(g));
	for (i = 0; i < c->n; i++)
		add_chain(&g, v->items[c->members[i]].f);
	if (!g.nedges)
		return 0;
	strbuf_adds(out, "```mermaid\nflowchart LR\n");
	for (i = 0; i < g.n; i++) {
		strbuf_addf(out, "  n%zu[\"", i);
		report_esc_mermaid(out, g.name[i]);
		if (g.leaf[i]) {
			strbuf_adds(out, report_int(f, "winerror", 0) == 126 ? " #8212; missing" : " #8212; broken");
			if (sym) {
				strbuf_adds(out, " #40;");
				report_esc_mermaid(out, sym);
				strbuf_adds(out, "#41;");
			}
		}
		strbuf_adds(out, "\"]\n");
	}
	for (i = 0; i < g.nedges; i++)
		strbuf_addf(out, "  n%zu --> n%zu\n", g.edge[i][0], g.edge[i][1]);
	strbuf_adds(out, "  classDef fails fill:#fff4e5,stroke:#d97706\n"
			 "  classDef leaf fill:#fde2e2,stroke:#c62828,stroke-width:3px\n");
	for (i = 0; i < g.n; i++)
		if (g.leaf[i] || g.fails[i])
			strbuf_addf(out, "  class n%zu %s\n", i, g.leaf[i] ? "leaf" : "fails");
	strbuf_adds(out, "```\n");
	if (g.cut)
		strbuf_addf(out, "\n(the graph shows the first %d names; every chain is in the details below)\n",
			    MERMAID_NODES);
	return 1;
}
