#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_gate_redist: check --pins says what check says of the same install
# when the VC++ redistributable is older than the row asks (issue #34 items
# 16, 17 in the gate).
#
# The real torch 2.9.1 and 2.8.0 win_amd64 wheels, the real msvc-runtime
# 14.34 DLLs in System32 and the registry's v14.34.31931.00. `check` of the
# installed tree: 2.9.1 is one problem (c10.dll's 1114 on System32's
# msvcp140.dll, the registry's facts in it, the row's 14.42 and "or: torch <
# 2.9" as the fix), 2.8.0 loads and the row's 14.38 is a warning. The gate,
# before anything is installed, said two errors for 2.9.1 (redist-too-old
# and runtime-too-old) and an error for 2.8.0. Now it says the same cause
# the same way: for 2.9.1 one runtime-too-old error whose fix is check's, for
# 2.8.0 a warning, exit 0.
TEST_NAME=pins/gate_redist
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
W=$tmp
PY='C:\Python311\python.exe'
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$W
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v14.34.31931.00"\r\n' >"$W/134.reg"

for tv in 2.9.1 2.8.0; do
	if ! { w=$(wheel_fetch torch "$tv" 2>"$W/why") && wheel_tree "$W/r$tv" "$w" >/dev/null 2>"$W/why" &&
		tree_redist "$W/r$tv" 14.34.31931 2>"$W/why"; }; then
		skip "torch $tv on the 14.34 redistributable: gate and check" "$(tail -1 "$W/why")"
		continue
	fi
	# the same runner before `pip install torch`
	tree_variant "$W/r$tv" "$W/b$tv" && rm -rf "$(_pydir "$W/b$tv")"/Lib/site-packages/torch*
	git init -q "$W/repo$tv" && printf 'torch==%s\n' "$tv" >"$W/repo$tv/requirements.txt" &&
		git -C "$W/repo$tv" add -A && git -C "$W/repo$tv" commit -qm pin
	"$B" check --root "$W/r$tv" --python "$PY" --registry "$W/134.reg" --json >"$W/c$tv.json" 2>"$W/c.err"
	echo $? >"$W/c$tv.rc"
	"$B" check --pins --repo "$W/repo$tv" --root "$W/b$tv" --python "$PY" --registry "$W/134.reg" --json \
		--profile none >"$W/g$tv.json" 2>"$W/g.err"
	echo $? >"$W/g$tv.rc"
	"$B" check --pins --repo "$W/repo$tv" --root "$W/b$tv" --python "$PY" --registry "$W/134.reg" \
		--profile none >"$W/g$tv.txt" 2>&1
	rm -rf "$W/r$tv"
done
errs='[.findings[] | select(.severity == "error") | [.rule, .winerror]] | unique'
if [ -f "$W/g2.9.1.json" ]; then
	check_eq "torch 2.9.1 on 14.34: the gate says one cause, one error, as check does (exit 1)" \
		"$(jq -c "$errs" "$W/c2.9.1.json")|$(cat "$W/c2.9.1.rc")" "$(jq -c "$errs" "$W/g2.9.1.json")|$(cat "$W/g2.9.1.rc")"
	check_eq "torch 2.9.1 on 14.34: the gate's error is runtime-too-old 1114, no redist-too-old" \
		'[["runtime-too-old",1114]]' "$(jq -c "$errs" "$W/g2.9.1.json")"
	fix='[.findings[] | select(.rule == "runtime-too-old" and .winerror == 1114) | .fix] | unique'
	check_eq "torch 2.9.1 on 14.34: the gate's fix is check's (the row's 14.42; or: torch < 2.9)" \
		"$(jq -c '[.findings[] | select(.rule == "runtime-too-old" and (.message | contains("records v14.34"))) | .fix] | unique' "$W/c2.9.1.json")" \
		"$(jq -c "$fix" "$W/g2.9.1.json")"
	check_eq "torch 2.9.1 on 14.34: the registry's facts are in the gate's error" 'true' \
		"$(jq '[.findings[] | select(.rule == "runtime-too-old")][0].message | contains("records v14.34.31931.00; the matrix row")' "$W/g2.9.1.json")"
	check_eq "torch 2.9.1 on 14.34: the text report names one error" 1 \
		"$(grep -c 'runtime-too-old' "$W/g2.9.1.txt")"
fi
if [ -f "$W/g2.8.0.json" ]; then
	check_eq "torch 2.8.0 on 14.34: every binary loads: check warns (exit 0), and so does the gate (exit 0)" \
		'[["redist-too-old","warning"]]|0|[["redist-too-old","warning"]]|0' \
		"$(jq -c '[.findings[] | select(.rule == "redist-too-old") | [.rule, .severity]]' "$W/c2.8.0.json")|$(cat "$W/c2.8.0.rc")|$(jq -c '[.findings[] | select(.rule == "redist-too-old") | [.rule, .severity]]' "$W/g2.8.0.json")|$(cat "$W/g2.8.0.rc")"
	check_eq "torch 2.8.0 on 14.34: the gate's title says it loads, as check's does" 'true|true' \
		"$(jq '[.findings[] | select(.rule == "redist-too-old")][0].title | endswith("though every binary loads with it")' "$W/c2.8.0.json")|$(jq '[.findings[] | select(.rule == "redist-too-old")][0].title | endswith("though every binary would load with it")' "$W/g2.8.0.json")"
	# the rule's documentation says so too (generated from checker/judge/rules.def)
	check_eq "docs/rules.md: redist-too-old is a warning when every binary loads, not only for an inferred row" 1 \
		"$(sed -n '/^## redist-too-old/,/^## runtime/p' "$TDC_REPO/docs/rules.md" | grep -c 'a warning when every torch binary loads')"
fi
tap_done
