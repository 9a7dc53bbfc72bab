#!/usr/bin/env bash
# test_root: --root is the whole machine, and only it.
# - A relative --root is resolved once, at the start: `--root drive_c` run
#   from a Wine prefix finds drive_c/../system.reg (it looked for the
#   host's /system.reg), also spelt ./drive_c/.
# - ".." in a Windows path stops at C:\ as on Windows: a venv whose
#   pyvenv.cfg says `home = C:\..\..\..\..\tmp\...` cannot make the checker
#   probe host folders outside the tree (whether such a folder existed used
#   to show in dll_paths).
set -u
cd "$(dirname "$0")/../.." || exit 1
REPO=$PWD
# shellcheck source=tests/lib/tap.sh
source tests/lib/tap.sh
TEST_NAME=root
BIN=${TDC_ASAN_BIN:-$REPO/build/asan/torch-dll-check}
[ -x "$BIN" ] || BIN=${TDC_BIN:-$REPO/torch-dll-check}
case $BIN in /*) ;; *) BIN=$REPO/$BIN ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/pfx/drive_c/Windows/System32"
cp tests/fuzz/corpus/registry/wine-system-excerpt.reg "$tmp/pfx/system.reg"
for r in drive_c ./drive_c/. "../pfx/drive_c"; do
	out=$(cd "$tmp/pfx" && "$BIN" inventory --root "$r" --json 2>&1)
	if grep -q "\"registry\":[[:space:]]*\"wine system.reg at $tmp/pfx/system.reg\"" <<<"$out"; then
		ok "relative --root $r finds the prefix's system.reg"
	else
		not_ok "relative --root $r finds the prefix's system.reg"
		grep -i registry <<<"$out" | head -3 | sed 's/^/#   /'
	fi
done

# A venv whose home climbs above C:\, towards a host folder that exists.
mkdir -p "$tmp/outside/Library/bin" "$tmp/root/venv/Lib/site-packages/torch/lib" "$tmp/root/venv/Scripts"
echo "__version__ = '2.5.1+cpu'" >"$tmp/root/venv/Lib/site-packages/torch/version.py"
: >"$tmp/root/venv/Scripts/python.exe"
ups=$(printf '%s' "$tmp" | tr -cd / | sed 's|/|..\\|g')
printf 'home = C:\\%s%s\\outside\nversion = 3.11.4\n' "$ups" "$(printf '%s' "${tmp#/}" | tr / "\\\\")" >"$tmp/root/venv/pyvenv.cfg"
"$BIN" check --torch 'C:\venv\Lib\site-packages\torch' --root "$tmp/root" --format json >"$tmp/r.json" 2>"$tmp/err"
paths=$(python3 -c "import json; print(json.load(open('$tmp/r.json'))['installs'][0]['dll_paths'])" 2>&1)
if grep -q outside <<<"$paths"; then
	not_ok "pyvenv.cfg home above C:\\ does not reach the host outside --root"
	echo "#   dll_paths: $paths"
else
	ok "pyvenv.cfg home above C:\\ does not reach the host outside --root"
fi
# The same folder inside the tree is found, as Windows folds C:\..\x to C:\x.
mkdir -p "$tmp/root/${tmp#/}/outside/Library/bin"
"$BIN" check --torch 'C:\venv\Lib\site-packages\torch' --root "$tmp/root" --format json >"$tmp/r2.json" 2>"$tmp/err"
paths=$(python3 -c "import json; print(json.load(open('$tmp/r2.json'))['installs'][0]['dll_paths'])" 2>&1)
if grep -qF 'outside\\Library\\bin' <<<"$paths"; then
	ok "...while C:\\..\\x inside the tree is C:\\x, as on Windows"
else
	not_ok "...while C:\\..\\x inside the tree is C:\\x, as on Windows"
	echo "#   dll_paths: $paths"
fi
tap_done
