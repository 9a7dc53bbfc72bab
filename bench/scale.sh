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
# is the registry reader's.
# Then the second hardening round (issue 24): each stage an attacker reached,
# at three sizes, whose CPU must grow at most linearly (the largest at most
# 2x its share of the smallest, above a 50 ms floor): a blob bomb's header
# check (64 MiB, 256 MiB, 1 GiB stated: flat), one 16 MiB pin file at 4, 40
# and 400 paths (refused past 64 MiB: flat), a PR changing 10k/20k/40k torch
# pins whose markers change (pinset_diff), pyproject.toml of 2/4/8 MB in
# 4,095-key tables (TOML duplicate keys), hives whose keys loop and share a
# value list (100/200/400 keys), and 10/20/40 copies of a Wine prefix's
# system.reg (the text reader's skipped keys).
# Output: Markdown; exit 1 if a limit fails.
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

echo
echo "## Hardening, second round: each stage at three sizes"
echo
echo "| stage | size | wall | CPU | peak RSS | |"
echo "|---|---|---|---|---|---|"
h2=$(mktemp -d)
cmd=()
trap 'rm -rf "$h2"' EXIT
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
GITBIN=$(dirname "$BIN")/torch-dll-check-git
# three LABEL UNIT N1 N2 N3: for each size N, `setup N` builds the input and `run N` sets cmd (the
# command measured: /usr/bin/time runs programs, not shell functions)
three() {
	local label=$1 unit=$2 n first_c='' first_n='' w c r st verdict
	shift 2
	for n in "$@"; do
		setup "$n" >/dev/null 2>&1 || { echo "| $label | $n $unit | setup failed | | | FAIL |"; status=1; continue; }
		run "$n"
		read -r w c r st <<<"$(measure "${cmd[@]}")"
		verdict=ok
		if [ -z "$first_c" ]; then
			first_c=$c first_n=$n
		elif awk -v c="$c" -v f="$first_c" -v n="$n" -v m="$first_n" \
			'BEGIN { base = (f < 0.05 ? 0.05 : f); exit !(c > 2 * base * n / m) }'; then
			verdict="FAIL (more than linear: $c s against $first_c s at $first_n)"
			status=1
		fi
		[ "$st" -gt 2 ] && verdict="FAIL (exit $st)" && status=1
		printf '| %s | %s %s | %s s | %s s | %s MiB | %s |\n' "$label" "$n" "$unit" "$w" "$c" "$(kib_mib "$r")" "$verdict"
	done
}
commit_tree() { # REPO ENTRIES...
	local repo=$1 t c
	shift
	t=$(printf '%s\n' "$@" | git -C "$repo" mktree) && c=$(git -C "$repo" commit-tree -m b "$t") &&
		git -C "$repo" update-ref refs/heads/main "$c" && git -C "$repo" symbolic-ref HEAD refs/heads/main
}

setup() { rm -rf "$h2/bomb" && git init -q "$h2/bomb" &&
	commit_tree "$h2/bomb" "100644 blob $(python3 tests/pins/loose_object.py "$h2/bomb/.git" $(($1 << 20)))	requirements.txt"; }
run() { cmd=("$GITBIN" pins --repo "$h2/bomb"); }
three "pins: a blob bomb (refused from its header)" "MiB stated" 64 256 1024

python3 -c "
import sys
line = b'# ' + b'x' * 97 + b'\n'
sys.stdout.buffer.write(b'torch==2.4.0\n' + line * ((16 * 1024 * 1024 - 20) // len(line)))" >"$h2/big.txt"
setup() {
	local i e=()
	rm -rf "$h2/fan" && git init -q "$h2/fan" && b=$(git -C "$h2/fan" hash-object -w "$h2/big.txt") || return 1
	for ((i = 1; i <= $1; i++)); do e+=("100644 blob $b	requirements-$i.txt"); done
	commit_tree "$h2/fan" "${e[@]}"
}
run() { cmd=("$GITBIN" pins --repo "$h2/fan"); }
three "pins: one 16 MiB pin file at many paths (64 MiB per revision)" paths 4 40 400

setup() {
	rm -rf "$h2/diff" && git init -q "$h2/diff" &&
		awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "torch==2.4.0 ; platform_release == \"k%d\"\n", i }' >"$h2/diff/requirements.txt" &&
		git -C "$h2/diff" add . && git -C "$h2/diff" commit -qm base &&
		awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "torch==2.4.1 ; platform_release == \"j%d\"\n", i }' >"$h2/diff/requirements.txt" &&
		git -C "$h2/diff" commit -qam head
}
run() { cmd=("$GITBIN" pins --repo "$h2/diff" --base HEAD~1 --head HEAD); }
three "pins --base: torch pins whose markers all change (pinset_diff)" pins 10000 20000 40000

setup() { rm -rf "$h2/toml" && git init -q "$h2/toml" && python3 tests/pins/many_keys_toml.py 4095 $(($1 * 1000000)) >"$h2/toml/pyproject.toml" &&
	git -C "$h2/toml" add . && git -C "$h2/toml" commit -qm t; }
run() { cmd=("$GITBIN" pins --repo "$h2/toml"); }
three "pins: pyproject.toml of 4,095-key tables (duplicate keys)" MB 2 4 8

setup() { mkdir -p "$h2/hive$1" && python3 tests/inventory/hostile_hive.py "$h2/hive$1/SOFTWARE" both "$1" 16000; }
run() { cmd=("$BIN" inventory --registry "$h2/hive$1/SOFTWARE"); }
three "inventory: a hive whose keys loop and share a 16 KB value (refused)" keys 100 200 400

# shellcheck source=tests/oracle/wine.sh
if source tests/oracle/wine.sh 2>/dev/null && wp=$(wine_prefix_ensure 2>/dev/null) && [ -f "$wp/system.reg" ]; then
	setup() { python3 - "$wp/system.reg" "$h2/sys$1.reg" "$1" <<'PY'
import sys
src = open(sys.argv[1], encoding="utf-8").read()
head, sep, body = src.partition("\n\n")
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write(head + sep)
    for i in range(int(sys.argv[3])):
        out.write(body.replace("\n[Software\\\\", "\n[Software\\\\Copy%d\\\\" % i).replace("\n[System\\\\", "\n[System\\\\Copy%d\\\\" % i) + "\n")
PY
	}
	run() { cmd=("$BIN" inventory --registry "$h2/sys$1.reg"); }
	three "inventory: copies of a wineboot prefix's system.reg ($(($(stat -c %s "$wp/system.reg") / 1000)) kB each)" copies 10 20 40
else
	echo "| inventory: copies of a Wine prefix's system.reg | | | | | SKIP: no Wine prefix |"
fi
exit $status
