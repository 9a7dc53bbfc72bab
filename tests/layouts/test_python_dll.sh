#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_python_dll: the Python DLL's own version as the cause of a 127 (issue #31).
#
# torch 2.3.1 (PyPI's win_amd64 cp311 wheel) with mkl 2021.4.0, and a
# python311.dll that lacks one name torch's binaries import from it
# (PyFrame_GetLasti) and whose version resource is CPython's for 3.11.0b3:
# fixed file version 3.11.113.1013 (FIELD3 = micro*1000 + level*10 + serial,
# beta = 11: PCbuild/python.props), FileVersion "3.11.0b3"
# (guoyww/AnimateDiff#374: Python 3.11.0b3, WinError 127 on torch_python.dll).
# Before judge/python_dll the fix said "remove or update the copy at
# C:\Python311\python311.dll"; now it names the pre-release and says to
# install a released Python 3.11. The same DLL saying 3.11.0 final
# (3.11.150.1013): a newer 3.11 release. Without a version resource: the
# generic words stand.
TEST_NAME=layouts/python_dll
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
W=$tmp

whl=$(wheel_fetch torch 2.3.1 2>"$W/err") || { skip "the Python DLL's version" "no torch 2.3.1 wheel: $(tail -1 "$W/err")"; tap_done; }
PY=$(wheel_tree "$W/t" "$whl" 2>"$W/err") || { not_ok "tree of torch 2.3.1"; sed 's/^/#   /' "$W/err" | head -5; tap_done; }
tree_wheel_data "$W/t" mkl 2021.4.0 2>"$W/err" || { skip "the Python DLL's version" "no mkl 2021.4.0: $(tail -1 "$W/err")"; tap_done; }
{ echo EXPORTS; grep -vx PyFrame_GetLasti "$W/t/python-exports.txt"; } >"$W/lacking.def"
# pydll VERSION [FILEVERSION]: python311.dll lacking PyFrame_GetLasti, with that version resource (none without VERSION)
pydll() {
	local v=()
	[ -n "${1:-}" ] && v=(--version "$1" --version-string "FileVersion=$2")
	make_dll "$W/t/Python311/python311.dll" --def "$W/lacking.def" --import KERNEL32.dll:GetLastError \
		--import VCRUNTIME140.dll:memset "${v[@]}"
}
J() { "$B" check --root "$W/t" --python "$PY" --json 2>"$W/check.err" | jq -c "$1" 2>&1; }
py='[.findings[] | select(.leaf == "python311.dll") | [.rule, .winerror, .fix]] | unique'

pydll 3.11.113.1013 3.11.0b3 2>"$W/err" || { skip "the Python DLL's version" "mingw: $(tail -1 "$W/err")"; tap_done; }
check_eq "python311.dll 3.11.0b3 lacking a name: the fix installs a released Python 3.11" \
	'[["missing-entry-point",127,"install a released Python 3.11 (3.11.0 or newer, the latest 3.11.x from python.org) and recreate the environment with it: python311.dll is Python 3.11.0b3, a pre-release"]]' \
	"$(J "$py")"
check_eq "the explanation reads the version resource" \
	'"C:\\Python311\\python311.dll is Python 3.11.0b3 (its version resource: 3.11.113.1013), a pre-release: the names a torch wheel built for the released Python 3.11 imports from it may be missing."' \
	"$(J '[.findings[] | select(.leaf == "python311.dll") | .explanation] | .[0]')"
check_eq "import torch raises 127" '127' "$(J '.installs[0].import_error.winerror')"

pydll 3.11.150.1013 3.11.0
check_eq "python311.dll 3.11.0 final lacking a name: a newer 3.11 release" \
	'[["missing-entry-point",127,"install a Python 3.11 release newer than 3.11.0 (the latest 3.11.x from python.org) and recreate the environment with it: python311.dll is Python 3.11.0, older than the one torch'"'"'s binaries were built against"]]' \
	"$(J "$py")"

pydll
check_cmd "without a version resource the generic fix stands" \
	grep -qF 'remove or update the copy at C:\\Python311\\python311.dll' <<<"$(J "$py")"
tap_done
