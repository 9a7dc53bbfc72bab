#!/usr/bin/env bash
# cross-build.sh [--with-git]: builds torch-dll-check.exe (Windows x64) with mingw-w64.
#
# Debian ships no mingw builds of libyaml, cJSON or libgit2, so their Debian
# source packages (pinned versions) are cross-built once, statically, into
# $TDC_CACHE/mingw-deps/<key>/ (key = versions + this script), and reused.
# Prints the path of the .exe on the last line. --with-git also builds
# libgit2 (+ pcre2, http-parser, zlib) and torch-dll-check-git.exe.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
with_git=0
[ "${1:-}" = "--with-git" ] && with_git=1

HOST=x86_64-w64-mingw32
VERSIONS="libyaml=0.2.5-1 cjson=1.7.15-1+deb12u4"
GIT_VERSIONS="libgit2=1.5.1+ds-1+deb12u1 http-parser=2.9.4-5 pcre2=10.42-1"
RECIPE=1 # bump when the way the dependencies are built changes
key=$( (echo "$VERSIONS $GIT_VERSIONS recipe $RECIPE"; $HOST-gcc --version | head -1) | sha256sum | cut -c1-16)
deps=$TDC_CACHE/mingw-deps/$key
prefix=$deps/prefix
mkdir -p "$prefix"

toolchain=$deps/toolchain.cmake
cat >"$toolchain" <<TC
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_C_COMPILER $HOST-gcc)
set(CMAKE_RC_COMPILER $HOST-windres)
set(CMAKE_FIND_ROOT_PATH /usr/$HOST $prefix)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
TC

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

# fetch_src PKG=VER: unpacks the Debian source into $deps/src/PKG and prints that dir.
fetch_src() {
	local pkg=${1%%=*}
	local dir=$deps/src/$pkg
	if [ ! -d "$dir" ]; then
		ensure_deb_src
		mkdir -p "$deps/src/tmp-$pkg"
		(
			cd "$deps/src/tmp-$pkg" || exit 1
			apt-get source -qq --download-only "$1" >/dev/null 2>&1 || exit 1
			dpkg-source -x ./*.dsc out >/dev/null
		) || { echo "cross-build: cannot fetch the Debian source of $1" >&2; exit 1; }
		mv "$deps/src/tmp-$pkg/out" "$dir"
		rm -rf "$deps/src/tmp-$pkg"
	fi
	echo "$dir"
}

cmake_build() { # SRC_DIR NAME CMAKE_ARGS...
	local src=$1 name=$2
	shift 2
	cmake -S "$src" -B "$deps/build/$name" -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
		-DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF "$@" >"$deps/build-$name.log" 2>&1
	cmake --build "$deps/build/$name" -j2 >>"$deps/build-$name.log" 2>&1
	cmake --install "$deps/build/$name" >>"$deps/build-$name.log" 2>&1
}

if [ ! -f "$prefix/lib/libyaml.a" ]; then
	echo "cross-build: building libyaml for $HOST (once; cached in $deps)" >&2
	cmake_build "$(fetch_src libyaml=0.2.5-1)" libyaml -DBUILD_TESTING=OFF -DINSTALL_CMAKE_DIR=lib/cmake/yaml
fi
if [ ! -f "$prefix/lib/libcjson.a" ]; then
	echo "cross-build: building cJSON for $HOST (once)" >&2
	cmake_build "$(fetch_src cjson=1.7.15-1+deb12u4)" cjson -DENABLE_CUSTOM_COMPILER_FLAGS=OFF \
		-DENABLE_CJSON_TEST=OFF -DBUILD_SHARED_AND_STATIC_LIBS=OFF -DCJSON_BUILD_SHARED_LIBS=OFF
fi

if [ "$with_git" = 1 ] && [ ! -f "$prefix/lib/libgit2.a" ]; then
	echo "cross-build: building pcre2, http-parser, libgit2 for $HOST (once, ~2 min)" >&2
	cmake_build "$(fetch_src pcre2=10.42-1)" pcre2 -DPCRE2_BUILD_TESTS=OFF -DPCRE2_BUILD_PCRE2GREP=OFF
	hp=$(fetch_src http-parser=2.9.4-5)
	$HOST-gcc -O2 -c "$hp/http_parser.c" -o "$deps/http_parser.o"
	$HOST-ar rcs "$prefix/lib/libhttp_parser.a" "$deps/http_parser.o"
	cp "$hp/http_parser.h" "$prefix/include/"
	cmake_build "$(fetch_src libgit2=1.5.1+ds-1+deb12u1)" libgit2 -DBUILD_TESTS=OFF -DBUILD_CLI=OFF \
		-DUSE_HTTPS=OFF -DUSE_SSH=OFF -DUSE_WINHTTP=OFF -DUSE_NTLMCLIENT=OFF -DUSE_HTTP_PARSER=system \
		-DREGEX_BACKEND=pcre2 -DUSE_ICONV=OFF -DCMAKE_C_FLAGS=-DPCRE2_STATIC
fi

out=$repo/build/win
mkdir -p "$out/gen"
{ sh checker/matrix/embed.sh matrix_default_yaml matrix/torch.yml &&
	sh checker/matrix/embed.sh matrix_pairs_text matrix/evidence/extensions-win_amd64.txt; } >"$out/gen/matrix_embed.c"
cflags=(-std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -DYAML_DECLARE_STATIC -D__USE_MINGW_ANSI_STDIO=1
	-Ichecker -I"$prefix/include")
srcs=()
# The layers of checker/LAYERS but the libgit2 ones (git/, cli/git/).
while IFS= read -r f; do
	case "$f" in checker/git/* | checker/cli/git/*) ;; *) srcs+=("$f") ;; esac
done < <(find checker -name '*.c' | LC_ALL=C sort)
$HOST-gcc "${cflags[@]}" -o "$repo/torch-dll-check.exe" "${srcs[@]}" "$out/gen/matrix_embed.c" \
	-L"$prefix/lib" -static -lcjson -lyaml -lshell32 -ladvapi32
if [ "$with_git" = 1 ]; then
	gsrcs=()
	while IFS= read -r f; do
		case "$f" in checker/cli/main.c) ;; *) gsrcs+=("$f") ;; esac
	done < <(find checker -name '*.c' | LC_ALL=C sort)
	$HOST-gcc "${cflags[@]}" -DPCRE2_STATIC -o "$repo/torch-dll-check-git.exe" "${gsrcs[@]}" "$out/gen/matrix_embed.c" \
		-L"$prefix/lib" -static -lgit2 -lhttp_parser -lpcre2-8 -l:libz.a -lcjson -lyaml \
		-lws2_32 -lsecur32 -lrpcrt4 -lcrypt32 -lole32 -ladvapi32
fi
echo "$repo/torch-dll-check.exe"
