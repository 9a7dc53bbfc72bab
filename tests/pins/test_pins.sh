#!/usr/bin/env bash
# test_pins: `torch-dll-check-git pins` and `torch-dll-check pins` on real git
# repositories built here with git (several commits, a branch, a fake
# pull_request event): pins per revision, what a PR changed and where, exit
# codes and error texts; the same runs again under ASan+UBSan.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=pins

repo=$tmp/repo
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS
g() { git -C "$repo" "$@" >/dev/null 2>&1; }

# json FILE EXPR: evaluates a Python expression on the parsed JSON document `d`;
# at(p) is "file:line:col" of a pin or change, cat(...) joins values with spaces.
cat >"$tmp/jsonq.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
at = lambda p: "%s:%s:%s" % (p["file"], p["line"], p["col"])
cat = lambda *a: " ".join(str(x) for x in a)
print(eval(sys.argv[2]))
EOF
json() { python3 "$tmp/jsonq.py" "$1" "$2"; }

# --- the repository: main has torch 2.3.1; the PR branch moves to 2.4.0 cu121 ---
mkdir -p "$repo/ci" "$repo/tests/fuzz/corpus/x"
git init -q -b main "$repo"
cat >"$repo/requirements.txt" <<'EOF'
# runtime
numpy>=1.26
torch==2.3.1
-r ci/extra.txt
EOF
cat >"$repo/ci/extra.txt" <<'EOF'
torchaudio==2.3.1
-r ../requirements.txt
EOF
cat >"$repo/environment.yml" <<'EOF'
name: ml
channels: [pytorch]
dependencies:
  - python=3.11
  - pytorch::pytorch=2.3.1
EOF
cat >"$repo/pyproject.toml" <<'EOF'
[project]
name = "demo"
dependencies = ["torch>=2.3"]
EOF
printf 'this is [not toml\n' >"$repo/tests/fuzz/corpus/x/pyproject.toml"
g add -A && g commit -m "Pin torch 2.3.1"
base_sha=$(git -C "$repo" rev-parse HEAD)

g checkout -b pr
cat >"$repo/requirements.txt" <<'EOF'
# runtime
--extra-index-url https://download.pytorch.org/whl/cu121
numpy>=1.26
torch==2.4.0 ; sys_platform == "win32"
-r ci/extra.txt
EOF
g commit -am "Move to torch 2.4.0 from the cu121 index"
cat >"$repo/environment.yml" <<'EOF'
name: ml
channels: [pytorch]
dependencies:
  - python=3.11
EOF
cat >"$repo/uv.lock" <<'EOF'
version = 1
[[package]]
name = "torch"
version = "2.4.0+cu121"
source = { registry = "https://download.pytorch.org/whl/cu121" }
EOF
g add -A && g commit -m "Drop conda torch, lock with uv"
head_sha=$(git -C "$repo" rev-parse HEAD)
g checkout main
g update-ref refs/remotes/origin/main "$base_sha"

cat >"$tmp/event.json" <<EOF
{"action": "synchronize", "number": 7,
 "pull_request": {"base": {"ref": "main", "sha": "$base_sha"},
                  "head": {"ref": "pr", "sha": "$head_sha"}}}
EOF

run_suite() {
	local bin=$1 main=$2 tag=$3
	local out=$tmp/out.$tag
	TEST_NAME="pins($tag)"

	check_status "--version exits 0" 0 "$bin" --version

	"$bin" pins --repo "$repo" --rev main --all >"$out.txt" 2>&1
	check_eq "main: status" 0 $?
	check_eq "main: torch pin with file:line:col" 1 "$(grep -c '^  requirements.txt:3:1  torch==2.3.1$' "$out.txt")"
	check_eq "main: included file's pin is read" 1 "$(grep -c '^  ci/extra.txt:1:1  torchaudio==2.3.1' "$out.txt")"
	check_eq "main: conda pin" 1 "$(grep -c '^  environment.yml:5:5  pytorch::pytorch=2.3.1$' "$out.txt")"
	check_eq "main: test-data folders are skipped" 0 "$(grep -c corpus "$out.txt")"

	"$bin" pins --repo "$repo" --rev main --json >"$out.json" 2>"$out.err"
	check_eq "json: status" 0 $?
	check_eq "json: schema" "torch-dll-check/pins/v1" "$(json "$out.json" 'd["schema"]')"
	check_eq "json: commit" "$base_sha" "$(json "$out.json" 'd["head"]["commit"]')"
	check_eq "json: torch pins at main" "['environment.yml:5:5:=2.3.1', 'pyproject.toml:3:18:>=2.3', 'requirements.txt:3:1:==2.3.1']" \
		"$(json "$out.json" '[at(p) + ":" + p["spec"] for f in d["head"]["files"] for p in f["pins"] if p["torch"]]')"
	check_eq "json: include cycle read each file once" "['environment.yml', 'pyproject.toml', 'requirements.txt', 'ci/extra.txt']" \
		"$(json "$out.json" '[f["path"] for f in d["head"]["files"]]')"
	check_eq "json: include resolved and found" "ci/extra.txt True" \
		"$(json "$out.json" 'cat(d["head"]["files"][2]["includes"][0]["resolved"], d["head"]["files"][2]["includes"][0]["found"])')"
	check_eq "json: no base for one revision" "None None" "$(json "$out.json" 'str(d["base"]) + " " + str(d["changes"])')"

	"$bin" pins --repo "$repo" --rev origin/main --json >"$out.o.json" 2>"$out.err"
	check_eq "remote-tracking branch resolves" "$base_sha" "$(json "$out.o.json" 'd["head"]["commit"]')"
	"$bin" pins --repo "$repo" --rev "${head_sha:0:9}" --json >"$out.s.json" 2>"$out.err"
	check_eq "short commit id resolves" "$head_sha" "$(json "$out.s.json" 'd["head"]["commit"]')"
	"$bin" pins --repo "$repo/.git" --rev pr~2 --json >"$out.g.json" 2>"$out.err"
	check_eq "git dir and pr~2 resolve" "$base_sha" "$(json "$out.g.json" 'd["head"]["commit"]')"

	"$bin" pins --repo "$repo" --base main --head pr --json >"$out.diff.json" 2>"$out.err"
	check_eq "diff: status" 0 $?
	check_eq "diff: changes with anchors" \
		"['changed requirements.txt:4:1 head ==2.3.1->==2.4.0', 'added uv.lock:4:12 head None->==2.4.0+cu121', 'removed environment.yml:5:5 base =2.3.1->None']" \
		"$(json "$out.diff.json" '[cat(c["change"], at(c), c["anchor"], str((c["base"] or {}).get("spec")) + "->" + str((c["head"] or {}).get("spec"))) for c in d["changes"]]')"
	check_eq "diff: variant from the extra index, markers for Windows" "cu121 index True" \
		"$(json "$out.diff.json" 'cat(d["changes"][0]["head"]["variant"], d["changes"][0]["head"]["variant_from"], d["changes"][0]["head"]["on_windows"])')"
	check_eq "diff: targets per file for check" \
		"['pyproject.toml None None True', 'requirements.txt 2.4.0 cu121 True', 'uv.lock 2.4.0+cu121 cu121 True']" \
		"$(json "$out.diff.json" '[cat(t["file"], t["version"], t["variant"], t["on_windows"]) for t in d["targets"]]')"

	check_eq "diff: matrix rows the runners must satisfy" "torch-2.4.0 | torch-2.3 torch-2.4.0 torch-2.4.1-to-2.6 torch-2.7.0 torch-2.7.1 torch-2.8 torch-2.9-to-2.11 torch-2.12-to-2.13 torch-2.14-and-newer" \
		"$(json "$out.diff.json" 'd["targets"][1]["matrix_rows"][0]["row"] + " | " + cat(*[r["row"] for r in d["targets"][0]["matrix_rows"]])')"
	check_eq "diff: each row names its known issues" "['libomp140-not-redistributable'] ['mkl-not-installed']" \
		"$(json "$out.diff.json" 'cat(d["targets"][1]["matrix_rows"][0]["known_issues"], d["targets"][0]["matrix_rows"][0]["known_issues"])')"

	printf 'schema: 1\nrows:\n  - id: org-2.4.0-cu121\n    torch: "==2.4.0"\n    variant: [cu121]\n    status: inferred\n    vc_redist: {x64: "14.40"}\n' >"$tmp/org.yml"
	"$bin" pins --repo "$repo" --base main --head pr --matrix "$tmp/org.yml" --json >"$out.org.json" 2>"$out.err"
	check_eq "--matrix layer: its row wins for the PR's torch" "org-2.4.0-cu121" \
		"$(json "$out.org.json" 'd["targets"][1]["matrix_rows"][0]["row"]')"
	printf 'schema: 1\nrows:\n  - id: x\n    torhc: "==1"\n' >"$tmp/bad.yml"
	"$bin" pins --repo "$repo" --rev main --matrix "$tmp/bad.yml" >"$out.badm" 2>&1
	check_eq "--matrix with an error: status" 2 $?
	check_eq "--matrix with an error: file:line:col" 1 "$(grep -c "^torch-dll-check: $tmp/bad.yml:4:5: " "$out.badm")"

	"$bin" pins --repo "$repo" --base main --head pr >"$out.diff.txt" 2>&1
	check_eq "diff text: PR's torch meets its matrix row, and its known issues are named" 1 \
		"$(grep -c '^      2.4.0 -> torch-2.4.0, known issues: libomp140-not-redistributable$' "$out.diff.txt")"
	check_eq "diff text: changed line" 1 "$(grep -c '^  changed  requirements.txt:4:1  torch==2.3.1  ->  torch==2.4.0 ; sys_platform == "win32"$' "$out.diff.txt")"
	check_eq "diff text: removed anchored at base" 1 "$(grep -c '^  removed  environment.yml:5:5 (base)  pytorch::pytorch=2.3.1$' "$out.diff.txt")"

	"$bin" pins --repo "$repo" --github-event "$tmp/event.json" --json >"$out.ev.json" 2>"$out.err"
	check_eq "event: status" 0 $?
	check_eq "event: same changes as --base/--head" \
		"$(json "$out.diff.json" 'd["changes"]')" "$(json "$out.ev.json" 'd["changes"]')"
	check_eq "event: head commit" "$head_sha" "$(json "$out.ev.json" 'd["head"]["commit"]')"

	(cd "$repo/ci" && GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$tmp/event.json" "$bin" pins --json) >"$out.auto.json" 2>"$out.err"
	check_eq "event from the environment, repo found from a subfolder" 3 "$(json "$out.auto.json" 'len(d["changes"])')"

	"$main" pins --repo "$repo" --base main --head pr >"$out.main.txt" 2>&1
	check_eq "torch-dll-check pins: status" 0 $?
	check_cmd "torch-dll-check pins gives the same output" cmp "$out.diff.txt" "$out.main.txt"
	"$main" pins --repo "$tmp" >"$out.main.err" 2>&1
	check_eq "torch-dll-check pins: child's exit status" 2 $?

	# uncommitted changes do not count: pins come from the object database
	echo "torch==9.9.9" >>"$repo/requirements.txt"
	check_eq "working tree is not read" 0 "$("$bin" pins --repo "$repo" --rev HEAD | grep -c 9.9.9)"
	g checkout -- requirements.txt

	# errors
	"$bin" pins --repo "$tmp" >"$out.e1" 2>&1
	check_eq "not a repository: status" 2 $?
	check_eq "not a repository: message" "torch-dll-check: not a git repository: $tmp (nor any of its parent folders)" "$(cat "$out.e1")"
	if [ "$(id -u)" -eq 0 ] && [ "$tag" = rel ]; then
		# a repository owned by someone else: git's safe.directory check, said plainly
		cp -r "$repo" "$tmp/theirs" && chown -R nobody "$tmp/theirs"
		"$bin" pins --repo "$tmp/theirs" >"$out.e6" 2>&1
		check_eq "another user's repository: status" 2 $?
		check_eq "another user's repository: safe.directory named" 1 "$(grep -c 'safe.directory' "$out.e6")"
		rm -rf "$tmp/theirs"
	fi
	"$bin" pins --repo "$repo" --rev no-such-branch >"$out.e2" 2>&1
	check_eq "bad revision: status" 2 $?
	check_eq "bad revision: message" 1 "$(grep -c "^torch-dll-check: bad revision 'no-such-branch': " "$out.e2")"
	"$bin" pins --repo "$repo" --rev 0123456789abcdef0123456789abcdef01234567 >"$out.e3" 2>&1
	check_eq "absent commit: says to fetch" 1 "$(grep -c 'is not in the repository .*fetch-depth: 0' "$out.e3")"
	"$bin" pins --repo "$repo" --rev bad >"$out.e4" 2>&1
	check_eq "unparsable pin file: status" 2 $?
	check_eq "unparsable pin file: file:line:col" \
		"torch-dll-check: at head $(git -C "$repo" rev-parse --short=12 bad): requirements.txt:2:7: invalid version specifier '2.5' (an operator such as == or >= must come first)" \
		"$(cat "$out.e4")"
	echo '{"ref": "refs/heads/main"}' >"$tmp/push.json"
	"$bin" pins --repo "$repo" --github-event "$tmp/push.json" >"$out.e5" 2>&1
	check_eq "push event: message" "torch-dll-check: $tmp/push.json: not a pull request event (no pull_request object); pass --base and --head" "$(cat "$out.e5")"
	echo '{"pull_request": {"base": {"sha": "x; rm -rf /"}, "head": {"sha": "'"$head_sha"'"}}}' >"$tmp/bad.json"
	check_status "event with a bad sha: status" 2 "$bin" pins --repo "$repo" --github-event "$tmp/bad.json"
	check_status "--rev with --base: usage error" 2 "$bin" pins --repo "$repo" --rev main --base main
	check_status "unknown option: usage error" 2 "$bin" pins --frob

	# under GitHub Actions, repository text cannot issue workflow commands
	GITHUB_ACTIONS=true "$bin" pins --repo "$repo" --rev evil >"$out.gh" 2>&1
	local cmds
	cmds=$(grep -c '^::' "$out.gh")
	check_eq "actions: only stop/resume commands at line starts" 2 "$cmds"
	check_eq "actions: output wrapped in stop-commands" 1 \
		"$(head -1 "$out.gh" | grep -c '^::stop-commands::[0-9a-f]\{32\}$')"
	check_eq "actions: resumed with the same token" "::$(head -1 "$out.gh" | cut -d: -f5)::" "$(tail -1 "$out.gh")"
	GITHUB_ACTIONS=true "$bin" pins --repo "$repo" --base main --head pr >"$out.ghpr" 2>&1
	check_eq "actions: PR changes become notices at their head line" \
		"::notice file=requirements.txt,line=4,col=1,title=torch pin changed::torch==2.3.1 -> torch==2.4.0 ; sys_platform == \"win32\"%0AWindows runners must satisfy matrix row torch-2.4.0 (2.4.0; known issues: libomp140-not-redistributable).
::notice file=uv.lock,line=4,col=12,title=torch pin added::torch 2.4.0+cu121%0AWindows runners must satisfy matrix row torch-2.4.0 (2.4.0+cu121; known issues: libomp140-not-redistributable).
::notice title=torch pin removed::pytorch::pytorch=2.3.1 (removed; it was at this line in the base)" \
		"$(grep '^::notice' "$out.ghpr")"
	GITHUB_ACTIONS=true "$bin" pins --repo "$repo" --base main --head evil >"$out.ghevil" 2>&1
	check_eq "actions: hostile paths are escaped in annotation properties" 1 \
		"$(grep -c '^::notice file=%3A%3Aerror title=x%3A%3Apwned/requirements.txt,line=1,col=1,title=torch pin added::' "$out.ghevil")"
	check_eq "actions: a newline in a path cannot start a line" 1 \
		"$(grep -c '^::notice file=new%0Aline/requirements.txt,' "$out.ghevil")"
	check_eq "actions: no other command than stop/resume/notice" 0 \
		"$(grep '^::' "$out.ghevil" | grep -cv '^::\(stop-commands::[0-9a-f]*\|[0-9a-f]\{32\}::\|notice .*\)$')"
	check_eq "legacy ##[ form is broken up everywhere" 0 "$(grep -c '##\[' "$out.gh")"
	check_eq "a newline in a path stays on its line" 1 "$(grep -c '^  new\\nline/requirements.txt:1:1  torch==2.4.0$' "$out.gh")"
	"$bin" pins --repo "$repo" --rev evil --json >"$out.evil.json" 2>&1
	check_eq "json: invalid UTF-8 in a path becomes U+FFFD" 1 \
		"$(json "$out.evil.json" 'sum(f["path"] == "\ufffdlatin/requirements.txt" for f in d["head"]["files"])')"
}

# a commit with a broken pin file, and one with hostile names
g checkout -q main
g checkout -b bad-branch
printf 'numpy\ntorch 2.5\n' >"$repo/requirements.txt"
g commit -am "broken pin" && g tag bad
g checkout main
g checkout -b evil-branch
mkdir -p "$repo/::error title=x::pwned"
printf 'torch==2.4.0 ; sys_platform == "win32"\n' >"$repo/::error title=x::pwned/requirements.txt"
mkdir -p "$repo/##[error]legacy" "$repo/new
line" "$repo/"$'\xff'"latin"
for d in "##[error]legacy" "new
line" $'\xff'"latin"; do
	printf 'torch==2.4.0\n' >"$repo/$d/requirements.txt"
done
g add -A && g commit -m "::warning::subject" && g tag evil
g checkout main

run_suite "$TDC_GIT_BIN" "$TDC_BIN" rel
if need build/asan/torch-dll-check-git build/asan/torch-dll-check; then
	run_suite "$TDC_ASAN_GIT_BIN" "$TDC_ASAN_BIN" asan
else
	TEST_NAME=pins
	skip "the suite under ASan+UBSan" "build/asan/torch-dll-check-git could not be built (make unit-build)"
fi
tap_done
