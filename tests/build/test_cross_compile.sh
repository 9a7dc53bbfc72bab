#!/usr/bin/env bash
# test_cross_compile: the modules without third-party dependencies (the PE
# reader, the OS layer for both platforms, strbuf, err, version) compile for Windows
# with mingw-w64, x64 and i686, warnings as errors. Keeps os_win32.c honest
# and the PE reader free of POSIX-isms until the full Windows build exists.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=cross_compile
out=$tmp
mods=(checker/pe/pe.c checker/pe/pe_read.c checker/pe/pe_exports.c checker/pe/pe_version.c checker/pe/pe_commit.c checker/pe/sections.c checker/pe/peek.c checker/util/os_win32.c checker/util/os_posix.c checker/util/strbuf.c checker/util/strmap.c checker/util/err.c checker/util/utf.c checker/util/text.c checker/util/version.c)
for cc in x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc; do
	if ! command -v "$cc" >/dev/null; then
		not_ok "$cc is not installed (gcc-mingw-w64)"
		continue
	fi
	for f in "${mods[@]}"; do
		check_cmd "$cc: $f" "$cc" -std=c11 -Wall -Wextra -Werror -Wmissing-prototypes -Wshadow \
			-Wformat=2 -Wvla -Ichecker -c -o "$out/$(basename "$f" .c).o" "$f"
	done
done
tap_done
