# env.sh: the environment every test runs in, set once for tests/run and for a
# script run alone (tests/lib/start.sh sources it): source it, nothing runs.
#
#   TDC_REPO          this checkout (found from this file, whatever the cwd)
#   TDC_BIN, TDC_GIT_BIN            the programs `make` builds
#   TDC_ASAN_BIN, TDC_ASAN_GIT_BIN  their sanitizer builds (`make unit-build`)
#   TDC_CACHE         generated fixtures and fetched wheels, outside the clone
#   ASAN_OPTIONS, UBSAN_OPTIONS     leaks reported, the first UB error fatal
#   PATH              Debian's python3 first (below)
#
# A variable already set is kept, so a caller can point a test at another build.
# shellcheck shell=bash
TDC_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export TDC_REPO
export TDC_BIN=${TDC_BIN:-$TDC_REPO/torch-dll-check}
export TDC_GIT_BIN=${TDC_GIT_BIN:-$TDC_REPO/torch-dll-check-git}
export TDC_ASAN_BIN=${TDC_ASAN_BIN:-$TDC_REPO/build/asan/torch-dll-check}
export TDC_ASAN_GIT_BIN=${TDC_ASAN_GIT_BIN:-$TDC_REPO/build/asan/torch-dll-check-git}
export TDC_CACHE=${TDC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The tests use Debian's python3 modules (python3-yaml, -pefile, -jsonschema),
# which import only under Debian's interpreter; the python3 first on PATH may be
# another one (pyenv, a venv). Put Debian's first.
if [ -x /usr/bin/python3 ] && [[ ":$PATH:" != *":$TDC_REPO/build/pybin:"* ]]; then
	mkdir -p "$TDC_REPO/build/pybin"
	ln -sf /usr/bin/python3 "$TDC_REPO/build/pybin/python3"
	export PATH=$TDC_REPO/build/pybin:$PATH
fi
mkdir -p "$TDC_CACHE"
