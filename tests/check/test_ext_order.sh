#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run through fx_build
# test_ext_order: an extension binary whose verdict depends on the order of
# two AddDllDirectory folders is order-dependent, as torch's are
# (judge/extensions.c, docs/loader.md §5.3). dep.dll is in two folders of
# torch's dll_paths, sys.exec_prefix\Library\bin without the export
# torchvision's _C.pyd needs and the user base's Library\bin with it (neither
# is _C.pyd's own folder, searched first): "the order in which those
# directories are searched is unspecified" (AddDllDirectory), so a warning
# naming both copies, never a confident 127 (#34 item 19).
TEST_NAME=ext_order
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
# shellcheck source=tests/lib/demo.sh
source "$TDC_REPO/tests/lib/demo.sh"
set -u
PY='C:\Python311\python.exe'
fx_hash >/dev/null

ext_tree() {
	local d=$1/root sp
	mkdir -p "$d"
	torch_tree "$d" healthy || return 1
	sp=$d/Python311/Lib/site-packages
	dist_info "$sp" 2.4.0+cpu
	mkdir -p "$sp/torchvision" "$sp/torchvision-0.19.0.dist-info"
	printf 'import torch\n' >"$sp/torchvision/__init__.py"
	make_dll "$d/Python311/Library/bin/dep.dll" --export other || return 1
	make_dll "$d/Users/u/AppData/Roaming/Python/Library/bin/dep.dll" --export need || return 1
	make_dll "$sp/torchvision/_C.pyd" --export PyInit__C --import dep.dll:need --import c10.dll:c10_init \
		--import python311.dll:PyModule_Create2 || return 1
	printf 'Metadata-Version: 2.1\nName: torchvision\nVersion: 0.19.0\nRequires-Dist: torch==2.4.0\n' \
		>"$sp/torchvision-0.19.0.dist-info/METADATA"
	python3 "$TDC_REPO/tests/lib/record.py" "$sp" "$sp/torchvision-0.19.0.dist-info" torchvision
}
FX_KEY=$(cat "$TDC_REPO/tests/lib/demo.sh" "$TDC_REPO/tests/lib/trees/loader.sh" "$TDC_REPO/tests/lib/trees/torch_cases.sh" \
	"$TDC_REPO/tests/check/test_ext_order.sh" | sha256sum | cut -c1-12)
export FX_KEY
t=$(fx_build ext-order ext_tree)

out=$("$B" check --root "$t/root" --python "$PY" --env 'APPDATA=C:\Users\u\AppData\Roaming' --json 2>&1)
check_eq "torchvision's _C.pyd: order-dependent, no extension-load-failure" \
	'[["order-dependent","_C.pyd: whether it loads depends on which copy of dep.dll Windows takes"]]' \
	"$(jq -c '[.findings[] | select(.rule=="order-dependent" or .rule=="extension-load-failure") | [.rule,.title]]' <<<"$out" 2>&1)"
check_eq "…its outcome in the report" '"order-dependent"' \
	"$(jq -c '[.. | objects | select(has("how") and (.path? // "" | endswith("_C.pyd"))) | .outcome][0]' <<<"$out" 2>&1)"
tap_done
