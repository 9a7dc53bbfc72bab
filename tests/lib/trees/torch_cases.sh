# shellcheck shell=bash
# torch_cases.sh: Windows machines with a python.org-style Python 3.11 and a
# torch install made of stand-in DLLs named and wired like torch's (source it
# after loader.sh). torch_tree DIR CASE builds one scenario; test_check.sh says
# what each must give.
#
# fx_build NAME build_torch CASE: torch_tree DIR CASE as fx_build's builder
# (it runs in a subshell keyed by its text, so it sources what it calls).
# shellcheck disable=SC2034

build_torch() {
	source "$TDC_REPO/tests/lib/trees/loader.sh" && source "$TDC_REPO/tests/lib/trees/torch_cases.sh" && torch_tree "$1" "$2"
}

torch_tree() {
	local d=$1 case=$2 py tl sp omp_imp=libiomp5md.dll
	loader_base "$d" || return 1
	py=$d/Python311
	sp=$py/Lib/site-packages
	tl=$sp/torch/lib
	mkdir -p "$tl" "$d/tools"
	# the interpreter: python.exe -> python311.dll, vcruntime140.dll next to it (as python.org ships)
	cp "$WINE_PE/vcruntime140.dll" "$py/"
	make_dll "$py/python311.dll" --export PyModule_Create2 --export Py_Initialize \
		--import KERNEL32.dll:GetLastError --import VCRUNTIME140.dll:memset
	make_exe "$py/python.exe" --import python311.dll:Py_Initialize --import KERNEL32.dll:GetLastError
	echo "__version__ = '2.4.0+cpu'" >"$sp/torch/version.py"
	echo "cuda = None" >>"$sp/torch/version.py"

	[ "$case" = fbgemm_omp140 ] || [ "$case" = omp140_lib ] || [ "$case" = omp140_path ] ||
		[ "$case" = omp140_nosym ] || [ "$case" = omp140_userbase ] || [ "$case" = omp140_conda ] &&
		omp_imp=libomp140.x86_64.dll

	make_dll "$tl/asmjit.dll" --export asmjit_run --import KERNEL32.dll:GetLastError
	if [ "$case" = asmjit_x86 ]; then
		make_dll "$tl/asmjit.dll" --machine x86 --export asmjit_run
	fi
	if [ "$case" = c10_empty ]; then
		: >"$tl/c10.dll"
	elif [ "$case" = vcruntime140_1_missing ]; then
		rm -f "$d/Windows/System32/vcruntime140_1.dll"
		make_dll "$tl/c10.dll" --export c10_init --import VCRUNTIME140.dll:memset \
			--import VCRUNTIME140_1.dll:__CxxFrameHandler4 --import api-ms-win-crt-runtime-l1-1-0.dll:_initterm
	elif [ "$case" = msvcp_shadow ]; then
		make_dll "$d/Windows/System32/msvcp140.dll" --export '?_Xlength_error@std@@YAXPEBD@Z' \
			--version 14.40.33810.0
		make_dll "$py/msvcp140.dll" --export '?_Xlength_error@std@@YAXPEBD@Z' --version 14.29.30133.0
		make_dll "$tl/c10.dll" --export c10_init --import VCRUNTIME140.dll:memset \
			--import 'MSVCP140.dll:?_Xlength_error@std@@YAXPEBD@Z'
	else
		make_dll "$tl/c10.dll" --export c10_init --import VCRUNTIME140.dll:memset \
			--import api-ms-win-crt-runtime-l1-1-0.dll:_initterm
	fi
	make_dll "$tl/libiomp5md.dll" --export 'omp_get_max_threads @5' --export 'omp_set_num_threads @6'
	case $case in
	omp140_lib) make_dll "$tl/libomp140.x86_64.dll" --export omp_get_max_threads ;;
	omp140_path) make_dll "$d/tools/libomp140.x86_64.dll" --export omp_get_max_threads ;;
	omp140_nosym) make_dll "$tl/libomp140.x86_64.dll" --export omp_get_num_threads ;;
	omp140_userbase)
		make_dll "$d/Users/u/AppData/Roaming/Python/Library/bin/libomp140.x86_64.dll" \
			--export omp_get_max_threads ;;
	omp140_conda) make_dll "$py/Library/bin/libomp140.x86_64.dll" --export omp_get_max_threads ;;
	esac
	make_dll "$tl/fbgemm.dll" --export fbgemm_gemm --import asmjit.dll:asmjit_run \
		--import "$omp_imp:omp_get_max_threads"
	if [ "$case" = uv_forward ]; then
		make_dll "$tl/uv.dll" --export 'uv_loop_init = uvhelper.uv_loop_init'
	else
		make_dll "$tl/uv.dll" --export uv_loop_init
	fi
	local extra=()
	[ "$case" = ordinal_missing ] && extra+=(--import-ordinal libiomp5md.dll:999)
	[ "$case" = delay_missing ] && extra+=(--delay-import nvcuda.dll:cuInit)
	[ "$case" = uv_forward ] && extra+=(--import uv.dll:uv_loop_init)
	make_dll "$tl/torch_cpu.dll" --export torch_cpu_init --import C10.DLL:c10_init \
		--import fbgemm.dll:fbgemm_gemm --import-ordinal libiomp5md.dll:5 "${extra[@]}"
	make_dll "$tl/torch.dll" --export torch_init --import torch_cpu.dll:torch_cpu_init
	make_dll "$tl/torch_python.dll" --export THPModule_init --import torch_cpu.dll:torch_cpu_init \
		--import python311.dll:PyModule_Create2
	if [ "$case" = pyd_missing ]; then
		make_dll "$sp/torch/_C.cp311-win_amd64.pyd" --export PyInit__C --import torch_python.dll:THPModule_init \
			--import torch_python_extra.dll:x
	else
		make_dll "$sp/torch/_C.cp311-win_amd64.pyd" --export PyInit__C --import torch_python.dll:THPModule_init \
			--import python311.dll:PyModule_Create2
	fi
	case $case in
	cycle)
		make_dll "$tl/cyc_b.dll" --export b --import cyc_a.dll:a
		make_dll "$tl/cyc_a.dll" --export a --import cyc_b.dll:b
		;;
	order)
		# aaa_early's dependency lives only on PATH (fallback); zzz_late's same dependency is then
		# already loaded, so it loads at the first attempt. _underscore sorts after z in NTFS order.
		make_dll "$d/tools/pathdep.dll" --export pd
		make_dll "$tl/aaa_early.dll" --export e --import pathdep.dll:pd
		make_dll "$tl/zzz_late.dll" --export l --import pathdep.dll:pd
		make_dll "$tl/_underscore.dll" --export u
		;;
	venv)
		mkdir -p "$d/Users/Jörg/env/Scripts" "$d/Users/Jörg/env/Lib"
		printf 'home = C:\\Python311\ninclude-system-site-packages = false\nversion = 3.11.9\n' \
			>"$d/Users/Jörg/env/pyvenv.cfg"
		cp "$py/python.exe" "$d/Users/Jörg/env/Scripts/python.exe"
		mv "$sp" "$d/Users/Jörg/env/Lib/site-packages"
		mkdir -p "$sp"
		;;
	esac
	return 0
}
