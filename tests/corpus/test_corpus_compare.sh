#!/usr/bin/env bash
# test_corpus_compare: the PE reader against llvm-readobj (objdump -p where
# llvm-readobj cannot, python3-pefile for version resources) on every real PE
# file fetch.sh gathers (~785: Wine builtins, mingw runtimes, MSVC-built npm
# binaries) and on the standard fixture set. Any difference fails, with the
# exact entry; the totals say how much was compared.
#
# The registry being unreachable fails this test (the corpus is the proof),
# unless TDC_OFFLINE=1, which skips only the npm part and says so.
set -u
TEST_NAME=corpus
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
here=$TDC_REPO/tests/corpus
PY=/usr/bin/python3

list=$tmp/list

bash "$here/fetch.sh" --files >"$list.out" 2>"$list.err"
rc=$?
sed '1,/^--$/d' "$list.out" >"$list"
case $rc in
0) ok "fetched the corpus: $(sed '/^--$/,$d' "$list.out" | wc -l) sources, $(wc -l <"$list") PE files" ;;
3)
	if [ "${TDC_OFFLINE:-0}" = 1 ]; then
		skip "MSVC-built npm binaries" "npm registry unreachable (TDC_OFFLINE=1): NOT compared"
		sed 's/^/# /' "$list.err"
	else
		not_ok "npm registry unreachable: the MSVC-built corpus is missing (set TDC_OFFLINE=1 to skip it knowingly)"
		sed 's/^/#   /' "$list.err"
	fi
	;;
*)
	not_ok "fetching the corpus failed (status $rc)"
	sed 's/^/#   /' "$list.err"
	;;
esac
rm -f "$list.err"

# compare LABEL LISTFILE
compare() {
	local label=$1 files=$2 out
	if out=$("$PY" "$here/compare.py" --bin "$TDC_BIN" --label "$label" "@$files" 2>&1); then
		ok "$(grep '^TOTAL' <<<"$out" | sed 's/^TOTAL //')"
		grep '^NOTE' <<<"$out" | sed 's/^/# /'
	else
		not_ok "$label: the checker differs from the reference readers"
		printf "%s\n" "$out" | head -120 | sed "s/^/#   /"
	fi
}

if [ -s "$list" ]; then
	compare corpus "$list"
	# Every source must have contributed files that were compared.
	for src in wine- mingw-gcc- mingw-w64- zlib-mingw- npm-onnxruntime-node- npm-edge-js-; do
		if grep -q "/corpus/$src" "$list"; then ok "corpus holds $src files"
		elif [ "${TDC_OFFLINE:-0}" = 1 ] && [[ $src == npm-* ]]; then
			skip "corpus holds $src files" "npm registry unreachable (TDC_OFFLINE=1): NOT compared"
		else
			not_ok "corpus holds no $src files"
		fi
	done
fi

fx=$(fx_standard) || not_ok "building the standard fixture set"
if [ -n "${fx:-}" ]; then
	find "$fx" -maxdepth 1 -type f \( -name '*.dll' -o -name '*.exe' \) | LC_ALL=C sort >"$list"
	compare fixtures "$list"
	# The fixtures must hold what they claim, or the comparison proves little.
	"$TDC_BIN" pe --json "$fx"/*.dll "$fx"/*.exe >"$list.out" 2>/dev/null
	check_eq "fixture features are present" "ok" "$("$PY" "$here/fixture_claims.py" "$list.out")"

	# The comparison itself must be able to fail: a checker whose output is
	# wrong in four known places must yield exactly those four differences.
	mutant=$(mktemp)
	cat >"$mutant" <<EOF
#!/bin/sh
"$TDC_BIN" "\$@" | "$PY" -c '
import json, sys
j = json.load(sys.stdin)
for f in j["files"]:
    n = f["path"].rsplit("/", 1)[1]
    if n == "x64_basic.dll": f["imports"][0]["functions"][1]["name"] = "GetProcAddresz"
    if n == "x86_forwarders.dll": f["exports"]["entries"][1]["forwarder"] = "NTDLL.RtlFreeHeap"
    if n == "x64_ordinals.dll": f["imports"][0]["functions"][2] = {"ordinal": 201}
    if n == "x64_delay.dll": f["delay_imports"][0]["dll"] = "directml.dll"
print(json.dumps(j))'
EOF
	chmod +x "$mutant"
	out=$("$PY" "$here/compare.py" --bin "$mutant" --label mutant "@$list" 2>&1)
	check_eq "a wrong checker is caught (4 planted differences)" \
		"4 differences|GetProcAddresz|RtlFreeHeap|201|directml.dll" \
		"$(grep -o '[0-9]* differences' <<<"$out")|$(grep -o 'GetProcAddresz' <<<"$out" | head -1)|$(grep -o 'RtlFreeHeap' <<<"$out" | head -1)|$(grep -o "'ord', 201" <<<"$out" | head -1 | grep -o 201)|$(grep -o 'directml.dll' <<<"$out" | head -1)"
	rm -f "$mutant"
	check_eq "small_10k.dll is 10 KiB" 10240 "$(stat -c %s "$fx/small_10k.dll")"
	check_eq "huge_1g.dll is sparse (takes < 1 MiB on disk)" 1 "$(( $(stat -c %b "$fx/huge_1g.dll") * $(stat -c %B "$fx/huge_1g.dll") < 1048576 ))"
fi
tap_done
