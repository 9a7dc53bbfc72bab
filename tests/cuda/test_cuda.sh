#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs and a script for bash -c, single-quoted
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
		tee "$WORK/gate.json" | jq -r '[.findings[] | select(.rule | startswith("cuda-")) | "\(.rule)/\(.severity)@\(.anchor.file // "-"):\(.anchor.line // "-")"] | join(" ")'
}
if [ -n "${BUILT[nodrv-cu124]:-}" ]; then
	check_eq "gate: torch==2.5.1+cu124 on a runner without the driver is cuda-no-driver on the pin" \
		"cuda-no-driver/error@requirements.txt:1" "$(gate 'torch==2.5.1+cu124\n' nodrv-cu124)"
	check_eq "gate: the cu124 index URL makes torch==2.5.1 a CUDA pin too" \
		"cuda-no-driver/error@requirements.txt:2" "$(gate '--index-url https://download.pytorch.org/whl/cu124\ntorch==2.5.1\n' nodrv-cu124)"
	check_eq "gate: PyPI's torch==2.5.1 (the CPU build on Windows) needs no driver" "" "$(gate 'torch==2.5.1\n' nodrv-cu124)"
	check_eq "gate: torch==1.5.1+cu101 (static nvcuda import) says import torch fails with 126" "yes" \
		"$(gate 'torch==1.5.1+cu101\n' nodrv-cu124 >/dev/null; jq -r '[.findings[] | select(.rule == "cuda-no-driver") | .message | test("fails with \\[WinError 126\\]")] == [true] | if . then "yes" else "no" end' "$WORK/gate.json")"
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

# ---- with a driver: new, old, in the minor-version-compatibility range ----
# variant_of SRC DST: a copy of tree SRC sharing its files (hard links)
variant_of() { rm -rf "${WORK:?}/$2" && cp -al "$WORK/$1" "$WORK/$2" && rm -f "$WORK/$2/Windows/System32/nvcuda.dll"; }
# cuda_rules TREE: the cuda-* findings, "rule/severity", sorted
cuda_rules() { chk "$1" | jq -r '[.findings[] | select(.rule | startswith("cuda-")) | "\(.rule)/\(.severity)"] | sort | join(" ")'; }
nv_adapter() { echo "NVIDIA|NVIDIA GeForce RTX 4090|$(nv_file_version "$1")"; }
if [ -n "${BUILT[nodrv-cu124]:-}" ]; then
	variant_of nodrv-cu124 drv-new && cuda_driver "$WORK/drv-new" 572.16 && cuda_registry "$WORK/drv-new" "$(nv_adapter 572.16)"
	chk drv-new >"$WORK/drv-new.json"
	check_eq "cu124 + driver 572.16: no CUDA finding" "" \
		"$(jq -r '[.findings[] | select(.rule | startswith("cuda-") or . == "delay-load-missing") | .rule] | join(" ")' "$WORK/drv-new.json")"
	check_eq "cu124 + driver 572.16: the inventory reads 31.0.15.7216 as driver 572.16, and the adapter's key" \
		"31.0.15.7216 572.16 572.16" \
		"$(jq -r '.inventory.gpu_driver | "\(.nvcuda.file_version) \(.nvcuda.driver_version) \(.adapters[0].nvidia_driver)"' "$WORK/drv-new.json")"
	variant_of nodrv-cu124 drv-old && cuda_driver "$WORK/drv-old" 516.94 && cuda_registry "$WORK/drv-old" "$(nv_adapter 516.94)"
	check_eq "cu124 + driver 516.94 (below 12.x's floor 525): a warning, CUDA unavailable" "cuda-driver-too-old/warning" \
		"$(cuda_rules drv-old)"
	check_eq "cu124 + driver 516.94: the message gives NVIDIA's minimum 551.61 and says import torch loads" "yes" \
		"$(chk drv-old | jq -r '[.findings[] | select(.rule == "cuda-driver-too-old") | (.message | test("needs >= 551.61") and test("`import torch` loads"))
			and (.fix | test(">= 551.61"))] == [true] | if . then "yes" else "no" end')"
	variant_of nodrv-cu124 drv-compat && cuda_driver "$WORK/drv-compat" 528.33 && cuda_registry "$WORK/drv-compat" "$(nv_adapter 528.33)"
	check_eq "cu124 + driver 528.33 (minor version compatibility): a note" "cuda-driver-too-old/note" "$(cuda_rules drv-compat)"
	# lying and foreign version resources: said, never a pass
	variant_of nodrv-cu124 drv-lying && cuda_driver "$WORK/drv-lying" 551.61 --string-version 31.0.15.9999 &&
		cuda_registry "$WORK/drv-lying" "$(nv_adapter 551.61)"
	check_eq "nvcuda.dll whose fixed version and FileVersion string disagree: cuda-driver-unverified" \
		"cuda-driver-unverified/warning" "$(cuda_rules drv-lying)"
	check_eq "... and the finding says which two versions disagree" "yes" \
		"$(chk drv-lying | jq -r '[.findings[] | select(.rule == "cuda-driver-unverified") | .title | test("31.0.15.5161.*31.0.15.9999")] == [true] | if . then "yes" else "no" end')"
	variant_of nodrv-cu124 drv-foreign && cuda_driver "$WORK/drv-foreign" 551.61 --file-version 1.0.0.0 --string-version 1.0.0.0
	check_eq "nvcuda.dll with version 1.0.0.0 (not a display driver's): cuda-driver-unverified" \
		"cuda-driver-unverified/warning" "$(cuda_rules drv-foreign)"
	variant_of nodrv-cu124 drv-notpe && printf 'not a PE file\n' >"$WORK/drv-notpe/Windows/System32/nvcuda.dll"
	check_eq "System32\\nvcuda.dll that is not a PE file: cuda-no-driver, naming it" "cuda-no-driver/error yes" \
		"$(cuda_rules drv-notpe) $(chk drv-notpe | jq -r '[.findings[] | select(.rule == "cuda-no-driver") | .title | test("is not a usable NVIDIA driver file")] == [true] | if . then "yes" else "no" end')"
	# +cu999: a CUDA release the matrix does not know
	variant_of drv-new cu999 && cuda_driver "$WORK/cu999" 572.16 && 		sed -i 's/+cu124/+cu999/; s/12\.4/99.9/' "$WORK/cu999/Python311/Lib/site-packages/torch/version.py"
	check_eq "torch 2.5.1+cu999: the unknown CUDA release is a warning, not a pass" "cuda-driver-unverified/warning" \
		"$(cuda_rules cu999)"
	check_eq "gate: torch==2.5.1+cu999 is cuda-driver-unverified on the pin" \
		"cuda-driver-unverified/warning@requirements.txt:1" "$(gate 'torch==2.5.1+cu999\n' cu999)"
	check_eq "gate: torch==2.5.1+cu124 on a runner with driver 572.16 passes" "" "$(gate 'torch==2.5.1+cu124\n' drv-new)"
	check_eq "gate: torch==2.5.1+cu124 on a runner with driver 516.94 warns" \
		"cuda-driver-too-old/warning@requirements.txt:1" "$(gate 'torch==2.5.1+cu124\n' drv-old)"
fi
if [ -n "${BUILT[nodrv-cu118]:-}" ]; then
	variant_of nodrv-cu118 cu118-528 && cuda_driver "$WORK/cu118-528" 528.33 && cuda_registry "$WORK/cu118-528" "$(nv_adapter 528.33)"
	check_eq "cu118 + driver 528.33 (>= 11.8's 520.06): no CUDA finding" "" "$(cuda_rules cu118-528)"
fi

# ---- the adapter's key from a SYSTEM hive (a Windows disk, no reg export) ----
if [ -n "${BUILT[nodrv-cu124]:-}" ] && command -v hivexregedit >/dev/null; then
	variant_of drv-new hive && cuda_driver "$WORK/hive" 572.16 && rm -f "$WORK/hive/registry.reg"
	mkdir -p "$WORK/hive/Windows/System32/config"
	# every parent key first, as hivexregedit --merge needs (tests/inventory/test_hives.sh); not
	# named system.reg: beside a root, that name is read as a Wine prefix's registry
	/usr/bin/python3 - "$WORK/hive-system.in" <<'PY'
import sys
cls = r"HKEY_LOCAL_MACHINE\SYSTEM\ControlSet001\Control\Class\{4d36e968-e325-11ce-bfc1-08002be10318}"
keys = [r"HKEY_LOCAL_MACHINE\SYSTEM\Select"]
parts = (cls + r"\0000").split("\\")
keys += ["\\".join(parts[:i]) for i in range(3, len(parts) + 1)]
vals = {keys[0]: ['"Current"=dword:00000001'],
        cls + r"\0000": ['"ProviderName"="NVIDIA"', '"DriverDesc"="NVIDIA GeForce RTX 4090"',
                         '"DriverVersion"="31.0.15.7216"']}
out = ["Windows Registry Editor Version 5.00", ""]
for k in keys:
    out += ["[%s]" % k] + vals.get(k, []) + [""]
open(sys.argv[1], "w", encoding="utf-8").write("\r\n".join(out))
PY
	hv=$WORK/hive/Windows/System32/config/SYSTEM
	if /usr/bin/python3 "$TDC_REPO/tests/inventory/empty_hive.py" "$hv" SYSTEM &&
		PERL_UNICODE=SDA hivexregedit --merge --prefix 'HKEY_LOCAL_MACHINE\SYSTEM' "$hv" "$WORK/hive-system.in" >"$WORK/hive.log" 2>&1; then
		check_eq "a SYSTEM hive's ControlSet001 (Select\\Current = 1) gives the NVIDIA adapter's driver 572.16" \
			"true NVIDIA 572.16 572.16" \
			"$("$B" check --root "$WORK/hive" --python "$PY" --json 2>/dev/null | jq -r '.inventory.gpu_driver |
				"\(.registry_read) \(.adapters[0].provider) \(.adapters[0].nvidia_driver) \(.nvcuda.driver_version)"')"
	else
		not_ok "a SYSTEM hive with the display adapter's key could not be built: $(tail -2 "$WORK/hive.log" | tr '\n' ' ')"
	fi
elif [ -n "${BUILT[nodrv-cu124]:-}" ]; then
	skip "the adapter's key from a SYSTEM hive" "hivexregedit is not installed (apt-get install libwin-hivex-perl)"
fi

# ---- a CUDA toolkit's copies ----
TK='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA'
if [ -n "${BUILT[nodrv-cu124]:-}" ] && [ -n "${BUILT[nodrv-cu121]:-}" ]; then
	# a complete torch\lib with the 12.1 toolkit first on PATH: torch\lib's copies win (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)
	variant_of drv-new tk-path && cuda_driver "$WORK/tk-path" 572.16 &&
		cuda_toolkit "$WORK/tk-path" 12.1 cu121
	check_eq "CUDA 12.1 toolkit first on PATH, torch\\lib complete: nothing from the toolkit is loaded" "" \
		"$(cuda_rules tk-path --env "PATH=$TK\\v12.1\\bin;C:\\Windows\\System32")"
	# cudart64_12.dll gone from torch\lib (quarantined): torch adds %CUDA_PATH_V12_4%\bin, whose copy then serves
	variant_of drv-new tk-cudart && cuda_driver "$WORK/tk-cudart" 572.16 &&
		cuda_toolkit "$WORK/tk-cudart" 12.4 cu124 && rm "$WORK/tk-cudart/Python311/Lib/site-packages/torch/lib/cudart64_12.dll"
	chk tk-cudart --env "CUDA_PATH_V12_4=$TK\\v12.4" >"$WORK/tk-cudart.json"
	check_eq "cudart64_12.dll missing from torch\\lib, the 12.4 toolkit's copy serves: named" "cuda-dll-outside-torch/warning" \
		"$(jq -r '[.findings[] | select(.rule | startswith("cuda-")) | "\(.rule)/\(.severity)"] | unique | join(" ")' "$WORK/tk-cudart.json")"
	check_eq "... with the copy that would be loaded, and that torch\\lib has none" "yes" \
		"$(jq -r '[.findings[] | select(.rule == "cuda-dll-outside-torch") | (.message | test("CUDA\\\\v12.4\\\\bin\\\\cudart64_12.dll"; "i") and test("torch\\\\lib has no copy"))] | all and length > 0 | if . then "yes" else "no" end' "$WORK/tk-cudart.json")"
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

# ---- Wine's loader on the same trees (tests/oracle): torch's procedure for
# real, on NVIDIA's real DLLs (their DllMain runs), every binary's outcome
# against the checker's. Wine has no nvcuda.dll (W9-nvcuda-builtin in
# tests/scenarios/compare.py): these are the trees without the driver.
source "$TDC_REPO/tests/oracle/wine.sh"
z() { local p=$1; echo "Z:${p//\//\\}"; }
oracle_case() {
	local label=$1 t=$2 py=$WORK/$2/Python311 out rc d
	shift 2
	cp "$ORACLE" "$py/oracle.exe"
	printf '%s\n' torch --out "$(z "$WORK/$t.jsonl")" --torch-dir "$(z "$py/Lib/site-packages/torch")" \
		--dll-path "$(z "$py/Lib/site-packages/torch/lib")" >"$WORK/$t.args"
	for d in "$@"; do printf '%s\n' --dll-path "$(z "$WORK/$t/$d")" >>"$WORK/$t.args"; done
	WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES" timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ \
		"$TDC_REPO/tests/oracle/wine.sh" "$PFX" "$WORK/$t.out" "$WORK/$t.werr" "$py/oracle.exe" "@$(z "$WORK/$t.args")"
	rc=$?
	if [ "$rc" -eq 124 ] || [ ! -s "$WORK/$t.jsonl" ]; then
		not_ok "$label: the oracle hung or died under Wine (status $rc)"
		tail -3 "$WORK/$t.werr" | sed 's/^/#   /'
		return
	fi
	out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_compare.py" "$WORK/$t.oracle-check.json" "$WORK/$t.jsonl" \
		"$WORK/$t.werr" 2>&1)
	check_eq "$label: Wine's loader agrees with the checker on every torch\\lib DLL ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree' <<<"$out")"
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle on the CUDA trees" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	for var in cu118 cu121 cu124 cu126 cu128; do
		[ -n "${BUILT[nodrv-$var]:-}" ] || continue
		chk "nodrv-$var" >"$WORK/nodrv-$var.oracle-check.json"
		oracle_case "Wine, $var without the driver" "nodrv-$var"
	done
	if [ -n "${BUILT[static-cu101]:-}" ]; then
		chk static-cu101 >"$WORK/static-cu101.oracle-check.json"
		oracle_case "Wine, torch 1.5-style static nvcuda.dll import without the driver (126)" static-cu101
	fi
	if [ -d "$WORK/tk-cudart" ]; then
		chk tk-cudart --env "CUDA_PATH_V12_4=$TK\\v12.4" >"$WORK/tk-cudart.oracle-check.json"
		oracle_case "Wine, cudart64_12.dll only in the CUDA 12.4 toolkit that torch adds" tk-cudart \
			"Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin"
	fi
	wine_stop "$PFX"
fi

tap_done
