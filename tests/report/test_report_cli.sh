#!/usr/bin/env bash
# test_report_cli: `torch-dll-check report --in` on generated report
# documents (tests/report/gen_report.py): exit codes per --fail-on, each
# --format, files written whole or not at all, colours only on a terminal
# and never with NO_COLOR, the job summary's 1 MiB cap (also when the file
# already holds earlier steps' text), and SARIF valid against the SARIF 2.1.0
# JSON schema and GitHub's upload rules.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=report-cli
for k in fail240 many evil pass warn big notes10; do
	python3 tests/report/gen_report.py "$k" >"$tmp/$k.json" || not_ok "gen_report.py $k"
done
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_WORKFLOW_REF NO_COLOR

# Exit codes: 0 pass, 1 at or above --fail-on, 2 usage or input error.
check_status "failing report: 1" 1 "$B" report --in "$tmp/fail240.json"
check_status "failing report, --fail-on never: 0" 0 "$B" report --in "$tmp/fail240.json" --fail-on never
check_status "warnings only: 0" 0 "$B" report --in "$tmp/warn.json"
check_status "warnings only, --fail-on warning: 1" 1 "$B" report --in "$tmp/warn.json" --fail-on=warning
check_status "pass, --fail-on warning: 0" 0 "$B" report --in "$tmp/pass.json" --fail-on warning
check_status "no --in: 2" 2 "$B" report
check_status "--in without value: 2" 2 "$B" report --in
check_status "missing file: 2" 2 "$B" report --in "$tmp/none.json"
check_status "bad --format: 2" 2 "$B" report --in "$tmp/pass.json" --format xml
check_status "bad --fail-on: 2" 2 "$B" report --in "$tmp/pass.json" --fail-on always
printf '{"schema":' >"$tmp/trunc.json"
check_status "truncated JSON: 2" 2 "$B" report --in "$tmp/trunc.json"
printf '{"schema":"torch-dll-check/report/v9","findings":[]}' >"$tmp/v9.json"
check_status "unknown schema: 2" 2 "$B" report --in "$tmp/v9.json"
check_status "--help: 0" 0 "$B" report --help
check_status "listed in the command table" 0 sh -c "'$B' --help | grep -q '^  report '"

# --format json is the document itself.
"$B" report --in "$tmp/fail240.json" --format json >"$tmp/out.json"
check_cmd "--format json prints the same document" python3 -c "
import json,sys; sys.exit(json.load(open('$tmp/out.json')) != json.load(open('$tmp/fail240.json')))"

# Text: the verdict comes first; no colour codes when not a terminal.
"$B" report --in "$tmp/fail240.json" >"$tmp/text" 2>&1
check_eq "verdict line" "FAIL torch 2.4.0+cpu will not load: fbgemm.dll cannot load: libomp140.x86_64.dll is missing (3 problems: 2 errors, 1 warning, 0 notes; 3 findings; 12 torch binaries checked, 1 fail)" "$(head -1 "$tmp/text")"
if grep -q $'\033' "$tmp/text"; then not_ok "colour codes in piped output"; else ok "no colour codes when stdout is not a terminal"; fi
if grep -n 'Errors (2):' "$tmp/text" | grep -q . && [ "$(grep -n 'Errors (2):' "$tmp/text" | cut -d: -f1)" -lt "$(grep -n 'Warnings (1):' "$tmp/text" | cut -d: -f1)" ]; then
	ok "failures before warnings"
else
	not_ok "failures before warnings"
fi

# Colour: --color decides; in auto NO_COLOR wins, then FORCE_COLOR, then a terminal (none here).
check_cmd "--color always: ANSI colours into a pipe" sh -c "'$B' report --in '$tmp/fail240.json' --color always | grep -q \"\$(printf '\\033')\""
check_cmd "FORCE_COLOR=1: colours into a pipe" sh -c "FORCE_COLOR=1 '$B' report --in '$tmp/fail240.json' | grep -q \"\$(printf '\\033')\""
check_cmd "NO_COLOR beats FORCE_COLOR" sh -c "! NO_COLOR=1 FORCE_COLOR=1 '$B' report --in '$tmp/fail240.json' | grep -q \"\$(printf '\\033')\""
check_cmd "--color never beats FORCE_COLOR" sh -c "! FORCE_COLOR=1 '$B' report --in '$tmp/fail240.json' --color=never | grep -q \"\$(printf '\\033')\""
check_cmd "FORCE_COLOR=0 is no force" sh -c "! FORCE_COLOR=0 '$B' report --in '$tmp/fail240.json' | grep -q \"\$(printf '\\033')\""
check_status "--color sometimes: 2" 2 "$B" report --in "$tmp/fail240.json" --color sometimes
check_cmd "...saying the choices" sh -c "'$B' report --in '$tmp/fail240.json' --color sometimes 2>&1 | grep -qF -- '--color sometimes: expected auto, always or never'"
if script -qc "true" /dev/null >/dev/null 2>&1; then
	script -qc "'$B' report --in '$tmp/fail240.json'" /dev/null >"$tmp/tty.out" 2>&1
	check_cmd "a terminal gets colours" grep -q $'\033\\[' "$tmp/tty.out"
	script -qc "NO_COLOR=1 '$B' report --in '$tmp/fail240.json'" /dev/null >"$tmp/tty2.out" 2>&1
	if grep -q $'\033\\[1' "$tmp/tty2.out"; then not_ok "NO_COLOR on a terminal: colours"; else ok "NO_COLOR on a terminal: no colours"; fi
else
	skip "colours on a terminal" "script(1) cannot run here"
fi

# -q / --quiet: the verdict line alone, same exit status.
check_eq "-q: the verdict line alone" "$(head -1 "$tmp/text")" "$("$B" report --in "$tmp/fail240.json" -q)"
check_status "--quiet keeps the exit status" 1 "$B" report --in "$tmp/fail240.json" --quiet

# Wrapping: at $COLUMNS, else the terminal's width, else 80; the verdict line never (scripts read it with head -1).
w80=$(tail -n +2 "$tmp/text" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
if [ "$w80" -le 80 ]; then ok "piped, no COLUMNS: lines after the verdict within 80 columns ($w80)"; else not_ok "a line of $w80 columns"; fi
COLUMNS=120 "$B" report --in "$tmp/fail240.json" >"$tmp/text120"
w120=$(tail -n +2 "$tmp/text120" | awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }')
if [ "$w120" -le 120 ] && [ "$w120" -gt 80 ]; then ok "COLUMNS=120: wrapped at 120 ($w120)"; else not_ok "COLUMNS=120: widest line $w120"; fi
check_cmd "a wrapped 'why' continues under its value" grep -qE '^                [^ ]' "$tmp/text"
check_eq "wrapping loses no word" "$(tr -s ' \n' '  ' <"$tmp/text120")" "$(COLUMNS=100000 "$B" report --in "$tmp/fail240.json" | tr -s ' \n' '  ')"

# In github format (Actions' default) each problem's evidence is a ::group:: (outside the guard), ended by ::endgroup::.
GITHUB_ACTIONS=true "$B" report --in "$tmp/fail240.json" --format github --summary '' --outputs '' >"$tmp/gh.txt"
check_eq "under Actions: one ::group:: per problem" "3 3" \
	"$(grep -c '^::group::evidence of problem' "$tmp/gh.txt") $(grep -c '^::endgroup::$' "$tmp/gh.txt")"
# shellcheck disable=SC2016 # awk's $0, not the shell's
check_cmd "...each group outside a guard: the guard ends before it" \
	awk '/^::group::/ { if (prev !~ /^::[0-9a-f]+::$/) exit 1 } { prev = $0 }' "$tmp/gh.txt"
check_eq "not outside Actions" "0" "$(grep -c '::group::' "$tmp/text")"
check_eq "nor in text format under Actions (plain text, one guard)" "0" \
	"$(GITHUB_ACTIONS=true "$B" report --in "$tmp/fail240.json" --format text | grep -c '^::group::')"

if grep -q 'fix: *pip install torch==2.4.1' "$tmp/text"; then ok "each failure with its fix"; else not_ok "fix missing"; fi
if command -v script >/dev/null; then
	script -qec "'$B' report --in '$tmp/fail240.json'" /dev/null >"$tmp/tty" 2>&1
	if grep -q $'\033\\[1;31mFAIL' "$tmp/tty"; then ok "colours on a terminal"; else not_ok "no colours on a terminal"; fi
	NO_COLOR=1 script -qec "'$B' report --in '$tmp/fail240.json'" /dev/null >"$tmp/tty2" 2>&1
	if grep -q $'\033' "$tmp/tty2"; then not_ok "colours despite NO_COLOR"; else ok "NO_COLOR turns colours off on a terminal"; fi
else
	not_ok "script(1) missing: cannot test terminal colours"
fi

# github is chosen automatically under GitHub Actions.
GITHUB_ACTIONS=true "$B" report --in "$tmp/fail240.json" --summary '' --outputs '' >"$tmp/gh" 2>&1
if head -1 "$tmp/gh" | grep -q '^::error file=requirements.txt,line=3,col=1,title='; then
	ok "GITHUB_ACTIONS=true selects annotations"
else
	not_ok "GITHUB_ACTIONS=true selects annotations"
fi

# Files are written whole or not at all.
check_status "--json into a missing directory: 2" 2 "$B" report --in "$tmp/pass.json" --json "$tmp/no/dir/r.json"
mkdir "$tmp/isdir"
check_status "--sarif onto a directory: 2" 2 "$B" report --in "$tmp/pass.json" --sarif "$tmp/isdir"
left=$(find "$tmp" -name '*.tmp.*' | wc -l)
check_eq "no temporary files left behind" 0 "$left"
echo "old" >"$tmp/keep.json"
chmod 0555 "$tmp/isdir"
"$B" report --in "$tmp/pass.json" --json "$tmp/keep.json" >/dev/null 2>&1
check_eq "--json replaces the file whole" "torch-dll-check/report/v1" \
	"$(python3 -c "import json; print(json.load(open('$tmp/keep.json'))['schema'])")"

# The job summary stays under 1 MiB, with a truncation note.
"$B" report --in "$tmp/big.json" --summary "$tmp/sum1.md" --format json >/dev/null
size=$(stat -c %s "$tmp/sum1.md")
if [ "$size" -le 1048576 ] && [ "$size" -gt 900000 ]; then ok "big summary fills but stays under 1 MiB ($size)"; else not_ok "summary size $size"; fi
if grep -q '^\*\*Summary truncated\*\*' "$tmp/sum1.md"; then ok "truncation note"; else not_ok "no truncation note"; fi
head -c 700000 /dev/zero | tr '\0' 'x' >"$tmp/sum2.md"
"$B" report --in "$tmp/big.json" --summary "$tmp/sum2.md" --format json >/dev/null
size=$(stat -c %s "$tmp/sum2.md")
if [ "$size" -le 1048576 ]; then ok "earlier steps' summary text counts against the cap ($size)"; else not_ok "summary size $size"; fi
"$B" report --in "$tmp/fail240.json" --summary "$tmp/sum3.md" --format json >/dev/null
if grep -q 'fbgemm' "$tmp/sum3.md" && ! grep -q 'truncated' "$tmp/sum3.md"; then ok "small summary complete"; else not_ok "small summary"; fi
for want in '### ❌ torch-dll-check: torch will not load' 'retry with PATH \(after WinError 126\) | ❌ missing\-dll | 126 |' \
	'Matrix row applied: **torch\-2\.4\.0**' '](https://github.com/pytorch/pytorch/issues/131662)' \
	'<details><summary>Chain and search trace</summary>' '| x64 | 14\.40\.33810\.0 | yes |'; do
	if grep -qF -- "$want" "$tmp/sum3.md"; then ok "summary has: $want"; else not_ok "summary lacks: $want"; fi
done

# SARIF 2.1.0: valid against the schema; GitHub's rules with an anchor fallback.
schema="$(bash .ci/npm-tools --dir "$TDC_CACHE")/sarif-schema-2.1.0.json"
[ -f "$schema" ] || bash .ci/npm-tools "$TDC_CACHE" >/dev/null 2>&1
if [ ! -f "$schema" ]; then
	not_ok "SARIF schema missing ($schema): run .ci/deps"
elif ! python3 -c 'import jsonschema' 2>/dev/null; then
	not_ok "python3-jsonschema missing: run .ci/deps"
else
	for k in fail240 many evil pass big; do
		"$B" report --in "$tmp/$k.json" --sarif "$tmp/$k.sarif" --sarif-anchor .github/workflows/gate.yml \
			--format json >/dev/null 2>"$tmp/$k.err"
		check_cmd "SARIF of $k valid (schema 2.1.0 + GitHub upload rules)" \
			python3 tests/report/validate_sarif.py "$schema" "$tmp/$k.sarif" --github
	done
	GITHUB_ACTIONS=true GITHUB_WORKFLOW_REF="octo/app/.github/workflows/ci.yml@refs/heads/main" \
		"$B" report --in "$tmp/fail240.json" --sarif "$tmp/wf.sarif" --format json --summary '' --outputs '' >/dev/null
	check_cmd "in Actions, unanchored results go to the workflow file" \
		grep -q '"uri":[[:space:]]*".github/workflows/ci.yml"' "$tmp/wf.sarif"
	"$B" report --in "$tmp/fail240.json" --sarif "$tmp/na.sarif" --format json >/dev/null 2>"$tmp/na.err"
	check_cmd "schema-valid even without a fallback anchor" python3 tests/report/validate_sarif.py "$schema" "$tmp/na.sarif"
	check_cmd "...and the user is warned that code scanning would refuse it" grep -q 'code scanning' "$tmp/na.err"
	python3 -c "import json; d=json.load(open('$tmp/fail240.sarif')); d['runs'][0]['results'][0]['level']='fatal'
json.dump(d, open('$tmp/broken.sarif', 'w'))"
	check_status "the validator catches a broken SARIF file" 1 python3 tests/report/validate_sarif.py "$schema" "$tmp/broken.sarif"
	n=$(python3 -c "import json; print(len(json.load(open('$tmp/fail240.sarif'))['runs'][0]['tool']['driver']['rules']))")
	# shellcheck disable=SC2016 # the backticks are Markdown, matched literally
	check_eq "one SARIF rule per finding kind (docs/rules.md)" \
		"$(grep -c '^| \[`[a-z-]*`\]' docs/rules.md)" "$n"
fi
tap_done
