# shellcheck shell=bash
# tree.sh: Windows machines with a CUDA build of torch (source it after
# tests/lib/tap.sh, tests/lib/fixtures.sh and tests/lib/wheels.sh).
#
# No CUDA build of torch can be downloaded here (PyPI serves only the CPU
# wheels for Windows), but NVIDIA's runtime DLLs can: the nvidia-*-cu11/-cu12
# wheels carry the very cudart64_*.dll, nvrtc64_*.dll, cublas64_*.dll ...
# that PyTorch's Windows build copies from the CUDA toolkit into torch\lib
# (.ci/pytorch/windows/internal/copy.bat). So a tree holds those real DLLs,
# and look-alikes of torch's own CUDA binaries built with exactly the imports
# PyTorch's build gives them (docs/cuda.md, "What a CUDA build carries"):
#   c10_cuda.dll      c10.dll + the CUDA runtime (cudart64_*.dll)
#   caffe2_nvrtc.dll  NVRTC (nvrtc64_*.dll) statically, and the driver API
#                     (nvcuda.dll) delay-loaded: /DELAYLOAD:nvcuda.dll in
#                     caffe2/CMakeLists.txt since pytorch#37811 (torch 1.6),
#                     a static import before it (--static-nvcuda)
#   torch_cuda.dll    c10, c10_cuda, torch_cpu, cudart, cuBLAS(Lt), cuFFT,
#                     cuRAND, cuSPARSE, cuSOLVER, cuDNN (with --full; every tree
#                     of test_cuda has them). Those libraries are 1.5-2.5 GB
#                     unpacked per CUDA release, so a variant has its OWN real
#                     runtime, NVRTC (+ its builtins), cuRAND and nvJitLink (and
#                     on CUDA 11 its own cuBLAS(Lt)/cuFFT/cuSOLVER/cuSPARSE: other
#                     names), and SHARES one real release of the heavy ones whose
#                     names its CUDA major keeps: cuBLAS/cuBLASLt 12.1.3.1, cuFFT
#                     11.0.2.54, cuSOLVER 11.4.5.107 and cuSPARSE 12.1.0.106 for
#                     every 12.x variant, cuDNN 9.1.0.70 (cu12 build) for all,
#                     its 0.08-0.56 GB sub-libraries only in the cu124 tree
#                     (CUDA_SHARED, CUDA_CUDNN below say why the verdict does not
#                     depend on the release)
#
#   cuda_tree DIR VARIANT [--full] [--static-nvcuda] [--torch VERSION]
#                     C:\ in DIR: System32 = Wine's PE builtins (no nvcuda.dll:
#                     a machine without the NVIDIA driver), C:\Python311 with
#                     torch VARIANT (cu118 cu121 cu124 cu126 cu128). Prints
#                     C:\Python311\python.exe. Status 3: PyPI did not give a wheel.
#   cuda_driver DIR DRIVER [--file-version A.B.C.D] [--string-version S] [--company C]
#                     the NVIDIA display driver DRIVER (551.61) installed: a
#                     look-alike System32\nvcuda.dll exporting the driver API
#                     caffe2_nvrtc imports, with the version resource NVIDIA's
#                     has (31.0.15.5161 for 551.61), and the adapter's key in
#                     DIR/registry.reg
#   cuda_registry DIR [ADAPTER...]   DIR/registry.reg: the VC++ 14.44 x64 redistributable
#                     and display adapters "PROVIDER|DESC|DRIVERVERSION"
#   cuda_toolkit DIR CUDA VARIANT [BIN]  a CUDA toolkit X.Y in C:\Program Files\NVIDIA GPU
#                     Computing Toolkit\CUDA\vX.Y\bin (torch adds that folder itself
#                     when it exists) or in BIN (a folder of DIR) holding VARIANT's
#                     real cudart/nvrtc, for --env PATH / CUDA_PATH_VX_Y
#
# Trees are built in the test's temporary folder; the NVIDIA wheels are
# unpacked once into $TDC_CACHE/nvidia/<wheel sha256>/ (then deleted: the
# folder's WHEEL file records the wheel's name and sha256) and hard-linked.
# Cold (empty $TDC_CACHE), tests/cuda downloads 28 NVIDIA wheels, 3.57 GB
# (was 43, 8.74 GB) and keeps 4.93 GB of DLLs (was 8.74 GB of wheels + 12.41 GB
# of DLLs): docs/cuda.md, "What the test trees share".

CUDA_WINE_PE=${WINE_PE:-/usr/lib/x86_64-linux-gnu/wine/x86_64-windows}

# The NVIDIA wheels of each CUDA release: the ones PyTorch's Linux wheels of
# that CUDA pin (torch's METADATA Requires-Dist), win_amd64 builds of the same.
declare -gA CUDA_RT=([cu118]="nvidia-cuda-runtime-cu11 11.8.89" [cu121]="nvidia-cuda-runtime-cu12 12.1.105"
	[cu124]="nvidia-cuda-runtime-cu12 12.4.127" [cu126]="nvidia-cuda-runtime-cu12 12.6.77"
	[cu128]="nvidia-cuda-runtime-cu12 12.8.90")
declare -gA CUDA_NVRTC=([cu118]="nvidia-cuda-nvrtc-cu11 11.8.89" [cu121]="nvidia-cuda-nvrtc-cu12 12.1.105"
	[cu124]="nvidia-cuda-nvrtc-cu12 12.4.127" [cu126]="nvidia-cuda-nvrtc-cu12 12.6.77"
	[cu128]="nvidia-cuda-nvrtc-cu12 12.8.93")
# torch releases built for each (download.pytorch.org's index lists them)
declare -gA CUDA_TORCH=([cu118]=2.4.1 [cu121]=2.4.1 [cu124]=2.5.1 [cu126]=2.7.1 [cu128]=2.8.0)
# The rest of torch_cuda.dll's CUDA libraries (cuBLAS(Lt), cuFFT, cuRAND, cuSOLVER, cuSPARSE, nvJitLink,
# cuDNN), as win_amd64 wheels. A variant's OWN ones are the versions we take the Linux wheels of
# CUDA_TORCH[variant] to pin in their METADATA (not re-read from them here): the runtime, NVRTC (above),
# cuRAND and nvJitLink for every variant, and for CUDA 11 all of them (their names differ from 12's).
declare -gA CUDA_OWN=(
	[cu118]="nvidia-cublas-cu11:11.11.3.6 nvidia-cufft-cu11:10.9.0.58 nvidia-curand-cu11:10.3.0.86
nvidia-cusolver-cu11:11.4.1.48 nvidia-cusparse-cu11:11.7.5.86"
	[cu121]="nvidia-curand-cu12:10.3.2.106 nvidia-nvjitlink-cu12:12.1.105"
	[cu124]="nvidia-curand-cu12:10.3.5.147 nvidia-nvjitlink-cu12:12.4.127"
	[cu126]="nvidia-curand-cu12:10.3.7.77 nvidia-nvjitlink-cu12:12.6.85"
	[cu128]="nvidia-curand-cu12:10.3.9.90 nvidia-nvjitlink-cu12:12.8.93")
# SHARED by every variant of a CUDA major: the heavy libraries whose DLL names do not change within
# it, ONE real release each (cu121's: 1.6 GB of wheels instead of 8 GB for five releases; docs/cuda.md,
# "What the test trees share"). The loader's verdict on them depends only on their names, their imports
# and the exports torch_cuda.dll takes from them, which are the same in every 12.x release: cublas64_12
# imports cublasLt64_12, cusolver64_11 imports cusparse64_12/cublas64_12/cublasLt64_12 (all of the same
# set), cufft64_11 only Windows DLLs, and cusparse64_12 imports nvJitLink_120_0.dll's __nvJitLink*_12_1
# functions, which every 12.x nvJitLink from 12.1.105 to 12.8.93 exports (cu124's cuSPARSE 12.3 imports
# __nvJitLink*_12_4, which 12.1.105 lacks: that is why the set is cu121's, not cu124's). Whether the
# exports torch_cuda.dll imports (CUDA_TORCH_CUDA_IMPORTS) are there is what each tree's check proves.
declare -gA CUDA_SHARED=([11]=""
	[12]="nvidia-cublas-cu12:12.1.3.1 nvidia-cufft-cu12:11.0.2.54 nvidia-cusolver-cu12:11.4.5.107
nvidia-cusparse-cu12:12.1.0.106")
# cuDNN 9.1.0.70 (what torch 2.4-2.7 carry for cu118-cu124), the cu12 build, for every variant, cu118
# too: cuDNN's names carry cuDNN's major (cudnn64_9.dll ...), not CUDA's, and cudnn64_9.dll of the cu11
# and the cu12 build of 9.1.0.70 have the same 222 exports and the same imports (Windows DLLs only);
# its sub-libraries import only each other. Nothing imports them statically (cudnn64_9.dll opens them at
# run time), no check names one, and four of them are 0.08-0.56 GB: only the CUDA_CUDNN_ALL tree carries
# all eight; the others carry cudnn64_9.dll and the small ones whose imports they hold (CUDA_CUDNN_SOME).
CUDA_CUDNN="nvidia-cudnn-cu12:9.1.0.70"
CUDA_CUDNN_ALL=cu124
CUDA_CUDNN_SOME="cudnn64_9.dll cudnn_graph64_9.dll cudnn_engines_runtime_compiled64_9.dll"
# torch_cuda.dll's CUDA imports per CUDA major release (docs/cuda.md, "Which of torch's own binaries
# import which"): the names carry each library's own major version
declare -gA CUDA_TORCH_CUDA_IMPORTS=(
	[11]="cublas64_11.dll:cublasCreate_v2,cublasGemmEx cublasLt64_11.dll:cublasLtCreate,cublasLtMatmul
cufft64_10.dll:cufftXtMakePlanMany curand64_10.dll:curandCreateGenerator cusparse64_11.dll:cusparseCreate,cusparseSpMM
cusolver64_11.dll:cusolverDnCreate cudnn64_9.dll:cudnnCreate,cudnnGetVersion"
	[12]="cublas64_12.dll:cublasCreate_v2,cublasGemmEx cublasLt64_12.dll:cublasLtCreate,cublasLtMatmul
cufft64_11.dll:cufftXtMakePlanMany curand64_10.dll:curandCreateGenerator cusparse64_12.dll:cusparseCreate,cusparseSpMM
cusolver64_11.dll:cusolverDnCreate cudnn64_9.dll:cudnnCreate,cudnnGetVersion")

# The driver API caffe2_nvrtc.dll imports (aten/src/ATen/cuda/nvrtc_stub/ATenNVRTC.h,
# AT_FORALL_NVRTC for CUDA >= 11.1; cuda.h maps cuLinkCreate/cuLinkAddData to _v2).
CUDA_DRIVER_API="cuModuleLoadData,cuModuleLoadDataEx,cuModuleGetFunction,cuOccupancyMaxActiveBlocksPerMultiprocessor,cuGetErrorString,cuLaunchKernel,cuCtxGetCurrent,cuModuleUnload,cuDevicePrimaryCtxGetState,cuLinkCreate_v2,cuLinkAddData_v2,cuLinkComplete"
CUDA_NVRTC_API="nvrtcVersion,nvrtcAddNameExpression,nvrtcCreateProgram,nvrtcDestroyProgram,nvrtcGetPTXSize,nvrtcGetPTX,nvrtcGetCUBINSize,nvrtcGetCUBIN,nvrtcCompileProgram,nvrtcGetErrorString,nvrtcGetProgramLogSize,nvrtcGetProgramLog,nvrtcGetLoweredName"
CUDA_CUDART_API="cudaGetDeviceCount,cudaGetDevice,cudaSetDevice,cudaGetLastError,cudaGetErrorString,cudaDeviceSynchronize,cudaStreamCreateWithPriority,cudaMalloc,cudaFree,cudaDriverGetVersion,cudaRuntimeGetVersion"

# _nv_unpack PROJECT VERSION: print the folder holding the wheel's DLLs. The wheel is fetched
# (sha256 = PyPI's: tests/lib/wheels.py), its 64-bit DLLs extracted into $TDC_CACHE/nvidia/<sha256>/
# with a marker, WHEEL ("<file name> <sha256>"), and the wheel deleted: the cache keeps the DLLs once,
# keyed by the wheel they came from, not the wheel too (no other test uses NVIDIA's wheels).
_nv_unpack() {
	local whl sha name d t
	read -r name sha _ < <(python3 "$WHEELS_PY" resolve "$1" "$2")
	if [ -z "${sha:-}" ]; then
		echo "tree.sh: PyPI did not give the win_amd64 wheel of $1 $2" >&2
		return 3
	fi
	d=$TDC_CACHE/nvidia/$sha
	if [ -d "$d" ]; then
		# a folder without the marker is one an older tree.sh unpacked from the same wheel
		if [ -f "$d/WHEEL" ] && [ "$(cat "$d/WHEEL")" != "$name $sha" ]; then
			echo "tree.sh: $d/WHEEL names $(cat "$d/WHEEL"), not $name $sha" >&2
			return 1
		fi
		echo "$d"
		return 0
	fi
	whl=$(wheel_fetch "$1" "$2") || return 3
	[ "$(basename "$(dirname "$whl")")" = "$sha" ] || { echo "tree.sh: $whl is not $name $sha" >&2; return 1; }
	mkdir -p "$TDC_CACHE/nvidia" || return 1
	t=$(mktemp -d "$TDC_CACHE/nvidia/.unpack-XXXXXX") || return 1
	python3 - "$whl" "$t" <<'PYEOF' || { rm -rf "$t"; return 1; }
import os, shutil, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    b = os.path.basename(n)
    # the 32-bit runtime is not in torch\lib
    if n.lower().endswith(".dll") and "/bin/" in n and not b.startswith("cudart32_"):
        with z.open(n) as src, open(os.path.join(sys.argv[2], b), "wb") as f:
            shutil.copyfileobj(src, f, 1 << 20)
PYEOF
	printf '%s %s\n' "$name" "$sha" >"$t/WHEEL"
	mv "$t" "$d" 2>/dev/null || rm -rf "$t" # another run won the race with the same files
	# the wheel is no longer needed: delete it (only an NVIDIA wheel's folder, only its file)
	case ${whl##*/} in nvidia_*.whl) rm -f "$whl" && rmdir "${whl%/*}" 2>/dev/null ;; esac
	echo "$d"
}

# _nv_link PROJECT VERSION DEST [NAME...]: the wheel's 64-bit DLLs (or only NAME...) into DEST (hard links).
_nv_link() {
	local src f n
	src=$(_nv_unpack "$1" "$2") || return $?
	mkdir -p "$3"
	if [ $# -gt 3 ]; then
		for n in "${@:4}"; do
			[ -f "$src/$n" ] || { echo "tree.sh: $1 $2 has no $n" >&2; return 1; }
			ln -f "$src/$n" "$3/" 2>/dev/null || cp "$src/$n" "$3/"
		done
		return 0
	fi
	for f in "$src"/*.dll; do
		case ${f##*/} in cudart32_*) continue ;; esac # the 32-bit runtime is not in torch\lib
		ln -f "$f" "$3/" 2>/dev/null || cp "$f" "$3/"
	done
}

# _cuda_dll NAME OUT ARGS...: a look-alike, cached by its arguments.
_cuda_dll_build() { make_dll "$1/$2" "${@:3}"; }
_cuda_dll() {
	local name=$1 out=$2 d
	shift 2
	d=$(fx_build "cuda-$name" _cuda_dll_build "$name" "$@") || return 1
	ln -f "$d/$name" "$out" 2>/dev/null || cp "$d/$name" "$out"
}

cuda_tree() {
	local d=$1 var=$2 full=0 static=0 torchv sp lib nvrtc cudart nv
	shift 2
	torchv=${CUDA_TORCH[$var]:-}
	while [ $# -gt 0 ]; do
		case $1 in
		--full) full=1 ;;
		--static-nvcuda) static=1 ;;
		--torch) torchv=$2; shift ;;
		esac
		shift
	done
	[ -n "${CUDA_RT[$var]:-}" ] || { echo "tree.sh: no NVIDIA wheels known for $var" >&2; return 1; }
	sp=$d/Python311/Lib/site-packages
	lib=$sp/torch/lib
	mkdir -p "$d/Windows/System32" "$lib" || return 1
	cp -l "$CUDA_WINE_PE"/*.dll "$d/Windows/System32/" 2>/dev/null || cp "$CUDA_WINE_PE"/*.dll "$d/Windows/System32/" ||
		return 1
	rm -f "$d/Windows/System32/nvcuda.dll" # Wine may ship one (staging); a machine without the driver has none
	cp -l "$CUDA_WINE_PE/vcruntime140.dll" "$d/Python311/" 2>/dev/null || cp "$CUDA_WINE_PE/vcruntime140.dll" "$d/Python311/"
	_cuda_dll python.exe "$d/Python311/python.exe" --import KERNEL32.dll:GetLastError || return 1
	# shellcheck disable=SC2086  # "PROJECT VERSION"
	_nv_link ${CUDA_RT[$var]} "$lib" || return $?
	# shellcheck disable=SC2086
	_nv_link ${CUDA_NVRTC[$var]} "$lib" || return $?
	rm -f "$lib"/nvrtc64_*.alt.dll # the wheel's alternative build; copy.bat's nvrtc*64_*.dll would take it, torch loads it harmlessly
	cudart=$(cd "$lib" && ls cudart64_*.dll)
	nvrtc=$(cd "$lib" && ls nvrtc64_*_0.dll)
	# torch's CPU part, as far as the CUDA binaries import it
	_cuda_dll c10.dll "$lib/c10.dll" --msvc --export '?c10_cuda_check@c10@@YAXXZ' --export '?Error@c10@@QEAA@XZ' || return 1
	_cuda_dll torch_cpu.dll "$lib/torch_cpu.dll" --msvc --export '?torch_cpu_init@at@@YAXXZ' \
		--import 'c10.dll:?Error@c10@@QEAA@XZ' || return 1
	_cuda_dll "c10_cuda.dll-$cudart" "$lib/c10_cuda.dll" --name c10_cuda.dll --msvc \
		--export '?device_count@cuda@c10@@YAEXZ' --import 'c10.dll:?c10_cuda_check@c10@@YAXXZ' \
		--import "$cudart:$CUDA_CUDART_API" || return 1
	if [ "$static" = 1 ]; then
		nv=(--import "nvcuda.dll:$CUDA_DRIVER_API")
	else
		nv=(--delay-import "nvcuda.dll:$CUDA_DRIVER_API")
	fi
	_cuda_dll "caffe2_nvrtc.dll-$nvrtc-$static" "$lib/caffe2_nvrtc.dll" --name caffe2_nvrtc.dll --toolchain llvm --msvc \
		--export load_nvrtc --import "$nvrtc:$CUDA_NVRTC_API" "${nv[@]}" || return 1
	if [ "$full" = 1 ]; then
		local pv imp=()
		for pv in ${CUDA_OWN[$var]} ${CUDA_SHARED[${var:2:2}]}; do
			_nv_link "${pv%%:*}" "${pv##*:}" "$lib" || return $?
		done
		if [ "$var" = "$CUDA_CUDNN_ALL" ]; then
			_nv_link "${CUDA_CUDNN%%:*}" "${CUDA_CUDNN##*:}" "$lib" || return $?
		else
			# shellcheck disable=SC2086  # the names
			_nv_link "${CUDA_CUDNN%%:*}" "${CUDA_CUDNN##*:}" "$lib" $CUDA_CUDNN_SOME || return $?
		fi
		rm -f "$lib"/nvblas64_*.dll # copy.bat copies cublas*64_*.dll: not nvblas
		for pv in ${CUDA_TORCH_CUDA_IMPORTS[${var:2:2}]}; do imp+=(--import "$pv"); done
		_cuda_dll "torch_cuda.dll-$var" "$lib/torch_cuda.dll" --name torch_cuda.dll --msvc \
			--export '?torch_cuda_init@at@@YAXXZ' --import 'c10.dll:?Error@c10@@QEAA@XZ' \
			--import 'c10_cuda.dll:?device_count@cuda@c10@@YAEXZ' --import 'torch_cpu.dll:?torch_cpu_init@at@@YAXXZ' \
			--import "$cudart:cudaMemcpyAsync,cudaGetDevice" "${imp[@]}" || return 1
	fi
	local cuda=${var#cu}
	cuda=${cuda%?}.${cuda: -1}
	printf "__version__ = '%s+%s'\ndebug = False\ncuda: Optional[str] = '%s'\nhip: Optional[str] = None\n" \
		"$torchv" "$var" "$cuda" >"$sp/torch/version.py"
	mkdir -p "$sp/torch-$torchv+$var.dist-info"
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: %s+%s\n' "$torchv" "$var" >"$sp/torch-$torchv+$var.dist-info/METADATA"
	printf 'pip\n' >"$sp/torch-$torchv+$var.dist-info/INSTALLER"
	# RECORD as pip writes it, so that the install is one pip could have left (judge/record)
	python3 "$TDC_REPO/tests/lib/record.py" "$sp" "$sp/torch-$torchv+$var.dist-info" torch || return 1
	echo 'C:\Python311\python.exe'
}

# _reg_export FILE < text: as reg.exe writes it (UTF-16LE, BOM, CRLF).
_reg_export() {
	rm -f "$1" # a tree copied with hard links shares the file: write a new one
	{
		printf '\xff\xfe'
		sed 's/$/\r/' | iconv -f UTF-8 -t UTF-16LE
	} >"$1"
}

cuda_registry() {
	local d=$1 a i=0
	shift
	{
		printf 'Windows Registry Editor Version 5.00\n\n'
		printf '[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\n'
		printf '"Installed"=dword:00000001\n"Version"="v14.44.35211.00"\n"Major"=dword:0000000e\n"Minor"=dword:0000002c\n"Bld"=dword:0000898b\n"Rbld"=dword:00000000\n\n'
		printf '[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}]\n"Class"="Display"\n\n'
		for a in "$@"; do
			IFS='|' read -r prov desc ver <<<"$a"
			printf '[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\%04d]\n' "$i"
			printf '"ProviderName"="%s"\n"DriverDesc"="%s"\n"DriverVersion"="%s"\n\n' "$prov" "$desc" "$ver"
			i=$((i + 1))
		done
	} | _reg_export "$d/registry.reg"
}

# nv_file_version 551.61 -> 31.0.15.5161 (27.21.14.xxxx below 500: WDDM 2.7 era)
nv_file_version() {
	local maj=${1%.*} min=${1#*.} merged
	merged=$((10#$maj * 100 + 10#$min))
	if [ "$maj" -ge 500 ]; then
		echo "31.0.$((10 + merged / 10000)).$((merged % 10000))"
	else
		echo "27.21.$((10 + merged / 10000)).$((merged % 10000))"
	fi
}

cuda_driver() {
	local d=$1 drv=$2 fv sv company="NVIDIA Corporation" api=()
	fv=$(nv_file_version "$drv")
	sv=$fv
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--file-version) fv=$2; shift ;;
		--string-version) sv=$2; shift ;;
		--company) company=$2; shift ;;
		esac
		shift
	done
	local IFS_=$IFS f
	IFS=, read -ra fns <<<"$CUDA_DRIVER_API"
	IFS=$IFS_
	for f in "${fns[@]}"; do api+=(--export "$f"); done
	_cuda_dll "nvcuda.dll-$fv-$sv-$company" "$d/Windows/System32/nvcuda.dll" --name nvcuda.dll --msvc \
		--export cuInit --export cuDriverGetVersion --export cuGetProcAddress_v2 "${api[@]}" \
		--version "$fv" --version-string "FileVersion=$sv" --version-string "CompanyName=$company" \
		--version-string "ProductName=NVIDIA CUDA $drv driver" --version-string "OriginalFilename=nvcuda.dll"
}

cuda_toolkit() {
	local d=$1 ver=$2 var=$3 bin
	bin="$d/${4:-Program Files/NVIDIA GPU Computing Toolkit/CUDA/v$ver/bin}"
	# shellcheck disable=SC2086
	_nv_link ${CUDA_RT[$var]} "$bin" || return $?
	# shellcheck disable=SC2086
	_nv_link ${CUDA_NVRTC[$var]} "$bin" || return $?
}
