#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_mkl_delay: where Intel MKL's DLLs get their delay-loaded DLLs (issue #34
# item 18, the mkl case).
#
# torch 2.3.0 (PyPI's win_amd64 cp311 wheel) with the real mkl 2021.4.0 wheel
# in <prefix>\Library\bin: mkl_intel_thread.1.dll, which torch_cpu.dll imports,
# takes all of MKL from mkl_core.1.dll through its delay-import table. The
# standard helper's LoadLibraryExA(name, NULL, 0) would not find it (the
# standard order has no AddDllDirectory folder), and the checker warned
# "delay-loaded mkl_core.1.dll is missing" on every ordinary install. Wine
# runs the real DLLs (tests/oracle/delay_call.c: torch's load, then a call
# into mkl_core): MKL's hook loads it from its own folder first, then by name
# (matrix/evidence/mkl-delay-load.txt). The matrix says so as data
# (vendor_dlls `mkl`, delay_own_folder: true); a layer that says false brings
# the warning back, and mkl_core.1.dll really absent is still said, with the
# importer's folder among the places searched.
TEST_NAME=wheels/mkl_delay
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
W=$tmp

whl=$(wheel_fetch torch 2.3.0 2>"$W/err") || { skip "MKL's delay loads" "no torch 2.3.0 wheel: $(tail -1 "$W/err")"; tap_done; }
PY=$(wheel_tree "$W/t" "$whl" 2>"$W/err") || { not_ok "tree of torch 2.3.0"; sed 's/^/#   /' "$W/err" | head -5; tap_done; }
tree_wheel_data "$W/t" mkl 2021.4.0 2>"$W/err" || { skip "MKL's delay loads" "no mkl 2021.4.0: $(tail -1 "$W/err")"; tap_done; }
LB=$W/t/Python311/Library/bin
J() { "$B" check --root "$W/t" --python "$PY" --json "$@" 2>"$W/check.err" | jq -c "$Q" 2>&1; }
Q='[.findings[] | select(.rule == "delay-load-missing") | [.leaf, .binary // "" | split("\\") | last]]'

check_eq "torch 2.3.0 + mkl 2021.4.0: mkl_core.1.dll comes from mkl_intel_thread.1.dll's own folder, no warning" \
	'[]' "$(J)"
check_eq "torch 2.3.0 + mkl 2021.4.0: pass" 'pass' \
	"$("$B" check --root "$W/t" --python "$PY" --json 2>/dev/null | jq -r .status)"

# the verdict is the matrix's: a layer saying the hook does not look there brings the warning back
printf '%s\n' 'schema: 1' 'rows: []' 'vendor_dlls:' \
	'  - {id: mkl, stack: intel-cpu, dlls: ["mkl_*"], wheel: mkl, why: "a test layer", status: inferred, delay_own_folder: false}' \
	>"$W/layer.yml"
Q='[.findings[] | select(.rule == "delay-load-missing") | .leaf] | unique'
check_eq "a matrix layer with delay_own_folder: false: the standard helper's search, mkl_core.1.dll missing" \
	'["mkl_core.1.dll"]' "$(J --matrix "$W/layer.yml")"

# deps reads the same matrix as check: mkl_intel_thread.1.dll alone, loaded as torch loads it
D() { "$B" deps --root "$W/t" --add-dll-dir 'C:\Python311\Library\bin' --trace "$@" \
	'C:\Python311\Library\bin\mkl_intel_thread.1.dll' 2>&1 | grep -c '^warning: delay-loaded mkl_core' ; }
check_eq "deps --trace mkl_intel_thread.1.dll: mkl_core.1.dll from its own folder, no delay-load warning" '0' "$(D)"
check_eq "deps --matrix with delay_own_folder: false: the warning comes back" '1' "$(D --matrix "$W/layer.yml")"

# really absent: still said, the importer's folder among the places searched
mv "$LB/mkl_core.1.dll" "$W/mkl_core.1.dll"
check_eq "mkl_core.1.dll absent from Library\\bin: delay-load-missing" '["mkl_core.1.dll"]' "$(J)"
Q='[.findings[] | select(.rule == "delay-load-missing") | .probes[0] | .path, .step, .result]'
check_eq "... whose first place searched is the importer's folder" \
	'["C:\\Python311\\Library\\bin\\mkl_core.1.dll","importer'"'"'s folder","not found"]' "$(J --trace)"
mv "$W/mkl_core.1.dll" "$LB/mkl_core.1.dll"

# Wine: the real DLLs, loaded as torch loads them, then a call that needs mkl_core.1.dll
delay_call_build() {
	local src=$TDC_REPO/tests/oracle/delay_call.c key out
	key=$( { cat "$src"; x86_64-w64-mingw32-gcc --version | head -1; } | sha256sum | cut -c1-12)
	out=$TDC_CACHE/oracle/$key/delay_call.exe
	if [ ! -f "$out" ]; then
		mkdir -p "$(dirname "$out")"
		x86_64-w64-mingw32-gcc -municode -O2 -Wall -Wextra -Werror -Wl,--no-insert-timestamp \
			-o "$out.tmp.$$" "$src" || return 1
		mv "$out.tmp.$$" "$out"
	fi
	echo "$out"
}
if command -v wine >/dev/null && EXE=$(delay_call_build 2>"$W/err") && PFX=$(wine_prefix_ensure 2>>"$W/err"); then
	cp "$EXE" "$W/t/Python311/delay_call.exe"
	mkdir -p "$W/alone"
	cp -l "$LB/mkl_intel_thread.1.dll" "$W/alone/" 2>/dev/null || cp "$LB/mkl_intel_thread.1.dll" "$W/alone/"
	wine_lock "$PFX"
	wine_start "$PFX"
	# dc OUT DLLDIR DLL: delay_call.exe's lines
	dc() {
		rm -f "$W/$1"
		wine_run "$PFX" "$W/o.txt" "$W/$1.err" "$W/t/Python311/delay_call.exe" "$(wine_zpath "$W/$1")" \
			"$(wine_zpath "$2")" "$(wine_zpath "$3")" mkl_blas_scabs1 mkl_core.1.dll
		tr -d '\r' <"$W/$1" 2>/dev/null | sed "s|$(wine_zpath "$W" | sed 's/\\/\\\\/g')||" | tr '\n' '|'
	}
	check_eq "Wine: torch's load of mkl_intel_thread.1.dll; the helper's plain search fails; the call loads mkl_core.1.dll from Library\\bin" \
		'add_dll_directory 1|load 0|default_search 126|call ok 0|probe_loaded \t\Python311\Library\bin\mkl_core.1.dll|' \
		"$(dc r1 "$LB" "$LB/mkl_intel_thread.1.dll")"
	check_eq "Wine: Library\\bin not an AddDllDirectory folder: still from mkl_intel_thread.1.dll's own folder" \
		'add_dll_directory 1|load 0|default_search 126|call ok 0|probe_loaded \t\Python311\Library\bin\mkl_core.1.dll|' \
		"$(dc r2 "$W/t/Python311" "$LB/mkl_intel_thread.1.dll")"
	check_eq "Wine: mkl_intel_thread.1.dll alone in another folder: the call fails 0xC06D007E (the user folder is not searched)" \
		'add_dll_directory 1|load 0|default_search 126|call exception 0xC06D007E|' \
		"$(dc r3 "$LB" "$W/alone/mkl_intel_thread.1.dll")"
	wine_stop "$PFX"
else
	skip "Wine runs MKL's delay load" "wine, mingw or the Wine prefix is missing (.ci/deps installs them): $(tail -1 "$W/err")"
fi
tap_done
