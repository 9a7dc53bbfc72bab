#!/usr/bin/env bash
# test_pins_hostile: what anyone opening a pull request can put in the
# repository the gate reads, written here as an attacker would (objects made
# by hand with tests/pins/loose_object.py, trees with git mktree):
# - a blob bomb: a loose object of 256 KiB that inflates to 256 MiB, as
#   requirements.txt: refused from its header, in bounded memory (ulimit -v:
#   inflating it first, as libgit2 does, runs out) and time;
# - objects whose headers lie (fewer or more bytes than the stream holds),
#   truncated streams, trailing data: a clear error, never a hang or an
#   overrun (libgit2 1.5 loops on the first and overruns on the second);
# - fan-out: one 16 MiB blob at 5 paths: the pin files of one revision are
#   bounded together (64 MiB), not only each;
# - 40,000 torch pins whose markers all change: the diff is O(n log n);
# - TOML tables of 4,095 keys: duplicate keys found through a hash;
# - numpy==99999999999999999999 (pip accepts it) next to torch: only torch's
#   lines may fail the gate;
# - a partial clone (filter: blob:none): the missing blobs are fetched with
#   git from the promisor remote, or one line says the cause and the fix;
# The release binary is run under ulimit, the lying objects under ASan too.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=pins_hostile

here=$TDC_REPO/tests/pins
# the damaged repositories are read by both builds (expect_damaged)
if ! need build/asan/torch-dll-check-git; then
	skip "damaged repositories under ASan+UBSan" "build/asan/torch-dll-check-git could not be built (make unit-build)"
	TDC_ASAN_GIT_BIN=
fi
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
unset GITHUB_EVENT_NAME GITHUB_EVENT_PATH GITHUB_ACTIONS

# commit_tree REPO "MODE TYPE OID\tPATH"...: a commit of exactly these entries on main (HEAD).
commit_tree() {
	local repo=$1 t c
	shift
	t=$(printf '%s\n' "$@" | git -C "$repo" mktree) || return 1
	c=$(git -C "$repo" commit-tree -m hostile "$t") || return 1
	git -C "$repo" update-ref refs/heads/main "$c" && git -C "$repo" symbolic-ref HEAD refs/heads/main
}
# repo_with NAME OID [PATHS]: a repository whose commit holds object OID at each requirements path.
new_repo() { rm -rf "${tmp:?}/$1" && git init -q "$tmp/$1"; }

# run_limited OUT CPU_S VMEM_KB CMD...: runs CMD bounded in CPU time and address space.
run_limited() {
	local out=$1 cpu=$2 vm=$3
	shift 3
	(ulimit -t "$cpu" -v "$vm"; exec "$@") >"$out" 2>&1
}

# --- 1. a blob bomb -------------------------------------------------------------
new_repo bomb
oid=$(python3 "$here/loose_object.py" "$tmp/bomb/.git" $((256 << 20)))
commit_tree "$tmp/bomb" "100644 blob $oid	requirements.txt"
check_cmd "the bomb is a valid object git itself reads (git cat-file -s: 256 MiB)" \
	test "$(git -C "$tmp/bomb" cat-file -s "$oid")" = $((256 << 20))
check_cmd "...and under 1 MiB on disk" test "$(stat -c %s "$tmp/bomb/.git/objects/${oid:0:2}/${oid:2}")" -lt 1048576
run_limited "$tmp/bomb.out" 10 150000 "$TDC_GIT_BIN" pins --repo "$tmp/bomb"
check_eq "pins refuses a 256 MiB blob from its header: exit 2 in 150 MB of address space and 10 s" 2 $?
check_cmd "...saying it is larger than the cap (not 'out of memory')" \
	grep -q 'requirements.txt: larger than 16777216 bytes; refusing to parse it' "$tmp/bomb.out"

# --- 2. headers that lie, truncated and padded streams ---------------------------
lie() { # NAME SIZE DECLARED [TYPE]: a repository whose requirements.txt is such an object
	new_repo "$1"
	local o
	o=$(python3 "$here/loose_object.py" "$tmp/$1/.git" "$2" "$3" "${4:-blob}") &&
		commit_tree "$tmp/$1" "100644 blob $o	requirements.txt" && echo "$o"
}
tag() { case $1 in */asan/*) echo ASan ;; *) echo release ;; esac; }
expect_damaged() { # DESC REPO PATTERN
	local b
	for b in "$TDC_GIT_BIN" ${TDC_ASAN_GIT_BIN:+"$TDC_ASAN_GIT_BIN"}; do
		run_limited "$tmp/lie.out" 20 unlimited "$b" pins --repo "$tmp/$2"
		local rc=$?
		if [ $rc -eq 2 ] && grep -q "$3" "$tmp/lie.out"; then ok "$1 ($(tag "$b"))"; else
			not_ok "$1: exit $rc with $b"
			sed 's/^/#   /' "$tmp/lie.out" | head -5
		fi
	done
}
lie under 1048576 10 >/dev/null
expect_damaged "a header that says 10 bytes for 1 MiB: refused" under "its header says 10 bytes, it holds more"
lie over 10 1048576 >/dev/null
expect_damaged "a header that says 1 MiB for 10 bytes: refused" over "its header says 1048576 bytes, it holds 10"
o=$(lie trunc 100000 100000)
f=$tmp/trunc/.git/objects/${o:0:2}/${o:2}
chmod u+w "$f" && truncate -s 40 "$f"
expect_damaged "a truncated object: refused, no endless loop" trunc "damaged (truncated)"
o=$(lie trail 100 100)
f=$tmp/trail/.git/objects/${o:0:2}/${o:2}
chmod u+w "$f" && printf 'junk' >>"$f"
expect_damaged "an object with data after its zlib stream: refused" trail "trailing data"
# git mktree refuses to name an object of no type: the tree names a real blob, whose file is then replaced.
new_repo badtype
o=$(echo torch==2.4.0 | git -C "$tmp/badtype" hash-object -w --stdin)
commit_tree "$tmp/badtype" "100644 blob $o	requirements.txt"
f=$tmp/badtype/.git/objects/${o:0:2}/${o:2}
chmod u+w "$f" && python3 -c 'import sys, zlib; open(sys.argv[1], "wb").write(zlib.compress(b"blub 13\0torch==2.4.0\n"))' "$f"
expect_damaged "an object whose header names no git type: refused" badtype "no valid object header"

# --- 3. fan-out: one 16 MiB blob at many paths ----------------------------------
new_repo fan
python3 -c "
import sys
line = b'# ' + b'x' * 97 + b'\n'
sys.stdout.buffer.write(b'torch==2.4.0\n' + line * ((16 * 1024 * 1024 - 20) // len(line)))" >"$tmp/big.txt"
big=$(git -C "$tmp/fan" hash-object -w "$tmp/big.txt")
fan_to() { # N: the blob at requirements-1.txt .. requirements-N.txt
	local i entries=()
	for ((i = 1; i <= $1; i++)); do entries+=("100644 blob $big	requirements-$i.txt"); done
	commit_tree "$tmp/fan" "${entries[@]}"
}
fan_to 4
run_limited "$tmp/fan.out" 30 2000000 "$TDC_GIT_BIN" pins --repo "$tmp/fan" --json
check_eq "4 copies of a 16 MiB pin file (64 MiB together): read" "0 4" \
	"$? $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["head"]["files"]))' "$tmp/fan.out" 2>&1)"
fan_to 40
run_limited "$tmp/fan.out" 30 2000000 "$TDC_GIT_BIN" pins --repo "$tmp/fan"
check_eq "40 copies: exit 2 (the revision's pin files pass 64 MiB together)" 2 $?
check_cmd "...naming the file that passed the bound" \
	grep -q 'requirements-13.txt: the pin files of this revision pass 64 MiB together; refusing to read more' "$tmp/fan.out"

# --- 4. a PR that changes 40,000 torch pins, each with markers of its own --------
# pinset_diff paired every head pin by scanning the base: 40,000 took 15 s of CPU.
new_repo diff
gen_pins() { # VERSION MARKER-PREFIX
	awk -v v="$1" -v m="$2" 'BEGIN { for (i = 0; i < 40000; i++) printf "torch==%s ; platform_release == \"%s%d\"\n", v, m, i }'
}
gen_pins 2.4.0 k >"$tmp/diff/requirements.txt"
git -C "$tmp/diff" add requirements.txt && git -C "$tmp/diff" commit -qm base
gen_pins 2.4.1 j >"$tmp/diff/requirements.txt"
git -C "$tmp/diff" commit -qam head
run_limited "$tmp/diff.out" 5 2000000 "$TDC_GIT_BIN" pins --repo "$tmp/diff" --base HEAD~1 --head HEAD
check_eq "a diff of 40,000 changed torch pins in under 5 s of CPU (was 15 s: n^2)" 0 $?
check_eq "...every one a change" 40000 "$(grep -c '^  changed ' "$tmp/diff.out")"

# --- 5. an 8 MB pyproject.toml of tables with 4,095 keys each ---------------------
# Each new key was compared with every earlier key of its table: 2.4 s here
# (17 s on the machine that found it), 4x for 4x the keys per table.
new_repo toml
python3 "$here/many_keys_toml.py" 4095 8000000 >"$tmp/toml/pyproject.toml"
git -C "$tmp/toml" add pyproject.toml && git -C "$tmp/toml" commit -qm toml
run_limited "$tmp/toml.out" 1 2000000 "$TDC_GIT_BIN" pins --repo "$tmp/toml"
check_eq "an 8 MB pyproject.toml of 4,095-key tables in under 1 s of CPU" 0 $?
check_cmd "...its torch pin read" grep -q 'pyproject.toml:3:.*torch==2.4.0' "$tmp/toml.out"

# --- 6. a version number PEP 440 cannot order here, on another package ----------------
# pip accepts numpy==99999999999999999999; only torch's lines may fail the gate.
new_repo big
printf 'torch==2.4.0\nnumpy==99999999999999999999\n' >"$tmp/big/requirements.txt"
cat >"$tmp/big/pyproject.toml" <<'TOML'
[project]
name = "x"
dependencies = ["scipy==99999999999999999999"]
[tool.poetry.dependencies]
pandas = "99999999999999999999"
TOML
git -C "$tmp/big" add . && git -C "$tmp/big" commit -qm big
"$TDC_GIT_BIN" pins --repo "$tmp/big" >"$tmp/big.out" 2>&1
check_eq "numpy==99999999999999999999 next to torch (and in pyproject, poetry): exit 0" 0 $?
check_cmd "...torch's pin read" grep -q '^  requirements.txt:1:1  torch==2.4.0$' "$tmp/big.out"
printf 'torch==99999999999999999999\n' >"$tmp/big/requirements.txt"
git -C "$tmp/big" commit -qam torch
"$TDC_GIT_BIN" pins --repo "$tmp/big" >"$tmp/big.out" 2>&1
check_eq "torch==99999999999999999999: exit 2" 2 $?
check_cmd "...saying why, at the pin" grep -q "requirements.txt:1:8: invalid version specifier '==99999999999999999999': number too large" "$tmp/big.out"

# --- 7. a partial clone (actions/checkout with filter: blob:none) -----------------------
# Only the checked-out revision's blobs are there; the base's are fetched by git
# from the promisor remote, an included file's too (it is not found by name).
new_repo origin
mkdir -p "$tmp/origin/ci"
printf 'torch==2.4.0\n-r ci/extra.in\n' >"$tmp/origin/requirements.txt"
printf 'torchvision==0.19.0\n' >"$tmp/origin/ci/extra.in"
git -C "$tmp/origin" add . && git -C "$tmp/origin" commit -qm base
git -C "$tmp/origin" config uploadpack.allowfilter true
printf 'torch==2.4.1\n' >"$tmp/origin/requirements.txt"
git -C "$tmp/origin" rm -q ci/extra.in && git -C "$tmp/origin" commit -qam head
git clone -q --filter=blob:none "file://$tmp/origin" "$tmp/partial"
base_blob=$(git -C "$tmp/origin" rev-parse HEAD~1:requirements.txt)
# (rev-list --missing=print lists what is missing without fetching it, as cat-file -e would)
check_eq "the clone is partial: the base's two blobs are not in it" 2 \
	"$(git -C "$tmp/partial" rev-list --objects --missing=print HEAD~1 | grep -c '^?')"
cp -a "$tmp/partial" "$tmp/partial2"
"$TDC_GIT_BIN" pins --repo "$tmp/partial" --base HEAD~1 --head HEAD --json >"$tmp/partial.json" 2>"$tmp/partial.err"
check_eq "pins --base of a partial clone: exit 0 (git fetched the base's blobs)" 0 $?
check_eq "...the base's pin file and its included file read" "['requirements.txt', 'ci/extra.in']" \
	"$(python3 -c 'import json,sys; print([f["path"] for f in json.load(open(sys.argv[1]))["base"]["files"]])' "$tmp/partial.json" 2>&1)"
check_eq "...the change found" "changed ==2.4.0 ==2.4.1" \
	"$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["changes"][0]; print(c["change"], c["base"]["spec"], c["head"]["spec"])' "$tmp/partial.json" 2>&1)"
git -C "$tmp/partial2" remote set-url origin "file://$tmp/nowhere"
"$TDC_GIT_BIN" pins --repo "$tmp/partial2" --base HEAD~1 --head HEAD >"$tmp/partial.out" 2>&1
check_eq "a partial clone whose remote is gone: exit 2" 2 $?
check_eq "...one line saying the cause and the fix" 1 "$(grep -c "requirements.txt: cannot read the blob ${base_blob:0:12}: this is a partial clone (filter: blob:none) and git could not fetch the missing blobs from its remote origin (fatal: .*): check out without a filter, or with network access to origin" "$tmp/partial.out")"

tap_done
