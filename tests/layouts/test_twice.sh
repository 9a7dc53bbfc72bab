#!/usr/bin/env bash
# shellcheck disable=SC2016  # jq programs in single quotes
# test_twice: two torch dist-infos in one site folder, on REAL wheels (issue #31).
#
# torch 2.3.0 and 2.9.1 (PyPI's win_amd64 cp311 wheels, tests/lib/wheels.py),
# laid out as pip leaves a folder it installed torch into twice:
#   - `pip install --target DIR torch==2.3.0`, then `... torch==2.9.1` without
#     --upgrade: pip keeps the old torch folder ("Target directory ... already
#     exists") and moves the new torch-2.9.1.dist-info in beside the old one;
#   - an upgrade over an old install whose uninstall did not finish: 2.9.1's
#     files over 2.3.0's, both dist-infos; 2.3.0's asmjit.dll and fbgemm.dll,
#     which 2.9.1 no longer ships, stay in torch\lib and torch's glob loads them.
# Each: one torch-installed-twice finding naming both dist-infos and versions,
# with the fix (uninstall both, then install one); the other install's files
# are counted in it, not reported one by one as leftovers. Without
# judge/record_twins the first gave no finding and the second two
# leftover-binary findings and no cause.
TEST_NAME=layouts/twice
export TEST_NAME
# shellcheck source=tests/lib/start.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/start.sh"
source "$TDC_REPO/tests/lib/fixtures.sh"
source "$TDC_REPO/tests/lib/wheels.sh"
source "$TDC_REPO/tests/lib/trees/wheels.sh"
W=$tmp

old=$(wheel_fetch torch 2.3.0 2>"$W/err") || { skip "two torch installs" "no torch 2.3.0 wheel: $(tail -1 "$W/err")"; tap_done; }
new=$(wheel_fetch torch 2.9.1 2>"$W/err") || { skip "two torch installs" "no torch 2.9.1 wheel: $(tail -1 "$W/err")"; tap_done; }

# extract WHEEL SITE: the files wheel_tree keeps (torch\lib, the .pyd files, version.py) and the
# dist-info's METADATA and whole RECORD, as pip leaves them
extract() {
	python3 - "$1" "$2" <<'PYEOF'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if re.fullmatch(r"torch/(lib/[^/]+\.dll|[^/]+\.pyd|version\.py)|torch-[^/]+\.dist-info/(METADATA|RECORD)", n, re.I):
        z.extract(n, sys.argv[2])
PYEOF
}
# dist_info WHEEL SITE: only the wheel's dist-info (pip -t without --upgrade moves it in, keeps torch\)
dist_info() {
	python3 - "$1" "$2" <<'PYEOF'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    if re.fullmatch(r"torch-[^/]+\.dist-info/(METADATA|RECORD)", n):
        z.extract(n, sys.argv[2])
PYEOF
}
J() { "$B" check --root "$W/$1" --python "$PY" --json 2>"$W/check.err" | jq -c "$2" 2>&1; }
twice='[.findings[] | select(.rule == "torch-installed-twice") | [.severity, .title]]'
left='[.findings[] | select(.rule == "leftover-binary") | .leaf]'

# ---- pip install --target twice, the second without --upgrade
PY=$(wheel_tree "$W/t" "$old" 2>"$W/err") || { not_ok "tree of torch 2.3.0"; sed 's/^/#   /' "$W/err" | head -5; tap_done; }
dist_info "$new" "$W/t/Python311/Lib/site-packages"
check_eq "pip -t twice: one finding naming both dist-infos and versions" \
	'[["warning","2 torch installs in one folder: torch 2.3.0 (torch-2.3.0.dist-info) and torch 2.9.1 (torch-2.9.1.dist-info)"]]' \
	"$(J t "$twice")"
check_eq "pip -t twice: the fix uninstalls both, then installs one" \
	'["uninstall every one of them, then install one: run `pip uninstall -y torch` 2 times (once per dist-info, until pip says torch is not installed), or, for a folder pip does not manage (`pip install --target`), delete C:\\Python311\\Lib\\site-packages\\torch, C:\\Python311\\Lib\\site-packages\\torch-2.3.0.dist-info and C:\\Python311\\Lib\\site-packages\\torch-2.9.1.dist-info; then install the one release you want (`torch==2.3.0` or `torch==2.9.1`)"]' \
	"$(J t '[.findings[] | select(.rule == "torch-installed-twice") | .fix]')"
check_eq "pip -t twice: no leftovers" '[]' "$(J t "$left")"
rm -rf "$W/t"

# ---- an upgrade over an old install: 2.9.1's files over 2.3.0's, both dist-infos
mkdir -p "$W/u/Python311/Lib/site-packages"
extract "$old" "$W/u/Python311/Lib/site-packages"
PY=$(wheel_tree "$W/u" "$new" 2>"$W/err") || { not_ok "tree of torch 2.9.1"; sed 's/^/#   /' "$W/err" | head -5; tap_done; }
check_eq "upgrade over 2.3.0: one error naming both, the record checked is 2.9.1's" \
	'[["error","2 torch installs in one folder: torch 2.9.1 (torch-2.9.1.dist-info) and torch 2.3.0 (torch-2.3.0.dist-info)"]]' \
	"$(J u "$twice")"
check_cmd "upgrade over 2.3.0: the message counts 2.3.0's binaries torch loads" \
	grep -q '2 of the binaries torch loads are listed only by another' <<<"$(J u '.findings[] | select(.rule == "torch-installed-twice") | .message')"
check_eq "upgrade over 2.3.0: asmjit.dll and fbgemm.dll are not reported as leftovers" '[]' "$(J u "$left")"
check_eq "upgrade over 2.3.0: 2.9.1's files are not called changed after install (2.3.0's RECORD is not the one used)" '0' \
	"$(J u '[.findings[] | select(.rule == "changed-after-install")] | length')"
check_eq "upgrade over 2.3.0: record summary of the dist-info checked" '"C:\\Python311\\Lib\\site-packages\\torch-2.9.1.dist-info"' \
	"$(J u '.installs[0].record.dist_info')"

# bad input: 34 more torch dist-infos (an install loop), one with a RECORD that is not a RECORD
for i in $(seq 10 43); do
	mkdir -p "$W/u/Python311/Lib/site-packages/torch-1.$i.0.dist-info"
	printf 'Metadata-Version: 2.1\nName: torch\nVersion: 1.%s.0\n\n' "$i" >"$W/u/Python311/Lib/site-packages/torch-1.$i.0.dist-info/METADATA"
done
printf 'torch/lib/c10.dll,sha256=!!,notasize\n"unterminated\n' >"$W/u/Python311/Lib/site-packages/torch-1.10.0.dist-info/RECORD"
check_eq "36 torch dist-infos: the cause said once, four named, the rest counted" \
	'[["warning","36 torch installs in one folder: torch 2.9.1 (torch-2.9.1.dist-info), torch 1.10.0 (torch-1.10.0.dist-info), torch 1.11.0 (torch-1.11.0.dist-info), torch 1.12.0 (torch-1.12.0.dist-info) and 32 more"]]' \
	"$(J u "$twice")"
check_cmd "36 torch dist-infos: those past the 32 read and the unreadable RECORD are said" \
	grep -q '3 more torch dist-infos were not read (at most 32 are).*torch-1.10.0.dist-info.*RECORD:1: hash digest is not urlsafe base64' \
	<<<"$(J u '.findings[] | select(.rule == "torch-installed-twice") | .message')"
check_cmd "36 torch dist-infos: the fix deletes every torch-*.dist-info" \
	grep -qF 'delete C:\\Python311\\Lib\\site-packages\\torch and every torch-*.dist-info in C:\\Python311\\Lib\\site-packages;' \
	<<<"$(J u '[.findings[] | select(.rule == "torch-installed-twice") | .fix]')"
tap_done
