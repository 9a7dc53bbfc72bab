#!/usr/bin/env bash
# bench/profiles.sh: issue 30's cost target for machine profiles, side by side
# in one run on the real torch 2.9.1 wheel laid out as a Windows install
# (tests/lib/trees/wheels.sh) on a runner with the real redistributable 14.44
# and Visual Studio's libomp140: `check` of the install on the runner alone,
# then with the six built-in profiles besides the runner (target: at most 2x
# the runner alone), and `check --pins` of a pull request moving torch to 2.9.1
# with the runner alone (--profile none) and with the six. Prints the times and
# the ratios; says when a ratio is over the target (not a failure: a report).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=bench/lib.sh
source bench/lib.sh
source tests/lib/fixtures.sh
source tests/lib/wheels.sh
source tests/lib/trees/wheels.sh
B=${B:-./torch-dll-check}
export TDC_BIN=${TDC_BIN:-$B}
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
bench_load
row() { # LABEL ARGS...: "label  wall  cpu  rss"
	local l=$1 r
	shift
	r=$(measure "$@")
	printf '%-34s %8ss %8ss %6s MiB\n' "$l" "$(cut -d' ' -f1 <<<"$r")" "$(cut -d' ' -f2 <<<"$r")" "$(kib_mib "$(cut -d' ' -f3 <<<"$r")")" >&2
	cut -d' ' -f2 <<<"$r"
}
printf '%-34s %9s %9s %10s\n' "" "wall" "cpu" "peak RSS" >&2
c0=$(row "check (runner alone)" "$B" check --root "$W/t" --python "$py" --registry "$W/r.reg" --json)
c6=$(row "check + 6 profiles" "$B" check --root "$W/t" --python "$py" --registry "$W/r.reg" --json "${six[@]}")
g0=$(row "check --pins (runner alone)" "$B" check --pins --repo "$W/repo" --base main --head pr --root "$W/t" --registry "$W/r.reg" --json --profile none)
g6=$(row "check --pins + 6 profiles" "$B" check --pins --repo "$W/repo" --base main --head pr --root "$W/t" --registry "$W/r.reg" --json "${six[@]}")
for pair in "check:$c0:$c6" "check --pins:$g0:$g6"; do
	IFS=: read -r name a b <<<"$pair"
	awk -v n="$name" -v a="$a" -v b="$b" 'BEGIN { r = (a > 0 ? b / a : 0); printf "%s: runner + 6 profiles = %.2fx the runner alone (CPU)%s\n", n, r, (r > 2 ? " -- OVER the 2x target" : " (target <= 2x)") }'
done
