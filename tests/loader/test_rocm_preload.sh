#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_rocm_preload: TheRock's ROCm torch for Windows, whose torch\_rocm_init.py
# preloads the HIP runtime and ROCm libraries from the rocm-sdk-core and
# rocm-sdk-libraries-<gfx family> wheels before torch loads a DLL of its own
# (the matrix's `package_preload` entry therock-rocm-sdk; docs/loader.md,
# "Package preloads").
#
# No TheRock wheel is reachable here (AMD's index is not; PyPI's rocm and
# rocm-sdk-core are 0.1.0 sdists), so EVERY binary is a mingw stand-in built
# by this test: the Python files are written as TheRock's build writes them
# (build_prod_wheels.py get_rocm_init_contents; py_packaging.py appends
# __version__, PY_PACKAGE_SUFFIX_NONCE, DEFAULT_TARGET_FAMILY to
# _dist_info.py), the DLL names are those TheRock's sources name
# (amdhip64_7.dll: docs/development/windows_support.md; amd_comgr0605.dll,
# hiprtc0605.dll: pytorch_smoke_test.py, math-libs/CMakeLists.txt) or that
# match _dist_info.py's patterns (libhipblas.dll, libhipblaslt.dll,
# hipfft.dll, hiprand.dll, hipsparse.dll, hipsolver.dll, MIOpen.dll,
# hipdnn_backend.dll, rocm-openblas.dll: names assumed), and the imports are
# the shape HIP's linking gives (every ROCm library and torch's c10_hip.dll /
# torch_hip.dll import amdhip64_7.dll by name; torch_hip.dll imports the
# libraries). The real amdhip64_7.dll's own imports are not known here: its
# stand-in imports KERNEL32 only.
#
#   healthy: every preload DLL loads by full path, torch's DLLs bind them
#     (before the entry, c10_hip.dll failed with 126 on amdhip64_7.dll, the
#     issue's false FAIL);
#   no _rocm_sdk_core_<nonce>, no libraries package for the GPU family, a
#     DLL deleted from bin: `import torch` raises in rocm_sdk before any torch
#     DLL, said with Python's words and fixed by pip install rocm[libraries];
#   two core folders of different nonces: the one rocm_sdk's nonce names is
#     imported (no glob), the other said as ignored;
#   a libraries DLL whose import is missing: 126 on the preload's ctypes.CDLL;
#   the amd-hip-runtime fix (Adrenalin) never said of a wheel's amdhip64;
#   hostile site-packages (thousands of _rocm_sdk_* folders, odd names, a
#     huge and a garbage _rocm_init.py): bounded, no crash;
#   Wine's loader doing the same full-path loads (--first) then torch's
#     procedure, agreeing per binary.
TEST_NAME=rocm-preload
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/trees/loader.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp
PY='C:\Python311\python.exe'
NONCE=_7_10_0a20251020
VER=7.10.0a20251020
FAM=gfx1151

# rocm_tree DIR: a healthy TheRock torch layout of stand-ins
rocm_tree() {
	local d=$1 py sp tl core libs k
	loader_base "$d" || return 1
	py=$d/Python311
	sp=$py/Lib/site-packages
	tl=$sp/torch/lib
	core=$sp/_rocm_sdk_core$NONCE/bin
	libs=$sp/_rocm_sdk_libraries_$FAM$NONCE/bin
	mkdir -p "$tl" "$core" "$libs" "$sp/rocm_sdk"
	cp "$WINE_PE/vcruntime140.dll" "$py/"
	make_dll "$py/python311.dll" --export PyModule_Create2 --import KERNEL32.dll:GetLastError
	make_exe "$py/python.exe" --import python311.dll:PyModule_Create2 --import KERNEL32.dll:GetLastError
	printf '%s\n' "__version__ = '2.9.0+rocm$VER'" "cuda = None" "hip = '7.1.0'" >"$sp/torch/version.py"
	# build_prod_wheels.py's get_rocm_init_contents, with WINDOWS_LIBRARY_PRELOADS
	cat >"$sp/torch/_rocm_init.py" <<EOF

def initialize():
    import rocm_sdk
    rocm_sdk.initialize_process(
        preload_shortnames=['amd_comgr', 'amdhip64', 'hiprtc', 'hipblas', 'hipfft', 'hiprand', 'hipsparse', 'hipsparselt', 'hipsolver', 'hipblaslt', 'miopen', 'hipdnn', 'rocm-openblas'],
        check_version='$VER')
EOF
	printf '%s\n' '"""Distribution information."""' '__version__ = "DEFAULT"' 'PY_PACKAGE_SUFFIX_NONCE: str = "_DEFAULT"' \
		'DEFAULT_TARGET_FAMILY: str = "DEFAULT"' "__version__ = '$VER'" "PY_PACKAGE_SUFFIX_NONCE = '$NONCE'" \
		"DEFAULT_TARGET_FAMILY = '$FAM'" "AVAILABLE_TARGET_FAMILIES.append('$FAM')" >"$sp/rocm_sdk/_dist_info.py"
	: >"$sp/rocm_sdk/__init__.py"
	: >"$sp/_rocm_sdk_core$NONCE/__init__.py"
	: >"$sp/_rocm_sdk_libraries_$FAM$NONCE/__init__.py"
	make_dll "$core/amd_comgr0605.dll" --msvc --export amd_comgr_get_version
	make_dll "$core/amdhip64_7.dll" --msvc --export hipInit --export hipMalloc
	make_dll "$core/hiprtc0605.dll" --msvc --export hiprtcCreateProgram --import amdhip64_7.dll:hipInit
	make_dll "$core/rocm-openblas.dll" --msvc --export cblas_sgemm
	for k in libhipblas:hipblasCreate libhipblaslt:hipblasLtCreate hipfft:hipfftPlan1d hiprand:hiprandCreateGenerator \
		hipsparse:hipsparseCreate hipsolver:hipsolverCreate MIOpen:miopenCreate hipdnn_backend:hipdnnCreate; do
		make_dll "$libs/${k%%:*}.dll" --msvc --export "${k#*:}" --import amdhip64_7.dll:hipMalloc || return 1
	done
	make_dll "$tl/c10.dll" --msvc --export c10_init
	make_dll "$tl/c10_hip.dll" --msvc --export c10_hip_init --import c10.dll:c10_init --import amdhip64_7.dll:hipInit
	make_dll "$tl/torch_hip.dll" --msvc --export torch_hip_init --import c10_hip.dll:c10_hip_init \
		--import libhipblas.dll:hipblasCreate --import libhipblaslt.dll:hipblasLtCreate --import MIOpen.dll:miopenCreate \
		--import hipfft.dll:hipfftPlan1d --import hiprand.dll:hiprandCreateGenerator \
		--import hipsparse.dll:hipsparseCreate --import hipsolver.dll:hipsolverCreate \
		--import hiprtc0605.dll:hiprtcCreateProgram --import amd_comgr0605.dll:amd_comgr_get_version
	make_dll "$tl/torch_cpu.dll" --msvc --export torch_cpu_init --import c10.dll:c10_init
}

C() { "$B" check --root "$WORK/$1" --python "$PY" --json "${@:2}" 2>"$WORK/$1.err"; }
J() { C "$1" "${@:3}" | jq -c "$2" 2>&1; }
R() { C "$1" "${@:3}" | jq -r "$2" 2>&1; }
# variant NAME: a copy of the healthy tree (hard links: nothing writes through them)
variant() { cp -al "$WORK/ok" "$WORK/$1"; }
SPW='C:\Python311\Lib\site-packages'

rocm_tree "$WORK/ok" >"$WORK/build.log" 2>&1 || { not_ok "the stand-in tree: $(tail -3 "$WORK/build.log" | tr '\n' ' ')"; tap_done; }
sp=$WORK/ok/Python311/Lib/site-packages

# ---- healthy
check_eq "healthy: the preload ran as _rocm_init.py lists it, every DLL loaded, torch's own bind them; exit 0" \
	'["ok",12,13,"gfx1151","DEFAULT_TARGET_FAMILY",[],null]|0' \
	"$(J ok '.installs[0].package_preload | [.outcome, (.loaded | length), (.names | length), .family, (.family_from | split(" ")[0]), .ignored, .error]')|$(C ok >/dev/null; echo $?)"
check_eq "healthy: every binary loads, the preloads first (stage package_preload), no finding of severity error" \
	'[["package_preload",12],["add_dll_directory",4]]|[]|0' \
	"$(J ok '[.installs[0].binaries | group_by(.stage)[] | [.[0].stage, (map(select(.outcome == "loads")) | length)]] | sort_by(.[0] != "package_preload")')|$(
		J ok '[.findings[] | select(.severity == "error") | .rule]')|$(J ok '[.installs[0].binaries[] | select(.outcome != "loads")] | length')"
check_eq "healthy: the sorted first match of *hipblas*.dll is libhipblas.dll, not libhipblaslt.dll" \
	'true' "$(J ok '.installs[0].package_preload.loaded | map(split("\\") | last) | (index("libhipblas.dll") < index("libhipblaslt.dll"))')"

# ---- what was wrong before: torch's DLLs alone (no _rocm_init.py) fail on amdhip64_7.dll with 126
variant noinit
rm "$WORK/noinit/Python311/Lib/site-packages/torch/_rocm_init.py"
check_eq "without _rocm_init.py (not a TheRock torch): no preload, c10_hip.dll fails with 126 on amdhip64_7.dll" \
	'null|["c10_hip.dll",126,"amdhip64_7.dll"]' \
	"$(J noinit '.installs[0].package_preload')|$(J noinit '[.installs[0].binaries[] | select(.winerror == 126)][0] | [(.path | split("\\") | last), .winerror, (.leaf | split("\\") | last)]')"

# ---- each missing piece
variant nocore
rm -rf "$WORK/nocore/Python311/Lib/site-packages/_rocm_sdk_core$NONCE"
check_eq "no _rocm_sdk_core: import torch raises in rocm_sdk before any torch DLL; the finding names the module and pip install rocm[libraries]==$VER; exit 1" \
	"[\"no-package\",\"amd_comgr\",\"rocm-sdk-core\",0]|[\"package-preload-failed\",\"_rocm_sdk_core$NONCE\",true,true]|1" \
	"$(J nocore '.installs[0].package_preload | [.outcome, .library, .package, (.loaded | length)]')|$(
		J nocore '.findings[] | select(.rule == "package-preload-failed") | [.rule, (.leaf | split("\\") | last), (.fix | contains("pip install \"rocm[libraries]=='"$VER"'\"")), (.message | contains("UnboundLocalError"))]')|$(C nocore >/dev/null; echo $?)"
check_eq "no _rocm_sdk_core: no torch binary is judged (import torch raised first)" \
	'0' "$(J nocore '[.installs[0].binaries[] | select(.stage != "package_preload")] | length')"

variant nolibs
rm -rf "$WORK/nolibs/Python311/Lib/site-packages/_rocm_sdk_libraries_$FAM$NONCE"
check_eq "no libraries package for gfx1151: fails on hipblas after the core's three loaded; the leaf is the family's module" \
	"[\"no-package\",\"hipblas\",\"rocm-sdk-libraries-{target_family}\",3]|_rocm_sdk_libraries_$FAM$NONCE" \
	"$(J nolibs '.installs[0].package_preload | [.outcome, .library, .package, (.loaded | length)]')|$(
		R nolibs '.findings[] | select(.rule == "package-preload-failed") | .leaf | split("\\") | last')"
check_eq "ROCM_SDK_TARGET_FAMILY=gfx1100 (another family, whose package is absent): fails on hipblas, said from the variable" \
	"[\"no-package\",\"gfx1100\",\"ROCM_SDK_TARGET_FAMILY\"]|_rocm_sdk_libraries_gfx1100$NONCE" \
	"$(J ok '.installs[0].package_preload | [.outcome, .family, .family_from]' --env ROCM_SDK_TARGET_FAMILY=gfx1100)|$(
		R ok '.findings[] | select(.rule == "package-preload-failed") | .leaf | split("\\") | last' --env ROCM_SDK_TARGET_FAMILY=gfx1100)"

# a family with a dash (TheRock's gfx110X-dgpu): its module name has _ for - (get_py_package_name)
variant famdash
mv "$WORK/famdash/Python311/Lib/site-packages/_rocm_sdk_libraries_$FAM$NONCE" \
	"$WORK/famdash/Python311/Lib/site-packages/_rocm_sdk_libraries_gfx110X_dgpu$NONCE"
check_eq "ROCM_SDK_TARGET_FAMILY=gfx110X-dgpu: the module _rocm_sdk_libraries_gfx110X_dgpu<nonce> is found, every DLL loads" \
	'["ok",12]' "$(J famdash '.installs[0].package_preload | [.outcome, (.loaded | length)]' --env ROCM_SDK_TARGET_FAMILY=gfx110X-dgpu)"

variant nohip
rm "$WORK/nohip/Python311/Lib/site-packages/_rocm_sdk_core$NONCE/bin/amdhip64_7.dll"
check_eq "amdhip64_7.dll deleted from the core's bin: FileNotFoundError as rocm_sdk words it, the fix is the wheels' not Adrenalin" \
	"[\"no-file\",\"amdhip64\"]|FileNotFoundError: Could not find rocm library 'amdhip64' at path '$SPW\\_rocm_sdk_core$NONCE\\bin,' no match for pattern 'amdhip64*.dll'|true|false" \
	"$(J nohip '.installs[0].package_preload | [.outcome, .library]')|$(R nohip '.installs[0].package_preload.error')|$(
		J nohip '[.findings[] | select(.rule == "package-preload-failed") | .fix | contains("rocm[libraries]")] | all')|$(
		J nohip '[.findings[].fix // "" | contains("Adrenalin")] | any')"

variant norocmsdk
rm -rf "$WORK/norocmsdk/Python311/Lib/site-packages/rocm_sdk"
check_eq "no rocm_sdk (the rocm meta package): ModuleNotFoundError: No module named 'rocm_sdk'" \
	"[\"no-module\",\"ModuleNotFoundError: No module named 'rocm_sdk'\"]|true" \
	"$(J norocmsdk '.installs[0].package_preload | [.outcome, .error]')|$(
		J norocmsdk '[.findings[] | select(.rule == "package-preload-failed") | .fix | contains("pip install \"rocm[libraries]\"")] | all')"

# a ROCm library whose own import is missing: the preload's ctypes.CDLL fails with 126 (a load, not a Python lookup)
variant badlib
make_dll "$WORK/badlib/Python311/Lib/site-packages/_rocm_sdk_libraries_$FAM$NONCE/bin/hipfft.dll" --msvc \
	--export hipfftPlan1d --import amdhip64_7.dll:hipMalloc --import rocfft.dll:rocfft_plan_create >/dev/null 2>&1
check_eq "hipfft.dll's rocfft.dll missing: 126 on the preload of hipfft, leaf rocfft.dll, Python's FileNotFoundError of ctypes, the wheels' fix (not torch\\lib)" \
	'["load-failed","hipfft"]|["hipfft.dll","package_preload",126,"rocfft.dll"]|FileNotFoundError: Could not find module|true' \
	"$(J badlib '.installs[0].package_preload | [.outcome, .library]')|$(
		J badlib '.installs[0].binaries[] | select(.winerror == 126) | [(.path | split("\\") | last), .stage, .winerror, (.leaf | split("\\") | last)]')|$(
		J badlib '.installs[0].import_error.text' | cut -c2-41)|$(
		J badlib '[.findings[] | select(.rule == "missing-dll") | .fix | contains("rocm[libraries]")] | (length > 0 and all)')"

# ---- two core folders: the nonce decides, never the sort
variant twocore
mkdir -p "$WORK/twocore/Python311/Lib/site-packages/_rocm_sdk_core_7_0_0/bin"
: >"$WORK/twocore/Python311/Lib/site-packages/_rocm_sdk_core_7_0_0/__init__.py"
make_dll "$WORK/twocore/Python311/Lib/site-packages/_rocm_sdk_core_7_0_0/bin/amdhip64_7.dll" --msvc --export hipInit >/dev/null 2>&1
check_eq "an older _rocm_sdk_core_7_0_0 beside (sorted first): the nonce's folder is loaded, the other said as ignored" \
	"[\"ok\",\"_rocm_sdk_core$NONCE\",[\"_rocm_sdk_core_7_0_0\"]]" \
	"$(J twocore '.installs[0].package_preload | [.outcome, (.loaded[1] | split("\\") | .[-3]), (.ignored | map(split("\\") | last))]')"

# ---- the amd-hip-runtime entry (Adrenalin) stays for a driver's amdhip64, never for a wheel's
check_eq "the matrix's amd-hip-runtime fix names the case it is for" \
	'true' "$("$B" matrix show --json | jq '.vendor_dlls[] | select(.id == "amd-hip-runtime") | (.fix + .why) | test("TheRock|rocm-sdk-core")')"

# ---- hostile site-packages
variant hostile
hsp=$WORK/hostile/Python311/Lib/site-packages
for i in $(seq 1 3000); do mkdir "$hsp/_rocm_sdk_core_$i"; done
mkdir -p "$hsp/_rocm_sdk_core x.y" "$hsp/_rocm_sdk_core_ünï" "$hsp/_rocm_sdk_core$NONCE.old"
ln -s /nonexistent "$hsp/_rocm_sdk_core_link"
check_eq "3000 _rocm_sdk_core_* folders, spaces, dots, unicode, a dangling link: still ok, ignored capped at 16" \
	'["ok",12,16]' "$(J hostile '.installs[0].package_preload | [.outcome, (.loaded | length), (.ignored | length)]')"
variant hostinit
rm "$WORK/hostinit/Python311/Lib/site-packages/torch/_rocm_init.py"
head -c 3000000 /dev/zero | tr '\0' 'x' >"$WORK/hostinit/Python311/Lib/site-packages/torch/_rocm_init.py"
check_eq "a 3 MB garbage _rocm_init.py: the matrix's list is used and said" \
	'["ok",13,true]' "$(J hostinit '.installs[0].package_preload | [.outcome, (.names | length), (.list_from | contains("matrix"))]')"
variant hostdi
rm "$WORK/hostdi/Python311/Lib/site-packages/rocm_sdk/_dist_info.py"
printf "PY_PACKAGE_SUFFIX_NONCE = '%s\n__version__ = \"a\\\\b\"\n" "$(head -c 5000 /dev/zero | tr '\0' 'y')" \
	>"$WORK/hostdi/Python311/Lib/site-packages/rocm_sdk/_dist_info.py"
check_eq "a garbage _dist_info.py (unterminated, escapes): no nonce, no version read; fails on the core package, said" \
	'["no-package",null]' "$(J hostdi '.installs[0].package_preload | [.outcome, .version]')"

# the package the nonce names is a link: to a folder inside the root it is followed (a real install's
# junction), dangling it is no package
variant linked
lsp=$WORK/linked/Python311/Lib/site-packages
mv "$lsp/_rocm_sdk_core$NONCE" "$lsp/core-elsewhere"
ln -s core-elsewhere "$lsp/_rocm_sdk_core$NONCE"
variant dangling
rm -rf "$WORK/dangling/Python311/Lib/site-packages/_rocm_sdk_core$NONCE"
ln -s /nonexistent/core "$WORK/dangling/Python311/Lib/site-packages/_rocm_sdk_core$NONCE"
check_eq "the core package as a link inside the root: loads; dangling: no-package, said, no crash" \
	'["ok",12]|["no-package","amd_comgr"]' \
	"$(J linked '.installs[0].package_preload | [.outcome, (.loaded | length)]')|$(J dangling '.installs[0].package_preload | [.outcome, .library]')"

# hostile matrix layers: each bad package_preload value is a lint error naming its key (exit 2), never a crash
bad() { # bad KEY VALUE: the entry with KEY's value replaced; prints "said:<exit>" when lint names it
	local k v out rc
	{
		printf 'schema: 1\nrows: []\npackage_preload:\n  - id: x\n'
		for k in when_file module dist_info packages folder libraries preload fix status note; do
			case $k in
			"$1") v=$2 ;;
			when_file) v=a.py ;; module) v=m ;; dist_info) v=d.py ;; packages) v='["core=c"]' ;;
			folder) v=bin ;; libraries) v='["a=core:a*.dll"]' ;; preload) v='[a]' ;; fix) v=f ;;
			status) v=inferred ;; note) v=n ;;
			esac
			printf '    %s: %s\n' "$k" "$v"
		done
	} >"$WORK/bad.yml"
	out=$("$B" matrix lint "$WORK/bad.yml" 2>&1)
	rc=$?
	# said: a line that names the key (or the package_preload entry), and lint's error count
	if grep -q "\`$1\`\|package_preload entry" <<<"$out" && grep -q '^matrix lint: [0-9]* errors\?$' <<<"$out"; then
		echo "said:$rc"
	else
		echo "unsaid:$rc"
	fi
}
check_eq "hostile package_preload values (a 600-character fix, a path in a pattern, a pattern without =, an unknown package, an unknown preload, 100 preloads, a module with a dot): each a lint error naming the key, exit 2" \
	'said:2 said:2 said:2 said:2 said:2 said:2 said:2' \
	"$(bad fix "$(head -c 600 /dev/zero | tr '\0' f)") $(bad libraries '["a=core:../x.dll"]') $(bad libraries '[noequals]') $(
		bad libraries '["a=gpu:a*.dll"]') $(bad preload '[zzz]') $(bad preload "[$(seq -s, 1 100)]") $(bad module 'a.b')"

# ---- Wine's loader: the same full-path loads (--first, 0x1100), then torch's procedure
oracle() {
	local tree=$1 py spz out rc f
	py=$WORK/$tree/Python311
	spz=$(wine_zpath "$py/Lib/site-packages")
	C "$tree" >"$WORK/$tree.check.json"
	cp "$ORACLE" "$py/oracle.exe"
	{
		printf '%s\n' torch --out "$(wine_zpath "$WORK/$tree.o.jsonl")" --torch-dir "$spz\\torch" --dll-path "$spz\\torch\\lib"
		jq -r '.installs[0].package_preload.loaded[]' "$WORK/$tree.check.json" | while IFS= read -r f; do
			printf -- '--first\n%s\n' "$spz${f#"$SPW"}"
		done
	} >"$WORK/$tree.o.args"
	WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES" WINEDEBUG=warn+module \
		timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ "$TDC_REPO/tests/oracle/wine.sh" "$PFX" \
		"$WORK/$tree.o.out" "$WORK/$tree.o.err" "$py/oracle.exe" "@$(wine_zpath "$WORK/$tree.o.args")"
	rc=$?
	if [ "$rc" -eq 124 ] || [ ! -s "$WORK/$tree.o.jsonl" ]; then
		not_ok "Wine ($tree): the oracle hung or did not start (status $rc)"
		return
	fi
	# per binary: the checker's winerror against the oracle's error, by file name
	out=$(jq -r -s --slurpfile c "$WORK/$tree.check.json" '
		($c[0].installs[0].binaries | map({key: (.path | split("\\") | last | ascii_downcase), value: .winerror}) | from_entries) as $m
		| .[] | select(.path? and (.stage == "first" or .stage == "add_dll_directory" or .stage == "path_fallback"))
		| (.path | split("\\") | last | ascii_downcase) as $n
		| select($m | has($n)) # what the checker never reached (import torch raised before) is not compared
		| if ($m[$n] // -1) == (.error // 0) then "agree \($n) \(.error // 0)" else "DISAGREE \($n) checker=\($m[$n]) oracle=\(.error)" end' \
		"$WORK/$tree.o.jsonl")
	check_eq "Wine ($tree): its loader agrees with the checker on every binary ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree' <<<"$out")"
	while IFS= read -r l; do echo "# $l"; done <<<"$out"
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle: TheRock's preload" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	for t in ok twocore badlib; do oracle "$t"; done
	wine_stop "$PFX"
fi

# ---- check --confirm under Wine: the Windows build's live helper performs the
# preload too (--preload, full paths, 0x1100) before torch's procedure, and
# stops after it where import torch raises (--preload-stops); before, it
# skipped the preload and every torch DLL disagreed with the prediction
confirm_case() {
	local tree=$1 spz py
	spz=$(wine_zpath "$WORK/$tree/Python311/Lib/site-packages")
	py=$(wine_zpath "$WORK/$tree/Python311/python.exe")
	WINEDEBUG=-all wine_run "$PFX" "$WORK/$tree.cf.json" "$WORK/$tree.cf.err" "$EXE" check --torch "$spz\\torch" \
		--python "$py" --json --confirm
	jq -c '[(.installs[0].binaries | length) == .installs[0].confirmation.binaries_confirmed,
		([.findings[] | select(.rule == "prediction-mismatch")] | length),
		([.installs[0].binaries[] | select(.stage == "package_preload")] | length > 0)]' "$WORK/$tree.cf.json" 2>&1
}
# shellcheck source=tests/lib/cross_exe.sh
source "$TDC_REPO/tests/lib/cross_exe.sh"
if ! command -v wine >/dev/null || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "check --confirm under Wine: TheRock's preload" "wine or the Wine prefix is missing (.ci/deps installs them)"
elif ! EXE=$(cross_exe "$WORK/xbuild.log"); then
	not_ok "check --confirm under Wine: building torch-dll-check.exe failed"
	tail -5 "$WORK/xbuild.log" | sed 's/^/#   /'
else
	wine_lock "$PFX"
	wine_start "$PFX"
	check_eq "check --confirm under Wine (healthy): every binary confirmed, no mismatch, the preload's DLLs among them" \
		'[true,0,true]' "$(confirm_case ok)"
	check_eq "check --confirm under Wine (a preload DLL fails, 126): confirmed, no mismatch" \
		'[true,0,true]' "$(confirm_case badlib)"
	check_eq "check --confirm under Wine (no _rocm_sdk_core package: import torch raises before any load): nothing loaded, no mismatch" \
		'[true,0,false]' "$(confirm_case nocore)"
	wine_stop "$PFX"
fi
tap_done
