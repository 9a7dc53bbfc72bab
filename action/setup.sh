#!/usr/bin/env bash
# action/setup.sh: the action's first step. Finds or fetches the
# torch-dll-check binary for this runner and tells the next steps where it is
# (step outputs `exe`, and `build` when it must be built from source).
#
#   1. $RUNNER_TOOL_CACHE/torch-dll-check/<version>/<arch>/ holds a verified
#      binary already: use it.
#   2. action/checksums.txt pins a SHA-256 for this version and platform, for
#      both programs (torch-dll-check and torch-dll-check-git): download the
#      release assets, verify them, install them into the tool cache.
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
pinned_sum() { awk -v a="$1" '$2 == a || $2 == "*" a { print $1 }' "$sums" | head -1; }
# The release is two programs: torch-dll-check and torch-dll-check-git
# (libgit2: pins, check --pins, audit, history, fleet), installed side by
# side. Both must be pinned, or the action builds both from source.
gexe="$dir/torch-dll-check-git$ext"
gasset="torch-dll-check-git-$version-$os-$arch$ext"
want=$(pinned_sum "$asset")
gwant=$(pinned_sum "$gasset")
[ -n "$want" ] && [ -n "$gwant" ] || want='' gwant=''

if [ -x "$exe" ] && [ -x "$gexe" ] &&
	{ [ -z "$want" ] || { [ "$(sha256 "$exe")" = "$want" ] && [ "$(sha256 "$gexe")" = "$gwant" ]; }; }; then
	echo "torch-dll-check: using $exe (tool cache)"
	out build none
	exit 0
fi

# fetch ASSET SHA DEST: downloads ASSET into DEST if its SHA-256 is SHA. 1:
# not downloaded (fall back to a source build); a mismatch exits 2 here.
fetch() {
	local tmp="$3.download.$$" got
	echo "torch-dll-check: downloading $1"
	if ! curl -fsSL --retry 3 -o "$tmp" "$base/$1"; then
		rm -f "$tmp"
		return 1
	fi
	got=$(sha256 "$tmp")
	if [ "$got" != "$2" ]; then
		rm -f "$tmp"
		echo "::error title=torch-dll-check: checksum mismatch::$1 has SHA-256 $got, action/checksums.txt pins $2. Refusing to run it."
		exit 2
	fi
	chmod +x "$tmp"
	mv -f "$tmp" "$3"
	echo "torch-dll-check: verified SHA-256 $got ($1)"
}

if [ "$version" != source ] && [ -n "$want" ]; then
	base=${TDC_RELEASE_URL:-https://github.com/$repo/releases/download/v$version}
	mkdir -p "$dir"
	if fetch "$asset" "$want" "$exe" && fetch "$gasset" "$gwant" "$gexe"; then
		# The Linux assets link libcjson and libgit2 dynamically (Debian 12's
		# libcjson1 and libgit2-1.5: Debian ships no libcjson.a).
		if [ "$os" = linux ] && ldd "$exe" "$gexe" 2>/dev/null | grep -q 'not found'; then
			SUDO=
			[ "$(id -u)" -eq 0 ] || SUDO=sudo
			if ! $SUDO apt-get install -y -qq libcjson1 libgit2-1.5 >/dev/null; then
				$SUDO apt-get update -qq
				$SUDO apt-get install -y -qq libcjson1 libgit2-1.5 >/dev/null
			fi
		fi
		out build none
		exit 0
	fi
	rm -f "$exe" "$gexe"
	echo "torch-dll-check: the release assets could not be downloaded; building from source instead"
elif [ "$version" != source ]; then
	echo "torch-dll-check: no pinned $os-$arch binaries for $version in action/checksums.txt; building from source"
fi
if [ "$version" != source ] && [ "$version" != "$pinned" ]; then
	echo "::error title=torch-dll-check::version $version has no pinned binary and this action's source is $pinned: use the action at the v$version tag, or version: source"
	exit 2
fi
mkdir -p "$dir"
out build "$builder"
