#!/usr/bin/env bash
# test_exec_sibling_wine: the Windows side of `torch-dll-check pins`
# (os_exec_sibling in os_win32.c) under Wine: the sibling .exe next to the
# running one is found, receives every argument exactly (spaces, quotes,
# trailing and doubled backslashes, empty strings: CommandLineToArgvW's
# rules), and its exit status comes back.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=exec-sibling-wine

if ! command -v wine >/dev/null || ! command -v x86_64-w64-mingw32-gcc >/dev/null; then
	not_ok "wine and mingw-w64 are needed (make setup)"
	tap_done
fi
# The suite's one Wine prefix (tests/oracle/wine.sh), held for this run: a
# prefix of its own would be another wineboot and ~700 MB more in the cache.
# shellcheck source=tests/oracle/wine.sh
source tests/oracle/wine.sh
if ! PFX=$(wine_prefix_ensure); then
	not_ok "the Wine prefix could not be made (tests/oracle/wine.sh)"
	tap_done
fi
wine_lock "$PFX"
wine_start "$PFX"
# shellcheck disable=SC2016  # expanded when the script exits
at_exit 'wine_stop "$PFX"'
mkdir -p "$tmp/bin"

cat >"$tmp/parent.c" <<'C'
#include <stdio.h>
#include "util/os.h"
int main(int argc, char **argv)
{
	struct err err;
	int status = -1;
	(void)argc;
	if (os_exec_sibling("child", argv, &status, &err) < 0) {
		fprintf(stderr, "parent: %s\n", err.msg);
		return 99;
	}
	return status;
}
C
cat >"$tmp/child.c" <<'C'
#include <stdio.h>
int main(int argc, char **argv)
{
	int i;
	for (i = 1; i < argc; i++)
		printf("[%s]\n", argv[i]);
	return 7;
}
C
check_cmd "parent builds with os_win32.c" x86_64-w64-mingw32-gcc -std=c11 -Ichecker "$tmp/parent.c" \
	checker/util/os_win32.c checker/util/strbuf.c checker/util/err.c -o "$tmp/bin/parent.exe"
check_cmd "child builds" x86_64-w64-mingw32-gcc "$tmp/child.c" -o "$tmp/bin/child.exe"

# Wine's helpers keep pipes open: redirect to files, never pipe.
# shellcheck disable=SC1003 # the backslashes are the test
WINEDEBUG=-all wine_run "$PFX" "$tmp/out" "$tmp/err" "$tmp/bin/parent.exe" plain "with space" 'quote"inside' 'trail\' 'back\\"slash' '' 'a\b\c' \
	'tab	x'
rc=$?
check_eq "exit status of the child comes back" 7 "$rc"
expected=$(printf '%s\n' '[plain]' '[with space]' '[quote"inside]' '[trail\]' '[back\\"slash]' '[]' \
	'[a\b\c]' '[tab	x]')
check_eq "every argument arrives unchanged" "$expected" "$(tr -d '\r' <"$tmp/out")"

rm "$tmp/bin/child.exe"
WINEDEBUG=-all wine_run "$PFX" "$tmp/out" "$tmp/err" "$tmp/bin/parent.exe" x
rc=$?
check_eq "missing sibling: an error, not a crash" 99 "$rc"
check_eq "missing sibling: message names it" 1 "$(grep -c '^parent: cannot run .*child.exe' "$tmp/err")"
tap_done
