#!/usr/bin/env bash
# survey.sh: the matrix's evidence of what loading torch charges against the
# commit limit (docs/commit.md), measured by the checker (`pe --json`,
# commit.bytes) from the files themselves. Not in CI; writes to stdout:
#
#   bash tests/commit/survey.sh > matrix/evidence/commit-win_amd64.txt
#
# Two kinds of lines:
#   torch VERSION cpu WHEEL sha256=... lib=BYTES dlls=N top=NAME:BYTES:SECTION,...
#       each torch win_amd64 wheel in the test cache (PyPI's are CPU builds):
#       the sum over torch\lib\*.dll, every one of which torch's
#       _load_dll_libraries maps (docs/loader.md)
#   cuda VARIANT nvidia=BYTES dlls=N top=...
#       the NVIDIA DLLs a torch VARIANT build carries in torch\lib, as
#       tests/cuda/tree.sh lays them out from the nvidia-*-cu11/-cu12 wheels
#       (the CUDA part of a CUDA build's charge; torch_cuda.dll itself is not
#       on PyPI)
#   dll NAME WHEEL bytes=BYTES section=NAME   every NVIDIA DLL of those wheels
# Cached files only for torch (no torch wheel is downloaded); the NVIDIA wheels
# come through tree.sh's cache. All sizes are bytes.
set -u
TEST_NAME=commit-survey
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh" >/dev/null
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
exec 3>&1 1>&2

# top FILE...: "lib=SUM dlls=N top=NAME:BYTES:SECTION,..." of the DLLs given
top() {
	"$B" pe --json --no-exports "$@" | jq -r '
		[.files[] | select(.error == null) | {n: (.path | split("/") | last), b: .commit.bytes,
		 s: ([.sections[] | select(.characteristics >= 2147483648)] | max_by(.vsize) | .name // "-")}] as $d |
		"lib=\([$d[].b] | add) dlls=\($d | length) top=\($d | sort_by(-.b) | .[:5] | map("\(.n):\(.b):\(.s)") | join(","))"'
}

echo "# commit charge per process (docs/commit.md), measured by $("$B" --version | head -1)" >&3
# by version, then Python tag (the cache's folders are sha256s: sort on the file name)
for whl in $(for w in "$TDC_CACHE"/pypi/*/torch-[0-9]*-win_amd64.whl; do [ -f "$w" ] && printf '%s %s\n' "${w##*/}" "$w"; done |
	sort -t- -k2,2V -k3,3 | cut -d' ' -f2); do
	v=$(basename "$whl" | cut -d- -f2)
	d=$tmp/w
	rm -rf "$d"
	mkdir -p "$d"
	python3 - "$whl" "$d" <<'PYEOF'
import os, shutil, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if n.startswith("torch/lib/") and n.lower().endswith(".dll"):
        with z.open(n) as s, open(os.path.join(sys.argv[2], os.path.basename(n)), "wb") as f:
            shutil.copyfileobj(s, f, 1 << 20)
PYEOF
	echo "torch $v cpu $(basename "$whl") sha256=$(basename "$(dirname "$whl")") $(top "$d"/*.dll)" >&3
	rm -rf "$d"
done
for var in cu118 cu121 cu124 cu126 cu128; do
	t=$tmp/$var
	cuda_tree "$t" "$var" --full >/dev/null || { echo "# $var: the NVIDIA wheels could not be had" >&3; continue; }
	lib=$t/Python311/Lib/site-packages/torch/lib
	nv=()
	for f in "$lib"/*.dll; do
		case ${f##*/} in c10*.dll | torch_*.dll | caffe2_*.dll) ;; *) nv+=("$f") ;; esac
	done
	echo "cuda $var $(top "${nv[@]}" | sed 's/^lib=/nvidia=/')" >&3
	rm -rf "$t"
done
for d in "$TDC_CACHE"/nvidia/*/; do
	[ -f "$d/WHEEL" ] || continue
	w=$(cut -d' ' -f1 "$d/WHEEL")
	"$B" pe --json --no-exports "$d"*.dll | jq -r --arg w "$w" '.files[] | select(.error == null) |
		"dll \(.path | split("/") | last) \($w) bytes=\(.commit.bytes) section=\(([.sections[] |
		select(.characteristics >= 2147483648)] | max_by(.vsize) | .name) // "-")"'
done | sort -k2,3 >&3
