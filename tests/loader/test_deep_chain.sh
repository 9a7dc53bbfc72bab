#!/usr/bin/env bash
# test_deep_chain: an import chain deeper than the loader follows is an input
# error with the limit named, never a crash. A 40,000-deep chain in torch\lib
# (c1.dll imports c2.dll ... imports c40000.dll; tests/lib/chain_dlls.py)
# overflowed the stack (SIGSEGV, no report): the walk and every reader of the
# tree recurse once per level. The loader follows 1,000 imports deep
# (loader_state.h LDR_MAX_DEPTH); a chain exactly that deep still loads, under the
# sanitizer build too (its frames are the largest).
# The 40,000 chain runs the release binary in bounded CPU (`ulimit -t`).
set -u
TEST_NAME=loader/deep-chain
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
REL=$TDC_BIN

chain() { # DIR N
	python3 "$TDC_REPO/tests/lib/chain_dlls.py" "$1/Python311/Lib/site-packages/torch/lib" "$2" &&
		echo "__version__ = '2.5.1+cpu'" >"$1/Python311/Lib/site-packages/torch/version.py"
}

chain "$tmp/deep" 40000
(ulimit -t 20; exec "$REL" check --torch "$tmp/deep/Python311/Lib/site-packages/torch" --root "$tmp/deep" \
	--json "$tmp/deep.json") >"$tmp/out" 2>"$tmp/err"
check_eq "check over a 40,000-deep import chain ends with an input error (no crash)" 2 $?
check_cmd "...naming the limit and where it was reached" \
	grep -q 'an import chain more than 1000 imports deep (C:\\Python311\\Lib\\site-packages\\torch\\lib\\c1001.dll imports c1002.dll): not followed' "$tmp/err"

chain "$tmp/at" 1001
"$B" check --torch "$tmp/at/Python311/Lib/site-packages/torch" --root "$tmp/at" --json "$tmp/at.json" >/dev/null 2>"$tmp/err"
check_eq "a chain exactly 1,000 imports deep (1,001 modules) loads (sanitizer build)" 0 $?
check_eq "...every binary checked, none failing" "[1001,0]" \
	"$(jq -c '[.counts.binaries, .counts.binaries_failing]' "$tmp/at.json" 2>&1)"
"$B" deps --root "$tmp/at" 'C:\Python311\Lib\site-packages\torch\lib\c1.dll' >"$tmp/deps" 2>&1
check_eq "...and deps prints its whole tree" 0 $?

chain "$tmp/over" 1002
"$B" deps --root "$tmp/over" 'C:\Python311\Lib\site-packages\torch\lib\c1.dll' >"$tmp/deps" 2>"$tmp/err"
check_eq "one level more is an input error for deps too" 2 $?
check_cmd "...naming the limit" grep -q 'an import chain more than 1000 imports deep' "$tmp/err"
tap_done
