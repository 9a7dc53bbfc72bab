#!/usr/bin/env bash
# test_usage_verdicts: what `check` must refuse before judging (#34):
# outputs that name one file (--json R --sarif R, --summary and --outputs the
# same path, a link to it) would overwrite each other: usage error, exit 2,
# the file untouched; an --import-first that is not a package or Python
# module name (a path, an empty component) or that is torch itself.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=usage-verdicts
source tests/lib/fixtures.sh
torch=$tmp/root/Python311/Lib/site-packages/torch
mkdir -p "$torch/lib"
echo "__version__ = '2.5.1+cpu'" >"$torch/version.py"
make_dll "$torch/lib/c10.dll" --export c10_fn >/dev/null 2>&1 || not_ok "make_dll c10.dll"
make_dll "$torch/lib/torch_cpu.dll" --import c10.dll:c10_fn >/dev/null 2>&1 || not_ok "make_dll torch_cpu.dll"
run() { "$B" check --torch "$torch" --root "$tmp/root" "$@" >"$tmp/out" 2>&1; echo $?; }

echo keep >"$tmp/R"
check_eq "--json R --sarif R: usage error (2)" 2 "$(run --json "$tmp/R" --sarif "$tmp/R")"
check_cmd "...saying why" grep -q -- '--json and --sarif name the same file' "$tmp/out"
check_eq "...R untouched" keep "$(cat "$tmp/R")"
ln -s R "$tmp/L"
check_eq "--json R --sarif a link to R: 2" 2 "$(run --json "$tmp/R" --sarif "$tmp/L")"
check_eq "--summary S --outputs S (S not there yet): 2" 2 "$(run --summary "$tmp/S" --outputs "$tmp/./S")"
check_cmd "...nothing written" test ! -e "$tmp/S"
check_eq "--json A --sarif B: fine" 0 "$(run --json "$tmp/A" --sarif "$tmp/B")"

for bad in 'PyQt5.\..\..' '.PyQt5' 'PyQt5....' 'PyQt5/..' 'a b' 'PyQt5.Qt-Core'; do
	check_eq "--import-first '$bad': usage error (2)" 2 "$(run --import-first "$bad")"
	check_cmd "...saying it is not a name" grep -q "not a Python module name\|not a package name" "$tmp/out"
done
check_eq "--import-first torch: usage error (2), not a false warning" 2 "$(run --import-first torch)"
check_cmd "...saying why" grep -q 'torch is the package checked' "$tmp/out"
check_eq "--import-first torch.nn: usage error (2): importing torch.nn imports torch first" 2 "$(run --import-first torch.nn)"
check_cmd "...saying why" grep -q 'torch is the package checked (torch.MODULE imports torch first)' "$tmp/out"
run --import-first torchvision >/dev/null
check_eq "--import-first torchvision (torch. is not a prefix of it): not refused as torch" 0 \
	"$(grep -c 'torch is the package checked' "$tmp/out")"
for good in PyQt5 PyQt5-Qt5 PyQt5.QtCore _private.mod; do
	rc=$(run --import-first "$good")
	if [ "$rc" = 2 ] && grep -q 'not a Python module name\|not a package name' "$tmp/out"; then
		not_ok "--import-first $good: accepted as a name"
	else
		ok "--import-first $good: accepted as a name"
	fi
done
tap_done
