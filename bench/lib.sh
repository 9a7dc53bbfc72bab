# shellcheck shell=bash
# bench/lib.sh: the measuring helpers shared by the bench scripts (source it).
#
# measure CMD...  prints "WALL CPU RSS STATUS":
#   WALL  best wall time in seconds of BENCH_RUNS runs (default 5; 3 when one
#         run takes over a second) after one warm-up run, taken with bash's
#         EPOCHREALTIME around /usr/bin/time: the same small overhead (~1 ms)
#         for every tool
#   CPU   CPU seconds (user + system, children included): the mean of
#         `perf stat -e task-clock` over the same number of runs when perf
#         works here, else /usr/bin/time's %U+%S of the best run (10 ms steps)
#   RSS   peak RSS in KiB of the best run (/usr/bin/time %M: the largest single
#         process when the command runs several)
#   STATUS the warm-up run's exit status: a tool that fails looks fast, so
#         callers must show it
# On a shared or loaded machine wall time is inflated by waiting for a core;
# CPU time is not. Both are printed; bench_load says how loaded we were.

BENCH_T=$(mktemp)
trap 'rm -f "$BENCH_T" "$BENCH_T.perf"' EXIT
BENCH_PERF=0
if command -v perf >/dev/null && perf stat -x, -e task-clock -o "$BENCH_T.perf" true 2>/dev/null; then
	BENCH_PERF=1
fi

measure() {
	local i t0 t1 best='' rss='' cpu='' w runs=${BENCH_RUNS:-5} st
	t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1 # warm-up
	st=$?
	t1=$EPOCHREALTIME
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a > 1) }' && [ "$runs" -gt 3 ] && runs=3
	for ((i = 0; i < runs; i++)); do
		t0=$EPOCHREALTIME
		/usr/bin/time -f '%M %U %S' -o "$BENCH_T" "$@" >/dev/null 2>&1
		t1=$EPOCHREALTIME
		w=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
		if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$w
			read -r rss cpu <<<"$(tail -1 "$BENCH_T" | awk '{ printf "%d %.4f", $1, $2 + $3 }')"
		fi
	done
	if [ "$BENCH_PERF" = 1 ] && perf stat -x, -r "$runs" -e task-clock -o "$BENCH_T.perf" "$@" >/dev/null 2>&1; then
		cpu=$(awk -F, '$3 == "task-clock" { printf "%.4f", $1 / 1000 }' "$BENCH_T.perf")
	fi
	echo "$best $cpu $rss $st"
}

# bench_load: "load average 1.23 on 2 cores" (+ a warning when loaded).
bench_load() {
	local l n
	l=$(cut -d' ' -f1 /proc/loadavg)
	n=$(nproc)
	printf 'load average %s on %s cores' "$l" "$n"
	awk -v l="$l" -v n="$n" 'BEGIN { exit !(l > n / 2) }' &&
		printf ' (busy machine: wall times are inflated; compare CPU times)'
	echo
}

# kib_mib KiB -> "12.3"
kib_mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# Single runs, for benches that pair two commands run after run (bench/torch.sh,
# bench/profiles.sh) and take the median of each:
# cpu CMD...: the CPU seconds of one run of CMD (its output thrown away)
cpu() {
	if [ "$BENCH_PERF" = 1 ]; then
		perf stat -x, -e task-clock -o "$BENCH_T.perf" "$@" >/dev/null 2>&1
		awk -F, '$3 == "task-clock" { printf "%.6f", $1 / 1000 }' "$BENCH_T.perf"
	else
		local TIMEFORMAT='%3U %3S'
		{ time "$@" >/dev/null 2>&1; } 2>"$BENCH_T"
		awk '{ printf "%.6f", $1 + $2 }' "$BENCH_T"
	fi
}
# rss CMD...: peak RSS in KiB of one run
rss() {
	/usr/bin/time -f %M -o "$BENCH_T" "$@" >/dev/null 2>&1
	tail -1 "$BENCH_T"
}
# instructions CMD...: the instructions one run executes (callgrind; child
# processes count too: `check --pins` runs torch-dll-check-git), or "" without valgrind
instructions() {
	command -v valgrind >/dev/null || return 0
	valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		awk '/Collected :/ { n += $NF } END { if (n) print n }'
}
# median: the median of the numbers on stdin, one per line
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.6f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
