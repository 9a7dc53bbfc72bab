#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_sys_path: which torch `import torch` picks, on REAL wheels (torch 2.3.0
# and 2.4.1, mkl 2021.4.0, intel-openmp 2024.2.1; tests/lib/wheels.py, cached)
# laid out as each layout really is (docs/python.md):
#
#   python.org install, `pip install --user torch==2.3.0 mkl` over a healthy
#     environment torch 2.4.1 (pytorch/pytorch#125109): the user site comes
#     first on sys.path (site.py), so the user-site torch is checked and fails
#     (torch 2.3.0 does not search the user base's Library\bin: 126 on
#     mkl_intel_thread.1.dll); 2.4.1 is listed as shadowed; PYTHONNOUSERSITE /
#     --no-user-site check 2.4.1 instead; Wine's loader agrees per binary;
#   PYTHONPATH naming a folder with torch 2.3.0: it comes before site-packages;
#   the Microsoft Store Python: found through the execution alias on PATH, its
#     user base is the package's LocalCache\local-packages (PC/python_uwp.cpp),
#     where pip put torch 2.4.1 and intel-openmp's libiomp5md.dll: it loads
#     (torch 2.4.1 searches the user base's Library\bin);
#   the embeddable distribution: python311._pth without `import site` has no
#     site-packages (no torch: exit 2), with it Lib\site-packages and no user
#     site (isolated), PYTHONPATH ignored;
#   `check` with no --python: the first python.exe on the machine's PATH, else
#     the py launcher's PEP 514 registration.
TEST_NAME=sys_path
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp
PY='C:\Python311\python.exe'
APPDATA='C:\Users\ana\AppData\Roaming'
LAD='C:\Users\ana\AppData\Local'
ROOTC='C:'\\
USITE=Users/ana/AppData/Roaming/Python/Python311/site-packages
FAM=PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0
PKG="Program Files/WindowsApps/PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0"
LOCAL=Users/ana/AppData/Local/Packages/$FAM/LocalCache/local-packages

# torch_files WHEEL SITEPACKAGES: what wheel_tree keeps of a torch wheel, and torch\__init__.py
# (a regular package, as pip installs it), with the wheel's own RECORD.
torch_files() {
	python3 - "$1" "$2" <<'PYEOF'
import csv, io, os, re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
keep = [n for n in z.namelist()
        if re.fullmatch(r"torch/(lib/[^/]+\.dll|[^/]+\.pyd|version\.py|__init__\.py)|torch-[^/]+\.dist-info/(METADATA|RECORD)", n, re.I)]
for n in keep:
    z.extract(n, sys.argv[2])
rec = [n for n in keep if n.endswith(".dist-info/RECORD")][0]
rows = [r for r in csv.reader(io.StringIO(z.read(rec).decode("utf-8"))) if r and r[0] in keep]
with open(os.path.join(sys.argv[2], rec), "w", newline="") as f:
    csv.writer(f, lineterminator="\n").writerows(rows)
PYEOF
}

# python311.dll stand-in exporting what every .pyd/.dll in the tree's site folders imports from it
stand_in_all() {
	local d=$1 py=$2
	find "$d/Python311/Lib" "$d/Users" "$d/src" \( -iname '*.pyd' -o -iname 'torch_python.dll' \) -print0 2>/dev/null |
		xargs -0 "$B" pe --json --no-exports 2>/dev/null |
		jq -r '.files[].imports[]? | select(.dll | ascii_downcase == "python311.dll") | .functions[] | .name // empty' |
		sort -u >"$d/py.exports"
	{ echo EXPORTS; cat "$d/py.exports"; } >"$d/py.def"
	rm -f "$py/python311.dll"
	make_dll "$py/python311.dll" --def "$d/py.def" --import KERNEL32.dll:GetLastError --import VCRUNTIME140.dll:memset
}

C() { "$B" check --root "$WORK/$1" --json "${@:2}" 2>"$WORK/check.err"; }
J() { C "$1" "${@:3}" | jq -c "$2" 2>&1; }
st() { "$B" check --root "$WORK/$1" "${@:2}" >/dev/null 2>"$WORK/st.err"; echo $?; }

# Wine's loader (tests/oracle) doing torch's imports in tree $WORK/TREE with the torch folder sys.path
# picks and that release's dll_paths (folders relative to the tree, ';'-separated), compared per
# binary with the checker's verdict (oracle_compare.py). ORACLE_CASES: "TREE|label|python folder|
# torch|dll paths|check argument|..." (the checker's arguments last).
ORACLE_CASES=()
oracle_case() {
	local -a f paths
	local d out p l
	IFS='|' read -r -a f <<<"$1"
	d=$WORK/${f[0]}
	cp "$ORACLE" "$d/${f[2]}/oracle.exe"
	printf '%s\n' torch --out "$(_winpath "$d.jsonl")" --torch-dir "$(_winpath "$d/${f[3]}")" >"$d.args"
	IFS=';' read -r -a paths <<<"${f[4]}"
	for p in "${paths[@]}"; do printf '%s\n' --dll-path "$(_winpath "$d/$p")" >>"$d.args"; done
	# shellcheck disable=SC2016  # a script for bash -c
	WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES" timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ \
		"$TDC_REPO/tests/oracle/wine.sh" "$PFX" "$d.out" "$d.err" "$d/${f[2]}/oracle.exe" "@$(_winpath "$d.args")"
	C "${f[0]}" "${f[@]:5}" >"$d.check.json"
	if [ ! -s "$d.jsonl" ]; then
		not_ok "Wine, ${f[1]}: the oracle hung or died under Wine: $(tail -3 "$d.err")"
		return
	fi
	out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_compare.py" "$d.check.json" "$d.jsonl" "$d.err" 2>&1)
	check_eq "Wine's loader on the ${f[1]} agrees with the checker on every binary ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree\|^dllmain' <<<"$out")"
	while IFS= read -r l; do echo "# $l"; done <<<"$out"
}

if ! w241=$(wheel_fetch torch 2.4.1 2>"$WORK/why") || ! w230=$(wheel_fetch torch 2.3.0 2>>"$WORK/why"); then
	skip "sys.path on real wheels" "PyPI/pip did not give torch 2.4.1 / 2.3.0: $(tail -1 "$WORK/why")"
	tap_done
fi

# ---- python.org 3.11 with torch 2.4.1; pip install --user torch==2.3.0 mkl==2021.4.0
wheel_tree "$WORK/base" "$w241" >/dev/null 2>"$WORK/why" || not_ok "the 2.4.1 tree: $(tail -1 "$WORK/why")"
torch_files "$w241" "$WORK/base/Python311/Lib/site-packages"
tree_variant "$WORK/base" "$WORK/user"
torch_files "$w230" "$WORK/user/$USITE"
if ! tree_wheel_data "$WORK/user" mkl 2021.4.0 "Users/ana/AppData/Roaming/Python" 2>"$WORK/why"; then
	skip "pip --user torch 2.3.0 + mkl" "PyPI/pip did not give mkl 2021.4.0: $(tail -1 "$WORK/why")"
else
	stand_in_all "$WORK/user" "$WORK/user/Python311"
	U=(--python "$PY" --env "APPDATA=$APPDATA")
	check_eq "user site over site-packages: the user-site torch 2.3.0 is the one checked" \
		'["C:\\Users\\ana\\AppData\\Roaming\\Python\\Python311\\site-packages\\torch","2.3.0+cpu","fail"]' \
		"$(J user '.installs[0] | [.torch_dir,.version,.status]' "${U[@]}")"
	check_eq "…and fails as pytorch#125109 says: torch_cpu.dll, 126 on mkl_intel_thread.1.dll (2.3.0 does not search the user base)" \
		'["missing-dll",126,"mkl_intel_thread.1.dll"]' \
		"$(J user '.installs[0].binaries[] | select(.path | endswith("\\torch_cpu.dll")) | [.outcome,.winerror,.leaf]' "${U[@]}")"
	check_eq "…the environment's torch 2.4.1 is listed as shadowed (interpreter.torch, sys.path order)" \
		'[["user site","imported","2.3.0+cpu"],["site-packages","shadowed","2.4.1+cpu"]]' \
		"$(J user '[.interpreter.torch[] | [.from,.status,.version]]' "${U[@]}")"
	check_eq "…sys.path as CPython 3.11 builds it" \
		'["C:\\Python311\\python311.zip","C:\\Python311","C:\\Python311\\Lib","C:\\Users\\ana\\AppData\\Roaming\\Python\\Python311\\site-packages","C:\\Python311\\Lib\\site-packages"]' \
		"$(J user '[.interpreter.sys_path[].path]' "${U[@]}")"
	COLUMNS=9999 "$B" check --root "$WORK/user" "${U[@]}" >"$WORK/user.txt" 2>&1
	check_eq "text: which python and why, which torch is imported and which is shadowed" \
		'  python C:\Python311\python.exe (--python)
  C:\Users\ana\AppData\Roaming\Python\Python311\site-packages\torch 2.3.0+cpu (user site) is the one imported; C:\Python311\Lib\site-packages\torch 2.4.1+cpu (site-packages) is shadowed' \
		"$(sed -n 2,3p "$WORK/user.txt")"
	check_eq "exit 1" 1 "$(st user "${U[@]}")"
	check_eq "PYTHONNOUSERSITE=1: the environment's torch 2.4.1 is imported, and loads" \
		'["C:\\Python311\\Lib\\site-packages\\torch","pass",false,"PYTHONNOUSERSITE is set"]' \
		"$(J user '[.installs[0].torch_dir,.installs[0].status,.interpreter.user_site.enabled,.interpreter.user_site.off_because]' \
			"${U[@]}" --env PYTHONNOUSERSITE=1)"
	check_eq "--no-user-site (python -s): the same" '["C:\\Python311\\Lib\\site-packages\\torch","python -s"]' \
		"$(J user '[.installs[0].torch_dir,.interpreter.user_site.off_because]' "${U[@]}" --no-user-site)"
	check_eq "without APPDATA the user site is not known, said" 'true' \
		"$(J user '[.interpreter.notes[] | test("APPDATA is not in the machine")] | any' --python "$PY")"

	# --scan pairs each install with the python.exe found whose sys.path imports it (or shadows it)
	check_eq "--scan: the user-site torch is imported by C:\\Python311\\python.exe (and checked with it), 2.4.1 shadowed for it" \
		'[["C:\\Python311\\Lib\\site-packages\\torch","pass",[["C:\\Python311\\python.exe","shadowed","site-packages"]]],["C:\\Users\\ana\\AppData\\Roaming\\Python\\Python311\\site-packages\\torch","fail",[["C:\\Python311\\python.exe","imported","user site"]]]]' \
		"$(C user --scan "$ROOTC" --env "APPDATA=$APPDATA" | jq -c '[.installs[] | [.torch_dir, .status, [.interpreters[] | [.python,.status,.from]]]] | sort')"
	check_eq "--scan, text: said under each install" "    imported by C:\\Python311\\python.exe (user site)
    shadowed for C:\\Python311\\python.exe (site-packages)" \
		"$(COLUMNS=9999 "$B" check --root "$WORK/user" --scan "$ROOTC" --env "APPDATA=$APPDATA" 2>&1 | grep -E '^    (imported by|shadowed for)')"
	check_eq "--scan: the user-site torch 2.3.0, run by that python.exe, fails on mkl as with --python" 'true' \
		"$(C user --scan "$ROOTC" --env "APPDATA=$APPDATA" | jq '[.installs[] | select(.torch_dir | test("Roaming")) | .binaries[] | select(.leaf == "mkl_intel_thread.1.dll")] | length > 0')"

	# PYTHONPATH comes before everything: torch 2.3.0 in C:\src
	tree_variant "$WORK/base" "$WORK/pp"
	torch_files "$w230" "$WORK/pp/src"
	stand_in_all "$WORK/pp" "$WORK/pp/Python311"
	check_eq "PYTHONPATH=C:\\src: its torch 2.3.0 is imported first, 2.4.1 shadowed" \
		'[["C:\\src\\torch","PYTHONPATH","imported"],["C:\\Python311\\Lib\\site-packages\\torch","site-packages","shadowed"]]' \
		"$(J pp '[.interpreter.torch[] | [.torch_dir,.from,.status]]' --python "$PY" --env 'PYTHONPATH=C:\src')"

	# Wine's loader, told the torch folder sys.path picks and torch 2.3.0's dll_paths, agrees per binary
	ORACLE_CASES+=("user|user-site torch 2.3.0|Python311|$USITE/torch|$USITE/torch/lib|--python|$PY|--env|APPDATA=$APPDATA")
fi

# ---- extensions and packages imported first come from the same sys.path: pip --user torch 2.3.1 + mkl
# (it loads: 2.3.1 searches the user base) and torchvision 0.19.1, built for torch 2.4.1, in site-packages
if ! w231=$(wheel_fetch torch 2.3.1 2>"$WORK/why") || ! wtv=$(wheel_fetch torchvision 0.19.1 2>>"$WORK/why"); then
	skip "extensions on sys.path" "PyPI/pip did not give torch 2.3.1 / torchvision 0.19.1: $(tail -1 "$WORK/why")"
else
	tree_variant "$WORK/base" "$WORK/ext"
	torch_files "$w231" "$WORK/ext/$USITE"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wtv" "$WORK/ext/Python311/Lib/site-packages"
	if ! tree_wheel_data "$WORK/ext" mkl 2021.4.0 "Users/ana/AppData/Roaming/Python" 2>"$WORK/why"; then
		skip "extensions on sys.path" "PyPI/pip did not give mkl 2021.4.0: $(tail -1 "$WORK/why")"
	else
		stand_in_all "$WORK/ext" "$WORK/ext/Python311"
		X=(--python "$PY" --env "APPDATA=$APPDATA")
		check_eq "user-site torch 2.3.1 loads; torchvision 0.19.1 from site-packages is the extension Python imports with it" \
			'["2.3.1+cpu",[["torchvision","0.19.1","2.4.1"]]]' \
			"$(J ext '[.installs[0].version, [.installs[0].extensions[] | [.name,.version,.built_for_torch]]]' "${X[@]}")"
		check_eq "…and it is built for another torch: extension-mismatch" 'true' \
			"$(J ext '[.findings[].rule] | index("extension-mismatch") != null' "${X[@]}")"
		check_eq "--import-first torchvision is found on sys.path (site-packages), not only in torch's folder" \
			'[["torchvision","C:\\Python311\\Lib\\site-packages\\torchvision-0.19.1.dist-info"]]' \
			"$(J ext '[.installs[0].imported_first[] | [.name, .dist_info]]' "${X[@]}" --import-first torchvision)"
	fi
fi

# ---- the Microsoft Store Python: `pip install torch==2.3.1 mkl==2021.4.0` lands in its LocalCache user base
if [ -z "${w231:-}" ]; then
	skip "Store Python" "PyPI/pip did not give torch 2.3.1: $(tail -1 "$WORK/why")"
else
	tree_variant "$WORK/base" "$WORK/store"
	mkdir -p "$WORK/store/$PKG" "$WORK/store/Users/ana/AppData/Local/Microsoft/WindowsApps/$FAM"
	mv "$WORK/store/Python311/python.exe" "$WORK/store/Python311/vcruntime140.dll" "$WORK/store/$PKG/"
	rm -rf "$WORK/store/Python311"
	: >"$WORK/store/Users/ana/AppData/Local/Microsoft/WindowsApps/python.exe"
	: >"$WORK/store/Users/ana/AppData/Local/Microsoft/WindowsApps/$FAM/python.exe"
	torch_files "$w231" "$WORK/store/$LOCAL/Python311/site-packages"
	stand_in_all "$WORK/store" "$WORK/store/$PKG"
	S=(--env "LOCALAPPDATA=$LAD" --env "APPDATA=$APPDATA" --env "PATH=C:\\Windows\\System32;$LAD\\Microsoft\\WindowsApps")
	if ! tree_wheel_data "$WORK/store" mkl 2021.4.0 "$LOCAL" 2>"$WORK/why"; then
		skip "Store Python + mkl" "PyPI/pip did not give mkl 2021.4.0: $(tail -1 "$WORK/why")"
	else
		check_eq "Store Python: no --python, the execution alias on PATH is resolved to the package's python.exe" \
			'C:\Program Files\WindowsApps\PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0\python.exe true' \
			"$(C store "${S[@]}" | jq -r '"\(.interpreter.python) \(.interpreter.chosen_by | test("execution alias of the Microsoft Store Python"))"')"
		check_eq "…its user base is the package's LocalCache\\local-packages, where torch is" \
			"$LAD\\Packages\\$FAM\\LocalCache\\local-packages user site" \
			"$(C store "${S[@]}" | jq -r '"\(.interpreter.user_site.user_base) \(.interpreter.torch[0].from)"')"
		# (shm.dll's delay-loaded mkl_core.1.dll comes from mkl_intel_thread.1.dll's own folder: test_mkl_delay)
		check_eq "…mkl in its Library\\bin is found (torch 2.3.1 searches the user base): every binary loads, exit 0" \
			'[true,[]] 0' \
			"$(J store '[.installs[0].status != "fail", [.installs[0].binaries[] | select(.outcome != "loads") | .path]]' "${S[@]}") $(st store "${S[@]}")"
		check_eq "--scan: the LocalCache torch is paired with the Store python.exe found on PATH, and run by it" \
			'[["C:\\Program Files\\WindowsApps\\PythonSoftwareFoundation.Python.3.11_3.11.2544.0_x64__qbz5n2kfra8p0\\python.exe","imported","user site"],"pass"]' \
			"$(C store --scan "$ROOTC" --depth 12 "${S[@]}" | jq -c '.installs[0] | [(.interpreters[0] | [.python,.status,.from]), (if .status == "fail" then "fail" else "pass" end)]')"
		cp -al "$WORK/store" "$WORK/storeo" # the next case edits the tree
		ORACLE_CASES+=("storeo|Store Python's LocalCache torch 2.3.1 (mkl in its user base)|$PKG|$LOCAL/Python311/site-packages/torch|$LOCAL/Python311/site-packages/torch/lib;$LOCAL/Library/bin|$(printf '%s|' "${S[@]}")")
		rm -rf "$WORK/store/Users/ana/AppData/Local/Microsoft/WindowsApps/$FAM"
		check_eq "the alias with no Store Python behind it (the stub that opens the Store) is passed over, said" \
			'2 yes' "$(r=$(st store "${S[@]}"); echo "$r $(grep -q 'no python found' "$WORK/st.err" && echo yes)")"
	fi
fi

# ---- the embeddable distribution: python311._pth
tree_variant "$WORK/base" "$WORK/embed"
mv "$WORK/embed/Python311" "$WORK/embed/py"
printf 'python311.zip\r\n.\r\n\r\n# Uncomment to run site.main() automatically\r\n#import site\r\n' >"$WORK/embed/py/python311._pth"
E=(--python 'C:\py\python.exe' --env "APPDATA=$APPDATA")
check_eq "embeddable, ._pth without import site: no site-packages on sys.path, no torch (exit 2, said)" \
	'2 yes' "$(r=$(st embed "${E[@]}"); echo "$r $(grep -q 'no torch package on its sys.path' "$WORK/st.err" && echo yes)")"
printf 'python311.zip\n.\nimport site\n' >"$WORK/embed/py/python311._pth"
mkdir -p "$WORK/embed/$USITE" && cp -al "$WORK/embed/py/Lib/site-packages/torch" "$WORK/embed/$USITE/torch"
check_eq "…with import site: Lib\\site-packages, no user site (isolated), PYTHONPATH ignored" \
	'["C:\\py\\Lib\\site-packages\\torch",false,"isolated by its ._pth file",["C:\\py\\python311.zip","C:\\py","C:\\py\\Lib\\site-packages"]]' \
	"$(J embed '[.installs[0].torch_dir,.interpreter.user_site.enabled,.interpreter.user_site.off_because,[.interpreter.sys_path[].path]]' \
		"${E[@]}" --env 'PYTHONPATH=C:\src')"

# ---- a 32-bit python.exe's user site is Python311-32 (sys.winver "3.11-32")
mkdir -p "$WORK/x86/Py32"
cp "$WORK/base/Python311/python311.dll" "$WORK/x86/Py32/"
make_exe "$WORK/x86/Py32/python.exe" --machine x86 --import KERNEL32.dll:GetLastError 2>"$WORK/why" ||
	not_ok "a 32-bit python.exe: $(tail -1 "$WORK/why")"
mkdir -p "$WORK/x86/Users/ana/AppData/Roaming/Python/Python311-32/site-packages/torch/lib"
: >"$WORK/x86/Users/ana/AppData/Roaming/Python/Python311-32/site-packages/torch/__init__.py"
check_eq "32-bit python.exe: the user site is ...\\Python311-32\\site-packages, and its torch is found" \
	'"C:\\Users\\ana\\AppData\\Roaming\\Python\\Python311-32\\site-packages"' \
	"$("$B" check --root "$WORK/x86" --python 'C:\Py32\python.exe' --env "APPDATA=$APPDATA" --json 2>/dev/null |
		jq -c '.interpreter.torch[0].sys_path_entry')"

# ---- py launcher: the PEP 514 registration of the machine's registry
printf 'Windows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.11\\InstallPath]\n@="C:\\\\Python311\\\\"\n"ExecutablePath"="C:\\\\Python311\\\\python.exe"\n\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Python\\PythonCore\\3.9\\InstallPath]\n@="C:\\\\Python39\\\\"\n' >"$WORK/pep514.reg"
check_eq "no python.exe on PATH: the py launcher's newest PEP 514 registration (3.9 is not there: said)" \
	'["C:\\Python311\\python.exe",true,true]' \
	"$(J base '[.interpreter.python, (.interpreter.chosen_by | test("PythonCore.3.11")), ([.interpreter.notes[] | test("Python39")] | any)]' \
		--registry "$WORK/pep514.reg" --env 'PATH=C:\Windows')"
check_eq "--python py:3.11 is that registration" '"C:\\Python311\\python.exe"' \
	"$(J base '.interpreter.python' --registry "$WORK/pep514.reg" --python py:3.11)"
check_eq "--python py:3.12: none, exit 2" 2 "$(st base --registry "$WORK/pep514.reg" --python py:3.12)"
check_eq "PY_PYTHON=3.9 names a version not installed: exit 2" 2 \
	"$(st base --registry "$WORK/pep514.reg" --env 'PY_PYTHON=3.9' --env 'PATH=C:\Windows')"
check_eq "the first python.exe on PATH wins over the launcher" '"the first python.exe on PATH"' \
	"$(J base '.interpreter.chosen_by' --registry "$WORK/pep514.reg" --env 'PATH=C:\Windows;C:\Python311')"

# ---- Wine's loader on the trees where a load is involved
if [ ${#ORACLE_CASES[@]} -eq 0 ]; then
	:
elif ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle on the sys.path trees" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	for c in "${ORACLE_CASES[@]}"; do oracle_case "$c"; done
	wine_stop "$PFX"
fi
tap_done
