#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_profiles_gate: `check --pins` judged on machine profiles (issue 30,
# docs/profiles.md) on real git repositories built here with git. The runner
# is GitHub's kind: the real VC++ redistributable 14.44 in System32 (the
# msvc-runtime 14.44.35112 wheel's DLLs, FileVersion 14.44.35211.0) and
# Visual Studio's libomp140.x86_64.dll there (the real vcomp140.dll copied
# under that name, as on the issue's demo runner). A pull request moving
# torch==2.4.1 to torch==2.4.0 passes on that runner alone, and fails by
# default on the user profile (clean Windows 11, redistributable 14.44, no
# Visual Studio): one profile-fails error naming it, WinError 126 on
# libomp140.x86_64.dll, saying it loads on this runner only because Visual
# Studio is installed here. torch 2.9.1 passes the default; --profile names
# others (a name, a FILE, `none`); an unknown name is a usage error with the
# known ones; a profile never hides the runner's own failure.
TEST_NAME=profiles/gate
TDC_KEEP_TMP=${TDC_KEEP_TMP:-${KEEP:-}}
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
set -u
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS GITHUB_OUTPUT GITHUB_STEP_SUMMARY
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp

# ---- the runners: real redistributable DLLs ----
sys=$tmp/vs/Windows/System32
mkdir -p "$sys" "$tmp/redist/Windows/System32"
if ! tree_redist "$tmp/vs" 14.44.35112 2>"$tmp/err"; then
	skip "the gate on profiles" "PyPI/pip did not give msvc-runtime 14.44.35112: $(tail -1 "$tmp/err")"
	tap_done
fi
cp "$sys"/*.dll "$tmp/redist/Windows/System32/"
cp "$sys/vcomp140.dll" "$sys/libomp140.x86_64.dll" # what the demo runner with Visual Studio has
printf 'Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\VisualStudio\\14.0\\VC\\Runtimes\\x64]\r\n"Installed"=dword:00000001\r\n"Version"="v14.44.35211.00"\r\n' >"$tmp/144.reg"

# ---- the repository ----
repo=$tmp/repo
g() { git -C "$repo" "$@" >/dev/null 2>&1; }
git init -q -b main "$repo"
printf 'numpy\ntorch==2.4.1\n' >"$repo/requirements.txt"
g add -A && g commit -qm "torch 2.4.1"
branch() { g checkout -q main && g checkout -q -b "$1" && printf 'numpy\ntorch==%s\n' "$2" >"$repo/requirements.txt" && g commit -qam "torch $2"; }
branch pr240 2.4.0
branch pr291 2.9.1

# gate TREE BRANCH ARGS...: check --pins --json of BRANCH against main
gate() {
	local t=$1 b=$2
	shift 2
	"$B" check --pins --repo "$repo" --base main --head "$b" --root "$tmp/$t" --registry "$tmp/144.reg" "$@"
}
RSA='[.findings[] | select(.rule != "pin-changed") | [.rule, .severity, "\(.anchor.file):\(.anchor.line):\(.anchor.col)"]]'

# ---- the headline: torch 2.4.0 on a runner with Visual Studio ----
out=$(gate vs pr240 --json 2>&1)
check_eq "2.4.0, VS runner, default: the runner's warning and the user profile's error" \
	'[["openmp-not-redistributable","warning","requirements.txt:2:1"],["profile-fails","error","requirements.txt:2:1"]]' \
	"$(jq -c "$RSA" <<<"$out")"
check_eq "…its title says why it loads here and where it fails" \
	'"torch 2.4.0 loads on this runner only because Visual Studio is installed here (its C++ workload put libomp140.x86_64.dll at C:\\Windows\\System32\\libomp140.x86_64.dll); fails on clean Windows 11 24H2, VC++ redistributable 14.44, no Visual Studio, no NVIDIA GPU (win11-24h2-clean-vc14.44) (WinError 126, libomp140.x86_64.dll)"' \
	"$(jq -c '.findings[] | select(.rule == "profile-fails") | .title' <<<"$out")"
check_eq "…WinError, leaf, known issue, the row, the fix, the profiles it holds on" \
	'[126,"libomp140.x86_64.dll","libomp140-not-redistributable","torch-2.4.0",true,["win11-24h2-clean-vc14.44"]]' \
	"$(jq -c '.findings[] | select(.rule == "profile-fails") | [.winerror, .leaf, .issue, .matrix.row, (.fix | startswith("upgrade to torch >= 2.4.1")), .profiles]' <<<"$out")"
sarif=$(gate vs pr240 --sarif="$tmp/g.sarif" >/dev/null 2>&1; jq -c '[.runs[0].results[] | select(.ruleId == "profile-fails") | [.level, .properties.profiles]]' "$tmp/g.sarif")
check_eq "…in SARIF: an error with its profiles" '[["error",["win11-24h2-clean-vc14.44"]]]' "$sarif"
text=$(COLUMNS=400 gate vs pr240 2>&1)
check_eq "…in text: the verdict line says it, and one line per pin on each machine" \
	"FAIL the torch this branch pins will not load: torch 2.4.0 loads on this runner only because Visual Studio is installed here|  torch==2.4.0 (requirements.txt:2): this runner warn; win11-24h2-clean-vc14.44 fail (WinError 126, libomp140.x86_64.dll)" \
	"$(head -1 <<<"$text" | grep -o "^FAIL the torch this branch pins will not load: torch 2.4.0 loads on this runner only because Visual Studio is installed here")|$(grep -m1 '^  torch==2.4.0 (requirements.txt:2)' <<<"$text")"
check_eq "…the verdicts: runner warn, the profile fails" \
	'[{"name":"win11-24h2-clean-vc14.44","title":"clean Windows 11 24H2, VC++ redistributable 14.44, no Visual Studio, no NVIDIA GPU"}]|{"runner":"warn","profiles":[{"name":"win11-24h2-clean-vc14.44","verdict":"fail","winerror":126,"leaf":"libomp140.x86_64.dll","first_error":"libomp140.x86_64.dll is not on that machine: torch 2.4.0 imports it (WinError 126)"}]}' \
	"$(jq -c '.pins.profiles' <<<"$out")|$(jq -c '.pins.targets[0].verdicts' <<<"$out")"
check_eq "…exit 1 (fail-on error); 0 with --profile none (the runner alone, as before)" "1 0" \
	"$(gate vs pr240 >/dev/null 2>&1; echo $?) $(gate vs pr240 --profile none >/dev/null 2>&1; echo $?)"
check_eq "--profile none: only the runner's warning" '[["openmp-not-redistributable","warning","requirements.txt:2:1"]]' \
	"$(gate vs pr240 --profile none --json 2>&1 | jq -c "$RSA")"

# ---- a healthy modern pin ----
out=$(gate vs pr291 --json 2>&1)
check_eq "2.9.1 on the VS runner, default: no error, passes on the profile" '[0,"pass"]' \
	"$(jq -c '[([.findings[] | select(.severity == "error")] | length), .pins.targets[0].verdicts.profiles[0].verdict]' <<<"$out")"
check_eq "…exit 0" 0 "$(gate vs pr291 >/dev/null 2>&1; echo $?)"

# ---- more profiles: one finding per cause, naming each ----
out=$(gate vs pr240 --json --profile win10-22h2-clean-vc14.29 --profile win11-24h2-clean-vc14.44 --profile gha-windows-2025 2>&1)
check_eq "2.4.0 on three profiles: one profile-fails naming the two clean ones; the GitHub image passes like the runner" \
	'[1,true,true,false,["fail","fail","warn"]]' \
	"$(jq -c '[([.findings[] | select(.rule == "profile-fails")] | length),
		(.findings[] | select(.rule == "profile-fails") | .title | contains("(win10-22h2-clean-vc14.29)"), contains("(win11-24h2-clean-vc14.44)"), contains("gha-windows-2025")),
		[.pins.targets[0].verdicts.profiles[].verdict]]' <<<"$out")"
out=$(gate vs pr291 --json --profile win10-22h2-clean-vc14.29 2>&1)
check_eq "2.9.1 on the oldest redistributable 14.29: fails there (its runtime floor), not on the runner" \
	'["fail","pass"]' "$(jq -c '[.pins.targets[0].verdicts.profiles[0].verdict, .pins.targets[0].verdicts.runner]' <<<"$out")"
printf '%s\n' "$(jq -r '.findings[] | select(.severity == "error") | "# \(.rule) \(.winerror) \(.leaf): \(.title)"' <<<"$out")"

# ---- a profile never hides the runner's failure ----
out=$(gate redist pr240 --json 2>&1)
check_eq "2.4.0 on a runner without VS: the runner's own missing-dll (holding on the profile too), no profile-fails" \
	'[["missing-dll","error","requirements.txt:2:1"]]|{"runner":"fail","profiles":["fail"]}|["win11-24h2-clean-vc14.44"]' \
	"$(jq -c "$RSA" <<<"$out")|$(jq -c '.pins.targets[0].verdicts | {runner, profiles: [.profiles[].verdict]}' <<<"$out")|$(jq -c '.findings[0].profiles' <<<"$out")"

# ---- --profile FILE, and bad input ----
cat >"$tmp/lab.yml" <<'EOF'
schema: 1
profiles:
  - name: lab-vs
    title: the lab's machines (Build Tools installed)
    windows: "11 23H2"
    build: "10.0.22631"
    vc_redist: {x64: "14.44.35211"}
    visual_studio: true
    system32:
      - {name: vcruntime140.dll, version: "14.44.35211.0"}
      - {name: vcruntime140_1.dll, version: "14.44.35211.0"}
      - {name: msvcp140.dll, version: "14.44.35211.0"}
      - {name: vcomp140.dll, version: "14.44.35211.0"}
      - {name: libomp140.x86_64.dll}
    nvidia_driver: none
    status: inferred
EOF
out=$(gate vs pr240 --json --profile "$tmp/lab.yml" 2>&1)
check_eq "--profile FILE: its profiles judged instead of the default (libomp140 there: the runner's warning)" '[["lab-vs"],["warn"],0]' \
	"$(jq -c '[[.pins.profiles[].name], [.pins.targets[0].verdicts.profiles[].verdict], ([.findings[] | select(.rule == "profile-fails")] | length)]' <<<"$out")"
printf 'schema: 1\nprofiles:\n  - name: lab\n    title: t\n    windows: "11"\n    build: "10.0.x"\n' >"$tmp/bad.yml"
err=$(gate vs pr240 --profile "$tmp/bad.yml" 2>&1 >/dev/null)
check_eq "--profile FILE with errors: exit 2, the first at file:line:col" \
	"2|torch-dll-check: check: --profile $tmp/bad.yml:6:18: \`build\`: bad file version \"10.0.x\" at column 6: expected a number after \".\" (run \`torch-dll-check matrix lint $tmp/bad.yml\` for every error)" \
	"$(gate vs pr240 --profile "$tmp/bad.yml" >/dev/null 2>&1; echo $?)|$err"
err=$(gate vs pr240 --profile win11-clean-vc14.44 2>&1 >/dev/null)
check_eq "an unknown profile: exit 2, the nearest and every known one" \
	"2|torch-dll-check: check: unknown profile 'win11-clean-vc14.44' (did you mean 'win11-24h2-clean-vc14.44'?); the profiles are: win10-22h2-clean-vc14.29, win10-22h2-clean-vc14.44, win11-24h2-clean-vc14.29, win11-24h2-clean-vc14.44, win11-24h2-vc14.44-nvidia-570.65, gha-windows-2022, gha-windows-2025 (or give a profile FILE; docs/profiles.md)" \
	"$(gate vs pr240 --profile win11-clean-vc14.44 >/dev/null 2>&1; echo $?)|$err"

# ---- inventory --write-profile: a profile from a machine read ----
"$B" inventory --root "$tmp/vs" --registry "$tmp/144.reg" --write-profile "$tmp/vs.yml" --profile-name our-ci >/dev/null 2>&1
"$B" inventory --root "$tmp/redist" --registry "$tmp/144.reg" --write-profile "$tmp/redist.yml" --profile-name our-users >/dev/null 2>&1
check_eq "--write-profile: lints clean; Visual Studio seen from libomp140, the redistributable and msvcp140's version read" \
	'0|true|14.44.35211.0|14.44.35211.0|false' \
	"$("$B" matrix lint "$tmp/vs.yml" >/dev/null 2>&1; echo $?)|$("$B" matrix show --json --matrix "$tmp/vs.yml" --matrix "$tmp/redist.yml" | jq -r '[(.profiles[] | select(.name == "our-ci") | .visual_studio, .vc_redist.x64, (.system32[] | select(.name == "msvcp140.dll") | .version)), (.profiles[] | select(.name == "our-users") | .visual_studio)] | map(tostring) | join("|")')"
out=$(gate vs pr240 --json --profile "$tmp/vs.yml" --profile "$tmp/redist.yml" 2>&1)
check_eq "2.4.0 on the profiles written from the two runners: the VS one as its runner (warn), the other fails (126, libomp140)" \
	'[["our-ci","warn",null],["our-users","fail",126]]' \
	"$(jq -c '[.pins.targets[0].verdicts.profiles[] | [.name, .verdict, .winerror]]' <<<"$out")"
tap_done
