#!/usr/bin/env bash
# run.sh SECONDS [TARGET...]: builds and runs the libFuzzer targets (`make fuzz`).
#
# Each tests/fuzz/fuzz_<target>.c is compiled with clang
# -fsanitize=fuzzer,address,undefined against the library sources
# (checker/'s layers except git/, plus build/gen/matrix_embed.c and matrix_tree.c; not the
# command line, checker/cli/) and
# run for SECONDS. Seeds: the committed corpus (tests/fuzz/corpus/<target>,
# *.b64 decoded) and, for pe, the fixtures tests/pe/fixtures.sh builds. New
# inputs go to $TDC_CACHE/fuzz/<target>/ (which `make test` replays), crash
# reproducers to $TDC_CACHE/fuzz-artifacts/<target>/. Prints executions and
# crashes per target; exits 1 if any target crashed.
set -eu
cd "$(dirname "$0")/../.."
: "${TDC_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/torch-dll-check}"
export TDC_CACHE
secs=${1:-60}
shift || true
[ -f build/gen/matrix_embed.c ] || make --no-print-directory build/gen/matrix_embed.c
[ -f build/gen/matrix_tree.c ] || make --no-print-directory build/gen/matrix_tree.c
mkdir -p build/fuzz

srcs=()
while IFS= read -r f; do
	case $f in
	checker/git/git_loose.c) ;; # zlib only: fuzz_loose
	checker/git/* | checker/cli/* | checker/matrix/embed_tree.c) continue ;;
	esac
	srcs+=("$f")
done < <(find checker -name '*.c' | LC_ALL=C sort)
srcs+=(build/gen/matrix_embed.c build/gen/matrix_tree.c)
cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -DTDC_HIVEX -g -O1 -Ichecker -Ibuild/gen
	"-fsanitize=fuzzer,address,undefined" -fno-sanitize-recover=all -fno-omit-frame-pointer)
read -r -a pkg_cflags <<<"$(pkg-config --cflags yaml-0.1 libcjson hivex zlib)"
read -r -a pkg_libs <<<"$(pkg-config --libs yaml-0.1 libcjson hivex zlib)"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		t=${f##*/fuzz_}
		targets+=("${t%.c}")
	done
fi

# A static library, as the Makefile links: only the objects a target needs
# come in (the cmd_*.c files need main.c's helpers, which a target lacks).
echo "== building the library with clang (fuzzer, address, undefined)"
rm -rf build/fuzz/obj build/fuzz/libtdc.a
mkdir -p build/fuzz/obj
objs=()
for f in "${srcs[@]}"; do
	o=build/fuzz/obj/$(basename "${f%.c}").o
	clang "${cflags[@]}" "${pkg_cflags[@]}" -c -o "$o" "$f"
	objs+=("$o")
done
ar rcs build/fuzz/libtdc.a "${objs[@]}"

status=0
for t in "${targets[@]}"; do
	bin=build/fuzz/fuzz_$t
	echo "== $t: building $bin"
	clang "${cflags[@]}" "${pkg_cflags[@]}" -o "$bin" "tests/fuzz/fuzz_$t.c" build/fuzz/libtdc.a "${pkg_libs[@]}"
	seeds=$(mktemp -d)
	for f in tests/fuzz/corpus/"$t"/*; do
		[ -f "$f" ] || continue
		case $f in
		*.b64) base64 -d "$f" >"$seeds/$(basename "$f" .b64)" ;;
		*) cp "$f" "$seeds/" ;;
		esac
	done
	if [ "$t" = pe ]; then
		fx=$(bash tests/pe/fixtures.sh)
		for f in "$fx"/*/*.dll; do cp "$f" "$seeds/$(basename "$(dirname "$f")")-$(basename "$f")"; done
	fi
	corpus=$TDC_CACHE/fuzz/$t
	artifacts=$TDC_CACHE/fuzz-artifacts/$t
	mkdir -p "$corpus" "$artifacts"
	before=$(find "$artifacts" -type f | wc -l)
	log=build/fuzz/$t.log
	echo "== $t: fuzzing for ${secs}s (log $log)"
	set +e
	"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout=10 -max_len=65536 \
		-artifact_prefix="$artifacts/" "$corpus" "$seeds" >"$log" 2>&1
	rc=$?
	set -e
	rm -rf "$seeds"
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	after=$(find "$artifacts" -type f | wc -l)
	echo "== $t: ${execs:-?} executions, $(find "$corpus" -type f | wc -l) corpus files, $((after - before)) new crash reproducers (exit $rc)"
	if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
		grep -m5 -E 'ERROR|SUMMARY|runtime error' "$log" || true
		echo "== $t: reproducers in $artifacts"
		status=1
	fi
done
exit $status
