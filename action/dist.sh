#!/usr/bin/env bash
# action/dist.sh (`make dist`): the release assets, reproducibly, and their
# SHA-256 sums.
#
#   dist/torch-dll-check-<version>-linux-x64       static but for glibc (libc.so.6 only,
#   dist/torch-dll-check-git-<version>-linux-x64   no GLIBC_ symbol newer than 2.35: Ubuntu
#                                                  22.04, the oldest hosted runner); no libhivex
#   dist/torch-dll-check-<version>-windows-x64.exe       static (mingw-w64 cross-build,
#   dist/torch-dll-check-git-<version>-windows-x64.exe   tests/lib/cross-build.sh)
#   dist/LICENSES.md                               what the programs link, and their licences
#   dist/THIRD-PARTY-NOTICES.txt                   those licences' texts
#   dist/torch_dll_check-<version>-py3-none-{manylinux_2_35_x86_64,win_amd64}.whl
#                                                  the programs as wheels (action/wheel.py)
#   dist/SHA256SUMS                                sha256sum format, sorted by name
#   action/checksums.txt                           the same sums, pinned in the action
#
# <version> is TDC_VERSION from checker/util/tdc.h. Commit action/checksums.txt
# in the release commit and tag it v<version>: the release workflow
# (.github/workflows/release.yml) runs this again, refuses to publish unless
# the bytes equal the committed sums, and uploads dist/*.
#
# Reproducible: two clones at different paths and times give the same bytes.
# The libraries come from pinned Debian sources (action/deps.sh); no path of
# the clone or of the cache reaches a binary (-ffile-prefix-map), nothing
# records a time (SOURCE_DATE_EPOCH is the release commit's time, for any
# tool that wants one; mingw's ld writes no PE timestamp), sources and
# archives are in one order (the Makefile sorts them; ar D), and the build
# runs in the C locale and UTC. tests/action/test_dist.sh proves it.
#
# The Linux programs are built without libhivex (LGPL-2.1): they read
# `reg export` files and Wine's system.reg, not regf hives, and say so; a
# source build with libhivex-dev reads hives (LICENSES.md says why).
set -euo pipefail
cd "$(dirname "$0")/.."
repo_root=$PWD
export LC_ALL=C TZ=UTC
umask 022
version=$(sed -n 's/^#define TDC_VERSION "\(.*\)"/\1/p' checker/util/tdc.h)
[ -n "$version" ] || { echo "dist: no TDC_VERSION in checker/util/tdc.h" >&2; exit 1; }
release_repo=${TDC_RELEASE_REPO:-$(sed -n 's/^# repository: *//p' action/checksums.txt 2>/dev/null | head -1)}
release_repo=${release_repo:-torch-dll-check/torch-dll-check}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH
GLIBC_MAX=2.35 # Ubuntu 22.04's glibc: the oldest of the hosted Ubuntu runners
out=$repo_root/dist
rm -rf "$out"
mkdir -p "$out"

# Linux x64: a clean build in a copy of the sources (the clone's build/ is
# left alone), every library but glibc linked in; without the MSVC demangler
# (DEMANGLE=0: LLVM's C++ would need libstdc++), so, like the Windows .exe,
# the release's programs show decorated C++ names raw.
prefix=$(bash action/deps.sh x86_64-linux-gnu --with-git | tail -1)
zlib_a=$(pkg-config --variable=libdir zlib)/libz.a
[ -f "$zlib_a" ] || { echo "dist: no $zlib_a (zlib1g-dev)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R checker matrix Makefile "$work/"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -s -C "$work" -j2 HIVEX=0 DEMANGLE=0 \
	CFLAGS="-O2 -g0 -ffile-prefix-map=$work=. -ffile-prefix-map=$prefix=/deps" \
	CORE_LIBS="$prefix/lib/libyaml.a $prefix/lib/libcjson.a $zlib_a" \
	GIT_LIBS="$prefix/lib/libgit2.a $prefix/lib/libpcre2-8.a $prefix/lib/libhttp_parser.a $zlib_a -lpthread" \
	torch-dll-check torch-dll-check-git >&2
for prog in torch-dll-check torch-dll-check-git; do
	linux=$prog-$version-linux-x64
	cp "$work/$prog" "$out/$linux"
	strip "$out/$linux"
	"$out/$linux" --version >&2
	needed=$(objdump -p "$out/$linux" | awk '/NEEDED/ {print $2}' | sort | tr '\n' ' ')
	glibc=$(objdump -T "$out/$linux" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/^GLIBC_//' | sort -uV | tail -1)
	if [ "$needed" != "libc.so.6 " ]; then
		echo "dist: $linux needs $needed(only libc.so.6 may be needed)" >&2
		exit 1
	fi
	if [ "$(printf '%s\n%s\n' "$glibc" "$GLIBC_MAX" | sort -V | tail -1)" != "$GLIBC_MAX" ]; then
		echo "dist: $linux needs GLIBC_$glibc, newer than $GLIBC_MAX (Ubuntu 22.04)" >&2
		exit 1
	fi
	echo "dist: $linux (needs libc.so.6, GLIBC_$glibc at most)" >&2
done

# Windows x64: the mingw cross-build (static; no libhivex).
bash tests/lib/cross-build.sh --with-git >&2
for prog in torch-dll-check torch-dll-check-git; do
	cp "$prog.exe" "$out/$prog-$version-windows-x64.exe"
	echo "dist: $prog-$version-windows-x64.exe" >&2
done
cp LICENSES.md "$out/LICENSES.md"

# The licence texts of what the assets link, from the very sources built
# (action/deps.sh's Debian source packages) and Debian's copyright files.
linux_src=$(dirname "$prefix")/src
notice() { # notice TITLE FILE
	[ -f "$2" ] || { echo "dist: no licence text $2" >&2; exit 1; }
	printf '%s\n%s\n%s\n\n' "================================================================================" \
		"$1" "================================================================================"
	cat "$2"
	printf '\n'
}
{
	echo "Licences of the software linked into the torch-dll-check $version release assets"
	echo "(LICENSES.md says which asset links what)."
	echo
	notice "torch-dll-check" LICENSE
	notice "libyaml 0.2.5 (all assets)" "$linux_src/libyaml/License"
	notice "cJSON 1.7.15 (all assets)" "$linux_src/cjson/LICENSE"
	notice "libgit2 1.5.1 (torch-dll-check-git)" "$linux_src/libgit2/COPYING"
	notice "PCRE2 10.42 (torch-dll-check-git)" "$linux_src/pcre2/LICENCE"
	notice "http-parser 2.9.4 (torch-dll-check-git)" "$linux_src/http-parser/LICENSE-MIT"
	notice "zlib (all assets, Linux: Debian's zlib1g)" /usr/share/doc/zlib1g/copyright
	notice "zlib (the .exe files: Debian's libz-mingw-w64)" /usr/share/doc/libz-mingw-w64-dev/copyright
	notice "mingw-w64 runtime (the .exe files)" /usr/share/doc/mingw-w64-x86-64-dev/copyright
	notice "GCC runtime, libgcc (the .exe files; GCC Runtime Library Exception)" /usr/share/doc/gcc-mingw-w64-base/copyright
} >"$out/THIRD-PARTY-NOTICES.txt"

# The wheels for people on their own machine (pipx run / uvx torch-dll-check),
# carrying the same programs (action/wheel.py).
for w in "linux-x64 manylinux_2_35_x86_64 " "windows-x64 win_amd64 .exe"; do
	read -r plat tag ext <<<"$w"
	python3 action/wheel.py "$out" "$version" "$tag" "$out/torch-dll-check-$version-$plat${ext:-}" \
		"$out/torch-dll-check-git-$version-$plat${ext:-}" LICENSE LICENSES.md "$out/THIRD-PARTY-NOTICES.txt" >&2
done

(cd "$out" && find . -maxdepth 1 -type f \( -name 'torch-dll-check-*' -o -name 'torch_dll_check-*.whl' \) -printf '%f\n' |
	sort | xargs sha256sum -- >SHA256SUMS)
{
	echo "# torch-dll-check release assets this action trusts (written by make dist: action/dist.sh)."
	echo "# action/setup.sh downloads <asset> from the release v<version> and refuses any other bytes."
	echo "# version: $version"
	echo "# repository: $release_repo"
	cat "$out/SHA256SUMS"
} >action/checksums.txt
cat "$out/SHA256SUMS"
