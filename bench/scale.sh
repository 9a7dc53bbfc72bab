#!/usr/bin/env bash
# shellcheck disable=SC2317  # the tree builders run through fx_build
# bench/scale.sh: inputs that once made a stage quadratic, one row each,
# with the limits they must stay under (issue 9, "cost that grows faster
# than the input"):
#   - `check` over a torch\lib of 100,000 zero-byte DLLs (100,001 findings
#     through the loader, report_view_init, the text grouping and the
#     JSON writer): was > 600 s; limit 60 s of CPU.
#   - `deps` of a DLL importing 65,535 names from a DLL whose exports all
#     forward to distinct missing DLLs (the forwarder-target lookup): was
#     35 s of CPU; limit 5 s.
#   - `check` over a torch\lib of 20,000 DLLs that all load (copies of one
#     small DLL): the loaded-module list grows to 20,000 and every load
#     looks a path and its imports up in it (was a walk of the list per
#     lookup: 26 s of CPU; indexed now); limit 5 s of CPU.
#   - `pe --json` over export tables of 150,000, 1,000,000 and 4,000,000
#     slots (the reader's cap; tests/lib/many_exports.py, 65,536 named):
#     the whole entry list was held (pe_exports' array, then its JSON text
#     twice), 392 MiB at 4 M; it is streamed now, and peak RSS must not grow
#     with the slot count (4 M within 4 MiB of 150 k). llvm-readobj
#     --coff-exports in the same run, at 150 k and 1 M (at 4 M it took 66 s
#     of CPU).
# Peak RSS is printed for all (linear: about 10 KiB per binary for the
# first, most of it the report's JSON tree and text). The 64 k-forwarder
# pair is built once with clang/lld and cached (tests/lib/fixtures.sh;
# GNU ld takes over half an hour on it). The registry row (a 500 MB file)
# is the registry reader's. Output: Markdown; exit 1 if a limit fails.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
REPO=$PWD
BIN=${TDC_BIN:-$REPO/torch-dll-check}
export BENCH_RUNS=${BENCH_RUNS:-1}
source tests/lib/fixtures.sh
source bench/lib.sh
[ -x "$BIN" ] || { echo "bench: build first (make)" >&2; exit 2; }

zero_tree() { # DIR N: a torch install with N zero-byte DLLs in torch\lib
	local t=$1/Python311/Lib/site-packages/torch
	mkdir -p "$t/lib"
	echo "__version__ = '2.5.1+cpu'" >"$t/version.py"
	(cd "$t/lib" && seq -f 'z%g.dll' 1 "$2" | xargs touch)
}
forwarders() { # DIR N: fw.dll forwarding f1..fN to miss1..missN.dll, imp.dll importing them all
	local i c s e args=()
	{ echo EXPORTS; for ((i = 1; i <= $2; i++)); do echo "f$i = miss$i.g"; done; } >"$1/fw.def"
	make_dll "$1/fw.dll" --toolchain llvm --def "$1/fw.def" || return 1
	for ((c = 0; c * 10000 < $2; c++)); do
		s=$((c * 10000 + 1))
		e=$(((c + 1) * 10000))
		[ "$e" -gt "$2" ] && e=$2
		args+=(--import "fw.dll:$(seq -s, -f 'f%g' "$s" "$e")")
	done
	make_dll "$1/imp.dll" --toolchain llvm "${args[@]}"
}

many_tree() { # DIR N: a torch install whose torch\lib holds N copies (hard links) of one small real DLL
	local t=$1/Python311/Lib/site-packages/torch i
	mkdir -p "$t/lib"
	echo "__version__ = '2.5.1+cpu'" >"$t/version.py"
	make_dll "$1/one.dll" --export f --import KERNEL32.dll:GetLastError || return 1
	for ((i = 1; i <= $2; i++)); do ln "$1/one.dll" "$t/lib/m$i.dll" || return 1; done
}

status=0
row() { # row LABEL CPU_LIMIT CMD...
	local label=$1 limit=$2 w c r st verdict
	shift 2
	read -r w c r st <<<"$(measure "$@")"
	verdict=ok
	if [ "$st" -gt 1 ] || awk -v c="$c" -v l="$limit" 'BEGIN { exit !(c > l) }'; then
		verdict="FAIL (limit $limit s of CPU, exit $st)"
		status=1
	fi
	printf '| %s | %s s | %s s | %s MiB | %s |\n' "$label" "$w" "$c" "$(kib_mib "$r")" "$verdict"
}

echo "# Scale: inputs that were quadratic"
echo
echo "Measured under $(bench_load)."
echo
echo "| input | wall | CPU | peak RSS | |"
echo "|---|---|---|---|---|"
zt=$(fx_build zero-tree zero_tree 100000) || exit 2
row "check: torch\\lib of 100,000 zero-byte DLLs" 60 \
	"$BIN" check --torch "$zt/Python311/Lib/site-packages/torch" --root "$zt" --json "${TMPDIR:-/tmp}/tdc-scale.$$.json"
rm -f "${TMPDIR:-/tmp}/tdc-scale.$$.json"
mt=$(fx_build many-tree many_tree 20000) || exit 2
row "check: torch\\lib of 20,000 DLLs that load (a loaded-module list of 20,000)" 5 \
	"$BIN" check --torch "$mt/Python311/Lib/site-packages/torch" --root "$mt" --json "${TMPDIR:-/tmp}/tdc-scale.$$.json"
rm -f "${TMPDIR:-/tmp}/tdc-scale.$$.json"
fw=$(fx_build forwarders-64k forwarders 65535) || exit 2
row "deps: 65,535 imports forwarded to 65,535 missing DLLs" 5 "$BIN" deps --root "$fw" 'C:\imp.dll'

echo
echo "## pe --json: peak RSS against the export table's size"
echo
echo "| export slots | tool | wall | CPU | peak RSS | |"
echo "|---|---|---|---|---|---|"
# shellcheck disable=SC2317  # called through fx_build
many_exports() { python3 "$REPO/tests/lib/many_exports.py" "$1/many.dll" "$2" 65536; }
first_rss=''
for n in 150000 1000000 4000000; do
	me=$(fx_build "many-exports-$n" many_exports "$n") || exit 2
	read -r w c r st <<<"$(measure "$BIN" pe --json "$me/many.dll")"
	[ -n "$first_rss" ] || first_rss=$r
	verdict=ok
	if [ "$st" -ne 0 ] || [ "$r" -gt $((first_rss + 4096)) ]; then
		verdict="FAIL (more than 4 MiB above the 150,000-slot run, or exit $st)"
		status=1
	fi
	printf '| %s | torch-dll-check pe --json | %s s | %s s | %s MiB | %s |\n' "$n" "$w" "$c" "$(kib_mib "$r")" "$verdict"
	if [ "$n" -le 1000000 ] && command -v llvm-readobj >/dev/null; then
		read -r w c r _ <<<"$(BENCH_RUNS=1 measure llvm-readobj --coff-exports "$me/many.dll")"
		printf '| %s | llvm-readobj --coff-exports | %s s | %s s | %s MiB | |\n' "$n" "$w" "$c" "$(kib_mib "$r")"
	fi
done
exit $status
