#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs and a script for bash -c, single-quoted
# test_cuda: CUDA builds of torch (docs/cuda.md) on machines built from
# NVIDIA's REAL runtime DLLs (the nvidia-*-cu11/-cu12 win_amd64 wheels from
# PyPI, sha256-checked and cached: tests/lib/wheels.py) with look-alikes of
# torch's own CUDA binaries carrying exactly the imports PyTorch's build gives
# them (tests/cuda/tree.sh): cu118, cu121, cu124, cu126, cu128, each with the
# full set of CUDA libraries (cuBLAS, cuFFT, cuRAND, cuSPARSE, cuSOLVER,
# nvJitLink, cuDNN; the heavy ones one real release per CUDA major: tree.sh).
TEST_NAME=cuda
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
WORK=$tmp # start.sh's: removed at exit
PY='C:\Python311\python.exe'
TK='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA'

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
	have "$t" "$var" --full || continue
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
	check_eq "$var: torch_cuda.dll and every CUDA library in torch\\lib are checked and load" \
		"$(cd "$WORK/$t/Python311/Lib/site-packages/torch/lib" && find . -maxdepth 1 -iname '*.dll' | wc -l) loads" \
		"$(jq -r '[.installs[0].binaries[] | select(.path | test("torch_cuda.dll$")) | .outcome] as $tc |
			"\(.installs[0].binaries | length) \($tc | join(""))"' "$WORK/$t.json")"
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
cuda_rules() { chk "$@" | jq -r '[.findings[] | select(.rule | startswith("cuda-")) | "\(.rule)/\(.severity)"] | sort | join(" ")'; }
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
	check_eq "torch 2.5.1+cu999: the unknown CUDA release is a warning, not a pass, and no build PyTorch published" \
		"cuda-driver-unverified/warning cuda-variant-unpublished/warning" "$(cuda_rules cu999)"
	check_eq "gate: torch==2.5.1+cu999 is cuda-variant-unpublished (an error: pip finds no such wheel) and unverified on the pin" \
		"cuda-variant-unpublished/error@requirements.txt:1 cuda-driver-unverified/warning@requirements.txt:1" \
		"$(gate 'torch==2.5.1+cu999\n' cu999)"
	# a CUDA release PyTorch built for other torch releases only (matrix `cuda`, `published`)
	check_eq "gate: torch==2.5.1+cu128 (CUDA 12.8 builds start at torch 2.7) is cuda-variant-unpublished on the pin" \
		"cuda-variant-unpublished/error@requirements.txt:1" "$(gate 'torch==2.5.1+cu128\n' drv-new)"
	check_eq "... naming the variants published for 2.5.1 and where 12.8's builds start" "yes" \
		"$(jq -r '[.findings[] | select(.rule == "cuda-variant-unpublished") | (.message | test("torch 2.5.1 are cu118, cu121, cu124") and test(">=2.7"))] == [true] | if . then "yes" else "no" end' "$WORK/gate.json")"
	check_eq "gate: the cu128 index URL with torch==2.5.1 is the same unpublished build" \
		"cuda-variant-unpublished/error@requirements.txt:2" \
		"$(gate '--index-url https://download.pytorch.org/whl/cu128\ntorch==2.5.1\n' drv-new)"
	check_eq "gate: torch==2.7.1+cu128 (published) on a runner with driver 572.16 passes" "" \
		"$(gate 'torch==2.7.1+cu128\n' drv-new)"
	check_eq "gate: torch==2.7.1+cu128 (published) on a runner without the driver: cuda-no-driver before install" \
		"cuda-no-driver/error@requirements.txt:1" "$(gate 'torch==2.7.1+cu128\n' nodrv-cu118)"
	check_eq "gate: torch==1.8.1+cu111 (a release the table does not cover) says nothing of publication" \
		"" "$(gate 'torch==1.8.1+cu111\n' drv-new | tr ' ' '\n' | grep unpublished)"
	# an install labelled 2.5.1+cu128 (a local or relabelled build): a warning
	variant_of drv-new relabel && cuda_driver "$WORK/relabel" 572.16 &&
		sed -i 's/+cu124/+cu128/; s/12\.4/12.8/' "$WORK/relabel/Python311/Lib/site-packages/torch/version.py"
	check_eq "an install of torch 2.5.1+cu128 (never published): cuda-variant-unpublished, a warning" \
		"cuda-variant-unpublished/warning" "$(cuda_rules relabel)"
	check_eq "gate: torch==2.5.1+cu125 (CUDA 12.5: published: none) is cuda-variant-unpublished, saying no build exists" \
		"cuda-variant-unpublished/error@requirements.txt:1 yes" \
		"$(gate 'torch==2.5.1+cu125\n' drv-new) $(jq -r '[.findings[] | select(.rule == "cuda-variant-unpublished") | .message | test("published no Windows build for CUDA 12.5")] == [true] | if . then "yes" else "no" end' "$WORK/gate.json")"
	# a --matrix layer's 12.8 entry without `published` says nothing of publication (not known)
	printf 'schema: 1\nrows: []\ncuda:\n  - {cuda: "12.8", driver: "570.65", floor: "525.00", status: inferred}\n' >"$WORK/layer-nopub.yml"
	check_eq "a --matrix layer's CUDA 12.8 entry without published: the relabelled install is not judged unpublished" "" \
		"$(cuda_rules relabel --matrix "$WORK/layer-nopub.yml")"
	check_eq "gate: torch==2.5.1+cu124 on a runner with driver 572.16 passes" "" "$(gate 'torch==2.5.1+cu124\n' drv-new)"
	check_eq "gate: torch==2.5.1+cu124 on a runner with driver 516.94 warns" \
		"cuda-driver-too-old/warning@requirements.txt:1" "$(gate 'torch==2.5.1+cu124\n' drv-old)"
fi
# ---- the driver and the cuda table as text ----
if [ -n "${BUILT[nodrv-cu124]:-}" ]; then
	"$B" inventory --root "$WORK/drv-new" --registry "$WORK/drv-new/registry.reg" >"$WORK/inv-new.txt" 2>&1
	check_eq "inventory text: nvcuda.dll, its file version, the driver and the NVIDIA adapter" "4" \
		"$(grep -cE '^  nvcuda.dll  C:\\Windows\\System32\\nvcuda.dll$|^    file version 31\.0\.15\.7216 \(FileVersion string 31\.0\.15\.7216\), NVIDIA Corporation$|^    driver  572\.16$|^    NVIDIA +NVIDIA GeForce RTX 4090 +31\.0\.15\.7216 +572\.16 +HKLM.SYSTEM' "$WORK/inv-new.txt")"
	"$B" inventory --root "$WORK/nodrv-cu118" --registry "$WORK/nodrv-cu118/registry.reg" >"$WORK/inv-none.txt" 2>&1
	check_eq "inventory text without the driver: no nvcuda.dll, the AMD adapter listed" "2" \
		"$(grep -cE '^  nvcuda.dll  no \(System32 has none: no NVIDIA display driver\)$|^    Advanced Micro Devices, Inc\. AMD Radeon RX 7900 XTX +31\.0\.24033\.1003 +- ' "$WORK/inv-none.txt")"
	"$B" inventory --root "$WORK/drv-lying" >"$WORK/inv-lying.txt" 2>&1
	check_eq "inventory text of a lying version resource: no driver version, and why" "2" \
		"$(grep -cE '^    driver  \? \(the version resource gives none\)$|^    why     .*31\.0\.15\.9999' "$WORK/inv-lying.txt")"
	check_eq "inventory text without a registry: the adapters are not known, said" "1" \
		"$(grep -c '^  display adapters: no registry to read' "$WORK/inv-lying.txt")"
fi
check_eq "matrix lint: a bad \`published\` or \`cudnn\` is an error at its line:col" \
	"7:49 published|7:67 cudnn|8:50 published|2" \
	"$("$B" matrix lint "$TDC_REPO/tests/fuzz/corpus/matrix/cuda_published.yml" 2>&1 | sed -n 's/^[^:]*:\([0-9]*:[0-9]*\): `*\([a-z]*\).*/\1 \2/p' | paste -sd'|')|$("$B" matrix lint "$TDC_REPO/tests/fuzz/corpus/matrix/cuda_published.yml" >/dev/null 2>&1; echo $?)"
"$B" matrix show >"$WORK/show.txt" 2>&1
check_eq "matrix show text: the cuda table, a line per release with driver, floor, status and where" "yes yes yes yes" \
	"$(grep -qE '^cuda: [0-9]+ CUDA releases' "$WORK/show.txt" && echo yes) $(grep -qE '^  12\.4 +551\.61 +525\.00 +sourced +<embedded>/matrix/torch\.yml:[0-9]+:[0-9]+$' "$WORK/show.txt" && echo yes) $(grep -qE '^    published  torch >=2\.4,<2\.7, cuDNN 9\.1\.0\.70' "$WORK/show.txt" && echo yes) $(grep -qE '^    dlls       cudart64_12\.dll nvrtc64_120_0\.dll nvrtc-builtins64_124\.dll' "$WORK/show.txt" && echo yes)"
check_eq "matrix show --json: the cuda table as \`cuda\`, as many entries as the text, rows unchanged" "yes" \
	"$("$B" matrix show --json | jq -r --argjson n "$(grep -cE '^  [0-9]+\.[0-9]+ +[0-9]' "$WORK/show.txt")" \
		'(.cuda | length) == $n and (.rows | length) > 0 and ([.cuda[] | select(.cuda == "12.8") | .published] == [">=2.7"]) | if . then "yes" else "no" end')"

if [ -n "${BUILT[nodrv-cu118]:-}" ]; then
	variant_of nodrv-cu118 cu118-528 && cuda_driver "$WORK/cu118-528" 528.33 && cuda_registry "$WORK/cu118-528" "$(nv_adapter 528.33)"
	check_eq "cu118 + driver 528.33 (>= 11.8's 520.06): no CUDA finding" "" "$(cuda_rules cu118-528)"
fi

# ---- a bundled CUDA library missing, quarantined, or served by a CUDA toolkit on PATH (every variant) ----
# lib_of TREE: its torch\lib; record_drop TREE NAME: NAME's row out of RECORD (an install that never had it)
lib_of() { echo "$WORK/$1/Python311/Lib/site-packages/torch/lib"; }
record_drop() {
	local r
	r=$(echo "$WORK/$1"/Python311/Lib/site-packages/torch-*.dist-info/RECORD)
	grep -v "/$2," "$r" >"$r.new" && rm -f "$r" && mv "$r.new" "$r"
}
declare -A CUBLASLT=([11]=cublasLt64_11.dll [12]=cublasLt64_12.dll)
for var in cu118 cu121 cu124 cu126 cu128; do
	[ -n "${BUILT[nodrv-$var]:-}" ] || continue
	m=${var:2:2}
	# missing: an install without cuDNN (its RECORD never listed it)
	variant_of "nodrv-$var" "miss-$var" && cuda_driver "$WORK/miss-$var" 572.16 && rm "$(lib_of "miss-$var")/cudnn64_9.dll" &&
		record_drop "miss-$var" cudnn64_9.dll
	check_eq "$var: cudnn64_9.dll missing: torch_cuda.dll fails with 126 naming it, nothing else" \
		"torch_cuda.dll missing-dll 126 cudnn64_9.dll|missing-dll" \
		"$(chk "miss-$var" | jq -r '([.installs[0].binaries[] | select(.outcome != "loads") | "\(.path | split("\\") | last) \(.outcome) \(.winerror) \(.leaf)"] | join(",")) + "|" + ([.findings[] | select(.severity == "error") | .rule] | unique | join(","))')"
	# quarantined: cuBLASLt deleted after pip installed it (RECORD lists it)
	variant_of "nodrv-$var" "quar-$var" && cuda_driver "$WORK/quar-$var" 572.16 && rm "$(lib_of "quar-$var")/${CUBLASLT[$m]}"
	check_eq "$var: ${CUBLASLT[$m]} quarantined: missing-dll on it and deleted-after-install" \
		"deleted-after-install,missing-dll ${CUBLASLT[$m]}" \
		"$(chk "quar-$var" | jq -r '([.findings[] | select(.severity == "error") | .rule] | unique | join(",")) + " " + ([.findings[] | select(.rule == "missing-dll") | .leaf] | unique | join(","))')"
	# served from elsewhere: cudart gone from torch\lib, a copy of the variant's CUDA toolkit first on PATH
	# (in C:\cuda\vX.Y\bin: torch adds the toolkit's default folder itself, PATH is what serves this one)
	rel=${var#cu}
	rel=${rel%?}.${rel: -1}
	variant_of "nodrv-$var" "tkp-$var" && cuda_driver "$WORK/tkp-$var" 572.16 &&
		cuda_toolkit "$WORK/tkp-$var" "$rel" "$var" "cuda/v$rel/bin" &&
		cudart=$(cd "$(lib_of "tkp-$var")" && ls cudart64_*.dll) && rm "$(lib_of "tkp-$var")/$cudart" && record_drop "tkp-$var" "$cudart"
	chk "tkp-$var" --env "PATH=C:\\cuda\\v$rel\\bin;C:\\Windows\\System32" >"$WORK/tkp-$var.json"
	check_eq "$var: $cudart only in a CUDA $rel toolkit on PATH: cuda-dll-outside-torch names the toolkit's copy" \
		"c10_cuda.dll would load $cudart from C:\\cuda\\v$rel\\bin, not from torch\\lib" \
		"$(jq -r '[.findings[] | select(.rule == "cuda-dll-outside-torch") | .title] | unique | join(",")' "$WORK/tkp-$var.json")"
	check_eq "$var: ... found through PATH: c10_cuda.dll loads through torch's fallback after 126" "PATH loads-via-path" \
		"$(jq -r '([.findings[] | select(.rule == "cuda-dll-outside-torch") | .probes[] | select(.result == "found") | .step] | unique | join(",")) + " " + ([.installs[0].binaries[] | select(.path | endswith("c10_cuda.dll")) | .outcome] | join(""))' "$WORK/tkp-$var.json")"
done

# ---- the CUDA DLL names come from the matrix's `dlls`, not from a prefix ----
if [ -n "${BUILT[nodrv-cu124]:-}" ]; then
	# a torch\lib binary importing cudart64_12_shim.dll (a name that only starts like cudart's), found on PATH
	variant_of drv-new shim && cuda_driver "$WORK/shim" 572.16 && mkdir -p "$WORK/shim/tools" &&
		_cuda_dll cudart64_12_shim.dll "$WORK/shim/tools/cudart64_12_shim.dll" --export shim_init &&
		_cuda_dll shim_user.dll "$(lib_of shim)/shim_user.dll" --import cudart64_12_shim.dll:shim_init
	chk shim --env 'PATH=C:\tools;C:\Windows\System32' >"$WORK/shim.json"
	check_eq "cudart64_12_shim.dll from PATH is no CUDA library of the matrix: no cuda-dll-outside-torch, loads-via-path" \
		"loads-via-path" \
		"$(jq -r '[.findings[] | select(.leaf == "cudart64_12_shim.dll" or (.message | test("cudart64_12_shim"))) | .rule] | unique | join(",")' "$WORK/shim.json")"
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
# against the checker's. Without the driver the prefix has no nvcuda.dll
# (Debian's Wine has no nvcuda builtin: W9-nvcuda-builtin in
# tests/scenarios/compare.py); with one, the tree's look-alike nvcuda.dll
# (its version resource says the driver) is put into the prefix's system32
# for that run and loaded native (WINEDLLOVERRIDES=nvcuda=n), and taken out
# again before the next run and when the test exits (the prefix is shared:
# this happens under its lock, wine_lock).
source "$TDC_REPO/tests/oracle/wine.sh"
# oracle_case LABEL TREE [DLL_DIR...]: Wine's verdicts against the checker's ($WORK/TREE.oracle-check.json).
# OC_WINEPATH: folders Wine puts on the process's PATH; the tree's System32\nvcuda.dll, if any, goes into
# the prefix's system32 for the run.
oracle_case() {
	local label=$1 t=$2 py=$WORK/$2/Python311 out rc d ovr=$WINE_BOOT_OVERRIDES
	shift 2
	rm -f "$PFX_NV"
	if [ -f "$WORK/$t/Windows/System32/nvcuda.dll" ]; then
		cp "$WORK/$t/Windows/System32/nvcuda.dll" "$PFX_NV"
		ovr="$ovr;nvcuda=n"
	fi
	cp "$ORACLE" "$py/oracle.exe"
	printf '%s\n' torch --out "$(wine_zpath "$WORK/$t.jsonl")" --torch-dir "$(wine_zpath "$py/Lib/site-packages/torch")" \
		--dll-path "$(wine_zpath "$py/Lib/site-packages/torch/lib")" >"$WORK/$t.args"
	for d in "$@"; do printf '%s\n' --dll-path "$(wine_zpath "$WORK/$t/$d")" >>"$WORK/$t.args"; done
	WINEPATH=${OC_WINEPATH:-} WINEDLLOVERRIDES="$ovr" WINEDEBUG=warn+module,+loaddll timeout 300 \
		bash -c 'source "$1"; shift; [ -n "$WINEPATH" ] || unset WINEPATH; wine_run "$@"' _ \
		"$TDC_REPO/tests/oracle/wine.sh" "$PFX" "$WORK/$t.out" "$WORK/$t.werr" "$py/oracle.exe" "@$(wine_zpath "$WORK/$t.args")"
	rc=$?
	rm -f "$PFX_NV"
	if [ "$rc" -eq 124 ] || [ ! -s "$WORK/$t.jsonl" ]; then
		not_ok "$label: the oracle hung or died under Wine (status $rc)"
		tail -3 "$WORK/$t.werr" | sed 's/^/#   /'
		return 1
	fi
	out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_compare.py" "$WORK/$t.oracle-check.json" "$WORK/$t.jsonl" \
		"$WORK/$t.werr" 2>&1)
	check_eq "$label: Wine's loader agrees with the checker on every torch\\lib DLL ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree' <<<"$out")"
}
# wine_loaded TREE BINARY: the modules that entered Wine's process while BINARY loaded, lowercased
wine_loaded() {
	jq -r --arg b "$2" 'select(.kind == "dll" and (.path | ascii_downcase | endswith("\\" + $b))) | .loaded[]' \
		"$WORK/$1.jsonl" | tr '[:upper:]' '[:lower:]'
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle on the CUDA trees" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	PFX_NV=$PFX/drive_c/windows/system32/nvcuda.dll
	at_exit 'rm -f "$PFX_NV"'
	rm -f "$PFX_NV" # a run killed before its trap left one
	wine_start "$PFX"
	# no driver
	for var in cu118 cu121 cu124 cu126 cu128; do
		[ -n "${BUILT[nodrv-$var]:-}" ] || continue
		chk "nodrv-$var" >"$WORK/nodrv-$var.oracle-check.json"
		oracle_case "Wine, $var without the driver" "nodrv-$var"
	done
	if [ -n "${BUILT[static-cu101]:-}" ]; then
		chk static-cu101 >"$WORK/static-cu101.oracle-check.json"
		oracle_case "Wine, torch 1.5-style static nvcuda.dll import without the driver (126)" static-cu101
		# the driver, new and old: the static import binds to the look-alike in system32, loaded native
		for drv in 572.16 516.94; do
			variant_of static-cu101 "static-$drv" && cuda_driver "$WORK/static-$drv" "$drv" &&
				cuda_registry "$WORK/static-$drv" "$(nv_adapter "$drv")"
			chk "static-$drv" >"$WORK/static-$drv.oracle-check.json"
			if oracle_case "Wine, static nvcuda.dll import with driver $drv in system32" "static-$drv"; then
				check_eq "Wine, driver $drv: caffe2_nvrtc.dll bound the native system32\\nvcuda.dll (nvcuda=n), as the checker says" \
					"c:\\windows\\system32\\nvcuda.dll native C:\\Windows\\System32\\nvcuda.dll" \
					"$(wine_loaded "static-$drv" caffe2_nvrtc.dll | grep 'nvcuda.dll$') $(grep -io 'Loaded L"C:\\\\windows\\\\system32\\\\nvcuda.dll" at [0-9a-f]*: [a-z]*' "$WORK/static-$drv.werr" | awk '{print $NF}' | head -1) $(jq -r '.inventory.gpu_driver.nvcuda.path' "$WORK/static-$drv.oracle-check.json")"
			fi
		done
		check_eq "... and the checker warns on the old driver only (CUDA 11.8 needs >= 520.06)" "|cuda-driver-too-old" \
			"$(jq -r '[.findings[] | select(.rule | startswith("cuda-")) | .rule] | join(",")' "$WORK/static-572.16.oracle-check.json")|$(jq -r '[.findings[] | select(.rule | startswith("cuda-")) | .rule] | join(",")' "$WORK/static-516.94.oracle-check.json")"
	fi
	# with the driver: new and old, on the full trees
	for var in cu124 cu128; do
		[ -n "${BUILT[nodrv-$var]:-}" ] || continue
		for drv in 572.16 516.94; do
			variant_of "nodrv-$var" "wdrv-$var-$drv" && cuda_driver "$WORK/wdrv-$var-$drv" "$drv" &&
				cuda_registry "$WORK/wdrv-$var-$drv" "$(nv_adapter "$drv")"
			chk "wdrv-$var-$drv" >"$WORK/wdrv-$var-$drv.oracle-check.json"
			oracle_case "Wine, $var with driver $drv (nvcuda.dll in system32)" "wdrv-$var-$drv"
		done
	done
	# a CUDA toolkit on PATH whose cudart wins (torch\lib lacks it): the copy the finding names is the one Wine loads
	for var in cu118 cu124 cu128; do
		[ -d "$WORK/tkp-$var" ] || continue
		rel=${var#cu}
		rel=${rel%?}.${rel: -1}
		cudart=$(jq -r '[.findings[] | select(.rule == "cuda-dll-outside-torch") | .leaf] | first // ""' "$WORK/tkp-$var.json")
		cp "$WORK/tkp-$var.json" "$WORK/tkp-$var.oracle-check.json"
		bin=$(wine_zpath "$WORK/tkp-$var/cuda/v$rel/bin")
		if OC_WINEPATH=$bin oracle_case "Wine, $var: a CUDA $rel toolkit on PATH serves $cudart" "tkp-$var"; then
			want=$(printf '%s\\%s' "$bin" "$cudart" | tr '[:upper:]' '[:lower:]')
			check_eq "Wine, $var: c10_cuda.dll's $cudart came from the toolkit on PATH, the copy cuda-dll-outside-torch names" \
				"$want" "$(wine_loaded "tkp-$var" c10_cuda.dll | grep -F "$want")"
		fi
	done
	if [ -d "$WORK/tk-cudart" ]; then
		chk tk-cudart --env "CUDA_PATH_V12_4=$TK\\v12.4" >"$WORK/tk-cudart.oracle-check.json"
		oracle_case "Wine, cudart64_12.dll only in the CUDA 12.4 toolkit that torch adds" tk-cudart \
			"Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin"
	fi
	wine_stop "$PFX"
fi


# ---- the live path: torch-dll-check.exe (the Windows build, mingw) under Wine reads the display
# adapters' keys through the Win32 registry API and System32\nvcuda.dll through the OS: Wine's
# registry and Wine's system32, not Windows'. The same data as the reg export the offline trees
# use, imported into a private prefix (wine reg import). Wine rewrites the Display class when a
# session starts (its own "Wine Adapter" in 0000, other adapters removed), so the keys are
# imported in the session the program then runs in, and system.reg (written when that session
# ends) is read offline too: live, Wine's system.reg and the reg export must give the same facts.
source "$TDC_REPO/tests/lib/win_exe.sh"
# gpu_prefix DIR: a bare prefix, made once (wineboot), cached (_wine_env: tests/oracle/wine.sh)
# shellcheck disable=SC2030,SC2031  # the Wine environment is the subshell's own
gpu_prefix() {
	(
		_wine_env "$1"
		export WINEDEBUG=-all WINEDLLOVERRIDES=$WINE_BOOT_OVERRIDES
		wine wineboot -i >"$1.log" 2>&1 && wineserver -w >>"$1.log" 2>&1
	) && [ -f "$1/drive_c/windows/system32/kernel32.dll" ]
}
# live_inventory PFX OUT REGFILE: imports REGFILE and runs the .exe's inventory --json, in one session
# shellcheck disable=SC2030,SC2031
live_inventory() {
	(
		_wine_env "$1"
		export WINEDEBUG=-all WINEDLLOVERRIDES=$WINE_BOOT_OVERRIDES
		cp "$3" "$1/drive_c/tdc-display.reg" || exit 1
		wineserver -p30
		wine reg import 'C:\tdc-display.reg' >>"$1.log" 2>&1 || { wineserver -k; exit 1; }
		wine "$EXE" inventory --json >"$2" 2>"$2.err"
		rc=$?
		wineserver -k 2>/dev/null
		wineserver -w 2>/dev/null
		exit "$rc"
	)
}
GPU_SEL='.inventory.gpu_driver | {nvcuda: (.nvcuda | {present, error, file_version, driver_version, company}),
	registry_read, adapters: [.adapters[] | {key, provider, description, driver_version_raw, nvidia_driver}]}'
if [ -z "${BUILT[nodrv-cu124]:-}" ]; then
	:
elif ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	skip "the live registry path under Wine" "wine or mingw-w64 is not installed (.ci/deps installs them)"
elif ! EXE=$(win_exe "$WORK"); then
	not_ok "could not cross-build torch-dll-check.exe"
	tail -5 "$WORK/xbuild.log" "$WORK/xdeps.log" 2>/dev/null | sed 's/^/#   /'
else
	gkey=$( { wine --version; declare -f gpu_prefix; } | sha256sum | cut -c1-16)
	gdir=$TDC_CACHE/wine-gpu/$gkey
	mkdir -p "$gdir"
	exec 8>"$gdir/.lock"
	flock 8 # runs in other worktrees share the prefix
	if [ ! -f "$gdir/done" ]; then
		rm -rf "$gdir/pfx"
		gpu_prefix "$gdir/pfx" && touch "$gdir/done"
	fi
	if [ ! -f "$gdir/done" ]; then
		not_ok "could not make the Wine prefix for the live registry path (log: $gdir/pfx.log)"
	else
		gp=$gdir/pfx
		mkdir -p "$WORK/live"
		cuda_registry "$WORK/live" "$(nv_adapter 572.16)" "Advanced Micro Devices, Inc.|AMD Radeon RX 7900 XTX|31.0.24033.1003"
		cp "$WORK/drv-new/Windows/System32/nvcuda.dll" "$gp/drive_c/windows/system32/nvcuda.dll"
		live_inventory "$gp" "$WORK/live.json" "$WORK/live/registry.reg"
		check_eq "live (the .exe under Wine): inventory exits 0" 0 "$?"
		jq -S "$GPU_SEL" "$WORK/live.json" >"$WORK/live.sel" 2>&1
		"$B" inventory --root "$gp/drive_c" --json 2>&1 | jq -S "$GPU_SEL" >"$WORK/sysreg.sel" 2>&1
		"$B" inventory --root "$gp/drive_c" --registry "$WORK/live/registry.reg" --json 2>&1 | jq -S "$GPU_SEL" >"$WORK/export.sel" 2>&1
		check_eq "live: nvcuda.dll 31.0.15.7216 = driver 572.16, the NVIDIA and the AMD adapter from Wine's registry" \
			"true 31.0.15.7216 572.16 NVIDIA 572.16 Advanced Micro Devices, Inc. null" \
			"$(jq -r '"\(.nvcuda.present) \(.nvcuda.file_version) \(.nvcuda.driver_version) \(.adapters[0].provider) \(.adapters[0].nvidia_driver) \(.adapters[1].provider) \(.adapters[1].nvidia_driver)"' "$WORK/live.sel")"
		check_eq "live registry API = Wine's system.reg read offline (gpu_driver)" "$(cat "$WORK/sysreg.sel")" "$(cat "$WORK/live.sel")"
		check_eq "live registry API = the reg export of the same keys (gpu_driver)" "$(cat "$WORK/export.sel")" "$(cat "$WORK/live.sel")"
		rm -f "$gp/drive_c/windows/system32/nvcuda.dll"
		live_inventory "$gp" "$WORK/live-none.json" "$WORK/live/registry.reg"
		check_eq "live, nvcuda.dll removed from Wine's system32: absent, the adapters still read" "false 2" \
			"$(jq -r '.inventory.gpu_driver | "\(.nvcuda.present) \(.adapters | length)"' "$WORK/live-none.json")"
	fi
	exec 8>&-
fi

tap_done
