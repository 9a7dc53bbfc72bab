#!/usr/bin/env bash
# tests/corpus/fetch.sh: gathers real PE files that nobody on this project
# wrote, so the PE reader is judged on what compilers and linkers really emit
# (MSVC, GNU ld, Wine's winebuild), not only on our own fixtures.
#
#   bash tests/corpus/fetch.sh            fetch what is missing; print one line
#                                         per source: "<status> <dir>"
#   bash tests/corpus/fetch.sh --files    the same, then every PE file's path
#                                         (one per line, after a "--" line)
#
# Sources, each cached in $TDC_CACHE/corpus/<source>-<version>/ and marked
# complete by a .done file (a partial fetch is never reused):
#   wine-<ver>          Wine's PE builtins from the installed wine64 package
#                       (x86_64-windows and i386-windows): ~700 DLL/EXE/SYS
#                       files built by winebuild + mingw, with many forwarders
#   mingw-gcc-<ver>     GCC's runtime DLLs (libstdc++-6, libgcc_s_seh-1 /
#                       _dw2-1, libgomp-1, ...), x64 and i686, posix + win32
#   mingw-w64-<ver>     libwinpthread-1.dll, x64 and i686
#   zlib-mingw-<ver>    zlib1.dll from libz-mingw-w64, x64 and i686
#   npm-<name>-<ver>    MSVC-built binaries from npm tarballs (`npm pack`,
#                       never `npm install`: nothing runs), pinned by version
#                       and by sha512 integrity; only the PE files are kept
#
# Debian sources are hard-linked (copied across file systems), so a package
# upgrade leaves the cached version intact under its old version name.
#
# Exit status: 0 all sources present; 1 a source failed (integrity mismatch,
# missing package, broken tarball); 3 only the npm registry was unreachable
# (the caller decides: a failing test in CI, a skip with TDC_OFFLINE=1).
set -uo pipefail

: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
CORPUS=$TDC_CACHE/corpus
mkdir -p "$CORPUS"

# name version sha512-integrity (as `npm view NAME@VER dist.integrity` prints it)
NPM_PINS=(
	"onnxruntime-node 1.30.0 sha512-twhs1C2C/BFkz1yc5OY0KIU2GUq6DURO7hD4bx5Q2Qy3nAMJwRXW8xU3NVczE29VA9lolLOYepoD8fjTGOfIqw=="
	"edge-js 26.1.0 sha512-7FJNViJHNd3yKTvCaw5uKDb90QeQNItYMlpbFaAVqc+jWNmInCDbi7st3nXG8IJ3sETneVfGK0r2CopNPcPFDw=="
	"@rollup/rollup-win32-x64-msvc 4.68.8 sha512-/W1LBsMeQAdiCuH3Z2gkRspl3mlxL+butknhq4vXjmxO45vuT08BqhehxDoE4YS+m6s9lhpq6M9/PjTEAg8PYw=="
	"@swc/core-win32-x64-msvc 1.16.22 sha512-IyBPJn/SpXsh7i5ZLfQUPJ+R+fuELPI7Sz51igmYMTv2wdnDn/tqnIlAUwQe6AgnclbuJdbOb6crUbyN/zwMzw=="
	"lightningcss-win32-x64-msvc 1.33.0 sha512-OlEICDx/Xl0FqSp4bry8zFnCvGpig3Gl4gCquvYwHuqJKEC1+n9NgDniFvqHGmMv1ZkqDJrDqKKSykTDX+ehuA=="
	"@parcel/watcher-win32-x64 2.6.0 sha512-cA+/pXV2YkfxlIcXOQ5fSWqAzzPyD78/x5qbK/I0vUkrlYHA8TIz+MXjAbGouguKVSI4bOmkTSJ1/poVSsgt+A=="
)

failed=0
unreachable=0
dirs=()

is_pe() { [ "$(head -c2 "$1" 2>/dev/null)" = MZ ]; }

pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }

# place SRC_FILE DEST_FILE: hard link, or copy when that is impossible.
place() {
	mkdir -p "$(dirname "$2")"
	ln -f "$1" "$2" 2>/dev/null || cp -f "$1" "$2"
}

# debian_source NAME VERSION FILE...: files from an installed package, laid out
# under <dir> by their path below /usr/lib or /usr (x64 and i686 copies share
# names).
debian_source() {
	local name=$1 ver=$2
	shift 2
	local dir="$CORPUS/$name-$ver" tmp f n=0
	if [ -f "$dir/.done" ]; then
		dirs+=("cached $dir")
		return 0
	fi
	tmp=$(mktemp -d "$CORPUS/.tmp.$name.XXXXXX")
	for f in "$@"; do
		if [ ! -f "$f" ] || ! is_pe "$f"; then continue; fi
		local rel=${f#/usr/lib/}
		rel=${rel#/usr/}
		place "$f" "$tmp/$rel" || { rm -rf "$tmp"; return 1; }
		n=$((n + 1))
	done
	if [ "$n" -eq 0 ]; then
		echo "fetch: $name $ver: no PE files found" >&2
		rm -rf "$tmp"
		failed=1
		return 1
	fi
	touch "$tmp/.done"
	rm -rf "$dir"
	mv -T "$tmp" "$dir"
	dirs+=("fetched $dir")
}

wine_source() {
	local ver base=/usr/lib/x86_64-linux-gnu/wine
	ver=$(pkg_version wine64)
	if [ -z "$ver" ] || [ ! -d "$base/x86_64-windows" ]; then
		echo "fetch: wine64 is not installed (bash .ci/deps installs it)" >&2
		failed=1
		return 1
	fi
	debian_source wine "$ver" "$base"/x86_64-windows/* "$base"/i386-windows/*
}

mingw_sources() {
	local ver
	ver=$(pkg_version gcc-mingw-w64-x86-64-posix-runtime)
	if [ -n "$ver" ]; then
		debian_source mingw-gcc "$ver" /usr/lib/gcc/{x86_64,i686}-w64-mingw32/*-{posix,win32}/*.dll
	else
		echo "fetch: gcc-mingw-w64 runtimes are not installed" >&2
		failed=1
	fi
	ver=$(pkg_version mingw-w64-x86-64-dev)
	# libwinpthread-1.dll ships in mingw-w64-{x86-64,i686}-dev.
	if [ -n "$ver" ]; then
		debian_source mingw-w64 "$ver" /usr/{x86_64,i686}-w64-mingw32/lib/libwinpthread-1.dll
	else
		echo "fetch: mingw-w64-x86-64-dev is not installed" >&2
		failed=1
	fi
	ver=$(pkg_version libz-mingw-w64)
	if [ -n "$ver" ]; then
		debian_source zlib-mingw "$ver" /usr/{x86_64,i686}-w64-mingw32/lib/zlib1.dll
	else
		echo "fetch: libz-mingw-w64 is not installed" >&2
		failed=1
	fi
}

# npm_source NAME VERSION INTEGRITY
npm_source() {
	local name=$1 ver=$2 want=$3
	local dir="$CORPUS/npm-${name//\//+}-$ver" tmp out got tgz
	if [ -f "$dir/.done" ]; then
		dirs+=("cached $dir")
		return 0
	fi
	tmp=$(mktemp -d "$CORPUS/.tmp.npm.XXXXXX")
	if [ "$unreachable" -ne 0 ]; then
		echo "fetch: $name@$ver skipped: the npm registry was unreachable" >&2
		rm -rf "$tmp"
		return 1
	fi
	if ! out=$(cd "$tmp" && npm pack "$name@$ver" --json --loglevel=error \
			--cache "$TDC_CACHE/npm-cache" --fetch-retries=2 --fetch-retry-mintimeout=2000 \
			--fetch-retry-maxtimeout=5000 --fetch-timeout=60000 \
			--registry "${NPM_CONFIG_REGISTRY:-https://registry.npmjs.org/}" 2>"$tmp/.npm.err"); then
		if grep -qE 'ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET' \
				- "$tmp/.npm.err" <<<"$out"; then
			echo "fetch: npm registry unreachable (npm pack $name@$ver):" >&2
			unreachable=1
		else
			echo "fetch: npm pack $name@$ver failed:" >&2
			failed=1
		fi
		{ echo "$out"; cat "$tmp/.npm.err"; } | grep -E '"code"|"summary"|^npm error (code|FetchError)' |
			head -3 | sed 's/^/    /' >&2
		rm -rf "$tmp"
		return 1
	fi
	tgz=$(find "$tmp" -maxdepth 1 -name '*.tgz' | head -1)
	# npm reports the integrity it verified; we check the bytes ourselves too,
	# against the pin, so a changed registry answer cannot slip through.
	got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
	if [ "$got" != "$want" ] || ! grep -qF "\"integrity\": \"$want\"" <<<"$out"; then
		echo "fetch: $name@$ver: integrity mismatch: pinned $want, tarball $got" >&2
		rm -rf "$tmp"
		failed=1
		return 1
	fi
	mkdir -p "$tmp/x"
	if ! tar -xzf "$tgz" -C "$tmp/x"; then
		echo "fetch: $name@$ver: cannot unpack $tgz" >&2
		rm -rf "$tmp"
		failed=1
		return 1
	fi
	rm -f "$tgz"
	# Keep only the PE files (the packages also carry .so/.dylib/JS).
	local f n=0
	while IFS= read -r -d '' f; do
		if is_pe "$f"; then n=$((n + 1)); else rm -f "$f"; fi
	done < <(find "$tmp/x" -type f -print0)
	find "$tmp/x" -type d -empty -delete
	if [ "$n" -eq 0 ]; then
		echo "fetch: $name@$ver holds no PE file" >&2
		rm -rf "$tmp"
		failed=1
		return 1
	fi
	echo "$want" >"$tmp/x/.integrity"
	touch "$tmp/x/.done"
	rm -rf "$dir"
	mv -T "$tmp/x" "$dir"
	rm -rf "$tmp"
	dirs+=("fetched $dir")
}

wine_source
mingw_sources
if command -v npm >/dev/null; then
	for pin in "${NPM_PINS[@]}"; do
		read -r n v i <<<"$pin"
		npm_source "$n" "$v" "$i"
	done
else
	echo "fetch: npm is not installed: the MSVC-built corpus is missing" >&2
	failed=1
fi

printf '%s\n' "${dirs[@]}"
if [ "${1:-}" = --files ]; then
	echo "--"
	for d in "${dirs[@]}"; do
		find "${d#* }" -type f ! -name '.*' | LC_ALL=C sort
	done
fi
[ "$failed" -eq 0 ] || exit 1
[ "$unreachable" -eq 0 ] || exit 3
exit 0
