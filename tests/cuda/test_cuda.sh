#!/usr/bin/env bash
# test_cuda: CUDA builds of torch (docs/cuda.md) on machines built from
# NVIDIA's REAL runtime DLLs (the nvidia-*-cu11/-cu12 win_amd64 wheels from
# PyPI, sha256-checked and cached: tests/lib/wheels.py) with look-alikes of
# torch's own CUDA binaries carrying exactly the imports PyTorch's build gives
# them (tests/cuda/tree.sh): cu118, cu121, cu124 (with the full set of CUDA
# libraries: cuBLAS, cuFFT, cuRAND, cuSPARSE, cuSOLVER, nvJitLink, cuDNN),
# cu126, cu128.
TEST_NAME=cuda
export TEST_NAME
source "$TDC_REPO/tests/lib/tap.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
B=${TDC_ASAN_BIN:-$TDC_BIN}
[ -x "$B" ] || B=$TDC_BIN
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tdc-cuda.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
PY='C:\Python311\python.exe'

# chk TREE [ARGS...]: check --json of a tree (its registry.reg when it has one).
chk() {
	local t=$1
	shift
	local reg=()
	[ -f "$WORK/$t/registry.reg" ] && reg=(--registry "$WORK/$t/registry.reg")
	"$B" check --root "$WORK/$t" --python "$PY" "${reg[@]}" --json "$@" 2>"$WORK/$t.err"
}
# rules TREE: "rule/severity" of every finding, sorted, one line
rules() { chk "$1" | jq -r '[.findings[] | "\(.rule)/\(.severity)"] | sort | join(" ")'; }

declare -A BUILT
# have TREE VARIANT [cuda_tree options]: build a tree, or skip the checks named after it
have() {
	local t=$1 var=$2 rc
	shift 2
	[ -n "${BUILT[$t]:-}" ] && return 0
	cuda_tree "$WORK/$t" "$var" "$@" >/dev/null 2>"$WORK/$t.build.err"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		if [ "$rc" -eq 3 ]; then
			skip "$t" "PyPI/pip did not give an NVIDIA wheel: $(tail -1 "$WORK/$t.build.err")"
		else
			not_ok "$t: the tree could not be built: $(tail -3 "$WORK/$t.build.err" | tr '\n' ' ')"
		fi
		return 1
	fi
	BUILT[$t]=1
}

# ---- no NVIDIA driver: an AMD GPU, or none ----
for var in cu118 cu121 cu124 cu126 cu128; do
	t=nodrv-$var
	opt=()
	[ "$var" = cu124 ] && opt=(--full)
	have "$t" "$var" "${opt[@]}" || continue
	cuda_registry "$WORK/$t" "Advanced Micro Devices, Inc.|AMD Radeon RX 7900 XTX|31.0.24033.1003"
	chk "$t" >"$WORK/$t.json"
	check_eq "$var, no driver: every torch binary loads (nvcuda.dll is delay-loaded)" \
		"0" "$(jq '[.installs[0].binaries[] | select(.outcome != "loads")] | length' "$WORK/$t.json")"
	check_eq "$var, no driver: one cuda-no-driver error, the loader's delay-load warning folded into it" \
		"cuda-no-driver/error" "$(jq -r '[.findings[] | "\(.rule)/\(.severity)"] | sort | join(" ")' "$WORK/$t.json")"
	check_eq "$var, no driver: the fix names the driver and the CPU build of the same torch" "yes" \
		"$(jq -r --arg v "${CUDA_TORCH[$var]}" '.findings[0].fix | (test("NVIDIA display driver") and
			test("pip install torch==" + $v + " --index-url https://download.pytorch.org/whl/cpu")) | if . then "yes" else . end' \
			"$WORK/$t.json")"
	check_eq "$var, no driver: the message names caffe2_nvrtc.dll and the AMD adapter" "yes" \
		"$(jq -r '.findings[0].message | (test("caffe2_nvrtc.dll needs nvcuda.dll") and test("AMD Radeon RX 7900 XTX"))
			| if . then "yes" else . end' "$WORK/$t.json")"
	check_eq "$var, no driver: check fails (exit 1)" 1 "$(chk "$t" >/dev/null; echo $?)"
	check_eq "$var, no driver: the inventory says nvcuda.dll is absent and lists the adapter" \
		'false Advanced Micro Devices, Inc.' \
		"$(jq -r '"\(.inventory.gpu_driver.nvcuda.present) \(.inventory.gpu_driver.adapters[0].provider)"' "$WORK/$t.json")"
done
# ---- the pre-merge gate: a PR pins a CUDA variant for a runner without the driver ----
# gate REQUIREMENTS_TEXT TREE: "rule/severity@file:line" of check --pins' findings
gate() {
	local repo=$WORK/repo-$RANDOM
	git init -q -b main "$repo" && git -C "$repo" config user.email t@example.com && git -C "$repo" config user.name t
	printf '%b' "$1" >"$repo/requirements.txt"
	git -C "$repo" add -A && git -C "$repo" commit -qm pins
	"$B" check --pins --repo "$repo" --root "$WORK/$2" --registry "$WORK/$2/registry.reg" --json 2>>"$WORK/gate.err" |
		jq -r '[.findings[] | select(.rule | startswith("cuda-")) | "\(.rule)/\(.severity)@\(.anchor.file // "-"):\(.anchor.line // "-")"] | join(" ")'
}
if [ -n "${BUILT[nodrv-cu124]:-}" ]; then
	check_eq "gate: torch==2.5.1+cu124 on a runner without the driver is cuda-no-driver on the pin" \
		"cuda-no-driver/error@requirements.txt:1" "$(gate 'torch==2.5.1+cu124\n' nodrv-cu124)"
	check_eq "gate: the cu124 index URL makes torch==2.5.1 a CUDA pin too" \
		"cuda-no-driver/error@requirements.txt:2" "$(gate '--index-url https://download.pytorch.org/whl/cu124\ntorch==2.5.1\n' nodrv-cu124)"
	check_eq "gate: PyPI's torch==2.5.1 (the CPU build on Windows) needs no driver" "" "$(gate 'torch==2.5.1\n' nodrv-cu124)"
fi
if [ -n "${BUILT[nodrv-cu124]:-}" ]; then
	check_eq "cu124 (full): the real cuBLAS/cuDNN/... DLLs and torch_cuda.dll are all checked" 25 \
		"$(jq '.installs[0].binaries | length' "$WORK/nodrv-cu124.json")"
	# no registry at all: the finding still stands, and says the adapters are unknown
	rm -f "$WORK/nodrv-cu124/registry.reg"
	check_eq "cu124, no driver, no registry: cuda-no-driver, adapters unknown" "cuda-no-driver yes" \
		"$(chk nodrv-cu124 | jq -r '.findings[] | select(.rule == "cuda-no-driver") |
			"\(.rule) \(.message | test("no registry was given"))" | sub("true"; "yes")')"
fi

# ---- torch 1.5: caffe2_nvrtc.dll imports nvcuda.dll statically (before pytorch#37811) ----
if have static-cu101 cu118 --static-nvcuda --torch 1.5.0; then
	chk static-cu101 >"$WORK/static.json"
	check_eq "static nvcuda import, no driver: caffe2_nvrtc.dll fails with 126" "missing-dll 126" \
		"$(jq -r '.installs[0].binaries[] | select(.path | endswith("caffe2_nvrtc.dll")) | "\(.outcome) \(.winerror)"' "$WORK/static.json")"
	check_eq "static nvcuda import: the missing-dll finding's fix is the driver, not 'put nvcuda.dll on the path'" "yes" \
		"$(jq -r '[.findings[] | select(.rule == "missing-dll" and .leaf == "nvcuda.dll") | .fix | test("install the NVIDIA display driver")] == [true] | if . then "yes" else "no" end' "$WORK/static.json")"
	check_eq "static nvcuda import: cuda-no-driver says import torch fails with WinError 126" "yes" \
		"$(jq -r '[.findings[] | select(.rule == "cuda-no-driver") | .message | test("fails with \\[WinError 126\\]")] == [true] | if . then "yes" else "no" end' "$WORK/static.json")"
fi

tap_done
