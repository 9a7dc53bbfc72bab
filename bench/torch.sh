#!/usr/bin/env bash
# bench/torch.sh: issue 34's (item 7) cost target for `check` of a real
# install, side by side in one run: the real torch 2.9.1 wheel laid out as a
# Windows install (tests/lib/trees/wheels.sh) on a System32 of Wine's
# builtins with the real redistributable 14.44, `check --json` of it against
# `pe --json` over the same binaries (torch\lib's DLLs and the .pyd: pe must
# read every export, check needs only the imported names). Targets: check at
# most half of pe --json, peak RSS at most 16 MiB.
#
# Two ratios, check over pe --json:
#   CPU           the two commands run alternately BENCH_PAIRS times (default
#                 21), each run's CPU time (`perf stat` task-clock when perf
#                 works, else bash's `time`, user + system); the median of the
#                 per-pair ratios
#   instructions  one run of each under `valgrind --tool=callgrind` (when
#                 valgrind is installed): the same on every run whatever the
#                 load. pe --json executes many cheap instructions (a loop
#                 over 57,000 export names) and check fewer, dearer ones (page
#                 faults, system calls): the instructions alone flatter check
# The verdict is PASS when every ratio measured is at most 0.5 and the peak
# RSS (/usr/bin/time %M, the largest of BENCH_PAIRS runs) at most 16 MiB.
# Exit status 1 on FAIL, 2 when the tree cannot be built or a command fails,
# 0 otherwise (also when pip cannot fetch the wheel: skipped, said).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=bench/lib.sh
source bench/lib.sh
source tests/lib/fixtures.sh
source tests/lib/wheels.sh
source tests/lib/trees/wheels.sh
B=${B:-./torch-dll-check}
export TDC_BIN=${TDC_BIN:-$B}
PAIRS=${BENCH_PAIRS:-21}
W=$(mktemp -d)
trap 'rm -rf "$W" "$BENCH_T" "$BENCH_T.perf"' EXIT
whl=$(wheel_fetch torch 2.9.1) || { echo "bench/torch.sh: no torch 2.9.1 wheel (pip): skipped"; exit 0; }
if ! { wheel_tree "$W/t" "$whl" >/dev/null && tree_redist "$W/t" 14.44.35112; }; then
	echo "bench/torch.sh: could not build the tree"
	exit 2
fi
torch=$W/t/Python311/Lib/site-packages/torch
mapfile -t bins < <(find "$torch" -type f \( -iname '*.dll' -o -iname '*.pyd' \) | LC_ALL=C sort)
check=("$B" check --torch "$torch" --root "$W/t" --json)
pe=("$B" pe --json "${bins[@]}")


for c in check pe; do # a warm-up run each, whose exit status says the command works (check: 1 is findings)
	if [ "$c" = check ]; then "${check[@]}" >/dev/null 2>&1; else "${pe[@]}" >/dev/null 2>&1; fi
	st=$?
	if [ "$st" -gt 1 ] || { [ "$c" = pe ] && [ "$st" != 0 ]; }; then
		echo "bench/torch.sh: $c failed (exit status $st): not measured"
		exit 2
	fi
done
: >"$W/c" && : >"$W/p" && : >"$W/r" && : >"$W/m"
for ((i = 0; i < PAIRS; i++)); do
	tc=$(cpu "${check[@]}")
	tp=$(cpu "${pe[@]}")
	echo "$tc" >>"$W/c"
	echo "$tp" >>"$W/p"
	awk -v a="$tc" -v b="$tp" 'BEGIN { if (b > 0) printf "%.6f\n", a / b }' >>"$W/r"
	rss "${check[@]}" >>"$W/m"
done
ic=$(instructions "${check[@]}")
ip=$(instructions "${pe[@]}")
peak=$(sort -n "$W/m" | tail -1)

echo "# check of torch 2.9.1 against pe --json over its ${#bins[@]} binaries — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
bench_load
printf '%-34s %14s %14s %9s\n' "" "check" "pe --json" "ratio"
awk -v cc="$(median <"$W/c")" -v cp="$(median <"$W/p")" -v cr="$(median <"$W/r")" -v ic="$ic" -v ip="$ip" -v p="$PAIRS" 'BEGIN {
	printf "%-34s %12.4f s %12.4f s %8.2fx\n", "CPU (median of " p " pairs)", cc, cp, cr
	if (ip > 0)
		printf "%-34s %12.1f M %12.1f M %8.2fx\n", "instructions (callgrind)", ic / 1e6, ip / 1e6, ic / ip
}'
echo "check's peak RSS: $peak KiB (the largest of $PAIRS runs)"
verdict=$(awk -v cr="$(median <"$W/r")" -v ic="$ic" -v ip="$ip" -v m="$peak" 'BEGIN {
	ok = cr <= 0.5 && m <= 16384
	s = sprintf("CPU %.2fx", cr)
	if (ip > 0) { ok = ok && ic / ip <= 0.5; s = s sprintf(", instructions %.2fx", ic / ip) }
	printf "%s pe --json (target <= 0.5x), peak RSS %.1f MiB (target <= 16 MiB): %s", s, m / 1024, ok ? "PASS" : "FAIL" }')
echo "check = $verdict"
[[ $verdict == *PASS ]]
