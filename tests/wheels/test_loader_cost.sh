#!/usr/bin/env bash
# test_loader_cost: `check` of the real torch 2.9.1 wheel (win_amd64, from
# PyPI through the cache) binds its imports without re-reading the export
# tables' pages. The loader released each whole mapping every 8 export
# lookups and every touched one after each torch binary: 1,766 madvise calls
# and ~9,000 page faults on 857 distinct pages, 2.6x the CPU. It now drops
# them only when its budget of touches is spent and the process's file-backed
# memory is over 8 MiB (loader_state.h LDR_TRIM_PAGES): ~740 faults. The bounds:
# under 3,000 minor faults, peak RSS at most 16 MiB.
set -u
TEST_NAME=wheels/loader-cost
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
REL=$TDC_BIN
if ! whl=$(wheel_fetch torch 2.9.1 2>"$tmp/err"); then
	skip "check of torch 2.9.1 re-faults no pages" "PyPI/pip did not give the wheel: $(tail -1 "$tmp/err")"
	tap_done
fi
wheel_tree "$tmp/t" "$whl" >/dev/null 2>"$tmp/err" || { not_ok "the torch 2.9.1 tree: $(tail -1 "$tmp/err")"; tap_done; }
tree_redist "$tmp/t" 14.44.35112 2>/dev/null
torch=$tmp/t/Python311/Lib/site-packages/torch
/usr/bin/time -f '%R %M' -o "$tmp/cost" "$REL" check --torch "$torch" --root "$tmp/t" --json "$tmp/r.json" >/dev/null 2>&1
check_eq "check of torch 2.9.1 passes" 0 "$(jq -r '.counts.binaries_failing' "$tmp/r.json" 2>&1)"
read -r faults rss <"$tmp/cost"
check_cmd "...with under 3,000 minor page faults (was ~9,000; $faults)" test "$faults" -lt 3000
check_cmd "...and peak RSS at most 16 MiB ($rss KiB)" test "$rss" -le 16384
tap_done
