#!/usr/bin/env bash
# replay.sh BIN TARGET: feeds the target's saved corpus to its replay driver.
# The committed corpus (tests/fuzz/corpus/TARGET, text-encoded where inputs are
# binary: *.b64 files are decoded first) and the cached one built from fixtures
# and fuzzing runs ($TDC_CACHE/fuzz/TARGET) are both replayed.
set -u
bin=$1
target=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files=()
for f in "$TDC_REPO/tests/fuzz/corpus/$target"/* "$TDC_CACHE/fuzz/$target"/*; do
	[ -f "$f" ] || continue
	case "$f" in
	*.b64)
		out="$tmp/$(basename "$f" .b64)"
		base64 -d "$f" >"$out" || { echo "not ok - fuzz/$target: cannot decode $f"; exit 1; }
		files+=("$out")
		;;
	*) files+=("$f") ;;
	esac
done
if [ ${#files[@]} -eq 0 ]; then
	echo "not ok - fuzz/$target: no corpus to replay"
	exit 1
fi
# Batches keep the command line short.
n=0
for ((i = 0; i < ${#files[@]}; i += 200)); do
	batch=("${files[@]:i:200}")
	if ! "$bin" "${batch[@]}" >"$tmp/out" 2>&1; then
		cat "$tmp/out"
		echo "not ok - fuzz/$target: replay crashed (see above)"
		exit 1
	fi
	n=$((n + ${#batch[@]}))
done
if [ "$n" -ne ${#files[@]} ]; then
	echo "not ok - fuzz/$target: replayed $n of ${#files[@]} inputs"
	exit 1
fi
echo "ok - fuzz/$target: replayed $n inputs under ASan+UBSan"
