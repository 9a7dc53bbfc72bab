#!/usr/bin/env bash
# test_record_cost: --verify-hashes hashes each file once, however many RECORD
# rows name it. torch's RECORD listing one 20 MB file 100 times (as a
# hostile or broken RECORD may) hashed 2 GB; now 20 MB: `hashed` is 1.
set -u
TEST_NAME=check/record-cost
# shellcheck source=tests/lib/start.sh
source "$(dirname "$0")/../lib/start.sh"
REL=${TDC_BIN:-$TDC_REPO/torch-dll-check}
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
tap_done
