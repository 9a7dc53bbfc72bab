#!/usr/bin/env bash
# test_root: --root is the whole machine, and only it.
# - A relative --root is resolved once, at the start: `--root drive_c` run
#   from a Wine prefix finds drive_c/../system.reg (it looked for the
#   host's /system.reg), also spelt ./drive_c/.
# - ".." in a Windows path stops at C:\ as on Windows: a venv whose
#   pyvenv.cfg says `home = C:\..\..\..\..\tmp\...` cannot make the checker
#   probe host folders outside the tree (whether such a folder existed used
#   to show in dll_paths).
# - A symbolic link in the tree is followed only when it leads inside the
#   root (relative with "..", absolute, through a root that is a link): one
#   that leads out is not read, the DLL behind it is not found (the probe
#   says why), and it is a link-outside-root finding on the binary or
#   folder; a torch tree of real PE stand-ins (tests/lib/trees/torch_cases.sh).
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=root

mkdir -p "$tmp/pfx/drive_c/Windows/System32"
cp tests/fuzz/corpus/registry/wine-system-excerpt.reg "$tmp/pfx/system.reg"
for r in drive_c ./drive_c/. "../pfx/drive_c"; do
	out=$(cd "$tmp/pfx" && "$B" inventory --root "$r" --json 2>&1)
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
"$B" check --torch 'C:\venv\Lib\site-packages\torch' --root "$tmp/root" --format json >"$tmp/r.json" 2>"$tmp/err"
paths=$(python3 -c "import json; print(json.load(open('$tmp/r.json'))['installs'][0]['dll_paths'])" 2>&1)
if grep -q outside <<<"$paths"; then
	not_ok "pyvenv.cfg home above C:\\ does not reach the host outside --root"
	echo "#   dll_paths: $paths"
else
	ok "pyvenv.cfg home above C:\\ does not reach the host outside --root"
fi
# The same folder inside the tree is found, as Windows folds C:\..\x to C:\x.
mkdir -p "$tmp/root/${tmp#/}/outside/Library/bin"
"$B" check --torch 'C:\venv\Lib\site-packages\torch' --root "$tmp/root" --format json >"$tmp/r2.json" 2>"$tmp/err"
paths=$(python3 -c "import json; print(json.load(open('$tmp/r2.json'))['installs'][0]['dll_paths'])" 2>&1)
if grep -qF 'outside\\Library\\bin' <<<"$paths"; then
	ok "...while C:\\..\\x inside the tree is C:\\x, as on Windows"
else
	not_ok "...while C:\\..\\x inside the tree is C:\\x, as on Windows"
	echo "#   dll_paths: $paths"
fi

# ---- links: followed inside the root, never out of it ----
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
FX_KEY=$(cat tests/lib/trees/loader.sh tests/lib/trees/torch_cases.sh | sha256sum | cut -c1-12)
export FX_KEY
# shellcheck source=tests/lib/trees/torch_cases.sh
source "$TDC_REPO/tests/lib/trees/torch_cases.sh" # build_torch
if ! base=$(fx_build torch-omp140_lib build_torch omp140_lib); then
	skip "links out of --root are not followed" "the torch tree could not be built (mingw-w64)"
	tap_done
fi
PY='C:\Python311\python.exe'
LIBW='C:\Python311\Lib\site-packages\torch\lib'
omp=libomp140.x86_64.dll
# tree NAME: a fresh copy of the tree (hard links) whose torch\lib has no libomp140; the DLL is in $tmp/outside
tree() {
	rm -rf "${tmp:?}/$1" && cp -al "$base" "$tmp/$1" && mkdir -p "$tmp/outside" &&
		cp "$base/Python311/Lib/site-packages/torch/lib/$omp" "$tmp/outside/" &&
		rm "$tmp/$1/Python311/Lib/site-packages/torch/lib/$omp" && echo "$tmp/$1"
}
lib() { echo "$1/Python311/Lib/site-packages/torch/lib"; }
# J ROOT FILTER: jq over check --json ($lib: torch\lib's libomp140 as a Windows path)
J() { "$B" check --root "$1" --python "$PY" --json 2>&1 | jq -c --arg lib "$LIBW\\$omp" "$2" 2>&1; }
links='[.findings[] | select(.rule == "link-outside-root") | [.severity, .leaf, .binary, .install]]'
fb='.installs[0].binaries[] | select(.path | endswith("fbgemm.dll"))'
loads='[.counts.binaries_failing, ([.findings[] | select(.rule == "link-outside-root")] | length)]'

r=$(tree abs-out)
ln -s "$tmp/outside/$omp" "$(lib "$r")/$omp"
check_eq "a link to a DLL outside the root: fbgemm.dll fails as if it were absent" \
	'["missing-dll",126,"libomp140.x86_64.dll"]' "$(J "$r" "$fb | [.outcome,.winerror,.leaf]")"
check_eq "...one link-outside-root warning on that binary" \
	'[["warning",true,true,"C:\\Python311\\Lib\\site-packages\\torch"]]' \
	"$(J "$r" "$links | map([.[0], .[1] == \$lib, .[2] == \$lib, .[3]])")"
check_eq "...whose message names where the link leads" "true" \
	"$(J "$r" "[.findings[] | select(.rule == \"link-outside-root\") | .message | contains(\"$tmp/outside/$omp\")] | .[0]")"
check_eq "...and the probe of torch\\lib says why it was not taken" \
	'"a link outside --root, not followed"' \
	"$(J "$r" "[$fb | .. | objects | select(.path? == \$lib and .step? != null) | .result] | .[0]")"
check_status "...exit 1" 1 "$B" check --root "$r" --python "$PY"

mkdir -p "$tmp/inv/Windows/System32"
ln -s "$tmp/outside/$omp" "$tmp/inv/Windows/System32/msvcp140.dll"
check_eq "inventory --root notes the link it did not follow (the runtime DLL looks absent otherwise)" \
	"[\"C:\\\\Windows\\\\System32\\\\msvcp140.dll is a link to $tmp/outside/$omp, outside --root: not followed (taken as absent)\"]" \
	"$("$B" inventory --root "$tmp/inv" --json 2>&1 | jq -c '[.inventory.notes[] | select(test("outside --root"))]' 2>&1)"

r=$(tree rel-out)
ln -s "../../../../../../outside/$omp" "$(lib "$r")/$omp"
check_eq "a relative link whose .. climbs out of the root: not followed either" '["missing-dll",1]' \
	"$(J "$r" "[($fb | .outcome), ($links | length)]")"

r=$(tree dir-out)
mkdir -p "$r/Python311/Library"
ln -s "$tmp/outside" "$r/Python311/Library/bin"
check_eq "a folder linked out of the root (conda's Library\\bin): not in dll_paths, reported on the folder" \
	'[false,"C:\\Python311\\Library\\bin",null,"missing-dll"]' \
	"$(J "$r" "[(.installs[0].dll_paths | any(test(\"Library\"))), ($links | .[0][1], .[0][2]), ($fb | .outcome)]")"

r=$(tree desktop)
cp "$tmp/outside/$omp" "$(lib "$r")/"
mkdir -p "$r/users/runner"
ln -s "$tmp" "$r/users/runner/Desktop"
check_eq "a link the --scan walk skips anyway (a Wine prefix's Desktop -> \$HOME) is not a finding" '[1,0]' \
	"$("$B" check --root "$r" --scan "C:\\" --json 2>&1 |
		jq -c '[.counts.installs, ([.findings[] | select(.rule == "link-outside-root")] | length)]' 2>&1)"

r=$(tree rel-in)
mkdir -p "$r/stash"
mv "$tmp/outside/$omp" "$r/stash/"
ln -s "../../../../../stash/$omp" "$(lib "$r")/$omp"
check_eq "a relative link with .. that stays inside the root is followed: every binary loads, no finding" \
	'[0,0]' "$(J "$r" "$loads")"
rm "$(lib "$r")/$omp"
ln -s "$r/stash/$omp" "$(lib "$r")/$omp"
check_eq "an absolute host path under the root too" '[0,0]' "$(J "$r" "$loads")"
ln -s "$r" "$tmp/via"
check_eq "...also when --root itself is a link to the tree (a Wine prefix's dosdevices\\c:)" '[0,0]' \
	"$(J "$tmp/via" "$loads")"
tap_done
