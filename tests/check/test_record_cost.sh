#!/usr/bin/env bash
# test_record_cost: --verify-hashes hashes each file once, however many RECORD
# rows name it. torch's RECORD listing one 20 MB file 100 times (as a
# hostile or broken RECORD may) hashed 2 GB; now 20 MB: `hashed` is 1.
# And the RECORDs of one site-packages are read within a total budget
# (dist.h DIST_SET_RECORD_BYTES, 128 MiB): one 37 MB RECORD hard-linked into
# 60 dist-info folders was read 60 times (3 s of CPU); past the budget a
# distribution's binaries are found by the bounded walk instead.
set -u
TEST_NAME=check/record-cost
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
REL=$TDC_BIN
sp=$tmp/root/Python311/Lib/site-packages
python3 - "$sp" <<'PY'
import base64, hashlib, os, sys
sp = sys.argv[1]
os.makedirs(sp + "/torch/lib")
os.makedirs(sp + "/torch-2.5.1.dist-info")
open(sp + "/torch/version.py", "w").write("__version__ = '2.5.1+cpu'\n")
data = bytes(range(256)) * (20 * 4096)  # 20 MiB
open(sp + "/torch/big.bin", "wb").write(data)
d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
open(sp + "/torch-2.5.1.dist-info/METADATA", "w").write("Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1\n")
rows = ["torch/big.bin,sha256=%s,%d" % (d, len(data))] * 100
rows += ["torch/version.py,,", "torch-2.5.1.dist-info/METADATA,,", "torch-2.5.1.dist-info/RECORD,,"]
open(sp + "/torch-2.5.1.dist-info/RECORD", "w").write("\n".join(rows) + "\n")
PY
(ulimit -t 10; exec "$REL" check --torch "$sp/torch" --root "$tmp/root" --verify-hashes --json "$tmp/r.json") \
	>/dev/null 2>"$tmp/err"
check_eq "100 rows of one 20 MiB file: hashed once, found equal" '[1,20971520,0]' \
	"$(jq -c '.installs[0].record | [.hashed,.hashed_bytes,.changed]' "$tmp/r.json" 2>&1)"

python3 - "$tmp/rb" <<'PY'
import os, sys
root = sys.argv[1]
sp = root + "/Python311/Lib/site-packages"
os.makedirs(sp + "/torch/lib")
open(sp + "/torch/version.py", "w").write("__version__ = '2.5.1+cpu'\n")
rows = "".join("pkg/sub/a_rather_long_module_name_for_the_budget_%07d.py,,\n" % i for i in range(600000))
open(root + "/RECORD", "w").write(rows)
for k in range(60):
    d = sp + "/pkg%02d-1.0.dist-info" % k
    os.makedirs(d)
    open(d + "/METADATA", "w").write("Metadata-Version: 2.1\nName: pkg%02d\nVersion: 1.0\n" % k)
    os.link(root + "/RECORD", d + "/RECORD")
PY
(ulimit -t 2; exec "$REL" check --torch "$tmp/rb/Python311/Lib/site-packages/torch" --root "$tmp/rb" \
	--json "$tmp/rb.json") >/dev/null 2>"$tmp/err"
check_eq "a 37 MB RECORD in 60 dist-info folders: read within the site-packages' budget (2 s of CPU)" 0 $?
tap_done
