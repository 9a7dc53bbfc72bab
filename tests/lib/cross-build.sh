#!/usr/bin/env bash
# cross-build.sh [--with-git]: builds torch-dll-check.exe (Windows x64) with mingw-w64.
#
# Debian ships no mingw builds of libyaml, cJSON or libgit2, so their Debian
# source packages (pinned versions) are cross-built once, statically, by
# action/deps.sh into $TDC_CACHE/mingw-deps/<key>/, and reused.
# Prints the path of the .exe on the last line. --with-git also builds
# libgit2 (+ pcre2, http-parser, zlib) and torch-dll-check-git.exe.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
with_git=0
[ "${1:-}" = "--with-git" ] && with_git=1

HOST=x86_64-w64-mingw32
# libyaml, cJSON (and libgit2, pcre2, http-parser): action/deps.sh, cached.
deps_args=("$HOST")
[ "$with_git" = 0 ] || deps_args+=(--with-git)
prefix=$(bash action/deps.sh "${deps_args[@]}" | tail -1)
[ -f "$prefix/lib/libcjson.a" ] || { echo "cross-build: action/deps.sh built no libraries" >&2; exit 1; }

out=$repo/build/win
mkdir -p "$out/gen"
{ sh checker/matrix/embed.sh matrix_default_yaml matrix/torch.yml &&
	sh checker/matrix/embed.sh matrix_pairs_text matrix/evidence/extensions-win_amd64.txt; } >"$out/gen/matrix_embed.c"
# the default matrix's tree, parsed at build time by the native embed_tree (plain C data: any target)
make -s build/gen/matrix_tree.c && cp build/gen/matrix_tree.c "$out/gen/matrix_tree.c" || exit 1
# Reproducible: no path of this machine in the .exe (-ffile-prefix-map), no
# link time in its PE header (--no-insert-timestamp), the sources in one order.
cflags=(-std=c11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -DYAML_DECLARE_STATIC -D__USE_MINGW_ANSI_STDIO=1
	"-ffile-prefix-map=$repo=." -Ichecker -I"$prefix/include" "-Wl,--no-insert-timestamp")
# The version resource Windows shows (Properties > Details, SmartScreen's
# prompt): product, version, description and the source commit, compiled by
# windres into a COFF object linked into each .exe. The commit is the last
# one that changed the program's sources (checker/, matrix/), not HEAD: a
# release commit that only adds action/checksums.txt does not change the
# bytes `make dist` pinned before it ("-dirty" when those paths have
# uncommitted changes; TDC_SOURCE_COMMIT overrides; "unknown" outside git).
version=$(sed -n 's/^#define TDC_VERSION "\(.*\)"/\1/p' checker/util/tdc.h)
commit=${TDC_SOURCE_COMMIT:-$(git log -1 --format=%H -- checker matrix 2>/dev/null || true)}
if [ -z "${TDC_SOURCE_COMMIT:-}" ] && [ -n "$commit" ] && [ -n "$(git status --porcelain -- checker matrix 2>/dev/null)" ]; then
	commit=$commit-dirty
fi
[ -n "$commit" ] || commit=unknown
# FILEVERSION a,b,c,0 from X.Y.Z (a pre-release suffix dropped)
nums=$(printf '%s' "$version" | sed 's/[^0-9.].*//' | awk -F. '{ printf "%d,%d,%d,0", $1, $2, $3 }')
rc() { # rc NAME DESCRIPTION: the .rc of NAME.exe
	cat <<RC
#include <winver.h>
1 VERSIONINFO
FILEVERSION $nums
PRODUCTVERSION $nums
FILEFLAGSMASK VS_FFI_FILEFLAGSMASK
FILEFLAGS 0
FILEOS VOS_NT_WINDOWS32
FILETYPE VFT_APP
FILESUBTYPE VFT2_UNKNOWN
BEGIN
  BLOCK "StringFileInfo"
  BEGIN
    BLOCK "040904B0"
    BEGIN
      VALUE "CompanyName", "torch-dll-check"
      VALUE "FileDescription", "$2"
      VALUE "FileVersion", "$version"
      VALUE "InternalName", "$1"
      VALUE "LegalCopyright", "MIT License, the torch-dll-check authors"
      VALUE "OriginalFilename", "$1.exe"
      VALUE "ProductName", "torch-dll-check"
      VALUE "ProductVersion", "$version"
      VALUE "Comments", "source commit $commit"
    END
  END
  BLOCK "VarFileInfo"
  BEGIN
    VALUE "Translation", 0x409, 1200
  END
END
RC
}
rc torch-dll-check "torch-dll-check: will import torch load on this Windows machine" >"$out/gen/version.rc"
rc torch-dll-check-git "torch-dll-check-git: torch pins, audits and history (libgit2)" >"$out/gen/version-git.rc"
$HOST-windres -O coff -i "$out/gen/version.rc" -o "$out/gen/version.o"
$HOST-windres -O coff -i "$out/gen/version-git.rc" -o "$out/gen/version-git.o"

srcs=()
# The layers of checker/LAYERS but the libgit2 ones (git/, cli/git/).
while IFS= read -r f; do
	case "$f" in checker/git/* | checker/cli/git/* | checker/matrix/embed_tree.c) ;; *) srcs+=("$f") ;; esac
done < <(find checker -name '*.c' | LC_ALL=C sort)
$HOST-gcc "${cflags[@]}" -o "$repo/torch-dll-check.exe" "${srcs[@]}" "$out/gen/matrix_embed.c" "$out/gen/matrix_tree.c" "$out/gen/version.o" \
	-L"$prefix/lib" -static -lcjson -lyaml -l:libz.a -lshell32 -ladvapi32
if [ "$with_git" = 1 ]; then
	gsrcs=()
	while IFS= read -r f; do
		case "$f" in checker/cli/main.c | checker/matrix/embed_tree.c) ;; *) gsrcs+=("$f") ;; esac
	done < <(find checker -name '*.c' | LC_ALL=C sort)
	$HOST-gcc "${cflags[@]}" -DPCRE2_STATIC -o "$repo/torch-dll-check-git.exe" "${gsrcs[@]}" "$out/gen/matrix_embed.c" "$out/gen/matrix_tree.c" "$out/gen/version-git.o" \
		-L"$prefix/lib" -static -lgit2 -lhttp_parser -lpcre2-8 -l:libz.a -lcjson -lyaml \
		-lws2_32 -lsecur32 -lrpcrt4 -lcrypt32 -lole32 -ladvapi32
fi
echo "$repo/torch-dll-check.exe"
