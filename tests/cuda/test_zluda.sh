#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_zluda: torch's cu118 build on an AMD GPU through ZLUDA, laid out as
# ZLUDA users lay it out (patientx/ComfyUI-Zluda#9, #63): ZLUDA's nvcuda.dll
# in C:\ZLUDA (on PATH), AMD's HIP runtime amdhip64_6.dll in System32 (the
# Adrenalin driver's), HIP's runtime compiler hiprtc0601.dll in
# %HIP_PATH%bin (the HIP SDK 6.1's), and ZLUDA's NVRTC copied over torch's
# nvrtc64_112_0.dll. The torch tree is tests/cuda/tree.sh's cu118 (real
# NVIDIA runtime DLLs from PyPI, look-alikes of torch's CUDA binaries).
#
# No ZLUDA or HIP SDK binary is reachable here: the ZLUDA files are mingw
# stand-ins with the imports ZLUDA's build gives them — nvcuda.dll (the
# `zluda` crate's cdylib) links amdhip64 (vosen/ZLUDA
# ext/hip_runtime-sys/build.rs: rustc-link-lib=dylib=amdhip64; the HIP SDK
# 6.x import library names amdhip64_6.dll) and exports the driver API
# caffe2_nvrtc.dll imports; ZLUDA's nvrtc links hiprtc (lshqqytiger/ZLUDA
# hiprtc-sys/build.rs, %HIP_PATH%\lib) and exports what caffe2_nvrtc.dll
# imports from NVRTC. amdhip64_6.dll and hiprtc0601.dll are stand-ins too.
#
#   working (both folders on PATH, the driver's amdhip64_6.dll): every torch
#     binary loads; one cuda-translated note saying the nvcuda.dll is not
#     NVIDIA's; no cuda-no-driver, nothing says "install the NVIDIA driver";
#   no AMD driver: a cuda-translated error on amdhip64_6.dll, fixed by
#     installing the AMD Adrenalin driver (the matrix's vendor_dlls entry);
#   %HIP_PATH%bin not on PATH: ZLUDA's nvrtc64_112_0.dll fails with 126 on
#     hiprtc0601.dll, fixed by adding %HIP_PATH%bin to PATH;
#   and, for contrast, the same tree without C:\ZLUDA on PATH is the plain
#     "no NVIDIA driver" case (nothing tells it from a machine without one);
#   a torch binary linked against AMD's HIP runtime (a c10_hip.dll stand-in
#     importing amdhip64_6.dll, listed in torch's RECORD): loads with the
#     driver's DLL, and without it the missing-dll's fix is the Adrenalin
#     driver (vendor_dlls), not the generic one;
#   the GPU driver inventory: AMD's and Intel's adapters and System32
#     runtimes, hostile keys bounded;
#   Wine's loader (tests/oracle) doing torch's procedure with the same PATH
#     (WINEPATH), agreeing on every torch\lib DLL: ZLUDA's nvrtc loads
#     through torch's PATH fallback with %HIP_PATH%bin on PATH, fails with
#     126 without it (nvcuda.dll is delay-loaded: not loaded at import).
TEST_NAME=cuda/zluda
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
WORK=$tmp
PY='C:\Python311\python.exe'
HIP='C:\Program Files\AMD\ROCm\6.1'
PATHS="C:\\ZLUDA;$HIP\\bin;C:\\Windows\\System32"

C() { "$B" check --root "$WORK/$1" --python "$PY" --env "HIP_PATH=$HIP\\" --json "${@:2}" 2>"$WORK/$1.err"; }
J() { C "$1" "${@:3}" | jq -c "$2" 2>&1; }
R() { C "$1" "${@:3}" | jq -r "$2" 2>&1; }

cuda_tree "$WORK/z" cu118 >/dev/null 2>"$WORK/build.err"
rc=$?
if [ "$rc" -eq 3 ]; then
	skip "ZLUDA trees" "PyPI/pip did not give an NVIDIA wheel: $(tail -1 "$WORK/build.err")"
	tap_done
elif [ "$rc" -ne 0 ]; then
	not_ok "the cu118 tree: $(tail -3 "$WORK/build.err" | tr '\n' ' ')"
	tap_done
fi
lib=$WORK/z/Python311/Lib/site-packages/torch/lib
nvrtc_api=$("$B" pe --json --no-exports "$lib/caffe2_nvrtc.dll" |
	jq -r '[.files[0].imports[] | select(.dll | test("^nvrtc64"; "i")) | .functions[].name] | join(",")')
mkdir -p "$WORK/z/ZLUDA" "$WORK/z/Program Files/AMD/ROCm/6.1/bin"
exports=()
for f in ${CUDA_DRIVER_API//,/ }; do exports+=(--export "$f"); done
make_dll "$WORK/z/ZLUDA/nvcuda.dll" --msvc "${exports[@]}" --import amdhip64_6.dll:hipInit ||
	not_ok "ZLUDA's nvcuda.dll stand-in"
rm -f "$lib"/nvrtc64_112_0.dll
# ZLUDA's NVRTC over torch's (ComfyUI-Zluda's installer copies it as nvrtc64_112_0.dll)
exports=()
for f in ${nvrtc_api//,/ }; do exports+=(--export "$f"); done
make_dll "$lib/nvrtc64_112_0.dll" --msvc "${exports[@]}" \
	--import hiprtc0601.dll:hiprtcCreateProgram || not_ok "ZLUDA's nvrtc stand-in"
make_dll "$WORK/z/Windows/System32/amdhip64_6.dll" --msvc --export hipInit --version 31.0.24033.1003 \
	--version-string "CompanyName=Advanced Micro Devices, Inc." || not_ok "amdhip64_6.dll stand-in"
make_dll "$WORK/z/Windows/System32/ze_loader.dll" --msvc --export zeInit --version 1.17.44.0 \
	--version-string "CompanyName=Intel Corporation" || not_ok "ze_loader.dll stand-in"
make_dll "$WORK/z/Program Files/AMD/ROCm/6.1/bin/hiprtc0601.dll" --msvc --export hiprtcCreateProgram ||
	not_ok "hiprtc0601.dll stand-in"
tree_variant() { rm -rf "$2" && cp -al "$1" "$2"; }
tree_variant "$WORK/z" "$WORK/nodrv"
rm "$WORK/nodrv/Windows/System32/amdhip64_6.dll"

# the cuda judge's rules (ZLUDA's nvrtc over torch's is also changed-after-install, and loads through PATH)
rules='[.findings[] | select(.rule | startswith("cuda-")) | "\(.rule)/\(.severity)"] | sort | unique | join(" ")'
nvidia='[.findings[] | select((.fix // "") | test("NVIDIA"))] | length'
check_eq "working ZLUDA (C:\\ZLUDA and %HIP_PATH%bin on PATH): every torch binary loads" \
	'0' "$(J z '[.installs[0].binaries[] | select(.winerror != 0)] | length' --env "PATH=$PATHS")"
check_eq "working ZLUDA: one cuda-translated note, no cuda-no-driver, no fix naming NVIDIA" \
	'cuda-translated/note|0' "$(R z "$rules" --env "PATH=$PATHS")|$(J z "$nvidia" --env "PATH=$PATHS")"
check_eq "working ZLUDA: said as a translation layer importing amdhip64_6.dll, not NVIDIA's nvcuda.dll" \
	'a CUDA 11.8 build of torch runs on a translation layer: C:\ZLUDA\nvcuda.dll is not NVIDIA'"'"'s nvcuda.dll (it imports amdhip64_6.dll)' \
	"$(R z '.findings[] | select(.rule == "cuda-translated") | .title' --env "PATH=$PATHS")"
check_eq "working ZLUDA: exit 0" '0' \
	"$("$B" check --root "$WORK/z" --python "$PY" --env "PATH=$PATHS" >/dev/null 2>&1; echo $?)"

check_eq "ZLUDA without the AMD driver: a cuda-translated error on amdhip64_6.dll, fixed by the Adrenalin driver, nothing naming NVIDIA" \
	'["amdhip64_6.dll",126,true]|0' \
	"$(J nodrv '.findings[] | select(.rule == "cuda-translated") | [.leaf, .winerror, (.fix | test("Adrenalin"))]' --env "PATH=$PATHS")|$(J nodrv "$nvidia" --env "PATH=$PATHS")"

nohip="C:\\ZLUDA;C:\\Windows\\System32"
check_eq "%HIP_PATH%bin not on PATH: ZLUDA's nvrtc64_112_0.dll fails with 126 on hiprtc0601.dll" \
	'[["nvrtc64_112_0.dll",126,"hiprtc0601.dll"]]' \
	"$(J z '[.installs[0].binaries[] | select(.winerror != 0) | [(.path | split("\\") | last), .winerror, .leaf]] | map(select(.[0] | startswith("nvrtc")))' --env "PATH=$nohip")"
check_eq "%HIP_PATH%bin not on PATH: the fix is the HIP SDK's folder on PATH" \
	'["install the AMD HIP SDK and add %HIP_PATH%bin to PATH (the HIP SDK sets HIP_PATH, not PATH)"]' \
	"$(J z '[.findings[] | select(.rule == "missing-dll" and .leaf == "hiprtc0601.dll") | .fix] | unique' --env "PATH=$nohip")"

# ---- a torch binary linked against AMD's HIP runtime (c10_hip.dll links amdhip64, as ROCm builds do;
# a stand-in importing amdhip64_6.dll, the HIP SDK 6.x name): without the AMD driver the missing-dll's fix
# is the Adrenalin driver (the matrix's vendor_dlls), with it the binary loads
tree_variant "$WORK/z" "$WORK/hip"
make_dll "$WORK/hip/Python311/Lib/site-packages/torch/lib/c10_hip.dll" --msvc --export c10_hip_stand_in \
	--import amdhip64_6.dll:hipInit || not_ok "the c10_hip.dll stand-in"
# as torch's own file: a RECORD row (a new RECORD file: the tree's files are hard links of z's)
python3 - "$WORK/hip/Python311/Lib/site-packages" <<'PYEOF'
import base64, glob, hashlib, os, sys
sp = sys.argv[1]
rec = glob.glob(os.path.join(sp, "torch-*.dist-info", "RECORD"))[0]
data = open(os.path.join(sp, "torch", "lib", "c10_hip.dll"), "rb").read()
h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
text = open(rec, encoding="utf-8").read() + "torch/lib/c10_hip.dll,sha256=%s,%d\n" % (h, len(data))
os.unlink(rec)
open(rec, "w", encoding="utf-8", newline="").write(text)
PYEOF
tree_variant "$WORK/hip" "$WORK/hip-nodrv"
rm "$WORK/hip-nodrv/Windows/System32/amdhip64_6.dll"
hipbin='.installs[0].binaries[] | select(.path | endswith("\\c10_hip.dll")) | [.outcome, .leaf]'
check_eq "c10_hip.dll with the AMD driver's amdhip64_6.dll in System32: loads" '["loads",null]' \
	"$(J hip "$hipbin" --env "PATH=$PATHS")"
check_eq "c10_hip.dll without the AMD driver: 126 on amdhip64_6.dll, fixed by the Adrenalin driver (not a generic fix)" \
	'["missing-dll","amdhip64_6.dll"]|true' \
	"$(J hip-nodrv "$hipbin" --env "PATH=$PATHS")|$(J hip-nodrv '[.findings[] | select(.rule == "missing-dll" and .leaf == "amdhip64_6.dll") | .fix | test("Adrenalin")] | all' --env "PATH=$PATHS")"

# ---- the GPU driver inventory: AMD's and Intel's adapters and runtime files, as NVIDIA's are read
cuda_registry "$WORK/z" "Advanced Micro Devices, Inc.|AMD Radeon RX 7900 XTX|31.0.24033.1003" \
	"Intel Corporation|Intel(R) Arc(TM) A770 Graphics|32.0.101.6129"
gpu='.inventory.gpu_driver | [([.adapters[] | [.vendor, .driver_version_raw]]), ([.runtimes[] | [(.path | split("\\") | last), .vendor, .file_version, .company]])]'
check_eq "inventory: the AMD and Intel adapters by vendor with their DriverVersion, System32's amdhip64_6.dll and ze_loader.dll with their versions" \
	'[[["amd","31.0.24033.1003"],["intel","32.0.101.6129"]],[["amdhip64_6.dll","amd","31.0.24033.1003","Advanced Micro Devices, Inc."],["ze_loader.dll","intel","1.17.44.0","Intel Corporation"]]]' \
	"$(J z "$gpu" --registry "$WORK/z/registry.reg" --env "PATH=$PATHS")"
# hostile: 3,000 adapter keys, an absurd DriverVersion, 40 amdhip64 look-alikes
tree_variant "$WORK/z" "$WORK/hostile"
for i in $(seq 1 40); do cp "$WORK/z/Windows/System32/amdhip64_6.dll" "$WORK/hostile/Windows/System32/amdhip64_x$i.dll"; done
big=$(head -c 100000 /dev/zero | tr '\0' 9)
adapters=("Advanced Micro Devices, Inc.|AMD Radeon|$big")
for i in $(seq 1 2999); do adapters+=("Intel Corporation|Intel $i|1.2.3.4"); done
cuda_registry "$WORK/hostile" "${adapters[@]}"
check_eq "hostile adapter keys and runtime files: bounded (64 adapters, 16 runtime files, a value cut at 256 bytes) and said in the notes" \
	'64|16|256|3' \
	"$(J hostile '.inventory.gpu_driver | "\(.adapters | length)|\(.runtimes | length)|\(.adapters[0].driver_version_raw | length)|\([.notes[] | select(test("more than 64 display adapter keys|more GPU runtime files|bytes long"))] | length)"' --registry "$WORK/hostile/registry.reg" --env "PATH=$PATHS" | tr -d '"')"

check_eq "without C:\\ZLUDA on PATH no nvcuda.dll is found: the plain no-driver case" \
	'cuda-no-driver/error' "$(R z "$rules" --env "PATH=$HIP\\bin;C:\\Windows\\System32")"

source "$TDC_REPO/tests/oracle/wine.sh"
# zoracle LABEL WINEPATH CHECKER_PATH: torch's procedure under Wine in tree z, compared per binary
zoracle() {
	local label=$1 py=$WORK/z/Python311 out rc
	cp "$ORACLE" "$py/oracle.exe"
	printf '%s\n' torch --out "$(wine_zpath "$WORK/z.jsonl")" --torch-dir "$(wine_zpath "$py/Lib/site-packages/torch")" \
		--dll-path "$(wine_zpath "$py/Lib/site-packages/torch/lib")" >"$WORK/z.args"
	rm -f "$WORK/z.jsonl"
	WINEPATH=$2 WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES" timeout 300 \
		bash -c 'source "$1"; shift; wine_run "$@"' _ \
		"$TDC_REPO/tests/oracle/wine.sh" "$PFX" "$WORK/z.out" "$WORK/z.werr" "$py/oracle.exe" "@$(wine_zpath "$WORK/z.args")"
	rc=$?
	if [ "$rc" -eq 124 ] || [ ! -s "$WORK/z.jsonl" ]; then
		not_ok "$label: the oracle hung or died under Wine (status $rc)"
		tail -3 "$WORK/z.werr" | sed 's/^/#   /'
		return
	fi
	C z --env "PATH=$3" >"$WORK/z.oracle-check.json"
	out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_compare.py" "$WORK/z.oracle-check.json" "$WORK/z.jsonl" \
		"$WORK/z.werr" 2>&1)
	# a DllMain that fails is the stand-in python311.dll's (torch_python.dll on stubs: oracle_compare.py)
	check_eq "$label: Wine's loader agrees with the checker on every torch\\lib DLL ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree\|^dllmain  torch_python.dll ' <<<"$out")"
	grep 'nvrtc64' <<<"$out" | sed 's/^/# /'
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle on the ZLUDA tree" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	zoracle "Wine, ZLUDA with %HIP_PATH%bin on PATH" \
		"$(wine_zpath "$WORK/z/ZLUDA");$(wine_zpath "$WORK/z/Program Files/AMD/ROCm/6.1/bin")" "$PATHS"
	zoracle "Wine, ZLUDA without %HIP_PATH%bin on PATH" "$(wine_zpath "$WORK/z/ZLUDA")" "$nohip"
	wine_stop "$PFX"
fi
tap_done
