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
# input values never run as shell code nor as options, that control
# characters in inputs are refused, and actions/cache (cold and warm jobs).
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=action-sim
# the release builds: what the action downloads
BIN=$TDC_BIN
GIT_BIN=$TDC_GIT_BIN
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
		SIM_ACTIONS_CACHE="$tmp/actions-cache" \
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
	"$(res first "' '.join(str(s['skipped']) for s in r['steps'][3:6])")"
cached=$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check
if [ -x "$cached" ] && cmp -s "$cached" "$BIN" && cmp -s "$cached-git" "$GIT_BIN"; then
	ok "both verified programs installed under RUNNER_TOOL_CACHE/torch-dll-check/$version/x64"
else
	not_ok "tool cache"
fi
if step_out first 2 | grep -q 'verified SHA-256'; then ok "setup verified the SHA-256"; else not_ok "no verification message"; step_out first 2 | sed 's/^/#   /'; fi
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
# (and the ::group:: / ::endgroup:: folding each problem's evidence, written between the guard's blocks)
check_eq "no other workflow commands than annotations, the evidence groups and the stop-commands blocks" 0 \
	"$(grep -v '"name": "\(error\|warning\|notice\|group\|endgroup\)"' "$tmp/first/cmds" | grep -vc '"name": "stop-commands"\|"resume": true')"
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
if step_out second 2 | grep -q 'restored by actions/cache'; then ok "second run uses the cache (mirror offline)"; else not_ok "second run did not use the cache"; fi
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
rm -rf "$tmp/toolcache" "$tmp/actions-cache"
cp "$BIN" "$tmp/mirror/$asset.orig"
printf 'x' >>"$tmp/mirror/$asset"
sim tampered scan="$root" torch-path="$torch"
check_eq "tampered asset: setup fails (2)" 2 "$(res tampered "r['rc']")"
if step_out tampered 2 | grep -q '^::error title=torch-dll-check: checksum mismatch::'; then ok "checksum mismatch annotated"; else not_ok "no mismatch error"; fi
if [ -e "$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check" ]; then not_ok "tampered binary installed"; else ok "tampered binary not installed"; fi
mv "$tmp/mirror/$asset.orig" "$tmp/mirror/$asset"
# ... and so is a tampered torch-dll-check-git (the second asset), with the first one intact.
cp "$GIT_BIN" "$tmp/mirror/$gasset.orig"
printf 'x' >>"$tmp/mirror/$gasset"
sim tampered_git scan="$root" torch-path="$torch"
check_eq "tampered torch-dll-check-git asset: setup fails (2)" 2 "$(res tampered_git "r['rc']")"
if step_out tampered_git 2 | grep -q "^::error title=torch-dll-check: checksum mismatch::$gasset has"; then
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
# app: a frozen app's folder goes to check --app (here one that is not there: the checker's own usage error)
sim noapp scan="$root" app='C:\NoApp'
check_eq "app input reaches check --app (a folder that is not there: 2, named in the log and its annotation)" "2 2" \
	"$(res noapp "r['rc']") $(step_out noapp "$(last_step noapp)" | grep -c 'check: --app C:.NoApp: C:.NoApp: no such file or folder')"
sim badfail scan="$root" torch-path="$torch" fail-on=sometimes
check_eq "fail-on=sometimes: 2" 2 "$(res badfail "r['rc']")"
sim badimport scan="$root" torch-path="$torch" import-first='PyQt5;rm -rf'
check_eq "import-first with a shell character: 2, annotated, nothing run" "2 1" \
	"$(res badimport "r['rc']") $(step_out badimport "$(last_step badimport)" |
		grep -c "^::error title=torch-dll-check::import-first: 'PyQt5?rm' is not a package name$")"
# one per line (a YAML `|` block): every line is read, not the first alone
sim lineimport scan="$root" torch-path="$torch" import-first=$'PyQt5\nbad;name\n'
check_eq "import-first one package per line: the second line read too (refused: 2, annotated)" "2 1" \
	"$(res lineimport "r['rc']") $(step_out lineimport "$(last_step lineimport)" |
		grep -c "^::error title=torch-dll-check::import-first: 'bad?name' is not a package name$")"
sim noimport scan="$root" torch-path="$torch" import-first="numpy, PyQt5"
check_eq "import-first naming packages the environment lacks: 2, the first one named" "2 1" \
	"$(res noimport "r['rc']") $(step_out noimport "$(last_step noimport)" | grep -c '^::error.*import-first numpy: no distribution')"
# the dotted form reaches the checker (a module of torch itself is refused there: importing it imports torch first)
sim modimport scan="$root" torch-path="$torch" import-first="torch.no_such_module"
check_eq "import-first PKG.module: passed through to the checker, which refuses a torch module: 2, said" "2 1" \
	"$(res modimport "r['rc']") $(step_out modimport "$(last_step modimport)" |
		grep -c '^::error.*import-first torch.no_such_module: torch is the package checked (torch.MODULE imports torch first)')"
sim badpins scan="$root" torch-path="$torch" pins=yes
check_eq "pins=yes: 2" 2 "$(res badpins "r['rc']")"
if step_out badpins "$(last_step badpins)" | grep -q '^::error title=torch-dll-check::pins must be true or false$'; then
	ok "pins=yes: annotated"
else
	not_ok "pins=yes: no annotation"
fi

# 4b. Inputs are data: a value is never read as an option, and a value with a
#     newline or another control character is refused, one annotation naming it.
sim asopt scan="$root" torch-path="$torch" json=--fail-on=never
check_eq "json: --fail-on=never is a file name, not an option: the failing check still exits 1" 1 "$(res asopt "r['rc']")"
if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["status"] != "fail")' "$tmp/ws/--fail-on=never"; then
	ok "...and the JSON report went to the file ./--fail-on=never"
else
	not_ok "no report in ./--fail-on=never"
	find "$tmp/ws" -maxdepth 1 | sed 's/^/#   /'
	step_out asopt 7 | tail -5 | sed 's/^/#   /'
fi
sim astorch scan="$root" torch-path=--help
check_eq "torch-path: --help is a path (no such torch), not the help: exit 2" "2 0" \
	"$(res astorch "r['rc']") $(grep -c '^Usage' "$tmp/astorch/log/7.out")"
sim nlversion scan="$root" torch-path="$torch" version=$'0.1.0\nexe=/tmp/evil'
check_eq "a newline in version: refused (2) before anything ran" "2 0" \
	"$(res nlversion "r['rc']") $(res nlversion "sum(1 for s in r['steps'][1:] if not s['skipped'])")"
check_eq "...with one annotation naming the input" \
	"::error title=torch-dll-check::input version holds a newline or another control character: refused (inputs are data: one line of text)" \
	"$(cat "$tmp/nlversion/log/0.out")"
check_eq "...and no line of it in the step's outputs" "" "$(cat "$tmp/nlversion/log/0.github_output")"
for bad in scan=$'C:\\x\ty' matrix=$'m\x1b[31m.yml' sarif=$'s\xc2\x9b1m.sarif' torch-path=$'t\rx' runner-name=$'r\x7f'; do
	name=${bad%%=*}
	sim ctl_"${name//-/_}" scan="$root" torch-path="$torch" fail-on=never audit-history="$tmp/ws" "$bad"
	n=$(last_step ctl_"${name//-/_}")
	check_eq "a control character in $name: exit 2, one annotation naming $name" \
		"2 1 input $name holds" \
		"$(res ctl_"${name//-/_}" "r['rc']") $(grep -c '^::error' "$tmp/ctl_${name//-/_}/log/$n.out") $(sed -n 's/^::error title=torch-dll-check::\(input [a-z-]* holds\).*/\1/p' "$tmp/ctl_${name//-/_}/log/$n.out")"
done

# 4c. The cache: a hosted job starts with an empty tool cache; actions/cache
#     (keyed by the version and its pinned SHA-256s) restores the programs, so
#     a second job downloads nothing. Time to the first result, cold and warm.
rm -rf "$tmp/toolcache" "$tmp/actions-cache"
t0=$(date +%s%N)
sim cold scan="$root" torch-path="$torch"
t1=$(date +%s%N)
rm -rf "$tmp/toolcache"
mv "$tmp/mirror" "$tmp/mirror.off"
t2=$(date +%s%N)
sim warm scan="$root" torch-path="$torch"
t3=$(date +%s%N)
mv "$tmp/mirror.off" "$tmp/mirror"
echo "# time to the first result (pinned release from a file:// mirror): cold $(((t1 - t0) / 1000000)) ms, warm $(((t3 - t2) / 1000000)) ms"
check_eq "cold job: cache-hit false, downloaded and verified, the check ran (1)" "false 2 1" \
	"$(res cold "r['outputs']['cache-hit']") $(step_out cold 2 | grep -c '^torch-dll-check: verified SHA-256') $(res cold "r['rc']")"
# (the cold job's check failed, so actions/cache's own post step would not
# have saved: the action saves with actions/cache/save before the check)
check_eq "warm job (empty tool cache, mirror offline): restored from the cache the failing cold job saved, cache-hit true, the check ran (1)" \
	"true true 1" "$(res warm "str(r['steps'][1]['cache-hit'] == 'true').lower()") $(res warm "r['outputs']['cache-hit']") $(res warm "r['rc']")"
exe_out=$(res warm "r['outputs']['path']")
check_eq "output path: the program in the tool cache" "$tmp/toolcache/torch-dll-check/$version/x64/torch-dll-check" "$exe_out"
check_eq "its folder is on GITHUB_PATH for the job's later steps" "$tmp/toolcache/torch-dll-check/$version/x64" \
	"$(cat "$(res warm "r['github_path']")")"
key=$(sed -n 's/^key=//p' "$tmp/warm/log/0.github_output")
case "$key" in
"torch-dll-check-linux-x64-$version-"????????????????) ok "cache key: os, arch, version and the pinned sums ($key)" ;;
*) not_ok "cache key $key" ;;
esac

# 5. Nothing pinned: setup asks for the source build (apt on Linux), which
#    builds this action's checker into the tool cache (apt-get stubbed: the
#    build packages are installed by .ci/deps already).
pin "$act/action/checksums.txt"
rm -rf "$tmp/toolcache" "$tmp/actions-cache"
mkdir -p "$tmp/stub"
printf '#!/bin/sh\necho "apt-get $*" >>"%s/apt.log"\n' "$tmp" >"$tmp/stub/apt-get"
chmod +x "$tmp/stub/apt-get"
t0=$(date +%s%N)
PATH="$tmp/stub:$PATH" sim source scan="$root" torch-path="$torch"
t1=$(date +%s%N)
check_eq "no pinned asset: build=apt, msys2 steps skipped, source build ran" "True True False" \
	"$(res source "' '.join(str(s['skipped']) for s in r['steps'][3:6])")"
check_eq "source-built action gives the same verdict (exit 1)" 1 "$(res source "r['rc']")"
src_exe=$(res source "r['outputs']['path']")
case "$src_exe" in "$tmp/toolcache/torch-dll-check/source-"????????????????-*/x64/torch-dll-check) ;; *) src_exe= ;; esac
if [ -n "$src_exe" ] && [ -x "$src_exe" ] && [ -x "$src_exe-git" ] && grep -q 'install' "$tmp/apt.log" 2>/dev/null; then
	ok "source build installed both programs into the tool cache, under the source tree's hash and the image (after apt-get install)"
else
	not_ok "source build"
	step_out source 5 | tail -20 | sed 's/^/#   /'
fi

# A ref that is not a release commit says so: one notice with the reason and the build time.
check_eq "nothing pinned: one ::notice naming the reason (not a release commit) and the build time" 1 \
	"$(step_out source 2 | grep -c '^::notice title=torch-dll-check: building from source::this action.s ref (.*) is not a release commit: action/checksums.txt pins no linux-x64 programs, .*about 1 to 3 minutes.*use a release: @v'"$version"' or @v')"

# ... and the next job (a fresh tool cache) restores that build from actions/cache.
rm -rf "$tmp/toolcache"
t2=$(date +%s%N)
PATH="$tmp/stub:$PATH" sim source_warm scan="$root" torch-path="$torch"
t3=$(date +%s%N)
echo "# time to the first result (nothing pinned: a source build): cold $(((t1 - t0) / 1000000)) ms, warm $(((t3 - t2) / 1000000)) ms"
check_eq "source build, next job: restored by actions/cache (cache-hit true), no build step, same verdict (1)" "true True 1" \
	"$(res source_warm "r['outputs']['cache-hit']") $(res source_warm "r['steps'][5]['skipped']") $(res source_warm "r['rc']")"

# 6. A key per runner image: a source build links the image's shared
#    libraries, so its key (and folder) names the image (ImageOS and
#    ImageVersion on GitHub's runners); the release's programs (static but
#    for glibc 2.35) have one key for every image.
prep_key() { # prep_key CHECKSUMS ImageOS ImageVersion: the prep step's key
	cp "$1" "$act/action/checksums.txt"
	(export RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TOOL_CACHE="$tmp/toolcache" ImageOS="$2" ImageVersion="$3" \
		GITHUB_OUTPUT="$tmp/prep.out"
	: >"$tmp/prep.out"
	bash "$act/action/setup.sh" >/dev/null && sed -n 's/^key=//p' "$tmp/prep.out")
}
pin "$tmp/sums.none"
pin "$tmp/sums.pinned" "$(sha256sum "$BIN" | cut -d' ' -f1)" "$(sha256sum "$GIT_BIN" | cut -d' ' -f1)"
k22=$(prep_key "$tmp/sums.none" ubuntu22 20250105.1.0)
k24=$(prep_key "$tmp/sums.none" ubuntu24 20250105.1.0)
k24b=$(prep_key "$tmp/sums.none" ubuntu24 20250112.2.0)
case "$k22" in *-source-????????????????-ubuntu22-20250105.1.0) ok "source build key names the image ($k22)" ;; *) not_ok "source key $k22" ;; esac
if [ "$k22" != "$k24" ] && [ "$k24" != "$k24b" ]; then
	ok "a build on ubuntu24 (or another image version) is never restored on ubuntu22: three images, three keys"
else
	not_ok "source keys do not differ by image: $k22 $k24 $k24b"
fi
check_eq "the release's key is the same on every image" "$(prep_key "$tmp/sums.pinned" ubuntu22 1)" "$(prep_key "$tmp/sums.pinned" ubuntu24 2)"

# 7. The poisoned-cache sequence: the release download fails, the job
#    builds from source — and that build is saved under the source key,
#    never the release's; the next job (download working again) gets the
#    pinned programs, and the job after it restores them.
cp "$tmp/sums.pinned" "$act/action/checksums.txt"
rm -rf "$tmp/toolcache" "$tmp/actions-cache" "$tmp/apt.log"
rkey=$(prep_key "$tmp/sums.pinned" "" "")
rm -rf "$tmp/toolcache"
mv "$tmp/mirror" "$tmp/mirror.off"
PATH="$tmp/stub:$PATH" sim fallback scan="$root" torch-path="$torch"
mv "$tmp/mirror.off" "$tmp/mirror"
check_eq "download fails: a warning saying so and that the build is cached under its source key, the source build ran, same verdict (1)" \
	"1 False 1" "$(step_out fallback 2 | grep -c '^::warning title=torch-dll-check: building from source::the release assets of '"$version"' could not be downloaded.*not the release.s') $(res fallback "r['steps'][5]['skipped']") $(res fallback "r['rc']")"
keys=$(cat "$tmp/actions-cache"/*/key 2>/dev/null | sort | tr '\n' ' ')
case "$keys" in
*"$rkey"*) not_ok "the fallback build was saved under the release key $rkey ($keys)" ;;
*-source-*) ok "the fallback build was saved under the source key only ($keys)" ;;
*) not_ok "nothing saved: $keys" ;;
esac
rm -rf "$tmp/toolcache"
sim after scan="$root" torch-path="$torch"
after_exe=$(res after "r['outputs']['path']")
if [ "$(res after "r['outputs']['cache-hit']")" = false ] && step_out after 2 | grep -q 'verified SHA-256' &&
	cmp -s "$after_exe" "$BIN" && cmp -s "$after_exe-git" "$GIT_BIN"; then
	ok "next job: the release key missed, the pinned programs downloaded and verified ($after_exe)"
else
	not_ok "next job did not end with the pinned programs ($after_exe)"
	step_out after 2 | sed 's/^/#   /'
fi
rm -rf "$tmp/toolcache"
mv "$tmp/mirror" "$tmp/mirror.off"
sim after2 scan="$root" torch-path="$torch"
mv "$tmp/mirror.off" "$tmp/mirror"
after2_exe=$(res after2 "r['outputs']['path']")
check_eq "the job after: the pinned programs restored from the release key (mirror offline), no warning, same verdict" "true 0 1" \
	"$(res after2 "r['outputs']['cache-hit']") $(step_out after2 2 | grep -c '^::warning') $(res after2 "r['rc']")"
if cmp -s "$after2_exe" "$BIN"; then ok "...and they are the pinned bytes"; else not_ok "restored bytes are not the pinned ones"; fi

# The release `make dist` makes, from a mirror: tests/action/test_dist.sh.
tap_done
