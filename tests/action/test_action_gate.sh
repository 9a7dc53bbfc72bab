#!/usr/bin/env bash
# test_action_gate: the pre-merge gate end to end. The simulated runner
# (tests/action/sim_runner.py --workflow) runs the gate's example workflow,
# action/examples/pre-merge-gate.yml, unchanged, for a pull_request event:
# actions/checkout fetches from a real git repository standing for GitHub
# (main, the PR's head, refs/pull/7/merge; tests/action/gate_lib.sh) at the
# workflow's fetch-depth, the action (this build as its pinned release)
# runs `check --pins` on the real event payload's base and head, and the
# SARIF upload is validated against the SARIF 2.1.0 schema as code scanning
# needs it. The runner's C:\ is an offline tree with the registry Wine
# wrote (hosted: redistributable + Visual Studio's libomp140 in System32;
# bare: neither). Asserted: exit status, annotations with file/line/col
# (parsed as the runner parses them), outputs, job summary, SARIF
# locations (a pin inside a pyproject line too); a fork's PR (no upload);
# the push to main; an upload without security-events: write; a PR
# touching no pin (one notice, pass); a clone without the PR's commits (the
# default fetch-depth); the action's pins inputs (pins-unchanged, an
# installed torch too, repository); and PRs whose file names, pin text and
# commit subject are hostile, through the whole workflow.
# (TDC_KEEP_TMP=1 keeps the runs' folders for a look.)
# shellcheck disable=SC2317 # functions called by name (pr_origin's BASE_FN, HEAD_FN)
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=action-gate
# the release builds: what the action downloads
BIN=$TDC_BIN
GIT_BIN=$TDC_GIT_BIN
repo=$PWD
# shellcheck source=tests/lib/fixtures.sh
source tests/lib/fixtures.sh
# shellcheck source=tests/lib/trees/loader.sh
source tests/lib/trees/loader.sh
# shellcheck source=tests/lib/trees/torch240.sh
source tests/lib/trees/torch240.sh
# shellcheck source=tests/action/gate_lib.sh
source tests/action/gate_lib.sh

schema="$(bash .ci/npm-tools --dir "$TDC_CACHE")/sarif-schema-2.1.0.json"
if [ ! -f "$schema" ]; then
	not_ok "SARIF schema missing (run .ci/deps)"
	tap_done
fi
if ! command -v wine >/dev/null; then
	skip "the gate end to end" "wine is not installed (see .ci/deps): the runner's registry is one Wine wrote"
	tap_done
fi
for kind in hosted bare; do
	if ! gate_machine "$kind" "$tmp/machine-$kind" 2>"$tmp/machine.err"; then
		not_ok "cannot build the $kind runner's C:\\"
		sed 's/^/#   /' "$tmp/machine.err" | tail -20
		tap_done
	fi
done

# The action as `uses:` finds it, this build pinned as its release (both programs).
version=$(sed -n 's/^# version: *//p' action/checksums.txt)
act=$tmp/act
mkdir -p "$act" "$tmp/mirror"
cp -R action.yml action checker matrix Makefile "$act/"
cp "$BIN" "$tmp/mirror/torch-dll-check-$version-linux-x64"
cp "$GIT_BIN" "$tmp/mirror/torch-dll-check-git-$version-linux-x64"
{
	grep '^#' action/checksums.txt
	(cd "$tmp/mirror" && sha256sum -- *)
} >"$act/action/checksums.txt"
gate_wf=$repo/action/examples/pre-merge-gate.yml

# wf NAME ORIGIN MACHINE [WORKFLOW [EVENT_HEAD_REPO]]: runs the workflow's job for
# ORIGIN's PR 7 (WF_EVENT=push: for the push of its main branch) on the runner
# MACHINE (hosted, bare or a folder standing for C:\); the result in
# $tmp/NAME/result.json.
wf() {
	local name=$1 origin=$2 machine=$3 workflow=${4:-$gate_wf} d=$tmp/$1 event=${WF_EVENT:-pull_request} ref sha
	case "$machine" in /*) ;; *) machine=$tmp/machine-$machine/drive_c ;; esac
	mkdir -p "$d/ws" "$d/temp"
	: >"$d/summary.md"
	pr_use "$origin"
	if [ "$event" = push ]; then
		ref=refs/heads/main sha=$PR_BASE
		jq -n --arg s "$sha" '{ref: "refs/heads/main", before: "0000000000000000000000000000000000000000",
			after: $s, repository: { full_name: "octo/app" }}' >"$d/event.json"
	else
		ref=refs/pull/7/merge sha=$PR_MERGE
		pr_event "$d/event.json" "${5:-octo/app}"
	fi
	env -u NO_COLOR GITHUB_ACTIONS=true RUNNER_OS=Linux RUNNER_ARCH=X64 \
		RUNNER_TOOL_CACHE="$tmp/toolcache" RUNNER_TEMP="$d/temp" GITHUB_WORKSPACE="$d/ws" \
		SIM_ACTIONS_CACHE="$tmp/actions-cache" \
		GITHUB_STEP_SUMMARY="$d/summary.md" TDC_RELEASE_URL="file://$tmp/mirror" \
		GITHUB_EVENT_NAME="$event" GITHUB_EVENT_PATH="$d/event.json" GITHUB_SHA="$sha" \
		GITHUB_REF="$ref" GITHUB_REPOSITORY=octo/app \
		GITHUB_WORKFLOW_REF="octo/app/.github/workflows/torch-gate.yml@$ref" \
		SIM_ORIGIN="file://$tmp/$origin.git" SIM_SARIF_SCHEMA="$schema" \
		python3 "$repo/tests/action/sim_runner.py" --workflow "$workflow" --machine-root "$machine" \
		"$act" "$d/log" >"$d/result.json" 2>"$d/sim.err"
}
res() { # res NAME PYTHON-EXPR over r (the result): prints its value
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$tmp/$1/result.json" 2>/dev/null
}
# The action's check step (the composite's last step that ran): its logs.
check_logs() {
	local n
	n=$(res "$1" "max(s['n'] for s in r['steps'][1]['action']['steps'] if not s['skipped'])")
	echo "$tmp/$1/log/1/$n.out" "$tmp/$1/log/1/$n.err"
}
# cmds NAME: every workflow command in the check step's output, one JSON per line
cmds() {
	# shellcheck disable=SC2046 # two file names
	python3 tests/report/gh_commands.py $(check_logs "$1")
}
# ann NAME: the annotations, "kind file:line:col title" per line (file etc. empty when absent)
ann() {
	cmds "$1" | python3 -c '
import json, sys
for l in sys.stdin:
    c = json.loads(l)
    if c["name"] in ("error", "warning", "notice") and not c["stopped"]:
        p = c["props"]
        print("%s %s:%s:%s %s" % (c["name"], p.get("file", ""), p.get("line", ""), p.get("col", ""), p.get("title", "")))'
}
report_of() { res "$1" "r['steps'][1]['action']['outputs']['report']"; }
J() { jq -c "$2" "$(report_of "$1")"; }
sarif() { jq -c "$2" "$tmp/$1/ws/torch-dll-check.sarif"; }
show_logs() {
	local f
	for f in "$tmp/$1/sim.err" $(check_logs "$1"); do
		[ -s "$f" ] && sed 's/^/#   /' "$f" | head -30
	done
}

# ---------------------------------------------------------------- the PR
# requirements.txt moves torch 2.4.1 -> 2.4.0 (pytorch/pytorch#131662:
# fbgemm.dll imports libomp140.x86_64.dll, which no redistributable installs).
base_files() {
	mkdir -p "$1/.github/workflows"
	cp "$gate_wf" "$1/.github/workflows/torch-gate.yml"
	printf 'numpy==1.26.4\ntorch==2.4.1\n' >"$1/requirements.txt"
	printf '# app\n' >"$1/README.md"
}
move_to_240() { printf 'numpy==1.26.4\ntorch==2.4.0\n' >"$1/requirements.txt"; }
pr_origin move base_files move_to_240 "Move to torch 2.4.0" || not_ok "cannot build the PR's repository"

# 1. GitHub's image (redistributable, Visual Studio's libomp140): the runner is
#    fine, the version is not — a warning on the pin's line, and an error on it
#    for the default user profile (clean Windows 11, no Visual Studio; issue 30,
#    docs/profiles.md): the gate fails, as every user's `import torch` would.
wf hosted move hosted
check_eq "hosted runner: the workflow fails (exit 1): torch 2.4.0 fails on the users' machines" 1 "$(res hosted "r['rc']")"
check_eq "steps: checkout, the action, the SARIF upload all ran and succeeded" \
	"actions/checkout@v7:0 torch-dll-check/torch-dll-check@v0:1 github/codeql-action/upload-sarif@v4:0" \
	"$(res hosted "' '.join('%s:%s' % (s['uses'], s['rc']) for s in r['steps'] if not s['skipped'])")"
check_eq "outputs: fail, 1 error" "fail 1" \
	"$(res hosted "r['steps'][1]['action']['outputs']['status'] + ' ' + r['steps'][1]['action']['outputs']['failures']")"
got=$(ann hosted)
check_eq "hosted runner: the user profile's error, the warning and the change's notice, all on requirements.txt:2:1" \
	"error requirements.txt:2:1
warning requirements.txt:2:1
notice requirements.txt:2:1" "$(cut -d' ' -f1,2 <<<"$got")"
check_eq "hosted runner: the error says why it loads here and where it fails" 1 \
	"$(grep -c '^error requirements.txt:2:1 .*loads on this runner only because Visual Studio is installed here.*fails on clean Windows 11 24H2.*WinError 126, libomp140.x86_64.dll' <<<"$got")"
if grep -q '^warning [^ ]* .*libomp140' <<<"$got"; then ok "hosted runner: the warning names libomp140"; else
	not_ok "hosted runner: the warning does not name libomp140"
	printf '%s\n' "$got" | sed 's/^/#   /'
	show_logs hosted
fi
check_eq "hosted runner: the report's findings (severity, rule, anchor)" \
	'[["error","profile-fails","requirements.txt",2,1],["note","pin-changed","requirements.txt",2,1],["warning","openmp-not-redistributable","requirements.txt",2,1]]' \
	"$(J hosted '[.findings[] | [.severity, .rule, .anchor.file, .anchor.line, .anchor.col]] | sort')"
check_cmd "hosted runner: the uploaded SARIF is valid 2.1.0 and anchored for code scanning" \
	python3 tests/report/validate_sarif.py "$schema" "$tmp/hosted/ws/torch-dll-check.sarif" --github
check_eq "hosted runner: the SARIF result for the pin points at requirements.txt line 2, column 1" \
	'["requirements.txt",2,1]' \
	"$(sarif hosted '[.runs[0].results[] | select(.level == "warning") | .locations[0].physicalLocation
		| [.artifactLocation.uri, .region.startLine, .region.startColumn]] | unique | .[0]')"
if grep -q 'requirements.txt:2' "$tmp/hosted/summary.md" && grep -q 'libomp140' "$tmp/hosted/summary.md"; then
	ok "hosted runner: the job summary names the pin's line and libomp140"
else
	not_ok "hosted runner: job summary"
	head -40 "$tmp/hosted/summary.md" | sed 's/^/#   /'
fi
check_eq "hosted runner: no torch was installed and none was checked" '[]' "$(J hosted '.installs')"

# 2. A runner without the redistributable: errors on the pin's line, the gate fails.
wf bare move bare
check_eq "bare runner: the workflow fails (exit 1)" 1 "$(res bare "r['rc']")"
check_eq "bare runner: the SARIF upload still ran (if: always()) and was accepted" 0 \
	"$(res bare "[u['rc'] for u in r['uploads']][0]")"
got=$(ann bare)
check_eq "bare runner: two errors and the change's notice, all on requirements.txt:2:1" \
	"error requirements.txt:2:1
error requirements.txt:2:1
notice requirements.txt:2:1" "$(cut -d' ' -f1,2 <<<"$got")"
check_eq "bare runner: the errors are libomp140 (missing-dll) and the redistributable (redist-missing)" \
	'[["error","missing-dll","libomp140.x86_64.dll"],["error","redist-missing","vcruntime140.dll"]]' \
	"$(J bare '[.findings[] | select(.severity == "error") | [.severity, .rule, .leaf]] | sort')"
check_eq "bare runner: SARIF errors at requirements.txt:2:1" '[["requirements.txt",2,1],["requirements.txt",2,1]]' \
	"$(sarif bare '[.runs[0].results[] | select(.level == "error") | .locations[0].physicalLocation
		| [.artifactLocation.uri, .region.startLine, .region.startColumn]]')"
check_eq "bare runner: status output fail" fail "$(res bare "r['steps'][1]['action']['outputs']['status']")"
check_cmd "bare runner: SARIF valid and anchored" \
	python3 tests/report/validate_sarif.py "$schema" "$tmp/bare/ws/torch-dll-check.sarif" --github

# 3. A PR from a fork: read-only token, so the example skips the upload.
wf fork move hosted "$gate_wf" mallory/app
check_eq "fork's PR: the gate ran (and failed: torch 2.4.0 on the user profile), the upload was skipped" "1 True" \
	"$(res fork "'%s %s' % (r['rc'], r['steps'][2]['skipped'])")"

# 3a. A pin in the middle of a line (pyproject's [project] dependencies): the
#     column flows through the annotation and the SARIF region.
pyproject_base() {
	base_files "$1"
	rm "$1/requirements.txt"
	printf '[project]\nname = "app"\nversion = "1.0"\ndependencies = ["numpy==1.26.4", "torch==2.4.1"]\n' >"$1/pyproject.toml"
}
pyproject_head() { sed -i 's/torch==2.4.1/torch==2.4.0/' "$1/pyproject.toml"; }
pr_origin pyproject pyproject_base pyproject_head "Move to torch 2.4.0 (pyproject)" || not_ok "cannot build the pyproject PR"
wf pyproject pyproject bare
col=$(($(sed -n 4p "$tmp/pyproject.work/pyproject.toml" | grep -bo '"torch==' | cut -d: -f1) + 2))
check_eq "pyproject pin: the errors are annotated on pyproject.toml:4:$col (the requirement inside the string)" \
	"error pyproject.toml:4:$col" "$(ann pyproject | grep '^error' | cut -d' ' -f1,2 | sort -u)"
check_eq "…and the SARIF regions start there" "[[\"pyproject.toml\",4,$col]]" \
	"$(sarif pyproject '[.runs[0].results[] | select(.level == "error") | .locations[0].physicalLocation
		| [.artifactLocation.uri, .region.startLine, .region.startColumn]] | unique')"

# 3b. The push to main the example also runs on (code scanning's baseline for
#     the PRs): the pins at that commit, judged whole; uploaded.
WF_EVENT=push wf push move hosted
check_eq "push to main (torch 2.4.1, hosted runner): pass, upload ran" "0 0 False" \
	"$(res push "'%s %s %s' % (r['rc'], r['steps'][2]['rc'], r['steps'][2]['skipped'])")"
check_eq "push to main: the pins of main's commit were judged, nothing compared" \
	"$PR_BASE null" "$(J push '"\(.pins.head.commit) \(.pins.base)"' | tr -d '"')"
WF_EVENT=push wf push_bare move bare
check_eq "push to main on the bare runner: fails on requirements.txt:2:1" "1 error requirements.txt:2:1" \
	"$(res push_bare "r['rc']") $(ann push_bare | grep '^error' | cut -d' ' -f1,2 | sort -u)"

# 3c. Without security-events: write the upload is refused (the simulated
#     upload checks the job's permissions as GitHub's API does).
sed '/security-events: write/d' "$gate_wf" >"$tmp/noperm.yml"
wf noperm move hosted "$tmp/noperm.yml"
check_eq "no security-events: write: the upload step fails" 1 "$(res noperm "r['steps'][2]['rc']")"

# 4. A PR that touches no pin and no matrix file: one notice, pass.
touch_readme() { printf '# app\n\nMore words.\n' >"$1/README.md"; }
pr_origin nopin base_files touch_readme "Document the app" || not_ok "cannot build the no-pin PR"
wf nopin nopin bare
check_eq "no pin changed: pass even on the bare runner (exit 0)" 0 "$(res nopin "r['rc']")"
got=$(ann nopin)
check_eq "no pin changed: exactly one annotation, a notice" "1 notice" \
	"$(printf '%s\n' "$got" | grep -c . | tr -d '\n') $(printf '%s\n' "$got" | head -1 | cut -d' ' -f1)"
check_eq "no pin changed: status pass" pass "$(res nopin "r['steps'][1]['action']['outputs']['status']")"

# 5. The default fetch-depth (1): the base commit is not there. A clear
#    error naming the fix, never a pass.
# (the checkout step's `with:` and its `fetch-depth: 2` line taken out; every
# other run of the example checks out at its fetch-depth 2: the merge commit
# and its parents are all the gate reads)
python3 -c '
import re, sys
print(re.sub(r"\n *with:\n *fetch-depth: 2[^\n]*\n", "\n", open(sys.argv[1]).read()), end="")' "$gate_wf" >"$tmp/shallow.yml"
if grep -q '^ *fetch-depth:' "$tmp/shallow.yml"; then not_ok "could not take fetch-depth out of the workflow"; fi
wf shallow move hosted "$tmp/shallow.yml"
check_eq "shallow clone: the action fails with an input error (2)" 2 "$(res shallow "r['steps'][1]['rc']")"
check_eq "shallow clone: one error annotation naming the fix (fetch-depth: 0)" 1 \
	"$(cmds shallow | grep -c '"name": "error".*actions/checkout with fetch-depth: 0')"

# variant FILE LINE...: the gate's example with LINEs added to the action's `with:`.
variant() {
	local out=$1
	shift
	python3 -c '
import sys
src = open(sys.argv[1]).read()
anchor = "          pins: \"true\"\n"
assert src.count(anchor) == 1
print(src.replace(anchor, anchor + "".join("          %s\n" % l for l in sys.argv[2:])), end="")' "$gate_wf" "$@" >"$out"
}

# 5b. The action fails before the check (here: a version it cannot get), so
#     no SARIF file exists: the upload step is skipped by its hashFiles()
#     guard — one failure, not a second, confusing "file not found" one.
variant "$tmp/nosetup.yml" 'version: "9.9.9"'
wf nosetup move hosted "$tmp/nosetup.yml"
check_eq "setup fails: the action exits 2, no SARIF written, the upload skipped" "2 False True" \
	"$(res nosetup "r['steps'][1]['rc']") $(test -e "$tmp/nosetup/ws/torch-dll-check.sarif" && echo True || echo False) $(res nosetup "r['steps'][2]['skipped']")"

# 6. pins-unchanged: "true" judges the head's pins though the PR changes none
#    (torch 2.4.1 on the bare runner: the redistributable is missing).
variant "$tmp/unchanged.yml" 'pins-unchanged: "true"'
wf unchanged nopin bare "$tmp/unchanged.yml"
check_eq "pins-unchanged: the head's pin is judged: the gate fails on the bare runner" 1 "$(res unchanged "r['rc']")"
check_eq "pins-unchanged: its error is on requirements.txt:2:1 (torch==2.4.1)" "error requirements.txt:2:1" \
	"$(ann unchanged | grep '^error' | cut -d' ' -f1,2 | sort -u)"

# 7. The pins and an installed torch in one report: the runner's C:\ holds a
#    torch 2.4.0 that fails to load (tests/lib/trees/torch240.sh) while the
#    repository pins 2.4.1; `torch-path` given explicitly.
if root=$(torch240_tree 2>"$tmp/tree.err") && [ -d "$root" ]; then
	variant "$tmp/both.yml" 'torch-path: C:\Python311\Lib\site-packages\torch'
	pin241() { printf 'numpy==1.26.4\ntorch==2.4.1\n' >"$1/requirements.txt"; }
	pr_origin both base_files pin241 "Pin torch 2.4.1 again" || not_ok "cannot build the PR's repository"
	wf both both "$root" "$tmp/both.yml"
	check_eq "pins + installed torch: the workflow fails (exit 1)" 1 "$(res both "r['rc']")"
	check_eq "…the installed torch was checked (one install, 2.4.0+cpu, fails)" '[["2.4.0+cpu","fail"]]' \
		"$(J both '[.installs[] | [.version, .status]]')"
	check_eq "…its loader finding (fbgemm.dll's missing libomp140) and a pin finding are in the same report" \
		'[true,true]' \
		"$(J both '[any(.findings[]; .leaf == "libomp140.x86_64.dll" and (.anchor == null)),
			any(.findings[]; .anchor.file == "requirements.txt")]')"
	check_eq "…the installed version differs from the pin: a finding on requirements.txt:2:1" \
		'[["pin-mismatch","requirements.txt",2,1]]' \
		"$(J both '[.findings[] | select(.rule == "pin-mismatch") | [.rule, .anchor.file, .anchor.line, .anchor.col]]')"
	check_cmd "…SARIF valid and anchored" \
		python3 tests/report/validate_sarif.py "$schema" "$tmp/both/ws/torch-dll-check.sarif" --github
	# A PR that touches no pin still has its installed torch checked.
	wf both_nopin nopin "$root" "$tmp/both.yml"
	check_eq "pins + installed torch, PR touching no pin: the installed torch still fails the workflow" \
		'1 [["2.4.0+cpu","fail"]]' "$(res both_nopin "r['rc']") $(J both_nopin '[.installs[] | [.version, .status]]')"
else
	not_ok "cannot build the torch 2.4.0 tree"
	sed 's/^/#   /' "$tmp/tree.err" | tail -20
fi

# 8. The repository input reaches --repo: the workspace named explicitly
#    gives the same verdict; a folder outside any repository is an input error.
# shellcheck disable=SC2016 # a workflow expression, for the simulated runner
variant "$tmp/repo_ws.yml" 'repository: ${{ github.workspace }}'
wf repo_ws move bare "$tmp/repo_ws.yml"
check_eq "repository: the workspace, named: the same errors on requirements.txt:2:1" "1 error requirements.txt:2:1" \
	"$(res repo_ws "r['rc']") $(ann repo_ws | grep '^error' | cut -d' ' -f1,2 | sort -u)"
variant "$tmp/repo_root.yml" 'repository: /'
wf repo_root move bare "$tmp/repo_root.yml"
check_eq "repository: / (no repository): exit 2, one error annotation saying so" "2 1" \
	"$(res repo_root "r['steps'][1]['rc']") $(cmds repo_root | grep -c '"name": "error".*not a git repository')"

# 8b. repository / pins-unchanged without pins: an input error, annotated.
variant "$tmp/norepo.yml" 'repository: elsewhere'
sed -i 's/^          pins: "true"$/          pins: "false"/' "$tmp/norepo.yml"
wf norepo move hosted "$tmp/norepo.yml"
check_eq "repository without pins: exit 2" 2 "$(res norepo "r['steps'][1]['rc']")"
# shellcheck disable=SC2046 # two file names
if ann norepo | grep -q '^error :: torch-dll-check$' &&
	grep -q 'repository and pins-unchanged are read only with pins: true' $(check_logs norepo); then
	ok "…with one error annotation saying why"
else
	not_ok "repository without pins: no annotation"
	show_logs norepo
fi

# 9. A hostile pull request: its file names, pin text and commit subject try
#    to form workflow commands (v2 and legacy), outputs and summary elements.
#    Everything the workflow printed is parsed as the runner parses it
#    (tests/report/check_injection.py for the check step: only our
#    annotations and one stop-commands block; GITHUB_OUTPUT holds exactly
#    status, failures, warnings, report; the summary no raw HTML or
#    javascript: link); every other step prints no command at all.
evil_inc='req/requirements-::error::inc%0A##[warning]x<b>[l](javascript:alert(1)).txt'
evil_nl=$'requirements-\n::error::newline%0A.txt'
evil_md=$'requirements-\n# Heading | cell | `code` <!-- \n- [x] task\n---.txt'
evil_pin='torch==2.4.0 ; sys_platform == "win32" or platform_release == "::error::pin%0A##[error]m<script>alert(1)</script>"'
evil_subject=$'::error::subject%0A##[error]s <b>bold</b> [l](javascript:x)\n\n::warning::body\n##[set-output name=status;]pass'
hostile_head() {
	mkdir -p "$1/req"
	printf 'numpy==1.26.4\n-r %s\n' "$evil_inc" >"$1/requirements.txt"
	printf '%s\n' "$evil_pin" >"$1/$evil_inc"
	printf 'torch==2.4.0\n' >"$1/$evil_nl"
	printf 'torch==2.4.0\n' >"$1/$evil_md"
}
pr_origin hostile base_files hostile_head "$evil_subject" || not_ok "cannot build the hostile PR"
wf hostile hostile bare
check_eq "hostile PR on the bare runner: the gate fails (exit 1), nothing crashed" 1 "$(res hostile "r['rc']")"
n=$(res hostile "max(s['n'] for s in r['steps'][1]['action']['steps'] if not s['skipped'])")
d=$tmp/hostile
python3 tests/report/check_injection.py "$(report_of hostile)" "$d/log/1/$n.out" "$d/log/1/$n.err" \
	"$d/log/1/$n.github_output" "$d/summary.md" "$(report_of hostile)" | sed 's/^\(not \)\{0,1\}ok - injection: /&hostile PR: /'
[ "${PIPESTATUS[0]}" -eq 0 ] || TAP_FAILED=1
check_eq "hostile PR: the hostile files were read (findings anchored in both)" '[true,true]' \
	"$(J hostile '[.findings[].anchor.file // empty] | [any(startswith("req/requirements-::error::")),
		any(startswith("requirements-\n::error::"))]')"
check_eq "hostile PR: the summary has no Markdown element from a file name (heading, list, rule, comment)" "" \
	"$(grep -n '^# Heading\|^- \[x\] task\|^---\.txt\|<!--' "$d/summary.md")"
check_eq "hostile PR: the summary's headings are all its own" "" \
	"$(grep '^#' "$d/summary.md" | grep -v '^### \(❌\|⚠️\|✅\) torch-dll-check: \|^#### \(Errors\|Warnings\|Notes\) ([0-9]*)$\|^### \(Inventory\|Pins\)')"
check_eq "hostile PR: the hostile subject went through (the report's head commit)" true \
	"$(J hostile '.pins.head.subject | startswith("::error::subject%0A")')"
others=$(find "$d/log" -name '*.out' -o -name '*.err' | grep -v "/log/1/$n\.\(out\|err\)$" | sort)
# shellcheck disable=SC2086 # file names without spaces
check_eq "hostile PR: no other step printed a workflow command" "" "$(python3 tests/report/gh_commands.py $others)"
check_eq "hostile PR: the workflow's outputs are the action's eight (the checker's six, path, cache-hit)" \
	"cache-hit failures findings path problems report status warnings" \
	"$(res hostile "' '.join(sorted(r['steps'][1]['action']['outputs']))")"
check_cmd "hostile PR: the SARIF upload accepts the file (valid, anchored)" \
	python3 tests/report/validate_sarif.py "$schema" "$d/ws/torch-dll-check.sarif" --github

# 10. A hostile pin file that does not parse: an input error (exit 2) whose
#     message names the file; the action's annotation of it stays one
#     error command, the name inert inside its data.
evil_bad=$'requirements-::error::bad%0A##[error]<b>\n::warning::x.txt'
bad_head() { printf 'torch==2.4.0 ; python_version >\n' >"$1/$evil_bad"; }
pr_origin badpin base_files bad_head "$evil_subject" || not_ok "cannot build the unparsable PR"
wf badpin badpin hosted
check_eq "unparsable hostile pin file: exit 2" 2 "$(res badpin "r['steps'][1]['rc']")"
check_eq "…the only workflow command is one error annotation, titled torch-dll-check, naming the marker error" \
	'[["error","torch-dll-check",true]]' \
	"$(cmds badpin | jq -sc '[.[] | [.name, .props.title, (.data | test("requirements-::error::bad%0A#\\\\x23\\[error\\]<b>\\\\n::warning::x.txt:1:16: invalid environment marker"))]]')"
# shellcheck disable=SC2046 # two file names
check_eq "…no raw ##[ anywhere in its output" "" "$(grep -h -- '##\[' $(check_logs badpin))"

tap_done
