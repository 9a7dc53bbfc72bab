#!/usr/bin/env bash
# test_prefix_cost: what a real-sized Windows folder costs. A standard Wine
# prefix (`wineboot -i`, tests/oracle/wine.sh) holds a 1.6 MB system.reg of
# which a check keeps a few keys; its text reader decoded every value of
# every key to UTF-16 and back one character at a time (a third of all
# instructions of a check), so `check` inside the prefix cost 5x the CPU of
# the same check without the registry. Keys outside the kept subtrees are now
# checked on paths that decode nothing (tests/unit/test_registry.c proves the
# verdicts equal). Bound here on 50 copies of the prefix's own system.reg
# (87 MB): at most 4 ms of CPU per MB (it took 8.6, now about 1); and inside
# the prefix itself, peak memory within 4 MiB of `--version`.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=prefix_cost
# shellcheck source=tests/oracle/wine.sh
if ! source tests/oracle/wine.sh 2>/dev/null || ! wp=$(wine_prefix_ensure) || [ ! -f "$wp/system.reg" ]; then
	skip "a Wine prefix's registry" "no Wine prefix (wine is not installed, or wineboot failed)"
	tap_done
fi
# 50 copies, each under a key of its own, after the one header
python3 - "$wp/system.reg" "$tmp/system.reg" <<'PY'
import sys
src = open(sys.argv[1], encoding="utf-8").read()
head, sep, body = src.partition("\n\n")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write(head + sep)
    for i in range(50):
        out.write(body.replace("\n[Software\\\\", "\n[Software\\\\Copy%d\\\\" % i).replace("\n[System\\\\", "\n[System\\\\Copy%d\\\\" % i))
        out.write("\n")
PY
size=$(stat -c %s "$tmp/system.reg")
check_cmd "the copies: over 50 MB" test "$size" -gt 50000000
# CPU per MB, from the kernel's accounting (not wall time: the machine may be busy).
cpu=$( (ulimit -t 20; exec /usr/bin/time -f '%U %S' "$TDC_BIN" inventory --registry "$tmp/system.reg") 2>&1 >/dev/null | tail -1)
ms_per_mb=$(awk -v c="$cpu" -v s="$size" 'BEGIN { split(c, t, " "); printf "%.1f", (t[1] + t[2]) * 1000 / (s / 1e6) }')
check_cmd "inventory of a $((size / 1000000)) MB system.reg: $ms_per_mb ms of CPU per MB (at most 4; it was 8.6)" \
	awk -v m="$ms_per_mb" 'BEGIN { exit !(m <= 4) }'
# The check itself in the real prefix, against the same check's tree without the prefix's registry.
pfx=$tmp/prefix
mkdir -p "$pfx"
if ! cp -al "$wp/drive_c" "$pfx/drive_c" 2>/dev/null; then
	rm -rf "${pfx:?}/drive_c"
	cp -a "$wp/drive_c" "$pfx/drive_c"
fi
cp "$wp/system.reg" "$pfx/"
base=$( (/usr/bin/time -f '%M' "$TDC_BIN" --version) 2>&1 >/dev/null | tail -1)
peak=$( (/usr/bin/time -f '%M' "$TDC_BIN" inventory --root "$pfx/drive_c") 2>&1 >/dev/null | tail -1)
check_cmd "inventory inside the prefix: peak RSS $peak KiB, within 4 MiB of --version's $base KiB" test $((peak - base)) -le 4096
tap_done
