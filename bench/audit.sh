#!/usr/bin/env bash
# shellcheck disable=SC2317,SC1003,SC2016  # demo.sh ends in exit when run, not when sourced; C:\ paths and Markdown in single quotes
# bench/audit.sh: the nightly audit's history at fleet scale.
#   - 1,000 nightly snapshots of one runner, then `history` over all of them
#   - 100 runners x 30 nights, then `fleet --history` (every runner's latest)
#     and `history` without a runner (every runner's latest line)
# Snapshots are real `check --json` reports of the demo runner tree
# (tests/lib/demo.sh), varied night by night the way a fleet varies: a
# runtime DLL's version, the redistributable, torch's version, the status.
# Prints Markdown: the time and peak RSS of each command (bench/lib.sh), the
# time per `audit` write, and the repository's size loose and after
# `git gc` (what git's delta compression makes of near-identical reports).
# Exit 1 if `history` or `fleet` takes a second or more.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
BIN=${TDC_BIN:-$REPO/torch-dll-check}
GBIN=${TDC_GIT_BIN:-$REPO/torch-dll-check-git}
export TDC_REPO=$REPO
source tests/lib/demo.sh
source bench/lib.sh
[ -x "$GBIN" ] || { echo "bench: build first (make)" >&2; exit 2; }
NIGHTS=${BENCH_NIGHTS:-1000}
RUNNERS=${BENCH_RUNNERS:-100}
RNIGHTS=${BENCH_RUNNER_NIGHTS:-30}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; rm -f "$BENCH_T" "$BENCH_T.perf"' EXIT
d=$(demo_tree) || exit 2
"$BIN" check --root "$d/root" --scan 'C:\' --registry "$d/runner.reg" --json "$tmp/base.json" --fail-on never >/dev/null 2>&1
# variant N: night N's report (one in seven nights something drifts)
/usr/bin/python3 - "$tmp/base.json" "$tmp" "$NIGHTS" <<'PY'
import copy, json, sys
base = json.load(open(sys.argv[1]))
out, n = sys.argv[2], int(sys.argv[3])
for i in range(n):
    r = copy.deepcopy(base)
    step = i // 7
    for d in r["inventory"]["runtime_dlls"]:
        if d["name"] == "msvcp140.dll":
            d["file_version"] = "14.%d.%d.0" % (38 + step % 8, 33000 + step)
    for red in r["inventory"]["redistributables"]:
        if red.get("version"):
            red["version"] = "14.%d.%d.0" % (40 + step % 5, 33810 + step)
    if step % 3 == 1:
        r["status"] = "pass"
    json.dump(r, open("%s/v%d.json" % (out, i), "w"), indent="\t")
PY

git init -q --bare "$tmp/one.git"
t0=$EPOCHREALTIME
for i in $(seq 0 $((NIGHTS - 1))); do
	"$GBIN" audit --history "$tmp/one.git" --runner gpu-1 --report "$tmp/v$i.json" --date $((1700000000 + i * 86400)) \
		--fail-on never >/dev/null 2>&1 || { echo "bench: audit failed at night $i" >&2; exit 2; }
done
t1=$EPOCHREALTIME
per_write=$(awk -v a="$t0" -v b="$t1" -v n="$NIGHTS" 'BEGIN { print (b - a) * 1000 / n }')
loose=$(du -sk "$tmp/one.git" | cut -f1)
git -C "$tmp/one.git" gc -q --aggressive 2>/dev/null
packed=$(du -sk "$tmp/one.git" | cut -f1)
report_kb=$(( $(stat -c %s "$tmp/base.json") / 1024 ))

git init -q --bare "$tmp/fleet.git"
for r in $(seq 1 "$RUNNERS"); do
	for i in $(seq 0 $((RNIGHTS - 1))); do
		"$GBIN" audit --history "$tmp/fleet.git" --runner "runner-$r" --report "$tmp/v$(( (r * 7 + i) % NIGHTS )).json" \
			--date $((1700000000 + i * 86400)) --fail-on never >/dev/null 2>&1 ||
			{ echo "bench: audit failed (runner $r night $i)" >&2; exit 2; }
	done
done
fleet_loose=$(du -sk "$tmp/fleet.git" | cut -f1)
git -C "$tmp/fleet.git" gc -q 2>/dev/null
fleet_packed=$(du -sk "$tmp/fleet.git" | cut -f1)

echo "## Audit history ($(bench_load))"
echo
echo "| what | wall s | CPU s | peak RSS KiB |"
echo "|---|---:|---:|---:|"
fail=0
row() {
	local name=$1 wall cpu rss st
	shift
	read -r wall cpu rss st < <(measure "$@")
	echo "| $name | $wall | $cpu | $rss |"
	[ "$st" -eq 0 ] || { echo "bench: $name exited $st" >&2; fail=1; }
	awk -v w="$wall" 'BEGIN { exit !(w < 1.0) }' || { echo "bench: $name took ${wall}s (target < 1 s)" >&2; fail=1; }
}
row "history --runner gpu-1 ($NIGHTS snapshots)" "$GBIN" history --history "$tmp/one.git" --runner gpu-1
row "history --runner gpu-1 --json ($NIGHTS)" "$GBIN" history --history "$tmp/one.git" --runner gpu-1 --json
row "history, every runner's latest ($RUNNERS x $RNIGHTS)" "$GBIN" history --history "$tmp/fleet.git"
row "fleet --history ($RUNNERS runners x $RNIGHTS nights)" "$GBIN" fleet --history "$tmp/fleet.git"
row "fleet --history --format markdown" "$GBIN" fleet --history "$tmp/fleet.git" --format markdown
echo
printf 'One `audit` write (read report, compare with the previous snapshot, write 4 objects, compare-and-swap): %.1f ms.\n' "$per_write"
echo
echo "| repository | report size | loose | after git gc | per snapshot (gc) |"
echo "|---|---:|---:|---:|---:|"
echo "| 1 runner x $NIGHTS nights | ${report_kb} KiB | ${loose} KiB | ${packed} KiB | $(awk -v a="$packed" -v n="$NIGHTS" 'BEGIN { printf "%.2f", a / n }') KiB |"
echo "| $RUNNERS runners x $RNIGHTS nights | ${report_kb} KiB | ${fleet_loose} KiB | ${fleet_packed} KiB | $(awk -v a="$fleet_packed" -v n="$((RUNNERS * RNIGHTS))" 'BEGIN { printf "%.2f", a / n }') KiB |"
exit "$fail"
