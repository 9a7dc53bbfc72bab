#!/usr/bin/env bash
# test_summary_render: the job summary as a person sees it on GitHub.
#   - every ```mermaid graph (one per failing root cause: the chain from the
#     torch binaries to the leaf) goes through Mermaid's own parser (the npm
#     package, headless under node with jsdom; .ci/npm-tools), and the labels
#     it reads back are exactly the DLL names, also when the names are built
#     to inject Mermaid, Markdown or HTML;
#   - the demo's summary rendered as GitHub renders it (cmark-gfm, then
#     Mermaid) in headless Chromium, screenshot read back with OCR
#     (tesseract): the failing install is the first install on the page and
#     in the first screen, the graph is drawn; the same check on a page with
#     the installs swapped fails (the check can fail);
#   - the summary stays under GitHub's 1 MiB on the biggest report.
# Chromium, cmark-gfm and tesseract come from Debian (.ci/deps).
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=summary-render
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_WORKFLOW_REF NO_COLOR
modules="$(bash .ci/npm-tools --dir "$TDC_CACHE")/node_modules"

# The demo's summary (the golden file, which test_golden_demo keeps equal to a real run).
sed "s/@VERSION@/0.0.0/" tests/report/golden/demo.summary >"$tmp/demo.md"

# A report whose chain names try to break out of a Mermaid label, the fence, Markdown and HTML.
python3 tests/report/gen_report.py fail240 >"$tmp/f.json" || not_ok "gen_report.py fail240"
python3 - "$tmp/f.json" "$tmp/evil.json" "$tmp/evil-names.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
names = ['a"] --> x[pwned', '```', '<img src=x onerror=alert(1)>', 'b|c]]', 'd;e#35;f', 'g%0Ah',
         'click n0 "https://evil"', '**bold** `code`', 'C:\\Windows\\x.dll']
leaf = 'leaf"]:::x\n```\n# heading'
for f in doc["findings"]:
    if f.get("severity") == "error" and f.get("chain"):
        f["chain"] = names + [leaf]
        f["leaf"] = leaf
json.dump(doc, open(sys.argv[2], "w"))
json.dump(names + [leaf], open(sys.argv[3], "w"))
PY
"$B" report --in "$tmp/evil.json" --summary "$tmp/evil.md" >/dev/null 2>&1
python3 tests/report/gen_report.py big >"$tmp/big.json" && "$B" report --in "$tmp/big.json" --summary "$tmp/big.md" >/dev/null 2>&1
size=$(stat -c %s "$tmp/big.md" 2>/dev/null || echo 0)
if [ "$size" -gt 0 ] && [ "$size" -le 1048576 ]; then ok "the biggest summary stays under 1 MiB ($size bytes)"; else not_ok "summary size $size"; fi

# ---- Mermaid's parser ----
if ! command -v node >/dev/null || [ ! -f "$modules/mermaid/dist/mermaid.core.mjs" ] || [ ! -d "$modules/jsdom" ]; then
	skip "Mermaid's parser" "node, or mermaid/jsdom in $modules, missing (bash .ci/deps)"
else
	node tests/report/mermaid_check.mjs "$modules" "$tmp/demo.md" >"$tmp/demo.graphs" 2>"$tmp/node.err"
	check_eq "demo: one graph, and Mermaid parses it" "1 true" \
		"$(jq -s -r '"\(length) \(map(.ok) | all)"' "$tmp/demo.graphs" 2>&1)"
	check_eq "demo: the graph's nodes are the chain's DLLs, the leaf marked missing" \
		'_C.cp311-win_amd64.pyd fails|fbgemm.dll fails|libomp140.x86_64.dll — missing leaf|torch.dll fails|torch_cpu.dll fails|torch_python.dll fails' \
		"$(jq -r '[.vertices[] | "\(.text) \(.classes | join(","))"] | sort | join("|")' "$tmp/demo.graphs" 2>&1)"
	check_eq "demo: the edges are the imports, torch's binaries to the leaf" \
		'_C.cp311-win_amd64.pyd>torch_python.dll fbgemm.dll>libomp140.x86_64.dll torch.dll>torch_cpu.dll torch_cpu.dll>fbgemm.dll torch_python.dll>torch_cpu.dll' \
		"$(jq -r '(.vertices | map({(.id): (.text | sub(" — missing$"; ""))}) | add) as $n | [.edges[] | "\($n[.[0]])>\($n[.[1]])"] | sort | join(" ")' "$tmp/demo.graphs" 2>&1)"
	node tests/report/mermaid_check.mjs "$modules" "$tmp/evil.md" >"$tmp/evil.graphs" 2>>"$tmp/node.err"
	check_eq "hostile names: every graph parses" "true" "$(jq -s -r 'length > 0 and (map(.ok) | all)' "$tmp/evil.graphs" 2>&1)"
	python3 - "$tmp/evil.graphs" "$tmp/evil-names.json" "$tmp/evil.md" >"$tmp/evil.check" 2>&1 <<'PY'
import json, re, sys
names = json.load(open(sys.argv[2]))
# what text_esc_line shows for the leaf (its LF made visible), and the chain's other names as they are
want = sorted(n.replace("\n", "\\n") for n in names)
md = open(sys.argv[3]).read()
bad = []
for line in open(sys.argv[1]):
    g = json.loads(line)
    got = sorted(re.sub(" \u2014 (missing|broken)$", "", v["text"]) for v in g["vertices"])
    if got != want:
        bad.append("labels %r != %r" % (got, want))
    if len(g["edges"]) != len(names) - 1 + 0 and len(g["edges"]) != len(names):
        pass
    ids = sorted(v["id"] for v in g["vertices"])
    if any(not re.fullmatch(r"n\d+", i) for i in ids):
        bad.append("node ids %r" % ids)
    if len(g["edges"]) != len(names) - 1:
        bad.append("%d edges for a chain of %d names" % (len(g["edges"]), len(names)))
for block in re.findall(r"^```mermaid\n(.*?)^```$", md, re.S | re.M):
    for l in block.splitlines():
        if re.match(r"  n\d+\[", l) and not re.fullmatch(r'  n\d+\["[A-Za-z0-9 ._#;-]*"\]', l):
            bad.append("label line %r" % l)
# the fence is never closed early: every ``` line is ours (an even number, each opening or closing a block)
fences = [l for l in md.splitlines() if l.startswith("```")]
if len(fences) % 2 or any(f not in ("```mermaid", "```") for f in fences):
    bad.append("fences %r" % fences)
print("\n".join(bad) if bad else "ok")
PY
	check_eq "hostile names: the labels Mermaid reads are the names, nothing more (no node, edge, class or fence of theirs)" "ok" "$(cat "$tmp/evil.check")"
	check_cmd "a broken graph is an error to Mermaid's parser (the check can fail)" \
		bash -c "printf '%s\n' '\`\`\`mermaid' 'flowchart LR' '  n0[\"a\"b\"] --> n1' '\`\`\`' >'$tmp/broken.md' &&
			node tests/report/mermaid_check.mjs '$modules' '$tmp/broken.md' | jq -e '.ok == false' >/dev/null"
fi

# ---- the page in headless Chromium, read back with OCR ----
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ] || ! command -v cmark-gfm >/dev/null || ! command -v tesseract >/dev/null ||
	[ ! -f "$modules/mermaid/dist/mermaid.min.js" ]; then
	skip "the rendered summary" "chromium, cmark-gfm, tesseract or mermaid.min.js missing (bash .ci/deps)"
	tap_done
fi
# shot NAME: NAME.md -> NAME.html -> NAME.png (the first screen, 1100x900) and NAME.txt (OCR)
shot() {
	python3 tests/report/summary_page.py "$tmp/$1.md" "$modules/mermaid/dist/mermaid.min.js" "$tmp/$1.html" || return 1
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
		--virtual-time-budget=15000 --hide-scrollbars --window-size=1100,900 \
		--user-data-dir="$tmp/profile" --screenshot="$tmp/$1.png" "file://$tmp/$1.html" >/dev/null 2>&1 || return 1
	tesseract "$tmp/$1.png" "$tmp/$1" >/dev/null 2>&1
}
# first_install NAME: the first line on the screen that names a torch install, as OCR reads it.
first_install() {
	grep -m1 -E 'torch [0-9]+\.[0-9]+\.[0-9]+' "$tmp/$1.txt"
}
if shot demo; then
	ok "the demo's summary renders in headless Chromium"
	line=$(first_install demo)
	case "$line" in
	*2.4.0*"will not load"*) ok "the failing install (torch 2.4.0, will not load) is the first install on the page, in the first screen" ;;
	*) not_ok "the first install the screenshot shows: '$line'"; sed 's/^/#   /' "$tmp/demo.txt" | head -15 ;;
	esac
	check_cmd "the screenshot shows the graph's leaf (the one thing to fix)" grep -q 'libomp140.x86_64.dll' "$tmp/demo.txt"
	dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
		--virtual-time-budget=15000 --user-data-dir="$tmp/profile" --dump-dom "file://$tmp/demo.html" 2>/dev/null)
	check_eq "Mermaid drew the graph in the page" 'data-mermaid="done 1"' "$(grep -o 'data-mermaid="[^"]*"' <<<"$dom")"
	# The control: the same page with the passing install's line first must fail the check.
	awk '/^❌ \*\*torch /{f=$0; next} /^✅ torch /&&f{print; print f; f=""; next} {print}' "$tmp/demo.md" >"$tmp/swapped.md"
	if shot swapped; then
		case "$(first_install swapped)" in
		*2.4.0*"will not load"*) not_ok "the check cannot fail: a page with the passing install first passed it" ;;
		*) ok "the check fails on a page whose first install is the passing one" ;;
		esac
	else
		not_ok "the swapped page did not render"
	fi
	[ -n "${TDC_SCREENSHOT_DIR:-}" ] && cp "$tmp/demo.png" "$TDC_SCREENSHOT_DIR/summary-demo.png"
	# The gate's summary as a PR author meets it, at 1012 pixels wide: the
	# pin's file:line is on the error's line, a link to the file at the PR's
	# head; then the fleet table (9 columns before, their "first error" and
	# "drift" scrolled off): no table wider than the page.
	sha=0123456789abcdef0123456789abcdef01234567
	python3 - "$tmp/f.json" "$tmp/gate.json" "$sha" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["pins"] = {"head": {"commit": sys.argv[3]}}
json.dump(d, open(sys.argv[2], "w"))
PY
	GITHUB_ACTIONS=true GITHUB_REPOSITORY=octo/app "$B" report --in "$tmp/gate.json" --format markdown 2>/dev/null |
		grep -v '^::\|^[0-9a-f]\{32\}::$' >"$tmp/gate.md"
	python3 tests/report/gen_report.py pass >"$tmp/runner-ok.json"
	cp "$tmp/gate.json" "$tmp/gpu-lab-1.json"
	"$G" fleet --format markdown "$tmp/gpu-lab-1.json" "$tmp/runner-ok.json" >>"$tmp/gate.md" 2>/dev/null
	if python3 tests/report/summary_page.py "$tmp/gate.md" "$modules/mermaid/dist/mermaid.min.js" "$tmp/gate.html" &&
		timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
			--virtual-time-budget=15000 --hide-scrollbars --window-size=1012,900 \
			--user-data-dir="$tmp/profile" --screenshot="$tmp/gate.png" "file://$tmp/gate.html" >/dev/null 2>&1; then
		tesseract "$tmp/gate.png" "$tmp/gate" >/dev/null 2>&1
		check_cmd "1012 px: the first screen shows the pin's requirements.txt:3 on the error's line" \
			grep -q 'missing (missing-dll, WinError 126) . requirements.txt:3' "$tmp/gate.txt"
		dom=$(timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
			--virtual-time-budget=15000 --window-size=1012,900 --user-data-dir="$tmp/profile" --dump-dom "file://$tmp/gate.html" 2>/dev/null)
		check_eq "1012 px: the pin is a link to the file at the PR's head commit" 2 \
			"$(grep -o "href=\"https://github.com/octo/app/blob/$sha/requirements.txt#L3\"" <<<"$dom" | wc -l)"
		check_eq "1012 px: no table wider than the page (the fleet table narrow, its details folded)" 'data-wide-tables="0"' \
			"$(grep -o 'data-wide-tables="[^"]*"' <<<"$dom")"
		[ -n "${TDC_SCREENSHOT_DIR:-}" ] && cp "$tmp/gate.png" "$TDC_SCREENSHOT_DIR/summary-gate-1012.png"
	else
		not_ok "the gate's summary did not render"
	fi
else
	not_ok "headless Chromium could not render the summary"
fi
tap_done
