# shellcheck shell=bash
# frozen.sh: frozen apps laid out as PyInstaller lays them out, from a real torch
# tree (source it after tests/lib/trees/wheels.sh; wheel_tree made DIR first).
#
#   pyi_unpack VER DIR       the real pyinstaller VER win_amd64 wheel from PyPI
#                            (cached by wheel_fetch) unpacked into DIR: its
#                            Windows bootloaders and its own archive writer
#   pyi_onedir DIR PYI GEN [WRITER]  turn the python.org tree in DIR (wheel_tree)
#                            into a PyInstaller onedir app C:\App: App.exe is
#                            the wheel's Windows-64bit-intel/run.exe with a
#                            PKG archive written by PyInstaller's own
#                            CArchiveWriter (PYI: pyi_unpack's DIR) appended;
#                            GEN 6: the contents folder C:\App\_internal
#                            (the archive's pyi-contents-directory option),
#                            GEN 5: everything beside App.exe (flat; WRITER:
#                            a 6.x pyi_unpack DIR whose writer runs: 5.13's
#                            needs altgraph, and its cookie and TOC entries
#                            are the same bytes, '!8sIIii64s' / '!iIIIBB'
#                            there, '!8sIIII64s' / '!IIIIBc' in 6.x). The
#                            folder gets what PyInstaller collects there:
#                            pythonXY.dll, vcruntime140.dll, base_library.zip
#                            and site-packages' torch and dist-info as they
#                            are. Prints the app's top-level folder (host).
#   pyi_onefile DIR PYI      the onedir app C:\App of DIR (pyi_onedir ... 6) made
#                            a onefile one: every file of C:\App\_internal
#                            into App.exe's archive, compressed, as PyInstaller
#                            writes them ('b' for .dll/.pyd, 'x' for data),
#                            and the folder removed
#   cxf_onedir DIR VER       the python.org tree in DIR (wheel_tree) as cx_Freeze VER
#                            builds it (its build_exe layout): App.exe is the
#                            real console base of the cx_Freeze VER cp311
#                            win_amd64 wheel (cx_Freeze/bases), pythonXY.dll
#                            and vcruntime140.dll beside it, the packages in
#                            lib\ with lib\library.zip. Prints the exe's folder.
#   pyi_onefile_exe PYI OUT FILE...  a onefile-style executable: run.exe and an
#                            archive holding FILEs as binaries ('b' entries)
#
# The archive is the writer's (PyInstaller.archive.writers.CArchiveWriter),
# run from the wheel's files on Linux: byte for byte what a build writes.

pyi_unpack() {
	local whl
	whl=$(wheel_fetch pyinstaller "$1") || return 3
	mkdir -p "$2" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$2"
}

# _pyi_archive PYI OUT PYLIB GEN [NAME=FILE:TYPE ...]: run.exe + a CArchive into OUT ($PYI_WRITER: the writer's)
_pyi_archive() {
	local pyi=$1 out=$2 pylib=$3 gen=$4
	shift 4
	PYTHONPATH=${PYI_WRITER:-$pyi} python3 - "$pyi" "$out" "$pylib" "$gen" "$@" <<'PYEOF'
import os, shutil, sys, tempfile
from PyInstaller.archive.writers import CArchiveWriter
pyi, out, pylib, gen = sys.argv[1:5]
tmp = tempfile.mkdtemp()
main = os.path.join(tmp, "main.py")
with open(main, "w") as f:
    f.write("import torch\nprint(torch.__version__)\n")
entries = []
if gen == "6":  # onedir 6.x; "1": onefile, no contents folder
    entries.append(("pyi-contents-directory _internal", "", False, "o"))
entries.append(("main", main, True, "s"))
for a in sys.argv[5:]:
    name, rest = a.split("=", 1)
    src, typ = rest.rsplit(":", 1)
    entries.append((name, src, True, typ))
pkg = os.path.join(tmp, "pkg")
CArchiveWriter(pkg, entries, pylib)
with open(out, "wb") as o:
    with open(os.path.join(pyi, "PyInstaller", "bootloader", "Windows-64bit-intel", "run.exe"), "rb") as r:
        shutil.copyfileobj(r, o)
    with open(pkg, "rb") as p:
        shutil.copyfileobj(p, o)
shutil.rmtree(tmp)
PYEOF
}

pyi_onedir() {
	local d=$1 pyi=$2 gen=$3 py xy home
	py=$(_pydir "$d")
	xy=${py##*Python}
	if [ "$gen" = 6 ]; then home=$d/App/_internal; else home=$d/App; fi
	mkdir -p "$home" || return 1
	mv "$py"/Lib/site-packages/* "$home/" || return 1
	mv "$py/python$xy.dll" "$py/vcruntime140.dll" "$home/" || return 1
	rm -rf "$py"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").writestr("os.pyc", b"")' "$home/base_library.zip"
	PYI_WRITER=${4:-$pyi} _pyi_archive "$pyi" "$d/App/App.exe" "python$xy.dll" "$gen" || return 1
	echo "$home"
}

pyi_onefile() {
	local d=$1 pyi=$2 f args=()
	while IFS= read -r f; do
		case $f in *.dll | *.pyd) args+=("$f=$d/App/_internal/$f:b") ;; *) args+=("$f=$d/App/_internal/$f:x") ;; esac
	done < <(cd "$d/App/_internal" && find . -type f | sed 's|^\./||' | sort)
	rm -f "$d/App/App.exe"
	_pyi_archive "$pyi" "$d/App/App.exe" python311.dll 1 "${args[@]}" && rm -rf "$d/App/_internal"
}

pyi_onefile_exe() {
	local pyi=$1 out=$2 f args=()
	shift 2
	for f in "$@"; do args+=("$(basename "$f")=$f:b"); done
	_pyi_archive "$pyi" "$out" python311.dll 6 "${args[@]}"
}

cxf_onedir() {
	local d=$1 ver=$2 py xy whl
	py=$(_pydir "$d")
	xy=${py##*Python}
	whl=$(wheel_fetch cx-freeze "$ver") || return 3
	mkdir -p "$d/App/lib" || return 1
	python3 - "$whl" "$d/App/App.exe" "$xy" <<'PYEOF' || return 1
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = "cx_Freeze/bases/console-cpython-%s-win_amd64.exe" % sys.argv[3]
open(sys.argv[2], "wb").write(z.read(name))
PYEOF
	mv "$py"/Lib/site-packages/* "$d/App/lib/" || return 1
	mv "$py/python$xy.dll" "$py/vcruntime140.dll" "$d/App/" || return 1
	rm -rf "$py"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1], "w").writestr("__startup__.pyc", b"")' "$d/App/lib/library.zip"
	echo "$d/App"
}
