#!/usr/bin/env bash
# test_commit: the commit charge of torch's DLLs and the paging file
# (docs/commit.md), on NVIDIA's REAL DLLs (the nvidia-*-cu11/-cu12 win_amd64
# wheels tests/cuda fetches, cached by tests/cuda/tree.sh).
#
# 1. Each DLL's charge as `pe --json` reads it (commit.bytes) against an
#    independent reading of the same section tables with pefile.
# 2. check's judge on cu118 and cu124 trees of those DLLs (tests/cuda/tree.sh):
#    1, 4 and 8 processes (--processes) below and above the machine's limit
#    (--memory and the registry's PagingFiles), the finding's words and fixes.
#    The community fix both ways: .nv_fatb's write flag set on a copy of the real
#    cublasLt64_12.dll charges its 378 MiB in every process; cleared, nothing.
# 3. Hostile PagingFiles values end to end: bounded, said, never a crash.
TEST_NAME=commit
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
WORK=$tmp

# ---- 1. per DLL: the checker against pefile ----
# the wheels of cu118 and cu124 (their own and the shared cu12 set, cuDNN 9)
wheels=("${CUDA_RT[cu118]}" "${CUDA_NVRTC[cu118]}" "${CUDA_RT[cu124]}" "${CUDA_NVRTC[cu124]}")
for spec in ${CUDA_OWN[cu118]} ${CUDA_OWN[cu124]} ${CUDA_SHARED[12]} $CUDA_CUDNN; do
	wheels+=("${spec%%:*} ${spec#*:}")
done
dirs=()
for w in "${wheels[@]}"; do
	# shellcheck disable=SC2086 # "project version"
	if d=$(_nv_unpack $w 2>"$WORK/unpack.err"); then
		dirs+=("$d")
	else
		skip "per-DLL charge: $w" "PyPI/pip did not give the wheel: $(tail -1 "$WORK/unpack.err")"
	fi
done
if [ ${#dirs[@]} -gt 0 ]; then
	dlls=()
	for d in "${dirs[@]}"; do dlls+=("$d"/*.dll); done
	"$B" pe --json --no-exports "${dlls[@]}" | jq -r '.files[] | "\(.commit.bytes) \(.path)"' | sort -k2 >"$WORK/ours.txt"
	python3 tests/commit/pefile_commit.py "${dlls[@]}" | sort -k2 >"$WORK/pefile.txt"
	check_eq "per-DLL charge of ${#dlls[@]} real NVIDIA DLLs: the checker's reading is pefile's" \
		"" "$(diff "$WORK/ours.txt" "$WORK/pefile.txt")"
	check_eq "some of them charge (cuFFT's .data: over 100 MiB)" "yes" \
		"$(awk '$1 > 100 * 1048576 { y = "yes" } END { print y ? y : "no" }' "$WORK/ours.txt")"
	check_eq "every .nv_fatb of these releases is read-only: none charges" "" \
		"$("$B" pe --json --no-exports "${dlls[@]}" |
			jq -r '.files[] | .path as $p | .sections[] | select(.name == ".nv_fatb" and .characteristics >= 2147483648) | $p')"
fi

# ---- 2. the judge: 1, 4 and 8 processes against the limit ----
PY='C:\Python311\python.exe'
# pagefile_reg FILE ENTRY...: FILE, a UTF-16LE `reg export` with PagingFiles = the ENTRYs (REG_MULTI_SZ)
pagefile_reg() {
	python3 - "$@" <<'PYEOF'
import sys
path, entries = sys.argv[1], sys.argv[2:]
data = "".join(e + "\0" for e in entries) + "\0"
hexs = ",".join("%02x" % b for b in data.encode("utf-16-le"))
text = ("Windows Registry Editor Version 5.00\r\n\r\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management]\r\n"
        '"PagingFiles"=hex(7):' + hexs + "\r\n")
open(path, "wb").write(b"\xff\xfe" + text.encode("utf-16-le"))
PYEOF
}
# commit_of JSON: "rule/severity/winerror" of the commit findings, sorted
commit_of() { jq -r '[.findings[] | select(.rule | startswith("commit")) | "\(.rule)/\(.severity)/\(.winerror)"] | sort | join(" ")' "$1"; }
for var in cu118 cu124; do
	t=$WORK/$var
	if ! cuda_tree "$t" "$var" --full >/dev/null 2>"$WORK/$var.build.err"; then
		skip "$var: the judge" "the tree could not be built: $(tail -1 "$WORK/$var.build.err")"
		continue
	fi
	chk() { "$B" check --root "$t" --python "$PY" --json "$@" 2>>"$WORK/$var.err"; }
	chk --memory 64GiB >"$WORK/$var.1.json"
	P=$(jq '.installs[0].commit.per_process' "$WORK/$var.1.json")
	# the sum is the one the images' own figures give, and the NVIDIA DLLs are in it
	check_eq "$var: one process's charge is the sum over the images mapped" "$P" \
		"$(jq '[.installs[0].commit.images[].bytes] | add' "$WORK/$var.1.json")"
	check_eq "$var: cuFFT's .data is the largest charge" "cufft64_$([ "$var" = cu118 ] && echo 10 || echo 11).dll .data" \
		"$(jq -r '.installs[0].commit.images[0] | "\(.path | split("\\") | last) \(.section)"' "$WORK/$var.1.json")"
	echo "# $var: $P bytes per process ($(jq '.installs[0].commit.images_mapped' "$WORK/$var.1.json") images mapped)"
	# a machine far above: 64 GiB, system-managed paging file
	pagefile_reg "$WORK/sys.reg" 'C:\pagefile.sys 0 0'
	for n in 1 4 8; do
		chk --registry "$WORK/sys.reg" --memory 64GiB --processes "$n" >"$WORK/$var.big.$n.json"
		check_eq "$var, 64 GiB + system-managed, $n processes: no commit finding" "" "$(commit_of "$WORK/$var.big.$n.json")"
	done
	# RAM 2P, a fixed paging file of P to 3P: limit 3P at its starting size, 5P at most
	mb=$(((P + 1048575) / 1048576))
	pagefile_reg "$WORK/fixed.reg" "C:\pagefile.sys $mb $((3 * mb))"
	for n in 1 4 8; do
		chk --registry "$WORK/fixed.reg" --memory "$((2 * mb))MiB" --processes "$n" >"$WORK/$var.fixed.$n.json"
	done
	check_eq "$var, RAM 2P + paging P..3P, 1 process: fits" "" "$(commit_of "$WORK/$var.fixed.1.json")"
	check_eq "$var, 4 processes: above the starting limit, below the reachable one: a warning" \
		"commit-headroom/warning/null" "$(commit_of "$WORK/$var.fixed.4.json")"
	check_eq "$var, 8 processes: above the reachable limit: WinError 1455" \
		"commit-limit/error/1455" "$(commit_of "$WORK/$var.fixed.8.json")"
	f=$(jq -c '.findings[] | select(.rule == "commit-limit")' "$WORK/$var.fixed.8.json")
	need=$(((8 * mb * 1048576 - 2 * mb * 1048576 + 1073741823) / 1073741824))
	check_eq "$var, 8 processes: the fixes in order: a paging file of at least the missing GB, 5 processes, the CPU build" \
		"yes" "$(jq -r --arg g "$need" '.fix | (test("^1\\. a paging file of at least " + $g + " GB") and
			test("2\\. fewer worker processes: at most 5 processes fit \\(DataLoader num_workers=4\\)") and
			test("3\\. the CPU build of torch [0-9.]+, .*whl/cpu")) | if . then "yes" else . end' <<<"$f")"
	check_eq "$var, 8 processes: the finding names the DLL that charges most, and the message the OSError" "yes" \
		"$(jq -r '(.leaf | test("^cufft64_1[01]\\.dll$")) and (.message | test("WinError 1455\\] The paging file is too small") and
			test("cublasLt64_1[12]\\.dll [0-9.]+ MiB \\(\\.data\\)") and test("C:\\\\pagefile.sys"))
			| if . then "yes" else . end' <<<"$f")"
	# a machine below even one process: RAM P/2, no paging file
	pagefile_reg "$WORK/none.reg"
	for n in 1 4 8; do
		chk --registry "$WORK/none.reg" --memory "$((mb / 2))MiB" --processes "$n" >"$WORK/$var.none.$n.json"
		check_eq "$var, RAM P/2 and no paging file, $n processes: WinError 1455" "commit-limit/error/1455" \
			"$(commit_of "$WORK/$var.none.$n.json")"
	done
	check_eq "$var, not one process fits: the fix says fewer workers cannot help" "yes" \
		"$(jq -r '[.findings[] | select(.rule == "commit-limit")][0].fix | test("not even one process fits") | if . then "yes" else . end' \
			"$WORK/$var.none.1.json")"
	# memory unknown: nothing without --processes, a note with it; never an OK about commit
	chk >"$WORK/$var.nomem.json"
	check_eq "$var, memory unknown, --processes not given: no commit finding, the charge in the report" \
		" $P null" "$(commit_of "$WORK/$var.nomem.json") $(jq -c '.installs[0].commit | "\(.per_process) \(.limit_reach)"' -r "$WORK/$var.nomem.json")"
	chk --processes 8 >"$WORK/$var.nomem8.json"
	check_eq "$var, memory unknown, --processes 8: a note that says so" "commit-limit-unknown/note/null" \
		"$(commit_of "$WORK/$var.nomem8.json")"
done

# ---- 2b. the community fix, both ways: .nv_fatb writable charges its whole size ----
# Older NVIDIA releases (cuDNN 8 in torch 1.x-2.x) shipped .nv_fatb writable; fixNvPe.py clears the flag
# (docs/commit.md). Setting it on a copy of the real cublasLt64_12.dll (378 MiB of GPU code) makes the
# charge grow by exactly that section's pages and 8 processes fail; clearing it again passes.
t=$WORK/cu124
if [ -d "$t" ]; then
	lib=$t/Python311/Lib/site-packages/torch/lib
	# nvfatb_write DLL 0|1: set or clear IMAGE_SCN_MEM_WRITE on .nv_fatb in place; prints its pages' size
	nvfatb_write() {
		python3 - "$1" "$2" <<'PYEOF'
import struct, sys
path, on = sys.argv[1], sys.argv[2] == "1"
b = bytearray(open(path, "rb").read())
pe = struct.unpack_from("<I", b, 0x3c)[0]
nsec, optsz = struct.unpack_from("<H", b, pe + 6)[0], struct.unpack_from("<H", b, pe + 20)[0]
align = struct.unpack_from("<I", b, pe + 24 + 32)[0]
for i in range(nsec):
    o = pe + 24 + optsz + 40 * i
    if b[o:o + 8].rstrip(b"\0") == b".nv_fatb":
        vsize = struct.unpack_from("<I", b, o + 8)[0]
        ch = struct.unpack_from("<I", b, o + 36)[0]
        struct.pack_into("<I", b, o + 36, (ch | 0x80000000) if on else (ch & 0x7FFFFFFF))
        print((vsize + align - 1) // align * align)
open(path, "wb").write(b)
PYEOF
	}
	cp --remove-destination "$lib/cublasLt64_12.dll" "$WORK/cublasLt.dll" # a copy: the cache's file is hard-linked
	mv "$WORK/cublasLt.dll" "$lib/cublasLt64_12.dll"
	pagefile_reg "$WORK/small.reg" 'C:\pagefile.sys 1024 1024'
	small=(--registry "$WORK/small.reg" --memory 3GiB --processes 8)
	"$B" check --root "$t" --python "$PY" --json "${small[@]}" >"$WORK/ro.json" 2>>"$WORK/cu124.err"
	span=$(nvfatb_write "$lib/cublasLt64_12.dll" 1)
	"$B" check --root "$t" --python "$PY" --json "${small[@]}" >"$WORK/rw.json" 2>>"$WORK/cu124.err"
	check_eq "cu124, RAM 3 GiB + a 1 GiB paging file, 8 processes, .nv_fatb read-only (as NVIDIA ships it): fits" \
		"" "$(commit_of "$WORK/ro.json")"
	check_eq ".nv_fatb made writable: one process charges exactly its pages more ($span bytes)" "$span" \
		"$(( $(jq '.installs[0].commit.per_process' "$WORK/rw.json") - $(jq '.installs[0].commit.per_process' "$WORK/ro.json") ))"
	check_eq "and 8 processes fail with WinError 1455 on cublasLt64_12.dll, its .nv_fatb named" "commit-limit/error/1455 cublasLt64_12.dll yes" \
		"$(commit_of "$WORK/rw.json") $(jq -r '[.findings[] | select(.rule == "commit-limit")][0] |
			"\(.leaf) \(.message | test("cublasLt64_12\\.dll [0-9.]+ MiB \\(\\.nv_fatb\\)") | if . then "yes" else . end)"' "$WORK/rw.json")"
	nvfatb_write "$lib/cublasLt64_12.dll" 0 >/dev/null # what fixNvPe.py does
	"$B" check --root "$t" --python "$PY" --json "${small[@]}" >"$WORK/fixed-again.json" 2>>"$WORK/cu124.err"
	check_eq "the write flag cleared again (fixNvPe.py's fix): fits again" "" "$(commit_of "$WORK/fixed-again.json")"
fi

# ---- 3. hostile PagingFiles values, end to end ----
t=$WORK/cu124
if [ -d "$t" ]; then
	huge=()
	for i in $(seq 1 3000); do huge+=("C:\\p$i.sys 99999999999999999999 -1"); done
	pagefile_reg "$WORK/hostile.reg" 'C:\pagefile.sys -5 garbage' "${huge[@]}"
	"$B" check --root "$t" --python "$PY" --json --registry "$WORK/hostile.reg" --memory 256MiB --processes 8 \
		>"$WORK/hostile.json" 2>"$WORK/hostile.err"
	check_eq "3,001 hostile PagingFiles entries: a verdict (exit 1: the error), nothing on stderr" "1 " \
		"$? $(cat "$WORK/hostile.err")"
	check_eq "and the finding says what was taken (the first entry, quoted)" "yes" \
		"$(jq -r '[.findings[] | select(.rule | startswith("commit"))][0].message | test("sizes are not two numbers of MB")
			| if . then "yes" else . end' "$WORK/hostile.json")"
fi

tap_done
