#!/usr/bin/env bash
# bench/app.sh: issue 32's cost target for frozen apps, side by side in one run
# on the real torch 2.9.1 wheel frozen as PyInstaller 6.11.0 lays it out
# (tests/lib/trees/frozen.sh: the real bootloader, PyInstaller's own archive
# writer): `check --app` of the onedir app (the files unpacked), of the onefile
# build of the same app (every binary inside App.exe's archive, zlib-compressed),
# and the floor no reader of a onefile app can go under: inflating the archive's
# binaries once (Python's zlib, the same C zlib the checker links), which is
# what reaching a DLL's import and export directories costs when the bytes
# before them are deflated. Prints the times and the ratios (target: onefile
# within 2x onedir) and both peak RSS (target: onefile within onedir + 8 MiB);
# says when one is over its target (a report, not a failure).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=bench/lib.sh
source bench/lib.sh
source tests/lib/fixtures.sh
source tests/lib/wheels.sh
source tests/lib/trees/wheels.sh
source tests/lib/trees/frozen.sh
B=${B:-./torch-dll-check}
export TDC_BIN=${TDC_BIN:-$B}
W=$(mktemp -d)
trap 'rm -rf "$W" "$BENCH_T" "$BENCH_T.perf"' EXIT
whl=$(wheel_fetch torch 2.9.1) || { echo "bench/app.sh: no torch 2.9.1 wheel (pip): skipped"; exit 0; }
if ! { wheel_tree "$W/d" "$whl" >/dev/null && tree_redist "$W/d" 14.44.35112 && pyi_unpack 6.11.0 "$W/pyi" &&
	pyi_onedir "$W/d" "$W/pyi" 6 >/dev/null && cp -al "$W/d" "$W/f" && pyi_onefile "$W/f" "$W/pyi"; }; then
	echo "bench/app.sh: could not build the apps"
	exit 2
fi
bench_load
printf '%-34s %9s %9s %10s\n' "" "wall" "cpu" "peak RSS" >&2
row() { # LABEL ARGS...: "label  wall  cpu  rss"; prints "CPU-seconds RSS-KiB"
	local l=$1 r
	shift
	r=$(measure "$@")
	printf '%-34s %8ss %8ss %6s MiB\n' "$l" "$(cut -d' ' -f1 <<<"$r")" "$(cut -d' ' -f2 <<<"$r")" "$(kib_mib "$(cut -d' ' -f3 <<<"$r")")" >&2
	cut -d' ' -f2,3 <<<"$r"
}
# the binaries' compressed bytes, inflated once: the archive's TOC read with PyInstaller's own reader
cat >"$W/inflate.py" <<'PYEOF'
import sys, zlib
sys.path.insert(0, sys.argv[2])
from PyInstaller.archive.readers import CArchiveReader
a = CArchiveReader(sys.argv[1])
n = 0
with open(sys.argv[1], "rb") as f:
    for name, (off, clen, ulen, flag, typ) in a.toc.items():
        if typ != "b":
            continue
        f.seek(a._start_offset + off)
        data = f.read(clen)
        n += len(zlib.decompress(data) if flag else data)
print(n)
PYEOF
if ! python3 "$W/inflate.py" "$W/f/App/App.exe" "$W/pyi" >"$W/bytes" 2>"$W/why"; then
	echo "bench/app.sh: PyInstaller's archive reader failed: $(head -c 300 "$W/why")"
	exit 2
fi
read -r d drss <<<"$(row "check --app onedir" "$B" check --root "$W/d" --app 'C:\App\App.exe' --json)"
read -r o orss <<<"$(row "check --app onefile" "$B" check --root "$W/f" --app 'C:\App\App.exe' --json)"
z=$(row "inflate the binaries once (zlib)" python3 "$W/inflate.py" "$W/f/App/App.exe" "$W/pyi" | cut -d' ' -f1)
p=$(row "python3 alone (subtract)" python3 -c 'import zlib, sys' | cut -d' ' -f1)
# peak RSS: a onefile entry is inflated 1 MiB at a time into its memory file and the archive's pages read
# are dropped behind (pyi_archive_stream), so onefile's peak is onedir's plus the inflate's buffers and the
# mount's tables: target <= onedir + 8 MiB, whatever the largest binary (torch_cpu.dll: 250 MiB)
awk -v d="$drss" -v o="$orss" 'BEGIN {
	printf "peak RSS: onefile %.1f MiB, onedir %.1f MiB: +%.1f MiB%s\n", o / 1024, d / 1024, (o - d) / 1024,
		(o - d > 8192 ? " -- OVER the target (onedir + 8 MiB)" : " (target <= onedir + 8 MiB)")
}'
awk -v d="$d" -v o="$o" -v z="$z" -v p="$p" -v n="$(cat "$W/bytes")" 'BEGIN {
	r = (d > 0 ? o / d : 0); f = z - p; if (f < 0) f = 0
	printf "binaries inflated: %.0f MiB (those read are held in memory files, outside RSS, until the check ends)\n", n / 1048576
	printf "onefile = %.1fx onedir (CPU)%s\n", r, (r > 2 ? " -- OVER the 2x target" : " (target <= 2x)")
	printf "inflate floor %.3f s: onefile - floor = %.3f s, onedir %.3f s\n", f, o - f, d
}'
