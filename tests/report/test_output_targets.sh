#!/usr/bin/env bash
# test_output_targets: where --json/--sarif FILE may write. `-` and
# /dev/stdout mean standard output; any other target that exists and is not
# a regular file, or a link to one, is refused with exit 2 before anything
# is created or replaced: a character device (made here with mknod, a twin
# of /dev/null: the real one is never touched), a FIFO, a socket, a folder,
# a link to a device and links to a process's open files (/proc/self/fd/1,
# what /dev/stdout and /dev/stderr are). As root (container jobs) a rename
# over any of them replaced the node with a regular file.
# /dev/stdout itself is tried only in a private mount namespace with its own
# /dev (unshare -m): a regression must never replace the machine's own.
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=output-targets
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_WORKFLOW_REF GITHUB_EVENT_NAME GITHUB_EVENT_PATH
python3 tests/report/gen_report.py fail240 >"$tmp/f.json" || not_ok "gen_report.py fail240"

t=$tmp/t
mkdir -p "$t"
if [ "$(id -u)" -eq 0 ] && mknod "$t/null" c 1 3 2>/dev/null; then have_dev=1; else have_dev=0; fi
mkfifo "$t/fifo"
mkdir "$t/dir"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$t/sock"
ln -s /proc/self/fd/1 "$t/fd1"
ln -s /proc/self/fd/2 "$t/fd2"
[ $have_dev = 1 ] && ln -s null "$t/to-null"
listing() { (cd "$t" && find . -printf '%p %y %l\n' | sort); }
before=$(listing)

refused() { # DESC TARGET TYPE-WORD OPTION
	local out rc
	out=$("$B" report --in "$tmp/f.json" --format text "$4" "$t/$2" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && grep -q "$t/$2 is $3.*not a regular file: refusing to replace it" <<<"$out"; then
		ok "$4 $1: refused (exit 2)"
	else
		not_ok "$4 $1: exit $rc"
		printf '%s\n' "$out" | head -3 | sed 's/^/#   /'
	fi
}
for opt in --json --sarif; do
	if [ $have_dev = 1 ]; then
		refused "a character device (mknod c 1 3)" null "a device" $opt
		refused "a link to a character device" to-null "a device" $opt
	else
		skip "$opt a character device" "mknod needs root"
	fi
	refused "a FIFO" fifo "a FIFO" $opt
	refused "a socket" sock "a socket" $opt
	refused "a folder" dir "a directory" $opt
	refused "a link to /proc/self/fd/1" fd1 "a link to /proc/self/fd/1" $opt
	refused "a link to /proc/self/fd/2 (what /dev/stderr is)" fd2 "a link to /proc/self/fd/2" $opt
done
check_eq "...and nothing was created or replaced (types, links and names unchanged)" "$before" "$(listing)"

# The nightly audit's --json FILE goes through the same writer.
git init -q --bare "$tmp/hist"
"$B" report --in "$tmp/f.json" --format json >"$tmp/r.json" 2>/dev/null
out=$("$G" audit --history "$tmp/hist" --runner r1 --report "$tmp/r.json" --date 1764000000 --json "$t/fifo" 2>&1)
check_eq "audit --json FIFO: exit 2" 2 $?
check_cmd "...saying why" grep -q "is a FIFO, not a regular file" <<<"$out"
check_eq "...nothing created or replaced" "$before" "$(listing)"
out=$("$G" audit --history "$tmp/hist" --runner r2 --report "$tmp/r.json" --date 1764000000 --json - 2>/dev/null)
check_cmd "audit --json -: the audit document on stdout" grep -q '"snapshot"' <<<"$out"

# - is standard output.
out=$("$B" report --in "$tmp/f.json" --json - 2>/dev/null)
check_cmd "--json -: the JSON report on stdout" grep -q '"schema":[[:space:]]*"torch-dll-check/report/v1"' <<<"$out"
out=$("$B" report --in "$tmp/f.json" --sarif - 2>/dev/null)
check_cmd "--sarif -: the SARIF on stdout" grep -q '"version":[[:space:]]*"2.1.0"' <<<"$out"
check_cmd "...and no file named - was written" test ! -e ./- -a ! -e "$t/-"
# A regular file, and a link to a regular file (the link is replaced), are still written.
echo old >"$t/reg"
"$B" report --in "$tmp/f.json" --json "$t/reg" >/dev/null 2>&1
check_cmd "a regular file is replaced whole" grep -q torch-dll-check/report/v1 "$t/reg"

# /dev/stdout: in a mount namespace of its own, with a /dev of its own.
if command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
	# shellcheck disable=SC2016 # expanded by the inner sh
	out=$(unshare -m sh -c 'mount -t tmpfs tmpfs /dev && ln -s /proc/self/fd/1 /dev/stdout &&
		{ "$0" report --in "$1" --json /dev/stdout; "$0" report --in "$1" --sarif /dev/stdout; } 2>&1;
		ls -l /dev/stdout' "$B" "$tmp/f.json")
	check_cmd "--json /dev/stdout: the JSON report on stdout" grep -q 'torch-dll-check/report/v1' <<<"$out"
	check_cmd "--sarif /dev/stdout: the SARIF on stdout" grep -q '"version":[[:space:]]*"2.1.0"' <<<"$out"
	check_cmd "...and /dev/stdout is still the link to /proc/self/fd/1" grep -q '^l.*/dev/stdout -> /proc/self/fd/1$' <<<"$out"
else
	skip_optional "--json /dev/stdout" "no private mount namespace here (unshare -m needs CAP_SYS_ADMIN): never tried on the real /dev"
fi
tap_done
