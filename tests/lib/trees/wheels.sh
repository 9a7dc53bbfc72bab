# shellcheck shell=bash
# wheels.sh: Windows machines with a REAL torch wheel installed (source it after
# tests/lib/fixtures.sh and tests/lib/wheels.sh).
#
#   wheel_tree DIR WHEEL     C:\ in DIR: System32 = Wine's PE builtins (every
#                            DLL Wine ships, linked, not copied; or, when DIR is
#                            a Wine prefix's drive_c, the prefix's own), C:\PythonXY with a
#                            python.exe / pythonXY.dll stand-in exporting exactly
#                            what the wheel's torch_python.dll and .pyd files
#                            import (read from their import tables), python.org's
#                            vcruntime140.dll next to python.exe, and the wheel's
#                            torch\lib, top-level .pyd files, version.py and
#                            dist-info METADATA in Lib\site-packages (the rest
#                            of the wheel is Python code the loader never reads),
#                            and RECORD with the wheel's rows of those files.
#                            Prints the Windows path of python.exe.
#   tree_redist DIR VER      the VC++ redistributable VER installed: msvc-runtime
#                            VER's real DLLs into System32 (over Wine's, which
#                            carry no version resource)
#   tree_applocal DIR VER    `pip install msvc-runtime==VER`: its DLLs land next
#                            to python.exe (the wheel's data scheme = sys.prefix)
#   tree_conda_runtime DIR VER  a conda-style env: msvc-runtime VER's DLLs in
#                            C:\PythonXY\Library\bin (where conda's vc14_runtime
#                            puts them; torch adds that folder to its DLL paths)
#   tree_intel_openmp DIR    `pip install intel-openmp`: real libiomp5md.dll & co
#                            in C:\PythonXY\Library\bin (a torch DLL directory)
#   tree_libomp140 DIR       a machine with Visual Studio: libomp140.x86_64.dll
#                            in System32. No PyPI wheel ships MSVC's LLVM OpenMP,
#                            so this one is a stand-in exporting what the wheel
#                            imports from it, by name and by ordinal (the one
#                            stand-in besides python's)
#   tree_drop DIR NAME       remove NAME from System32 and the Python folder
#   tree_wheel_data DIR P V [FOLDER]  `pip install P==V`: its data DLLs (mkl, tbb, ...)
#                            under FOLDER (default the Python folder, sys.prefix)
#   tree_extensions DIR WHEEL...  more wheels installed whole (RECORD and all) into
#                            the site-packages, python stand-ins rebuilt to cover them
#   tree_oracle DIR PYEXE [OVERRIDES]  Wine's loader ($ORACLE, tests/oracle, in
#                            the prefix $PFX, wine_start'ed) doing torch's
#                            imports in tree DIR, and the checker ($B) on it:
#                            prints oracle_compare.py's lines (agree, dllmain,
#                            ...; a disagreement is a line, not the status); 1,
#                            with the status and Wine's last lines, when the
#                            oracle hung or died. OVERRIDES join Wine's boot
#                            ones in WINEDLLOVERRIDES (app-local runtimes "=n")
#
# Trees are big (torch_cpu.dll alone is 200-300 MB unpacked), so they are built
# in a temporary folder per test run, never in the cache; variants of one
# wheel are hard-linked copies (tree_variant).

WINE_PE=${WINE_PE:-/usr/lib/x86_64-linux-gnu/wine/x86_64-windows}

# _pyver WHEEL: "311" from torch-2.4.0-cp311-cp311-win_amd64.whl
_pyver() {
	basename "$1" | sed -n 's/^[^-]*-[^-]*-cp3\([0-9]*\)-.*/3\1/p'
}

wheel_tree() {
	local d=$1 whl=$2 xy py sp f
	xy=$(_pyver "$whl")
	[ -n "$xy" ] || { echo "tree.sh: cannot tell the Python of $whl" >&2; return 1; }
	py=$d/Python$xy
	sp=$py/Lib/site-packages
	mkdir -p "$sp" || return 1
	if [ ! -d "$d/windows/system32" ]; then # else: a Wine prefix's drive_c, System32 and all
		mkdir -p "$d/Windows/System32" || return 1
		# hard links (copies across file systems), not symbolic ones: the checker does not follow links out of --root
		cp -l "$WINE_PE"/*.dll "$d/Windows/System32/" 2>/dev/null || cp "$WINE_PE"/*.dll "$d/Windows/System32/" ||
			return 1
	fi
	python3 - "$whl" "$sp" <<'PYEOF' || return 1
import re, sys, zipfile
import csv, io, os
z = zipfile.ZipFile(sys.argv[1])
keep = [n for n in z.namelist()
        if re.fullmatch(r"torch/(lib/[^/]+\.dll|[^/]+\.pyd|version\.py)|torch-[^/]+\.dist-info/(METADATA|RECORD)", n, re.I)]
for n in keep:
    z.extract(n, sys.argv[2])
# RECORD as pip leaves it, for the files this tree holds: the wheel's own rows of them
rec = [n for n in keep if n.endswith(".dist-info/RECORD")]
if rec:
    rows = [r for r in csv.reader(io.StringIO(z.read(rec[0]).decode("utf-8"))) if r and r[0] in keep]
    with open(os.path.join(sys.argv[2], rec[0]), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
PYEOF
	# python.org's layout: python.exe, pythonXY.dll and vcruntime140.dll side by side
	cp -l "$WINE_PE/vcruntime140.dll" "$py/vcruntime140.dll" 2>/dev/null || cp "$WINE_PE/vcruntime140.dll" "$py/"
	"$TDC_BIN" pe --json --no-exports "$sp"/torch/lib/*.dll "$sp"/torch/*.pyd |
		jq -r --arg dll "python$xy.dll" '.files[].imports[]? | select(.dll | ascii_downcase == $dll)
			| .functions[] | .name // empty' | sort -u >"$d/python-exports.txt"
	[ -s "$d/python-exports.txt" ] || { echo "tree.sh: nothing imports python$xy.dll in $whl" >&2; return 1; }
	{ echo "EXPORTS"; cat "$d/python-exports.txt"; } >"$d/python.def"
	make_dll "$py/python$xy.dll" --def "$d/python.def" --import KERNEL32.dll:GetLastError \
		--import VCRUNTIME140.dll:memset || return 1
	make_exe "$py/python.exe" --import "python$xy.dll:$(head -1 "$d/python-exports.txt")" \
		--import KERNEL32.dll:GetLastError || return 1
	echo "C:\\Python$xy\\python.exe"
}

# tree_extensions DIR WHEEL...: `pip install` of more wheels into the tree's
# site-packages (torchvision, torchaudio, PyQt5, PyQt5-Qt5: the whole wheel,
# dist-info with RECORD and all), then the python stand-ins rebuilt to export
# what every binary there imports: pythonXY.dll, and python3.dll (the stable
# ABI DLL python.org ships next to python.exe) when an abi3 module imports it;
# and Wine's .drv builtins (winspool.drv: Qt's print support) in System32.
tree_extensions() {
	local d=$1 py xy sp w f
	shift
	py=$(_pydir "$d")
	xy=${py##*Python}
	sp=$py/Lib/site-packages
	for w in "$@"; do
		python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$w" "$sp" || return 1
	done
	for f in "$WINE_PE"/*.drv; do
		[ -e "$d/Windows/System32/$(basename "$f")" ] || cp -l "$f" "$d/Windows/System32/" 2>/dev/null ||
			cp "$f" "$d/Windows/System32/"
	done
	_stand_in "$d" "$sp" "python$xy.dll" "$py/python$xy.dll" || return 1
	_stand_in "$d" "$sp" "python3.dll" "$py/python3.dll" optional
}

# _stand_in TREE SP DLL OUT [optional]: OUT exports every name a .pyd/.dll under SP imports from DLL.
_stand_in() {
	local d=$1 sp=$2 dll=$3 out=$4 opt=${5:-}
	find "$sp" \( -iname '*.pyd' -o -iname '*.dll' \) -print0 | xargs -0 "$TDC_BIN" pe --json --no-exports 2>/dev/null |
		jq -r --arg dll "$dll" '.files[].imports[]? | select(.dll | ascii_downcase == $dll)
			| .functions[] | .name // empty' | sort -u >"$d/$dll.exports"
	if [ ! -s "$d/$dll.exports" ]; then
		[ -n "$opt" ] && return 0
		echo "tree.sh: nothing imports $dll under $sp" >&2
		return 1
	fi
	{ echo "EXPORTS"; cat "$d/$dll.exports"; } >"$d/$dll.def"
	rm -f "$out"
	make_dll "$out" --def "$d/$dll.def" --import KERNEL32.dll:GetLastError --import VCRUNTIME140.dll:memset
}

# tree_variant SRC DST: a copy of tree SRC sharing its files (hard links).
tree_variant() {
	rm -rf "$2" && cp -al "$1" "$2"
}

_msvc_runtime() {
	local whl
	whl=$(wheel_fetch msvc-runtime "$1") || return 3
	mkdir -p "$2" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$2"
}

_pydir() { find "$1" -maxdepth 1 -name 'Python3*' -type d | head -1; }

tree_redist() {
	local d=$1 t f
	t=$(mktemp -d) && _msvc_runtime "$2" "$t" || return 3
	# data/ holds all but vcruntime140.dll (Python ships that); data/Scripts has the full set
	for f in "$t"/*.data/data/Scripts/*.dll; do
		rm -f "$d/Windows/System32/$(basename "$f")"
		cp "$f" "$d/Windows/System32/"
	done
	rm -rf "$t"
}

tree_applocal() {
	local d=$1 t f py
	py=$(_pydir "$d")
	t=$(mktemp -d) && _msvc_runtime "$2" "$t" || return 3
	for f in "$t"/*.data/data/*.dll; do
		rm -f "$py/$(basename "$f")"
		cp "$f" "$py/"
	done
	rm -rf "$t"
}

tree_conda_runtime() {
	local d=$1 t f lb
	lb=$(_pydir "$d")/Library/bin
	t=$(mktemp -d) && _msvc_runtime "$2" "$t" || return 3
	mkdir -p "$lb"
	for f in "$t"/*.data/data/Scripts/*.dll; do
		cp "$f" "$lb/"
	done
	rm -rf "$t"
}

tree_intel_openmp() {
	local d=$1 whl py
	py=$(_pydir "$d")
	whl=$(wheel_fetch intel-openmp "${2:-2024.2.1}") || return 3
	python3 - "$whl" "$py" <<'PYEOF'
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    parts = n.split("/")
    if len(parts) > 2 and parts[0].endswith(".data") and parts[1] == "data":
        dst = os.path.join(sys.argv[2], *parts[2:])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(z.read(n))
PYEOF
}

tree_libomp140() {
	local d=$1 sp
	sp=$(_pydir "$d")/Lib/site-packages
	"$TDC_BIN" pe --json --no-exports "$sp"/torch/lib/*.dll |
		jq -r '.files[].imports[]? | select(.dll | ascii_downcase == "libomp140.x86_64.dll")
			| .functions[] | .name // "ord_\(.ordinal) @\(.ordinal) NONAME"' | sort -u >"$d/libomp140-exports.txt"
	{ echo "EXPORTS"; cat "$d/libomp140-exports.txt"; } >"$d/libomp140.def"
	make_dll "$d/Windows/System32/libomp140.x86_64.dll" --def "$d/libomp140.def" \
		--import KERNEL32.dll:GetLastError
}

tree_drop() {
	rm -f "$1/Windows/System32/$2" "$(_pydir "$1")/$2"
}

# tree_wheel_data DIR PROJECT VER [FOLDER]: `pip install PROJECT==VER`'s data
# files (<name>.data/data/...: Library\bin\*.dll for mkl, intel-openmp, tbb)
# under FOLDER (a Windows-style path below DIR, default the Python folder:
# sys.prefix; a user base for `pip install --user`).
tree_wheel_data() {
	local d=$1 whl dst
	dst=${4:-$(_pydir "$d")}
	case $dst in /*) ;; *) dst=$d/$dst ;; esac
	whl=$(wheel_fetch "$2" "$3") || return 3
	python3 - "$whl" "$dst" <<'PYEOF'
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    parts = n.split("/")
    if len(parts) > 2 and parts[0].endswith(".data") and parts[1] == "data" and n.lower().endswith(".dll"):
        dst = os.path.join(sys.argv[2], *parts[2:])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(z.read(n))
PYEOF
}

# _winpath PATH: the host PATH as Wine's Z: drive shows it
_winpath() { local p=$1; echo "Z:${p//\//\\}"; }

tree_oracle() {
	local d=$1 pyexe=$2 ov=${3:-} py rc
	py=$(_pydir "$d")
	cp "$ORACLE" "$py/oracle.exe" || return 1
	printf '%s\n' torch --out "$(_winpath "$d.jsonl")" --torch-dir "$(_winpath "$py/Lib/site-packages/torch")" \
		--dll-path "$(_winpath "$py/Lib/site-packages/torch/lib")" >"$d.args"
	# torch adds <prefix>\Library\bin when it exists (conda's layout, pip's intel-openmp)
	[ -d "$py/Library/bin" ] && printf '%s\n' --dll-path "$(_winpath "$py/Library/bin")" >>"$d.args"
	# shellcheck disable=SC2016  # a script for bash -c
	WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES${ov:+;$ov}" timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ \
		"$TDC_REPO/tests/oracle/wine.sh" "$PFX" "$d.out" "$d.err" "$py/oracle.exe" "@$(_winpath "$d.args")"
	rc=$?
	if [ "$rc" -eq 124 ] || [ ! -s "$d.jsonl" ]; then
		echo "the oracle hung or died under Wine (status $rc)"
		tail -3 "$d.err"
		return 1
	fi
	"$B" check --root "$d" --python "$pyexe" --json >"$d.check.json" 2>/dev/null
	/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_compare.py" "$d.check.json" "$d.jsonl" "$d.err" 2>&1
	return 0 # a disagreement is in the lines printed, for the caller to judge
}
