# shellcheck shell=bash
# cross_exe.sh: the mingw-w64 torch-dll-check.exe of tests/lib/cross-build.sh,
# built once per source and kept in the cache, for the tests that run it under
# Wine (tests/build/test_builds.sh, tests/confirm/test_confirm*.sh).
#
#   cross_exe LOG   print the path of the cached .exe, building it when it is
#                   not there yet (cross-build.sh's messages to LOG); returns 1
#                   when the build fails
#
# Keyed by a hash of what the .exe is made from (checker/, the matrix and its
# evidence, cross-build.sh). cross-build.sh writes into the checkout
# (build/win, torch-dll-check.exe): it runs under the checkout's lock
# build/.cross-build.lock (tests/lib/win_exe.sh takes it too), so that tests
# run side by side (tests/run) build it once and never copy a half-written file.
cross_exe() {
	local log=$1 key exe
	key=$(cd "$TDC_REPO" && { find checker -type f | LC_ALL=C sort | xargs cat
		cat matrix/torch.yml matrix/evidence/extensions-win_amd64.txt tests/lib/cross-build.sh; } | sha256sum | cut -c1-16)
	exe=$TDC_CACHE/confirm-exe/$key/torch-dll-check.exe
	if [ ! -f "$exe" ]; then
		mkdir -p "${exe%/*}" "$TDC_REPO/build" || return 1
		(
			flock 8
			[ -f "$exe" ] && exit 0
			built=$(bash "$TDC_REPO/tests/lib/cross-build.sh" 2>"$log" | tail -1) && [ -f "$built" ] &&
				cp "$built" "$exe.tmp.$$" && mv "$exe.tmp.$$" "$exe"
		) 8>"$TDC_REPO/build/.cross-build.lock" || return 1
	fi
	echo "$exe"
}
