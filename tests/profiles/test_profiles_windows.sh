#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_profiles_windows: the minimum Windows of a torch release (the matrix
# rows' min_windows, docs/profiles.md) measured from the REAL torch wheels
# and judged against each machine profile's `build` (issue 30).
#
# 1. The evidence, read again from the cached wheels: torch_cpu.dll of 2.4.0,
#    2.4.1, 2.9.1 and the newest imports kernel32!CreateFile2 (Windows 8 and
#    newer), CreateFileMappingFromApp and MapViewOfFileFromApp; 2.3.1's does
#    not; every torch binary's PE header says 6.0 (MajorOperatingSystemVersion,
#    MajorSubsystemVersion: Vista), so the header does not tell it. The
#    rows those releases select say min_windows 6.2; 2.3.1's says none.
# 2. The judge: on a Windows 7 SP1 profile (6.1.7601) torch 2.4.0 and 2.9.1
#    fail with windows-too-old, WinError 127 on kernel32.dll, in the gate
#    (check --pins) and in check --profile of an installed 2.9.1; a Windows
#    8.1 profile (6.3.9600) and the built-in ones pass that check.
TEST_NAME=profiles/windows
TDC_KEEP_TMP=${TDC_KEEP_TMP:-${KEEP:-}}
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
set -u
WORK=$tmp
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp

# ---- 1. the evidence from the wheels ----
NEWEST=2.15.0
# header DLL...: "OSMAJ.OSMIN/SUBMAJ.SUBMIN" of each, sorted and unique (pefile: an independent reading)
header() {
	python3 - "$@" <<'PYEOF'
import sys, pefile
seen = set()
for p in sys.argv[1:]:
    oh = pefile.PE(p, fast_load=True).OPTIONAL_HEADER
    seen.add("%d.%d/%d.%d" % (oh.MajorOperatingSystemVersion, oh.MinorOperatingSystemVersion,
                              oh.MajorSubsystemVersion, oh.MinorSubsystemVersion))
print(" ".join(sorted(seen)))
PYEOF
}
for v in 2.3.1 2.4.0 2.4.1 2.9.1 "$NEWEST"; do
	if ! whl=$(wheel_fetch torch "$v" 2>"$WORK/err"); then
		skip "torch $v: the evidence" "PyPI/pip did not give torch $v's win_amd64 wheel: $(tail -1 "$WORK/err")"
		continue
	fi
	d=$WORK/x$v
	mkdir -p "$d" && (cd "$d" && unzip -q -o "$whl" 'torch/lib/*.dll' 'torch/*.pyd' 2>/dev/null)
	check_eq "torch $v: every binary's PE header says Windows 6.0 (Vista), OS and subsystem alike" "6.0/6.0" \
		"$(header "$d"/torch/lib/*.dll "$d"/torch/*.pyd)"
	want="CreateFile2 CreateFileMappingFromApp MapViewOfFileFromApp"
	[ "$v" = 2.3.1 ] && want=""
	check_eq "torch $v: the Windows 8 functions torch_cpu.dll imports from kernel32" "$want" \
		"$("$B" pe --json --no-exports "$d/torch/lib/torch_cpu.dll" | jq -r '[.files[0].imports[] | select(.dll | ascii_downcase == "kernel32.dll") | .functions[].name |
			select(. == "CreateFile2" or . == "CreateFileMappingFromApp" or . == "MapViewOfFileFromApp")] | sort | join(" ")')"
done

# ---- 2. the judge ----
# profile NAME TITLE WINDOWS BUILD: the real 14.44 redistributable's DLLs, no NVIDIA GPU
profile() {
	printf '  - name: %s\n    title: %s\n    windows: "%s"\n    build: "%s"\n    vc_redist: {x64: "14.44.35211"}\n    visual_studio: false\n    system32:\n' "$1" "$2" "$3" "$4"
	for d in concrt140.dll msvcp140.dll msvcp140_1.dll msvcp140_2.dll vcomp140.dll vcruntime140.dll vcruntime140_1.dll vcruntime140_threads.dll; do
		printf '      - {name: %s, version: "14.44.35211.0"}\n' "$d"
	done
	printf '      - {name: ucrtbase.dll}\n    nvidia_driver: none\n    status: inferred\n'
}
{
	echo "schema: 1"
	echo "profiles:"
	profile win7-sp1 "Windows 7 SP1 with the VC++ redistributable 14.44" "7 SP1" 6.1.7601
	profile win81 "Windows 8.1 with the VC++ redistributable 14.44" "8.1" 6.3.9600
} >"$WORK/old.yml"
check_eq "the profiles lint clean" 0 "$("$B" matrix lint "$WORK/old.yml" >/dev/null 2>&1; echo $?)"
sys=$WORK/runner/Windows/System32
mkdir -p "$sys"
if ! tree_redist "$WORK/runner" 14.44.35112 2>"$WORK/err"; then
	skip "the judge" "PyPI/pip did not give msvc-runtime 14.44.35112: $(tail -1 "$WORK/err")"
	tap_done
fi
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v14.44.35211.00"\r\n' >"$WORK/144.reg"
repo=$WORK/repo
git init -q -b main "$repo"
printf 'numpy\n' >"$repo/requirements.txt"
git -C "$repo" add -A && git -C "$repo" commit -qm base
# gate VERSION: check --pins --json of a branch pinning torch==VERSION, on the two old profiles
gate() {
	git -C "$repo" checkout -q main && git -C "$repo" checkout -q -B "pr$1" && printf 'torch==%s\n' "$1" >"$repo/requirements.txt" &&
		git -C "$repo" commit -qam "torch $1"
	"$B" check --pins --repo "$repo" --base main --head "pr$1" --root "$WORK/runner" --registry "$WORK/144.reg" --json \
		--profile "$WORK/old.yml" --profile win10-22h2-clean-vc14.44 2>>"$WORK/gate.err"
}
V='.pins.targets[0].verdicts | "\(.runner) \([.profiles[] | "\(.name)=\(.verdict)/\(.winerror)/\(.leaf)"] | join(" "))"'
check_eq "the gate, torch==2.9.1: Windows 7 fails with 127 on kernel32.dll; 8.1 and Windows 10 pass" \
	"pass win7-sp1=fail/127/kernel32.dll win81=pass/null/null win10-22h2-clean-vc14.44=pass/null/null" \
	"$(gate 2.9.1 | jq -r "$V")"
out=$(gate 2.4.1)
check_eq "the gate, torch==2.4.1: the same (exit 1), one profile-fails error naming Windows 7 alone" \
	"pass win7-sp1=fail/127/kernel32.dll win81=pass/null/null win10-22h2-clean-vc14.44=pass/null/null|[\"win7-sp1\"]" \
	"$(jq -r "$V" <<<"$out")|$(jq -c '[.findings[] | select(.rule == "profile-fails") | .profiles[]]' <<<"$out")"
check_eq "its title and message: the minimum, the profile's build, the imports measured" yes \
	"$(jq -r '[.findings[] | select(.rule == "profile-fails")][0] | (.title | test("fails on Windows 7 SP1 .*\\(win7-sp1\\) \\(WinError 127, kernel32\\.dll\\)$")) and
		(.message | test("needs Windows 8 \\(NT 6\\.2\\) or newer.*win7-sp1 has Windows 7 SP1 \\(6\\.1\\.7601\\)") and test("kernel32!CreateFile2") and test("WinError 127\\] The specified procedure could not be found"))
		| if . then "yes" else . end' <<<"$out")"
check_eq "the gate, torch==2.3.1 (its row says no min_windows): Windows 7 is not failed on it" \
	"win7-sp1=pass" "$(gate 2.3.1 | jq -r '.pins.targets[0].verdicts.profiles[] | select(.name == "win7-sp1") | "\(.name)=\(.verdict)"')"
# check --profile: an installed 2.9.1
if whl=$(wheel_fetch torch 2.9.1 2>"$WORK/err") && py=$(wheel_tree "$WORK/t291" "$whl" 2>"$WORK/err") &&
	tree_redist "$WORK/t291" 14.44.35112 2>"$WORK/err"; then
	out=$("$B" check --root "$WORK/t291" --python "$py" --registry "$WORK/144.reg" --json --profile "$WORK/old.yml" \
		--profile win11-24h2-clean-vc14.44 2>>"$WORK/gate.err")
	check_eq "check --profile of an installed 2.9.1: Windows 7 fails with 127 on kernel32.dll, the others do not on it" \
		"win7-sp1 fail 127 kernel32.dll|win81 null|win11-24h2-clean-vc14.44 null" \
		"$(jq -r '[.profile_checks[] | if .profile == "win7-sp1" then "\(.profile) \(.verdict) \(.winerror) \(.leaf)" else "\(.profile) \(.winerror)" end] | join("|")' <<<"$out")"
else
	skip "check --profile of 2.9.1" "the tree: $(tail -1 "$WORK/err")"
fi
check_eq "nothing on stderr" "" "$(cat "$WORK/gate.err")"
tap_done
