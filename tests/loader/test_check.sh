#!/usr/bin/env bash
# shellcheck disable=SC2317,SC2001  # functions run through fx_build; sed on escaped JSON
# test_check: torch's _load_dll_libraries and CPython's .pyd loading on
# generated Windows machines (torchtree.sh): per scenario, the exact verdict
# of each binary, import_error's text, the findings and the exit status.
TEST_NAME=check
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/trees/loader.sh"
source "$TDC_REPO/tests/lib/trees/torch_cases.sh"
FX_KEY=$(cat "$TDC_REPO/tests/lib/trees/loader.sh" "$TDC_REPO/tests/lib/trees/torch_cases.sh" | sha256sum | cut -c1-12)
export FX_KEY
fx_hash >/dev/null # once here: exported, so the subshells below reuse it
PY='C:\Python311\python.exe'
LIB='C:\Python311\Lib\site-packages\torch\lib'

root() { fx_build "torch-$1" build_torch "$1"; }

# J CASE FILTER [check args...]: jq over `check --json` of that scenario (default --python $PY).
J() {
	local case=$1 filter=$2 r
	shift 2
	r=$(root "$case") || { echo "no tree"; return; }
	[ $# -eq 0 ] && set -- --python "$PY"
	"$B" check --root "$r" --json "$@" 2>&1 | jq -c "$filter" 2>&1
}
# bin CASE NAME: [stage, outcome, winerror, leaf, symbol, chain] of one binary
bin() {
	J "$1" ".installs[0].binaries[] | select(.path | endswith(\"\\\\$2\")) | [.stage,.outcome,.winerror,.leaf,.symbol,.chain]"
}

check_eq "healthy: every binary loads" '["loads"]' "$(J healthy '[.installs[0].binaries[].outcome] | unique')"
check_eq "healthy: binaries in NTFS order, then the .pyd" \
	'["asmjit.dll","c10.dll","fbgemm.dll","libiomp5md.dll","torch.dll","torch_cpu.dll","torch_python.dll","uv.dll","_C.cp311-win_amd64.pyd"]' \
	"$(J healthy '[.installs[0].binaries[].path | split("\\") | last]')"
check_eq "healthy: status pass, no import error" '["pass",null,9,0]' \
	"$(J healthy '[.status,.installs[0].import_error,.counts.binaries,.counts.binaries_failing]')"
check_eq "healthy: dll_paths = torch\\lib only" "[\"${LIB//\\/\\\\}\"]" \
	"$(J healthy '.installs[0].dll_paths')"
check_eq "healthy: the .pyd is loaded the CPython way" '["cpython","0x1100"]' \
	"$(J healthy '.installs[0].binaries[8] | [.stage,.flags]')"
check_eq "healthy: python.exe's own vcruntime140 is loaded first (app dir)" \
	'["C:\\Python311\\vcruntime140.dll"]' "$(J healthy '[.installs[0].vc_runtime_probe[0].path]')"
check_status "healthy: exit 0" 0 "$B" check --root "$(root healthy)" --python "$PY"
check_status "healthy: --torch works too" 0 "$B" check --root "$(root healthy)" --torch "$LIB\\.."
check_status "healthy: --site-packages works too" 0 "$B" check --root "$(root healthy)" \
	--site-packages 'C:\Python311\Lib\site-packages'

# torch 2.4.0's libomp140 trap (pytorch#131662)
check_eq "fbgemm → absent libomp140: 126 after the PATH retry" \
	'["path_fallback","missing-dll",126,"libomp140.x86_64.dll",null,["fbgemm.dll","libomp140.x86_64.dll"]]' \
	"$(bin fbgemm_omp140 fbgemm.dll)"
check_eq "torch_cpu fails through fbgemm" \
	'["path_fallback","missing-dll",126,"libomp140.x86_64.dll",null,["torch_cpu.dll","fbgemm.dll","libomp140.x86_64.dll"]]' \
	"$(bin fbgemm_omp140 torch_cpu.dll)"
check_eq "import_error is torch's exact OSError" \
	"{\"winerror\":126,\"text\":\"OSError: [WinError 126] The specified module could not be found. Error loading \\\"C:\\\\Python311\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\fbgemm.dll\\\" or one of its dependencies.\",\"binary\":\"C:\\\\Python311\\\\Lib\\\\site-packages\\\\torch\\\\lib\\\\fbgemm.dll\"}" \
	"$(J fbgemm_omp140 '.installs[0].import_error')"
check_eq "the finding names the leaf, the Build Tools fix and why the redistributable is no fix" \
	'["missing-dll","error",true,true]' \
	"$(J fbgemm_omp140 '.findings[0] | [.rule,.severity,(.fix|test("Visual Studio Build Tools")),(.explanation|test("the VC\\+\\+ redistributable does not install it"))]')"
check_eq "probes of the retry include PATH (torch\\lib prepended), labelled as torch's fallback" \
	'["PATH","added to PATH by torch'"'"'s fallback"]' \
	"$(J fbgemm_omp140 '.installs[0].binaries[2].probes | map(select(.path | endswith("torch\\lib\\libomp140.x86_64.dll"))) | .[-1] | [.step,.why]' | jq -c .)"
check_eq "the first attempt's probe of torch\\lib as an AddDllDirectory folder says torch added it" \
	'"added by torch with os.add_dll_directory"' \
	"$(J fbgemm_omp140 '.installs[0].binaries[2].first_attempt.probes | map(select(.step == "USER_DIRS")) | .[0].why')"
check_status "fbgemm → absent libomp140: exit 1" 1 "$B" check --root "$(root fbgemm_omp140)" --python "$PY"
out=$("$B" check --root "$(root fbgemm_omp140)" --python "$PY" --format text | head -1)
case $out in
FAIL*"libomp140.x86_64.dll is missing"*) ok "text: verdict line first, naming the leaf" ;;
*) not_ok "text: verdict line first, naming the leaf"; echo "#   actual: $out" ;;
esac

check_eq "libomp140 in torch\\lib: loads" '["loads"]' "$(J omp140_lib '[.installs[0].binaries[].outcome] | unique')"
check_eq "libomp140 only on PATH: loads via the fallback (warning)" \
	'["path_fallback","loads-via-path",0]' \
	"$(J omp140_path '.installs[0].binaries[2] | [.stage,.outcome,.winerror]' --python "$PY" --env 'PATH=C:\tools')"
check_eq "…and later DLLs find it in the loaded-module list at the first attempt" \
	'["add_dll_directory","loads",0]' \
	"$(J omp140_path '.installs[0].binaries[5] | [.stage,.outcome,.winerror]' --python "$PY" --env 'PATH=C:\tools')"
check_eq "loads-via-path is a warning, status warn" '["warn","loads-via-path"]' \
	"$(J omp140_path '[.status, (.findings[] | select(.rule=="loads-via-path") | .rule)]' \
		--python "$PY" --env 'PATH=C:\tools')"
check_status "libomp140 only on PATH: exit 0" 0 "$B" check --root "$(root omp140_path)" --python "$PY" \
	--env 'PATH=C:\tools'
check_eq "libomp140 lacking the symbol: 127 at the first attempt, no retry" \
	'["add_dll_directory","missing-entry-point",127,"libomp140.x86_64.dll","omp_get_max_threads",["fbgemm.dll","libomp140.x86_64.dll"]]' \
	"$(bin omp140_nosym fbgemm.dll)"
check_eq "127 text" '"OSError: [WinError 127] The specified procedure could not be found. Error loading \"C:\\Python311\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies."' \
	"$(J omp140_nosym '.installs[0].import_error.text')"
check_eq "libomp140 in the user base Library\\bin: found through AddDllDirectory" \
	'["add_dll_directory","loads",0,null,null,[]]' \
	"$(J omp140_userbase '.installs[0].binaries[] | select(.path|endswith("fbgemm.dll")) | [.stage,.outcome,.winerror,.leaf,.symbol,.chain]' \
		--python "$PY" --env 'APPDATA=C:\Users\u\AppData\Roaming')"
check_eq "user base Library\\bin is in dll_paths" '"C:\\Users\\u\\AppData\\Roaming\\Python\\Library\\bin"' \
	"$(J omp140_userbase '.installs[0].dll_paths[1]' --python "$PY" --env 'APPDATA=C:\Users\u\AppData\Roaming')"
check_eq "conda-style <prefix>\\Library\\bin: found" '["loads"]' \
	"$(J omp140_conda '[.installs[0].binaries[].outcome] | unique')"

check_eq "vcruntime140_1 missing: c10 fails" \
	'["path_fallback","missing-dll",126,"VCRUNTIME140_1.dll",null,["c10.dll","VCRUNTIME140_1.dll"]]' \
	"$(bin vcruntime140_1_missing c10.dll)"
check_eq "…and torch's VC++ probe warns" '["vc-runtime-probe","vcruntime140_1.dll"]' \
	"$(J vcruntime140_1_missing '.findings[] | select(.rule=="vc-runtime-probe") | [.rule,.leaf]')"
check_eq "vcruntime140_1 missing: fix is the redistributable" 'true' \
	"$(J vcruntime140_1_missing '.findings[0].fix | test("vc_redist.x64.exe")')"

check_eq "32-bit asmjit in torch\\lib: 193 at once" '["add_dll_directory","bad-arch",193,"asmjit.dll",null,["asmjit.dll"]]' \
	"$(bin asmjit_x86 asmjit.dll)"
check_eq "193 text" '"OSError: [WinError 193] %1 is not a valid Win32 application. Error loading \"C:\\Python311\\Lib\\site-packages\\torch\\lib\\asmjit.dll\" or one of its dependencies."' \
	"$(J asmjit_x86 '.installs[0].import_error.text')"
check_eq "fbgemm → 32-bit asmjit: skipped, nothing else: 193 at the first attempt" \
	'["add_dll_directory","bad-arch",193,"asmjit.dll",null,["fbgemm.dll","asmjit.dll"]]' "$(bin asmjit_x86 fbgemm.dll)"

check_eq "empty (quarantined) c10.dll: 193 unreadable" '["add_dll_directory","unreadable",193,"c10.dll",null,["c10.dll"]]' \
	"$(bin c10_empty c10.dll)"
check_eq "the first failure in order is the import error" '193' "$(J c10_empty '.installs[0].import_error.winerror')"

check_eq "older msvcp140 next to python.exe shadows System32's newer one" \
	'["shadowed-dll","warning","msvcp140.dll"]' \
	"$(J msvcp_shadow '[.findings[] | select(.rule=="shadowed-dll")][0] | [.rule,.severity,.leaf]')"
check_eq "…with both versions in the message" 'true' \
	"$(J msvcp_shadow '[.findings[] | select(.rule=="shadowed-dll")][0].message | test("14.29.30133.0.*14.40.33810.0")')"

check_eq "forwarder to a missing DLL" \
	'["path_fallback","missing-dll",126,"uvhelper.dll",null,["uv.dll","uvhelper.dll"]]' "$(bin uv_forward torch_cpu.dll | jq -c '.[0:5] + [.[5][1:]]')"
check_eq "missing ordinal: 182" \
	'["add_dll_directory","missing-ordinal",182,"libiomp5md.dll","#999",["torch_cpu.dll","libiomp5md.dll"]]' \
	"$(bin ordinal_missing torch_cpu.dll)"
check_eq "182 text (torch.dll, importing torch_cpu, comes first)" '"OSError: [WinError 182] The operating system cannot run %1. Error loading \"C:\\Python311\\Lib\\site-packages\\torch\\lib\\torch.dll\" or one of its dependencies."' \
	"$(J ordinal_missing '.installs[0].import_error.text')"
check_eq "missing delay import: loads, one warning" '["warn","loads","delay-load-missing","nvcuda.dll"]' \
	"$(J delay_missing '[.status, (.installs[0].binaries[5].outcome), (.findings[] | select(.rule != "unverified") | .rule, .leaf)]')"
check_eq "import cycle in torch\\lib loads" '["loads"]' "$(J cycle '[.installs[0].binaries[].outcome] | unique')"

check_eq "order: early DLL via PATH, late one via the loaded-module list" \
	'[["aaa_early.dll","path_fallback","loads-via-path"],["zzz_late.dll","add_dll_directory","loads"],["_underscore.dll","add_dll_directory","loads"]]' \
	"$(J order '[.installs[0].binaries[] | select(.path|test("aaa_|zzz_|_underscore")) | [(.path|split("\\")|last),.stage,.outcome]]' \
		--python "$PY" --env 'PATH=C:\tools')"

check_eq "pyd failing: CPython's ImportError" \
	'"ImportError: DLL load failed while importing _C: The specified module could not be found."' \
	"$(J pyd_missing '.installs[0].import_error.text')"
check_eq "pyd failing: cpython stage, leaf" '["cpython","missing-dll",126,"torch_python_extra.dll"]' \
	"$(J pyd_missing '.installs[0].binaries[8] | [.stage,.outcome,.winerror,.leaf]')"

check_eq "venv (non-ASCII path): application dir = pyvenv.cfg home" \
	'["C:\\Users\\Jörg\\env\\Scripts\\python.exe","C:\\Python311",["loads"]]' \
	"$(J venv '[.installs[0].python, .installs[0].application_dir, ([.installs[0].binaries[].outcome]|unique)]' \
		--python 'C:\Users\Jörg\env\Scripts\python.exe')"

check_status "usage: no install given → 2" 2 "$B" check --root "$(root healthy)"
check_status "usage: missing torch dir → 2" 2 "$B" check --root "$(root healthy)" --torch 'C:\nope\torch'
check_status "usage: unknown option → 2" 2 "$B" check --bogus
check_eq "JSON schema id" '"torch-dll-check/report/v1"' "$(J healthy '.schema')"
tap_done
