#!/usr/bin/env bash
# test_summary_user: the job summary as a user meets it (on generated report
# documents, tests/report/gen_report.py, through `report --in`):
# - `--summary -`, `--summary /dev/stdout` and `--format markdown` print the
#   summary to stdout (no file named "-"), with the check's exit status;
#   with another --format: a usage error;
# - a finding anchored to a pin names its file:line next to its title, a
#   link to the file at the PR's head commit in Actions (GITHUB_REPOSITORY,
#   GITHUB_SERVER_URL, pins.head.commit), plain text otherwise or when the
#   repository name is not a plain OWNER/REPO;
# - every finding (notes too) before the supporting tables (inventory);
# - the machine footer names only the fields it has (never "API sets: ;");
# - --confirm's agreement is said in the text and the summary.
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
TEST_NAME=summary-user
BIN=$B
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") # absolute: one run is in another folder
sha=0123456789abcdef0123456789abcdef01234567

python3 tests/report/gen_report.py fail240 >"$tmp/fail.json" || not_ok "gen_report.py fail240"
python3 - "$tmp/fail.json" "$tmp/doc.json" "$sha" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["api_set_schema"] = ""
d["machine"]["known_dlls"] = ""
d["pins"] = {"head": {"commit": sys.argv[3]}}
i = d["installs"][0]
i["confirmation"] = {"method": "helper", "exit_code": 0, "timed_out": False, "binaries_confirmed": 12, "mismatches": 0}
i["import_check"] = {"python": "C:\\Python311\\python.exe", "command": "import torch", "exit_code": 1,
                     "timed_out": False, "stderr_last_line": "OSError", "winerror": 126, "agrees": True}
# a note: it must come before the inventory
n = dict(d["findings"][1])
n.update({"severity": "note", "rule": "unknown-redistributable", "title": "a note for the order", "binary": None})
d["findings"].append(n)
json.dump(d, open(sys.argv[2], "w"))
PY

# --summary - / /dev/stdout / --format markdown: stdout, same bytes, exit 1 (the report fails)
(cd "$tmp" && "$BIN" report --in doc.json --summary - >"$tmp/dash.md" 2>"$tmp/dash.err")
rc=$?
check_eq "--summary -: the summary on stdout, exit 1 (the check's), no file named -" "1 1 no" \
	"$rc $(grep -c '^### ❌ torch-dll-check: torch will not load' "$tmp/dash.md") $([ -e "$tmp/-" ] && echo yes || echo no)"
"$BIN" report --in "$tmp/doc.json" --format markdown >"$tmp/fmt.md" 2>/dev/null
check_cmd "--format markdown: the same bytes" cmp "$tmp/dash.md" "$tmp/fmt.md"
"$BIN" report --in "$tmp/doc.json" --summary /dev/stdout >"$tmp/dev.md" 2>/dev/null
check_cmd "--summary /dev/stdout: the same bytes" cmp "$tmp/dash.md" "$tmp/dev.md"
check_status "--summary - with --format text: usage error" 2 "$BIN" report --in "$tmp/doc.json" --format text --summary -
check_status "--summary - with a bare --json: usage error" 2 "$BIN" report --in "$tmp/doc.json" --json --summary -

# the pin's file:line, linked to the file at the head commit in Actions
link="[requirements\\.txt\\:3](https://github.com/octo/app/blob/$sha/requirements.txt#L3)"
GITHUB_ACTIONS=true GITHUB_REPOSITORY=octo/app GITHUB_SERVER_URL=https://github.com \
	"$BIN" report --in "$tmp/doc.json" --format markdown >"$tmp/gh.md" 2>/dev/null
check_eq "in Actions: the error's title line ends with the pin, linked to the file at the PR's head" 1 \
	"$(grep -F '**1\. fbgemm\.dll cannot load' "$tmp/gh.md" | grep -cF " · $link  ")"
check_eq "outside Actions: the pin as plain text" 1 \
	"$(grep -F '**1\. fbgemm\.dll cannot load' "$tmp/dash.md" | grep -cF ' · requirements\.txt\:3  ')"
GITHUB_ACTIONS=true GITHUB_REPOSITORY='octo/app)[x](javascript:alert(1)' \
	"$BIN" report --in "$tmp/doc.json" --format markdown >"$tmp/evil.md" 2>/dev/null
check_eq "a repository name that is not OWNER/REPO: no link at all" "0 0" \
	"$(grep -c 'https://github.com/octo' "$tmp/evil.md") $(grep -c 'javascript' "$tmp/evil.md")"

# every finding before the supporting tables
order=$(grep -n '^#### Notes\|^### Inventory\|^#### torch 2' "$tmp/dash.md" | cut -d: -f2- | cut -c1-12 | paste -sd,)
check_eq "notes, then the install in full, then the inventory" "#### Notes (,#### torch 2,### Inventor" "$order"

# the footer: only the fields the machine has
foot=$(grep '^<sub>Machine:' "$tmp/dash.md")
check_eq "footer: no empty field (the document has no API set schema, no KnownDLLs source)" \
	'<sub>Machine: offline, x64; matrix: \<embedded\>\/matrix\/torch\.yml.</sub>' "$foot"

# --confirm's agreement, in the summary (verdict and the install) and the text
# shellcheck disable=SC2016 # the backticks are the text's own
phrase='confirmed by real loads on this machine: 12 torch binaries loaded by LoadLibraryExW in a helper process, all as predicted; `import torch` run: exit 1, as predicted'
check_eq "summary: --confirm's agreement under the install's line and in its section" 2 "$(grep -cF "$phrase" "$tmp/dash.md")"
"$BIN" report --in "$tmp/doc.json" --format text >"$tmp/text.out" 2>/dev/null
check_eq "text: --confirm's agreement" 1 "$(tr '\n' ' ' <"$tmp/text.out" | sed 's/  */ /g' | grep -cF "$phrase")"
"$BIN" report --in "$tmp/fail.json" --format text >"$tmp/plain.out" 2>/dev/null
check_eq "text without --confirm: nothing said about it" 0 "$(grep -c 'confirmed by real loads' "$tmp/plain.out")"
tap_done
