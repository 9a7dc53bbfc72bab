#!/usr/bin/env bash
# test_pins_worktree: `pins --worktree` reads the working tree's pin files,
# uncommitted edits and new files included, walking it as a commit's tree is
# walked (the same names, the same skipped folders; links not followed); and
# without it, `pins` says when the working tree's torch pins differ from the
# commit it read, instead of ignoring the edit silently. `check --pins
# --worktree` judges the same working tree's pins against a runner.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=pins-worktree
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
repo=$tmp/repo
git init -q -b main "$repo"
printf 'numpy\ntorch==2.4.0\n' >"$repo/requirements.txt"
git -C "$repo" add -A && git -C "$repo" commit -qm "pin torch 2.4.0"

pins() { (cd "$repo" && "$G" pins "$@"); }

pins >"$tmp/clean.out" 2>"$tmp/clean.err"
check_eq "a clean checkout: no note" "" "$(cat "$tmp/clean.err")"

printf 'numpy\ntorch==2.4.1\n' >"$repo/requirements.txt"
pins >"$tmp/dirty.out" 2>"$tmp/dirty.err"
check_cmd "without --worktree: the commit's pin (2.4.0)" grep -q '^  requirements.txt:2:1  torch==2.4.0$' "$tmp/dirty.out"
check_cmd "...and a note naming the edited pin and --worktree" \
	grep -q "note: the working tree's torch pins differ from [0-9a-f]\{12\} (requirements.txt:2: torch==2.4.1).*pins --worktree" "$tmp/dirty.err"
pins --worktree >"$tmp/wt.out" 2>"$tmp/wt.err"
check_cmd "--worktree: the edit (2.4.1)" grep -q '^  requirements.txt:2:1  torch==2.4.1$' "$tmp/wt.out"
check_cmd "--worktree: the head says it is the working tree" grep -q '^head worktree (the working tree, uncommitted edits included)' "$tmp/wt.out"
pins --worktree --base HEAD >"$tmp/diff.out" 2>&1
check_cmd "--worktree --base HEAD: what the edit changes" \
	grep -q '^  changed  requirements.txt:2:1  torch==2.4.0  ->  torch==2.4.1$' "$tmp/diff.out"
check_eq "--worktree --json: head.commit is \"worktree\"" "worktree torch==2.4.1" \
	"$(pins --worktree --json | jq -r '"\(.head.commit) \(.head.files[0].pins[0].raw)"' 2>&1)"
check_status "--worktree --rev: a usage error" 2 pins --worktree --rev HEAD

# check --pins --worktree: the gate judges the same working tree, before any commit
mkdir -p "$tmp/root/Windows/System32" # a runner with nothing: the pin's row decides what is missing
gate() { (cd "$repo" && "$G" check --pins --root "$tmp/root" --json "$@" 2>&1); }
check_eq "check --pins --worktree: the edited pin (2.4.1) is judged, as the working tree's" \
	'["worktree","2.4.1","redist-missing","requirements.txt:2:1"]' \
	"$(gate --worktree | jq -c '[.pins.head.commit, .pins.targets[0].version, (.findings[0] | .rule, "\(.anchor.file):\(.anchor.line):\(.anchor.col)")]' 2>&1)"
check_eq "check --pins without it: the commit's pin (2.4.0)" '"2.4.0"' \
	"$(gate | jq -c '.pins.targets[0].version' 2>&1)"
check_eq "check --pins --worktree --base HEAD: the edit is a pin-changed note, judged though no commit changed" \
	'"requirements.txt:2: torch==2.4.0 -> requirements.txt:2: torch==2.4.1. Windows runners must satisfy matrix row torch-2.4.1-to-2.6 (2.4.1)."' \
	"$(gate --worktree --base HEAD | jq -c '.findings[] | select(.rule == "pin-changed") | .message' 2>&1)"
check_status "check --pins --worktree --head: a usage error" 2 gate --worktree --base HEAD --head HEAD
check_status "check --worktree without --pins: a usage error" 2 "$G" check --worktree --root "$tmp/root" --python 'C:\\Python311\\python.exe'

# new files count, skipped folders and links do not
mkdir -p "$repo/ci" "$repo/.venv/lib" "$repo/outside"
printf 'torch==2.5.1\n' >"$repo/ci/constraints.txt"
printf 'torch==1.0.0\n' >"$repo/.venv/lib/requirements.txt"
printf 'torch==9.9.9\n' >"$tmp/elsewhere.txt"
ln -s "$tmp/elsewhere.txt" "$repo/requirements-link.txt"
mkdir -p "$tmp/far/deep" && printf 'torch==8.8.8\n' >"$tmp/far/deep/requirements.txt"
ln -s "$tmp/far" "$repo/linked-dir"
pins --worktree >"$tmp/wt2.out" 2>&1
check_cmd "an untracked pin file is read" grep -q '^  ci/constraints.txt:1:1  torch==2.5.1$' "$tmp/wt2.out"
check_eq "a virtual environment's pin file is not" "" "$(grep '1\.0\.0' "$tmp/wt2.out")"
check_eq "a symbolic link to a file outside is not followed" "" "$(grep '9\.9\.9' "$tmp/wt2.out")"
check_eq "a symbolic link to a folder is not walked" "" "$(grep '8\.8\.8' "$tmp/wt2.out")"
printf 'torch 2.5\n' >"$repo/requirements.txt"
check_status "--worktree: an unparsable edit is an input error (exit 2)" 2 pins --worktree
check_cmd "...with FILE:LINE:COL" sh -c "cd '$repo' && '$G' pins --worktree 2>&1 | grep -q 'requirements.txt:1:'"
tap_done
