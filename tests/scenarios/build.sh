#!/usr/bin/env bash
# shellcheck disable=SC2054  # make_dll import specs hold commas
# build.sh: generates the loader scenario trees, prints their directory.
#
#   bash tests/scenarios/build.sh            build (or reuse) every scenario
#   bash tests/scenarios/build.sh --list     the scenario names, one per line
#
# Each scenario is a fake C:\ (a host directory standing for the drive),
# `<dir>/<name>/root`, holding:
#   Windows/System32     the Wine prefix's real system32 (the Windows the
#                        oracle really runs on) as hard links (a copy on
#                        another file system), minus what the scenario
#                        removes (e.g. vcruntime140_1.dll). Not a symbolic
#                        link: --root is a boundary the checker does not
#                        follow links out of
#   <python dir>/python.exe    the oracle (tests/oracle/torchload_oracle.c):
#                        placed as python.exe, its directory is the
#                        application directory, as python.exe's is for torch
#   <python dir>/python311.dll and torch's stand-ins under
#   Lib/site-packages/torch: lib/*.dll, _C.cp311-win_amd64.pyd
# and `<dir>/<name>/meta`, bash assignments the test reads: the python and
# torch directories, torch's dll_paths (as torch computes them for this
# tree), the .pyd files CPython loads, the PATH entries the scenario adds,
# Wine DLL overrides, files the Wine prefix's C:\windows must hold, and the
# checker's --env options.
#
# The stand-ins are small DLLs built by tests/lib/fixtures.sh (make_dll) that
# import each other the way torch 2.x's CPU wheel does: fbgemm → asmjit,
# libiomp5md; torch_cpu → c10, fbgemm, asmjit, libiomp5md, uv; torch_python →
# torch_cpu, c10, python311; _C.pyd → torch_python, python311; all with the
# imports of an MSVC /MD DLL (KERNEL32, VCRUNTIME140, api-ms-win-crt-*) and
# the C++ ones (VCRUNTIME140_1, MSVCP140) where torch's have them. Every
# imported name exists in Wine's real DLLs, so a healthy tree loads cleanly.
#
# Cache: $TDC_CACHE/scenarios/<key>, key = hash of this script, fixtures.sh,
# the oracle's source, the tool versions and the Wine prefix path. Built in a
# temporary directory and renamed into place.
set -u
SCN_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCN_SRC/../.." && pwd)
# shellcheck source=tests/lib/fixtures.sh
source "$REPO/tests/lib/fixtures.sh"
# shellcheck source=tests/oracle/wine.sh
source "$REPO/tests/oracle/wine.sh"

SCENARIOS=(
	healthy libomp140_missing libomp140_in_torch_lib libomp140_on_path libomp140_lacks_symbol
	vcruntime140_1_missing x86_in_torch_lib x86_shadows_x64 old_msvcp140_app_local
	forwarder_to_missing_dll missing_ordinal delay_import_missing import_cycle
	satisfied_by_earlier_load empty_dll userbase_library_bin four_level_chain letter_case
	non_ascii_dirs conda_env windows_dir_only dependent_load_flags pyd_dll_load_dir_deeper
	venv_base_library_bin cuda_path_added cuda_path_skipped api_sets known_dll_shadow
	deep_import_chain forwarder_chain_20 hidden_dot_dll folder_named_dll stale_pyd_tags
	trailing_dot_import same_dll_two_user_dirs quoted_path_entry relative_path_entry
	msvcp140_app_local_lacks_symbol dbghelp_app_local_lacks_symbol imports_by_path folder_on_search_path
	exe_image_in_torch_lib path_entry_trailing_period userbase_trailing_period
)

# ---- helpers ---------------------------------------------------------------

# sdll OUT MAKE_DLL_ARGS...: make_dll, cached per DLL (key: name, args, fx_hash).
sdll() {
	local out=$1 name
	shift
	name=$(basename "$out")
	local key c
	key=$(printf '%s\0' "$name" "$@" "$(fx_hash)" | sha256sum | cut -c1-24)
	c=$DLL_CACHE/$key
	if [ ! -f "$c" ]; then
		make_dll "$c.tmp.$$" --name "$name" "$@" || { echo "build.sh: make_dll $name failed" >&2; return 1; }
		mv "$c.tmp.$$" "$c"
	fi
	mkdir -p "$(dirname "$out")"
	cp "$c" "$out"
}

# sys32_remove NAME...: System32 without these files (removing a hard link
# leaves the prefix's file alone).
sys32_remove() {
	local n
	for n in "$@"; do rm -f "$R/Windows/System32/$n"; done
}

# host WINPATH: the host path of a C:\ path in the current scenario.
host() {
	local p=${1#[Cc]:\\}
	echo "$R/${p//\\//}"
}

# meta NAME VALUE...: records a bash array in the scenario's meta file, and
# the same values as NAME<TAB>VALUE lines in meta.tsv (for compare.py).
meta() {
	local name=$1 v
	shift
	{
		printf '%s=(' "$name"
		[ $# -gt 0 ] && printf ' %q' "$@"
		printf ' )\n'
	} >>"$M"
	for v in "$@"; do printf '%s\t%s\n' "$name" "$v" >>"$M.tsv"; done
}

scn_begin() {
	S=$1
	R=$OUT/$S/root
	M=$OUT/$S/meta
	mkdir -p "$R/Windows"
	# hard links: as cheap as the symbolic link was, and inside the root
	cp -al "$PFX/drive_c/windows/system32" "$R/Windows/System32" 2>/dev/null ||
		cp -a "$PFX/drive_c/windows/system32" "$R/Windows/System32" || return 1
	: >"$M"
	: >"$M.tsv"
	meta DESCRIPTION "$2"
	# Per-scenario knobs, reset for each scenario:
	declare -gA XA=() # extra args per stand-in, NUL-separated
	declare -ga OMIT=() PATH_ADD=() WINE_OVR=() WINDIR_FILES=() CHECK_ENV=() DLL_PATHS_ADD=()
	USERNAME_=runner
	PYDIR='C:\Python311' # where python.exe (the oracle) runs: the application dir
	SITE=           # site-packages (default: $PYDIR\Lib\site-packages)
	EXEC_PREFIX=    # sys.exec_prefix (default $PYDIR); a venv's root differs
	CHECK_PYTHON=   # the python.exe the checker is given (default $PYDIR\python.exe)
	CUDA_VERSION=   # torch.version.cuda of the stand-in install
}

# extra NAME ARGS...: more make_dll args for stand-in NAME (e.g. fbgemm.dll).
extra() {
	local n=$1
	shift
	local a
	for a in "$@"; do XA[$n]+="$a"$'\x1f'; done
}

_args_of() {
	local n=$1 a
	local -a out=()
	if [ -n "${XA[$n]:-}" ]; then
		IFS=$'\x1f' read -ra out <<<"${XA[$n]%$'\x1f'}"
	fi
	EXTRA=("${out[@]}")
}

omitted() {
	local o
	for o in "${OMIT[@]}"; do [ "$o" = "$1" ] && return 0; done
	return 1
}

# stand NAME DIR_WINPATH BASE_ARGS...: builds stand-in NAME into DIR unless omitted.
stand() {
	local n=$1 dir=$2
	shift 2
	omitted "$n" && return 0
	_args_of "$n"
	sdll "$(host "$dir")/$n" "$@" "${EXTRA[@]}"
}

# libiomp5md's exports (with explicit ordinals, as Intel's has: Base 10, so
# torch_cpu's import of ordinal 12 is export index 2); a stand-in
# imports a given name from one DLL only (fixtures.sh), so fbgemm takes
# omp_get_num_procs from libiomp5md and omp_get_max_threads from libomp140.
IOMP_EXPORTS=(--import KERNEL32.dll:GetLastError --export 'omp_get_max_threads @10'
	--export 'omp_get_num_threads @11' --export '__kmpc_fork_call @12' --export '__kmpc_barrier @13'
	--export 'omp_get_num_procs @14')
CXX=(--import VCRUNTIME140_1.dll:__CxxFrameHandler4 --import MSVCP140.dll:_Thrd_yield,_Mtx_init)

# python_install: python.exe (the oracle) and python311.dll in $PYDIR.
python_install() {
	local d
	d=$(host "$PYDIR")
	mkdir -p "$d"
	cp "$ORACLE" "$d/python.exe"
	stand python311.dll "$PYDIR" --msvc --export PyModule_Create2 --export Py_Initialize
}

# torch_install: torch's stand-ins under $PYDIR\Lib\site-packages\torch.
torch_install() {
	TORCH="${SITE:-$PYDIR\\Lib\\site-packages}\\torch"
	local L="$TORCH\\lib"
	mkdir -p "$(host "$L")"
	stand asmjit.dll "$L" --msvc --export asmjit_init
	stand c10.dll "$L" --msvc "${CXX[@]}" --export c10_alloc --export c10_free
	stand fbgemm.dll "$L" --msvc "${CXX[@]}" --import asmjit.dll:asmjit_init \
		--import libiomp5md.dll:omp_get_num_procs,__kmpc_fork_call --export fbgemm_gemm
	stand libiomp5md.dll "$L" "${IOMP_EXPORTS[@]}"
	stand uv.dll "$L" --msvc --import WS2_32.dll:WSAStartup --export uv_loop_init
	stand torch_cpu.dll "$L" --msvc "${CXX[@]}" --import c10.dll:c10_alloc --import fbgemm.dll:fbgemm_gemm \
		--import asmjit.dll:asmjit_init --import libiomp5md.dll:omp_get_num_threads \
		--import-ordinal libiomp5md.dll:12 --import uv.dll:uv_loop_init --export torch_cpu_init
	stand torch_global_deps.dll "$L" --msvc --export global_deps_anchor
	stand torch_python.dll "$L" --msvc "${CXX[@]}" --import torch_cpu.dll:torch_cpu_init \
		--import c10.dll:c10_alloc --import python311.dll:PyModule_Create2 --export initModule
	stand _C.cp311-win_amd64.pyd "$TORCH" --import KERNEL32.dll:GetLastError \
		--import torch_python.dll:initModule --import python311.dll:PyModule_Create2 --export PyInit__C
}

# scn_end: computes torch's dll_paths for the tree and writes the meta file.
scn_end() {
	local appdata="C:\\Users\\$USERNAME_\\AppData\\Roaming"
	local -a dll_paths=("$TORCH\\lib")
	local exec_prefix=${EXEC_PREFIX:-$PYDIR} base_prefix=$PYDIR
	# torch: sys.exec_prefix\Library\bin, (venv: base_exec_prefix\Library\bin),
	# userbase\Library\bin, each only if it exists; userbase on Windows is
	# %APPDATA%\Python. In a venv the running python.exe is the base one
	# (Scripts\python.exe is a launcher): base_exec_prefix = $PYDIR.
	[ -d "$(host "$exec_prefix\\Library\\bin")" ] && dll_paths+=("$exec_prefix\\Library\\bin")
	[ "$exec_prefix" != "$base_prefix" ] && [ -d "$(host "$base_prefix\\Library\\bin")" ] &&
		dll_paths+=("$base_prefix\\Library\\bin")
	[ -d "$(host "$appdata\\Python\\Library\\bin")" ] && dll_paths+=("$appdata\\Python\\Library\\bin")
	# CUDA builds: %CUDA_PATH_V<M>_<m>%\bin (default under %ProgramFiles%) only
	# when no dll_paths folder holds a cudart64*.dll.
	if [ -n "$CUDA_VERSION" ]; then
		local d has=0
		for d in "${dll_paths[@]}"; do
			compgen -G "$(host "$d")/cudart64*.dll" >/dev/null && has=1
		done
		local cbin="C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v$CUDA_VERSION\\bin"
		[ $has = 0 ] && [ -d "$(host "$cbin")" ] && dll_paths+=("$cbin")
		CHECK_ENV+=("CUDA_PATH_V${CUDA_VERSION//./_}=${cbin%\\bin}")
	fi
	dll_paths+=("${DLL_PATHS_ADD[@]}") # as torch passes them: its os.path.exists saw the folder
	local -a pyds=()
	local f
	while IFS= read -r f; do
		f=${f#"$R"/}
		pyds+=("C:\\${f//\//\\}")
	done < <(/usr/bin/python3 "$SCN_SRC/cpython_pyds.py" "$(host "$TORCH")" cp311 win_amd64)
	meta PYDIR "$PYDIR"
	meta TORCH "$TORCH"
	meta DLL_PATHS "${dll_paths[@]}"
	meta PYDS "${pyds[@]}"
	meta PATH_ADD "${PATH_ADD[@]}"
	meta WINE_OVR "${WINE_OVR[@]}"
	meta WINDIR_FILES "${WINDIR_FILES[@]}"
	meta CHECK_ENV "APPDATA=$appdata" "USERPROFILE=C:\\Users\\$USERNAME_" "ProgramFiles=C:\\Program Files" \
		"${CHECK_ENV[@]}"
	meta CHECK_PYTHON "${CHECK_PYTHON:-$PYDIR\\python.exe}"
}

# omp140_torch: a python.org install whose fbgemm.dll imports
# libomp140.x86_64.dll (as torch 2.4.0's does); where that DLL is, if
# anywhere, the scenario says.
omp140_torch() {
	python_install
	extra fbgemm.dll --import libomp140.x86_64.dll:omp_get_max_threads,omp_get_num_threads
	torch_install
}

# omp140_on_path ENTRY: omp140_torch, libomp140.x86_64.dll only in
# C:\Tools\omp, and ENTRY (that folder as a scenario writes it) added to PATH.
omp140_on_path() {
	omp140_torch
	stand libomp140.x86_64.dll 'C:\Tools\omp' --msvc --export omp_get_max_threads --export omp_get_num_threads
	PATH_ADD=("$1")
}

# ---- the scenarios -----------------------------------------------------------

scn_exe_image_in_torch_lib() {
	scn_begin exe_image_in_torch_lib "torch\\lib\\exe_tool.dll is an executable image (no IMAGE_FILE_DLL) importing an absent DLL: LoadLibraryExW does not load an executable's static imports, so it loads"
	python_install
	torch_install
	local key c out
	out=$(host "$TORCH\\lib")/exe_tool.dll
	key=$(printf '%s\0' exe_tool "$(fx_hash)" | sha256sum | cut -c1-24)
	c=$DLL_CACHE/$key.exe
	if [ ! -f "$c" ]; then
		make_exe "$c.tmp.$$" --import absent_for_exe.dll:absent_init --import KERNEL32.dll:GetLastError || return 1
		mv "$c.tmp.$$" "$c"
	fi
	cp "$c" "$out"
	scn_end
}

scn_path_entry_trailing_period() {
	scn_begin path_entry_trailing_period "libomp140.x86_64.dll only in C:\\Tools\\omp, on PATH as C:\\Tools\\omp. (a trailing period, which Win32 normalisation removes): fbgemm loads through torch's PATH fallback"
	omp140_on_path 'C:\Tools\omp.'
	scn_end
}

scn_userbase_trailing_period() {
	scn_begin userbase_trailing_period "libiomp5md.dll only in C:\\x\\ub\\Library\\bin with PYTHONUSERBASE=C:\\x\\ub. (a trailing period): torch's os.path.exists and AddDllDirectory see C:\\x\\ub\\Library\\bin, so it loads"
	python_install
	OMIT=(libiomp5md.dll)
	torch_install
	OMIT=()
	stand libiomp5md.dll 'C:\x\ub\Library\bin' "${IOMP_EXPORTS[@]}"
	DLL_PATHS_ADD=('C:\x\ub.\Library\bin')
	CHECK_ENV+=('PYTHONUSERBASE=C:\x\ub.')
	scn_end
}

scn_healthy() {
	scn_begin healthy "torch CPU wheel in a python.org install: every binary loads"
	python_install
	torch_install
	scn_end
}

scn_libomp140_missing() {
	scn_begin libomp140_missing "torch 2.4.0: fbgemm.dll imports libomp140.x86_64.dll, present nowhere (pytorch#131662)"
	omp140_torch
	scn_end
}

scn_libomp140_in_torch_lib() {
	scn_begin libomp140_in_torch_lib "fbgemm.dll imports libomp140.x86_64.dll, shipped in torch\\lib: loads"
	omp140_torch
	stand libomp140.x86_64.dll "$TORCH\\lib" --msvc --export omp_get_max_threads --export omp_get_num_threads
	scn_end
}

scn_libomp140_on_path() {
	scn_begin libomp140_on_path "libomp140.x86_64.dll only in a PATH folder: fbgemm loads only through torch's PATH fallback"
	omp140_on_path 'C:\Tools\omp'
	scn_end
}

scn_libomp140_lacks_symbol() {
	scn_begin libomp140_lacks_symbol "libomp140.x86_64.dll in torch\\lib lacks omp_get_max_threads: 127"
	omp140_torch
	stand libomp140.x86_64.dll "$TORCH\\lib" --msvc --export omp_get_num_threads
	scn_end
}

scn_vcruntime140_1_missing() {
	scn_begin vcruntime140_1_missing "no vcruntime140_1.dll anywhere (old redistributable): every C++ DLL fails with 126"
	python_install
	torch_install
	sys32_remove vcruntime140_1.dll
	WINE_OVR=('vcruntime140_1=')
	scn_end
}

scn_x86_in_torch_lib() {
	scn_begin x86_in_torch_lib "a 32-bit asmjit.dll in torch\\lib: 193 for itself; its importers find only the 32-bit file"
	python_install
	extra asmjit.dll --machine x86
	torch_install
	scn_end
}

scn_x86_shadows_x64() {
	scn_begin x86_shadows_x64 "a 32-bit libiomp5md.dll in torch\\lib and a 64-bit one in the userbase Library\\bin: is the wrong-architecture candidate skipped?"
	python_install
	extra libiomp5md.dll --machine x86
	torch_install
	# sdll, not stand: the extra --machine x86 is for torch\lib's copy only.
	sdll "$(host 'C:\Users\runner\AppData\Roaming\Python\Library\bin')/libiomp5md.dll" "${IOMP_EXPORTS[@]}"
	scn_end
}

scn_old_msvcp140_app_local() {
	scn_begin old_msvcp140_app_local "an older msvcp140.dll (14.29) next to python.exe wins over a newer one (14.40) in the userbase Library\\bin and System32's: loads, shadowing warning"
	python_install
	stand msvcp140.dll "$PYDIR" --msvc --export _Thrd_yield --export _Mtx_init --version 14.29.30133.0
	sdll "$(host 'C:\Users\runner\AppData\Roaming\Python\Library\bin')/msvcp140.dll" --msvc \
		--export _Thrd_yield --export _Mtx_init --version 14.40.33810.0
	torch_install
	scn_end
}

scn_forwarder_to_missing_dll() {
	scn_begin forwarder_to_missing_dll "libiomp5md.dll forwards omp_get_num_procs (imported by fbgemm) to libiompstubs5md.dll, which is absent"
	python_install
	OMIT=(libiomp5md.dll)
	torch_install
	OMIT=()
	stand libiomp5md.dll "$TORCH\\lib" --import KERNEL32.dll:GetLastError \
		--export 'omp_get_num_procs = libiompstubs5md.omp_get_num_procs' \
		--export 'omp_get_num_threads @11' --export '__kmpc_fork_call @12' --export '__kmpc_barrier @13'
	scn_end
}

scn_missing_ordinal() {
	scn_begin missing_ordinal "fbgemm.dll imports libiomp5md.dll by ordinal 99, which it does not export: 182"
	python_install
	extra fbgemm.dll --import-ordinal libiomp5md.dll:99
	torch_install
	scn_end
}

scn_delay_import_missing() {
	scn_begin delay_import_missing "torch_cpu.dll delay-imports cupti64_2024.1.0.dll, absent: loads (fails only on first call)"
	python_install
	extra torch_cpu.dll --delay-import cupti64_2024.1.0.dll:cuptiActivityEnable
	torch_install
	scn_end
}

scn_import_cycle() {
	scn_begin import_cycle "asmjit.dll and fbgemm.dll import each other: loads"
	python_install
	extra asmjit.dll --import fbgemm.dll:fbgemm_gemm
	torch_install
	scn_end
}

scn_satisfied_by_earlier_load() {
	scn_begin satisfied_by_earlier_load "fbgemm (earlier) and torch_cpu (later) import libomp140 from a PATH-only folder: fbgemm loads via PATH; torch_cpu then finds it in the loaded-module list with 0x1100"
	python_install
	extra fbgemm.dll --import libomp140.x86_64.dll:omp_get_max_threads
	extra torch_cpu.dll --import libomp140.x86_64.dll:omp_get_max_threads
	torch_install
	stand libomp140.x86_64.dll 'C:\Tools\omp' --msvc --export omp_get_max_threads
	PATH_ADD=('C:\Tools\omp')
	scn_end
}

scn_empty_dll() {
	scn_begin empty_dll "libiomp5md.dll in torch\\lib is 0 bytes (quarantined by an antivirus)"
	python_install
	OMIT=(libiomp5md.dll)
	torch_install
	: >"$(host "$TORCH\\lib")/libiomp5md.dll"
	scn_end
}

scn_userbase_library_bin() {
	scn_begin userbase_library_bin "libiomp5md.dll only in the userbase %APPDATA%\\Python\\Library\\bin (pip --user intel-openmp): loads"
	python_install
	OMIT=(libiomp5md.dll)
	torch_install
	OMIT=()
	stand libiomp5md.dll 'C:\Users\runner\AppData\Roaming\Python\Library\bin' "${IOMP_EXPORTS[@]}"
	scn_end
}

scn_four_level_chain() {
	scn_begin four_level_chain "asmjit → asmjit_ext → libdeep → deepest_missing.dll (absent): every importer reports the chain"
	python_install
	extra asmjit.dll --import asmjit_ext.dll:ext_init
	torch_install
	stand asmjit_ext.dll "$TORCH\\lib" --msvc --import libdeep.dll:deep_init --export ext_init
	stand libdeep.dll "$TORCH\\lib" --msvc --import deepest_missing.dll:leaf_init --export deep_init
	scn_end
}

scn_letter_case() {
	scn_begin letter_case "imports spelled C10.DLL/FBGEMM.dll/Asmjit.Dll, files named Asmjit.DLL, LIBIOMP5MD.dll, and torchaudio.dll beside torch_cpu.dll (NTFS order): loads"
	python_install
	OMIT=(asmjit.dll libiomp5md.dll torch_cpu.dll)
	torch_install
	OMIT=()
	local L="$TORCH\\lib"
	sdll "$(host "$L")/Asmjit.DLL" --msvc --export asmjit_init
	sdll "$(host "$L")/LIBIOMP5MD.dll" "${IOMP_EXPORTS[@]}"
	sdll "$(host "$L")/torch_cpu.dll" --msvc "${CXX[@]}" --import C10.DLL:c10_alloc --import FBGEMM.dll:fbgemm_gemm \
		--import Asmjit.Dll:asmjit_init --import libIOMP5md.DLL:omp_get_num_threads \
		--import UV.dll:uv_loop_init --export torch_cpu_init
	# NTFS compares upper-cased names: "TORCHAUDIO" < "TORCH_CPU" ('A' 0x41 <
	# '_' 0x5F); a lower-casing sort says the opposite ('_' < 'a' 0x61).
	sdll "$(host "$L")/torchaudio.dll" --msvc --export ta_init
	scn_end
}

scn_non_ascii_dirs() {
	scn_begin non_ascii_dirs "python in C:\\Users\\Jürgen\\...\\Python311 (non-ASCII) and fbgemm missing libomp140: paths and probes survive"
	USERNAME_=Jürgen
	PYDIR='C:\Users\Jürgen\AppData\Local\Programs\Python\Python311'
	python_install
	extra fbgemm.dll --import libomp140.x86_64.dll:omp_get_max_threads
	torch_install
	stand libiomp5md.dll 'C:\Users\Jürgen\AppData\Roaming\Python\Library\bin' --import KERNEL32.dll:GetLastError \
		--export 'omp_get_max_threads @10'
	scn_end
}

scn_conda_env() {
	scn_begin conda_env "a conda env: libiomp5md.dll in <env>\\Library\\bin (intel-openmp), not in torch\\lib: loads"
	PYDIR='C:\Users\runner\miniconda3\envs\torch'
	python_install
	OMIT=(libiomp5md.dll)
	torch_install
	OMIT=()
	stand libiomp5md.dll "$PYDIR\\Library\\bin" "${IOMP_EXPORTS[@]}"
	scn_end
}

scn_windows_dir_only() {
	scn_begin windows_dir_only "fbgemm imports tdc_windir_only.dll, present only in C:\\Windows: 126 with 0x1100, loads through the PATH fallback (standard order searches the Windows dir)"
	python_install
	extra fbgemm.dll --import tdc_windir_only.dll:windir_fn
	torch_install
	stand tdc_windir_only.dll 'C:\Windows' --msvc --export windir_fn
	WINDIR_FILES=(tdc_windir_only.dll)
	scn_end
}

scn_dependent_load_flags() {
	scn_begin dependent_load_flags "fbgemm.dll has DependentLoadFlags=0x800 (System32 only) and imports asmjit/libiomp5md from torch\\lib"
	python_install
	extra fbgemm.dll --dependent-load-flags 0x800
	torch_install
	scn_end
}

scn_pyd_dll_load_dir_deeper() {
	scn_begin pyd_dll_load_dir_deeper "_C.pyd imports torch_shm.dll (torch\\lib) which imports shm_leaf.dll, present only in torch\\ (the .pyd's folder): does DLL_LOAD_DIR reach the second level?"
	python_install
	extra _C.cp311-win_amd64.pyd --import torch_shm.dll:shm_init
	torch_install
	stand torch_shm.dll "$TORCH\\lib" --msvc --import shm_leaf.dll:leaf_init --export shm_init
	stand shm_leaf.dll "$TORCH" --msvc --export leaf_init
	scn_end
}

scn_venv_base_library_bin() {
	scn_begin venv_base_library_bin "a venv (C:\\proj\\.venv, home = C:\\Python311): the process runs the base python.exe; libiomp5md.dll only in the base's Library\\bin"
	python_install
	stand libiomp5md.dll "$PYDIR\\Library\\bin" "${IOMP_EXPORTS[@]}"
	local venv='C:\proj\.venv'
	mkdir -p "$(host "$venv")/Scripts"
	cp "$ORACLE" "$(host "$venv")/Scripts/python.exe" # the launcher; never the process
	printf 'home = C:\\Python311\r\ninclude-system-site-packages = false\r\nversion = 3.11.9\r\n' \
		>"$(host "$venv")/pyvenv.cfg"
	SITE="$venv\\Lib\\site-packages"
	EXEC_PREFIX=$venv
	CHECK_PYTHON="$venv\\Scripts\\python.exe"
	OMIT=(libiomp5md.dll)
	torch_install
	scn_end
}

# torch_cuda.dll and torch\version.py of a CUDA 12.1 build.
cuda_install() {
	CUDA_VERSION=12.1
	printf "__version__ = '2.4.0+cu121'\ncuda: Optional[str] = '12.1'\n" >"$(host "$TORCH")/version.py"
	sdll "$(host "$TORCH\\lib")/torch_cuda.dll" --msvc "${CXX[@]}" --import c10.dll:c10_alloc \
		--import torch_cpu.dll:torch_cpu_init --import cudart64_12.dll:cudaMalloc \
		--import cublas64_12.dll:cublasCreate_v2 --export torch_cuda_init
}

CUDA_BIN='C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.1\bin'

scn_cuda_path_added() {
	scn_begin cuda_path_added "CUDA 12.1 build without cudart in torch\\lib: torch adds %CUDA_PATH_V12_1%\\bin, where cudart64_12/cublas64_12 are: loads"
	python_install
	torch_install
	cuda_install
	sdll "$(host "$CUDA_BIN")/cudart64_12.dll" --msvc --export cudaMalloc
	sdll "$(host "$CUDA_BIN")/cublas64_12.dll" --msvc --export cublasCreate_v2
	scn_end
}

scn_cuda_path_skipped() {
	scn_begin cuda_path_skipped "CUDA build bundling cudart64_12.dll in torch\\lib: torch does not add the CUDA toolkit's bin, so cublas64_12.dll there is not found (126)"
	python_install
	torch_install
	cuda_install
	sdll "$(host "$TORCH\\lib")/cudart64_12.dll" --msvc --export cudaMalloc
	sdll "$(host "$CUDA_BIN")/cudart64_12.dll" --msvc --export cudaMalloc
	sdll "$(host "$CUDA_BIN")/cublas64_12.dll" --msvc --export cublasCreate_v2
	scn_end
}

scn_api_sets() {
	scn_begin api_sets "API set contracts: a known one (host kernelbase, export forwarded to ntdll), one in upper case, one the schema does not know (126)"
	python_install
	torch_install
	local L="$TORCH\\lib"
	sdll "$(host "$L")/apiset_known.dll" --import KERNEL32.dll:GetLastError \
		--import api-ms-win-core-synch-l1-2-0.dll:AcquireSRWLockExclusive,InitializeSRWLock --export k
	sdll "$(host "$L")/apiset_upper.dll" --import KERNEL32.dll:GetLastError \
		--import API-MS-WIN-CRT-HEAP-L1-1-0.DLL:malloc,free --export u
	sdll "$(host "$L")/apiset_unknown.dll" --import KERNEL32.dll:GetLastError \
		--import api-ms-win-tdc-notacontract-l1-1-0.dll:TdcNothing --export n
	scn_end
}

scn_known_dll_shadow() {
	scn_begin known_dll_shadow "a ws2_32.dll without WSAStartup in torch\\lib: uv.dll's import by name takes the KnownDLL from System32; the impostor itself loads by full path"
	python_install
	torch_install
	sdll "$(host "$TORCH\\lib")/ws2_32.dll" --import KERNEL32.dll:GetLastError --export tdc_not_winsock
	scn_end
}

# USERBASE_BIN: torch's userbase dll_paths folder in every scenario (%APPDATA%\Python\Library\bin).
USERBASE_BIN='C:\Users\runner\AppData\Roaming\Python\Library\bin'

scn_deep_import_chain() {
	scn_begin deep_import_chain "asmjit.dll starts an import chain 70 DLLs deep (chain0 → … → chain69, in the userbase Library\\bin): loads — Windows has no depth limit"
	python_install
	extra asmjit.dll --import chain0.dll:chain_0
	torch_install
	local i
	for i in $(seq 0 69); do
		if [ "$i" -lt 69 ]; then
			sdll "$(host "$USERBASE_BIN")/chain$i.dll" --import "chain$((i + 1)).dll:chain_$((i + 1))" --export "chain_$i"
		else
			sdll "$(host "$USERBASE_BIN")/chain$i.dll" --import KERNEL32.dll:GetLastError --export "chain_$i"
		fi
	done
	scn_end
}

scn_forwarder_chain_20() {
	scn_begin forwarder_chain_20 "fbgemm.dll imports fwd0.dll!fwd_sym, forwarded fwd0 → fwd1 → … → fwd19 (20 forwarders, no loop): loads"
	python_install
	extra fbgemm.dll --import fwd0.dll:fwd_sym
	torch_install
	local i
	for i in $(seq 0 19); do
		if [ "$i" -lt 19 ]; then
			sdll "$(host "$USERBASE_BIN")/fwd$i.dll" --import KERNEL32.dll:GetLastError --export "fwd_sym = fwd$((i + 1)).fwd_sym"
		else
			sdll "$(host "$USERBASE_BIN")/fwd$i.dll" --import KERNEL32.dll:GetLastError --export fwd_sym
		fi
	done
	scn_end
}

scn_hidden_dot_dll() {
	scn_begin hidden_dot_dll "torch\\lib\\._fbgemm.dll (an AppleDouble file a copy from macOS leaves, not a PE): glob skips dot-files, so it is never loaded"
	python_install
	torch_install
	printf '\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ' >"$(host "$TORCH\\lib")/._fbgemm.dll"
	head -c 4000 /dev/zero >>"$(host "$TORCH\\lib")/._fbgemm.dll"
	scn_end
}

scn_folder_named_dll() {
	scn_begin folder_named_dll "a folder torch\\lib\\folder.dll\\: glob matches it, torch passes it to LoadLibraryExW: WinError 5"
	python_install
	torch_install
	mkdir -p "$(host "$TORCH\\lib")/folder.dll"
	scn_end
}

scn_stale_pyd_tags() {
	scn_begin stale_pyd_tags "stale _C.cp310-win_amd64.pyd and _C.pyd (both need a missing DLL) beside _C.cp311-win_amd64.pyd, and an untagged _extra.pyd: CPython 3.11 imports _C.cp311 and _extra only"
	python_install
	torch_install
	sdll "$(host "$TORCH")/_C.cp310-win_amd64.pyd" --import KERNEL32.dll:GetLastError \
		--import python310.dll:PyModule_Create2 --export PyInit__C
	sdll "$(host "$TORCH")/_C.pyd" --import KERNEL32.dll:GetLastError \
		--import python310.dll:PyModule_Create2 --export PyInit__C
	sdll "$(host "$TORCH")/_extra.pyd" --import KERNEL32.dll:GetLastError \
		--import python311.dll:PyModule_Create2 --export PyInit__extra
	scn_end
}

scn_trailing_dot_import() {
	scn_begin trailing_dot_import "fbgemm.dll imports \"plaindep2.\" (the file plaindep2, no extension) and c10.dll \"spacedep.dll \" (a trailing space): Win32 normalisation drops them, both load"
	python_install
	extra fbgemm.dll --import 'plaindep2.:pd2'
	extra c10.dll --import 'spacedep.dll :sd'
	torch_install
	sdll "$(host "$TORCH\\lib")/plaindep2" --name plaindep2 --import KERNEL32.dll:GetLastError --export pd2
	sdll "$(host "$USERBASE_BIN")/spacedep.dll" --import KERNEL32.dll:GetLastError --export sd
	scn_end
}

scn_same_dll_two_user_dirs() {
	scn_begin same_dll_two_user_dirs "omp_dup.dll in two AddDllDirectory folders (python's Library\\bin with omp_dup_fn, the userbase's without): Microsoft leaves the order unspecified, Wine takes the last added"
	python_install
	extra fbgemm.dll --import omp_dup.dll:omp_dup_fn
	torch_install
	sdll "$(host "$PYDIR\\Library\\bin")/omp_dup.dll" --import KERNEL32.dll:GetLastError --export omp_dup_fn
	sdll "$(host "$USERBASE_BIN")/omp_dup.dll" --import KERNEL32.dll:GetLastError --export omp_other_fn
	scn_end
}

scn_quoted_path_entry() {
	scn_begin quoted_path_entry "libomp140.x86_64.dll only in a PATH folder written with quotes (\"C:\\Tools\\omp\"): the loader takes the quotes literally, fbgemm fails even after torch's PATH fallback"
	omp140_on_path '"C:\Tools\omp"'
	scn_end
}

scn_relative_path_entry() {
	scn_begin relative_path_entry "libomp140.x86_64.dll only in a relative PATH folder (Tools\\omp): found only when the current directory is C:\\ (Wine's is), not decidable statically"
	omp140_on_path 'Tools\omp'
	scn_end
}

scn_msvcp140_app_local_lacks_symbol() {
	scn_begin msvcp140_app_local_lacks_symbol "an old msvcp140.dll in torch\\lib without _Mtx_init: the VC probe loads it (USER_DIRS before System32), every C++ DLL then fails with 127 (Wine would substitute its builtin without WINEDLLOVERRIDES)"
	python_install
	torch_install
	sdll "$(host "$TORCH\\lib")/msvcp140.dll" --msvc --export _Thrd_yield --version 14.0.23026.0
	scn_end
}

scn_dbghelp_app_local_lacks_symbol() {
	scn_begin dbghelp_app_local_lacks_symbol "uv.dll imports dbghelp.dll!SymCleanup; torch\\lib's dbghelp.dll has only SymInitialize: 127 (Wine would substitute its builtin)"
	python_install
	extra uv.dll --import dbghelp.dll:SymCleanup
	torch_install
	sdll "$(host "$TORCH\\lib")/dbghelp.dll" --import KERNEL32.dll:GetLastError --export SymInitialize
	scn_end
}

# set_import_name FILE NAME: rewrites the import name PATHDEP_PLACEHOLDER
# (a stand-in's import of pathdep_placeholder_name_0123456789.dll) to NAME in
# place: the mingw and llvm tools strip path components from import names,
# so a DLL importing "sub\\x.dll" or "C:/dir/x.dll" is made this way.
PATHDEP_PLACEHOLDER=pathdep_placeholder_name_0123456789.dll
set_import_name() {
	/usr/bin/python3 - "$1" "$2" "$PATHDEP_PLACEHOLDER" <<'PY'
import sys
path, new, old = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode() + b"\0"
data = open(path, "rb").read()
assert data.count(old) == 1 and len(new) < len(old), "placeholder import name not found once"
open(path, "wb").write(data.replace(old, new + b"\0" * (len(old) - len(new))))
PY
}

scn_imports_by_path() {
	scn_begin imports_by_path "fbgemm.dll imports \"sub\\\\rel_dep.dll\" (a relative path: appended to each search folder, found under torch\\lib) and c10.dll \"C:/Windows/tdc_slash_dep.dll\" (a full path with forward slashes): both load"
	python_install
	torch_install
	local L="$TORCH\\lib"
	sdll "$(host "$L")/fbgemm.dll" --msvc "${CXX[@]}" --import asmjit.dll:asmjit_init \
		--import libiomp5md.dll:omp_get_num_procs,__kmpc_fork_call --import "$PATHDEP_PLACEHOLDER:rel_fn" \
		--export fbgemm_gemm
	set_import_name "$(host "$L")/fbgemm.dll" 'sub\rel_dep.dll'  || return 1
	sdll "$(host "$L")/c10.dll" --msvc "${CXX[@]}" --import "$PATHDEP_PLACEHOLDER:slash_fn" \
		--export c10_alloc --export c10_free
	set_import_name "$(host "$L")/c10.dll" 'C:/Windows/tdc_slash_dep.dll' || return 1
	sdll "$(host "$L")/sub/rel_dep.dll" --import KERNEL32.dll:GetLastError --export rel_fn
	stand tdc_slash_dep.dll 'C:\Windows' --import KERNEL32.dll:GetLastError --export slash_fn
	WINDIR_FILES=(tdc_slash_dep.dll)
	scn_end
}

scn_folder_on_search_path() {
	scn_begin folder_on_search_path "fbgemm.dll imports omp_folder_dep.dll; a folder of that name sits in python.exe's folder (APPLICATION_DIR), the DLL in the userbase Library\\bin (USER_DIRS, later): the search stops at the folder"
	python_install
	extra fbgemm.dll --import omp_folder_dep.dll:ofd_fn
	torch_install
	mkdir -p "$(host "$PYDIR")/omp_folder_dep.dll"
	sdll "$(host "$USERBASE_BIN")/omp_folder_dep.dll" --import KERNEL32.dll:GetLastError --export ofd_fn
	scn_end
}

# ---- main ----------------------------------------------------------------------

scenarios_key() {
	{
		cat "$SCN_SRC/build.sh" "$SCN_SRC/cpython_pyds.py" "$REPO/tests/lib/fixtures.sh" \
			"$REPO/tests/oracle/torchload_oracle.c"
		fx_hash
		wine_prefix_dir
	} | sha256sum | cut -c1-16
}

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${SCENARIOS[@]}"
	exit 0
fi

PFX=$(wine_prefix_ensure) || exit 1
FX_HASH=$(fx_hash) # computed once: it runs every tool's --version
export FX_HASH
ORACLE=$(oracle_build) || exit 1
FINAL=$TDC_CACHE/scenarios/$(scenarios_key)
if [ -f "$FINAL/.complete" ]; then
	echo "$FINAL"
	exit 0
fi
mkdir -p "$TDC_CACHE/scenarios/dlls"
DLL_CACHE=$TDC_CACHE/scenarios/dlls
OUT=$(mktemp -d "$FINAL.tmp.XXXXXX")
for s in "${SCENARIOS[@]}"; do
	"scn_$s" || { echo "build.sh: scenario $s failed" >&2; rm -rf "$OUT"; exit 1; }
done
printf '%s\n' "${SCENARIOS[@]}" >"$OUT/SCENARIOS"
touch "$OUT/.complete"
# Trees of other generator versions are left alone: several worktrees (and
# their test runs) share one cache, each with its own key; a key's trees
# take ≈10 MB (System32 is hard links), so old keys cost little.
if ! mv -T "$OUT" "$FINAL" 2>/dev/null; then
	rm -rf "$OUT"
fi
echo "$FINAL"
