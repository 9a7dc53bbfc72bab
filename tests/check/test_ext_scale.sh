#!/usr/bin/env bash
# test_ext_scale: an extension with many failing binaries costs time linear
# in them. One extension distribution with 20,000 binaries (the per-
# distribution cap), each in its own folder and each missing a DLL of its
# own (tests/lib/ext_failures.py), was quadratic twice over: the extension
# loader looked every binary up among those added so far (extload.c
# find_bin), and RECORD's fixes looked every failure's folder, owner and
# leftovers up by walking lists as long (judge/record.c refix): 4,000
# binaries took 5.4 s of CPU, 20,000 about 8 minutes; now 4,000 take 0.3 s and 20,000
# 1.5 s. 8,000 here (20 s of CPU before), in 5 s of CPU.
# And the copies of torch's DLLs another package ships: each of a package's
# DLLs was looked up by walking torch's binaries (judge/extensions.c
# torch_needs): torch\lib with 20,000 DLLs beside a package with 20,000 took
# 40 s of CPU, now 1 s; 8,000 of each here.
# The release binary is timed in bounded CPU (`ulimit -t`), as test_scale.
set -u
TEST_NAME=check/ext-scale
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
REL=$TDC_BIN
N=8000
python3 "$TDC_REPO/tests/lib/ext_failures.py" "$tmp/root" "$N"
(ulimit -t 5; exec "$REL" check --torch "$tmp/root/Python311/Lib/site-packages/torch" --root "$tmp/root" \
	--json "$tmp/r.json") >/dev/null 2>"$tmp/err"
check_eq "check of an extension with $N failing binaries in separate folders finishes in bounded CPU" 1 $?
check_eq "...one extension-load-failure per binary" "$N" \
	"$(jq '[.findings[] | select(.rule == "extension-load-failure")] | length' "$tmp/r.json" 2>&1)"

python3 - "$tmp/tn" "$N" <<'PY'
import os, sys
sp = sys.argv[1] + "/Python311/Lib/site-packages"
N = int(sys.argv[2])
os.makedirs(sp + "/torch/lib"); os.makedirs(sp + "/other/bin"); os.makedirs(sp + "/other-1.0.dist-info")
open(sp + "/torch/version.py", "w").write("__version__ = '2.5.1+cpu'\n")
for i in range(N):
    open(sp + "/torch/lib/z%d.dll" % i, "wb").close()
    open(sp + "/other/bin/o%d.dll" % i, "wb").close()
open(sp + "/other-1.0.dist-info/METADATA", "w").write("Metadata-Version: 2.1\nName: other\nVersion: 1.0\n")
open(sp + "/other-1.0.dist-info/RECORD", "w").write("".join("other/bin/o%d.dll,,\n" % i for i in range(N)))
PY
(ulimit -t 5; exec "$REL" check --torch "$tmp/tn/Python311/Lib/site-packages/torch" --root "$tmp/tn" \
	--json "$tmp/tn.json") >/dev/null 2>"$tmp/err"
check_eq "check of $N torch DLLs beside a package of $N DLLs finishes in bounded CPU (exit 1: they are unreadable)" 1 $?
tap_done
