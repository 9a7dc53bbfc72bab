#!/usr/bin/env python3
"""action/readme_inputs.py [--check]: action/README.md's inputs table, made
from action.yml (every input in its order, its default, its description), so
the README can never omit an input or name one the action lacks.

Without arguments: rewrites the table between the two marker lines in
action/README.md. --check: exits 1 (and says which inputs differ) when the
README's table is not the one action.yml makes
(tests/action/test_action_lint.sh runs it).
"""
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ACTION = os.path.join(HERE, "..", "action.yml")
README = os.path.join(HERE, "README.md")
BEGIN = "<!-- inputs: generated from action.yml by action/readme_inputs.py; do not edit by hand -->"
END = "<!-- end of the generated inputs -->"

# Defaults that are computed at run time: what the empty default means.
EMPTY_MEANS = {
    "python": "the `python` on PATH",
    "repository": "the workspace",
    "json": "`$RUNNER_TEMP/torch-dll-check/report.json`",
    "runner-name": "`$RUNNER_NAME`",
    "version": "the release this action is pinned to",
}


def cell(text):
    """One Markdown table cell: one line, pipes escaped, no HTML (a `<runner>`
    would vanish as a tag)."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def table(inputs):
    rows = ["| input | default | meaning |", "|---|---|---|"]
    for name, spec in inputs.items():
        default = str(spec.get("default", ""))
        shown = "`%s`" % default if default else EMPTY_MEANS.get(name, "none")
        rows.append("| `%s` | %s | %s |" % (name, cell(shown), cell(spec.get("description", ""))))
    return "\n".join(rows) + "\n"


def main(argv):
    with open(ACTION, encoding="utf-8") as f:
        inputs = yaml.safe_load(f)["inputs"]
    with open(README, encoding="utf-8") as f:
        text = f.read()
    m = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), text, re.S)
    if not m:
        sys.stderr.write("readme_inputs: action/README.md has no generated inputs table (its marker lines)\n")
        return 1
    want = table(inputs)
    if "--check" in argv:
        if m.group(1) == want:
            return 0
        have = set(re.findall(r"^\| `([a-z-]+)` \|", m.group(1), re.M))
        missing, extra = sorted(set(inputs) - have), sorted(have - set(inputs))
        sys.stderr.write("readme_inputs: action/README.md's inputs table is not action.yml's"
                         " (missing: %s; extra: %s; else a default or a description changed):"
                         " run python3 action/readme_inputs.py\n" % (", ".join(missing) or "none", ", ".join(extra) or "none"))
        return 1
    with open(README, "w", encoding="utf-8") as f:
        f.write(text[:m.start(1)] + want + text[m.end(1):])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
