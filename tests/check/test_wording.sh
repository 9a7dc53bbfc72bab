#!/usr/bin/env bash
# test_wording: a fix and a message true of the install at hand (#34): a
# ROCm build of torch 2.9.1 bundles MSVC's LLVM OpenMP (libomp140) in
# torch\lib; when it is missing there the error says so and offers the
# reinstall, never "move to torch >= 2.4.1" nor "shipped in torch\lib" as if
# it were there. The same tree as torch 2.4.0 (it does not bundle it) keeps
# the 2.4.1 advice. The tree: tests/lib/trees/torch240.sh (fbgemm.dll
# imports libomp140.x86_64.dll, found nowhere), relabelled.
set -u
TEST_NAME=wording
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source tests/lib/fixtures.sh
source tests/lib/trees/loader.sh
source tests/lib/trees/torch240.sh
if ! root=$(torch240_tree 2>"$tmp/tree.err") || [ ! -d "$root" ]; then
	not_ok "the torch 2.4.0 tree: $(tail -1 "$tmp/tree.err")"
	tap_done
fi
cp -al "$root" "$tmp/rocm"
sp=$tmp/rocm/Python311/Lib/site-packages
rm -f "$sp/torch/version.py" && echo "__version__ = '2.9.1+rocm7.1'" >"$sp/torch/version.py"
rm -rf "$sp"/torch-*.dist-info
J() { "$B" check --root "$1" --python 'C:\Python311\python.exe' --json 2>/dev/null | jq -c "$2"; }
f='[.findings[] | select(.severity == "error" and .leaf == "libomp140.x86_64.dll")]'
check_eq "torch 2.9.1+rocm7.1 without torch\\lib\\libomp140: the fix is the reinstall, no 'torch >= 2.4.1'" \
	'[true]|0' \
	"$(J "$tmp/rocm" "[${f}[] | .fix | startswith(\"reinstall torch\")] | unique")|$(J "$tmp/rocm" "[${f}[] | (.fix + .message) | select(contains(\"2.4.1\"))] | length")"
check_eq "...and the message says torch\\lib has none, not that it is shipped there" '[true]' \
	"$(J "$tmp/rocm" "[${f}[] | .message | contains(\"lib has none\") and (contains(\"shipped in torch\\\\lib\") | not)] | unique")"
check_eq "torch 2.4.0 on the same tree: the 2.4.1 advice stays" '[true]' \
	"$(J "$root" "[${f}[] | .fix | contains(\"2.4.1\")] | unique")"
tap_done
