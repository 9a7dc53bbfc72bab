#!/usr/bin/env bash
# bench/environment.sh: issue 20's cost target — `check` on a real torch
# install (torch 2.9.1's win_amd64 wheel from PyPI, tests/lib/trees/wheels.sh)
# whose site-packages also holds 300 distributions and 50,000 installed files
# stays within 1.3x of `check` on the same torch install alone (issue 34; 1.5x
# in issue 20).
#
# The environment (generated in a temporary folder, a few seconds): 300
# `.dist-info` folders with METADATA and a RECORD of ~166 rows each (50,000
# rows in all, every file present, empty), two native binaries per
# distribution (hard links to Wine's small PE builtins, importing only
# Windows DLLs: 600 PE headers to read, none an extension of torch). The scan
# reads every RECORD and the headers of the listed binaries, never whole
# files, and never walks the site-packages. A third tree adds torchvision
# 0.24.1, a real extension, imported after torch (its cost is the loader's
# work on its binaries, like torch's own: shown, not part of the target).
#
# BENCH_BASELINE_BIN (optional): another build, e.g. main's before the
# environment check, measured on the same two trees for comparison.
#
# The floor (bench/dist_floor.c, built with cc when there is one): reading
# only the files check must read of the distributions (each METADATA and
# RECORD whole, the first 4 KiB of each binary a RECORD lists), with no
# parsing, on both trees: what any reader of these files spends, shown as
# the ratio check would have if the distributions cost only that.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
BIN=${TDC_BIN:-$REPO/torch-dll-check}
export TDC_BIN=$BIN TDC_REPO=$REPO
export BENCH_RUNS=${BENCH_RUNS:-10}
source tests/lib/fixtures.sh
source tests/lib/wheels.sh
source tests/lib/trees/wheels.sh
source bench/lib.sh
[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/tdc-bench-env.XXXXXX")
trap 'rm -rf "$W" "$BENCH_T" "$BENCH_T.perf"' EXIT

echo "# check on torch 2.9.1 with 300 distributions and 50,000 files beside it ($(bench_load))"
echo
if ! whl=$(wheel_fetch torch 2.9.1 2>"$W/err") || ! tv=$(wheel_fetch torchvision 0.24.1 2>>"$W/err"); then
	echo "SKIPPED: PyPI/pip did not give the wheels: $(tail -1 "$W/err")"
	exit 0
fi
wheel_tree "$W/alone" "$whl" >/dev/null || exit 2
tree_redist "$W/alone" 14.44.35112 2>/dev/null
tree_variant "$W/alone" "$W/env" || exit 2

python3 - "$W/env/Python311/Lib/site-packages" "$WINE_PE" <<'PYEOF' || exit 2
import os, sys
sp, wine = sys.argv[1], sys.argv[2]
pe = [os.path.join(wine, n) for n in ("version.dll", "lz32.dll")]
per = 50000 // 300
for d in range(300):
    name = "pkg%03d" % d
    di = os.path.join(sp, "%s-1.0.dist-info" % name)
    os.makedirs(os.path.join(sp, name, "sub"), exist_ok=True)
    os.makedirs(di, exist_ok=True)
    rows = []
    for i in range(per - 4):
        rel = "%s/%s/m%04d.py" % (name, "sub" if i % 2 else ".", i)
        rel = rel.replace("/./", "/")
        open(os.path.join(sp, rel), "wb").close()
        rows.append("%s,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0" % rel)
    for k, src in enumerate(pe):
        rel = "%s/_native%d.pyd" % (name, k)
        os.link(src, os.path.join(sp, rel))
        rows.append("%s,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,%d" % (rel, os.path.getsize(src)))
    with open(os.path.join(di, "METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: %s\nVersion: 1.0\nRequires-Dist: numpy\n\nA package.\n" % name)
    rows += ["%s-1.0.dist-info/METADATA,," % name, "%s-1.0.dist-info/RECORD,," % name]
    with open(os.path.join(di, "RECORD"), "w") as f:
        f.write("\n".join(rows) + "\n")
PYEOF
tree_variant "$W/env" "$W/ext" && tree_extensions "$W/ext" "$tv" || exit 2
nd=$(find "$W/env/Python311/Lib/site-packages" -maxdepth 1 -name '*.dist-info' | wc -l)
nf=$(cat "$W"/env/Python311/Lib/site-packages/*.dist-info/RECORD | wc -l)

echo "| build | tree | wall | CPU | peak RSS | exit |"
echo "|---|---|---:|---:|---:|---:|"
declare -A CPU
for b in "$BIN" ${BENCH_BASELINE_BIN:+"$BENCH_BASELINE_BIN"}; do
	for t in alone env ext; do
		read -r wall cpu rss st <<<"$(measure "$b" check --root "$W/$t" --python 'C:\Python311\python.exe' --json)"
		CPU[$b$t]=$cpu
		label=$([ "$b" = "$BIN" ] && echo "this build" || echo "baseline")
		printf '| %s | %s | %s s | %s s | %s MiB | %s |\n' "$label" \
			"$(case $t in alone) echo "torch alone" ;; env) echo "+ $nd dist-infos, $nf RECORD rows" ;;
				*) echo "+ the same and torchvision 0.24.1" ;; esac)" \
			"$wall" "$cpu" "$(kib_mib "$rss")" "$st"
	done
done
echo
if command -v cc >/dev/null && cc -O2 -o "$W/dist_floor" bench/dist_floor.c 2>/dev/null; then
	read -r _ fa _ _ <<<"$(measure "$W/dist_floor" "$W/alone/Python311/Lib/site-packages")"
	read -r _ fe _ _ <<<"$(measure "$W/dist_floor" "$W/env/Python311/Lib/site-packages")"
	read -r nfiles nbytes <<<"$("$W/dist_floor" "$W/env/Python311/Lib/site-packages")"
	floor=$(awk -v a="${CPU[${BIN}alone]}" -v fa="$fa" -v fe="$fe" 'BEGIN { printf "%.2f", (a > 0 ? (a + fe - fa) / a : 0) }')
	echo "Floor: reading the $nfiles files check must read ($nbytes bytes; bench/dist_floor.c) costs $fe s of CPU" \
		"($fa s on torch alone): check at that floor would be ${floor}x."
	echo
fi
# CPU time decides on a shared machine (wall time includes waiting for a core)
ratio=$(awk -v a="${CPU[${BIN}env]}" -v b="${CPU[${BIN}alone]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
if awk -v r="$ratio" 'BEGIN { exit !(r <= 1.3) }'; then
	echo "PASS: check with the environment costs ${ratio}x the CPU of torch alone (limit 1.3x)."
else
	echo "FAIL: check with the environment costs ${ratio}x the CPU of torch alone (limit 1.3x)."
	exit 1
fi
