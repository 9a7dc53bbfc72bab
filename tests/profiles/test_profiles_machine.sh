#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_profiles_machine: a machine profile's memory, paging file and NVIDIA
# driver judged when `check --profile` judges an install on it (issue 30,
# docs/profiles.md), on the cu124 tree of NVIDIA's REAL DLLs that tests/cuda
# builds (tests/cuda/tree.sh: the nvidia-*-cu12 win_amd64 wheels, cached).
# The runner has the NVIDIA driver 551.61 (CUDA 12.4's minimum): the install
# passes there.
#
# 1. Memory (judge/commit.h): 8 processes fail with WinError 1455 on a
#    profile of 1 GB without a paging file, the finding naming the profile,
#    its memory and the processes; 1 process fits there; 8 fit on the
#    built-in NVIDIA profile's 32 GB; the same verdicts as `check --memory`
#    with the same machine on the runner. A profile that does not say its
#    memory gets the commit-limit-unknown note, never a silent pass. The gate
#    (check --pins with the install) says the same.
# 2. The NVIDIA driver (judge/cuda.h) is the profile's, not the runner's
#    System32\nvcuda.dll: a driver 572.16 profile passes; the clean profile (no
#    NVIDIA GPU) fails with cuda-no-driver; a driver 516.94 profile gets
#    cuda-driver-too-old, the rules `check` gives on trees whose nvcuda.dll is
#    that driver's; a profile never passes what the runner fails.
TEST_NAME=profiles/machine
TDC_KEEP_TMP=${TDC_KEEP_TMP:-${KEEP:-}}
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/cuda/tree.sh"
set -u
WORK=$tmp
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
PY='C:\Python311\python.exe'
t=$WORK/cu124
cuda_tree "$t" cu124 --full >/dev/null 2>"$WORK/build.err"
rc=$?
if [ "$rc" -ne 0 ]; then
	[ "$rc" -eq 3 ] && skip "profiles on the cu124 tree" "PyPI/pip did not give an NVIDIA wheel: $(tail -1 "$WORK/build.err")"
	[ "$rc" -ne 3 ] && not_ok "the cu124 tree could not be built: $(tail -3 "$WORK/build.err" | tr '\n' ' ')"
	tap_done
fi
nv_adapter() { echo "NVIDIA|NVIDIA GeForce RTX 4090|$(nv_file_version "$1")"; }
# driver TREE DRIVER: a copy of the cu124 tree (hard links) whose System32\nvcuda.dll is DRIVER's
driver() {
	rm -rf "${1:?}" && cp -al "$t" "$1" && rm -f "$1/Windows/System32/nvcuda.dll" &&
		cuda_driver "$1" "$2" && cuda_registry "$1" "$(nv_adapter "$2")"
}
if ! { driver "$WORK/r551" 551.61 && driver "$WORK/r572" 572.16 && driver "$WORK/r516" 516.94; }; then
	not_ok "the driver trees"
	tap_done
fi
cuda_registry "$t" # no NVIDIA adapter, no nvcuda.dll: a runner without the driver

# profile NAME TITLE DRIVER [MEMORY_GB PAGING]: a profile entry (the clean Windows 11 runtime, the real 14.44's versions)
profile() {
	printf '  - name: %s\n    title: %s\n    windows: "11 24H2"\n    build: "10.0.26100"\n    vc_redist: {x64: "14.44.35211"}\n    visual_studio: false\n    system32:\n' "$1" "$2"
	for d in vcruntime140.dll vcruntime140_1.dll msvcp140.dll msvcp140_1.dll vcomp140.dll; do
		printf '      - {name: %s, version: "14.44.35211.0"}\n' "$d"
	done
	printf '      - {name: ucrtbase.dll}\n'
	if [ "$3" = none ]; then printf '    nvidia_driver: none\n'; else printf '    nvidia_driver: "%s"\n' "$3"; fi
	[ -n "${4:-}" ] && printf '    memory_gb: %s\n    paging_file: %s\n' "$4" "$5"
	printf '    status: inferred\n'
}
{
	echo "schema: 1"
	echo "profiles:"
	profile small-laptop "a laptop with 1 GB and no paging file" 572.16 1 0
	profile no-memory "a machine whose memory nobody wrote down" 572.16
	profile rtx-572 "an RTX machine with driver 572.16" 572.16 64 system-managed
	profile gtx-516 "an old GTX machine with driver 516.94" 516.94 64 system-managed
} >"$WORK/profiles.yml"
check_eq "the profiles file lints clean" "0" "$("$B" matrix lint "$WORK/profiles.yml" >/dev/null 2>&1; echo $?)"

# chk TREE ARGS...: check --json of TREE with its registry
chk() {
	local d=$1
	shift
	"$B" check --root "$d" --python "$PY" --registry "$d/registry.reg" --json "$@" 2>>"$WORK/err"
}
V='[.profile_checks[] | "\(.profile) \(.verdict) \(.winerror) \(.leaf)"] | join(" | ")'
pf() { jq -r --arg p "$2" '[.findings[] | select(.rule == "profile-fails" and (.profiles | index($p)))][0].title // "none"' "$1"; }

# ---- 1. memory: the commit limit on the profile's machine ----
chk "$WORK/r551" --processes 8 >"$WORK/r551.json"
P=$(jq '.installs[0].commit.per_process' "$WORK/r551.json")
echo "# cu124 + driver 551.61: runner $(jq -r .status "$WORK/r551.json"), $P bytes per process"
check_eq "the runner passes (its memory unknown: only the commit note)" "pass commit-limit-unknown" \
	"$(jq -r '"\(.status) \([.findings[].rule] | join(" "))"' "$WORK/r551.json")"
# the profile of 1 GB must be below 8 processes and above one: 1 GiB / 8 < P < 0.75 GiB
check_eq "one process charges between 128 MiB and 768 MiB (what the profiles below assume)" yes \
	"$([ "$P" -gt 134217728 ] && [ "$P" -lt 805306368 ] && echo yes || echo "no: $P")"
chk "$WORK/r551" --processes 8 --profile "$WORK/profiles.yml" --profile win11-24h2-vc14.44-nvidia-570.65 >"$WORK/m8.json"
check_eq "8 processes: 1455 on the 1 GB profile (cuFFT charges most), no-memory and 32 GB ones pass" \
	"small-laptop fail 1455 cufft64_11.dll | no-memory pass null null | rtx-572 pass null null | gtx-516 warn null null | win11-24h2-vc14.44-nvidia-570.65 pass null null" \
	"$(jq -r "$V" "$WORK/m8.json")"
check_eq "the profile-fails error names the profile, its memory and the processes, and the runner's side" \
	'torch at C:\Python311\Lib\site-packages\torch is not judged against this runner'"'"'s commit limit (its memory is unknown: --memory); fails on a laptop with 1 GB and no paging file (small-laptop; 1 GB, no paging file) at 8 processes (WinError 1455, cufft64_11.dll)' \
	"$(pf "$WORK/m8.json" small-laptop)"
check_eq "the profile without memory_gb: a commit-limit-unknown note naming it, and its check's note says so" \
	'["no-memory"] true' \
	"$(jq -r '"\([.findings[] | select(.rule == "commit-limit-unknown" and (.profiles | length > 0)) | .profiles[]] | tojson) \([.profile_checks[] | select(.profile == "no-memory") | .note | test("commit charge is not judged")] | all)"' "$WORK/m8.json")"
# the text report says the profile's note under its verdict line (the commit charge not judged there)
"$B" report --in "$WORK/m8.json" --fail-on never >"$WORK/m8.txt" 2>>"$WORK/err"
check_eq "the text report: under 'on no-memory', its note (the commit charge is not judged: no memory_gb)" yes \
	"$(sed -n '/^  on no-memory: pass/,/^  on /p' "$WORK/m8.txt" | sed '$d' | tr -s ' \n' ' ' |
		grep -q '^ on no-memory: pass: .* note: the DLLs .* the commit charge is not judged: the profile does not say its memory (memory_gb) $' && echo yes || echo no)"
# two profiles without memory_gb (no-memory and a copy of its check, no-memory-2): the note said once, naming both
jq '.profile_checks |= (. + [.[] | select(.profile == "no-memory") | .profile = "no-memory-2"])' "$WORK/m8.json" >"$WORK/m8two.json"
"$B" report --in "$WORK/m8two.json" --fail-on never >"$WORK/m8two.txt" 2>>"$WORK/err"
check_eq "the text report: a note shared by two profiles said once, naming both; the other note once for the rest" \
	"1 1 2" \
	"$(tr -s ' \n' ' ' <"$WORK/m8two.txt" | grep -o 'note (on no-memory, no-memory-2): the DLLs [^;]*; the [^;]*; the commit charge is not judged' | wc -l) $(tr -s ' \n' ' ' <"$WORK/m8two.txt" | grep -o 'the commit charge is not judged: the profile does not say' | wc -l) $(grep -c '^    .*note' "$WORK/m8two.txt")"
# the same machine on the runner: --memory 1GiB and an empty PagingFiles
python3 - "$WORK/r551/registry.reg" "$WORK/nopage.reg" <<'PYEOF'
import sys
text = open(sys.argv[1], "rb").read().decode("utf-16")
text += ("\r\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management]\r\n"
         '"PagingFiles"=hex(7):00,00\r\n')
open(sys.argv[2], "wb").write(b"\xff\xfe" + text.encode("utf-16-le"))
PYEOF
same=$("$B" check --root "$WORK/r551" --python "$PY" --registry "$WORK/nopage.reg" --json --memory 1GiB --processes 8 2>>"$WORK/err" |
	jq -r '[.findings[] | select(.rule | startswith("commit")) | "\(.rule) \(.winerror) \(.leaf)"] | join(" ")')
check_eq "check --memory 1GiB with no paging file on the runner: the same 1455 on the same DLL" \
	"commit-limit 1455 cufft64_11.dll" "$same"
chk "$WORK/r551" --processes 1 --profile "$WORK/profiles.yml" >"$WORK/m1.json"
check_eq "1 process fits the 1 GB profile" "pass" \
	"$(jq -r '.profile_checks[] | select(.profile == "small-laptop") | .verdict' "$WORK/m1.json")"
chk "$WORK/r551" --processes 8 --memory 64GiB --profile "$WORK/profiles.yml" >"$WORK/m64.json"
check_eq "the runner with 64 GiB: the error says 8 processes fit this runner's limit" yes \
	"$(pf "$WORK/m64.json" small-laptop | grep -q "torch at .* fits this runner's commit limit at 8 processes; fails on a laptop" && echo yes)"
# the gate: check --pins with the install, --profile and --processes
repo=$WORK/repo
git init -q -b main "$repo" && printf 'torch==2.4.1\n' >"$repo/requirements.txt" &&
	git -C "$repo" add -A && git -C "$repo" commit -qm base &&
	git -C "$repo" checkout -q -b pr && printf 'torch==2.5.1\n' >"$repo/requirements.txt" && git -C "$repo" commit -qam pr
"$B" check --pins --repo "$repo" --base main --head pr --root "$WORK/r551" --python "$PY" \
	--registry "$WORK/r551/registry.reg" --json --processes 8 --profile "$WORK/profiles.yml" >"$WORK/gate.json" 2>>"$WORK/err"
check_eq "the gate with the install, --profile FILE --processes 8: the same 1455 error on the 1 GB profile (exit 1)" \
	"1|small-laptop fail 1455 cufft64_11.dll" \
	"$?|$(jq -r '.profile_checks[] | select(.profile == "small-laptop") | "\(.profile) \(.verdict) \(.winerror) \(.leaf)"' "$WORK/gate.json")"
check_eq "and its error says the memory and the processes" yes \
	"$(pf "$WORK/gate.json" small-laptop | grep -qF '(small-laptop; 1 GB, no paging file) at 8 processes (WinError 1455' && echo yes)"

# ---- 2. the NVIDIA driver: the profile's, not the runner's ----
chk "$WORK/r551" --profile rtx-572 --profile gtx-516 --profile win11-24h2-clean-vc14.44 --profile "$WORK/profiles.yml" >"$WORK/d.json"
check_eq "runner driver 551.61: driver 572.16 passes, 516.94 warns, no NVIDIA GPU fails with cuda-no-driver" \
	"rtx-572 pass null null | gtx-516 warn null null | win11-24h2-clean-vc14.44 fail null nvcuda.dll" \
	"$(jq -r '[.profile_checks[] | select(.profile == "rtx-572" or .profile == "gtx-516" or .profile == "win11-24h2-clean-vc14.44") | "\(.profile) \(.verdict) \(.winerror) \(.leaf)"] | join(" | ")' "$WORK/d.json")"
check_eq "the no-GPU profile's error is cuda-no-driver's, in a profile-fails error naming it" "yes" \
	"$(pf "$WORK/d.json" win11-24h2-clean-vc14.44 | grep -qF 'fails on clean Windows 11 24H2, VC++ redistributable 14.44, no Visual Studio, no NVIDIA GPU (win11-24h2-clean-vc14.44): a CUDA 12.4 build of torch on a machine without the NVIDIA driver (no nvcuda.dll)' && echo yes)"
# each as check says on a tree whose System32\nvcuda.dll is that driver's (or none)
cuda_of() { jq -r '[.findings[] | select(.rule | startswith("cuda-")) | "\(.rule)/\(.severity)"] | sort | join(" ")'; }
for pair in "r572:rtx-572" "r516:gtx-516" "cu124:win11-24h2-clean-vc14.44"; do
	tree=${pair%%:*} prof=${pair#*:}
	want=$(chk "$WORK/$tree" | jq -r .status)
	check_eq "$prof's verdict is check's on the $tree tree" "$want" \
		"$(jq -r --arg p "$prof" '.profile_checks[] | select(.profile == $p) | .verdict' "$WORK/d.json")"
done
check_eq "the 516.94 tree's CUDA rule is the one the profile gets" "cuda-driver-too-old/warning" \
	"$(chk "$WORK/r516" | cuda_of)"
# the gate on a CUDA pin alone (no install): each profile's driver judges the pin
git -C "$repo" checkout -q -b cuda main && printf 'torch==2.5.1+cu124\n' >"$repo/requirements.txt" && git -C "$repo" commit -qam cu124
"$B" check --pins --repo "$repo" --base main --head cuda --root "$WORK/r551" --registry "$WORK/r551/registry.reg" --json \
	--profile rtx-572 --profile gtx-516 --profile win11-24h2-clean-vc14.44 --profile "$WORK/profiles.yml" >"$WORK/gpin.json" 2>>"$WORK/err"
check_eq "the gate, torch==2.5.1+cu124 on a runner with 551.61: 572.16 passes, 516.94 warns, no NVIDIA GPU fails (exit 1)" \
	"1|pass|rtx-572 pass null|gtx-516 warn null|win11-24h2-clean-vc14.44 fail nvcuda.dll" \
	"$?|$(jq -r '.pins.targets[0].verdicts | "\(.runner)|\([.profiles[] | select(.name == "rtx-572" or .name == "gtx-516" or .name == "win11-24h2-clean-vc14.44") | "\(.name) \(.verdict) \(.leaf)"] | join("|"))"' "$WORK/gpin.json")"
check_eq "its error: the runner has nvcuda.dll, the profile has no NVIDIA GPU" yes \
	"$(pf "$WORK/gpin.json" win11-24h2-clean-vc14.44 | grep -qF 'torch 2.5.1+cu124 loads on this runner only because this runner has nvcuda.dll (C:\Windows\System32\nvcuda.dll); fails on clean Windows 11 24H2' && echo yes)"
# the runner without the driver fails: no profile passes it, the 572.16 one included
chk "$t" --profile rtx-572 --profile "$WORK/profiles.yml" >"$WORK/nodrv.json"
check_eq "runner without a driver: fail, and the 572.16 profile fails too" "fail fail" \
	"$(jq -r '"\(.status) \(.profile_checks[] | select(.profile == "rtx-572") | .verdict)"' "$WORK/nodrv.json")"
check_eq "nothing on stderr" "" "$(cat "$WORK/err")"
tap_done
