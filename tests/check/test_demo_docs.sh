#!/usr/bin/env bash
# shellcheck disable=SC2317  # demo.sh, sourced, ends with a `return` shellcheck takes for this script's
# test_demo_docs: the demo's report as the README and docs/check.md show it is
# the demo's real output, line for line, so the two can never drift apart.
# Runs `check` on the demo's runner tree (tests/lib/demo.sh) exactly as
# `make demo` does and compares with every fenced block in those files that
# starts with the verdict line ("FAIL 1 of 2 torch installs"). The text
# report prints Windows paths only (C:\...), so nothing of the host's paths
# needs masking; a host path in it would be a difference too.
TEST_NAME=demo-docs
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
# shellcheck source=tests/lib/demo.sh
source "$TDC_REPO/tests/lib/demo.sh"
set -u

d=$(demo_tree) || { not_ok "the demo's runner tree builds"; tap_done; }
NO_COLOR=1 "$B" check --root "$d/root" --scan "C:\\" --registry "$d/runner.reg" >"$tmp/demo.txt"
check_eq "the demo exits 1 (torch 2.4.0 fails)" 1 "$?"
check_eq "the demo's report names no host path" "" "$(grep -F -- "$d" "$tmp/demo.txt")"

# blocks FILE: writes each fenced block starting with the verdict line to $tmp/FILE.N
blocks() {
	awk -v out="$tmp/$(basename "$1")" '
		/^```/ { if (inb) { inb = 0; close(f) } else { inb = 1; first = 1 } next }
		inb && first { first = 0; if ($0 ~ /^FAIL 1 of 2 torch installs/) { n++; f = out "." n } else { f = "" } }
		inb && f != "" { print > f }' "$1"
}
for doc in README.md docs/check.md; do
	blocks "$TDC_REPO/$doc"
	n=0
	for b in "$tmp/$(basename "$doc")".*; do
		[ -e "$b" ] || continue
		n=$((n + 1))
		if diff -u "$b" "$tmp/demo.txt" >"$tmp/diff"; then
			ok "$doc: sample $n is the demo's output"
		else
			not_ok "$doc: sample $n is the demo's output (diff: the doc, then the demo)"
			sed 's/^/#   /' "$tmp/diff" | head -40
		fi
	done
	check_eq "$doc shows the demo's report" 1 "$([ "$n" -ge 1 ] && echo 1 || echo 0)"
done

# `make demo` as the quick start runs it (not a terminal, so the report wraps at
# 80 columns): its own expectations hold, at that width and at a narrow one
for cols in "" 40; do
	COLUMNS=$cols bash "$TDC_REPO/tests/lib/demo.sh" >"$tmp/make-demo.txt" 2>&1
	rc=$?
	check_eq "make demo's script passes its own expectations (COLUMNS=${cols:-unset})" 0 "$rc"
	[ "$rc" -eq 0 ] || tail -5 "$tmp/make-demo.txt" | sed 's/^/#   /'
done
tap_done
