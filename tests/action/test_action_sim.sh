#!/usr/bin/env bash
# test_action_sim: runs action.yml's steps as the runner would
# (tests/action/sim_runner.py: env-only inputs, a GITHUB_OUTPUT per step,
# step outputs feeding later steps, bash -eo pipefail) in a simulated Linux
# runner — GITHUB_ACTIONS=true, RUNNER_TOOL_CACHE, RUNNER_TEMP,
# GITHUB_WORKSPACE, GITHUB_STEP_SUMMARY — against a generated Windows tree
# where torch 2.4.0's fbgemm.dll needs the missing libomp140.x86_64.dll.
# The "release" is a file:// mirror holding this build, pinned by SHA-256 in
# the simulated action's checksums.txt. Checks: download + verification +
# tool cache, a tampered asset refused, the source build when nothing is
# pinned, the annotations (parsed as the runner does), the outputs, the job
# summary, JSON and SARIF files, exit codes per fail-on, that hostile
# input values never run as shell code, and the release `make dist` makes.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/start.sh
source tests/lib/start.sh
TEST_NAME=action-sim
BIN=${TDC_BIN:-./torch-dll-check}
repo=$PWD

# The torch 2.4.0-like tree (cached fixtures).
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck source=tests/lib/trees/loader.sh
source tests/lib/trees/loader.sh
# shellcheck source=tests/lib/trees/torch240.sh
source tests/lib/trees/torch240.sh
if ! root=$(torch240_tree 2>"$tmp/tree.err") || [ ! -d "$root" ]; then
	not_ok "cannot build the torch 2.4.0 tree"
	sed 's/^/#   /' "$tmp/tree.err" | tail -20
	tap_done
fi
torch='C:\Python311\Lib\site-packages\torch'

# The action as `uses:` would find it, with this build pinned as the release.
version=$(sed -n 's/^# version: *//p' action/checksums.txt)
asset=torch-dll-check-$version-linux-x64
gasset=torch-dll-check-git-$version-linux-x64
GIT_BIN=${TDC_GIT_BIN:-./torch-dll-check-git}
act=$tmp/act
mkdir -p "$act" "$tmp/mirror" "$tmp/ws/.github/workflows"
cp -R action.yml action checker matrix Makefile "$act/"
cp "$BIN" "$tmp/mirror/$asset"
cp "$GIT_BIN" "$tmp/mirror/$gasset"
pin() { # pin CHECKSUMS_FILE [SHA GIT_SHA]: the action's checksums.txt with the two asset lines
	grep '^#' action/checksums.txt >"$1"
	[ -z "${2:-}" ] || printf '%s  %s\n%s  %s\n' "$2" "$asset" "$3" "$gasset" >>"$1"
}
pin "$act/action/checksums.txt" "$(sha256sum "$BIN" | cut -d' ' -f1)" "$(sha256sum "$GIT_BIN" | cut -d' ' -f1)"
touch "$tmp/ws/.github/workflows/gate.yml"

sim() { # sim NAME [input=value...]: runs the action; result in $tmp/NAME/result.json
	local name=$1
	shift
	mkdir -p "$tmp/$name/temp"
	: >"$tmp/$name/summary.md"
	(cd "$tmp/ws" && env -u NO_COLOR GITHUB_ACTIONS=true RUNNER_OS=Linux RUNNER_ARCH=X64 \
		RUNNER_TOOL_CACHE="$tmp/toolcache" RUNNER_TEMP="$tmp/$name/temp" GITHUB_WORKSPACE="$tmp/ws" \
		GITHUB_STEP_SUMMARY="$tmp/$name/summary.md" TDC_RELEASE_URL="file://$tmp/mirror" \
		GITHUB_WORKFLOW_REF="octo/app/.github/workflows/gate.yml@refs/pull/7/merge" \
		python3 "$repo/tests/action/sim_runner.py" "$act" "$tmp/$name/log" "$@") >"$tmp/$name/result.json" \
		2>"$tmp/$name/sim.err"
}
res() { # res NAME PYTHON-EXPR over r (the result): prints its value
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$tmp/$1/result.json" 2>/dev/null
}
step_out() { cat "$tmp/$1/log/$2.out" "$tmp/$1/log/$2.err" 2>/dev/null; }
last_step() { res "$1" "max(s['n'] for s in r['steps'] if not s['skipped'])"; }

# 1. First run: download, verify, install into the tool cache; torch fails to load.
sim first scan="$root" torch-path="$torch" sarif="$tmp/ws/tdc.sarif"
check_eq "failing tree: the action exits 1" 1 "$(res first "r['rc']")"
check_eq "msys2 and source-build steps skipped" "True True True" \
	"$(res first "' '.join(str(s['skipped']) for s in r['steps'][1:4])")"
cached=$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check
if [ -x "$cached" ] && cmp -s "$cached" "$BIN" && cmp -s "$cached-git" "$GIT_BIN"; then
	ok "both verified programs installed under RUNNER_TOOL_CACHE/torch-dll-check/$version/x64"
else
	not_ok "tool cache"
fi
if step_out first 0 | grep -q 'verified SHA-256'; then ok "setup verified the SHA-256"; else not_ok "no verification message"; step_out first 0 | sed 's/^/#   /'; fi
check_eq "status output" fail "$(res first "r['outputs']['status']")"
# five torch binaries fail for one root cause (libomp140.x86_64.dll): one failure, one annotation
check_eq "failures output" 1 "$(res first "r['outputs']['failures']")"
# the matrix row's known issue (libomp140-not-redistributable) is folded into the error it explains
check_eq "warnings output" 0 "$(res first "r['outputs']['warnings']")"
report=$(res first "r['outputs']['report']")
check_eq "report output is the JSON report under RUNNER_TEMP" "$tmp/first/temp/torch-dll-check/report.json" "$report"
check_cmd "the JSON report is a v1 report of the failure" python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(not (d['schema']=='torch-dll-check/report/v1' and d['status']=='fail'
  and any(f.get('leaf')=='libomp140.x86_64.dll' for f in d['findings'])))" "$report"
n=$(last_step first)
python3 tests/report/gh_commands.py "$tmp/first/log/$n.out" "$tmp/first/log/$n.err" >"$tmp/first/cmds"
check_eq "1 error annotation" 1 "$(grep -c '"name": "error"' "$tmp/first/cmds")"
check_eq "...naming the 5 torch binaries it fails (fbgemm, torch_cpu, torch, torch_python, _C)" 1 "$(grep -c 'Affects 5 torch binaries: ' "$tmp/first/cmds")"
check_eq "no warning annotation (the known issue is the error's), the unknown redistributable (no registry) one notice" "0 1" \
	"$(grep -c '"name": "warning"' "$tmp/first/cmds") $(grep -c '"name": "notice"' "$tmp/first/cmds")"
check_eq "no other workflow commands than annotations and one stop-commands block" 0 \
	"$(grep -v '"name": "\(error\|warning\|notice\)"' "$tmp/first/cmds" | grep -vc '"name": "stop-commands"\|"resume": true')"
if grep -q 'libomp140.x86_64.dll' "$tmp/first/cmds" && grep -q 'fbgemm.dll' "$tmp/first/cmds"; then
	ok "annotations name the binary and the missing leaf"
else
	not_ok "annotation text"
fi
if grep -q '^### ❌ torch-dll-check: torch will not load' "$tmp/first/summary.md" &&
	grep -q 'Chain and search trace' "$tmp/first/summary.md"; then
	ok "job summary: verdict and traces"
else
	not_ok "job summary"
fi
schema="$(bash .ci/npm-tools --dir "$TDC_CACHE")/sarif-schema-2.1.0.json"
if [ -f "$schema" ]; then
	check_cmd "SARIF written, valid, anchored for code scanning (workflow file)" \
		python3 tests/report/validate_sarif.py "$schema" "$tmp/ws/tdc.sarif" --github
else
	not_ok "SARIF schema missing (run .ci/deps)"
fi

# 2. Second run: the tool cache answers; nothing is downloaded.
mv "$tmp/mirror" "$tmp/mirror.off"
sim second scan="$root" torch-path="$torch" fail-on=never annotations=false summary=false
check_eq "fail-on never: exit 0" 0 "$(res second "r['rc']")"
check_eq "fail-on never: status still fail" fail "$(res second "r['outputs']['status']")"
if step_out second 0 | grep -q 'tool cache'; then ok "second run uses the tool cache (mirror offline)"; else not_ok "second run did not use the cache"; fi
n=$(last_step second)
# (the text report is inside the one stop-commands guard: its opening and closing lines are the only commands)
check_eq "annotations=false: no workflow command but the stop-commands guard" ok "$(python3 tests/report/gh_commands.py "$tmp/second/log/$n.out" |
	python3 -c '
import json, re, sys
c = [json.loads(l) for l in sys.stdin]
ok = len(c) == 2 and c[0]["name"] == "stop-commands" and re.fullmatch("[0-9a-f]{32}", c[0]["data"]) and c[1]["name"] == c[0]["data"]
print("ok" if ok else "bad: %r" % c)')"
if grep -q '^FAIL ' "$tmp/second/log/$n.out"; then ok "annotations=false: the text report"; else not_ok "no text report"; fi
check_eq "summary=false: summary untouched" 0 "$(stat -c %s "$tmp/second/summary.md")"
mv "$tmp/mirror.off" "$tmp/mirror"

# 3. A tampered asset is refused, never run.
rm -rf "$tmp/toolcache"
cp "$BIN" "$tmp/mirror/$asset.orig"
printf 'x' >>"$tmp/mirror/$asset"
sim tampered scan="$root" torch-path="$torch"
check_eq "tampered asset: setup fails (2)" 2 "$(res tampered "r['rc']")"
if step_out tampered 0 | grep -q '^::error title=torch-dll-check: checksum mismatch::'; then ok "checksum mismatch annotated"; else not_ok "no mismatch error"; fi
if [ -e "$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check" ]; then not_ok "tampered binary installed"; else ok "tampered binary not installed"; fi
mv "$tmp/mirror/$asset.orig" "$tmp/mirror/$asset"
# ... and so is a tampered torch-dll-check-git (the second asset), with the first one intact.
cp "$GIT_BIN" "$tmp/mirror/$gasset.orig"
printf 'x' >>"$tmp/mirror/$gasset"
sim tampered_git scan="$root" torch-path="$torch"
check_eq "tampered torch-dll-check-git asset: setup fails (2)" 2 "$(res tampered_git "r['rc']")"
if step_out tampered_git 0 | grep -q "^::error title=torch-dll-check: checksum mismatch::$gasset has"; then
	ok "its checksum mismatch is annotated"
else
	not_ok "no mismatch error for $gasset"
fi
if [ -e "$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check-git" ]; then not_ok "tampered git binary installed"; else ok "tampered git binary not installed"; fi
mv "$tmp/mirror/$gasset.orig" "$tmp/mirror/$gasset"

# 4. Hostile input values stay data: inputs reach the scripts only through env.
# shellcheck disable=SC2016 # the $(...) and backticks are the attack, kept literal
sim hostile scan="$root" torch-path='$(touch '"$tmp"'/pwned1)`touch '"$tmp"'/pwned2`"; touch '"$tmp"'/pwned3; "' \
	matrix="'; touch $tmp/pwned4; '"
check_eq "hostile torch-path: usage error (2)" 2 "$(res hostile "r['rc']")"
if ls "$tmp"/pwned* >/dev/null 2>&1; then not_ok "an input value ran as shell code"; else ok "no input value ran as shell code"; fi
sim badfail scan="$root" torch-path="$torch" fail-on=sometimes
check_eq "fail-on=sometimes: 2" 2 "$(res badfail "r['rc']")"
sim badpins scan="$root" torch-path="$torch" pins=yes
check_eq "pins=yes: 2" 2 "$(res badpins "r['rc']")"
if step_out badpins "$(last_step badpins)" | grep -q '^::error title=torch-dll-check::pins must be true or false$'; then
	ok "pins=yes: annotated"
else
	not_ok "pins=yes: no annotation"
fi

# 5. Nothing pinned: setup asks for the source build (apt on Linux), which
#    builds this action's checker into the tool cache (apt-get stubbed: the
#    build packages are installed by .ci/deps already).
pin "$act/action/checksums.txt"
rm -rf "$tmp/toolcache"
mkdir -p "$tmp/stub"
printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\n' "$tmp" >"$tmp/stub/apt-get"
chmod +x "$tmp/stub/apt-get"
PATH="$tmp/stub:$PATH" sim source scan="$root" torch-path="$torch"
check_eq "no pinned asset: build=apt, msys2 steps skipped, source build ran" "True True False" \
	"$(res source "' '.join(str(s['skipped']) for s in r['steps'][1:4])")"
check_eq "source-built action gives the same verdict (exit 1)" 1 "$(res source "r['rc']")"
if [ -x "$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check" ] &&
	[ -x "$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check-git" ] && grep -q 'install' "$tmp/apt.log" 2>/dev/null; then
	ok "source build installed both programs into the tool cache (after apt-get install)"
else
	not_ok "source build"
	step_out source 3 | tail -20 | sed 's/^/#   /'
fi

# 6. The release as `make dist` makes it (action/dist.sh in a copy of the
#    sources): the two Linux assets and the checksums.txt it writes are what
#    setup downloads, verifies and installs, and they run the check.
mkdir -p "$tmp/distsrc"
cp -R action checker matrix Makefile "$tmp/distsrc/"
if (cd "$tmp/distsrc" && nice bash action/dist.sh) >"$tmp/dist.log" 2>&1; then
	check_eq "make dist: checksums.txt pins the two Linux assets" \
		"torch-dll-check-$version-linux-x64 torch-dll-check-git-$version-linux-x64" \
		"$(grep -v '^#' "$tmp/distsrc/action/checksums.txt" | awk '{print $2}' | sort | tr '\n' ' ' | sed 's/ $//')"
	rm -rf "$tmp/mirror" "$tmp/toolcache"
	cp -R "$tmp/distsrc/dist" "$tmp/mirror"
	cp "$tmp/distsrc/action/checksums.txt" "$act/action/checksums.txt"
	sim dist scan="$root" torch-path="$torch"
	check_eq "the dist release: setup verified both assets, the check ran (exit 1)" "2 1" \
		"$(step_out dist 0 | grep -c '^torch-dll-check: verified SHA-256') $(res dist "r['rc']")"
	if cmp -s "$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check-git" \
		"$tmp/mirror/torch-dll-check-git-$version-linux-x64"; then
		ok "the dist release: torch-dll-check-git installed next to torch-dll-check"
	else
		not_ok "the dist release: torch-dll-check-git not installed"
	fi
else
	not_ok "make dist failed"
	tail -20 "$tmp/dist.log" | sed 's/^/#   /'
fi
tap_done
