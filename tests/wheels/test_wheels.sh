#!/usr/bin/env bash
# shellcheck disable=SC2016,SC2001  # a script for bash -c; sed over many lines
# test_wheels: verdicts on REAL torch installs — the win_amd64 wheels PyPI
# serves (tests/lib/wheels.py: fetched once, sha256 = PyPI's, cached), laid
# out as Windows machines by tests/lib/trees/wheels.sh, with real Microsoft
# runtimes (msvc-runtime wheels) and Intel's OpenMP (intel-openmp wheel).
#
# The CI tier: torch 2.4.0 (pytorch#131662's libomp140 trap), 2.4.1 (its
# fix), 2.9.1 (the 14.40 msvcp140 floor), 2.15.0 (the newest) and 1.7.1 (the
# oldest pip accepts: PyPI also serves 1.7.0, whose wheels pip rejects as
# invalid, see matrix/evidence/torch-win_amd64.txt) — about 820 MB of wheels.
# A wheel PyPI or pip does not give us is a skip that names the file
# (a failure under CI=true).
TEST_NAME=wheels
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
source "$TDC_REPO/tests/oracle/wine.sh"
WORK=$tmp

# have VERSION: fetch torch VERSION and build its tree in $WORK/VERSION; on
# failure print a skip for DESC... and return 1.
declare -A PYEXE
have() {
	local v=$1 whl err
	shift
	[ -n "${PYEXE[$v]:-}" ] && return 0
	if [ -n "${REFUSED[$v]:-}" ]; then
		local d
		for d in "$@"; do skip "torch $v: $d" "${REFUSED[$v]}"; done
		return 1
	fi
	if ! whl=$(wheel_fetch torch "$v" 2>"$WORK/err"); then
		err=$(grep -v '^\s*$' "$WORK/err" | tail -1)
		REFUSED[$v]="PyPI/pip did not give torch $v's win_amd64 wheel: ${err:-no reason given}"
		have "$v" "$@"
		return 1
	fi
	if ! PYEXE[$v]=$(wheel_tree "$WORK/$v" "$whl" 2>"$WORK/err"); then
		not_ok "torch $v: tree from $(basename "$whl")"
		sed 's/^/#   /' "$WORK/err" | head -5
		REFUSED[$v]="no tree"
		return 1
	fi
	ok "torch $v: $(basename "$whl") laid out as C:\\Python*\\Lib\\site-packages"
}
declare -A REFUSED

# J TREE VERSION FILTER: jq over `check --json` of that tree.
J() {
	"$B" check --root "$WORK/$1" --python "${PYEXE[$2]}" --json 2>"$WORK/check.err" | jq -c "$3" 2>&1
}
st() { "$B" check --root "$WORK/$1" --python "${PYEXE[$2]}" >/dev/null 2>&1; echo $?; }
failing='[.installs[0].binaries[] | select(.outcome != "loads") | .path | split("\\") | last]'
rules='[.findings[] | .rule] | unique'
# one binary's [outcome, winerror, leaf, chain]
bin() { J "$1" "$2" ".installs[0].binaries[] | select(.path | endswith(\"\\\\$3\")) | [.outcome,.winerror,.leaf,.chain]"; }
D() { "$B" matrix derive --json "$(_pydir "$WORK/$1")/Lib/site-packages" | jq -c ".[0] | $2"; }

# pe_same LABEL FILE...: our PE reader = llvm-readobj = pefile on every FILE
# (imports, delay imports, exports with forwarders, version; pe_compare.py)
pe_same() {
	local label=$1 out
	shift
	if [ ! -x /usr/bin/python3 ] || ! /usr/bin/python3 -c 'import pefile' 2>/dev/null; then
		skip "$label: PE reader = llvm-readobj = pefile" "python3-pefile is not installed"
		return
	fi
	if out=$(/usr/bin/python3 "$TDC_REPO/tests/wheels/pe_compare.py" "$B" "$@" 2>&1); then
		ok "$label: PE reader = llvm-readobj = pefile on all $# binaries ($(grep -o '[0-9]* exports' <<<"$out" |
			awk '{n += $1} END {print n}') exports)"
	else
		not_ok "$label: PE reader = llvm-readobj = pefile"
		grep -v '^same ' <<<"$out" | cut -c1-400 | sed 's/^/#   /' | head -10
	fi
}
# pe_same_tree VERSION: every DLL in torch\lib and every .pyd of that wheel
pe_same_tree() {
	local sp
	sp=$(_pydir "$WORK/$1")/Lib/site-packages/torch
	pe_same "torch $1" "$sp"/lib/*.dll "$sp"/*.pyd
}

# ---- real Microsoft and Intel runtimes: the files, their version resources
for r in 14.34.31931 14.40.33807 14.44.35112; do
	if _msvc_runtime "$r" "$WORK/rt-$r" 2>"$WORK/err"; then
		check_eq "msvc-runtime $r: msvcp140.dll's version resource (fixed, string)" "$(
			case $r in 14.34.*) echo '["14.34.31931.0","14.34.31931.0"]' ;; 14.40.*) echo '["14.40.33810.0","14.40.33810.0"]' ;;
			*) echo '["14.44.35211.0","14.44.35211.0"]' ;; esac)" \
			"$("$B" pe --json --no-exports "$WORK/rt-$r"/*.data/data/Scripts/msvcp140.dll |
				jq -c '.files[0].version | [.file_version, .strings.FileVersion]')"
		pe_same "msvc-runtime $r" "$WORK/rt-$r"/*.data/data/Scripts/*.dll
	else
		skip "msvc-runtime $r" "PyPI/pip did not give msvc-runtime $r: $(tail -1 "$WORK/err")"
	fi
done
mkdir -p "$WORK/iomp/Python311"
if tree_intel_openmp "$WORK/iomp" 2024.2.1 2>"$WORK/err"; then
	pe_same "intel-openmp 2024.2.1" "$WORK"/iomp/Python311/Library/bin/*.dll
else
	skip "intel-openmp 2024.2.1" "PyPI/pip did not give intel-openmp 2024.2.1: $(tail -1 "$WORK/err")"
fi

# ---- torch 2.4.0: fbgemm.dll imports MSVC's LLVM OpenMP (pytorch#131662)
if have 2.4.0 "libomp140 trap" "libomp140 in System32"; then
	pe_same_tree 2.4.0
	check_eq "2.4.0: what the binaries import: libomp140 and vcomp140, not libiomp5md (though bundled)" \
		'[["libomp140.x86_64.dll",false,["fbgemm.dll","torch_cpu.dll"]],["vcomp140.dll",false,["fbgemm.dll","torch_cpu.dll"]]]' \
		"$(D 2.4.0 '[.openmp[] | [.dll,.bundled,.importers]]')"
	check_eq "2.4.0: the real wheel fails exactly where pytorch#131662 says" \
		'["missing-dll",126,"libomp140.x86_64.dll",["fbgemm.dll","libomp140.x86_64.dll"]]' \
		"$(bin 2.4.0 2.4.0 fbgemm.dll)"
	check_eq "2.4.0: and everything that imports fbgemm or libomp140 with it" \
		'["fbgemm.dll","shm.dll","torch_cpu.dll","torch_python.dll","_C.cp311-win_amd64.pyd"]' \
		"$(J 2.4.0 2.4.0 "$failing")"
	check_eq "2.4.0: import torch raises WinError 126 on fbgemm.dll" \
		'[126,"C:\\Python311\\Lib\\site-packages\\torch\\lib\\fbgemm.dll"]' \
		"$(J 2.4.0 2.4.0 '.installs[0].import_error | [.winerror,.binary]')"
	check_eq "2.4.0: exit 1" 1 "$(st 2.4.0 2.4.0)"
	tree_variant "$WORK/2.4.0" "$WORK/2.4.0-vs" && tree_libomp140 "$WORK/2.4.0-vs"
	PYEXE[2.4.0-vs]=${PYEXE[2.4.0]}
	check_eq "2.4.0 + libomp140 in System32 (a VS machine): every binary loads" '[]' \
		"$(J 2.4.0-vs 2.4.0-vs "$failing")"
	check_eq "2.4.0 + libomp140 in System32: the not-redistributable warning stays, the known issue folded into it" \
		'["openmp-not-redistributable","unverified"]' "$(J 2.4.0-vs 2.4.0-vs "$rules")"
	check_eq "2.4.0 + libomp140 in System32: the warning names the known issue" '"libomp140-not-redistributable"' \
		"$(J 2.4.0-vs 2.4.0-vs '[.findings[] | select(.rule == "openmp-not-redistributable") | .issue][0]')"
	check_eq "2.4.0 + libomp140 in System32: exit 0 (warnings)" 0 "$(st 2.4.0-vs 2.4.0-vs)"
fi

# ---- torch 2.4.1: back to Intel's OpenMP, bundled (pytorch#130697)
if have 2.4.1 "fixed" "vcruntime140_1 missing" "intel-openmp"; then
	pe_same_tree 2.4.1
	check_eq "2.4.1: imports only the bundled libiomp5md" '[["libiomp5md.dll",true,["fbgemm.dll","torch_cpu.dll"]]]' \
		"$(D 2.4.1 '[.openmp[] | [.dll,.bundled,.importers]]')"
	check_eq "2.4.1: every binary loads on Wine's System32" '[]' "$(J 2.4.1 2.4.1 "$failing")"
	check_eq "2.4.1: exit 0" 0 "$(st 2.4.1 2.4.1)"
	tree_variant "$WORK/2.4.1" "$WORK/2.4.1-no140_1" && tree_drop "$WORK/2.4.1-no140_1" vcruntime140_1.dll
	PYEXE[2.4.1-no140_1]=${PYEXE[2.4.1]}
	check_eq "2.4.1 without vcruntime140_1.dll: c10.dll fails with 126" \
		'["missing-dll",126,"VCRUNTIME140_1.dll",["c10.dll","VCRUNTIME140_1.dll"]]' \
		"$(bin 2.4.1-no140_1 2.4.1-no140_1 c10.dll)"
	check_eq "2.4.1 without vcruntime140_1.dll: torch's own probe fails too" 'true' \
		"$(J 2.4.1-no140_1 2.4.1-no140_1 '[.findings[] | .rule] | index("vc-runtime-probe") != null')"
	tree_variant "$WORK/2.4.1" "$WORK/2.4.1-noomp" &&
		rm "$(_pydir "$WORK/2.4.1-noomp")/Lib/site-packages/torch/lib/libiomp5md.dll"
	PYEXE[2.4.1-noomp]=${PYEXE[2.4.1]}
	check_eq "2.4.1 with torch\\lib\\libiomp5md.dll deleted: torch_cpu fails with 126" \
		'["missing-dll",126,"libiomp5md.dll",["torch_cpu.dll","fbgemm.dll","libiomp5md.dll"]]' \
		"$(bin 2.4.1-noomp 2.4.1-noomp torch_cpu.dll)"
	tree_variant "$WORK/2.4.1-noomp" "$WORK/2.4.1-iomp"
	PYEXE[2.4.1-iomp]=${PYEXE[2.4.1]}
	if tree_intel_openmp "$WORK/2.4.1-iomp" 2024.2.1 2>"$WORK/err"; then
		check_eq "... + pip intel-openmp 2024.2.1 (Library\\bin): its real libiomp5md exports all 43 imports" \
			'[]' "$(J 2.4.1-iomp 2.4.1-iomp "$failing")"
	else
		skip "2.4.1 + intel-openmp" "PyPI/pip did not give intel-openmp 2024.2.1: $(tail -1 "$WORK/err")"
	fi
fi

# ---- torch 2.9.1: toolset 14.4x, msvcp140 < 14.40 crashes DllMain (1114)
if have 2.9.1 "msvcp140 14.34 app-local" "msvcp140 14.44 app-local"; then
	pe_same_tree 2.9.1
	for r in 14.34.31931 14.40.33807 14.44.35112; do
		tree_variant "$WORK/2.9.1" "$WORK/2.9.1-$r" && PYEXE[2.9.1-$r]=${PYEXE[2.9.1]}
		tree_applocal "$WORK/2.9.1-$r" "$r" 2>"$WORK/err" || {
			skip "2.9.1 + msvc-runtime $r" "PyPI/pip did not give msvc-runtime $r: $(tail -1 "$WORK/err")"
			continue
		}
		case $r in
		14.34.*)
			check_eq "2.9.1 + app-local msvcp140 $r (pip msvc-runtime): predicted WinError 1114" \
				'[["msvcp140.dll",1114,"error"]]' \
				"$(J "2.9.1-$r" "2.9.1-$r" '[.findings[] | select(.rule == "runtime-too-old") | [.leaf,.winerror,.severity]] | unique')"
			check_eq "2.9.1 + app-local msvcp140 $r: exit 1" 1 "$(st "2.9.1-$r" "2.9.1-$r")" ;;
		*)
			check_eq "2.9.1 + app-local msvcp140 $r: no runtime-too-old, exit 0" '[false,0]' \
				"[$(J "2.9.1-$r" "2.9.1-$r" '[.findings[] | .rule] | index("runtime-too-old") != null'),$(st "2.9.1-$r" "2.9.1-$r")]" ;;
		esac
	done
	tree_variant "$WORK/2.9.1" "$WORK/2.9.1-conda" && PYEXE[2.9.1-conda]=${PYEXE[2.9.1]}
	if tree_conda_runtime "$WORK/2.9.1-conda" 14.34.31931 2>"$WORK/err"; then
		check_eq "2.9.1 + msvcp140 14.34 in Library\\bin (conda's layout): 1114, the copy in Library\\bin named" \
			'[["msvcp140.dll",1114,true]]' \
			"$(J 2.9.1-conda 2.9.1-conda '[.findings[] | select(.rule == "runtime-too-old") | [.leaf,.winerror,(.message | test("Library\\\\bin\\\\msvcp140.dll"))]] | unique')"
	else
		skip "2.9.1 + conda runtime 14.34" "PyPI/pip did not give msvc-runtime 14.34.31931: $(tail -1 "$WORK/err")"
	fi
fi

# ---- torch 2.15.0 (newest): vcruntime140_threads.dll, in the redistributable only from 14.40
if have 2.15.0 "Wine System32" "redist 14.34" "redist 14.44"; then
	pe_same_tree 2.15.0
	check_eq "2.15.0: Wine 8's System32 has no vcruntime140_threads.dll: torch_cpu fails with 126" \
		'["missing-dll",126,"VCRUNTIME140_THREADS.dll",["torch_cpu.dll","VCRUNTIME140_THREADS.dll"]]' \
		"$(bin 2.15.0 2.15.0 torch_cpu.dll)"
	for r in 14.34.31931 14.44.35112; do
		tree_variant "$WORK/2.15.0" "$WORK/2.15.0-$r" && PYEXE[2.15.0-$r]=${PYEXE[2.15.0]}
		tree_redist "$WORK/2.15.0-$r" "$r" 2>"$WORK/err" || {
			skip "2.15.0 + redistributable $r" "PyPI/pip did not give msvc-runtime $r: $(tail -1 "$WORK/err")"
			continue
		}
		case $r in
		14.34.*)
			check_eq "2.15.0 + redistributable $r: 126 on vcruntime140_threads (new in 14.40) and 1114 on msvcp140" \
				'[["missing-dll",126],["runtime-too-old",1114]]' \
				"$(J "2.15.0-$r" "2.15.0-$r" '[.findings[] | select(.severity == "error") | [.rule,.winerror]] | unique')" ;;
		*)
			check_eq "2.15.0 + redistributable $r: every binary loads, exit 0" '[[],0]' \
				"[$(J "2.15.0-$r" "2.15.0-$r" "$failing"),$(st "2.15.0-$r" "2.15.0-$r")]" ;;
		esac
	done
fi

# ---- torch 1.7.1 (the oldest release pip accepts), Python 3.9
if have 1.7.1 "oldest" "oldest without vcruntime140_1"; then
	pe_same_tree 1.7.1
	check_eq "1.7.1: every binary loads (C:\\Python39)" '[]' "$(J 1.7.1 1.7.1 "$failing")"
	check_eq "1.7.1: toolset 14.27 and already vcruntime140_1.dll" '["14.27",true]' \
		"$(D 1.7.1 '[.toolset,.vcruntime140_1]')"
	tree_variant "$WORK/1.7.1" "$WORK/1.7.1-no140_1" && tree_drop "$WORK/1.7.1-no140_1" vcruntime140_1.dll
	PYEXE[1.7.1-no140_1]=${PYEXE[1.7.1]}
	check_eq "1.7.1 without vcruntime140_1.dll: c10.dll fails with 126" \
		'["missing-dll",126,"VCRUNTIME140_1.dll"]' "$(bin 1.7.1-no140_1 1.7.1-no140_1 c10.dll | jq -c '.[0:3]')"
fi

# ---- Wine's loader on the same real trees (tests/oracle): torch's procedure for
# real, every binary's outcome against the checker's (oracle_compare.py).
# Not compared: the .pyd. torch_python.dll's DllMain needs a real Python and the
# tree's python3XY.dll is a stand-in whose exports are stubs, so its
# initialisation fails (reported per DLL below as "dllmain", with Wine's line);
# a second attempt through _C.pyd then aborts the whole process ("Key already
# registered with the same priority: PyInterpreterHooks", c10's registry).
# App-local Microsoft runtimes are used as what they are with
# WINEDLLOVERRIDES=...=n: Wine would otherwise substitute its builtins.
oracle_case() {
	local label=$1 tree=$2 want=$3 ov=${4:-} out
	if ! out=$(tree_oracle "$WORK/$tree" "${PYEXE[$tree]}" "$ov"); then
		not_ok "$label: $(head -1 <<<"$out")"
		tail -n +2 <<<"$out" | sed 's/^/#   /'
		return
	fi
	check_eq "$label: Wine's loader agrees with the checker on every torch\\lib DLL ($(grep -c '^agree' <<<"$out") agree)" \
		"" "$(grep -v '^agree\|^dllmain' <<<"$out")"
	check_eq "$label: DllMain failures under Wine" "$want" "$(grep '^dllmain' <<<"$out" | awk '{printf "%s ", $2}')"
	sed 's/^/# /' <<<"$out"
}
if ! command -v wine >/dev/null || ! ORACLE=$(oracle_build 2>/dev/null) || ! PFX=$(wine_prefix_ensure 2>/dev/null); then
	skip "Wine oracle on real wheels" "wine, mingw or the Wine prefix is missing (.ci/deps installs them)"
else
	wine_lock "$PFX"
	wine_start "$PFX"
	RT_N="msvcp140,msvcp140_1,msvcp140_2,msvcp140_atomic_wait,concrt140,vcomp140=n"
	[ -n "${PYEXE[2.4.0]:-}" ] && oracle_case "Wine, torch 2.4.0" 2.4.0 ""
	[ -n "${PYEXE[2.4.1]:-}" ] && oracle_case "Wine, torch 2.4.1" 2.4.1 "torch_python.dll "
	[ -n "${PYEXE[2.9.1-14.34.31931]:-}" ] && [ -d "$WORK/2.9.1-14.34.31931" ] &&
		oracle_case "Wine, torch 2.9.1 + real app-local msvcp140 14.34 (checker: 1114 on c10.dll and what maps it)" \
			2.9.1-14.34.31931 "" "$RT_N"
	[ -d "$WORK/2.9.1-conda/Python311/Library/bin" ] &&
		oracle_case "Wine, torch 2.9.1 + real msvcp140 14.34 in Library\\bin (checker: 1114 on c10.dll and what maps it)" \
			2.9.1-conda "" "$RT_N"
	[ -n "${PYEXE[2.9.1-14.44.35112]:-}" ] && [ -d "$WORK/2.9.1-14.44.35112" ] &&
		oracle_case "Wine, torch 2.9.1 + real app-local msvcp140 14.44" 2.9.1-14.44.35112 "torch_python.dll " "$RT_N"
	[ -n "${PYEXE[2.15.0]:-}" ] && oracle_case "Wine, torch 2.15.0 (no vcruntime140_threads in Wine 8)" 2.15.0 ""
	[ -n "${PYEXE[1.7.1]:-}" ] && oracle_case "Wine, torch 1.7.1" 1.7.1 "torch_python.dll "
	wine_stop "$PFX"
fi

# ---- matrix derive on bad input
check_status "derive: a folder without torch is exit 2" 2 "$B" matrix derive "$WORK"
mkdir -p "$WORK/bad/torch/lib" && echo "not a PE file" >"$WORK/bad/torch/lib/c10.dll"
check_eq "derive: a DLL that is not PE is exit 2 naming it" '2 yes' \
	"$("$B" matrix derive "$WORK/bad" >/dev/null 2>"$WORK/err"; echo "$? $(grep -q 'c10.dll' "$WORK/err" && echo yes)")"
tap_done
