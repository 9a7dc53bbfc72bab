#!/usr/bin/env bash
# test_torch_discovery.sh: `inventory` on a generated Windows tree holding
# several Python environments: a python.org install with a user site, a venv
# (lower-case `lib`, CUDA build), a conda env (mixed-up torch: version.py and
# METADATA disagree, two dist-infos), plus System32/SysWOW64 runtime DLLs
# with real version resources. Checks discovery from --python (each layout),
# --site-packages, --torch and --scan (with a symlink loop and a depth
# bound), the runtime DLL table (machine, file version, "no version
# resource"), and clean errors for wrong starting points and broken files.
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=inventory-torch
set -u
# shellcheck source=tests/lib/fixtures.sh
source "$TDC_REPO/tests/lib/fixtures.sh"
bin=$B

# The PE files the tree needs (built once, cached).
# shellcheck disable=SC2317  # called through fx_build
inv_pe() {
	local d=$1
	make_dll "$d/msvcp140_x64.dll" --name msvcp140.dll --version 14.40.33810.0 &&
	make_dll "$d/vcruntime140_x64.dll" --name vcruntime140.dll --version 14.40.33810.0 &&
	make_dll "$d/vcruntime140_old.dll" --name vcruntime140.dll --version 14.36.32532.0 &&
	make_dll "$d/msvcp140_x86.dll" --machine x86 --name msvcp140.dll --version 14.38.33130.0 &&
	make_dll "$d/noversion.dll" --name libomp140.x86_64.dll &&
	make_dll "$d/libiomp5md.dll" --version 5.0.2024.0 &&
	make_dll "$d/python311.dll" &&
	make_exe "$d/python_x64.exe"
}
pe=$(fx_build inventory-pe inv_pe) || { not_ok "building PE fixtures failed"; tap_done; }

t=$tmp
root=$t/root
mk() { mkdir -p "$(dirname "$1")" && cp "$2" "$1"; }
txt() { mkdir -p "$(dirname "$1")" && printf '%s' "$2" >"$1"; }
torch_tree() { # torch_tree SITE VERSION PYDTAG [CUDA]
	local sp=$1 ver=$2 tag=$3 cuda=${4:-None}
	[ "$cuda" = None ] || cuda="'$cuda'"
	txt "$sp/torch/version.py" "from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']
__version__ = '$ver'
debug = False
cuda: Optional[str] = $cuda
git_version = 'd990dada86a8ad94882b5c23e859b88c0c255bda'
hip: Optional[str] = None
"
	txt "$sp/torch/_C.$tag-win_amd64.pyd" "not read"
	txt "$sp/torch/__init__.py" ""
	mkdir -p "$sp/torch/lib"
	txt "$sp/torch-$ver.dist-info/METADATA" "Metadata-Version: 2.1
Name: torch
Version: $ver
Summary: Tensors and Dynamic neural networks in Python with strong GPU acceleration
Requires-Dist: filelock

# the long description: Version: 9.9.9 here is body text, not a header
"
}

# System32 / SysWOW64
mk "$root/Windows/System32/msvcp140.dll" "$pe/msvcp140_x64.dll"
mk "$root/Windows/System32/VCRUNTIME140.dll" "$pe/vcruntime140_x64.dll"
mk "$root/Windows/System32/libomp140.x86_64.dll" "$pe/noversion.dll"
mk "$root/Windows/SysWOW64/msvcp140.dll" "$pe/msvcp140_x86.dll"
: >"$root/Windows/System32/vcomp140.dll" # 0 bytes: quarantined by an antivirus
# python.org install + a user site
py=$root/Python311
mk "$py/python.exe" "$pe/python_x64.exe"
mk "$py/python311.dll" "$pe/python311.dll"
mk "$py/vcruntime140.dll" "$pe/vcruntime140_old.dll"
torch_tree "$py/Lib/site-packages" 2.4.0+cpu cp311
torch_tree "$root/Users/me/AppData/Roaming/Python/Python311/site-packages" 2.2.0+cpu cp311
# a venv on that base (lower-case lib: lookups are case-insensitive), CUDA build
venv=$root/work/venv
mk "$venv/Scripts/python.exe" "$pe/python_x64.exe"
txt "$venv/pyvenv.cfg" 'home = C:\Python311
include-system-site-packages = false
version = 3.11.9
'
torch_tree "$venv/lib/site-packages" 2.5.1+cu121 cp311 12.1
txt "$venv/lib/site-packages/torch/lib/cudart64_12.dll" "x"
txt "$venv/lib/site-packages/torch/lib/cublas64_12.dll" "x"
# a second venv without torch of its own, seeing the base install's
venv2=$root/work/venv2
mk "$venv2/Scripts/python.exe" "$pe/python_x64.exe"
txt "$venv2/pyvenv.cfg" 'home = C:\Python311
include-system-site-packages = true
version = 3.11.9
'
mkdir -p "$venv2/Lib/site-packages"
# a conda env with a mixed-up torch
conda=$root/miniconda3/envs/ml
mk "$conda/python.exe" "$pe/python_x64.exe"
mk "$conda/python310.dll" "$pe/python311.dll"
mkdir -p "$conda/conda-meta"
mk "$conda/Library/bin/libiomp5md.dll" "$pe/libiomp5md.dll"
torch_tree "$conda/Lib/site-packages" 2.3.1 cp310
txt "$conda/Lib/site-packages/torch-2.3.1.dist-info/METADATA" "Metadata-Version: 2.1
Name: torch
Version: 2.3.0
"
txt "$conda/Lib/site-packages/torch-2.2.2.dist-info/METADATA" "Metadata-Version: 2.1
Name: torch
Version: 2.2.2
"
# a symlink loop the scan must not follow
ln -s .. "$root/work/loop"

# jq-like extraction with the system python
J() { python3 -c "import json,sys
d=json.load(open(sys.argv[1]))['inventory']
$2" "$1" 2>&1; }

run_json() { # run_json OUT ARGS...
	local out=$1
	shift
	"$bin" inventory --root "$root" --json "$@" >"$out" 2>"$out.err"
}

run_json "$t/py.json" --python 'C:\Python311\python.exe' --env 'APPDATA=C:\Users\me\AppData\Roaming'
check_eq "--python: exit 0" 0 $?
check_eq "--python: the install and the user site" \
	'C:\Python311\Lib\site-packages\torch system 2.4.0+cpu cpu cp311 x64 3.11 C:\Python311\python.exe|C:\Users\me\AppData\Roaming\Python\Python311\site-packages\torch user-site 2.2.0+cpu cpu cp311 x64 3.11 C:\Python311\python.exe' \
	"$(J "$t/py.json" 'print("|".join(" ".join(str(i[k]) for k in ("torch_dir","kind","version","variant","pyd_tag","arch","python_version","python")) for i in d["installs"]))')"
check_eq "--python: METADATA read, body ignored" "2.4.0+cpu" "$(J "$t/py.json" 'print(d["installs"][0]["metadata_version"])')"
check_eq "--python: no notes for a clean install" "[]" "$(J "$t/py.json" 'print(d["installs"][0]["notes"])')"
check_eq "--python: one python listed" '[{"python": "C:\\Python311\\python.exe", "version": "3.11", "kind": "system", "prefix": "C:\\Python311", "base_python_dir": null}]' \
	"$(J "$t/py.json" 'print(json.dumps(d["pythons"]))')"
check_eq "runtime DLLs: machine, version, where" \
	'vcruntime140.dll System32 x64 14.40.33810.0|msvcp140.dll System32 x64 14.40.33810.0|vcomp140.dll System32 None None|libomp140.x86_64.dll System32 x64 None|msvcp140.dll SysWOW64 x86 14.38.33130.0|vcruntime140.dll python x64 14.36.32532.0' \
	"$(J "$t/py.json" 'print("|".join("%s %s %s %s" % (x["name"], x["where"], x["machine"], x["file_version"]) for x in d["runtime_dlls"]))')"
check_eq "runtime DLLs: real letter case of the file found" 'C:\Windows\System32\VCRUNTIME140.dll' \
	"$(J "$t/py.json" 'print([x["path"] for x in d["runtime_dlls"] if x["name"]=="vcruntime140.dll"][0])')"
check_eq "runtime DLLs: an empty file is listed with its error" "True" \
	"$(J "$t/py.json" 'print(bool([x for x in d["runtime_dlls"] if x["name"]=="vcomp140.dll"][0]["error"]))')"

run_json "$t/venv.json" --python "$venv/Scripts/python.exe"
check_eq "venv (host path given): exit 0" 0 $?
check_eq "venv: kind, base, version from pyvenv.cfg, CUDA variant" \
	'venv C:\Python311 3.11 2.5.1+cu121 cu121 12.1 cublas64_12.dll,cudart64_12.dll' \
	"$(J "$t/venv.json" 'i=d["installs"][0]; print(i["kind"], i["base_python_dir"], i["python_version"], i["version"], i["variant"], i["cuda"], ",".join(sorted(i["cuda_dlls"])))')"
check_eq "venv: DLLs are looked for next to the base python.exe (the launcher runs it)" \
	'python C:\Python311|torch\lib C:\work\venv\lib\site-packages\torch\lib' \
	"$(J "$t/venv.json" 'print("|".join(x["where"]+" "+x["path"] for x in d["installs"][0]["dll_dirs"]))')"

run_json "$t/venv2.json" --python 'C:\work\venv2\Scripts\python.exe'
check_eq "venv with include-system-site-packages: the base install's torch, run by the venv's python" \
	'C:\Python311\Lib\site-packages\torch C:\work\venv2\Scripts\python.exe python=C:\Python311' \
	"$(J "$t/venv2.json" 'i=d["installs"][0]; print(len(d["installs"]) == 1 and i["torch_dir"], i["python"], ",".join(x["where"]+"="+x["path"] for x in i["dll_dirs"] if x["where"]=="python"))')"
check_eq "user site: the python.exe folder is searched too" 'python=C:\Python311' \
	"$(J "$t/py.json" 'print(",".join(x["where"]+"="+x["path"] for x in d["installs"][1]["dll_dirs"] if x["where"]=="python"))')"

run_json "$t/conda.json" --python 'C:\miniconda3\envs\ml'
check_eq "conda (folder given): exit 0" 0 $?
check_eq "conda: kind, python version from python310.dll, pyd tag" 'conda 3.10 cp310 2.3.1 cpu' \
	"$(J "$t/conda.json" 'i=d["installs"][0]; print(i["kind"], i["python_version"], i["pyd_tag"], i["version"], i["variant"])')"
check_eq "conda: two dist-infos and the version mismatch are noted" \
	'2 torch dist-info folders (torch-2.2.2.dist-info, torch-2.3.1.dist-info): an upgrade left one behind, pip may be confused|torch\version.py says 2.3.1 but C:\miniconda3\envs\ml\Lib\site-packages\torch-2.3.1.dist-info\METADATA says 2.3.0: files of two torch installs are mixed' \
	"$(J "$t/conda.json" 'print("|".join(d["installs"][0]["notes"]))')"
check_eq "conda: Library\\bin searched, libiomp5md found with its version" 'libiomp5md.dll Library\bin 5.0.2024.0' \
	"$(J "$t/conda.json" 'print("|".join("%s %s %s" % (x["name"], x["where"], x["file_version"]) for x in d["runtime_dlls"] if x["where"]=="Library\\bin"))')"

# torch's own packaging (measured on PyPI's win_amd64 wheels 1.7.1 to 2.15.0):
# PyPI's wheel writes "2.5.1+cpu" into version.py but is named 2.5.1, so its
# dist-info says 2.5.1 — one install, not a mix. Two different labels are.
pypi_check() { # pypi_check NAME VERSION_PY DIST_VERSION EXPECTED_NOTES
	local r2=$t/$1 sp
	sp=$r2/Python311/Lib/site-packages
	torch_tree "$sp" "$2" cp311
	rm -rf "$sp/torch-$2.dist-info"
	txt "$sp/torch-$3.dist-info/METADATA" "Metadata-Version: 2.1
Name: torch
Version: $3
"
	"$bin" inventory --root "$r2" --torch 'C:\Python311\Lib\site-packages\torch' --json >"$t/$1.json" 2>"$t/$1.err"
	check_eq "version.py $2, dist-info $3: $4" "$4" "$(J "$t/$1.json" 'print("|".join(d["installs"][0]["notes"]) or "no notes")')"
}
pypi_check pypi 2.5.1+cpu 2.5.1 "no notes"
pypi_check index 2.5.1+cpu 2.5.1+cpu "no notes"
pypi_check labels 2.5.1+cpu 2.5.1+cu121 \
	'torch\version.py says 2.5.1+cpu but C:\Python311\Lib\site-packages\torch-2.5.1+cu121.dist-info\METADATA says 2.5.1+cu121: files of two torch installs are mixed'
pypi_check public 2.5.1+cpu 2.4.0 \
	'torch\version.py says 2.5.1+cpu but C:\Python311\Lib\site-packages\torch-2.4.0.dist-info\METADATA says 2.4.0: files of two torch installs are mixed'

run_json "$t/scan.json" --scan "C:\\"
check_eq "--scan: exit 0 (the symlink loop is not followed)" 0 $?
check_eq "--scan: all four installs" \
	'C:\miniconda3\envs\ml\Lib\site-packages\torch|C:\Python311\Lib\site-packages\torch|C:\Users\me\AppData\Roaming\Python\Python311\site-packages\torch|C:\work\venv\lib\site-packages\torch' \
	"$(J "$t/scan.json" 'print("|".join(sorted((i["torch_dir"] for i in d["installs"]), key=str.lower)))')"
run_json "$t/scan3.json" --scan "C:\\" --depth 3
check_eq "--scan --depth 3: only the shallow install" 'C:\Python311\Lib\site-packages\torch' \
	"$(J "$t/scan3.json" 'print("|".join(i["torch_dir"] for i in d["installs"]))')"

run_json "$t/sp.json" --site-packages 'C:\Python311\Lib\site-packages' --torch 'C:\Python311\Lib\site-packages\torch'
check_eq "--site-packages and --torch of the same install: listed once" 1 "$(J "$t/sp.json" 'print(len(d["installs"]))')"

# text output: compact tables
"$bin" inventory --root "$root" --python 'C:\miniconda3\envs\ml\python.exe' >"$t/conda.txt" 2>&1
check_eq "text: the torch line" "    torch   2.3.1 (METADATA: 2.3.0), variant cpu, x64, cp310" "$(grep '^    torch ' "$t/conda.txt")"
check_eq "text: no registry is said, not guessed" \
	"VC++ 2015-2022 redistributable: no registry to read (give --registry FILE, or --root a Wine drive_c or Windows disk)" "$(head -1 "$t/conda.txt")"

# wrong starting points: exit 2 with a message naming the path
check_status "--torch on a folder that is not torch: exit 2" 2 "$bin" inventory --root "$root" --torch 'C:\Python311'
check_eq "--torch on a folder that is not torch: message" \
	'torch-dll-check: inventory: C:\Python311: not a torch folder (no __init__.py or version.py)' \
	"$("$bin" inventory --root "$root" --torch 'C:\Python311' 2>&1)"
check_eq "--python on a missing file: message" \
	'torch-dll-check: inventory: C:\nope\python.exe: no such file (expected the path of python.exe)' \
	"$("$bin" inventory --root "$root" --python 'C:\nope\python.exe' 2>&1)"

# broken version.py / METADATA: a note with file:line, never a crash or a made-up version
printf "__version__ = '2.4.0+cpu\n" >"$py/Lib/site-packages/torch/version.py"
head -c 20 "$py/Lib/site-packages/torch-2.4.0+cpu.dist-info/METADATA" >"$t/m" && mv "$t/m" "$py/Lib/site-packages/torch-2.4.0+cpu.dist-info/METADATA"
run_json "$t/broken.json" --torch 'C:\Python311\Lib\site-packages\torch'
check_eq "broken files: exit 0, version unknown" "0 None None" "$? $(J "$t/broken.json" 'i=d["installs"][0]; print(i["version"], i["metadata_version"])')"
check_eq "broken files: the notes say where and why" \
	"C:\\Python311\\Lib\\site-packages\\torch\\version.py:1: __version__: unterminated string (expected a closing ')|C:\\Python311\\Lib\\site-packages\\torch-2.4.0+cpu.dist-info\\METADATA: no Version: header (truncated?)" \
	"$(J "$t/broken.json" 'print("|".join(d["installs"][0]["notes"]))')"

tap_done
