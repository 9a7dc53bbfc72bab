#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2001  # jq programs in single quotes; sed over many lines
# test_install: the install as it really is, on REAL torch wheels (issue #21).
#
# The import error as torch raises it: torch 2.12.1 and 2.14.1 (PyPI's
# win_amd64 wheels, tests/lib/wheels.py) with the real msvc-runtime 14.34
# DLLs — in System32 (an old redistributable) for the checker, app-local for
# the Wine oracle too (the loader's search is the same there, and Wine's
# prefix System32 is shared). c10.dll's initialisation fails (the VS 17.10
# constexpr mutex, microsoft/STL#4730): `import torch` raises WinError 1114 on
# c10.dll, the first binary of torch's order that fails, and c10.dll carries
# 1114 in its per-binary result. Wine's loader (tests/oracle) runs the same
# trees and names the same DllMain ("Initialization of c10.dll failed"; Wine
# reports a crash in DllMain as 998 where Windows reports 1114).
# The issue's hidden cases on their real wheels (2.3.1, 2.6.0, 2.8.0, 2.12.1,
# 2.14.1): the import error with msvc-runtime 14.34 next to python.exe (1114 on
# c10.dll from 2.12.1; 2.3.1 without mkl fails on mkl_intel_thread.1.dll; 2.6.0
# and 2.8.0 load) with Wine agreeing per binary, c10.dll quarantined, a leftover
# c10_cuda.dll. About 800 MB of wheels, fetched once into $TDC_CACHE.
TEST_NAME=install
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp # start.sh's: removed at exit
RT=14.34.31931

declare -A PYEXE REFUSED
# have VERSION DESC...: torch VERSION's tree in $WORK/VERSION, or a skip per DESC.
have() {
	local v=$1 whl d
	shift
	[ -n "${PYEXE[$v]:-}" ] && return 0
	if [ -z "${REFUSED[$v]:-}" ]; then
		if ! whl=$(wheel_fetch torch "$v" 2>"$WORK/err"); then
			REFUSED[$v]="PyPI/pip did not give torch $v's win_amd64 wheel: $(grep -v '^\s*$' "$WORK/err" | tail -1)"
		elif ! PYEXE[$v]=$(wheel_tree "$WORK/$v" "$whl" 2>"$WORK/err"); then
			not_ok "torch $v: tree from $(basename "$whl")"
			sed 's/^/#   /' "$WORK/err" | head -5
			REFUSED[$v]="no tree"
		else
			return 0
		fi
	fi
	for d in "$@"; do skip "torch $v: $d" "${REFUSED[$v]}"; done
	return 1
}
# variant SRC DST: a hard-linked copy of tree SRC with the same python.exe
variant() { tree_variant "$WORK/$1" "$WORK/$2" && PYEXE[$2]=${PYEXE[$1]}; }
J() { "$B" check --root "$WORK/$1" --python "${PYEXE[$1]}" --json 2>"$WORK/check.err" | jq -c "$2" 2>&1; }
T() { # the text report, one line per line (not wrapped at a terminal's width)
	local t=$1
	shift
	COLUMNS=1000 "$B" check --root "$WORK/$t" --python "${PYEXE[$t]}" "$@" 2>&1
}
# bins TREE: [name, winerror, outcome, leaf] of every binary that does not load
bins='[.installs[0].binaries[] | select(.winerror != 0) | [(.path | split("\\") | last), .winerror, .outcome, .leaf]]'
ie='.installs[0].import_error | [.winerror, (.binary | split("\\") | last)]'

# ---- 1114: the import error as torch raises it
for v in 2.12.1 2.14.1; do
	have "$v" "1114 with msvcp140 $RT in System32" "1114 app-local, and Wine" || continue
	variant "$v" "$v-sys"
	tree_redist "$WORK/$v-sys" "$RT" 2>"$WORK/err" ||
		{ skip "torch $v + msvc-runtime $RT" "PyPI/pip did not give msvc-runtime $RT: $(tail -1 "$WORK/err")"; continue; }
	variant "$v" "$v-app" && tree_applocal "$WORK/$v-app" "$RT"
	for t in "$v-sys" "$v-app"; do
		where=System32
		[ "$t" = "$v-app" ] && where="next to python.exe"
		check_eq "torch $v + msvcp140 $RT in $where: import torch raises WinError 1114 on c10.dll" \
			'[1114,"c10.dll"]' "$(J "$t" "$ie")"
		case $v in
		2.12.1) want='[["c10.dll",1114,"init-failed","c10.dll"],["shm.dll",1114,"init-failed","c10.dll"],["torch_cpu.dll",1114,"init-failed","c10.dll"],["torch_python.dll",1114,"init-failed","c10.dll"],["_C.cp311-win_amd64.pyd",1114,"init-failed","c10.dll"]]' ;;
		# vcruntime140_threads.dll came with 14.40: the binaries that import it fail to map first (126)
		*) want='[["c10.dll",1114,"init-failed","c10.dll"],["shm.dll",126,"missing-dll","VCRUNTIME140_THREADS.dll"],["torch_cpu.dll",126,"missing-dll","VCRUNTIME140_THREADS.dll"],["torch_python.dll",126,"missing-dll","VCRUNTIME140_THREADS.dll"],["_C.cp311-win_amd64.pyd",126,"missing-dll","VCRUNTIME140_THREADS.dll"]]' ;;
		esac
		check_eq "torch $v + msvcp140 $RT in $where: c10.dll carries 1114 in its per-binary result" "$want" "$(J "$t" "$bins")"
	done
	t=$v-sys
	check_eq "torch $v + $RT: the text report's import error names c10.dll with 1114" 1 \
		"$(T "$t" | grep -c '^  import torch raises: OSError: \[WinError 1114\] .*torch\\lib\\c10.dll" or one of its dependencies\.$')"
	check_eq "torch $v + $RT: one runtime-too-old cause (WinError 1114, leaf msvcp140.dll) lists c10.dll first" \
		'[[1114,"msvcp140.dll"],"C:\\Python311\\Lib\\site-packages\\torch\\lib\\c10.dll"]' \
		"$(J "$t" '[([.findings[] | select(.rule == "runtime-too-old") | [.winerror, .leaf]] | unique[]),
			([.findings[] | select(.rule == "runtime-too-old" and .binary != null) | .binary][0])]')"
	GH=$(T "$t" --format github)
	check_eq "torch $v + $RT: GitHub: one error annotation for the 1114 cause, naming c10.dll's DllMain" 1 \
		"$(grep -c '^::error title=c10.dll fails in DllMain (WinError 1114)' <<<"$GH")"
	"$B" check --root "$WORK/$t" --python "${PYEXE[$t]}" --json "$WORK/$t.json" --sarif "$WORK/$t.sarif" \
		>/dev/null 2>&1
	check_eq "torch $v + $RT: SARIF: the 1114 result is on c10.dll" 'true' \
		"$(jq '[.runs[0].results[] | select(.ruleId == "runtime-too-old") | .message.text | test("c10.dll fails in DllMain")] | any' "$WORK/$t.sarif")"
	"$B" report --in "$WORK/$t.json" --format github --summary "$WORK/$t.md" >/dev/null 2>&1
	check_eq "torch $v + $RT: the job summary says import torch raises 1114 on c10.dll" 1 \
		"$(tr '\n' ' ' <"$WORK/$t.md" | grep -c 'WinError 1114\] .*c10.dll')"
	check_eq "torch $v + msvcp140 $RT: without it (Wine's System32) no DllMain failure is predicted" '[]' \
		"$(J "$v" '[.installs[0].binaries[] | select(.outcome == "init-failed")]')"
done

# ---- the noise: known issue msvcp140-older-than-14.40 only where an old msvcp140.dll is the one loaded
# (applies_when: {older: [msvcp140.dll]})
issue='[.findings[] | select(.issue == "msvcp140-older-than-14.40") | .rule] | unique'
[ -n "${PYEXE[2.14.1]:-}" ] &&
	check_eq "torch 2.14.1 on Wine's System32 (vcruntime140_threads missing, no old msvcp140): no msvcp140-older-than-14.40 note" \
		'[]' "$(J 2.14.1 "$issue")"
[ -d "$WORK/2.14.1-sys" ] &&
	check_eq "torch 2.14.1 + msvcp140 $RT: the known issue is named, folded into the runtime-too-old error" \
		'["runtime-too-old"]' "$(J 2.14.1-sys "$issue")"

# ---- each release's own procedure (the matrix's torch_load table, docs/loader.md §2.1)
# torch 2.3.0 searches [torch\lib, prefix, base prefix]; 2.3.1 added the user base's Library\bin
# (pytorch#125109): `pip install --user mkl` — the real mkl 2021.4.0 wheel's DLLs in C:\ub\Library\bin.
UB='PYTHONUSERBASE=C:\ub'
for v in 2.3.0 2.3.1; do
	have "$v" "its own dll_paths with MKL in the user base" || continue
	variant "$v" "$v-ub"
	tree_wheel_data "$WORK/$v-ub" mkl 2021.4.0 ub 2>"$WORK/err" ||
		{ skip "torch $v + mkl in the user base" "PyPI/pip did not give mkl 2021.4.0: $(tail -1 "$WORK/err")"; continue; }
	U() { "$B" check --root "$WORK/$1" --python "${PYEXE[$1]}" --env "$UB" --json 2>/dev/null | jq -c "$2"; }
	case $v in
	2.3.0)
		check_eq "torch 2.3.0 + mkl in the user base: its procedure (measured, torch/__init__.py:81) has no user base" \
			'[["C:\\Python311\\Lib\\site-packages\\torch\\lib"],"torch/__init__.py:81 of torch 2.3.0+cpu",true]' \
			"$(U "$v-ub" '.installs[0] | [.dll_paths, .procedure.source, .procedure.measured]')"
		check_eq "torch 2.3.0 + mkl in the user base: torch_cpu.dll fails on mkl_intel_thread.1.dll (126)" \
			'["missing-dll",126,"mkl_intel_thread.1.dll"]' \
			"$(U "$v-ub" '.installs[0].binaries[] | select(.path | endswith("\\torch_cpu.dll")) | [.outcome,.winerror,.leaf]')"
		check_eq "torch 2.3.0: the procedure is the embedded matrix's torch_load entry" \
			'[">=2.0,<2.3.1",true]' \
			"$(U "$v-ub" '.installs[0].procedure | [.torch, (.entry | test("^<embedded>/matrix/torch.yml:[0-9]+$"))]')"
		# a matrix layer that says 2.3.0 searches the user base changes the verdict: the procedure is data
		printf '%s\n' 'schema: 1' 'rows: []' 'torch_load:' \
			'  - {torch: "==2.3.0", folders: [lib, prefix, base_prefix, userbase], nvtx: true, vcruntime140_1: always, status: inferred}' \
			>"$WORK/ub-layer.yml"
		check_eq "torch 2.3.0 + mkl in the user base, with a torch_load layer adding the user base: every binary loads" \
			'[[],"==2.3.0"]' \
			"$("$B" check --root "$WORK/$v-ub" --python "${PYEXE[$v-ub]}" --env "$UB" --matrix "$WORK/ub-layer.yml" --json 2>/dev/null |
				jq -c "[$bins, .installs[0].procedure.torch]")" ;;
	*)
		check_eq "torch 2.3.1 + mkl in the user base: its procedure adds C:\\ub\\Library\\bin (torch/__init__.py:83)" \
			'[["C:\\Python311\\Lib\\site-packages\\torch\\lib","C:\\ub\\Library\\bin"],"torch/__init__.py:83 of torch 2.3.1+cpu"]' \
			"$(U "$v-ub" '.installs[0] | [.dll_paths, .procedure.source]')"
		check_eq "torch 2.3.1 + mkl in the user base: every binary loads" '[]' "$(U "$v-ub" "$bins")" ;;
	esac
done
# ---- packages torch requires (judge/required.c): torch 2.3.x's METADATA requires mkl on Windows
MKLFIX='pip install "mkl<=2021.4.0,>=2021.1.1"'
fixof='[.findings[] | select(.rule == "missing-dll" and .leaf == "mkl_intel_thread.1.dll") | [.fix, .issue]] | unique'
if [ -n "${PYEXE[2.3.0]:-}" ]; then
	check_eq "torch 2.3.0 without mkl: the fix names the package METADATA requires, with its specifier" \
		"[[\"${MKLFIX//\"/\\\"}\",\"mkl-not-installed\"]]" "$(J 2.3.0 "$fixof")"
	check_eq "torch 2.3.0 without mkl: the text report's fix line says it" 1 \
		"$(T 2.3.0 | grep -c "^      fix:      $MKLFIX\$")"
	[ -d "$WORK/2.3.0-ub" ] && check_eq "torch 2.3.0 + mkl in the user base: the fix says to install it into the environment, or torch >= 2.3.1" \
		'true' "$("$B" check --root "$WORK/2.3.0-ub" --python "${PYEXE[2.3.0-ub]}" --env "$UB" --json 2>/dev/null |
			jq '[.findings[] | select(.leaf == "mkl_intel_thread.1.dll") | .fix |
				test("^pip install \"mkl<=2021.4.0,>=2021.1.1\" into this environment .*C:\\\\ub\\\\Library\\\\bin\\\\mkl_intel_thread.1.dll.*torch >= 2.3.1")] | (length > 0 and all)')"
	variant 2.3.0 2.3.0-mkl && tree_wheel_data "$WORK/2.3.0-mkl" mkl 2021.4.0 2>/dev/null &&
		check_eq "torch 2.3.0 + pip install mkl==2021.4.0 (its real DLLs in C:\\Python311\\Library\\bin): every binary loads" \
			'[]' "$(J 2.3.0-mkl "$bins")"
fi
[ -n "${PYEXE[2.3.1]:-}" ] && check_eq "torch 2.3.1 without mkl: the same fix, from 2.3.1's own METADATA" \
	"[[\"${MKLFIX//\"/\\\"}\",\"mkl-not-installed\"]]" "$(J 2.3.1 "$fixof")"
check_eq "the 2.3.x matrix row mentions MKL and its requirement" 'true' \
	"$("$B" matrix select 2.3.0 --json 2>/dev/null | jq '[.. | strings | test("mkl<=2021.4.0,>=2021.1.1")] | any')"
check_eq "…and 2.3.1's row too" 'true' \
	"$("$B" matrix select 2.3.1 --json 2>/dev/null | jq '[.. | strings | test("mkl<=2021.4.0,>=2021.1.1")] | any')"
[ -n "${PYEXE[2.4.1]:-}" ] && check_eq "torch 2.4.1 requires no package on Windows: its findings name none" '[]' \
	"$(J 2.4.1 '[.findings[] | select(.fix // "" | test("pip install \"(mkl|intel-openmp|tbb)"))]')"

# 2.8.0 added sys.exec_prefix\bin: torch\lib's libiomp5md.dll moved to C:\Python311\bin is found
# by 2.12.1 (and Wine, below), not by 2.4.1's procedure
for v in 2.4.1 2.12.1; do
	have "$v" "sys.exec_prefix\\bin" || continue
	variant "$v" "$v-bin"
	py=$(_pydir "$WORK/$v-bin")
	mkdir -p "$py/bin" && mv "$py/Lib/site-packages/torch/lib/libiomp5md.dll" "$py/bin/"
	case $v in
	2.4.1) check_eq "torch 2.4.1, libiomp5md.dll only in C:\\Python311\\bin: not searched, torch_cpu.dll fails (126)" \
		'[false,["missing-dll",126,"libiomp5md.dll"]]' \
		"$(J "$v-bin" '.installs[0] | [(.dll_paths | index("C:\\Python311\\bin") != null),
			(.binaries[] | select(.path | endswith("\\torch_cpu.dll")) | [.outcome,.winerror,.leaf])]')" ;;
	*) check_eq "torch 2.12.1, libiomp5md.dll only in C:\\Python311\\bin: exec_prefix\\bin is a dll_paths folder, every binary loads" \
		'[true,[]]' "$(J "$v-bin" "[(.installs[0].dll_paths | index(\"C:\\\\Python311\\\\bin\") != null), $bins]")" ;;
	esac
done
E=$TDC_REPO/matrix/evidence/torch-win_amd64-init.txt
check_eq "the survey of torch/__init__.py: 41 releases (1.7.1 to 2.15.0), every folder, flag and fallback read" \
	'41 41 41 41 0' "$(for p in ' folders=' ' glob=\*\.dll ' ' flags=0x00001100 ' ' fallback=PATH+LoadLibraryW ' \
		' folders=[^ ]*?'; do grep -c "$p" "$E"; done | paste -sd' ')"
check_eq "the survey: only torch 2.3.x requires a package on Windows, mkl<=2021.4.0,>=2021.1.1" \
	'2.3.0 mkl<=2021.4.0,>=2021.1.1
2.3.1 mkl<=2021.4.0,>=2021.1.1' "$(grep -v 'requires_windows=none' "$E" | grep -v refused | sed 's/^\([^ ]*\) .*requires_windows=/\1 /')"

# ---- RECORD against the disk (judge/record.c): torch 2.12.1's real RECORD rows
REINST='pip install --force-reinstall --no-deps torch==2.12.1'
if have 2.12.1 "RECORD against the disk"; then
	SP=$(_pydir "$WORK/2.12.1")/Lib/site-packages
	check_eq "2.12.1 as pip left it: RECORD read, every listed file there, nothing left over" \
		'[12,0,0,0,0]' "$(J 2.12.1 '.installs[0].record | [.checked,.deleted,.changed,.leftover,.refused]')"
	# antivirus quarantine: c10.dll gone
	variant 2.12.1 q && rm "$(_pydir "$WORK/q")/Lib/site-packages/torch/lib/c10.dll"
	check_eq "c10.dll quarantined: deleted-after-install (an error) names it, with the reinstall command" \
		"[[\"c10.dll\",\"error\",\"restore c10.dll from the antivirus quarantine, or reinstall with \`$REINST\`\"]]" \
		"$(J q '[.findings[] | select(.rule == "deleted-after-install") | [.leaf,.severity,.fix]]')"
	check_eq "c10.dll quarantined: the loader's missing-dll on c10.dll says deleted after install, not 'install it'" 'true' \
		"$(J q '[.findings[] | select(.rule == "missing-dll" and .leaf == "c10.dll") | .fix | test("deleted after install")] | (length > 0 and all)')"
	# changed after install: a size that differs; with --verify-hashes a byte that differs
	variant 2.12.1 ch && cp --remove-destination "$SP/torch/lib/uv.dll" "$(_pydir "$WORK/ch")/Lib/site-packages/torch/lib/uv.dll" &&
		printf 'x' >>"$(_pydir "$WORK/ch")/Lib/site-packages/torch/lib/uv.dll"
	check_eq "uv.dll grown by one byte: changed-after-install, the sizes named" '[["uv.dll","warning",true]]' \
		"$(J ch '[.findings[] | select(.rule == "changed-after-install") | [.leaf,.severity,(.title | test("bytes, RECORD says"))]]')"
	variant 2.12.1 hs && f=$(_pydir "$WORK/hs")/Lib/site-packages/torch/lib/torch_global_deps.dll &&
		cp --remove-destination "$SP/torch/lib/torch_global_deps.dll" "$f" &&
		printf 'Z' | dd of="$f" bs=1 seek=600 conv=notrunc status=none
	check_eq "one byte flipped, same size: unseen by the default check" '[]' \
		"$(J hs '[.findings[] | select(.rule == "changed-after-install")]')"
	check_eq "one byte flipped, same size: --verify-hashes finds it (sha256 is not RECORD's)" '[["torch_global_deps.dll",true]]' \
		"$("$B" check --root "$WORK/hs" --python "${PYEXE[hs]}" --verify-hashes --json 2>/dev/null |
			jq -c '[.findings[] | select(.rule == "changed-after-install") | [.leaf,(.title | test("sha256"))]]')"
	# the cost of --verify-hashes on the real install (warm cache), against the default check
	t0=$(date +%s%N); "$TDC_BIN" check --root "$WORK/2.12.1" --python "${PYEXE[2.12.1]}" --json >/dev/null 2>&1
	t1=$(date +%s%N); "$TDC_BIN" check --root "$WORK/2.12.1" --python "${PYEXE[2.12.1]}" --verify-hashes --json >"$WORK/h.json" 2>/dev/null
	t2=$(date +%s%N)
	check_eq "--verify-hashes on torch 2.12.1's real files: every listed file hashed, all equal to RECORD" '[12,0]' \
		"$(jq -c '.installs[0].record | [.hashed,.changed]' "$WORK/h.json")"
	echo "# bench: check $(( (t1 - t0) / 1000000 )) ms; check --verify-hashes $(( (t2 - t1) / 1000000 )) ms for $(jq '.installs[0].record.hashed_bytes' "$WORK/h.json") bytes hashed"
	# leftovers: a CUDA build's c10_cuda.dll beside the CPU build, and an old release's DLL that
	# imports a c10 symbol this c10.dll lacks (WinError 127, zeyad-mansour/lunar#58)
	variant 2.12.1 lo
	L=$(_pydir "$WORK/lo")/Lib/site-packages/torch/lib
	make_dll "$L/c10_cuda.dll" --import 'c10.dll:?c10_init_removed@@YAXXZ' --import KERNEL32.dll:GetLastError 2>/dev/null
	check_eq "c10_cuda.dll left over from a CUDA install: leftover-binary, and its 127 fix names it, not c10.dll" \
		'[["leftover-binary","c10_cuda.dll"],true]' \
		"$(J lo '[([.findings[] | select(.rule == "leftover-binary") | [.rule,.leaf]][]),
			([.findings[] | select(.rule == "missing-entry-point" and (.binary | endswith("c10_cuda.dll"))) |
			  .fix | test("^remove .*c10_cuda.dll: torch 2.12.1 did not install it")] | (length > 0 and all))]')"
	# RECORD missing, or hostile
	variant 2.12.1 nr && rm "$(_pydir "$WORK/nr")/Lib/site-packages/torch-2.12.1.dist-info/RECORD"
	check_eq "RECORD missing: said (record-unreadable), never ignored" '["record-unreadable","warning","torch'"'"'s RECORD is missing"]' \
		"$(J nr '[.findings[] | select(.rule == "record-unreadable") | .rule, .severity, .title]')"
	hostile() { # hostile NAME: a variant whose RECORD is stdin
		variant 2.12.1 "$1"
		# a new file, not the hard-linked one the other trees share
		rm -f "$(_pydir "$WORK/$1")/Lib/site-packages/torch-2.12.1.dist-info/RECORD"
		cat >"$(_pydir "$WORK/$1")/Lib/site-packages/torch-2.12.1.dist-info/RECORD"
	}
	{ cat "$SP/torch-2.12.1.dist-info/RECORD"; printf 'C:/Windows/System32/kernel32.dll,,\n../../../../../etc/passwd,,\n/abs/x.dll,,\n'; } >"$WORK/rec"
	hostile hx <"$WORK/rec"
	check_eq "RECORD naming absolute paths and climbing out with ..: refused rows said, nothing outside read" \
		'[3,"record-unreadable",true]' "$(J hx '[.installs[0].record.refused, (.findings[] | select(.rule == "record-unreadable") | .rule, (.title | test("3 rows naming files outside the environment")))]')"
	{ cat "$SP/torch-2.12.1.dist-info/RECORD"; printf 'torch/lib/%s.dll,,1\n' "$(head -c 1048576 /dev/zero | tr '\0' a)"; } >"$WORK/rec"
	hostile hl <"$WORK/rec"
	check_eq "RECORD with a 1 MB line: a clear error (record-unreadable naming RECORD:line), the report not a PASS" \
		'[true,"warn"]' "$(J hl '[([.findings[] | select(.rule == "record-unreadable") | .title | test("RECORD:1[0-9]: ")] | any), .status]')"
	sed 's/,[0-9]*$/,1/' "$SP/torch-2.12.1.dist-info/RECORD" >"$WORK/rec"
	hostile hs2 <"$WORK/rec"
	check_eq "RECORD whose sizes lie: every listed file (RECORD's own row too) changed after install" '13' \
		"$(J hs2 '.installs[0].record.changed')"
	python3 -c 'import sys
w = sys.stdout.write
for i in range(1000000): w("torch/g/%d.py,,1\n" % i)' >"$WORK/rec"
	hostile big <"$WORK/rec"
	cpu_mark
	check_eq "RECORD of 10^6 files that are not there: one counting finding, bounded" '[1000000,1,"warning"]' \
		"$("$B" check --root "$WORK/big" --python "${PYEXE[big]}" --json 2>/dev/null |
			jq -c '[.installs[0].record.deleted, ([.findings[] | select(.rule == "deleted-after-install")] | length),
				([.findings[] | select(.rule == "deleted-after-install")][0].severity)]')"
	/usr/bin/time -f '%M' -o "$WORK/mem" "$TDC_BIN" check --root "$WORK/big" --python "${PYEXE[big]}" >/dev/null 2>&1
	mem=$(tail -1 "$WORK/mem")
	cpu_since
	check_eq "RECORD of 10^6 files: under 60 s of CPU and 1 GB (took $_tdc_cpu_secs s under ASan, two runs; ${mem} KB resident)" 'ok' \
		"$([ "$_tdc_cpu_secs" -lt 60 ] && [ "${mem:-9999999}" -lt 1000000 ] && echo ok)"
fi

# ---- the issue's hidden cases, on their real wheels: torch 2.3.1, 2.6.0, 2.8.0, 2.12.1, 2.14.1
# msvc-runtime 14.34 next to python.exe (Wine runs the same trees below): 2.12.1 and 2.14.1 raise 1114 on
# c10.dll (above); the older releases, built with older toolsets, load. c10.dll quarantined; a leftover
# c10_cuda.dll importing a symbol c10.dll lacks; 2.3.1 without mkl (above).
HIDDEN="2.3.1 2.6.0 2.8.0 2.12.1 2.14.1"
for v in $HIDDEN; do
	have "$v" "hidden case: 14.34, deleted file, leftover" || continue
	[ -d "$WORK/$v-app" ] || { variant "$v" "$v-app" && tree_applocal "$WORK/$v-app" "$RT"; }
	case $v in
	2.12.1 | 2.14.1) want='[1114,"c10.dll"]' ;;
	2.3.1) want='[126,"shm.dll"]' ;; # mkl is not installed: torch_cpu.dll's mkl_intel_thread.1.dll (the fix names mkl)
	*) want='null' ;;
	esac
	check_eq "torch $v + msvc-runtime $RT next to python.exe: import torch raises $([ "$want" = null ] && echo nothing || echo "$want")" "$want" \
		"$(J "$v-app" '.installs[0].import_error | if . == null then null else [.winerror, (.binary | split("\\") | last)] end')"
	variant "$v" "$v-q" && rm "$(_pydir "$WORK/$v-q")/Lib/site-packages/torch/lib/c10.dll"
	check_eq "torch $v, c10.dll quarantined: deleted-after-install names it with torch $v's reinstall, and c10.dll's 126 says so" \
		"[[\"c10.dll\",\"error\",\"restore c10.dll from the antivirus quarantine, or reinstall with \`pip install --force-reinstall --no-deps torch==$v\`\"]],true" \
		"$(J "$v-q" '[.findings[] | select(.rule == "deleted-after-install") | [.leaf,.severity,.fix]]'),$(J "$v-q" '[.findings[] | select(.rule == "missing-dll" and .leaf == "c10.dll") | .fix | test("deleted after install")] | (length > 0 and all)')"
	variant "$v" "$v-lo"
	make_dll "$(_pydir "$WORK/$v-lo")/Lib/site-packages/torch/lib/c10_cuda.dll" \
		--import 'c10.dll:?c10_init_removed@@YAXXZ' --import KERNEL32.dll:GetLastError 2>/dev/null
	check_eq "torch $v, a c10_cuda.dll left over: leftover-binary, and its 127 fix names it" '[["c10_cuda.dll"],true]' \
		"$(J "$v-lo" '[[.findings[] | select(.rule == "leftover-binary") | .leaf],
			([.findings[] | select(.rule == "missing-entry-point" and (.binary | endswith("c10_cuda.dll"))) |
			  .fix | test("^remove .*c10_cuda.dll: torch ")] | (length > 0 and all))]')"
done

# ---- Wine's loader on the app-local trees (tests/oracle): the same DllMain, the same binaries
oracle_case() { # oracle_case LABEL TREE [0: c10's DllMain does not fail]
	local label=$1 tree=$2 out
	if ! out=$(tree_oracle "$WORK/$tree" "${PYEXE[$tree]}" \
		"msvcp140,msvcp140_1,msvcp140_2,msvcp140_atomic_wait,concrt140,vcomp140=n"); then
		not_ok "$label: $(head -1 <<<"$out")"
		tail -n +2 <<<"$out" | sed 's/^/#   /'
		return
	fi
	# torch_python.dll's DllMain cannot run against the stand-in python311.dll (its exports are stubs: Wine
	# fails it with 14.44 too), so where c10.dll's does not fail first that one line is the stand-in's, not torch's
	check_eq "$label: Wine's loader agrees on every torch\\lib DLL, DllMain failures included ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree' <<<"$out" | { if [ "${3:-1}" = 0 ]; then grep -v '^dllmain  torch_python\.dll '; else cat; fi; })"
	local says="names"
	[ "${3:-1}" = 0 ] && says="does not name"
	check_eq "$label: Wine $says c10.dll's initialisation as failing (as the checker predicts)" "${3:-1}" \
		"$(grep -c 'Initialization of L"\([^"]*\\\)\{0,1\}c10\.dll" failed' "$WORK/$tree.err" | awk '{print ($1 > 0)}')"
	sed 's/^/# /' <<<"$out"
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle on real wheels with msvcp140 $RT" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	for v in $HIDDEN; do
		case $v in
		2.12.1 | 2.14.1) [ -d "$WORK/$v-app" ] && oracle_case "Wine, torch $v + real app-local msvcp140 $RT" "$v-app" ;;
		*) [ -d "$WORK/$v-app" ] && oracle_case "Wine, torch $v + real app-local msvcp140 $RT (loads)" "$v-app" 0 ;;
		esac
	done
	wine_stop "$PFX"
fi
tap_done
