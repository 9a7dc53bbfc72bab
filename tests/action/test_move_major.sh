#!/usr/bin/env bash
# test_move_major: action/move-major.sh, the release workflow's last step,
# against a real bare origin: the first release creates the major tag, a
# newer release moves it, a backport (an older version, released later)
# leaves it with a notice, a rerun of the same release changes nothing, a
# major tag another release moved meanwhile is not overwritten (the push is
# a compare-and-swap), and bad arguments are refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=move-major
script=$PWD/action/move-major.sh

export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
git init -q --bare "$tmp/origin.git"
git init -q "$tmp/w"
cd "$tmp/w" || exit 1
git remote add origin "$tmp/origin.git"
c() { git commit -q --allow-empty -m "$1" && git rev-parse HEAD; }
c1=$(c one) && git tag v0.1.0
c2=$(c two) && git tag v0.2.0
git checkout -q -b backport "$c1"
c3=$(c backport) && git tag v0.1.5
git checkout -q -
c4=$(c three) && git tag v0.3.0
git push -q origin --tags
at() { git -C "$tmp/origin.git" rev-parse -q --verify "refs/tags/v0^{commit}" || echo none; }

check_eq "first release v0.1.0: v0 created at it" "$c1" "$(bash "$script" v0.1.0 "$c1" >/dev/null 2>&1; at)"
check_eq "v0.2.0: v0 moved forward to it" "$c2" "$(bash "$script" v0.2.0 "$c2" >/dev/null 2>&1; at)"
out=$(bash "$script" v0.1.5 "$c3" 2>&1)
check_eq "backport v0.1.5 released after v0.2.0: exit 0, v0 stays at v0.2.0" "0 $c2" "$? $(at)"
check_eq "...with a notice saying why" \
	"::notice title=move-major::v0 stays at v0.2.0: v0.1.5 is older (a backport); pin @v0.1.5 to use it" "$out"
check_eq "the same release again: nothing changes" "0 $c2" "$(bash "$script" v0.2.0 "$c2" >/dev/null 2>&1; echo "$? $(at)")"
# another release moved v0 on the origin after this job fetched the tags
git -C "$tmp/origin.git" tag -f v0 "$c4" >/dev/null
git checkout -q -b fix "$c2"
c5=$(c fix) && git tag v0.2.1
bash "$script" v0.2.1 "$c5" >/dev/null 2>&1
rc=$?
check_eq "v0 moved on the origin meanwhile: the push is refused (stale lease), v0 stays at v0.3.0's commit" "1 $c4" \
	"$([ "$rc" -ne 0 ] && echo 1 || echo 0) $(at)"
check_status "a tag that is not vX.Y.Z: 2" 2 bash "$script" v0.2 "$c2"
check_status "a commit that is not 40 hex digits: 2" 2 bash "$script" v0.2.0 HEAD
tap_done
