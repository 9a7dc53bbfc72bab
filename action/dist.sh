#!/usr/bin/env bash
# action/dist.sh (`make dist`): the release assets and their SHA-256 sums.
#
#   dist/torch-dll-check-<version>-linux-x64         libyaml and libhivex linked in
#                                                    statically; needs glibc and libcjson1
#   dist/torch-dll-check-git-<version>-linux-x64     the libgit2 program (pins, check
#                                                    --pins, audit, history, fleet); also
#                                                    needs libgit2-1.5
#   dist/torch-dll-check{,-git}-<version>-windows-x64.exe   when the mingw cross-build
#                                                    (tests/lib/cross-build.sh,
#                                                    `make win`) exists and works;
#                                                    skipped with a clear note if not
#   dist/SHA256SUMS                                  sha256sum format
#   action/checksums.txt                             the same sums, pinned in the action
#
# <version> is TDC_VERSION from checker/util/tdc.h. After `make dist`, commit
# action/checksums.txt and upload dist/* to the GitHub release v<version>:
# the action downloads exactly those files and refuses any other bytes.
# TDC_RELEASE_REPO (owner/name) is written into action/checksums.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
repo_root=$PWD
version=$(sed -n 's/^#define TDC_VERSION "\(.*\)"/\1/p' checker/util/tdc.h)
[ -n "$version" ] || { echo "dist: no TDC_VERSION in checker/util/tdc.h" >&2; exit 1; }
release_repo=${TDC_RELEASE_REPO:-$(sed -n 's/^# repository: *//p' action/checksums.txt 2>/dev/null | head -1)}
release_repo=${release_repo:-torch-dll-check/torch-dll-check}
out=$repo_root/dist
rm -rf "$out"
mkdir -p "$out"

# Linux x64: a clean build in a copy of the sources (the worktree's build/ is
# left alone), libyaml static so the runner needs no libyaml package.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R checker matrix Makefile "$work/"
yaml_a=$(pkg-config --variable=libdir yaml-0.1)/libyaml.a
libs="$(pkg-config --libs libcjson)"
if [ -f "$yaml_a" ]; then
	libs="$yaml_a $libs"
else
	libs="$(pkg-config --libs yaml-0.1) $libs"
	echo "dist: no libyaml.a: the Linux binary links libyaml dynamically" >&2
fi
hivex_a=$(pkg-config --variable=libdir hivex)/libhivex.a
if [ -f "$hivex_a" ]; then
	libs="$hivex_a $libs"
else
	libs="$(pkg-config --libs hivex) $libs"
	echo "dist: no libhivex.a: the Linux binary links libhivex dynamically" >&2
fi
make -s -C "$work" CFLAGS="-O2 -g0" CORE_LIBS="$libs" torch-dll-check torch-dll-check-git >&2
for prog in torch-dll-check torch-dll-check-git; do
	linux=$prog-$version-linux-x64
	cp "$work/$prog" "$out/$linux"
	strip "$out/$linux"
	"$out/$linux" --version >&2
	echo "dist: $linux (needs: $(objdump -p "$out/$linux" | awk '/NEEDED/ {print $2}' | tr '\n' ' '))" >&2
done

# Windows x64: the mingw cross-build, when this tree has it.
win=torch-dll-check-$version-windows-x64.exe
if [ -f tests/lib/cross-build.sh ]; then
	if exe=$(bash tests/lib/cross-build.sh --with-git | tail -1) && [ -f "$exe" ] &&
		[ -f "$(dirname "$exe")/torch-dll-check-git.exe" ]; then
		cp "$exe" "$out/$win"
		cp "$(dirname "$exe")/torch-dll-check-git.exe" "$out/torch-dll-check-git-$version-windows-x64.exe"
		echo "dist: $win, torch-dll-check-git-$version-windows-x64.exe" >&2
	else
		echo "dist: SKIPPED $win: tests/lib/cross-build.sh failed (see its output above)" >&2
	fi
else
	echo "dist: SKIPPED $win: no mingw cross-build in this tree (tests/lib/cross-build.sh, make win)" >&2
fi

(cd "$out" && sha256sum -- torch-dll-check-* >SHA256SUMS)
{
	echo "# torch-dll-check release assets this action trusts (written by make dist: action/dist.sh)."
	echo "# action/setup.sh downloads <asset> from the release v<version> and refuses any other bytes."
	echo "# version: $version"
	echo "# repository: $release_repo"
	cat "$out/SHA256SUMS"
} >action/checksums.txt
cat "$out/SHA256SUMS"
