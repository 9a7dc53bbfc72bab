#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run through fx_build
# test_ext_dllmain: a DllMain that fails fails the extension binaries that
# map that module too (judge/extensions.c, docs/loader.md §5.4). torch 2.9.1
# whose c10.dll (linked by toolset 14.40, importing msvcp140) meets an
# app-local msvcp140 14.29 fails in DllMain (judge/dllmain.c); torchvision's
# _C.pyd imports c10.dll. Windows does not keep a module whose initialisation
# failed, so _C.pyd's load maps c10.dll again and runs its DllMain again:
# WinError 1114, not a load (#34 item 20).
TEST_NAME=ext_dllmain
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
# shellcheck source=tests/lib/demo.sh
source "$TDC_REPO/tests/lib/demo.sh"
set -u
PY='C:\Python311\python.exe'
fx_hash >/dev/null

# linker14_40 FILE: the PE's MajorLinkerVersion.MinorLinkerVersion set to 14.40 (MSVC 17.10)
linker14_40() {
	python3 - "$1" <<'PYEOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
pe = struct.unpack_from("<I", b, 0x3C)[0]
b[pe + 24 + 2] = 14
b[pe + 24 + 3] = 40
open(p, "wb").write(b)
PYEOF
}

ext_tree() {
	local d=$1/root sp
	mkdir -p "$d"
	torch_tree "$d" msvcp_shadow || return 1
	sp=$d/Python311/Lib/site-packages
	printf "__version__ = '2.9.1+cpu'\ncuda = None\n" >"$sp/torch/version.py"
	dist_info "$sp" 2.9.1+cpu
	runtime "$d/Python311" 14.40.33810.0 vcruntime140.dll &&
		runtime "$d/Windows/System32" 14.40.33810.0 vcruntime140.dll &&
		runtime "$d/Windows/System32" 14.40.33810.0 vcruntime140_1.dll || return 1
	linker14_40 "$sp/torch/lib/c10.dll" || return 1
	mkdir -p "$sp/torchvision" "$sp/torchvision-0.24.1.dist-info"
	printf 'import torch\n' >"$sp/torchvision/__init__.py"
	make_dll "$sp/torchvision/_C.pyd" --export PyInit__C --import c10.dll:c10_init \
		--import python311.dll:PyModule_Create2 || return 1
	printf 'Metadata-Version: 2.1\nName: torchvision\nVersion: 0.24.1\nRequires-Dist: torch==2.9.1\n' \
		>"$sp/torchvision-0.24.1.dist-info/METADATA"
	python3 "$TDC_REPO/tests/lib/record.py" "$sp" "$sp/torchvision-0.24.1.dist-info" torchvision
}
FX_KEY=$(cat "$TDC_REPO/tests/lib/demo.sh" "$TDC_REPO/tests/lib/trees/loader.sh" "$TDC_REPO/tests/lib/trees/torch_cases.sh" \
	"$TDC_REPO/tests/check/test_ext_dllmain.sh" | sha256sum | cut -c1-12)
export FX_KEY
t=$(fx_build ext-dllmain ext_tree)

out=$("$B" check --root "$t/root" --python "$PY" --json 2>&1)
check_eq "torch's c10.dll fails in DllMain (the premise: judge/dllmain.c)" true \
	"$(jq -c '[.findings[] | select(.rule=="runtime-too-old" and .winerror==1114)] | length > 0' <<<"$out" 2>&1)"
check_eq "torchvision's _C.pyd: WinError 1114, c10.dll's DllMain named" \
	'[["extension-load-failure",1114,"torchvision'"'"'s _C.pyd cannot load: c10.dll fails in DllMain (WinError 1114)"]]' \
	"$(jq -c '[.findings[] | select(.rule=="extension-load-failure") | [.rule,.winerror,.title]]' <<<"$out" 2>&1)"
tap_done
