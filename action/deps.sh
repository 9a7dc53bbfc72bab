#!/usr/bin/env bash
# action/deps.sh HOST [--with-git]: the libraries a release build links
# statically, built from their pinned Debian 12 source packages for HOST
# (x86_64-w64-mingw32: the Windows .exe; x86_64-linux-gnu: the Linux
# programs), once, into $TDC_CACHE/mingw-deps/<key>/prefix or
# linux-deps/<key>/prefix (key: the versions, this recipe, the compiler's
# version; tests find the mingw one by that name). Prints the prefix.
#
# Why from source: Debian ships no mingw builds of these libraries, and no
# static libcjson at all; Debian's own libgit2.a is built with HTTPS, SSH and
# GSSAPI, which the programs never use and would pull their libraries (and
# licences) in. What is built: libyaml (MIT), cJSON (MIT), and with
# --with-git libgit2 (GPLv2 with the linking exception) with pcre2 (BSD) and
# http-parser (MIT); zlib (zlib licence) comes from Debian's libz.a /
# libz-mingw-w64-dev. LICENSES.md lists them.
#
# Reproducible: the same sources and compiler give the same archives on any
# machine and path (-ffile-prefix-map for the build folders, deterministic ar).
set -euo pipefail
host=${1:?usage: action/deps.sh HOST [--with-git]}
with_git=0
[ "${2:-}" = "--with-git" ] && with_git=1
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"

YAML=libyaml=0.2.5-1
CJSON=cjson=1.7.15-1+deb12u4
GIT="libgit2=1.5.1+ds-1+deb12u1 http-parser=2.9.4-5 pcre2=10.42-1"
RECIPE=2 # bump when the way the libraries are built changes

case "$host" in
x86_64-w64-mingw32) cc=$host-gcc ar=$host-ar system=Windows kind=mingw ;;
x86_64-linux-gnu) cc=gcc ar=ar system=Linux kind=linux ;;
*) echo "deps: unknown host $host" >&2; exit 2 ;;
esac
key=$( (echo "$YAML $CJSON $GIT recipe $RECIPE"; $cc --version | head -1) | sha256sum | cut -c1-16)
deps=$TDC_CACHE/$kind-deps/$key
prefix=$deps/prefix
mkdir -p "$prefix/lib" "$prefix/include"
# One builder at a time per folder (the cache is shared by every clone).
exec 9>"$deps.lock"
flock 9
# Paths of this machine never reach the archives.
flags="-O2 -ffile-prefix-map=$deps=/deps"
[ "$system" = Windows ] || flags="$flags -fPIC" # the Linux programs are PIE

toolchain=$deps/toolchain.cmake
if [ "$system" = Windows ]; then
	cat >"$toolchain" <<TC
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER $cc)
set(CMAKE_RC_COMPILER $host-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$host $prefix)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
TC
else
	cat >"$toolchain" <<TC
set(CMAKE_C_COMPILER $cc)
set(CMAKE_PREFIX_PATH $prefix)
TC
fi

ensure_deb_src() {
	if ! apt-cache showsrc libyaml 2>/dev/null | grep -q '^Package: libyaml'; then
		cat >/etc/apt/sources.list.d/tdc-deb-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		apt-get update -qq
	fi
	command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev >/dev/null
}

# fetch_src PKG=VER: unpacks the Debian source into $deps/src/PKG and prints that folder.
fetch_src() {
	local pkg=${1%%=*}
	local dir=$deps/src/$pkg
	if [ ! -d "$dir" ]; then
		ensure_deb_src
		rm -rf "$deps/src/tmp-$pkg"
		mkdir -p "$deps/src/tmp-$pkg"
		(
			cd "$deps/src/tmp-$pkg" || exit 1
			apt-get source -qq --download-only "$1" >/dev/null 2>&1 || exit 1
			dpkg-source -x ./*.dsc out >/dev/null 2>&1
		) || { echo "deps: cannot fetch the Debian source of $1" >&2; exit 1; }
		mv "$deps/src/tmp-$pkg/out" "$dir"
		rm -rf "$deps/src/tmp-$pkg"
	fi
	echo "$dir"
}

cmake_build() { # SRC_DIR NAME CMAKE_ARGS...
	local src=$1 name=$2 extra=
	shift 2
	for a in "$@"; do case "$a" in -DCMAKE_C_FLAGS=*) extra=" ${a#-DCMAKE_C_FLAGS=}" ;; esac; done
	rm -rf "$deps/build/$name"
	cmake -S "$src" -B "$deps/build/$name" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
		-DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
		-DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_LIBDIR=lib "$@" \
		-DCMAKE_C_FLAGS="$flags$extra" -DCMAKE_C_FLAGS_RELEASE="-DNDEBUG" >"$deps/build-$name.log" 2>&1
	cmake --build "$deps/build/$name" -j2 >>"$deps/build-$name.log" 2>&1
	cmake --install "$deps/build/$name" >>"$deps/build-$name.log" 2>&1
}

if [ ! -f "$prefix/lib/libyaml.a" ]; then
	echo "deps: building libyaml for $host (once; cached in $deps)" >&2
	cmake_build "$(fetch_src $YAML)" libyaml -DBUILD_TESTING=OFF -DINSTALL_CMAKE_DIR=lib/cmake/yaml
fi
if [ ! -f "$prefix/lib/libcjson.a" ]; then
	echo "deps: building cJSON for $host (once)" >&2
	cmake_build "$(fetch_src $CJSON)" cjson -DENABLE_CUSTOM_COMPILER_FLAGS=OFF \
		-DENABLE_CJSON_TEST=OFF -DBUILD_SHARED_AND_STATIC_LIBS=OFF -DCJSON_BUILD_SHARED_LIBS=OFF
fi
if [ "$with_git" = 1 ] && [ ! -f "$prefix/lib/libgit2.a" ]; then
	echo "deps: building pcre2, http-parser, libgit2 for $host (once, ~2 min)" >&2
	cmake_build "$(fetch_src pcre2=10.42-1)" pcre2 -DPCRE2_BUILD_TESTS=OFF -DPCRE2_BUILD_PCRE2GREP=OFF
	hp=$(fetch_src http-parser=2.9.4-5)
	# shellcheck disable=SC2086 # $flags is a list of flags
	$cc $flags -c "$hp/http_parser.c" -o "$deps/http_parser.o"
	rm -f "$prefix/lib/libhttp_parser.a"
	$ar rcsD "$prefix/lib/libhttp_parser.a" "$deps/http_parser.o"
	cp "$hp/http_parser.h" "$prefix/include/"
	cmake_build "$(fetch_src libgit2=1.5.1+ds-1+deb12u1)" libgit2 -DBUILD_TESTS=OFF -DBUILD_CLI=OFF \
		-DUSE_HTTPS=OFF -DUSE_SSH=OFF -DUSE_WINHTTP=OFF -DUSE_NTLMCLIENT=OFF -DUSE_GSSAPI=OFF \
		-DUSE_HTTP_PARSER=system -DREGEX_BACKEND=pcre2 -DUSE_ICONV=OFF -DCMAKE_C_FLAGS=-DPCRE2_STATIC
fi
echo "$prefix"
