#!/usr/bin/env bash
# test_sanitizer_inputs: inputs the sanitizers once caught, run through the
# ASan+UBSan build (which aborts on any report):
# - an empty registry file: the read gave no buffer at all, and the registry
#   reader copied zero bytes from a NULL pointer (UBSan: memcpy from NULL);
# - an empty matrix layer and an empty report, the same shape of input for
#   the other whole-file readers.
# (The 100 MB $GITHUB_EVENT_PATH that leaked 64 MiB is in tests/report/test_report_files.sh.)
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=sanitizer-inputs
BIN=$TDC_ASAN_BIN
if ! need build/asan/torch-dll-check; then
	skip "empty inputs under ASan+UBSan" "build/asan/torch-dll-check could not be built (make unit-build)"
	tap_done
fi
: >"$tmp/empty.reg"
"$BIN" inventory --registry "$tmp/empty.reg" >"$tmp/out" 2>&1
rc=$?
if grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' "$tmp/out"; then
	not_ok "inventory --registry empty.reg: sanitizer report"
	sed 's/^/#   /' "$tmp/out" | head -5
else
	ok "inventory --registry empty.reg: no sanitizer report"
fi
if [ "$rc" -le 2 ]; then ok "...and a verdict or a clean error (exit $rc)"; else not_ok "inventory --registry empty.reg: exit $rc"; fi
: >"$tmp/empty.yml"
"$BIN" matrix lint "$tmp/empty.yml" >"$tmp/out2" 2>&1
rc=$?
if ! grep -q 'runtime error\|Sanitizer' "$tmp/out2" && [ "$rc" -le 2 ]; then ok "matrix lint empty.yml: exit $rc, no sanitizer report"; else not_ok "matrix lint empty.yml (exit $rc)"; fi
: >"$tmp/empty.json"
"$BIN" report --in "$tmp/empty.json" >"$tmp/out3" 2>&1
check_eq "report --in empty.json: exit 2" 2 $?
tap_done
