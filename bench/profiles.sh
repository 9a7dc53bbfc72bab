#!/usr/bin/env bash
# bench/profiles.sh: issue 30's cost target for machine profiles, side by side
# in one run on the real torch 2.9.1 wheel laid out as a Windows install
# (tests/lib/trees/wheels.sh) on a runner with the real redistributable 14.44
# and Visual Studio's libomp140: `check` of the install on the runner alone,
# then with the six built-in profiles besides the runner (target: at most 2x
# the runner alone), and `check --pins` of a pull request moving torch to 2.9.1
# with the runner alone (--profile none) and with the six.
#
# Two figures per pair, each the runner + 6 profiles over the runner alone:
#   CPU           the two commands run alternately BENCH_PAIRS times (default
#                 21), each run's CPU time (`perf stat` task-clock when perf
#                 works, else bash's `time`, user + system); the median of the
#                 per-pair ratios, so that a machine whose speed drifts during
#                 the run still compares like with like
#   instructions  one run of each under `valgrind --tool=callgrind`: the count
#                 of instructions executed, the same on every run whatever the
#                 load (when valgrind is installed)
# The verdict, PASS or FAIL against 2x, is the instructions' ratio when there
# is one (deterministic), else the CPU ratio. Exit status 1 when a pair FAILs,
# 2 when the tree cannot be built or a command fails with a usage or input
# error, 0 otherwise (also when pip cannot fetch the wheel: skipped, said).
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
whl=$(wheel_fetch torch 2.9.1) || { echo "bench/profiles.sh: no torch 2.9.1 wheel (pip): skipped"; exit 0; }
if ! { py=$(wheel_tree "$W/t" "$whl") && tree_redist "$W/t" 14.44.35112 && tree_libomp140 "$W/t" >/dev/null; }; then
	echo "bench/profiles.sh: could not build the tree"
	exit 2
fi
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v14.44.35211.00"\r\n' >"$W/r.reg"
git init -q -b main "$W/repo" && printf 'torch==2.4.1\n' >"$W/repo/requirements.txt" &&
	git -C "$W/repo" add -A && git -C "$W/repo" -c user.name=b -c user.email=b@b commit -qm a &&
	git -C "$W/repo" checkout -qb pr && printf 'torch==2.9.1\n' >"$W/repo/requirements.txt" &&
	git -C "$W/repo" -c user.name=b -c user.email=b@b commit -qam b || exit 2
six=(--profile win10-22h2-clean-vc14.29 --profile win10-22h2-clean-vc14.44 --profile win11-24h2-clean-vc14.29
	--profile win11-24h2-clean-vc14.44 --profile gha-windows-2022 --profile gha-windows-2025)
check=("$B" check --root "$W/t" --python "$py" --registry "$W/r.reg" --json)
pins=("$B" check --pins --repo "$W/repo" --base main --head pr --root "$W/t" --registry "$W/r.reg" --json)


status=0
# pair NAME N: A is "${a[@]}" (the runner alone), B "${b[@]}" (with the six profiles)
pair() {
	local name=$1 i ta tb ia ib st verdict
	: >"$W/a" && : >"$W/b" && : >"$W/r"
	for st in a b; do # a warm-up run each, whose exit status says the command works (1: findings)
		if [ "$st" = a ]; then "${a[@]}" >/dev/null 2>&1; else "${b[@]}" >/dev/null 2>&1; fi
		if [ $? -gt 1 ]; then
			echo "$name: the command ($st) failed (exit status over 1): not measured"
			status=2
			return
		fi
	done
	for ((i = 0; i < PAIRS; i++)); do
		ta=$(cpu "${a[@]}")
		tb=$(cpu "${b[@]}")
		echo "$ta" >>"$W/a"
		echo "$tb" >>"$W/b"
		awk -v a="$ta" -v b="$tb" 'BEGIN { if (a > 0) printf "%.6f\n", b / a }' >>"$W/r"
	done
	ia=$(instructions "${a[@]}")
	ib=$(instructions "${b[@]}")
	awk -v n="$name" -v ca="$(median <"$W/a")" -v cb="$(median <"$W/b")" -v cr="$(median <"$W/r")" \
		-v ia="$ia" -v ib="$ib" -v p="$PAIRS" 'BEGIN {
		printf "%-13s %-31s %12.4f s %12.4f s %8.2fx\n", n, "CPU (median of " p " pairs)", ca, cb, cr
		if (ia > 0)
			printf "%-13s %-31s %12.1f M %12.1f M %8.2fx\n", n, "instructions (callgrind)", ia / 1e6, ib / 1e6, ib / ia
	}'
	verdict=$(awk -v cr="$(median <"$W/r")" -v ia="$ia" -v ib="$ib" 'BEGIN {
		r = ia > 0 ? ib / ia : cr
		printf "%.2fx the runner alone (%s): %s", r, (ia > 0 ? "instructions" : "CPU"), (r <= 2 ? "PASS" : "FAIL") }')
	verdicts+=("$name: runner + 6 profiles = $verdict (target <= 2x)")
	[[ $verdict == *FAIL ]] && [ "$status" = 0 ] && status=1
}

bench_load
printf '%-13s %-31s %14s %14s %9s\n' "" "" "runner alone" "+ 6 profiles" "ratio"
verdicts=()
a=("${check[@]}")
b=("${check[@]}" "${six[@]}")
pair "check" "$PAIRS"
a=("${pins[@]}" --profile none)
b=("${pins[@]}" "${six[@]}")
pair "check --pins" "$PAIRS"
printf '%s\n' "${verdicts[@]}"
exit "$status"
