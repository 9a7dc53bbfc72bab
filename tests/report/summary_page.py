#!/usr/bin/env python3
"""summary_page.py SUMMARY.md MERMAID_JS OUT.html: the job summary as a page,
the way GitHub shows it (its table CSS: a table wider than the text column
scrolls sideways): Markdown through cmark-gfm (GitHub's renderer, with
its table, autolink and strikethrough extensions), then every ```mermaid code
block drawn by Mermaid's own renderer (mermaid.min.js from npm), as GitHub
draws them. The page sets data-mermaid="done N" on <body> when every graph
is drawn ("error: ..." when one fails), and data-wide-tables="N", the
tables wider than the text column at the window's width, for a --dump-dom
check.
"""
import html
import subprocess
import sys

md, mermaid_js, out = sys.argv[1:4]
body = subprocess.run(["cmark-gfm", "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough", md],
                      check=True, capture_output=True, text=True).stdout
page = """<!doctype html><html><head><meta charset="utf-8"><title>job summary</title>
<style>body{font-family:sans-serif;max-width:1000px;word-wrap:break-word;margin:16px;font-size:15px;line-height:1.4}
table{border-collapse:collapse;display:block;width:max-content;max-width:100%%;overflow:auto}td,th{border:1px solid #d0d7de;padding:3px 8px}
pre{background:#f6f8fa;padding:8px;overflow:auto}</style></head><body>
%s
<script src="%s"></script>
<script>
var blocks = document.querySelectorAll("pre > code.language-mermaid");
blocks.forEach(function (c) {
  var d = document.createElement("div");
  d.className = "mermaid";
  d.textContent = c.textContent;
  c.parentNode.replaceWith(d);
});
mermaid.initialize({startOnLoad: false, securityLevel: "strict"});
mermaid.run().then(function () {
  // tables wider than the text column: GitHub's CSS (display:block, max-width
  // 100 percent, overflow:auto) scrolls them, their last columns off-screen
  var wide = 0;
  document.querySelectorAll("table").forEach(function (t) {
    if (t.scrollWidth > t.clientWidth + 1) wide++;
  });
  document.body.setAttribute("data-wide-tables", String(wide));
  document.body.setAttribute("data-mermaid", "done " + document.querySelectorAll("div.mermaid svg").length);
}, function (e) { document.body.setAttribute("data-mermaid", "error: " + e); });
</script></body></html>
""" % (body, html.escape("file://" + mermaid_js, quote=True))
with open(out, "w", encoding="utf-8") as f:
    f.write(page)
