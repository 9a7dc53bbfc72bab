#!/usr/bin/env bash
# test_registry.sh: the offline registry readers against real registries
# written by Wine: a prefix's system.reg with VC++ runtime keys added by
# `wine reg add` (64-bit and 32-bit views), and `wine reg export` files
# (UTF-16LE with a BOM) of the same keys. All three must give the same
# inventory answers; the real files must parse completely.
#
# The prefix is built once and cached in $TDC_CACHE (tests/lib/wine_registry.sh).
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=inventory-registry
set -u

bin=$B
if ! command -v wine >/dev/null || ! command -v wineserver >/dev/null; then
	skip "offline registry readers against Wine's system.reg and reg export files" "wine is not installed (see .ci/deps)"
	tap_done
fi

# shellcheck source=tests/lib/wine_registry.sh
source "$TDC_REPO/tests/lib/wine_registry.sh"
if ! pfx=$(wine_registry_prefix 2>"$tmp/prefix.err"); then
	not_ok "could not build the Wine prefix"
	tail -20 "$tmp/prefix.err" | sed 's/^/#   /'
	tap_done
fi
ok "Wine prefix with VC++ runtime keys (cached at ${pfx%/pfx})"

out=$tmp

# The table rows (arch, installed, version, as stored, view, key) and notes, without the header
rows() { grep -E '^  (x64|x86|arm64) |^ +note:' "$1"; }

"$bin" inventory --registry "$pfx/system.reg" >"$out/sys.txt" 2>&1
check_eq "system.reg: exit status" 0 $?
"$bin" inventory --registry "$pfx/export64.reg" --registry "$pfx/export-wow.reg" >"$out/exp.txt" 2>&1
check_eq "reg export (64-bit + WOW6432Node): exit status" 0 $?
"$bin" inventory --root "$pfx/drive_c" >"$out/root.txt" 2>&1
check_eq "--root drive_c: exit status" 0 $?

expect='  x64    yes       14.40.33810.0   v14.40.33810.00   64   HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\x64
  x86    yes       14.38.33130.0   v14.38.33130.00   32   HKLM\SOFTWARE\WOW6432Node\Microsoft\VisualStudio\14.0\VC\Runtimes\x86
  arm64  no        14.40.33810.0   v14.40.33810.00   64   HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\arm64
         note: Version v14.40.33810.00 disagrees with Major/Minor/Bld 14.40.33130
         note: Installed = 0: the key is there but the runtime is marked not installed'
check_eq "system.reg: x64 in the 64-bit view, x86 in WOW6432Node, arm64 inconsistent" "$expect" "$(rows "$out/sys.txt")"
check_eq "reg export files answer as system.reg does" "$(rows "$out/sys.txt")" "$(rows "$out/exp.txt")"
check_eq "--root at drive_c finds ../system.reg and answers the same" "$(rows "$out/sys.txt")" "$(rows "$out/root.txt")"
check_eq "--root names its registry source" "VC++ 2015-2022 redistributable (registry: wine system.reg at $pfx/system.reg)" \
	"$(head -1 "$out/root.txt")"

# The export really is UTF-16LE with a BOM, as reg.exe writes it
check_eq "reg export is UTF-16LE with a BOM" "fffe5700" "$(head -c 4 "$pfx/export64.reg" | od -An -tx1 | tr -d ' \n')"

# reg export /reg:32 writes the 32-bit keys without WOW6432Node: the file cannot tell the view
"$bin" inventory --registry "$pfx/export-reg32.reg" >"$out/r32.txt" 2>&1
check_eq "reg export /reg:32 loses the view: x86 shows up in the 64-bit view" \
	'  x86    yes       14.38.33130.0   v14.38.33130.00   64   HKLM\SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\x86' \
	"$(grep -E '^  x86 ' "$out/r32.txt")"

# JSON carries the same facts
"$bin" inventory --registry "$pfx/system.reg" --json >"$out/sys.json" 2>&1
check_eq "--json: redistributables" "x64 True 14.40.33810.0 64 1|x86 True 14.38.33130.0 32 1|arm64 False 14.40.33810.0 64 0" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["inventory"]["redistributables"]; print("|".join("%s %s %s %s %s" % (r["arch"], r["installed"], r["version"], r["view"], r["installed_value"]) for r in d))' "$out/sys.json" 2>&1)"

# Real files parse completely, escapes included (a small C-free check through the unit under test:
# the test key's values read back through a merged export and through system.reg)
for f in system.reg export-test.reg export-software.reg; do
	check_status "$f parses completely" 0 "$bin" inventory --registry "$pfx/$f"
done

# user.reg is not HKLM: a clear error, exit 2
"$bin" inventory --registry "$pfx/user.reg" >"$out/user.txt" 2>&1
check_eq "user.reg: exit 2" 2 $?
check_eq "user.reg: the error names line 2 and says why" \
	"torch-dll-check: inventory: $pfx/user.reg:2: keys relative to REGISTRY\\\\User\\\\S-1-5-21-0-0-0-1000: not HKEY_LOCAL_MACHINE (use the prefix's system.reg)" \
	"$(cat "$out/user.txt")"

# A damaged copy: a broken dword line is an error with its line number
cp "$pfx/system.reg" "$out/bad.reg"
line=$(grep -n '^"Bld"=dword:' "$out/bad.reg" | head -1 | cut -d: -f1)
sed -i "${line}s/dword:.*/dword:zz/" "$out/bad.reg"
"$bin" inventory --registry "$out/bad.reg" >"$out/bad.txt" 2>&1
check_eq "damaged system.reg: exit 2" 2 $?
check_eq "damaged system.reg: file:line and what was expected" \
	"torch-dll-check: inventory: $out/bad.reg:$line: value \"Bld\": expected 1 to 8 hex digits after \"dword:\", found \"zz\"" \
	"$(cat "$out/bad.txt")"

# --root at a drive_c whose ../system.reg is damaged: an error, never "not installed"
mkdir -p "$out/pfx2/drive_c/windows/system32"
cp "$out/bad.reg" "$out/pfx2/system.reg"
"$bin" inventory --root "$out/pfx2/drive_c" >"$out/bad2.txt" 2>&1
check_eq "--root with a damaged system.reg: exit 2" 2 $?
check_eq "--root with a damaged system.reg: the parse error" \
	"torch-dll-check: inventory: $out/pfx2/system.reg:$line: value \"Bld\": expected 1 to 8 hex digits after \"dword:\", found \"zz\"" \
	"$(cat "$out/bad2.txt")"

# A truncated UTF-16 export (odd length) is refused, not half-read
head -c 301 "$pfx/export64.reg" >"$out/trunc.reg"
"$bin" inventory --registry "$out/trunc.reg" >"$out/trunc.txt" 2>&1
check_eq "truncated UTF-16 export: exit 2" 2 $?
check_eq "truncated UTF-16 export: says so" \
	"torch-dll-check: inventory: $out/trunc.reg: UTF-16 text with an odd number of bytes (301): truncated?" "$(cat "$out/trunc.txt")"

# The real escapes: Wine wrote "N\xe4m\xe9"="q\"\xe9\xd83d\xde00\\x" (a surrogate pair for U+1F600);
# system.reg and the UTF-16 export must decode to the same UTF-8 text
check_eq "Wine wrote the non-ASCII value with \\x escapes and a surrogate pair" \
	'"N\xe4m\xe9"="q\"\xe9\xd83d\xde00\\x"' "$(grep -F '"N\xe4m\xe9"' "$pfx/system.reg")"
# (Wine keeps values sorted by name)
want='Multi REG_MULTI_SZ a\nb
Nämé REG_SZ q"é😀\x'
check_eq "system.reg: escaped name and data decoded" "$want" \
	"$("$bin" inventory --registry "$pfx/system.reg" --query 'HKLM\SOFTWARE\tdc-test' 2>&1)"
check_eq "UTF-16 export: the same values" "$want" \
	"$("$bin" inventory --registry "$pfx/export-test.reg" --query 'HKLM\SOFTWARE\tdc-test' 2>&1)"
check_eq "whole HKLM\\SOFTWARE export: the same values" "$want" \
	"$("$bin" inventory --registry "$pfx/export-software.reg" --query 'HKLM\SOFTWARE\tdc-test' 2>&1)"
check_eq "32-bit view query of the x86 key" "$(printf 'Bld REG_DWORD 33130\nInstalled REG_DWORD 1\nMajor REG_DWORD 14\nMinor REG_DWORD 38\nRbld REG_DWORD 0\nVersion REG_SZ v14.38.33130.00')" \
	"$("$bin" inventory --registry "$pfx/system.reg" --query "$RTKEY\\x86" --view 32 2>&1)"
check_status "the x86 key is absent from the 64-bit view (exit 1)" 1 \
	"$bin" inventory --registry "$pfx/system.reg" --query "$RTKEY\\x86" --view 64

# The live side: the same binary cross-built for Windows, run under Wine in the same
# prefix, reads the registry through the Win32 API (RegGetValueW with
# KEY_WOW64_64KEY / KEY_WOW64_32KEY) and System32 through Wine. It must agree
# with the offline readers: the registry file parsers against Wine's own registry code.
# shellcheck source=tests/lib/win_exe.sh
source "$TDC_REPO/tests/lib/win_exe.sh"
if ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	skip "live registry" "mingw-w64 is not installed: NOT compared"
elif ! exe=$(win_exe "$out"); then
	not_ok "could not cross-build torch-dll-check.exe"
	tail -20 "$out/xbuild.log" "$out/xdeps.log" 2>/dev/null | sed 's/^/#   /'
else
	(
		unset DISPLAY
		export WINEPREFIX=$pfx WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
		wine "$exe" inventory >"$out/live.txt" 2>"$out/live.err"
		echo $? >"$out/live.rc"
		wineserver -k >/dev/null 2>&1
	)
	check_eq "live (under Wine): exit status" 0 "$(cat "$out/live.rc")"
	check_eq "live registry API agrees with the offline system.reg reader" "$(rows "$out/sys.txt")" "$(rows "$out/live.txt" | tr -d '\r')"
	check_eq "live registry source" "VC++ 2015-2022 redistributable (registry: live registry)" "$(head -1 "$out/live.txt" | tr -d '\r')"
	dlls() { tr -d '\r' <"$1" | sed -n '/^Runtime DLLs/,/^$/p' | awk 'NR > 2 && NF { print $1, $2, $3, $4 }'; }
	check_eq "live and offline runtime DLL tables agree (name, where, machine, version)" \
		"$(dlls "$out/root.txt")" "$(dlls "$out/live.txt")"
	check_eq "Wine's System32 has the VC runtimes, without version resources" "vcruntime140.dll System32 x64 no" \
		"$(dlls "$out/live.txt" | grep '^vcruntime140.dll ')"
fi

tap_done
