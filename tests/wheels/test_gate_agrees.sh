#!/usr/bin/env bash
# test_gate_agrees: the pre-merge gate (`check --pins`, judged from the matrix
# row before torch is installed) against the loader (`check --python`, the
# real installed wheel) on the SAME runner, for every CI-tier torch wheel
# (tests/wheels/test_wheels.sh's: 2.4.0, 2.4.1, 2.9.1, 2.15.0, 1.7.1) x every
# runner variant tests/lib/trees/wheels.sh builds:
#
#   wine         Wine's System32 alone (no version resources), no redistributable key
#   redist-14.44 the real 14.44 redistributable in System32, its registry key
#   redist-14.34 the real 14.34 redistributable in System32, its registry key
#   vs           redist-14.44 + Visual Studio's libomp140.x86_64.dll in System32
#   no-140_1     Wine's System32 without vcruntime140_1.dll, no key
#   applocal-14.34  pip's msvc-runtime 14.34 next to python.exe, no key
#   conda-14.34  msvc-runtime 14.34 in C:\PythonXY\Library\bin (conda's layout), no key
#   redist-14.40 the real 14.40 redistributable in System32, its registry key
#   redist-14.44+applocal-14.34, redist-14.44+conda-14.34  an old copy shadowing a new redistributable
#
# The gate runs on the variant's tree with torch\ and its dist-info removed
# (hard-linked copy: the same System32, python.exe folder, Library\bin and
# registry; only the install is gone, as before `pip install`), from a git
# repository pinning torch==VERSION. The loader runs on the tree with torch.
# Asserted per cell:
#   - the gate has an error <=> `check` of the install has one (same exit status);
#   - `check` of the install has an error <=> the loader predicts a load failure
#     (a binary that does not load, or WinError 1114 in DllMain), except the
#     cells in POLICY_ONLY: an error of the matrix's policy where every binary
#     loads, named with the reason;
#   - each leaf DLL the gate names in an error is one of the install check's
#     error leaves, except the leaves in MASKED: missing on this runner too,
#     but the loader stops at a binary's first missing import, so it never
#     reaches them; each is asserted to be a loader leaf in the cell named
#     (the same runner with the first missing DLL present).
# The table of every cell is printed at the end (docs/check.md has it).
TEST_NAME=gate-agrees
export TEST_NAME
TDC_KEEP_TMP=${TDC_KEEP_TMP:-${KEEP:-}} # KEEP=1: leave the trees and reports for a look
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
set -u
WORK=$tmp # start.sh's: removed at exit
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$WORK

VERSIONS="2.4.0 2.4.1 2.9.1 2.15.0 1.7.1"
VARIANTS="wine redist-14.44 redist-14.40 redist-14.34 vs no-140_1 applocal-14.34 conda-14.34
redist-14.44+applocal-14.34 redist-14.44+conda-14.34"
# msvc-runtime wheel versions (their DLLs: 14.44.35211.0, 14.40.33810.0, 14.34.31931.0)
R44=14.44.35112
R40=14.40.33807
R34=14.34.31931

# "VERSION/VARIANT" -> why the gate errs though every binary loads (the install's check warns). None
# since #34 items 16, 17 reached the gate: 2.9.1 and 2.15.0 on redist-14.40 (the row asks for 14.42, yet
# 14.40's DLLs export every import and msvcp140 14.40 meets the 1114 floor) are a warning in both.
declare -A POLICY_ONLY
# "VERSION/VARIANT" -> "LEAF CELL reason": a leaf only the gate names
declare -A MASKED
MASKED[2.4.0/no-140_1]="libomp140.x86_64.dll wine fbgemm.dll imports vcruntime140_1.dll before \
libomp140.x86_64.dll; the loader stops at the first missing one"

# regfile FILE VERSION|-: the redistributable's key as reg.exe exports it (- : not installed)
regfile() {
	{
		printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft]\r\n'
		[ "$2" = - ] || printf '\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v%s"\r\n' "$2"
	} >"$1"
}
regfile "$WORK/none.reg" -
regfile "$WORK/144.reg" 14.44.35211.00
regfile "$WORK/140.reg" 14.40.33810.00
regfile "$WORK/134.reg" 14.34.31931.00

# variant BASE DIR NAME: build variant NAME of tree BASE in DIR; prints its registry file
variant() {
	local base=$1 d=$2
	tree_variant "$base" "$d" || return 1
	case $3 in
	wine) echo "$WORK/none.reg" ;;
	redist-14.44) tree_redist "$d" $R44 && echo "$WORK/144.reg" ;;
	redist-14.40) tree_redist "$d" $R40 && echo "$WORK/140.reg" ;;
	redist-14.34) tree_redist "$d" $R34 && echo "$WORK/134.reg" ;;
	vs) tree_redist "$d" $R44 && tree_libomp140 "$d" >/dev/null && echo "$WORK/144.reg" ;;
	no-140_1) tree_drop "$d" vcruntime140_1.dll && echo "$WORK/none.reg" ;;
	applocal-14.34) tree_applocal "$d" $R34 && echo "$WORK/none.reg" ;;
	conda-14.34) tree_conda_runtime "$d" $R34 && echo "$WORK/none.reg" ;;
	redist-14.44+applocal-14.34) tree_redist "$d" $R44 && tree_applocal "$d" $R34 && echo "$WORK/144.reg" ;;
	redist-14.44+conda-14.34) tree_redist "$d" $R44 && tree_conda_runtime "$d" $R34 && echo "$WORK/144.reg" ;;
	esac
}

# the loader's verdict: "error" when a binary does not load or DllMain is
# predicted to fail (1114), else "pass"; and its failing leaves (lower case)
L_VERDICT='if ([.installs[0].binaries[] | select(.outcome != "loads")] | length) > 0
	or ([.findings[] | select(.severity == "error" and .winerror != null)] | length) > 0
	then "error" else "pass" end'
L_LEAVES='[(.installs[0].binaries[] | select(.outcome != "loads") | .leaf), (.findings[] | select(.severity == "error") | .leaf)]
	| map(select(. != null) | ascii_downcase) | unique'
G_VERDICT='if ([.findings[] | select(.severity == "error")] | length) > 0 then "error" else "pass" end'
G_LEAVES='[.findings[] | select(.severity == "error") | .leaf | select(. != null) | ascii_downcase] | unique'
G_RULES='[.findings[] | select(.severity != "note") | "\(.rule):\(.severity)"] | unique | join(",")'

TABLE=$WORK/table.md
printf '| torch | runner | gate | check | load | gate findings (not notes) | check leaves |\n|---|---|---|---|---|---|---|\n' >"$TABLE"

for v in $VERSIONS; do
	if ! whl=$(wheel_fetch torch "$v" 2>"$WORK/err"); then
		skip "torch $v: gate agrees with the loader" "PyPI/pip did not give torch $v's win_amd64 wheel: $(tail -1 "$WORK/err")"
		continue
	fi
	if ! py=$(wheel_tree "$WORK/$v" "$whl" 2>"$WORK/err"); then
		not_ok "torch $v: tree from $(basename "$whl")"
		sed 's/^/#   /' "$WORK/err" | head -5
		continue
	fi
	repo=$WORK/repo-$v
	if ! { git init -q "$repo" && printf 'torch==%s\n' "$v" >"$repo/requirements.txt" &&
		git -C "$repo" add -A && git -C "$repo" commit -qm "pin torch $v"; }; then
		not_ok "torch $v: the pinning repository"
		continue
	fi
	for var in $VARIANTS; do
		t=$WORK/$v-$var
		if ! reg=$(variant "$WORK/$v" "$t" "$var" 2>"$WORK/err"); then
			skip "torch $v on $var: gate agrees with the loader" "could not build the runner: $(tail -1 "$WORK/err")"
			continue
		fi
		# the same runner before `pip install torch`
		tree_variant "$t" "$t-bare" && rm -rf "$(_pydir "$t-bare")"/Lib/site-packages/torch*
		"$B" check --root "$t" --python "$py" --registry "$reg" --json >"$t.loader.json" 2>"$t.loader.err"
		lrc=$?
		# the runner alone (--profile none): the user profiles are judged in tests/profiles
		"$B" check --pins --repo "$repo" --root "$t-bare" --python "$py" --registry "$reg" --json --profile none \
			>"$t.gate.json" 2>"$t.gate.err"
		grc=$?
		rm -rf "$t-bare"
		if [ "$lrc" -gt 1 ] || [ "$grc" -gt 1 ]; then
			not_ok "torch $v on $var: both checks run (loader exit $lrc, gate exit $grc)"
			cat "$t.loader.err" "$t.gate.err" | head -5 | sed 's/^/#   /'
			continue
		fi
		lv=$(jq -r "$L_VERDICT" "$t.loader.json")
		gv=$(jq -r "$G_VERDICT" "$t.gate.json")
		ll=$(jq -c "$L_LEAVES" "$t.loader.json")
		gl=$(jq -c "$G_LEAVES" "$t.gate.json")
		gr=$(jq -r "$G_RULES" "$t.gate.json")
		cv=pass
		[ "$lrc" -eq 1 ] && cv=error
		printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$v" "$var" "$gv" "$cv" "$lv" "${gr:--}" "$ll" >>"$TABLE"
		cell="$v/$var"
		cv=pass
		[ "$lrc" -eq 1 ] && cv=error
		if [ -n "${POLICY_ONLY[$cell]:-}" ]; then
			# the gate forecasts by the row (an error); the install's check sees every binary load, so the
			# row's minimum is a warning there (unsupported, but it loads: #34)
			check_eq "torch $v on $var: gate errs by policy (exit $grc), the install's check warns, every binary loads (${POLICY_ONLY[$cell]%%:*})" \
				"error-1-pass-pass-true" "$gv-$grc-$cv-$lv-$(jq --arg r "${POLICY_ONLY[$cell]%%:*}" \
					'any(.findings[]; .rule == $r and .severity == "warning")' "$t.loader.json")"
		else
			check_eq "torch $v on $var: gate $gv = check of the install $cv (exit $grc, $lrc)" "$cv-$lrc" "$gv-$grc"
			check_eq "torch $v on $var: check of the install $cv = load $lv" "$lv" "$cv"
		fi
		# every leaf the gate blames is one the install's check fails on
		stray=$(jq -nc --argjson g "$gl" --argjson l "$ll" '$g - $l')
		if [ -n "${MASKED[$cell]:-}" ]; then
			read -r leaf sib _ <<<"${MASKED[$cell]}"
			check_eq "torch $v on $var: the gate also names $leaf, which the loader never reaches here, and fails on in $v/$sib" \
				"[\"$leaf\"] true" "$stray $(jq --arg l "$leaf" 'any(.installs[0].binaries[]; (.leaf // "" | ascii_downcase) == $l)' \
					"$WORK/$v-$sib.loader.json")"
		else
			check_eq "torch $v on $var: the gate's error leaves $gl are among the install check's $ll" '[]' "$stray"
		fi
	done
	# regression: the gate called an older redistributable that predates a DLL "a broken install"
	if [ "$v" = 2.15.0 ] && [ -s "$WORK/2.15.0-redist-14.34.gate.json" ]; then
		check_eq "torch 2.15.0 on redist-14.34: vcruntime140_threads.dll is missing because 14.34 predates it, not a broken install" \
			'[["vcruntime140_threads.dll",126,true,false]]' "$(jq -c '[.findings[] | select(.rule == "redist-missing")
				| [.leaf, .winerror, (.message | contains("records 14.34.31931.0 installed, older than the 14.42")),
				(.message | contains("broken"))]]' "$WORK/2.15.0-redist-14.34.gate.json")"
	fi
	rm -rf "${WORK:?}/$v" "${WORK:?}/$v"-*/
done
sed 's/^/# /' "$TABLE"
tap_done
