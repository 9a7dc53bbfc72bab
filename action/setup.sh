#!/usr/bin/env bash
# action/setup.sh: the action's first step. Finds or fetches the
# torch-dll-check binary for this runner and tells the next steps where it is
# (step outputs `exe`, and `build` when it must be built from source).
#
#   1. $RUNNER_TOOL_CACHE/torch-dll-check/<version>/<arch>/ holds a verified
#      binary already: use it.
#   2. action/checksums.txt pins a SHA-256 for this version and platform:
#      download the release asset, verify it, install it into the tool cache.
#      A checksum mismatch is an error, never a silent fallback.
#   3. Otherwise (no pinned asset, download failed, or version=source): ask
#      for a build from this action's source: `build=msys2` on Windows (the
#      action then runs msys2/setup-msys2 and action/build.sh), `build=apt`
#      on Linux.
#
# Env: TDC_INPUT_VERSION (the `version` input), RUNNER_OS, RUNNER_ARCH,
# RUNNER_TOOL_CACHE, GITHUB_OUTPUT, GITHUB_ACTION_PATH. TDC_RELEASE_URL
# overrides where assets are downloaded from (a mirror; tests use file://).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sums="$here/checksums.txt"
# The release this action is pinned to: the checksums file's version line.
pinned=$(sed -n 's/^# version: *//p' "$sums" | head -1)
repo=$(sed -n 's/^# repository: *//p' "$sums" | head -1)
version=${TDC_INPUT_VERSION:-}
[ -n "$version" ] || version=$pinned

# On a Windows runner `shell: bash` must be Git for Windows' bash: WSL's
# bash.exe (System32) would run our scripts in another machine's Linux.
if [ "${RUNNER_OS:-}" = Windows ] && [ "$(uname -s)" = Linux ]; then
	echo "::error title=torch-dll-check::bash on this runner is WSL's, not Git for Windows': put Git's bin folder before System32 on the runner's PATH"
	exit 2
fi
case "${RUNNER_OS:-$(uname -s)}" in
Windows | MINGW* | MSYS* | CYGWIN*) os=windows ext=.exe builder=msys2 ;;
Linux) os=linux ext='' builder=apt ;;
*)
	echo "::error title=torch-dll-check::unsupported runner OS ${RUNNER_OS:-$(uname -s)} (Windows and Linux are)"
	exit 2
	;;
esac
case "${RUNNER_ARCH:-X64}" in
X64 | x86_64 | amd64) arch=x64 ;;
ARM64 | aarch64) arch=arm64 ;;
X86) arch=x86 ;;
*) arch=$(echo "${RUNNER_ARCH}" | tr '[:upper:]' '[:lower:]') ;;
esac

out() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }

cache_root=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/tool-cache}
asset="torch-dll-check-$version-$os-$arch$ext"
if [ "$version" = source ]; then
	# Keyed by the source tree, so a new action ref never reuses an old build.
	key=$(cd "$here/.." && find checker matrix Makefile -type f -print0 2>/dev/null | sort -z |
		xargs -0 cat | sha256sum | cut -c1-16)
	dir="$cache_root/torch-dll-check/source-$key/$arch"
else
	dir="$cache_root/torch-dll-check/$version/$arch"
fi
exe="$dir/torch-dll-check$ext"
out exe "$exe"

sha256() { sha256sum "$1" | cut -d' ' -f1; }
want=$(awk -v a="$asset" '$2 == a || $2 == "*" a { print $1 }' "$sums" | head -1)

# A source build also leaves torch-dll-check-git (pins, audit, fleet) next to it.
if [ -x "$exe" ] && { [ "$version" = source ] || [ -z "$want" ] || [ "$(sha256 "$exe")" = "$want" ]; } &&
	{ [ -n "$want" ] || [ -x "$dir/torch-dll-check-git$ext" ]; }; then
	echo "torch-dll-check: using $exe (tool cache)"
	out build none
	exit 0
fi

if [ "$version" != source ] && [ -n "$want" ]; then
	base=${TDC_RELEASE_URL:-https://github.com/$repo/releases/download/v$version}
	mkdir -p "$dir"
	tmp="$exe.download.$$"
	echo "torch-dll-check: downloading $asset"
	if curl -fsSL --retry 3 -o "$tmp" "$base/$asset"; then
		got=$(sha256 "$tmp")
		if [ "$got" != "$want" ]; then
			rm -f "$tmp"
			echo "::error title=torch-dll-check: checksum mismatch::$asset has SHA-256 $got, action/checksums.txt pins $want. Refusing to run it."
			exit 2
		fi
		chmod +x "$tmp"
		mv -f "$tmp" "$exe"
		echo "torch-dll-check: verified SHA-256 $got"
		# The Linux asset links libcjson dynamically (Debian ships no libcjson.a).
		if [ "$os" = linux ] && ldd "$exe" 2>/dev/null | grep -q 'libcjson.*not found'; then
			SUDO=
			[ "$(id -u)" -eq 0 ] || SUDO=sudo
			if ! $SUDO apt-get install -y -qq libcjson1 >/dev/null; then
				$SUDO apt-get update -qq
				$SUDO apt-get install -y -qq libcjson1 >/dev/null
			fi
		fi
		out build none
		exit 0
	fi
	rm -f "$tmp"
	echo "torch-dll-check: $asset could not be downloaded; building from source instead"
elif [ "$version" != source ]; then
	echo "torch-dll-check: no pinned $os-$arch binary for $version in action/checksums.txt; building from source"
fi
if [ "$version" != source ] && [ "$version" != "$pinned" ]; then
	echo "::error title=torch-dll-check::version $version has no pinned binary and this action's source is $pinned: use the action at the v$version tag, or version: source"
	exit 2
fi
mkdir -p "$dir"
out build "$builder"
