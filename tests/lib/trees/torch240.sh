# torch240.sh: a generated Windows tree where `import torch` fails the way
# torch 2.4.0 did (pytorch/pytorch#131662): fbgemm.dll imports
# libomp140.x86_64.dll, which is found nowhere. Source it after
# tests/lib/fixtures.sh and tests/lib/trees/loader.sh; `torch240_tree` prints the
# cached directory standing for C:\.
# shellcheck shell=bash

torch240_build() {
	local d=$1 t
	loader_base "$d" || return 1
	t=$d/Python311/Lib/site-packages/torch
	mkdir -p "$t/lib"
	make_exe "$d/Python311/python.exe" --import KERNEL32.dll:GetLastError || return 1
	printf "__version__ = '2.4.0+cpu'\ngit_version = 'd990dada86a8ad94882b5c23e859b88c0c255bda'\n" >"$t/version.py"
	make_dll "$t/lib/c10.dll" --export c10_fn --import KERNEL32.dll:GetLastError || return 1
	make_dll "$t/lib/fbgemm.dll" --export fbgemm_fn --import c10.dll:c10_fn \
		--import libomp140.x86_64.dll:omp_get_max_threads,omp_get_thread_num || return 1
	make_dll "$t/lib/torch_cpu.dll" --export torch_cpu_fn --import c10.dll:c10_fn \
		--import fbgemm.dll:fbgemm_fn || return 1
	make_dll "$t/lib/torch.dll" --export torch_fn --import torch_cpu.dll:torch_cpu_fn || return 1
}

torch240_tree() {
	FX_KEY=$(declare -f loader_base | sha256sum | cut -c1-16) fx_build torch240 torch240_build
}

# The same failure, plus torch DLLs whose file names carry workflow commands,
# escapes and Markdown (names only a hostile package would ship; Windows
# forbids ':' in names, an offline tree on Linux does not).
torch_hostile_build() {
	local d=$1 lib
	torch240_build "$d" || return 1
	lib=$d/Python311/Lib/site-packages/torch/lib
	make_dll "$lib/x::error::injected%0A.dll" --export a --import 'gone.dll:f' || return 1
	make_dll "$lib/y##[error]legacy|<b>.dll" --export b --import c10.dll:c10_fn \
		--import 'missing.dll:g' || return 1
	make_dll "$lib/z::stop-commands::x::add-mask::m.dll" --export c --import 'ok.dll:h' || return 1
}

torch_hostile_tree() {
	FX_KEY=$( (declare -f loader_base torch240_build) | sha256sum | cut -c1-16) fx_build torch_hostile torch_hostile_build
}
