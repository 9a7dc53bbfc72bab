#!/usr/bin/env bash
# shellcheck disable=SC2317,SC2016  # functions run through fx_build; jq programs in single quotes
# test_policy: `check` judges each torch install against its matrix row
# (checker/judge/policy.c). One generated Windows tree per matrix rule — the
# loader's torch stand-ins (tests/lib/trees/torch_cases.sh) with MSVC-like
# runtime DLLs carrying real version resources (tests/lib/demo.sh's
# builders) — and real offline registries: the Wine prefix of
# tests/lib/wine_registry.sh (keys added by `wine reg add`; its system.reg
# and `wine reg export` files, the cache test_registry.sh uses) and
# hand-written `reg export` text for the rest. Asserts the exact
# rules, severities, titles and fix texts, and the exit status.
TEST_NAME=policy
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
# shellcheck source=tests/lib/demo.sh
source "$TDC_REPO/tests/lib/demo.sh"
set -u
PY='C:\Python311\python.exe'
fx_hash >/dev/null

# pol_tree DIR LOADER_CASE TORCH_VERSION SYSTEM32_RUNTIME_VERSION|x86-only
pol_tree() {
	local d=$1 case=$2 ver=$3 rt=$4 sp
	torch_tree "$d" "$case" || return 1
	sp=$d/Python311/Lib/site-packages
	printf "__version__ = '%s'\ncuda = None\n" "$ver" >"$sp/torch/version.py"
	dist_info "$sp" "$ver"
	runtime "$d/Python311" 14.40.33810.0 vcruntime140.dll || return 1
	if [ "$rt" = x86-only ]; then
		# only the x86 redistributable: its DLLs are in SysWOW64, none in System32
		rm -f "$d/Windows/System32/"{vcruntime140,vcruntime140_1,msvcp140}.dll
		make_dll "$d/Windows/SysWOW64/msvcp140.dll" --machine x86 --version 14.40.33810.0 --export _Thrd_yield
		make_dll "$d/Windows/SysWOW64/vcruntime140.dll" --machine x86 --version 14.40.33810.0 --export memset
	else
		runtime "$d/Windows/System32" "$rt" vcruntime140.dll &&
			runtime "$d/Windows/System32" "$rt" vcruntime140_1.dll || return 1
		# msvcp_shadow brings its own System32 msvcp140 (14.40) and an app-local 14.29 copy
		[ "$case" = msvcp_shadow ] || runtime "$d/Windows/System32" "$rt" msvcp140.dll || return 1
	fi
}
# build_tools DIR: what the Visual Studio / Build Tools C++ workload leaves in System32.
build_tools() {
	pol_tree "$@" && make_dll "$1/Windows/System32/libomp140.x86_64.dll" --version 20.1.8.0 \
		--export omp_get_max_threads --import KERNEL32.dll:GetLastError
}
FX_KEY=$(cat "$TDC_REPO/tests/lib/demo.sh" "$TDC_REPO/tests/lib/trees/loader.sh" "$TDC_REPO/tests/lib/trees/torch_cases.sh" \
	"$TDC_REPO/tests/check/test_policy.sh" | sha256sum | cut -c1-12)
export FX_KEY
tree() { fx_build "policy-$1" "${@:2}"; }

# reg FILE X64_VERSION|- X86_VERSION|-: a hand-written `reg export` (UTF-8, as reg.exe /y writes too)
reg() {
	local f=$1 a v key
	{
		echo 'Windows Registry Editor Version 5.00'
		for a in x64 x86; do
			[ "$a" = x64 ] && v=$2 || v=$3
			[ "$v" = - ] && continue
			key='HKEY_LOCAL_MACHINE\SOFTWARE\WOW6432Node\Microsoft\VisualStudio\14.0\VC\Runtimes'
			printf '\n[%s\\%s]\n"Installed"=dword:00000001\n"Version"="v%s"\n' "$key" "$a" "$v"
		done
	} >"$f"
}

# J TREE FILTER ARGS...: jq over check --json
J() {
	local r=$1 f=$2
	shift 2
	"$B" check --root "$r/root" --python "$PY" --json "$@" 2>&1 | jq -c "$f" 2>&1
}
status_of() {
	local r=$1
	shift
	"$B" check --root "$r/root" --python "$PY" "$@" >/dev/null 2>&1
	echo $?
}
# wrap DIR FUNC ARGS...: FUNC DIR/root ARGS... (the tree in root/, as the demo's)
wrap() {
	local d=$1 f=$2
	shift 2
	mkdir -p "$d/root" && "$f" "$d/root" "$@"
}

# ---- redistributable too old (torch 2.9, sourced: error; and System32's msvcp140 below 14.40) ----
wrap_old29() { wrap "$1" pol_tree healthy 2.9.0+cpu 14.38.33130.0; }
t=$(tree old29 wrap_old29)
reg "$tmp/old.reg" 14.38.33130.00 -
check_eq "2.9 + redistributable 14.38: rules and severities (python.org's own vcruntime140 14.40 is fine)" \
	'[["runtime-too-old","error"]]' \
	"$(J "$t" '[.findings[] | [.rule,.severity]]' --registry "$tmp/old.reg")"
check_eq "2.9 + redistributable 14.38: the known issue (applies_when older: msvcp140.dll) folded into runtime-too-old" \
	'"msvcp140-older-than-14.40"' \
	"$(J "$t" '[.findings[] | select(.rule=="runtime-too-old") | .issue][0]' --registry "$tmp/old.reg")"
# one cause, one problem (#34): the redistributable's too-old DLL is the finding; the registry's facts are in it
check_eq "redist-too-old folded into runtime-too-old: the registry's version and the row's minimum in its message" \
	'true' \
	"$(J "$t" '.findings[0].message | contains("records v14.38.33130.00; the matrix row torch-2.9-to-2.11") and contains("asks for at least 14.42")' --registry "$tmp/old.reg")"
check_eq "runtime-too-old: System32's msvcp140 14.38 will load, 1114, fix = the redistributable the row asks for" \
	'["msvcp140.dll 14.38.33130.0 will be the one loaded (System32); torch 2.9.0+cpu needs >= 14.40 (WinError 1114 in DllMain)",1114,"install the VC++ 2015-2022 x64 redistributable >= 14.42 (https://aka.ms/vs/17/release/vc_redist.x64.exe); or: torch < 2.9 (matrix row torch-2.8 asks no more of msvcp140.dll than this copy'"'"'s 14.38.33130.0)"]' \
	"$(J "$t" '.findings[] | select(.rule=="runtime-too-old" and .leaf=="msvcp140.dll") | [.title,.winerror,.fix]' --registry "$tmp/old.reg")"
check_eq "the install's matrix_row is the 2.9 row" '["torch-2.9-to-2.11","<embedded>/matrix/torch.yml","fail"]' \
	"$(J "$t" '.installs[0] | [.matrix_row.id,.matrix_row.file,.status]' --registry "$tmp/old.reg")"
check_eq "exit 1" 1 "$(status_of "$t" --registry "$tmp/old.reg")"
reg "$tmp/new.reg" 14.44.35211.00 -
check_eq "the same tree with a 14.44 registry: System32's msvcp140 stays too old (the row's known issue folded into it)" \
	'[["runtime-too-old","msvcp140-older-than-14.40"]]' "$(J "$t" '[.findings[] | [.rule,.issue]]' --registry "$tmp/new.reg")"

# an inferred row's minimum is advice: torch 1.6 (14.28, inferred: no wheel on PyPI) with 14.27 is a warning, exit 0
wrap_old27() { wrap "$1" pol_tree healthy 1.6.0+cpu 14.40.33810.0; }
t27=$(tree old16 wrap_old27)
reg "$tmp/36.reg" 14.27.29016.00 -
check_eq "1.6 (inferred row) + 14.27: redist-too-old is a warning" '[["redist-too-old","warning"]]' \
	"$(J "$t27" '[.findings[] | select(.rule != "known-issue") | [.rule,.severity]]' --registry "$tmp/36.reg")"
check_eq "…exit 0, and 1 with --fail-on warning" "0 1" \
	"$(status_of "$t27" --registry "$tmp/36.reg") $(status_of "$t27" --registry "$tmp/36.reg" --fail-on warning)"

# a torch newer than every measured wheel: the open-ended newest row judges it, and says so
wrap_future() { wrap "$1" pol_tree healthy 3.7.0+cpu 14.44.35211.0; }
tf=$(tree future37 wrap_future)
check_eq "torch 3.7.0: judged by the newest row, with a note naming the newest measured wheel" \
	'["torch-2.14-and-newer",["note","torch 3.7.0+cpu is newer than the newest wheel the matrix was measured on (2.15.0)"]]' \
	"$(J "$tf" '[.installs[0].matrix_row.id, (.findings[] | select(.rule == "torch-newer-than-measured") | [.severity,.title])]')"
check_eq "torch 2.9.0 (measured rows cover it): no such note" '[]' \
	"$(J "$t" '[.findings[] | select(.rule == "torch-newer-than-measured")]')"

# ---- x86 installed but x64 missing ----
wrap_x86() { wrap "$1" pol_tree healthy 2.5.1+cpu x86-only; }
tx=$(tree x86only wrap_x86)
reg "$tmp/x86.reg" - 14.40.33810.00
check_eq "x86 only: redist-missing error, titled as the classic" \
	'["redist-missing","error","x86 14.40.33810.0 installed but x64 missing: the VC++ 2015-2022 x64 redistributable is not installed","install the VC++ 2015-2022 x64 redistributable >= 14.29 (https://aka.ms/vs/17/release/vc_redist.x64.exe)"]' \
	"$(J "$tx" '.findings[] | select(.rule=="redist-missing") | [.rule,.severity,.title,.fix]' --registry "$tmp/x86.reg")"
check_eq "…the loader's probe failure on msvcp140 gets the same fix, saying why x86 does not help" \
	'"install the VC++ 2015-2022 x64 redistributable >= 14.29 (https://aka.ms/vs/17/release/vc_redist.x64.exe): the x86 one that is installed does not serve a 64-bit Python"' \
	"$(J "$tx" '.findings[] | select(.rule=="vc-runtime-probe") | .fix' --registry "$tmp/x86.reg")"
check_eq "x86 only: exit 1" 1 "$(status_of "$tx" --registry "$tmp/x86.reg")"

wrap_ok() { wrap "$1" pol_tree healthy 2.5.1+cpu 14.40.33810.0; }
tok=$(tree ok251 wrap_ok)

# ---- missing for one architecture only (Wine's real registry: x64 14.40, x86 14.38, arm64 Installed=0) ----
# shellcheck source=tests/lib/wine_registry.sh
source "$TDC_REPO/tests/lib/wine_registry.sh"
if ! command -v wine >/dev/null; then
	skip "runtimes missing for one architecture, in Wine's real registry" "wine is not installed (see .ci/deps)"
else
	if pfx=$(wine_registry_prefix 2>"$tmp/prefix.err"); then
		ok "Wine prefix with VC++ runtime keys added by wine reg add (shared with test_registry.sh)"
		# the one finding: Wine 8's prefix says Windows 7, a note (test_windows_version.sh)
		check_eq "Wine system.reg (arm64 not installed): an x64 python needs x64 only: no redistributable finding" \
			'["pass",["windows-too-old/note"],"wine system.reg"]' \
			"$(J "$tok" '[.status,[.findings[] | "\(.rule)/\(.severity)"],(.inventory.registry|split(" ")[0:2]|join(" "))]' --registry "$pfx/system.reg")"
		check_eq "wine reg export files (64-bit + WOW6432Node): the same" '["pass",[]]' \
			"$(J "$tok" '[.status,.findings]' --registry "$pfx/export64.reg" --registry "$pfx/export-wow.reg")"
		check_eq "…the report's inventory has all three architectures" \
			'[["x64",true,"14.40.33810.0"],["x86",true,"14.38.33130.0"],["arm64",false,"14.40.33810.0"]]' \
			"$(J "$tok" '[.inventory.redistributables[] | [.arch,.installed,.version]]' --registry "$pfx/system.reg")"
		# --root at a Wine prefix's drive_c: its ../system.reg is found by itself (symlinked tree inside a copy)
		mkdir -p "$tmp/pfx"
		cp "$pfx/system.reg" "$tmp/pfx/system.reg"
		ln -s "$tok/root" "$tmp/pfx/drive_c"
		check_eq "--root DRIVE_C finds the prefix's system.reg" '["pass",true]' \
			"$("$B" check --root "$tmp/pfx/drive_c" --python "$PY" --json | jq -c '[.status,(.inventory.registry|startswith("wine system.reg"))]')"
		# msvcp140 shadowing below the row's minimum, with the real export for the registry
		wrap_shadow() { wrap "$1" pol_tree msvcp_shadow 2.9.1+cpu 14.40.33810.0; }
		ts=$(tree shadow wrap_shadow)
		check_eq "app-local msvcp140 14.29 beats System32's 14.40: runtime-too-old, exact title" \
			'["runtime-too-old","error",1114,"msvcp140.dll 14.29.30133.0 will be the one loaded (python.exe'"'"'s folder, C:\\Python311); torch 2.9.1+cpu needs >= 14.40 (WinError 1114 in DllMain)"]' \
			"$(J "$ts" '.findings[] | select(.leaf=="msvcp140.dll") | [.rule,.severity,.winerror,.title]' --registry "$pfx/export64.reg")"
		check_eq "…fix: remove or update the shadowing copy" \
			'"remove or update the msvcp140.dll at C:\\Python311\\msvcp140.dll: it shadows System32'"'"'s 14.40.33810.0 copy with 14.29.30133.0; or: torch < 2.9 (matrix row torch-2.8 asks no more of msvcp140.dll than this copy'"'"'s 14.29.30133.0)"' \
			"$(J "$ts" '.findings[] | select(.leaf=="msvcp140.dll") | .fix' --registry "$pfx/export64.reg")"
		check_eq "…and the loader's shadowed-dll warning is folded into it" '[]' \
			"$(J "$ts" '[.findings[] | select(.rule=="shadowed-dll" and .leaf=="msvcp140.dll")]' --registry "$pfx/export64.reg")"
		check_eq "…exit 1" 1 "$(status_of "$ts" --registry "$pfx/export64.reg")"
	else
		not_ok "could not build the Wine prefix"
		sed 's/^/#   /' "$tmp/prefix.err"
	fi
fi

# ---- libomp140 only in System32 because Build Tools are there ----
wrap_bt() { wrap "$1" build_tools fbgemm_omp140 2.4.0+cpu 14.40.33810.0; }
tb=$(tree buildtools wrap_bt)
reg "$tmp/40.reg" 14.40.33810.00 14.40.33810.00
check_eq "libomp140 in System32 only: openmp-not-redistributable warning, the known issue folded into it" \
	'[["openmp-not-redistributable","warning","libomp140-not-redistributable"]]' \
	"$(J "$tb" '[.findings[] | [.rule,.severity,.issue]]' --registry "$tmp/40.reg")"
check_eq "…title and fix" \
	'["libomp140.x86_64.dll is found only in System32, where Visual Studio / Build Tools put it","upgrade to torch >= 2.4.1; or install the Visual Studio Build Tools'"'"' C++ workload; or copy libomp140.x86_64.dll from a Visual Studio install into torch\\lib"]' \
	"$(J "$tb" '.findings[0] | [.title,.fix]' --registry "$tmp/40.reg")"
check_eq "…it loads here: exit 0 (a warning), 1 with --fail-on warning" "0 1" \
	"$(status_of "$tb" --registry "$tmp/40.reg") $(status_of "$tb" --registry "$tmp/40.reg" --fail-on warning)"

# ---- torch version not in the matrix, and a --matrix layer that covers it ----
wrap_rc() { wrap "$1" pol_tree healthy 2.4.0rc1+cpu 14.40.33810.0; }
trc=$(tree rc wrap_rc)
check_eq "2.4.0rc1: torch-uncovered error naming version, variant, arch" \
	'["torch-uncovered","error","torch 2.4.0rc1+cpu (cpu, x64) is not covered by the matrix",true,null]' \
	"$(J "$trc" '[.findings[0] | .rule,.severity,.title,(.fix|startswith("add a row to a file passed with --matrix, e.g. `schema: 1` / `rows: [{id: my-torch-2.4.0rc1, torch: \"==2.4.0rc1\""))] + [.installs[0].matrix_row]' --registry "$tmp/40.reg")"
check_eq "…exit 1" 1 "$(status_of "$trc" --registry "$tmp/40.reg")"
cat >"$tmp/org.yml" <<'EOF'
schema: 1
rows:
  - id: org-2.4-rc
    torch: "==2.4.0rc1"
    status: inferred
    vc_redist: {x64: "14.29"}
EOF
check_eq "--matrix org.yml covers it: the row, its file and line; pass" \
	'["pass","org-2.4-rc",3,["<embedded>/matrix/torch.yml","ORG"]]' \
	"$(J "$trc" '[.status,.installs[0].matrix_row.id,.installs[0].matrix_row.line,(.matrix.sources|map(sub(".*/org.yml";"ORG")))]' --registry "$tmp/40.reg" --matrix "$tmp/org.yml")"
echo 'schema: 1
rows: [{id: x, torch: ">=2.4", staus: sourced}]' >"$tmp/bad.yml"
check_eq "a bad --matrix file: exit 2 with file:line:col" "2 true" \
	"$(status_of "$trc" --matrix "$tmp/bad.yml") $("$B" check --root "$trc/root" --python "$PY" --matrix "$tmp/bad.yml" 2>&1 | grep -q 'bad.yml:2:' && echo true)"

# ---- no registry: unknown, not missing ----
check_eq "no registry: one unverified note, no redist-missing, pass" \
	'["pass",[["unverified","note","VC++ redistributable: unknown (no registry)"]],null]' \
	"$(J "$tok" '[.status,[.findings[]|[.rule,.severity,.title]],.inventory.registry]')"
check_eq "no registry: exit 0" 0 "$(status_of "$tx")"
check_eq "x86-only tree without a registry: the loader's findings only, never redist-missing" '[]' \
	"$(J "$tx" '[.findings[] | select(.rule=="redist-missing")]')"

# ---- two torch installs on one runner, different verdicts (the demo's runner) ----
d=$(demo_tree)
out=$("$B" check --root "$d/root" --scan "C:\\" --registry "$d/runner.reg" --json)
check_eq "--scan: two installs, one fails, one passes" \
	'[["2.4.0+cpu","fail","torch-2.4.0"],["2.5.1+cpu","pass","torch-2.4.1-to-2.6"]]' \
	"$(jq -c '[.installs[] | [.version,.status,.matrix_row.id]] | sort' <<<"$out")"
check_eq "--scan: every finding belongs to the failing install" '["C:\\Python311\\Lib\\site-packages\\torch"]' \
	"$(jq -c '[.findings[].install] | unique' <<<"$out")"
check_eq "--scan: the inventory lists both installs and the registry's redistributables" '[2,"14.40.33810.0"]' \
	"$(jq -c '[(.inventory.installs|length), .inventory.redistributables[0].version]' <<<"$out")"
txt=$("$B" check --root "$d/root" --scan "C:\\" --registry "$d/runner.reg")
check_eq "--scan text: verdict line" \
	"FAIL 1 of 2 torch installs will not load: fbgemm.dll cannot load: libomp140.x86_64.dll is missing (1 problem: 1 error, 0 warnings, 0 notes; 5 findings; 18 torch binaries checked, 5 fail)" \
	"$(head -1 <<<"$txt")"
check_eq "--scan text: failing install first, then the passing one" "FAIL PASS" \
	"$(grep -E '^  (FAIL|PASS|WARN) torch ' <<<"$txt" | awk '{print $1}' | paste -sd' ')"
check_status "--scan: exit 1" 1 "$B" check --root "$d/root" --scan "C:\\" --registry "$d/runner.reg"
check_status "--scan with --torch: usage error" 2 "$B" check --root "$d/root" --scan "C:\\" --torch 'C:\x'
check_status "--scan of a folder without torch: exit 2" 2 "$B" check --root "$d/root" --scan 'C:\Windows'

tap_done
