#!/usr/bin/env bash
# test_hive_cells: regf hives whose cells loop or are shared, written by
# tests/inventory/hostile_hive.py as an attacker would (a Windows image or a
# hive handed to `check --registry`): a subkey list that contains its own
# key, keys sharing one value list, a value list naming one value cell 100
# times, value cells sharing one data cell. Each is refused as a corrupt
# hive, in memory bounded by the hive's size: a 32 KiB hive whose keys loop
# and share a 16 KB value reached 808 MB before "nested deeper than 512",
# every value copied again at every level. The same hive without the
# sharing is read whole (the generator is right).
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=hive-cells
# the release build, bounded in time and memory, and the sanitizer build
BIN=$TDC_BIN
ABIN=$TDC_ASAN_BIN
need build/asan/torch-dll-check || {
	skip "hostile hives under ASan+UBSan" "build/asan/torch-dll-check could not be built (make unit-build)"
	ABIN=
}
if ! "$BIN" inventory --help 2>&1 | grep -q 'regf hive'; then
	skip "hives with shared cells" "this build reads no hives"
	tap_done
fi
hive() { mkdir -p "$tmp/$1" && python3 tests/inventory/hostile_hive.py "$tmp/$1/SOFTWARE" "$1" 100 16000; }
for k in ok loop share both data; do hive $k || not_ok "hostile_hive.py $k"; done

out=$("$BIN" inventory --registry "$tmp/ok/SOFTWARE" --query 'HKLM\SOFTWARE\Python\Loop\K99' 2>&1)
check_eq "the sound hive: read, K99's own 16,000-byte value (0x56 = 'A' + 99 % 26)" "16000 56" \
	"$(sed -n 's/^V REG_BINARY //p' <<<"$out" | tr ',' '\n' | sort | uniq -c | awk '{print $1, $2}')"

refused() { # KIND MESSAGE
	local b out rc
	for b in "$BIN" ${ABIN:+"$ABIN"}; do
		if [ "$b" = "$BIN" ]; then
			out=$( (ulimit -t 5 -v 100000; exec "$b" inventory --registry "$tmp/$1/SOFTWARE") 2>&1 >/dev/null)
		else
			out=$("$b" inventory --registry "$tmp/$1/SOFTWARE" 2>&1 >/dev/null)
		fi
		rc=$?
		if [ $rc -eq 2 ] && grep -q "corrupt hive: $2" <<<"$out"; then ok "$1: refused ($([ "$b" = "$BIN" ] && echo release, bounded || echo ASan))"; else
			not_ok "$1: exit $rc with $b"
			printf '%s\n' "$out" | head -3 | cut -c1-300 | sed 's/^/#   /'
		fi
	done
}
refused loop 'key SOFTWARE\\Python\\Loop\\K0\\K0 is reached twice (its subkey lists loop or share cells)'
refused share 'a value of SOFTWARE\\Python\\Loop\\K1 is also another key.s (value cells shared)'
refused both 'a value of SOFTWARE\\Python\\Loop\\K0 is also another key.s (value cells shared)'
refused data 'its values hold more bytes than the file'
tap_done
