#!/usr/bin/env bash
# test_report_files: the files the checker writes and reads as a hostile
# user or a full disk would meet them.
# - --json/--sarif: the temporary file is created exclusively under an
#   unpredictable name, so a symbolic link planted at the old predictable
#   name (FILE.tmp.<pid>) is never written through; a symlinked target is
#   replaced as a link (what it points to is left alone); nothing is left
#   behind.
# - --summary/--outputs: one block per write; a symbolic link is refused
#   (never appended through); a write that fails part-way (file size limit,
#   a full disk) cuts the file back to its old size and says why.
# - FIFOs and other non-regular files never hang a reader: report --in,
#   pe, pins --github-event and $GITHUB_EVENT_PATH.
# - report --in refuses data after the JSON document; a 100 MB event payload
#   is refused without a leak (the ASan build checks).
set -u
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=report-files
# shellcheck disable=SC2016  # expanded when the script exits
at_exit 'umount "$tmp/full" 2>/dev/null'
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_OUTPUT GITHUB_WORKFLOW_REF GITHUB_EVENT_NAME GITHUB_EVENT_PATH
python3 tests/report/gen_report.py fail240 >"$tmp/f.json" || not_ok "gen_report.py fail240"

# --- whole files: exclusive, unpredictable temporary file + rename ---------
echo victim >"$tmp/victim"
# sh's $$ is the checker's pid after exec: the link sits at the old temp name.
sh -c 'ln -s "$1/victim" "$1/r.json.tmp.$$"; exec "$2" report --in "$1/f.json" --json "$1/r.json" --format json' \
	sh "$tmp" "$B" >/dev/null 2>&1
check_eq "--json never writes through a link planted at FILE.tmp.<pid>" victim "$(cat "$tmp/victim")"
check_cmd "...and the report is written" python3 -c "import json; json.load(open('$tmp/r.json'))"
rm -f "$tmp"/r.json.tmp.*
ln -s "$tmp/victim" "$tmp/link.sarif"
"$B" report --in "$tmp/f.json" --sarif "$tmp/link.sarif" --format json >/dev/null 2>&1
check_eq "--sarif onto a symbolic link leaves what it points to alone" victim "$(cat "$tmp/victim")"
if [ -f "$tmp/link.sarif" ] && [ ! -L "$tmp/link.sarif" ]; then ok "...and replaces the link by the file"; else not_ok "link.sarif is still a link"; fi
mkdir "$tmp/ro"
chmod 0555 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then
	check_status "--json into a read-only folder: 2" 2 "$B" report --in "$tmp/f.json" --json "$tmp/ro/r.json" --format json
else
	skip_optional "--json into a read-only folder" "root ignores folder permissions"
fi
left=$(find "$tmp" -name '.*.??????' -o -name '*.tmp.*' | wc -l)
check_eq "no temporary files left behind" 0 "$left"

# --- appended blocks: no link followed, no half block ---------------------
echo victim >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/sum-link.md"
check_status "--summary onto a symbolic link: 2" 2 "$B" report --in "$tmp/f.json" --summary "$tmp/sum-link.md" --format json
check_eq "...and nothing was appended through it" victim "$(cat "$tmp/victim")"
ln -s "$tmp/victim" "$tmp/out-link"
check_status "--outputs onto a symbolic link: 2" 2 "$B" report --in "$tmp/f.json" --outputs "$tmp/out-link" --format json
mkfifo "$tmp/out-fifo"
check_status "--outputs onto a FIFO: 2, no hang" 2 timeout 20 "$B" report --in "$tmp/f.json" --outputs "$tmp/out-fifo" --format json

# A size limit of 2 KiB (ulimit -f counts KiB in bash): the block starts
# below it and cannot end there, so the write fails part-way.
head -c 1900 /dev/zero | tr '\0' x >"$tmp/out.txt"
(
	trap '' XFSZ
	ulimit -f 2
	exec "$B" report --in "$tmp/f.json" --outputs "$tmp/out.txt" --format json
) >/dev/null 2>"$tmp/fsz.err"
check_eq "a write cut by the file size limit: exit 2" 2 $?
check_eq "...the outputs file is cut back to its old size" 1900 "$(stat -c %s "$tmp/out.txt")"
check_cmd "...and the reason is given" grep -q 'File too large (the file was cut back' "$tmp/fsz.err"

# A real full disk, where we may mount a 64 KiB tmpfs.
mkdir "$tmp/full"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
	head -c 62000 /dev/zero >"$tmp/full/summary.md"
	before=$(stat -c %s "$tmp/full/summary.md")
	"$B" report --in "$tmp/f.json" --summary "$tmp/full/summary.md" --format json >/dev/null 2>"$tmp/nospc.err"
	check_eq "--summary on a full disk: exit 2" 2 $?
	check_eq "...the summary is cut back to its old size" "$before" "$(stat -c %s "$tmp/full/summary.md")"
	check_cmd "...and the reason is given" grep -q 'No space left on device' "$tmp/nospc.err"
	umount "$tmp/full"
else
	skip_optional "--summary on a full disk" "mounting a small tmpfs needs root"
fi

# --- readers: non-regular files, trailing data, size caps -----------------
mkfifo "$tmp/fifo"
check_status "report --in FIFO: 2, no hang" 2 timeout 20 "$B" report --in "$tmp/fifo"
check_status "pe FIFO: 2, no hang" 2 timeout 20 "$B" pe "$tmp/fifo"
check_status "report --in a directory: 2" 2 "$B" report --in "$tmp"
{ cat "$tmp/f.json"; echo '{"more": 1}'; } >"$tmp/trail.json"
check_status "report --in with data after the document: 2" 2 "$B" report --in "$tmp/trail.json" --format json
{ cat "$tmp/f.json"; printf '\r\n\t \n'; } >"$tmp/ws.json"
check_status "report --in with trailing whitespace is fine" 1 "$B" report --in "$tmp/ws.json" --format json

if [ -x "$G" ]; then
	git init -q "$tmp/repo" && git -C "$tmp/repo" -c user.name=t -c user.email=t@t commit -q --allow-empty -m init
	check_status "pins --github-event FIFO: 2, no hang" 2 timeout 20 "$B" pins --repo "$tmp/repo" --github-event "$tmp/fifo"
	check_status "\$GITHUB_EVENT_PATH a FIFO: 2, no hang" 2 env GITHUB_EVENT_NAME=pull_request \
		GITHUB_EVENT_PATH="$tmp/fifo" timeout 20 "$B" pins --repo "$tmp/repo"
	truncate -s 100M "$tmp/big-event.json"
	"$B" pins --repo "$tmp/repo" --github-event "$tmp/big-event.json" >/dev/null 2>"$tmp/big.err"
	check_eq "a 100 MB event payload: exit 2 (and no leak under ASan)" 2 $?
	check_cmd "...naming the cap" grep -q 'big-event.json is larger than' "$tmp/big.err"
else
	skip "pins on FIFOs and a 100 MB event" "$G not built"
fi
tap_done
