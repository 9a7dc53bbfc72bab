#!/usr/bin/env bash
# test_confirm_commit.sh: `check --confirm` measures the commit charge live
# (docs/commit.md, "Measured live"), under Wine, on a REAL torch install:
# the win_amd64 wheel of torch 2.9.1 from PyPI (tests/lib/wheels.sh, cached)
# laid out by tests/lib/trees/wheels.sh, checked by the cross-built
# torch-dll-check.exe (tests/lib/cross-build.sh, cached as test_confirm.sh
# caches it). Its helper loads torch\lib's real DLLs (torch_cpu.dll: 263 MB
# mapped) and reports its private commit before and after the loads; the
# report carries it in installs[].commit.measured beside the predicted
# per_process.
#
# The tree has no .pyd files: the python311.dll here is a stand-in that
# exports names only (tests/lib/trees/wheels.sh), so torch_python.dll's
# initialisation fails (998) and _C's crashes the helper before it reports
# (seen: "not measured: the helper did not finish"); tests/confirm/
# test_confirm.sh covers the .pyd loads on its stand-in trees.
#
# What Wine gives, and the tolerance: Wine's GetProcessMemoryInfo fills
# PagefileUsage (not PrivateUsage) with the process's resident anonymous
# memory plus its swap (RssAnon + VmSwap of /proc/<pid>/status; Wine's
# server/process.c and kernelbase), not a commit charge. And Wine's loader
# copies every section whose file offset is not page-aligned (MSVC's 0x200
# file alignment: all of torch's) into anonymous memory. So under Wine the
# growth is at least the page-rounded size of those sections of every torch
# DLL that loaded (read-only code too), which is far more than Windows
# charges (the writable sections, docs/commit.md), and at most that plus
# what the loads allocate (torch_cpu's static initialisers, Wine's own
# DLLs): 57 MiB measured here with Wine 8.0; the bound allows 128 MiB.
set -u
export TEST_NAME=confirm/commit
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck source=tests/lib/wheels.sh
source tests/lib/wheels.sh
# shellcheck source=tests/lib/trees/wheels.sh
source tests/lib/trees/wheels.sh
# shellcheck source=tests/oracle/wine.sh
source tests/oracle/wine.sh
WORK=$tmp
V=2.9.1

for tool in wine wineserver x86_64-w64-mingw32-gcc; do
	command -v "$tool" >/dev/null || { skip "the live commit charge under Wine" "$tool is not installed (see .ci/deps)"; tap_done; }
done

# The .exe: cached as for tests/confirm/test_confirm.sh (one cross-build for both)
# shellcheck source=tests/lib/cross_exe.sh
source tests/lib/cross_exe.sh
if ! exe=$(cross_exe "$WORK/xbuild.log"); then
	not_ok "cross-build of torch-dll-check.exe failed"
	sed 's/^/#   /' "$WORK/xbuild.log" | tail -20
	tap_done
fi

if ! whl=$(wheel_fetch torch "$V" 2>"$WORK/fetch.err"); then
	skip "the live commit charge of torch $V under Wine" "PyPI/pip did not give torch $V's win_amd64 wheel: $(tail -1 "$WORK/fetch.err")"
	tap_done
fi
T=$WORK/m
if ! wheel_tree "$T" "$whl" >/dev/null 2>"$WORK/tree.err"; then
	not_ok "torch $V: no tree from $(basename "$whl")"
	sed 's/^/#   /' "$WORK/tree.err" | head -5
	tap_done
fi
py=$(_pydir "$T")
rm -f "$py"/Lib/site-packages/torch/*.pyd
cp "$exe" "$T/torch-dll-check.exe"
PFX=$(wine_prefix_ensure) || { not_ok "no Wine prefix"; tap_done; }
wine_lock "$PFX" # the prefix is shared with other test runs
# shellcheck disable=SC2016 # expanded when it runs
at_exit 'wine_stop "$PFX"'
wine_start "$PFX"

torch_w=$(_winpath "$py/Lib/site-packages/torch")
# wcheck NAME ARGS...: the Windows build's check --confirm of the tree, stdout in $WORK/NAME.out
wcheck() {
	local name=$1
	shift
	WINEDEBUG=-all wine_run "$PFX" "$WORK/$name.out" "$WORK/$name.err" "$(_winpath "$T/torch-dll-check.exe")" check \
		--torch "$torch_w" --python "$(_winpath "$py/python.exe")" --confirm "$@"
}
wcheck json --json
m() { jq -r "$1" "$WORK/json.out" 2>&1; }

check_eq "torch $V under Wine: the helper ran and reported its private commit (no note)" "helper object null" \
	"$(m '.installs[0] | "\(.confirmation.method) \(.commit.measured | type) \(.commit.measured.note)"')"
check_eq "the measured figures: charged = after - before, beside the predicted per_process" "true true" \
	"$(m '.installs[0].commit | "\(.measured.charged == .measured.private_after - .measured.private_before) \(.measured.predicted == .per_process)"')"
before=$(m '.installs[0].commit.measured.private_before')
charged=$(m '.installs[0].commit.measured.charged')
pred=$(m '.installs[0].commit.per_process')
echo "# torch $V under Wine: predicted $pred bytes per process, measured $charged (private commit $before before the loads)"
check_eq "before torch's loads the helper is small (under 64 MiB: the checker's static .exe)" "yes" \
	"$([ "$before" -gt 0 ] && [ "$before" -lt $((64 << 20)) ] && echo yes || echo "no: $before")"

# Wine's figure against the images: the page-rounded size of every section
# Wine copies (not page-aligned in the file) of each torch\lib DLL that loaded
# (the helper's real error 0), read from the files by `pe --json`
loaded=()
while IFS= read -r n; do loaded+=("$py/Lib/site-packages/torch/lib/$n"); done < <(m '.installs[0].binaries[]
	| select(.confirmed.error == 0) | .path | split("\\") | last')
read_bytes=$("$B" pe --json --no-exports "${loaded[@]}" | jq '[.files[].sections[] | select(.raw_off % 4096 != 0)
	| ((.vsize + 4095) / 4096 | floor) * 4096] | add')
echo "# the ${#loaded[@]} torch DLLs that loaded: $read_bytes bytes of sections Wine copies into private memory"
check_eq "torch_cpu.dll loaded for real (the helper's error 0), with the others" "yes" \
	"$(printf '%s\n' "${loaded[@]}" | grep -q '/torch_cpu.dll$' && [ "${#loaded[@]}" -ge 6 ] && echo yes || echo "no: ${loaded[*]}")"
check_eq "Wine: the growth is at least the sections Wine copies ($read_bytes bytes), more than the prediction" "yes" \
	"$([ "$charged" -ge "$read_bytes" ] && [ "$charged" -gt "$pred" ] && echo yes || echo "no: $charged")"
check_eq "Wine: and at most 128 MiB more (the loads' heap and Wine's own DLLs)" "yes" \
	"$([ "$charged" -le $((read_bytes + (128 << 20))) ] && echo yes || echo "no: $charged")"

# The text report says both figures after the confirmation (its CRLF lines wrapped: joined here)
wcheck text
check_eq "the text report: predicted and measured side by side" "1" \
	"$(tr -s '\r\n ' '   ' <"$WORK/text.out" | grep -c "commit charge: predicted [0-9.]* MiB per process (the images' writable sections), measured [0-9.]* MiB (the helper's private commit grew from [0-9.]* MiB to [0-9.]* MiB)")"
tap_done
