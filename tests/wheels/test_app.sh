#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_app: `check --app` on PyInstaller onedir apps built from REAL artefacts:
# the bootloader run.exe of the pyinstaller 6.11.0 and 5.13.2 win_amd64 wheels
# with an archive written by PyInstaller's own CArchiveWriter, torch 2.9.1's
# wheel laid out as PyInstaller lays it out, the msvc-runtime wheels' DLLs
# bundled in the top-level folder (tests/lib/trees/frozen.sh). The launcher's
# process (docs/loader.md, "Frozen apps"): SetDllDirectoryW on the top-level
# folder, python311.dll preloaded, sys.prefix the top-level folder.
TEST_NAME=app
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/lib/trees/frozen.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp

# bundle DIR HOME VER: the runtime DLLs PyInstaller collects into the top-level folder, from msvc-runtime VER
bundle() {
	local t f
	t=$(mktemp -d -p "$WORK") && _msvc_runtime "$3" "$t" || return 3
	for f in msvcp140.dll vcruntime140.dll vcruntime140_1.dll; do
		rm -f "$2/$f" && cp "$t"/*.data/data/Scripts/$f "$2/" || return 1
	done
}

# app GEN RUNTIME: a onedir app of torch 2.9.1 in $WORK/GEN-RUNTIME; status 1 with $WORK/why
app() {
	local d=$WORK/$1-$2 home
	[ -d "$WORK/base" ] || {
		w=$(wheel_fetch torch 2.9.1 2>"$WORK/why") && wheel_tree "$WORK/base" "$w" >/dev/null 2>"$WORK/why" &&
			tree_redist "$WORK/base" 14.44.35112 2>"$WORK/why"
	} || return 1
	[ -d "$WORK/pyi6" ] || pyi_unpack 6.11.0 "$WORK/pyi6" 2>"$WORK/why" || return 1
	[ -d "$WORK/pyi$1" ] || pyi_unpack 5.13.2 "$WORK/pyi$1" 2>"$WORK/why" || return 1
	tree_variant "$WORK/base" "$d" && home=$(pyi_onedir "$d" "$WORK/pyi$1" "$1" "$WORK/pyi6" 2>"$WORK/why") &&
		bundle "$d" "$home" "$2" 2>"$WORK/why"
}

J() { jq -c "$2" "$WORK/$1.json" 2>&1; }

# Wine's loader (tests/oracle) run as the launcher sets the process up: the oracle copied beside
# App.exe (the application folder), SetDllDirectoryW on the top-level folder, python311.dll loaded
# with LOAD_WITH_ALTERED_SEARCH_PATH, then torch's procedure; each binary against `check --app`
# (oracle_compare.py). App-local Microsoft runtimes used as they are (=n), as in test_wheels.
RT_N="msvcp140,msvcp140_1,msvcp140_2,msvcp140_atomic_wait,concrt140,vcomp140=n"
ORACLE='' PFX=''
if command -v wine >/dev/null && ORACLE=$(oracle_build 2>/dev/null) && PFX=$(wine_prefix_ensure 2>/dev/null); then
	:
else
	ORACLE=
fi
# app_oracle LABEL TREE HOME CHECK WANT: WANT the binaries whose DllMain fails under Wine beyond the
# checker's prediction: torch_python.dll's needs a real Python, not the tree's stand-in python311.dll
# (as in test_wheels.sh)
app_oracle() {
	local label=$1 d=$WORK/$2 home=$3 want=$5 out
	if [ -z "$ORACLE" ]; then
		skip "$label" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
		return
	fi
	cp "$ORACLE" "$d/App/oracle.exe" || return
	printf '%s\n' torch --out "$(_winpath "$d.jsonl")" --torch-dir "$(_winpath "$home/torch")" \
		--dll-path "$(_winpath "$home/torch/lib")" --set-dll-directory "$(_winpath "$home")" \
		--launcher-load "$(_winpath "$home/python311.dll")" >"$d.args"
	(
		wine_lock "$PFX"
		wine_start "$PFX"
		# shellcheck disable=SC2016  # a script for bash -c
		WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES;$RT_N" timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ \
			"$TDC_REPO/tests/oracle/wine.sh" "$PFX" "$d.out" "$d.err" "$d/App/oracle.exe" "@$(_winpath "$d.args")"
		wine_stop "$PFX"
	)
	rm -f "$d/App/oracle.exe"
	if [ ! -s "$d.jsonl" ]; then
		not_ok "$label: the oracle hung or died under Wine"
		return
	fi
	out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_compare.py" "$WORK/$4.json" "$d.jsonl" "$d.err" 2>&1)
	check_eq "$label: Wine's loader agrees with check --app on every torch binary ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree\|^dllmain' <<<"$out")"
	check_eq "$label: DllMain failures under Wine" "$want" "$(grep '^dllmain' <<<"$out" | awk '{printf "%s ", $2}')"
	printf '%s\n' "$out" | sed 's/^/# /'
}
run() { # NAME TREE ARGS...: the check's JSON in $WORK/NAME.json, its status in $WORK/NAME.rc
	local n=$1 t=$2
	shift 2
	"$B" check --root "$WORK/$t" "$@" --json >"$WORK/$n.json" 2>"$WORK/$n.err"
	echo $? >"$WORK/$n.rc"
}
ERRS='[.findings[] | select(.severity == "error") | [.rule, .winerror, .leaf]] | unique'

if app 6 14.34.31931; then
	run a6 6-14.34.31931 --app 'C:\App'
	check_eq "6.x onedir, bundled msvcp140 14.34: c10.dll's DllMain fails (1114), the bundled copy named, exit 1" \
		'[[["runtime-too-old",null,"vcruntime140.dll"],["runtime-too-old",1114,"msvcp140.dll"]],"1"]' \
		"[$(J a6 "$ERRS" | jq -c '[.[] | .[2] |= ascii_downcase] | unique'),\"$(cat "$WORK/a6.rc")\"]"
	check_eq "6.x onedir: the launcher's process (App.exe's folder, SetDllDirectoryW on _internal, sys.prefix _internal)" \
		'["C:\\App\\App.exe","C:\\App",{"what":"PyInstaller 6.x onedir","exe":"C:\\App\\App.exe","dll_directory":"C:\\App\\_internal","prefix":"C:\\App\\_internal"},"cp311"]' \
		"$(J a6 '.installs[0] | [.python, .application_dir, .launcher, .python_tag]')"
	check_eq "6.x onedir: the 1114's fix says the app bundles the copy: rebuild it" '[true]' \
		"$(J a6 '[.findings[] | select(.winerror == 1114 and .rule == "runtime-too-old") | .fix | startswith("the app bundles C:\\App\\_internal\\msvcp140.dll")] | unique')"
	check_eq "6.x onedir: the 1114's copy is _internal's, found as the DLL directory (USER_DIRS)" \
		'[["C:\\App\\_internal\\msvcp140.dll","USER_DIRS"]]' \
		"$(J a6 '[.findings[] | select(.winerror == 1114) | .probes[]? | select(.result == "found") | [.path, .step]] | unique')"
	app_oracle "Wine, 6.x onedir with msvcp140 14.34 (checker: 1114 on c10.dll and what maps it)" 6-14.34.31931 \
		"$WORK/6-14.34.31931/App/_internal" a6 ""
	run a6exe 6-14.34.31931 --app 'C:\App\App.exe'
	check_eq "--app names the folder or its executable: the same findings" "$(J a6 "$ERRS")" "$(J a6exe "$ERRS")"
	# the false FAIL of #32: --torch inside the app was judged as a python.exe that is not there
	run t6 6-14.34.31931 --torch 'C:\App\_internal\torch'
	check_eq "--torch C:\\App\\_internal\\torch is the app's process: the --app verdict, no python311.dll missing" \
		"$(J a6 "$ERRS")|$(cat "$WORK/a6.rc")|[]" \
		"$(J t6 "$ERRS")|$(cat "$WORK/t6.rc")|$(J t6 '[.findings[] | select(.leaf != null and (.leaf | ascii_downcase) == "python311.dll")]')"
	# the same app as one file: its binaries read from App.exe's archive, inflated in memory, never extracted
	cp -al "$WORK/6-14.34.31931" "$WORK/of6" && pyi_onefile "$WORK/of6" "$WORK/pyi6" 2>"$WORK/why"
	run of6 of6 --app 'C:\App'
	check_eq "the onefile build of the same app: the onedir verdict (findings and exit status)" \
		"$(J a6 "$ERRS")|$(cat "$WORK/a6.rc")" "$(J of6 "$ERRS")|$(cat "$WORK/of6.rc")"
	check_eq "onefile: the top-level folder is the bootloader's extraction folder, mounted, not written" \
		'[{"what":"PyInstaller 6.x onefile","exe":"C:\\App\\App.exe","dll_directory":"C:\\Windows\\Temp\\_MEI000000","prefix":"C:\\Windows\\Temp\\_MEI000000"},"C:\\Windows\\Temp\\_MEI000000\\torch",false]' \
		"[$(J of6 '.installs[0] | .launcher, .torch_dir' | paste -sd,),$([ -e "$WORK/of6/Windows/Temp" ] && echo true || echo false)]"
else
	skip "PyInstaller 6.11.0 onedir of torch 2.9.1 with msvcp140 14.34" "$(cat "$WORK/why")"
fi

if app 6 14.44.35112; then
	run b6 6-14.44.35112 --app 'C:\App'
	check_eq "6.x onedir, bundled msvcp140 14.44: no error, exit 0" '[]|0' "$(J b6 "$ERRS")|$(cat "$WORK/b6.rc")"
	app_oracle "Wine, 6.x onedir with msvcp140 14.44" 6-14.44.35112 "$WORK/6-14.44.35112/App/_internal" b6 \
		"torch_python.dll "
	# a DLL the freezer did not collect
	rm -f "$WORK/6-14.44.35112/App/_internal/torch/lib/libiomp5md.dll"
	run c6 6-14.44.35112 --app 'C:\App'
	check_eq "6.x onedir without torch\\lib\\libiomp5md.dll: WinError 126 naming it, exit 1" \
		'[true,"1"]' \
		"[$(J c6 '[.findings[] | select(.winerror == 126 and (.leaf | ascii_downcase) == "libiomp5md.dll")] | length > 0'),\"$(cat "$WORK/c6.rc")\"]"
	check_eq "the 126's fix names PyInstaller's --collect-binaries torch first" '[true]' \
		"$(J c6 '[.findings[] | select(.rule == "missing-dll") | .fix | startswith("rebuild the app so that it holds libiomp5md.dll: PyInstaller collects torch'"'"'s DLLs with `--collect-binaries torch`")] | unique')"
	# section names as UPX writes them (UPX0, UPX1) on a DLL of the app the process maps
	python3 - "$WORK/6-14.44.35112/App/_internal/vcruntime140_1.dll" <<'PYEOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
pe = struct.unpack_from("<I", b, 0x3C)[0]
n = struct.unpack_from("<H", b, pe + 6)[0]
opt = struct.unpack_from("<H", b, pe + 20)[0]
sec = pe + 24 + opt
for i, name in zip(range(n), (b"UPX0", b"UPX1")):
    b[sec + 40 * i:sec + 40 * i + 8] = name.ljust(8, b"\0")
open(p + ".new", "wb").write(b)
PYEOF
	mv "$WORK/6-14.44.35112/App/_internal/vcruntime140_1.dll.new" "$WORK/6-14.44.35112/App/_internal/vcruntime140_1.dll"
	run u6 6-14.44.35112 --app 'C:\App'
	check_eq "a DLL of the app with sections UPX0/UPX1: one upx-packed warning naming it and --upx-exclude" \
		'[["upx-packed","warning","C:\\App\\_internal\\vcruntime140_1.dll","rebuild the app with PyInstaller'"'"'s `--noupx`, or `--upx-exclude vcruntime140_1.dll`"]]' \
		"$(J u6 '[.findings[] | select(.rule == "upx-packed") | [.rule, .severity, .binary, .fix]]')"
else
	skip "PyInstaller 6.11.0 onedir of torch 2.9.1 with msvcp140 14.44" "$(cat "$WORK/why")"
fi

if app 5 14.34.31931; then
	run a5 5-14.34.31931 --app 'C:\App'
	check_eq "5.x flat onedir, bundled msvcp140 14.34: 1114 on the copy beside App.exe, exit 1" \
		'[["C:\\App\\msvcp140.dll"],"PyInstaller 5.x or older onedir","C:\\App","1"]' \
		"[$(J a5 '[.findings[] | select(.winerror == 1114) | .probes[]? | select(.result == "found") | .path] | unique'),$(J a5 '.installs[0].launcher | .what, .dll_directory' | paste -sd,),\"$(cat "$WORK/a5.rc")\"]"
else
	skip "PyInstaller 5.13.2 onedir of torch 2.9.1" "$(cat "$WORK/why")"
fi

# cx_Freeze 7.2.0's real console base, the app laid out as its build_exe lays it out
if [ -d "$WORK/base" ] && tree_variant "$WORK/base" "$WORK/cx" && cxhome=$(cxf_onedir "$WORK/cx" 7.2.0 2>"$WORK/why") &&
	bundle "$WORK/cx" "$cxhome" 14.34.31931 2>"$WORK/why"; then
	run cx cx --app 'C:\App'
	check_eq "cx_Freeze 7.2.0, msvcp140 14.34 beside App.exe: 1114 on that copy, the base's process, exit 1" \
		'[["C:\\App\\msvcp140.dll"],{"what":"cx_Freeze 6.16 or later","exe":"C:\\App\\App.exe","dll_directory":null,"prefix":"C:\\App"},"C:\\App\\lib\\torch","cp311","1"]' \
		"[$(J cx '[.findings[] | select(.winerror == 1114) | .probes[]? | select(.result == "found") | .path] | unique'),$(J cx '.installs[0] | .launcher, .torch_dir, .python_tag' | paste -sd,),\"$(cat "$WORK/cx.rc")\"]"
	run cxt cx --torch 'C:\App\lib\torch'
	check_eq "cx_Freeze: --torch C:\\App\\lib\\torch is the app's process: the --app verdict" \
		"$(J cx "$ERRS")|$(cat "$WORK/cx.rc")" "$(J cxt "$ERRS")|$(cat "$WORK/cxt.rc")"
else
	skip "cx_Freeze 7.2.0 app of torch 2.9.1" "$(cat "$WORK/why" 2>/dev/null)"
fi

# --host: a program that embeds Python (Blender's layout: host.exe imports python311.dll and the
# VC++ runtime from its own folder; torch in <folder>\python\Lib\site-packages). Its msvcp140.dll,
# the real 14.34 of msvc-runtime, is in the process before torch: c10.dll of torch 2.9.1 gets it.
if [ -d "$WORK/base" ] && tree_variant "$WORK/base" "$WORK/host" && mkdir -p "$WORK/host/Host/python/Lib" &&
	mv "$WORK/host/Python311/Lib/site-packages" "$WORK/host/Host/python/Lib/" &&
	mv "$WORK/host/Python311/python311.dll" "$WORK/host/Python311/vcruntime140.dll" "$WORK/host/Host/" &&
	rm -rf "$WORK/host/Python311" && bundle "$WORK/host" "$WORK/host/Host" 14.34.31931 2>"$WORK/why" &&
	make_exe "$WORK/host/Host/host.exe" --import 'python311.dll:Py_Initialize' \
		--import 'MSVCP140.dll:?_Xlength_error@std@@YAXPEBD@Z' --import KERNEL32.dll:GetLastError 2>"$WORK/why"; then
	run h host --host 'C:\Host\host.exe' --torch 'C:\Host\python\Lib\site-packages\torch'
	check_eq "--host: host.exe's msvcp140.dll 14.34, loaded at its start, is c10.dll's: 1114, exit 1" \
		'[["C:\\Host\\msvcp140.dll"],{"what":"a program that embeds Python","exe":"C:\\Host\\host.exe","dll_directory":null,"prefix":"C:\\Host\\python"},"1"]' \
		"[$(J h '[.findings[] | select(.winerror == 1114) | .message | capture("fails with msvcp140.dll at (?<p>[^ ]+)") | .p] | unique'),$(J h '.installs[0].launcher'),\"$(cat "$WORK/h.rc")\"]"
	check_eq "--host: the runtime finding names host.exe's folder, the copy loaded before torch" \
		'["msvcp140.dll 14.34.31931.0 will be the one loaded (host.exe'"'"'s folder, C:\\Host); torch 2.9.1+cpu needs >= 14.40 (WinError 1114 in DllMain)"]' \
		"$(J h '[.findings[] | select(.rule == "runtime-too-old" and .winerror == 1114 and (.chain | length) == 0) | .title]')"
	run h0 host --torch 'C:\Host\python\Lib\site-packages\torch'
	check_eq "without --host the same torch is judged as a python.exe that is not there (not the host's verdict)" \
		"false" "$([ "$(J h "$ERRS")" = "$(J h0 "$ERRS")" ] && echo true || echo false)"
	"$B" check --root "$WORK/host" --host 'C:\Host\host.exe' --python 'C:\x.exe' >/dev/null 2>&1
	check_eq "--host with --python: a usage error (exit 2)" 2 "$?"
	"$B" check --root "$WORK/host" --torch 'C:\Host\python\Lib\site-packages\torch' --default-dll-dirs 0x1000 \
		>/dev/null 2>&1
	check_eq "--default-dll-dirs without --host: a usage error (exit 2)" 2 "$?"
else
	skip "a host program embedding Python with torch 2.9.1" "$(cat "$WORK/why" 2>/dev/null)"
fi

# archives the checker refuses with a clear error (exit 2), never a crash
if [ -d "$WORK/pyi6" ]; then
	mkdir -p "$WORK/of/App"
	pyi_onefile_exe "$WORK/pyi6" "$WORK/of/App/App.exe" "$TDC_REPO/README.md"
	"$B" check --root "$WORK/of" --app 'C:\App' >"$WORK/of.out" 2>&1
	check_eq "a onefile build without torch: said (exit 2)" "2|1" \
		"$?|$(grep -c 'no torch folder in the app.s top-level folder C:.Windows.Temp._MEI000000' "$WORK/of.out")"
	# the cookie's TOC length made to run past the archive
	python3 - "$WORK/of/App/App.exe" <<'PYEOF'
import struct, sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.rfind(b"MEI\014\013\012\013\016")
struct.pack_into("!I", b, i + 16, 0x7fffffff)
open(p, "wb").write(b)
PYEOF
	"$B" check --root "$WORK/of" --app 'C:\App\App.exe' >"$WORK/lie.out" 2>&1
	check_eq "a TOC length past the archive: a clear error (exit 2)" "2|1" \
		"$?|$(grep -c 'the cookie says the TOC is 2147483647 bytes' "$WORK/lie.out")"
	"$B" check --root "$WORK/of" --app 'C:\Nothing' >"$WORK/none.out" 2>&1
	check_eq "--app on nothing: exit 2" 2 "$?"
fi
tap_done
