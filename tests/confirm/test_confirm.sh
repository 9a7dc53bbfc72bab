#!/usr/bin/env bash
# test_confirm.sh: `check --confirm` / `--confirm-import` for real, under Wine.
#
# The cross-built torch-dll-check.exe (tests/lib/cross-build.sh, cached) runs
# inside the shared Wine prefix on torch-like trees copied into its drive_c
# (tests/lib/trees/torch_cases.sh, built and cached through tests/lib/fixtures.sh),
# checking the live machine: it predicts, then spawns itself as
# `confirm-helper` (a child process, with a timeout) to load every binary for
# real, and compares. Cases:
#   healthy        everything loads: every binary confirmed, all agree
#   fbgemm_omp140  libomp140.x86_64.dll missing: 126 predicted and confirmed
#   omp140_nosym   libomp140 lacks omp_get_max_threads: the checker predicts
#                  127 (Windows), Wine binds a stub and loads (TESTBED.md,
#                  scenarios README W2) -> prediction-mismatch naming both
# plus the helper against the test oracle (tests/oracle/torchload_oracle.c)
# on the same tree (same procedure, same codes), and --confirm-import with a
# stand-in python.exe (fake_python.c: no CPython for Windows here) that
# succeeds, fails with WinError 126, or hangs past --confirm-timeout.
# The Linux build must refuse --confirm with exit 2.
set -u
export TEST_NAME=confirm
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"

# The Linux build: no real loader to ask
check_status "Linux build: check --confirm is a usage error (exit 2)" 2 \
	"$B" check --torch /tmp --confirm
msg=$("$B" check --torch /tmp --confirm-import 2>&1)
case $msg in
*"needs Windows"*"run the Windows build"*) ok "Linux build: the message says to run the Windows build" ;;
*) not_ok "Linux build: unexpected message: $msg" ;;
esac
check_status "Linux build: confirm-helper refuses (exit 2)" 2 "$B" confirm-helper --torch 'C:\t'

for tool in wine wineserver x86_64-w64-mingw32-gcc clang lld-link; do
	command -v "$tool" >/dev/null || { not_ok "$tool is not installed (see .ci/deps)"; tap_done; }
done
work=$tmp # start.sh's: removed at exit

# The .exe, cached by a hash of what it is built from (a warm run skips the compile)
# shellcheck source=tests/lib/cross_exe.sh
source tests/lib/cross_exe.sh
if ! exe=$(cross_exe "$work/xbuild.log"); then
	not_ok "cross-build of torch-dll-check.exe failed"
	sed 's/^/#   /' "$work/xbuild.log" | tail -20
	tap_done
fi

# The trees: the loader tests' torch stand-ins (cached by fixtures.sh)
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
FX_KEY=$(cat tests/lib/trees/loader.sh tests/lib/trees/torch_cases.sh | sha256sum | cut -c1-12)
export FX_KEY
fx_hash >/dev/null
# shellcheck source=tests/lib/trees/torch_cases.sh
source "$TDC_REPO/tests/lib/trees/torch_cases.sh" # build_torch
# shellcheck disable=SC2317
build_fake_python() {
	x86_64-w64-mingw32-gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$1/python.exe" "$2"
}
# DLLs whose DllMain ends the process (TerminateProcess, status 3) or never returns
# shellcheck disable=SC2317
build_dllmain() {
	printf '%s\n' '#include <windows.h>' \
		'BOOL WINAPI DllMain(HINSTANCE h, DWORD r, LPVOID p) { (void)h; (void)p;' \
		'  if (r == DLL_PROCESS_ATTACH) { if (EXIT_MODE) TerminateProcess(GetCurrentProcess(), 3); else Sleep(INFINITE); }' \
		'  return TRUE; }' >"$1/dllmain.c"
	x86_64-w64-mingw32-gcc -O2 -shared -nostdlib -e DllMain -DEXIT_MODE=1 -o "$1/zz_exit.dll" "$1/dllmain.c" -lkernel32 &&
		x86_64-w64-mingw32-gcc -O2 -shared -nostdlib -e DllMain -DEXIT_MODE=0 -o "$1/zz_hang.dll" "$1/dllmain.c" -lkernel32
}
dllmain=$(fx_build confirm-dllmain build_dllmain) || { not_ok "building the DllMain DLLs failed"; tap_done; }
declare -A TREE
for c in healthy fbgemm_omp140 omp140_nosym; do
	TREE[$c]=$(fx_build "torch-$c" build_torch "$c") || { not_ok "building tree $c failed"; tap_done; }
done
FX_KEY=$(sha256sum tests/confirm/fake_python.c | cut -c1-12)
fake=$(fx_build confirm-fake-python build_fake_python "$PWD/tests/confirm/fake_python.c") ||
	{ not_ok "building the stand-in python.exe failed"; tap_done; }

# shellcheck source=tests/oracle/wine.sh
source tests/oracle/wine.sh
PFX=$(wine_prefix_ensure) || { not_ok "no Wine prefix"; tap_done; }
oracle=$(oracle_build) || { not_ok "building the oracle failed"; tap_done; }
wine_lock "$PFX" # the prefix is shared with other test runs
D=$PFX/drive_c/tdc-confirm
rm -rf "$D"
# shellcheck disable=SC2016 # expanded when it runs
at_exit 'rm -rf "$D"; wine_stop "$PFX"'
mkdir -p "$D/bin"
cp "$exe" "$D/bin/torch-dll-check.exe"
for c in "${!TREE[@]}"; do
	mkdir -p "$D/$c"
	cp -r "${TREE[$c]}/Python311" "$D/$c/"
	cp "$fake/python.exe" "$D/$c/Python311/python.exe"
done
for c in exit hang; do
	mkdir -p "$D/$c"
	cp -r "${TREE[healthy]}/Python311" "$D/$c/"
	cp "$fake/python.exe" "$D/$c/Python311/python.exe"
	cp "$dllmain/zz_$c.dll" "$D/$c/Python311/Lib/site-packages/torch/lib/"
done
wine_start "$PFX"

TDC='C:\tdc-confirm\bin\torch-dll-check.exe'
torch_of() { printf '%s\n' "C:\\tdc-confirm\\$1\\Python311\\Lib\\site-packages\\torch"; }

# wcheck NAME CASE ARGS...: the Windows build's check on CASE under Wine; report in $work/NAME.json
wcheck() {
	local name=$1 c=$2
	shift 2
	WINEDEBUG=-all wine_run "$PFX" "$work/$name.json" "$work/$name.err" "$TDC" check --torch "$(torch_of "$c")" \
		--json "$@"
	echo $? >"$work/$name.rc"
}

# q NAME EXPR: a Python expression over the report `r` (its install: `i`; binaries by file name: `b`)
q() {
	python3 - "$work/$1.json" "$2" <<'PY' 2>&1
import json, sys
try:
    r = json.load(open(sys.argv[1], encoding="utf-8"))
except Exception as e:
    print("no report: %s" % e); sys.exit(0)
i = r["installs"][0]
b = {x["path"].split("\\")[-1].lower(): x for x in i["binaries"]}
mm = [f for f in r["findings"] if f["rule"] == "prediction-mismatch"]
v = eval(sys.argv[2])
print(" ".join(map(str, v)) if isinstance(v, tuple) else v)
PY
}

wcheck healthy healthy --confirm
check_eq "healthy: check --confirm exits 0 under Wine" 0 "$(cat "$work/healthy.rc")"
check_eq "healthy: every binary was confirmed by the helper" "9 9" \
	"$(q healthy 'len(i["binaries"]), i["confirmation"]["binaries_confirmed"]')"
check_eq "healthy: every binary agrees (real error 0, same stage)" "True" \
	"$(q healthy 'all(x["confirmed"]["agrees"] and x["confirmed"]["error"] == 0 for x in i["binaries"])')"
check_eq "healthy: the VC++ runtime probe is confirmed too" "[0, 0, 0]" \
	"$(q healthy '[p["confirmed"]["error"] for p in i["vc_runtime_probe"]]')"
# (the matrix may add notes or warnings about torch 2.4.0 itself: not this test's business)
check_eq "healthy: no prediction-mismatch, nothing fails" "0 True" "$(q healthy 'len(mm), r["status"] != "fail"')"
check_eq "healthy: the helper's private commit grew by the loads (commit.measured), beside the prediction" "True True" \
	"$(q healthy 'i["commit"]["measured"]["charged"] > 0, i["commit"]["measured"]["predicted"] == i["commit"]["per_process"]')"

wcheck missing fbgemm_omp140 --confirm
check_eq "missing leaf: check --confirm exits 1" 1 "$(cat "$work/missing.rc")"
check_eq "missing leaf: fbgemm.dll 126 predicted, 126 confirmed after the PATH fallback" \
	"126 126 path_fallback 126 True" \
	"$(q missing 'b["fbgemm.dll"]["winerror"], b["fbgemm.dll"]["confirmed"]["error"], b["fbgemm.dll"]["confirmed"]["stage"], b["fbgemm.dll"]["confirmed"]["first_error"], b["fbgemm.dll"]["confirmed"]["agrees"]')"
check_eq "missing leaf: every binary agrees, no prediction-mismatch" "True 0" \
	"$(q missing 'all(x["confirmed"]["agrees"] for x in i["binaries"]), len(mm)')"

wcheck nosym omp140_nosym --confirm
check_eq "Wine != Windows (stub binding): fbgemm.dll predicted 127, really 0: disagreement recorded" \
	"127 0 False" \
	"$(q nosym 'b["fbgemm.dll"]["winerror"], b["fbgemm.dll"]["confirmed"]["error"], b["fbgemm.dll"]["confirmed"]["agrees"]')"
check_eq "Wine != Windows: a prediction-mismatch warning for fbgemm.dll names both values" \
	"warning 127 0 True" \
	"$(q nosym '[(f["severity"], f["predicted_winerror"], f["real_winerror"], "predicted WinError 127" in f["title"] and "gave 0" in f["title"]) for f in mm if f["binary"].lower().endswith("fbgemm.dll")][0]')"
check_eq "Wine != Windows: one mismatch per binary whose 127 Wine stubbed (fbgemm, torch, torch_cpu, torch_python, _C)" \
	"5 5" "$(q nosym 'len(mm), i["confirmation"]["mismatches"]')"
check_eq "Wine != Windows: binaries that agree are not flagged (asmjit, libiomp5md, uv)" "True" \
	"$(q nosym 'all(b[n]["confirmed"]["agrees"] for n in ("asmjit.dll", "libiomp5md.dll", "uv.dll"))')"

# A DllMain that ends the helper process: the binary being loaded is named, later ones not reached
wcheck exit exit --confirm
check_eq "DllMain ends the helper: zz_exit.dll predicted to load, real load ended the process (status 3)" \
	"0 None False True" \
	"$(q exit 'b["zz_exit.dll"]["winerror"], b["zz_exit.dll"]["confirmed"]["error"], b["zz_exit.dll"]["confirmed"]["agrees"], "ended with status 3 while loading" in b["zz_exit.dll"]["confirmed"]["note"]')"
check_eq "DllMain ends the helper: the .pyd after it is 'not reached' (agrees null), one mismatch in all" \
	"None True 1" \
	"$(q exit 'b["_c.cp311-win_amd64.pyd"]["confirmed"]["agrees"], "not reached" in b["_c.cp311-win_amd64.pyd"]["confirmed"]["note"], len(mm)')"
check_eq "DllMain ends the helper: its commit charge is 'not measured', never a figure" \
	"None not measured: the helper did not finish torch's loads" \
	"$(q exit 'i["commit"]["measured"]["charged"], i["commit"]["measured"]["note"]')"
start=$SECONDS
wcheck hang hang --confirm --confirm-timeout 3
check_eq "DllMain never returns: the helper is killed at the timeout, zz_hang.dll named" "True True 1" \
	"$(q hang 'i["confirmation"]["timed_out"], "killed after 3 s while loading" in b["zz_hang.dll"]["confirmed"]["note"], len(mm)')"
if [ $((SECONDS - start)) -lt 30 ]; then ok "the helper timeout ended the run ($((SECONDS - start)) s)"; else
	not_ok "the helper timeout did not end the run in time ($((SECONDS - start)) s)"
fi

# The helper performs the oracle's procedure: same codes and stages per DLL, same order
for c in fbgemm_omp140 omp140_nosym; do
	t=$(torch_of "$c")
	WINEDEBUG=-all wine_run "$PFX" "$work/h-$c.out" "$work/h-$c.err" "$TDC" confirm-helper --torch "$t" \
		--dll-path "$t\\lib" --no-vc-probe
	echo $? >"$work/h-$c.rc"
	WINEDEBUG=-all wine_run "$PFX" "$work/o-$c.out" "$work/o-$c.err" "$oracle" torch --out \
		"Z:${work//\//\\}\\o-$c.jsonl" --torch-dir "$t" --dll-path "$t\\lib" --no-vc-probe
	cmp=$(python3 - "$work/h-$c.out" "$work/o-$c.jsonl" <<'PY' 2>&1
import json, sys
def rows(f, key):
    out = []
    for l in open(f, encoding="utf-8"):
        l = l.strip()
        if l.startswith("{"):
            o = json.loads(l)
            if o.get("kind") == "dll":
                out.append((o["path"].lower(), o["stage"], o["error"], o.get("first_error")))
    return out
h, o = rows(sys.argv[1], 0), rows(sys.argv[2], 0)
print("same" if h == o and h else "helper %s\noracle %s" % (h, o))
PY
)
	check_eq "confirm-helper == torchload_oracle on $c (path, stage, error, first_error per DLL, in order)" "same" "$cmp"
done
check_eq "confirm-helper exit status: 1 when a DLL fails" 1 "$(cat "$work/h-fbgemm_omp140.rc")"

# --confirm-import with the stand-in interpreter
TDC_FAKE_PYTHON=ok wcheck imp_ok healthy --confirm-import
check_eq "import check: the real interpreter succeeds, as predicted" "0 False True None 0" \
	"$(q imp_ok 'i["import_check"]["exit_code"], i["import_check"]["timed_out"], i["import_check"]["agrees"], i["import_error"], len(mm)')"
TDC_FAKE_PYTHON=fail126 wcheck imp_126 fbgemm_omp140 --confirm-import
check_eq "import check: WinError 126 predicted and seen in the OSError line" "1 126 True 0" \
	"$(q imp_126 'i["import_check"]["exit_code"], i["import_check"]["winerror"], i["import_check"]["agrees"], len(mm)')"
check_eq "import check: the last stderr line is recorded" "True" \
	"$(q imp_126 'i["import_check"]["stderr_last_line"].startswith("OSError: [WinError 126]")')"
TDC_FAKE_PYTHON=fail126 wcheck imp_mm healthy --confirm-import
check_eq "import check: success predicted, WinError 126 real -> prediction-mismatch naming both" "False 1 0 126" \
	"$(q imp_mm 'i["import_check"]["agrees"], len(mm), mm[0]["predicted_winerror"], mm[0]["real_winerror"]')"
TDC_FAKE_PYTHON=flood126 wcheck imp_flood fbgemm_omp140 --confirm-import
check_eq "import check: 3 MB on both pipes at once (Win32 pipes drained together), the OSError line kept" \
	"1 126 True" \
	"$(q imp_flood 'i["import_check"]["exit_code"], i["import_check"]["winerror"], i["import_check"]["agrees"]')"
start=$SECONDS
TDC_FAKE_PYTHON=hang wcheck imp_hang healthy --confirm-import --confirm-timeout 2
check_eq "import check: a hanging interpreter is killed at --confirm-timeout and reported" "True None False 1" \
	"$(q imp_hang 'i["import_check"]["timed_out"], i["import_check"]["exit_code"], i["import_check"]["agrees"], len(mm)')"
if [ $((SECONDS - start)) -lt 30 ]; then ok "import check: the timeout ended the run ($((SECONDS - start)) s)"; else
	not_ok "import check: the timeout did not end the run in time ($((SECONDS - start)) s)"
fi
# wexit ARGS...: the Windows build's exit status (output dropped)
wexit() {
	WINEDEBUG=-all wine_run "$PFX" "$work/x.out" "$work/x.err" "$TDC" "$@"
	echo $?
}
check_eq "Windows build: --confirm-timeout takes seconds only (exit 2)" 2 \
	"$(wexit check --torch "$(torch_of healthy)" --confirm --confirm-timeout 1x)"
check_eq "Windows build: --confirm with --root (an offline tree cannot be loaded) is a usage error" "2 1" \
	"$(wexit check --root 'C:\tdc-confirm\healthy' --torch 'C:\Python311\Lib\site-packages\torch' --confirm) \
$(grep -c 'cannot be combined with --root' "$work/x.err")"
tap_done
