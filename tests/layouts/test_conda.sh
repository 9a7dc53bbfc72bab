#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_conda: a DLL of a conda environment traced to the conda package that
# installed it, from conda-meta (issue #31), on a REAL wheel.
#
# torch 2.9.1 (PyPI's win_amd64 cp311 wheel) in a conda environment whose
# Library\bin holds msvc-runtime 14.34.31931's real DLLs, where conda's
# vc14_runtime package puts them (tests/lib/trees/wheels.sh
# tree_conda_runtime), and the record conda writes for that package in
# conda-meta (name, version, build, channel URL, files, paths_data). c10.dll
# fails in DllMain (1114) under msvcp140.dll 14.34 (microsoft/STL#4730): each
# finding on msvcp140.dll says it comes from conda package vc14_runtime
# 14.34.31931 (conda-forge) and its fix says to change it with conda. Before
# judge/conda_owner the findings named the file only. Then conda-meta made
# hostile: a record that is not JSON, one nested 100,000 deep, one over 64
# MiB, one without a name, 20,001 records: the trace still holds, the
# unreadable ones are one conda-meta-unreadable note, and the check stays fast.
TEST_NAME=layouts/conda
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
W=$tmp
RT=14.34.31931

whl=$(wheel_fetch torch 2.9.1 2>"$W/err") || { skip "conda-meta" "no torch 2.9.1 wheel: $(tail -1 "$W/err")"; tap_done; }
PY=$(wheel_tree "$W/t" "$whl" 2>"$W/err") || { not_ok "tree of torch 2.9.1"; sed 's/^/#   /' "$W/err" | head -5; tap_done; }
tree_conda_runtime "$W/t" "$RT" 2>"$W/err" || { skip "conda-meta" "no msvc-runtime $RT: $(tail -1 "$W/err")"; tap_done; }
P=$W/t/Python311
mkdir -p "$P/conda-meta"
# the record as conda writes it (conda/models/records.py PrefixRecord: files and paths_data relative to the prefix, '/')
(cd "$P" && python3 - "$RT" <<'PYEOF'
import hashlib, json, os, sys
v = sys.argv[1]
files = sorted("Library/bin/" + f for f in os.listdir("Library/bin"))
paths = []
for f in files:
    b = open(f, "rb").read()
    paths.append({"_path": f, "path_type": "hardlink", "sha256": hashlib.sha256(b).hexdigest(), "size_in_bytes": len(b)})
fn = "vc14_runtime-%s-h5081d32_16" % v
rec = {"build": "h5081d32_16", "build_number": 16, "channel": "https://conda.anaconda.org/conda-forge/win-64",
       "constrains": ["vs2015_runtime %s.* *_16" % v], "depends": ["ucrt >=10.0.20348.0"],
       "extracted_package_dir": "C:\\Miniconda3\\pkgs\\" + fn, "features": "", "files": files, "fn": fn + ".conda",
       "license": "LicenseRef-MicrosoftVisualCpp2015-2022Runtime", "link": {"source": "C:\\Miniconda3\\pkgs\\" + fn, "type": 1},
       "name": "vc14_runtime", "paths_data": {"paths": paths, "paths_version": 1}, "requested_spec": "",
       "subdir": "win-64", "url": "https://conda.anaconda.org/conda-forge/win-64/" + fn + ".conda", "version": v}
json.dump(rec, open("conda-meta/" + fn + ".json", "w"), indent=2)
PYEOF
)
J() { "$B" check --root "$W/t" --python "$PY" --json 2>"$W/check.err" | jq -c "$1" 2>&1; }
traced='[.findings[] | select(.leaf == "msvcp140.dll") | .explanation | test("^C:\\\\Python311\\\\Library\\\\bin\\\\msvcp140.dll comes from conda package vc14_runtime 14.34.31931, channel conda-forge \\(C:\\\\Python311\\\\conda-meta\\\\vc14_runtime-14.34.31931-h5081d32_16.json\\)")] | [length, all]'
fixed='[.findings[] | select(.leaf == "msvcp140.dll") | .fix | endswith("msvcp140.dll is conda package vc14_runtime 14.34.31931'"'"'s: change it with conda (`conda update -c conda-forge vc14_runtime`; when two packages bring the same DLL, keep one), not by copying a DLL")] | [length, all]'

check_eq "1114 on c10.dll under conda's msvcp140.dll $RT" '[1114,"c10.dll"]' \
	"$(J '.installs[0].import_error | [.winerror, (.binary | split("\\") | last)]')"
check_eq "each finding on msvcp140.dll names conda package vc14_runtime, its version and channel" '[4,true]' "$(J "$traced")"
check_eq "and its fix changes it with conda" '[4,true]' "$(J "$fixed")"
check_eq "torch's own files are not traced (pip installed them)" '0' \
	"$(J '[.findings[] | select(.explanation // "" | test("torch\\\\\\\\lib.*comes from conda"))] | length')"

# ---- hostile conda-meta
printf 'not json' >"$P/conda-meta/broken-1-0.json"
head -c 100000 /dev/zero | tr '\0' '[' >"$P/conda-meta/deep-1-0.json"
truncate -s 65M "$P/conda-meta/huge-1-0.json"
printf '{"version": "1", "files": ["Library/bin/msvcp140.dll"]}' >"$P/conda-meta/noname-1-0.json"
printf '{"name": "evil", "version": "1", "files": ["../../Windows/System32/kernel32.dll", "C:/Windows/System32/ntdll.dll"]}' \
	>"$P/conda-meta/evil-1-0.json"
check_eq "hostile records: the trace still holds" '[4,true]' "$(J "$traced")"
check_eq "hostile records: one conda-meta-unreadable note" '[["note","conda-meta records not read: C:\\Python311"]]' \
	"$(J '[.findings[] | select(.rule == "conda-meta-unreadable") | [.severity, .title]]')"
check_cmd "hostile records: each is said (not JSON, over the size limit, no name)" \
	grep -q 'broken-1-0.json: not JSON.*deep-1-0.json: not JSON.*huge-1-0.json.*noname-1-0.json: no name and version' \
	<<<"$(J '.findings[] | select(.rule == "conda-meta-unreadable") | .message')"
check_eq "a record naming files outside the environment traces nothing there" '0' \
	"$(J '[.findings[] | select(.explanation // "" | test("conda package evil"))] | length')"
rm -f "$P"/conda-meta/{broken,deep,huge,noname,evil}-1-0.json
python3 -c '
import sys
for i in range(20001):
    open("%s/conda-meta/pkg%05d-1-0.json" % (sys.argv[1], i), "w").write("{\"name\": \"pkg%d\", \"version\": \"1\", \"files\": [\"Library/bin/p%d.dll\"]}" % (i, i))
' "$P"
cpu_mark
# NTFS lists a folder in name order: pkg* come first, vc14_runtime's record is past the limit
check_eq "20,001 more records: vc14_runtime's, past the limit, is not traced, and the limit is said" \
	'[[4,false],"2 conda-meta records past the first 20000 not read"]' \
	"$(J "[($traced), ([.findings[] | select(.rule == \"conda-meta-unreadable\") | .message] | .[0])]")"
cpu_since
check_cmd "20,001 records read in under 60 s of CPU (took ${_tdc_cpu_secs}s)" test "$_tdc_cpu_secs" -lt 60
tap_done
