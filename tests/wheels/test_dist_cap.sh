#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_dist_cap: the 20,000 .dist-info cap of one site-packages (issue #34
# item 10), exercised at its size, in a time the sanitizer build keeps.
#
# The real torch 2.3.0 wheel with the real mkl 2021.4.0 (which passes: see
# test_mkl_delay) and 20,000 more .dist-info folders whose METADATA and
# RECORD are hard links of two tiny files, in /dev/shm (≈1 s to build there, 5 s on disk; `check` reads
# them in ≈2.4 s and 100 MiB under ASan, 0.9 s and 17 MiB without, measured on 2 cores).
# At exactly 20,000 folders nothing is left out and nothing is said; with K
# more, K are not read, said as a not-checked warning in JSON and text, and
# the verdict is WARN, never PASS. The time and the peak memory are bounded.
TEST_NAME=wheels/dist_cap
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
# 20,000 folders: in memory when /dev/shm is there (on this machine's disk removing them alone took 3 minutes)
W=$tmp
if [ -d /dev/shm ] && [ -w /dev/shm ] && W=$(mktemp -d /dev/shm/tdc-dist-cap.XXXXXX); then
	at_exit rm -rf "'$W'"
else
	W=$tmp
fi
CAP=20000

whl=$(wheel_fetch torch 2.3.0 2>"$W/err") || { skip "the .dist-info cap" "no torch 2.3.0 wheel: $(tail -1 "$W/err")"; tap_done; }
PY=$(wheel_tree "$W/t" "$whl" 2>"$W/err") || { not_ok "tree of torch 2.3.0"; sed 's/^/#   /' "$W/err" | head -5; tap_done; }
tree_wheel_data "$W/t" mkl 2021.4.0 2>"$W/err" || { skip "the .dist-info cap" "no mkl 2021.4.0: $(tail -1 "$W/err")"; tap_done; }
SPD=$W/t/Python311/Lib/site-packages
T0=$SECONDS
have=$(find "$SPD" -maxdepth 1 -type d -name '*.dist-info' | wc -l)
# dists N: N more .dist-info folders (names p00000-1.0.dist-info ...), METADATA and RECORD hard links
python3 - "$SPD" "$((CAP - have))" <<'PYEOF' || { not_ok "the $CAP .dist-info folders"; tap_done; }
import os, sys
sp, n = sys.argv[1], int(sys.argv[2])
src = os.path.join(sp, "..", "cap-src")
os.makedirs(src, exist_ok=True)
with open(os.path.join(src, "METADATA"), "w") as f:
    f.write("Metadata-Version: 2.1\nName: p\nVersion: 1.0\n")
open(os.path.join(src, "RECORD"), "w").close()
for i in range(n + 3):
    d = os.path.join(sp, "p%05d-1.0.dist-info" % i)
    os.mkdir(d)
    for f in ("METADATA", "RECORD"):
        os.link(os.path.join(src, f), os.path.join(d, f))
PYEOF
echo "# built the $CAP folders in $((SECONDS - T0)) s"
# the last three aside: exactly the cap first
mkdir -p "$W/aside"
for i in 0 1 2; do mv "$SPD/p$(printf %05d $((CAP - have + i)))-1.0.dist-info" "$W/aside/"; done
check_eq "exactly $CAP .dist-info folders: all read, nothing said" "$CAP|[]" \
	"$(find "$SPD" -maxdepth 1 -type d -name '*.dist-info' | wc -l)|$("$B" check --root "$W/t" --python "$PY" --json 2>/dev/null |
		jq -c '[.findings[] | select(.rule == "not-checked") | .title]')"
mv "$W/aside/"* "$SPD/"

/usr/bin/time -f '%e %M' -o "$W/cost" "$B" check --root "$W/t" --python "$PY" --json >"$W/j" 2>"$W/err"
echo $? >"$W/rc"
check_eq "$CAP + 3 .dist-info folders: 3 not read, a not-checked warning; WARN (exit 0), not PASS" \
	'[["warning","3 .dist-info folders beyond the first 20000 were not read"]]|warn|0' \
	"$(jq -c '[.findings[] | select(.rule == "not-checked") | [.severity, .title]]' "$W/j")|$(jq -r .status "$W/j")|$(cat "$W/rc")"
"$B" check --root "$W/t" --python "$PY" >"$W/txt" 2>&1
check_eq "...said in the text report, whose headline is WARN" 'WARN|yes' \
	"$(head -1 "$W/txt" | cut -d' ' -f1)|$(grep -q '3 .dist-info folders beyond the first 20000 were not read' "$W/txt" && echo yes)"
read -r secs kb <"$W/cost"
echo "# $((CAP + 3)) .dist-info folders: ${secs}s, peak ${kb} KiB ($B)"
check_cmd "...in under 60 s and 1 GiB, sanitizers included (measured ≈2.4 s, ≈0.1 GiB)" \
	awk -v s="$secs" -v k="$kb" 'BEGIN { exit !(s < 60 && k < 1048576) }'
tap_done
