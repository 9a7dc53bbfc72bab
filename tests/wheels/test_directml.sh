#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs and YAML keys in single quotes
# test_directml: torch-directml, the REAL wheel from PyPI (0.2.5.dev240914,
# sha256 = PyPI's, cached; tests/lib/wheels.py) installed whole beside the
# torch it pins in its METADATA (Requires-Dist: torch==2.4.1, the real 2.4.1
# wheel). Its torch_directml/__init__.py (lines 10-13) loads
# torch_directml\DirectML.dll by its full path with torch.ops.load_library
# (ctypes.CDLL: LoadLibraryExW(path, 0x1100)) before `import
# torch_directml_native`, the top-level .pyd that imports DirectML.dll by
# name: the matrix's `extension_load` entry for it (`absent: true`: the path
# is passed whether or not the file is there).
#
#   healthy: both binaries load, torch-directml passes (before the entry the
#     .pyd failed with 126 "DirectML.dll is missing", the issue's false FAIL);
#   DirectML.dll gone: the full-path load fails with 126 on DirectML.dll
#     itself, the fix is torch-directml's reinstall (RECORD lists the file);
#   the lint of `absent` (a module entry, a bad value);
#   Wine's loader (tests/oracle) doing the same two loads after torch's
#     procedure, agreeing per binary.
#
# Wine 8 has no dxcore.dll (Windows has it in System32 from Windows 10 2004,
# build 19041: learn.microsoft.com/windows/win32/dxcore/dxcore): a mingw
# stand-in exporting the one name the .pyd imports (DXCoreCreateAdapterFactory)
# is put next to python.exe, where both the checker and Wine's loader find it
# (the shared Wine prefix's system32 is left alone). d3d12.dll is Wine's own.
TEST_NAME=directml
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp
PY='C:\Python311\python.exe'
DML=0.2.5.dev240914
TORCH=2.4.1 # torch-directml 0.2.5.dev240914's METADATA: Requires-Dist: torch==2.4.1

C() { "$B" check --root "$WORK/$1" --python "$PY" --json 2>"$WORK/check.err"; }
J() { C "$1" | jq -c "$2" 2>&1; }

# ---- the lint of `absent` (no wheel needed)
cat >"$WORK/absent.yml" <<'EOF'
schema: 1
rows: []
extension_load:
  - package: foo
    loads:
      - module: _C
        how: ctypes
        raises: true
        absent: true
        fails: "x"
      - file: a.dll
        how: ctypes
        raises: true
        absent: maybe
        fails: "y"
    status: inferred
EOF
check_eq "lint: \`absent\` on a module entry, and a value that is not a boolean" \
	"$WORK/absent.yml:6:9: the loads entry at line 6: \`absent\` needs \`file\` (a module is found, or not, by importlib)|$WORK/absent.yml:14:17: \`absent\` must be true or false|2" \
	"$("$B" matrix lint "$WORK/absent.yml" 2>/dev/null | sed '$d' | paste -sd'|')|$("$B" matrix lint "$WORK/absent.yml" >/dev/null 2>&1; echo $?)"
check_eq "matrix show --json: the torch-directml entry's DirectML.dll load is absent-tolerant ctypes" \
	'["torch_directml",[{"file":"DirectML.dll","how":"ctypes","raises":true,"absent":true}],"import"]' \
	"$("$B" matrix show --json | jq -c '.extension_load[] | select(.package == "torch-directml") | [.folder, [.loads[] | del(.fails)], .others]')"

if ! twhl=$(wheel_fetch torch "$TORCH" 2>"$WORK/err") || ! dwhl=$(wheel_fetch torch-directml "$DML" 2>>"$WORK/err"); then
	skip "torch $TORCH + torch-directml $DML" "PyPI/pip did not give the wheels: $(grep -v '^\s*$' "$WORK/err" | tail -1)"
	tap_done
fi
check_eq "the torch-directml wheel pins the torch this test installs" "Requires-Dist: torch==$TORCH" \
	"$(unzip -p "$dwhl" "torch_directml-$DML.dist-info/METADATA" | grep '^Requires-Dist: torch==' | tr -d '\r')"
wheel_tree "$WORK/base" "$twhl" >/dev/null || { not_ok "torch $TORCH's tree"; tap_done; }
tree_redist "$WORK/base" 14.44.35112 2>/dev/null
tree_variant "$WORK/base" "$WORK/dml"
tree_extensions "$WORK/dml" "$dwhl" || { not_ok "torch-directml installed into the tree"; tap_done; }
make_dll "$WORK/dml/Python311/dxcore.dll" --export DXCoreCreateAdapterFactory --import KERNEL32.dll:GetLastError
tree_variant "$WORK/dml" "$WORK/nodml"
rm "$WORK/nodml/Python311/Lib/site-packages/torch_directml/DirectML.dll"
bins='[.installs[0].extensions[] | select(.name == "torch-directml") | .status, [.binaries[] | [(.path | split("\\") | last), .how, .outcome, .winerror]]]'

check_eq "healthy: DirectML.dll loaded by full path (ctypes), then torch_directml_native.pyd binds it by name: torch-directml passes" \
	'["pass",[["DirectML.dll","ctypes","loads",0],["torch_directml_native.cp311-win_amd64.pyd","import","loads",0]]]' \
	"$(J dml "$bins")"
check_eq "healthy: no error, exit 0" \
	'0|0' "$(J dml '.counts.errors')|$("$B" check --root "$WORK/dml" --python "$PY" >/dev/null 2>&1; echo $?)"
check_eq "healthy: the procedure followed is torch-directml's entry, built for the torch its METADATA pins" \
	'["torch-directml","2.4.1"]' \
	"$(J dml '.installs[0].extensions[] | select(.name == "torch-directml") | [.procedure, .built_for_torch]')"

check_eq "DirectML.dll gone: its full-path load fails with 126 on itself, and the .pyd with it" \
	'["fail",[["DirectML.dll","ctypes","missing-dll",126],["torch_directml_native.cp311-win_amd64.pyd","import","missing-dll",126]]]' \
	"$(J nodml "$bins")"
check_eq "DirectML.dll gone: both failures one root cause, DirectML.dll, fixed by reinstalling torch-directml (not by copying a DLL)" \
	'[1,[[126,"DirectML.dll is missing",true]]]' \
	"$(J nodml '[.findings[] | select(.rule == "extension-load-failure")] | [(map(.cause) | unique | length), (map([.winerror, (.title | sub(".*cannot load: "; "")), (.fix | contains("pip install --force-reinstall --no-deps torch-directml=='"$DML"'"))]) | unique)]')"
check_eq "DirectML.dll gone: RECORD says pip installed it (deleted-after-install), exit 1" \
	'["DirectML.dll was deleted after install"]|1' \
	"$(J nodml '[.findings[] | select(.rule == "deleted-after-install") | .title]')|$("$B" check --root "$WORK/nodml" --python "$PY" >/dev/null 2>&1; echo $?)"

# ---- Wine's loader: DirectML.dll by full path, then the .pyd, after torch's procedure
oracle() {
	local tree=$1 label=$2 py sp out rc
	shift 2
	py=$WORK/$tree/Python311
	sp=$py/Lib/site-packages
	C "$tree" >"$WORK/$tree.check.json"
	cp "$ORACLE" "$py/oracle.exe"
	{
		printf '%s\n' torch --out "$(wine_zpath "$WORK/$tree.o.jsonl")" --torch-dir "$(wine_zpath "$sp/torch")" --dll-path "$(wine_zpath "$sp/torch/lib")"
		printf '%s\n' "$@"
	} >"$WORK/$tree.o.args"
	printf '%s\n' "$@" | grep -v '^--' >"$WORK/$tree.o.asked"
	WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES" WINEDEBUG=warn+module \
		timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ "$TDC_REPO/tests/oracle/wine.sh" "$PFX" \
		"$WORK/$tree.o.out" "$WORK/$tree.o.err" "$py/oracle.exe" "@$(wine_zpath "$WORK/$tree.o.args")"
	rc=$?
	if [ "$rc" -eq 124 ] || [ ! -s "$WORK/$tree.o.jsonl" ]; then
		not_ok "$label: the oracle hung or did not start under Wine (status $rc)"
		tail -3 "$WORK/$tree.o.err" | sed 's/^/#   /'
		return
	fi
	out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_ext_compare.py" "$WORK/$tree.check.json" \
		"$WORK/$tree.o.jsonl" "$WORK/$tree.o.err" "$WORK/$tree.o.asked" 2>&1)
	# a DllMain that fails under Wine is the stand-in python311.dll's (stubs): torch_python.dll's only
	check_eq "$label: Wine's loader agrees with the checker ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree\|^dllmain .*DllMain of torch_python.dll failed$' <<<"$out")"
	while IFS= read -r l; do echo "# $l"; done <<<"$out"
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle: torch-directml after torch" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	for t in dml nodml; do
		spz=$(wine_zpath "$WORK/$t/Python311/Lib/site-packages")
		oracle "$t" "Wine, torch $TORCH + torch-directml $DML ($t)" \
			--ext "$spz\\torch_directml\\DirectML.dll" --ext "$spz\\torch_directml_native.cp311-win_amd64.pyd"
	done
	# 998: Wine's code for a DllMain that fails (1114 on Windows: tests/scenarios/compare.py), torch_python.dll's
	# on the stand-in python311.dll; its imports, DirectML.dll among them, were all bound first
	check_eq "Wine: the healthy tree's DirectML.dll loads and the .pyd binds it (then torch_python.dll's DllMain fails on the stand-in python: 998), without DirectML.dll both fail with 126" \
		'0,998|126,126' \
		"$(jq -r 'select(.stage? == "extension") | .error // 0' "$WORK/dml.o.jsonl" | paste -sd,)|$(
			jq -r 'select(.stage? == "extension") | .error // 0' "$WORK/nodml.o.jsonl" | paste -sd,)"
	wine_stop "$PFX"
fi
tap_done
