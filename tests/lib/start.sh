# start.sh: the start every test script shares (source it first, the way
# git's t/test-lib.sh is), after setting TEST_NAME:
#
#   TEST_NAME=matrix/lint
#   source "$TDC_REPO/tests/lib/start.sh"
#
# It gives the TAP helpers (tap.sh); TDC_REPO (set by tests/run, else this
# checkout); B, the checker under test (the sanitizer build tests/run
# exports, else $TDC_BIN, else the one built here) and G, torch-dll-check-git
# likewise; and tmp, a private folder removed when the script exits (kept,
# for a look, when TDC_KEEP_TMP is set), with whatever else was handed to
# at_exit (run first, last registered first).
# shellcheck shell=bash
: "${TDC_REPO:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
export TDC_REPO
# shellcheck source=tests/lib/tap.sh
source "$TDC_REPO/tests/lib/tap.sh"

B=${TDC_ASAN_BIN:-${TDC_BIN:-$TDC_REPO/torch-dll-check}}
[ -x "$B" ] || B=${TDC_BIN:-$TDC_REPO/torch-dll-check}
G=${TDC_ASAN_GIT_BIN:-${TDC_GIT_BIN:-$TDC_REPO/torch-dll-check-git}}
[ -x "$G" ] || G=${TDC_GIT_BIN:-$TDC_REPO/torch-dll-check-git}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tdc-test.XXXXXX") || {
	echo "not ok - ${TEST_NAME:-test}: cannot make a temporary folder"
	exit 1
}
_tdc_at_exit=()
# at_exit CMD...: run CMD when the script exits (before tmp is removed).
at_exit() { _tdc_at_exit=("$*" "${_tdc_at_exit[@]}"); }
_tdc_cleanup() {
	local c
	for c in "${_tdc_at_exit[@]}"; do eval "$c"; done
	if [ -n "${TDC_KEEP_TMP:-}" ]; then
		echo "# ${TEST_NAME:-test}: kept $tmp (TDC_KEEP_TMP)"
	else
		rm -rf "$tmp"
	fi
}
trap _tdc_cleanup EXIT
