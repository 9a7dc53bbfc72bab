#!/usr/bin/env bash
# test_report_injection: nothing from the machine or the repository can
# produce a workflow command. Feeds report documents whose names and values
# carry ::error::, ::add-mask::, ::set-output, ::stop-commands::, ##[...],
# %-escapes, CR/LF, leading whitespace and terminal escapes, runs
# `report --format github` as the action does, and parses stdout and stderr
# as the runner does (tests/report/gh_commands.py): the only commands must
# be ours. Also the GITHUB_OUTPUT file (CVE-2022-35954) and the summary.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=injection

run_github() { # KIND: renders gen_report.py KIND like the action, checks with check_injection.py
	local kind=$1 d="$tmp/$1"
	mkdir -p "$d"
	python3 tests/report/gen_report.py "$kind" >"$d/report.json"
	# A --json path a hostile workflow could pass: newlines and a forged output.
	local jp="$d/r
status<<EOF
pass
EOF.json"
	: >"$d/summary.md"
	: >"$d/outputs"
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$d/summary.md" GITHUB_OUTPUT="$d/outputs" \
		GITHUB_WORKFLOW_REF="o/r/.github/workflows/gate.yml@refs/pull/1/merge" \
		"$B" report --in "$d/report.json" --json "$jp" --sarif "$d/x.sarif" >"$d/stdout" 2>"$d/stderr"
	check_eq "$kind: exit status 1 (errors)" 1 $?
	python3 tests/report/check_injection.py "$d/report.json" "$d/stdout" "$d/stderr" "$d/outputs" \
		"$d/summary.md" "$jp" | sed "s/^\(not \)\{0,1\}ok - injection: /&$kind: /"
	[ "${PIPESTATUS[0]}" -eq 0 ] || TAP_FAILED=1
}

run_github evil
run_github many
run_github fail240

# End to end: `check` itself on a generated Windows tree whose torch\lib holds
# DLLs named like workflow commands (x::error::…, y##[error]…|<b>, z::stop-commands::…).
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck source=tests/lib/trees/loader.sh
source tests/lib/trees/loader.sh
# shellcheck source=tests/lib/trees/torch240.sh
source tests/lib/trees/torch240.sh
if root=$(torch_hostile_tree 2>"$tmp/tree.err") && [ -d "$root" ]; then
	d=$tmp/check
	mkdir -p "$d"
	: >"$d/summary.md"
	: >"$d/outputs"
	GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$d/summary.md" GITHUB_OUTPUT="$d/outputs" \
		"$B" check --root "$root" --torch 'C:\Python311\Lib\site-packages\torch' --json "$d/report.json" \
		>"$d/stdout" 2>"$d/stderr"
	check_eq "check on the hostile tree: exit 1" 1 $?
	# (the JSON escapes "::" and "##[" as \u003a and \u0023: decoded, the names are whole)
	check_eq "the hostile DLL names reached the findings" 3 "$(python3 -c '
import json, re, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
print(sum(1 for f in doc["findings"]
          if re.search(r"::error::injected|##\[error\]legacy|::stop-commands::", f.get("binary") or "")))
' "$d/report.json")"
	python3 tests/report/check_injection.py "$d/report.json" "$d/stdout" "$d/stderr" "$d/outputs" \
		"$d/summary.md" "$d/report.json" | sed "s/^\(not \)\{0,1\}ok - injection: /&check: /"
	[ "${PIPESTATUS[0]}" -eq 0 ] || TAP_FAILED=1
else
	not_ok "cannot build the hostile tree"
	tail -5 "$tmp/tree.err" | sed 's/^/#   /'
fi

# Errors about hostile arguments go to stderr escaped.
"$B" report --in "$tmp/nope
::error::from-path
##[error]legacy" >"$tmp/e1.out" 2>"$tmp/e1.err"
check_eq "unreadable --in: exit 2" 2 $?
"$B" report --in "$tmp/evil/report.json" $'--bogus\n::add-mask::x' >"$tmp/e2.out" 2>"$tmp/e2.err"
check_eq "unknown option: exit 2" 2 $?
printf '{"schema":"torch-dll-check/report/v1","findings":[{"rule":"x","severity":"::error::s"}]}' >"$tmp/bad.json"
"$B" report --in "$tmp/bad.json" >"$tmp/e3.out" 2>"$tmp/e3.err"
check_eq "bad severity: exit 2" 2 $?
"$B" check --root "$tmp" --torch $'C:\\x\n::error::from-check\r##[warning]y' >"$tmp/e4.out" 2>"$tmp/e4.err"
check_eq "check's usage error about a hostile path: exit 2" 2 $?
n=$(python3 tests/report/gh_commands.py "$tmp"/e?.out "$tmp"/e?.err | wc -l)
check_eq "error messages carry no workflow command" 0 "$n"
if grep -q 'from-path' "$tmp/e1.err"; then ok "the hostile path is still shown (escaped)"; else not_ok "path not shown"; fi
if grep -q 'from-check' "$tmp/e4.err"; then ok "cmd_usage_error shows hostile text escaped"; else not_ok "check error not shown"; fi

# Every other command, in GitHub Actions, prints its text inside one
# stop-commands block (checker/cli/out.h), and its JSON escaped instead (valid
# JSON, no guard lines): a hostile YAML key, DLL name or path in `matrix
# lint`, `pe`, `deps` and `inventory` output can act as no command.
mkdir -p "$tmp/cmds"
printf 'schema: 1\nrows:\n  - id: x\n    torch: "==2.4.0"\n    "##[error]yaml-key": 1\n    "::error::k": 2\n' >"$tmp/cmds/evil.yml"
hostile_dll=$tmp/cmds/$'::error::dll\n##[warning]x.dll'
if make_dll "$hostile_dll" --export f --import '##[warning]imp.dll:g' >"$tmp/cmds/mk.log" 2>&1; then
	for c in matrix pe pe-json deps inventory; do
		case $c in
		matrix) set -- matrix lint "$tmp/cmds/evil.yml" ;;
		pe) set -- pe "$hostile_dll" ;;
		pe-json) set -- pe --json "$hostile_dll" ;;
		deps) set -- deps "$hostile_dll" ;;
		inventory) set -- inventory --root "$tmp/cmds" --scan "$tmp/cmds" ;;
		esac
		GITHUB_ACTIONS=true "$B" "$@" >"$tmp/cmds/out" 2>"$tmp/cmds/err"
		python3 - "$tmp/cmds/out" "$tmp/cmds/err" >"$tmp/cmds/verdict" <<'PY'
import json, subprocess, sys
cmds = [json.loads(l) for l in subprocess.run(
    ["python3", "tests/report/gh_commands.py"] + sys.argv[1:],
    capture_output=True, text=True, check=True).stdout.splitlines()]
live = [c for c in cmds if not c["stopped"]]
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
last = text.splitlines()[-1:]
if text.startswith("{"):
    # JSON: no command of any kind, and valid JSON
    json.loads(text)
    ok = not cmds
else:
    # text: ours, the opening stop-commands, and the output's last line resumes it
    ok = (len(live) == 1 and live[0]["name"] == "stop-commands" and len(live[0]["data"]) == 32
          and last == ["::%s::" % live[0]["data"]])
print("ok" if ok else "bad: " + json.dumps(live) + " last line " + json.dumps(last))
PY
		check_eq "GITHUB_ACTIONS=true $c: only our stop-commands/resume pair is live" ok "$(cat "$tmp/cmds/verdict")"
	done
else
	not_ok "cannot build a DLL with a hostile name"
	sed 's/^/#   /' "$tmp/cmds/mk.log" | tail -5
fi

tap_done
