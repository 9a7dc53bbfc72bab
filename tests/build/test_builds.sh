#!/usr/bin/env bash
# test_builds: the program builds with clang as well as gcc (warnings as
# errors), and the mingw-w64 cross-build produces a torch-dll-check.exe that
# runs under Wine and reads a PE file exactly as the Linux build does: the
# Windows OS layer (wide-char paths, file mapping, UTF-8 argv) is exercised
# for real, not only compiled.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=builds
out=$tmp

# clang, strict, out of tree (a copy, so the gcc build in build/ is untouched)
if command -v clang >/dev/null; then
	mkdir -p "$out/clang"
	cp -r Makefile checker matrix "$out/clang/"
	check_cmd "clang -Werror builds torch-dll-check and torch-dll-check-git" \
		make -s -C "$out/clang" CC=clang DEVELOPER=1 -j2
	check_eq "the clang build runs" "torch-dll-check $("$TDC_BIN" --version | awk '{print $2}')" \
		"$("$out/clang/torch-dll-check" --version)"
else
	not_ok "clang is not installed"
fi

# mingw-w64: the static Windows program, run under Wine
# (tests/lib/cross_exe.sh: built once per source, shared with tests/confirm/)
# shellcheck source=tests/lib/cross_exe.sh
source tests/lib/cross_exe.sh
if ! exe=$(cross_exe "$out/xbuild.log"); then
	not_ok "cross-build of torch-dll-check.exe failed"
	sed 's/^/#   /' "$out/xbuild.log" | tail -20
	tap_done
fi
ok "mingw-w64 cross-build: $(basename "$exe") ($(stat -c %s "$exe") bytes)"
check_eq "the .exe is a Windows x64 console program" "x64" \
	"$("$TDC_BIN" pe --json "$exe" | python3 -c 'import json,sys; print(json.load(sys.stdin)["files"][0]["machine"])')"

. tests/oracle/wine.sh
if ! prefix=$(wine_prefix_ensure); then
	not_ok "no Wine prefix"
	tap_done
fi
wine_lock "$prefix" # the prefix is shared with the other tests and test runs
cp "$exe" "$prefix/drive_c/tdc.exe"
k32="$prefix/drive_c/windows/system32/kernel32.dll"
WINEDEBUG=-all wine_run "$prefix" "$out/ver.out" "$out/ver.err" 'C:\tdc.exe' --version
check_eq "torch-dll-check.exe --version under Wine" "$("$TDC_BIN" --version)" "$(tr -d '\r' <"$out/ver.out")"
WINEDEBUG=-all wine_run "$prefix" "$out/pe.out" "$out/pe.err" 'C:\tdc.exe' pe --json 'C:\windows\system32\kernel32.dll'
"$TDC_BIN" pe --json "$k32" >"$out/pe.linux"
norm() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [f.pop("path") for f in d["files"]]; print(json.dumps(d, sort_keys=True))' "$1" 2>&1; }
check_eq "pe --json of kernel32.dll: Windows build (mapped by the Win32 layer) equals Linux build" \
	"$(norm "$out/pe.linux" | sha256sum)" "$(norm "$out/pe.out" | sha256sum)"
mkdir -p "$prefix/drive_c/Jürgen"
cp "$k32" "$prefix/drive_c/Jürgen/k32 copy.dll"
WINEDEBUG=-all wine_run "$prefix" "$out/nonascii.out" "$out/nonascii.err" 'C:\tdc.exe' pe --json 'C:\Jürgen\k32 copy.dll'
check_eq "a non-ASCII path reaches the Windows build intact (UTF-8 argv, wide-char open)" \
	"$(norm "$out/pe.linux" | sha256sum)" "$(norm "$out/nonascii.out" | sha256sum)"
WINEDEBUG=-all wine_run "$prefix" "$out/bad.out" "$out/bad.err" 'C:\tdc.exe' pe 'C:\does-not-exist.dll'
check_eq "a missing file: exit status 2 from the Windows build" "2" "$?"
rm -rf "$prefix/drive_c/tdc.exe" "$prefix/drive_c/Jürgen"
tap_done
