#!/usr/bin/env bash
# test_dist: the release assets are reproducible and are what the action
# runs. `make dist` (action/dist.sh) twice, from two copies of the sources at
# different paths, with different file times, umasks and clocks: the assets
# and action/checksums.txt must be byte-identical. The Linux programs need
# only libc.so.6, no GLIBC_ symbol newer than 2.35 (Ubuntu 22.04, the oldest
# hosted Ubuntu runner), and no libhivex (LGPL: never in a release asset);
# the Windows .exe files carry no link timestamp. Then the action takes the
# pinned assets from a local release mirror (TDC_RELEASE_URL, file://) and
# runs the check with them, and refuses the mirror's asset with one byte
# changed. The wheels: pip installs the manylinux one and runs it, and
# installs the win_amd64 one whose .exe runs under Wine.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=dist
repo=$PWD
version=$(sed -n 's/^#define TDC_VERSION "\(.*\)"/\1/p' checker/util/tdc.h)

# Two copies of the tracked (and new, unignored) files, as two clones would hold them.
copy() { # copy DEST: the sources as a clone has them
	mkdir -p "$1"
	git ls-files -z --cached --others --exclude-standard | grep -zv '^dist/' |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done | tar --null -T - -cf - | tar -xf - -C "$1"
}
# the copies are not git repositories: the source commit the .exe's version
# resource names comes from this clone, as each clone would find it
TDC_SOURCE_COMMIT=$(git log -1 --format=%H -- checker matrix)
export TDC_SOURCE_COMMIT
copy "$tmp/a/torch-dll-check"
copy "$tmp/second place/b/src"
# the second clone: other file times, another umask, another clock and zone
find "$tmp/second place" -exec touch -h -d '2031-05-06 07:08:09' {} +
t0=$SECONDS
if (cd "$tmp/a/torch-dll-check" && nice bash action/dist.sh) >"$tmp/dist-a.log" 2>&1; then
	ok "make dist in $tmp/a/torch-dll-check ($((SECONDS - t0)) s)"
else
	not_ok "make dist failed"
	tail -30 "$tmp/dist-a.log" | sed 's/^/#   /'
	tap_done
fi
sleep 1
t0=$SECONDS
if (cd "$tmp/second place/b/src" && umask 077 && TZ=Asia/Kolkata nice bash action/dist.sh) >"$tmp/dist-b.log" 2>&1; then
	ok "make dist again in '$tmp/second place/b/src' ($((SECONDS - t0)) s)"
else
	not_ok "the second make dist failed"
	tail -30 "$tmp/dist-b.log" | sed 's/^/#   /'
	tap_done
fi
a=$tmp/a/torch-dll-check/dist
b="$tmp/second place/b/src/dist"
assets="torch-dll-check-$version-linux-x64 torch-dll-check-git-$version-linux-x64 torch-dll-check-$version-windows-x64.exe torch-dll-check-git-$version-windows-x64.exe torch_dll_check-$version-py3-none-manylinux_2_35_x86_64.whl torch_dll_check-$version-py3-none-win_amd64.whl"
# shellcheck disable=SC2086 # $assets is a list of names
check_eq "the assets: two Linux programs, two Windows .exe, two wheels, licences, sums" \
	"LICENSES.md SHA256SUMS THIRD-PARTY-NOTICES.txt $(printf '%s\n' $assets | sort | tr '\n' ' ' | sed 's/ $//')" \
	"$(find "$a" -mindepth 1 -printf '%f\n' | sort | tr '\n' ' ' | sed 's/ $//')"
differ=""
for f in "$a"/*; do cmp -s "$f" "$b/${f##*/}" || differ="$differ ${f##*/}"; done
check_eq "the two builds are byte-identical" "" "$differ"
check_cmd "action/checksums.txt is identical too" cmp "$tmp/a/torch-dll-check/action/checksums.txt" \
	"$tmp/second place/b/src/action/checksums.txt"
# shellcheck disable=SC2086 # $assets is a list of names
check_eq "checksums.txt pins the six assets by SHA-256" "$(cd "$a" && sha256sum $assets | sort -k2)" \
	"$(grep -v '^#' "$tmp/a/torch-dll-check/action/checksums.txt" | sort -k2)"

for p in torch-dll-check torch-dll-check-git; do
	f=$a/$p-$version-linux-x64
	check_eq "$p (Linux) needs only libc.so.6" "libc.so.6" "$(objdump -p "$f" | awk '/NEEDED/ {print $2}' | tr '\n' ' ' | sed 's/ $//')"
	g=$(objdump -T "$f" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -uV | tail -1)
	check_eq "$p (Linux): its newest GLIBC_ symbol ($g) is at most 2.35 (Ubuntu 22.04)" 2.35 \
		"$(printf '%s\n2.35\n' "$g" | sort -V | tail -1)"
	w=$a/$p-$version-windows-x64.exe
	check_eq "$p.exe: no link timestamp in its COFF header" "0" \
		"$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(); o=struct.unpack_from("<I",d,0x3c)[0]; print(struct.unpack_from("<I",d,o+8)[0])' "$w")"
	# the version resource Windows shows (Properties > Details, SmartScreen), read back by `pe`
	check_eq "$p.exe: a version resource: product, version, description, source commit" \
		"version: file $version.0, product $version.0|ProductName: torch-dll-check|FileDescription: $p: |Comments: source commit $TDC_SOURCE_COMMIT" \
		"$("$B" pe "$w" | sed -n 's/^ *\(version: .*\|ProductName: .*\|Comments: .*\)$/\1/p; s/^ *\(FileDescription: *[a-z-]*: \).*/\1/p' |
			sed 's/  */ /g' | paste -sd'|')"
	check_eq "$p.exe imports no DLL outside Windows (static)" "" \
		"$(x86_64-w64-mingw32-objdump -p "$w" | awk '/DLL Name:/ {print tolower($3)}' |
			grep -v -e '^kernel32.dll$' -e '^advapi32.dll$' -e '^shell32.dll$' -e '^msvcrt.dll$' -e '^ws2_32.dll$' \
				-e '^secur32.dll$' -e '^rpcrt4.dll$' -e '^crypt32.dll$' -e '^ole32.dll$' -e '^user32.dll$' \
				-e '^api-ms-win-' | tr '\n' ' ')"
done
for f in "$a"/*-linux-x64 "$a"/*.exe; do
	if grep -qa 'hivex_open' "$f"; then not_ok "$(basename "$f") links libhivex"; else ok "$(basename "$f") has no libhivex in it"; fi
done
"$a/torch-dll-check-$version-linux-x64" --version >"$tmp/v.out" 2>&1
check_eq "the Linux program runs" "torch-dll-check $version" "$(cat "$tmp/v.out")"

# The action takes the pinned assets from a mirror, and refuses a changed byte
# (and the wheels install; both need the torch 2.4.0 tree).
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck source=tests/lib/trees/loader.sh
source tests/lib/trees/loader.sh
# shellcheck source=tests/lib/trees/torch240.sh
source tests/lib/trees/torch240.sh
if ! root=$(torch240_tree 2>"$tmp/tree.err") || [ ! -d "$root" ]; then
	not_ok "cannot build the torch 2.4.0 tree"
	tap_done
fi
act=$tmp/act
mkdir -p "$act" "$tmp/ws"
cp -R action.yml action checker matrix Makefile "$act/"
cp "$tmp/a/torch-dll-check/action/checksums.txt" "$act/action/checksums.txt"
cp -R "$a" "$tmp/mirror"
sim() { # sim NAME [input=value...]
	local name=$1
	shift
	mkdir -p "$tmp/$name/temp"
	(cd "$tmp/ws" && env -u NO_COLOR GITHUB_ACTIONS=true RUNNER_OS=Linux RUNNER_ARCH=X64 \
		RUNNER_TOOL_CACHE="$tmp/$name/toolcache" RUNNER_TEMP="$tmp/$name/temp" GITHUB_WORKSPACE="$tmp/ws" \
		SIM_ACTIONS_CACHE="$tmp/$name/actions-cache" GITHUB_STEP_SUMMARY="$tmp/$name/summary.md" \
		TDC_RELEASE_URL="file://$tmp/mirror" \
		python3 "$repo/tests/action/sim_runner.py" "$act" "$tmp/$name/log" "$@") >"$tmp/$name/result.json" \
		2>"$tmp/$name/sim.err"
}
res() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$tmp/$1/result.json" 2>/dev/null; }
torch='C:\Python311\Lib\site-packages\torch'
sim mirror scan="$root" torch-path="$torch"
check_eq "from the mirror: both assets verified, no source build, the check ran (exit 1)" "2 True 1" \
	"$(grep -c '^torch-dll-check: verified SHA-256' "$tmp/mirror/log/2.out") $(res mirror "r['steps'][5]['skipped']") $(res mirror "r['rc']")"
if cmp -s "$tmp/mirror/toolcache/torch-dll-check/$version/x64/torch-dll-check" "$a/torch-dll-check-$version-linux-x64"; then
	ok "the installed program is the release asset"
else
	not_ok "the installed program is not the release asset"
fi
# one byte changed in the middle of the asset
f="$tmp/mirror/torch-dll-check-$version-linux-x64"
size=$(stat -c %s "$f")
printf '\x5a' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
sim changed scan="$root" torch-path="$torch"
check_eq "one byte changed: setup refuses (2), nothing installed, no check" "2 no True" \
	"$(res changed "r['rc']") $([ -e "$tmp/changed/toolcache/torch-dll-check/$version/x64/torch-dll-check" ] && echo yes || echo no) $(res changed "r['steps'][7]['skipped']")"
if grep -q "^::error title=torch-dll-check: checksum mismatch::torch-dll-check-$version-linux-x64 has SHA-256 " "$tmp/changed/log/2.out"; then
	ok "...with the mismatch annotated"
else
	not_ok "no mismatch annotation"
	sed 's/^/#   /' "$tmp/changed/log/2.out"
fi
# The wheels: pip installs the Linux one and its console script runs the
# program; pip installs the Windows one for win_amd64 and the .exe it
# carries runs under Wine (the real loader).
lw=$a/torch_dll_check-$version-py3-none-manylinux_2_35_x86_64.whl
ww=$a/torch_dll_check-$version-py3-none-win_amd64.whl
if python3 -m venv "$tmp/venv" >"$tmp/venv.log" 2>&1 &&
	"$tmp/venv/bin/pip" install --no-index --no-deps -q "$lw" >>"$tmp/venv.log" 2>&1; then
	ok "pip installs the manylinux wheel"
	check_eq "...its console script runs the program" "torch-dll-check $version" "$("$tmp/venv/bin/torch-dll-check" --version 2>&1)"
	check_eq "...and python -m torch_dll_check too" "torch-dll-check $version" "$("$tmp/venv/bin/python" -m torch_dll_check --version 2>&1)"
	"$tmp/venv/bin/torch-dll-check" check --root="$root" --torch='C:\Python311\Lib\site-packages\torch' >"$tmp/wcheck.out" 2>&1
	check_eq "...and checks the torch 2.4.0 tree: exit 1, naming libomp140.x86_64.dll" "1 yes" \
		"$? $(grep -q 'libomp140.x86_64.dll' "$tmp/wcheck.out" && echo yes || echo no)"
else
	not_ok "pip cannot install the manylinux wheel"
	tail -10 "$tmp/venv.log" | sed 's/^/#   /'
fi
if python3 -m pip install --no-index --no-deps -q --platform win_amd64 --only-binary=:all: --target "$tmp/winpkg" "$ww" \
	>"$tmp/winpip.log" 2>&1 && [ -f "$tmp/winpkg/torch_dll_check/bin/torch-dll-check.exe" ]; then
	ok "pip installs the win_amd64 wheel (--platform win_amd64)"
	check_eq "...its torch-dll-check.exe carries the version resource (pe)" "ProductVersion: $version" \
		"$("$B" pe "$tmp/winpkg/torch_dll_check/bin/torch-dll-check.exe" | sed -n 's/^ *\(ProductVersion: *\)/\1/p' | sed 's/  */ /g')"
	if command -v wine >/dev/null; then
		(
			unset DISPLAY
			export WINEPREFIX=$tmp/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
			wine "$tmp/winpkg/torch_dll_check/bin/torch-dll-check.exe" --version >"$tmp/wine.out" 2>"$tmp/wine.err"
			echo $? >"$tmp/wine.rc"
			wineserver -k >/dev/null 2>&1
		)
		check_eq "...and the torch-dll-check.exe it carries runs under Wine" "0 torch-dll-check $version" \
			"$(cat "$tmp/wine.rc") $(tr -d '\r' <"$tmp/wine.out")"
	else
		not_ok "wine is not installed (.ci/deps installs it)"
	fi
else
	not_ok "pip cannot install the win_amd64 wheel"
	tail -10 "$tmp/winpip.log" | sed 's/^/#   /'
fi
tap_done
