#!/usr/bin/env bash
# shellcheck disable=SC2317  # torch_tree_build runs through fx_build
# bench/check.sh: issue 3's speed target for `torch-dll-check check` on a
# torch-sized install: whole-process wall time under 50 ms warm, and peak RSS
# at most 4 MiB above the process's own baseline (`torch-dll-check --version`),
# compared in the same run with `llvm-readobj --coff-imports --coff-exports`
# over the same files (which only reads them, resolving nothing).
#
# The tree (generated once with tests/lib/fixtures.sh, cached under
# $TDC_CACHE/fixtures/): a Windows root standing for C:\ with
#   Windows/System32/        Wine 8's x86-64 PE builtins (hard links from the
#                            corpus cache: real kernel32, ucrtbase, msvcp140,
#                            vcruntime140(_1), apisetschema ...)
#   Python311/python.exe, python311.dll, vcruntime140.dll, vcruntime140_1.dll
#   Python311/Lib/site-packages/torch/lib/  45 DLLs named and sized like a
#                            CUDA 12 torch wheel's: 5 from 500 MB to 1 GiB and
#                            the rest 1-50 MB (sparse overlays: the tree takes
#                            a few MB of disk), importing each other as torch
#                            does (torch_cuda -> torch_cpu -> c10, fbgemm ->
#                            asmjit + libiomp5md, the cuDNN/cuBLAS chains, ...)
#                            plus the MSVC runtime set; torch_cpu exports
#                            20,000 names, torch_cuda 5,000
#   Python311/Lib/site-packages/torch/**/*.pyd   10 extension modules
#                            importing torch_python.dll and python311.dll
#
# `check` lands with the loader (branch `loader`); until then this script says
# so and exits 0. Arguments passed to check: BENCH_CHECK_ARGS, default
# "--torch <root>/Python311/Lib/site-packages/torch --root <root> --json".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
BIN=${TDC_BIN:-$REPO/torch-dll-check}
export BENCH_RUNS=${BENCH_RUNS:-10}
source tests/lib/fixtures.sh
source bench/lib.sh

[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 2; }

# name  size  exports  imports (DLL names in torch/lib or the Python dir)
TORCH_LIB='
torch_cuda.dll 1G 5000 torch_cpu.dll c10.dll c10_cuda.dll cudart64_12.dll cublas64_12.dll cublasLt64_12.dll cudnn64_9.dll cufft64_11.dll curand64_10.dll cusolver64_11.dll cusparse64_12.dll nvToolsExt64_1.dll libiomp5md.dll
cudnn_engines_precompiled64_9.dll 700M 20 cudnn_graph64_9.dll cublas64_12.dll cublasLt64_12.dll
cufft64_11.dll 600M 100
cublasLt64_12.dll 550M 200
cusparse64_12.dll 520M 300 nvJitLink_120_0.dll
torch_cpu.dll 50M 20000 c10.dll fbgemm.dll asmjit.dll libiomp5md.dll uv.dll
c10.dll 1M 2000
c10_cuda.dll 1M 300 c10.dll cudart64_12.dll
torch.dll 1M 5 torch_cpu.dll torch_cuda.dll
torch_python.dll 20M 3000 torch_cpu.dll torch_cuda.dll c10.dll python311.dll
torch_global_deps.dll 1M 2
torch_cuda_linalg.dll 10M 50 torch_cuda.dll torch_cpu.dll c10.dll cusolver64_11.dll cublas64_12.dll
shm.dll 1M 20 torch_cpu.dll c10.dll
fbgemm.dll 40M 800 asmjit.dll libiomp5md.dll
asmjit.dll 1M 600
libiomp5md.dll 2M 900
libiompstubs5md.dll 1M 400
uv.dll 1M 200
caffe2_nvrtc.dll 1M 10 nvrtc64_120_0.dll
cudart64_12.dll 1M 300
cublas64_12.dll 50M 500 cublasLt64_12.dll
cudnn64_9.dll 1M 200 cudnn_graph64_9.dll
cudnn_graph64_9.dll 10M 300
cudnn_ops64_9.dll 50M 300 cudnn_graph64_9.dll
cudnn_cnn64_9.dll 5M 100 cudnn_graph64_9.dll cudnn_ops64_9.dll
cudnn_adv64_9.dll 50M 100 cudnn_graph64_9.dll cudnn_ops64_9.dll
cudnn_heuristic64_9.dll 50M 50 cudnn_graph64_9.dll
cudnn_engines_runtime_compiled64_9.dll 20M 20 cudnn_graph64_9.dll nvrtc64_120_0.dll
cudnn_ops_infer64_8.dll 40M 100 cublas64_12.dll
cudnn_ops_train64_8.dll 40M 100 cudnn_ops_infer64_8.dll
cudnn_cnn_infer64_8.dll 45M 100 cudnn_ops_infer64_8.dll
cudnn_cnn_train64_8.dll 30M 100 cudnn_cnn_infer64_8.dll cudnn_ops_train64_8.dll
cudnn_adv_infer64_8.dll 50M 100 cudnn_ops_infer64_8.dll
cudnn_adv_train64_8.dll 50M 100 cudnn_adv_infer64_8.dll cudnn_ops_train64_8.dll
curand64_10.dll 50M 100
cusolver64_11.dll 50M 400 cublas64_12.dll cublasLt64_12.dll cusparse64_12.dll nvJitLink_120_0.dll
cusolverMg64_11.dll 50M 100 cusolver64_11.dll cublas64_12.dll cublasLt64_12.dll
cufftw64_11.dll 1M 100 cufft64_11.dll
nvrtc64_120_0.dll 40M 50
nvrtc-builtins64_124.dll 5M 5
nvJitLink_120_0.dll 50M 50
nvToolsExt64_1.dll 1M 100
cupti64_2024.1.0.dll 5M 200
nvfatbin_120_0.dll 2M 20
zlibwapi.dll 1M 50
'

PYDS='_C _C_flatbuffer _dynamo/_eval_frame _inductor/_cpp_ext _functorch/_C _export/_serde distributed/_c10d _lazy/_ts _jit/_jit_ext utils/_cpp_ext'

stem() { local base=${1%.*}; echo "${base//[^A-Za-z0-9]/_}"; }

# imports_of DLL NEXPORTS: "--import DLL:s1,...,sK" using the first 20 exports.
import_spec() {
	local dll=$1 n=$2 k i s
	k=$((n < 20 ? n : 20))
	s=$(stem "$dll")
	local list=()
	for ((i = 1; i <= k; i++)); do list+=("${s}_fn_$i"); done
	local IFS=,
	echo "$dll:${list[*]}"
}

torch_tree_build() {
	local d=$1 wine=$2 root=$1/root
	local sys=$root/Windows/System32 py=$root/Python311
	local tl=$py/Lib/site-packages/torch/lib
	mkdir -p "$sys" "$tl"
	local f
	for f in "$wine"/*; do
		[ "$(head -c2 "$f")" = MZ ] || continue
		ln "$f" "$sys/" 2>/dev/null || cp "$f" "$sys/"
	done
	ln "$sys/vcruntime140.dll" "$sys/vcruntime140_1.dll" "$py/" 2>/dev/null ||
		cp "$sys/vcruntime140.dll" "$sys/vcruntime140_1.dll" "$py/"
	local -A nexp=([python311.dll]=1500)
	local name size n deps line
	while read -r name size n deps; do
		[ -n "$name" ] && nexp[$name]=$n
	done <<<"$TORCH_LIB"
	# python311.dll and python.exe
	seq 1 1500 | sed 's/^/python311_fn_/' | (echo EXPORTS; cat) >"$d/python311.def"
	make_dll "$py/python311.dll" --def "$d/python311.def" --msvc --size 6M || return 1
	make_exe "$py/python.exe" --import "$(import_spec python311.dll 1500)" --msvc || return 1
	rm -f "$d/python311.def"
	while read -r name size n deps; do
		[ -n "$name" ] || continue
		local args=(--msvc --import "MSVCP140.dll:_Mtx_init_in_situ,_Thrd_yield"
			    --import "VCRUNTIME140_1.dll:__CxxFrameHandler4" --size "$size")
		local dep
		for dep in $deps; do args+=(--import "$(import_spec "$dep" "${nexp[$dep]}")"); done
		[ "$name" = caffe2_nvrtc.dll ] && args+=(--delay-import "nvcuda.dll:cuInit,cuDeviceGet")
		seq 1 "$n" | sed "s/^/$(stem "$name")_fn_/" | (echo EXPORTS; cat) >"$d/exports.def"
		make_dll "$tl/$name" --def "$d/exports.def" "${args[@]}" || return 1
	done <<<"$TORCH_LIB"
	rm -f "$d/exports.def"
	local m base
	for m in $PYDS; do
		base=${m##*/}
		mkdir -p "$(dirname "$tl/../$m")"
		make_dll "$tl/../$m.cp311-win_amd64.pyd" --name "$base.cp311-win_amd64.pyd" \
			--export "PyInit_$base" --msvc --import "$(import_spec torch_python.dll 3000)" \
			--import "$(import_spec python311.dll 1500)" --size 2M || return 1
	done
}

bash tests/corpus/fetch.sh >/dev/null 2>&1
winedir=$(find "$TDC_CACHE"/corpus -maxdepth 5 -path "*/corpus/wine-*/x86_64-linux-gnu/wine/x86_64-windows" -type d 2>/dev/null | sort | tail -1)
[ -n "$winedir" ] || { echo "bench: no Wine corpus (bash tests/corpus/fetch.sh)" >&2; exit 2; }
FX_KEY="$TORCH_LIB $PYDS $winedir" tree=$(fx_build torch-tree torch_tree_build "$winedir") || exit 2
root=$tree/root
torch=$root/Python311/Lib/site-packages/torch
mapfile -t files < <(find "$torch" -type f \( -name '*.dll' -o -name '*.pyd' \) | LC_ALL=C sort)

echo "# torch-dll-check check on a torch-sized tree — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "Tree: $tree"
echo "$(find "$torch" -name '*.dll' | wc -l) DLLs + $(find "$torch" -name '*.pyd' | wc -l) .pyd," \
	"$(du -c --apparent-size -m "${files[@]}" | tail -1 | cut -f1) MB apparent," \
	"$(du -c -m "${files[@]}" | tail -1 | cut -f1) MB on disk; System32: $(find "$root/Windows/System32" -type f | wc -l) Wine PE files."
echo

read -ra cargs <<<"${BENCH_CHECK_ARGS:---torch $torch --root $root --json}"
out=$("$BIN" check "${cargs[@]}" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 2 ] && grep -qi 'not implemented' <<<"$out"; then
	echo "SKIP: 'torch-dll-check check' is not implemented in this build yet (it lands with the"
	echo "loader branch). The tree above is ready; rerun bench/check.sh once check exists."
	exit 0
fi
if [ $rc -eq 2 ]; then
	echo "FAIL: torch-dll-check check ${cargs[*]} exited 2:"
	echo "$out" | head -20 | sed 's/^/    /'
	exit 1
fi

read -r bw bc br _ <<<"$(measure "$BIN" --version)"
read -r cw cc cr _ <<<"$(measure "$BIN" check "${cargs[@]}")"
read -r lw lc lr lst <<<"$(measure llvm-readobj --coff-imports --coff-exports "${files[@]}")"
# Issue 15: the same check inside a full Wine prefix, the tree as its drive_c
# next to the system.reg wineboot writes (found by itself, as for any prefix).
pw='' pc='' pr='' pfx=''
if source tests/oracle/wine.sh 2>/dev/null && wp=$(wine_prefix_ensure 2>/dev/null) && [ -f "$wp/system.reg" ]; then
	pfx=$(mktemp -d)
	ln -s "$root" "$pfx/drive_c"
	cp "$wp/system.reg" "$pfx/system.reg"
	read -ra pargs <<<"${cargs[*]//$root/$pfx/drive_c}"
	read -r pw pc pr _ <<<"$(measure "$BIN" check "${pargs[@]}")"
fi
echo "Best of $BENCH_RUNS warm runs (bench/lib.sh), $(bench_load)."
echo "check exit status: $rc ($([ $rc -eq 0 ] && echo everything loads || echo findings))."
echo
echo "| run | wall (best) | CPU | peak RSS |"
echo "|---|---|---|---|"
echo "| torch-dll-check --version (baseline) | $bw s | $bc s | $br KiB |"
echo "| torch-dll-check check ${cargs[*]//$root/ROOT} | $cw s | $cc s | $cr KiB |"
[ -n "$pw" ] && echo "| the same check in a Wine prefix (system.reg of $(($(stat -c %s "$pfx/system.reg") / 1000)) kB) | $pw s | $pc s | $pr KiB |"
echo "| llvm-readobj --coff-imports --coff-exports (${#files[@]} files)$([ "$lst" = 0 ] || echo " (FAILED: exit $lst)") | $lw s | $lc s | $lr KiB |"
echo
fail=0
delta=$((cr - br))
judge() { # judge OK(1/0) MESSAGE
	if [ "$1" = 1 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi
}
judge "$(awk -v w="$cw" 'BEGIN { print (w < 0.050) ? 1 : 0 }')" "check took $cw s wall (target < 0.050 s warm)."
# On a loaded machine the wall clock includes waiting for a core: CPU time
# is then the fairer reading of the same target, and is reported separately.
judge "$(awk -v w="$cc" 'BEGIN { print (w < 0.050) ? 1 : 0 }')" "check used $cc s of CPU (same target, free of waiting for a core)."
judge "$([ "$delta" -le 4096 ] && echo 1 || echo 0)" "check's peak RSS is $delta KiB above the baseline (target <= 4096 KiB)."
if [ -n "$pw" ]; then
	judge "$([ $((pr - br)) -le 4096 ] && echo 1 || echo 0)" "in a Wine prefix, check's peak RSS is $((pr - br)) KiB above the baseline (target <= 4096 KiB)."
	judge "$(awk -v a="$pc" -v b="$lc" 'BEGIN { print (a < b) ? 1 : 0 }')" "in a Wine prefix, check used $pc s of CPU, llvm-readobj $lc s (target: less)."
	rm -rf "$pfx"
else
	echo "SKIP: no Wine prefix (tests/oracle/wine.sh could not make one): the prefix row is left out."
fi
exit $fail
