#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_bare: a package without a .dist-info (a source build on the path, a
# copied folder) beside a REAL torch (issue #31, mitsuba-renderer/mitsuba2#115).
#
# torch 2.4.1 (PyPI's win_amd64 cp311 wheel), whose fbgemm.dll imports
# asmjit.dll, and in its site-packages a `mitsuba` folder as a source build
# leaves it: __init__.py, an extension module (built here with mingw, importing
# asmjit.dll) and its own older asmjit.dll (the real one of torch 1.7.1's
# wheel). No .dist-info names the folder. Before: the copied-DLL checks did not
# see it and `--import-first mitsuba` was refused ("no distribution ... is
# named so"). Now: its asmjit.dll is listed as a copy that lacks what
# fbgemm.dll imports, said "not installed by pip: no RECORD", and
# --import-first mitsuba makes torch's binaries fail with 127 on it.
TEST_NAME=layouts/bare
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
W=$tmp

whl=$(wheel_fetch torch 2.4.1 2>"$W/err") || { skip "a package without dist-info" "no torch 2.4.1 wheel: $(tail -1 "$W/err")"; tap_done; }
old=$(wheel_fetch torch 1.7.1 2>"$W/err") || { skip "a package without dist-info" "no torch 1.7.1 wheel: $(tail -1 "$W/err")"; tap_done; }
PY=$(wheel_tree "$W/t" "$whl" 2>"$W/err") || { not_ok "tree of torch 2.4.1"; sed 's/^/#   /' "$W/err" | head -5; tap_done; }
M=$W/t/Python311/Lib/site-packages/mitsuba
mkdir -p "$M" "$W/t/Python311/Lib/site-packages/purepy"
echo 'from .render import *' >"$M/__init__.py"
echo '' >"$W/t/Python311/Lib/site-packages/purepy/__init__.py"
python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("torch/lib/asmjit.dll"))' "$old" "$M/asmjit.dll"
make_dll "$M/render.cp311-win_amd64.pyd" --export PyInit_render --import 'asmjit.dll:??0BaseAssembler@asmjit@@QEAA@XZ' \
	--import KERNEL32.dll:GetLastError 2>"$W/err" || { skip "a package without dist-info" "mingw: $(tail -1 "$W/err")"; tap_done; }

copy='[.findings[] | select(.rule == "runtime-copy-exports") | [.severity, (.title | test("mitsuba\\\\asmjit.dll is the one loaded")), (.message | test("shipped by mitsuba \\(not installed by pip: no RECORD\\)"))]]'
check_eq "without --import-first: mitsuba's asmjit.dll is listed as a copy lacking what fbgemm.dll imports, not installed by pip" \
	'[["warning",true,true]]' \
	"$("$B" check --root "$W/t" --python "$PY" --json | jq -c "$copy")"
check_eq "--import-first mitsuba is accepted: torch's binaries fail with 127 on mitsuba's asmjit.dll" \
	'[["fbgemm.dll",127,true]]' \
	"$("$B" check --root "$W/t" --python "$PY" --import-first mitsuba --json 2>"$W/check.err" |
		jq -c '[.findings[] | select(.rule == "missing-entry-point") | [(.binary | split("\\") | last), .winerror, (.fix | test("mitsuba\\\\asmjit.dll"))]] | .[0:1]')"
check_eq "--import-first mitsuba: said not installed by pip, no RECORD compared" \
	'[[null,true],[]]' \
	"$("$B" check --root "$W/t" --python "$PY" --import-first mitsuba --json 2>"$W/check.err" |
		jq -c '[(.installs[0].imported_first[0] | [.version, (.notes[0] | startswith("not installed by pip: no RECORD"))]), [.installs[0].extension_records[]? | select(.name == "mitsuba")]]')"
check_status "--import-first purepy (a pure-Python package: nothing for the loader) is still refused" 2 \
	"$B" check --root "$W/t" --python "$PY" --import-first purepy

# Wine's loader (tests/oracle), mitsuba's extension imported first then torch's procedure: Wine binds the
# names mitsuba's asmjit.dll lacks to stubs where Windows fails with 127, and says so on stderr
# ("No implementation for asmjit.dll.<name> imported from ...fbgemm.dll"); imported after torch, no such line
# oracle_run NAME [ARGS...]: the oracle on the tree with torch's own folders, its stderr in $W/NAME.err
oracle_run() {
	local name=$1 py=$W/t/Python311
	shift
	cp "$ORACLE" "$py/oracle.exe" || return 1
	printf '%s\n' torch --out "$(wine_zpath "$W/$name.jsonl")" --torch-dir "$(wine_zpath "$py/Lib/site-packages/torch")" \
		--dll-path "$(wine_zpath "$py/Lib/site-packages/torch/lib")" "$@" >"$W/$name.args"
	# shellcheck disable=SC2016  # a script for bash -c
	WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES" timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ \
		"$TDC_REPO/tests/oracle/wine.sh" "$PFX" "$W/$name.out" "$W/$name.err" "$py/oracle.exe" \
		"@$(wine_zpath "$W/$name.args")"
	[ -s "$W/$name.jsonl" ]
}
stubbed='No implementation for asmjit.dll.[^ ]* imported from L"[^"]*fbgemm.dll"'
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle with mitsuba imported first" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	pyd=$(wine_zpath "$M/render.cp311-win_amd64.pyd")
	if oracle_run first --first "$pyd" && oracle_run after --ext "$pyd"; then
		check_cmd "Wine, mitsuba imported first: fbgemm.dll binds to mitsuba's asmjit.dll, which lacks its names (127 on Windows)" \
			grep -q "$stubbed" "$W/first.err"
		nchk=$("$B" check --root "$W/t" --python "$PY" --json | jq -r '.findings[] | select(.rule == "runtime-copy-exports") |
			.message | capture("It lacks (?<n>[0-9]+) of").n')
		check_eq "Wine stubs as many of fbgemm.dll's asmjit names as the checker says mitsuba's copy lacks ($nchk)" "$nchk" \
			"$(grep -o "$stubbed" "$W/first.err" | sed 's/ imported from.*//' | sort -u | wc -l)"
		check_eq "Wine, mitsuba imported after torch: torch's own asmjit.dll, nothing missing" '0' \
			"$(grep -c "$stubbed" "$W/after.err")"
	else
		not_ok "the oracle hung or died under Wine (mitsuba)"
	fi
	wine_stop "$PFX"
fi

# bad input: a folder link looping back inside the package, and 70 package folders without a dist-info
ln -s .. "$M/loop"
check_eq "a link looping inside the package is not followed: the same copy, once" '1' \
	"$("$B" check --root "$W/t" --python "$PY" --json | jq -c '[.findings[] | select(.rule == "runtime-copy-exports")] | length')"
SP=$W/t/Python311/Lib/site-packages
for i in $(seq -w 1 70); do
	mkdir -p "$SP/aaa$i" && : >"$SP/aaa$i/__init__.py" && cp "$M/render.cp311-win_amd64.pyd" "$SP/aaa$i/m.cp311-win_amd64.pyd"
done
check_eq "72 package folders with __init__.py (70 more, mitsuba, purepy): 64 walked, the rest said in one not-checked warning" \
	'[["warning","8 package folders without a .dist-info beyond the first 64 were not read"]]' \
	"$("$B" check --root "$W/t" --python "$PY" --json | jq -c '[.findings[] | select(.rule == "not-checked") | [.severity, .title]]')"
check_eq "70 package folders: --import-first aaa01 (one of the first 64) is accepted" '0' \
	"$("$B" check --root "$W/t" --python "$PY" --import-first aaa01 --json >/dev/null 2>&1; echo $?)"
tap_done
