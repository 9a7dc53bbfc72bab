#!/usr/bin/env bash
# bench/run.sh (`make bench`): speed and memory of `torch-dll-check pe --json`
# against the PE readers people reach for, on the same files in one run:
#   - huge_1g.dll: a small DLL plus a 1 GiB sparse overlay (fixtures.sh)
#   - the largest x64 DLL in the npm corpus (onnxruntime.dll, MSVC, ~28 MB)
#   - every Wine PE builtin together (~690 files), one process per tool where
#     the tool takes many files (readpe takes one: a shell loop runs it per file)
# Tools: llvm-readobj --coff-imports --coff-exports; x86_64-w64-mingw32-objdump
# -p; readpe -i -e (pev); /usr/bin/python3 + pefile (fast_load, then only the
# import/export/delay-import directories: bench/pefile_parse.py).
#
# Columns (bench/lib.sh): best wall time of BENCH_RUNS (default 5) warm runs,
# CPU time (perf task-clock when available: the honest number on a shared
# machine), peak RSS of the best run.
#
# Then the memory claim of issue 2: peak RSS of `pe --json` on the 1 GiB file
# minus that on a 10 KiB DLL must be at most 1 MiB; and the process baseline
# (`torch-dll-check --version`). Then bench/check.sh (issue 3: `check` over a
# torch-sized tree; BENCH_CHECK=0 skips it), then bench/wheels.sh (issue 8:
# delvewheel and pefile side by side with check on real torch wheels, and
# check on the largest real wheel in a full Wine prefix; BENCH_WHEELS=0 skips
# it). Output: Markdown on stdout.
# Exit 1 if a memory or speed target fails. Machine-specific: do not commit
# results (one sample run lives in bench/README.md).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
BIN=${TDC_BIN:-$REPO/torch-dll-check}
PY=/usr/bin/python3
source tests/lib/fixtures.sh
source bench/lib.sh

[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 2; }
fx=$(fx_standard) || exit 2
bash tests/corpus/fetch.sh --files >"${TMPDIR:-/tmp}/tdc-bench-files.$$" 2>/dev/null
corpus=$(sed '1,/^--$/d' "${TMPDIR:-/tmp}/tdc-bench-files.$$")
rm -f "${TMPDIR:-/tmp}/tdc-bench-files.$$"
mapfile -t wine < <(grep '/corpus/wine-[^/]*/x86_64-linux-gnu/wine/x86_64-windows/' <<<"$corpus")
# The largest x64 one: every tool here reads x64 (mingw objdump cannot read
# the arm64 copies, which would make it look fast).
largest=$(grep '/corpus/npm-' <<<"$corpus" | xargs -r -d '\n' "$BIN" pe --json 2>/dev/null |
	  "$PY" -c 'import json, os, sys
f = [x["path"] for x in json.load(sys.stdin)["files"] if x.get("machine") == "x64"]
print(max(f, key=os.path.getsize))')
[ ${#wine[@]} -gt 0 ] || { echo "bench: no Wine corpus (bash tests/corpus/fetch.sh)" >&2; exit 2; }
# llvm-readobj 14 stops at the first file it cannot read (9 Wine .sys/.dll):
# leave those out so that every tool does the same work.
skipped=()
while :; do
	bad=$(llvm-readobj --coff-imports --coff-exports "${wine[@]}" 2>&1 >/dev/null |
	      sed -n "s/^llvm-readobj: error: '\(.*\)': .*/\1/p" | head -1)
	[ -n "$bad" ] || break
	skipped+=("$(basename "$bad")")
	for i in "${!wine[@]}"; do [ "${wine[$i]}" = "$bad" ] && unset 'wine[i]'; done
	wine=("${wine[@]}")
done

# shellcheck disable=SC2317  # run through bash -c
readpe_all() { local f; for f; do readpe -i -e "$f"; done; }
export -f readpe_all

row() { # row INPUT TOOL CMD...
	local input=$1 tool=$2 w c r st
	shift 2
	read -r w c r st <<<"$(measure "$@")"
	[ "$st" = 0 ] || tool="$tool (FAILED: exit $st)"
	printf '| %s | %s | %s s | %s s | %s MiB |\n' "$input" "$tool" "$w" "$c" "$(kib_mib "$r")"
}

bench_input() { # bench_input LABEL FILE...
	local label=$1
	shift
	row "$label" "torch-dll-check pe --json" "$BIN" pe --json "$@"
	row "$label" "llvm-readobj --coff-imports --coff-exports" llvm-readobj --coff-imports --coff-exports "$@"
	row "$label" "x86_64-w64-mingw32-objdump -p" x86_64-w64-mingw32-objdump -p "$@"
	if [ $# -eq 1 ]; then
		row "$label" "readpe -i -e" readpe -i -e "$1"
	else
		row "$label" "readpe -i -e (one process per file)" bash -c 'readpe_all "$@"' bash "$@"
	fi
	row "$label" "python3 pefile (fast_load + 3 dirs)" "$PY" bench/pefile_parse.py "$@"
}

echo "# torch-dll-check bench — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "Machine: $(uname -srm), $(nproc) cores, $(awk '/model name/ { sub(/.*: /, ""); print; exit }' /proc/cpuinfo)."
echo "Best of ${BENCH_RUNS:-5} warm runs (see bench/lib.sh). torch-dll-check $("$BIN" --version | awk '{ print $2 }'),"
echo "$(llvm-readobj --version | awk '/LLVM version/ { print "LLVM " $NF }'), binutils $(x86_64-w64-mingw32-objdump --version | head -1 | awk '{ print $NF }'),"
echo "pev $(readpe -V 2>&1 | grep -o '[0-9][0-9.]*' | head -1), pefile $("$PY" -c 'import pefile; print(pefile.__version__)')."
echo
echo "Measured under $(bench_load)."
echo
echo "| input | tool | wall (best) | CPU | peak RSS |"
echo "|---|---|---|---|---|"
bench_input "huge_1g.dll (1 GiB, sparse overlay)" "$fx/huge_1g.dll"
bench_input "$(basename "$largest") ($(($(stat -c %s "$largest") / 1048576)) MB, largest x64 npm DLL)" "$largest"
bench_input "${#wine[@]} Wine PE builtins together" "${wine[@]}"
[ ${#skipped[@]} -eq 0 ] || echo "
Left out of the Wine row because llvm-readobj 14 cannot read them: ${skipped[*]}."

echo
echo "## Memory: the file costs no memory"
echo
read -r bw bc br _ <<<"$(measure "$BIN" --version)"
read -r sw sc sr _ <<<"$(measure "$BIN" pe --json "$fx/small_10k.dll")"
read -r hw hc hr _ <<<"$(measure "$BIN" pe --json "$fx/huge_1g.dll")"
delta=$((hr - sr))
echo "| run | wall (best) | CPU | peak RSS |"
echo "|---|---|---|---|"
echo "| torch-dll-check --version (baseline) | $bw s | $bc s | $br KiB |"
echo "| pe --json small_10k.dll (10 KiB) | $sw s | $sc s | $sr KiB |"
echo "| pe --json huge_1g.dll (1 GiB) | $hw s | $hc s | $hr KiB |"
echo
status=0
if [ "$delta" -le 1024 ]; then
	echo "PASS: 1 GiB file costs $delta KiB more than a 10 KiB DLL (limit 1024 KiB)."
else
	echo "FAIL: 1 GiB file costs $delta KiB more than a 10 KiB DLL (limit 1024 KiB)."
	status=1
fi

# Issue 3's row: check over a torch-sized tree (BENCH_CHECK=0 leaves it out).
if [ "${BENCH_CHECK:-1}" != 0 ]; then
	echo
	bash bench/check.sh | sed 's/^# /## /' || status=1
fi
# Issue 22's rows: check on a CUDA 12.4 install of NVIDIA's real DLLs (BENCH_CUDA=0
# leaves them out: ~1.6 GB of NVIDIA wheels, fetched once into the cache).
if [ "${BENCH_CUDA:-1}" != 0 ]; then
	echo
	bash bench/cuda.sh | sed 's/^# /## /' || status=1
fi
# Issue 20's rows: check on real torch 2.9.1 beside 300 distributions and 50,000 RECORD rows
# against torch alone, target 1.5x the CPU (BENCH_ENVIRONMENT=0 leaves them out).
if [ "${BENCH_ENVIRONMENT:-1}" != 0 ]; then
	echo
	bash bench/environment.sh | sed 's/^# /## /' || status=1
fi
# Issue 15's rows: reg exports of 50 and 500 MB (BENCH_REGISTRY=0 leaves them out).
if [ "${BENCH_REGISTRY:-1}" != 0 ]; then
	echo
	bash bench/registry.sh | sed 's/^# /## /' || status=1
fi
# Issue 8's rows: peers on real PyPI wheels and check on the largest one in a
# full Wine prefix (BENCH_WHEELS=0 leaves them out: ~700 MB of wheels).
if [ "${BENCH_WHEELS:-1}" != 0 ]; then
	echo
	bash bench/wheels.sh | sed 's/^# /## /; s/^## \(Peers\|check on\)/### \1/' || status=1
fi
# Issue 9's rows: inputs that were quadratic (BENCH_SCALE=0 leaves them out).
if [ "${BENCH_SCALE:-1}" != 0 ]; then
	echo
	bash bench/scale.sh | sed 's/^# /## /' || status=1
fi
# Issue 14's rows: audit history at fleet scale (BENCH_AUDIT=0 leaves them out).
if [ "${BENCH_AUDIT:-1}" != 0 ]; then
	echo
	bash bench/audit.sh || status=1
fi
exit $status
