#!/usr/bin/env bash
# bench/registry.sh: issue 15's targets for registry files, printed as Markdown.
#
#  1. A `reg export HKLM`-sized file (bench/gen_reg_export.py, UTF-16LE as
#     reg.exe writes it, the VC++ runtime keys at the very end) of 50 MB and
#     of 500 MB, read by `inventory --registry FILE`: time proportional to the
#     size (the 500 MB read at most 12 times the 50 MB one, in CPU time) and
#     memory independent of it (peak RSS at most 1 MiB apart).
#  2. (in bench/check.sh, next to the tree it builds) `check` inside a full
#     Wine prefix: the torch-sized tree as the prefix's drive_c next to the
#     system.reg `wineboot` writes (about 1.6 MB; tests/oracle/wine.sh builds
#     the prefix once): peak RSS within 4 MiB of `--version`'s and less CPU
#     than llvm-readobj listing the same torch files' imports and exports.
# The exports are cached in $TDC_CACHE/fixtures (tests/lib/fixtures.sh).
# Exit 1 if a target fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
BIN=${TDC_BIN:-$PWD/torch-dll-check}
export BENCH_RUNS=${BENCH_RUNS:-3}
source tests/lib/fixtures.sh
source bench/lib.sh
[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 2; }

# shellcheck disable=SC2317  # run through fx_build
gen_exports() {
	/usr/bin/python3 bench/gen_reg_export.py "$1/export-50.reg" 50 &&
		/usr/bin/python3 bench/gen_reg_export.py "$1/export-500.reg" 500
}
FX_KEY=$(sha256sum bench/gen_reg_export.py) dir=$(fx_build reg-exports gen_exports) || exit 2

echo "# Registry files — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "Best of $BENCH_RUNS warm runs (bench/lib.sh), $(bench_load)."
echo
echo "| input | wall (best) | CPU | peak RSS |"
echo "|---|---|---|---|"
declare -A W C R
for n in 50 500; do
	f=$dir/export-$n.reg
	read -r W[$n] C[$n] R[$n] st <<<"$(measure "$BIN" inventory --registry "$f")"
	[ "$st" = 0 ] || echo "| (inventory --registry export-$n.reg FAILED: exit $st) | | | |"
	echo "| inventory --registry reg export of $(($(stat -c %s "$f") / 1000000)) MB | ${W[$n]} s | ${C[$n]} s | ${R[$n]} KiB |"
done
echo
fail=0
judge() { if [ "$1" = 1 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fail=1; fi; }
ratio=$(awk -v a="${C[500]}" -v b="${C[50]}" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }')
judge "$(awk -v r="$ratio" 'BEGIN { print (r > 0 && r <= 12) ? 1 : 0 }')" \
	"the 500 MB export took $ratio times the CPU of the 50 MB one (target: proportional, <= 12)."
d=$((R[500] - R[50]))
judge "$([ "${d#-}" -le 1024 ] && echo 1 || echo 0)" \
	"peak RSS differs by $d KiB between the 50 MB and the 500 MB export (target: independent of size, <= 1024 KiB)."
exit $fail
