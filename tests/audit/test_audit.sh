#!/usr/bin/env bash
# shellcheck disable=SC2317,SC1003,SC2016  # demo.sh ends in exit when run, not when sourced; C:\ paths and Markdown in single quotes
# test_audit: `audit`, `history` and `fleet` on real history repositories.
#
# The snapshots are real `check --json` reports of the demo runner tree
# (tests/lib/demo.sh) in the states a fleet goes through: libomp140 appearing
# in System32 (a Visual Studio install), disappearing again, an older
# msvcp140.dll, the redistributable upgraded, torch upgraded; every drift is
# asserted exactly. Then concurrent writers on one ref and on many, a ref
# moved between read and swap, and damaged histories (a ref at a blob, a
# truncated commit, a snapshot that is not a report, another schema).
set -u
TEST_NAME=audit
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
# shellcheck source=tests/lib/demo.sh
source "$TDC_REPO/tests/lib/demo.sh"

bin=$B
gbin=$G
rel=$TDC_BIN # the nightly check that writes the reports: the release build, quicker
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp
git config --global user.email t@example.com
git config --global user.name t
unset GITHUB_ACTIONS RUNNER_NAME GITHUB_WORKSPACE

d=$(demo_tree) || { not_ok "demo tree"; tap_done; }
m=$tmp/m
cp -a "$d/root" "$m"
cp "$d/runner.reg" "$tmp/runner.reg"
sys=$m/Windows/System32
hist=$tmp/hist.git
git init -q --bare "$hist"

# report FILE: the real check of the runner tree as it is now.
report() {
	"$rel" check --root "$m" --scan 'C:\' --registry "$tmp/runner.reg" --json "$1" --fail-on never >/dev/null 2>&1
}
night=1764547200
# audit NAME [args]: the next night's snapshot of runner r1 from the tree's current state.
audit() {
	local name=$1
	shift
	report "$tmp/$name.json" || { echo "check failed"; return 2; }
	night=$((night + 86400))
	"$gbin" audit --history "$hist" --runner r1 --report "$tmp/$name.json" --date "$night" \
		--json "$tmp/$name.audit.json" "$@" >"$tmp/$name.out" 2>&1
}
# drift NAME: "severity kind key" per change of that audit.
drift() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print("\n".join("%s %s %s" % (c["severity"], c["kind"], c["key"]) for c in d["drift"]["changes"]))' \
		"$tmp/$1.audit.json" 2>&1
}
field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
v = eval(sys.argv[2])
print(" ".join(map(str, v)) if isinstance(v, tuple) else v)' "$tmp/$1.audit.json" "$2" 2>&1
}

SYS='C:\Windows\System32'
TD='C:\Python311\Lib\site-packages\torch'
TC='C:\hostedtoolcache\windows\Python\3.11.9\x64\Lib\site-packages\torch'

check_status "night 1: first snapshot" 0 audit n1
check_eq "night 1: first, no drift, status fail" "True 0 fail" "$(field n1 'd["first"], len(d["drift"]["changes"]), d["status"]')"
check_cmd "night 1: says it is the first snapshot" grep -q "first snapshot" "$tmp/n1.out"

check_status "night 2: nothing changed" 0 audit n2
check_eq "night 2: no drift, parent is night 1" "0 True" \
	"$(field n2 'len(d["drift"]["changes"]), d["parent"] == json.load(open(sys.argv[1].replace("n2", "n1")))["snapshot"]')"

# A Visual Studio install puts libomp140 in System32: torch 2.4.0 loads now — a failure hidden.
make_dll "$sys/libomp140.x86_64.dll" --export omp_get_max_threads >/dev/null 2>&1
check_status "night 3: libomp140 appeared (a warning; exit 0 with the default --fail-on error)" 0 audit n3
check_eq "night 3: drift" "warning openmp $SYS\\libomp140.x86_64.dll
note verdict $TD\\lib\\fbgemm.dll
note verdict $TD\\lib\\torch.dll
note verdict $TD\\lib\\torch_cpu.dll
note verdict $TD\\lib\\torch_python.dll
note verdict $TD\\_C.cp311-win_amd64.pyd
note status status" "$(drift n3)"

# It goes away again: the failure is back — errors, exit 1.
rm "$sys/libomp140.x86_64.dll"
check_status "night 4: libomp140 disappeared, binaries fail again (exit 1)" 1 audit n4
check_eq "night 4: drift, errors first" "error verdict $TD\\lib\\fbgemm.dll
error verdict $TD\\lib\\torch.dll
error verdict $TD\\lib\\torch_cpu.dll
error verdict $TD\\lib\\torch_python.dll
error verdict $TD\\_C.cp311-win_amd64.pyd
error status status
note openmp $SYS\\libomp140.x86_64.dll" "$(drift n4)"

# A reimage brings an older msvcp140.dll.
runtime "$sys" 14.29.30133.0 msvcp140.dll >/dev/null 2>&1
check_status "night 5: older msvcp140.dll" 0 audit n5
check_eq "night 5: drift" "note runtime-dll $SYS\\msvcp140.dll" "$(drift n5)"
check_eq "night 5: old and new version" "14.40.33810.0 -> 14.29.30133.0" \
	"$(field n5 'd["drift"]["changes"][0]["old"] + " -> " + d["drift"]["changes"][0]["new"]')"

# The redistributable is upgraded (both architectures): 14.44.35211.
redist_reg() {
	local key='HKEY_LOCAL_MACHINE\SOFTWARE\WOW6432Node\Microsoft\VisualStudio\14.0\VC\Runtimes' a
	{
		printf 'Windows Registry Editor Version 5.00\n\n[%s]\n\n' "$key"
		for a in x64 x86; do
			printf '[%s\\%s]\n"Installed"=dword:00000001\n"Version"="v%s"\n' "$key" "$a" "$1"
			printf '"Major"=dword:0000000e\n"Minor"=dword:%08x\n"Bld"=dword:%08x\n"Rbld"=dword:00000000\n\n' "$2" "$3"
		done
	} | reg_export "$tmp/runner.reg"
}
redist_reg 14.44.35211.00 44 35211
check_status "night 6: redistributable upgraded" 0 audit n6
check_eq "night 6: drift" "note redistributable x64
note redistributable x86" "$(drift n6)"

# torch upgraded in the tool cache.
printf "__version__ = '2.6.0+cpu'\ncuda = None\n" >"$m/hostedtoolcache/windows/Python/3.11.9/x64/Lib/site-packages/torch/version.py"
check_status "night 7: torch upgraded" 0 audit n7
check_eq "night 7: drift" "note install $TC" "$(drift n7 | grep install)"

# --fail-on note makes any drift fail.
runtime "$sys" 14.44.35211.0 vcruntime140_1.dll >/dev/null 2>&1
check_status "night 8: --fail-on note: a note fails" 1 audit n8 --fail-on note
check_eq "night 8: drift" "note runtime-dll $SYS\\vcruntime140_1.dll" "$(drift n8)"
check_status "--fail-on bogus: usage error" 2 "$gbin" audit --history "$hist" --runner r1 --report "$tmp/n1.json" --fail-on bogus

# history: the timeline, newest first
out=$("$gbin" history --history "$hist" --runner r1 2>&1)
check_eq "history: 8 snapshots" 8 "$(grep -c '^[0-9]\{4\}-' <<<"$out")"
check_cmd "history: night 4's errors with the first title" \
	grep -q "fail   [0-9a-f]\{12\}  6 error(s), 0 warning(s), 1 note(s): .*fbgemm.dll loaded and now fails" <<<"$out"
# what drifted, not only that it did: the error a failing night fails on, and the versions before and after
check_cmd "history: night 4 says what it fails on (its first error)" \
	grep -A1 "6 error(s), 0 warning(s), 1 note(s)" <<<"$out" | grep -q "^    fails on: fbgemm.dll cannot load: libomp140.x86_64.dll is missing"
check_cmd "history: night 4 says what changed, before -> after" \
	grep -qF "    changed: $SYS\\libomp140.x86_64.dll  " <<<"$out"
check_cmd "history: night 5 names the older msvcp140.dll, both versions" \
	grep -qF "    changed: $SYS\\msvcp140.dll  14.40.33810.0 -> 14.29.30133.0" <<<"$out"
check_cmd "history: night 6 names the redistributable's versions" \
	grep -qE "^    changed: x64  14\.40\.33810\.0 .*-> 14\.44\.35211\.0" <<<"$out"
check_eq "history --json: each snapshot's first error" "fbgemm.dll cannot load: libomp140.x86_64.dll is missing" \
	"$("$gbin" history --history "$hist" --runner r1 --json --limit 1 | jq -r '.snapshots[0].first_error' 2>&1)"
check_cmd "history: night 1 is the first snapshot (the last snapshot line)" bash -c "grep '^[0-9]\{4\}-' <<<'$out' | tail -1 | grep -q 'first snapshot'"
check_eq "history --json --limit 2" "2 torch-dll-check/history/v1" \
	"$("$gbin" history --history "$hist" --runner r1 --json --limit 2 | python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["snapshots"]), d["schema"])' 2>&1)"
check_status "history: unknown runner is exit 2" 2 "$gbin" history --history "$hist" --runner nobody

# The main program runs the git program for these commands.
check_status "torch-dll-check history reaches torch-dll-check-git" 0 "$bin" history --history "$hist" --runner r1

# Without --report: audit runs the check itself (CHECK-OPTIONS after --).
check_status "audit runs the check (r2; a first snapshot has no drift)" 0 "$gbin" audit --history "$hist" --runner r2 --fail-on warning --json "$tmp/r2.json" -- \
	--root "$m" --scan 'C:\' --registry "$tmp/runner.reg"
check_eq "r2: a report snapshot" "fail True" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["status"], d["first"])' "$tmp/r2.json" 2>&1)"
# check's options directly, without `--` (audit's own names stay audit's): the same snapshot
check_status "audit takes check's options directly (r2, a second night)" 0 "$gbin" audit --history "$hist" --runner r2 \
	--root "$m" --scan 'C:\' --json "$tmp/r2b.json" --registry="$tmp/runner.reg" --date 4000000000
check_eq "...the same check: no drift since the -- night" "0 False" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["drift"]["changes"]), d["first"])' "$tmp/r2b.json" 2>&1)"
check_status "...both ways at once" 0 "$gbin" audit --history "$hist" --runner r2 --root "$m" --date 4000086400 -- \
	--scan 'C:\' --registry "$tmp/runner.reg"
check_status "an option neither audit nor check knows is still a usage error" 2 "$gbin" audit --history "$hist" --runner r2 --bogus
check_cmd "...with did-you-mean from audit's options" sh -c "'$gbin' audit --runner r2 --histroy x 2>&1 | grep -q \"did you mean '--history'\""
# ... and an empty machine gives an inventory snapshot
mkdir -p "$tmp/empty/Windows/System32"
check_status "audit of a machine without torch: inventory snapshot" 0 "$gbin" audit --history "$hist" --runner empty --json "$tmp/empty.json" -- \
	--root "$tmp/empty" --scan 'C:\'
check_eq "empty: status inventory" "inventory" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$tmp/empty.json" 2>&1)"
check_status "audit: a check that cannot run is exit 2" 2 "$gbin" audit --history "$hist" --runner r3 -- --root "$tmp/nonexistent" --torch 'C:\x'

# fleet
out=$("$gbin" fleet --history "$hist" 2>&1)
check_cmd "fleet: failing rows first (r1 2.4.0)" bash -c "sed -n 2p <<<'$out' | grep -q '^r1 .*2.4.0+cpu.*fail'"
check_cmd "fleet: the empty runner has a row" grep -q "^empty .*(no torch install)" <<<"$out"
check_cmd "fleet: 3 runners" grep -q "^3 runner(s)" <<<"$out"
# the drift column says what drifted on r1's last night: the vcruntime140_1.dll upgrade, both versions
check_cmd "fleet: r1's drift says what changed, before -> after" \
	grep -qF "1 note(s): $SYS\\vcruntime140_1.dll changed: 14.40.33810.0 -> 14.44.35211.0" <<<"$out"
check_eq "fleet --format json: the row's drift_change" "$SYS\\vcruntime140_1.dll changed: 14.40.33810.0 -> 14.44.35211.0" \
	"$("$gbin" fleet --history "$hist" --format json | jq -r '.rows[] | select(.runner == "r1") | .drift_change' | sort -u 2>&1)"
md=$("$gbin" fleet --history "$hist" --format markdown --summary "$tmp/summary.md" 2>&1)
check_cmd "fleet --format markdown: a narrow table (runner, verdict, torch, drift: whole at GitHub's width)" \
	grep -qx '| runner | verdict | torch | drift since previous |' <<<"$md"
check_eq "...then one folded block per row, its first line naming the runner, torch and verdict; the other columns inside" \
	"$(grep -c '^| runner | verdict' <<<"$md") $(grep -c '^| snapshot (UTC) | ' <<<"$md")" \
	"1 $(grep -c '^<details><summary><b>' <<<"$md")"
check_cmd "fleet --summary: appended" grep -q "torch-dll-check fleet: 3 runner(s)" "$tmp/summary.md"
check_eq "fleet from report files" "n1 n5" "$("$gbin" fleet --format json "$tmp/n1.json" "$tmp/n5.json" |
	python3 -c 'import json,sys; print(" ".join(sorted({r["runner"] for r in json.load(sys.stdin)["rows"]})))' 2>&1)"
check_status "fleet: nothing to read is a usage error" 2 "$gbin" fleet

# Runner names are free text: hostile ones are encoded in the ref and escaped when printed.
evil=$'gpu box\n::error::x ##[add-mask]y'
check_status "a runner name with spaces, newline and workflow commands" 0 "$gbin" audit --history "$hist" --runner "$evil" --report "$tmp/n1.json"
check_cmd "its ref is %-encoded" bash -c "git -C '$hist' for-each-ref --format='%(refname)' | grep -q 'refs/torch-dll-check/gpu%20box%0A%3A%3Aerror'"
# live: a workflow command outside a stop-commands block, other than the block's own lines
live() {
	python3 "$TDC_REPO/tests/report/gh_commands.py" "$@" | python3 -c 'import json,re,sys
for l in sys.stdin:
    c = json.loads(l)
    if not c["stopped"] and c["name"] != "stop-commands" and not re.fullmatch("[0-9a-f]{32}", c["name"]):
        print(c["form"], c["name"], c["data"][:60])' 2>&1
}
GITHUB_ACTIONS=true "$gbin" history --history "$hist" >"$tmp/gh.out" 2>"$tmp/gh.err"
check_eq "under Actions, history: no live workflow command" "" "$(live "$tmp/gh.out" "$tmp/gh.err")"
check_cmd "under Actions, history: the runner name is there, escaped" grep -q 'gpu box' "$tmp/gh.out"
GITHUB_ACTIONS=true "$gbin" audit --history "$hist" --runner "$evil" --report "$tmp/n3.json" >"$tmp/gh.out" 2>"$tmp/gh.err"
check_eq "under Actions, audit: only its own annotations are live (1 warning, 6 notices)" "6 notice 1 warning" \
	"$(live "$tmp/gh.out" "$tmp/gh.err" | cut -d' ' -f2 | sort | uniq -c | awk '{print $1, $2}' | paste -sd' ')"
# one escaping path for every annotation (report/annotate.h): the line made visible (LF as \n), then escapeProperty
check_cmd "under Actions, audit: the annotation title names the runner, escaped" grep -qF '::warning title=torch-dll-check drift on gpu box\n%3A%3Aerror%3A%3Ax' "$tmp/gh.out"
GITHUB_ACTIONS=true "$gbin" fleet --history "$hist" --format markdown >"$tmp/gh.out" 2>"$tmp/gh.err"
check_eq "under Actions, fleet: no live workflow command" "" "$(live "$tmp/gh.out" "$tmp/gh.err")"

# ---- concurrency: no snapshot lost, none duplicated -------------------------
count() { git -C "$hist" rev-list --count "refs/torch-dll-check/$1" 2>/dev/null || echo 0; }
for n in 2 8; do
	pids=()
	for i in $(seq 1 "$n"); do
		"$gbin" audit --history "$hist" --runner "same$n" --report "$tmp/n1.json" --date $((night + i)) \
			>"$tmp/c$n.$i.out" 2>&1 &
		pids+=($!)
	done
	rcs=0
	for p in "${pids[@]}"; do wait "$p" || rcs=$((rcs + 1)); done
	check_eq "$n concurrent writers on one ref: all succeed" 0 "$rcs"
	check_eq "$n concurrent writers on one ref: $n snapshots on the chain" "$n" "$(count "same$n")"
	check_eq "$n concurrent writers: $n distinct dates (none duplicated)" "$n" \
		"$(git -C "$hist" log --format=%ct "refs/torch-dll-check/same$n" | sort -u | wc -l)"
done
pids=()
for i in $(seq 1 8); do
	"$gbin" audit --history "$hist" --runner "many$i" --report "$tmp/n5.json" >/dev/null 2>&1 &
	pids+=($!)
done
rcs=0
for p in "${pids[@]}"; do wait "$p" || rcs=$((rcs + 1)); done
check_eq "8 writers on 8 refs: all succeed, one snapshot each" "0 8" \
	"$rcs $(for i in $(seq 1 8); do count "many$i"; done | grep -c '^1$')"

# A fetch moves the ref between our read and our swap: the snapshot lands on top of it.
git clone -q --mirror "$hist" "$tmp/other.git"
"$gbin" audit --history "$tmp/other.git" --runner r1 --report "$tmp/n5.json" --date 1900000000 >/dev/null 2>&1
other=$(git -C "$tmp/other.git" rev-parse refs/torch-dll-check/r1)
before=$(count r1)
TDC_TEST_AUDIT_RACE="git -C '$hist' fetch -q '$tmp/other.git' '+refs/torch-dll-check/r1:refs/torch-dll-check/r1'" \
	"$gbin" audit --history "$hist" --runner r1 --report "$tmp/n1.json" --json "$tmp/race.json" >"$tmp/race.out" 2>&1
check_eq "race: retried once, on top of the fetched snapshot" "2 $other" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["attempts"], d["parent"])' "$tmp/race.json" 2>&1)"
check_eq "race: nothing lost (fetched + ours)" $((before + 2)) "$(count r1)"

# ---- damaged histories: exit 2, a clear line, nothing lost ------------------
blob=$(echo "not a commit" | git -C "$hist" hash-object -w --stdin)
git -C "$hist" update-ref refs/torch-dll-check/blob "$blob"
out=$("$gbin" audit --history "$hist" --runner blob --report "$tmp/n1.json" 2>&1)
rc=$?
check_eq "a ref at a blob: exit 2" 2 "$rc"
check_cmd "a ref at a blob: says so" grep -q "points at a blob, not a snapshot commit: left alone" <<<"$out"
check_eq "a ref at a blob: left alone" "$blob" "$(git -C "$hist" rev-parse refs/torch-dll-check/blob)"

# a snapshot that is not a report (a foreign commit on the ref)
tree=$(printf '100644 blob %s\treport.json\n' "$blob" | git -C "$hist" mktree)
foreign=$(git -C "$hist" commit-tree "$tree" -m foreign)
git -C "$hist" update-ref refs/torch-dll-check/foreign "$foreign"
out=$("$gbin" audit --history "$hist" --runner foreign --report "$tmp/n1.json" 2>&1)
rc=$?
check_eq "a non-report blob: exit 2" 2 "$rc"
check_cmd "a non-report blob: says the snapshot was written but not compared" \
	grep -q "the snapshot was written, but the previous snapshot's report.json is not JSON" <<<"$out"
check_eq "a non-report blob: the new snapshot sits on top" "$foreign" "$(git -C "$hist" rev-parse refs/torch-dll-check/foreign^)"

# another schema
echo '{"schema":"torch-dll-check/pins/v1"}' >"$tmp/pins.json"
"$gbin" audit --history "$hist" --runner schema --report "$tmp/n1.json" >/dev/null 2>&1
pb=$(git -C "$hist" hash-object -w "$tmp/pins.json")
tree=$(printf '100644 blob %s\treport.json\n' "$pb" | git -C "$hist" mktree)
c=$(git -C "$hist" commit-tree "$tree" -p refs/torch-dll-check/schema -m pins)
git -C "$hist" update-ref refs/torch-dll-check/schema "$c"
out=$("$gbin" audit --history "$hist" --runner schema --report "$tmp/n1.json" 2>&1)
check_cmd "a snapshot of another schema: named" grep -q "previous snapshot: schema torch-dll-check/pins/v1" <<<"$out"
check_status "audit --report of another schema: exit 2, nothing written" 2 "$gbin" audit --history "$hist" --runner schema --report "$tmp/pins.json"
check_eq "... the ref did not move" 3 "$(count schema)"

# a truncated commit object
git init -q --bare "$tmp/trunc.git"
"$gbin" audit --history "$tmp/trunc.git" --runner t --report "$tmp/n1.json" >/dev/null 2>&1
tip=$(git -C "$tmp/trunc.git" rev-parse refs/torch-dll-check/t)
obj=$tmp/trunc.git/objects/${tip:0:2}/${tip:2}
chmod u+w "$obj"
head -c 20 "$obj" >"$obj.t" && mv "$obj.t" "$obj"
out=$("$gbin" audit --history "$tmp/trunc.git" --runner t --report "$tmp/n1.json" 2>&1)
rc=$?
check_eq "a truncated snapshot: exit 2" 2 "$rc"
check_cmd "a truncated snapshot: one clear line naming it" grep -q "snapshot ${tip:0:12}" <<<"$out"
check_cmd "a truncated snapshot: the new one was written anyway, as a new root (the old is unreachable)" \
	grep -q "this snapshot starts a new history; the earlier snapshots are unreachable from it" <<<"$out"
check_eq "...a root commit on the ref" 0 "$(git -C "$tmp/trunc.git" rev-list --count "refs/torch-dll-check/t^@" 2>&1)"
check_status "history after it: exit 0, the new snapshot" 0 "$gbin" history --history "$tmp/trunc.git" --runner t

check_status "a history that is not a repository: exit 2" 2 "$gbin" audit --history "$tmp/empty" --runner x --report "$tmp/n1.json"
check_status "no runner name: exit 2" 2 "$gbin" audit --history "$hist" --report "$tmp/n1.json"
check_status "--report that is not JSON: exit 2" 2 "$gbin" audit --history "$hist" --runner x --report "$tmp/runner.reg"

tap_done
