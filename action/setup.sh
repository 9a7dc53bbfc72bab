#!/usr/bin/env bash
# action/setup.sh [--fetch]: the action's first steps: where the
# torch-dll-check programs for this runner live, and getting them there.
#
# Without arguments (step `prep`, before actions/cache): says where
# (outputs `dir`, `exe`), under which actions/cache `key`, and which MSYS2
# packages a Windows source build installs (`msys2-packages`, from
# action/build-deps.txt). Nothing is downloaded.
#
# --fetch (step `fetch`, after actions/cache restored `dir` or not):
#   1. `dir` holds both programs (torch-dll-check and torch-dll-check-git)
#      already — restored by actions/cache, or left in a self-hosted
#      runner's tool cache — and, for a pinned release, with the SHA-256s
#      action/checksums.txt pins: use them (output cache-hit=true).
#   2. action/checksums.txt pins both assets of this version for this
#      platform: download them (from the release, or TDC_RELEASE_URL: a
#      mirror, file:// in tests) into a temporary folder, verify them, and
#      only then move them into `dir`. A mismatch is an error, never a
#      fallback, and nothing is installed.
#   3. Otherwise (nothing pinned, the download failed, or version=source):
#      ask for a build of this action's source (output build=msys2 on
#      Windows, build=apt on Linux): the next steps run action/build.sh,
#      which writes into the source build's own folder (output `exe`), never
#      into a release's. Nothing pinned (an action ref that is not a release
#      commit) or version=source: one ::notice saying why and how long the
#      build takes; a failed download: a ::warning.
# The fetch step's outputs `save-dir` and `save-key` are what the save step
# stores: the release's folder under the release's key only when the pinned
# programs were downloaded and verified; a source build under the source
# key, always — so a fallback build after a failed download can never fill
# the release's key (which actions/cache cannot overwrite: every later job
# would restore it, find it unpinned and download again).
# Both modes compute the same answer from the same inputs; the folder of
# the programs used is put on GITHUB_PATH, so later `run:` steps can call
# torch-dll-check.
#
# The key: the version and the SHA-256s pinned for it (a changed pin is a
# new key; the release's programs are static but for glibc 2.35, so one key
# serves every image), or, when the programs are built from this action's
# source, a hash of that source tree and the runner image (ImageOS and
# ImageVersion on GitHub's runners, else the OS release): a new action ref
# never reuses an old build, and a build linking one image's shared
# libraries is never restored on another image.
#
# Env: TDC_INPUT_VERSION (the `version` input), TDC_CACHE_HIT (actions/cache's
# cache-hit, for the log), RUNNER_OS, RUNNER_ARCH, RUNNER_TOOL_CACHE,
# RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_PATH, ImageOS, ImageVersion,
# GITHUB_ACTION_REF (for the notice); TDC_RELEASE_URL (a mirror).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=action/inputs.sh
source "$here/inputs.sh"
tdc_plain_inputs version || exit 2
mode=prep
[ "${1:-}" != "--fetch" ] || mode=fetch

sums="$here/checksums.txt"
# The release this action is pinned to: the checksums file's version line.
pinned=$(sed -n 's/^# version: *//p' "$sums" | head -1)
repo=$(sed -n 's/^# repository: *//p' "$sums" | head -1)
version=${TDC_INPUT_VERSION:-}
[ -n "$version" ] || version=$pinned
case "$version" in
source | [0-9]*.[0-9]*.[0-9]*) ;;
*)
	echo "::error title=torch-dll-check::input version must be empty, source, or a release X.Y.Z (without a v)"
	exit 2
	;;
esac
case "$version" in *[!A-Za-z0-9.+-]*)
	echo "::error title=torch-dll-check::input version must be empty, source, or a release X.Y.Z (without a v)"
	exit 2
	;;
esac

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
*) arch=$(echo "${RUNNER_ARCH}" | tr '[:upper:]' '[:lower:]' | tr -cd 'a-z0-9') ;;
esac

out() { echo "$1=$2" >>"${GITHUB_OUTPUT:-/dev/null}"; }
# A path as the runner's other tools want it: C:/... on Windows (Node, cmd and bash all read it).
native() { if [ "$os" = windows ] && command -v cygpath >/dev/null; then cygpath -m "$1"; else printf '%s\n' "$1"; fi; }

sha256() { sha256sum "$1" | cut -d' ' -f1; }
pinned_sum() { awk -v a="$1" '$2 == a || $2 == "*" a { print $1 }' "$sums" | head -1; }
# The release is two programs: torch-dll-check and torch-dll-check-git
# (libgit2: pins, check --pins, audit, history, fleet), installed side by
# side. Both must be pinned, or the action builds both from source.
asset="torch-dll-check-$version-$os-$arch$ext"
gasset="torch-dll-check-git-$version-$os-$arch$ext"
want='' gwant=''
if [ "$version" != source ]; then
	want=$(pinned_sum "$asset")
	gwant=$(pinned_sum "$gasset")
	[ -n "$want" ] && [ -n "$gwant" ] || want='' gwant=''
fi

cache_root=${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/tool-cache}
# The runner image a source build is made on: GitHub's images say it
# (ImageOS=ubuntu24, ImageVersion=20250120.5.0); elsewhere the OS release.
image_of() {
	local img
	if [ -n "${ImageOS:-}" ]; then
		img="${ImageOS}-${ImageVersion:-}"
	elif [ "$os" = linux ] && [ -r /etc/os-release ]; then
		# shellcheck disable=SC1091 # the machine's own file
		img=$(. /etc/os-release && printf '%s-%s' "${ID:-linux}" "${VERSION_ID:-}")
	else
		img=$(uname -sr 2>/dev/null || echo unknown)
	fi
	printf '%s' "$img" | tr -c 'A-Za-z0-9._-' '_' | cut -c1-64
}
# built from this action's source: keyed by that source and the image
src=$(cd "$here/.." && pwd)
tree=$(cd "$src" && find action/build.sh action/build-deps.txt checker matrix Makefile -type f | LC_ALL=C sort |
	xargs sha256sum | sha256sum | cut -c1-16)
image=$(image_of)
sdir="$cache_root/torch-dll-check/source-$tree-$image/$arch"
skey="torch-dll-check-$os-$arch-source-$tree-$image"
if [ "$version" = source ] || [ -z "$want" ]; then
	dir=$sdir key=$skey
else
	dir="$cache_root/torch-dll-check/$version/$arch"
	key="torch-dll-check-$os-$arch-$version-$(printf '%s %s' "$want" "$gwant" | sha256sum | cut -c1-16)"
fi
exe="$dir/torch-dll-check$ext"
gexe="$dir/torch-dll-check-git$ext"

if [ "$version" != source ] && [ -z "$want" ] && [ "$version" != "$pinned" ]; then
	echo "::error title=torch-dll-check::version $version has no pinned binary and this action's source is $pinned: use the action at the v$version tag, or version: source"
	exit 2
fi

if [ "$mode" = prep ]; then
	out dir "$(native "$dir")"
	out exe "$(native "$exe")"
	out key "$key"
	out msys2-packages "$(awk '!/^#/ && NF == 3 && $3 != "-" { printf "%s%s", sep, $3; sep = " " }' "$here/build-deps.txt")"
	exit 0
fi

# --fetch
# use DIR KEY: the programs are (or will be built) in DIR: outputs and PATH;
# the save step stores DIR under KEY.
use() {
	[ -z "${GITHUB_PATH:-}" ] || native "$1" >>"$GITHUB_PATH"
	out exe "$(native "$1/torch-dll-check$ext")"
	out save-dir "$(native "$1")"
	out save-key "$2"
}
# build: ask for the source build, into the source folder (never a release's).
build() {
	use "$sdir" "$skey"
	out build "$builder"
}
# How long a source build takes, for the notice (GitHub's hosted runners,
# cold: installing the build packages, then compiling both programs).
build_time() { if [ "$os" = windows ]; then echo "about 3 to 6 minutes (MSYS2 UCRT64 and its packages, then the compile)"; else echo "about 1 to 3 minutes (apt-get install, then the compile)"; fi; }
if [ -x "$exe" ] && [ -x "$gexe" ]; then
	if [ -z "$want" ] || { [ "$(sha256 "$exe")" = "$want" ] && [ "$(sha256 "$gexe")" = "$gwant" ]; }; then
		if [ "${TDC_CACHE_HIT:-}" = true ]; then
			echo "torch-dll-check: using $exe (restored by actions/cache, key $key)"
		else
			echo "torch-dll-check: using $exe (already in the runner's tool cache)"
		fi
		use "$dir" "$key"
		out build none
		out cache-hit true
		exit 0
	fi
	echo "::warning title=torch-dll-check::the cached programs in $dir are not the pinned ones: fetching them again"
	rm -f "$exe" "$gexe"
fi
out cache-hit false

# fetch ASSET SHA DEST: downloads ASSET to DEST if its SHA-256 is SHA. 1: not
# downloaded (fall back to a source build); a mismatch exits 2 here.
fetch() {
	local got
	echo "torch-dll-check: downloading $1"
	if ! curl -fsSL --retry 3 -o "$3" "$base/$1"; then
		rm -f "$3"
		return 1
	fi
	got=$(sha256 "$3")
	if [ "$got" != "$2" ]; then
		rm -f "$3"
		echo "::error title=torch-dll-check: checksum mismatch::$1 has SHA-256 $got, action/checksums.txt pins $2. Refusing to run it."
		exit 2
	fi
	chmod +x "$3"
	echo "torch-dll-check: verified SHA-256 $got ($1)"
}

if [ -n "$want" ]; then
	base=${TDC_RELEASE_URL:-https://github.com/$repo/releases/download/v$version}
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$(dirname "$dir")/.download.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	if fetch "$asset" "$want" "$tmp/torch-dll-check$ext" && fetch "$gasset" "$gwant" "$tmp/torch-dll-check-git$ext"; then
		mkdir -p "$dir"
		mv -f "$tmp/torch-dll-check-git$ext" "$gexe"
		mv -f "$tmp/torch-dll-check$ext" "$exe"
		use "$dir" "$key"
		out build none
		exit 0
	fi
	if [ "$version" != "$pinned" ]; then
		echo "::error title=torch-dll-check::the release assets of $version could not be downloaded, and this action's source is $pinned"
		exit 2
	fi
	# (cached under the source key: the next job tries the download again)
	echo "::warning title=torch-dll-check: building from source::the release assets of $version could not be downloaded from $base; building this action's source instead, $(build_time). This build is cached under its source key, not the release's: the next job downloads the pinned programs again."
elif [ "$version" != source ]; then
	echo "::notice title=torch-dll-check: building from source::this action's ref (${GITHUB_ACTION_REF:-not a release tag}) is not a release commit: action/checksums.txt pins no $os-$arch programs, so they are built from the action's source, $(build_time). The build is cached per source tree and runner image ($image): later jobs on this image take seconds. For prebuilt programs verified by SHA-256, use a release: @v$pinned or @v${pinned%%.*}."
else
	echo "::notice title=torch-dll-check: building from source::version: source builds this action's source, $(build_time); cached per source tree and runner image ($image)."
fi
build
