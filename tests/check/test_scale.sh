#!/usr/bin/env bash
# test_scale: inputs that made a stage quadratic finish in bounded CPU time.
# - `check` over a torch\lib of 20,000 zero-byte DLLs (each an "unreadable"
#   finding): report_view_init looked every finding's binary up by walking
#   every binary, report_text compared every finding with every later one to
#   group them, and the loader walked every image ever opened after each load
#   (loader_trim). It took minutes; the limit here is 30 s of CPU.
# - `report --in` of the same report, text and SARIF.
# - `check` over a torch\lib of 20,000 DLLs that all load (hard links to one
#   small real DLL): the loaded-module list grows to 20,000 and each load
#   looked its path and imports up by walking it (26 s of CPU); it is
#   indexed now. Limit 10 s.
# The release binary is timed (ASan's constant factor is not the question);
# `ulimit -t` bounds CPU time, so a busy machine does not make it flaky.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=scale
BIN=$TDC_BIN # timed: the release build (the sanitizers would drown the cost)
N=20000
torch=$tmp/root/Python311/Lib/site-packages/torch
mkdir -p "$torch/lib"
echo "__version__ = '2.5.1+cpu'" >"$torch/version.py"
(cd "$torch/lib" && seq -f 'z%g.dll' 1 "$N" | xargs touch)

(ulimit -t 30; exec "$BIN" check --torch "$torch" --root "$tmp/root" --json "$tmp/r.json") >/dev/null 2>"$tmp/err"
check_eq "check over $N zero-byte DLLs finishes (exit 1: they are unreadable)" 1 $?
check_eq "...one unreadable finding per DLL" "$N" \
	"$(python3 -c "import json,sys; print(sum(f['rule']=='unreadable' for f in json.load(open('$tmp/r.json'))['findings']))")"
(ulimit -t 30; exec "$BIN" report --in "$tmp/r.json") >"$tmp/text" 2>&1
check_eq "report --in renders its text in bounded time" 1 $?
check_cmd "...grouping the same problem once per install and leaf" grep -q 'fails the same way\|fail the same way\|^  [0-9]*\. ' "$tmp/text"
(ulimit -t 30; exec "$BIN" report --in "$tmp/r.json" --sarif "$tmp/r.sarif" --summary "$tmp/s.md" --outputs "$tmp/o" --format json) >/dev/null 2>&1
check_eq "...and its SARIF, summary and outputs" 1 $?

# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck disable=SC2317  # called through fx_build
many_tree() { # DIR N: torch\lib holding N hard links to one small DLL
	local t=$1/Python311/Lib/site-packages/torch i
	mkdir -p "$t/lib"
	echo "__version__ = '2.5.1+cpu'" >"$t/version.py"
	make_dll "$1/one.dll" --export f --import KERNEL32.dll:GetLastError || return 1
	for ((i = 1; i <= $2; i++)); do ln "$1/one.dll" "$t/lib/m$i.dll" || return 1; done
}
if mt=$(fx_build many-tree many_tree "$N"); then
	(ulimit -t 10; exec "$BIN" check --torch "$mt/Python311/Lib/site-packages/torch" --root "$mt" --json "$tmp/m.json") \
		>/dev/null 2>"$tmp/err"
	check_eq "check over $N DLLs that all load finishes in bounded CPU (a loaded-module list of $N)" 0 $?
	check_eq "...every one loads" "[$N,0]" "$(jq -c '[.counts.binaries, .counts.binaries_failing]' "$tmp/m.json" 2>&1)"
else
	skip "check over $N DLLs that all load" "the DLL could not be built (mingw-w64)"
fi
tap_done
