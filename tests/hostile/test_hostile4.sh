#!/usr/bin/env bash
# test_hostile4: hostile inputs, round 4 (issue 34's classes of defect) against
# what issues 30-33 added: py.ini and PEP 514 keys, pyvenv.cfg, ._pth and .pth
# files, PYTHONPATH/PYTHONHOME, conda-meta records, profile files and
# `inventory --write-profile`, --memory/--processes and PagingFiles,
# min_windows and vendor_dlls rows, AMD/Intel display-adapter keys, --app
# (onefile archives that lie, link loops in onedir and cx_Freeze layouts) and
# --host. ~200 cases in tests/hostile/hostile4.py, each on a copy of the torch
# 2.4.0 tree (tests/lib/trees/torch240.sh) run by the sanitizer build: a clear
# error or the right verdict, never a sanitizer report, never a stray
# workflow command or raw HTML in any format, bounded in time.
# HOSTILE4_ONLY=TEXT runs the cases whose name holds TEXT.
TEST_NAME=hostile4
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/trees/loader.sh"
source "$TDC_REPO/tests/lib/trees/torch240.sh"
set -u
base=$(torch240_tree) || {
	not_ok "the torch 2.4.0 tree could not be built"
	tap_done
}
mkdir -p "$tmp/w"
python3 "$TDC_REPO/tests/hostile/hostile4.py" "$B" "$base" "$tmp/w"
TAP_FAILED=$?

# A real PyInstaller 6 onedir (its bootloader and CArchiveWriter, tests/lib/trees/frozen.sh) of the
# same torch, libomp140 in System32 so that it loads; then links, FIFOs and cut or padded archives.
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/lib/trees/frozen.sh"
app=$tmp/app
cp -r "$base" "$app" && make_dll "$app/Windows/System32/libomp140.x86_64.dll" --export omp_get_max_threads >/dev/null
if ! pyi_unpack 6.11.0 "$tmp/pyi" >/dev/null 2>&1; then
	skip "hostile PyInstaller onedir layouts" "the pyinstaller 6.11.0 wheel could not be fetched"
	tap_done
fi
if ! pyi_onedir "$app" "$tmp/pyi" 6 >/dev/null; then
	not_ok "the PyInstaller onedir could not be built"
	tap_done
fi
# variant NAME: a copy of the app (hard links) to spoil
variant() { rm -rf "${tmp:?}/$1" && cp -al "$app" "$tmp/$1" && echo "$tmp/$1"; }
# app_case WHAT TREE EXPECTED-EXIT PATTERN: check --app under ASan in github format
app_case() {
	timeout 120 "$B" check --root "$2" --app 'C:\App\App.exe' --format github >"$tmp/app.out" 2>&1
	local rc=$?
	if [ "$rc" -ne "$3" ] || grep -q 'AddressSanitizer\|runtime error' "$tmp/app.out" ||
		! grep -q -- "$4" "$tmp/app.out"; then
		not_ok "onedir: $1: exit $rc, expected $3 and /$4/"
		head -5 "$tmp/app.out" | sed 's/^/#   /'
	else
		ok "onedir: $1"
	fi
}
app_case "as built: loads (a warning)" "$app" 0 "libomp140"
v=$(variant loops) && ln -s .. "$v/App/_internal/loop" && ln -s . "$v/App/_internal/torch/lib/self"
app_case "folder links looping in _internal and torch\\lib: the same verdict" "$v" 0 "libomp140"
v=$(variant pyout) && rm "$v/App/_internal/python311.dll" && ln -s "$base/Python311/python311.dll" "$v/App/_internal/python311.dll"
app_case "python311.dll a link out of the root: not there (126)" "$v" 1 "python311.dll is missing"
v=$(variant torchout) && rm -rf "$v/App/_internal/torch" && ln -s "$base/Python311/Lib/site-packages/torch" "$v/App/_internal/torch"
app_case "_internal\\torch a link out of the root: no torch, exit 2" "$v" 2 "torch"
v=$(variant torchself) && rm -rf "$v/App/_internal/torch" && ln -s ../../App/_internal "$v/App/_internal/torch"
app_case "_internal\\torch a link to _internal itself: exit 2" "$v" 2 "torch"
v=$(variant cut) && rm "$v/App/App.exe" && head -c -40 "$app/App/App.exe" >"$v/App/App.exe"
app_case "App.exe cut through its cookie: a clear error" "$v" 2 "no PyInstaller archive"
tap_done
