#!/usr/bin/env bash
# test_commit: the commit charge of torch's DLLs and the paging file
# (docs/commit.md), on NVIDIA's REAL DLLs (the nvidia-*-cu11/-cu12 win_amd64
# wheels tests/cuda fetches, cached by tests/cuda/tree.sh).
#
# 1. Each DLL's charge as `pe --json` reads it (commit.bytes) against an
#    independent reading of the same section tables with pefile.
TEST_NAME=commit
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
WORK=$tmp

# ---- 1. per DLL: the checker against pefile ----
# the wheels of cu118 and cu124 (their own and the shared cu12 set, cuDNN 9)
wheels=("${CUDA_RT[cu118]}" "${CUDA_NVRTC[cu118]}" "${CUDA_RT[cu124]}" "${CUDA_NVRTC[cu124]}")
for spec in ${CUDA_OWN[cu118]} ${CUDA_OWN[cu124]} ${CUDA_SHARED[12]} $CUDA_CUDNN; do
	wheels+=("${spec%%:*} ${spec#*:}")
done
dirs=()
for w in "${wheels[@]}"; do
	# shellcheck disable=SC2086 # "project version"
	if d=$(_nv_unpack $w 2>"$WORK/unpack.err"); then
		dirs+=("$d")
	else
		skip "per-DLL charge: $w" "PyPI/pip did not give the wheel: $(tail -1 "$WORK/unpack.err")"
	fi
done
if [ ${#dirs[@]} -gt 0 ]; then
	dlls=()
	for d in "${dirs[@]}"; do dlls+=("$d"/*.dll); done
	"$B" pe --json --no-exports "${dlls[@]}" | jq -r '.files[] | "\(.commit.bytes) \(.path)"' | sort -k2 >"$WORK/ours.txt"
	python3 tests/commit/pefile_commit.py "${dlls[@]}" | sort -k2 >"$WORK/pefile.txt"
	check_eq "per-DLL charge of ${#dlls[@]} real NVIDIA DLLs: the checker's reading is pefile's" \
		"" "$(diff "$WORK/ours.txt" "$WORK/pefile.txt")"
	check_eq "some of them charge (cuFFT's .data: over 100 MiB)" "yes" \
		"$(awk '$1 > 100 * 1048576 { y = "yes" } END { print y ? y : "no" }' "$WORK/ours.txt")"
	check_eq "every .nv_fatb of these releases is read-only: none charges" "" \
		"$("$B" pe --json --no-exports "${dlls[@]}" |
			jq -r '.files[] | .path as $p | .sections[] | select(.name == ".nv_fatb" and .characteristics >= 2147483648) | $p')"
fi

tap_done
