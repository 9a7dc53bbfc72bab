#!/usr/bin/env bash
# shellcheck disable=SC2317  # shellcheck cannot see past demo.sh's "return 0 when sourced"
# policy.sh: builds (once, in the fixture cache) the two Windows trees
# tests/unit/test_policy.c judges, and prints their roots, one a line:
#   shadow  torch 2.9.1+cpu; an app-local msvcp140.dll 14.29 next to
#           python.exe wins over System32's 14.40 (tests/lib/trees/torch_cases.sh)
#   omp     torch 2.4.0+cpu; fbgemm.dll imports libomp140.x86_64.dll, absent
# Real PE files built with mingw-w64 (tests/lib/fixtures.sh), with real
# version resources. Exit 1 (and a reason on stderr) when they cannot be built.
# shellcheck source=tests/lib/demo.sh
source "$(dirname "$0")/../demo.sh"
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
export TDC_CACHE
FX_KEY=$(cat "$REPO/tests/lib/demo.sh" "$REPO/tests/lib/trees/loader.sh" "$REPO/tests/lib/trees/torch_cases.sh" "$0" |
	sha256sum | cut -c1-12)
export FX_KEY

# unit_tree DIR CASE VERSION: the tree in DIR/root, C:\Python311 (python.org's own vcruntime140 14.40)
unit_tree() {
	local r=$1/root sp
	mkdir -p "$r" && torch_tree "$r" "$2" || return 1
	sp=$r/Python311/Lib/site-packages
	printf "__version__ = '%s'\ncuda = None\n" "$3" >"$sp/torch/version.py"
	dist_info "$sp" "$3"
	runtime "$r/Python311" 14.40.33810.0 vcruntime140.dll &&
		runtime "$r/Windows/System32" 14.40.33810.0 vcruntime140.dll &&
		runtime "$r/Windows/System32" 14.40.33810.0 vcruntime140_1.dll || return 1
	# msvcp_shadow brings its own System32 msvcp140 (14.40) and the app-local 14.29 copy
	[ "$2" = msvcp_shadow ] || runtime "$r/Windows/System32" 14.40.33810.0 msvcp140.dll
}
fx_build policy-unit-shadow unit_tree msvcp_shadow 2.9.1+cpu || exit 1
fx_build policy-unit-omp unit_tree fbgemm_omp140 2.4.0+cpu || exit 1
