#!/usr/bin/env bash
# test_deps: every loader rule on real PE files (mingw/lld-built DLLs plus
# Wine's own PE system DLLs and apisetschema.dll), through `deps --json`
# (exact winerror / outcome / leaf / symbol / chain) and `deps --trace`.
TEST_NAME=deps
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/trees/loader.sh"
FX_KEY=$(sha256sum <"$TDC_REPO/tests/lib/trees/loader.sh" | cut -c1-12)
export FX_KEY
# shellcheck disable=SC2317  # called through fx_build
build_tree() { source "$TDC_REPO/tests/lib/trees/loader.sh" && loader_cases "$1"; }
R=$(fx_build loader-cases build_tree) || { not_ok "building the trees"; tap_done; }
fx_hash >/dev/null # once here: exported, so the subshells below reuse it

# verdict DESC 'JQ-ARRAY-EXPECTED' deps-args...: [winerror,outcome,leaf,symbol,chain]
verdict() {
	local desc=$1 want=$2
	shift 2
	local got
	got=$("$B" deps --root "$R" --json "$@" 2>&1 | jq -c '[.winerror,.outcome,.leaf,.symbol,.chain]' 2>&1)
	check_eq "$desc" "$want" "$got"
}

verdict "healthy: own dir, KnownDLL, API set" '[0,"loads",null,null,[]]' 'C:\c\ok\top.dll'
verdict "four-level chain, missing leaf → 126 with the chain" \
	'[126,"missing-dll","l4.dll",null,["l1.dll","l2.dll","l3.dll","l4.dll"]]' 'C:\c\chain\l1.dll'
verdict "missing name → 127" '[127,"missing-entry-point","has.dll","absent_fn",["noname.dll","has.dll"]]' \
	'C:\c\sym\noname.dll'
verdict "missing ordinal → 182" '[182,"missing-ordinal","ordl.dll","#7",["noord.dll","ordl.dll"]]' \
	'C:\c\sym\noord.dll'
verdict "present ordinal loads" '[0,"loads",null,null,[]]' 'C:\c\sym\okord.dll'
verdict "forwarder to a missing DLL → 126 at the forward target" \
	'[126,"missing-dll","gone.dll",null,["u_missing.dll","fw_missing.dll","gone.dll"]]' 'C:\c\fwd\u_missing.dll'
verdict "forwarder resolved" '[0,"loads",null,null,[]]' 'C:\c\fwd\u_ok.dll'
verdict "forwarder to a missing function → 127 in the target" \
	'[127,"missing-entry-point","tgt.dll","nothere",["u_nofunc.dll","fw_nofunc.dll","tgt.dll"]]' \
	'C:\c\fwd\u_nofunc.dll'
verdict "forwarder through an API set" '[0,"loads",null,null,[]]' 'C:\c\fwd\u_apiset.dll'
verdict "forwarder loop → 127, no hang" \
	'[127,"missing-entry-point","fw_loop.dll","f",["u_loop.dll","fw_loop.dll","fw_loop.dll"]]' 'C:\c\fwd\u_loop.dll'
verdict "32-bit DLL loaded by a 64-bit process → 193" '[193,"bad-arch","x86.dll",null,["x86.dll"]]' \
	'C:\c\arch\x86.dll'
verdict "dependency only as 32-bit → 193 (c000007b propagates)" \
	'[193,"bad-arch","dep.dll",null,["top64.dll","dep.dll"]]' 'C:\c\arch\top64.dll'
verdict "wrong-machine candidate skipped, x64 copy found later" '[0,"loads",null,null,[]]' \
	'C:\c\arch\top64.dll' --add-dll-dir 'C:\c\arch\x64dir'
verdict "x86 process: KnownDLL from SysWOW64" '[0,"loads",null,null,[]]' 'C:\c\arch\t32.dll' --machine x86
# FILE itself not a PE image: unusable input (exit 2, as `pe` says), not a verdict
err=$("$B" deps --root "$R" --json 'C:\c\bad\empty.dll' 2>&1 >/dev/null)
check_eq "empty DLL as FILE → input error, exit 2" "2 torch-dll-check: deps: C:\c\bad\empty.dll: empty file (0 bytes)" \
	"$("$B" deps --root "$R" 'C:\c\bad\empty.dll' >/dev/null 2>&1; echo $?) $err"
err=$("$B" deps --root "$R" 'C:\c\bad\text.dll' 2>&1 >/dev/null)
check_eq "text file as FILE → input error, exit 2" \
	"2 torch-dll-check: deps: C:\c\bad\text.dll: not a PE file (no MZ signature)" \
	"$("$B" deps --root "$R" 'C:\c\bad\text.dll' >/dev/null 2>&1; echo $?) $err"
verdict "empty dependency → 193 unreadable" '[193,"unreadable","hollow.dll",null,["uses_hollow.dll","hollow.dll"]]' \
	'C:\c\bad\uses_hollow.dll'
verdict "import cycle loads" '[0,"loads",null,null,[]]' 'C:\c\cyc\cyc_a.dll'
verdict "not on the search path → 126" '[126,"missing-dll","shared.dll",null,["p_top.dll","shared.dll"]]' \
	'C:\c\pre\p_top.dll'
verdict "satisfied by the loaded-module list" '[0,"loads",null,null,[]]' 'C:\c\pre\p_top.dll' \
	--preload 'C:\c\other\shared.dll'
verdict "a failed load leaves nothing loaded" \
	'[126,"missing-dll","shared.dll",null,["p_top.dll","shared.dll"]]' 'C:\c\pre\p_top.dll' \
	--preload 'C:\c\other\wrap.dll'
verdict "PATH is not searched with 0x1100" '[126,"missing-dll","onpath.dll",null,["pth.dll","onpath.dll"]]' \
	'C:\c\pth\pth.dll' --env 'PATH=C:\c\pathdir'
verdict "PATH is searched with flags 0" '[0,"loads",null,null,[]]' 'C:\c\pth\pth.dll' --env 'PATH=C:\c\pathdir' \
	--flags 0
verdict "bare name with DLL_LOAD_DIR → 87" '[87,"invalid-parameter","top.dll",null,["top.dll"]]' top.dll
verdict "bare name, standard order, app dir" '[0,"loads",null,null,[]]' top.dll --flags 0 --app-dir 'C:\c\ok'
verdict "a name without extension gets .dll" '[0,"loads",null,null,[]]' top --flags 0 --app-dir 'C:\c\ok'
verdict "LOAD_WITH_ALTERED_SEARCH_PATH: the DLL's folder replaces the app dir" '[0,"loads",null,null,[]]' \
	'C:\c\cyc\cyc_a.dll' --flags 0x8
verdict "flags 0: the DLL's own folder is not searched" '[126,"missing-dll","cyc_b.dll",null,["cyc_a.dll","cyc_b.dll"]]' \
	'C:\c\cyc\cyc_a.dll' --flags 0
verdict "missing delay import: loads" '[0,"loads",null,null,[]]' 'C:\c\dl\dl.dll'
verdict "DependentLoadFlags 0x800: own dir no longer searched" \
	'[126,"missing-dll","sib.dll",null,["dlf.dll","sib.dll"]]' 'C:\c\dlf\dlf.dll'
verdict "without DependentLoadFlags the sibling is found" '[0,"loads",null,null,[]]' 'C:\c\dlf\nodlf.dll'
verdict "import names in another letter case" '[0,"loads",null,null,[]]' 'C:\c\case\case.dll'
verdict "KnownDLLs come from System32, not the DLL's dir" '[0,"loads",null,null,[]]' 'C:\c\kd\kd.dll'
verdict "unknown API set contract is searched as a file" '[0,"loads",null,null,[]]' 'C:\c\api\uses.dll'
verdict "DLL_LOAD_DIR below level 1 = the top DLL's dir (default)" \
	'[193,"unreadable","deep3.dll",null,["deep1.dll","deep2.dll","deep3.dll"]]' 'C:\c\dld\top\deep1.dll' \
	--add-dll-dir 'C:\c\dld\sub'
verdict "DLL_LOAD_DIR below level 1 = the importer's dir (switch)" '[0,"loads",null,null,[]]' \
	'C:\c\dld\top\deep1.dll' --add-dll-dir 'C:\c\dld\sub' --dll-load-dir importer
verdict "non-ASCII directory names" '[0,"loads",null,null,[]]' 'C:\c\Jörg ünï\nx.dll'
verdict "host path under --root" '[0,"loads",null,null,[]]' "$R/c/ok/top.dll"
verdict "host path in other letter case" '[0,"loads",null,null,[]]' 'c:\C\OK\TOP.DLL'

# A tree without Windows\System32 (a bare torch folder): OS DLLs are assumed, VC++ runtimes never.
got=$("$B" deps --root "$R/c" --json 'C:\ok\top.dll' | jq -c '[.winerror, .api_set_schema, [.tree.imports[] | .assumed]]')
check_eq "no System32: KnownDLLs and API set hosts are assumed present" \
	'[0,"built-in fallback",[false,true]]' "$got"
got=$("$B" deps --root "$R/c" --json --flags 0 --app-dir 'C:\ok' vcruntime140.dll | jq -c '[.winerror,.outcome]')
check_eq "no System32: vcruntime140.dll is not assumed" '[126,"missing-dll"]' "$got"

# delay-load warnings
got=$("$B" deps --root "$R" --json 'C:\c\dl\dl.dll' | jq -c '.warnings')
check_eq "missing delay DLL is a warning" '[{"rule":"delay-load-missing","dll":"nodelay.dll","symbol":null}]' "$got"
got=$("$B" deps --root "$R" --json 'C:\c\dl\dl_sym.dll' --app-dir 'C:\c\dl' | jq -c '.warnings')
check_eq "missing delay symbol is a warning" \
	'[{"rule":"delay-load-missing","dll":"hasdl.dll","symbol":"missing_sym"}]' "$got"

# exit status
check_status "deps exits 0 when it loads" 0 "$B" deps --root "$R" 'C:\c\ok\top.dll'
check_status "deps exits 1 when it fails" 1 "$B" deps --root "$R" 'C:\c\chain\l1.dll'
check_status "deps exits 2 for a missing file" 2 "$B" deps --root "$R" 'C:\c\nope.dll'
check_status "deps exits 2 for a bad option" 2 "$B" deps --root "$R" --flags zz 'C:\c\ok\top.dll'
check_status "deps exits 2 for a path outside the root" 2 "$B" deps --root "$R" /etc/passwd

# --trace: every probe in order, like Process Monitor
got=$("$B" deps --root "$R" --trace 'C:\c\chain\l1.dll' | sed -n '1,/^$/p' | grep -v '^$')
want='SUCCESS        full path          C:\c\chain\l1.dll
SUCCESS        DLL_LOAD_DIR       C:\c\chain\l2.dll  <- l1.dll
SUCCESS        DLL_LOAD_DIR       C:\c\chain\l3.dll  <- l2.dll
NAME NOT FOUND DLL_LOAD_DIR       C:\c\chain\l4.dll  <- l3.dll
NAME NOT FOUND SYSTEM32           C:\Windows\System32\l4.dll  <- l3.dll'
check_eq "trace lists every probe in order" "$want" "$got"

got=$("$B" deps --root "$R" --trace 'C:\c\pth\pth.dll' --flags 0 --app-dir 'C:\c\pth' --env 'PATH=C:\x;C:\c\pathdir' |
	sed -n '1,/^$/p' | grep onpath)
want='NAME NOT FOUND application dir    C:\c\pth\onpath.dll  <- pth.dll
NAME NOT FOUND System32           C:\Windows\System32\onpath.dll  <- pth.dll
NAME NOT FOUND 16-bit system dir  C:\Windows\System\onpath.dll  <- pth.dll
NAME NOT FOUND Windows dir        C:\Windows\onpath.dll  <- pth.dll
NOTE           current dir        .\onpath.dll  (not searched: the process'"'"'s current directory is not known)  <- pth.dll
NAME NOT FOUND PATH               C:\x\onpath.dll  <- pth.dll
SUCCESS        PATH               C:\c\pathdir\onpath.dll  <- pth.dll'
check_eq "standard search order, in order" "$want" "$got"

got=$("$B" deps --root "$R" --trace 'C:\c\ok\top.dll' | sed -n '1,/^$/p' | grep -E 'API SET|ucrtbase' | head -3)
want='API SET        API set            api-ms-win-crt-runtime-l1-1-0.dll  (-> ucrtbase.dll)  <- top.dll
NAME NOT FOUND DLL_LOAD_DIR       C:\c\ok\ucrtbase.dll  <- top.dll
SUCCESS        SYSTEM32           C:\Windows\System32\ucrtbase.dll  <- top.dll'
check_eq "API set contract resolved through Wine's schema, then its host searched" "$want" "$got"

got=$("$B" deps --root "$R" --trace 'C:\c\arch\top64.dll' --add-dll-dir 'C:\c\arch\x64dir' | grep dep.dll | head -2)
want='WRONG MACHINE  DLL_LOAD_DIR       C:\c\arch\dep.dll  (wrong machine x86, skipped)  <- top64.dll
SUCCESS        USER_DIRS          C:\c\arch\x64dir\dep.dll  <- top64.dll'
check_eq "trace shows the skipped wrong-machine candidate" "$want" "$got"

got=$("$B" deps --root "$R" --trace 'C:\c\kd\kd.dll' | grep -i 'kernel32' | head -1)
check_eq "KnownDLLs probe" 'SUCCESS        KnownDLLs          C:\Windows\System32\kernel32.dll  <- kd.dll' "$got"

got=$("$B" deps --root "$R" 'C:\c\fwd\u_missing.dll' | grep -c 'gone.dll \[forwarder\]  NOT FOUND')
check_eq "tree marks the forwarder node" 1 "$got"

# A Wine prefix: drive_c's parent holds system.reg; its KnownDLLs key (when present) is the list used.
P=$tmp/prefix
mkdir -p "$P"
ln -s "$R" "$P/drive_c"
printf '%s\n' 'WINE REGISTRY Version 2' ';; All keys relative to REGISTRY\\Machine' '' '#arch=win64' '' \
	'[System\\CurrentControlSet\\Control\\Session Manager\\KnownDLLs] 1700000000' \
	'"DllDirectory"=str(2):"%SystemRoot%\\system32"' '"kernel32"="kernel32.dll"' '"mid"="mid.dll"' >"$P/system.reg"
got=$("$B" deps --root "$P/drive_c" --json 'C:\c\ok\top.dll' | jq -c '[.known_dlls,.winerror,.outcome,.leaf]')
check_eq "KnownDLLs from the prefix's system.reg: mid.dll now only from System32" \
	'["registry",126,"missing-dll","mid.dll"]' "$got"
got=$("$B" deps --root "$P/drive_c" --trace 'C:\c\ok\top.dll' | grep -m1 'mid.dll')
check_eq "…and the probe says KnownDLLs" 'NAME NOT FOUND KnownDLLs          C:\Windows\System32\mid.dll  <- top.dll' "$got"
mv "$P/system.reg" "$P/elsewhere.reg"
got=$("$B" deps --root "$P/drive_c" --json 'C:\c\ok\top.dll' | jq -c '[.known_dlls,.winerror]')
check_eq "no registry: the built-in KnownDLLs list" '["built-in list",0]' "$got"
got=$("$B" deps --root "$P/drive_c" --registry "$P/elsewhere.reg" --json 'C:\c\ok\top.dll' | jq -c '[.known_dlls,.winerror]')
check_eq "--registry FILE attaches it" '["registry",126]' "$got"
printf '%s\n' 'WINE REGISTRY Version 2' ';; All keys relative to REGISTRY\\Machine' '' '#arch=win64' '' \
	'[Software\\Other] 1700000000' '"x"="y"' >"$P/other.reg"
got=$("$B" deps --root "$P/drive_c" --registry "$P/elsewhere.reg" --registry "$P/other.reg" --json 'C:\c\ok\top.dll' |
	jq -c '[.known_dlls,.winerror]')
check_eq "--registry twice: the files merge (the first one's KnownDLLs stay)" '["registry",126]' "$got"
check_status "--registry with a bad file: exit 2" 2 "$B" deps --root "$R" --registry /etc/hostname 'C:\c\ok\top.dll'

# A damaged version resource does not stop a DLL from loading (Windows never
# reads it while mapping): the loader opens images with PE_LENIENT.
V=$(mktemp -d)
make_dll "$V/ver.dll" --export f --version 1.2.3.4 --import KERNEL32.dll:GetLastError
make_dll "$V/top.dll" --export t --import ver.dll:f
python3 - "$V/ver.dll" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.find((0xFEEF04BD).to_bytes(4, "little"))   # VS_FIXEDFILEINFO's signature
assert i > 0, "no VS_FIXEDFILEINFO"
b[i:i + 4] = (0xDEADBEEF).to_bytes(4, "little")
open(p, "wb").write(b)
PY
check_status "pe: the damaged version resource is an error for the PE reader" 2 "$B" pe "$V/ver.dll"
got=$("$B" deps --json "$V/top.dll" | jq -c '[.winerror,.outcome]')
check_eq "deps: a DLL with a damaged version resource still loads" '[0,"loads"]' "$got"
rm -rf "$V"

tap_done
