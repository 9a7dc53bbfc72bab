#!/usr/bin/env bash
# bench/cuda.sh: `torch-dll-check check` on a CUDA-sized install made of
# NVIDIA's REAL DLLs — CUDA 12.4's cudart, NVRTC, cuBLAS(Lt), cuFFT, cuRAND,
# cuSPARSE, cuSOLVER, nvJitLink and cuDNN 9.1 from PyPI's nvidia-*-cu12
# win_amd64 wheels (fetched and sha256-checked by tests/lib/wheels.py, about
# 1.6 GB of wheels, 2.4 GB unpacked) — with tests/cuda/tree.sh's look-alikes
# of c10_cuda, caffe2_nvrtc and torch_cuda, torch_cuda.dll grown to 1 GiB
# (a sparse overlay, as big as a real one), compared in the same run with
# `llvm-readobj --coff-imports --coff-exports` over the same files. Two
# machines: without the NVIDIA driver (cuda-no-driver) and with driver 572.16.
# Targets, against llvm-readobj in the same run (CPU time, since wall time on a
# shared machine includes waiting for a core): check, which resolves every
# import of every binary through the search order, costs at most 1.5x the CPU
# of llvm-readobj merely listing the same files, and at most a quarter of its
# peak RSS.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
BIN=${TDC_BIN:-$REPO/torch-dll-check}
export TDC_REPO=$REPO
source tests/lib/tap.sh
source tests/lib/fixtures.sh
source tests/lib/wheels.sh
source tests/cuda/tree.sh
source bench/lib.sh

[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/tdc-bench-cuda.XXXXXX")
trap 'rm -rf "$W" "$BENCH_T" "$BENCH_T.perf"' EXIT

if ! cuda_tree "$W/nodrv" cu124 --full >/dev/null 2>"$W/build.err"; then
	echo "SKIP: the CUDA 12.4 tree could not be built: $(tail -1 "$W/build.err")"
	exit 0
fi
lib=$W/nodrv/Python311/Lib/site-packages/torch/lib
# torch_cuda.dll as big as a real cu124 build's (~1 GiB): a private copy, grown sparse
cp "$lib/torch_cuda.dll" "$lib/torch_cuda.dll.new" && rm "$lib/torch_cuda.dll" && mv "$lib/torch_cuda.dll.new" "$lib/torch_cuda.dll"
truncate -s 1G "$lib/torch_cuda.dll"
cuda_registry "$W/nodrv" "Advanced Micro Devices, Inc.|AMD Radeon RX 7900 XTX|31.0.24033.1003"
cp -al "$W/nodrv" "$W/drv" && rm -f "$W/drv/Windows/System32/nvcuda.dll" "$W/drv/registry.reg"
cuda_driver "$W/drv" 572.16 >/dev/null && cuda_registry "$W/drv" "NVIDIA|NVIDIA GeForce RTX 4090|31.0.15.7216"
mapfile -t files < <(find "$lib" -name '*.dll' | LC_ALL=C sort)

echo "# check on a CUDA 12.4 install of NVIDIA's real DLLs — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
read -r big_size big <<<"$(find "$lib" -name '*.dll' ! -name torch_cuda.dll -printf '%s %f\n' | sort -n | tail -1)"
echo "${#files[@]} DLLs in torch\\lib, $(du -c --apparent-size -m "${files[@]}" | tail -1 | cut -f1) MB apparent" \
	"($(du -c -m "${files[@]}" | tail -1 | cut -f1) MB on disk; torch_cuda.dll 1 GiB sparse)," \
	"largest real one: $big ($((big_size / 1048576)) MiB)."
echo

args() { echo "--root $W/$1 --python C:\\Python311\\python.exe --registry $W/$1/registry.reg --json"; }
read -ra a1 <<<"$(args nodrv)"
read -ra a2 <<<"$(args drv)"
r1=$("$BIN" check "${a1[@]}" | jq -r '[.findings[].rule] | join(",")')
r2=$("$BIN" check "${a2[@]}" | jq -r '[.findings[].rule] | join(",")')
read -r bw bc br _ <<<"$(measure "$BIN" --version)"
read -r cw cc cr _ <<<"$(measure "$BIN" check "${a1[@]}")"
read -r dw dc dr _ <<<"$(measure "$BIN" check "${a2[@]}")"
read -r lw lc lr lst <<<"$(measure llvm-readobj --coff-imports --coff-exports "${files[@]}")"
echo "Best of ${BENCH_RUNS:-5} warm runs (bench/lib.sh), $(bench_load)."
echo
echo "| run | findings | wall (best) | CPU | peak RSS |"
echo "|---|---|---|---|---|"
echo "| torch-dll-check --version (baseline) | | $bw s | $bc s | $br KiB |"
echo "| check, no NVIDIA driver | ${r1:-none} | $cw s | $cc s | $cr KiB |"
echo "| check, driver 572.16 | ${r2:-none} | $dw s | $dc s | $dr KiB |"
echo "| llvm-readobj --coff-imports --coff-exports (${#files[@]} files)$([ "$lst" = 0 ] || echo " (FAILED: exit $lst)") | | $lw s | $lc s | $lr KiB |"
echo
fail=0
for c in "$cc" "$dc"; do
	if awk -v c="$c" -v l="$lc" 'BEGIN { exit !(c > 1.5 * l) }'; then
		echo "FAIL: check's CPU time ($c s) is above 1.5x llvm-readobj's on the same files ($lc s)."
		fail=1
	fi
done
for rss in "$cr" "$dr"; do
	if [ $((rss * 4)) -gt "$lr" ]; then
		echo "FAIL: check's peak RSS ($rss KiB) is above a quarter of llvm-readobj's ($lr KiB)."
		fail=1
	fi
done
[ "$fail" = 0 ] && echo "OK: check's CPU time is $(awk -v c="$cc" -v l="$lc" 'BEGIN { printf "%.2f", c / l }')x llvm-readobj's," \
	"its peak RSS $(awk -v c="$cr" -v l="$lr" 'BEGIN { printf "%.2f", c / l }')x ($((cr - br)) KiB above its own baseline)."
exit "$fail"
