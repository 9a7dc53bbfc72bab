# start.sh: the start every test script shares (source it first, the way
# git's t/test-lib.sh is), after setting TEST_NAME, by a path relative to the
# script, so that it runs alone from any folder after `make`:
#
#   TEST_NAME=matrix/lint
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
#
# It gives the environment of tests/lib/env.sh (TDC_REPO, TDC_CACHE, the
# programs' paths, the sanitizers' options, Debian's python3 first) and the
# TAP helpers (tap.sh); changes to TDC_REPO, where tests/run runs every
# script, so paths in a script are relative to the checkout; and sets:
#   B    the checker under test: the sanitizer build when both its programs
#        are built (`make unit-build`, as `make test` does), else the one
#        `make` builds
#   G    torch-dll-check-git of the same build
#   tmp  a private folder removed when the script exits (kept, for a look,
#        when TDC_KEEP_TMP is set), with whatever else was handed to at_exit
#        (run first, last registered first)
#   need FILE...  builds the other programs a script runs (make targets)
# shellcheck shell=bash
# shellcheck source=tests/lib/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
# shellcheck source=tests/lib/tap.sh
source "$TDC_REPO/tests/lib/tap.sh"
cd "$TDC_REPO" || exit 1

# Both from the same build: `check --pins` runs the torch-dll-check-git beside it.
# shellcheck disable=SC2034 # B and G are for the scripts
if [ -x "$TDC_ASAN_BIN" ] && [ -x "$TDC_ASAN_GIT_BIN" ]; then
	B=$TDC_ASAN_BIN G=$TDC_ASAN_GIT_BIN
else
	B=$TDC_BIN G=$TDC_GIT_BIN
fi

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

# need FILE...: the programs of this checkout a script runs besides B and G
# (the sanitizer build itself, unit-build's helpers such as
# build/asan/tests/inventory/regdump), named as make targets: each one not
# built yet is built now (`make FILE`; `make test` has built them all).
# Returns 1 after a "#" line saying why when one cannot be; the caller skips
# what needs it, naming the target:
#   need build/asan/torch-dll-check || { skip "..." "cannot build build/asan/torch-dll-check"; tap_done; }
need() {
	local f
	for f; do
		[ -x "$TDC_REPO/$f" ] && continue
		echo "# ${TEST_NAME:-test}: building $f (make $f)"
		# one make at a time in this checkout (tests/run runs scripts side by side)
		mkdir -p "$TDC_REPO/build"
		if ! flock "$TDC_REPO/build/.need.lock" nice make -s -j2 -C "$TDC_REPO" "$f" >"$tmp/need.log" 2>&1; then
			echo "# ${TEST_NAME:-test}: make $f failed:"
			tail -5 "$tmp/need.log" | sed 's/^/#   /'
			return 1
		fi
	done
}
