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
#                     cuRAND, cuSPARSE, cuSOLVER, cuDNN (with --full: those
#                     libraries are 1.5-2.5 GB unpacked per CUDA release, the
#                     NVIDIA wheels of CUDA_FULL; every tree of test_cuda has them)
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
# unpacked once into $TDC_CACHE/nvidia/<wheel sha256>/ and hard-linked.

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
# cuDNN): the versions we take the Linux wheels of CUDA_TORCH[variant] to pin in their METADATA
# (not re-read from them here), as win_amd64 wheels
declare -gA CUDA_FULL=(
	[cu118]="nvidia-cublas-cu11:11.11.3.6 nvidia-cufft-cu11:10.9.0.58 nvidia-curand-cu11:10.3.0.86
nvidia-cusolver-cu11:11.4.1.48 nvidia-cusparse-cu11:11.7.5.86 nvidia-cudnn-cu11:9.1.0.70"
	[cu121]="nvidia-cublas-cu12:12.1.3.1 nvidia-cufft-cu12:11.0.2.54 nvidia-curand-cu12:10.3.2.106
nvidia-cusolver-cu12:11.4.5.107 nvidia-cusparse-cu12:12.1.0.106 nvidia-nvjitlink-cu12:12.1.105 nvidia-cudnn-cu12:9.1.0.70"
	[cu124]="nvidia-cublas-cu12:12.4.5.8 nvidia-cufft-cu12:11.2.1.3 nvidia-curand-cu12:10.3.5.147
nvidia-cusolver-cu12:11.6.1.9 nvidia-cusparse-cu12:12.3.1.170 nvidia-nvjitlink-cu12:12.4.127 nvidia-cudnn-cu12:9.1.0.70"
	[cu126]="nvidia-cublas-cu12:12.6.4.1 nvidia-cufft-cu12:11.3.0.4 nvidia-curand-cu12:10.3.7.77
nvidia-cusolver-cu12:11.7.1.2 nvidia-cusparse-cu12:12.5.4.2 nvidia-nvjitlink-cu12:12.6.85 nvidia-cudnn-cu12:9.5.1.17"
	[cu128]="nvidia-cublas-cu12:12.8.4.1 nvidia-cufft-cu12:11.3.3.83 nvidia-curand-cu12:10.3.9.90
nvidia-cusolver-cu12:11.7.3.90 nvidia-cusparse-cu12:12.5.8.93 nvidia-nvjitlink-cu12:12.8.93 nvidia-cudnn-cu12:9.10.2.21")
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

# _nv_unpack PROJECT VERSION: print the folder holding the wheel's DLLs (unpacked once).
_nv_unpack() {
	local whl sha d
	whl=$(wheel_fetch "$1" "$2") || return 3
	sha=$(basename "$(dirname "$whl")")
	d=$TDC_CACHE/nvidia/$sha
	if [ ! -d "$d" ]; then
		mkdir -p "$TDC_CACHE/nvidia" || return 1
		local t
		t=$(mktemp -d "$TDC_CACHE/nvidia/.unpack-XXXXXX") || return 1
		python3 - "$whl" "$t" <<'PYEOF' || { rm -rf "$t"; return 1; }
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.lower().endswith(".dll") and "/bin/" in n:
        with open(os.path.join(sys.argv[2], os.path.basename(n)), "wb") as f:
            f.write(z.read(n))
PYEOF
		mv "$t" "$d" 2>/dev/null || rm -rf "$t" # another run won the race with the same files
	fi
	echo "$d"
}

# _nv_link PROJECT VERSION DEST: the wheel's 64-bit DLLs into DEST (hard links).
_nv_link() {
	local src f
	src=$(_nv_unpack "$1" "$2") || return $?
	mkdir -p "$3"
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
		for pv in ${CUDA_FULL[$var]}; do
			_nv_link "${pv%%:*}" "${pv##*:}" "$lib" || return $?
		done
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
