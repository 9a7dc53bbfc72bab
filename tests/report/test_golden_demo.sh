#!/usr/bin/env bash
# test_golden_demo: the demo (`make demo`'s runner tree, tests/lib/demo.sh)
# as GitHub sees it, compared byte for byte with tests/report/golden/:
#   demo.github    the annotations `check --format github` prints
#   demo.summary   the job summary (Markdown)
#   demo.outputs   the step outputs (GITHUB_OUTPUT)
#   demo.sarif     SARIF 2.1.0
# normalised only where a run must differ: the random stop-commands token and
# GITHUB_OUTPUT delimiter, the report's path, the checker's version. One root
# cause (libomp140.x86_64.dll missing, five torch binaries failing) is one
# annotation, one summary entry, one SARIF result with the five binaries as
# related locations; `report --in` renders the saved JSON identically.
#
# After an intended change of the output, rewrite the golden files with
#   TDC_WRITE_GOLDEN=1 bash tests/report/test_golden_demo.sh
# and read the diff before committing it.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=golden-demo
GOLDEN=tests/report/golden
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_WORKFLOW_REF NO_COLOR

# demo.sh's functions (its own run stops at the sourced-file return)
# shellcheck source=/dev/null
source tests/lib/demo.sh
if ! demo=$(demo_tree 2>"$tmp/tree.err") || [ ! -d "$demo/root" ]; then
	not_ok "cannot build the demo's runner tree"
	tail -5 "$tmp/tree.err" | sed 's/^/#   /'
	tap_done
fi
version=$("$B" --version | awk '{print $NF; exit}')

# render DIR CMD...: the four GitHub forms of one run into DIR, normalised.
render() {
	local dir=$1 token delim
	shift
	mkdir -p "$dir"
	GITHUB_ACTIONS=true "$@" --format github --summary "$dir/summary" --outputs "$dir/outputs" \
		--sarif "$dir/sarif" --sarif-anchor requirements.txt >"$dir/stdout" 2>"$dir/stderr"
	echo $? >"$dir/rc"
	token=$(sed -n 's/^::stop-commands::\([0-9a-f]*\)$/\1/p' "$dir/stdout" | head -1)
	delim=$(sed -n 's/^status<<\(.*\)$/\1/p' "$dir/outputs")
	# the annotations: what stands before the stop-commands guard
	sed -n '/^::stop-commands::/q;p' "$dir/stdout" >"$dir/github"
	[ -n "$token" ] && grep -c "^::$token::\$" "$dir/stdout" >"$dir/resumed"
	python3 - "$dir" "$version" "$delim" "$tmp" <<'PY'
import sys
d, version, delim, tmp = sys.argv[1:5]
subs = {"summary": [(version.replace(".", "\\."), "@VERSION@"), (version, "@VERSION@")],
        "sarif": [('"version":\t"%s"' % version, '"version":\t"@VERSION@"')],
        "outputs": [(delim, "@DELIM@")] * bool(delim) + [(tmp + "/report.json", "@REPORT@")]}
for name, pairs in subs.items():
    text = open(d + "/" + name, encoding="utf-8").read()
    for old, new in pairs:
        text = text.replace(old, new)
    open(d + "/" + name, "w", encoding="utf-8").write(text)
PY
}

# shellcheck disable=SC2317  # run through render
run_check() {
	"$B" check --root "$demo/root" --scan "C:\\" --registry "$demo/runner.reg" --json "$tmp/report.json" "$@"
}
render "$tmp/check" run_check
check_eq "check exits 1 (torch 2.4.0 fails)" 1 "$(cat "$tmp/check/rc")"
check_eq "the text after the annotations is guarded, and the guard closed" 1 "$(cat "$tmp/check/resumed" 2>/dev/null)"
check_eq "stderr is empty" "" "$(cat "$tmp/check/stderr")"

if [ "${TDC_WRITE_GOLDEN:-}" = 1 ]; then
	mkdir -p "$GOLDEN"
	for f in github summary outputs sarif; do cp "$tmp/check/$f" "$GOLDEN/demo.$f"; done
	ok "golden files rewritten in $GOLDEN (review the diff)"
fi
for f in github summary outputs sarif; do
	if cmp -s "$GOLDEN/demo.$f" "$tmp/check/$f"; then
		ok "demo.$f equals the golden file"
	else
		not_ok "demo.$f differs from $GOLDEN/demo.$f (TDC_WRITE_GOLDEN=1 rewrites it)"
		diff -u "$GOLDEN/demo.$f" "$tmp/check/$f" | head -40 | sed 's/^/#   /'
	fi
done

# What the golden files must say, checked on their own so a rewrite cannot lose it.
check_eq "one error annotation for the one root cause" 1 "$(grep -c '^::error ' "$tmp/check/github")"
check_eq "...naming the five torch binaries it fails" 1 "$(grep -c -F '%0AAffects 5 torch binaries: fbgemm.dll, torch.dll, torch_cpu.dll, torch_python.dll, _C.cp311-win_amd64.pyd%0A' "$tmp/check/github")"
check_eq "...with one fix" 1 "$(grep '^::error ' "$tmp/check/github" | grep -o '%0AFix: ' | grep -c .)"
check_eq "the summary has one error entry, naming the five" "1 1" \
	"$(grep -c '^❌ \*\*[0-9]' "$tmp/check/summary") $(grep -c -F '**Affects** 5 torch binaries:' "$tmp/check/summary")"
check_eq "failures output counts the root cause once" 1 "$(sed -n '/^failures<</{n;p}' "$tmp/check/outputs")"
check_eq "the SARIF has one result per cause (the known issue is the error's); the error's related locations are the five binaries" \
	"1 fbgemm.dll torch.dll torch_cpu.dll torch_python.dll _C.cp311-win_amd64.pyd" "$(python3 - "$tmp/check/sarif" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["runs"][0]["results"]
rel = rs[0].get("relatedLocations", [])
print(len(rs), " ".join(l["logicalLocations"][0]["fullyQualifiedName"].rsplit("\\", 1)[-1] for l in rel))
PY
)"
check_eq "the five findings in the JSON report share one cause id" 1 \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len({f["cause"] for f in d["findings"] if f["rule"] == "missing-dll"}))' "$tmp/report.json")"

# The saved report renders the same (the renderers read only the document).
# shellcheck disable=SC2317  # run through render
run_report() { "$B" report --in "$tmp/report.json" "$@"; }
render "$tmp/again" run_report
for f in github summary sarif; do
	check_cmd "report --in renders demo.$f identically" cmp "$tmp/check/$f" "$tmp/again/$f"
done

schema="$(bash .ci/npm-tools --dir "$TDC_CACHE")/sarif-schema-2.1.0.json"
if [ -f "$schema" ] && python3 -c 'import jsonschema' 2>/dev/null; then
	check_cmd "demo.sarif is valid SARIF 2.1.0 and meets GitHub's upload rules" \
		python3 tests/report/validate_sarif.py "$schema" "$GOLDEN/demo.sarif" --github
else
	skip "demo.sarif against the SARIF 2.1.0 schema" "schema or python3-jsonschema missing: run .ci/deps"
fi
tap_done
