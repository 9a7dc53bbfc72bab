#!/usr/bin/env bash
# test_audit_hostile: snapshot histories that are damaged, shallow or
# hostile, and what audit, history and fleet make of them.
# - a previous snapshot whose report.json is a blob bomb (256 KiB that
#   inflates to 300 MiB): refused from its header ("larger than 256 MiB")
#   in bounded memory, and the night's snapshot still written;
# - one bad runner (its ref at a blob, its snapshot truncated): fleet lists
#   the healthy runners and a row saying why for the bad one (it exited 2
#   with an empty table for everyone); history lists the others too;
# - refs fetched with --depth 5: history shows the 5 snapshots it has and
#   says the older ones were not fetched (it printed nothing, exit 2);
# - a ref naming a commit that is not in the repository (a stuck runner):
#   the snapshot is written as a new root saying the previous one is
#   unreachable, and the next night builds on it (every night failed with
#   "nothing was written" until the ref was mended by hand);
# - a runner named gpu..1 is encoded like other unsafe characters (it made an
#   invalid ref); a drift.json of {} reads as unreadable, not as
#   -9223372036854775808 errors.
set -u
TEST_NAME=audit_hostile
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
gbin=$G
rel=$TDC_GIT_BIN # bounded in time and memory (ulimit): the release build
export GIT_CONFIG_NOSYSTEM=1 HOME=$tmp GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t \
	GIT_COMMITTER_EMAIL=t@example.com
unset GITHUB_ACTIONS RUNNER_NAME GITHUB_WORKSPACE
python3 tests/report/gen_report.py fail240 >"$tmp/r.json" || not_ok "gen_report.py"
night=1764547200
snap() { # HIST RUNNER [N]: the next night's snapshot
	night=$((night + 86400))
	"$gbin" audit --history "$1" --runner "$2" --report "$tmp/r.json" --date "$night" >/dev/null 2>&1
}

# --- a report.json bomb in the previous snapshot ------------------------------------
h=$tmp/bomb.git
git init -q --bare "$h"
bomb=$(python3 tests/pins/loose_object.py "$h" $((300 << 20)))
drift=$(echo '{}' | git -C "$h" hash-object -w --stdin)
t=$(printf '100644 blob %s\treport.json\n100644 blob %s\tdrift.json\n' "$bomb" "$drift" | git -C "$h" mktree)
c=$(git -C "$h" commit-tree -m "audit snapshot of runner b" "$t")
git -C "$h" update-ref refs/torch-dll-check/b "$c"
out=$( (ulimit -t 20 -v 300000; exec "$rel" audit --history "$h" --runner b --report "$tmp/r.json" --date $night) 2>&1)
check_eq "a 300 MiB report.json bomb in the previous snapshot: exit 2 (written, not compared) in 300 MB" 2 $?
check_cmd "...refused from its header" grep -q "its report.json is larger than 256 MiB" <<<"$out"
check_eq "...and the night's snapshot written on top of it" "$c" "$(git -C "$h" rev-parse refs/torch-dll-check/b^ 2>&1)"

# --- one bad runner does not blind the fleet ----------------------------------------
h=$tmp/fleet.git
git init -q --bare "$h"
for r in r1 r2 blob trunc; do snap "$h" $r; done
blob=$(echo "not a commit" | git -C "$h" hash-object -w --stdin)
git -C "$h" update-ref refs/torch-dll-check/blob "$blob"
snap "$h" trunc
tip=$(git -C "$h" rev-parse refs/torch-dll-check/trunc)
obj=$h/objects/${tip:0:2}/${tip:2}
chmod u+w "$obj" && head -c 20 "$obj" >"$obj.t" && mv "$obj.t" "$obj"
out=$("$gbin" fleet --history "$h" 2>&1)
check_eq "fleet with a ref at a blob and a truncated snapshot: exit 0" 0 $?
check_cmd "...the healthy runners listed" grep -q '^r2 ' <<<"$out"
check_cmd "...a row for the ref at a blob saying why" \
	grep -q '^blob .*unreadable .*refs/torch-dll-check/blob points at a blob, not a snapshot commit' <<<"$out"
check_cmd "...a row for the truncated snapshot saying why" \
	grep -q "^trunc .*unreadable .*snapshot ${tip:0:12} cannot be read: object ${tip:0:12} is damaged (truncated)" <<<"$out"
check_cmd "...4 runners" grep -q '^4 runner(s)' <<<"$out"
out=$("$gbin" fleet --history "$h" --format json 2>&1)
check_eq "fleet --format json: the bad rows too" "2 unreadable" \
	"$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); v=[r["verdict"] for r in d["rows"] if r["runner"] in ("blob","trunc")]; print(len(v), v[0])' "$out" 2>&1)"
out=$("$gbin" history --history "$h" 2>&1)
check_eq "history of every runner: exit 0" 0 $?
check_cmd "...r1 listed" grep -q '^r1 ' <<<"$out"
check_cmd "...the ref at a blob is a line saying why" grep -q '^blob .*points at a blob' <<<"$out"

# --- a shallow fetch of the snapshot refs ------------------------------------------
h=$tmp/deep.git
git init -q --bare "$h"
for _ in 1 2 3 4 5 6 7 8; do snap "$h" r1; done
git init -q --bare "$tmp/shallow.git"
git -C "$tmp/shallow.git" fetch -q --depth 5 "file://$h" 'refs/torch-dll-check/*:refs/torch-dll-check/*'
out=$("$gbin" history --history "$tmp/shallow.git" --runner r1 2>&1)
check_eq "history of refs fetched with --depth 5: exit 0" 0 $?
check_eq "...the 5 snapshots it has, then one line saying the rest was not fetched" \
	"5 (older snapshots were not fetched: a shallow fetch; git fetch --unshallow, or fetch-depth: 0)" \
	"$(grep -c ' fail \| warn \| pass ' <<<"$out") $(tail -1 <<<"$out")"
check_eq "history --json: older_not_fetched on the last" "5 True" \
	"$("$gbin" history --history "$tmp/shallow.git" --runner r1 --json |
		python3 -c 'import json,sys; s=json.load(sys.stdin)["snapshots"]; print(len(s), s[-1].get("older_not_fetched"))' 2>&1)"
out=$("$gbin" fleet --history "$tmp/shallow.git" 2>&1)
check_cmd "fleet of the shallow fetch: the runner's row" grep -q '^r1 .*fail' <<<"$out"

# --- a stuck runner: its ref names a commit that is not in the repository --------------
h=$tmp/stuck.git
git init -q --bare "$h"
snap "$h" ok
mkdir -p "$h/refs/torch-dll-check"
echo 1234567890123456789012345678901234567890 >"$h/refs/torch-dll-check/stuck"
night=$((night + 86400))
out=$("$gbin" audit --history "$h" --runner stuck --report "$tmp/r.json" --date $night --json "$tmp/stuck.json" 2>&1)
check_eq "a ref naming a missing commit: the snapshot is written (exit 2: not compared)" 2 $?
check_cmd "...saying the previous one is unreachable" \
	grep -q "previous snapshot 123456789012 cannot be read (object 123456789012 is not in the repository): this snapshot starts a new history; the earlier snapshots are unreachable from it" <<<"$out"
new=$(git -C "$h" rev-parse refs/torch-dll-check/stuck)
check_eq "...as a root commit" 0 "$(git -C "$h" rev-list --count "$new^@" 2>&1)"
check_eq "...audit --json: no parent, the problem said" "None True" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["parent"], "unreachable" in d["problem"])' "$tmp/stuck.json" 2>&1)"
night=$((night + 86400))
check_status "the next night builds on it: exit 0" 0 "$gbin" audit --history "$h" --runner stuck --report "$tmp/r.json" --date $night
check_eq "...its parent is the new root" "$new" "$(git -C "$h" rev-parse refs/torch-dll-check/stuck^ 2>&1)"

# --- runner names, drift.json -------------------------------------------------------
h=$tmp/names.git
git init -q --bare "$h"
check_status "a runner named gpu..1: audited" 0 "$gbin" audit --history "$h" --runner gpu..1 --report "$tmp/r.json" --date $night
check_eq "...on a valid ref, the second '.' encoded" "refs/torch-dll-check/gpu.%2E1" \
	"$(git -C "$h" for-each-ref --format='%(refname)' refs/torch-dll-check/)"
check_cmd "...history and fleet name it gpu..1" bash -c \
	"'$gbin' history --history '$h' --runner gpu..1 >/dev/null && '$gbin' fleet --history '$h' | grep -q '^gpu\.\.1 '"
tree=$(printf '100644 blob %s\treport.json\n100644 blob %s\tdrift.json\n' \
	"$(git -C "$h" hash-object -w "$tmp/r.json")" "$(echo '{}' | git -C "$h" hash-object -w --stdin)" | git -C "$h" mktree)
c=$(git -C "$h" commit-tree -m "audit snapshot of runner e" "$tree")
git -C "$h" update-ref refs/torch-dll-check/e "$c"
out=$("$gbin" history --history "$h" --runner e 2>&1)
check_cmd "a drift.json of {}: 'drift unreadable'" grep -q ' drift unreadable$' <<<"$out"
check_cmd "...never INT64_MIN" bash -c "! grep -q -- '-9223372036854775808' <<<'$out'"
out=$("$gbin" history --history "$h" --runner e --json 2>&1)
check_cmd "...history --json: no counts for it" bash -c "! grep -q '\"errors\"' <<<'$out'"
tap_done
