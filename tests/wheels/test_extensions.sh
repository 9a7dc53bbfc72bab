#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_extensions: torch never loads alone — REAL wheels from PyPI (fetched
# once, sha256 = PyPI's, cached; tests/lib/wheels.py) installed whole next to
# the CI tier's torch releases (tests/lib/trees/wheels.sh):
#
#   torch 2.9.1 + torchvision 0.21.0 / torchaudio 2.6.0 (built for torch
#   2.6.0): WinError 127 on c10/torch_cpu symbols, said as a mismatch with
#   the pair to install; torch 2.9.1 + torchvision 0.24.1 + torchaudio 2.9.1
#   (the matched pair) and torch 2.4.1 + torchvision 0.19.1 + torchaudio
#   2.4.1: every extension loads; torch 2.4.1 + torchvision 0.21.0 (an older
#   torch than it was built for); PyQt5 5.15.11 + PyQt5-Qt5 5.15.2 next to
#   torch 2.9.1: a warning about its msvcp140.dll 14.26, and with
#   --import-first PyQt5 (and PyQt5.QtCore: that module only) the real
#   verdict (WinError 1114 in c10.dll); PyQt6 6.7.1 + PyQt6-Qt6 6.7.3 (its
#   msvcp140.dll 14.26 too); xformers 0.0.33 (built for a CUDA torch 2.9.0)
#   next to torch 2.9.1+cpu: 126 on c10_cuda.dll, said as a GPU build's;
#   torchtext 0.18.0 next to torch 2.4.1, followed by its extension_load
#   entry (libtorchtext.pyd by ctypes, then _torchtext.pyd): a mismatch; a
#   look-alike msvcp140.dll that lacks one name torch imports (WinError 127,
#   a warning, and with --import-first the verdict on c10.dll); each cause's
#   binaries worded by whose they are in every renderer;
#   bad input (a RECORD path outside the environment, a dist-info without
#   RECORD, a METADATA that lies about its torch, an unknown --import-first);
#   torch 2.4.1 + torchaudio 2.4.1 on Python 3.8 (the cp38 wheels): its
#   _init_dll_path adds the PATH folders, so a VCOMP140.DLL only on PATH loads
#   there and fails 126 on 3.11; a torchvision DLL changed after install
#   (image.pyd's 127) naming the reinstall;
#   and Wine's loader (tests/oracle) importing each extension binary after
#   torch's procedure, and PyQt5 before it, agreeing with the checker per
#   binary (tests/wheels/oracle_ext_compare.py).
TEST_NAME=extensions
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp # start.sh's: removed at exit
PY='C:\Python311\python.exe'

# whl PROJECT VERSION: the cached wheel's path, or a skip naming it (status 1).
declare -A WHL
whl() {
	local k="$1==$2" err
	if [ -z "${WHL[$k]:-}" ]; then
		if ! WHL[$k]=$(wheel_fetch "$1" "$2" 2>"$WORK/err"); then
			err=$(grep -v '^\s*$' "$WORK/err" | tail -1)
			WHL[$k]=
			echo "PyPI/pip did not give $1 $2's win_amd64 wheel: ${err:-no reason given}" >"$WORK/why"
			return 1
		fi
	fi
	echo "${WHL[$k]}"
}

# tree NAME TORCH [PROJECT==VERSION...]: torch TORCH's tree (one per torch, shared by hard links) with those wheels
# installed whole; prints nothing, status 1 (and $WORK/why) when a wheel is missing.
tree() {
	local name=$1 tv=$2 base w ws=()
	shift 2
	base=$WORK/torch-$tv
	if [ ! -d "$base" ]; then
		w=$(whl torch "$tv") || return 1
		wheel_tree "$base" "$w" >/dev/null 2>"$WORK/why" || return 1
		tree_redist "$base" 14.44.35112 2>/dev/null # System32 as a current Windows 11 has it
	fi
	for w in "$@"; do
		ws+=("$(whl "${w%%==*}" "${w#*==}")") || return 1
	done
	tree_variant "$base" "$WORK/$name" && tree_extensions "$WORK/$name" "${ws[@]}" 2>"$WORK/why"
}

C() { "$B" check --root "$WORK/$1" --python "$PY" "${@:2}" --json 2>"$WORK/check.err"; }
J() { C "$1" "${@:3}" | jq -c "$2" 2>&1; }
st() { "$B" check --root "$WORK/$1" --python "$PY" "${@:2}" >/dev/null 2>&1; echo $?; }
# one extension's [name, version, status, built_for, [[binary, outcome, leaf], ...]]
ext() { J "$1" ".installs[0].extensions[] | select(.name == \"$2\") |
	[.name, .version, .status, .built_for_torch, [.binaries[] | [(.path | split(\"\\\\\") | last), .outcome, .leaf]]]" "${@:3}"; }
mism='[.findings[] | select(.rule == "extension-mismatch") | [.title, .fix]]'

# ---- torch 2.9.1 with torchvision 0.21.0 and torchaudio 2.6.0, built for torch 2.6.0
if tree mismatch 2.9.1 torchvision==0.21.0 torchaudio==2.6.0; then
	check_eq "2.9.1 + torchvision 0.21.0: both binaries fail with 127 on c10.dll, the extension fails" \
		'["torchvision","0.21.0","fail","2.6.0",[["_C.pyd","missing-entry-point","c10.dll"],["image.pyd","missing-entry-point","c10.dll"]]]' \
		"$(ext mismatch torchvision)"
	check_eq "2.9.1 + torchaudio 2.6.0: libtorchaudio.pyd (ctypes) and _torchaudio.pyd fail; torio's FFmpeg modules are lazy" \
		'["torchaudio","2.6.0","fail","2.6.0",[["libtorchaudio.pyd","missing-entry-point","torch_cpu.dll"],["_torchaudio.pyd","missing-entry-point","torch_cpu.dll"],["_torio_ffmpeg4.pyd","not-loaded",null],["_torio_ffmpeg5.pyd","not-loaded",null],["_torio_ffmpeg6.pyd","not-loaded",null],["libtorio_ffmpeg4.pyd","not-loaded",null],["libtorio_ffmpeg5.pyd","not-loaded",null],["libtorio_ffmpeg6.pyd","not-loaded",null]]]' \
		"$(J mismatch '.installs[0].extensions[] | select(.name == "torchaudio") | [.name, .version, .status, .built_for_torch, ([.binaries[] | [(.path | split("\\") | last), .outcome, .leaf]] | .[0:2] + (.[2:] | sort))]')"
	check_eq "2.9.1 + 0.21.0: the mismatch said as a mismatch, the fix names the pair (measured in matrix/evidence)" \
		'[["torchaudio 2.6.0 was built for torch 2.6.0; torch 2.9.1+cpu is installed","install torchaudio==2.9.1 (built for torch 2.9.1), or torch==2.6.0"],["torchvision 0.21.0 was built for torch 2.6.0; torch 2.9.1+cpu is installed","install torchvision==0.24.1 (built for torch 2.9.1), or torch==2.6.0"]]' \
		"$(J mismatch "$mism | sort")"
	check_eq "2.9.1 + 0.21.0: the missing symbol shown demangled next to the raw one" \
		'["?toScalarType@TypeMeta@caffe2@@QEAA?AW4ScalarType@c10@@XZ","public: enum c10::ScalarType __cdecl caffe2::TypeMeta::toScalarType(void)"]' \
		"$(J mismatch '.installs[0].extensions[] | select(.name == "torchvision") | .binaries[0] | [.symbol, .symbol_demangled]')"
	check_eq "2.9.1 + 0.21.0: torchvision's own folder added with os.add_dll_directory, its loads are ctypes' 0x1100" \
		'[["C:\\Python311\\Lib\\site-packages\\torchvision"],["ctypes","0x1100"]]' \
		"$(J mismatch '.installs[0].extensions[] | select(.name == "torchvision") | [.dll_directories, (.binaries[0] | [.how, .flags])]')"
	check_eq "2.9.1 + 0.21.0: torch itself still loads (the verdict line does not say torch will not load), exit 1" \
		'FAIL torch 2.9.1+cpu: torch|0|1' \
		"$("$B" check --root "$WORK/mismatch" --python "$PY" | head -1 | cut -d' ' -f1-4 | sed 's/torch[av].*/torch/')|$(
			"$B" check --root "$WORK/mismatch" --python "$PY" | head -1 | grep -c 'will not load')|$(st mismatch)"
	out=$(COLUMNS=300 "$B" check --root "$WORK/mismatch" --python "$PY")
	check_eq "2.9.1 + 0.21.0: the text report lists each extension with its verdict" \
		'    FAIL torchaudio 2.6.0 (built for torch 2.6.0): 2 of 2 binaries loaded at import fail|    FAIL torchvision 0.21.0 (built for torch 2.6.0): 2 of 2 binaries loaded at import fail' \
		"$(grep '^    FAIL torch' <<<"$out" | sort | paste -sd'|')"
	C mismatch >"$WORK/m.json"
	"$B" report --in "$WORK/m.json" --format sarif >"$WORK/m.sarif" 2>/dev/null
	check_eq "2.9.1 + 0.21.0: SARIF has one extension-mismatch result per extension" \
		'2' "$(jq '[.runs[0].results[] | select(.ruleId == "extension-mismatch")] | length' "$WORK/m.sarif")"
	"$B" report --in "$WORK/m.json" --format github >"$WORK/m.gh" 2>/dev/null
	check_eq "2.9.1 + 0.21.0: GitHub annotations carry both mismatches" \
		'2' "$(grep -c '^::error .*was built for torch 2.6.0' "$WORK/m.gh")"
	"$B" report --in "$WORK/m.json" --format github --summary "$WORK/m.md" --outputs '' >/dev/null 2>&1
	check_eq "2.9.1 + 0.21.0: the job summary has one row per extension" \
		'| torchaudio | 2\.6\.0 | extension\, after torch | 2\.6\.0 | ❌ fail | 2 |;| torchvision | 0\.21\.0 | extension\, after torch | 2\.6\.0 | ❌ fail | 2 |' \
		"$(grep '^| torch[av]' "$WORK/m.md" | sort | paste -sd';')"
else
	skip "torch 2.9.1 with torchvision 0.21.0 / torchaudio 2.6.0" "$(cat "$WORK/why")"
fi

# ---- the matched pairs: torch 2.9.1 + torchvision 0.24.1 + torchaudio 2.9.1; torch 2.4.1 + 0.19.1 + 2.4.1
if tree matched 2.9.1 torchvision==0.24.1 torchaudio==2.9.1; then
	check_eq "2.9.1 + torchvision 0.24.1 + torchaudio 2.9.1: both extensions listed, every binary loads" \
		'[["torchaudio","2.9.1","pass","2.9.1"],["torchvision","0.24.1","pass","2.9.1"]]' \
		"$(J matched '[.installs[0].extensions[] | [.name, .version, .status, .built_for_torch]] | sort')"
	check_eq "2.9.1 matched: no extension finding, exit 0" '[]|0' \
		"$(J matched '[.findings[] | select(.rule | startswith("extension"))]')|$(st matched)"
else
	skip "torch 2.9.1 with torchvision 0.24.1 / torchaudio 2.9.1" "$(cat "$WORK/why")"
fi
# ---- RECORD against the disk for every extension (issue #21), on the matched tree's real files
if [ -d "$WORK/matched" ]; then
	tree_variant "$WORK/matched" "$WORK/rec"
	rsp=$WORK/rec/Python311/Lib/site-packages
	check_eq "matched: each extension's RECORD read, nothing deleted, changed or left over" \
		'[["torchaudio",0,0,0,0],["torchvision",0,0,0,0]]' \
		"$(J matched '[.installs[0].extension_records[] | [.name, .deleted, .changed, .leftover, .refused]] | sort')"
	# quarantine takes torchvision's libpng16.dll; a DLL of another install is left in its folder and in torchaudio's lib
	rm -f "$rsp/torchvision/libpng16.dll"
	cp "$rsp/torchvision/zlib.dll" "$rsp/torchvision/libpng12.dll"
	cp "$rsp/torchvision/zlib.dll" "$rsp/torchaudio/lib/libsox_old.dll"
	check_eq "torchvision's libpng16.dll deleted: deleted-after-install, attributed to torchvision with its own reinstall" \
		'[["libpng16.dll was deleted after install","restore libpng16.dll from the antivirus quarantine, or reinstall with `pip install --force-reinstall --no-deps torchvision==0.24.1`"]]' \
		"$(J rec '[.findings[] | select(.rule == "deleted-after-install") | [.title, .fix]]')"
	check_eq "the leftovers in torchvision's and torchaudio's folders: leftover-binary, each with its distribution's reinstall" \
		'[["libpng12.dll is not part of this torchvision install (a leftover)","remove C:\\Python311\\Lib\\site-packages\\torchvision\\libpng12.dll (or reinstall with `pip install --force-reinstall --no-deps torchvision==0.24.1` after removing its folder)"],["libsox_old.dll is not part of this torchaudio install (a leftover)","remove C:\\Python311\\Lib\\site-packages\\torchaudio\\lib\\libsox_old.dll (or reinstall with `pip install --force-reinstall --no-deps torchaudio==2.9.1` after removing its folder)"]]' \
		"$(J rec '[.findings[] | select(.rule == "leftover-binary") | [.title, .fix]] | sort')"
	check_eq "image.pyd's 126 on the deleted libpng16.dll: its fix restores that file and reinstalls torchvision" \
		'[["image.pyd",126,"libpng16.dll","restore C:\\Python311\\Lib\\site-packages\\torchvision\\libpng16.dll from the antivirus quarantine, or reinstall with `pip install --force-reinstall --no-deps torchvision==0.24.1` (torchvision installed it and it was deleted after install)"]]' \
		"$(J rec '[.findings[] | select(.rule == "extension-load-failure") | [(.binary | split("\\") | last), .winerror, .leaf, .fix]]')"
	check_eq "extension_records: torchvision 1 deleted, 1 leftover; torchaudio 1 leftover" \
		'[["torchaudio",0,1],["torchvision",1,1]]' \
		"$(J rec '[.installs[0].extension_records[] | [.name, .deleted, .leftover]] | sort')"
	# the one pyd an extension imports, deleted: its own load failure says restore it
	rm -f "$rsp/torchaudio/lib/_torchaudio.pyd"
	check_eq "torchaudio's _torchaudio.pyd deleted: deleted-after-install, attributed to torchaudio with its own reinstall" \
		'["_torchaudio.pyd was deleted after install","restore _torchaudio.pyd from the antivirus quarantine, or reinstall with `pip install --force-reinstall --no-deps torchaudio==2.9.1`"]' \
		"$(J rec '[.findings[] | select(.rule == "deleted-after-install" and .leaf == "_torchaudio.pyd") | .title, .fix]')"
	check_eq "--verify-hashes: a same-size DLL with other bytes is changed-after-install, attributed to torchvision" \
		'["jpeg8.dll was changed after install (its sha256 is not RECORD'"'"'s)","reinstall with `pip install --force-reinstall --no-deps torchvision==0.24.1`"]' \
		"$(j=$rsp/torchvision/jpeg8.dll; cp --remove-destination "$j" "$j.new" && printf 'X' | dd of="$j.new" bs=1 seek=100 conv=notrunc 2>/dev/null && mv "$j.new" "$j"
			J rec '[.findings[] | select(.rule == "changed-after-install") | .title, .fix]' --verify-hashes)"
fi
# ---- a changed extension DLL: torchvision's libwebp.dll replaced by a same-named PE lacking one name image.pyd imports
if [ -d "$WORK/matched" ]; then
	tree_variant "$WORK/matched" "$WORK/chg"
	csp=$WORK/chg/Python311/Lib/site-packages
	"$TDC_BIN" pe --json --no-exports "$csp/torchvision/image.pyd" |
		jq -r '.files[0].imports[] | select(.dll | ascii_downcase == "libwebp.dll") | .functions[] | .name // empty' |
		sort -u >"$WORK/webp-names.txt"
	wdrop=$(head -1 "$WORK/webp-names.txt")
	{ echo EXPORTS; tail -n +2 "$WORK/webp-names.txt"; } >"$WORK/webp.def"
	if [ -n "$wdrop" ] && rm -f "$csp/torchvision/libwebp.dll" &&
		make_dll "$csp/torchvision/libwebp.dll" --def "$WORK/webp.def" --import KERNEL32.dll:GetLastError; then
		check_eq "torchvision's libwebp.dll changed (size differs from RECORD), lacking $wdrop: image.pyd's 127 names the reinstall" \
			'[["image.pyd",127,"libwebp.dll","C:\\Python311\\Lib\\site-packages\\torchvision\\libwebp.dll was changed after install: reinstall with `pip install --force-reinstall --no-deps torchvision==0.24.1`"]]|["libwebp.dll was changed after install"]' \
			"$(J chg '[.findings[] | select(.rule == "extension-load-failure") | [(.binary | split("\\") | last), .winerror, .leaf, .fix]]')|$(
				J chg '[.findings[] | select(.rule == "changed-after-install") | .title | sub(" \\(.*"; "")]')"
	else
		echo "not ok - extensions: could not build the changed libwebp.dll (image.pyd's libwebp.dll imports: $(wc -l <"$WORK/webp-names.txt"))"
	fi
fi
# ---- hostile extension RECORDs: bounded, said, never a PASS
if [ -d "$WORK/matched" ]; then
	xrec() { # xrec NAME: a variant of matched whose torchvision RECORD is stdin
		tree_variant "$WORK/matched" "$WORK/$1"
		local r
		r=$(ls -d "$WORK/$1"/Python311/Lib/site-packages/torchvision-*.dist-info)/RECORD
		rm -f "$r" && cat >"$r"
	}
	tvrec=$(ls -d "$WORK/matched"/Python311/Lib/site-packages/torchvision-*.dist-info)/RECORD
	{ cat "$tvrec"; printf 'torchvision/%s.dll,,1\n' "$(head -c 1048576 /dev/zero | tr '\0' a)"; } | xrec xl
	check_eq "torchvision RECORD with a 1 MB line: record-unreadable for torchvision, its reinstall in the fix" \
		'[["torchvision'"'"'s RECORD is unreadable",true]]' \
		"$(J xl '[.findings[] | select(.rule == "record-unreadable") | [(.title | split(":")[0]), (.fix | test("torchvision==0.24.1"))]]')"
	{ cat "$tvrec"; python3 -c 'import sys
w = sys.stdout.write
for i in range(999000): w("torchvision/g/%d.py,,1\n" % i)'; } | xrec xbig
	cpu_mark
	check_eq "torchvision RECORD of 10^6 rows, 999000 files not there: one counting finding for torchvision, bounded" \
		'[999000,["999000 more files of torchvision deleted after install"]]' \
		"$(J xbig '[(.installs[0].extension_records[] | select(.name == "torchvision") | .deleted),
			[.findings[] | select(.rule == "deleted-after-install") | .title]]')"
	cpu_since
	check_eq "…under 90 s of CPU under ASan (took $_tdc_cpu_secs s)" ok "$([ "$_tdc_cpu_secs" -lt 90 ] && echo ok)"
	tree_variant "$WORK/matched" "$WORK/xlo"
	for i in $(seq 1 120); do ln "$WORK/xlo/Python311/Lib/site-packages/torchvision/zlib.dll" "$WORK/xlo/Python311/Lib/site-packages/torchvision/old$i.dll"; done
	check_eq "120 leftover DLLs in torchvision's folder: 50 named, one finding counting the other 70" \
		'[50,["70 more binaries that are not part of this torchvision install (leftovers)"],120]' \
		"$(J xlo '[([.findings[] | select(.rule == "leftover-binary" and .leaf != null)] | length),
			[.findings[] | select(.rule == "leftover-binary" and .leaf == null) | .title],
			(.installs[0].extension_records[] | select(.name == "torchvision") | .leftover)]')"
fi
if tree matched241 2.4.1 torchvision==0.19.1 torchaudio==2.4.1; then
	check_eq "2.4.1 + torchvision 0.19.1 + torchaudio 2.4.1: every binary loads" \
		'[["torchaudio","pass",0],["torchvision","pass",0]]' \
		"$(J matched241 '[.installs[0].extensions[] | [.name, .status, .binaries_failing]] | sort')"
	if tree older 2.4.1 torchvision==0.21.0; then
		check_eq "2.4.1 + torchvision 0.21.0 (built for the newer 2.6.0): a mismatch, the fix names 0.19.1" \
			'[["torchvision 0.21.0 was built for torch 2.6.0; torch 2.4.1+cpu is installed","install torchvision==0.19.1 (built for torch 2.4.1), or torch==2.6.0"]]' \
			"$(J older "$mism")"
	fi
else
	skip "torch 2.4.1 with torchvision 0.19.1 / torchaudio 2.4.1" "$(cat "$WORK/why")"
fi

# ---- torchaudio 2.4.1 on Python 3.8: _extension/__init__.py's `(3, 8) <= sys.version_info < (3, 9)` runs
# _init_dll_path, every existing PATH folder an os.add_dll_directory. libtorchaudio.pyd imports VCOMP140.DLL
# (torch's own binaries do not): moved out of System32 into C:\Tools, on PATH only.
if w38=$(wheel_fetch torch 2.4.1 3.8 2>"$WORK/why") && a38=$(wheel_fetch torchaudio 2.4.1 3.8 2>"$WORK/why") &&
	wheel_tree "$WORK/py38" "$w38" >/dev/null 2>"$WORK/why" && tree_redist "$WORK/py38" 14.44.35112 2>"$WORK/why" &&
	tree_extensions "$WORK/py38" "$a38" 2>"$WORK/why"; then
	mkdir -p "$WORK/py38/Tools" && mv "$WORK/py38/Windows/System32/vcomp140.dll" "$WORK/py38/Tools/"
	P38() { "$B" check --root "$WORK/py38" --python 'C:\Python38\python.exe' --env 'PATH=C:\Tools;C:\NotThere' --json 2>/dev/null; }
	check_eq "py3.8 + torchaudio 2.4.1, VCOMP140.DLL only in a PATH folder: _init_dll_path added it, libtorchaudio.pyd loads" \
		'["pass",true,[["libtorchaudio.pyd","loads"],["_torchaudio.pyd","loads"]],true]' \
		"$(P38 | jq -c '.installs[0].extensions[] | select(.name == "torchaudio") | [.status,
			(.dll_directories | index("C:\\Tools") != null),
			[.binaries[] | select(.outcome != "not-loaded") | [(.path | split("\\") | last), .outcome]],
			(.notes | any(test("_init_dll_path added [0-9]+ PATH folder")))]')"
	check_eq "py3.8: C:\\NotThere (on PATH, missing) is not added" 'false' \
		"$(P38 | jq -c '.installs[0].extensions[] | select(.name == "torchaudio") | .dll_directories | index("C:\\NotThere") != null')"
	# the same tree, its __init__.py without the call (an older/patched torchaudio): nothing added, 126
	tree_variant "$WORK/py38" "$WORK/py38n"
	i38=$WORK/py38n/Python38/Lib/site-packages/torchaudio/_extension/__init__.py
	sed 's/_init_dll_path()/pass/' "$i38" >"$i38.new" && mv "$i38.new" "$i38"
	check_eq "py3.8, __init__.py without _init_dll_path(): no PATH folder added, both binaries fail 126 on VCOMP140.DLL" \
		'[["libtorchaudio.pyd",126,"VCOMP140.DLL"],["_torchaudio.pyd",126,"VCOMP140.DLL"]]' \
		"$("$B" check --root "$WORK/py38n" --python 'C:\Python38\python.exe' --env 'PATH=C:\Tools' --json 2>/dev/null |
			jq -c '[.installs[0].extensions[] | select(.name == "torchaudio") | .binaries[] | select(.winerror != 0 and .winerror != null) |
				[(.path | split("\\") | last), .winerror, .leaf]]')"
else
	skip "torch 2.4.1 + torchaudio 2.4.1 on Python 3.8" "$(cat "$WORK/why")"
fi
if [ -d "$WORK/matched241" ]; then
	tree_variant "$WORK/matched241" "$WORK/py311p"
	mkdir -p "$WORK/py311p/Tools" && mv "$WORK/py311p/Windows/System32/vcomp140.dll" "$WORK/py311p/Tools/"
	check_eq "py3.11 + torchaudio 2.4.1, VCOMP140.DLL only on PATH: the 3.8 branch does not run, both binaries fail 126" \
		'[[],[["libtorchaudio.pyd",126,"VCOMP140.DLL"],["_torchaudio.pyd",126,"VCOMP140.DLL"]]]' \
		"$(J py311p '[.installs[0].extensions[] | select(.name == "torchaudio") | (.dll_directories,
			[.binaries[] | select(.winerror != 0 and .winerror != null) | [(.path | split("\\") | last), .winerror, .leaf]])]' --env 'PATH=C:\Tools')"
fi

# ---- PyQt5 + PyQt5-Qt5 5.15.2 next to torch 2.9.1: its msvcp140.dll 14.26.28720.3
if tree qt 2.9.1 PyQt5-Qt5==5.15.2 PyQt5==5.15.11; then
	# their export directories hold every name torch 2.9.1's binaries import from them (missing_exports 0):
	# the 14.26 copies break torch by their version (1114), not by a 127
	check_eq "PyQt5: its copies of torch's runtime DLLs are in the inventory with their versions, none lacking an export torch imports" \
		'[["concrt140.dll","PyQt5-Qt5","14.26.28720.3",0],["msvcp140.dll","PyQt5-Qt5","14.26.28720.3",0],["msvcp140_1.dll","PyQt5-Qt5","14.26.28720.3",0],["msvcp140_2.dll","PyQt5-Qt5","14.26.28720.3",0],["vcruntime140.dll","PyQt5-Qt5","14.26.28720.3",0],["vcruntime140_1.dll","PyQt5-Qt5","14.26.28720.3",0]]|true' \
		"$(J qt '[.inventory.runtime_copies[] | [.name, .distribution, .file_version, .missing_exports]] | sort')|$(
			J qt '[.inventory.runtime_copies[] | select(.name == "msvcp140.dll" or .name == "vcruntime140.dll") | .imports_from_torch > 100] | all')"
	check_eq "PyQt5, torch imported first: a warning that names the order, the copy and torch's minimum" \
		'[["warning","if PyQt5 is imported before torch, msvcp140.dll 14.26.28720.3 is the one loaded; torch 2.9.1+cpu needs >= 14.40","import torch before PyQt5, or update PyQt5-Qt5 (a release whose msvcp140.dll is >= 14.40)"]]|0' \
		"$(J qt '[.findings[] | select(.rule == "runtime-copy") | [.severity, .title, .fix]]')|$(st qt)"
	check_eq "PyQt5, --import-first PyQt5: find_qt's folder on PATH and as a DLL directory, its 38 modules load first" \
		'[["C:\\Python311\\Lib\\site-packages\\PyQt5\\Qt5\\bin"],"C:\\Python311\\Lib\\site-packages\\PyQt5\\Qt5\\bin",38,0]' \
		"$(J qt '.installs[0].imported_first[0] | [.dll_directories, .path_prepended, (.binaries | length), .binaries_failing]' --import-first PyQt5)"
	# One problem: c10.dll's DllMain fails, and every torch binary that maps c10.dll carries that 1114.
	check_eq "PyQt5, --import-first PyQt5: the warning becomes the real verdict, torch's c10.dll binds PyQt5's msvcp140 (1114), exit 1" \
		'[1,["runtime-too-old"],[1114],["msvcp140.dll"],true,true]|1' \
		"$(J qt '[.findings[] | select(.severity == "error")] | [([.[].cause] | unique | length), ([.[].rule] | unique), ([.[].winerror] | unique), ([.[].leaf] | unique), (map(.message | contains("PyQt5\\Qt5\\bin\\msvcp140.dll")) | any), (map(.binary // "" | endswith("\\c10.dll")) | any)]' --import-first PyQt5)|$(st qt --import-first PyQt5)"
	# the dotted form: PyQt5's __init__ (find_qt) runs, then only QtCore (PyQt5\QtCore.pyd: the abi3 module's
	# suffix is the plain .pyd of EXTENSION_SUFFIXES)
	check_eq "PyQt5, --import-first PyQt5.QtCore: find_qt's folder, then only QtCore.pyd loaded first" \
		'["PyQt5.QtCore",["C:\\Python311\\Lib\\site-packages\\PyQt5\\Qt5\\bin"],[["QtCore.pyd","import","loads"]]]' \
		"$(J qt '.installs[0].imported_first[0] | [.module, .dll_directories, [.binaries[] | [(.path | split("\\") | last), .how, .outcome]]]' --import-first PyQt5.QtCore)"
	check_eq "PyQt5, --import-first PyQt5.QtCore: QtCore brings Qt5Core.dll and its msvcp140 14.26: c10.dll's 1114 as with all of PyQt5, exit 1" \
		'[["runtime-too-old"],[1114],["msvcp140.dll"]]|1' \
		"$(J qt '[.findings[] | select(.severity == "error")] | [([.[].rule] | unique), ([.[].winerror] | unique), ([.[].leaf] | unique)]' --import-first PyQt5.QtCore)|$(st qt --import-first PyQt5.QtCore)"
	check_eq "PyQt5, --import-first PyQt5.QtNope: a usage error (exit 2) naming the files looked for" \
		"2|yes" "$(st qt --import-first PyQt5.QtNope)|$("$B" check --root "$WORK/qt" --python "$PY" --import-first PyQt5.QtNope 2>&1 >/dev/null |
			grep -qF 'import-first PyQt5.QtNope: no module PyQt5.QtNope: none of C:\Python311\Lib\site-packages\PyQt5\QtNope.cp311-win_amd64.pyd' && echo yes)"
	check_eq "an --import-first that no distribution has is a usage error (exit 2) naming it" \
		"2|yes" "$(st qt --import-first PyQt6)|$("$B" check --root "$WORK/qt" --python "$PY" --import-first PyQt6 2>&1 >/dev/null |
			grep -q 'import-first PyQt6: no distribution' && echo yes)"
else
	skip "PyQt5 + PyQt5-Qt5 5.15.2 with torch 2.9.1" "$(cat "$WORK/why")"
fi

# ---- PyQt6 6.7.1 + PyQt6-Qt6 6.7.3 next to torch 2.9.1: find_qt with Qt6Core.dll and PyQt6\Qt6\bin (its
# __init__.py is PyQt5's with 6 for 5); PyQt6-Qt6 6.7.3 ships msvcp140.dll 14.26.28720.3 too
if tree qt6 2.9.1 PyQt6-Qt6==6.7.3 PyQt6==6.7.1; then
	check_eq "PyQt6: PyQt6-Qt6 6.7.3's msvcp140.dll 14.26.28720.3, torch imported first: the warning naming PyQt6, exit 0" \
		'["14.26.28720.3",0,"if PyQt6 is imported before torch, msvcp140.dll 14.26.28720.3 is the one loaded; torch 2.9.1+cpu needs >= 14.40"]|0' \
		"$(J qt6 '[(.inventory.runtime_copies[] | select(.name == "msvcp140.dll") | .file_version, .missing_exports), (.findings[] | select(.rule == "runtime-copy") | .title)]' | jq -c '.')|$(st qt6)"
	check_eq "PyQt6, --import-first PyQt6.QtCore: find_qt's PyQt6\\Qt6\\bin on PATH and as a DLL directory, QtCore.pyd loads first" \
		'["PyQt6","PyQt6.QtCore",["C:\\Python311\\Lib\\site-packages\\PyQt6\\Qt6\\bin"],"C:\\Python311\\Lib\\site-packages\\PyQt6\\Qt6\\bin",[["QtCore.pyd","loads"]]]' \
		"$(J qt6 '.installs[0].imported_first[0] | [.procedure, .module, .dll_directories, .path_prepended, [.binaries[] | [(.path | split("\\") | last), .outcome]]]' --import-first PyQt6.QtCore)"
	check_eq "PyQt6, --import-first PyQt6.QtCore: c10.dll binds PyQt6's msvcp140 14.26: the 1114 verdict, exit 1" \
		'[["runtime-too-old"],[1114],["msvcp140.dll"],true]|1' \
		"$(J qt6 '[.findings[] | select(.severity == "error")] | [([.[].rule] | unique), ([.[].winerror] | unique), ([.[].leaf] | unique), (map(.message | contains("PyQt6\\Qt6\\bin\\msvcp140.dll")) | any)]' --import-first PyQt6.QtCore)|$(st qt6 --import-first PyQt6.QtCore)"
else
	skip "PyQt6 + PyQt6-Qt6 6.7.3 with torch 2.9.1" "$(cat "$WORK/why")"
fi

# ---- xformers 0.0.33 (the smallest win_amd64 wheel of a release, 8 MB; METADATA torch==2.9.0, its
# cpp_lib.json says 2.9.0+cu130): _C.pyd imports c10_cuda.dll and torch_cuda.dll, so next to the CPU
# torch 2.9.1 it cannot load (126), said as a GPU build's extension; _cpp_lib's procedure is torchvision's
if tree xf 2.9.1 xformers==0.0.33; then
	check_eq "xformers 0.0.33 on torch 2.9.1+cpu: its folder added, _C.pyd by ctypes (0x1100), 126 on c10_cuda.dll" \
		'["xformers","xformers","fail","2.9.0",["C:\\Python311\\Lib\\site-packages\\xformers"],[["_C.pyd","ctypes","0x1100","missing-dll","c10_cuda.dll"]]]' \
		"$(J xf '.installs[0].extensions[] | select(.name == "xformers") | [.name, .procedure, .status, .built_for_torch, .dll_directories, [.binaries[] | [(.path | split("\\") | last), .how, .flags, .outcome, .leaf]]]')"
	check_eq "xformers on a CPU torch: said as an extension of a GPU build, the fix names torch==2.9.0's GPU build, exit 1" \
		'[["error","xformers'"'"'s _C.pyd needs c10_cuda.dll, which only a GPU build of torch has; torch 2.9.1+cpu is installed","install the GPU build of torch==2.9.0 that xformers was built for (PyTorch'"'"'s CUDA wheel index), or a xformers built for torch 2.9.1+cpu"]]|1' \
		"$(J xf '[.findings[] | select(.rule == "extension-load-failure") | [.severity, .title, .fix]]')|$(st xf)"
else
	skip "xformers 0.0.33 with torch 2.9.1" "$(cat "$WORK/why")"
fi

# ---- torchtext 0.18.0 (its last release, 2 MB; METADATA torch>=2.3.0, built for 2.3.0): the procedure of
# matrix/torch.yml's extension_load entry added for it (one entry, no C): lib\libtorchtext.pyd by ctypes,
# then _torchtext.pyd by import (it imports libtorchtext.pyd by name); next to torch 2.4.1 the library
# fails 127 on a c10.dll symbol, said as a mismatch; without the entry both were CPython's imports
if tree tt 2.4.1 torchtext==0.18.0; then
	check_eq "torchtext 0.18.0 on torch 2.4.1: its entry's procedure, libtorchtext.pyd by ctypes first (127 on c10.dll)" \
		'["torchtext","torchtext","fail",[],[["libtorchtext.pyd","ctypes","0x1100","missing-entry-point","c10.dll"],["_torchtext.pyd","import","0x1100","missing-dll","libtorchtext.pyd"]]]' \
		"$(J tt '.installs[0].extensions[] | select(.name == "torchtext") | [.name, .procedure, .status, .dll_directories, [.binaries[] | [(.path | split("\\") | last), .how, .flags, .outcome, .leaf]]]')"
	check_eq "torchtext 0.18.0 on torch 2.4.1: a mismatch, and what the entry says a failed load means" \
		'["torchtext 0.18.0 was built for another torch than 2.4.1+cpu"]|true' \
		"$(J tt '[.findings[] | select(.rule == "extension-mismatch") | .title]')|$(C tt | jq '[.findings[] | select(.message | test("import torchtext raises OSError: Could not load this library"))] | length > 0')"
else
	skip "torchtext 0.18.0 with torch 2.4.1" "$(cat "$WORK/why")"
fi

# ---- a copy that lacks exports torch imports. No real wheel at hand has one: PyQt5-Qt5 5.15.2's 14.26
# copies (above) and msvc-runtime 14.29/14.34's export every name torch 2.9.1's binaries import from them
# (measured: missing_exports 0). So a look-alike: "lookalike" ships _core.pyd and, next to it, an
# msvcp140.dll 14.44.35112.1 (new enough for the matrix) built by mingw/lld to export every name torch
# 2.9.1's binaries import from MSVCP140.dll but one that c10.dll imports.
# lookalike_dist SITE-PACKAGES DROP: the distribution, with the RECORD pip writes.
lookalike_dist() {
	local sp=$1 drop=$2 d=$WORK/la
	mkdir -p "$d" "$sp/lookalike" "$sp/lookalike-1.0.dist-info"
	find "$sp/torch/lib" -iname '*.dll' -print0 | xargs -0 "$B" pe --json --no-exports 2>/dev/null |
		jq -r '.files[].imports[]? | select(.dll | ascii_downcase == "msvcp140.dll") | .functions[] | .name // empty' |
		sort -u | grep -vxF -- "$drop" >"$d/names" || return 1
	{ echo EXPORTS; cat "$d/names"; } >"$d/msvcp140.def"
	make_dll "$sp/lookalike/msvcp140.dll" --toolchain llvm --def "$d/msvcp140.def" --version 14.44.35112.1 \
		--import KERNEL32.dll:GetLastError || return 1
	make_dll "$sp/lookalike/_core.pyd" --export PyInit__core --import "msvcp140.dll:$(head -1 "$d/names")" \
		--import KERNEL32.dll:GetLastError || return 1
	# and two modules of its own that cannot load (their DLL is not shipped): one cause of lookalike's binaries
	make_dll "$sp/lookalike/_broken.pyd" --export PyInit__broken --import lookalike_dep.dll:dep_init \
		--import KERNEL32.dll:GetLastError || return 1
	make_dll "$sp/lookalike/_broken2.pyd" --export PyInit__broken2 --import lookalike_dep.dll:dep_init \
		--import KERNEL32.dll:GetLastError || return 1
	printf 'Metadata-Version: 2.1\nName: lookalike\nVersion: 1.0\n\n' >"$sp/lookalike-1.0.dist-info/METADATA"
	echo lookalike >"$sp/lookalike-1.0.dist-info/top_level.txt"
	python3 "$TDC_REPO/tests/lib/record.py" "$sp" "$sp/lookalike-1.0.dist-info" lookalike
}
la_drop='?_Xlength_error@std@@YAXPEBD@Z'
if [ -d "$WORK/torch-2.9.1" ] && tree_variant "$WORK/torch-2.9.1" "$WORK/la" &&
	lookalike_dist "$WORK/la/Python311/Lib/site-packages" "$la_drop"; then
	check_eq "look-alike msvcp140: listed with what it lacks of torch's imports (the name dropped, imported by three torch binaries)" \
		"[[\"msvcp140.dll\",\"lookalike\",\"14.44.35112.1\",3,[\"c10.dll: $la_drop\",\"torch_cpu.dll: $la_drop\",\"torch_python.dll: $la_drop\"]]]" \
		"$(J la '[.inventory.runtime_copies[] | [.name, .distribution, .file_version, .missing_exports, .missing_export_names]]')"
	check_eq "look-alike msvcp140, torch imported first: a warning naming the order, the path, the name and c10.dll (127), exit 0" \
		"[[\"warning\",\"runtime-copy-exports\",\"if lookalike is imported before torch, C:\\\\Python311\\\\Lib\\\\site-packages\\\\lookalike\\\\msvcp140.dll is the one loaded and lacks $la_drop that c10.dll imports (WinError 127)\"]]|0" \
		"$(J la '[.findings[] | select(.rule | startswith("runtime-copy")) | [.severity, .rule, .title]]')|$(st la)"
	check_eq "look-alike msvcp140, --import-first lookalike: the real verdict, c10.dll fails with 127 on that name in the copy, no warning, exit 1" \
		"[\"missing-entry-point\",127,\"C:\\\\Python311\\\\Lib\\\\site-packages\\\\lookalike\\\\msvcp140.dll\",\"$la_drop\"]|[]|1" \
		"$(J la '.installs[0].binaries[] | select(.path | endswith("\\c10.dll")) | [.outcome, .winerror, .leaf_path, .symbol]' --import-first lookalike)|$(
			J la '[.findings[] | select(.rule | startswith("runtime-copy"))]' --import-first lookalike)|$(st la --import-first lookalike)"
	# what the binaries of a cause are, in every renderer: torch's, or the package's imported first
	C la --import-first lookalike >"$WORK/la.json"
	"$B" report --in "$WORK/la.json" --format github --summary "$WORK/la.md" --outputs '' >"$WORK/la.gh" 2>/dev/null
	"$B" report --in "$WORK/la.json" --format sarif >"$WORK/la.sarif" 2>/dev/null
	out=$(COLUMNS=300 "$B" check --root "$WORK/la" --python "$PY" --import-first lookalike)
	check_eq "look-alike first: each cause's binaries worded by what they are (text, GitHub, summary, SARIF)" \
		'affects:  5 torch binaries: c10.dll,|affects:  2 lookalike binaries: _broken.pyd, _broken2.pyd|(and 1 more lookalike binary)|(and 4 more torch binaries)|**Affects** 2 lookalike binaries: \_broken\.pyd, \_broken2\.pyd|**Affects** 5 torch binaries: c10\.dll,|Affects 2 lookalike binaries: _broken.pyd, _broken2.pyd.|Affects 5 torch binaries: c10.dll,' \
		"$(grep -o 'affects: .*' <<<"$out" | sed 's/\(torch binaries: c10.dll,\).*/\1/; s/  *$//' | sort -r | paste -sd'|')|$(
			grep -o '(and [0-9]* more [a-z]* binar[a-z]*)' "$WORK/la.gh" | sort | paste -sd'|')|$(
			grep -o '\*\*Affects\*\* .*' "$WORK/la.md" | sed 's/\(torch binaries: c10\\.dll,\).*/\1/; s/  *$//' | sort | paste -sd'|')|$(
			jq -r '.runs[0].results[].message.text' "$WORK/la.sarif" | grep -o 'Affects [0-9]* [a-z]* binar[a-z]*: [^ ]* [^ ]*' | sed 's/\(torch binaries: c10.dll,\).*/\1/' | sort | paste -sd'|')"
else
	skip "a look-alike msvcp140.dll lacking one export torch imports" "the torch 2.9.1 tree or the mingw/lld build is missing"
fi

# ---- bad input, on the mismatched tree's files
if [ -d "$WORK/mismatch" ]; then
	sp=$WORK/mismatch/Python311/Lib/site-packages
	tree_variant "$WORK/mismatch" "$WORK/bad"
	bsp=$WORK/bad/Python311/Lib/site-packages
	# a RECORD that lists a path outside the environment (a copy: the variant shares the original's files)
	rec=$(ls -d "$bsp"/torchvision-*.dist-info)/RECORD
	cp --remove-destination "$rec" "$rec.new" && echo '../../../Windows/System32/evil.dll,,' >>"$rec.new" && mv "$rec.new" "$rec"
	check_eq "a RECORD path outside the environment is refused, said, and the rest still checked" \
		'["1 RECORD path refused, not checked: RECORD line 199: \"../../../Windows/System32/evil.dll\" climbs out of the environment C:\\Python311","fail"]' \
		"$(J bad '.installs[0].extensions[] | select(.name == "torchvision") | [.notes[0], .status]')"
	# a dist-info without RECORD: the package folder walked instead, and said
	rm -f "$(ls -d "$bsp"/torchaudio-*.dist-info)/RECORD"
	check_eq "a dist-info without RECORD: torchaudio still found as an extension, scanned another way, said" \
		'[false,"fail","no RECORD: its binaries were found by walking C:\\Python311\\Lib\\site-packages\\{torchaudio, torio} (the names from top_level.txt) for .pyd and .dll files"]' \
		"$(J bad '.installs[0].extensions[] | select(.name == "torchaudio") | [.record, .status, (.notes | map(select(startswith("no RECORD"))) | .[0])]')"
	# a METADATA that lies: torchvision 0.21.0 saying it requires the installed torch
	md=$(ls -d "$bsp"/torchvision-*.dist-info)/METADATA
	sed 's/^Requires-Dist: torch (==2.6.0)/Requires-Dist: torch (==2.9.1)/' "$md" >"$md.new" && mv "$md.new" "$md"
	check_eq "a METADATA that lies about its torch: still a mismatch (never a pass), said as its files not matching" \
		'["torchvision 0.21.0 does not match torch 2.9.1+cpu, though it requires exactly that torch","reinstall torchvision from PyPI (pip install --force-reinstall --no-deps torchvision==0.21.0), or the torch its binaries were built for"]' \
		"$(J bad '[.findings[] | select(.rule == "extension-mismatch" and (.title | startswith("torchvision"))) | .title, .fix]')"
fi

# ---- Wine's loader: each extension binary imported after torch's procedure, PyQt5 before it
# oracle TREE LABEL STEP...: torch's procedure with the given extra steps (--ext ... / --first ...), compared per binary
oracle() {
	local tree=$1 label=$2 py sp out rc
	shift 2
	py=$WORK/$tree/Python311
	sp=$py/Lib/site-packages
	cp "$ORACLE" "$py/oracle.exe"
	{
		printf '%s\n' torch --out "$(wine_zpath "$WORK/$tree.o.jsonl")" --torch-dir "$(wine_zpath "$sp/torch")" --dll-path "$(wine_zpath "$sp/torch/lib")"
		printf '%s\n' "$@"
	} >"$WORK/$tree.o.args"
	local prev='' a
	: >"$WORK/$tree.o.asked"
	for a in "$@"; do
		case $prev in --ext | --first) echo "$a" >>"$WORK/$tree.o.asked" ;; esac
		prev=$a
	done
	WINEDLLOVERRIDES="$WINE_BOOT_OVERRIDES${OV:+;$OV}" WINEDEBUG=warn+module \
		timeout 300 bash -c 'source "$1"; shift; wine_run "$@"' _ "$TDC_REPO/tests/oracle/wine.sh" "$PFX" \
		"$WORK/$tree.o.out" "$WORK/$tree.o.err" "$py/oracle.exe" "@$(wine_zpath "$WORK/$tree.o.args")"
	rc=$?
	if [ "$rc" -eq 124 ] || [ ! -s "$WORK/$tree.o.jsonl" ]; then
		not_ok "$label: the oracle hung or did not start under Wine (status $rc)"
		tail -3 "$WORK/$tree.o.err" | sed 's/^/#   /'
		return
	fi
	out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/oracle_ext_compare.py" "$WORK/$tree.check.json" \
		"$WORK/$tree.o.jsonl" "$WORK/$tree.o.err" "$WORK/$tree.o.asked" 2>&1)
	check_eq "$label: Wine's loader agrees with the checker ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree\|^dllmain' <<<"$out")"
	while IFS= read -r l; do echo "# $l"; done <<<"$out"
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle: extensions after torch, PyQt5 before it" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	if [ -d "$WORK/mismatch" ]; then
		C mismatch >"$WORK/mismatch.check.json"
		tvz=$(wine_zpath "$WORK/mismatch/Python311/Lib/site-packages/torchvision")
		taz=$(wine_zpath "$WORK/mismatch/Python311/Lib/site-packages/torchaudio/lib")
		# one binary per process: a binary Wine bound stubs for may die in its initialisation
		oracle mismatch "Wine, torch 2.9.1 + torchvision 0.21.0 _C.pyd" --ext-dll-path "$tvz" --ext "$tvz\\_C.pyd"
		oracle mismatch "Wine, torch 2.9.1 + torchvision 0.21.0 image.pyd" --ext-dll-path "$tvz" --ext "$tvz\\image.pyd"
		oracle mismatch "Wine, torch 2.9.1 + torchaudio 2.6.0 libtorchaudio.pyd" --ext "$taz\\libtorchaudio.pyd"
	fi
	if [ -d "$WORK/matched" ]; then
		C matched >"$WORK/matched.check.json"
		tvz=$(wine_zpath "$WORK/matched/Python311/Lib/site-packages/torchvision")
		taz=$(wine_zpath "$WORK/matched/Python311/Lib/site-packages/torchaudio/lib")
		oracle matched "Wine, torch 2.9.1 + torchvision 0.24.1 + torchaudio 2.9.1" --ext-dll-path "$tvz" \
			--ext "$tvz\\_C.pyd" --ext "$tvz\\image.pyd" --ext "$taz\\libtorchaudio.pyd" --ext "$taz\\_torchaudio.pyd"
	fi
	if [ -d "$WORK/qt" ]; then
		C qt --import-first PyQt5 >"$WORK/qt.check.json"
		qz=$(wine_zpath "$WORK/qt/Python311/Lib/site-packages/PyQt5")
		args=(--first-path-prepend "$qz\\Qt5\\bin" --first-dll-path "$qz\\Qt5\\bin")
		# what a Qt program imports: QtCore, QtGui, QtWidgets (under Wine some others die in their initialisation)
		for f in QtCore QtGui QtWidgets; do args+=(--first "$qz\\$f.pyd"); done
		# PyQt5's own Microsoft runtimes used as what they are (Wine would substitute its builtins)
		OV="msvcp140,msvcp140_1,msvcp140_2,concrt140,vcruntime140,vcruntime140_1=n,b" \
			oracle qt "Wine, PyQt5 imported before torch 2.9.1 (QtCore, QtGui, QtWidgets)" "${args[@]}"
		# Wine reports a failing DllMain as 998 where Windows says 1114 (tests/scenarios/compare.py)
		check_eq "Wine, PyQt5 first: its Qt5Core.dll brought PyQt5's msvcp140.dll in, and torch's c10.dll then fails in DllMain (Wine's 998 for the checker's 1114)" \
			"yes|998" "$(jq -r 'select(.kind? == "first") | .loaded[]?' "$WORK/qt.o.jsonl" |
				grep -qi 'PyQt5\\Qt5\\bin\\msvcp140.dll' && echo yes)|$(jq -r 'select(.kind? == "dll" and (.path | endswith("\\c10.dll"))) | .error' "$WORK/qt.o.jsonl")"
	fi
	if [ -d "$WORK/qt6" ]; then
		C qt6 --import-first PyQt6.QtCore >"$WORK/qt6.check.json"
		q6=$(wine_zpath "$WORK/qt6/Python311/Lib/site-packages/PyQt6")
		OV="msvcp140,msvcp140_1,msvcp140_2,concrt140,vcruntime140,vcruntime140_1=n,b" \
			oracle qt6 "Wine, PyQt6.QtCore imported before torch 2.9.1" \
			--first-path-prepend "$q6\\Qt6\\bin" --first-dll-path "$q6\\Qt6\\bin" --first "$q6\\QtCore.pyd"
		check_eq "Wine, PyQt6.QtCore first: PyQt6's msvcp140.dll is in the process, c10.dll then fails in DllMain (Wine's 998 for the checker's 1114)" \
			"yes|998" "$(jq -r 'select(.kind? == "first") | .loaded[]?' "$WORK/qt6.o.jsonl" |
				grep -qi 'PyQt6\\Qt6\\bin\\msvcp140.dll' && echo yes)|$(jq -r 'select(.kind? == "dll" and (.path | endswith("\\c10.dll"))) | .error' "$WORK/qt6.o.jsonl")"
	fi
	if [ -d "$WORK/xf" ]; then
		C xf >"$WORK/xf.check.json"
		xz=$(wine_zpath "$WORK/xf/Python311/Lib/site-packages/xformers")
		oracle xf "Wine, torch 2.9.1+cpu + xformers 0.0.33 _C.pyd (126 on c10_cuda.dll)" --ext-dll-path "$xz" --ext "$xz\\_C.pyd"
	fi
	if [ -d "$WORK/la" ]; then
		C la --import-first lookalike >"$WORK/la.check.json"
		lz=$(wine_zpath "$WORK/la/Python311/Lib/site-packages/lookalike")
		# the look-alike used as what it is (Wine would substitute its builtin msvcp140)
		OV="msvcp140=n,b" oracle la "Wine, the look-alike msvcp140 imported before torch 2.9.1 (_core.pyd)" --first "$lz\\_core.pyd"
		# Wine binds a stub where Windows fails with 127 (W2 in tests/scenarios/compare.py): its lines name the
		# symbol and each torch binary importing it, the binaries the checker lists, and the checker's 127 on c10.dll
		check_eq "Wine, look-alike first: the torch binaries Wine bound a stub of $la_drop for are the checker's, c10.dll's verdict 127" \
			"c10.dll,torch_cpu.dll,torch_python.dll|c10.dll,torch_cpu.dll,torch_python.dll|127" \
			"$(jq -r '.inventory.runtime_copies[] | select(.distribution == "lookalike") | .missing_export_names[] | split(": ") | .[0]' "$WORK/la.check.json" | sort -u | paste -sd,)|$(grep -iF "No implementation for msvcp140.dll.$la_drop imported from" "$WORK/la.o.err" |
				sed 's/.*\\\([^\\]*\)".*/\1/' | sort -u | paste -sd,)|$(jq -r '.installs[0].binaries[] | select(.path | endswith("\\c10.dll")) | .winerror' "$WORK/la.check.json")"
	fi
	wine_stop "$PFX"
fi
tap_done
