// mermaid_check.mjs NODE_MODULES FILE.md: every ```mermaid block of FILE.md
// through Mermaid's own parser, headless (jsdom supplies the DOM its
// sanitizer wants). One JSON line per block:
//   {"ok": true, "type": "flowchart-v2", "vertices": [{"id", "text", "classes"}], "edges": [["n0", "n1"]]}
//   {"ok": false, "error": "Parse error on line 2: ..."}
// `text` is the label as Mermaid will show it: its entity codes (#92;) decoded.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [modules, file] = process.argv.slice(2);
const require = createRequire(path.join(modules, 'x.js'));
const { JSDOM } = require('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import(pathToFileURL(path.join(modules, 'mermaid/dist/mermaid.core.mjs')).href);
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });

// Mermaid keeps "#35;" as a placeholder until it renders; decode as its renderer does.
const named = { quot: '"', amp: '&', lt: '<', gt: '>', nbsp: '\u00a0' };
const decode = (s) => s.replace(/ﬂ°°(\d+)¶ß/g, (_, n) => String.fromCodePoint(Number(n)))
	.replace(/ﬂ°(\w+)¶ß/g, (m, w) => (w in named ? named[w] : m));

const md = readFileSync(file, 'utf8');
const blocks = [...md.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
for (const text of blocks) {
	try {
		const r = await mermaid.parse(text);
		const d = await mermaid.mermaidAPI.getDiagramFromText(text);
		const v = d.db.getVertices();
		const vertices = [...(v instanceof Map ? v.values() : Object.values(v))]
			.map((x) => ({ id: x.id, text: decode(x.text), classes: x.classes }));
		const edges = d.db.getEdges().map((e) => [e.start, e.end]);
		console.log(JSON.stringify({ ok: true, type: r.diagramType, vertices, edges }));
	} catch (e) {
		console.log(JSON.stringify({ ok: false, error: String(e && e.message || e).split('\n')[0] }));
	}
}
