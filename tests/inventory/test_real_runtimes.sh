#!/usr/bin/env bash
# test_real_runtimes.sh: the runtime DLL table on DLLs nobody here wrote:
# Microsoft's own vcruntime140/msvcp140/concrt140/vccorlib140 (x64 and x86,
# from the edge-js npm package) in System32/SysWOW64, and Wine's builtin
# vcruntime140/msvcp140 (no version resource) next to python.exe. Every
# machine and file version is compared with pefile, an independent reader.
# edge-js's win32/arm64 folder really holds i386 copies: an arm64 tree built
# from it must report x86, not believe the folder name.
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=inventory-real-runtimes
set -u
bin=$B

bash "$TDC_REPO/tests/corpus/fetch.sh" >/dev/null 2>&1
rc=$?
corpus=$TDC_CACHE/corpus
edge=$(find "$corpus" -maxdepth 1 -name 'npm-edge-js-*' -type d | head -1)
wine=$(find "$corpus" -maxdepth 1 -name 'wine-*' -type d | head -1)
if [ -z "$edge" ] || [ ! -f "$edge/.done" ]; then
	if [ "$rc" = 3 ] && [ "${TDC_OFFLINE:-0}" = 1 ]; then
		skip "real Microsoft runtimes" "npm registry unreachable (TDC_OFFLINE=1): NOT checked"
		tap_done
	fi
	not_ok "the edge-js corpus is missing (fetch.sh status $rc; TDC_OFFLINE=1 skips knowingly)"
	tap_done
fi
ms=$edge/package/lib/native/win32
winedir=$wine/x86_64-linux-gnu/wine/x86_64-windows

t=$tmp
root=$t/root
mkdir -p "$root/Windows/System32" "$root/Windows/SysWOW64" "$root/Python311/Lib/site-packages/torch/lib" "$root/arm/Windows/System32"
for f in vcruntime140 msvcp140 concrt140 vccorlib140; do
	cp "$ms/x64/$f.dll" "$root/Windows/System32/"
	cp "$ms/ia32/$f.dll" "$root/Windows/SysWOW64/"
	cp "$ms/arm64/$f.dll" "$root/arm/Windows/System32/"
done
cp "$winedir/vcruntime140.dll" "$winedir/msvcp140.dll" "$root/Python311/"
cp "$winedir/ucrtbase.dll" "$root/Python311/"
printf "__version__ = '2.4.0+cpu'\n" >"$root/Python311/Lib/site-packages/torch/version.py"
: >"$root/Python311/Lib/site-packages/torch/__init__.py"
cp "$winedir/notepad.exe" "$root/Python311/python.exe"

"$bin" inventory --root "$root" --torch 'C:\Python311\Lib\site-packages\torch' --python 'C:\Python311\python.exe' \
	--json >"$t/out.json" 2>"$t/err"
check_eq "exit 0" 0 $?

# ours: name where machine version (or "none"); pefile's: the same from the files themselves
ours=$(/usr/bin/python3 -c '
import json, sys
for d in json.load(open(sys.argv[1]))["inventory"]["runtime_dlls"]:
    print(d["where"], d["name"], d["machine"], d["file_version"] or "none")
' "$t/out.json" | sort)
ref=$(/usr/bin/python3 -c '
import os, sys, pefile
root = sys.argv[1]
m = {0x8664: "x64", 0x14c: "x86", 0xaa64: "arm64"}
for where, d in (("System32", "Windows/System32"), ("SysWOW64", "Windows/SysWOW64"), ("python", "Python311")):
    for n in sorted(os.listdir(os.path.join(root, d))):
        if not n.lower().endswith(".dll"):
            continue
        pe = pefile.PE(os.path.join(root, d, n), fast_load=True)
        pe.parse_data_directories(directories=[pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_RESOURCE"]])
        v = "none"
        if hasattr(pe, "VS_FIXEDFILEINFO"):
            f = pe.VS_FIXEDFILEINFO[0]
            v = "%d.%d.%d.%d" % (f.FileVersionMS >> 16, f.FileVersionMS & 0xffff, f.FileVersionLS >> 16, f.FileVersionLS & 0xffff)
        print(where, n.lower(), m.get(pe.FILE_HEADER.Machine, hex(pe.FILE_HEADER.Machine)), v)
' "$root" 2>&1 | sort)
check_eq "every runtime DLL: machine and file version as pefile reads them" "$ref" "$ours"
check_eq "Microsoft's x64 msvcp140 carries its real version" "System32 msvcp140.dll x64 14.0.24210.0" \
	"$(grep '^System32 msvcp140.dll' <<<"$ours")"
check_eq "Wine's builtin vcruntime140 has no version resource, and none is made up" "python vcruntime140.dll x64 none" \
	"$(grep '^python vcruntime140.dll' <<<"$ours")"

"$bin" inventory --root "$root/arm" --json >"$t/arm.json" 2>&1
check_eq "an 'arm64' msvcp140 that is really i386 is reported as x86" "x86" \
	"$(/usr/bin/python3 -c 'import json,sys; print([d["machine"] for d in json.load(open(sys.argv[1]))["inventory"]["runtime_dlls"] if d["name"]=="msvcp140.dll"][0])' "$t/arm.json" 2>&1)"

tap_done
