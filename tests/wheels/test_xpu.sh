#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_xpu: torch's Intel GPU (+xpu) build on Windows, against the REAL
# oneAPI runtime wheels from PyPI (sha256 = PyPI's, cached) its Requires-Dist
# names: intel-sycl-rt, intel-cmplr-lib-rt, intel-cmplr-lib-ur (2025.0.5),
# umf 0.9.1, tcmlib 1.2.0, intel-pti 0.10.1 (torch 2.7's
# .github/scripts/generate_binary_build_matrix.py,
# PYTORCH_EXTRA_INSTALL_REQUIREMENTS["xpu"], the Windows lines).
#
# No torch +xpu wheel is on PyPI (download.pytorch.org/whl/xpu, which this
# machine cannot reach), so the tree is the real torch 2.7.0 CPU wheel with
# two mingw stand-ins added to torch\lib whose import tables are what torch's
# CMake files give the real ones: c10_xpu.dll links `c10 torch::xpurt`
# (c10/xpu/CMakeLists.txt), torch::xpurt being FindSYCLToolkit.cmake's SYCL
# library, sycl8.dll for oneAPI 2025.0 (the import library sycl.lib);
# torch_xpu.dll links torch_cpu, c10_xpu and torch::xpurt
# (caffe2/CMakeLists.txt). Each import names a function the real DLL exports
# (read from it: a C name, or a real ordinal), so a 127 would be real. version.py and METADATA say
# 2.7.0+xpu with those Requires-Dist lines; RECORD is rewritten to match.
#
#   healthy (every runtime wheel's data in C:\Python311\Library\bin, a torch
#     DLL folder): every torch binary loads, exit 0;
#   intel-sycl-rt missing: c10_xpu.dll and torch_xpu.dll fail with 126 on
#     sycl8.dll, fixed by `pip install "intel-sycl-rt==2025.0.5"` (torch's own
#     requirement), not by "put the DLL where the loader looks";
#   intel-cmplr-lib-rt missing: the chain c10_xpu.dll -> sycl8.dll ->
#     libmmd.dll, fixed by intel-cmplr-lib-rt==2025.0.5; intel-cmplr-lib-ur
#     missing: ur_win_proxy_loader.dll, fixed by intel-cmplr-lib-ur==2025.0.5;
#   Wine's loader doing torch's procedure on each tree, agreeing per binary.
TEST_NAME=xpu
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp
PY='C:\Python311\python.exe'
TORCH=2.7.0
ONEAPI=2025.0.5
RUNTIMES="intel-sycl-rt==$ONEAPI intel-cmplr-lib-rt==$ONEAPI intel-cmplr-lib-ur==$ONEAPI umf==0.9.1 tcmlib==1.2.0 intel-pti==0.10.1"

J() { "$B" check --root "$WORK/$1" --python "$PY" --json 2>"$WORK/check.err" | jq -c "$2" 2>&1; }
st() { "$B" check --root "$WORK/$1" --python "$PY" >/dev/null 2>&1; echo $?; }

if ! twhl=$(wheel_fetch torch "$TORCH" 2>"$WORK/err"); then
	skip "torch $TORCH+xpu-shaped trees" "PyPI/pip did not give torch $TORCH: $(grep -v '^\s*$' "$WORK/err" | tail -1)"
	tap_done
fi
for r in $RUNTIMES; do
	if ! wheel_fetch "${r%%==*}" "${r#*==}" >/dev/null 2>"$WORK/err"; then
		skip "torch $TORCH+xpu-shaped trees" "PyPI/pip did not give $r: $(grep -v '^\s*$' "$WORK/err" | tail -1)"
		tap_done
	fi
done
wheel_tree "$WORK/base" "$twhl" >/dev/null || { not_ok "torch $TORCH's tree"; tap_done; }
tree_redist "$WORK/base" 14.44.35112 2>/dev/null
sp=$WORK/base/Python311/Lib/site-packages
lb=$WORK/base/Python311/Library/bin
for r in $RUNTIMES; do
	tree_wheel_data "$WORK/base" "${r%%==*}" "${r#*==}" || { not_ok "$r's data installed"; tap_done; }
done

# the stand-ins: real exports of the DLLs they import (sycl8.dll's C name __sycl_register_lib, which SYCL
# binaries call at start-up; c10.dll and torch_cpu.dll export C++ names only, imported by a real ordinal)
c_name() { "$B" pe --json "$1" | jq -r '[.files[0].exports.entries[] | select(.name and (.forwarder | not)) | .name
	| select(test("^[A-Za-z_][A-Za-z0-9_]*$"))] | map(select(. == "__sycl_register_lib")) + . | .[0] // empty'; }
ordinal() { "$B" pe --json "$1" | jq -r '[.files[0].exports.entries[] | select(.forwarder | not) | .ordinal][0] // empty'; }
sy=$(c_name "$lb/sycl8.dll")
c10=$(ordinal "$sp/torch/lib/c10.dll")
cpu=$(ordinal "$sp/torch/lib/torch_cpu.dll")
make_dll "$sp/torch/lib/c10_xpu.dll" --msvc --export c10_xpu_stand_in \
	--import-ordinal "c10.dll:$c10" --import "sycl8.dll:$sy" || not_ok "the c10_xpu.dll stand-in"
make_dll "$sp/torch/lib/torch_xpu.dll" --msvc --export torch_xpu_stand_in --import-ordinal "torch_cpu.dll:$cpu" \
	--import "c10_xpu.dll:c10_xpu_stand_in" --import-ordinal "c10.dll:$c10" --import "sycl8.dll:$sy" ||
	not_ok "the torch_xpu.dll stand-in"
check_eq "the stand-ins import what torch's CMake links them against" \
	'c10_xpu.dll: c10.dll sycl8.dll|torch_xpu.dll: c10.dll c10_xpu.dll sycl8.dll torch_cpu.dll' \
	"$("$B" pe --json --no-exports "$sp/torch/lib/c10_xpu.dll" "$sp/torch/lib/torch_xpu.dll" |
		jq -r '.files[] | "\(.path | split("/") | last): \([.imports[].dll | select(test("^(c10|torch|sycl)"; "i"))] | sort | join(" "))"' | paste -sd'|')"
# torch 2.7.0+xpu: its version, its Windows Requires-Dist, RECORD rewritten for what changed
python3 - "$sp" "$TORCH" "$ONEAPI" <<'PYEOF'
import base64, csv, glob, hashlib, io, os, sys
sp, tv, one = sys.argv[1:]
di = glob.glob(os.path.join(sp, "torch-%s.dist-info" % tv))[0]
md = open(os.path.join(di, "METADATA"), encoding="utf-8").read()
md = md.replace("Version: %s\n" % tv, "Version: %s+xpu\n" % tv, 1)
req = ["intel-cmplr-lib-rt==%s" % one, "intel-cmplr-lib-ur==%s" % one, "intel-cmplr-lic-rt==%s" % one,
       "intel-sycl-rt==%s" % one]
extra = "".join('Requires-Dist: %s; platform_system == "Windows"\n' % r for r in req)
extra += "Requires-Dist: tcmlib==1.2.0\nRequires-Dist: umf==0.9.1\nRequires-Dist: intel-pti==0.10.1\n"
i = md.index("Requires-Dist:")
md = md[:i] + extra + md[i:]
open(os.path.join(di, "METADATA"), "w", encoding="utf-8", newline="\n").write(md)
vp = os.path.join(sp, "torch", "version.py")
v = open(vp).read().replace("'%s+cpu'" % tv, "'%s+xpu'" % tv).replace("'%s'" % tv, "'%s+xpu'" % tv)
open(vp, "w").write(v)
def row(rel):
    data = open(os.path.join(sp, rel), "rb").read()
    h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [rel, "sha256=" + h, str(len(data))]
rp = os.path.join(di, "RECORD")
rows = [r for r in csv.reader(io.StringIO(open(rp, encoding="utf-8").read())) if r]
rel_md = os.path.relpath(os.path.join(di, "METADATA"), sp).replace(os.sep, "/")
rows = [row(r[0]) if r[0] in (rel_md, "torch/version.py") else r for r in rows]
rows += [row("torch/lib/c10_xpu.dll"), row("torch/lib/torch_xpu.dll")]
with open(rp, "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows(rows)
PYEOF

# a tree without one runtime wheel: the healthy tree less that wheel's DLLs
without() { # NAME PROJECT VERSION
	local w
	tree_variant "$WORK/base" "$WORK/$1"
	w=$(wheel_fetch "$2" "$3") || return 1
	python3 -c 'import sys, zipfile
for n in zipfile.ZipFile(sys.argv[1]).namelist():
    if n.lower().endswith(".dll") and "/data/" in n: print(n.split("/data/", 1)[1])' "$w" |
		while IFS= read -r f; do rm -f "$WORK/$1/Python311/$f"; done
}
without nosycl intel-sycl-rt "$ONEAPI"
without nolibrt intel-cmplr-lib-rt "$ONEAPI"
without noliburt intel-cmplr-lib-ur "$ONEAPI"

fails='[.installs[0].binaries[] | select(.winerror != 0) | [(.path | split("\\") | last), .winerror, .leaf]] | sort'
check_eq "healthy +xpu tree: the variant is xpu, every torch binary loads (c10_xpu.dll and torch_xpu.dll with sycl8.dll from Library\\bin), exit 0" \
	'"xpu"|[]|0' "$(J base '.installs[0].variant')|$(J base "$fails")|$(st base)"
check_eq "healthy +xpu tree: sycl8.dll's DependentLoadFlags (0x2000) keep Library\\bin out of its imports' search, so c10_xpu.dll loads through torch's PATH fallback" \
	'["loads-via-path",126,["c10_xpu.dll","sycl8.dll","ur_win_proxy_loader.dll"]]' \
	"$(J base '.installs[0].binaries[] | select(.path | endswith("\\c10_xpu.dll")) | [.outcome, .first_attempt.winerror, .first_attempt.chain]')"
check_eq "intel-sycl-rt missing: c10_xpu.dll and torch_xpu.dll fail with 126 on sycl8.dll" \
	'[["c10_xpu.dll",126,"sycl8.dll"],["torch_xpu.dll",126,"sycl8.dll"]]' "$(J nosycl "$fails")"
check_eq "intel-sycl-rt missing: fixed by torch's own requirement (pip install \"intel-sycl-rt==$ONEAPI\"), said as the intel-xpu stack's wheel" \
	'[["pip install \"intel-sycl-rt=='"$ONEAPI"'\"",true]]' \
	"$(J nosycl '[.findings[] | select(.rule == "missing-dll" and .leaf == "sycl8.dll") | [.fix, (.explanation | contains("intel-sycl-rt wheel (intel-xpu stack)"))]] | unique')"
check_eq "intel-cmplr-lib-rt missing: libmmd.dll (c10_xpu.dll -> sycl8.dll -> libmmd.dll), fixed by pip install \"intel-cmplr-lib-rt==$ONEAPI\"" \
	'[["libmmd.dll","pip install \"intel-cmplr-lib-rt=='"$ONEAPI"'\""]]' \
	"$(J nolibrt '[.findings[] | select(.rule == "missing-dll") | [.leaf, .fix]] | unique')"
check_eq "intel-cmplr-lib-ur missing: ur_win_proxy_loader.dll, fixed by pip install \"intel-cmplr-lib-ur==$ONEAPI\"" \
	'[["ur_win_proxy_loader.dll","pip install \"intel-cmplr-lib-ur=='"$ONEAPI"'\""]]' \
	"$(J noliburt '[.findings[] | select(.rule == "missing-dll") | [.leaf, .fix]] | unique')"
check_eq "each missing runtime fails with exit 1" '1|1|1' "$(st nosycl)|$(st nolibrt)|$(st noliburt)"

if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle: torch +xpu-shaped trees" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	for t in base nosycl nolibrt noliburt; do
		out=$(tree_oracle "$WORK/$t" "$PY")
		# a DllMain that fails is the stand-in python311.dll's (torch_python.dll on stubs: oracle_compare.py);
		# the real sycl8.dll carries DependentLoadFlags 0x2000, which Windows applies to its imports and Wine 8
		# ignores (W5 in tests/scenarios/compare.py): on the healthy tree c10_xpu.dll's first load misses
		# ur_win_proxy_loader.dll (Library\bin is not searched for sycl8.dll's imports) and torch's PATH
		# fallback loads it, where Wine loads it at once
		w5=''
		[ "$t" = base ] && w5='DISAGREE c10_xpu.dll checker=loads-via-path/0 oracle=0'
		check_eq "Wine's loader agrees with the checker on the $t tree ($(grep -c '^agree' <<<"$out") agree${w5:+; c10_xpu.dll: W5})" \
			"$w5" "$(grep -v '^agree\|^dllmain  torch_python.dll ' <<<"$out")"
		while IFS= read -r l; do echo "# $l"; done <<<"$out"
	done
	wine_stop "$PFX"
fi
tap_done
