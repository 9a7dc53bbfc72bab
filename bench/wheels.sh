#!/usr/bin/env bash
# shellcheck disable=SC2016  # scripts for bash -c
# bench/wheels.sh: the checker on REAL torch wheels (PyPI), in two parts.
#
# 1. Peers, side by side on the same wheels (one run each, ratios to check):
#    - torch-dll-check check on the wheel laid out as a Windows install
#      (tests/lib/trees/wheels.sh: System32 = Wine's PE builtins);
#    - delvewheel show --add-path torch\lib WHEEL (delvewheel from PyPI, in a
#      venv in the cache keyed by its version): what it would bundle and what
#      it cannot find;
#    - a pefile dependency walk (bench/pefile_missing.py): imported DLL names
#      looked up in torch\lib, the Python folder and System32.
#    What each reports as missing, and its time.
# 2. Speed on real binaries: `check` on the largest real wheel tree (torch
#    2.8.0, the biggest win_amd64 wheel) installed inside a full Wine prefix
#    (a hard-linked copy of the test prefix: drive_c\windows and system.reg)
#    against llvm-readobj merely listing the same files' imports and exports;
#    peak RSS at most 4 MiB above `torch-dll-check --version`.
#
# Markdown on stdout; exit 1 when part 2's targets fail. Needs the wheels
# (fetched into $TDC_CACHE on first use, ~700 MB) and Wine's prefix.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
export TDC_REPO=$REPO
BIN=${TDC_BIN:-$REPO/torch-dll-check}
export TDC_BIN=$BIN
source tests/lib/fixtures.sh
source tests/lib/wheels.sh
source tests/lib/trees/wheels.sh
source tests/oracle/wine.sh
source bench/lib.sh
[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 2; }

DW_VERSION=1.13.2
venv=$TDC_CACHE/venv/delvewheel-$DW_VERSION
if [ ! -x "$venv/bin/python" ]; then
	rm -rf "$venv.tmp.$$"
	if /usr/bin/python3 -m venv "$venv.tmp.$$" &&
		"$venv.tmp.$$/bin/python" -m pip install -q --disable-pip-version-check "delvewheel==$DW_VERSION"; then
		mv -T "$venv.tmp.$$" "$venv" 2>/dev/null # another run may have won the race
	fi
	rm -rf "$venv.tmp.$$"
fi
[ -x "$venv/bin/python" ] || { echo "bench: no delvewheel venv (python3-venv, PyPI)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/tdc-bench-wheels.XXXXXX")
trap 'rm -rf "$W"' EXIT

# once CMD...: "SECONDS RSS_KIB" of one run (stdout to $W/out).
once() {
	local t0 t1
	t0=$EPOCHREALTIME
	/usr/bin/time -f '%M' -o "$W/rss" "$@" >"$W/out" 2>"$W/err"
	t1=$EPOCHREALTIME
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(tail -1 "$W/rss")"
}
list() { tr '\n' ' ' | sed 's/ $//; s/^$/(none)/'; }

echo "# torch-dll-check on real torch wheels — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "Measured under $(bench_load). delvewheel $DW_VERSION, pefile $("$venv/bin/python" -c 'import pefile; print(pefile.__version__)') (in delvewheel's venv), Debian pefile $(/usr/bin/python3 -c 'import pefile; print(pefile.__version__)') for the walk."
echo
echo "## Peers on the same wheels (one run each)"
echo
echo "| wheel | tool | reports missing / not found | time | vs check |"
echo "|---|---|---|---|---|"
for v in 2.4.0 2.4.1 2.9.1 2.15.0; do
	whl=$(wheel_fetch torch "$v" 2>/dev/null) || { echo "| torch $v | (PyPI did not give the wheel) | | | |"; continue; }
	t=$W/$v
	py=$(wheel_tree "$t" "$whl") || { echo "| torch $v | (no tree) | | | |"; continue; }
	tl=$(_pydir "$t")/Lib/site-packages/torch
	read -r ct _ <<<"$(once "$BIN" check --root "$t" --python "$py" --json)"
	cm=$(jq -r '[.findings[] | select(.rule == "missing-dll") | .leaf | ascii_downcase] | unique | .[]' "$W/out" | list)
	read -r dt _ <<<"$(once "$venv/bin/python" -m delvewheel show --add-path "$tl/lib" "$whl")"
	dm=$(sed -n 's/^ *\([^ ]*\) (Error: Not Found)$/\1/p' "$W/out" | sort | list)
	read -r pt _ <<<"$(once /usr/bin/python3 bench/pefile_missing.py "$t" "$tl")"
	pm=$(list <"$W/out")
	ratio() { awk -v a="$1" -v b="$ct" 'BEGIN { printf "%.0f×", a / b }'; }
	echo "| $(basename "$whl") | torch-dll-check check | $cm | $ct s | 1× |"
	echo "| | delvewheel show | $dm | $dt s | $(ratio "$dt") |"
	echo "| | pefile walk | $pm | $pt s | $(ratio "$pt") |"
	rm -rf "$t"
done
echo
echo "delvewheel answers another question (what to bundle into a wheel): it searches only"
echo "--add-path and PATH, so on Linux every DLL outside torch\\lib that it does not know as a"
echo "system DLL is \"not found\" (msvcp140, vcomp140), whatever the machine has. The pefile walk"
echo "finds names but no search order, versions or missing functions."

echo
echo "## check on the largest real wheel inside a full Wine prefix"
echo
status=0
pfx=$(wine_prefix_ensure 2>/dev/null) || { echo "bench: no Wine prefix" >&2; exit 2; }
whl=$(wheel_fetch torch 2.8.0) || { echo "bench: PyPI did not give torch 2.8.0" >&2; exit 2; }
root=$W/prefix
mkdir -p "$root/drive_c"
cp "$pfx"/*.reg "$root/"
cp -al "$pfx/drive_c/windows" "$root/drive_c/windows" 2>/dev/null || cp -a "$pfx/drive_c/windows" "$root/drive_c/windows"
py=$(wheel_tree "$root/drive_c" "$whl") || exit 2
tl=$(_pydir "$root/drive_c")/Lib/site-packages/torch
files=("$tl"/lib/*.dll "$tl"/*.pyd)
read -r bw bc br _ <<<"$(measure "$BIN" --version)"
read -r cw cc cr cs <<<"$(measure "$BIN" check --root "$root/drive_c" --python "$py" --json)"
read -r lw lc lr ls <<<"$(measure llvm-readobj --coff-imports --coff-exports "${files[@]}")"
size=$(du -shL "$tl/lib" | cut -f1)
echo "$(basename "$whl"): ${#files[@]} binaries ($size in torch\\lib), System32 = the prefix's $(find "$root/drive_c/windows/system32" -maxdepth 1 -type f | wc -l) files, its system.reg read."
echo
echo "| run | wall (best) | CPU | peak RSS |"
echo "|---|---|---|---|"
echo "| torch-dll-check --version (baseline) | $bw s | $bc s | $br KiB |"
echo "| torch-dll-check check --json (exit $cs) | $cw s | $cc s | $cr KiB |"
echo "| llvm-readobj --coff-imports --coff-exports, same ${#files[@]} files (exit $ls) | $lw s | $lc s | $lr KiB |"
echo
delta=$((cr - br))
if awk -v a="$cw" -v b="$lw" 'BEGIN { exit !(a < b) }'; then
	echo "PASS: check ($cw s) is faster than llvm-readobj listing the same files ($lw s)."
else
	echo "FAIL: check ($cw s) is not faster than llvm-readobj listing the same files ($lw s)."
	status=1
fi
if [ "$delta" -le 4096 ]; then
	echo "PASS: peak RSS $delta KiB above --version (limit 4096 KiB)."
else
	echo "FAIL: peak RSS $delta KiB above --version (limit 4096 KiB)."
	status=1
fi
exit $status
