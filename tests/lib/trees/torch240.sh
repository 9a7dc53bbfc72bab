# torch240.sh: a generated Windows tree where `import torch` fails the way
# torch 2.4.0 did (pytorch/pytorch#131662): fbgemm.dll imports
# libomp140.x86_64.dll, which is found nowhere. One builder for every suite
# that needs it and for the demo (tests/lib/demo.sh's C:\Python311): the
# tree is torch_cases.sh's fbgemm_omp140 case with pip's metadata. Source it
# after tests/lib/fixtures.sh and tests/lib/trees/loader.sh; `torch240_tree`
# prints the cached directory standing for C:\.
# shellcheck shell=bash

# shellcheck source=tests/lib/trees/torch_cases.sh
source "$(dirname "${BASH_SOURCE[0]}")/torch_cases.sh"

# dist_info SITE VERSION: the pip metadata of a torch install (METADATA, INSTALLER, and RECORD
# listing torch\ as it is now: call it when the tree is complete).
dist_info() {
	local d="$1/torch-$2.dist-info"
	mkdir -p "$d"
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: %s\nSummary: Tensors and Dynamic neural networks in Python\n' \
		"$2" >"$d/METADATA"
	printf 'pip\n' >"$d/INSTALLER"
	python3 "$(dirname "${BASH_SOURCE[0]}")/../record.py" "$1" "$d" torch
}

# torch240_build DIR: torch 2.4.0+cpu at DIR/Python311 (DIR stands for C:\).
torch240_build() {
	torch_tree "$1" fbgemm_omp140 || return 1
	dist_info "$1/Python311/Lib/site-packages" 2.4.0+cpu
}

torch240_tree() {
	FX_KEY=$(declare -f loader_base torch_tree dist_info torch240_build | sha256sum | cut -c1-16) fx_build torch240 torch240_build
}

# The same failure, plus torch DLLs whose file names carry workflow commands,
# escapes and Markdown (names only a hostile package would ship; Windows
# forbids ':' in names, an offline tree on Linux does not).
torch_hostile_build() {
	local d=$1 lib
	torch240_build "$d" || return 1
	lib=$d/Python311/Lib/site-packages/torch/lib
	make_dll "$lib/x::error::injected%0A.dll" --export a --import 'gone.dll:f' || return 1
	make_dll "$lib/y##[error]legacy|<b>.dll" --export b --import c10.dll:c10_init \
		--import 'missing.dll:g' || return 1
	make_dll "$lib/z::stop-commands::x::add-mask::m.dll" --export c --import 'ok.dll:h' || return 1
	# no pip metadata: the names are what is tested, not a RECORD (':' is no Windows path's)
	rm -rf "$d/Python311/Lib/site-packages/torch-2.4.0+cpu.dist-info"
}

torch_hostile_tree() {
	FX_KEY=$( (declare -f loader_base torch_tree dist_info torch240_build torch_hostile_build) | sha256sum | cut -c1-16) fx_build torch_hostile torch_hostile_build
}
